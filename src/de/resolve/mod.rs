//! Reading what another version of a type wrote, as the reader's type
//! (`spec/12-evolution.md`): the executor of a [`Resolution`].
//!
//! A resolution is planned once per pair of schemas (`crate::schema::evolve`
//! builds it from the writer's and the reader's models). Here it drives
//! the reader's own `Deserialize` over the writer's bytes: a struct is
//! handed over as a map of the reader's field names in the writer's order
//! (fields the reader dropped are skipped, fields it added are left to
//! serde's `default`), a variant by the reader's name, a promoted number
//! through the visitor method of the reader's type. Where the two schemas
//! agree on a whole value ([`Step::Same`]), the reader's `Deserialize`
//! reads it with the plain [`Decoder`], at the positional layout's speed.

mod access;
mod skip;

use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Visitor};

use super::{Decoder, RecordSeed, detail, fail};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::read::{Read, Reference};
use access::{Elements, Entries, Enum, Fields, Items};

/// Index of a [`Step`] in a [`Resolution`].
pub(crate) type StepId = u32;
/// Index of a [`Skip`] in a [`Resolution`].
pub(crate) type SkipId = u32;

/// How one writer value becomes one reader value.
#[derive(Debug)]
pub(crate) enum Step {
    /// Both sides have the same format: the reader reads it as written.
    Same,
    /// A number widened (`from` is the writer's, `to` the reader's).
    Promote { from: Dtype, to: Dtype },
    /// A string read as a byte string.
    StrToBytes,
    /// `option<W>` to `option<R>`.
    Option(StepId),
    /// `W` to `option<R>`: always `Some`.
    IntoSome(StepId),
    /// `seq<W>` to `seq<R>`.
    Seq(StepId),
    /// `[W; N]` to `seq<R>`: `N` elements, no count in the bytes.
    ArrayToSeq(StepId, u64),
    /// A tuple of the same length, element by element.
    Tuple(Box<[StepId]>),
    /// A tuple struct (the reader's name) of the same length.
    TupleStruct(Arc<str>, Box<[StepId]>),
    /// `[W; N]` to `[R; N]`.
    Repeat(StepId, u64),
    /// `map<WK, WV>` to `map<RK, RV>`.
    Map(StepId, StepId),
    /// A reader newtype struct around the value (the writer's may be one
    /// too, or the bare value: the bytes are the same), by the reader's name.
    Newtype(Arc<str>, StepId),
    /// A unit struct.
    UnitStruct,
    /// A struct with named fields (the reader's name), in the writer's order.
    Struct(Arc<str>, Box<[FieldStep]>),
    /// An enum, by writer variant index.
    Enum(Arc<str>, Box<[VariantStep]>),
}

/// One field of the writer's struct.
#[derive(Debug)]
pub(crate) enum FieldStep {
    /// Handed to the reader under its own name.
    Keep { name: Arc<str>, step: StepId },
    /// Read and dropped: the reader has no such field.
    Drop { name: Arc<str>, skip: SkipId },
}

/// One variant of the writer's enum.
#[derive(Debug)]
pub(crate) enum VariantStep {
    /// The reader's variant of this name (or alias).
    To { name: Arc<str>, payload: Payload },
    /// Unknown to the reader, read as its `#[serde(other)]` unit variant
    /// `name`; the writer's payload is skipped.
    Other {
        name: Arc<str>,
        skips: Box<[SkipId]>,
    },
    /// Unknown to the reader, which has no `#[serde(other)]` variant: an
    /// error when met.
    Unknown { name: Arc<str> },
}

/// What follows a variant index.
#[derive(Debug)]
pub(crate) enum Payload {
    Unit,
    Newtype(StepId),
    Tuple(Box<[StepId]>),
    Struct(Box<[FieldStep]>),
}

