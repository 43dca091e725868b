//! Hostile input: counts that lie, strings that never arrive, nesting a
//! hundred thousand levels deep. Each must fail with its own error, fast,
//! on the test thread's own stack (2 MiB by default: stricter than a main
//! thread), and without allocating more than the input justifies.
//!
//! The binary's counting allocator (`common::alloc`) records, per thread,
//! the peak of bytes held, so each test can bound what decoding allocated.

use std::collections::BTreeMap;

use crate::common::hex;
use serde::Deserialize;

/// Runs `f` and returns its result with the most bytes it held at once
/// (on this thread) beyond what was live before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (out, cost) = crate::common::alloc::measure(f);
    (out, cost.peak)
}

/// The allocator really counts: a 1 MiB vector shows up as 1 MiB.
#[test]
fn the_counter_counts() {
    let (v, peak) = peak_of(|| vec![0u8; 1 << 20]);
    assert_eq!(v.len(), 1 << 20);
    assert!(peak >= 1 << 20, "peak {peak}");
}

// ----- lying counts -----

#[test]
fn ten_bytes_claiming_four_billion_u64s_fail_fast() {
    // Count 4_000_000_000 (0xee6b2800), then 6 bytes.
    let bytes = hex("00 28 6b ee 01 02 03 04 05 06");
    assert_eq!(bytes.len(), 10);
    let (err, peak) = peak_of(|| kiln::from_slice::<Vec<u64>>(&bytes).unwrap_err());
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(0));
    assert!(peak < 1024, "from_slice held {peak} bytes");

    // From a reader the count cannot be checked against the input, only
    // against the byte limit: 32 GB of u64s is past the default 1 GiB.
    let (err, peak) = peak_of(|| kiln::from_reader::<_, Vec<u64>>(&bytes[..]).unwrap_err());
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(4));
    assert!(peak < 16 * 1024, "from_reader held {peak} bytes");

    // With the limit raised, elements are read as they arrive and the input
    // runs out at the first one. The reader's own 8 KiB buffer and the
    // first 4 KiB step of elements (a vector of numbers is read in
    // steps that grow with the bytes that arrived) are all it holds:
    // nothing that grows with the 32 GB claimed.
    let (err, peak) = peak_of(|| {
        kiln::Options::new()
            .byte_limit(u64::MAX)
            .from_reader::<_, Vec<u64>>(&bytes[..])
            .unwrap_err()
    });
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(4));
    assert!(peak < 16 * 1024, "from_reader held {peak} bytes");
}

#[test]
fn counts_never_reserve_more_than_the_input_holds() {
    // A count within the bound (one byte per element plus the zero-sized
    // budget) but far beyond the bytes: the vector must not reserve 8 MB.
    let mut bytes = (1_000_000u32).to_le_bytes().to_vec();
    bytes.extend_from_slice(&[0; 64]);
    // (Elements that are not plain numbers: a Vec of numbers may be read
    // as a block, whose count is checked against its element size.)
    let (err, peak) = peak_of(|| kiln::from_slice::<Vec<Option<u64>>>(&bytes).unwrap_err());
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(4 + 64));
    assert!(peak < 4096, "held {peak} bytes");
    // Maps and strings of strings likewise.
    let (err, peak) = peak_of(|| kiln::from_slice::<BTreeMap<u64, String>>(&bytes).unwrap_err());
    assert_eq!(err.kind().code(), "unexpected-end");
    assert!(peak < 4096, "held {peak} bytes");
    let (err, peak) = peak_of(|| kiln::from_slice::<Vec<String>>(&bytes).unwrap_err());
    assert_eq!(err.kind().code(), "unexpected-end");
    assert!(peak < 4096, "held {peak} bytes");
}

