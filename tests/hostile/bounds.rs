//! Bounds on what decoding hostile input may cost.
//!
//! * Memory: a counting global allocator (per thread, reset per case) checks
//!   that decoding `n` bytes holds at most `K * n + C` bytes at its peak,
//!   whatever counts the input claims, from slices and from readers.
//! * Depth: deeply nested input fails with `depth-limit` (here on the test
//!   harness's 2 MiB threads; `tests/depth_main.rs` repeats it on the main
//!   thread with a million levels).
//! * Work: decoding `8n` bytes of repeated small counts does no more than
//!   eight times the work of `n` bytes. Work is counted (elements visited,
//!   allocations, reads from the reader), never timed.

use crate::common::alloc;
use crate::common::rich;

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::io;

use crate::common::nesting::{Chain, Nest, Opt};
use alloc::{Cost, measure};
use quickcheck::{QuickCheck, TestResult};
use rich::{RichOwned, RichRef, Unit};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

/// Bytes the decoder may hold whatever the input: the reader's 8 KiB
/// buffer, the error, the field path, small bookkeeping.
const C: usize = 16 * 1024;

fn le(count: u32) -> [u8; 4] {
    count.to_le_bytes()
}

/// `count` as a u32, then `rest`.
fn counted(count: u32, rest: &[u8]) -> Vec<u8> {
    let mut v = le(count).to_vec();
    v.extend_from_slice(rest);
    v
}

/// Decodes `input` as `T` from a slice and from a reader; both must fail
/// with the given codes and hold at most `k * n + C` bytes at their peak.
fn hostile<T: DeserializeOwned>(
    what: &str,
    input: &[u8],
    k: usize,
    slice_code: &str,
    reader_code: &str,
) {
    let n = input.len();
    let limit = k * n + C;
    let (res, cost) = measure(|| kiln::from_slice::<T>(input).map(drop));
    let err = res.expect_err(what);
    assert_eq!(err.kind().code(), slice_code, "{what} (slice): {err}");
    assert!(
        cost.peak <= limit,
        "{what} (slice): {n} bytes of input held {} bytes (limit {limit})",
        cost.peak
    );
    let (res, cost) = measure(|| kiln::from_reader::<_, T>(input).map(drop));
    let err = res.expect_err(what);
    assert_eq!(err.kind().code(), reader_code, "{what} (reader): {err}");
    assert!(
        cost.peak <= limit,
        "{what} (reader): {n} bytes of input held {} bytes (limit {limit})",
        cost.peak
    );
}

// ----- memory: hostile counts ---------------------------------------------

#[test]
fn vec_u64_claiming_four_billion() {
    // Vec<u64> is a block: from a slice its count is checked against the
    // bytes left at 8 bytes an element; a stream first checks the block
    // against the 1 GiB byte limit.
    let input = counted(u32::MAX, &[0; 6]);
    hostile::<Vec<u64>>("Vec<u64>", &input, 8, "count-too-large", "byte-limit");
}

#[test]
fn vec_u64_claiming_as_many_as_there_are_bytes() {
    // 4092 u64s cannot fit in 4092 bytes. The block path knows it before
    // reading, but reports what the element-by-element reading of the same
    // seq<u64> does (spec 4.3): the count passes the one-byte check and
    // the u64s run out first. So does a stream, in bounded steps.
    let input = counted(4092, &[7; 4092]);
    hostile::<Vec<u64>>("Vec<u64>", &input, 16, "unexpected-end", "unexpected-end");
    // Element by element (a VecDeque is not a block): the same.
    hostile::<std::collections::VecDeque<u64>>(
        "VecDeque<u64>",
        &input,
        16,
        "unexpected-end",
        "unexpected-end",
    );
}

#[test]
fn vec_f32_block_path_claiming_too_many() {
    // From a slice, a count above the bytes left plus the zero-sized budget
    // is refused at once; a smaller one runs out of elements, as for any
    // seq<f32>. Either way nothing is allocated for the count. A stream
    // refuses what is past its byte limit and otherwise reads what arrives,
    // in bounded steps.
    for count in [u32::MAX, 1 << 21, 1 << 20, 4092] {
        let input = counted(count, &[0; 4092]);
        let slice = if u64::from(count) > 4092 + (1 << 20) {
            "count-too-large"
        } else {
            "unexpected-end"
        };
        let reader = if u64::from(count) * 4 > (1 << 30) {
            "byte-limit"
        } else {
            "unexpected-end"
        };
        hostile::<Vec<f32>>("Vec<f32>", &input, 16, slice, reader);
    }
}

