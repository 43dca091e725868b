//! The frame writer's guard: what a `Serialize` impl writes is checked
//! against the schema the frame stamps, so a frame never holds bytes its
//! own schema would misread (`spec/06-frame.md`, 6.4).
//!
//! The schema comes from `Deserialize`, the bytes from `Serialize`, and
//! serde lets the two disagree: a field with `#[serde(skip_serializing)]`
//! is written by neither name nor position but read all the same, and a
//! variant with `#[serde(skip_deserializing)]` shifts the indices of the
//! variants after it on the reading side only. Kiln writes no names, so
//! such bytes would be read back silently wrong. The serializer tells the
//! guard the name and size of every struct, tuple struct and variant it is
//! asked to write; the guard compares them with the schema's container of
//! that name (a name the schema does not have is not checked: names are
//! not part of the bytes), once per distinct call site (a small memo of names already
//! seen keeps the per-record cost to a few compares).

use super::model::{Container, Model, Shape};
use crate::error::{Error, ErrorKind, Result};
use crate::ser::{Check, Written, WrittenShape};

/// The schema's containers, ready for checks.
#[derive(Debug)]
pub struct Guard {
    model: Model,
}

impl Guard {
    pub(crate) fn new(model: Model) -> Guard {
        Guard { model }
    }

    /// The model checked against.
    pub(crate) fn model(&self) -> &Model {
        &self.model
    }

    /// Checks one call of the serializer against the schema.
    fn verify(&self, written: &Written) -> Result<()> {
        let name = written.container();
        if crate::array::request(name).is_some() {
            return Ok(()); // a shaped array's marker, checked by its own code
        }
        // Names are not written, so a container the schema does not name
        // (a hand-written `Deserialize` reading it as another struct of the
        // same layout) cannot be checked here, and is not refused.
        let Some(container) = self.model.containers.get(name) else {
            return Ok(());
        };
        match (written, container) {
            (
                Written::Variant {
                    index,
                    variant,
                    shape,
                    ..
                },
                Container::Enum(variants),
            ) => {
                let Some(v) = variants.get(*index as usize) else {
                    return Err(mismatch(
                        written,
                        format!(
                            "the schema's enum has {} variants, so index {index} reads as \
                             nothing; a variant is skipped when deserializing \
                             (#[serde(skip_deserializing)] shifts the indices)",
                            variants.len()
                        ),
                    ));
                };
                if v.name != *variant {
                    return Err(mismatch(
                        written,
                        format!(
                            "index {index} is `{}` in the schema, so this variant would be read \
                             back as `{}`; a variant before it is skipped when deserializing \
                             (#[serde(skip_deserializing)] shifts the indices)",
                            v.name, v.name
                        ),
                    ));
                }
                same_shape(written, shape, &v.shape)
            }
            (Written::Struct { shape, .. }, Container::Struct(expected)) => {
                same_shape(written, shape, expected)
            }
            (_, Container::Enum(_)) => Err(mismatch(
                written,
                format!("`{name}` is an enum in the schema"),
            )),
            (Written::Variant { .. }, Container::Struct(_)) => Err(mismatch(
                written,
                format!("`{name}` is a struct in the schema"),
            )),
        }
    }
}

/// Whether what was written has the shape the schema reads.
fn same_shape(written: &Written, shape: &WrittenShape, expected: &Shape) -> Result<()> {
    let ok = match (shape, expected) {
        (WrittenShape::Unit, Shape::Unit) | (WrittenShape::Newtype, Shape::Newtype(_)) => true,
        (WrittenShape::Tuple(n), Shape::Tuple(items)) => *n == items.len(),
        (WrittenShape::Fields(n), Shape::Struct(fields)) => *n == fields.len(),
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let mut why = format!("the schema reads {}", expected.describe());
    if let (WrittenShape::Fields(n), Shape::Struct(fields)) = (shape, expected) {
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        why = format!(
            "the schema reads {} fields ({}) where {n} are written; a field is skipped when \
             serializing but read when deserializing (#[serde(skip_serializing)] without \
             skip_deserializing), or the Serialize and Deserialize impls disagree",
            fields.len(),
            names.join(", ")
        );
    }
    Err(mismatch(written, why))
}

#[cold]
fn mismatch(written: &Written, why: String) -> Error {
    Error::new(ErrorKind::SerializeMismatch {
        what: written.describe(),
        why,
    })
}

/// Calls already checked, by the addresses of their `&'static str` names:
/// the same call site passes the same addresses, so a hit costs a few
/// compares and no string compare.
#[derive(Default)]
pub(crate) struct Memo {
    seen: [Key; 8],
    next: usize,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Key {
    name: usize,
    name_len: usize,
    variant: usize,
    shape: u64,
}

impl Key {
    fn of(written: &Written) -> Key {
        let name = written.container();
        let (variant, index) = match written {
            Written::Variant { variant, index, .. } => (variant.as_ptr() as usize, *index),
            Written::Struct { .. } => (0, 0),
        };
        let shape = match written.shape() {
            WrittenShape::Unit => 1,
            WrittenShape::Newtype => 2,
            WrittenShape::Tuple(n) => 3 | (*n as u64) << 3,
            WrittenShape::Fields(n) => 4 | (*n as u64) << 3,
        };
        Key {
            name: name.as_ptr() as usize,
            name_len: name.len(),
            variant: variant ^ (index as usize).rotate_left(48),
            shape,
        }
    }
}

/// A [`Check`] that consults a [`Guard`] and remembers what passed; with
/// no guard (a schema known only by its fingerprint), it still counts the
/// values of every struct and tuple against their declared length.
pub(crate) struct Guarded<'a> {
    guard: Option<&'a Guard>,
    memo: &'a mut Memo,
}

impl<'a> Guarded<'a> {
    /// The check for frames of `schema`, remembering in `memo`.
    pub(crate) fn new(schema: &'a super::Schema, memo: &'a mut Memo) -> Self {
        Guarded {
            guard: schema.guard(),
            memo,
        }
    }
}

impl crate::ser::private::Sealed for Guarded<'_> {}

impl Check for Guarded<'_> {
    const ON: bool = true;

    #[inline]
    fn written(&mut self, written: Written) -> Result<()> {
        let key = Key::of(&written);
        if self.memo.seen.contains(&key) {
            return Ok(());
        }
        self.verify_slow(written, key)
    }
}

impl Guarded<'_> {
    #[cold]
    #[inline(never)]
    fn verify_slow(&mut self, written: Written, key: Key) -> Result<()> {
        if let Some(guard) = self.guard {
            guard.verify(&written)?;
        }
        let slot = self.memo.next % self.memo.seen.len();
        self.memo.seen[slot] = key;
        self.memo.next = slot + 1;
        Ok(())
    }
}
