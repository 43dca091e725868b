//! Frames: exact header bytes, every rejection with its kind and offset
//! (from a slice and from a reader), schema mismatch before any value, and
//! streaming round trips through io::Write and io::Read.

use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};

use kiln::frame::{self, FrameHeader, FrameOptions};
use kiln::schema;
use serde::{Deserialize, Serialize};

use crate::common::Point;

const P1: Point = Point { x: 9, y: -4 };
const P2: Point = Point { x: 1, y: 2 };

fn pts(n: i32) -> Vec<Point> {
    (0..n).map(|i| Point { x: i, y: -i }).collect()
}

/// Hands out at most `step` bytes per read, to cross every buffer edge.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.step.min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Reads a framed batch of Points from a slice and, byte by byte, from a
/// reader; returns the first error of each.
fn first_errors(bytes: &[u8]) -> (kiln::Error, kiln::Error) {
    let from_slice = match frame::batch_from_slice::<Point>(bytes) {
        Err(e) => e,
        Ok(it) => it
            .filter_map(Result::err)
            .next()
            .expect("slice: expected an error"),
    };
    let from_reader = match frame::batch_from_reader::<_, Point>(Trickle {
        data: bytes,
        step: 3,
    }) {
        Err(e) => e,
        Ok(it) => it
            .filter_map(Result::err)
            .next()
            .expect("reader: expected an error"),
    };
    (from_slice, from_reader)
}

fn rejects(bytes: &[u8], code: &str, offset: u64) {
    let (a, b) = first_errors(bytes);
    assert_eq!(
        (a.kind().code(), a.offset()),
        (code, Some(offset)),
        "slice: {a}"
    );
    assert_eq!(
        (b.kind().code(), b.offset()),
        (code, Some(offset)),
        "reader: {b}"
    );
}

