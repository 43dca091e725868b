//! The struct/tuple access hands the visitor its `SeqAccess` by value (so
//! each field can be inlined); these tests pin down that it still checks
//! how many values the visitor took, and still reports where a field failed.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

/// A tuple of two `u32` whose visitor stops after the first (or, with
/// `forget`, never reports back at all).
#[derive(Debug)]
struct Greedy;

struct TakesOne {
    forget: bool,
}

impl<'de> Visitor<'de> for TakesOne {
    type Value = Greedy;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a pair")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Greedy, A::Error> {
        if self.forget {
            std::mem::forget(seq);
            return Ok(Greedy);
        }
        let _: Option<u32> = seq.next_element()?;
        Ok(Greedy)
    }
}

fn read(bytes: &[u8], forget: bool) -> kiln::Result<Greedy> {
    let mut de = kiln::Deserializer::from_slice(bytes);
    (&mut de).deserialize_tuple(2, TakesOne { forget })
}

#[test]
fn a_visitor_that_stops_early_is_a_length_mismatch() {
    let err = read(&[1, 0, 0, 0, 2, 0, 0, 0], false).unwrap_err();
    assert_eq!(err.kind().code(), "length-mismatch");
    assert_eq!(
        err.to_string(),
        "length mismatch: declared 2 elements, found 1 at byte 4"
    );
}

#[test]
fn a_visitor_that_forgets_its_access_is_a_length_mismatch() {
    let err = read(&[1, 0, 0, 0, 2, 0, 0, 0], true).unwrap_err();
    assert_eq!(err.kind().code(), "length-mismatch");
    assert_eq!(err.offset(), Some(0));
}

#[derive(Deserialize, Debug, PartialEq)]
struct Vector3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Triangle {
    v0: Vector3,
    v1: Vector3,
    flag: bool,
}

#[test]
fn nested_structs_read_back() {
    let mut bytes = Vec::new();
    for f in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0] {
        bytes.extend_from_slice(&f.to_le_bytes());
    }
    bytes.push(1);
    let t: Triangle = kiln::from_slice(&bytes).unwrap();
    assert_eq!(
        t.v1,
        Vector3 {
            x: 4.0,
            y: 5.0,
            z: 6.0
        }
    );
    assert!(t.flag);
}

#[test]
fn a_failing_field_keeps_its_path_and_offset() {
    let mut bytes = vec![0u8; 24];
    bytes.push(7);
    let err = kiln::from_slice::<Triangle>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "invalid-bool");
    assert_eq!(err.offset(), Some(24));
    assert_eq!(err.path().as_deref(), Some("Triangle.flag"));

    let err = kiln::from_slice::<Triangle>(&bytes[..18]).unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(16));
    assert_eq!(err.path().as_deref(), Some("Triangle.v1.y"));
}
