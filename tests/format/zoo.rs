//! The derive's zoo: types covering every serde attribute the derive
//! reads, the standard library's impls and every optional crate's. Each is
//! framed (the writer checks what `Serialize` writes against the schema)
//! and read back equal; where serde-reflection's tracer can trace a type
//! too (feature `trace`), the derived text must be byte-identical to the
//! traced one, so frames written by earlier versions still read. The bare
//! bytes of each are walked by the schema alone, so every hand-written
//! `Schema` impl is checked against what its type's `Serialize` writes.

#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::num::{NonZeroI64, NonZeroU8, NonZeroU32, Wrapping};
use std::ops::{Bound, Range, RangeInclusive};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// What one zoo type went through.
#[derive(Default)]
struct Tally {
    framed: usize,
    traced_equal: usize,
    json_equal: usize,
    json_differs: usize,
    json_refused: usize,
}

/// Types whose serde impls write another form to a human-readable
/// serializer (serde_json) than to Kiln's: their JSON through a Value is
/// the binary form (`spec/10-values.md`).
const HUMAN_READABLE: &[&str] = &[
    "Net", // IP and socket addresses: strings for humans, bytes and tuples for Kiln
    "Ids", // uuid: a hyphenated string for humans, 16 bytes for Kiln
];

/// Frames `value`, reads it back equal, and compares the derived text
/// with the traced one when the tracer can trace the type.
fn check<T>(name: &str, value: T, tally: &mut Tally)
where
    T: Serialize + for<'de> Deserialize<'de> + kiln::Schema + PartialEq + Debug,
{
    let bytes = kiln::frame::to_vec(&value).unwrap_or_else(|e| panic!("{name}: write: {e}"));
    let back: T = kiln::frame::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: read: {e}"));
    assert_eq!(back, value, "{name}");
    tally.framed += 1;
    let derived = kiln::schema::schema_of::<T>().unwrap();
    let text = derived.text().unwrap();
    kiln::schema::parse(text).unwrap_or_else(|e| panic!("{name}: {e}: {text}"));
    // Without the type: the frame's embedded text reads it as a Value, which
    // writes the same bytes back and maps to the JSON serde_json writes.
    let opts = kiln::frame::FrameOptions::new().embed_schema(true);
    let framed = opts.to_vec(&value).unwrap();
    let mut records = kiln::value::frame_records(&framed, None)
        .unwrap_or_else(|e| panic!("{name}: value frame: {e}: {text}"));
    let plan = records.plan().clone();
    let v = records
        .next()
        .unwrap()
        .unwrap_or_else(|e| panic!("{name}: value read: {e}: {text}"));
    assert!(records.next().is_none(), "{name}");
    assert_eq!(
        kiln::value::frame_to_vec(std::slice::from_ref(&v), &plan, &opts).unwrap(),
        framed,
        "{name}: value written back"
    );
    if !text.contains("array<") {
        let bare = kiln::to_vec(&value).unwrap();
        let from_bare = kiln::value::from_slice(&bare, &plan).unwrap();
        assert_eq!(
            kiln::value::to_vec(&from_bare, &plan).unwrap(),
            bare,
            "{name}"
        );
    }
    // Printed while read (what `kiln cat` does): serde_json's text of the value.
    let mut json = Vec::new();
    let mut printer = kiln::value::JsonRecords::frame(&framed[..], None, &opts).unwrap();
    printer
        .next_into(&mut json)
        .unwrap()
        .unwrap_or_else(|e| panic!("{name}: JSON: {e}"));
    assert!(printer.next_into(&mut Vec::new()).is_none(), "{name}");
    assert_eq!(
        String::from_utf8(json).unwrap(),
        serde_json::to_string(&v).unwrap(),
        "{name}: printed while read"
    );
    export(name, &framed, &serde_json::to_string(&v).unwrap());
    match serde_json::to_value(&value) {
        Ok(expected) => {
            let got = serde_json::to_value(&v).unwrap();
            if HUMAN_READABLE.contains(&name) {
                assert_ne!(got, expected, "{name} is listed as human-readable in JSON");
                tally.json_differs += 1;
            } else {
                assert_eq!(got, expected, "{name}: JSON of the value");
                tally.json_equal += 1;
                // And back: JSON -> Value -> Kiln -> Value -> the same JSON
                // (bytes may differ only where JSON loses: `Some(None)`).
                let from_json = kiln::value::from_deserializer(&expected, &plan)
                    .unwrap_or_else(|e| panic!("{name}: from JSON: {e}"));
                let bytes = kiln::value::frame_to_vec(&[from_json], &plan, &opts).unwrap();
                let again = kiln::value::frame_records(&bytes, None)
                    .unwrap()
                    .next()
                    .unwrap()
                    .unwrap();
                assert_eq!(
                    serde_json::to_value(&again).unwrap(),
                    expected,
                    "{name}: from JSON"
                );
            }
        }
        Err(_) => tally.json_refused += 1,
    }
    #[cfg(feature = "trace")]
    if let Ok(traced) = kiln::schema::Tracer::new().trace::<T>() {
        assert_eq!(
            traced.text(),
            Some(text),
            "{name}: derived text differs from traced"
        );
        tally.traced_equal += 1;
    }
}