#[test]
fn string_claiming_four_billion_bytes() {
    // Above the reader's 1 GiB byte limit the reader refuses before
    // reading; below it, it reads what arrives, in steps.
    for (count, reader_code) in [(u32::MAX, "byte-limit"), (1 << 29, "unexpected-end")] {
        for tail in [0usize, 100, 20_000] {
            let input = counted(count, &vec![b'a'; tail]);
            hostile::<String>("String", &input, 4, "unexpected-end", reader_code);
            hostile::<serde_bytes::ByteBuf>("ByteBuf", &input, 4, "unexpected-end", reader_code);
        }
    }
}

#[test]
fn zero_sized_elements_claiming_four_billion() {
    let input = counted(u32::MAX, &[]);
    hostile::<Vec<()>>("Vec<()>", &input, 1, "count-too-large", "zero-sized-limit");
    hostile::<Vec<Unit>>(
        "Vec<Unit>",
        &input,
        1,
        "count-too-large",
        "zero-sized-limit",
    );
    hostile::<Vec<[u8; 0]>>(
        "Vec<[u8; 0]>",
        &input,
        1,
        "count-too-large",
        "zero-sized-limit",
    );
    // Just over the budget: the slice's count check sees it at once; the
    // reader counts to the budget and stops there.
    let input = counted((1 << 20) + 1, &[]);
    hostile::<Vec<()>>("Vec<()>", &input, 1, "count-too-large", "zero-sized-limit");
    // Exactly the budget, then a trailing byte: both read 2^20 units.
    let input = counted(1 << 20, &[0]);
    hostile::<Vec<()>>("Vec<()>", &input, 1, "trailing-bytes", "trailing-bytes");
}

#[test]
fn zero_sized_budget_is_shared_by_the_whole_record() {
    // 64 vectors of 2^15 units each: 2^21 units in all, over the 2^20
    // budget. After 32 of them the budget is spent: the slice's count check
    // refuses the 33rd count, the reader counts to the limit.
    let mut input = le(64).to_vec();
    for _ in 0..64 {
        input.extend_from_slice(&le(1 << 15));
    }
    hostile::<Vec<Vec<()>>>(
        "Vec<Vec<()>>",
        &input,
        32,
        "count-too-large",
        "zero-sized-limit",
    );
    let e = kiln::from_slice::<Vec<Vec<()>>>(&input).unwrap_err();
    assert_eq!(e.offset(), Some(4 + 32 * 4));
}

#[test]
fn hash_map_claiming_too_many_entries() {
    let input = counted(u32::MAX, &[1; 12]);
    hostile::<HashMap<u32, u32>>("HashMap", &input, 16, "count-too-large", "unexpected-end");
    let input = counted(4092, &[1; 4092]);
    hostile::<HashMap<u32, u32>>("HashMap", &input, 32, "unexpected-end", "unexpected-end");
    hostile::<BTreeMap<u64, String>>("BTreeMap", &input, 32, "unexpected-end", "unexpected-end");
}

#[test]
fn nested_vectors_claiming_as_many_as_there_are_bytes() {
    // Every level claims as many elements as bytes remain.
    let n = 4096u32;
    let mut input = Vec::new();
    for level in 0..3 {
        input.extend_from_slice(&le(n - 4 * (level + 1)));
    }
    input.resize(n as usize, 0xab);
    hostile::<Vec<Vec<Vec<u8>>>>(
        "Vec<Vec<Vec<u8>>>",
        &input,
        96,
        "unexpected-end",
        "unexpected-end",
    );
}

#[test]
fn nested_vectors_at_every_level_of_the_depth_limit() {
    // 127 levels each claim every remaining byte as an element: a decoder
    // that reserves for each level's claim holds depth * n * size_of.
    let n = 16 * 1024;
    let mut input = Vec::new();
    while input.len() < 127 * 4 {
        let claim = (n - input.len() - 4) as u32;
        input.extend_from_slice(&le(claim));
    }
    input.resize(n, 0xff);
    hostile::<Nest>("Nest", &input, 64, "depth-limit", "depth-limit");
}

// ----- memory: random inputs for the rich type ----------------------------