#[test]
fn a_string_claiming_four_gigabytes_from_a_reader() {
    let bytes = hex("ff ff ff ff 61 62 63");
    // Without a byte limit in the way, the reader copies what arrives and
    // finds the end of input after 3 bytes.
    let opts = kiln::Options::new().byte_limit(u64::MAX);
    let (err, peak) = peak_of(|| opts.from_reader::<_, String>(&bytes[..]).unwrap_err());
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(4));
    assert_eq!(
        err.to_string(),
        "unexpected end of input: expected string bytes (4294967295 bytes), found 3 bytes \
         at byte 4"
    );
    assert!(peak < 16 * 1024, "held {peak} bytes");
    // Byte strings too (at most one bounded step beyond the buffer).
    let (err, peak) = peak_of(|| {
        opts.from_reader::<_, serde_bytes::ByteBuf>(&bytes[..])
            .unwrap_err()
    });
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(4));
    assert!(peak < 128 * 1024, "held {peak} bytes");
    // With the default 1 GiB limit the claim is refused before reading.
    let (err, peak) = peak_of(|| kiln::from_reader::<_, String>(&bytes[..]).unwrap_err());
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(4));
    assert!(peak < 16 * 1024, "held {peak} bytes");
    // From a slice: the end of input, with nothing allocated for the string.
    let (err, peak) = peak_of(|| kiln::from_slice::<String>(&bytes).unwrap_err());
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(4));
    assert!(peak < 1024, "held {peak} bytes");
}

#[test]
fn four_billion_units() {
    let bytes = hex("00 28 6b ee");
    // A slice knows no bytes remain: beyond the zero-sized budget at once.
    let (err, peak) = peak_of(|| kiln::from_slice::<Vec<()>>(&bytes).unwrap_err());
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(0));
    assert!(peak < 1024);
    // A reader stops when the budget (2^20 by default) is spent.
    let (err, peak) = peak_of(|| kiln::from_reader::<_, Vec<()>>(&bytes[..]).unwrap_err());
    assert_eq!(err.kind().code(), "zero-sized-limit");
    assert_eq!(err.offset(), Some(4));
    assert_eq!(
        err.to_string(),
        "too many zero-byte elements: the limit is 1048576 at byte 4 in [1048576]"
    );
    assert!(peak < 16 * 1024);
    // Other zero-byte elements, and maps of them, draw on the same budget.
    #[derive(Deserialize, Debug)]
    struct Nothing;
    let opts = kiln::Options::new().zero_sized_limit(10);
    let err = opts.from_reader::<_, Vec<Nothing>>(&bytes[..]).unwrap_err();
    assert_eq!(err.kind().code(), "zero-sized-limit");
    let err = opts.from_reader::<_, Vec<[u8; 0]>>(&bytes[..]).unwrap_err();
    assert_eq!(err.kind().code(), "zero-sized-limit");
    let err = opts
        .from_reader::<_, BTreeMap<(), ()>>(&bytes[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "zero-sized-limit");
    let err = opts.from_slice::<BTreeMap<(), ()>>(&bytes[..]).unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
}

// ----- nesting -----

