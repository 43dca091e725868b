//! The layer a frame writer puts over the serializer to check what a
//! `Serialize` impl writes against the frame's schema (`spec/06-frame.md`, 6.7).

use super::private;
use crate::error::Result;

/// A layer over the serializer that is told of every named container it
/// writes, before its bytes: the frame writer's schema guard
/// (`schema::guard`), or [`Unchecked`]. Sealed.
#[doc(hidden)]
pub trait Check: private::Sealed {
    /// Whether the check does anything; when not, tuples and structs are
    /// not counted either.
    const ON: bool;

    /// Called before the bytes of a struct, tuple struct, newtype or unit
    /// struct, or enum variant are written.
    fn written(&mut self, written: Written) -> Result<()>;
}

/// No check: what bare records are written with.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unchecked;

impl private::Sealed for Unchecked {}

impl Check for Unchecked {
    const ON: bool = false;

    #[inline(always)]
    fn written(&mut self, _: Written) -> Result<()> {
        Ok(())
    }
}

/// A named container the serializer is asked to write.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Written {
    /// A struct, tuple struct, newtype struct or unit struct.
    Struct {
        /// The name serde gives it.
        name: &'static str,
        /// What follows.
        shape: WrittenShape,
    },
    /// An enum variant.
    Variant {
        /// The enum's name.
        name: &'static str,
        /// The index written.
        index: u32,
        /// The variant's name.
        variant: &'static str,
        /// What follows the index.
        shape: WrittenShape,
    },
}

/// What follows a written container's name or variant index.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum WrittenShape {
    /// Nothing.
    Unit,
    /// One value.
    Newtype,
    /// A tuple of this many values.
    Tuple(usize),
    /// This many named fields.
    Fields(usize),
}

impl Written {
    /// The struct's or the enum's name.
    pub(crate) fn container(&self) -> &'static str {
        match self {
            Written::Struct { name, .. } | Written::Variant { name, .. } => name,
        }
    }

    pub(crate) fn shape(&self) -> &WrittenShape {
        match self {
            Written::Struct { shape, .. } | Written::Variant { shape, .. } => shape,
        }
    }

    /// `struct Point with 2 fields`, `variant Shape::Rect (index 1) with 2 fields`.
    pub(crate) fn describe(&self) -> String {
        let shape = match self.shape() {
            WrittenShape::Unit => String::new(),
            WrittenShape::Newtype => " with one value".into(),
            WrittenShape::Tuple(n) => format!(" with a tuple of {n}"),
            WrittenShape::Fields(n) => format!(" with {n} fields"),
        };
        match self {
            Written::Struct { name, .. } => format!("struct `{name}`{shape}"),
            Written::Variant {
                name,
                index,
                variant,
                ..
            } => format!("variant `{name}::{variant}` (index {index}){shape}"),
        }
    }
}
