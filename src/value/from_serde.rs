//! Values read from any self-describing serde format (JSON first) under a
//! [`Plan`], strictly (`spec/10-values.md`, 10.3): a value that does not
//! fit the schema is a `value-mismatch` naming its path, what the schema
//! expected and what was found.

use std::borrow::Cow;
use std::cell::Cell;

use serde::de::{self, DeserializeSeed, Visitor};

use super::encode::describe;
use super::plan::{Node, NodeId, Plan, SeqForm, VariantShape};
use super::{ArrayValue, Block, Struct, Table, Value, Variant, number};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};

pub(crate) fn from_deserializer<'de, D: de::Deserializer<'de>>(
    deserializer: D,
    plan: &Plan,
) -> Result<Value<'static>> {
    let failed = Cell::new(None);
    let seed = Seed {
        plan,
        id: plan.root(),
        failed: &failed,
        key: false,
    };
    match seed.deserialize(deserializer) {
        Ok(v) => Ok(v),
        Err(e) => Err(failed
            .take()
            .unwrap_or_else(|| Error::new(ErrorKind::Custom(e.to_string())))),
    }
}

/// Reads the value of one node; the first mismatch is kept in `failed`
/// (the format's own error type cannot carry it), and each level it
/// passes adds its step to the path.
#[derive(Clone, Copy)]
struct Seed<'p> {
    plan: &'p Plan,
    id: NodeId,
    failed: &'p Cell<Option<Error>>,
    /// A map key: formats hand numbers and bools in keys only to the
    /// methods of their type (JSON keys are strings).
    key: bool,
}

impl<'p> Seed<'p> {
    fn at(self, id: NodeId) -> Seed<'p> {
        Seed {
            id,
            key: false,
            ..self
        }
    }

    fn key_at(self, id: NodeId) -> Seed<'p> {
        Seed {
            id,
            key: true,
            ..self
        }
    }

    fn node(self) -> &'p Node {
        self.plan.node(self.id)
    }

    fn fail<E: de::Error>(self, found: impl Into<String>) -> E {
        self.failed.set(Some(Error::new(ErrorKind::ValueMismatch {
            expected: describe(self.plan, self.id),
            found: found.into(),
        })));
        E::custom("value does not fit the schema")
    }

    /// Adds a step to the path of a mismatch found below.
    fn step<T, E>(self, r: Result<T, E>, step: impl FnOnce(Error) -> Error) -> Result<T, E> {
        if r.is_err()
            && let Some(e) = self.failed.take()
        {
            self.failed.set(Some(step(e)));
        }
        r
    }

    fn int<E: de::Error>(self, v: i128) -> Result<Value<'static>, E> {
        let Node::Num(d) = *self.node() else {
            return Err(self.fail(format!("the number {v}")));
        };
        // Integers read as floats when exact.
        let out = Value::from_int(d, v);
        out.ok_or_else(|| self.fail(format!("the number {v}")))
    }

    fn float<E: de::Error>(self, v: f64) -> Result<Value<'static>, E> {
        match *self.node() {
            Node::Num(Dtype::F64) => Ok(Value::F64(v)),
            Node::Num(Dtype::F32) if (v as f32).is_finite() || !v.is_finite() => {
                Ok(Value::F32(v as f32))
            }
            _ => Err(self.fail(format!("the number {v}"))),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value<'static>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value<'static>, D::Error> {
        match self.node() {
            // Keys of JSON objects are strings, read back by `visit_str`.
            Node::Num(_) | Node::Bool if self.key => d.deserialize_any(self),
            Node::Num(Dtype::U128) => self.typed(d.deserialize_u128(self)),
            Node::Num(Dtype::I128) => self.typed(d.deserialize_i128(self)),
            Node::Option(_) => d.deserialize_option(self),
            Node::Newtype(name, inner) => {
                let inner = Seed { id: *inner, ..self };
                let r = inner.deserialize(d);
                self.step(r, |e| e.in_container(name.to_string()))
            }
            Node::Enum(..) => d.deserialize_enum("", &[], self),
            _ => d.deserialize_any(self),
        }
    }
}

