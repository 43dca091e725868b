//! The golden files of `spec/golden/`: each is the exact output of
//! `kiln::to_vec` for one Rust value, and decodes back to that value.
//!
//! Also checks the byte counts the introduction (`spec/01-introduction.md`)
//! quotes for JSON, Protocol Buffers and MessagePack on the same Point.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::common::Point;

#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
struct Message {
    text: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
enum Shape {
    Empty,
    Circle(f32),
    Rect(u16, u16),
    Label { text: String, size: u8 },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
struct Record {
    id: u64,
    name: String,
    tags: Vec<String>,
    origin: Point,
    shape: Shape,
    scale: Option<f32>,
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("spec/golden")
}

/// Reads `spec/golden/<name>`, checks it equals `to_vec(value)` (and the
/// other writers), and that it decodes back to `value`.
fn check<T: Serialize + DeserializeOwned + PartialEq + Debug>(name: &str, value: &T) {
    let path = golden_dir().join(name);
    let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        kiln::to_vec(value).unwrap(),
        golden,
        "to_vec of {value:?} vs {name}"
    );
    let mut streamed = Vec::new();
    kiln::to_writer(&mut streamed, value).unwrap();
    assert_eq!(streamed, golden, "to_writer vs {name}");
    assert_eq!(kiln::serialized_size(value).unwrap(), golden.len() as u64);
    assert_eq!(
        &kiln::from_slice::<T>(&golden).unwrap(),
        value,
        "from_slice of {name}"
    );
    assert_eq!(
        &kiln::from_reader::<_, T>(&golden[..]).unwrap(),
        value,
        "from_reader of {name}"
    );
}

fn record() -> Record {
    Record {
        id: 1,
        name: "hi".into(),
        tags: vec!["a".into()],
        origin: Point { x: 9, y: -4 },
        shape: Shape::Circle(1.0),
        scale: None,
    }
}

#[test]
fn point() {
    check("point.kiln", &Point { x: 9, y: -4 });
    // The bytes the introduction promises, spelled out.
    let golden = std::fs::read(golden_dir().join("point.kiln")).unwrap();
    assert_eq!(golden, [0x09, 0x00, 0x00, 0x00, 0xfc, 0xff, 0xff, 0xff]);
}

#[test]
fn message() {
    check("message.kiln", &Message { text: "hi".into() });
    let golden = std::fs::read(golden_dir().join("message.kiln")).unwrap();
    assert_eq!(golden, [0x02, 0x00, 0x00, 0x00, 0x68, 0x69]);
}

#[test]
fn list_f32() {
    check("list-f32.kiln", &vec![1.0f32, -2.0]);
}

#[test]
fn shape_label() {
    check(
        "shape-label.kiln",
        &Shape::Label {
            text: "hi".into(),
            size: 9,
        },
    );
}

#[test]
fn option_some_none() {
    check("option-some-none.kiln", &Some(None::<u8>));
}

#[test]
fn map() {
    let map: BTreeMap<String, u32> = [("a".into(), 1), ("b".into(), 2)].into();
    check("map.kiln", &map);
}

#[test]
fn record_file() {
    check("record.kiln", &record());
}

// ---------------------------------------------------------------------------
// The introduction's comparison on Point { x: 9, y: -4 }.
// ---------------------------------------------------------------------------

#[test]
fn introduction_json_is_14_bytes() {
    let json = serde_json::to_vec(&Point { x: 9, y: -4 }).unwrap();
    assert_eq!(json, br#"{"x":9,"y":-4}"#);
    assert_eq!(json.len(), 14);
}

#[test]
fn introduction_messagepack_map_is_7_bytes() {
    // As a map with the names: fixmap of 2, fixstr "x", positive fixint 9,
    // fixstr "y", negative fixint -4.
    let named = rmp_serde::to_vec_named(&Point { x: 9, y: -4 }).unwrap();
    assert_eq!(named, [0x82, 0xa1, 0x78, 0x09, 0xa1, 0x79, 0xfc]);
    // rmp-serde's compact form drops the names but keeps a tag per value.
    let compact = rmp_serde::to_vec(&Point { x: 9, y: -4 }).unwrap();
    assert_eq!(compact, [0x92, 0x09, 0xfc]);
}

/// Protocol Buffers, by hand: int32 fields 1 and 2, wire type 0 (varint);
/// a negative int32 is sign-extended to 64 bits before it is varint-coded.
#[test]
fn introduction_protobuf_is_13_bytes() {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let mut pb = Vec::new();
    for (field, value) in [(1u64, 9i32), (2, -4)] {
        varint(field << 3, &mut pb);
        varint(i64::from(value) as u64, &mut pb);
    }
    assert_eq!(
        pb,
        [
            0x08, 0x09, 0x10, 0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01
        ]
    );
    assert_eq!(pb.len(), 13);
}

#[test]
fn introduction_kiln_is_8_bytes() {
    assert_eq!(kiln::to_vec(&Point { x: 9, y: -4 }).unwrap().len(), 8);
}
