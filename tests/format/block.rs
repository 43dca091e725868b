//! The single-copy block path: same bytes and values as the element-by-element
//! path for every element type and container, the byte-swap routines, serde
//! visitors that must not be bypassed, and hostile counts.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kiln::block::{self, Element};
use pieces::trickle;

use crate::common::pieces;
use quickcheck::{QuickCheck, Testable};
use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

// ----- the largest single allocation, per thread -------------------------

/// Runs `f`; returns its result, the largest allocation and how many
/// allocations (and reallocations) it made.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    let (r, cost) = crate::common::alloc::measure(f);
    (r, cost.largest, cost.calls)
}

/// Runs `f` and returns its result with the largest allocation it made.
fn largest_allocation<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (r, largest, _) = allocations(f);
    (r, largest)
}

// ----- the generic path, forced -------------------------------------------

/// Serializes through an iterator that is not a slice (and has no exact
/// length, so the count is filled in afterwards).
struct Filtered<'a, T>(&'a [T]);

impl<T: Element + Serialize> Serialize for Filtered<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().copied().filter(|_| true))
    }
}

/// Serializes with `serialize_seq` and one `serialize_element` per element;
/// deserializes with a visitor of its own, element by element.
#[derive(Debug)]
struct Elementwise<T>(Vec<T>);

impl<T: Element + Serialize> Serialize for Elementwise<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for e in &self.0 {
            seq.serialize_element(e)?;
        }
        seq.end()
    }
}

impl<'de, T: Element + Deserialize<'de>> Deserialize<'de> for Elementwise<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(e) = seq.next_element()? {
                    out.push(e);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V(PhantomData)).map(Elementwise)
    }
}

/// Bit-exact equality (floats included: NaN payloads, -0.0).
fn same_bits<T: Element>(a: &[T], b: &[T]) -> bool {
    block::native_bytes(a) == block::native_bytes(b)
}

/// The bytes as the spec states them: count, then each element's
/// little-endian bytes.
fn spec_bytes<T: Element>(v: &[T]) -> Vec<u8> {
    let mut out = (v.len() as u32).to_le_bytes().to_vec();
    for e in v {
        let mut b = block::native_bytes(std::slice::from_ref(e)).to_vec();
        if cfg!(target_endian = "big") {
            b.reverse();
        }
        out.extend_from_slice(&b);
    }
    out
}

/// Both paths, both directions, all writers and readers, for one vector.
fn both_paths<T>(v: Vec<T>) -> bool
where
    T: Element + Serialize + DeserializeOwned,
{
    let expected = spec_bytes(&v);
    // Writing: fast path (Vec, slice, Box<[T]>) against the generic paths.
    let fast = kiln::to_vec(&v).unwrap();
    assert_eq!(fast, expected);
    assert_eq!(kiln::to_vec(&v[..]).unwrap(), expected);
    assert_eq!(
        kiln::to_vec(&v.clone().into_boxed_slice()).unwrap(),
        expected
    );
    assert_eq!(kiln::to_vec(&Filtered(&v)).unwrap(), expected);
    assert_eq!(kiln::to_vec(&Elementwise(v.clone())).unwrap(), expected);
    let mut w = Vec::new();
    kiln::to_writer(&mut w, &v).unwrap();
    assert_eq!(w, expected);
    assert_eq!(kiln::serialized_size(&v).unwrap(), expected.len() as u64);

    // Reading: fast path against the element-by-element visitor.
    let fast: Vec<T> = kiln::from_slice(&expected).unwrap();
    let generic: Elementwise<T> = kiln::from_slice(&expected).unwrap();
    assert!(same_bits(&fast, &v));
    assert!(same_bits(&generic.0, &v));
    let boxed: Box<[T]> = kiln::from_slice(&expected).unwrap();
    assert!(same_bits(&boxed, &v));
    let streamed: Vec<T> = kiln::from_reader(trickle(&expected)).unwrap();
    assert!(same_bits(&streamed, &v));
    let streamed_generic: Elementwise<T> = kiln::from_reader(&expected[..]).unwrap();
    assert!(same_bits(&streamed_generic.0, &v));
    true
}

