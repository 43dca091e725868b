//! Defects found by attacking Kiln (an abort, denials of service, silent
//! misreads, `#[serde(alias)]`), each with the test that failed before its
//! fix. The test names say which defect they hold down.

#[path = "common/alloc.rs"]
#[allow(dead_code)]
mod alloc;

use std::io::{self, Read};

use kiln::frame::{self, FrameOptions, HEADER_LEN};
use kiln::{ErrorKind, Options};
use serde::{Deserialize, Serialize};

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Point {
    x: i32,
    y: i32,
}

/// An endless reader that counts the bytes taken from it.
struct Endless<'a> {
    taken: &'a mut u64,
}

impl Read for Endless<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        buf.fill(0);
        *self.taken += buf.len() as u64;
        Ok(buf.len())
    }
}

/// A frame header with the schema flag and `schema_len` as given, for
/// `Point`'s fingerprint.
fn header_claiming_text(schema_len: u32) -> Vec<u8> {
    let mut h = FrameOptions::new()
        .checksum(false)
        .to_vec(&Point { x: 1, y: 2 })
        .unwrap();
    h.truncate(HEADER_LEN);
    h[10..12].copy_from_slice(&frame::FLAG_SCHEMA.to_le_bytes());
    h[12..16].copy_from_slice(&schema_len.to_le_bytes());
    h
}

// ---------------------------------------------------------------------------
// 2. The schema text a header claims is checked before it is read.
// ---------------------------------------------------------------------------

#[test]
fn schema_text_claim_is_refused_before_reading_from_a_stream() {
    let head = header_claiming_text(u32::MAX);
    let opts = FrameOptions::new().decode(Options::new().byte_limit(1 << 20));
    let (mut taken, mut taken_single) = (0, 0);
    let ((batch, single), cost) = alloc::measure(|| {
        let reader = head.as_slice().chain(Endless { taken: &mut taken });
        let batch = opts.batch_from_reader::<Point, _>(reader).map(drop);
        let reader = head.as_slice().chain(Endless {
            taken: &mut taken_single,
        });
        let single = opts.from_reader::<_, Point>(reader);
        (batch, single)
    });
    for e in [batch.unwrap_err(), single.unwrap_err()] {
        assert_eq!(e.kind().code(), "schema-text-limit", "{e}");
        assert_eq!(e.offset(), Some(12));
        assert!(matches!(
            e.kind(),
            ErrorKind::SchemaTextLimit { len, limit: 1048576 } if *len == u64::from(u32::MAX)
        ));
    }
    assert_eq!(
        (taken, taken_single),
        (0, 0),
        "no byte of the text may be read"
    );
    assert!(cost.peak < 64 << 10, "allocated {} bytes", cost.peak);
}

#[test]
fn schema_text_within_its_cap_still_obeys_the_byte_limit() {
    // 512 KiB of text is under the 1 MiB cap, but over a 4 KiB byte limit.
    let head = header_claiming_text(512 << 10);
    let opts = FrameOptions::new().decode(Options::new().byte_limit(4096));
    let mut taken = 0;
    let reader = head.as_slice().chain(Endless { taken: &mut taken });
    let e = opts
        .batch_from_reader::<Point, _>(reader)
        .map(drop)
        .unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("byte-limit", Some(64)));
    assert_eq!(taken, 0);
    // The cap is a knob of its own; from a slice too.
    let opts = FrameOptions::new().decode(Options::new().schema_text_limit(100));
    let e = opts
        .from_slice::<Point>(&header_claiming_text(101))
        .unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset()),
        ("schema-text-limit", Some(12))
    );
    let e = opts
        .from_slice::<Point>(&header_claiming_text(100))
        .unwrap_err();
    assert_eq!(e.kind().code(), "frame-truncated");
}

// ---------------------------------------------------------------------------
// 3. Elements that take no input bytes: one budget for the whole input,
//    counted in memory.
// ---------------------------------------------------------------------------

/// 4,096 records of `00 00 10 00`: each a `Vec<()>` of 2^20 units.
fn unit_vector_records() -> Vec<u8> {
    [0u8, 0, 0x10, 0].repeat(4096)
}

