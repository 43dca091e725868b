//! Byte arrays (`[u8; N]`, N from 1 to 32) are read in one step on the
//! quiet slice path; these tests hold that path to the tuple-of-`u8` path
//! it replaces: the same bytes and values as fields, elements, map keys and
//! map values, from slices and streams, and the same errors (text, offset
//! and path) where the input is cut inside one or the nesting limit falls
//! on it.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::common::pieces::trickle;

/// `[u8; N]` read through a visitor of its own, as a tuple of N `u8`s:
/// the path Kiln took before byte arrays had one of their own.
#[derive(Debug, PartialEq)]
struct ByByte<const N: usize>([u8; N]);

impl<'de, const N: usize> Deserialize<'de> for ByByte<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const N: usize>;
        impl<'de, const N: usize> Visitor<'de> for V<N> {
            type Value = ByByte<N>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "{N} bytes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ByByte<N>, A::Error> {
                let mut out = [0u8; N];
                for (i, b) in out.iter_mut().enumerate() {
                    *b = seq
                        .next_element()?
                        .ok_or_else(|| serde::de::Error::invalid_length(i, &self))?;
                }
                Ok(ByByte(out))
            }
        }
        d.deserialize_tuple(N, V::<N>)
    }
}

/// The result of reading as a comparable string: the value, or the error's
/// whole text (kind, offset and path).
fn outcome<T: fmt::Debug>(r: kiln::Result<T>) -> String {
    match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("err {e}"),
    }
}

/// A record with a byte array between two other fields.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Framed<A> {
    before: u8,
    bytes: A,
    after: u16,
}

fn check<const N: usize>()
where
    [u8; N]: Serialize + DeserializeOwned + Ord + fmt::Debug,
{
    let array: [u8; N] = std::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0xa5);
    let framed = Framed {
        before: 7,
        bytes: array,
        after: 0xbeef,
    };
    let bytes = kiln::to_vec(&framed).unwrap();
    // The layout: the N bytes themselves, no count.
    let mut expected = vec![7u8];
    expected.extend_from_slice(&array);
    expected.extend_from_slice(&0xbeef_u16.to_le_bytes());
    assert_eq!(bytes, expected, "[u8; {N}] as a field");

    // Every cut of the record, and the whole record: the one-step path and
    // the byte-by-byte path agree, from a slice and from a stream.
    for end in 0..=bytes.len() {
        let input = &bytes[..end];
        let fast = outcome(kiln::from_slice::<Framed<[u8; N]>>(input));
        let slow = outcome(
            kiln::from_slice::<Framed<ByByte<N>>>(input).map(|f| Framed {
                before: f.before,
                bytes: f.bytes.0,
                after: f.after,
            }),
        );
        let streamed = outcome(kiln::from_reader::<_, Framed<[u8; N]>>(trickle(input)));
        assert_eq!(fast, slow, "[u8; {N}] cut at {end}");
        assert_eq!(fast, streamed, "[u8; {N}] cut at {end}, streamed");
    }

    // The nesting limit: the struct is level 1, the array level 2.
    for depth in 1..=2 {
        let options = kiln::Options::new().max_depth(depth);
        let fast = outcome(options.from_slice::<Framed<[u8; N]>>(&bytes));
        let slow = outcome(
            options
                .from_slice::<Framed<ByByte<N>>>(&bytes)
                .map(|f| f.bytes.0),
        );
        let fast = fast.replace(&format!("{framed:?}"), &format!("{array:?}"));
        assert_eq!(fast, slow, "[u8; {N}] under max_depth({depth})");
        assert_eq!(fast.starts_with("ok"), depth == 2, "{fast}");
    }

    // As elements, map keys and map values.
    let other: [u8; N] = std::array::from_fn(|i| i as u8);
    let list = vec![array, other, array];
    let map = BTreeMap::from([(array, other), (other, array)]);
    let list_bytes = kiln::to_vec(&list).unwrap();
    let map_bytes = kiln::to_vec(&map).unwrap();
    assert_eq!(list_bytes.len(), 4 + 3 * N);
    assert_eq!(map_bytes.len(), 4 + 4 * N);
    assert_eq!(kiln::from_slice::<Vec<[u8; N]>>(&list_bytes).unwrap(), list);
    assert_eq!(
        kiln::from_reader::<_, Vec<[u8; N]>>(trickle(&list_bytes)).unwrap(),
        list
    );
    assert_eq!(
        kiln::from_slice::<BTreeMap<[u8; N], [u8; N]>>(&map_bytes).unwrap(),
        map
    );
    assert_eq!(
        kiln::from_reader::<_, BTreeMap<[u8; N], [u8; N]>>(trickle(&map_bytes)).unwrap(),
        map
    );
    for end in 0..map_bytes.len() {
        let input = &map_bytes[..end];
        let fast = outcome(kiln::from_slice::<BTreeMap<[u8; N], [u8; N]>>(input));
        let slow = outcome(
            kiln::from_slice::<BTreeMap<ByByteKey<N>, ByByte<N>>>(input).map(|m| {
                m.into_iter()
                    .map(|(k, v)| (k.0, v.0))
                    .collect::<BTreeMap<_, _>>()
            }),
        );
        assert_eq!(fast, slow, "map of [u8; {N}] cut at {end}");
    }
}

/// [`ByByte`] that can be a map key.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ByByteKey<const N: usize>([u8; N]);

impl<'de, const N: usize> Deserialize<'de> for ByByteKey<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ByByte::<N>::deserialize(d).map(|b| ByByteKey(b.0))
    }
}

#[test]
fn byte_arrays_read_as_tuples_of_bytes_do() {
    macro_rules! each {
        ($($n:literal)*) => {$( check::<$n>(); )*};
    }
    each!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// Arrays of other element types, and byte arrays inside other arrays,
/// keep serde's path and read back.
#[test]
fn other_arrays_read_back() {
    let value = ([1u16, 2, 3], [[4u8; 2]; 3], [true, false], ['k'; 2]);
    let bytes = kiln::to_vec(&value).unwrap();
    assert_eq!(bytes.len(), 6 + 6 + 2 + 8);
    assert_eq!(
        kiln::from_slice::<([u16; 3], [[u8; 2]; 3], [bool; 2], [char; 2])>(&bytes).unwrap(),
        value
    );
}