const LEVELS: usize = 100_000;

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct NestedOption(Option<Box<NestedOption>>);

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Tree {
    Leaf,
    Node(Box<Tree>),
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct NestedVec(Vec<NestedVec>);

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct NestedMap(BTreeMap<u8, NestedMap>);

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Expr {
    Lit(u8),
    Add { left: Box<Expr>, right: u8 },
}

/// Both from a slice and from a reader, on this thread's stack.
fn too_deep<T: serde::de::DeserializeOwned + std::fmt::Debug>(bytes: &[u8], offset: u64) {
    let err = kiln::from_slice::<T>(bytes).unwrap_err();
    assert_eq!(err.kind().code(), "depth-limit", "{err}");
    assert_eq!(err.offset(), Some(offset), "{err}");
    assert_eq!(err.path().map(|p| p.len() < 1000), Some(true));
    let err = kiln::from_reader::<_, T>(bytes).unwrap_err();
    assert_eq!(err.kind().code(), "depth-limit", "{err}");
    assert_eq!(err.offset(), Some(offset), "{err}");
}

#[test]
fn a_hundred_thousand_nested_options() {
    // Levels: the newtype before tag k is 2k + 1; the limit of 128 stops
    // at the newtype before tag 64.
    too_deep::<NestedOption>(&vec![1u8; LEVELS], 64);
}

#[test]
fn a_hundred_thousand_nested_enum_variants() {
    // Each Node is one enum level; the 129th starts at byte 128 * 4.
    let bytes: Vec<u8> = std::iter::repeat_n([1u8, 0, 0, 0], LEVELS)
        .flatten()
        .collect();
    too_deep::<Tree>(&bytes, 128 * 4);
    // Struct variants nest the same way, two levels each (enum, struct).
    too_deep::<Expr>(&bytes, 64 * 4);
}

#[test]
fn a_hundred_thousand_nested_vecs() {
    // NestedVec is a newtype around a Vec: two levels per count. The
    // newtype that starts at byte 64 * 4 would be level 129.
    let bytes: Vec<u8> = std::iter::repeat_n([1u8, 0, 0, 0], LEVELS)
        .flatten()
        .collect();
    too_deep::<NestedVec>(&bytes, 64 * 4);
}

#[test]
fn a_hundred_thousand_nested_maps() {
    // Count 1, key 0, then the value: another map. Two levels per entry
    // (newtype, map); the newtype at byte 64 * 5 would be level 129.
    let bytes: Vec<u8> = std::iter::repeat_n([1u8, 0, 0, 0, 0], LEVELS)
        .flatten()
        .collect();
    too_deep::<NestedMap>(&bytes, 64 * 5);
}

#[test]
fn the_default_depth_is_reachable_on_a_test_thread() {
    // The deepest value the default limit allows decodes without
    // overflowing a 2 MiB stack, for each recursive shape.
    let mut bytes = vec![1u8; 63];
    bytes.push(0);
    kiln::from_slice::<NestedOption>(&bytes).unwrap();
    kiln::from_reader::<_, NestedOption>(&bytes[..]).unwrap();

    let mut bytes: Vec<u8> = std::iter::repeat_n([1u8, 0, 0, 0], 127).flatten().collect();
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    kiln::from_slice::<Tree>(&bytes).unwrap();
    kiln::from_reader::<_, Tree>(&bytes[..]).unwrap();

    let mut bytes: Vec<u8> = std::iter::repeat_n([1u8, 0, 0, 0], 63).flatten().collect();
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    kiln::from_slice::<NestedVec>(&bytes).unwrap();
    kiln::from_reader::<_, NestedVec>(&bytes[..]).unwrap();
}

// ----- the options -----

#[test]
fn max_depth_option() {
    // Every option takes a level, Some or None, checked before its tag:
    // Some(Some(Some(None))) of four options needs four levels.
    let bytes = hex("01 01 01 00");
    type Deep = Option<Option<Option<Option<u8>>>>;
    let v: Deep = kiln::Options::new()
        .max_depth(4)
        .from_slice(&bytes)
        .unwrap();
    assert_eq!(v, Some(Some(Some(None))));
    // With three, the fourth option fails at its tag, byte 3.
    let err = kiln::Options::new()
        .max_depth(3)
        .from_slice::<Deep>(&bytes)
        .unwrap_err();
    assert_eq!(err.kind().code(), "depth-limit");
    assert_eq!(err.offset(), Some(3));
    assert_eq!(
        err.to_string(),
        "nesting too deep: the limit is 3 levels at byte 3"
    );
    // Depth 0 still reads a scalar, but no container.
    let opts = kiln::Options::new().max_depth(0);
    assert_eq!(opts.from_slice::<u32>(&[1, 0, 0, 0]).unwrap(), 1);
    let err = opts.from_slice::<Option<u8>>(&[0]).unwrap_err();
    assert_eq!((err.kind().code(), err.offset()), ("depth-limit", Some(0)));
    let err = opts.from_slice::<Vec<u8>>(&[0, 0, 0, 0]).unwrap_err();
    assert_eq!((err.kind().code(), err.offset()), ("depth-limit", Some(0)));
    // The depth is given back when a value ends: siblings do not add up.
    let wide = kiln::to_vec(&vec![Some(Some(1u8)); 50]).unwrap();
    let opts = kiln::Options::new().max_depth(3);
    assert_eq!(
        opts.from_slice::<Vec<Option<Option<u8>>>>(&wide).unwrap(),
        vec![Some(Some(1)); 50]
    );
}

#[test]
fn byte_limit_option() {
    let bytes = kiln::to_vec(&(1u32, "hello".to_string())).unwrap();
    assert_eq!(bytes.len(), 13);
    let ok: (u32, String) = kiln::Options::new()
        .byte_limit(13)
        .from_reader(&bytes[..])
        .unwrap();
    assert_eq!(ok, (1, "hello".into()));
    // Twelve bytes: the string bytes at offset 8 would pass the limit.
    let err = kiln::Options::new()
        .byte_limit(12)
        .from_reader::<_, (u32, String)>(&bytes[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(8));
    assert_eq!(
        err.to_string(),
        "byte limit: expected at most 12 bytes of input, found a value reaching past them \
         at byte 8 in .1"
    );
    // A limit inside a fixed-size number.
    let err = kiln::Options::new()
        .byte_limit(2)
        .from_reader::<_, (u32, String)>(&bytes[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(0));
    // Slices are bounded by their own length; the option does not apply.
    let v: (u32, String) = kiln::Options::new()
        .byte_limit(1)
        .from_slice(&bytes)
        .unwrap();
    assert_eq!(v.1, "hello");
}

#[test]
fn zero_sized_limit_option() {
    let bytes = hex("05 00 00 00");
    let opts = kiln::Options::new().zero_sized_limit(5);
    assert_eq!(opts.from_slice::<Vec<()>>(&bytes).unwrap().len(), 5);
    assert_eq!(opts.from_reader::<_, Vec<()>>(&bytes[..]).unwrap().len(), 5);
    let opts = kiln::Options::new().zero_sized_limit(4);
    let err = opts.from_slice::<Vec<()>>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(0));
    let err = opts.from_reader::<_, Vec<()>>(&bytes[..]).unwrap_err();
    assert_eq!(err.kind().code(), "zero-sized-limit");
    assert_eq!(err.offset(), Some(4));
    assert_eq!(err.path().as_deref(), Some("[4]"));
    // The budget is for the whole record, not for each sequence.
    // A slice sees at the second count that only 2 of the 5 are left.
    let two = hex("03 00 00 00 03 00 00 00");
    let opts = kiln::Options::new().zero_sized_limit(5);
    let err = opts.from_slice::<(Vec<()>, Vec<()>)>(&two).unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(4));
    assert_eq!(err.path().as_deref(), Some(".1"));
    assert_eq!(
        err.to_string(),
        "count too large: found a count of 3, but the rest of the input can hold at most 2 elements \
         (one byte each, plus the zero-byte budget) at byte 4 in .1"
    );
    // A reader runs out at the third element of the second.
    let err = opts
        .from_reader::<_, (Vec<()>, Vec<()>)>(&two[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "zero-sized-limit");
    assert_eq!(err.offset(), Some(8));
    assert_eq!(err.path().as_deref(), Some(".1[2]"));
    // Map entries of zero bytes: the path names the entry.
    let err = opts
        .from_reader::<_, BTreeMap<(), ()>>(&hex("06 00 00 00")[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "zero-sized-limit");
    assert_eq!(err.path().as_deref(), Some("{entry 5}"));
    // And each record starts afresh.
    let opts = kiln::Options::new().zero_sized_limit(3);
    for _ in 0..3 {
        assert_eq!(
            opts.from_slice::<Vec<()>>(&hex("03 00 00 00"))
                .unwrap()
                .len(),
            3
        );
    }
}
