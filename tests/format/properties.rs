//! Quickcheck properties of the core layout.
//!
//! * Random values of a rich, recursive type round-trip through every
//!   entry point, bit-exact (floats are compared by their bits).
//! * Arbitrary bytes, and valid encodings with random bytes overwritten,
//!   never panic when decoded, and a slice and a reader agree: the same
//!   value, or the same error code at the same offset. The one exception is
//!   by design: a slice refuses a count larger than the remaining bytes
//!   could hold (`count-too-large`), which a reader cannot know; the reader
//!   must then fail too, at that offset or later. Likewise a read that
//!   claims more than the byte limit (1 GiB) is refused by a reader with
//!   `byte-limit` before it is tried, where a slice finds `unexpected-end`
//!   at the same offset.
//! * Every strict prefix of a valid encoding fails with `unexpected-end`.
//!   The offset it reports is the first byte of the read that could not be
//!   completed (a number, a tag, a count, or the bytes of a string), and
//!   `available` is how many of its bytes were there, so
//!   `offset + available == prefix length` and `needed > available`.
//!   Over all prefixes, these failed reads tile the encoding exactly: each
//!   starts where the previous one ended, from byte 0 to the last byte.
//!   (This holds while counts stay within the zero-sized budget, 2^20 by
//!   default; a prefix that cuts a longer sequence short may instead get
//!   `count-too-large` at that sequence's count, as shown below. `Record`
//!   therefore holds no `Vec` of numbers: such a vector may be read as one
//!   block whose count is checked against its element size, so a prefix
//!   that cuts it is refused at its count. Those are round-tripped in
//!   `numeric_vectors_round_trip` and checked by the arbitrary-bytes
//!   property, and their prefixes in the block tests.)

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use pieces::Pieces;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::common::pieces;

