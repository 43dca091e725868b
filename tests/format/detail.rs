//! Slices are read twice only on failure: a first reading without detail,
//! and, if it fails, a second one with detail that makes the error. Streams
//! do the same per element of a sequence, on the bytes already buffered.
//! These tests count the readings through a type whose `Deserialize` counts
//! its calls, so they fail if the quick reading stops succeeding (everything
//! would still work, twice as slowly) or if a failure is not explained.

use std::cell::Cell;

use pieces::trickle;
use serde::{Deserialize, Deserializer, Serialize};

use crate::common::pieces;

thread_local! {
    static CALLS: Cell<u32> = const { Cell::new(0) };
    /// Calls that are to fail on purpose, whatever the bytes.
    static FAIL_NEXT: Cell<u32> = const { Cell::new(0) };
}

/// A Point that counts how often it is read.
#[derive(Serialize, Debug, PartialEq, Clone, Copy, kiln::Schema)]
struct Counted {
    x: i32,
    y: i32,
}

impl<'de> Deserialize<'de> for Counted {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize, kiln::Schema)]
        struct Plain {
            x: i32,
            y: i32,
        }
        CALLS.with(|c| c.set(c.get() + 1));
        let p = Plain::deserialize(d)?;
        if FAIL_NEXT.with(|f| f.replace(f.get().saturating_sub(1))) > 0 {
            return Err(serde::de::Error::custom("failed on purpose"));
        }
        Ok(Counted { x: p.x, y: p.y })
    }
}

fn calls(f: impl FnOnce()) -> u32 {
    CALLS.with(|c| c.set(0));
    f();
    CALLS.with(Cell::get)
}

const P: Counted = Counted { x: 9, y: -4 };

#[test]
fn valid_input_is_read_once() {
    let bytes = kiln::to_vec(&P).unwrap();
    assert_eq!(
        calls(|| assert_eq!(kiln::from_slice::<Counted>(&bytes).unwrap(), P)),
        1
    );
    assert_eq!(
        calls(|| assert_eq!(kiln::take_from_slice::<Counted>(&bytes).unwrap().0, P)),
        1
    );
    let framed = kiln::frame::to_vec(&P).unwrap();
    assert_eq!(
        calls(|| assert_eq!(kiln::frame::from_slice::<Counted>(&framed).unwrap(), P)),
        1
    );
    let batch = kiln::batch::to_vec(&[P, P, P]).unwrap();
    assert_eq!(
        calls(|| {
            let all: Vec<Counted> = kiln::batch::from_slice(&batch)
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(all, [P, P, P]);
        }),
        3
    );
}

#[test]
fn a_failure_is_read_again_with_detail() {
    let bytes = kiln::to_vec(&P).unwrap();
    let cut = &bytes[..6];
    let mut message = String::new();
    let n = calls(|| {
        let e = kiln::from_slice::<Counted>(cut).unwrap_err();
        assert_eq!((e.kind().code(), e.offset()), ("unexpected-end", Some(4)));
        message = e.to_string();
    });
    assert_eq!(n, 2);
    assert_eq!(message, kiln::Deserializer::from_slice(cut).pipe_err());
    assert_eq!(
        message,
        "unexpected end of input: expected i32 (4 bytes), found 2 bytes at byte 4 in Plain.y"
    );
    // In a batch, the failing record is read again; the others once.
    let mut batch = kiln::batch::to_vec(&[P, P]).unwrap();
    batch.extend_from_slice(&[1, 2, 3]);
    let n = calls(|| {
        let results: Vec<_> = kiln::batch::from_slice::<Counted>(&batch).collect();
        assert_eq!(results.len(), 3);
        let e = results[2].as_ref().unwrap_err();
        assert_eq!(
            (e.kind().code(), e.offset(), e.record()),
            ("unexpected-end", Some(16), Some(2))
        );
    });
    assert_eq!(n, 4);
}

