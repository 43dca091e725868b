//! A rich type that uses every serde kind, with bit-exact (NaN-aware)
//! equality, sample values, and readers/writers that move a few bytes at a
//! time. Shared by the bound tests (`tests/bounds.rs`) and the fuzz targets
//! (`fuzz/src/lib.rs` includes this file), so both exercise the same type.

use std::collections::{BTreeMap, HashMap};
use std::io;

use arbitrary::Arbitrary;
use serde::{Deserialize, Serialize, Serializer};

// ---------------------------------------------------------------------------
// The rich type
// ---------------------------------------------------------------------------

/// A unit struct: nothing on the wire.
#[derive(
    Serialize, Deserialize, Arbitrary, Debug, Clone, Copy, PartialEq, Eq, Hash, kiln::Schema,
)]
pub struct Unit;

/// A newtype struct around an `f64`.
#[derive(Serialize, Deserialize, Arbitrary, Debug, Clone, Copy, kiln::Schema)]
pub struct Meters(pub f64);

/// A tuple struct.
#[derive(Serialize, Deserialize, Arbitrary, Debug, Clone, Copy, kiln::Schema)]
pub struct Pair(pub i16, pub char);

/// A plain struct, as in the spec's golden files.
#[derive(Serialize, Deserialize, Arbitrary, Debug, Clone, Copy, PartialEq, Eq, kiln::Schema)]
pub struct Point {
    /// Horizontal.
    pub x: i32,
    /// Vertical.
    pub y: i32,
}

/// An enum with every variant kind, and a recursive one.
#[derive(Serialize, Deserialize, Arbitrary, Debug, Clone, kiln::Schema)]
pub enum Shape {
    /// Unit variant.
    Empty,
    /// Newtype variant.
    Circle(f32),
    /// Tuple variant.
    Line(i64, i64, Option<u8>),
    /// Struct variant.
    Poly {
        /// Corners.
        points: Vec<(i32, i32)>,
        /// Whether the last corner joins the first.
        closed: bool,
    },
    /// Recursive newtype variant.
    Nested(Box<Shape>),
}

/// A recursive type nesting through sequences and options.
#[derive(Serialize, Deserialize, Arbitrary, Debug, Clone, kiln::Schema)]
pub enum Tree {
    /// A leaf.
    Leaf(u8),
    /// Children.
    Node(Vec<Tree>),
    /// An optional boxed child.
    Maybe(Option<Box<Tree>>),
}

/// An owned byte string (`serialize_bytes`, read from readers).
#[derive(Serialize, Deserialize, Arbitrary, Debug, Clone, PartialEq, Eq, kiln::Schema)]
pub struct Blob(#[serde(with = "serde_bytes")] pub Vec<u8>);

/// A borrowed byte string (read from slices without copying); serde
/// calls it `Blob` too, so that [`RichRef`] has [`RichOwned`]'s schema and
/// frames of either read as the other.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, kiln::Schema)]
#[serde(rename = "Blob")]
pub struct BlobRef<'a>(
    #[serde(with = "serde_bytes")]
    #[serde(borrow)]
    pub &'a [u8],
);

/// A sequence written with an unknown length (`serialize_seq(None)`), so
/// the serializer must patch the count in afterwards; read as a plain `Vec`.
#[derive(Deserialize, Arbitrary, Debug, Clone, kiln::Schema)]
#[serde(transparent)]
pub struct UnsizedSeq<T>(pub Vec<T>);

impl<T: Serialize> Serialize for UnsizedSeq<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // A filter's size hint is not exact, so serde passes `None`.
        s.collect_seq(self.0.iter().filter(|_| true))
    }
}

/// A map written with an unknown length (`serialize_map(None)`).
#[derive(Deserialize, Arbitrary, Debug, Clone, kiln::Schema)]
#[serde(transparent)]
pub struct UnsizedMap<K: Ord, V>(pub BTreeMap<K, V>);

