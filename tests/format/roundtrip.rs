//! Round trips through every entry point, and the exact bytes of every
//! row of the core layout table (issue 2), in both directions.
//!
//! Each `both_ways` check asserts that writing the value gives exactly the
//! bytes (through `to_vec`, `to_writer` and `serialized_size`) and that
//! reading those bytes gives the value back (through `from_slice` and
//! `from_reader`). Rejections of each row are in `tests/errors.rs`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_bytes::ByteBuf;

/// Every way of writing `value` gives `bytes`.
fn writes<T: Serialize + ?Sized>(value: &T, bytes: &[u8]) {
    assert_eq!(kiln::to_vec(value).unwrap(), bytes, "to_vec");
    let mut w = Vec::new();
    kiln::to_writer(&mut w, value).unwrap();
    assert_eq!(w, bytes, "to_writer");
    let mut into = vec![0xaa];
    kiln::to_vec_into(value, &mut into).unwrap();
    assert_eq!(into[0], 0xaa);
    assert_eq!(&into[1..], bytes, "to_vec_into");
    assert_eq!(
        kiln::serialized_size(value).unwrap(),
        bytes.len() as u64,
        "serialized_size"
    );
}

/// Writing `value` gives the bytes `h`, and reading them (from a slice and
/// from a reader) gives `value`.
fn both_ways<T>(value: T, h: &str)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let bytes = hex(h);
    writes(&value, &bytes);
    assert_eq!(kiln::from_slice::<T>(&bytes).unwrap(), value, "from_slice");
    assert_eq!(
        kiln::from_reader::<_, T>(&bytes[..]).unwrap(),
        value,
        "from_reader"
    );
    let mut extended = bytes.clone();
    extended.extend_from_slice(&[0xde, 0xad]);
    let (back, rest) = kiln::take_from_slice::<T>(&extended).unwrap();
    assert_eq!(back, value, "take_from_slice");
    assert_eq!(rest, [0xde, 0xad], "take_from_slice rest");
}

// ----- the types of the table -----

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct UnitStruct;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Meters(f64);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Pair(i16, char);

use crate::common::Point;
use crate::common::hex;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Message {
    text: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Empty,
    Circle(f32),
    Rect(u16, u16),
    Poly { sides: u8, name: String },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner {
    id: u32,
    tags: Vec<String>,
    at: Point,
}

/// One value of every serde kind, borrowing where serde can.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Everything<'a> {
    b: bool,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    i128_: i128,
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    u128_: u128,
    usize_: usize,
    isize_: isize,
    f32_: f32,
    f64_: f64,
    c: char,
    s: String,
    #[serde(borrow)]
    borrowed_str: &'a str,
    #[serde(borrow, with = "serde_bytes")]
    borrowed_bytes: &'a [u8],
    buf: ByteBuf,
    cow: Cow<'a, str>,
    none: Option<u8>,
    some: Option<String>,
    nested_none: Option<Option<i32>>,
    nested_some_none: Option<Option<i32>>,
    nested_some_some: Option<Option<i32>>,
    unit: (),
    unit_struct: UnitStruct,
    newtype: Meters,
    shapes: Vec<Shape>,
    deque: VecDeque<i16>,
    set: BTreeSet<String>,
    hash: HashMap<u8, String>,
    btree: BTreeMap<String, Vec<u8>>,
    tuple: (u8, String, bool),
    tuple_struct: Pair,
    array: [u16; 3],
    inner: Inner,
    inners: Vec<Inner>,
    boxed: Box<Option<Shape>>,
}

/// The same layout with owned strings and bytes, for `from_reader`.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct EverythingOwned {
    b: bool,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    i128_: i128,
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    u128_: u128,
    usize_: usize,
    isize_: isize,
    f32_: f32,
    f64_: f64,
    c: char,
    s: String,
    borrowed_str: String,
    borrowed_bytes: ByteBuf,
    buf: ByteBuf,
    cow: String,
    none: Option<u8>,
    some: Option<String>,
    nested_none: Option<Option<i32>>,
    nested_some_none: Option<Option<i32>>,
    nested_some_some: Option<Option<i32>>,
    unit: (),
    unit_struct: UnitStruct,
    newtype: Meters,
    shapes: Vec<Shape>,
    deque: VecDeque<i16>,
    set: BTreeSet<String>,
    hash: HashMap<u8, String>,
    btree: BTreeMap<String, Vec<u8>>,
    tuple: (u8, String, bool),
    tuple_struct: Pair,
    array: [u16; 3],
    inner: Inner,
    inners: Vec<Inner>,
    boxed: Box<Option<Shape>>,
}