impl Seed<'_> {
    /// A format that refuses a value of the wrong type before calling the
    /// visitor (serde_json's 128-bit integers) still fails as a mismatch.
    fn typed<E: de::Error>(self, r: Result<Value<'static>, E>) -> Result<Value<'static>, E> {
        let e = match r {
            Err(e) => e,
            ok => return ok,
        };
        match self.failed.take() {
            Some(earlier) => {
                self.failed.set(Some(earlier));
                Err(e)
            }
            None => Err(self.fail(e.to_string())),
        }
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value<'static>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe(self.plan, self.id))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value<'static>, E> {
        match self.node() {
            Node::Bool => Ok(Value::Bool(v)),
            _ => Err(self.fail(format!("the bool {v}"))),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value<'static>, E> {
        self.int(v.into())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value<'static>, E> {
        self.int(v.into())
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value<'static>, E> {
        self.int(v)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value<'static>, E> {
        match i128::try_from(v) {
            Ok(v) => self.int(v),
            Err(_) if matches!(self.node(), Node::Num(Dtype::U128)) => Ok(Value::U128(v)),
            Err(_) => Err(self.fail(format!("the number {v}"))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value<'static>, E> {
        self.float(v)
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<Value<'static>, E> {
        match self.node() {
            Node::Char => Ok(Value::Char(v)),
            Node::Str => Ok(Value::Str(Cow::Owned(v.to_string()))),
            _ => Err(self.fail(format!("the char {v:?}"))),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value<'static>, E> {
        match self.node() {
            // JSON keys are strings: a number or bool key is spelled out.
            Node::Num(d) if self.key => {
                let parsed = if matches!(d, Dtype::F32 | Dtype::F64) {
                    v.parse::<f64>().ok().map(|f| self.float(f))
                } else if let Ok(i) = v.parse::<i128>() {
                    Some(self.int(i))
                } else {
                    v.parse::<u128>().ok().map(|u| self.visit_u128(u))
                };
                parsed.unwrap_or_else(|| Err(self.fail(format!("the string {v:?}"))))
            }
            Node::Bool if self.key => match v {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(self.fail(format!("the string {v:?}"))),
            },
            Node::Str => Ok(Value::Str(Cow::Owned(v.to_owned()))),
            Node::Char => {
                let mut chars = v.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Ok(Value::Char(c)),
                    _ => Err(self.fail(format!("the string {v:?}"))),
                }
            }
            Node::Enum(_, variants) => {
                match variants
                    .iter()
                    .position(|p| &*p.name == v && matches!(p.shape, VariantShape::Unit))
                {
                    Some(i) => Ok(Value::Variant(Box::new(Variant {
                        name: variants[i].name.clone(),
                        index: i as u32,
                        value: None,
                    }))),
                    None => Err(self.fail(format!("the string {v:?}"))),
                }
            }
            _ => Err(self.fail(format!("the string {v:?}"))),
        }
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value<'static>, E> {
        match self.node() {
            Node::Bytes => Ok(Value::Bytes(Cow::Owned(v.to_vec()))),
            _ => Err(self.fail("bytes")),
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value<'static>, E> {
        match self.node() {
            Node::Unit | Node::UnitStruct(_) => Ok(Value::Unit),
            Node::Option(_) => Ok(Value::Option(None)),
            _ => Err(self.fail("null")),
        }
    }

    fn visit_none<E: de::Error>(self) -> Result<Value<'static>, E> {
        self.visit_unit()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value<'static>, D::Error> {
        match self.node() {
            Node::Option(inner) => {
                let v = self.at(*inner).deserialize(d)?;
                Ok(Value::Option(Some(Box::new(v))))
            }
            _ => self.deserialize(d),
        }
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value<'static>, A::Error> {
        let mut items: Vec<Value<'static>> = Vec::new();
        let each = |seq: &mut A, id: NodeId| -> Result<Option<Value<'static>>, A::Error> {
            seq.next_element_seed(self.at(id))
        };
        match self.node() {
            Node::Seq(elem, form) => {
                let mut i = 0u64;
                while let Some(v) = self.step(each(&mut seq, *elem), |e| e.in_index(i))? {
                    items.push(v);
                    i += 1;
                }
                Ok(match *form {
                    SeqForm::Plain => Value::Seq(items),
                    SeqForm::Block(d) => Value::Block(block_of(d, &items)),
                    SeqForm::Table { size, .. } => {
                        let mut bytes = Vec::with_capacity(items.len() * size);
                        for v in &items {
                            super::table::append(self.plan, *elem, v, &mut bytes);
                        }
                        Value::Table(Table::new(
                            self.plan,
                            *elem,
                            size,
                            items.len(),
                            Cow::Owned(bytes),
                        ))
                    }
                })
            }
            Node::Tuple(ids) | Node::TupleStruct(_, ids) => {
                for (i, &id) in ids.iter().enumerate() {
                    match self.step(each(&mut seq, id), |e| e.in_position(i))? {
                        Some(v) => items.push(v),
                        None => return Err(self.fail(format!("an array of {i}"))),
                    }
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(self.fail("a longer array"));
                }
                Ok(Value::Tuple(items))
            }
            Node::Repeat(id, n) => {
                for i in 0..*n as usize {
                    match self.step(each(&mut seq, *id), |e| e.in_position(i))? {
                        Some(v) => items.push(v),
                        None => return Err(self.fail(format!("an array of {i}"))),
                    }
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(self.fail("a longer array"));
                }
                Ok(Value::Tuple(items))
            }
            Node::Bytes => {
                let mut bytes = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    bytes.push(b);
                }
                Ok(Value::Bytes(Cow::Owned(bytes)))
            }
            Node::Map(k, v) => {
                // The form of maps whose keys are not object keys: [[k, v], ...].
                let mut entries = Vec::new();
                let mut i = 0u64;
                let pair = Pair {
                    key: self.at(*k),
                    value: self.at(*v),
                };
                while let Some(entry) = self.step(seq.next_element_seed(pair), |e| e.in_entry(i))? {
                    entries.push(entry);
                    i += 1;
                }
                Ok(Value::Map(entries))
            }
            _ => Err(self.fail("an array")),
        }
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value<'static>, A::Error> {
        match self.node() {
            Node::Map(k, v) => {
                let mut entries = Vec::new();
                let mut i = 0u64;
                while let Some(key) =
                    self.step(map.next_key_seed(self.key_at(*k)), |e| e.in_entry(i))?
                {
                    let value = self.step(map.next_value_seed(self.at(*v)), |e| e.in_entry(i))?;
                    entries.push((key, value));
                    i += 1;
                }
                Ok(Value::Map(entries))
            }
            Node::Struct(names, fields) => {
                let container = names.container.to_string();
                let values = self
                    .step(struct_fields(self, &mut map, &names.fields, fields), |e| {
                        e.in_container(container)
                    })?;
                Ok(Value::Struct(Struct::from_parts(names.clone(), values)))
            }
            Node::Shaped(dtype) => shaped(self, &mut map, *dtype),
            _ => Err(self.fail("an object")),
        }
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value<'static>, A::Error> {
        use de::VariantAccess;
        let Node::Enum(enum_name, variants) = self.node() else {
            return Err(self.fail("an enum"));
        };
        let (name, access) = data.variant::<String>()?;
        let Some(index) = variants.iter().position(|p| *p.name == *name) else {
            let r = Err(self.fail(format!("the variant {name:?}")));
            return self.step(r, |e| e.in_container(enum_name.to_string()));
        };
        let plan_v = &variants[index];
        let value = match &plan_v.shape {
            VariantShape::Unit => access.unit_variant().map(|()| None),
            VariantShape::Newtype(inner) => access.newtype_variant_seed(self.at(*inner)).map(Some),
            VariantShape::Tuple(items) => access
                .tuple_variant(
                    items.len(),
                    Payload {
                        seed: self,
                        items: Some(items),
                        names: None,
                    },
                )
                .map(Some),
            VariantShape::Struct(names, fields) => access
                .struct_variant(
                    &[],
                    Payload {
                        seed: self,
                        items: Some(fields),
                        names: Some(names),
                    },
                )
                .map(Some),
        };
        let value = self.step(value, |e| {
            e.in_variant(plan_v.name.to_string())
                .in_container(enum_name.to_string())
        })?;
        Ok(Value::Variant(Box::new(Variant {
            name: plan_v.name.clone(),
            index: index as u32,
            value,
        })))
    }
}

/// A struct's fields from an object, by name, in the schema's order.
fn struct_fields<'de, A: de::MapAccess<'de>>(
    seed: Seed<'_>,
    map: &mut A,
    names: &[std::sync::Arc<str>],
    fields: &[NodeId],
) -> Result<Vec<Value<'static>>, A::Error> {
    let mut values: Vec<Option<Value<'static>>> = vec![None; fields.len()];
    while let Some(key) = map.next_key::<String>()? {
        let Some(i) = names.iter().position(|n| **n == *key) else {
            return Err(seed.fail(format!("the unknown field {key:?}")));
        };
        if values[i].is_some() {
            return Err(seed.fail(format!("the field {key:?} twice")));
        }
        let name = names[i].to_string();
        values[i] = Some(seed.step(map.next_value_seed(seed.at(fields[i])), |e| {
            e.in_field(name)
        })?);
    }
    values
        .into_iter()
        .zip(names)
        .map(|(v, n)| v.ok_or_else(|| seed.fail(format!("no field {n:?}"))))
        .collect()
}

/// A shaped array from `{"shape": [...], "data": [...]}`.
fn shaped<'de, A: de::MapAccess<'de>>(
    seed: Seed<'_>,
    map: &mut A,
    dtype: Dtype,
) -> Result<Value<'static>, A::Error> {
    let mut shape: Option<Vec<usize>> = None;
    let mut data: Option<Vec<Value<'static>>> = None;
    let elem = DataSeed { seed, dtype };
    while let Some(key) = map.next_key::<String>()? {
        match key.as_str() {
            "shape" if shape.is_none() => shape = Some(map.next_value()?),
            "data" if data.is_none() => data = Some(map.next_value_seed(elem)?),
            _ => return Err(seed.fail(format!("the key {key:?}"))),
        }
    }
    let (Some(shape), Some(data)) = (shape, data) else {
        return Err(seed.fail("an object without shape and data"));
    };
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if count != Some(data.len()) {
        return Err(seed.fail(format!("{} elements for the shape {shape:?}", data.len())));
    }
    let mut bytes = Vec::with_capacity(data.len() * dtype.size());
    for v in &data {
        super::table::append_number(v, &mut bytes);
    }
    Ok(Value::Array(ArrayValue {
        dtype,
        shape,
        data: Cow::Owned(bytes),
    }))
}