/// An `f32` compared by its bits, so NaNs and -0.0 count.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct F32(f32);
impl PartialEq for F32 {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

/// An `f64` compared by its bits.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct F64(f64);
impl PartialEq for F64 {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Tag(u16);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Shape {
    Empty,
    Circle(F32),
    Rect(u16, u16),
    Poly {
        sides: u8,
        name: String,
        points: Vec<(i32, i32)>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Item {
    key: String,
    values: VecDeque<i64>,
    letters: BTreeSet<char>,
    nested: Option<Vec<bool>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Record {
    id: u64,
    flag: bool,
    small: i8,
    wide: i128,
    big: u128,
    ratio: F32,
    score: F64,
    letter: char,
    name: String,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    maybe: Option<Option<u16>>,
    shape: Shape,
    items: Vec<Item>,
    index: BTreeMap<u8, String>,
    pair: (u32, bool),
    arr: [i16; 3],
    unit: (),
    tag: Tag,
    children: Vec<Record>,
}

/// A length up to the generator's size, mostly small.
fn len(g: &mut Gen) -> usize {
    let n = usize::arbitrary(g) % (g.size() + 1);
    if bool::arbitrary(g) { n % 4 } else { n }
}

fn vec_of<T>(g: &mut Gen, f: impl Fn(&mut Gen) -> T) -> Vec<T> {
    (0..len(g)).map(|_| f(g)).collect()
}

impl Arbitrary for F32 {
    fn arbitrary(g: &mut Gen) -> Self {
        // Any bit pattern: NaN payloads, -0.0, subnormals, infinities.
        F32(f32::from_bits(u32::arbitrary(g)))
    }
}

impl Arbitrary for F64 {
    fn arbitrary(g: &mut Gen) -> Self {
        F64(f64::from_bits(u64::arbitrary(g)))
    }
}

impl Arbitrary for Shape {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 4 {
            0 => Shape::Empty,
            1 => Shape::Circle(F32::arbitrary(g)),
            2 => Shape::Rect(u16::arbitrary(g), u16::arbitrary(g)),
            _ => Shape::Poly {
                sides: u8::arbitrary(g),
                name: String::arbitrary(g),
                points: vec_of(g, |g| (i32::arbitrary(g), i32::arbitrary(g))),
            },
        }
    }
}

impl Arbitrary for Item {
    fn arbitrary(g: &mut Gen) -> Self {
        Item {
            key: String::arbitrary(g),
            values: vec_of(g, i64::arbitrary).into(),
            letters: vec_of(g, char::arbitrary).into_iter().collect(),
            nested: Option::arbitrary(g),
        }
    }
}

fn record(g: &mut Gen, depth: u32) -> Record {
    Record {
        id: u64::arbitrary(g),
        flag: bool::arbitrary(g),
        small: i8::arbitrary(g),
        wide: i128::arbitrary(g),
        big: u128::arbitrary(g),
        ratio: F32::arbitrary(g),
        score: F64::arbitrary(g),
        letter: char::arbitrary(g),
        name: String::arbitrary(g),
        blob: Vec::arbitrary(g),
        maybe: Option::arbitrary(g),
        shape: Shape::arbitrary(g),
        items: vec_of(g, Item::arbitrary),
        index: BTreeMap::arbitrary(g),
        pair: Arbitrary::arbitrary(g),
        arr: Arbitrary::arbitrary(g),
        unit: (),
        tag: Tag(u16::arbitrary(g)),
        children: if depth == 0 {
            Vec::new()
        } else {
            (0..usize::arbitrary(g) % 3)
                .map(|_| record(g, depth - 1))
                .collect()
        },
    }
}

impl Arbitrary for Record {
    fn arbitrary(g: &mut Gen) -> Self {
        record(g, 2)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        // Shrink by dropping children, items and text: enough to make a
        // failure readable.
        let mut smaller = Vec::new();
        if !self.children.is_empty() {
            let mut r = self.clone();
            r.children.clear();
            smaller.push(r);
            smaller.extend(self.children.iter().cloned());
        }
        if !self.items.is_empty() {
            let mut r = self.clone();
            r.items.clear();
            smaller.push(r);
        }
        if !self.name.is_empty() || !self.blob.is_empty() || !self.index.is_empty() {
            let mut r = self.clone();
            r.name.clear();
            r.blob.clear();
            r.index.clear();
            smaller.push(r);
        }
        Box::new(smaller.into_iter())
    }
}

/// A checker running `default` cases, or `QUICKCHECK_TESTS` if set (for
/// longer runs: `QUICKCHECK_TESTS=100000 cargo test --release --test properties`).
fn checker(default: u64, size: usize) -> QuickCheck {
    let tests = std::env::var("QUICKCHECK_TESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    QuickCheck::new()
        .tests(tests)
        .max_tests(tests * 10)
        .rng(Gen::new(size))
}

/// A [`Record`] with children but no grandchildren.
#[derive(Clone, Debug)]
struct Shallow(Record);

impl Arbitrary for Shallow {
    fn arbitrary(g: &mut Gen) -> Self {
        Shallow(record(g, 1))
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.0.shrink().map(Shallow))
    }
}

fn qc() -> QuickCheck {
    checker(150, 24)
}

/// Piece sizes for [`Pieces`]: short and uneven.
const PIECES: &[usize] = &[1, 5, 2, 13, 3, 8, 21, 4];

// ----- round trips -----

fn round_trips(value: Record, tail: Vec<u8>, pieces: Vec<u8>) -> bool {
    let pieces: Vec<usize> = pieces.iter().map(|&p| usize::from(p % 32)).collect();
    let pieces = if pieces.is_empty() { PIECES } else { &pieces };
    let bytes = kiln::to_vec(&value).unwrap();
    let mut w = Vec::new();
    kiln::to_writer(&mut w, &value).unwrap();
    let mut with_tail = bytes.clone();
    with_tail.extend_from_slice(&tail);
    let (taken, rest) = kiln::take_from_slice::<Record>(&with_tail).unwrap();
    w == bytes
        && kiln::serialized_size(&value).unwrap() == bytes.len() as u64
        && kiln::from_slice::<Record>(&bytes).unwrap() == value
        && kiln::from_reader::<_, Record>(&bytes[..]).unwrap() == value
        && kiln::from_reader::<_, Record>(Pieces::new(&bytes, pieces)).unwrap() == value
        && taken == value
        && rest == tail
}

#[test]
fn random_values_round_trip() {
    qc().quickcheck(round_trips as fn(Record, Vec<u8>, Vec<u8>) -> bool);
}

// ----- arbitrary bytes -----

/// Decodes `bytes` as `T` from a slice and from a reader and checks that
/// they agree (see the module docs). A panic fails the property.
fn slice_and_reader_agree<T>(bytes: &[u8]) -> Result<(), String>
where
    T: DeserializeOwned + PartialEq + std::fmt::Debug,
{
    // A small zero-sized budget keeps a reader from looping 2^20 times
    // on a random count of `()`s.
    let opts = kiln::Options::new().zero_sized_limit(1000);
    let slice = opts.from_slice::<T>(bytes);
    let reader = opts.from_reader::<_, T>(bytes);
    // In pieces, the same value or the very same error as all at once
    // (but for the count of trailing bytes, which is what the reader had
    // buffered past the value).
    let pieces = opts.from_reader::<_, T>(Pieces::new(bytes, PIECES));
    match (&reader, &pieces) {
        (Ok(a), Ok(b)) if a == b => {}
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        (Err(a), Err(b))
            if a.kind().code() == "trailing-bytes"
                && b.kind().code() == "trailing-bytes"
                && a.offset() == b.offset() => {}
        _ => return Err(format!("reader {reader:?} vs reader in pieces {pieces:?}")),
    }
    match (&slice, &reader) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Err(a), Err(b))
            if a.kind().code() == b.kind().code()
                && a.offset() == b.offset()
                && a.path() == b.path() =>
        {
            Ok(())
        }
        (Err(a), Err(b)) if a.kind().code() == "count-too-large" && b.offset() >= a.offset() => {
            Ok(())
        }
        // A reader refuses a read that would pass its byte limit (1 GiB)
        // before trying it; a slice, shorter than that, ends inside it.
        (Err(a), Err(b))
            if a.kind().code() == "unexpected-end"
                && b.kind().code() == "byte-limit"
                && a.offset() == b.offset() =>
        {
            Ok(())
        }
        _ => Err(format!("slice {slice:?} vs reader {reader:?}")),
    }
}

fn all_agree(bytes: &[u8]) -> TestResult {
    let checks = [
        slice_and_reader_agree::<Record>(bytes),
        slice_and_reader_agree::<Shape>(bytes),
        slice_and_reader_agree::<Vec<Item>>(bytes),
        slice_and_reader_agree::<(Option<char>, String, bool)>(bytes),
        slice_and_reader_agree::<BTreeMap<u8, Option<Shape>>>(bytes),
        slice_and_reader_agree::<Vec<()>>(bytes),
        slice_and_reader_agree::<(Vec<u16>, Vec<u8>, Option<Vec<i64>>)>(bytes),
    ];
    match checks.into_iter().find_map(Result::err) {
        Some(msg) => TestResult::error(msg),
        None => TestResult::passed(),
    }
}

#[test]
fn arbitrary_bytes_never_panic_and_slice_and_reader_agree() {
    fn prop(bytes: Vec<u8>) -> TestResult {
        all_agree(&bytes)
    }
    checker(500, 64).quickcheck(prop as fn(Vec<u8>) -> TestResult);
}

#[test]
fn damaged_encodings_never_panic_and_slice_and_reader_agree() {
    // Random bytes rarely get past the first fields; overwriting a few
    // bytes of a valid encoding reaches every part of the type.
    fn prop(value: Record, damage: Vec<(usize, u8)>) -> TestResult {
        let mut bytes = kiln::to_vec(&value).unwrap();
        for (at, b) in damage.iter().take(4) {
            let n = bytes.len();
            bytes[at % n] = *b;
        }
        all_agree(&bytes)
    }
    qc().quickcheck(prop as fn(Record, Vec<(usize, u8)>) -> TestResult);
}

// ----- strict prefixes -----

/// The failed read of a prefix: (offset, needed).
fn failed_read(prefix: &[u8]) -> Result<(u64, u64), String> {
    let err = kiln::from_slice::<Record>(prefix).unwrap_err();
    let from_reader = kiln::from_reader::<_, Record>(prefix).unwrap_err();
    if from_reader.kind().code() != err.kind().code() || from_reader.offset() != err.offset() {
        return Err(format!("slice {err:?} vs reader {from_reader:?}"));
    }
    let p = prefix.len() as u64;
    match (err.kind(), err.offset()) {
        (
            kiln::ErrorKind::UnexpectedEnd {
                needed, available, ..
            },
            Some(offset),
        ) if offset + available == p && needed > available => Ok((offset, *needed)),
        _ => Err(format!("prefix of {p} bytes: {err:?}")),
    }
}

fn prefixes_fail_at_the_read_they_cut(value: Record) -> TestResult {
    let bytes = kiln::to_vec(&value).unwrap();
    let mut expected_start = 0u64;
    let mut last: Option<(u64, u64)> = None;
    for p in 0..bytes.len() {
        let (offset, needed) = match failed_read(&bytes[..p]) {
            Ok(r) => r,
            Err(msg) => return TestResult::error(msg),
        };
        if last != Some((offset, needed)) {
            // A new read: it must begin where the previous one ended.
            if offset != expected_start {
                return TestResult::error(format!(
                    "prefix {p}: read at {offset}, expected one at {expected_start}"
                ));
            }
            expected_start = offset + needed;
            last = Some((offset, needed));
        }
    }
    if expected_start != bytes.len() as u64 {
        return TestResult::error(format!(
            "reads end at {expected_start}, encoding has {} bytes",
            bytes.len()
        ));
    }
    TestResult::passed()
}

#[test]
fn every_strict_prefix_is_an_unexpected_end() {
    // Each value costs two decodes per byte (about 0.1 ms each in a debug
    // build), so the values are kept to a few hundred bytes: one level of
    // children, short collections, still every kind of read.
    fn prop(value: Shallow) -> TestResult {
        prefixes_fail_at_the_read_they_cut(value.0)
    }
    checker(30, 5).quickcheck(prop as fn(Shallow) -> TestResult);
}

#[test]
fn prefix_offsets_of_a_known_value() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Small {
        a: u16,
        s: String,
        o: Option<u32>,
        v: Vec<bool>,
    }
    let value = Small {
        a: 1,
        s: "hey".into(),
        o: Some(2),
        v: vec![true, false],
    };
    let bytes = kiln::to_vec(&value).unwrap();
    // a: 0..2; s count 2..6, s bytes 6..9; tag 9; o 10..14; v count 14..18;
    // v[0] 18; v[1] 19.
    assert_eq!(bytes.len(), 20);
    let expected = [
        (0, 0, 2),
        (1, 0, 2),
        (2, 2, 4),
        (5, 2, 4),
        (6, 6, 3),
        (8, 6, 3),
        (9, 9, 1),
        (10, 10, 4),
        (13, 10, 4),
        (14, 14, 4),
        (17, 14, 4),
        (18, 18, 1),
        (19, 19, 1),
    ];
    for (p, offset, needed) in expected {
        let err = kiln::from_slice::<Small>(&bytes[..p]).unwrap_err();
        assert_eq!(err.kind().code(), "unexpected-end", "prefix {p}");
        assert_eq!(err.offset(), Some(offset), "prefix {p}");
        match err.kind() {
            kiln::ErrorKind::UnexpectedEnd {
                needed: n,
                available,
                ..
            } => {
                assert_eq!(*n, needed, "prefix {p}");
                assert_eq!(*available, p as u64 - offset, "prefix {p}");
            }
            other => panic!("{other:?}"),
        }
        let from_reader = kiln::from_reader::<_, Small>(&bytes[..p]).unwrap_err();
        assert_eq!(from_reader.to_string(), err.to_string(), "prefix {p}");
    }
    assert_eq!(kiln::from_slice::<Small>(&bytes).unwrap(), value);
}

#[test]
fn a_prefix_cutting_a_sequence_longer_than_the_budget() {
    // The exception noted in the module docs: a count beyond the remaining
    // bytes plus the zero-sized budget is refused at the count itself.
    let opts = kiln::Options::new().zero_sized_limit(2);
    let bytes = kiln::to_vec(&vec![true; 10]).unwrap();
    let err = opts.from_slice::<Vec<bool>>(&bytes[..4 + 7]).unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(0));
    let err = opts.from_slice::<Vec<bool>>(&bytes[..4 + 8]).unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(12));
}