fn set_crc(bytes: &mut [u8]) {
    let h = FrameHeader::parse(bytes).unwrap();
    let start = h.payload_offset as usize;
    let crc = crc32c::crc32c(&bytes[start..]);
    bytes[40..44].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn framed_point_bytes() {
    let bytes = frame::to_vec(&P1).unwrap();
    let fp = schema::fingerprint_of::<Point>().unwrap();
    let mut want = vec![
        0x89, b'K', b'I', b'L', b'N', 0x0d, 0x0a, 0x1a, 1, 0, 1, 0, 0, 0, 0, 0,
    ];
    want.extend_from_slice(&fp.to_le_bytes());
    want.extend_from_slice(&1u64.to_le_bytes());
    want.extend_from_slice(&8u64.to_le_bytes());
    let payload = [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff];
    want.extend_from_slice(&crc32c::crc32c(&payload).to_le_bytes());
    want.resize(64, 0);
    want.extend_from_slice(&payload);
    assert_eq!(bytes, want);
    // The bare encoding is untouched.
    assert_eq!(kiln::to_vec(&P1).unwrap(), payload);
    assert_eq!(frame::from_slice::<Point>(&bytes).unwrap(), P1);
    assert_eq!(frame::from_reader::<_, Point>(&bytes[..]).unwrap(), P1);
    let mut w = Vec::new();
    frame::to_writer(&mut w, &P1).unwrap();
    assert_eq!(w, bytes);
}

#[test]
fn payload_is_64_byte_aligned_with_schema_text() {
    for (embed, checksum) in [(false, false), (false, true), (true, false), (true, true)] {
        let opts = FrameOptions::new().embed_schema(embed).checksum(checksum);
        let bytes = opts.batch_to_vec(&pts(100)).unwrap();
        let (h, payload) = frame::open(&bytes).unwrap();
        assert_eq!(h.payload_offset % 64, 0);
        assert_eq!(payload.bytes.len(), 800);
        assert_eq!(payload.bytes, kiln::batch::to_vec(&pts(100)).unwrap());
        assert_eq!(h.has_checksum(), checksum);
        assert_eq!(h.schema_text.is_some(), embed);
        if embed {
            let text = "root Point\nstruct Point { x: i32, y: i32 }\n";
            assert_eq!(h.schema_text.as_deref(), Some(text));
            assert_eq!(h.payload_offset, 128);
            assert!(bytes[64 + text.len()..128].iter().all(|&b| b == 0));
        }
        let back: Vec<Point> = opts
            .batch_from_slice(&bytes)
            .unwrap()
            .collect::<kiln::Result<_>>()
            .unwrap();
        assert_eq!(back, pts(100));
    }
}

#[test]
fn header_rejections() {
    let good = frame::batch_to_vec(&[P1, P2]).unwrap();
    let mut b = good.clone();
    b[0] = 0x88;
    rejects(&b, "bad-magic", 0);
    rejects(b"{\"x\":9}", "bad-magic", 0);
    rejects(&good[..5], "frame-truncated", 0);
    rejects(&good[..40], "frame-truncated", 0);
    rejects(&[], "frame-truncated", 0);
    let mut b = good.clone();
    b[8] = 2;
    rejects(&b, "unsupported-version", 8);
    let mut b = good.clone();
    b[10] |= 0x20; // bit 4 is INDEXED; bit 5 is the first reserved one
    rejects(&b, "reserved-flag", 10);
    let mut b = good.clone();
    b[11] = 0x80;
    rejects(&b, "reserved-flag", 10);
    let mut b = good.clone();
    b[12] = 1; // schema length without the schema flag
    rejects(&b, "header-field", 12);
    let mut b = good.clone();
    b[63] = 1;
    rejects(&b, "padding-nonzero", 63);
    let nocrc = FrameOptions::new()
        .checksum(false)
        .batch_to_vec(&[P1, P2])
        .unwrap();
    let mut b = nocrc.clone();
    b[41] = 1;
    rejects(&b, "header-field", 40);
}

#[test]
fn schema_text_rejections() {
    let good = FrameOptions::new()
        .embed_schema(true)
        .batch_to_vec(&[P1])
        .unwrap();
    let mut b = good.clone();
    b[127] = 1; // padding after the text
    rejects(&b, "padding-nonzero", 127);
    let mut b = good.clone();
    b[64 + 5] = b'Q'; // "root Qoint": still UTF-8, no longer the fingerprint
    rejects(&b, "schema-text-mismatch", 64);
    let mut b = good.clone();
    b[64 + 5] = 0xff;
    rejects(&b, "invalid-utf8", 69);
    rejects(&good[..100], "frame-truncated", 64);
}

#[test]
fn payload_rejections() {
    let good = frame::batch_to_vec(&[P1, P2]).unwrap();
    // Cut inside the payload.
    rejects(&good[..good.len() - 3], "frame-truncated", 64);
    // A byte too many.
    let mut b = good.clone();
    b.push(0);
    rejects(&b, "trailing-bytes", 80);
    // A flipped payload bit.
    let mut b = good.clone();
    b[70] ^= 1;
    rejects(&b, "checksum-mismatch", 40);
    // Count says 3, payload holds 2.
    let mut b = good.clone();
    b[24] = 3;
    rejects(&b, "count-mismatch", 80);
    // Count says 1, payload (length 16) holds 2.
    let mut b = good.clone();
    b[24] = 1;
    rejects(&b, "payload-length-mismatch", 72);
    // Length says 12: the second record is cut at the payload's end.
    let mut b = good.clone();
    b[32] = 12;
    b.truncate(64 + 12);
    set_crc(&mut b);
    let (s, r) = first_errors(&b);
    for e in [s, r] {
        assert_eq!(e.kind().code(), "unexpected-end", "{e}");
        assert_eq!((e.offset(), e.record()), (Some(76), Some(1)));
    }
    // A huge count is not trusted for memory: the records run out first.
    let mut b = good.clone();
    b[24..32].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
    rejects(&b, "count-mismatch", 80);
}

#[test]
fn streamed_rejections() {
    let mut w = FrameOptions::new()
        .batch_writer::<_, Point>(Vec::new())
        .unwrap();
    w.push(&P1).unwrap();
    w.push(&P2).unwrap();
    let good = w.finish().unwrap();
    assert_eq!(good.len(), 64 + 16 + 32);
    assert_eq!(&good[24..40], [0xff; 16]);
    let t = 80;
    let mut b = good.clone();
    b[24] = 2;
    rejects(&b, "header-field", 24);
    let mut b = good.clone();
    b[t + 31] = 0;
    rejects(&b, "bad-trailer", (t + 24) as u64);
    // Cut: the last 32 bytes are no trailer.
    rejects(&good[..good.len() - 1], "bad-trailer", (t - 1 + 24) as u64);
    rejects(&good[..64 + 10], "frame-truncated", 64);
    let mut b = good.clone();
    b[t] = 3;
    rejects(&b, "count-mismatch", t as u64);
    let mut b = good.clone();
    b[t + 8] = 24;
    rejects(&b, "payload-length-mismatch", (t + 8) as u64);
    let mut b = good.clone();
    b[t + 16] ^= 1;
    rejects(&b, "checksum-mismatch", (t + 16) as u64);
    let mut b = good.clone();
    b[t + 21] = 1;
    rejects(&b, "padding-nonzero", (t + 21) as u64);
}

/// A streamed frame whose trailer declares the wrong count: both readers
/// name the declared count and the count of records actually there (the
/// slice reader counts the records past the declared ones itself).
#[test]
fn streamed_count_mismatch_names_both_counts() {
    let mut w = FrameOptions::new()
        .batch_writer::<_, Point>(Vec::new())
        .unwrap();
    for p in pts(3) {
        w.push(&p).unwrap();
    }
    let good = w.finish().unwrap();
    let t = 64 + 24;
    for declared in [1u8, 2, 4, 9] {
        let mut b = good.clone();
        b[t] = declared;
        let (a, r) = first_errors(&b);
        for e in [&a, &r] {
            match e.kind() {
                kiln::ErrorKind::CountMismatch {
                    declared: d,
                    found: f,
                } => assert_eq!((*d, *f), (u64::from(declared), 3), "{e}"),
                other => panic!("expected count-mismatch, got {other:?}"),
            }
            assert_eq!(e.offset(), Some(t as u64), "{e}");
        }
    }
}

#[test]
fn single_record_readers_want_one_record() {
    let two = frame::batch_to_vec(&[P1, P2]).unwrap();
    let e = frame::from_slice::<Point>(&two).unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("header-field", Some(24)));
    let e = frame::from_reader::<_, Point>(&two[..]).unwrap_err();
    assert_eq!(e.kind().code(), "header-field");
    let none = frame::batch_to_vec::<Point>(&[]).unwrap();
    let e = frame::from_slice::<Point>(&none).unwrap_err();
    assert_eq!(e.kind().code(), "header-field");
}