/// Where the zoo leaves each frame and its JSON, for the Python package's
/// tests to read (`python/tests/test_zoo.py`).
pub fn zoo_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("zoo")
}

/// Writes `NAME.kiln` (the frame, schema embedded) and `NAME.json` (its
/// JSON by `spec/10-values.md`) to [`zoo_dir`].
fn export(name: &str, framed: &[u8], json: &str) {
    let dir = zoo_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let file: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    std::fs::write(dir.join(format!("{file}.kiln")), framed).unwrap();
    std::fs::write(dir.join(format!("{file}.json")), json).unwrap();
}

/// Like [`check`], for types that borrow from the frame.
fn check_borrowed<'a, T>(name: &str, value: T, tally: &mut Tally, buf: &'a mut Vec<u8>)
where
    T: Serialize + Deserialize<'a> + kiln::Schema + PartialEq + Debug,
{
    *buf = kiln::frame::to_vec(&value).unwrap_or_else(|e| panic!("{name}: write: {e}"));
    let back: T = kiln::frame::from_slice(buf).unwrap_or_else(|e| panic!("{name}: read: {e}"));
    assert_eq!(back, value, "{name}");
    tally.framed += 1;
}

macro_rules! zoo_type {
    ($($item:item)*) => {$(
        #[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq, Clone)]
        $item
    )*};
}