/// The elements of a shaped array, numbers of one type.
#[derive(Clone, Copy)]
struct DataSeed<'p> {
    seed: Seed<'p>,
    dtype: Dtype,
}

impl<'de> DeserializeSeed<'de> for DataSeed<'_> {
    type Value = Vec<Value<'static>>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for DataSeed<'_> {
    type Value = Vec<Value<'static>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "an array of {}", self.dtype)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // A number node of the element type, found by value: every plan
        // that has `array<T>` reads its elements as `T`.
        let mut out = Vec::new();
        let num = NumSeed {
            failed: self.seed.failed,
            plan: self.seed.plan,
            id: self.seed.id,
            dtype: self.dtype,
        };
        let mut i = 0u64;
        while let Some(v) = self
            .seed
            .step(seq.next_element_seed(num), |e| e.in_index(i))?
        {
            out.push(v);
            i += 1;
        }
        Ok(out)
    }
}

/// One number of a given element type (for shaped arrays, whose plan
/// node is the array's).
#[derive(Clone, Copy)]
struct NumSeed<'p> {
    failed: &'p Cell<Option<Error>>,
    plan: &'p Plan,
    id: NodeId,
    dtype: Dtype,
}

impl<'de> DeserializeSeed<'de> for NumSeed<'_> {
    type Value = Value<'static>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value<'static>, D::Error> {
        let v = serde_json_number(d)?;
        let fits = match (&v, self.dtype) {
            (Number::Float(f), Dtype::F64) => Some(Value::F64(*f)),
            (Number::Float(f), Dtype::F32) => Some(Value::F32(*f as f32)),
            (Number::Int(i), d) => {
                let mut bytes = Vec::new();
                int_bytes(*i, d, &mut bytes).map(|()| number(d, &bytes))
            }
            _ => None,
        };
        fits.ok_or_else(|| {
            self.failed.set(Some(Error::new(ErrorKind::ValueMismatch {
                expected: format!("{} elements ({})", self.dtype, describe(self.plan, self.id)),
                found: format!("{v:?}"),
            })));
            de::Error::custom("value does not fit the schema")
        })
    }
}