/// A `Deserialize` that fails once and then succeeds on the same bytes:
/// `from_slice` returns the value of the second reading; a batch refuses
/// the record, naming the cause, rather than hand out a record that only
/// sometimes decodes.
#[test]
fn a_record_that_fails_only_once() {
    let bytes = kiln::to_vec(&P).unwrap();
    FAIL_NEXT.with(|f| f.set(1));
    assert_eq!(kiln::from_slice::<Counted>(&bytes).unwrap(), P);
    let batch = kiln::batch::to_vec(&[P, P]).unwrap();
    FAIL_NEXT.with(|f| f.set(1));
    let mut it = kiln::batch::from_slice::<Counted>(&batch);
    let e = it.next().unwrap().unwrap_err();
    assert_eq!((e.kind().code(), e.record()), ("custom", Some(0)));
    assert!(e.to_string().contains("not deterministic"), "{e}");
    assert!(it.next().is_none());
}

/// From a stream, each element of a sequence is read once when it is in
/// the buffer, and twice when it straddles the buffer's end (the first
/// reading stops at the end of the buffered bytes) unless the buffered
/// bytes are fewer than the last element took.
#[test]
fn stream_elements_are_read_once_from_the_buffer() {
    let points: Vec<Counted> = (0..100).map(|i| Counted { x: i, y: -i }).collect();
    let bytes = kiln::to_vec(&points).unwrap();
    assert_eq!(
        calls(|| assert_eq!(
            kiln::from_reader::<_, Vec<Counted>>(&bytes[..]).unwrap(),
            points
        )),
        100
    );
    // At most 7 bytes arrive per read, so the buffer never holds a whole
    // 8-byte Point: the first Point's first reading fails at the end of
    // the buffer, and after it the buffered bytes are always fewer than the
    // last element took, so they are not tried again.
    let n = calls(|| {
        assert_eq!(
            kiln::from_reader::<_, Vec<Counted>>(trickle(&bytes)).unwrap(),
            points
        );
    });
    assert_eq!(n, 101);
    // Records back to back, from a stream: the same.
    let batch = kiln::batch::to_vec(&points).unwrap();
    let read_all = |r: &mut dyn std::io::Read| {
        let back: Vec<Counted> = kiln::batch::from_reader(r)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back, points);
    };
    assert_eq!(calls(|| read_all(&mut &batch[..])), 100);
    assert_eq!(calls(|| read_all(&mut trickle(&batch))), 101);
}

/// An element whose first reading, from the buffered bytes, fails is read
/// again from the stream with detail, so a `Deserialize` that fails only
/// once yields its value, as `from_slice` does. An element that the
/// buffered bytes cannot hold (fewer than the last element took) is read
/// from the stream straight away, and its error is the detailed one.
#[test]
fn a_failing_stream_element_is_read_again_from_the_stream() {
    let points = vec![P, P, P];
    let bytes = kiln::to_vec(&points).unwrap();
    FAIL_NEXT.with(|f| f.set(1));
    let n = calls(|| {
        assert_eq!(
            kiln::from_reader::<_, Vec<Counted>>(&bytes[..]).unwrap(),
            points
        )
    });
    assert_eq!(n, 4);
    let cut = &bytes[..bytes.len() - 3];
    let n = calls(|| {
        let e = kiln::from_reader::<_, Vec<Counted>>(cut).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unexpected end of input: expected i32 (4 bytes), found 1 byte at byte 24 \
             in [2].y"
        );
    });
    assert_eq!(n, 3);
}

/// The detailed error, read with the public deserializer (always detailed).
trait PipeErr {
    fn pipe_err(self) -> String;
}

impl<'de> PipeErr for kiln::Deserializer<kiln::read::SliceRead<'de>> {
    fn pipe_err(mut self) -> String {
        let e = Counted::deserialize(&mut self).unwrap_err();
        e.to_string()
    }
}
