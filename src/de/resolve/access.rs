//! The access objects a resolution hands the reader's visitors: elements,
//! map entries, a struct's fields by the reader's names, and variants.

use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Visitor};

use super::skip::skip_value;
use super::{FieldStep, Payload, Resolution, StepId, VariantStep, disagree, fixed, value};
use crate::de::{Decoder, detail, fail};
use crate::error::{Error, ErrorKind, Result};
use crate::read::Read;

/// The elements of a resolved sequence, tuple or array.
#[derive(Clone, Copy)]
pub(super) enum Items<'p> {
    /// Every element has this step.
    Repeat(StepId),
    /// Element `i` has step `i`.
    List(&'p [StepId]),
}

pub(super) struct Elements<'a, 'p, R, const D: bool> {
    pub(super) de: &'a mut Decoder<R, D>,
    pub(super) res: &'a Resolution,
    pub(super) items: Items<'p>,
    pub(super) left: u64,
    pub(super) index: u64,
}

impl<'de, R: Read<'de>, const D: bool> de::SeqAccess<'de> for Elements<'_, '_, R, D> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let step = match self.items {
            Items::Repeat(step) => step,
            Items::List(steps) => steps[self.index as usize],
        };
        let start = self.de.offset();
        let index = self.index;
        let v = value(self.de, self.res, step, seed)
            .map_err(|e| detail::<D>(e, |e| e.or_offset(start).in_index(index)))?;
        if self.de.offset() == start {
            self.de
                .charge_zero_sized(std::mem::size_of::<S::Value>())
                .map_err(|e| detail::<D>(e, |e| e.in_index(index)))?;
        }
        self.index += 1;
        Ok(Some(v))
    }

    fn size_hint(&self) -> Option<usize> {
        // Never more than a bounded number ahead: memory follows the
        // elements actually read, not the count the input claims.
        Some(self.left.min(4096) as usize)
    }
}

pub(super) struct Entries<'a, R, const D: bool> {
    pub(super) de: &'a mut Decoder<R, D>,
    pub(super) res: &'a Resolution,
    pub(super) key: StepId,
    pub(super) value: StepId,
    pub(super) left: u32,
    pub(super) index: u64,
    /// Offset at which the current entry began.
    pub(super) start: u64,
}

impl<'de, R: Read<'de>, const D: bool> de::MapAccess<'de> for Entries<'_, R, D> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.start = self.de.offset();
        let (start, index) = (self.start, self.index);
        value(self.de, self.res, self.key, seed)
            .map(Some)
            .map_err(|e| detail::<D>(e, |e| e.or_offset(start).in_entry(index)))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let (start, index) = (self.start, self.index);
        let v = value(self.de, self.res, self.value, seed)
            .map_err(|e| detail::<D>(e, |e| e.or_offset(start).in_entry(index)))?;
        if self.de.offset() == start {
            self.de
                .charge_zero_sized(std::mem::size_of::<V::Value>())
                .map_err(|e| detail::<D>(e, |e| e.in_entry(index)))?;
        }
        self.index += 1;
        Ok(v)
    }

    fn size_hint(&self) -> Option<usize> {
        Some((self.left as usize).min(4096))
    }
}

/// A struct's fields as a map of the reader's names, in the writer's
/// order; the fields the reader dropped are skipped on the way.
pub(super) struct Fields<'a, R, const D: bool> {
    de: &'a mut Decoder<R, D>,
    res: &'a Resolution,
    fields: &'a [FieldStep],
    next: usize,
    /// The field whose name was handed out last: its name, step, offset.
    current: Option<(&'a Arc<str>, StepId, u64)>,
}

impl<'a, R, const D: bool> Fields<'a, R, D> {
    pub(super) fn new(
        de: &'a mut Decoder<R, D>,
        res: &'a Resolution,
        fields: &'a [FieldStep],
    ) -> Self {
        Fields {
            de,
            res,
            fields,
            next: 0,
            current: None,
        }
    }
}