#[derive(Debug)]
enum Number {
    Int(i128),
    Float(f64),
    Other,
}

fn serde_json_number<'de, D: de::Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Number;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a number")
        }
        fn visit_i64<E>(self, v: i64) -> Result<Number, E> {
            Ok(Number::Int(v.into()))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Number, E> {
            Ok(Number::Int(v.into()))
        }
        fn visit_i128<E>(self, v: i128) -> Result<Number, E> {
            Ok(Number::Int(v))
        }
        fn visit_u128<E>(self, v: u128) -> Result<Number, E> {
            Ok(i128::try_from(v).map_or(Number::Other, Number::Int))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Number, E> {
            Ok(Number::Float(v))
        }
        fn visit_unit<E>(self) -> Result<Number, E> {
            Ok(Number::Other)
        }
        fn visit_str<E>(self, _: &str) -> Result<Number, E> {
            Ok(Number::Other)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Number, E> {
            Ok(Number::Other)
        }
    }
    d.deserialize_any(V)
}

/// The little-endian bytes of integer `v` as element type `d`, if it fits.
fn int_bytes(v: i128, d: Dtype, out: &mut Vec<u8>) -> Option<()> {
    match d {
        Dtype::U8 => out.extend(u8::try_from(v).ok()?.to_le_bytes()),
        Dtype::I8 => out.extend(i8::try_from(v).ok()?.to_le_bytes()),
        Dtype::U16 => out.extend(u16::try_from(v).ok()?.to_le_bytes()),
        Dtype::I16 => out.extend(i16::try_from(v).ok()?.to_le_bytes()),
        Dtype::U32 => out.extend(u32::try_from(v).ok()?.to_le_bytes()),
        Dtype::I32 => out.extend(i32::try_from(v).ok()?.to_le_bytes()),
        Dtype::U64 => out.extend(u64::try_from(v).ok()?.to_le_bytes()),
        Dtype::I64 => out.extend(i64::try_from(v).ok()?.to_le_bytes()),
        Dtype::U128 => out.extend(u128::try_from(v).ok()?.to_le_bytes()),
        Dtype::I128 => out.extend(v.to_le_bytes()),
        Dtype::F32 => out.extend((v as f32).to_bits().to_le_bytes()),
        Dtype::F64 => out.extend((v as f64).to_bits().to_le_bytes()),
    }
    Some(())
}

/// A `[key, value]` pair of a map written as an array.
#[derive(Clone, Copy)]
struct Pair<'p> {
    key: Seed<'p>,
    value: Seed<'p>,
}