/// Holds at most this many bytes per input byte, plus [`C`] and a
/// constant for the rich type's own size.
const RICH_K: usize = 64;

fn rich_input(seed: Vec<u8>, cut: u16, flips: Vec<(u16, u8)>) -> Option<Vec<u8>> {
    let mut u = arbitrary::Unstructured::new(&seed);
    let value: RichOwned = u.arbitrary().ok()?;
    let mut bytes = kiln::to_vec(&value).ok()?;
    for (at, x) in flips {
        if !bytes.is_empty() {
            let i = at as usize % bytes.len();
            bytes[i] ^= x;
        }
    }
    if !bytes.is_empty() && cut.is_multiple_of(3) {
        bytes.truncate(cut as usize % bytes.len());
    }
    Some(bytes)
}

fn rich_peak_is_bounded(seed: Vec<u8>, cut: u16, flips: Vec<(u16, u8)>) -> TestResult {
    let Some(input) = rich_input(seed, cut, flips) else {
        return TestResult::discard();
    };
    let limit = RICH_K * input.len() + C + 4 * std::mem::size_of::<RichOwned>();
    let (_, slice) = measure(|| kiln::from_slice::<RichRef<'_>>(&input).map(drop));
    let (_, reader) = measure(|| kiln::from_reader::<_, RichOwned>(&input[..]).map(drop));
    if slice.peak > limit || reader.peak > limit {
        return TestResult::error(format!(
            "{} bytes: slice peak {}, reader peak {}, limit {limit}",
            input.len(),
            slice.peak,
            reader.peak
        ));
    }
    TestResult::passed()
}

#[test]
fn rich_type_peak_is_linear_in_the_input() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(rich_peak_is_bounded as fn(Vec<u8>, u16, Vec<(u16, u8)>) -> TestResult);
}

#[test]
fn random_bytes_peak_is_linear_in_the_input() {
    fn prop(input: Vec<u8>) -> bool {
        let limit = RICH_K * input.len() + C + 4 * std::mem::size_of::<RichOwned>();
        let (_, slice) = measure(|| kiln::from_slice::<RichRef<'_>>(&input).map(drop));
        let (_, reader) = measure(|| kiln::from_reader::<_, RichOwned>(&input[..]).map(drop));
        slice.peak <= limit && reader.peak <= limit
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Vec<u8>) -> bool);
}

// ----- depth ----------------------------------------------------------------

fn depth_error<T: DeserializeOwned>(input: &[u8]) -> (String, Option<u64>, String, Option<u64>) {
    let e = kiln::from_slice::<T>(input).map(drop).unwrap_err();
    let f = kiln::from_reader::<_, T>(input).map(drop).unwrap_err();
    (
        e.kind().code().to_string(),
        e.offset(),
        f.kind().code().to_string(),
        f.offset(),
    )
}

#[test]
fn deep_nesting_is_a_depth_error() {
    let levels = 100_000;
    let chain: Vec<u8> = [1, 0, 0, 0].repeat(levels);
    let nest: Vec<u8> = [1, 0, 0, 0].repeat(levels);
    let opt: Vec<u8> = vec![1; levels];
    for (what, got) in [
        ("Chain", depth_error::<Chain>(&chain)),
        ("Nest", depth_error::<Nest>(&nest)),
        ("Opt", depth_error::<Opt>(&opt)),
    ] {
        assert_eq!(got.0, "depth-limit", "{what}");
        assert_eq!(got.2, "depth-limit", "{what}");
        assert_eq!(got.1, got.3, "{what}: slice and reader offsets");
    }
}

#[test]
fn depth_limit_is_exact() {
    // 127 `Some`s then `None` nest 128 levels (the outer newtype is one):
    // Opt(Some(Opt(...))) -> each level is a newtype plus an option.
    let ok: Vec<u8> = [vec![1u8; 63], vec![0]].concat();
    assert!(kiln::from_slice::<Opt>(&ok).is_ok());
    let too_deep: Vec<u8> = [vec![1u8; 64], vec![0]].concat();
    let e = kiln::from_slice::<Opt>(&too_deep).unwrap_err();
    assert_eq!(e.kind().code(), "depth-limit");
    assert_eq!(e.offset(), Some(64));
}

// ----- work -----------------------------------------------------------------

thread_local! {
    static TICKS: Cell<u64> = const { Cell::new(0) };
}