/// How one writer value is read and dropped: every byte is checked as the
/// plain reader would (a `bool` is 0 or 1, a string is UTF-8, an option
/// tag 0 or 1), so that a dropped field is never a place to hide garbage.
#[derive(Debug)]
pub(crate) enum Skip {
    /// Nothing: unit, unit structs, empty tuples.
    Nothing,
    /// A fixed-width number of this many bytes.
    Number(u32),
    Bool,
    Char,
    Str,
    Bytes,
    Option(SkipId),
    Seq(SkipId),
    /// A sequence of fixed-width numbers of this size: one read.
    Block(u32),
    Map(SkipId, SkipId),
    /// A tuple, a tuple struct, a struct's fields: one nesting level.
    Tuple(Box<[SkipId]>),
    Repeat(SkipId, u64),
    /// A newtype struct: one nesting level.
    Newtype(SkipId),
    /// An enum: its name and each variant's parts.
    Enum(Arc<str>, Box<[Box<[SkipId]>]>),
    /// A shaped array.
    Shaped(Dtype),
}

/// A planned resolution of one writer schema onto one reader schema.
#[derive(Debug)]
pub(crate) struct Resolution {
    pub(crate) steps: Vec<Step>,
    pub(crate) skips: Vec<Skip>,
    pub(crate) root: StepId,
}

impl Resolution {
    /// Reads one record as the reader's `T`.
    #[inline]
    pub(crate) fn read<'de, T: de::Deserialize<'de>, R: Read<'de>, const D: bool>(
        &self,
        de: &mut Decoder<R, D>,
    ) -> Result<T> {
        value(de, self, self.root, std::marker::PhantomData::<T>)
    }

    fn step(&self, id: StepId) -> &Step {
        &self.steps[id as usize]
    }
}

/// Records of a frame read by a reader that accepts other versions
/// ([`Evolve`](crate::frame::Evolve)): by `T`'s `Deserialize` when the
/// frame is `T`'s, through the resolution of the writer's schema onto
/// `T`'s when it is another version's.
pub struct Evolved<T> {
    resolution: Option<Arc<Resolution>>,
    marker: std::marker::PhantomData<fn() -> T>,
}

impl<T> Evolved<T> {
    /// Records of the reader's own schema.
    pub(crate) fn same() -> Self {
        Evolved {
            resolution: None,
            marker: std::marker::PhantomData,
        }
    }

    /// Records another version wrote, read through `resolution`.
    pub(crate) fn resolved(resolution: Arc<Resolution>) -> Self {
        Evolved {
            resolution: Some(resolution),
            marker: std::marker::PhantomData,
        }
    }
}

impl<T> Clone for Evolved<T> {
    fn clone(&self) -> Self {
        Evolved {
            resolution: self.resolution.clone(),
            marker: std::marker::PhantomData,
        }
    }
}

impl<'de, T: de::Deserialize<'de>> RecordSeed<'de> for Evolved<T> {
    type Value = T;

    #[inline(always)]
    fn read<R: Read<'de>, const D: bool>(&self, de: &mut Decoder<R, D>) -> Result<T> {
        match &self.resolution {
            None => T::deserialize(de),
            Some(resolution) => resolution.read(de),
        }
    }

    #[inline(always)]
    fn memory_size(&self) -> usize {
        std::mem::size_of::<T>()
    }
}

/// Reads the value of `step` with `seed`: through the plain decoder when
/// nothing changed, through a [`Resolver`] otherwise.
#[inline]
fn value<'de, S: DeserializeSeed<'de>, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    res: &Resolution,
    step: StepId,
    seed: S,
) -> Result<S::Value> {
    match res.step(step) {
        Step::Same => seed.deserialize(&mut *de),
        _ => seed.deserialize(Resolver { de, res, step }),
    }
}

/// A serde `Deserializer` over the writer's bytes that presents them as
/// the reader's value of one [`Step`], whatever the reader asks for (the
/// plan already knows both sides).
struct Resolver<'a, R, const D: bool> {
    de: &'a mut Decoder<R, D>,
    res: &'a Resolution,
    step: StepId,
}

