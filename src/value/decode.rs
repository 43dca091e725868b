//! Reading a record as a [`Plan`] says: the kinds of `spec/03-types.md`
//! in the order the schema gives, through the deserializer's own reads
//! (`crate::de::raw`), so that every check, limit and error offset is the
//! typed reader's. Errors gather the same path (`Type.field[3]::Variant`),
//! with the schema's names.
//!
//! The walk is written once and hands what it reads to a [`Sink`]: one
//! builds a [`Value`] tree ([`Build`]), another writes JSON as it goes
//! (`super::json_out`), so that printing a record needs no tree.

use std::sync::Arc;

use super::plan::{Names, Node, NodeId, Plan, SeqForm, VariantShape};
use super::{ArrayValue, Block, Struct, Table, Value, Variant};
use crate::de::{Decoder, RecordSeed};
use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::read::{Read, Reference};

/// A compound value that is opening.
#[derive(Clone, Copy)]
pub(crate) enum Open<'p> {
    /// A sequence of `count` elements.
    Seq,
    /// A tuple, `[T; N]` or tuple struct (a tuple variant's payload).
    Tuple,
    /// A map; `object` when its keys are written as JSON object keys
    /// (`spec/10-values.md`, 10.2).
    Map { object: bool },
    /// A struct with named fields (a struct variant's payload).
    Struct(&'p Arc<Names>),
}

