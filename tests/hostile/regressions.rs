//! Inputs that fuzzing or the bound tests once found troublesome, kept so
//! they stay handled. Each test says where its input came from.

use crate::common::rich;

use rich::{RichOwned, RichRef};

/// Offset of `Rich.text`'s count in the encoding of `rich::sample_values()`:
/// everything before it has a fixed size.
fn text_count_offset() -> usize {
    // flag 1, small 2, mid 12, big 32, huge 32, floats 12, letter 4.
    1 + 2 + 12 + 32 + 32 + 12 + 4
}

/// fuzz/decode, first minute: a string count above the reader's byte limit.
/// The slice reports `unexpected-end`, the stream refuses before reading
/// with `byte-limit`, both at the first byte after the count and in the
/// same field. (Catalogued in spec/09-rejections.md, 9.2; the harness now
/// accepts exactly this pair.)
#[test]
fn string_count_above_the_byte_limit() {
    let mut bytes = kiln::to_vec(&rich::sample_values()[1]).unwrap();
    let at = text_count_offset();
    assert_eq!(bytes[at..at + 6], [2, 0, 0, 0, b'h', b'i']);
    bytes[at..at + 4].copy_from_slice(&0xc000_0000u32.to_le_bytes());
    let e = kiln::from_slice::<RichRef<'_>>(&bytes)
        .map(drop)
        .unwrap_err();
    let f = kiln::from_reader::<_, RichOwned>(&bytes[..])
        .map(drop)
        .unwrap_err();
    assert_eq!(e.kind().code(), "unexpected-end");
    assert_eq!(f.kind().code(), "byte-limit");
    assert_eq!(e.offset(), Some(at as u64 + 4));
    assert_eq!(f.offset(), e.offset());
    assert_eq!(e.path().as_deref(), Some("Rich.text"));
    assert_eq!(f.path(), e.path());
    // Below the limit the stream reads what arrives and agrees with the slice.
    bytes[at..at + 4].copy_from_slice(&0x1000_0000u32.to_le_bytes());
    let f = kiln::from_reader::<_, RichOwned>(&bytes[..])
        .map(drop)
        .unwrap_err();
    assert_eq!(
        (f.kind().code(), f.offset()),
        ("unexpected-end", Some(at as u64 + 4))
    );
}

/// tests/bounds.rs, `nested_vectors_at_every_level_of_the_depth_limit`:
/// each open sequence used to be hinted as many elements as bytes were
/// left, so nested claims reserved depth x n x size_of bytes (16 KiB of
/// input held 25 MB). Hints now share one budget; these honest records,
/// whose nested counts add up to more than the bytes left, must still
/// decode to exactly their values.
#[test]
fn nested_counts_beyond_the_shared_hint_budget_decode_exactly() {
    let units: Vec<Vec<()>> = vec![vec![(); 1000], vec![], vec![(); 3]];
    let bytes = kiln::to_vec(&units).unwrap();
    assert_eq!(bytes.len(), 16);
    assert_eq!(kiln::from_slice::<Vec<Vec<()>>>(&bytes).unwrap(), units);

    let nested: Vec<Vec<Vec<u8>>> = (0..50)
        .map(|i| (0..i % 7).map(|j| vec![j as u8; i % 3]).collect())
        .collect();
    let bytes = kiln::to_vec(&nested).unwrap();
    assert_eq!(
        kiln::from_slice::<Vec<Vec<Vec<u8>>>>(&bytes).unwrap(),
        nested
    );

    let maps: Vec<std::collections::BTreeMap<u8, Vec<u16>>> = (0..20u8)
        .map(|i| {
            (0..i)
                .map(|k| (k, vec![u16::from(k); usize::from(i)]))
                .collect()
        })
        .collect();
    let bytes = kiln::to_vec(&maps).unwrap();
    assert_eq!(
        kiln::from_slice::<Vec<std::collections::BTreeMap<u8, Vec<u16>>>>(&bytes).unwrap(),
        maps
    );
}