fn everything(text: &str, raw: &[u8]) -> Everything<'static> {
    let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
    let raw: &'static [u8] = Box::leak(raw.to_vec().into_boxed_slice());
    Everything {
        b: true,
        i8_: i8::MIN,
        i16_: -12345,
        i32_: i32::MAX,
        i64_: -1,
        i128_: i128::MIN + 7,
        u8_: 0xfe,
        u16_: 0xbeef,
        u32_: 0xdead_beef,
        u64_: u64::MAX - 1,
        u128_: u128::MAX / 3,
        usize_: usize::MAX,
        isize_: isize::MIN,
        f32_: -1.5,
        f64_: std::f64::consts::PI,
        c: '\u{1F980}',
        s: "grüße".into(),
        borrowed_str: text,
        borrowed_bytes: raw,
        buf: ByteBuf::from(vec![0, 255, 7]),
        cow: Cow::Borrowed("cow"),
        none: None,
        some: Some("x".into()),
        nested_none: None,
        nested_some_none: Some(None),
        nested_some_some: Some(Some(-7)),
        unit: (),
        unit_struct: UnitStruct,
        newtype: Meters(-0.25),
        shapes: vec![
            Shape::Empty,
            Shape::Circle(2.5),
            Shape::Rect(3, 4),
            Shape::Poly {
                sides: 6,
                name: "hex".into(),
            },
        ],
        deque: VecDeque::from(vec![-1, 0, 1]),
        set: ["b", "a", "c"].iter().map(|s| s.to_string()).collect(),
        hash: [(1, "one".to_string()), (2, "two".to_string())]
            .into_iter()
            .collect(),
        btree: [("k".to_string(), vec![1, 2]), ("j".to_string(), vec![])]
            .into_iter()
            .collect(),
        tuple: (9, "t".into(), false),
        tuple_struct: Pair(-2, 'z'),
        array: [1, 2, 3],
        inner: Inner {
            id: 1,
            tags: vec!["a".into(), "".into()],
            at: Point { x: 9, y: -4 },
        },
        inners: vec![
            Inner {
                id: 2,
                tags: vec![],
                at: Point { x: 0, y: 0 },
            },
            Inner {
                id: 3,
                tags: vec!["deep".into()],
                at: Point { x: -1, y: 1 },
            },
        ],
        boxed: Box::new(Some(Shape::Rect(7, 8))),
    }
}

fn owned(e: &Everything<'_>) -> EverythingOwned {
    // The two types have the same layout, so the bytes of one read as the other.
    kiln::from_slice(&kiln::to_vec(e).unwrap()).unwrap()
}

#[test]
fn everything_round_trips_through_every_entry_point() {
    let value = everything("borrowed text", &[1, 2, 3, 4]);
    let bytes = kiln::to_vec(&value).unwrap();

    // serialized_size agrees with to_vec; to_writer writes the same bytes.
    assert_eq!(kiln::serialized_size(&value).unwrap(), bytes.len() as u64);
    let mut w = Vec::new();
    kiln::to_writer(&mut w, &value).unwrap();
    assert_eq!(w, bytes);

    // from_slice gives the value, and borrowed fields point into the input.
    let back: Everything<'_> = kiln::from_slice(&bytes).unwrap();
    assert_eq!(back, value);
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.borrowed_str.as_ptr()));
    assert!(range.contains(&back.borrowed_bytes.as_ptr()));

    // from_reader gives the same value, owned.
    let from_reader: EverythingOwned = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(from_reader, owned(&value));
    assert_eq!(from_reader.borrowed_str, "borrowed text");
    assert_eq!(from_reader.borrowed_bytes.as_slice(), [1, 2, 3, 4]);
    // And the owned twin writes the same bytes (up to HashMap order).
    assert_eq!(
        kiln::serialized_size(&from_reader).unwrap(),
        bytes.len() as u64
    );

    // take_from_slice returns the bytes after the record.
    let mut two = bytes.clone();
    two.extend_from_slice(&bytes);
    two.push(0x42);
    let (first, rest) = kiln::take_from_slice::<Everything<'_>>(&two).unwrap();
    assert_eq!(first, value);
    assert_eq!(rest.len(), bytes.len() + 1);
    let (second, rest) = kiln::take_from_slice::<Everything<'_>>(rest).unwrap();
    assert_eq!(second, value);
    assert_eq!(rest, [0x42]);
}