impl<'de> DeserializeSeed<'de> for Pair<'_> {
    type Value = (Value<'static>, Value<'static>);

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_tuple(2, self)
    }
}

impl<'de> Visitor<'de> for Pair<'_> {
    type Value = (Value<'static>, Value<'static>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a [key, value] pair")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let key = seq.next_element_seed(self.key)?;
        let value = seq.next_element_seed(self.value)?;
        match (key, value, seq.next_element::<de::IgnoredAny>()?) {
            (Some(k), Some(v), None) => Ok((k, v)),
            _ => Err(self.key.fail("an entry that is not a [key, value] pair")),
        }
    }
}

/// The payload of a tuple or struct variant.
struct Payload<'p> {
    seed: Seed<'p>,
    items: Option<&'p [NodeId]>,
    names: Option<&'p std::sync::Arc<super::plan::Names>>,
}

impl<'de> Visitor<'de> for Payload<'_> {
    type Value = Value<'static>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a variant's payload")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value<'static>, A::Error> {
        let items = self.items.unwrap_or(&[]);
        if self.names.is_some() {
            return Err(self.seed.fail("an array"));
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, &id) in items.iter().enumerate() {
            match self
                .seed
                .step(seq.next_element_seed(self.seed.at(id)), |e| {
                    e.in_position(i)
                })? {
                Some(v) => out.push(v),
                None => return Err(self.seed.fail(format!("an array of {i}"))),
            }
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(self.seed.fail("a longer array"));
        }
        Ok(Value::Tuple(out))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value<'static>, A::Error> {
        let (Some(names), Some(items)) = (self.names, self.items) else {
            return Err(self.seed.fail("an object"));
        };
        let values = struct_fields(self.seed, &mut map, &names.fields, items)?;
        Ok(Value::Struct(Struct::from_parts(names.clone(), values)))
    }
}

fn block_of(dtype: Dtype, items: &[Value<'static>]) -> Block {
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match dtype {
                $(Dtype::$variant => Block::$variant(
                    items.iter().filter_map(|v| match v {
                        Value::$variant(x) => Some(*x),
                        _ => None,
                    }).collect(),
                ),)*
            }
        };
    }
    crate::dtype::with_dtypes!(each)
}
