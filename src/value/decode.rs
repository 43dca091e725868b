//! Reading a [`Value`] as a [`Plan`] says: the kinds of
//! `spec/03-types.md` in the order the schema gives, through the
//! deserializer's own reads (`crate::de::raw`), so that every check, limit
//! and error offset is the typed reader's. Errors gather the same path
//! (`Type.field[3]::Variant`), with the schema's names.

use std::sync::Arc;

use super::plan::{Node, NodeId, Plan, SeqForm, VariantShape};
use super::{ArrayValue, Block, Struct, Table, Value, Variant};
use crate::de::{Decoder, RecordSeed};
use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::read::Read;

/// Reads the value of node `id`.
pub(crate) fn read<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    id: NodeId,
) -> Result<Value<'de>> {
    Ok(match plan.node(id) {
        Node::Unit | Node::UnitStruct(_) => Value::Unit,
        Node::Bool => Value::Bool(de.raw_bool()?),
        Node::Num(dtype) => number(de, *dtype)?,
        Node::Char => Value::Char(de.raw_char()?),
        Node::Str => Value::Str(de.raw_str()?),
        Node::Bytes => Value::Bytes(de.raw_bytes()?),
        Node::Option(inner) => {
            if de.raw_option_tag()? {
                let v = de.raw_nested(|de| read(de, plan, *inner))?;
                Value::Option(Some(Box::new(v)))
            } else {
                Value::Option(None)
            }
        }
        Node::Seq(elem, form) => match *form {
            SeqForm::Block(dtype) => Value::Block(block(de, dtype)?),
            SeqForm::Table { size, depth } => table(de, plan, *elem, size, depth)?,
            SeqForm::Plain => Value::Seq(seq(de, plan, *elem)?),
        },
        Node::Map(k, v) => map(de, plan, *k, *v)?,
        Node::Tuple(items) => Value::Tuple(fixed(de, plan, items.iter().copied())?),
        Node::Repeat(item, n) => Value::Tuple(repeat(de, plan, *item, *n)?),
        Node::Shaped(dtype) => {
            let (shape, data, _) = de.raw_array(*dtype)?;
            Value::Array(ArrayValue {
                dtype: *dtype,
                shape,
                data,
            })
        }
        Node::Newtype(name, inner) => de
            .raw_nested(|de| read(de, plan, *inner))
            .map_err(|e| in_container(e, name))?,
        Node::TupleStruct(name, items) => {
            Value::Tuple(fixed(de, plan, items.iter().copied()).map_err(|e| in_container(e, name))?)
        }
        Node::Struct(names, fields) => {
            let values = fields_of(de, plan, &names.fields, fields)
                .map_err(|e| in_container(e, &names.container))?;
            Value::Struct(Struct::from_parts(names.clone(), values))
        }
        Node::Enum(name, variants) => de
            .raw_nested(|de| {
                let index = de.raw_variant(name, variants.len())?;
                let variant = &variants[index as usize];
                let value = match &variant.shape {
                    VariantShape::Unit => None,
                    VariantShape::Newtype(inner) => Some(read(de, plan, *inner)),
                    VariantShape::Tuple(items) => {
                        Some(fixed(de, plan, items.iter().copied()).map(Value::Tuple))
                    }
                    VariantShape::Struct(names, fields) => Some(
                        fields_of(de, plan, &names.fields, fields)
                            .map(|values| Value::Struct(Struct::from_parts(names.clone(), values))),
                    ),
                }
                .transpose()
                .map_err(|e| in_variant(e, &variant.name))?;
                Ok(Value::Variant(Box::new(Variant {
                    name: variant.name.clone(),
                    index,
                    value,
                })))
            })
            .map_err(|e| in_container(e, name))?,
    })
}

fn number<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    dtype: Dtype,
) -> Result<Value<'de>> {
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match dtype {
                $(Dtype::$variant => Value::$variant(<$ty>::from_le_bytes(
                    de.raw_fixed::<{ std::mem::size_of::<$ty>() }>(stringify!($ty))?,
                )),)*
            }
        };
    }
    Ok(crate::dtype::with_dtypes!(each))
}

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