fn check<A: Testable>(prop: A) {
    QuickCheck::new()
        .tests(crate::common::cases(200))
        .quickcheck(prop);
}

macro_rules! int_props {
    ($($name:ident: $t:ty,)*) => {$(
        #[test]
        fn $name() {
            fn prop(v: Vec<$t>) -> bool {
                both_paths(v)
            }
            check(prop as fn(Vec<$t>) -> bool);
        }
    )*};
}

int_props! {
    paths_agree_u8: u8, paths_agree_i8: i8, paths_agree_u16: u16, paths_agree_i16: i16,
    paths_agree_u32: u32, paths_agree_i32: i32, paths_agree_u64: u64, paths_agree_i64: i64,
    paths_agree_u128: u128, paths_agree_i128: i128,
}

/// Floats are generated from arbitrary bit patterns, so NaNs with every
/// payload, infinities, subnormals and -0.0 all occur.
#[test]
fn paths_agree_f32() {
    fn prop(bits: Vec<u32>) -> bool {
        both_paths(bits.into_iter().map(f32::from_bits).collect())
    }
    check(prop as fn(Vec<u32>) -> bool);
}

#[test]
fn paths_agree_f64() {
    fn prop(bits: Vec<u64>) -> bool {
        both_paths(bits.into_iter().map(f64::from_bits).collect())
    }
    check(prop as fn(Vec<u64>) -> bool);
}

#[test]
fn nan_payloads_and_negative_zero_survive() {
    let v = vec![
        f32::from_bits(0x7fc0_0001),
        f32::from_bits(0xffbf_ffff),
        f32::from_bits(0x7f80_0001),
        -0.0,
    ];
    let bytes = kiln::to_vec(&v).unwrap();
    assert_eq!(
        bytes,
        [
            4, 0, 0, 0, 0x01, 0, 0xc0, 0x7f, 0xff, 0xff, 0xbf, 0xff, 0x01, 0, 0x80, 0x7f, 0, 0, 0,
            0x80
        ]
    );
    let back: Vec<f32> = kiln::from_slice(&bytes).unwrap();
    assert!(same_bits(&back, &v));
    let d = vec![f64::from_bits(0x7ff8_0000_dead_beef), -0.0];
    let back: Vec<f64> = kiln::from_slice(&kiln::to_vec(&d).unwrap()).unwrap();
    assert_eq!(back[0].to_bits(), 0x7ff8_0000_dead_beef);
    assert_eq!(back[1].to_bits(), 0x8000_0000_0000_0000);
}

/// An `io::Write` that counts the calls it gets.
struct CountWrites(usize, Vec<u8>);

