//! Sequences, maps, tuples and structs being written: counts written or
//! filled in, and checked against what was declared (`spec/03-types.md`).

use serde::ser::{self, Serialize};

use super::{Check, Output, Serializer, Unchecked, count_of};
use crate::error::{Error, ErrorKind, Result};

/// The state of a sequence, map, tuple or struct being written.
///
/// Sequences and maps check that the number of elements written matches
/// the count written in front of them (or fill the count in, when it was
/// unknown). Structs refuse skipped fields.
pub struct Compound<'a, O, C = Unchecked> {
    ser: &'a mut Serializer<O, C>,
    /// Count written up front, if any.
    declared: Option<u64>,
    /// Token of a count to fill in at the end, for unknown lengths.
    token: Option<usize>,
    /// Elements (or map entries) written so far.
    count: u64,
    /// A map key was written and its value is still due.
    key_pending: bool,
    /// Struct name, for errors.
    container: &'static str,
}

impl<'a, O: Output, C: Check> Compound<'a, O, C> {
    /// A sequence or map whose count was written up front (`declared`) or
    /// is to be filled in at the end (`token`).
    #[inline]
    pub(super) fn counted(
        ser: &'a mut Serializer<O, C>,
        declared: Option<u64>,
        token: Option<usize>,
    ) -> Self {
        Compound {
            ser,
            declared,
            token,
            count: 0,
            key_pending: false,
            container: "",
        }
    }

    /// A tuple, tuple struct or struct of `len` values. Under a check, the
    /// values written are counted against `len` too.
    #[inline]
    pub(super) fn fixed(
        ser: &'a mut Serializer<O, C>,
        container: &'static str,
        len: usize,
    ) -> Self {
        Compound {
            ser,
            declared: if C::ON { Some(len as u64) } else { None },
            token: None,
            count: 0,
            key_pending: false,
            container,
        }
    }

    #[inline]
    pub(super) fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        value.serialize(&mut *self.ser)
    }

    /// Writes one value of a tuple or struct, counted under a check.
    #[inline]
    fn fixed_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if C::ON {
            self.count += 1;
        }
        value.serialize(&mut *self.ser)
    }

    /// Ends a tuple or struct; under a check, it must have written as many
    /// values as it declared.
    #[inline]
    fn finish_fixed(self) -> Result<()> {
        if !C::ON {
            return Ok(());
        }
        match self.declared {
            Some(declared) if declared != self.count => {
                Err(Error::new(ErrorKind::LengthMismatch {
                    declared,
                    actual: self.count,
                }))
            }
            _ => Ok(()),
        }
    }

    pub(super) fn finish(self) -> Result<()> {
        if self.key_pending {
            return Err(Error::new(ErrorKind::MapEntryIncomplete));
        }
        if let Some(declared) = self.declared
            && declared != self.count
        {
            return Err(Error::new(ErrorKind::LengthMismatch {
                declared,
                actual: self.count,
            }));
        }
        if let Some(token) = self.token {
            let count = count_of(usize::try_from(self.count).unwrap_or(usize::MAX))?;
            self.ser.out.end_count(token, count)?;
        }
        Ok(())
    }
}

impl<O: Output, C: Check> ser::SerializeSeq for Compound<'_, O, C> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// The serde traits of tuples and structs: each value counted under a
/// check, the count compared at the end.
macro_rules! fixed_container {
    ($($trait:ident :: $method:ident($($key:ident)?);)*) => {$(
        impl<O: Output, C: Check> ser::$trait for Compound<'_, O, C> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn $method<T: ?Sized + Serialize>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<()> {
                self.fixed_value(value)
            }
            #[inline]
            fn end(self) -> Result<()> {
                self.finish_fixed()
            }
        }
    )*};
}

fixed_container! {
    SerializeTuple::serialize_element();
    SerializeTupleStruct::serialize_field();
    SerializeTupleVariant::serialize_field();
}

impl<O: Output, C: Check> ser::SerializeMap for Compound<'_, O, C> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        if self.key_pending {
            return Err(Error::new(ErrorKind::MapEntryIncomplete));
        }
        self.key_pending = true;
        key.serialize(&mut *self.ser)
    }
    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if !self.key_pending {
            return Err(Error::new(ErrorKind::MapEntryIncomplete));
        }
        self.key_pending = false;
        self.count += 1;
        value.serialize(&mut *self.ser)
    }
    #[inline]
    fn serialize_entry<K: ?Sized + Serialize, V: ?Sized + Serialize>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<()> {
        if self.key_pending {
            return Err(Error::new(ErrorKind::MapEntryIncomplete));
        }
        self.count += 1;
        key.serialize(&mut *self.ser)?;
        value.serialize(&mut *self.ser)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// Structs and struct variants: as tuples, and a field skipped by
/// `skip_serializing_if` is refused (a positional reader cannot know).
macro_rules! struct_container {
    ($($trait:ident;)*) => {$(
        impl<O: Output, C: Check> ser::$trait for Compound<'_, O, C> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                _: &'static str,
                value: &T,
            ) -> Result<()> {
                self.fixed_value(value)
            }
            fn skip_field(&mut self, field: &'static str) -> Result<()> {
                Err(Error::new(ErrorKind::SkippedField {
                    container: self.container,
                    field,
                }))
            }
            #[inline]
            fn end(self) -> Result<()> {
                self.finish_fixed()
            }
        }
    )*};
}

struct_container! {
    SerializeStruct;
    SerializeStructVariant;
}
