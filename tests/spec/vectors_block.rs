//! Runs `spec/vectors/block.json`: every valid vector is encoded and decoded
//! (through slices and readers, block path and element-by-element path);
//! every must-reject vector fails with the stated error and offset.

use std::collections::BTreeSet;

use crate::common::hex;
use kiln::block::Element;
use serde::de::DeserializeOwned;
use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::Value;

/// An element as the vectors write it: integers as JSON numbers or decimal
/// strings, floats as JSON numbers or `0x`-prefixed bit patterns.
trait FromJson: Element + Serialize + DeserializeOwned {
    fn from_json(v: &Value) -> Self;
}

macro_rules! int_from_json {
    ($($t:ty)*) => {$(
        impl FromJson for $t {
            fn from_json(v: &Value) -> Self {
                match v {
                    Value::String(s) => s.parse().unwrap(),
                    Value::Number(n) => n.to_string().parse().unwrap(),
                    other => panic!("not an integer: {other}"),
                }
            }
        }
    )*};
}

int_from_json!(u8 i8 u16 i16 u32 i32 u64 i64 u128 i128);

macro_rules! float_from_json {
    ($($t:ty => $bits:ty),*) => {$(
        impl FromJson for $t {
            fn from_json(v: &Value) -> Self {
                match v {
                    Value::String(s) => {
                        let hex = s.strip_prefix("0x").expect("0x bit pattern");
                        <$t>::from_bits(<$bits>::from_str_radix(hex, 16).unwrap())
                    }
                    Value::Number(n) => n.as_f64().unwrap() as $t,
                    other => panic!("not a float: {other}"),
                }
            }
        }
    )*};
}

float_from_json!(f32 => u32, f64 => u64);

/// The element-by-element path, for comparison.
struct Elementwise<'a, T>(&'a [T]);

impl<T: Serialize> Serialize for Elementwise<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for e in self.0 {
            seq.serialize_element(e)?;
        }
        seq.end()
    }
}

fn run<T: FromJson>(v: &Value) {
    let name = v["name"].as_str().unwrap();
    let bytes = hex(v["hex"].as_str().unwrap());
    if let Some(code) = v.get("error") {
        let err = kiln::from_slice::<Vec<T>>(&bytes).unwrap_err();
        assert_eq!(err.kind().code(), code.as_str().unwrap(), "{name}: {err}");
        assert_eq!(err.offset(), v["offset"].as_u64(), "{name}: {err}");
        // Every reader of the same `seq<T>` gives the same error: a
        // `VecDeque<T>` reads element by element, never as a block.
        let deque = kiln::from_slice::<std::collections::VecDeque<T>>(&bytes).unwrap_err();
        assert_eq!(
            (deque.kind().code(), deque.offset()),
            (err.kind().code(), err.offset()),
            "{name}: VecDeque: {deque}"
        );
        // A stream gives `reader_error` at `reader_offset` where the vector
        // has them, else the slice's error.
        let err = kiln::from_reader::<_, Vec<T>>(&bytes[..]).unwrap_err();
        let code = v.get("reader_error").unwrap_or(code).as_str().unwrap();
        assert_eq!(err.kind().code(), code, "{name}: {err}");
        let offset = v.get("reader_offset").unwrap_or(&v["offset"]).as_u64();
        assert_eq!(err.offset(), offset, "{name}: {err}");
        return;
    }
    let value: Vec<T> = v["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(T::from_json)
        .collect();
    assert_eq!(kiln::to_vec(&value).unwrap(), bytes, "{name}: encode");
    assert_eq!(
        kiln::to_vec(&Elementwise(&value)).unwrap(),
        bytes,
        "{name}: element by element"
    );
    let back: Vec<T> = kiln::from_slice(&bytes).unwrap();
    assert_eq!(
        kiln::block::native_bytes(&back),
        kiln::block::native_bytes(&value),
        "{name}: decode"
    );
    let back: Vec<T> = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(
        kiln::block::native_bytes(&back),
        kiln::block::native_bytes(&value),
        "{name}: reader"
    );
}

#[test]
fn block_vectors() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/spec/vectors/block.json"
    ))
    .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["area"], "block");
    let mut names = BTreeSet::new();
    let mut valid_types = BTreeSet::new();
    let mut reject_types = BTreeSet::new();
    for v in doc["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        assert!(name.starts_with("kiln-block-"), "{name}");
        assert!(names.insert(name.to_owned()), "duplicate {name}");
        let ty = v["type"].as_str().unwrap();
        if v.get("error").is_some() {
            reject_types.insert(ty.to_owned());
        } else {
            valid_types.insert(ty.to_owned());
        }
        match ty {
            "Vec<u8>" => run::<u8>(v),
            "Vec<i8>" => run::<i8>(v),
            "Vec<u16>" => run::<u16>(v),
            "Vec<i16>" => run::<i16>(v),
            "Vec<u32>" => run::<u32>(v),
            "Vec<i32>" => run::<i32>(v),
            "Vec<u64>" => run::<u64>(v),
            "Vec<i64>" => run::<i64>(v),
            "Vec<u128>" => run::<u128>(v),
            "Vec<i128>" => run::<i128>(v),
            "Vec<f32>" => run::<f32>(v),
            "Vec<f64>" => run::<f64>(v),
            other => panic!("{name}: unknown type {other}"),
        }
    }
    // Every element type has vectors of both kinds.
    assert_eq!(valid_types.len(), 12);
    assert_eq!(reject_types.len(), 12);
}