#[test]
fn everything_round_trips_across_a_reader_buffer_boundary() {
    // Long enough that the reader refills its 8 KiB buffer in the middle
    // of strings and numbers.
    let text = "é".repeat(5000);
    let raw: Vec<u8> = (0..=255).cycle().take(9000).collect();
    let value = everything(&text, &raw);
    let bytes = kiln::to_vec(&value).unwrap();
    assert!(bytes.len() > 2 * 8192);
    assert_eq!(kiln::from_slice::<Everything<'_>>(&bytes).unwrap(), value);
    // A reader that hands out one byte at a time.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((b, rest)), Some(slot)) => {
                    *slot = *b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }
    let back: EverythingOwned = kiln::from_reader(Trickle(&bytes)).unwrap();
    assert_eq!(back, owned(&value));
    let back: EverythingOwned = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(back, owned(&value));
}

// ----- every row of the table, exact bytes both ways -----

#[test]
fn bool_row() {
    both_ways(false, "00");
    both_ways(true, "01");
}

#[test]
fn integer_rows() {
    both_ways(0x7fi8, "7f");
    both_ways(-1i8, "ff");
    both_ways(200u8, "c8");
    both_ways(-2i16, "fe ff");
    both_ways(0x1234u16, "34 12");
    both_ways(-4i32, "fc ff ff ff");
    both_ways(0x0102_0304u32, "04 03 02 01");
    both_ways(i64::MIN, "00 00 00 00 00 00 00 80");
    both_ways(0x0102_0304_0506_0708u64, "08 07 06 05 04 03 02 01");
    both_ways(-2i128, "fe ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff");
    both_ways(
        0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10u128,
        "10 0f 0e 0d 0c 0b 0a 09 08 07 06 05 04 03 02 01",
    );
    // usize and isize are 8 bytes on every platform.
    both_ways(1usize, "01 00 00 00 00 00 00 00");
    both_ways(-1isize, "ff ff ff ff ff ff ff ff");
}

#[test]
fn float_rows() {
    both_ways(1.0f32, "00 00 80 3f");
    both_ways(-2.0f32, "00 00 00 c0");
    both_ways(1.0f64, "00 00 00 00 00 00 f0 3f");
    both_ways(f32::INFINITY, "00 00 80 7f");
    both_ways(f64::MIN_POSITIVE, "00 00 00 00 00 00 10 00");
}

/// Every bit pattern, NaN payloads and -0.0 included, comes back exactly.
#[test]
fn float_bit_patterns_are_exact() {
    let f32_bits = [
        0x8000_0000u32, // -0.0
        0x7fc0_0000,    // quiet NaN
        0x7fc0_0001,    // quiet NaN with payload
        0x7f80_0001,    // signalling NaN
        0xffff_ffff,    // negative NaN, all payload bits
        0x0000_0001,    // smallest subnormal
    ];
    for bits in f32_bits {
        let v = f32::from_bits(bits);
        let bytes = kiln::to_vec(&v).unwrap();
        assert_eq!(bytes, bits.to_le_bytes());
        let mut w = Vec::new();
        kiln::to_writer(&mut w, &v).unwrap();
        assert_eq!(w, bytes);
        assert_eq!(kiln::from_slice::<f32>(&bytes).unwrap().to_bits(), bits);
        assert_eq!(
            kiln::from_reader::<_, f32>(&bytes[..]).unwrap().to_bits(),
            bits
        );
    }
    let f64_bits = [
        0x8000_0000_0000_0000u64,
        0x7ff8_0000_0000_0000,
        0x7ff8_dead_beef_0001,
        0x7ff0_0000_0000_0001,
        0xfff0_0000_0000_0002,
        0x0000_0000_0000_0001,
    ];
    for bits in f64_bits {
        let v = f64::from_bits(bits);
        let bytes = kiln::to_vec(&v).unwrap();
        assert_eq!(bytes, bits.to_le_bytes());
        assert_eq!(kiln::from_slice::<f64>(&bytes).unwrap().to_bits(), bits);
        assert_eq!(
            kiln::from_reader::<_, f64>(&bytes[..]).unwrap().to_bits(),
            bits
        );
    }
    // Inside a structure too.
    let v = (f32::from_bits(0x7fc0_0001), -0.0f64);
    let (a, b): (f32, f64) = kiln::from_slice(&kiln::to_vec(&v).unwrap()).unwrap();
    assert_eq!(a.to_bits(), 0x7fc0_0001);
    assert_eq!(b.to_bits(), 0x8000_0000_0000_0000);
}