/// What a walk makes of the values it reads.
pub(crate) trait Sink<'de> {
    /// What a value becomes.
    type V;
    /// A compound value being filled.
    type Acc;
    /// A scalar, a block, a table or a shaped array.
    fn leaf(&mut self, plan: &Plan, v: Value<'de>) -> Self::V;
    /// A number.
    fn num(&mut self, n: Num) -> Self::V;
    /// A string, borrowed from the input or in the reader's buffer.
    fn str(&mut self, s: Reference<'de, '_, str>) -> Self::V;
    /// An option's none.
    fn none(&mut self) -> Self::V;
    /// An option's some, once its value is read.
    fn some(&mut self, v: Self::V) -> Self::V;
    /// A compound value of `len` parts (a map's: keys and values) opens.
    fn open(&mut self, open: Open<'_>, len: usize) -> Self::Acc;
    /// Part `i` (a map's key `2k`, value `2k + 1`) of the compound value
    /// `open` is about to be read.
    fn before(&mut self, acc: &mut Self::Acc, open: Open<'_>, i: usize);
    /// Part `i` was read.
    fn push(&mut self, acc: &mut Self::Acc, i: usize, v: Self::V);
    /// The compound value is complete.
    fn close(&mut self, acc: Self::Acc) -> Self::V;
    /// An enum variant with a payload is about to read it.
    fn variant_open(&mut self, name: &Arc<str>, index: u32);
    /// An enum variant, with its payload once read.
    fn variant(&mut self, name: &Arc<str>, index: u32, payload: Option<Self::V>) -> Self::V;
}

/// Builds [`Value`]s.
pub(crate) struct Build;

/// A compound value being built.
pub(crate) struct BuildAcc<'de> {
    open: OpenKind,
    names: Option<Arc<Names>>,
    items: Vec<Value<'de>>,
}

#[derive(Clone, Copy)]
enum OpenKind {
    Seq,
    Tuple,
    Map,
    Struct,
}

impl<'de> Sink<'de> for Build {
    type V = Value<'de>;
    type Acc = BuildAcc<'de>;

    #[inline]
    fn leaf(&mut self, _: &Plan, v: Value<'de>) -> Value<'de> {
        v
    }

    #[inline]
    fn num(&mut self, n: Num) -> Value<'de> {
        n.value()
    }

    #[inline]
    fn str(&mut self, s: Reference<'de, '_, str>) -> Value<'de> {
        Value::Str(match s {
            Reference::Borrowed(s) => std::borrow::Cow::Borrowed(s),
            Reference::Copied(s) => std::borrow::Cow::Owned(s.to_owned()),
        })
    }

    fn none(&mut self) -> Value<'de> {
        Value::Option(None)
    }

    fn some(&mut self, v: Value<'de>) -> Value<'de> {
        Value::Option(Some(Box::new(v)))
    }

    fn open(&mut self, open: Open<'_>, len: usize) -> BuildAcc<'de> {
        let (open, names) = match open {
            Open::Seq => (OpenKind::Seq, None),
            Open::Tuple => (OpenKind::Tuple, None),
            Open::Map { .. } => (OpenKind::Map, None),
            Open::Struct(names) => (OpenKind::Struct, Some(names.clone())),
        };
        BuildAcc {
            open,
            names,
            // Never more than a bounded number ahead: memory follows the
            // values actually read, not the count the input claims.
            items: Vec::with_capacity(len.min(4096)),
        }
    }

    #[inline]
    fn before(&mut self, _: &mut BuildAcc<'de>, _: Open<'_>, _: usize) {}

    #[inline]
    fn push(&mut self, acc: &mut BuildAcc<'de>, _: usize, v: Value<'de>) {
        acc.items.push(v);
    }

    fn close(&mut self, acc: BuildAcc<'de>) -> Value<'de> {
        match (acc.open, acc.names) {
            (OpenKind::Seq, _) => Value::Seq(acc.items),
            (OpenKind::Tuple, _) => Value::Tuple(acc.items),
            (OpenKind::Struct, Some(names)) => Value::Struct(Struct::from_parts(names, acc.items)),
            (OpenKind::Struct, None) => Value::Tuple(acc.items),
            (OpenKind::Map, _) => {
                let mut items = acc.items.into_iter();
                let mut pairs = Vec::with_capacity(items.len() / 2);
                while let (Some(k), Some(v)) = (items.next(), items.next()) {
                    pairs.push((k, v));
                }
                Value::Map(pairs)
            }
        }
    }

    fn variant_open(&mut self, _: &Arc<str>, _: u32) {}

    fn variant(&mut self, name: &Arc<str>, index: u32, payload: Option<Value<'de>>) -> Value<'de> {
        Value::Variant(Box::new(Variant {
            name: name.clone(),
            index,
            value: payload,
        }))
    }
}

/// Reads the value of node `id` into a [`Value`].
pub(crate) fn read<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    id: NodeId,
) -> Result<Value<'de>> {
    walk(de, plan, id, &mut Build)
}

/// Reads the value of node `id`, handing it to `sink`.
pub(crate) fn walk<'de, R: Read<'de>, S: Sink<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    id: NodeId,
    sink: &mut S,
) -> Result<S::V> {
    Ok(match plan.node(id) {
        Node::Unit | Node::UnitStruct(_) => sink.leaf(plan, Value::Unit),
        Node::Bool => sink.leaf(plan, Value::Bool(de.raw_bool()?)),
        Node::Num(dtype) => sink.num(number(de, *dtype)?),
        Node::Char => sink.leaf(plan, Value::Char(de.raw_char()?)),
        Node::Str => {
            let s = de.raw_str_ref()?;
            sink.str(s)
        }
        Node::Bytes => sink.leaf(plan, Value::Bytes(de.raw_bytes()?)),
        Node::Option(inner) => {
            if de.raw_option_tag()? {
                let v = de.raw_nested(|de| walk(de, plan, *inner, sink))?;
                sink.some(v)
            } else {
                sink.none()
            }
        }
        Node::Seq(elem, form) => match *form {
            SeqForm::Block(dtype) => sink.leaf(plan, Value::Block(block(de, dtype)?)),
            SeqForm::Table { size, depth } => {
                let t = table(de, plan, *elem, size, depth)?;
                sink.leaf(plan, Value::Table(t))
            }
            SeqForm::Plain => seq(de, plan, *elem, sink)?,
        },
        Node::Map(k, v) => map(de, plan, *k, *v, sink)?,
        Node::Tuple(items) => fixed(de, plan, items, sink)?,
        Node::Repeat(item, n) => repeat(de, plan, *item, *n, sink)?,
        Node::Shaped(dtype) => {
            let (shape, data, _) = de.raw_array(*dtype)?;
            sink.leaf(
                plan,
                Value::Array(ArrayValue {
                    dtype: *dtype,
                    shape,
                    data,
                }),
            )
        }
        Node::Newtype(name, inner) => de
            .raw_nested(|de| walk(de, plan, *inner, sink))
            .map_err(|e| in_container(e, name))?,
        Node::TupleStruct(name, items) => {
            fixed(de, plan, items, sink).map_err(|e| in_container(e, name))?
        }
        Node::Struct(names, fields) => fields_of(de, plan, names, fields, sink)
            .map_err(|e| in_container(e, &names.container))?,
        Node::Enum(name, variants) => de
            .raw_nested(|de| {
                let index = de.raw_variant(name, variants.len())?;
                let variant = &variants[index as usize];
                if !matches!(variant.shape, VariantShape::Unit) {
                    sink.variant_open(&variant.name, index);
                }
                let payload = match &variant.shape {
                    VariantShape::Unit => None,
                    VariantShape::Newtype(inner) => Some(walk(de, plan, *inner, sink)),
                    VariantShape::Tuple(items) => Some(fixed(de, plan, items, sink)),
                    VariantShape::Struct(names, fields) => {
                        Some(fields_of(de, plan, names, fields, sink))
                    }
                }
                .transpose()
                .map_err(|e| in_variant(e, &variant.name))?;
                Ok(sink.variant(&variant.name, index, payload))
            })
            .map_err(|e| in_container(e, name))?,
    })
}

