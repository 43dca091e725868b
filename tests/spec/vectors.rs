//! Runs the language-neutral vectors of `spec/vectors/core.json` in both
//! directions, so that the spec and the code cannot drift apart.
//!
//! A valid vector is checked four ways: its value (in the JSON value form of
//! `spec/vectors/README.md`) encodes to exactly its hex with `to_vec`,
//! `to_writer` and `serialized_size`, and its hex decodes back to the same
//! value with `from_slice` and `from_reader`. A must-reject vector must fail
//! `from_slice` with exactly its error code and byte offset.
//!
//! The value form is read and written by a small serde `Deserializer` and
//! `Serializer` over `serde_json::Value` defined below, so every Rust type in
//! the registry is used as it is, with no wrapper: the JSON conventions
//! (64/128-bit integers as decimal strings, floats as bit patterns, options
//! as `{"some": v}`, enums with their index, maps as pairs) live in one place.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------
// The types vectors may name. Each is documented in spec/vectors/README.md.
// ---------------------------------------------------------------------------

use crate::common::Point;
use crate::common::to_hex;

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
struct Message {
    text: String,
}

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
struct Unit;

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
struct Id(u32);

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
struct Pair(u8, String);

/// One variant of each of serde's four kinds.
#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
enum Shape {
    Empty,
    Circle(f32),
    Rect(u16, u16),
    Label { text: String, size: u8 },
}

/// A recursive enum: one nesting level per link, four bytes each.
#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
enum Chain {
    End,
    Link(Box<Chain>),
}

/// A chain of options: each `Some` is one nesting level and one tag byte.
#[derive(Serialize, Deserialize, Debug)]
#[serde(transparent)]
struct Nest(Option<Box<Nest>>);

/// Needs `deserialize_any`, which Kiln refuses.
#[derive(Serialize, Deserialize, Debug)]
#[serde(untagged)]
enum Untagged {
    Number(u8),
    Text(String),
}

/// Maps each `"type"` string to a Rust type and the check to run on it.
macro_rules! registry {
    ($($name:literal => $ty:ty,)*) => {
        const TYPE_NAMES: &[&str] = &[$($name),*];

        fn dispatch(ty: &str, v: &Vector) -> Option<Result<(), String>> {
            match ty {
                $($name => Some(check::<$ty>(v)),)*
                _ => None,
            }
        }
    };
}

registry! {
    "bool" => bool,
    "i8" => i8,
    "u8" => u8,
    "i16" => i16,
    "u16" => u16,
    "i32" => i32,
    "u32" => u32,
    "i64" => i64,
    "u64" => u64,
    "i128" => i128,
    "u128" => u128,
    "usize" => usize,
    "isize" => isize,
    "f32" => f32,
    "f64" => f64,
    "char" => char,
    "String" => String,
    "Bytes" => ByteBuf,
    "()" => (),
    "Unit" => Unit,
    "Id" => Id,
    "Option<u8>" => Option<u8>,
    "Option<String>" => Option<String>,
    "Option<Option<u8>>" => Option<Option<u8>>,
    "Option<Shape>" => Option<Shape>,
    "Shape" => Shape,
    "Chain" => Chain,
    "Nest" => Nest,
    "Vec<u8>" => Vec<u8>,
    "Vec<u16>" => Vec<u16>,
    "Vec<u64>" => Vec<u64>,
    "Vec<f32>" => Vec<f32>,
    "Vec<String>" => Vec<String>,
    "Vec<Vec<u8>>" => Vec<Vec<u8>>,
    "Vec<()>" => Vec<()>,
    "(Vec<()>,u8)" => (Vec<()>, u8),
    "(u8,i16)" => (u8, i16),
    "Pair" => Pair,
    "[u16;3]" => [u16; 3],
    "BTreeMap<String,u32>" => BTreeMap<String, u32>,
    "Point" => Point,
    "Message" => Message,
    "Untagged" => Untagged,
}

// ---------------------------------------------------------------------------
// The vector file.
// ---------------------------------------------------------------------------

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct VectorFile {
    area: String,
    vectors: Vec<Vector>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Vector {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    /// Present (possibly `null`) on valid vectors; `Some(Value::Null)` for a
    /// `null` value, `None` when the key is absent.
    #[serde(default, deserialize_with = "present")]
    value: Option<Value>,
    hex: String,
    error: Option<String>,
    offset: Option<u64>,
    #[allow(dead_code)] // for human readers only
    comment: Option<String>,
}

/// Distinguishes `"value": null` (present) from a missing key.
fn present<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("spec/vectors")
}