impl std::io::Write for CountWrites {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += 1;
        self.1.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The block path is really taken: one write for the whole block (on a
/// big-endian host, one per step of 256 swapped elements), one allocation
/// of exactly the block's size for reading.
fn single_copy<T: Element + Serialize + DeserializeOwned>(v: Vec<T>) {
    let mut w = CountWrites(0, Vec::new());
    kiln::to_writer(&mut w, &v).unwrap();
    let steps = if cfg!(target_endian = "little") {
        1
    } else {
        v.len().div_ceil(256)
    };
    assert_eq!(w.0, 1 + steps, "{}: count, then the elements", T::NAME);
    let mut g = CountWrites(0, Vec::new());
    kiln::to_writer(&mut g, &Elementwise(v.clone())).unwrap();
    assert_eq!(
        g.0,
        1 + v.len(),
        "{}: the generic path writes each element",
        T::NAME
    );
    assert_eq!(w.1, g.1);

    let bytes = w.1;
    let (back, largest, count) = allocations(|| kiln::from_slice::<Vec<T>>(&bytes).unwrap());
    assert_eq!(count, 1, "{}: one allocation", T::NAME);
    assert_eq!(largest, v.len() * T::SIZE, "{}", T::NAME);
    assert!(same_bits(&back, &v));
}

#[test]
fn block_path_is_taken_for_every_element_type() {
    // More than one 256-element step of a big-endian host, and fewer under
    // Miri, where the element path's 1,000 writes take seconds per type.
    let n = if cfg!(miri) { 300 } else { 1000 };
    single_copy((0..n).map(|i| i as u8).collect());
    single_copy((0..n).map(|i| i as i8).collect());
    single_copy((0..n).map(|i| i as u16).collect());
    single_copy((0..n).map(|i| i as i16).collect());
    single_copy((0..n).map(|i| i as u32).collect());
    single_copy((0..n).collect::<Vec<i32>>());
    single_copy((0..n).map(|i| i as u64).collect());
    single_copy((0..n).map(|i| i as i64).collect());
    single_copy((0..n).map(|i| i as u128).collect());
    single_copy((0..n).map(|i| i as i128).collect());
    single_copy((0..n).map(|i| i as f32).collect());
    single_copy((0..n).map(|i| i as f64).collect());
}

// ----- containers in derived structs --------------------------------------

#[derive(Serialize)]
struct Borrowed<'a> {
    a: &'a [f32],
    b: Vec<i16>,
    c: Box<[u64]>,
    d: Cow<'a, [u8]>,
    e: Arc<[i128]>,
    tag: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Owned<'a> {
    a: Vec<f32>,
    b: Vec<i16>,
    c: Box<[u64]>,
    d: Cow<'a, [u8]>,
    e: Arc<[i128]>,
    tag: u8,
}

#[derive(Serialize)]
struct Generic {
    a: Elementwise<f32>,
    b: Elementwise<i16>,
    c: Elementwise<u64>,
    d: Elementwise<u8>,
    e: Elementwise<i128>,
    tag: u8,
}

#[test]
fn containers_in_derived_structs() {
    let a = [1.5f32, -0.0, f32::INFINITY];
    let b = vec![-1i16, 2, i16::MIN];
    let c: Box<[u64]> = vec![u64::MAX, 7].into_boxed_slice();
    let d = [0xdeu8, 0xad, 0xbe, 0xef];
    let e: Arc<[i128]> = Arc::from(vec![i128::MIN, -1, 1]);
    let borrowed = Borrowed {
        a: &a,
        b: b.clone(),
        c: c.clone(),
        d: Cow::Borrowed(&d),
        e: e.clone(),
        tag: 9,
    };
    let generic = Generic {
        a: Elementwise(a.to_vec()),
        b: Elementwise(b.clone()),
        c: Elementwise(c.to_vec()),
        d: Elementwise(d.to_vec()),
        e: Elementwise(e.to_vec()),
        tag: 9,
    };
    let bytes = kiln::to_vec(&borrowed).unwrap();
    assert_eq!(bytes, kiln::to_vec(&generic).unwrap());
    let mut expected = spec_bytes(&a);
    expected.extend(spec_bytes(&b));
    expected.extend(spec_bytes(&c));
    expected.extend(spec_bytes(&d));
    expected.extend(spec_bytes(&e));
    expected.push(9);
    assert_eq!(bytes, expected);

    let owned: Owned = kiln::from_slice(&bytes).unwrap();
    assert!(same_bits(&owned.a, &a));
    assert_eq!(owned.b, b);
    assert_eq!(owned.c, c);
    assert_eq!(&*owned.d, &d);
    assert!(matches!(owned.d, Cow::Owned(_)));
    assert_eq!(owned.e, e);
    assert_eq!(owned.tag, 9);
    assert_eq!(kiln::to_vec(&owned).unwrap(), bytes);
    let streamed: Owned<'static> = kiln::from_reader(trickle(&bytes)).unwrap();
    assert_eq!(streamed, owned);
}

#[test]
fn struct_of_two_f32_vectors() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Two {
        x: Vec<f32>,
        y: Vec<f32>,
    }
    let two = Two {
        x: vec![1.0, -2.0],
        y: vec![],
    };
    let bytes = kiln::to_vec(&two).unwrap();
    assert_eq!(
        bytes,
        [2, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0]
    );
    assert_eq!(kiln::from_slice::<Two>(&bytes).unwrap(), two);
}