impl<'de, R: Read<'de>, const D: bool> de::MapAccess<'de> for Fields<'_, R, D> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        while let Some(field) = self.fields.get(self.next) {
            self.next += 1;
            match field {
                FieldStep::Drop { name, skip } => {
                    let start = self.de.offset();
                    skip_value(self.de, self.res, *skip)
                        .map_err(|e| detail::<D>(e, |e| in_field(e.or_offset(start), name)))?;
                }
                FieldStep::Keep { name, step } => {
                    let start = self.de.offset();
                    self.current = Some((name, *step, start));
                    return seed
                        .deserialize(Name::<D>(name))
                        .map(Some)
                        .map_err(|e| detail::<D>(e, |e| in_field(e.or_offset(start), name)));
                }
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some((name, step, start)) = self.current.take() else {
            return Err(disagree::<D>(self.de.offset(), "a value without a name"));
        };
        value(self.de, self.res, step, seed)
            .map_err(|e| detail::<D>(e, |e| in_field(e.or_offset(start), name)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next)
    }
}

#[cold]
#[inline(never)]
fn in_field(e: Error, name: &str) -> Error {
    e.in_field(name.to_owned())
}

/// A field or variant name handed to the reader's identifier visitor.
pub(super) struct Name<'a, const D: bool>(&'a str);

impl<'de, const D: bool> de::Deserializer<'de> for Name<'_, D> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_str(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

pub(super) struct Enum<'a, R, const D: bool> {
    pub(super) de: &'a mut Decoder<R, D>,
    pub(super) res: &'a Resolution,
    pub(super) name: &'a Arc<str>,
    pub(super) variants: &'a [VariantStep],
}

/// The payload of a variant the reader reads as its `other` variant:
/// none (the writer's was skipped).
static UNIT: Payload = Payload::Unit;

impl<'de, 'a, R: Read<'de>, const D: bool> de::EnumAccess<'de> for Enum<'a, R, D> {
    type Error = Error;
    type Variant = VariantAccess<'a, R, D>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let Enum {
            de,
            res,
            name,
            variants,
        } = self;
        let offset = de.offset();
        let index = de.raw_variant(name, variants.len())?;
        let (reader_name, payload) = match &variants[index as usize] {
            VariantStep::To { name, payload } => (name, payload),
            VariantStep::Other { name, skips } => {
                for skip in skips.iter() {
                    skip_value(de, res, *skip)?;
                }
                (name, &UNIT)
            }
            VariantStep::Unknown { name: variant } => {
                let enum_name = name;
                return Err(fail::<D>(
                    || ErrorKind::VariantNotInReader {
                        enum_name: enum_name.to_string(),
                        variant: variant.to_string(),
                    },
                    offset,
                ));
            }
        };
        let v = seed
            .deserialize(Name::<D>(reader_name))
            .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset)))?;
        Ok((
            v,
            VariantAccess {
                de,
                res,
                name: reader_name,
                payload,
            },
        ))
    }
}

pub(super) struct VariantAccess<'a, R, const D: bool> {
    de: &'a mut Decoder<R, D>,
    res: &'a Resolution,
    name: &'a Arc<str>,
    payload: &'a Payload,
}

impl<'de, R: Read<'de>, const D: bool> de::VariantAccess<'de> for VariantAccess<'_, R, D> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        match self.payload {
            Payload::Unit => Ok(()),
            _ => Err(disagree::<D>(self.de.offset(), "a unit variant other")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        let Payload::Newtype(step) = self.payload else {
            return Err(disagree::<D>(self.de.offset(), "a newtype variant other"));
        };
        let (start, name) = (self.de.offset(), self.name);
        value(self.de, self.res, *step, seed)
            .map_err(|e| detail::<D>(e, |e| e.or_offset(start).in_variant(name.to_string())))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        let Payload::Tuple(steps) = self.payload else {
            return Err(disagree::<D>(self.de.offset(), "a tuple variant other"));
        };
        let name = self.name;
        fixed(
            self.de,
            self.res,
            Items::List(steps),
            steps.len() as u64,
            visitor,
        )
        .map_err(|e| detail::<D>(e, |e| e.in_variant(name.to_string())))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let Payload::Struct(fields) = self.payload else {
            return Err(disagree::<D>(self.de.offset(), "a struct variant other"));
        };
        let name = self.name;
        self.de
            .raw_nested(|de| visitor.visit_map(Fields::new(de, self.res, fields)))
            .map_err(|e| detail::<D>(e, |e| e.in_variant(name.to_string())))
    }
}