/// What a sequence's or map's vector may reserve ahead: never more than
/// the count, nor more than a bounded number of values, so that memory
/// follows the values actually read.
fn reserve(count: u32) -> usize {
    (count as usize).min(4096)
}

fn seq<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    elem: NodeId,
) -> Result<Vec<Value<'de>>> {
    let count = de.raw_count()?;
    de.raw_nested(|de| {
        let mut out = Vec::with_capacity(reserve(count));
        for i in 0..count {
            let start = de.offset();
            let v = read(de, plan, elem).map_err(|e| e.or_offset(start).in_index(i.into()))?;
            if de.offset() == start {
                de.charge_zero_sized(1).map_err(|e| e.in_index(i.into()))?;
            }
            out.push(v);
        }
        Ok(out)
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
) -> Result<Value<'de>> {
    let count = de.raw_count()?;
    let len = count as u64 * size as u64;
    if count > 0 && de.raw_depth_left() > depth {
        let check = |bytes: &[u8]| super::table::bools_valid(plan, elem, bytes, size);
        if let Some(bytes) = de.raw_take_if(len, check)? {
            return Ok(Value::Table(Table::new(
                plan,
                elem,
                size,
                count as usize,
                bytes,
            )));
        }
    }
    let values = de.raw_nested(|de| {
        let mut out = Vec::with_capacity(reserve(count) * size);
        for i in 0..count {
            let start = de.offset();
            let v = read(de, plan, elem).map_err(|e| e.or_offset(start).in_index(i.into()))?;
            super::table::append(plan, elem, &v, &mut out);
        }
        Ok(out)
    })?;
    Ok(Value::Table(Table::new(
        plan,
        elem,
        size,
        count as usize,
        std::borrow::Cow::Owned(values),
    )))
}

fn map<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    k: NodeId,
    v: NodeId,
) -> Result<Value<'de>> {
    let count = de.raw_count()?;
    de.raw_nested(|de| {
        let mut out = Vec::with_capacity(reserve(count));
        for i in 0..count {
            let start = de.offset();
            let key = read(de, plan, k).map_err(|e| e.or_offset(start).in_entry(i.into()))?;
            let value_at = de.offset();
            let value = read(de, plan, v).map_err(|e| e.or_offset(value_at).in_entry(i.into()))?;
            if de.offset() == start {
                de.charge_zero_sized(2).map_err(|e| e.in_entry(i.into()))?;
            }
            out.push((key, value));
        }
        Ok(Value::Map(out))
    })
}

/// A tuple's values: no count, one nesting level.
fn fixed<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    items: impl Iterator<Item = NodeId>,
) -> Result<Vec<Value<'de>>> {
    de.raw_nested(|de| {
        let mut out = Vec::with_capacity(items.size_hint().0.min(4096));
        for (i, item) in items.enumerate() {
            let start = de.offset();
            out.push(read(de, plan, item).map_err(|e| e.or_offset(start).in_position(i))?);
        }
        Ok(out)
    })
}

/// `[T; N]`: a tuple of `n` equal elements. A schema may say
/// `[unit; 1000000000000]`, which no Rust type reads: an element that
/// takes no bytes draws on the zero-sized budget, as a sequence's does,
/// so the work stays in proportion to the input.
fn repeat<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    item: NodeId,
    n: u64,
) -> Result<Vec<Value<'de>>> {
    de.raw_nested(|de| {
        let mut out = Vec::with_capacity(n.min(4096) as usize);
        for i in 0..n {
            let start = de.offset();
            let v = read(de, plan, item).map_err(|e| e.or_offset(start).in_position(i as usize))?;
            if de.offset() == start {
                de.charge_zero_sized(1)
                    .map_err(|e| e.in_position(i as usize))?;
            }
            out.push(v);
        }
        Ok(out)
    })
}

/// A struct's fields: no count, one nesting level.
fn fields_of<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    plan: &Plan,
    names: &[Arc<str>],
    fields: &[NodeId],
) -> Result<Vec<Value<'de>>> {
    de.raw_nested(|de| {
        let mut out = Vec::with_capacity(fields.len());
        for (name, &field) in names.iter().zip(fields) {
            let start = de.offset();
            out.push(read(de, plan, field).map_err(|e| in_field(e.or_offset(start), name))?);
        }
        Ok(out)
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
