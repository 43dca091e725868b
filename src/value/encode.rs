//! Writing a [`Value`] as a [`Plan`] says: first a check that the value
//! fits the schema (an error names the path and both sides), then the
//! value handed to Kiln's serializer kind by kind, so the bytes are those
//! the Rust type writes (`spec/03-types.md`), arrays and blocks included.

use serde::ser::{self, Serialize, SerializeSeq, SerializeTuple};

use super::plan::{Node, NodeId, Plan, SeqForm, VariantShape};
use super::{Block, Value};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};

/// A value and the node it is written as; serializable once
/// [`Fit::new`]'s check has passed.
pub(crate) struct Fit<'v, 'a> {
    value: &'v Value<'a>,
    plan: &'v Plan,
    id: NodeId,
}

impl<'v, 'a> Fit<'v, 'a> {
    /// `value` as the root of `plan`, once it is checked to fit.
    pub(crate) fn new(value: &'v Value<'a>, plan: &'v Plan) -> Result<Fit<'v, 'a>> {
        check(plan, plan.root(), value)?;
        Ok(Fit {
            value,
            plan,
            id: plan.root(),
        })
    }

    fn at(&self, value: &'v Value<'a>, id: NodeId) -> Fit<'v, 'a> {
        Fit {
            value,
            plan: self.plan,
            id,
        }
    }
}

/// What a node is called in errors.
pub(crate) fn describe(plan: &Plan, id: NodeId) -> String {
    match plan.node(id) {
        Node::Unit => "unit".into(),
        Node::Bool => "bool".into(),
        Node::Num(d) => d.name().into(),
        Node::Char => "char".into(),
        Node::Str => "str".into(),
        Node::Bytes => "bytes".into(),
        Node::Option(_) => "an option".into(),
        Node::Seq(..) => "a sequence".into(),
        Node::Map(..) => "a map".into(),
        Node::Tuple(items) => format!("a tuple of {}", items.len()),
        Node::Repeat(_, n) => format!("an array of {n}"),
        Node::Shaped(d) => format!("array<{d}>"),
        Node::UnitStruct(name) => format!("unit struct {name}"),
        Node::Newtype(name, _) => format!("newtype struct {name}"),
        Node::TupleStruct(name, items) => format!("tuple struct {name} of {}", items.len()),
        Node::Struct(names, _) => format!("struct {}", names.container),
        Node::Enum(name, _) => format!("enum {name}"),
    }
}

/// What a value is called in errors.
pub(crate) fn kind_of(value: &Value<'_>) -> String {
    match value {
        Value::Unit => "unit".into(),
        Value::Bool(_) => "a bool".into(),
        Value::I8(_) => "an i8".into(),
        Value::I16(_) => "an i16".into(),
        Value::I32(_) => "an i32".into(),
        Value::I64(_) => "an i64".into(),
        Value::I128(_) => "an i128".into(),
        Value::U8(_) => "a u8".into(),
        Value::U16(_) => "a u16".into(),
        Value::U32(_) => "a u32".into(),
        Value::U64(_) => "a u64".into(),
        Value::U128(_) => "a u128".into(),
        Value::F32(_) => "an f32".into(),
        Value::F64(_) => "an f64".into(),
        Value::Char(_) => "a char".into(),
        Value::Str(_) => "a string".into(),
        Value::Bytes(_) => "bytes".into(),
        Value::Option(_) => "an option".into(),
        Value::Seq(_) | Value::Block(_) | Value::Table(_) => "a sequence".into(),
        Value::Map(_) => "a map".into(),
        Value::Tuple(v) => format!("a tuple of {}", v.len()),
        Value::Struct(s) => format!("struct {}", s.name()),
        Value::Variant(v) => format!("variant {}", v.name),
        Value::Array(a) => format!("array<{}>", a.dtype),
    }
}

#[cold]
fn mismatch(plan: &Plan, id: NodeId, value: &Value<'_>) -> Error {
    Error::new(ErrorKind::ValueMismatch {
        expected: describe(plan, id),
        found: kind_of(value),
    })
}

fn check_all<'a>(
    plan: &Plan,
    items: impl ExactSizeIterator<Item = NodeId>,
    values: &[Value<'a>],
    id: NodeId,
    value: &Value<'a>,
) -> Result<()> {
    if items.len() != values.len() {
        return Err(mismatch(plan, id, value));
    }
    for (i, (item, v)) in items.zip(values).enumerate() {
        check(plan, item, v).map_err(|e| e.in_position(i))?;
    }
    Ok(())
}

