//! The byte limit of `IoRead` holds on its buffered fast path too: reads
//! inside one buffer fill stop exactly at the limit.

use serde::Deserialize;

#[derive(Deserialize, Debug, PartialEq)]
struct Pair {
    a: u32,
    b: u32,
}

const BYTES: [u8; 8] = [1, 0, 0, 0, 2, 0, 0, 0];

#[test]
fn a_limit_that_covers_the_value_reads_it() {
    let p: Pair = kiln::Options::new()
        .byte_limit(8)
        .from_reader(&BYTES[..])
        .unwrap();
    assert_eq!(p, Pair { a: 1, b: 2 });
}

#[test]
fn a_read_that_crosses_the_limit_fails_at_its_start() {
    for limit in 4..8 {
        let err = kiln::Options::new()
            .byte_limit(limit)
            .from_reader::<_, Pair>(&BYTES[..])
            .unwrap_err();
        assert_eq!(err.kind().code(), "byte-limit", "limit {limit}");
        assert_eq!(err.offset(), Some(4), "limit {limit}");
    }
    let err = kiln::Options::new()
        .byte_limit(3)
        .from_reader::<_, Pair>(&BYTES[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(0));
}

#[test]
fn the_limit_holds_across_buffer_refills() {
    // 3,000 u32 = 12,000 bytes: more than one 8 KiB buffer fill.
    let values: Vec<u32> = (0..3000).collect();
    let bytes = kiln::to_vec(&values).unwrap();
    let ok: Vec<u32> = kiln::Options::new()
        .byte_limit(bytes.len() as u64)
        .from_reader(&bytes[..])
        .unwrap();
    assert_eq!(ok, values);
    // Element by element (a `VecDeque` does not take the block path), the
    // limit stops the last element, after two buffer refills.
    let err = kiln::Options::new()
        .byte_limit(bytes.len() as u64 - 1)
        .from_reader::<_, std::collections::VecDeque<u32>>(&bytes[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(bytes.len() as u64 - 4));
    // As one block (`Vec<u32>`), the whole block is checked against the
    // limit before it is read, so the error points at its first byte.
    let err = kiln::Options::new()
        .byte_limit(bytes.len() as u64 - 1)
        .from_reader::<_, Vec<u32>>(&bytes[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(4));
}