fn load(file: &str) -> VectorFile {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `kiln-<area>-<name>`: lowercase ASCII letters and digits in dash-separated
/// words, the area one word, the name at least one. Returns the area.
fn name_area(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("kiln-")?;
    let (area, tail) = rest.split_once('-')?;
    let word = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    (word(area) && tail.split('-').all(word)).then_some(area)
}

fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in {s:?}"));
    }
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(format!("hex must be lowercase: {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("bad hex digits in {s:?}"))
        })
        .collect()
}

/// Runs one vector against type `T`.
fn check<T: Serialize + DeserializeOwned>(v: &Vector) -> Result<(), String> {
    let bytes = parse_hex(&v.hex)?;
    match (&v.value, &v.error, v.offset) {
        (Some(value), None, None) => {
            let expected: T = T::deserialize(VDe(value)).map_err(|e| format!("value: {e}"))?;
            let canon = canonical(&expected)?;

            let written = kiln::to_vec(&expected).map_err(|e| format!("to_vec: {e}"))?;
            if written != bytes {
                return Err(format!(
                    "to_vec wrote {}, expected {}",
                    to_hex(&written),
                    v.hex
                ));
            }
            let mut streamed = Vec::new();
            kiln::to_writer(&mut streamed, &expected).map_err(|e| format!("to_writer: {e}"))?;
            if streamed != bytes {
                return Err(format!("to_writer wrote {}", to_hex(&streamed)));
            }
            let size = kiln::serialized_size(&expected).map_err(|e| format!("size: {e}"))?;
            if size != bytes.len() as u64 {
                return Err(format!(
                    "serialized_size says {size}, hex has {}",
                    bytes.len()
                ));
            }

            let decoded: T = kiln::from_slice(&bytes).map_err(|e| format!("from_slice: {e}"))?;
            let got = canonical(&decoded)?;
            if got != canon {
                return Err(format!("from_slice read {got}, expected {canon}"));
            }
            let read: T = kiln::from_reader(&bytes[..]).map_err(|e| format!("from_reader: {e}"))?;
            let got = canonical(&read)?;
            if got != canon {
                return Err(format!("from_reader read {got}, expected {canon}"));
            }
            // The record ends where the value ends: a reader of records
            // back to back gets the next byte back untouched.
            let mut longer = bytes.clone();
            longer.push(0xaa);
            let (taken, rest) =
                kiln::take_from_slice::<T>(&longer).map_err(|e| format!("take_from_slice: {e}"))?;
            if canonical(&taken)? != canon || rest != [0xaa] {
                return Err(format!("take_from_slice left {}", to_hex(rest)));
            }
            Ok(())
        }
        (None, Some(code), Some(offset)) => {
            let expect = |how: &str, result: kiln::Result<T>| match result {
                Ok(_) => Err(format!(
                    "{how} decoded, but should fail with {code} at {offset}"
                )),
                Err(e) if e.kind().code() == code && e.offset() == Some(offset) => Ok(()),
                Err(e) => Err(format!(
                    "{how} failed with {} at {:?} ({e}), expected {code} at {offset}",
                    e.kind().code(),
                    e.offset()
                )),
            };
            expect("from_slice", kiln::from_slice::<T>(&bytes))?;
            // A stream refuses the same input too. It cannot check counts
            // ahead (spec chapter 3, section 3.19.3), and checks its byte
            // limit before each item, so where the slice saw a count too
            // large or ran out of bytes, the stream may report another of
            // those limits; every other rejection is the same.
            let streamed = kiln::from_reader::<_, T>(&bytes[..]);
            if ["count-too-large", "unexpected-end"].contains(&code.as_str()) {
                match streamed {
                    Err(e)
                        if [
                            "count-too-large",
                            "unexpected-end",
                            "zero-sized-limit",
                            "byte-limit",
                        ]
                        .contains(&e.kind().code()) =>
                    {
                        Ok(())
                    }
                    other => Err(format!("from_reader gave {:?}", other.err())),
                }
            } else {
                expect("from_reader", streamed)
            }
        }
        _ => Err("a vector has either `value`, or both `error` and `offset`".into()),
    }
}