// ----- the swap routines ---------------------------------------------------

fn swapped_matches<T: Element>(v: &[T]) {
    let mut out = Vec::new();
    block::write_swapped(v, |b| {
        out.extend_from_slice(b);
        Ok::<_, ()>(())
    })
    .unwrap();
    let mut expected = Vec::new();
    for e in v {
        let mut b = block::native_bytes(std::slice::from_ref(e)).to_vec();
        b.reverse();
        expected.extend(b);
    }
    assert_eq!(out, expected, "{}", T::NAME);
    // Swapping twice is the identity; once, it reverses each element.
    let mut w = v.to_vec();
    block::swap_all(&mut w);
    assert_eq!(block::native_bytes(&w), &expected[..]);
    block::swap_all(&mut w);
    assert!(same_bits(&w, v));
}

#[test]
fn swap_routines_reverse_each_element() {
    // More than one step of `write_swapped` (256 elements).
    let n = 600;
    swapped_matches(&(0..n).map(|i| i as u8).collect::<Vec<_>>());
    swapped_matches(&(0..n).map(|i| i as i8).collect::<Vec<_>>());
    swapped_matches(
        &(0..n)
            .map(|i| (i as u16).wrapping_mul(257))
            .collect::<Vec<_>>(),
    );
    swapped_matches(&(0..n).map(|i| -(i as i16)).collect::<Vec<_>>());
    swapped_matches(&(0..n).map(|i| 0x0102_0304u32 + i).collect::<Vec<_>>());
    swapped_matches(&(0..n).map(|i| -(i as i32) * 1000).collect::<Vec<_>>());
    swapped_matches(
        &(0..n)
            .map(|i| u64::MAX / (i as u64 + 1))
            .collect::<Vec<_>>(),
    );
    swapped_matches(&(0..n).map(|i| i64::MIN + i as i64).collect::<Vec<_>>());
    swapped_matches(
        &(0..n)
            .map(|i| u128::MAX / (i as u128 + 3))
            .collect::<Vec<_>>(),
    );
    swapped_matches(
        &(0..n)
            .map(|i| i128::MIN / (i as i128 + 2))
            .collect::<Vec<_>>(),
    );
    swapped_matches(
        &(0..n)
            .map(|i| f32::from_bits(0x7fc0_0000 + i))
            .collect::<Vec<_>>(),
    );
    swapped_matches(&(0..n).map(|i| -(i as f64) / 3.0).collect::<Vec<_>>());
    swapped_matches::<f64>(&[]);
}

#[test]
fn swap_gives_big_endian_values() {
    let mut v = [0x0102u16, 0xa0b0];
    block::swap_all(&mut v);
    assert_eq!(v, [0x0201, 0xb0a0]);
    let mut f = [f32::from_bits(0x7fc0_0001)];
    block::swap_all(&mut f);
    assert_eq!(f[0].to_bits(), 0x0100_c07f);
    // What a big-endian host writes for [1.0f32, -2.0] is still little-endian:
    // swapping the big-endian memory image yields the spec's bytes.
    let be_image: Vec<f32> = [1.0f32, -2.0]
        .iter()
        .map(|x| f32::from_bits(u32::from_be_bytes(x.to_bits().to_le_bytes())))
        .collect();
    let mut out = Vec::new();
    block::write_swapped(&be_image, |b| {
        out.extend_from_slice(b);
        Ok::<_, ()>(())
    })
    .unwrap();
    if cfg!(target_endian = "little") {
        assert_eq!(out, [0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
    }
}

#[test]
fn le_bytes_to_vec() {
    let v: Vec<i16> = block::vec_from_le_bytes(&[0xff, 0xff, 2, 0]).unwrap();
    assert_eq!(v, [-1, 2]);
    assert_eq!(block::vec_from_le_bytes::<u32>(&[1, 2, 3]), None);
    assert_eq!(block::vec_from_le_bytes::<u32>(&[]), Some(vec![]));
}

// ----- visitors that must be driven normally ------------------------------

/// A `Vec<f32>` read from f64s, narrowed: its own behaviour, not serde's.
#[derive(Debug)]
struct Narrowed(Vec<f32>);

impl<'de> Deserialize<'de> for Narrowed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<f32>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("f64s")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f32>, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element::<f64>()? {
                    out.push(x as f32);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V).map(Narrowed)
    }
}

