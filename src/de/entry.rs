//! The one two-pass rule of every reader of a slice, and the decoding
//! entry points with options that use it.
//!
//! A slice is read first without detail, which is faster; only a failure
//! is read again, from the same bytes, with detail, to say what went wrong
//! and where. A [`Pass`] says what one reading is (a whole record, a
//! prefix, a frame's record); [`two_pass`] decides the detail. A stream is
//! read once, with detail, since its bytes cannot be read twice.

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::Decoder;
use super::Deserializer;
use crate::error::Result;
use crate::options::Options;
use crate::read::{IoRead, SliceRead};

/// One reading of a slice, written once for both levels of detail.
pub(crate) trait Pass<'de> {
    type Value;
    /// Reads with `de`, from the start of its input.
    fn run<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<Self::Value>;
}

/// Runs `pass` over `read` without detail and, if that fails, again with
/// detail ([`with_detail`]).
///
/// Always inlined: the value is returned from inside the `if`, not passed
/// on from a `Result` across a call. Moving it out of one made the
/// compiler store a Point's two fields apart and load them back as one
/// 8-byte value, which the processor cannot forward (5.9 ns against 0.8 ns
/// for a Point in `benches/batch.rs`).
#[inline(always)]
pub(crate) fn two_pass<'de, P: Pass<'de>>(
    read: SliceRead<'de>,
    options: Options,
    pass: &P,
) -> Result<P::Value> {
    let mut quick = Decoder::undetailed(read, options);
    if let Ok(value) = pass.run(&mut quick) {
        return Ok(value);
    }
    with_detail(read, options, pass)
}

/// The second pass of [`two_pass`]: `pass` over `read` with detailed
/// errors. Out of line, so that the first pass stays small; also the way
/// back to detail for readers that keep one undetailed decoder across
/// records (the batch reader of a slice).
#[cold]
#[inline(never)]
pub(crate) fn with_detail<'de, P: Pass<'de>>(
    read: SliceRead<'de>,
    options: Options,
    pass: &P,
) -> Result<P::Value> {
    pass.run(&mut Deserializer::with_options(read, options))
}

/// A whole bare record: the input holds it and nothing else.
struct WholeRecord<T>(std::marker::PhantomData<fn() -> T>);

impl<'de, T: Deserialize<'de>> Pass<'de> for WholeRecord<T> {
    type Value = T;

    #[inline(always)]
    fn run<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<T> {
        de.set_whole_record();
        // An error without an offset comes from the value's own
        // `Deserialize` at the top level (a `try_from` that fails, a
        // `Duration` that overflows): it points at the value's start.
        let value = T::deserialize(&mut *de).map_err(|e| e.or_offset(0))?;
        de.end()?;
        Ok(value)
    }
}

/// A bare record at the start of the input, and the bytes after it.
struct Prefix<T>(std::marker::PhantomData<fn() -> T>);

impl<'de, T: Deserialize<'de>> Pass<'de> for Prefix<T> {
    type Value = (T, &'de [u8]);

    #[inline(always)]
    fn run<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<Self::Value> {
        // As in `WholeRecord`, an error without an offset is the value's.
        let value = T::deserialize(&mut *de).map_err(|e| e.or_offset(0))?;
        Ok((value, de.read_ref().rest()))
    }
}

impl Options {
    /// [`crate::from_slice`] with these limits.
    ///
    /// # Errors
    /// As [`crate::from_slice`].
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        two_pass(
            SliceRead::new(bytes),
            *self,
            &WholeRecord(std::marker::PhantomData),
        )
    }

    /// [`crate::take_from_slice`] with these limits.
    ///
    /// # Errors
    /// As [`crate::take_from_slice`].
    pub fn take_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, &'de [u8])> {
        two_pass(
            SliceRead::new(bytes),
            *self,
            &Prefix(std::marker::PhantomData),
        )
    }

    /// [`crate::from_reader`] with these limits.
    ///
    /// # Errors
    /// As [`crate::from_reader`].
    pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        let mut de = Deserializer::with_options(IoRead::new(reader), *self).whole_record();
        // As in `WholeRecord`, an error without an offset is the value's.
        let value = T::deserialize(&mut de).map_err(|e| e.or_offset(0))?;
        de.end()?;
        Ok(value)
    }
}