#[test]
fn core_vectors() {
    let file = load("core.json");
    assert_eq!(file.area, "core");
    assert!(!file.vectors.is_empty(), "core.json has no vectors");

    let mut failures = Vec::new();
    let mut names = BTreeSet::new();
    let mut used_types = BTreeSet::new();
    let (mut valid, mut reject) = (0, 0);
    for v in &file.vectors {
        match name_area(&v.name) {
            // `kiln-pod-list-f32` is the introduction's case name for a
            // Vec<f32>, whose bytes are core bytes.
            Some("core" | "pod") => {}
            _ => failures.push(format!("{}: name is not kiln-core-<name>", v.name)),
        }
        if !names.insert(v.name.as_str()) {
            failures.push(format!("{}: duplicate name", v.name));
        }
        used_types.insert(v.ty.as_str());
        if v.error.is_some() {
            reject += 1;
        } else {
            valid += 1;
        }
        match dispatch(&v.ty, v) {
            None => failures.push(format!("{}: unknown type {:?}", v.name, v.ty)),
            Some(Err(e)) => failures.push(format!("{} ({}): {e}", v.name, v.ty)),
            Some(Ok(())) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing vectors:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        valid > 0 && reject > 0,
        "{valid} valid and {reject} must-reject vectors"
    );

    // Names the spec promises by heart.
    for name in ["kiln-core-point", "kiln-core-message", "kiln-pod-list-f32"] {
        assert!(names.contains(name), "missing vector {name}");
    }
    // Every registered type is exercised by at least one vector, so the
    // registry cannot collect dead entries.
    let unused: Vec<_> = TYPE_NAMES
        .iter()
        .filter(|t| !used_types.contains(*t))
        .collect();
    assert!(unused.is_empty(), "types no vector uses: {unused:?}");
}

/// Every must-reject class of the core chapter has a vector.
#[test]
fn every_reject_class_has_a_vector() {
    let file = load("core.json");
    let codes: BTreeSet<_> = file
        .vectors
        .iter()
        .filter_map(|v| v.error.as_deref())
        .collect();
    for code in [
        "unexpected-end",
        "invalid-bool",
        "invalid-option-tag",
        "invalid-char",
        "invalid-utf8",
        "unknown-variant",
        "count-too-large",
        "zero-sized-limit",
        "depth-limit",
        "trailing-bytes",
        "unsupported",
    ] {
        assert!(codes.contains(code), "no must-reject vector for {code}");
    }
}

/// Names in every vector file (other areas have their own runners) follow
/// `kiln-<area>-<name>`, and a name means the same bytes in every file.
#[test]
fn all_vector_names_are_well_formed() {
    let mut seen = BTreeMap::new();
    let mut files = 0;
    for entry in std::fs::read_dir(vectors_dir()).expect("spec/vectors exists") {
        let path = entry.expect("directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).expect("readable vector file");
        let json: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let vectors = json["vectors"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no \"vectors\" array", path.display()));
        for v in vectors {
            let name = v["name"].as_str().unwrap_or_default().to_owned();
            assert!(
                name_area(&name).is_some(),
                "{}: bad name {name:?}",
                path.display()
            );
            // Schema vectors carry a text and its fingerprint instead of bytes.
            assert!(
                v["hex"].is_string() || (v["text"].is_string() && v["fingerprint"].is_string()),
                "{}: {name} has neither a \"hex\" string nor a schema text and fingerprint",
                path.display()
            );
            // One name, one case: a name may appear in two files (when two
            // runners check the same bytes), but only with the same bytes.
            let hex = v["hex"].as_str().unwrap_or_default().to_owned();
            if let Some((other, other_hex)) = seen.insert(name.clone(), (path.clone(), hex.clone()))
            {
                assert_eq!(
                    hex,
                    other_hex,
                    "{name} has other bytes in {} than in {}",
                    path.display(),
                    other.display()
                );
            }
        }
    }
    assert!(files > 0 && !seen.is_empty());
}

/// Every vector name the types chapter cites exists, so the chapter's
/// examples are all checked by `core_vectors`.
#[test]
fn chapter_cites_only_existing_vectors() {
    let file = load("core.json");
    let names: BTreeSet<_> = file.vectors.iter().map(|v| v.name.as_str()).collect();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("spec/03-types.md");
    let chapter = std::fs::read_to_string(path).expect("spec/03-types.md");
    let mut cited = 0;
    for (at, _) in chapter.match_indices("kiln-") {
        let word: String = chapter[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let word = word.trim_end_matches('-');
        assert!(
            names.contains(word),
            "03-types.md cites {word}, not in core.json"
        );
        cited += 1;
    }
    assert!(cited > 50, "only {cited} citations found");
}

/// Where a table row of the types chapter shows bytes next to a vector
/// name, the bytes are that vector's hex: the prose cannot drift either.
#[test]
fn chapter_tables_match_vectors() {
    let file = load("core.json");
    let hex: BTreeMap<_, _> = file
        .vectors
        .iter()
        .map(|v| (v.name.as_str(), v.hex.as_str()))
        .collect();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("spec/03-types.md");
    let chapter = std::fs::read_to_string(path).expect("spec/03-types.md");
    let is_hex_bytes = |cell: &str| {
        !cell.is_empty()
            && cell.split(' ').all(|pair| {
                pair.len() == 2
                    && pair
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            })
    };
    let mut compared = 0;
    for line in chapter.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        for (i, cell) in cells.iter().enumerate() {
            if let Some(&expected) = hex.get(cell)
                && i > 0
                && is_hex_bytes(cells[i - 1])
            {
                assert_eq!(cells[i - 1].replace(' ', ""), expected, "{cell} in: {line}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 45, "only {compared} table rows compared");
}

#[test]
fn name_rule() {
    assert_eq!(name_area("kiln-core-point"), Some("core"));
    assert_eq!(name_area("kiln-pod-list-f32"), Some("pod"));
    for bad in [
        "kiln-core",
        "kiln-core-",
        "kiln--point",
        "kiln-Core-point",
        "core-point",
        "kiln-core-point_2",
        "kiln-core-a--b",
    ] {
        assert_eq!(name_area(bad), None, "{bad}");
    }
}

/// The value form itself: a few spot checks that the bridge reads what the
/// README says and refuses what it forbids.
#[test]
fn value_form_rules() {
    let read = |ty: &str, json: &str| -> Result<String, String> {
        let value: Value = serde_json::from_str(json).unwrap();
        fn go<T: Serialize + DeserializeOwned>(value: &Value) -> Result<String, String> {
            let t: T = T::deserialize(VDe(value)).map_err(|e| e.to_string())?;
            canonical(&t).map(|c| c.to_string())
        }
        match ty {
            "u64" => go::<u64>(&value),
            "u8" => go::<u8>(&value),
            "f32" => go::<f32>(&value),
            "f64" => go::<f64>(&value),
            "Option<Option<u8>>" => go::<Option<Option<u8>>>(&value),
            "Shape" => go::<Shape>(&value),
            "Point" => go::<Point>(&value),
            "Bytes" => go::<ByteBuf>(&value),
            _ => unreachable!(),
        }
    };
    assert_eq!(
        read("u64", r#""18446744073709551615""#).unwrap(),
        r#""18446744073709551615""#
    );
    assert!(read("u64", "7").is_err(), "64-bit integers are strings");
    assert!(read("u64", r#""007""#).is_err(), "no leading zeros");
    assert!(read("u8", "256").is_err());
    assert_eq!(read("f32", "1.0").unwrap(), r#""0x3f800000""#);
    assert_eq!(read("f32", r#""0x7f800001""#).unwrap(), r#""0x7f800001""#);
    assert!(read("f32", "0.1").is_err(), "0.1 is not exact in f32");
    assert!(read("f32", "-0.0").is_err(), "-0.0 must be a bit pattern");
    assert!(
        read("f32", r#""0x7f80""#).is_err(),
        "f32 patterns have 8 digits"
    );
    assert_eq!(read("f64", "0.1").unwrap(), r#""0x3fb999999999999a""#);
    assert_eq!(
        read("Option<Option<u8>>", r#"{"some": null}"#).unwrap(),
        r#"{"some":null}"#
    );
    assert!(read("Option<Option<u8>>", "5").is_err());
    assert!(
        read(
            "Shape",
            r#"{"variant": "Circle", "index": 2, "value": 1.0}"#
        )
        .is_err()
    );
    assert!(
        read(
            "Shape",
            r#"{"variant": "Empty", "index": 0, "value": null}"#
        )
        .is_err()
    );
    assert!(read("Point", r#"{"x": 1, "y": 2, "z": 3}"#).is_err());
    assert!(read("Point", r#"{"x": 1}"#).is_err());
    assert!(read("Bytes", r#""ABCD""#).is_err(), "hex is lowercase");
}

// ---------------------------------------------------------------------------
// The value form, JSON -> Rust: a serde Deserializer over `&Value`.
// ---------------------------------------------------------------------------

#[derive(Debug)]
struct VErr(String);

impl fmt::Display for VErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for VErr {}
impl de::Error for VErr {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        VErr(msg.to_string())
    }
}
impl ser::Error for VErr {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        VErr(msg.to_string())
    }
}

fn fail<T>(msg: impl fmt::Display) -> Result<T, VErr> {
    Err(VErr(msg.to_string()))
}

struct VDe<'de>(&'de Value);

impl<'de> VDe<'de> {
    fn expect_str(&self, what: &str) -> Result<&'de str, VErr> {
        self.0
            .as_str()
            .ok_or_else(|| VErr(format!("expected {what} as a string, found {}", self.0)))
    }

    fn expect_array(&self, what: &str) -> Result<&'de [Value], VErr> {
        self.0
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| VErr(format!("expected {what} as an array, found {}", self.0)))
    }

    fn expect_null(&self, what: &str) -> Result<(), VErr> {
        if self.0.is_null() {
            Ok(())
        } else {
            fail(format!("expected {what} as null, found {}", self.0))
        }
    }

    /// A decimal string in canonical form (no sign on zero, no `+`, no
    /// leading zeros), for 64- and 128-bit integers.
    fn decimal<T: std::str::FromStr + ToString>(&self) -> Result<T, VErr> {
        let s = self.expect_str("a 64/128-bit integer")?;
        match s.parse::<T>() {
            Ok(v) if v.to_string() == s => Ok(v),
            _ => fail(format!("{s:?} is not a canonical decimal of the type")),
        }
    }

    fn float_bits(&self, digits: usize) -> Result<Option<u64>, VErr> {
        match self.0 {
            Value::String(s) => {
                let hex = s.strip_prefix("0x").unwrap_or("");
                let ok = hex.len() == digits
                    && hex
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
                if !ok {
                    return fail(format!("{s:?} is not 0x and {digits} lowercase hex digits"));
                }
                Ok(Some(u64::from_str_radix(hex, 16).expect("checked hex")))
            }
            Value::Number(_) => Ok(None),
            other => fail(format!("expected a float, found {other}")),
        }
    }

    fn number_f64(&self) -> Result<f64, VErr> {
        let x = self.0.as_f64().expect("a JSON number");
        if x == 0.0 && x.is_sign_negative() {
            return fail("-0.0 must be written as a bit pattern");
        }
        Ok(x)
    }
}

macro_rules! small_int {
    ($($method:ident => $visit:ident($ty:ty),)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
            let n = self.0.as_i64().and_then(|n| <$ty>::try_from(n).ok());
            match n {
                Some(n) => visitor.$visit(n),
                None => fail(format!("expected {} as a JSON integer, found {}", stringify!($ty), self.0)),
            }
        }
    )*};
}

macro_rules! big_int {
    ($($method:ident => $visit:ident($ty:ty),)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
            visitor.$visit(self.decimal::<$ty>()?)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for VDe<'de> {
    type Error = VErr;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, VErr> {
        fail("the value form is read by type; deserialize_any has no type")
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        match self.0 {
            Value::Bool(b) => visitor.visit_bool(*b),
            other => fail(format!("expected true or false, found {other}")),
        }
    }

    small_int! {
        deserialize_i8 => visit_i8(i8),
        deserialize_u8 => visit_u8(u8),
        deserialize_i16 => visit_i16(i16),
        deserialize_u16 => visit_u16(u16),
        deserialize_i32 => visit_i32(i32),
        deserialize_u32 => visit_u32(u32),
    }

    big_int! {
        deserialize_i64 => visit_i64(i64),
        deserialize_u64 => visit_u64(u64),
        deserialize_i128 => visit_i128(i128),
        deserialize_u128 => visit_u128(u128),
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        if let Some(bits) = self.float_bits(8)? {
            return visitor.visit_f32(f32::from_bits(bits as u32));
        }
        let x = self.number_f64()?;
        let y = x as f32;
        if f64::from(y) != x {
            return fail(format!("{x} is not exactly an f32; write its bit pattern"));
        }
        visitor.visit_f32(y)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        if let Some(bits) = self.float_bits(16)? {
            return visitor.visit_f64(f64::from_bits(bits));
        }
        visitor.visit_f64(self.number_f64()?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        let s = self.expect_str("a char")?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => visitor.visit_char(c),
            _ => fail(format!("expected exactly one char, found {s:?}")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        visitor.visit_borrowed_str(self.expect_str("a string")?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        let s = self.expect_str("bytes as hex")?;
        visitor.visit_byte_buf(parse_hex(s).map_err(VErr)?)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            Value::Object(m) if m.len() == 1 && m.contains_key("some") => {
                visitor.visit_some(VDe(&m["some"]))
            }
            other => fail(format!("expected null or {{\"some\": v}}, found {other}")),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        self.expect_null("unit")?;
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, VErr> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, VErr> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        let items = self.expect_array("a sequence")?;
        visit_values(items.iter().collect(), visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, VErr> {
        let items = self.expect_array("a tuple")?;
        if items.len() != len {
            return fail(format!(
                "expected {len} tuple elements, found {}",
                items.len()
            ));
        }
        visit_values(items.iter().collect(), visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, VErr> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, VErr> {
        let mut entries = Vec::new();
        for pair in self.expect_array("a map")? {
            match pair.as_array().map(Vec::as_slice) {
                Some([k, v]) => entries.push((k, v)),
                _ => return fail(format!("expected a [key, value] pair, found {pair}")),
            }
        }
        let mut access = PairsAccess {
            entries: entries.into_iter(),
            value: None,
        };
        let out = visitor.visit_map(&mut access)?;
        if access.entries.len() != 0 {
            return fail("map entries left unread");
        }
        Ok(out)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, VErr> {
        let Value::Object(obj) = self.0 else {
            return fail(format!(
                "expected struct {name} as an object, found {}",
                self.0
            ));
        };
        if obj.len() != fields.len() || fields.iter().any(|f| !obj.contains_key(*f)) {
            let keys: Vec<_> = obj.keys().collect();
            return fail(format!(
                "struct {name} has fields {fields:?}, found keys {keys:?}"
            ));
        }
        visit_values(fields.iter().map(|f| &obj[*f]).collect(), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, VErr> {
        let obj = match self.0 {
            Value::Object(obj) => obj,
            other => return fail(format!("expected enum {name} as an object, found {other}")),
        };
        if obj
            .keys()
            .any(|k| !["variant", "index", "value"].contains(&k.as_str()))
        {
            return fail(format!(
                "enum {name}: only variant, index and value are allowed"
            ));
        }
        let variant = obj.get("variant").and_then(Value::as_str);
        let index = obj
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok());
        let (Some(variant), Some(index)) = (variant, index) else {
            return fail(format!(
                "enum {name} needs a string variant and a u32 index"
            ));
        };
        if variants.get(index as usize) != Some(&variant) {
            return fail(format!(
                "enum {name}: index {index} is not variant {variant} (variants: {variants:?})"
            ));
        }
        visitor.visit_enum(VariantD {
            index,
            value: obj.get("value"),
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _: V) -> Result<V::Value, VErr> {
        fail("identifiers do not occur in the value form")
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, VErr> {
        fail("the value form has no values to ignore")
    }
}

fn visit_values<'de, V: Visitor<'de>>(
    items: Vec<&'de Value>,
    visitor: V,
) -> Result<V::Value, VErr> {
    let mut access = ValuesAccess(items.into_iter());
    let out = visitor.visit_seq(&mut access)?;
    if access.0.len() != 0 {
        return fail(format!("{} elements left unread", access.0.len()));
    }
    Ok(out)
}

struct ValuesAccess<'de>(std::vec::IntoIter<&'de Value>);

impl<'de> de::SeqAccess<'de> for ValuesAccess<'de> {
    type Error = VErr;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, VErr> {
        self.0.next().map(|v| seed.deserialize(VDe(v))).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct PairsAccess<'de> {
    entries: std::vec::IntoIter<(&'de Value, &'de Value)>,
    value: Option<&'de Value>,
}

impl<'de> de::MapAccess<'de> for PairsAccess<'de> {
    type Error = VErr;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, VErr> {
        match self.entries.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(VDe(k)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, VErr> {
        match self.value.take() {
            Some(v) => seed.deserialize(VDe(v)),
            None => fail("map value without key"),
        }
    }
}

struct VariantD<'de> {
    index: u32,
    value: Option<&'de Value>,
}

impl<'de> de::EnumAccess<'de> for VariantD<'de> {
    type Error = VErr;
    type Variant = Self;
    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self), VErr> {
        let de: de::value::U32Deserializer<VErr> = self.index.into_deserializer();
        Ok((seed.deserialize(de)?, self))
    }
}

impl<'de> de::VariantAccess<'de> for VariantD<'de> {
    type Error = VErr;
    fn unit_variant(self) -> Result<(), VErr> {
        match self.value {
            None => Ok(()),
            Some(_) => fail("a unit variant has no \"value\""),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, VErr> {
        seed.deserialize(VDe(self.payload()?))
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, VErr> {
        de::Deserializer::deserialize_tuple(VDe(self.payload()?), len, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, VErr> {
        de::Deserializer::deserialize_struct(VDe(self.payload()?), "variant", fields, visitor)
    }
}

impl<'de> VariantD<'de> {
    fn payload(&self) -> Result<&'de Value, VErr> {
        self.value
            .ok_or_else(|| VErr("this variant needs a \"value\"".into()))
    }
}

// ---------------------------------------------------------------------------
// The canonical value form, Rust -> JSON, used to compare two values: every
// float is its bit pattern, so comparison is bit-exact (NaN payloads, -0.0).
// ---------------------------------------------------------------------------

fn canonical<T: Serialize>(value: &T) -> Result<Value, String> {
    value
        .serialize(Canon)
        .map_err(|e| format!("canonical form: {e}"))
}

struct Canon;

fn variant(name: &str, index: u32, value: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("variant".into(), Value::String(name.into()));
    m.insert("index".into(), Value::from(index));
    if let Some(v) = value {
        m.insert("value".into(), v);
    }
    Value::Object(m)
}

macro_rules! canon_small {
    ($($method:ident($ty:ty),)*) => {$(
        fn $method(self, v: $ty) -> Result<Value, VErr> { Ok(Value::from(v)) }
    )*};
}
macro_rules! canon_big {
    ($($method:ident($ty:ty),)*) => {$(
        fn $method(self, v: $ty) -> Result<Value, VErr> { Ok(Value::String(v.to_string())) }
    )*};
}

impl ser::Serializer for Canon {
    type Ok = Value;
    type Error = VErr;
    type SerializeSeq = CanonSeq;
    type SerializeTuple = CanonSeq;
    type SerializeTupleStruct = CanonSeq;
    type SerializeTupleVariant = CanonSeq;
    type SerializeMap = CanonSeq;
    type SerializeStruct = CanonStruct;
    type SerializeStructVariant = CanonStruct;

    fn serialize_bool(self, v: bool) -> Result<Value, VErr> {
        Ok(Value::Bool(v))
    }
    canon_small! {
        serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
    }
    canon_big! {
        serialize_i64(i64), serialize_i128(i128), serialize_u64(u64), serialize_u128(u128),
    }
    fn serialize_f32(self, v: f32) -> Result<Value, VErr> {
        Ok(Value::String(format!("0x{:08x}", v.to_bits())))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, VErr> {
        Ok(Value::String(format!("0x{:016x}", v.to_bits())))
    }
    fn serialize_char(self, v: char) -> Result<Value, VErr> {
        Ok(Value::String(v.into()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, VErr> {
        Ok(Value::String(v.into()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, VErr> {
        Ok(Value::String(to_hex(v)))
    }
    fn serialize_none(self) -> Result<Value, VErr> {
        Ok(Value::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Value, VErr> {
        let mut m = Map::new();
        m.insert("some".into(), v.serialize(Canon)?);
        Ok(Value::Object(m))
    }
    fn serialize_unit(self) -> Result<Value, VErr> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, VErr> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        index: u32,
        name: &'static str,
    ) -> Result<Value, VErr> {
        Ok(variant(name, index, None))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Value, VErr> {
        v.serialize(Canon)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        index: u32,
        name: &'static str,
        v: &T,
    ) -> Result<Value, VErr> {
        Ok(variant(name, index, Some(v.serialize(Canon)?)))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<CanonSeq, VErr> {
        Ok(CanonSeq::default())
    }
    fn serialize_tuple(self, _: usize) -> Result<CanonSeq, VErr> {
        Ok(CanonSeq::default())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<CanonSeq, VErr> {
        Ok(CanonSeq::default())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        name: &'static str,
        _: usize,
    ) -> Result<CanonSeq, VErr> {
        Ok(CanonSeq {
            variant: Some((name, index)),
            ..CanonSeq::default()
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<CanonSeq, VErr> {
        Ok(CanonSeq::default())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<CanonStruct, VErr> {
        Ok(CanonStruct::default())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        name: &'static str,
        _: usize,
    ) -> Result<CanonStruct, VErr> {
        Ok(CanonStruct {
            variant: Some((name, index)),
            ..CanonStruct::default()
        })
    }
}

/// Sequences, tuples and maps (as `[key, value]` pairs) become arrays.
#[derive(Default)]
struct CanonSeq {
    items: Vec<Value>,
    key: Option<Value>,
    variant: Option<(&'static str, u32)>,
}

impl CanonSeq {
    fn push<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), VErr> {
        self.items.push(v.serialize(Canon)?);
        Ok(())
    }
    fn done(self) -> Result<Value, VErr> {
        let array = Value::Array(self.items);
        Ok(match self.variant {
            Some((name, index)) => variant(name, index, Some(array)),
            None => array,
        })
    }
}

/// The sequence-like compounds all push their values in order.
macro_rules! canon_seq {
    ($($trait:ident::$method:ident)*) => {$(
        impl ser::$trait for CanonSeq {
            type Ok = Value;
            type Error = VErr;
            fn $method<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), VErr> {
                self.push(v)
            }
            fn end(self) -> Result<Value, VErr> {
                self.done()
            }
        }
    )*};
}

canon_seq! {
    SerializeSeq::serialize_element SerializeTuple::serialize_element
    SerializeTupleStruct::serialize_field SerializeTupleVariant::serialize_field
}

impl ser::SerializeMap for CanonSeq {
    type Ok = Value;
    type Error = VErr;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), VErr> {
        self.key = Some(k.serialize(Canon)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), VErr> {
        let key = self
            .key
            .take()
            .ok_or_else(|| VErr("value before key".into()))?;
        self.items
            .push(Value::Array(vec![key, v.serialize(Canon)?]));
        Ok(())
    }
    fn end(self) -> Result<Value, VErr> {
        self.done()
    }
}

/// Structs become objects keyed by field name.
#[derive(Default)]
struct CanonStruct {
    fields: Map<String, Value>,
    variant: Option<(&'static str, u32)>,
}

impl CanonStruct {
    fn field<T: ?Sized + Serialize>(&mut self, name: &str, v: &T) -> Result<(), VErr> {
        self.fields.insert(name.into(), v.serialize(Canon)?);
        Ok(())
    }
    fn done(self) -> Result<Value, VErr> {
        let object = Value::Object(self.fields);
        Ok(match self.variant {
            Some((name, index)) => variant(name, index, Some(object)),
            None => object,
        })
    }
}

/// Structs and struct variants both take named fields, none skipped.
macro_rules! canon_struct {
    ($($trait:ident)*) => {$(
        impl ser::$trait for CanonStruct {
            type Ok = Value;
            type Error = VErr;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                k: &'static str,
                v: &T,
            ) -> Result<(), VErr> {
                self.field(k, v)
            }
            fn skip_field(&mut self, k: &'static str) -> Result<(), VErr> {
                fail(format!("field {k} skipped: the value form is complete"))
            }
            fn end(self) -> Result<Value, VErr> {
                self.done()
            }
        }
    )*};
}

canon_struct! { SerializeStruct SerializeStructVariant }