#[test]
fn user_visitor_with_vec_f32_value_is_driven() {
    let bytes = kiln::to_vec(&vec![1.5f64, -2.25, 1e300]).unwrap();
    let n: Narrowed = kiln::from_slice(&bytes).unwrap();
    assert_eq!(n.0, [1.5f32, -2.25, f32::INFINITY]);
    let n: Narrowed = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(n.0, [1.5f32, -2.25, f32::INFINITY]);
    // The same bytes as Vec<f32> are six floats, read by the block path.
    let six: Vec<f32> = kiln::from_slice(&[&[6u8, 0, 0, 0][..], &bytes[4..]].concat()).unwrap();
    assert_eq!(six.len(), 6);
}

#[test]
fn in_place_deserialization_still_works() {
    let bytes = kiln::to_vec(&vec![3u32, 4, 5]).unwrap();
    let mut place = vec![9u32; 10];
    let mut de = kiln::Deserializer::from_slice(&bytes);
    Vec::<u32>::deserialize_in_place(&mut de, &mut place).unwrap();
    de.end().unwrap();
    assert_eq!(place, [3, 4, 5]);
}

#[test]
fn nested_vectors_and_options() {
    let v: Vec<Vec<u16>> = vec![vec![1, 2], vec![], vec![u16::MAX]];
    let bytes = kiln::to_vec(&v).unwrap();
    assert_eq!(
        bytes,
        [
            3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff
        ]
    );
    assert_eq!(kiln::from_slice::<Vec<Vec<u16>>>(&bytes).unwrap(), v);
    let o = Some(vec![7i8, -7]);
    let bytes = kiln::to_vec(&o).unwrap();
    assert_eq!(bytes, [1, 2, 0, 0, 0, 7, 0xf9]);
    assert_eq!(kiln::from_slice::<Option<Vec<i8>>>(&bytes).unwrap(), o);
}

// ----- byte strings ---------------------------------------------------------

#[test]
fn byte_strings_and_strings() {
    let data: Vec<u8> = (0..20_000u32).map(|i| (i * 7) as u8).collect();
    let bytes = kiln::to_vec(&serde_bytes::Bytes::new(&data)).unwrap();
    assert_eq!(bytes, kiln::to_vec(&data).unwrap());
    assert_eq!(bytes, spec_bytes(&data));

    let buf: serde_bytes::ByteBuf = kiln::from_slice(&bytes).unwrap();
    assert_eq!(buf.as_slice(), &data[..]);
    let buf: serde_bytes::ByteBuf = kiln::from_reader(trickle(&bytes)).unwrap();
    assert_eq!(buf.as_slice(), &data[..]);

    // Borrowed from a slice: no copy, the bytes point into the input.
    let borrowed: &[u8] = kiln::from_slice(&bytes).unwrap();
    assert_eq!(borrowed.as_ptr(), bytes[4..].as_ptr());
    let text = kiln::to_vec("héllo").unwrap();
    let s: &str = kiln::from_slice(&text).unwrap();
    assert_eq!(s.as_ptr(), text[4..].as_ptr());
}

#[test]
fn byte_buf_from_a_short_stream() {
    let err = kiln::from_reader::<_, serde_bytes::ByteBuf>(&[10u8, 0, 0, 0, 1, 2][..]).unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(4));
}

// ----- hostile counts -------------------------------------------------------

