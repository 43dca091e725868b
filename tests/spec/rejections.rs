//! The rejection catalogue, `spec/09-rejections.md`, checked against the
//! crate: every vector row is decoded and must fail with its code at its
//! offset; every code in `ErrorKind::code()` must appear in the catalogue;
//! the refusals without a vector are produced here; and every strict prefix
//! of a valid record is refused.

use crate::common::rich;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io;
use std::num::NonZeroU32;
use std::path::Path;

use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

const CATALOGUE: &str = "spec/09-rejections.md";
const POINT: [u8; 8] = [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff];
const MESSAGE: [u8; 6] = [0x02, 0, 0, 0, 0x68, 0x69];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ----- the types of the catalogue (section 9.1) -------------------------------

use crate::common::Point;
use crate::common::hex;

#[derive(Deserialize, Debug, kiln::Schema)]
#[allow(dead_code)]
struct Message {
    text: String,
}

#[derive(Deserialize, Debug, kiln::Schema)]
#[allow(dead_code)]
enum Color {
    Red,
    Green,
    Blue,
}

/// Has variants 0 to 3, one of each of serde's four kinds.
#[derive(Deserialize, Debug, kiln::Schema)]
#[allow(dead_code)]
enum Shape {
    Empty,
    Circle(f32),
    Rect(u16, u16),
    Label { text: String, size: u8 },
}

use crate::common::nesting::Chain;

/// A chain of options: one nesting level and one tag byte per `Some`.
#[derive(Deserialize, Debug)]
#[serde(transparent)]
struct Nest(#[allow(dead_code)] Option<Box<Nest>>);

/// Needs `deserialize_any`.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    Number(u8),
    Text(String),
}

/// The two-array record of the directory vectors.
type Two = (kiln::Array<u8>, kiln::Array<u16>);
type Labeled = (String, kiln::Array<u16>);

// ----- reading the catalogue ---------------------------------------------------

/// One row of a table whose first cell is a code.
#[derive(Debug)]
struct Row {
    code: String,
    cells: Vec<String>,
}

/// A must-reject vector row of the catalogue.
#[derive(Debug)]
struct Vector {
    name: String,
    code: String,
    ty: String,
    hex: String,
    offset: u64,
    /// The vector file the hex is taken from, when the row names one
    /// instead of spelling out a long input.
    file: Option<String>,
}