// ----- unknown lengths -----

/// A tree whose sequences are written with or without their length known
/// up front (`serialize_seq(Some(n))` or `serialize_seq(None)`).
#[derive(Clone, Debug)]
enum Tree {
    Leaf(u8),
    Known(Vec<Tree>),
    Unknown(Vec<Tree>),
}

/// What a reader sees: the same tree, lengths always in front.
#[derive(Debug, PartialEq, Deserialize)]
enum Plain {
    Leaf(u8),
    Node(Vec<Plain>),
}

struct Children<'a>(&'a [Tree], bool);

impl Serialize for Children<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(if self.1 { Some(self.0.len()) } else { None })?;
        for child in self.0 {
            seq.serialize_element(child)?;
        }
        seq.end()
    }
}

impl Serialize for Tree {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Tree::Leaf(b) => s.serialize_newtype_variant("Plain", 0, "Leaf", b),
            Tree::Known(c) => s.serialize_newtype_variant("Plain", 1, "Node", &Children(c, true)),
            Tree::Unknown(c) => {
                s.serialize_newtype_variant("Plain", 1, "Node", &Children(c, false))
            }
        }
    }
}

impl Tree {
    fn plain(&self) -> Plain {
        match self {
            Tree::Leaf(b) => Plain::Leaf(*b),
            Tree::Known(c) | Tree::Unknown(c) => Plain::Node(c.iter().map(Tree::plain).collect()),
        }
    }
    fn all_known(&self) -> Tree {
        match self {
            Tree::Leaf(b) => Tree::Leaf(*b),
            Tree::Known(c) | Tree::Unknown(c) => {
                Tree::Known(c.iter().map(Tree::all_known).collect())
            }
        }
    }
}

