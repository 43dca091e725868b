//! Bare batches: records back to back, clean ends, records cut short,
//! writers into Vec and io::Write, and the zero-sized record budget.

use kiln::batch::{self, BatchWriter};
use kiln::frame;
use pieces::Pieces;
use serde::{Deserialize, Serialize};

use crate::common::pieces;

use crate::common::Point;

fn pts(n: i32) -> Vec<Point> {
    (0..n).map(|i| Point { x: i, y: -i }).collect()
}

#[test]
fn hundred_points_are_800_bytes() {
    let bytes = batch::to_vec(&pts(100)).unwrap();
    assert_eq!(bytes.len(), 800);
    let mut want = Vec::new();
    for p in pts(100) {
        want.extend_from_slice(&kiln::to_vec(&p).unwrap());
    }
    assert_eq!(bytes, want);
    let back: Vec<Point> = batch::from_slice(&bytes)
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(back, pts(100));
    let back: Vec<Point> = batch::from_reader(&bytes[..])
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(back, pts(100));
}

#[test]
fn writers_agree() {
    let records = pts(20_000); // 160 KB: the BatchWriter hands over in steps
    let a = batch::to_vec(&records).unwrap();
    let mut b = Vec::new();
    assert_eq!(batch::extend(&mut b, records.iter()).unwrap(), 20_000);
    let mut c = Vec::new();
    assert_eq!(
        batch::to_writer(&mut c, records.iter().copied()).unwrap(),
        20_000
    );
    let mut w = BatchWriter::new(Vec::new());
    for r in &records {
        w.push(r).unwrap();
    }
    assert_eq!((w.count(), w.len()), (20_000, 160_000));
    let d = w.finish().unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a, d);
}

#[test]
fn a_failed_record_is_taken_out() {
    #[derive(Serialize)]
    struct Skips {
        a: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<u8>,
    }
    let mut w = BatchWriter::new(Vec::new());
    w.push(&Skips { a: 1, b: Some(2) }).unwrap();
    assert!(w.push(&Skips { a: 3, b: None }).is_err());
    assert_eq!(w.count(), 1);
    assert_eq!(w.finish().unwrap(), [1, 1, 2]);
}

#[test]
fn clean_end_and_cut_records() {
    let bytes = batch::to_vec(&pts(3)).unwrap();
    for cut in 0..=bytes.len() {
        let input = &bytes[..cut];
        let whole = cut / 8;
        let results: Vec<_> = batch::from_slice::<Point>(input).collect();
        let from_reader: Vec<_> = batch::from_reader::<_, Point>(input).collect();
        for results in [results, from_reader] {
            let ok = results.iter().filter(|r| r.is_ok()).count();
            assert_eq!(ok, whole);
            if cut % 8 == 0 {
                assert_eq!(results.len(), whole, "clean end at {cut}");
            } else {
                assert_eq!(results.len(), whole + 1);
                let e = results.last().unwrap().as_ref().unwrap_err();
                assert_eq!(e.kind().code(), "unexpected-end");
                assert_eq!(e.record(), Some(whole as u64));
                // The field that could not be read whole.
                let field_at = if cut % 8 < 4 {
                    whole * 8
                } else {
                    whole * 8 + 4
                };
                assert_eq!(e.offset(), Some(field_at as u64));
                assert!(e.to_string().contains(&format!("in record {whole}")), "{e}");
            }
        }
    }
}

#[test]
fn records_borrow_from_the_slice() {
    let bytes = batch::to_vec(&["ab", "cd"]).unwrap();
    let v: Vec<&str> = batch::from_slice(&bytes)
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(v, ["ab", "cd"]);
    assert_eq!(v[1].as_ptr(), bytes[10..].as_ptr());
}

#[test]
fn errors_inside_a_record_name_record_and_byte() {
    let mut bytes = batch::to_vec(&[(true, 1u8), (true, 2), (true, 3)]).unwrap();
    bytes[4] = 7;
    let e = batch::from_slice::<(bool, u8)>(&bytes)
        .find_map(Result::err)
        .unwrap();
    assert_eq!(
        (e.kind().code(), e.offset(), e.record()),
        ("invalid-bool", Some(4), Some(2))
    );
}

#[test]
fn zero_sized_records_are_budgeted() {
    // A frame may claim any count of records that take no bytes.
    let mut bytes = frame::batch_to_vec(&[(), ()]).unwrap();
    bytes[24..32].copy_from_slice(&(1u64 << 40).to_le_bytes());
    bytes[40..44].copy_from_slice(&crc32c::crc32c(&[]).to_le_bytes());
    let opts = frame::FrameOptions::new().decode(kiln::Options::new().zero_sized_limit(1000));
    let results: Vec<_> = opts.batch_from_slice::<()>(&bytes).unwrap().collect();
    assert_eq!(results.len(), 1001);
    let e = results.last().unwrap().as_ref().unwrap_err();
    assert_eq!(
        (e.kind().code(), e.record()),
        ("zero-sized-limit", Some(1000))
    );
}