fn unquote(cell: &str) -> String {
    cell.trim().trim_matches('`').to_string()
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(root().join(CATALOGUE)).expect("read the catalogue");
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l
                .trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect();
            Row {
                code: unquote(&cells[0]),
                cells,
            }
        })
        // Codes are kebab-case; other tables (the types of 9.1) are not rows.
        .filter(|r| {
            r.code
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        .collect()
}

fn vectors() -> Vec<Vector> {
    rows()
        .into_iter()
        .filter(|r| r.cells.len() == 7 && r.cells[3].starts_with("`kiln-"))
        .map(|r| {
            let name = unquote(&r.cells[3]);
            let cell = unquote(&r.cells[5]);
            // A long input is not spelled out: the cell names the vector
            // file that holds it, and the vector must be there.
            let (hex, file) = match cell.strip_suffix(".json") {
                Some(area) => {
                    let v = json_vectors(area)
                        .remove(&name)
                        .unwrap_or_else(|| panic!("{name} is not in {cell}"));
                    let hex = v["hex"].as_str().expect("hex").to_string();
                    (hex, Some(cell))
                }
                None => (cell, None),
            };
            Vector {
                ty: unquote(&r.cells[4]),
                hex,
                offset: r.cells[6].parse().expect("offset column"),
                code: r.code,
                name,
                file,
            }
        })
        .collect()
}

/// The vectors of `spec/vectors/<area>.json`, by name.
fn json_vectors(area: &str) -> BTreeMap<String, serde_json::Value> {
    crate::common::vectors(area)
        .into_iter()
        .map(|v| (v["name"].as_str().expect("name").to_string(), v))
        .collect()
}

/// How a vector of a JSON file is read, in the notation of the catalogue's
/// type column (section 9.1).
fn reading_of(v: &serde_json::Value) -> String {
    let ty = v["type"].as_str().unwrap_or("");
    match v["mode"].as_str().unwrap_or("decode") {
        "decode" => ty.to_string(),
        "framed" => format!("frame of {ty}"),
        "framed-batch" => format!("framed batch of {ty}"),
        "bare-batch" => format!("bare batch of {ty}"),
        "list" => "list".to_string(),
        "schema-text" => "schema text".to_string(),
        "take" => format!("take {ty}"),
        "file" => format!("file of {ty}"),
        "evolve" => "frame of another version".to_string(),
        "fetch" => format!(
            "fetch {} as {}",
            v["index"].as_u64().expect("index"),
            v["element"].as_str().expect("element")
        ),
        other => panic!("{}: unknown mode {other}", v["name"]),
    }
}

/// The codes `ErrorKind::code()` can return, read from its source.
fn crate_codes() -> BTreeSet<String> {
    let src =
        std::fs::read_to_string(root().join("src/error/kind.rs")).expect("read src/error/kind.rs");
    let start = src
        .find("pub fn code(&self)")
        .expect("ErrorKind::code in src/error/kind.rs");
    let body = &src[start..];
    let end = body.find("\n    }\n").expect("end of ErrorKind::code");
    body[..end]
        .split("=> \"")
        .skip(1)
        .map(|s| s[..s.find('"').expect("closing quote")].to_string())
        .collect()
}

/// Reads `bytes` as the catalogue type `ty` from a slice.
fn decode_slice(ty: &str, bytes: &[u8]) -> kiln::Result<()> {
    fn go<T: DeserializeOwned>(b: &[u8]) -> kiln::Result<()> {
        kiln::from_slice::<T>(b).map(drop)
    }
    match ty {
        "bool" => go::<bool>(bytes),
        "u8" => go::<u8>(bytes),
        "char" => go::<char>(bytes),
        "Option<u8>" => go::<Option<u8>>(bytes),
        "Vec<u64>" => go::<Vec<u64>>(bytes),
        "Vec<f32>" => go::<Vec<f32>>(bytes),
        "Vec<()>" => go::<Vec<()>>(bytes),
        "Point" => go::<Point>(bytes),
        "Message" => go::<Message>(bytes),
        "Color" => go::<Color>(bytes),
        "Nest" => go::<Nest>(bytes),
        "Bytes" => go::<serde_bytes::ByteBuf>(bytes),
        "()" => go::<()>(bytes),
        "u32" => go::<u32>(bytes),
        "f64" => go::<f64>(bytes),
        "String" => go::<String>(bytes),
        "(u8,i16)" => go::<(u8, i16)>(bytes),
        "(Vec<()>,u8)" => go::<(Vec<()>, u8)>(bytes),
        "[u16;3]" => go::<[u16; 3]>(bytes),
        "Option<Option<u8>>" => go::<Option<Option<u8>>>(bytes),
        "Option<Shape>" => go::<Option<Shape>>(bytes),
        "Shape" => go::<Shape>(bytes),
        "Chain" => go::<Chain>(bytes),
        "Untagged" => go::<Untagged>(bytes),
        "Vec<String>" => go::<Vec<String>>(bytes),
        "Vec<Vec<u8>>" => go::<Vec<Vec<u8>>>(bytes),
        "BTreeMap<String,u32>" => go::<BTreeMap<String, u32>>(bytes),
        "Vec<u8>" => go::<Vec<u8>>(bytes),
        "Vec<i8>" => go::<Vec<i8>>(bytes),
        "Vec<u16>" => go::<Vec<u16>>(bytes),
        "Vec<i16>" => go::<Vec<i16>>(bytes),
        "Vec<u32>" => go::<Vec<u32>>(bytes),
        "Vec<i32>" => go::<Vec<i32>>(bytes),
        "Vec<i64>" => go::<Vec<i64>>(bytes),
        "Vec<u128>" => go::<Vec<u128>>(bytes),
        "Vec<i128>" => go::<Vec<i128>>(bytes),
        "Vec<f64>" => go::<Vec<f64>>(bytes),
        "Array<u8>" => go::<kiln::Array<u8>>(bytes),
        "Two" => go::<Two>(bytes),
        "Labeled<u16>" => go::<Labeled>(bytes),
        other => panic!("the catalogue names a type the test does not know: {other}"),
    }
}

/// The first error of a batch, from a slice and from a reader.
fn first_batch_errors<T: DeserializeOwned + kiln::Schema>(
    bytes: &[u8],
    framed: bool,
) -> Vec<kiln::Error> {
    let first = |mut it: Box<dyn Iterator<Item = kiln::Result<T>> + '_>| {
        it.find_map(Result::err).expect("the batch holds no error")
    };
    if framed {
        let a = match kiln::frame::batch_from_slice::<T>(bytes) {
            Err(e) => e,
            Ok(it) => first(Box::new(it)),
        };
        let b = match kiln::frame::batch_from_reader::<_, T>(bytes) {
            Err(e) => e,
            Ok(it) => first(Box::new(it)),
        };
        vec![a, b]
    } else {
        vec![
            first(Box::new(kiln::batch::from_slice::<T>(bytes))),
            first(Box::new(kiln::batch::from_reader::<_, T>(bytes))),
        ]
    }
}