fn tree(g: &mut Gen, depth: u32) -> Tree {
    let kind = if depth == 0 { 0 } else { u8::arbitrary(g) % 3 };
    match kind {
        0 => Tree::Leaf(u8::arbitrary(g)),
        1 => Tree::Known(
            (0..usize::arbitrary(g) % 4)
                .map(|_| tree(g, depth - 1))
                .collect(),
        ),
        _ => Tree::Unknown(
            (0..usize::arbitrary(g) % 4)
                .map(|_| tree(g, depth - 1))
                .collect(),
        ),
    }
}

impl Arbitrary for Tree {
    fn arbitrary(g: &mut Gen) -> Self {
        tree(g, 5)
    }
}

#[test]
fn unknown_lengths_write_the_same_bytes_as_known_ones() {
    fn prop(t: Tree) -> TestResult {
        let expected = kiln::to_vec(&t.all_known()).unwrap();
        let via_vec = kiln::to_vec(&t).unwrap();
        let mut via_writer = Vec::new();
        kiln::to_writer(&mut via_writer, &t).unwrap();
        let size = kiln::serialized_size(&t).unwrap();
        if via_vec != expected || via_writer != expected || size != expected.len() as u64 {
            return TestResult::error(format!(
                "{t:?}: vec {via_vec:?}, writer {via_writer:?}, size {size}, expected {expected:?}"
            ));
        }
        TestResult::from_bool(kiln::from_slice::<Plain>(&expected).unwrap() == t.plain())
    }
    checker(300, 8).quickcheck(prop as fn(Tree) -> TestResult);
}

