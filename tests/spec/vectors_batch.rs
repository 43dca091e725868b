//! Runs `spec/vectors/batch.json`: bare batches (chapter 7). Valid vectors
//! are written with `batch::to_vec` and read back from a slice and from a
//! reader; must-reject vectors must fail, both ways, with their code at
//! their offset and in their record.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::common::Point;
use crate::common::hex;

#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
struct Message {
    text: String,
}

fn run<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(v: &Value) {
    let name = v["name"].as_str().unwrap();
    assert_eq!(v["mode"], "bare-batch", "{name}");
    let bytes = hex(v["hex"].as_str().unwrap());
    let slice: kiln::Result<Vec<T>> = kiln::batch::from_slice(&bytes).collect();
    let reader: kiln::Result<Vec<T>> = kiln::batch::from_reader(&bytes[..]).collect();
    match v.get("error") {
        Some(code) => {
            for e in [slice.unwrap_err(), reader.unwrap_err()] {
                assert_eq!(
                    (e.kind().code(), e.offset(), e.record()),
                    (
                        code.as_str().unwrap(),
                        v["offset"].as_u64(),
                        v["record"].as_u64()
                    ),
                    "{name}: {e}"
                );
            }
        }
        None => {
            let want: Vec<T> = serde_json::from_value(v["value"].clone()).unwrap();
            assert_eq!(kiln::batch::to_vec(&want).unwrap(), bytes, "{name}: write");
            assert_eq!(slice.unwrap(), want, "{name}: slice");
            assert_eq!(reader.unwrap(), want, "{name}: reader");
        }
    }
}

#[test]
fn batch_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors/batch.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(file["area"], "batch");
    let vectors = file["vectors"].as_array().unwrap();
    let mut rejected = 0;
    for v in vectors {
        let name = v["name"].as_str().unwrap();
        assert!(name.starts_with("kiln-batch-"), "{name}");
        rejected += usize::from(v.get("error").is_some());
        match v["type"].as_str().unwrap() {
            "Point" => run::<Point>(v),
            "bool" => run::<bool>(v),
            "Message" => run::<Message>(v),
            other => panic!("{name}: unknown type {other}"),
        }
    }
    assert!(rejected >= 4, "only {rejected} must-reject vectors");
}