/// Reads `bytes` the way the catalogue's type column says (section 9.1),
/// the way each vector file's own runner does, and returns every error
/// that way of reading gives (a slice, and a stream where the runner checks
/// one).
fn decode_as(reading: &str, bytes: &[u8]) -> Vec<kiln::Error> {
    let one = |r: kiln::Result<()>| vec![r.expect_err(reading)];
    let batch = |framed: bool, ty: &str| match ty {
        "Point" => first_batch_errors::<Point>(bytes, framed),
        "()" => first_batch_errors::<()>(bytes, framed),
        "bool" => first_batch_errors::<bool>(bytes, framed),
        "Message" => first_batch_errors::<Message>(bytes, framed),
        "Vec<u8>" => first_batch_errors::<Vec<u8>>(bytes, framed),
        other => panic!("no batch reader for {other}"),
    };
    if reading == "frame of Point" {
        vec![
            kiln::frame::from_slice::<Point>(bytes)
                .map(drop)
                .expect_err(reading),
            kiln::frame::from_reader::<_, Point>(bytes)
                .map(drop)
                .expect_err(reading),
        ]
    } else if let Some(ty) = reading.strip_prefix("file of ") {
        // The first error after the records of the complete frames.
        let first = |e: Option<kiln::Error>| vec![e.expect(reading)];
        match ty {
            "Point" => first(kiln::file::records::<Point>(bytes).find_map(Result::err)),
            "Sample" => first(
                kiln::file::records::<crate::vectors_file::Sample>(bytes).find_map(Result::err),
            ),
            other => panic!("no file reader for {other}"),
        }
    } else if let Some(ty) = reading.strip_prefix("framed batch of ") {
        batch(true, ty)
    } else if let Some(ty) = reading.strip_prefix("bare batch of ") {
        batch(false, ty)
    } else if reading == "schema text" {
        let text = std::str::from_utf8(bytes).expect("schema text vectors are UTF-8");
        one(kiln::schema::parse(text).map(drop))
    } else if reading == "list" {
        one(kiln::array::list(bytes).map(drop))
    } else if reading == "take Array<u8>" {
        one(kiln::take_from_slice::<kiln::Array<u8>>(bytes).map(drop))
    } else if let Some(rest) = reading.strip_prefix("fetch ") {
        let (index, element) = rest.split_once(" as ").expect("fetch N as T");
        let index: usize = index.parse().expect("fetch index");
        assert_eq!(element, "u8", "fetch of {element}");
        one(kiln::array::fetch::<u8>(bytes, index).map(drop))
    } else {
        one(decode_slice(reading, bytes))
    }
}

// ----- the checks ----------------------------------------------------------------

