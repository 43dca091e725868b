//! Runs `spec/vectors/frame.json` (every frame rejection, and the valid
//! frames both ways), `spec/vectors/schema.json` (fingerprints), and checks
//! the golden frames in `spec/golden/` byte for byte.

use kiln::frame::{self, FrameOptions};
use serde::Deserialize;

use crate::common::Point;
use crate::common::{golden, hex, to_hex, vectors};

#[derive(Deserialize, kiln::Schema)]
#[allow(dead_code)]
struct Message {
    text: String,
}

#[derive(Deserialize, kiln::Schema)]
#[allow(dead_code)]
enum Shape {
    Circle(f64),
    Rect { w: f32, h: f32 },
    Empty,
}

#[derive(Deserialize, kiln::Schema)]
#[allow(dead_code)]
enum List {
    Nil,
    Cons(i32, Box<List>),
}

#[derive(Deserialize, kiln::Schema)]
#[allow(dead_code)]
struct Tree {
    value: u32,
    children: Vec<Tree>,
}

const PTS: [Point; 3] = [
    Point { x: 9, y: -4 },
    Point { x: 1, y: 2 },
    Point { x: -1, y: 0 },
];

/// The first error of a framed batch read, from a slice and from a reader.
fn first_errors<T: serde::de::DeserializeOwned + kiln::Schema>(bytes: &[u8]) -> [kiln::Error; 2] {
    let a = match frame::batch_from_slice::<T>(bytes) {
        Err(e) => e,
        Ok(mut it) => it.find_map(Result::err).expect("slice: no error"),
    };
    let b = match frame::batch_from_reader::<_, T>(bytes) {
        Err(e) => e,
        Ok(mut it) => it.find_map(Result::err).expect("reader: no error"),
    };
    [a, b]
}

#[test]
fn frame_vectors() {
    let vectors = vectors("frame");
    assert!(vectors.len() >= 30);
    let mut codes = std::collections::BTreeSet::new();
    for v in &vectors {
        let name = v["name"].as_str().unwrap();
        assert!(name.starts_with("kiln-frame-"), "{name}");
        let bytes = hex(v["hex"].as_str().unwrap());
        if let Some(code) = v["error"].as_str() {
            let offset = v["offset"].as_u64().unwrap();
            let errors = match (v["mode"].as_str().unwrap(), v["type"].as_str().unwrap()) {
                // Records of no bytes, against the batch's zero-byte budget.
                ("framed-batch", "()") => first_errors::<()>(&bytes),
                ("framed-batch", "Point") => first_errors::<Point>(&bytes),
                ("framed", "Point") => [
                    frame::from_slice::<Point>(&bytes).unwrap_err(),
                    frame::from_reader::<_, Point>(&bytes[..]).unwrap_err(),
                ],
                other => panic!("{name}: unknown mode and type {other:?}"),
            };
            for e in errors {
                assert_eq!(
                    (e.kind().code(), e.offset()),
                    (code, Some(offset)),
                    "{name}: {e}"
                );
            }
            codes.insert(code.to_owned());
            continue;
        }
        assert_eq!(v["type"], "Point", "{name}");
        let opts = FrameOptions::new()
            .checksum(v["checksum"].as_bool().unwrap())
            .embed_schema(v["schema"].as_bool().unwrap());
        let streamed = v["streamed"].as_bool().unwrap();
        match v["mode"].as_str().unwrap() {
            "framed" => {
                let want: Point = serde_json::from_value(v["value"].clone()).unwrap();
                assert_eq!(opts.from_slice::<Point>(&bytes).unwrap(), want, "{name}");
                assert_eq!(opts.from_reader::<_, Point>(&bytes[..]).unwrap(), want);
                assert_eq!(
                    to_hex(&opts.to_vec(&want).unwrap()),
                    to_hex(&bytes),
                    "{name}"
                );
            }
            "framed-batch" => {
                let want: Vec<Point> = serde_json::from_value(v["value"].clone()).unwrap();
                let a: Vec<Point> = opts
                    .batch_from_slice(&bytes)
                    .unwrap()
                    .collect::<kiln::Result<_>>()
                    .unwrap();
                let b: Vec<Point> = opts
                    .batch_from_reader(&bytes[..])
                    .unwrap()
                    .collect::<kiln::Result<_>>()
                    .unwrap();
                assert_eq!((&a, &b), (&want, &want), "{name}");
                let encoded = if streamed {
                    let mut w = opts.batch_writer::<_, Point>(Vec::new()).unwrap();
                    for p in &want {
                        w.push(p).unwrap();
                    }
                    w.finish().unwrap()
                } else {
                    opts.batch_to_vec(&want).unwrap()
                };
                assert_eq!(to_hex(&encoded), to_hex(&bytes), "{name}");
            }
            other => panic!("{name}: unknown mode {other}"),
        }
    }
    // Every rejection the issue lists has a vector.
    for code in [
        "bad-magic",
        "unsupported-version",
        "reserved-flag",
        "schema-mismatch",
        "checksum-mismatch",
        "count-mismatch",
        "payload-length-mismatch",
        "frame-truncated",
        "padding-nonzero",
        "header-field",
        "bad-trailer",
        "schema-text-mismatch",
        "trailing-bytes",
    ] {
        assert!(codes.contains(code), "no vector for {code}");
    }
}