impl<K: Ord + Serialize, V: Serialize> Serialize for UnsizedMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().filter(|_| true))
    }
}

/// One type that uses every serde kind. `S` is the string type and `B` the
/// byte-string type, so the same layout is read borrowed ([`RichRef`], from
/// slices) and owned ([`RichOwned`], from readers and for `arbitrary`).
#[derive(Serialize, Deserialize, Arbitrary, Debug, Clone, kiln::Schema)]
pub struct Rich<S, B> {
    /// bool
    pub flag: bool,
    /// i8, u8
    pub small: (i8, u8),
    /// i16, u16, i32, u32
    pub mid: (i16, u16, i32, u32),
    /// i64, u64, and usize/isize (8 bytes)
    pub big: (i64, u64, usize, isize),
    /// i128, u128
    pub huge: (i128, u128),
    /// f32, f64
    pub floats: (f32, f64),
    /// char
    pub letter: char,
    /// A string, borrowed in [`RichRef`].
    pub text: S,
    /// Strings in a sequence.
    pub texts: Vec<S>,
    /// Nested options around a string.
    pub maybe_text: Option<Option<S>>,
    /// A byte string, borrowed in [`RichRef`].
    pub blob: B,
    /// An owned string even in [`RichRef`].
    pub owned_text: String,
    /// unit
    pub unit: (),
    /// unit struct
    pub unit_struct: Unit,
    /// newtype struct
    pub meters: Meters,
    /// tuple struct
    pub pair: Pair,
    /// struct
    pub point: Point,
    /// array
    pub array: [u16; 3],
    /// empty array (a tuple of length 0)
    pub empty_array: [u8; 0],
    /// enum, every variant kind
    pub shapes: Vec<Shape>,
    /// recursive enum
    pub tree: Tree,
    /// three options deep
    pub nested_options: Option<Option<Option<i32>>>,
    /// map with string keys
    pub by_name: BTreeMap<String, Vec<u8>>,
    /// hash map with enum values
    pub by_id: HashMap<u32, Shape>,
    /// nested vectors
    pub grid: Vec<Vec<Vec<i16>>>,
    /// f32 block
    pub f32s: Vec<f32>,
    /// f64 block
    pub f64s: Vec<f64>,
    /// u64 block
    pub u64s: Vec<u64>,
    /// i128 block
    pub i128s: Vec<i128>,
    /// boxed slice
    pub boxed: Box<[i32]>,
    /// zero-sized elements: unit
    pub units: Vec<()>,
    /// zero-sized elements: unit struct
    pub unit_structs: Vec<Unit>,
    /// zero-sized elements: empty arrays
    pub zero_arrays: Vec<[u8; 0]>,
    /// sequences of unknown length, nested
    pub unsized_seq: UnsizedSeq<UnsizedSeq<u16>>,
    /// map of unknown length
    pub unsized_map: UnsizedMap<u8, i64>,
}

/// The owned form: from readers, and built by `arbitrary`.
pub type RichOwned = Rich<String, Blob>;
/// The borrowed form: strings and byte strings point into the input.
pub type RichRef<'a> = Rich<&'a str, BlobRef<'a>>;

impl<S, B> Rich<S, B> {
    /// The same value with its strings and byte strings converted.
    pub fn map<S2, B2>(self, fs: impl Fn(S) -> S2, fb: impl Fn(B) -> B2) -> Rich<S2, B2> {
        Rich {
            flag: self.flag,
            small: self.small,
            mid: self.mid,
            big: self.big,
            huge: self.huge,
            floats: self.floats,
            letter: self.letter,
            text: fs(self.text),
            texts: self.texts.into_iter().map(&fs).collect(),
            maybe_text: self.maybe_text.map(|o| o.map(&fs)),
            blob: fb(self.blob),
            owned_text: self.owned_text,
            unit: self.unit,
            unit_struct: self.unit_struct,
            meters: self.meters,
            pair: self.pair,
            point: self.point,
            array: self.array,
            empty_array: self.empty_array,
            shapes: self.shapes,
            tree: self.tree,
            nested_options: self.nested_options,
            by_name: self.by_name,
            by_id: self.by_id,
            grid: self.grid,
            f32s: self.f32s,
            f64s: self.f64s,
            u64s: self.u64s,
            i128s: self.i128s,
            boxed: self.boxed,
            units: self.units,
            unit_structs: self.unit_structs,
            zero_arrays: self.zero_arrays,
            unsized_seq: self.unsized_seq,
            unsized_map: self.unsized_map,
        }
    }
}