#[test]
fn every_vector_of_the_catalogue_is_refused_as_stated() {
    let vectors = vectors();
    assert!(
        vectors.len() >= 130,
        "only {} vectors parsed",
        vectors.len()
    );
    let mut names = BTreeSet::new();
    for v in &vectors {
        assert!(names.insert(&v.name), "{} appears twice", v.name);
        let bytes = hex(&v.hex);
        let errors = if v.ty == "frame of another version" {
            // Read by the writer's and the reader's schema texts, which the
            // catalogue does not show: `tests/evolution` reads these.
            continue;
        } else if v.ty == "schema" {
            // Read by a schema text, which the catalogue does not show:
            // `vectors_values.rs` reads these from their file.
            continue;
        } else if v.name == "kiln-core-byte-limit" {
            // The one vector read from a stream with a small byte limit.
            vec![
                kiln::Options::new()
                    .byte_limit(4)
                    .from_reader::<_, Point>(&bytes[..])
                    .map(drop)
                    .expect_err(&v.name),
            ]
        } else {
            decode_as(&v.ty, &bytes)
        };
        for err in errors {
            assert_eq!(
                (err.kind().code(), err.offset()),
                (v.code.as_str(), Some(v.offset)),
                "{}: {err}",
                v.name
            );
        }
    }
}

#[test]
fn every_error_code_of_the_crate_is_in_the_catalogue() {
    let listed: BTreeSet<String> = rows().into_iter().map(|r| r.code).collect();
    let defined = crate_codes();
    assert!(
        defined.len() >= 18,
        "parsed only {defined:?} from src/error/kind.rs"
    );
    let missing: Vec<_> = defined.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "codes of ErrorKind::code() missing from {CATALOGUE}: {missing:?}"
    );
    let stale: Vec<_> = listed.difference(&defined).collect();
    assert!(
        stale.is_empty(),
        "{CATALOGUE} lists codes the crate does not have: {stale:?}"
    );
}

#[test]
fn vectors_in_spec_vectors_agree_with_the_catalogue() {
    // Must-reject vectors of spec/vectors/*.json, where they exist, must be
    // catalogued, with the same input, code and offset.
    let dir = std::fs::read_dir(root().join("spec/vectors")).expect("spec/vectors");
    let catalogue = vectors();
    let mut in_files = BTreeSet::new();
    for entry in dir {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read vectors");
        let json: serde_json::Value = serde_json::from_str(&text).expect("vector JSON");
        for v in json["vectors"].as_array().into_iter().flatten() {
            let Some(code) = v["error"].as_str() else {
                continue;
            };
            let name = v["name"].as_str().expect("vector name");
            in_files.insert(name.to_string());
            let Some(c) = catalogue.iter().find(|c| c.name == name) else {
                panic!(
                    "{}: must-reject vector {name} is not in {CATALOGUE}",
                    path.display()
                );
            };
            assert_eq!(
                (code, v["hex"].as_str(), v["offset"].as_u64()),
                (c.code.as_str(), Some(c.hex.as_str()), Some(c.offset)),
                "{name}: {} and {CATALOGUE} disagree",
                path.display()
            );
            assert_eq!(
                reading_of(v),
                c.ty,
                "{name}: {} and {CATALOGUE} read it differently",
                path.display()
            );
            if let Some(file) = &c.file {
                let here = path.file_name().expect("file name").to_string_lossy();
                assert_eq!(file.as_str(), here, "{name}: the row names another file");
            }
        }
    }
    // And the other way: a catalogue vector lives in a vector file, except
    // the one that needs a byte limit the files do not use.
    for c in &catalogue {
        assert!(
            in_files.contains(&c.name) || c.name == "kiln-core-byte-limit",
            "{}: in {CATALOGUE} but in no spec/vectors file",
            c.name
        );
    }
}

// ----- refusals without a vector (the second table of 9.3) ---------------------------

/// A `Deserialize` impl that reads one element of a two-element tuple.
#[derive(Debug)]
struct StopsEarly;

impl<'de> Deserialize<'de> for StopsEarly {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StopsEarly;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("two u8s")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StopsEarly, A::Error> {
                let _: Option<u8> = seq.next_element()?;
                Ok(StopsEarly)
            }
        }
        d.deserialize_tuple(2, V)
    }
}