static READS: AtomicUsize = AtomicUsize::new(0);

/// A reader type that counts how often a value of it is read; its
/// schema is that of the 3-D point it reads.
#[derive(Debug)]
struct Watched;

impl kiln::Schema for Watched {
    fn describe(d: &mut kiln::schema::Describer) -> kiln::schema::model::Format {
        use kiln::schema::model::{Container, Field, Format, Shape};
        d.container::<Self>("Point", "Watched", |_| {
            Container::Struct(Shape::Struct(
                ["x", "y", "z"].map(|n| Field::new(n, Format::I32)).into(),
            ))
        })
    }
}

impl<'de> Deserialize<'de> for Watched {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize, kiln::Schema)]
        #[serde(rename = "Point")]
        #[allow(dead_code)]
        struct Point3 {
            x: i32,
            y: i32,
            z: i32,
        }
        let _ = Point3::deserialize(d)?;
        READS.fetch_add(1, Ordering::SeqCst);
        Ok(Watched)
    }
}

#[test]
fn changed_struct_fails_with_schema_mismatch_before_any_value() {
    schema::schema_of::<Watched>().unwrap();
    let before = READS.load(Ordering::SeqCst);
    let bytes = frame::batch_to_vec(&pts(1000)).unwrap();
    let e = frame::batch_from_slice::<Watched>(&bytes).err().unwrap();
    assert_eq!((e.kind().code(), e.offset()), ("schema-mismatch", Some(16)));
    let e = frame::batch_from_reader::<_, Watched>(&bytes[..])
        .err()
        .unwrap();
    assert_eq!(e.kind().code(), "schema-mismatch");
    let e = frame::from_slice::<Watched>(&bytes).unwrap_err();
    assert_eq!(e.kind().code(), "schema-mismatch");
    assert_eq!(READS.load(Ordering::SeqCst), before, "no value was read");

    let reader_fp = schema::fingerprint_of::<Watched>().unwrap().to_string();
    let writer_fp = schema::fingerprint_of::<Point>().unwrap().to_string();
    let msg = e.to_string();
    assert!(
        msg.contains(&reader_fp) && msg.contains(&writer_fp),
        "{msg}"
    );
    assert!(
        msg.contains("struct Point { x: i32, y: i32, z: i32 }"),
        "{msg}"
    );
    assert!(msg.contains("does not embed"), "{msg}");

    // With the writer's text embedded, both texts are shown.
    let bytes = FrameOptions::new()
        .embed_schema(true)
        .batch_to_vec(&pts(3))
        .unwrap();
    let e = frame::from_slice::<Watched>(&bytes).unwrap_err();
    match e.kind() {
        kiln::ErrorKind::SchemaMismatch {
            expected,
            found,
            expected_text,
            found_text,
        } => {
            assert_eq!(
                (expected.to_string(), found.to_string()),
                (reader_fp.clone(), writer_fp.clone())
            );
            assert_eq!(
                expected_text.as_deref(),
                Some("root Point\nstruct Point { x: i32, y: i32, z: i32 }\n")
            );
            assert_eq!(
                found_text.as_deref(),
                Some("root Point\nstruct Point { x: i32, y: i32 }\n")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(READS.load(Ordering::SeqCst), before);
}

#[test]
fn streaming_round_trips() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
    struct Message {
        text: String,
        tags: Vec<u16>,
    }
    let records: Vec<Message> = (0..400)
        .map(|i| Message {
            text: "x".repeat(i % 50),
            tags: (0..(i % 7) as u16).collect(),
        })
        .collect();
    for (checksum, embed) in [(true, false), (false, true), (true, true)] {
        let opts = FrameOptions::new().checksum(checksum).embed_schema(embed);
        // Streamed into an io::Write.
        let mut w = opts.batch_writer::<_, Message>(Vec::new()).unwrap();
        for r in &records {
            w.push(r).unwrap();
        }
        assert_eq!(w.count(), 400);
        let streamed = w.finish().unwrap();
        // Known count, written into memory.
        let counted = opts.batch_to_vec(&records).unwrap();
        assert_eq!(
            frame::open(&streamed).unwrap().1.bytes,
            frame::open(&counted).unwrap().1.bytes
        );
        for bytes in [&streamed, &counted] {
            for step in [1, 7, 4096, 1 << 20] {
                // (1-byte reads cross every buffer edge; 400 records keep it quick.)
                let back: Vec<Message> = opts
                    .batch_from_reader(Trickle { data: bytes, step })
                    .unwrap()
                    .collect::<kiln::Result<_>>()
                    .unwrap();
                assert_eq!(back, records);
            }
            let back: Vec<Message> = opts
                .batch_from_slice(bytes)
                .unwrap()
                .collect::<kiln::Result<_>>()
                .unwrap();
            assert_eq!(back, records);
        }
    }
}

#[test]
fn borrowed_records_from_a_slice() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
    struct Name<'a> {
        #[serde(borrow)]
        text: &'a str,
    }
    let bytes = frame::batch_to_vec(&[Name { text: "ab" }, Name { text: "cde" }]).unwrap();
    let names: Vec<Name> = frame::batch_from_slice(&bytes)
        .unwrap()
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(names, [Name { text: "ab" }, Name { text: "cde" }]);
    let start = bytes.as_ptr() as usize;
    let at = names[1].text.as_ptr() as usize - start;
    assert_eq!(at, 64 + 6 + 4, "borrowed from the frame");
}