zoo_type! {
    struct Unit;
    struct Newtype(u32);
    struct Pair(i8, u64);
    struct Empty {}
    struct Point { x: i32, y: i32 }
    struct AllNumbers { a: i8, b: i16, c: i32, d: i64, e: i128, f: u8, g: u16, h: u32, i: u64, j: u128, k: f32, l: f64 }
    struct Text { c: char, s: String, b: bool }
    #[serde(rename = "Renamed")]
    struct RenamedStruct { #[serde(rename = "first")] a: u8, b: u8 }
    #[serde(rename_all = "camelCase")]
    struct CamelCase { user_id: u32, display_name: String }
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    struct Screaming { max_depth: u8 }
    struct Aliased { #[serde(alias = "colour")] color: u32, #[serde(alias = "sz", alias = "length")] size: u32 }
    struct Skipped { kept: u32, #[serde(skip)] cache: u64, also: u8 }
    struct Defaulted { a: u32, #[serde(default)] b: u32 }
    #[serde(default)]
    #[derive(Default)]
    struct AllDefault { a: u32, b: String }
    #[serde(transparent)]
    struct Meters(f64);
    #[serde(transparent)]
    struct Wrapper { inner: Vec<u16> }
    #[serde(deny_unknown_fields)]
    struct Strict { a: u8 }
    struct Nested { point: Point, points: Vec<Point>, maybe: Option<Point> }
    struct Tree { value: u32, children: Vec<Tree> }
    enum List { Nil, Cons(i32, Box<List>) }
    enum Shape { Circle(f64), Rect { w: f32, h: f32 }, Empty, Poly(Vec<(f32, f32)>, bool) }
    #[serde(rename_all = "snake_case")]
    enum Snake { FirstOne, SecondOne { inner_value: u8 } }
    #[serde(rename_all_fields = "camelCase")]
    enum Fields { A { some_field: u8 }, B { other_field: u16 } }
    enum WithOther { A, B, #[serde(other)] Unknown }
    enum AliasedVariant { #[serde(alias = "Old")] New, Kept(u8) }
    enum RenamedVariant { #[serde(rename = "x")] A(u8), B }
    enum Deep { Leaf, Node(Box<Deep>, Box<Deep>) }
    struct Mutual { other: Option<Box<Other>> }
    struct Other { back: Vec<Mutual> }
    struct Generic<T> { value: T, list: Vec<T> }
    struct TwoGenerics<A, B> { a: A, b: Option<B> }
    struct Phantom<T> { id: u32, marker: PhantomData<T> }
    struct ConstGeneric<const N: usize> { data: Vec<u8> }
    struct Arrays { one: [u16; 1], two: [u16; 2], three: [u8; 3], none: [u8; 0] }
    struct Tuples { a: (u8,), b: (u8, u16), c: (u8, u8), d: (String, f32, bool), e: () }
    struct Maps { ordered: BTreeMap<String, u32>, keyed: BTreeMap<u64, Vec<u8>> }
    struct Sets { ordered: BTreeSet<i32>, deque: VecDeque<u8>, list: LinkedList<u8> }
    struct Pointers { boxed: Box<u32>, rc: Rc<str>, arc: Arc<[u8]>, cow: Cow<'static, str> }
    struct NonZeros { a: NonZeroU8, b: NonZeroU32, c: NonZeroI64 }
    struct Wrapped { w: Wrapping<u32> }
    struct Times { d: Duration, t: SystemTime }
    struct Net { v4: Ipv4Addr, v6: Ipv6Addr, ip: IpAddr, sock: SocketAddr }
    struct Paths { p: PathBuf }
    struct Ranges { r: Range<u32>, i: RangeInclusive<u64>, b: Bound<i8> }
    struct Results { ok: Result<u32, String> }
    struct Options { a: Option<u8>, b: Option<Option<String>>, c: Vec<Option<i16>> }
    struct Blocks { f: Vec<f32>, i: Vec<i64>, b: Box<[u16]> }
    struct ShapedArrays { a: kiln::Array<f32>, b: kiln::Array<u8> }
    #[serde(from = "u32", into = "u32")]
    struct Celsius(u32);
    #[serde(try_from = "String", into = "String")]
    struct Email(String);
    struct UsesConverted { t: Celsius, e: Email }
    struct WithOverride { #[serde(with = "as_text")] #[kiln(with = String)] n: u64 }
    struct SchemaOverride { #[serde(with = "as_text")] #[kiln(schema = "str")] n: u64 }
    struct SerializeWith {
        #[serde(serialize_with = "as_text::serialize", deserialize_with = "as_text::deserialize")]
        #[kiln(with = String)]
        n: u64,
    }
    struct BytesField {
        #[serde(with = "serde_bytes")] #[kiln(schema = "bytes")] b: Vec<u8>,
        #[serde(with = "serde_bytes")] c: Vec<u8>,
    }
    #[serde(bound = "T: Serialize + serde::de::DeserializeOwned")]
    #[kiln(bound = "T: kiln::Schema")]
    struct Bounded<T> { t: T }
    struct Unsigned { u: usize, i: isize }
    enum Mixed { A(Point), B(Shape), C(Vec<Mixed>) }
    struct LargeTuple { t: (u8, u16, u32, u64, i8, i16, i32, i64) }
    struct Floats { v: Vec<(f64, f64, f64)> }
    struct MapOfEnums { m: BTreeMap<String, Shape> }
    struct NestedGeneric { g: Generic<Point>, h: Vec<Generic<Point>> }
    struct TwoInstances { a: Generic<Point>, b: Generic<u8> }
    enum Single { Only(u8) }
    enum Units { A, B, C, D }
    struct HashCollections { m: HashMap<u8, u8>, s: HashSet<u8> }
    struct Chars { c: Vec<char> }
    struct Bools { b: [bool; 4] }
}

mod as_text {
    pub fn serialize<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl From<u32> for Celsius {
    fn from(v: u32) -> Self {
        Celsius(v)
    }
}
impl From<Celsius> for u32 {
    fn from(v: Celsius) -> Self {
        v.0
    }
}
impl TryFrom<String> for Email {
    type Error = &'static str;
    fn try_from(v: String) -> Result<Self, Self::Error> {
        if v.contains('@') {
            Ok(Email(v))
        } else {
            Err("no @")
        }
    }
}
impl From<Email> for String {
    fn from(v: Email) -> Self {
        v.0
    }
}

/// Two instances of one generic type in one schema have one serde name
/// and two layouts: the text cannot hold both, and the description says
/// so, naming both.
#[test]
fn two_layouts_under_one_name_are_refused() {
    let e = kiln::schema::schema_of::<TwoInstances>().unwrap_err();
    assert_eq!(e.kind().code(), "no-schema");
    let msg = e.to_string();
    assert!(
        msg.contains("serde name `Generic`") && msg.contains("Generic<u8>"),
        "{msg}"
    );
    assert!(
        msg.contains("struct Generic { value: Point, list: seq<Point> }"),
        "{msg}"
    );
}

/// Borrowing types: `&str`, `Cow` with `#[serde(borrow)]`.
#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Borrowing<'a> {
    name: &'a str,
    #[serde(borrow)]
    note: Cow<'a, str>,
}

/// A remote type's mirror, used through `#[serde(with)]` and
/// `#[kiln(with = ...)]`.
mod remote {
    #[derive(Debug, PartialEq, Clone)]
    pub struct Span {
        pub start: u32,
        pub end: u32,
    }
}

#[derive(Serialize, Deserialize, kiln::Schema)]
#[serde(remote = "remote::Span")]
struct SpanDef {
    start: u32,
    end: u32,
}

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq, Clone)]
struct UsesRemote {
    #[serde(with = "SpanDef")]
    #[kiln(with = SpanDef)]
    span: remote::Span,
}

#[test]
fn zoo() {
    let mut t = Tally::default();
    let p = Point { x: 9, y: -4 };
    let shape = Shape::Rect { w: 1.0, h: 2.0 };
    check("Unit", Unit, &mut t);
    check("Newtype", Newtype(7), &mut t);
    check("Pair", Pair(-1, 2), &mut t);
    check("Empty", Empty {}, &mut t);
    check("Point", p.clone(), &mut t);
    check(
        "AllNumbers",
        AllNumbers {
            a: 1,
            b: 2,
            c: 3,
            d: 4,
            e: 5,
            f: 6,
            g: 7,
            h: 8,
            i: 9,
            j: 10,
            k: 1.5,
            l: 2.5,
        },
        &mut t,
    );
    check(
        "Text",
        Text {
            c: 'é',
            s: "hi".into(),
            b: true,
        },
        &mut t,
    );
    check("RenamedStruct", RenamedStruct { a: 1, b: 2 }, &mut t);
    check(
        "CamelCase",
        CamelCase {
            user_id: 1,
            display_name: "a".into(),
        },
        &mut t,
    );
    check("Screaming", Screaming { max_depth: 3 }, &mut t);
    check("Aliased", Aliased { color: 1, size: 2 }, &mut t);
    check(
        "Skipped",
        Skipped {
            kept: 1,
            cache: 0,
            also: 2,
        },
        &mut t,
    );
    check("Defaulted", Defaulted { a: 1, b: 2 }, &mut t);
    check(
        "AllDefault",
        AllDefault {
            a: 1,
            b: "x".into(),
        },
        &mut t,
    );
    check("Meters", Meters(1.5), &mut t);
    check("Wrapper", Wrapper { inner: vec![1, 2] }, &mut t);
    check("Strict", Strict { a: 1 }, &mut t);
    check(
        "Nested",
        Nested {
            point: p.clone(),
            points: vec![p.clone()],
            maybe: None,
        },
        &mut t,
    );
    check(
        "Tree",
        Tree {
            value: 1,
            children: vec![Tree {
                value: 2,
                children: vec![],
            }],
        },
        &mut t,
    );
    check("List", List::Cons(1, Box::new(List::Nil)), &mut t);
    check("Shape", shape.clone(), &mut t);
    check("Snake", Snake::SecondOne { inner_value: 1 }, &mut t);
    check("Fields", Fields::B { other_field: 2 }, &mut t);
    check("WithOther", WithOther::B, &mut t);
    check("AliasedVariant", AliasedVariant::Kept(3), &mut t);
    check("RenamedVariant", RenamedVariant::A(1), &mut t);
    check(
        "Deep",
        Deep::Node(Box::new(Deep::Leaf), Box::new(Deep::Leaf)),
        &mut t,
    );
    check(
        "Mutual",
        Mutual {
            other: Some(Box::new(Other { back: vec![] })),
        },
        &mut t,
    );
    check(
        "Generic<u8>",
        Generic {
            value: 1u8,
            list: vec![2],
        },
        &mut t,
    );
    check(
        "Generic<String>",
        Generic {
            value: "a".to_string(),
            list: vec![],
        },
        &mut t,
    );
    check(
        "TwoGenerics",
        TwoGenerics {
            a: 1u16,
            b: Some(p.clone()),
        },
        &mut t,
    );
    check(
        "Phantom",
        Phantom::<String> {
            id: 1,
            marker: PhantomData,
        },
        &mut t,
    );
    check(
        "ConstGeneric",
        ConstGeneric::<3> {
            data: vec![1, 2, 3],
        },
        &mut t,
    );
    check(
        "Arrays",
        Arrays {
            one: [1],
            two: [1, 2],
            three: [1, 2, 3],
            none: [],
        },
        &mut t,
    );
    check(
        "Tuples",
        Tuples {
            a: (1,),
            b: (1, 2),
            c: (3, 4),
            d: ("a".into(), 1.0, true),
            e: (),
        },
        &mut t,
    );
    check(
        "Maps",
        Maps {
            ordered: [("a".to_string(), 1)].into(),
            keyed: [(1, vec![2])].into(),
        },
        &mut t,
    );
    check(
        "Sets",
        Sets {
            ordered: [1, 2].into(),
            deque: [3].into(),
            list: [4].into(),
        },
        &mut t,
    );
    check(
        "Pointers",
        Pointers {
            boxed: Box::new(1),
            rc: "r".into(),
            arc: vec![1u8].into(),
            cow: Cow::Borrowed("c"),
        },
        &mut t,
    );
    check(
        "NonZeros",
        NonZeros {
            a: NonZeroU8::new(1).unwrap(),
            b: NonZeroU32::new(2).unwrap(),
            c: NonZeroI64::new(-3).unwrap(),
        },
        &mut t,
    );
    check("Wrapped", Wrapped { w: Wrapping(5) }, &mut t);
    check(
        "Times",
        Times {
            d: Duration::new(5, 6),
            t: SystemTime::UNIX_EPOCH + Duration::from_secs(9),
        },
        &mut t,
    );
    check(
        "Net",
        Net {
            v4: Ipv4Addr::LOCALHOST,
            v6: Ipv6Addr::LOCALHOST,
            ip: IpAddr::V4(Ipv4Addr::BROADCAST),
            sock: "[::1]:8080".parse().unwrap(),
        },
        &mut t,
    );
    check(
        "Paths",
        Paths {
            p: PathBuf::from("/tmp/x"),
        },
        &mut t,
    );
    check(
        "Ranges",
        Ranges {
            r: 1..2,
            i: 3..=4,
            b: Bound::Included(-1),
        },
        &mut t,
    );
    check(
        "Results",
        Results {
            ok: Err("bad".into()),
        },
        &mut t,
    );
    check(
        "Options",
        Options {
            a: Some(1),
            b: Some(None),
            c: vec![None, Some(2)],
        },
        &mut t,
    );
    check(
        "Blocks",
        Blocks {
            f: vec![1.0],
            i: vec![-1],
            b: vec![2u16].into(),
        },
        &mut t,
    );
    check(
        "ShapedArrays",
        ShapedArrays {
            a: kiln::Array::from_shape_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap(),
            b: kiln::Array::from_vec(vec![1, 2, 3]),
        },
        &mut t,
    );
    check("Celsius", Celsius(20), &mut t);
    check(
        "UsesConverted",
        UsesConverted {
            t: Celsius(1),
            e: Email("a@b".into()),
        },
        &mut t,
    );
    check("WithOverride", WithOverride { n: 42 }, &mut t);
    check("SchemaOverride", SchemaOverride { n: 42 }, &mut t);
    check("SerializeWith", SerializeWith { n: 42 }, &mut t);
    check(
        "BytesField",
        BytesField {
            b: vec![1, 2],
            c: vec![3],
        },
        &mut t,
    );
    check("Bounded", Bounded { t: 5u8 }, &mut t);
    check("Unsigned", Unsigned { u: 1, i: -1 }, &mut t);
    check(
        "Mixed",
        Mixed::C(vec![Mixed::A(p.clone()), Mixed::B(shape.clone())]),
        &mut t,
    );
    check(
        "LargeTuple",
        LargeTuple {
            t: (1, 2, 3, 4, 5, 6, 7, 8),
        },
        &mut t,
    );
    check(
        "Floats",
        Floats {
            v: vec![(1.0, 2.0, 3.0)],
        },
        &mut t,
    );
    check(
        "MapOfEnums",
        MapOfEnums {
            m: [("s".to_string(), shape.clone())].into(),
        },
        &mut t,
    );
    check(
        "NestedGeneric",
        NestedGeneric {
            g: Generic {
                value: p.clone(),
                list: vec![],
            },
            h: vec![],
        },
        &mut t,
    );
    check("Single", Single::Only(1), &mut t);
    check("Units", Units::C, &mut t);
    check(
        "HashCollections",
        HashCollections {
            m: [(1, 2)].into(),
            s: [3].into(),
        },
        &mut t,
    );
    check(
        "Chars",
        Chars {
            c: vec!['a', '€']
        },
        &mut t,
    );
    check(
        "Bools",
        Bools {
            b: [true, false, true, true],
        },
        &mut t,
    );
    check(
        "UsesRemote",
        UsesRemote {
            span: remote::Span { start: 1, end: 2 },
        },
        &mut t,
    );
    // The standard library's types as whole records.
    check("u64", 5u64, &mut t);
    check("String", "s".to_string(), &mut t);
    check("Vec<Point>", vec![p.clone()], &mut t);
    check("Option<Shape>", Some(shape.clone()), &mut t);
    check("(u8, String)", (1u8, "x".to_string()), &mut t);
    check("[Point; 2]", [p.clone(), p.clone()], &mut t);
    check(
        "BTreeMap<u8, Point>",
        BTreeMap::from([(1u8, p.clone())]),
        &mut t,
    );
    check("Duration", Duration::from_millis(5), &mut t);
    check("Box<[f32]>", Box::<[f32]>::from(vec![1.0]), &mut t);
    check("()", (), &mut t);
    check("Reverse<u8>", std::cmp::Reverse(3u8), &mut t);
    check("Saturating<i16>", std::num::Saturating(-3i16), &mut t);
    check("Cell<u32>", std::cell::Cell::new(4u32), &mut t);
    check(
        "RefCell<String>",
        std::cell::RefCell::new("r".to_string()),
        &mut t,
    );
    check("RangeFrom<u8>", 3u8.., &mut t);
    check("RangeTo<i64>", ..-3i64, &mut t);
    check("Bound<String>", Bound::<String>::Unbounded, &mut t);
    check("(f64,)", (1.5f64,), &mut t);
    check("[u8; 0]", [0u8; 0], &mut t);
    check("Vec<Option<Point>>", vec![Some(p.clone()), None], &mut t);
    let mut buf = Vec::new();
    check_borrowed(
        "Borrowing",
        Borrowing {
            name: "n",
            note: Cow::Borrowed("b"),
        },
        &mut t,
        &mut buf,
    );
    assert!(t.framed >= 80, "only {} zoo types", t.framed);
    // Every type read without its Rust type; all but the maps whose keys
    // JSON cannot hold, and the human-readable types, give serde_json's JSON.
    assert_eq!(t.json_differs, 1);
    assert!(t.json_equal >= 75, "only {} JSON-equal", t.json_equal);
    assert!(
        t.json_refused <= 5,
        "{} refused by serde_json",
        t.json_refused
    );
    #[cfg(feature = "trace")]
    assert!(t.traced_equal >= 60, "only {} traced", t.traced_equal);
}

/// The optional crates' types (`.ci/run` runs the suite with every
/// feature on).
#[cfg(all(
    feature = "chrono",
    feature = "time",
    feature = "uuid",
    feature = "rust_decimal",
    feature = "url",
    feature = "bytes",
    feature = "indexmap",
    feature = "smallvec",
    feature = "serde_bytes",
    feature = "half",
    feature = "ndarray"
))]
mod crates {
    use super::*;

    zoo_type! {
        struct Dated {
            at: chrono::DateTime<chrono::Utc>,
            day: chrono::NaiveDate,
            time: chrono::NaiveTime,
            local: chrono::NaiveDateTime,
        }
        struct TimeCrate {
            date: time::Date,
            time: time::Time,
            pdt: time::PrimitiveDateTime,
            odt: time::OffsetDateTime,
            offset: time::UtcOffset,
            duration: time::Duration,
        }
        struct Ids { id: uuid::Uuid }
        struct Money {
            #[serde(with = "rust_decimal::serde::str")]
            amount: rust_decimal::Decimal,
            #[serde(with = "rust_decimal::serde::str_option")]
            maybe: Option<rust_decimal::Decimal>,
        }
        struct Link { url: url::Url }
        struct Buffers { b: bytes::Bytes, m: bytes::BytesMut }
        struct Ordered { m: indexmap::IndexMap<String, u32>, s: indexmap::IndexSet<u8> }
        struct Small { v: smallvec::SmallVec<[u16; 4]> }
        struct ByteBufs { b: serde_bytes::ByteBuf, a: serde_bytes::ByteArray<3> }
        struct Halves { h: half::f16, b: half::bf16 }
        struct Volume {
            #[serde(with = "kiln::array::serde_ndarray")]
            voxels: ndarray::Array3<f32>,
        }
    }

    #[test]
    fn zoo_of_crates() {
        let t = &mut Tally::default();
        use chrono::TimeZone;
        let at = chrono::Utc.with_ymd_and_hms(2026, 12, 5, 6, 7, 8).unwrap();
        check(
            "Dated",
            Dated {
                at,
                day: at.date_naive(),
                time: at.time(),
                local: at.naive_utc(),
            },
            t,
        );
        let odt = time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
        check(
            "TimeCrate",
            TimeCrate {
                date: odt.date(),
                time: odt.time(),
                pdt: time::PrimitiveDateTime::new(odt.date(), odt.time()),
                odt,
                offset: time::UtcOffset::from_hms(1, 30, 0).unwrap(),
                duration: time::Duration::new(5, 6),
            },
            t,
        );
        check(
            "Ids",
            Ids {
                id: uuid::Uuid::from_u128(0x1234),
            },
            t,
        );
        check(
            "Money",
            Money {
                amount: rust_decimal::Decimal::new(12345, 2),
                maybe: None,
            },
            t,
        );
        check(
            "Link",
            Link {
                url: url::Url::parse("https://example.com/a?b=c").unwrap(),
            },
            t,
        );
        check(
            "Buffers",
            Buffers {
                b: bytes::Bytes::from_static(b"ab"),
                m: bytes::BytesMut::from(&b"cd"[..]),
            },
            t,
        );
        check(
            "Ordered",
            Ordered {
                m: [("z".to_string(), 1), ("a".to_string(), 2)]
                    .into_iter()
                    .collect(),
                s: [3, 1].into_iter().collect(),
            },
            t,
        );
        check(
            "Small",
            Small {
                v: smallvec::smallvec![1, 2, 3, 4, 5],
            },
            t,
        );
        check(
            "ByteBufs",
            ByteBufs {
                b: serde_bytes::ByteBuf::from(vec![1, 2]),
                a: serde_bytes::ByteArray::new([1, 2, 3]),
            },
            t,
        );
        check(
            "Halves",
            Halves {
                h: half::f16::from_f32(1.5),
                b: half::bf16::from_f32(2.5),
            },
            t,
        );
        check(
            "Volume",
            Volume {
                voxels: ndarray::Array3::from_shape_fn((2, 3, 4), |(a, b, c)| {
                    (a * 12 + b * 4 + c) as f32
                }),
            },
            t,
        );
        assert_eq!(t.framed, 11);
        assert_eq!(t.json_differs, 1);
        assert_eq!(t.json_equal, 10);
    }
}