/// Whether `value` fits node `id`, with the path of the first place it
/// does not.
pub(crate) fn check(plan: &Plan, id: NodeId, value: &Value<'_>) -> Result<()> {
    let node = plan.node(id);
    let fits = match (node, value) {
        (Node::Unit | Node::UnitStruct(_), Value::Unit) => true,
        (Node::Bool, Value::Bool(_)) | (Node::Char, Value::Char(_)) => true,
        (Node::Str, Value::Str(_)) | (Node::Bytes, Value::Bytes(_)) => true,
        (Node::Num(d), v) => number_dtype(v) == Some(*d),
        (Node::Option(inner), Value::Option(o)) => {
            if let Some(v) = o {
                check(plan, *inner, v)?;
            }
            true
        }
        (Node::Seq(elem, form), Value::Seq(values)) => {
            for (i, v) in values.iter().enumerate() {
                check(plan, *elem, v).map_err(|e| e.in_index(i as u64))?;
            }
            let _ = form;
            true
        }
        (Node::Seq(_, SeqForm::Block(d)), Value::Block(b)) => b.dtype() == *d,
        (Node::Seq(elem, _), Value::Table(t)) => {
            t.elem() == *elem || {
                for (i, v) in t.iter().enumerate() {
                    check(plan, *elem, &v).map_err(|e| e.in_index(i as u64))?;
                }
                true
            }
        }
        (Node::Map(k, v), Value::Map(entries)) => {
            for (i, (key, value)) in entries.iter().enumerate() {
                check(plan, *k, key).map_err(|e| e.in_entry(i as u64))?;
                check(plan, *v, value).map_err(|e| e.in_entry(i as u64))?;
            }
            true
        }
        (Node::Tuple(items), Value::Tuple(values)) => {
            check_all(plan, items.iter().copied(), values, id, value)?;
            true
        }
        (Node::Repeat(item, n), Value::Tuple(values)) => {
            let n = usize::try_from(*n).unwrap_or(usize::MAX);
            check_all(plan, std::iter::repeat_n(*item, n), values, id, value)?;
            true
        }
        (Node::Shaped(d), Value::Array(a)) => {
            let elements = a.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
            a.dtype == *d && elements.and_then(|n| n.checked_mul(d.size())) == Some(a.data.len())
        }
        (Node::Newtype(name, inner), v) => {
            return check(plan, *inner, v).map_err(|e| e.in_container(name.to_string()));
        }
        (Node::TupleStruct(name, items), Value::Tuple(values)) => {
            check_all(plan, items.iter().copied(), values, id, value)
                .map_err(|e| e.in_container(name.to_string()))?;
            true
        }
        (Node::Struct(names, fields), Value::Struct(s)) => {
            if s.values().len() != fields.len()
                || s.fields()
                    .zip(names.fields.iter())
                    .any(|((n, _), m)| n != &**m)
            {
                false
            } else {
                for ((name, v), &f) in s.fields().zip(fields.iter()) {
                    check(plan, f, v).map_err(|e| {
                        e.in_field(name.to_owned())
                            .in_container(names.container.to_string())
                    })?;
                }
                true
            }
        }
        (Node::Enum(name, variants), Value::Variant(v)) => {
            let Some(plan_v) = variants.get(v.index as usize).filter(|p| p.name == v.name) else {
                return Err(mismatch(plan, id, value).in_container(name.to_string()));
            };
            let ok = match (&plan_v.shape, &v.value) {
                (VariantShape::Unit, None) => true,
                (VariantShape::Newtype(inner), Some(inner_v)) => {
                    check(plan, *inner, inner_v)?;
                    true
                }
                (VariantShape::Tuple(items), Some(t @ Value::Tuple(values))) => {
                    check_all(plan, items.iter().copied(), values, id, t)?;
                    true
                }
                (VariantShape::Struct(names, fields), Some(Value::Struct(s))) => {
                    s.values().len() == fields.len()
                        && s.fields()
                            .zip(names.fields.iter())
                            .all(|((n, _), m)| n == &**m)
                        && {
                            for ((fname, fv), &f) in s.fields().zip(fields.iter()) {
                                check(plan, f, fv).map_err(|e| e.in_field(fname.to_owned()))?;
                            }
                            true
                        }
                }
                _ => false,
            };
            if !ok {
                return Err(mismatch(plan, id, value)
                    .in_variant(v.name.to_string())
                    .in_container(name.to_string()));
            }
            return Ok(());
        }
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(mismatch(plan, id, value))
    }
}

/// The element type of a number value.
pub(crate) fn number_dtype(value: &Value<'_>) -> Option<Dtype> {
    Some(match value {
        Value::U8(_) => Dtype::U8,
        Value::I8(_) => Dtype::I8,
        Value::U16(_) => Dtype::U16,
        Value::I16(_) => Dtype::I16,
        Value::U32(_) => Dtype::U32,
        Value::I32(_) => Dtype::I32,
        Value::U64(_) => Dtype::U64,
        Value::I64(_) => Dtype::I64,
        Value::U128(_) => Dtype::U128,
        Value::I128(_) => Dtype::I128,
        Value::F32(_) => Dtype::F32,
        Value::F64(_) => Dtype::F64,
        _ => return None,
    })
}

fn unchecked<E: ser::Error>() -> E {
    E::custom("a value was written without its check against the schema")
}

