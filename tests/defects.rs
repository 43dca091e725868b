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