/// An `io::Read` that delivers `good` bytes and then fails.
struct Failing<'a> {
    good: &'a [u8],
}

impl io::Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.good.is_empty() {
            return Err(io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.good.len());
        buf[..n].copy_from_slice(&self.good[..n]);
        self.good = &self.good[n..];
        Ok(n)
    }
}

#[test]
fn refusals_without_a_vector_happen_as_stated() {
    let produced: Vec<(&str, kiln::Error, u64)> = vec![
        (
            "custom",
            kiln::from_slice::<(u8, NonZeroU32)>(&[7, 0, 0, 0, 0]).unwrap_err(),
            1,
        ),
        (
            "length-mismatch",
            kiln::from_slice::<StopsEarly>(&[1, 2]).unwrap_err(),
            1,
        ),
        (
            "io",
            kiln::from_reader::<_, Point>(Failing { good: &POINT[..5] }).unwrap_err(),
            5,
        ),
    ];
    let catalogued: BTreeSet<String> = rows()
        .into_iter()
        .filter(|r| r.cells.len() == 7 && r.cells[3] == "—")
        .map(|r| r.code)
        .collect();
    let tested: BTreeSet<String> = produced.iter().map(|p| p.0.to_string()).collect();
    assert_eq!(catalogued, tested, "rows without a vector vs. cases here");
    for (code, err, offset) in produced {
        assert_eq!(
            (err.kind().code(), err.offset()),
            (code, Some(offset)),
            "{err}"
        );
    }
}

// ----- truncation (9.4) ------------------------------------------------------------------

/// The golden file if it exists (and then it must be `expected`), else
/// `expected`: the bytes are binding either way.
fn golden(name: &str, expected: &[u8]) -> Vec<u8> {
    match std::fs::read(root().join("spec/golden").join(name)) {
        Ok(bytes) => {
            assert_eq!(bytes, expected, "spec/golden/{name}");
            bytes
        }
        Err(_) => expected.to_vec(),
    }
}

#[test]
fn every_prefix_of_point_is_unexpected_end() {
    let point = golden("point.kiln", &POINT);
    assert!(kiln::from_slice::<Point>(&point).is_ok());
    for len in 0..point.len() {
        let cut = &point[..len];
        let at = if len < 4 { 0 } else { 4 };
        for err in [
            kiln::from_slice::<Point>(cut).unwrap_err(),
            kiln::from_reader::<_, Point>(cut).unwrap_err(),
        ] {
            assert_eq!(
                (err.kind().code(), err.offset()),
                ("unexpected-end", Some(at)),
                "prefix of {len} bytes: {err}"
            );
        }
    }
}

#[test]
fn every_prefix_of_message_is_unexpected_end() {
    let message = golden("message.kiln", &MESSAGE);
    assert!(kiln::from_slice::<Message>(&message).is_ok());
    for len in 0..message.len() {
        let cut = &message[..len];
        let at = if len < 4 { 0 } else { 4 };
        for err in [
            kiln::from_slice::<Message>(cut).unwrap_err(),
            kiln::from_reader::<_, Message>(cut).unwrap_err(),
        ] {
            assert_eq!(
                (err.kind().code(), err.offset()),
                ("unexpected-end", Some(at)),
                "prefix of {len} bytes: {err}"
            );
        }
    }
}

#[test]
fn every_prefix_of_a_record_with_every_serde_kind_is_refused() {
    for value in rich::sample_values() {
        let bytes = kiln::to_vec(&value).unwrap();
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            let e = kiln::from_slice::<rich::RichRef<'_>>(cut)
                .map(drop)
                .unwrap_err();
            assert!(
                matches!(e.kind().code(), "unexpected-end" | "count-too-large"),
                "slice prefix of {len}: {e}"
            );
            assert!(e.offset().unwrap() <= len as u64);
            let f = kiln::from_reader::<_, rich::RichOwned>(cut)
                .map(drop)
                .unwrap_err();
            assert_eq!(
                f.kind().code(),
                "unexpected-end",
                "reader prefix of {len}: {f}"
            );
            assert!(f.offset() >= e.offset(), "reader failed before the slice");
        }
    }
}