#[test]
fn numeric_vectors_round_trip() {
    type Numbers = (Vec<u8>, Vec<i16>, Vec<u32>, Vec<i64>, Vec<u128>, Vec<F64>);
    /// The same, with the f64s as their bits.
    type Input = (Vec<u8>, Vec<i16>, Vec<u32>, Vec<i64>, Vec<u128>, Vec<u64>);
    fn prop(v: Input) -> bool {
        let floats: Vec<f64> = v.5.iter().map(|b| f64::from_bits(*b)).collect();
        let value = (&v.0, &v.1, &v.2, &v.3, &v.4, &floats);
        let bytes = kiln::to_vec(&value).unwrap();
        let expected_len = 6 * 4
            + v.0.len()
            + v.1.len() * 2
            + v.2.len() * 4
            + v.3.len() * 8
            + v.4.len() * 16
            + v.5.len() * 8;
        let check = |back: Numbers| {
            back.0 == v.0
                && back.1 == v.1
                && back.2 == v.2
                && back.3 == v.3
                && back.4 == v.4
                && back.5.iter().map(|f| f.0.to_bits()).eq(v.5.iter().copied())
        };
        bytes.len() == expected_len
            && check(kiln::from_slice(&bytes).unwrap())
            && check(kiln::from_reader(&bytes[..]).unwrap())
    }
    qc().quickcheck(
        prop as fn((Vec<u8>, Vec<i16>, Vec<u32>, Vec<i64>, Vec<u128>, Vec<u64>)) -> bool,
    );
}

