//! Runs `spec/vectors/file.json` (chapter 11): each file is read as a
//! slice, from a stream and as a `KilnFile`; all three yield the vector's
//! records and then stop with its error, at its offset in the file. Valid
//! files of one frame kind are also written with `FileWriter` and compared
//! byte for byte.

use kiln::Array;
use kiln::file::{FileOptions, FileWriter, KilnFile, Reader};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::common::{Point, hex};

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
pub(crate) struct Sample {
    label: String,
    pixels: Array<u16>,
}

trait AsJson {
    fn as_json(&self) -> Value;
}

impl AsJson for Point {
    fn as_json(&self) -> Value {
        json!({"x": self.x, "y": self.y})
    }
}

impl AsJson for Sample {
    fn as_json(&self) -> Value {
        json!({"label": self.label, "pixels": self.pixels.data()})
    }
}

/// The records read, then the error's code and offset, if any.
fn outcome<T: AsJson>(
    items: impl Iterator<Item = kiln::Result<T>>,
) -> (Vec<Value>, Option<(String, u64)>) {
    let mut records = Vec::new();
    for item in items {
        match item {
            Ok(r) => records.push(r.as_json()),
            Err(e) => {
                return (
                    records,
                    Some((e.kind().code().to_owned(), e.offset().unwrap_or(u64::MAX))),
                );
            }
        }
    }
    (records, None)
}

fn run<T: AsJson + DeserializeOwned + kiln::Schema>(v: &Value) {
    let name = v["name"].as_str().unwrap();
    let bytes = hex(v["hex"].as_str().unwrap());
    let want = (
        v["records"].as_array().unwrap().clone(),
        v.get("error").map(|e| {
            (
                e.as_str().unwrap().to_owned(),
                v["offset"].as_u64().unwrap(),
            )
        }),
    );
    assert_eq!(
        outcome(kiln::file::records::<T>(&bytes)),
        want,
        "{name}: slice"
    );
    assert_eq!(
        outcome(Reader::<_, T>::new(&bytes[..])),
        want,
        "{name}: stream"
    );
    let file = KilnFile::from_bytes(&bytes);
    assert_eq!(outcome(file.records::<T>()), want, "{name}: KilnFile");
}

/// Writes the records of a valid vector with `FileWriter`, one frame for
/// each group, and returns the file.
fn write<T: Serialize + kiln::Schema>(groups: &[Vec<T>], embed: bool) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("kiln-vectors-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!(
        "{}.kiln",
        std::any::type_name::<T>().replace(':', "_")
    ));
    let _ = std::fs::remove_file(&path);
    let opts =
        FileOptions::new().frame_options(kiln::frame::FrameOptions::new().embed_schema(embed));
    let mut w: FileWriter<T> = opts.open(&path).unwrap();
    for g in groups {
        for r in g {
            w.push(r).unwrap();
        }
        w.flush().unwrap();
    }
    w.close().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    bytes
}

#[test]
fn file_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors/file.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(file["area"], "file");
    let vectors = file["vectors"].as_array().unwrap();
    let mut rejected = 0;
    for v in vectors {
        let name = v["name"].as_str().unwrap();
        assert!(name.starts_with("kiln-file-"), "{name}");
        rejected += usize::from(v.get("error").is_some());
        match v["type"].as_str().unwrap() {
            "Point" => run::<Point>(v),
            "Sample" => run::<Sample>(v),
            other => panic!("{name}: unknown type {other}"),
        }
    }
    assert!(rejected >= 15, "{rejected} must-reject vectors");
}

fn vector(name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors/file.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = file["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no vector {name}"));
    hex(v["hex"].as_str().unwrap())
}

#[test]
fn the_writer_writes_the_valid_vectors_byte_for_byte() {
    let p = |x, y| Point { x, y };
    assert_eq!(
        write(&[vec![p(9, -4), p(1, 2)], vec![p(-1, 0)]], false),
        vector("kiln-file-points-two-frames")
    );
    assert_eq!(
        write(&[vec![p(9, -4)], vec![p(1, 2)]], true),
        vector("kiln-file-points-schema-text")
    );
    let s = |label: &str, px: Vec<u16>| Sample {
        label: label.into(),
        pixels: Array::from_vec(px),
    };
    assert_eq!(
        write(&[vec![s("a", vec![1, 2]), s("bc", vec![3])]], false),
        vector("kiln-file-samples-indexed")
    );
    let five: Vec<Sample> = (0..5u16)
        .map(|i| s(&format!("r{i}"), vec![i, i + 1]))
        .collect();
    assert_eq!(write(&[five], false), vector("kiln-file-indexed-five"));
}

#[test]
fn the_golden_files_are_the_vectors() {
    for (golden, name) in [
        ("file-points-two-frames.kiln", "kiln-file-points-two-frames"),
        ("file-samples-indexed.kiln", "kiln-file-samples-indexed"),
    ] {
        let path = format!("{}/spec/golden/{golden}", env!("CARGO_MANIFEST_DIR"));
        assert_eq!(std::fs::read(&path).unwrap(), vector(name), "{golden}");
    }
}