#[test]
fn char_row() {
    both_ways('A', "41 00 00 00");
    both_ways('€', "ac 20 00 00");
    both_ways('\u{D7FF}', "ff d7 00 00");
    both_ways('\u{E000}', "00 e0 00 00");
    both_ways('\u{10FFFF}', "ff ff 10 00");
}

#[test]
fn string_row() {
    both_ways(String::new(), "00 00 00 00");
    both_ways("hi".to_string(), "02 00 00 00 68 69");
    both_ways("é".to_string(), "02 00 00 00 c3 a9");
    // Borrowed &str: the same bytes, and the value points into the input.
    let bytes = hex("02 00 00 00 68 69");
    writes("hi", &bytes);
    let s: &str = kiln::from_slice(&bytes).unwrap();
    assert_eq!(s, "hi");
    assert_eq!(s.as_ptr(), bytes[4..].as_ptr());
}

#[test]
fn bytes_row() {
    both_ways(ByteBuf::from(vec![]), "00 00 00 00");
    both_ways(ByteBuf::from(vec![1, 2, 0xff]), "03 00 00 00 01 02 ff");
    // Borrowed &[u8] through serde_bytes.
    let bytes = hex("03 00 00 00 01 02 ff");
    writes(serde_bytes::Bytes::new(&[1, 2, 0xff]), &bytes);
    let b: &[u8] = kiln::from_slice(&bytes).unwrap();
    assert_eq!(b, [1, 2, 0xff]);
    assert_eq!(b.as_ptr(), bytes[4..].as_ptr());
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Blob<'a> {
        #[serde(borrow, with = "serde_bytes")]
        data: &'a [u8],
    }
    let blob: Blob<'_> = kiln::from_slice(&bytes).unwrap();
    assert_eq!(blob.data.as_ptr(), bytes[4..].as_ptr());
    writes(&blob, &bytes);
}

#[test]
fn option_row() {
    both_ways(None::<u8>, "00");
    both_ways(Some(5u8), "01 05");
    both_ways(Some(String::from("a")), "01 01 00 00 00 61");
    both_ways(None::<Option<u8>>, "00");
    both_ways(Some(None::<u8>), "01 00");
    both_ways(Some(Some(1u8)), "01 01 01");
    both_ways(Some(Some(Some(()))), "01 01 01");
}

#[test]
fn unit_rows() {
    both_ways((), "");
    both_ways(UnitStruct, "");
    both_ways(vec![(), ()], "02 00 00 00");
    both_ways((1u8, (), UnitStruct, 2u8), "01 02");
}

#[test]
fn newtype_struct_row() {
    both_ways(Meters(1.0), "00 00 00 00 00 00 f0 3f");
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Name(String);
    both_ways(Name("hi".into()), "02 00 00 00 68 69");
}

#[test]
fn enum_rows() {
    both_ways(Shape::Empty, "00 00 00 00");
    both_ways(Shape::Circle(1.0), "01 00 00 00 00 00 80 3f");
    both_ways(Shape::Rect(1, 2), "02 00 00 00 01 00 02 00");
    both_ways(
        Shape::Poly {
            sides: 3,
            name: "a".into(),
        },
        "03 00 00 00 03 01 00 00 00 61",
    );
    // The index is serde's variant index, whatever the discriminant.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Sparse {
        A = 10,
        B = 20,
    }
    both_ways(Sparse::B, "01 00 00 00");
    both_ways(Sparse::A, "00 00 00 00");
    // Result is an enum too.
    both_ways(Ok::<u8, String>(4), "00 00 00 00 04");
    both_ways(Err::<u8, String>("e".into()), "01 00 00 00 01 00 00 00 65");
}