#[test]
fn count_larger_than_input_fails_before_allocating() {
    // Ten bytes that claim four billion u64s.
    let input = [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0];
    let (res, largest) = largest_allocation(|| kiln::from_slice::<Vec<u64>>(&input));
    let err = res.unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(0));
    assert_eq!(
        err.to_string(),
        // 6 bytes left, plus the zero-sized budget: as for any `seq<u64>`.
        "count too large: found a count of 4294967295, but the rest of the input can hold at most \
         1048582 elements (one byte each, plus the zero-byte budget) at byte 0"
    );
    assert!(largest < 1024, "allocated {largest} bytes");

    // A count that would fit as bytes but not as elements: 3 f32 in 8
    // bytes. As for every `seq<f32>` (a `VecDeque<f32>` reads element by
    // element), the third element is the one cut short.
    let bytes = [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let err = kiln::from_slice::<Vec<f32>>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(12));
    assert_eq!(err.path().as_deref(), Some("[2]"));
    let deque = kiln::from_slice::<std::collections::VecDeque<f32>>(&bytes).unwrap_err();
    assert_eq!(
        (deque.kind().code(), deque.offset()),
        ("unexpected-end", Some(12))
    );

    // At an offset inside a struct, with the field path.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct S {
        a: u8,
        v: Vec<i128>,
    }
    let err = kiln::from_slice::<S>(&[
        1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ])
    .unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(21));
    assert_eq!(err.path().as_deref(), Some("S.v[1]"));
}

#[test]
fn count_larger_than_stream_fails_with_bounded_memory() {
    // 100 million f32s (400 MB, under the 1 GiB byte limit) claimed, 6
    // bytes given: the first 4 KiB step is all that is ever reserved.
    let mut input = 100_000_000u32.to_le_bytes().to_vec();
    input.extend_from_slice(&[0; 6]);
    let (res, largest) = largest_allocation(|| kiln::from_reader::<_, Vec<f32>>(&input[..]));
    let err = res.unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    // Element 1 is the first not there whole, as from a slice.
    assert_eq!(err.offset(), Some(8));
    assert_eq!(
        err.to_string(),
        "unexpected end of input: expected f32 (4 bytes), found 2 bytes at byte 8 in [1]"
    );
    assert!(largest <= 16 * 1024, "allocated {largest} bytes");

    // A block past the byte limit is refused whole, before any step.
    let input = [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0];
    let (res, largest) = largest_allocation(|| kiln::from_reader::<_, Vec<f32>>(&input[..]));
    let err = res.unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(4));
    assert!(largest <= 16 * 1024, "allocated {largest} bytes");

    // A stream cut short after several steps: memory follows what arrived.
    let mut big = kiln::to_vec(&vec![0.5f64; 50_000]).unwrap();
    big.truncate(4 + 200_000);
    big[..4].copy_from_slice(&100_000_000u32.to_le_bytes());
    let (res, largest) = largest_allocation(|| kiln::from_reader::<_, Vec<f64>>(&big[..]));
    let err = res.unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    // 25,000 whole f64 arrived: element 25,000 is the one missing.
    assert_eq!(err.offset(), Some(4 + 200_000));
    assert_eq!(err.path().as_deref(), Some("[25000]"));
    // The capacities are 4 KiB, then 100,000,000 / 4^k f64s for k = 8
    // down: 12 KB, 49 KB, 195 KB, and 781 KB once 195 KB arrived, never
    // more than four times what arrived.
    assert_eq!(largest, 100_000_000 / 4usize.pow(5) * 8);
    assert!(largest <= 4 * 200_000, "allocated {largest} bytes");
}