/// The budget's end: from a slice the count is refused first, since the
/// bytes left plus the budget left cannot hold it (`count-too-large`); a
/// stream does not know the bytes left and stops where the budget runs out.
fn expect_out_of_budget(e: &kiln::Error, code: &str, record: u64) {
    assert_eq!(e.kind().code(), code, "{e}");
    assert_eq!(e.record(), Some(record), "{e}");
}

#[test]
fn zero_sized_budget_covers_a_whole_bare_batch() {
    let bytes = unit_vector_records();
    // The first record spends the whole budget of 2^20; the second fails at
    // its first element, so the work is one budget, not one per record.
    let mut it = kiln::batch::from_slice::<Vec<()>>(&bytes);
    assert_eq!(it.next().unwrap().unwrap().len(), 1 << 20);
    let e = it.next().unwrap().unwrap_err();
    expect_out_of_budget(&e, "count-too-large", 1);
    assert_eq!(e.offset(), Some(4));
    assert!(it.next().is_none());

    let mut it = kiln::batch::from_reader::<Vec<()>, _>(&bytes[..]);
    assert_eq!(it.next().unwrap().unwrap().len(), 1 << 20);
    let f = it.next().unwrap().unwrap_err();
    expect_out_of_budget(&f, "zero-sized-limit", 1);
    assert_eq!(f.offset(), Some(8));
}

#[test]
fn zero_sized_budget_covers_a_whole_framed_batch() {
    let records = vec![vec![(); 1 << 19]; 3];
    // Writing is not limited; reading is.
    let bytes = frame::batch_to_vec(&records).unwrap();
    let read: Vec<_> = frame::batch_from_slice::<Vec<()>>(&bytes)
        .unwrap()
        .collect();
    assert_eq!(read.len(), 3);
    assert!(read[0].is_ok() && read[1].is_ok());
    expect_out_of_budget(read[2].as_ref().unwrap_err(), "count-too-large", 2);
    let read: Vec<_> = frame::batch_from_reader::<Vec<()>, _>(&bytes[..])
        .unwrap()
        .collect();
    assert!(read[0].is_ok() && read[1].is_ok());
    expect_out_of_budget(read[2].as_ref().unwrap_err(), "zero-sized-limit", 2);
    // A larger budget reads them all.
    let opts = FrameOptions::new().decode(Options::new().zero_sized_limit(3 << 19));
    let all: Vec<Vec<()>> = opts
        .batch_from_slice(&bytes)
        .unwrap()
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(all, records);
}

/// A struct whose only field is skipped: no input bytes, 1 KiB of memory.
#[derive(Deserialize, Debug)]
struct Cached {
    #[serde(skip)]
    _cache: Vec<[u64; 128]>,
    #[serde(skip)]
    _inline: Option<[u64; 125]>,
}

#[test]
fn zero_byte_elements_are_charged_their_memory() {
    assert!(std::mem::size_of::<Cached>() >= 1024);
    // Four bytes claim 2^20 elements of 1 KiB: 1 GiB before the fix.
    let bytes = [0u8, 0, 0x10, 0];
    let (result, cost) = alloc::measure(|| kiln::from_slice::<Vec<Cached>>(&bytes).map(drop));
    let e = result.unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("zero-sized-limit", Some(4)));
    let budget = kiln::options::DEFAULT_ZERO_SIZED_LIMIT as usize;
    // The elements' memory stays within the budget, and the vector's
    // doubling (the old and the new buffer during a move) within 3 times it.
    assert!(cost.peak <= 3 * budget, "peak {} bytes", cost.peak);
    // The same from a stream.
    let (result, cost) =
        alloc::measure(|| kiln::from_reader::<_, Vec<Cached>>(&bytes[..]).map(drop));
    assert_eq!(result.unwrap_err().kind().code(), "zero-sized-limit");
    assert!(
        cost.peak <= 3 * budget + (64 << 10),
        "peak {} bytes",
        cost.peak
    );
    // Within the budget, such elements still decode.
    let v = kiln::from_slice::<Vec<Cached>>(&[100, 0, 0, 0]).unwrap();
    assert_eq!(v.len(), 100);
}