#[test]
fn seq_rows() {
    both_ways(Vec::<u16>::new(), "00 00 00 00");
    both_ways(vec![1u16, 2], "02 00 00 00 01 00 02 00");
    both_ways(vec![1.0f32, -2.0], "02 00 00 00 00 00 80 3f 00 00 00 c0");
    both_ways(VecDeque::from(vec![7i8, -7]), "02 00 00 00 07 f9");
    both_ways(
        ["b", "a"]
            .iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<_>>(),
        "02 00 00 00 01 00 00 00 61 01 00 00 00 62",
    );
    both_ways(
        vec![vec![1u8], vec![]],
        "02 00 00 00 01 00 00 00 01 00 00 00 00",
    );
    // A slice writes as a sequence.
    writes(&[3u8, 4][..], &hex("02 00 00 00 03 04"));
}

#[test]
fn tuple_rows() {
    both_ways((1u8, 2u16), "01 02 00");
    both_ways((1u8, ("x".to_string(), true)), "01 01 00 00 00 78 01");
    both_ways(Pair(-1, 'a'), "ff ff 61 00 00 00");
    both_ways([1u16, 2, 3], "01 00 02 00 03 00");
    both_ways([[1u8, 2], [3, 4]], "01 02 03 04");
    both_ways([0u8; 0], "");
}

#[test]
fn map_rows() {
    both_ways(BTreeMap::<u8, u8>::new(), "00 00 00 00");
    both_ways(
        [(2u8, true), (1, false)]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
        "02 00 00 00 01 00 02 01",
    );
    both_ways(
        [("k".to_string(), 5u16)]
            .into_iter()
            .collect::<HashMap<_, _>>(),
        "01 00 00 00 01 00 00 00 6b 05 00",
    );
}

#[test]
fn struct_rows() {
    both_ways(Point { x: 9, y: -4 }, "09 00 00 00 fc ff ff ff");
    both_ways(Message { text: "hi".into() }, "02 00 00 00 68 69");
    both_ways(
        Inner {
            id: 1,
            tags: vec!["a".into()],
            at: Point { x: 2, y: 3 },
        },
        "01 00 00 00 01 00 00 00 01 00 00 00 61 02 00 00 00 03 00 00 00",
    );
}

// ----- unknown lengths -----

/// Writes its elements with `serialize_seq(None)`.
struct UnknownSeq<T>(Vec<T>);

impl<T: Serialize> Serialize for UnknownSeq<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for e in &self.0 {
            seq.serialize_element(e)?;
        }
        seq.end()
    }
}

/// Writes its entries with `serialize_map(None)`, key and value apart.
struct UnknownMap<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for UnknownMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (k, v) in &self.0 {
            map.serialize_key(k)?;
            map.serialize_value(v)?;
        }
        map.end()
    }
}

#[test]
fn unknown_length_seq_and_map_get_their_count() {
    let bytes = hex("03 00 00 00 01 02 03");
    writes(&UnknownSeq(vec![1u8, 2, 3]), &bytes);
    assert_eq!(kiln::from_slice::<Vec<u8>>(&bytes).unwrap(), [1, 2, 3]);

    writes(&UnknownSeq(Vec::<u8>::new()), &hex("00 00 00 00"));

    let bytes = hex("02 00 00 00 01 0a 00 02 14 00");
    writes(&UnknownMap(vec![(1u8, 10u16), (2, 20)]), &bytes);
    let m: BTreeMap<u8, u16> = kiln::from_slice(&bytes).unwrap();
    assert_eq!(m, [(1, 10), (2, 20)].into_iter().collect());
}