impl<'de, R: Read<'de>, const D: bool> Resolver<'_, R, D> {
    fn run<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let Resolver { de, res, step } = self;
        match res.step(step) {
            // `value` never makes a resolver for it; kept total.
            Step::Same => Err(disagree::<D>(de.offset(), "an unchanged value")),
            Step::Promote { from, to } => promote(de, *from, *to, visitor),
            Step::StrToBytes => {
                let start = de.offset();
                match de.raw_str_ref()? {
                    Reference::Borrowed(s) => visitor.visit_borrowed_bytes(s.as_bytes()),
                    Reference::Copied(s) => visitor.visit_bytes(s.as_bytes()),
                }
                .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(start)))
            }
            Step::Option(inner) => {
                if de.raw_option_tag()? {
                    de.raw_nested(|de| some(de, res, *inner, visitor))
                } else {
                    visitor.visit_none()
                }
            }
            Step::IntoSome(inner) => de.raw_nested(|de| some(de, res, *inner, visitor)),
            Step::Seq(elem) => {
                let count = de.raw_count()?;
                de.raw_nested(|de| {
                    visitor.visit_seq(Elements {
                        de,
                        res,
                        items: Items::Repeat(*elem),
                        left: u64::from(count),
                        index: 0,
                    })
                })
            }
            Step::ArrayToSeq(elem, n) | Step::Repeat(elem, n) => {
                fixed(de, res, Items::Repeat(*elem), *n, visitor)
            }
            Step::Tuple(items) => fixed(de, res, Items::List(items), items.len() as u64, visitor),
            Step::TupleStruct(name, items) => {
                fixed(de, res, Items::List(items), items.len() as u64, visitor)
                    .map_err(|e| detail::<D>(e, |e| in_container(e, name)))
            }
            Step::Map(k, v) => {
                let count = de.raw_count()?;
                de.raw_nested(|de| {
                    visitor.visit_map(Entries {
                        de,
                        res,
                        key: *k,
                        value: *v,
                        left: count,
                        index: 0,
                        start: 0,
                    })
                })
            }
            Step::Newtype(name, inner) => de
                .raw_nested(|de| match res.step(*inner) {
                    Step::Same => visitor.visit_newtype_struct(&mut *de),
                    _ => visitor.visit_newtype_struct(Resolver {
                        de,
                        res,
                        step: *inner,
                    }),
                })
                .map_err(|e| detail::<D>(e, |e| in_container(e, name))),
            Step::UnitStruct => visitor.visit_unit(),
            Step::Struct(name, fields) => de
                .raw_nested(|de| visitor.visit_map(Fields::new(de, res, fields)))
                .map_err(|e| detail::<D>(e, |e| in_container(e, name))),
            Step::Enum(name, variants) => de
                .raw_nested(|de| {
                    visitor.visit_enum(Enum {
                        de,
                        res,
                        name,
                        variants,
                    })
                })
                .map_err(|e| detail::<D>(e, |e| in_container(e, name))),
        }
    }
}

/// Adds the reader's container name to the path of an error below it.
#[cold]
#[inline(never)]
fn in_container(e: Error, name: &str) -> Error {
    e.in_container(name.to_owned())
}

/// `visit_some` with the inner value's step.
fn some<'de, V: Visitor<'de>, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    res: &Resolution,
    inner: StepId,
    visitor: V,
) -> Result<V::Value> {
    match res.step(inner) {
        Step::Same => visitor.visit_some(&mut *de),
        _ => visitor.visit_some(Resolver {
            de,
            res,
            step: inner,
        }),
    }
}

/// `n` values without a count (a tuple, `[T; N]`), one nesting level.
fn fixed<'de, V: Visitor<'de>, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    res: &Resolution,
    items: Items<'_>,
    n: u64,
    visitor: V,
) -> Result<V::Value> {
    de.raw_nested(|de| {
        let mut access = Elements {
            de,
            res,
            items,
            left: n,
            index: 0,
        };
        let value = visitor.visit_seq(&mut access)?;
        if access.left != 0 {
            // The reader took fewer than its own schema says: its
            // `Deserialize` and its `Schema` disagree.
            return Err(disagree::<D>(access.de.offset(), "fewer elements"));
        }
        Ok(value)
    })
}

