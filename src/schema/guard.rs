//! The frame writer's guard: what a `Serialize` impl writes is checked
//! against the schema the frame stamps, so a frame never holds bytes its
//! own schema would misread (`spec/06-frame.md`, 6.7).
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
//! not part of the bytes), once per distinct call site (see [`Guarded`]
//! for how calls that passed are remembered).

use std::sync::atomic::{AtomicU64, Ordering};

use super::model::{Container, Model, Shape};
use crate::error::{Error, ErrorKind, Result};
use crate::ser::{Check, Written, WrittenShape};

/// The schema's containers, ready for checks.
#[derive(Debug)]
pub struct Guard {
    model: Model,
    /// Digests of calls that passed, so that a later frame of the same
    /// type does not check them again.
    passed: [AtomicU64; SLOTS],
}

impl Guard {
    pub(crate) fn new(model: Model) -> Guard {
        Guard {
            model,
            passed: [const { AtomicU64::new(0) }; SLOTS],
        }
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

/// One call of the serializer, by the addresses of its `&'static str`
/// names: the same call site passes the same addresses, so comparing keys
/// needs no string compare.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Key {
    name: usize,
    name_len: usize,
    variant: usize,
    /// The shape's tag in bits 0-2, its length (capped) in bits 3-31, the
    /// variant index in bits 32-63.
    shape: u64,
}

impl Key {
    #[inline]
    fn of(written: &Written) -> Key {
        let name = written.container();
        let (variant, index) = match written {
            Written::Variant { variant, index, .. } => (variant.as_ptr() as usize, *index),
            Written::Struct { .. } => (0, 0),
        };
        let (tag, len) = match *written.shape() {
            WrittenShape::Unit => (1, 0),
            WrittenShape::Newtype => (2, 0),
            WrittenShape::Tuple(n) => (3, n),
            WrittenShape::Fields(n) => (4, n),
        };
        Key {
            name: name.as_ptr() as usize,
            name_len: name.len(),
            variant,
            shape: tag | (len.min(CAP) as u64) << 3 | u64::from(index) << 32,
        }
    }

    /// Whether the key says all there is: lengths from [`CAP`] on are
    /// packed as `CAP`, and such calls are checked every time.
    fn exact(&self) -> bool {
        (self.shape >> 3) & CAP as u64 != CAP as u64
    }

    /// A 64-bit digest of the key, for the guard's table of calls that
    /// passed.
    fn digest(&self) -> u64 {
        let mut h = 0u64;
        for w in [
            self.name as u64,
            self.name_len as u64,
            self.variant as u64,
            self.shape,
        ] {
            h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 29;
        }
        h | 1 // never the empty slot's 0
    }
}

/// Lengths from this on are not remembered.
const CAP: usize = (1 << 29) - 1;

/// Slots of the guard's table of calls that passed.
const SLOTS: usize = 64;

/// A [`Check`] that consults a [`Guard`]; with no guard (a schema known
/// only by its fingerprint), the serializer still counts the values of
/// every struct and tuple against their declared length.
///
/// The last call that passed is kept here, so a batch of one type costs a
/// compare of four words per struct; other calls that passed before, in
/// this frame or an earlier one, are found in the guard's table by their
/// digest (a 64-bit digest that two calls share by chance would let the
/// second pass unchecked, as likely as two schemas sharing a
/// fingerprint).
pub(crate) struct Guarded<'a> {
    guard: Option<&'a Guard>,
    last: Key,
}

impl<'a> Guarded<'a> {
    /// The check for frames of `schema`.
    pub(crate) fn new(schema: &'a super::Canonical) -> Self {
        Guarded {
            guard: schema.guard(),
            last: Key::default(),
        }
    }
}

impl crate::ser::private::Sealed for Guarded<'_> {}

impl Check for Guarded<'_> {
    const ON: bool = true;

    #[inline]
    fn written(&mut self, written: Written) -> Result<()> {
        let key = Key::of(&written);
        if key == self.last {
            return Ok(());
        }
        self.verify_slow(written, key)
    }
}

/// A check that outlives one serializer (a streamed frame writer makes a
/// serializer per record and keeps the check).
impl crate::ser::private::Sealed for &mut Guarded<'_> {}

impl Check for &mut Guarded<'_> {
    const ON: bool = true;

    #[inline]
    fn written(&mut self, written: Written) -> Result<()> {
        (**self).written(written)
    }
}

impl Guarded<'_> {
    #[cold]
    #[inline(never)]
    fn verify_slow(&mut self, written: Written, key: Key) -> Result<()> {
        let Some(guard) = self.guard else {
            return Ok(());
        };
        if !key.exact() {
            return guard.verify(&written);
        }
        let digest = key.digest();
        let slot = &guard.passed[digest as usize % SLOTS];
        if slot.load(Ordering::Relaxed) != digest {
            guard.verify(&written)?;
            slot.store(digest, Ordering::Relaxed);
        }
        self.last = key;
        Ok(())
    }
}
