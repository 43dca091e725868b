//! Every [`Value`] as serde data (`spec/10-values.md`, 10.2): `Serialize`
//! for [`Value`], so that a record read without its type converts to
//! JSON, YAML or any serde format.

use serde::ser::{self, Serialize, SerializeMap, SerializeSeq};

use super::encode::{serialize_block, serialize_number};
use super::{ArrayValue, Struct, Table, Value};

impl Serialize for Value<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Unit => s.serialize_unit(),
            Value::Bool(v) => s.serialize_bool(*v),
            Value::Char(v) => s.serialize_char(*v),
            Value::Str(v) => s.serialize_str(v),
            Value::Bytes(v) => s.serialize_bytes(v),
            Value::Option(None) => s.serialize_none(),
            Value::Option(Some(v)) => s.serialize_some(v),
            Value::Seq(values) | Value::Tuple(values) => {
                let mut seq = s.serialize_seq(Some(values.len()))?;
                for v in values {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Block(b) => serialize_block(b, s),
            Value::Table(t) => t.serialize(s),
            Value::Map(entries) => {
                if entries.iter().all(|(k, _)| is_key(k)) {
                    let mut map = s.serialize_map(Some(entries.len()))?;
                    for (k, v) in entries {
                        map.serialize_entry(&Key(k), v)?;
                    }
                    map.end()
                } else {
                    let mut seq = s.serialize_seq(Some(entries.len()))?;
                    for (k, v) in entries {
                        seq.serialize_element(&(k, v))?;
                    }
                    seq.end()
                }
            }
            Value::Struct(st) => st.serialize(s),
            Value::Variant(v) => match &v.value {
                None => s.serialize_str(&v.name),
                Some(inner) => {
                    let mut map = s.serialize_map(Some(1))?;
                    map.serialize_entry(&*v.name, inner)?;
                    map.end()
                }
            },
            Value::Array(a) => a.serialize(s),
            v => serialize_number(v, s),
        }
    }
}

/// Whether a map key is written as an object key: strings, chars, bools
/// and numbers (`spec/10-values.md`, 10.2; the reader without the type
/// decides the same from the schema).
fn is_key(key: &Value<'_>) -> bool {
    match key {
        Value::Str(_) | Value::Char(_) | Value::Bool(_) => true,
        v => super::encode::number_dtype(v).is_some(),
    }
}

/// A map key: non-finite floats are spelled `NaN`, `inf`, `-inf` (JSON
/// keys are strings; serde_json would refuse them).
struct Key<'k, 'a>(&'k Value<'a>);

impl Serialize for Key<'_, '_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self.0 {
            Value::F32(f) if !f.is_finite() => {
                s.serialize_str(super::json_out::non_finite_key(f.into()))
            }
            Value::F64(f) if !f.is_finite() => s.serialize_str(super::json_out::non_finite_key(f)),
            ref v => v.serialize(s),
        }
    }
}

impl Serialize for Struct<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.values().len()))?;
        for (name, v) in self.fields() {
            map.serialize_entry(name, v)?;
        }
        map.end()
    }
}

impl Serialize for Table<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for v in self.iter() {
            seq.serialize_element(&v)?;
        }
        seq.end()
    }
}

/// An array as its `Serialize` writes it to formats other than Kiln:
/// `{"shape": [...], "data": [...]}`.
impl Serialize for ArrayValue<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Data<'x, 'a>(&'x ArrayValue<'a>);
        impl Serialize for Data<'_, '_> {
            fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for i in 0..self.0.len() {
                    seq.serialize_element(&self.0.get(i).unwrap_or(Value::Unit))?;
                }
                seq.end()
            }
        }
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("shape", &self.shape)?;
        map.serialize_entry("data", &Data(self))?;
        map.end()
    }
}