/// Reads `bytes` as a string every way (owned, borrowed, from a reader)
/// and checks each verdict against `std::str::from_utf8`'s: the same
/// string, or `invalid-utf8` at the byte where the valid UTF-8 ends.
fn checked_as_std_checks(bytes: &[u8]) -> Result<(), String> {
    let mut encoded = (bytes.len() as u32).to_le_bytes().to_vec();
    encoded.extend_from_slice(bytes);
    let expected = std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|e| 4 + e.valid_up_to() as u64);
    let verdict = |r: Result<String, kiln::Error>| match r {
        Ok(s) => Ok(s),
        Err(e) if e.kind().code() == "invalid-utf8" => Err(e.offset().unwrap()),
        Err(e) => Err(u64::MAX - e.offset().unwrap_or(0)),
    };
    let owned = verdict(kiln::from_slice::<String>(&encoded));
    let borrowed = verdict(kiln::from_slice::<&str>(&encoded).map(str::to_owned));
    let streamed = verdict(kiln::from_reader::<_, String>(Pieces::new(&encoded, &[3])));
    // As a field, an element, a map key and a map value (each read by its
    // access, in place), a few bytes later: after a `u8`, a count of one.
    let mut field = vec![7u8];
    field.extend_from_slice(&encoded);
    let mut one = 1u32.to_le_bytes().to_vec();
    one.extend_from_slice(&encoded);
    let later = |r: Result<String, u64>, by: u64| r.map_err(|at| at - by);
    let in_field = later(
        verdict(kiln::from_slice::<(u8, &str)>(&field).map(|(_, s)| s.to_owned())),
        1,
    );
    let in_owned_field = later(
        verdict(kiln::from_slice::<(u8, String)>(&field).map(|(_, s)| s)),
        1,
    );
    let element = later(
        verdict(kiln::from_slice::<Vec<String>>(&one).map(|mut v| v.remove(0))),
        4,
    );
    let streamed_element = later(
        verdict(
            kiln::from_reader::<_, Vec<String>>(Pieces::new(&one, &[1 << 16]))
                .map(|mut v| v.remove(0)),
        ),
        4,
    );
    let streamed_field = later(
        verdict(
            kiln::from_reader::<_, Vec<(u8, String)>>(Pieces::new(&one_field(&field), &[5]))
                .map(|mut v| v.remove(0).1),
        ),
        5,
    );
    let borrowed_element = later(
        verdict(kiln::from_slice::<Vec<&str>>(&one).map(|v| v[0].to_owned())),
        4,
    );
    // With 16 bytes after the string, none of them ASCII: a string of up
    // to 16 bytes is then checked with one 16-byte load, masked to its
    // length, and must look at none of them.
    let mut followed = encoded.clone();
    followed.extend_from_slice(&[0xff; 16]);
    let followed_borrowed =
        verdict(kiln::from_slice::<(&str, [u8; 16])>(&followed).map(|(s, _)| s.to_owned()));
    let followed_owned = verdict(kiln::from_slice::<(String, [u8; 16])>(&followed).map(|(s, _)| s));
    let followed_window = later(
        verdict(
            kiln::from_reader::<_, Vec<(String, [u8; 16])>>(Pieces::new(
                &one_field(&followed),
                &[1 << 16],
            ))
            .map(|mut v| v.remove(0).0),
        ),
        4,
    );
    let mut key = one.clone();
    key.extend_from_slice(&0u32.to_le_bytes());
    let map_key = later(
        verdict(
            kiln::from_slice::<BTreeMap<String, String>>(&key)
                .map(|m| m.into_keys().next().unwrap()),
        ),
        4,
    );
    let mut value = one.clone();
    value.splice(4..4, 0u32.to_le_bytes());
    let map_value = later(
        verdict(
            kiln::from_slice::<BTreeMap<String, String>>(&value)
                .map(|m| m.into_values().next().unwrap()),
        ),
        8,
    );
    for (how, got) in [
        ("owned", owned),
        ("borrowed", borrowed),
        ("streamed", streamed),
        ("field", in_field),
        ("owned field", in_owned_field),
        ("element", element),
        ("borrowed element", borrowed_element),
        ("streamed element", streamed_element),
        ("streamed field", streamed_field),
        ("map key", map_key),
        ("map value", map_value),
        ("borrowed, 16 bytes after", followed_borrowed),
        ("owned, 16 bytes after", followed_owned),
        ("streamed element, 16 bytes after", followed_window),
    ] {
        if got != expected {
            return Err(format!(
                "{how}: {got:?}, std: {expected:?}, bytes {bytes:?}"
            ));
        }
    }
    Ok(())
}

