//! Kiln bytes read and written without the Rust type (`kiln::value`):
//! golden files to the JSON of `spec/10-values.md`, the typed reader's
//! errors at the same offsets, and strict JSON.

use kiln::value::{self, Plan, Value};

use crate::common::rich::{RichOwned, sample_values};

const POINT: &str = "root Point\nstruct Point { x: i32, y: i32 }\n";
const SHAPE: &str = "root Shape\nenum Shape { Empty, Circle(f32), Rect(u16, u16), Label { text: str, size: u8 } }\n";

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/spec/golden/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn json(v: &Value<'_>) -> String {
    serde_json::to_string(v).unwrap()
}

#[test]
fn bare_golden_files_read_by_their_schema_text_alone() {
    let cases = [
        ("point.kiln", POINT.to_owned(), r#"{"x":9,"y":-4}"#),
        (
            "message.kiln",
            "root Message\nstruct Message { text: str }\n".to_owned(),
            r#"{"text":"hi"}"#,
        ),
        ("list-f32.kiln", "root seq<f32>\n".to_owned(), "[1.0,-2.0]"),
        (
            "shape-label.kiln",
            SHAPE.to_owned(),
            r#"{"Label":{"text":"hi","size":9}}"#,
        ),
        (
            "option-some-none.kiln",
            "root option<option<u8>>\n".to_owned(),
            "null",
        ),
        (
            "map.kiln",
            "root map<str, u32>\n".to_owned(),
            r#"{"a":1,"b":2}"#,
        ),
        (
            "record.kiln",
            format!(
                "root Record\nstruct Point {{ x: i32, y: i32 }}\nstruct Record {{ id: u64, name: str, tags: seq<str>, origin: Point, shape: Shape, scale: option<f32> }}\n{}",
                SHAPE.lines().nth(1).unwrap().to_owned() + "\n"
            ),
            r#"{"id":1,"name":"hi","tags":["a"],"origin":{"x":9,"y":-4},"shape":{"Circle":1.0},"scale":null}"#,
        ),
    ];
    for (file, text, expected) in cases {
        let bytes = golden(file);
        let plan = Plan::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let v = value::from_slice(&bytes, &plan).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(json(&v), expected, "{file}");
        assert_eq!(
            value::to_vec(&v, &plan).unwrap(),
            bytes,
            "{file}: written back"
        );
    }
}

#[test]
fn golden_frames_read_by_their_embedded_text() {
    for file in [
        "frame-batch-points-schema.kiln",
        "frame-batch-points-crc-schema.kiln",
    ] {
        let bytes = golden(file);
        let records = value::frame_records(&bytes, None).unwrap();
        assert_eq!(records.plan().text(), POINT);
        let all: Vec<String> = records.map(|r| json(&r.unwrap())).collect();
        assert_eq!(all.len(), 3, "{file}");
        assert!(
            all.iter().all(|j| j.starts_with(r#"{"x":"#)),
            "{file}: {all:?}"
        );
    }
    // Without text, the schema is given, and must be the frame's.
    let bytes = golden("frame-batch-points.kiln");
    let err = value::frame_records(&bytes, None).err().unwrap();
    assert_eq!(err.kind().code(), "no-schema");
    let plan = Plan::parse(POINT).unwrap();
    assert_eq!(
        value::frame_records(&bytes, Some(&plan)).unwrap().count(),
        3
    );
    let other = Plan::parse("root Point\nstruct Point { x: i64, y: i32 }\n").unwrap();
    let err = value::frame_records(&bytes, Some(&other)).err().unwrap();
    assert_eq!(
        (err.kind().code(), err.offset()),
        ("schema-mismatch", Some(16))
    );
}

#[test]
fn golden_arrays_read_as_arrays() {
    let bytes = golden("arrays-framed.kiln");
    let plan = Plan::parse(
        "root GoldenSample\nstruct GoldenSample { label: str, image: array<f32>, index: array<u32> }\n",
    )
    .unwrap();
    let v = value::frame_records(&bytes, Some(&plan))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let Some(Value::Array(image)) = v.get("image") else {
        panic!("{v:?}")
    };
    assert_eq!(image.shape, [3, 4, 5]);
    assert_eq!(image.get(3), Some(Value::F32(1.5)));
    assert!(
        matches!(image.data, std::borrow::Cow::Borrowed(_)),
        "borrowed from the input"
    );
    let opts = kiln::frame::FrameOptions::new();
    let bare = golden("arrays.kiln");
    assert_eq!(value::to_vec(&v, &plan).unwrap(), bare);
    assert_eq!(value::frame_to_vec(&[v], &plan, &opts).unwrap(), bytes);
}

#[test]
fn a_sequence_of_fixed_records_is_one_table() {
    let plan = Plan::parse("root seq<Point>\nstruct Point { x: i32, y: i32 }\n").unwrap();
    let bytes = kiln::to_vec(&vec![(1i32, 2i32), (3, 4)]).unwrap();
    let v = value::from_slice(&bytes, &plan).unwrap();
    let Value::Table(t) = &v else { panic!("{v:?}") };
    assert_eq!((t.len(), t.record_size()), (2, 8));
    assert_eq!(json(&v), r#"[{"x":1,"y":2},{"x":3,"y":4}]"#);
    assert_eq!(value::to_vec(&v, &plan).unwrap(), bytes);
    // A bool that is not 00 or 01 inside the records: the element path's error.
    let plan = Plan::parse("root seq<(u8, bool)>\n").unwrap();
    let err = value::from_slice(&[2, 0, 0, 0, 7, 1, 7, 2], &plan).unwrap_err();
    assert_eq!((err.kind().code(), err.offset()), ("invalid-bool", Some(7)));
    assert_eq!(err.path().as_deref(), Some("[1].1"));
}

/// Every prefix and a spread of single-byte corruptions of the rich
/// samples fail (or not) exactly as the typed reader does.
#[test]
fn errors_are_the_typed_readers() {
    let plan = Plan::of::<RichOwned>().unwrap();
    let mut compared = 0;
    for sample in sample_values() {
        let bytes = kiln::to_vec(&sample).unwrap();
        let mut inputs: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[..n].to_vec()).collect();
        for i in (0..bytes.len()).step_by(3) {
            for b in [0x00, 0x02, 0x7f, 0xff] {
                let mut x = bytes.clone();
                x[i] = b;
                inputs.push(x);
            }
        }
        for input in inputs {
            let typed = kiln::from_slice::<RichOwned>(&input).map(|_| ());
            let untyped = value::from_slice(&input, &plan).map(|_| ());
            match (typed, untyped) {
                (Ok(()), Ok(())) => {}
                (Err(a), Err(b)) => {
                    assert_eq!(
                        (a.kind().code(), a.offset()),
                        (b.kind().code(), b.offset()),
                        "{a} / {b} on {input:02x?}"
                    );
                    // The path names the same steps (the typed reader
                    // names Rust containers, the value reader the schema's).
                    assert_eq!(a.path(), b.path(), "{a} / {b}");
                }
                (a, b) => panic!("typed {a:?}, value {b:?} on {input:02x?}"),
            }
            compared += 1;
        }
    }
    assert!(compared > 1000, "{compared}");
}

#[test]
fn json_that_does_not_fit_names_its_path() {
    let plan = Plan::parse(
        "root Record\nstruct Point { x: i32, y: i32 }\nstruct Record { points: seq<Point>, tag: option<str> }\n",
    )
    .unwrap();
    let read =
        |text: &str| value::from_deserializer(&mut serde_json::Deserializer::from_str(text), &plan);
    let ok = read(r#"{"points": [{"x": 1, "y": 2}], "tag": null}"#).unwrap();
    assert_eq!(json(&ok), r#"{"points":[{"x":1,"y":2}],"tag":null}"#);
    for (text, path, expected, found) in [
        (
            r#"{"points": [{"x": 1, "y": 2}, {"x": 1, "y": "2"}], "tag": null}"#,
            "Record.points[1].y",
            "i32",
            "the string \"2\"",
        ),
        (
            r#"{"points": [{"x": 1, "y": 3000000000}], "tag": null}"#,
            "Record.points[0].y",
            "i32",
            "the number 3000000000",
        ),
        (
            r#"{"points": [{"x": 1}], "tag": null}"#,
            "Record.points[0]",
            "struct Point",
            "no field \"y\"",
        ),
        (
            r#"{"points": [], "tag": null, "extra": 1}"#,
            "Record",
            "struct Record",
            "the unknown field \"extra\"",
        ),
        (
            r#"{"points": [], "tag": 5}"#,
            "Record.tag",
            "str",
            "the number 5",
        ),
    ] {
        let err = read(text).unwrap_err();
        assert_eq!(err.kind().code(), "value-mismatch", "{text}: {err}");
        assert_eq!(err.path().as_deref(), Some(path), "{text}: {err}");
        let kiln::ErrorKind::ValueMismatch {
            expected: e,
            found: f,
        } = err.kind()
        else {
            unreachable!()
        };
        assert_eq!((e.as_str(), f.as_str()), (expected, found), "{text}");
    }
    // Not JSON at all: the parser's own message, with its position.
    let err = read(r#"{"points": ["#).unwrap_err();
    assert_eq!(err.kind().code(), "custom");
    assert!(err.to_string().contains("line 1"), "{err}");
}

#[test]
fn values_that_do_not_fit_are_not_written() {
    let plan = Plan::parse(POINT).unwrap();
    let v = value::Struct::new("Point", [("x", Value::I32(1)), ("y", Value::I64(2))]);
    let err = value::to_vec(&Value::Struct(v), &plan).unwrap_err();
    assert_eq!(err.kind().code(), "value-mismatch");
    assert_eq!(err.path().as_deref(), Some("Point.y"));
}

#[test]
fn streams_give_the_same_values_as_slices() {
    let plan =
        Plan::parse("root Row\nstruct Row { id: u32, name: str, pos: seq<[f32; 3]> }\n").unwrap();
    let rows: Vec<(u32, String, Vec<[f32; 3]>)> = (0..500)
        .map(|i| {
            (
                i,
                format!("row {i}"),
                vec![[i as f32, 1.0, 2.0]; (i % 5) as usize],
            )
        })
        .collect();
    let mut frame = Vec::new();
    let opts = kiln::frame::FrameOptions::new().embed_schema(true);
    let records: Vec<Value> = rows
        .iter()
        .map(|r| {
            value::from_slice(&kiln::to_vec(r).unwrap(), &plan)
                .unwrap()
                .into_owned()
        })
        .collect();
    frame.extend(value::frame_to_vec(&records, &plan, &opts).unwrap());
    let from_slice: Vec<String> = value::frame_records(&frame, None)
        .unwrap()
        .map(|r| json(&r.unwrap()))
        .collect();
    let from_stream: Vec<String> = value::StreamRecords::new(&frame[..], None, &opts)
        .unwrap()
        .map(|r| json(&r.unwrap()))
        .collect();
    assert_eq!(from_slice.len(), 500);
    assert_eq!(from_slice, from_stream);
    // Cut short: every whole record, then the error.
    let cut = &frame[..frame.len() - 10];
    let items: Vec<_> = value::StreamRecords::new(cut, None, &opts)
        .unwrap()
        .collect();
    assert!(items.last().unwrap().is_err());
    assert!(items.iter().filter(|r| r.is_ok()).count() >= 490);
}

/// Map keys of every kind print the same through a `Value` and while
/// reading, and read back from that JSON.
#[test]
fn map_keys_of_every_kind_print_one_way() {
    use std::collections::BTreeMap;
    fn both<T: serde::Serialize + kiln::Schema>(v: &T, expected: &str) {
        let plan = Plan::of::<T>().unwrap();
        let bytes = kiln::to_vec(v).unwrap();
        let value = value::from_slice(&bytes, &plan).unwrap();
        let mut printed = Vec::new();
        value::write_json(&bytes, &plan, &mut printed).unwrap();
        assert_eq!(std::str::from_utf8(&printed).unwrap(), expected);
        assert_eq!(json(&value), expected);
        let back =
            value::from_deserializer(&mut serde_json::Deserializer::from_str(expected), &plan)
                .unwrap_or_else(|e| panic!("{expected}: {e}"));
        assert_eq!(value::to_vec(&back, &plan).unwrap(), bytes, "{expected}");
    }
    both(
        &BTreeMap::from([(true, 1u8), (false, 0)]),
        r#"{"false":0,"true":1}"#,
    );
    both(&BTreeMap::from([('a', 1u8)]), r#"{"a":1}"#);
    both(
        &BTreeMap::from([(u128::MAX, 1u8)]),
        r#"{"340282366920938463463374607431768211455":1}"#,
    );
    both(&BTreeMap::from([(-5i8, 1u8)]), r#"{"-5":1}"#);
    // Float keys, which no Rust map type has but a schema may: the ones
    // that are not finite are spelled out.
    let plan = Plan::parse("root map<f64, u8>\n").unwrap();
    let mut bytes = 3u32.to_le_bytes().to_vec();
    for (k, v) in [(f64::NAN, 1u8), (f64::NEG_INFINITY, 2), (0.5, 3)] {
        bytes.extend(k.to_le_bytes());
        bytes.push(v);
    }
    let expected = r#"{"NaN":1,"-inf":2,"0.5":3}"#;
    let mut printed = Vec::new();
    value::write_json(&bytes, &plan, &mut printed).unwrap();
    assert_eq!(std::str::from_utf8(&printed).unwrap(), expected);
    assert_eq!(json(&value::from_slice(&bytes, &plan).unwrap()), expected);
    let back =
        value::from_deserializer(&mut serde_json::Deserializer::from_str(expected), &plan).unwrap();
    assert_eq!(value::to_vec(&back, &plan).unwrap(), bytes);
}

/// The typeless frame reader refuses an indexed frame (a file's) as the
/// typed batch reader does, rather than reading its payload as records
/// back to back (vector `kiln-frame-indexed-to-batch-reader`).
#[test]
fn frame_records_refuse_an_indexed_frame() {
    let vectors: serde_json::Value =
        serde_json::from_str(include_str!("../../spec/vectors/frame.json")).unwrap();
    let v = vectors["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "kiln-frame-indexed-to-batch-reader")
        .unwrap();
    let bytes = crate::common::hex(v["hex"].as_str().unwrap());
    let plan = kiln::value::Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n").unwrap();
    let err = kiln::value::frame_records(&bytes, Some(&plan))
        .err()
        .unwrap();
    assert_eq!(
        (err.kind().code(), err.offset()),
        (v["error"].as_str().unwrap(), v["offset"].as_u64())
    );
}

/// Builds `Value`s through the public `Build` trait: the same tree as
/// `value::from_slice` builds, so that a builder sees every value.
struct Rebuild;

impl<'de> kiln::value::Build<'de> for Rebuild {
    type Out = Value<'de>;
    type Acc = (Option<(String, Vec<String>)>, u8, Vec<Value<'de>>);

    fn leaf(&mut self, v: Value<'de>) -> Value<'de> {
        v
    }
    fn str(&mut self, s: &str) -> Value<'de> {
        Value::Str(s.to_owned().into())
    }
    fn none(&mut self) -> Value<'de> {
        Value::Option(None)
    }
    fn some(&mut self, v: Value<'de>) -> Value<'de> {
        Value::Option(Some(Box::new(v)))
    }
    fn open(&mut self, c: kiln::value::Compound<'_>, _: usize) -> Self::Acc {
        use kiln::value::Compound;
        match c {
            Compound::Seq => (None, 0, Vec::new()),
            Compound::Tuple => (None, 1, Vec::new()),
            Compound::Map => (None, 2, Vec::new()),
            Compound::Struct { name, fields } => (
                Some((
                    name.to_owned(),
                    fields.iter().map(|f| f.to_string()).collect(),
                )),
                3,
                Vec::new(),
            ),
        }
    }
    fn before(&mut self, _: &mut Self::Acc, _: usize) {}
    fn push(&mut self, acc: &mut Self::Acc, v: Value<'de>) {
        acc.2.push(v);
    }
    fn close(&mut self, acc: Self::Acc) -> Value<'de> {
        match acc {
            (_, 0, items) => Value::Seq(items),
            (_, 1, items) => Value::Tuple(items),
            (_, 2, items) => {
                let mut it = items.into_iter();
                let mut pairs = Vec::new();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((k, v));
                }
                Value::Map(pairs)
            }
            (Some((name, fields)), _, items) => Value::Struct(kiln::value::Struct::new(
                &name,
                fields.into_iter().zip(items),
            )),
            (None, _, items) => Value::Tuple(items),
        }
    }
    fn variant_open(&mut self, _: u32) {}
    fn variant(&mut self, index: u32, name: &str, payload: Option<Value<'de>>) -> Value<'de> {
        Value::Variant(Box::new(kiln::value::Variant {
            name: name.into(),
            index,
            value: payload,
        }))
    }
}

#[test]
fn a_builder_sees_what_the_value_reader_reads() {
    let plan = kiln::value::Plan::of::<RichOwned>().unwrap();
    let values = sample_values();
    for v in &values {
        let bytes = kiln::to_vec(v).unwrap();
        let want = kiln::value::from_slice(&bytes, &plan).unwrap();
        let got = kiln::value::build_slice(&bytes, &plan, &mut Rebuild).unwrap();
        // Compared as Debug text: the samples hold NaNs.
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        // And the same errors at the same offsets, for every cut.
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            let a = kiln::value::from_slice(&bytes[..cut], &plan).unwrap_err();
            let b = kiln::value::build_slice(&bytes[..cut], &plan, &mut Rebuild).unwrap_err();
            assert_eq!(
                (a.kind().code(), a.offset(), a.path()),
                (b.kind().code(), b.offset(), b.path())
            );
        }
    }
    // A batch frame: its records, and a damaged one's error.
    let opts = kiln::frame::FrameOptions::new()
        .embed_schema(true)
        .checksum(true);
    let frame = opts.batch_to_vec(&values).unwrap();
    let builder = std::cell::RefCell::new(Rebuild);
    let built: Vec<Value<'_>> = kiln::value::build_frame(&frame, &plan, &builder)
        .unwrap()
        .expect("a batch")
        .collect::<Result<_, _>>()
        .unwrap();
    let read: Vec<Value<'_>> = kiln::value::frame_records(&frame, None)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(format!("{built:?}"), format!("{read:?}"));
    let mut damaged = frame.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    let a = kiln::value::frame_records(&damaged, None).err().unwrap();
    let b = kiln::value::build_frame(&damaged, &plan, &builder)
        .err()
        .unwrap();
    assert_eq!((a.kind().code(), a.offset()), (b.kind().code(), b.offset()));
    assert_eq!(a.kind().code(), "checksum-mismatch");
}