#[test]
fn byte_limit_applies_per_record() {
    let bytes = batch::to_vec(&["0123456789"; 50]).unwrap();
    let opts = kiln::Options::new().byte_limit(14);
    let v: Vec<String> = opts
        .batch_from_reader(&bytes[..])
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(v.len(), 50);
    let opts = kiln::Options::new().byte_limit(13);
    let e = opts
        .batch_from_reader::<_, String>(&bytes[..])
        .find_map(Result::err)
        .unwrap();
    assert_eq!((e.kind().code(), e.record()), ("byte-limit", Some(0)));
}

#[test]
fn zero_sized_records_round_trip_in_frames() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
    struct Tick;
    let counted = frame::batch_to_vec(&[Tick, Tick, Tick]).unwrap();
    let mut w = frame::FrameOptions::new()
        .batch_writer::<_, Tick>(Vec::new())
        .unwrap();
    for _ in 0..3 {
        w.push(&Tick).unwrap();
    }
    let streamed = w.finish().unwrap();
    for bytes in [&counted, &streamed] {
        let a: Vec<Tick> = frame::batch_from_slice(bytes)
            .unwrap()
            .collect::<kiln::Result<_>>()
            .unwrap();
        let b: Vec<Tick> = frame::batch_from_reader(&bytes[..])
            .unwrap()
            .collect::<kiln::Result<_>>()
            .unwrap();
        assert_eq!((a.len(), b.len()), (3, 3));
    }
    // Count says 4 for a payload of Points that holds 3: a count mismatch.
    let mut bytes = frame::batch_to_vec(&pts(3)).unwrap();
    bytes[24] = 4;
    for e in [
        frame::batch_from_slice::<Point>(&bytes)
            .unwrap()
            .find_map(Result::err)
            .unwrap(),
        frame::batch_from_reader::<_, Point>(&bytes[..])
            .unwrap()
            .find_map(Result::err)
            .unwrap(),
    ] {
        assert_eq!((e.kind().code(), e.offset()), ("count-mismatch", Some(88)));
    }
}

/// Records of changing sizes, whole or damaged, read from a slice, from a
/// reader that has them all at once and from one that gives them in small
/// pieces (a stream tries each record on its buffered bytes first): the
/// same records, and the same error at the same offset in the same record.
#[test]
fn slice_and_readers_agree_on_every_record() {
    type Rec = (String, Vec<u16>, Option<i64>, u8);
    fn prop(records: Vec<Rec>, damage: Vec<(usize, u8)>, pieces: Vec<u8>) -> bool {
        let mut bytes = batch::to_vec(&records).unwrap();
        for &(at, b) in damage.iter().take(3) {
            if !bytes.is_empty() {
                let n = bytes.len();
                bytes[at % n] = b;
            }
        }
        let opts = kiln::Options::new().zero_sized_limit(1000);
        let key = |r: kiln::Result<Rec>| match r {
            Ok(v) => Ok(v),
            Err(e) => Err((e.kind().code(), e.offset(), e.record(), e.path())),
        };
        let slice: Vec<_> = opts.batch_from_slice::<Rec>(&bytes).map(key).collect();
        let reader: Vec<_> = opts
            .batch_from_reader::<_, Rec>(&bytes[..])
            .map(key)
            .collect();
        let sizes: Vec<usize> = pieces.iter().map(|&p| usize::from(p % 24)).collect();
        let pieces = Pieces::new(&bytes, &sizes);
        let pieced: Vec<_> = opts.batch_from_reader::<_, Rec>(pieces).map(key).collect();
        // A slice refuses a count larger than the rest could hold, which a
        // reader cannot know; it then fails at that offset or later. A
        // reader refuses a read past its byte limit (1 GiB) before trying
        // it, where a slice finds the end of its input at the same offset.
        type Key = Result<Rec, (&'static str, Option<u64>, Option<u64>, Option<String>)>;
        let same = |a: &[Key], b: &[Key]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| match (x, y) {
                    (Err(x), Err(y)) if x.0 == "count-too-large" => x.2 == y.2 && y.1 >= x.1,
                    (Err(x), Err(y)) if (x.0, y.0) == ("unexpected-end", "byte-limit") => {
                        (x.1, x.2) == (y.1, y.2)
                    }
                    _ => x == y,
                })
        };
        same(&slice, &reader) && reader == pieced
    }
    quickcheck::QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Vec<Rec>, Vec<(usize, u8)>, Vec<u8>) -> bool);
}