#[test]
fn embedded_text_is_the_described_text() {
    #[derive(Serialize, Deserialize, kiln::Schema)]
    struct Opaque(u8);
    let bytes = FrameOptions::new()
        .embed_schema(true)
        .to_vec(&Opaque(1))
        .unwrap();
    let text = "root Opaque\nstruct Opaque(u8)\n";
    assert_eq!(&bytes[12..16], (text.len() as u32).to_le_bytes());
    assert_eq!(&bytes[64..64 + text.len()], text.as_bytes());
}

#[test]
fn single_record_reader_refuses_bytes_after_the_record() {
    // Count 1, payload length 16, two Points' worth of bytes.
    let mut b = frame::batch_to_vec(&[P1, P2]).unwrap();
    b[24] = 1;
    let e = frame::from_slice::<Point>(&b).unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset()),
        ("payload-length-mismatch", Some(72))
    );
    let e = frame::from_reader::<_, Point>(&b[..]).unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset()),
        ("payload-length-mismatch", Some(72))
    );
    // A record cut short inside a frame whose length is right.
    let mut b = FrameOptions::new().checksum(false).to_vec(&P1).unwrap();
    b[32] = 6;
    b.truncate(70);
    let e = frame::from_slice::<Point>(&b).unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset(), e.record()),
        ("unexpected-end", Some(68), Some(0))
    );
}

