#![allow(dead_code)]
//! Canonical schema text and fingerprints: exact texts, what changes a
//! fingerprint and what does not, and the errors (with their ways out) for
//! types the tracer cannot follow alone.

use std::collections::BTreeMap;
use std::num::NonZeroU32;

use kiln::schema::{self, Canonical, Fingerprint};
use serde::{Deserialize, Serialize};

use crate::common::Point;

#[derive(Serialize, Deserialize, kiln::Schema)]
struct Message {
    text: String,
}

#[derive(Serialize, Deserialize, kiln::Schema)]
enum Shape {
    Circle(f64),
    Rect { w: f32, h: f32 },
    Empty,
}

#[derive(Serialize, Deserialize, kiln::Schema)]
enum List {
    Nil,
    Cons(i32, Box<List>),
}

#[derive(Serialize, Deserialize, kiln::Schema)]
struct Tree {
    value: u32,
    children: Vec<Tree>,
}

fn text<T: kiln::Schema>() -> String {
    schema::schema_of::<T>().unwrap().text().unwrap().to_owned()
}

fn fp<T: kiln::Schema>() -> Fingerprint {
    schema::fingerprint_of::<T>().unwrap()
}

#[test]
fn worked_examples_have_exact_text_and_fingerprint() {
    let cases: [(String, Fingerprint, &str, &str); 5] = [
        (
            text::<Point>(),
            fp::<Point>(),
            "root Point\nstruct Point { x: i32, y: i32 }\n",
            "bebd985ebacd608a",
        ),
        (
            text::<Message>(),
            fp::<Message>(),
            "root Message\nstruct Message { text: str }\n",
            "cca3f37ae58e3ed6",
        ),
        (
            text::<Shape>(),
            fp::<Shape>(),
            "root Shape\nenum Shape { Circle(f64), Rect { w: f32, h: f32 }, Empty }\n",
            "",
        ),
        (
            text::<List>(),
            fp::<List>(),
            "root List\nenum List { Nil, Cons(i32, List) }\n",
            "40d2798b5f32e0a4",
        ),
        (
            text::<Tree>(),
            fp::<Tree>(),
            "root Tree\nstruct Tree { value: u32, children: seq<Tree> }\n",
            "cd8aa3ba7733c5df",
        ),
    ];
    for (got_text, got_fp, want_text, want_fp) in cases {
        assert_eq!(got_text, want_text);
        assert_eq!(got_fp, Fingerprint::of_text(want_text));
        if !want_fp.is_empty() {
            assert_eq!(got_fp.to_string(), want_fp, "{want_text}");
        }
    }
}

#[test]
fn fingerprint_is_sha256_prefix_little_endian() {
    // sha256("abc") = ba7816bf 8f01cfea ...: the first 8 bytes read LE.
    assert_eq!(Fingerprint::of_text("abc"), Fingerprint(0xeacf018fbf1678ba));
    assert_eq!(
        Fingerprint::of_text("abc").to_le_bytes(),
        [0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea]
    );
}

#[test]
fn leaves_and_shapes() {
    #[derive(Deserialize, kiln::Schema)]
    struct All {
        _a: (),
        _b: bool,
        _c: (i8, i16, i64, i128),
        _d: (u8, u16, u64, u128),
        _e: (f32, f64, char),
        #[serde(with = "serde_bytes")]
        _f: Vec<u8>,
        _g: Option<Vec<u16>>,
        _h: BTreeMap<String, (u8,)>,
        _i: [u32; 4],
        _j: (u8, u8),
        _k: Unit,
        _l: Meters,
        _m: Pair,
    }
    #[derive(Deserialize, kiln::Schema)]
    struct Unit;
    #[derive(Deserialize, kiln::Schema)]
    struct Meters(f64);
    #[derive(Deserialize, kiln::Schema)]
    struct Pair(u8, u16);
    assert_eq!(
        text::<All>(),
        "root All\n\
         struct All { _a: unit, _b: bool, _c: (i8, i16, i64, i128), _d: (u8, u16, u64, u128), \
         _e: (f32, f64, char), _f: bytes, _g: option<seq<u16>>, _h: map<str, (u8,)>, \
         _i: [u32; 4], _j: [u8; 2], _k: Unit, _l: Meters, _m: Pair }\n\
         struct Meters(f64)\n\
         struct Pair(u8, u16)\n\
         struct Unit;\n"
    );
    assert_eq!(
        text::<Vec<Point>>(),
        "root seq<Point>\nstruct Point { x: i32, y: i32 }\n"
    );
    assert_eq!(text::<u8>(), "root u8\n");
}

#[test]
fn renamed_names_are_quoted() {
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "u8")]
    struct Odd {
        #[serde(rename = "my field")]
        _a: u8,
    }
    assert_eq!(
        text::<Odd>(),
        "root \"u8\"\nstruct \"u8\" { \"my field\": u8 }\n"
    );
}

