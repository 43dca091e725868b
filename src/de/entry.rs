//! The decoding entry points with options: a slice read first without
//! detail and again with detail on failure, a stream read once.

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::Decoder;
use super::Deserializer;
use crate::error::Result;
use crate::options::Options;
use crate::read::{IoRead, SliceRead};

impl Options {
    /// [`crate::from_slice`] with these limits.
    ///
    /// # Errors
    /// As [`crate::from_slice`].
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        // First without detail, which is faster; a failure is read again
        // with detail, to say what and where.
        // The value is returned from inside the `if`, not passed on from
        // a `Result`: moving it out of one made the compiler store a
        // Point's two fields apart and load them back as one 8-byte value,
        // which the processor cannot forward (5.9 ns against 0.8 ns for a
        // Point in `benches/batch.rs`).
        let mut quick = Decoder::undetailed(SliceRead::new(bytes), *self).whole_record();
        if let Ok(value) = T::deserialize(&mut quick)
            && quick.end().is_ok()
        {
            return Ok(value);
        }
        self.detailed_from_slice(bytes)
    }

    /// [`Options::from_slice`] with detailed errors.
    #[cold]
    #[inline(never)]
    fn detailed_from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        let mut de = Deserializer::with_options(SliceRead::new(bytes), *self).whole_record();
        // An error without an offset comes from the value's own
        // `Deserialize` at the top level (a `try_from` that fails, a
        // `Duration` that overflows): it points at the value's start.
        let value = T::deserialize(&mut de).map_err(|e| e.or_offset(0))?;
        de.end()?;
        Ok(value)
    }

    /// [`crate::take_from_slice`] with these limits.
    ///
    /// # Errors
    /// As [`crate::take_from_slice`].
    pub fn take_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, &'de [u8])> {
        // As in `from_slice`, the value is returned from inside the `if`.
        let mut quick = Decoder::undetailed(SliceRead::new(bytes), *self);
        if let Ok(value) = T::deserialize(&mut quick) {
            return Ok((value, quick.into_read().rest()));
        }
        self.take_detailed_from_slice(bytes)
    }

    /// [`Options::take_from_slice`] with detailed errors.
    #[cold]
    #[inline(never)]
    fn take_detailed_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, &'de [u8])> {
        let mut de = Deserializer::with_options(SliceRead::new(bytes), *self);
        // An error without an offset comes from the value's own
        // `Deserialize` at the top level (a `try_from` that fails, a
        // `Duration` that overflows): it points at the value's start.
        let value = T::deserialize(&mut de).map_err(|e| e.or_offset(0))?;
        Ok((value, de.into_read().rest()))
    }

    /// [`crate::from_reader`] with these limits.
    ///
    /// # Errors
    /// As [`crate::from_reader`].
    pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        let mut de = Deserializer::with_options(IoRead::new(reader), *self).whole_record();
        // An error without an offset comes from the value's own
        // `Deserialize` at the top level (a `try_from` that fails, a
        // `Duration` that overflows): it points at the value's start.
        let value = T::deserialize(&mut de).map_err(|e| e.or_offset(0))?;
        de.end()?;
        Ok(value)
    }
}