/// A single-record frame whose header declares two records, holding one:
/// a slice and a stream refuse it alike, at the count, before reading.
#[test]
fn single_record_reader_refuses_a_count_of_two_from_slice_and_stream() {
    let mut bytes = kiln::frame::FrameOptions::new()
        .checksum(false)
        .batch_to_vec(&[Point { x: 9, y: -4 }])
        .unwrap();
    bytes[24..32].copy_from_slice(&2u64.to_le_bytes());
    let from_slice = kiln::frame::from_slice::<Point>(&bytes).unwrap_err();
    let from_stream = kiln::frame::from_reader::<_, Point>(&bytes[..]).unwrap_err();
    for err in [from_slice, from_stream] {
        assert_eq!(err.kind().code(), "header-field", "{err}");
        assert_eq!(err.offset(), Some(24), "{err}");
    }
}

/// Found by the `frame` fuzz target: with the schema text embedded, a
/// frame declaring two records whose first record is corrupt gave the
/// record's error from a slice but `header-field` from a stream. Both now
/// refuse the count first.
#[test]
fn count_is_refused_before_a_corrupt_record_with_schema_text() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
    struct Flag {
        on: bool,
    }
    let mut bytes = FrameOptions::new()
        .checksum(false)
        .embed_schema(true)
        .batch_to_vec(&[Flag { on: true }])
        .unwrap();
    let payload = FrameHeader::parse(&bytes).unwrap().payload_offset as usize;
    bytes[24..32].copy_from_slice(&2u64.to_le_bytes());
    bytes[payload] = 7; // not a bool
    let from_slice = frame::from_slice::<Flag>(&bytes).unwrap_err();
    let from_stream = frame::from_reader::<_, Flag>(&bytes[..]).unwrap_err();
    for err in [from_slice, from_stream] {
        assert_eq!(err.kind().code(), "header-field", "{err}");
        assert_eq!(err.offset(), Some(24), "{err}");
    }
}

/// Found by the `frame` fuzz target on the final code of 2026-12-02: a
/// single-record frame declaring one record with an empty payload gave
/// `unexpected-end` inside the record from a slice, but `count-mismatch`
/// from a stream. An empty payload holds no record, so every reader now
/// reports the count (spec 6.5, check 23), with and without a checksum and
/// with the schema text embedded.
#[test]
fn an_empty_payload_is_a_count_mismatch_for_every_single_record_reader() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
    struct Flag {
        on: bool,
    }
    for (checksum, embed) in [(false, false), (true, false), (false, true)] {
        let options = FrameOptions::new().checksum(checksum).embed_schema(embed);
        let mut bytes = options.batch_to_vec(&[Flag { on: true }]).unwrap();
        let header = FrameHeader::parse(&bytes).unwrap();
        let payload = header.payload_offset as usize;
        bytes.truncate(payload);
        bytes[32..40].copy_from_slice(&0u64.to_le_bytes()); // payload length
        bytes[40..44].copy_from_slice(&[0; 4]); // CRC-32C of no bytes
        let from_slice = options.from_slice::<Flag>(&bytes).unwrap_err();
        let from_stream = options.from_reader::<_, Flag>(&bytes[..]).unwrap_err();
        let from_trickle = options
            .from_reader::<_, Flag>(Trickle {
                data: &bytes,
                step: 1,
            })
            .unwrap_err();
        for err in [from_slice, from_stream, from_trickle] {
            assert_eq!(
                err.kind().code(),
                "count-mismatch",
                "{checksum} {embed}: {err}"
            );
            assert_eq!(err.offset(), Some(payload as u64), "{err}");
            assert_eq!(err.record(), None, "{err}");
        }
    }
}