#[test]
fn nested_unknown_lengths_get_their_counts() {
    // Unknown inside unknown.
    let v = UnknownSeq(vec![
        UnknownSeq(vec![1u8]),
        UnknownSeq(vec![]),
        UnknownSeq(vec![2, 3]),
    ]);
    let bytes = hex("03 00 00 00  01 00 00 00 01  00 00 00 00  02 00 00 00 02 03");
    writes(&v, &bytes);
    assert_eq!(
        kiln::from_slice::<Vec<Vec<u8>>>(&bytes).unwrap(),
        vec![vec![1], vec![], vec![2, 3]]
    );

    // A map of unknown length whose values are unknown-length sequences.
    let v = UnknownMap(vec![(1u8, UnknownSeq(vec![9u8])), (2, UnknownSeq(vec![]))]);
    let bytes = hex("02 00 00 00  01 01 00 00 00 09  02 00 00 00 00");
    writes(&v, &bytes);

    // Known lengths around and between unknown ones, and siblings: the
    // stream writer must keep everything in order.
    let v = (
        7u8,
        UnknownSeq(vec![1u8]),
        vec![UnknownSeq(vec![2u8, 3]), UnknownSeq(vec![])],
        UnknownSeq(vec![vec![4u8]]),
        8u8,
    );
    let bytes = hex(
        "07  01 00 00 00 01  02 00 00 00 02 00 00 00 02 03 00 00 00 00  \
         01 00 00 00 01 00 00 00 04  08",
    );
    writes(&v, &bytes);
    type Back = (u8, Vec<u8>, Vec<Vec<u8>>, Vec<Vec<u8>>, u8);
    let back: Back = kiln::from_slice(&bytes).unwrap();
    assert_eq!(
        back,
        (7, vec![1], vec![vec![2, 3], vec![]], vec![vec![4]], 8)
    );

    // Deep nesting of unknown lengths.
    let v = UnknownSeq(vec![UnknownSeq(vec![UnknownSeq(vec![UnknownSeq(vec![
        5u8,
    ])])])]);
    writes(
        &v,
        &hex("01 00 00 00 01 00 00 00 01 00 00 00 01 00 00 00 05"),
    );
}

#[test]
fn to_writer_on_a_real_io_writer() {
    // A writer that is not a Vec: bytes must arrive in order.
    let v = (UnknownSeq(vec![1u8, 2]), 3u8, UnknownSeq(vec![4u8]));
    let mut cursor = std::io::Cursor::new(Vec::new());
    kiln::to_writer(&mut cursor, &v).unwrap();
    assert_eq!(
        cursor.into_inner(),
        hex("02 00 00 00 01 02 03 01 00 00 00 04")
    );
    // A writer that fails reports an I/O error.
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = kiln::to_writer(Broken, &Point { x: 1, y: 2 }).unwrap_err();
    assert_eq!(err.kind().code(), "io");
    assert_eq!(err.to_string(), "I/O error: disk on fire");
    let err = kiln::to_writer(Broken, &UnknownSeq(vec![1u8])).unwrap_err();
    assert_eq!(err.kind().code(), "io");
}

// ----- write-side errors -----

/// Declares `declared` elements and writes `written`.
struct Liar {
    declared: usize,
    written: usize,
    map: bool,
}

impl Serialize for Liar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.map {
            let mut m = s.serialize_map(Some(self.declared))?;
            for i in 0..self.written {
                m.serialize_entry(&(i as u8), &())?;
            }
            m.end()
        } else {
            let mut seq = s.serialize_seq(Some(self.declared))?;
            for i in 0..self.written {
                seq.serialize_element(&(i as u8))?;
            }
            seq.end()
        }
    }
}

fn write_error<T: Serialize>(value: &T) -> kiln::Error {
    let a = kiln::to_vec(value).unwrap_err();
    let b = kiln::to_writer(Vec::new(), value).unwrap_err();
    let c = kiln::serialized_size(value).unwrap_err();
    assert_eq!(a.to_string(), b.to_string());
    assert_eq!(a.to_string(), c.to_string());
    assert_eq!(a.offset(), None, "encoding errors have no offset");
    a
}

#[test]
fn declared_length_must_match_written_length() {
    for map in [false, true] {
        let err = write_error(&Liar {
            declared: 3,
            written: 2,
            map,
        });
        assert_eq!(err.kind().code(), "length-mismatch");
        assert_eq!(
            err.to_string(),
            "length mismatch: declared 3 elements, found 2"
        );
        let err = write_error(&Liar {
            declared: 0,
            written: 1,
            map,
        });
        assert_eq!(err.kind().code(), "length-mismatch");
        assert_eq!(
            err.to_string(),
            "length mismatch: declared 0 elements, found 1"
        );
        // Telling the truth works.
        let ok = Liar {
            declared: 2,
            written: 2,
            map,
        };
        assert!(kiln::to_vec(&ok).is_ok());
    }
    // Inside an unknown-length sequence too.
    let err = write_error(&UnknownSeq(vec![Liar {
        declared: 1,
        written: 0,
        map: false,
    }]));
    assert_eq!(err.kind().code(), "length-mismatch");
}