/// Counts every value of type `T` the decoder hands to serde.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Tick<T>(#[allow(dead_code)] T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Tick<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TICKS.with(|t| t.set(t.get() + 1));
        T::deserialize(d).map(Tick)
    }
}

/// An `io::Read` that counts calls and bytes handed over.
struct CountingReader<'a> {
    data: &'a [u8],
    calls: u64,
    bytes: u64,
}

impl io::Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = buf.len().min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.bytes += n as u64;
        Ok(n)
    }
}

/// The work of decoding `input`: values visited, allocations, and the
/// reader's calls.
#[derive(Debug, Clone, Copy)]
struct Work {
    ticks: u64,
    alloc: Cost,
    reads: u64,
}

fn work<T: DeserializeOwned>(input: &[u8]) -> (Work, Work) {
    TICKS.with(|t| t.set(0));
    let (res, alloc) = measure(|| kiln::from_slice::<T>(input).map(drop));
    res.expect("valid input");
    let slice = Work {
        ticks: TICKS.with(Cell::get),
        alloc,
        reads: 0,
    };
    TICKS.with(|t| t.set(0));
    let mut reader = CountingReader {
        data: input,
        calls: 0,
        bytes: 0,
    };
    let (res, alloc) = measure(|| kiln::from_reader::<_, T>(&mut reader).map(drop));
    res.expect("valid input");
    assert_eq!(reader.bytes, input.len() as u64, "every byte read once");
    let streamed = Work {
        ticks: TICKS.with(Cell::get),
        alloc,
        reads: reader.calls,
    };
    (slice, streamed)
}

/// Work for `8n` bytes must stay within a linear multiple of the work for
/// `n` (plus a little slack for constants).
fn linear(what: &str, small: Work, large: Work) {
    // 16, not 8: a vector that outgrows serde's cautious 1 MiB reservation
    // doubles once more. Quadratic work would show as 64.
    let ok = |a: u64, b: u64| b <= 16 * a + 16;
    assert!(
        ok(small.ticks, large.ticks)
            && ok(small.alloc.calls as u64, large.alloc.calls as u64)
            && ok(small.alloc.total as u64, large.alloc.total as u64)
            && ok(small.reads, large.reads),
        "{what}: work grows faster than the input:\n n: {small:?}\n8n: {large:?}"
    );
    assert!(
        small.ticks > 0 && large.ticks >= 8 * small.ticks - 8,
        "{what}"
    );
}

/// An input of `count` copies of `element` behind a count.
fn repeated(count: u32, element: &[u8]) -> Vec<u8> {
    counted(count, &element.repeat(count as usize))
}

/// Measures the work of one input, from a slice and from a reader.
type Measure = fn(&[u8]) -> (Work, Work);

#[test]
fn repeated_small_counts_decode_in_linear_work() {
    type VecOfVecs = Vec<Tick<Vec<Tick<()>>>>;
    type VecOfStrings = Vec<Tick<String>>;
    type VecOfMaps = Vec<Tick<BTreeMap<Tick<()>, Tick<()>>>>;
    type VecOfHashMaps = Vec<Tick<HashMap<Tick<u8>, Tick<()>>>>;
    for n in [1000u32, 4000] {
        let cases: [(&str, Vec<u8>, Measure); 5] = [
            (
                "Vec<Vec<()>> of empties",
                repeated(n, &le(0)),
                work::<VecOfVecs>,
            ),
            (
                "Vec<Vec<()>> of one",
                repeated(n, &le(1)),
                work::<VecOfVecs>,
            ),
            (
                "Vec<String> of empties",
                repeated(n, &le(0)),
                work::<VecOfStrings>,
            ),
            ("Vec<map of units>", repeated(n, &le(1)), work::<VecOfMaps>),
            (
                "Vec<HashMap<u8, ()>>",
                repeated(n, &[1, 0, 0, 0, 7]),
                work::<VecOfHashMaps>,
            ),
        ];
        for (what, input, measure_work) in cases {
            let large_input = {
                let element = &input[4..4 + (input.len() - 4) / n as usize];
                repeated(8 * n, element)
            };
            let (s1, r1) = measure_work(&input);
            let (s8, r8) = measure_work(&large_input);
            linear(&format!("{what}, slice, n = {n}"), s1, s8);
            linear(&format!("{what}, reader, n = {n}"), r1, r8);
        }
    }
}
