//! The rejection catalogue, `spec/09-rejections.md`, checked against the
//! crate: every vector row is decoded and must fail with its code at its
//! offset; every code in `ErrorKind::code()` must appear in the catalogue;
//! the refusals without a vector are produced here; and every strict prefix
//! of a valid record is refused.

#[path = "common/rich.rs"]
#[allow(dead_code)]
mod rich;

use std::collections::BTreeSet;
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

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Message {
    text: String,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Deserialize, Debug)]
struct Nest(#[allow(dead_code)] Option<Box<Nest>>);

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
        .map(|r| Vector {
            name: unquote(&r.cells[3]),
            ty: unquote(&r.cells[4]),
            hex: unquote(&r.cells[5]),
            offset: r.cells[6].parse().expect("offset column"),
            code: r.code,
        })
        .collect()
}

/// The codes `ErrorKind::code()` can return, read from its source.
fn crate_codes() -> BTreeSet<String> {
    let src = std::fs::read_to_string(root().join("src/error.rs")).expect("read src/error.rs");
    let start = src
        .find("pub fn code(&self)")
        .expect("ErrorKind::code in src/error.rs");
    let body = &src[start..];
    let end = body.find("\n    }\n").expect("end of ErrorKind::code");
    body[..end]
        .split("=> \"")
        .skip(1)
        .map(|s| s[..s.find('"').expect("closing quote")].to_string())
        .collect()
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
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
        "Any" => go::<serde_json::Value>(bytes),
        other => panic!("the catalogue names a type the test does not know: {other}"),
    }
}

// ----- the checks ----------------------------------------------------------------

#[test]
fn every_vector_of_the_catalogue_is_refused_as_stated() {
    let vectors = vectors();
    assert!(vectors.len() >= 17, "only {} vectors parsed", vectors.len());
    let mut names = BTreeSet::new();
    for v in &vectors {
        assert!(names.insert(&v.name), "{} appears twice", v.name);
        let bytes = hex(&v.hex);
        let err = if v.name == "kiln-core-byte-limit" {
            // The one vector read from a stream with a small byte limit.
            kiln::Options::new()
                .byte_limit(4)
                .from_reader::<_, Point>(&bytes[..])
                .map(drop)
                .expect_err(&v.name)
        } else {
            decode_slice(&v.ty, &bytes).expect_err(&v.name)
        };
        assert_eq!(
            (err.kind().code(), err.offset()),
            (v.code.as_str(), Some(v.offset)),
            "{}: {err}",
            v.name
        );
    }
}

#[test]
fn every_error_code_of_the_crate_is_in_the_catalogue() {
    let listed: BTreeSet<String> = rows().into_iter().map(|r| r.code).collect();
    let defined = crate_codes();
    assert!(
        defined.len() >= 18,
        "parsed only {defined:?} from src/error.rs"
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
    let Ok(dir) = std::fs::read_dir(root().join("spec/vectors")) else {
        return;
    };
    let catalogue = vectors();
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
        }
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