#[test]
fn schema_vectors() {
    let vectors = vectors("schema");
    assert!(vectors.len() >= 4);
    for v in &vectors {
        let name = v["name"].as_str().unwrap();
        if v["mode"] == "schema-text" {
            schema_text_vector(v);
            continue;
        }
        let schema = match v["type"].as_str().unwrap() {
            "Point" => kiln::schema::schema_of::<Point>(),
            "Message" => kiln::schema::schema_of::<Message>(),
            "Shape" => kiln::schema::schema_of::<Shape>(),
            "List" => kiln::schema::schema_of::<List>(),
            "Tree" => kiln::schema::schema_of::<Tree>(),
            "Vec<Point>" => kiln::schema::schema_of::<Vec<Point>>(),
            "u8" => kiln::schema::schema_of::<u8>(),
            other => panic!("{name}: unknown type {other}"),
        }
        .unwrap();
        assert_eq!(schema.text(), v["text"].as_str(), "{name}");
        assert_eq!(schema.fingerprint().to_string(), v["fingerprint"], "{name}");
        let text = v["text"].as_str().unwrap();
        assert_eq!(
            kiln::schema::Fingerprint::of_text(text),
            schema.fingerprint()
        );
    }
}

/// A schema text on its own: a valid one parses, and its model writes the
/// same text back; a must-reject one fails with the code at the offset.
fn schema_text_vector(v: &serde_json::Value) {
    let name = v["name"].as_str().unwrap();
    if let Some(code) = v["error"].as_str() {
        let bytes = hex(v["hex"].as_str().unwrap());
        let text = std::str::from_utf8(&bytes).unwrap();
        if let Some(t) = v["text"].as_str() {
            assert_eq!(t, text, "{name}: text and hex differ");
        }
        let e = kiln::schema::parse(text).unwrap_err();
        assert_eq!(e.kind().code(), code, "{name}: {e}");
        assert_eq!(e.offset(), v["offset"].as_u64(), "{name}: {e}");
        // Registered as a schema, the text is kept but has no model.
        assert_eq!(
            kiln::schema::Canonical::from_text(text).model(),
            None,
            "{name}"
        );
        return;
    }
    let text = v["text"].as_str().unwrap();
    let model = kiln::schema::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let schema = kiln::schema::Canonical::from_model(model.clone());
    assert_eq!(schema.text(), Some(text), "{name}");
    assert_eq!(schema.fingerprint().to_string(), v["fingerprint"], "{name}");
    assert_eq!(
        kiln::schema::Canonical::from_text(text).model(),
        Some(&model),
        "{name}"
    );
}

#[test]
fn golden_frames() {
    let o = FrameOptions::new();
    assert_eq!(frame::to_vec(&PTS[0]).unwrap(), golden("frame-point"));
    assert_eq!(kiln::batch::to_vec(&PTS).unwrap(), golden("batch-points"));
    for (name, crc, schema) in [
        ("frame-batch-points", false, false),
        ("frame-batch-points-crc", true, false),
        ("frame-batch-points-schema", false, true),
        ("frame-batch-points-crc-schema", true, true),
    ] {
        let o = o.checksum(crc).embed_schema(schema);
        let bytes = golden(name);
        assert_eq!(o.batch_to_vec(&PTS).unwrap(), bytes, "{name}");
        let back: Vec<Point> = o
            .batch_from_slice(&bytes)
            .unwrap()
            .collect::<kiln::Result<_>>()
            .unwrap();
        assert_eq!(back, PTS);
    }
    let mut w = o.batch_writer::<_, Point>(Vec::new()).unwrap();
    for p in &PTS {
        w.push(p).unwrap();
    }
    assert_eq!(w.finish().unwrap(), golden("frame-batch-points-streamed"));
    // The framed Point is the header and the bare eight bytes.
    let framed = golden("frame-point");
    assert_eq!(&framed[64..], kiln::to_vec(&PTS[0]).unwrap());
    assert_eq!(framed[64..], [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
}