#[test]
fn skip_serializing_if_is_refused_naming_the_field() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Config {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        comment: Option<String>,
    }
    let err = write_error(&Config {
        name: "a".into(),
        comment: None,
    });
    assert_eq!(err.kind().code(), "skipped-field");
    assert_eq!(
        err.to_string(),
        "field `Config.comment` was skipped (skip_serializing_if?): \
         a positional reader cannot know that a field is missing"
    );
    match err.kind() {
        kiln::ErrorKind::SkippedField { container, field } => {
            assert_eq!((*container, *field), ("Config", "comment"));
        }
        other => panic!("unexpected {other:?}"),
    }
    // Present, the field is written and read normally.
    both_ways(
        Config {
            name: "a".into(),
            comment: Some("b".into()),
        },
        "01 00 00 00 61 01 01 00 00 00 62",
    );

    // In a struct variant the error names the enum and the field.
    #[derive(Serialize)]
    enum Event {
        Note {
            #[serde(skip_serializing_if = "Vec::is_empty")]
            tags: Vec<u8>,
        },
    }
    let err = write_error(&Event::Note { tags: vec![] });
    assert_eq!(err.kind().code(), "skipped-field");
    assert!(err.to_string().contains("`Event.tags`"), "{err}");
}

/// Claims a length that does not fit in 32 bits, without holding it.
struct Huge {
    map: bool,
}

impl Serialize for Huge {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = u32::MAX as usize + 1;
        if self.map {
            s.serialize_map(Some(len))?.end()
        } else {
            s.serialize_seq(Some(len))?.end()
        }
    }
}

#[test]
fn lengths_above_u32_max_are_refused() {
    for map in [false, true] {
        let err = write_error(&Huge { map });
        assert_eq!(err.kind().code(), "count-overflow");
        assert_eq!(
            err.to_string(),
            "length 4294967296 does not fit in the 32-bit count"
        );
    }
    // u32::MAX itself fits: the count is written, then the (lying) impl is
    // caught by the length check.
    struct Max;
    impl Serialize for Max {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_seq(Some(u32::MAX as usize))?.end()
        }
    }
    let err = write_error(&Max);
    assert_eq!(
        err.to_string(),
        "length mismatch: declared 4294967295 elements, found 0"
    );
}

/// Records what `is_human_readable` said on each side.
#[derive(Debug, PartialEq)]
struct HumanReadable(bool);

impl Serialize for HumanReadable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let hr = s.is_human_readable();
        s.serialize_bool(hr)
    }
}

impl<'de> Deserialize<'de> for HumanReadable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let hr = d.is_human_readable();
        let written = bool::deserialize(d)?;
        assert!(!written, "the serializer said it was human readable");
        Ok(HumanReadable(hr))
    }
}

#[test]
fn neither_side_is_human_readable() {
    writes(&HumanReadable(false), &[0]);
    assert_eq!(
        kiln::from_slice::<HumanReadable>(&[0]).unwrap(),
        HumanReadable(false)
    );
    assert_eq!(
        kiln::from_reader::<_, HumanReadable>(&[0u8][..]).unwrap(),
        HumanReadable(false)
    );
    // Which is why std types pick their compact forms: an IPv4 address is
    // four bytes, not a string.
    both_ways(std::net::Ipv4Addr::new(127, 0, 0, 1), "7f 00 00 01");
}

#[test]
fn public_serializer_and_deserializer() {
    let mut buf = Vec::new();
    let mut ser = kiln::Serializer::new(&mut buf);
    Point { x: 9, y: -4 }.serialize(&mut ser).unwrap();
    "hi".serialize(&mut ser).unwrap();
    assert_eq!(buf, hex("09 00 00 00 fc ff ff ff 02 00 00 00 68 69"));

    let mut de = kiln::Deserializer::from_slice(&buf);
    assert_eq!(Point::deserialize(&mut de).unwrap(), Point { x: 9, y: -4 });
    assert_eq!(de.offset(), 8);
    assert_eq!(<&str>::deserialize(&mut de).unwrap(), "hi");
    de.end().unwrap();

    let mut de = kiln::Deserializer::from_reader(&buf[..]);
    assert_eq!(Point::deserialize(&mut de).unwrap(), Point { x: 9, y: -4 });
    let err = de.end().unwrap_err();
    assert_eq!(err.kind().code(), "trailing-bytes");
    assert_eq!(err.offset(), Some(8));
}