macro_rules! num_enum {
    ($($ty:ident $variant:ident $code:literal,)*) => {
        /// A number as read: no drop glue, unlike a [`Value`].
        #[derive(Clone, Copy)]
        pub(crate) enum Num {
            $($variant($ty),)*
        }

        impl Num {
            pub(crate) fn value(self) -> Value<'static> {
                match self {
                    $(Num::$variant(x) => Value::$variant(x),)*
                }
            }
        }

        fn number<'de, R: Read<'de>, const D: bool>(
            de: &mut Decoder<R, D>,
            dtype: Dtype,
        ) -> Result<Num> {
            Ok(match dtype {
                $(Dtype::$variant => Num::$variant(<$ty>::from_le_bytes(
                    de.raw_fixed::<{ std::mem::size_of::<$ty>() }>(stringify!($ty))?,
                )),)*
            })
        }
    };
}
crate::dtype::with_dtypes!(num_enum);

fn block<'de, R: Read<'de>, const D: bool>(de: &mut Decoder<R, D>, dtype: Dtype) -> Result<Block> {
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match dtype {
                $(Dtype::$variant => Block::$variant(de.raw_block::<$ty>()?),)*
            }
        };
    }
    Ok(crate::dtype::with_dtypes!(each))
}

fn seq<'de, R: Read<'de>, S: Sink<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    elem: NodeId,
    sink: &mut S,
) -> Result<S::V> {
    let count = de.raw_count()?;
    de.raw_nested(|de| {
        let mut acc = sink.open(Open::Seq, count as usize);
        for i in 0..count {
            let start = de.offset();
            sink.before(&mut acc, Open::Seq, i as usize);
            let v =
                walk(de, plan, elem, sink).map_err(|e| e.or_offset(start).in_index(i.into()))?;
            if de.offset() == start {
                de.charge_zero_sized(1).map_err(|e| e.in_index(i.into()))?;
            }
            sink.push(&mut acc, i as usize, v);
        }
        Ok(sink.close(acc))
    })
}

/// A sequence of fixed-size records: from a slice, when every element is
/// there and valid, their bytes at once; otherwise element by element,
/// which gives the typed reader's error (or, from a stream, the values,
/// whose bytes are kept).
fn table<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    elem: NodeId,
    size: usize,
    depth: u32,
) -> Result<Table<'de>> {
    let count = de.raw_count()?;
    let len = count as u64 * size as u64;
    if count > 0 && de.raw_depth_left() > depth {
        let check = |bytes: &[u8]| super::table::bools_valid(plan, elem, bytes, size);
        if let Some(bytes) = de.raw_take_if(len, check)? {
            return Ok(Table::new(plan, elem, size, count as usize, bytes));
        }
    }
    let values = de.raw_nested(|de| {
        let mut out = Vec::with_capacity((count as usize).min(4096) * size);
        for i in 0..count {
            let start = de.offset();
            let v = read(de, plan, elem).map_err(|e| e.or_offset(start).in_index(i.into()))?;
            super::table::append(plan, elem, &v, &mut out);
        }
        Ok(out)
    })?;
    Ok(Table::new(
        plan,
        elem,
        size,
        count as usize,
        std::borrow::Cow::Owned(values),
    ))
}

/// Whether a map's keys are written as JSON object keys: keys of `str`,
/// `char`, `bool` or a number, through newtypes (`spec/10-values.md`).
pub(crate) fn object_keys(plan: &Plan, mut id: NodeId) -> bool {
    loop {
        match plan.node(id) {
            Node::Str | Node::Char | Node::Bool | Node::Num(_) => return true,
            Node::Newtype(_, inner) => id = *inner,
            _ => return false,
        }
    }
}