impl RichRef<'_> {
    /// Copies the borrowed strings and byte strings out of the input.
    pub fn to_owned_rich(&self) -> RichOwned {
        self.clone()
            .map(|s| s.to_owned(), |b: BlobRef<'_>| Blob(b.0.to_vec()))
    }
}

// ---------------------------------------------------------------------------
// Bit-exact equality
// ---------------------------------------------------------------------------

/// Equality in which floats compare by bit pattern: NaN equals the same NaN
/// (payload included), and `0.0` differs from `-0.0`. Kiln promises every
/// float pattern round-trips exactly, so this is the equality to check.
pub trait BitEq {
    /// Whether `self` and `other` are the same value, bit for bit in floats.
    fn bit_eq(&self, other: &Self) -> bool;
}

macro_rules! bit_eq_by_partial_eq {
    ($($t:ty),*) => {$(
        impl BitEq for $t {
            fn bit_eq(&self, other: &Self) -> bool { self == other }
        }
    )*};
}
bit_eq_by_partial_eq!(
    bool,
    i8,
    u8,
    i16,
    u16,
    i32,
    u32,
    i64,
    u64,
    i128,
    u128,
    usize,
    isize,
    char,
    (),
    str,
    String,
    Unit,
    Point,
    Blob
);
impl BitEq for BlobRef<'_> {
    fn bit_eq(&self, other: &Self) -> bool {
        self == other
    }
}

impl BitEq for f32 {
    fn bit_eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}
impl BitEq for f64 {
    fn bit_eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}
impl<T: BitEq + ?Sized> BitEq for &T {
    fn bit_eq(&self, other: &Self) -> bool {
        (**self).bit_eq(&**other)
    }
}
impl<T: BitEq + ?Sized> BitEq for Box<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        (**self).bit_eq(&**other)
    }
}
impl<T: BitEq> BitEq for [T] {
    fn bit_eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.bit_eq(b))
    }
}
impl<T: BitEq, const N: usize> BitEq for [T; N] {
    fn bit_eq(&self, other: &Self) -> bool {
        self[..].bit_eq(&other[..])
    }
}
impl<T: BitEq> BitEq for Vec<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        self[..].bit_eq(&other[..])
    }
}
impl<T: BitEq> BitEq for Option<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        match (self, other) {
            (None, None) => true,
            (Some(a), Some(b)) => a.bit_eq(b),
            _ => false,
        }
    }
}
impl<K: Eq, V: BitEq> BitEq for BTreeMap<K, V> {
    fn bit_eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other)
                .all(|((k1, v1), (k2, v2))| k1 == k2 && v1.bit_eq(v2))
    }
}
impl<K: Eq + std::hash::Hash, V: BitEq> BitEq for HashMap<K, V> {
    fn bit_eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(k, v)| other.get(k).is_some_and(|w| v.bit_eq(w)))
    }
}
macro_rules! bit_eq_tuple {
    ($(($($i:tt $t:ident),+))*) => {$(
        impl<$($t: BitEq),+> BitEq for ($($t,)+) {
            fn bit_eq(&self, other: &Self) -> bool {
                $(self.$i.bit_eq(&other.$i))&&+
            }
        }
    )*};
}
bit_eq_tuple! {
    (0 A, 1 B)
    (0 A, 1 B, 2 C)
    (0 A, 1 B, 2 C, 3 D)
}