/// A reader whose `Deserialize` asks for something its `Schema` did not
/// describe (a hand-written impl that disagrees with itself).
#[cold]
fn disagree<const D: bool>(offset: u64, what: &str) -> Error {
    fail::<D>(
        || {
            ErrorKind::Custom(format!(
                "the reader's Deserialize and its Schema disagree: it read {what} than resolved"
            ))
        },
        offset,
    )
}

/// A writer number read and handed to the reader as its wider type.
fn promote<'de, V: Visitor<'de>, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    from: Dtype,
    to: Dtype,
    visitor: V,
) -> Result<V::Value> {
    let start = de.offset();
    macro_rules! int {
        ($t:ty) => {{
            let b = de.raw_fixed::<{ std::mem::size_of::<$t>() }>(stringify!($t))?;
            Wide::Int(<$t>::from_le_bytes(b) as i128)
        }};
    }
    let v = match from {
        Dtype::I8 => int!(i8),
        Dtype::I16 => int!(i16),
        Dtype::I32 => int!(i32),
        Dtype::I64 => int!(i64),
        Dtype::I128 => int!(i128),
        Dtype::U8 => int!(u8),
        Dtype::U16 => int!(u16),
        Dtype::U32 => int!(u32),
        Dtype::U64 => int!(u64),
        Dtype::F32 => Wide::Float(f64::from(f32::from_le_bytes(de.raw_fixed::<4>("f32")?))),
        // The plan never widens these (nothing is wider): read as written.
        Dtype::U128 | Dtype::F64 => return Err(disagree::<D>(start, "a number wider")),
    };
    // The plan allows only conversions that keep every value exact, so the
    // casts below never lose a bit (spec/12-evolution.md, 12.3).
    let out = match (v, to) {
        (Wide::Int(i), Dtype::I16) => visitor.visit_i16(i as i16),
        (Wide::Int(i), Dtype::I32) => visitor.visit_i32(i as i32),
        (Wide::Int(i), Dtype::I64) => visitor.visit_i64(i as i64),
        (Wide::Int(i), Dtype::I128) => visitor.visit_i128(i),
        (Wide::Int(i), Dtype::U16) => visitor.visit_u16(i as u16),
        (Wide::Int(i), Dtype::U32) => visitor.visit_u32(i as u32),
        (Wide::Int(i), Dtype::U64) => visitor.visit_u64(i as u64),
        (Wide::Int(i), Dtype::U128) => visitor.visit_u128(i as u128),
        (Wide::Int(i), Dtype::F32) => visitor.visit_f32(i as f32),
        (Wide::Int(i), Dtype::F64) => visitor.visit_f64(i as f64),
        (Wide::Float(f), Dtype::F64) => visitor.visit_f64(f),
        _ => return Err(disagree::<D>(start, "a number narrower")),
    };
    out.map_err(|e: Error| detail::<D>(e, |e| e.or_offset(start)))
}

#[derive(Clone, Copy)]
enum Wide {
    Int(i128),
    Float(f64),
}

macro_rules! forward_to_run {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
            $(let _ = $arg;)*
            self.run(visitor)
        }
    )*};
}

impl<'de, R: Read<'de>, const D: bool> de::Deserializer<'de> for Resolver<'_, R, D> {
    type Error = Error;

    forward_to_run! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16()
        deserialize_i32() deserialize_i64() deserialize_i128() deserialize_u8()
        deserialize_u16() deserialize_u32() deserialize_u64() deserialize_u128()
        deserialize_f32() deserialize_f64() deserialize_char() deserialize_str()
        deserialize_string() deserialize_bytes() deserialize_byte_buf()
        deserialize_option() deserialize_unit() deserialize_seq() deserialize_map()
        deserialize_identifier() deserialize_ignored_any()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