#[test]
fn byte_limit_applies_to_blocks() {
    let bytes = kiln::to_vec(&vec![1u32; 1000]).unwrap();
    let err = kiln::Options::new()
        .byte_limit(1000)
        .from_reader::<_, Vec<u32>>(&bytes[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    let ok: Vec<u32> = kiln::Options::new()
        .byte_limit(4004)
        .from_reader(&bytes[..])
        .unwrap();
    assert_eq!(ok, vec![1u32; 1000]);
}

#[test]
fn depth_limit_applies_to_both_paths() {
    let bytes = kiln::to_vec(&vec![1u8, 2]).unwrap();
    let opts = kiln::Options::new().max_depth(0);
    let fast = opts.from_slice::<Vec<u8>>(&bytes).unwrap_err();
    let generic = opts.from_slice::<Elementwise<u8>>(&bytes).unwrap_err();
    assert_eq!(fast.kind().code(), "depth-limit");
    assert_eq!(generic.kind().code(), "depth-limit");
    assert_eq!(fast.offset(), generic.offset());
    assert_eq!(
        kiln::Options::new()
            .max_depth(1)
            .from_slice::<Vec<u8>>(&bytes)
            .unwrap(),
        [1, 2]
    );
}

#[test]
fn trailing_bytes_after_a_block() {
    let err = kiln::from_slice::<Vec<u16>>(&[1, 0, 0, 0, 5, 0, 9]).unwrap_err();
    assert_eq!(err.kind().code(), "trailing-bytes");
    assert_eq!(err.offset(), Some(6));
}

// ----- streams longer than the reader's buffer -----------------------------

/// Offsets where a stream of `count` elements of `size` bytes after a
/// 4-byte count changes how it is read: each growth step's end (4 KiB,
/// then `count / 4^k` elements), the ends of the 256 KiB steps read
/// straight from the stream, the reader's 8 KiB buffer, one byte either
/// side of each.
fn stream_cuts(count: usize, size: usize) -> Vec<usize> {
    let len = 4 + count * size;
    let mut ends = vec![4, 4 + 4096, 8192, 4 + 4096 + 256 * 1024, len];
    let mut k = count;
    while k > 4096 / size {
        ends.push(4 + k * size);
        k /= 4;
    }
    ends.extend((1..8).map(|i| 4 + 4096 + 8192 * i));
    ends.extend((1..len / (256 * 1024) + 1).map(|i| 4 + 4096 + 256 * 1024 * i));
    let mut cuts: Vec<usize> = ends
        .iter()
        .flat_map(|&e| [e.saturating_sub(1), e, e + 1])
        .filter(|&c| c >= 4 && c < len)
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

#[test]
fn large_blocks_from_streams_fail_as_the_element_path_at_every_step() {
    // 1.6 MB: several growth steps, and many reads straight into the
    // vector's memory, which is not zeroed before the reader gets it.
    let v: Vec<u32> = (0..400_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let bytes = kiln::to_vec(&v).unwrap();
    let readers: [&[usize]; 4] = [
        &[usize::MAX],
        &[1 << 16],
        &[3, 300_001],
        &[8191, 8192, 8193],
    ];
    for sizes in readers {
        let back: Vec<u32> = kiln::from_reader(pieces::Pieces::new(&bytes, sizes)).unwrap();
        assert!(back == v, "{sizes:?}");
    }
    let cuts = stream_cuts(v.len(), 4);
    assert!(cuts.len() >= 60, "{} cuts", cuts.len());
    for cut in cuts {
        for sizes in readers {
            let read = |bytes| pieces::Pieces::new(bytes, sizes);
            let fast = kiln::from_reader::<_, Vec<u32>>(read(&bytes[..cut])).unwrap_err();
            let slow = kiln::from_reader::<_, Elementwise<u32>>(read(&bytes[..cut])).unwrap_err();
            assert_eq!(fast.to_string(), slow.to_string(), "cut {cut}, {sizes:?}");
            assert_eq!(fast.offset(), slow.offset(), "cut {cut}, {sizes:?}");
            assert_eq!(fast.kind().code(), "unexpected-end");
        }
    }
}

#[test]
fn blocks_larger_than_the_reader_buffer() {
    let v: Vec<f32> = (0..300_000).map(|i| i as f32 * 0.25).collect();
    let bytes = kiln::to_vec(&v).unwrap();
    let back: Vec<f32> = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(back, v);
    let back: Vec<f32> = kiln::from_reader(trickle(&bytes)).unwrap();
    assert_eq!(back, v);
    let u: Vec<u8> = (0..100_003u32).map(|i| i as u8).collect();
    let bytes = kiln::to_vec(&u).unwrap();
    let back: Vec<u8> = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(back, u);
    let w: Vec<u128> = (0..9_001u128).map(|i| i << 100 | i).collect();
    let bytes = kiln::to_vec(&w).unwrap();
    assert_eq!(
        kiln::from_reader::<_, Vec<u128>>(trickle(&bytes)).unwrap(),
        w
    );
}