#[test]
fn map_entries_must_be_whole() {
    /// Writes a key without its value, or a value without its key.
    struct HalfEntry {
        key_only: bool,
    }
    impl Serialize for HalfEntry {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            if self.key_only {
                m.serialize_key(&1u8)?;
            } else {
                m.serialize_value(&1u8)?;
            }
            m.end()
        }
    }
    for key_only in [true, false] {
        let err = write_error(&HalfEntry { key_only });
        assert_eq!(err.kind().code(), "map-entry-incomplete");
        assert_eq!(
            err.to_string(),
            "map entry written without its key or its value"
        );
    }
}

#[test]
fn fields_skipped_both_ways_are_neither_written_nor_read() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Cache {
        id: u8,
        #[serde(skip)]
        memo: Option<String>,
        len: u16,
    }
    let bytes = hex("07 03 00");
    writes(
        &Cache {
            id: 7,
            memo: Some("not written".into()),
            len: 3,
        },
        &bytes,
    );
    assert_eq!(
        kiln::from_slice::<Cache>(&bytes).unwrap(),
        Cache {
            id: 7,
            memo: None,
            len: 3
        }
    );
}

/// `to_vec_into` lends the buffer to a serializer that owns it for the
/// call (`src/ser.rs`, `append_to_vec`); the buffer must come back with
/// what it held and what was written before the failure, whether
/// `serialize` returns an error or panics.
#[test]
fn to_vec_into_grows_for_an_impl_that_writes_more_each_time() {
    // Each call writes one more byte than the last: the measured size is
    // too small for the second attempt, and the growing path takes over.
    struct Growing(std::cell::Cell<usize>);
    impl Serialize for Growing {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let n = self.0.get() + 1;
            self.0.set(n);
            s.collect_seq((0..n).map(|i| i as u8).filter(|_| true))
        }
    }
    let value = Growing(std::cell::Cell::new(100));
    let mut buf = vec![9u8];
    kiln::to_vec_into(&value, &mut buf).unwrap();
    // Three calls: into the spare capacity (none), measuring, the second
    // attempt (one byte over the measure), then growing: the fourth value.
    assert_eq!(value.0.get(), 104);
    assert_eq!(buf[..5], [9, 104, 0, 0, 0]);
    assert_eq!(buf.len(), 1 + 4 + 104);
}

#[test]
fn to_vec_into_gives_the_buffer_back_after_an_error_or_a_panic() {
    // Both the path into spare capacity (with room) and the growing one
    // (without) leave only the earlier bytes.
    /// Writes a `u16`, then fails or panics.
    struct Breaks {
        panic: bool,
    }
    impl Serialize for Breaks {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::{Error, SerializeTuple};
            let mut t = s.serialize_tuple(2)?;
            t.serialize_element(&0x0201u16)?;
            if self.panic {
                panic!("on purpose");
            }
            Err(S::Error::custom("on purpose"))
        }
    }

    let mut buf = vec![0xaa, 0xbb];
    let err = kiln::to_vec_into(&Breaks { panic: false }, &mut buf).unwrap_err();
    assert_eq!(err.to_string(), "on purpose");
    assert_eq!(buf, [0xaa, 0xbb]);

    let mut buf = Vec::with_capacity(64);
    buf.extend_from_slice(&[0xcc]);
    let capacity = buf.capacity();
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        kiln::to_vec_into(&Breaks { panic: true }, &mut buf)
    }));
    assert!(unwound.is_err());
    assert_eq!(buf, [0xcc]);
    assert_eq!(buf.capacity(), capacity, "the same allocation came back");

    // And after a success, the same allocation holds the new bytes.
    kiln::to_vec_into(&7u8, &mut buf).unwrap();
    assert_eq!((buf.as_slice(), buf.capacity()), (&[0xcc, 7][..], capacity));
}