impl BitEq for Meters {
    fn bit_eq(&self, other: &Self) -> bool {
        self.0.bit_eq(&other.0)
    }
}
impl BitEq for Pair {
    fn bit_eq(&self, other: &Self) -> bool {
        self.0 == other.0 && self.1 == other.1
    }
}
impl BitEq for Shape {
    fn bit_eq(&self, other: &Self) -> bool {
        use Shape::*;
        match (self, other) {
            (Empty, Empty) => true,
            (Circle(a), Circle(b)) => a.bit_eq(b),
            (Line(a, b, c), Line(d, e, f)) => a == d && b == e && c == f,
            (
                Poly { points, closed },
                Poly {
                    points: p2,
                    closed: c2,
                },
            ) => points.bit_eq(p2) && closed == c2,
            (Nested(a), Nested(b)) => a.bit_eq(b),
            _ => false,
        }
    }
}
impl BitEq for Tree {
    fn bit_eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Tree::Leaf(a), Tree::Leaf(b)) => a == b,
            (Tree::Node(a), Tree::Node(b)) => a.bit_eq(b),
            (Tree::Maybe(a), Tree::Maybe(b)) => a.bit_eq(b),
            _ => false,
        }
    }
}
impl<T: BitEq> BitEq for UnsizedSeq<T> {
    fn bit_eq(&self, other: &Self) -> bool {
        self.0.bit_eq(&other.0)
    }
}
impl<K: Ord, V: BitEq> BitEq for UnsizedMap<K, V> {
    fn bit_eq(&self, other: &Self) -> bool {
        self.0.bit_eq(&other.0)
    }
}

impl<S: BitEq, B: BitEq> BitEq for Rich<S, B> {
    fn bit_eq(&self, o: &Self) -> bool {
        self.flag == o.flag
            && self.small.bit_eq(&o.small)
            && self.mid.bit_eq(&o.mid)
            && self.big.bit_eq(&o.big)
            && self.huge.bit_eq(&o.huge)
            && self.floats.bit_eq(&o.floats)
            && self.letter == o.letter
            && self.text.bit_eq(&o.text)
            && self.texts.bit_eq(&o.texts)
            && self.maybe_text.bit_eq(&o.maybe_text)
            && self.blob.bit_eq(&o.blob)
            && self.owned_text == o.owned_text
            && self.unit_struct == o.unit_struct
            && self.meters.bit_eq(&o.meters)
            && self.pair.bit_eq(&o.pair)
            && self.point == o.point
            && self.array == o.array
            && self.shapes.bit_eq(&o.shapes)
            && self.tree.bit_eq(&o.tree)
            && self.nested_options == o.nested_options
            && self.by_name == o.by_name
            && self.by_id.bit_eq(&o.by_id)
            && self.grid == o.grid
            && self.f32s.bit_eq(&o.f32s)
            && self.f64s.bit_eq(&o.f64s)
            && self.u64s == o.u64s
            && self.i128s == o.i128s
            && self.boxed == o.boxed
            && self.units == o.units
            && self.unit_structs == o.unit_structs
            && self.zero_arrays.len() == o.zero_arrays.len()
            && self.unsized_seq.bit_eq(&o.unsized_seq)
            && self.unsized_map.bit_eq(&o.unsized_map)
    }
}

// ---------------------------------------------------------------------------
// Readers and writers that move a few bytes at a time
// ---------------------------------------------------------------------------

/// An `io::Read` over a slice that hands out 1 to 7 bytes per call, so that
/// every value straddles the reader's buffer refills somewhere.
pub struct Trickle<'a> {
    data: &'a [u8],
    calls: usize,
}

impl<'a> Trickle<'a> {
    /// Reads `data`, a few bytes per call.
    pub fn new(data: &'a [u8]) -> Self {
        Trickle { data, calls: 0 }
    }
}