fn map<'de, R: Read<'de>, S: Sink<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    k: NodeId,
    v: NodeId,
    sink: &mut S,
) -> Result<S::V> {
    let count = de.raw_count()?;
    de.raw_nested(|de| {
        let open = Open::Map {
            object: count == 0 || object_keys(plan, k),
        };
        let mut acc = sink.open(open, 2 * count as usize);
        for i in 0..count as usize {
            let entry = i as u64;
            let start = de.offset();
            sink.before(&mut acc, open, 2 * i);
            let key = walk(de, plan, k, sink).map_err(|e| e.or_offset(start).in_entry(entry))?;
            sink.push(&mut acc, 2 * i, key);
            let value_at = de.offset();
            sink.before(&mut acc, open, 2 * i + 1);
            let value =
                walk(de, plan, v, sink).map_err(|e| e.or_offset(value_at).in_entry(entry))?;
            if de.offset() == start {
                de.charge_zero_sized(2).map_err(|e| e.in_entry(entry))?;
            }
            sink.push(&mut acc, 2 * i + 1, value);
        }
        Ok(sink.close(acc))
    })
}

/// A tuple's values: no count, one nesting level.
fn fixed<'de, R: Read<'de>, S: Sink<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    items: &[NodeId],
    sink: &mut S,
) -> Result<S::V> {
    de.raw_nested(|de| {
        let mut acc = sink.open(Open::Tuple, items.len());
        for (i, &item) in items.iter().enumerate() {
            let start = de.offset();
            sink.before(&mut acc, Open::Tuple, i);
            let v = walk(de, plan, item, sink).map_err(|e| e.or_offset(start).in_position(i))?;
            sink.push(&mut acc, i, v);
        }
        Ok(sink.close(acc))
    })
}

/// `[T; N]`: a tuple of `n` equal elements. A schema may say
/// `[unit; 1000000000000]`, which no Rust type reads: an element that
/// takes no bytes draws on the zero-sized budget, as a sequence's does,
/// so the work stays in proportion to the input.
fn repeat<'de, R: Read<'de>, S: Sink<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    item: NodeId,
    n: u64,
    sink: &mut S,
) -> Result<S::V> {
    de.raw_nested(|de| {
        let mut acc = sink.open(Open::Tuple, usize::try_from(n).unwrap_or(usize::MAX));
        for i in 0..n {
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            let start = de.offset();
            sink.before(&mut acc, Open::Tuple, i);
            let v = walk(de, plan, item, sink).map_err(|e| e.or_offset(start).in_position(i))?;
            if de.offset() == start {
                de.charge_zero_sized(1).map_err(|e| e.in_position(i))?;
            }
            sink.push(&mut acc, i, v);
        }
        Ok(sink.close(acc))
    })
}

/// A struct's fields: no count, one nesting level.
fn fields_of<'de, R: Read<'de>, S: Sink<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    names: &Arc<Names>,
    fields: &[NodeId],
    sink: &mut S,
) -> Result<S::V> {
    de.raw_nested(|de| {
        let mut acc = sink.open(Open::Struct(names), fields.len());
        for (i, (name, &field)) in names.fields.iter().zip(fields).enumerate() {
            let start = de.offset();
            sink.before(&mut acc, Open::Struct(names), i);
            let v = walk(de, plan, field, sink).map_err(|e| in_field(e.or_offset(start), name))?;
            sink.push(&mut acc, i, v);
        }
        Ok(sink.close(acc))
    })
}

#[cold]
fn in_container(e: Error, name: &str) -> Error {
    e.in_container(name.to_owned())
}

#[cold]
fn in_field(e: Error, name: &str) -> Error {
    e.in_field(name.to_owned())
}

#[cold]
fn in_variant(e: Error, name: &str) -> Error {
    e.in_variant(name.to_owned())
}

/// Records of a batch read as `plan` says, for the readers of records
/// back to back.
#[derive(Clone)]
pub(crate) struct Seed(pub(crate) Plan);

impl<'de> RecordSeed<'de> for Seed {
    type Value = Value<'de>;

    fn read<R: Read<'de>, const D: bool>(&self, de: &mut Decoder<R, D>) -> Result<Value<'de>> {
        read(de, &self.0, self.0.root())
    }

    fn memory_size(&self) -> usize {
        1
    }
}
