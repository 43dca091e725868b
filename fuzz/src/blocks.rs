//! The block fast path against the element-by-element path (spec 4.3):
//! the `roundtrip` target's [`check_blocks`], and the two wrappers that
//! hide a vector from Kiln's block recognition ([`ByElement`] when
//! writing, [`ElementWise`] when reading), which `records` uses too.

use serde::{Deserialize, Serialize};

use crate::{RichOwned, Trickle, TrickleWriter, bits_f32};

/// A slice written element by element (`serialize_seq` with the length,
/// then one `serialize_element` per element), which Kiln cannot recognise
/// as a block.
pub struct ByElement<'a, T>(pub &'a [T]);

impl<T: Serialize> Serialize for ByElement<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for x in self.0 {
            seq.serialize_element(x)?;
        }
        seq.end()
    }
}

/// A vector read element by element through a visitor of its own, which
/// Kiln cannot recognise as `Vec<T>`'s.
pub struct ElementWise<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ElementWise<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = ElementWise<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(ElementWise(v))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// One element type: the block path and the element path write the same
/// bytes, and both readers give the elements back bit for bit, from a
/// slice and from a reader; a cut encoding is refused by both.
fn same_block<T>(data: &[T], bits: impl Fn(&T) -> Vec<u8>)
where
    T: Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let fast = kiln::to_vec(data).expect("a block writes");
    let generic = kiln::to_vec(&ByElement(data)).expect("elements write");
    assert_eq!(
        fast, generic,
        "block and element paths write different bytes"
    );
    let mut w = TrickleWriter::default();
    kiln::to_writer(&mut w, data).expect("a block writes to a writer");
    assert_eq!(w.bytes, fast);
    assert_eq!(kiln::serialized_size(data).unwrap(), fast.len() as u64);
    let want: Vec<u8> = data.iter().flat_map(&bits).collect();
    let got = |v: &[T]| -> Vec<u8> { v.iter().flat_map(&bits).collect() };
    let a: Vec<T> = kiln::from_slice(&fast).expect("block from slice");
    let b: ElementWise<T> = kiln::from_slice(&fast).expect("elements from slice");
    let c: Vec<T> = kiln::from_reader(Trickle::new(&fast)).expect("block from reader");
    let d: ElementWise<T> = kiln::from_reader(Trickle::new(&fast)).expect("elements from reader");
    for (what, v) in [
        ("block", &a),
        ("elements", &b.0),
        ("block reader", &c),
        ("elements reader", &d.0),
    ] {
        assert_eq!(got(v), want, "{what} read differs");
    }
    if !fast.is_empty() {
        let cut = &fast[..fast.len() - 1];
        let e = kiln::from_slice::<Vec<T>>(cut).unwrap_err();
        let f = kiln::from_slice::<ElementWise<T>>(cut)
            .map(|v| v.0)
            .unwrap_err();
        assert!(
            matches!(e.kind().code(), "unexpected-end" | "count-too-large"),
            "{e}"
        );
        assert!(
            matches!(f.kind().code(), "unexpected-end" | "count-too-large"),
            "{f}"
        );
    }
}

/// The `roundtrip` target's block check: the value's numeric vectors, and
/// vectors of every other element type made from them, written and read
/// by the block fast path and by the element-by-element path.
pub fn check_blocks(value: &RichOwned) {
    let u = &value.u64s;
    same_block(&value.f32s, |x| x.to_le_bytes().to_vec());
    same_block(&value.f64s, |x| x.to_le_bytes().to_vec());
    same_block(u, |x| x.to_le_bytes().to_vec());
    same_block(&value.i128s, |x| x.to_le_bytes().to_vec());
    let i64s: Vec<i64> = u.iter().map(|&x| x as i64).collect();
    same_block(&i64s, |x| x.to_le_bytes().to_vec());
    let u8s: Vec<u8> = u.iter().map(|&x| x as u8).collect();
    same_block(&u8s, |x| x.to_le_bytes().to_vec());
    let i8s: Vec<i8> = u.iter().map(|&x| x as i8).collect();
    same_block(&i8s, |x| x.to_le_bytes().to_vec());
    let u16s: Vec<u16> = u.iter().map(|&x| x as u16).collect();
    same_block(&u16s, |x| x.to_le_bytes().to_vec());
    let i16s: Vec<i16> = u.iter().map(|&x| x as i16).collect();
    same_block(&i16s, |x| x.to_le_bytes().to_vec());
    let u32s: Vec<u32> = u.iter().map(|&x| x as u32).collect();
    same_block(&u32s, |x| x.to_le_bytes().to_vec());
    let i32s: Vec<i32> = u.iter().map(|&x| x as i32).collect();
    same_block(&i32s, |x| x.to_le_bytes().to_vec());
    let u128s: Vec<u128> = value.i128s.iter().map(|&x| x as u128).collect();
    same_block(&u128s, |x| x.to_le_bytes().to_vec());
    // NaN payloads and signed zeros of f32 built from raw bits.
    let f32_bits: Vec<f32> = u.iter().map(|&x| f32::from_bits(x as u32)).collect();
    same_block(&f32_bits, |x| x.to_le_bytes().to_vec());
    let f64_bits: Vec<f64> = u.iter().map(|&x| f64::from_bits(x)).collect();
    same_block(&f64_bits, |x| x.to_le_bytes().to_vec());
    // A block inside a struct, next to other fields, both ways.
    #[derive(Serialize)]
    struct Fast<'a> {
        tag: u8,
        xs: &'a [f32],
        ys: &'a [i64],
    }
    #[derive(Serialize)]
    struct Slow<'a> {
        tag: u8,
        xs: ByElement<'a, f32>,
        ys: ByElement<'a, i64>,
    }
    let fast = kiln::to_vec(&Fast {
        tag: 7,
        xs: &value.f32s,
        ys: &i64s,
    })
    .unwrap();
    let slow = kiln::to_vec(&Slow {
        tag: 7,
        xs: ByElement(&value.f32s),
        ys: ByElement(&i64s),
    })
    .unwrap();
    assert_eq!(fast, slow, "struct with blocks: paths differ");
    let (tag, xs, ys): (u8, Vec<f32>, ElementWise<i64>) = kiln::from_slice(&fast).unwrap();
    assert_eq!(tag, 7);
    assert_eq!(bits_f32(&xs), bits_f32(&value.f32s));
    assert_eq!(ys.0, i64s);
}