/// `bytes` as the only element of a sequence: a count of one before them.
fn one_field(bytes: &[u8]) -> Vec<u8> {
    let mut one = 1u32.to_le_bytes().to_vec();
    one.extend_from_slice(bytes);
    one
}

/// Strings are checked as `std::str::from_utf8` checks them, whatever
/// their length (short ones take paths of their own, word by word, and
/// with one masked load where 16 bytes of input follow their start) and
/// wherever a byte that is not ASCII falls: every length to 140 with one
/// such byte (a lone continuation byte, a byte never valid, a whole
/// two-byte character) at every position, then random mixtures.
#[test]
fn strings_are_checked_as_std_checks_them() {
    for len in 0..=140 {
        let ascii = vec![b'k'; len];
        checked_as_std_checks(&ascii).unwrap();
        for at in 0..len {
            for bad in [&[0x80u8][..], &[0xff], &[0xc3, 0xa9]] {
                let mut bytes = ascii.clone();
                let end = (at + bad.len()).min(len);
                bytes[at..end].copy_from_slice(&bad[..end - at]);
                checked_as_std_checks(&bytes).unwrap();
            }
        }
    }
    fn prop(ascii: Vec<u8>, marks: Vec<(u8, u8)>, len: u8) -> bool {
        let mut bytes: Vec<u8> = ascii.iter().map(|b| b & 0x7f).collect();
        bytes.resize(usize::from(len) % 140, b'a');
        for &(at, b) in &marks {
            if let Some(at) = usize::from(at).checked_rem(bytes.len()) {
                bytes[at] = b | 0x80;
            }
        }
        checked_as_std_checks(&bytes).is_ok()
    }
    qc().quickcheck(prop as fn(Vec<u8>, Vec<(u8, u8)>, u8) -> bool);
}