impl Serialize for Fit<'_, '_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let plan = self.plan;
        match (plan.node(self.id), self.value) {
            (Node::Unit | Node::UnitStruct(_), Value::Unit) => s.serialize_unit(),
            (Node::Bool, Value::Bool(v)) => s.serialize_bool(*v),
            (Node::Char, Value::Char(v)) => s.serialize_char(*v),
            (Node::Str, Value::Str(v)) => s.serialize_str(v),
            (Node::Bytes, Value::Bytes(v)) => s.serialize_bytes(v),
            (Node::Num(_), v) => serialize_number(v, s),
            (Node::Option(inner), Value::Option(o)) => match o {
                None => s.serialize_none(),
                Some(v) => s.serialize_some(&self.at(v, *inner)),
            },
            (Node::Seq(elem, _), Value::Seq(values)) => {
                let mut seq = s.serialize_seq(Some(values.len()))?;
                for v in values {
                    seq.serialize_element(&self.at(v, *elem))?;
                }
                seq.end()
            }
            (Node::Seq(..), Value::Block(b)) => serialize_block(b, s),
            (Node::Seq(elem, _), Value::Table(t)) => {
                let mut seq = s.serialize_seq(Some(t.len()))?;
                for v in t.iter() {
                    seq.serialize_element(&self.at(&v, *elem))?;
                }
                seq.end()
            }
            (Node::Map(k, v), Value::Map(entries)) => {
                use ser::SerializeMap;
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(&self.at(key, *k), &self.at(value, *v))?;
                }
                map.end()
            }
            (Node::Tuple(items) | Node::TupleStruct(_, items), Value::Tuple(values)) => {
                let mut t = s.serialize_tuple(values.len())?;
                for (&i, v) in items.iter().zip(values) {
                    t.serialize_element(&self.at(v, i))?;
                }
                t.end()
            }
            (Node::Repeat(item, _), Value::Tuple(values)) => {
                let mut t = s.serialize_tuple(values.len())?;
                for v in values {
                    t.serialize_element(&self.at(v, *item))?;
                }
                t.end()
            }
            (Node::Shaped(_), Value::Array(a)) => {
                crate::array::serialize_le_bytes(s, a.dtype, &a.shape, &a.data)
            }
            (Node::Newtype(_, inner), v) => s.serialize_newtype_struct("", &self.at(v, *inner)),
            (Node::Struct(_, fields), Value::Struct(st)) => {
                let mut t = s.serialize_tuple(fields.len())?;
                for (&f, v) in fields.iter().zip(st.values()) {
                    t.serialize_element(&self.at(v, f))?;
                }
                t.end()
            }
            (Node::Enum(_, variants), Value::Variant(v)) => {
                let index = v.index;
                let shape = &variants[index as usize].shape;
                match (shape, &v.value) {
                    (VariantShape::Unit, None) => s.serialize_unit_variant("", index, ""),
                    (VariantShape::Newtype(inner), Some(x)) => {
                        s.serialize_newtype_variant("", index, "", &self.at(x, *inner))
                    }
                    (VariantShape::Tuple(items), Some(Value::Tuple(values))) => {
                        use ser::SerializeTupleVariant;
                        let mut t = s.serialize_tuple_variant("", index, "", values.len())?;
                        for (&i, x) in items.iter().zip(values) {
                            t.serialize_field(&self.at(x, i))?;
                        }
                        t.end()
                    }
                    (VariantShape::Struct(_, fields), Some(Value::Struct(st))) => {
                        use ser::SerializeTupleVariant;
                        let mut t = s.serialize_tuple_variant("", index, "", fields.len())?;
                        for (&f, x) in fields.iter().zip(st.values()) {
                            t.serialize_field(&self.at(x, f))?;
                        }
                        t.end()
                    }
                    _ => Err(unchecked::<S::Error>()),
                }
            }
            _ => Err(unchecked::<S::Error>()),
        }
    }
}

pub(crate) fn serialize_number<S: ser::Serializer>(v: &Value<'_>, s: S) -> Result<S::Ok, S::Error> {
    match *v {
        Value::U8(x) => s.serialize_u8(x),
        Value::I8(x) => s.serialize_i8(x),
        Value::U16(x) => s.serialize_u16(x),
        Value::I16(x) => s.serialize_i16(x),
        Value::U32(x) => s.serialize_u32(x),
        Value::I32(x) => s.serialize_i32(x),
        Value::U64(x) => s.serialize_u64(x),
        Value::I64(x) => s.serialize_i64(x),
        Value::U128(x) => s.serialize_u128(x),
        Value::I128(x) => s.serialize_i128(x),
        Value::F32(x) => s.serialize_f32(x),
        Value::F64(x) => s.serialize_f64(x),
        _ => Err(unchecked::<S::Error>()),
    }
}

pub(crate) fn serialize_block<S: ser::Serializer>(b: &Block, s: S) -> Result<S::Ok, S::Error> {
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match b {
                $(Block::$variant(v) => v.serialize(s),)*
            }
        };
    }
    crate::dtype::with_dtypes!(each)
}