impl io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = (1 + self.calls % 7).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// An `io::Write` that accepts 1 to 5 bytes per call.
#[derive(Default)]
pub struct TrickleWriter {
    /// Everything written.
    pub bytes: Vec<u8>,
    calls: usize,
}

impl io::Write for TrickleWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = (1 + self.calls % 5).min(buf.len());
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Sample values, for seeds
// ---------------------------------------------------------------------------

/// A few hand-made values of [`RichOwned`] whose encodings seed the corpora.
pub fn sample_values() -> Vec<RichOwned> {
    let empty = Rich {
        flag: false,
        small: (0, 0),
        mid: (0, 0, 0, 0),
        big: (0, 0, 0, 0),
        huge: (0, 0),
        floats: (0.0, 0.0),
        letter: 'a',
        text: String::new(),
        texts: vec![],
        maybe_text: None,
        blob: Blob(vec![]),
        owned_text: String::new(),
        unit: (),
        unit_struct: Unit,
        meters: Meters(0.0),
        pair: Pair(0, 'b'),
        point: Point { x: 9, y: -4 },
        array: [0; 3],
        empty_array: [],
        shapes: vec![],
        tree: Tree::Leaf(0),
        nested_options: None,
        by_name: BTreeMap::new(),
        by_id: HashMap::new(),
        grid: vec![],
        f32s: vec![],
        f64s: vec![],
        u64s: vec![],
        i128s: vec![],
        boxed: Box::new([]),
        units: vec![],
        unit_structs: vec![],
        zero_arrays: vec![],
        unsized_seq: UnsizedSeq(vec![]),
        unsized_map: UnsizedMap(BTreeMap::new()),
    };
    let full = Rich {
        flag: true,
        small: (-1, 255),
        mid: (-300, 60000, -70000, 4_000_000_000),
        big: (i64::MIN, u64::MAX, 7, -7),
        huge: (i128::MIN, u128::MAX),
        floats: (f32::from_bits(0x7fc0_0001), -0.0),
        letter: '\u{10ffff}',
        text: "hi".into(),
        texts: vec!["ü".into(), String::new(), "kiln".into()],
        maybe_text: Some(Some("nested".into())),
        blob: Blob(vec![0, 1, 0xff]),
        owned_text: "owned".into(),
        unit: (),
        unit_struct: Unit,
        meters: Meters(f64::NAN),
        pair: Pair(-2, 'ß'),
        point: Point { x: 9, y: -4 },
        array: [1, 2, 3],
        empty_array: [],
        shapes: vec![
            Shape::Empty,
            Shape::Circle(1.5),
            Shape::Line(-1, 1, Some(3)),
            Shape::Poly {
                points: vec![(0, 0), (1, 2)],
                closed: true,
            },
            Shape::Nested(Box::new(Shape::Nested(Box::new(Shape::Empty)))),
        ],
        tree: Tree::Node(vec![
            Tree::Leaf(1),
            Tree::Maybe(Some(Box::new(Tree::Node(vec![])))),
            Tree::Maybe(None),
        ]),
        nested_options: Some(Some(None)),
        by_name: [("a".to_string(), vec![1]), ("b".to_string(), vec![])].into(),
        by_id: [(1, Shape::Empty), (2, Shape::Circle(-0.0))].into(),
        grid: vec![vec![vec![1, -1], vec![]], vec![]],
        f32s: vec![1.0, -2.0],
        f64s: vec![f64::INFINITY, f64::MIN_POSITIVE],
        u64s: vec![1, u64::MAX],
        i128s: vec![-1],
        boxed: Box::new([5, -5]),
        units: vec![(); 3],
        unit_structs: vec![Unit; 2],
        zero_arrays: vec![[]; 4],
        unsized_seq: UnsizedSeq(vec![UnsizedSeq(vec![1, 2]), UnsizedSeq(vec![])]),
        unsized_map: UnsizedMap([(1, -1), (2, -2)].into()),
    };
    vec![empty, full]
}