mod changed {
    use serde::Deserialize;
    pub mod same {
        #[derive(serde::Deserialize, kiln::Schema)]
        pub struct Point {
            pub x: i32,
            pub y: i32,
        }
    }
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "Point")]
    pub struct FieldName {
        pub x: i32,
        pub z: i32,
    }
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "Point")]
    pub struct FieldOrder {
        pub y: i32,
        pub x: i32,
    }
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "Point")]
    pub struct FieldType {
        pub x: i32,
        pub y: i64,
    }
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "Point")]
    pub struct ExtraField {
        pub x: i32,
        pub y: i32,
        pub z: i32,
    }
    #[derive(Deserialize, kiln::Schema)]
    pub struct Punkt {
        pub x: i32,
        pub y: i32,
    }
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "Shape")]
    pub enum VariantName {
        Circle(f64),
        Rect { w: f32, h: f32 },
        Nothing,
    }
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "Shape")]
    pub enum VariantOrder {
        Rect { w: f32, h: f32 },
        Circle(f64),
        Empty,
    }
    #[derive(Deserialize, kiln::Schema)]
    #[serde(rename = "Shape")]
    pub enum VariantKind {
        Circle(f32),
        Rect { w: f32, h: f32 },
        Empty,
    }
}

#[test]
fn what_changes_a_fingerprint() {
    let point = fp::<Point>();
    assert_eq!(
        fp::<changed::same::Point>(),
        point,
        "same type defined twice"
    );
    for (what, other) in [
        ("field name", fp::<changed::FieldName>()),
        ("field order", fp::<changed::FieldOrder>()),
        ("field type", fp::<changed::FieldType>()),
        ("extra field", fp::<changed::ExtraField>()),
        ("container name", fp::<changed::Punkt>()),
    ] {
        assert_ne!(other, point, "{what}");
    }
    let shape = fp::<Shape>();
    for (what, other) in [
        ("variant name", fp::<changed::VariantName>()),
        ("variant order", fp::<changed::VariantOrder>()),
        ("variant payload", fp::<changed::VariantKind>()),
    ] {
        assert_ne!(other, shape, "{what}");
    }
}

#[test]
fn cached_once_per_process() {
    let a = schema::schema_of::<Point>().unwrap();
    let b =
        std::thread::spawn(|| schema::schema_of::<Point>().unwrap() as *const Canonical as usize)
            .join()
            .unwrap();
    assert_eq!(a as *const Canonical as usize, b);
}

#[derive(Serialize, Deserialize, kiln::Schema)]
struct Id(NonZeroU32);

#[derive(Serialize, Deserialize, kiln::Schema)]
struct User {
    id: Id,
    name: String,
}

#[test]
fn validating_types_have_schemas() {
    // The tracer's made-up 0 was refused by NonZeroU32; the derive makes
    // nothing up.
    #[derive(Deserialize, kiln::Schema)]
    #[allow(dead_code)]
    struct Counter {
        n: NonZeroU32,
    }
    assert_eq!(
        text::<Counter>(),
        "root Counter\nstruct Counter { n: u32 }\n"
    );
    assert_eq!(
        text::<User>(),
        "root User\nstruct Id(u32)\nstruct User { id: Id, name: str }\n"
    );
}

/// The tracer, kept behind the `trace` feature, still traces with help,
/// and agrees with the derive.
#[cfg(feature = "trace")]
#[test]
fn the_tracer_agrees_with_the_derive() {
    use kiln::schema::Tracer;
    #[derive(Deserialize, kiln::Schema)]
    #[allow(dead_code)]
    struct Counter {
        n: NonZeroU32,
    }
    let e = Tracer::new().trace::<Counter>().unwrap_err();
    assert_eq!(e.kind().code(), "no-schema");
    let s = Tracer::with_config(|| kiln::schema::TracerConfig::default().default_u32_value(1))
        .trace::<Counter>()
        .unwrap();
    assert_eq!(s, *schema::schema_of::<Counter>().unwrap());
    let s = Tracer::new()
        .sample(Id(NonZeroU32::new(3).unwrap()))
        .unwrap()
        .trace::<User>()
        .unwrap();
    assert_eq!(schema::schema_of::<User>().unwrap(), &s);
    #[derive(Deserialize, kiln::Schema)]
    struct Many {
        _kinds: Vec<Kind>,
    }
    let s = Tracer::new().include::<Kind>().trace::<Many>().unwrap();
    assert_eq!(schema::schema_of::<Many>().unwrap(), &s);
}

#[derive(Serialize, Deserialize, kiln::Schema)]
enum Kind {
    A,
    B(u8),
    C { c: bool },
}

#[test]
fn enums_in_struct_fields_are_complete() {
    #[derive(Deserialize, kiln::Schema)]
    struct Holder {
        _k: Kind,
        _l: List,
    }
    assert_eq!(
        text::<Holder>(),
        "root Holder\nstruct Holder { _k: Kind, _l: List }\n\
         enum Kind { A, B(u8), C { c: bool } }\n\
         enum List { Nil, Cons(i32, List) }\n"
    );
}

#[test]
fn enums_behind_a_sequence_are_described() {
    #[derive(Deserialize, kiln::Schema)]
    struct Many {
        _kinds: Vec<Kind>,
    }
    assert_eq!(
        text::<Many>(),
        "root Many\nenum Kind { A, B(u8), C { c: bool } }\nstruct Many { _kinds: seq<Kind> }\n"
    );
}
