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
use crate::error::{Error, Result};
use crate::options::Options;
use crate::read::{IoRead, Read, SliceRead};

/// How one record is read: by a type's own `Deserialize` ([`Typed`]), or
/// by a schema known only at run time (`crate::value`). The readers of
/// records back to back take one, so that both kinds share their rules.
pub trait RecordSeed<'de>: Clone {
    /// What a record is read into.
    type Value;
    /// Reads one record's value.
    fn read<R: Read<'de>, const D: bool>(&self, de: &mut Decoder<R, D>) -> Result<Self::Value>;
    /// The memory a record holds, charged to the zero-sized budget when
    /// it takes no bytes (`spec/03-types.md` 3.19.2).
    fn memory_size(&self) -> usize;
}

/// Records read by `T`'s own `Deserialize`.
pub struct Typed<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Typed<T> {
    pub(crate) const fn new() -> Self {
        Typed(std::marker::PhantomData)
    }
}

impl<T> Clone for Typed<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Typed<T> {}

impl<'de, T: Deserialize<'de>> RecordSeed<'de> for Typed<T> {
    type Value = T;

    #[inline(always)]
    fn read<R: Read<'de>, const D: bool>(&self, de: &mut Decoder<R, D>) -> Result<T> {
        T::deserialize(de)
    }

    #[inline(always)]
    fn memory_size(&self) -> usize {
        std::mem::size_of::<T>()
    }
}

/// One reading of a slice, written once for both levels of detail: the
/// value, then the checks after it, then what the caller gets.
pub(crate) trait Pass<'de> {
    type Value;
    type Output;
    /// Sets `de` up before the value (a whole record, a budget).
    #[inline(always)]
    fn start<const D: bool>(&self, _de: &mut Decoder<SliceRead<'de>, D>) {}
    /// Reads the value with `de`, from the start of its input.
    fn read<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<Self::Value>;
    /// Completes an error of [`Pass::read`] in the detailed pass only (the
    /// first pass drops its errors): `rest` is where the reading began.
    /// An error without an offset comes from the value's own `Deserialize`
    /// at the top level (a `try_from` that fails, a `Duration` that
    /// overflows): it points at the value's start.
    fn explain(&self, e: Error, _rest: &'de [u8]) -> Error {
        e.or_offset(0)
    }
    /// Checks what must hold after the value (the end of the input).
    #[inline(always)]
    fn end<const D: bool>(&self, _de: &mut Decoder<SliceRead<'de>, D>) -> Result<()> {
        Ok(())
    }
    /// What the caller gets: the value, and perhaps what `de` left.
    fn output<const D: bool>(value: Self::Value, de: &Decoder<SliceRead<'de>, D>) -> Self::Output;
}

/// Runs `pass` over `read` without detail and, if that fails, again with
/// detail ([`with_detail`]).
///
/// Always inlined, and the value is returned from inside the `if`, never
/// moved out of a `Result` built around it: that made the compiler store
/// a Point's two fields apart and load them back as one 8-byte value,
/// which the processor cannot forward (5.9 ns against 0.8 ns for a Point
/// in `benches/batch.rs`).
#[inline(always)]
pub(crate) fn two_pass<'de, P: Pass<'de>>(
    bytes: &'de [u8],
    options: &Options,
    pass: &P,
) -> Result<P::Output> {
    let mut quick = Decoder::undetailed(SliceRead::new(bytes), *options);
    pass.start(&mut quick);
    if let Ok(value) = pass.read(&mut quick)
        && pass.end(&mut quick).is_ok()
    {
        return Ok(P::output(value, &quick));
    }
    with_detail(bytes, bytes.len(), options, pass)
}

/// The second pass of [`two_pass`]: `pass` over `read` with detailed
/// errors. Out of line, so that the first pass stays small; also the way
/// back to detail for readers that keep one undetailed decoder across
/// records (the batch reader of a slice).
#[cold]
#[inline(never)]
pub(crate) fn with_detail<'de, P: Pass<'de>>(
    rest: &'de [u8],
    len: usize,
    options: &Options,
    pass: &P,
) -> Result<P::Output> {
    let mut de = Deserializer::with_options(SliceRead::from_parts(rest, len), *options);
    pass.start(&mut de);
    let value = pass.read(&mut de).map_err(|e| pass.explain(e, rest))?;
    pass.end(&mut de)?;
    Ok(P::output(value, &de))
}

/// A whole bare record: the input holds it and nothing else.
struct WholeRecord<T>(std::marker::PhantomData<fn() -> T>);

impl<'de, T: Deserialize<'de>> Pass<'de> for WholeRecord<T> {
    type Value = T;
    type Output = T;

    #[inline(always)]
    fn read<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<T> {
        T::deserialize(de)
    }

    #[inline(always)]
    fn start<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) {
        de.set_whole_record();
    }

    #[inline(always)]
    fn end<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<()> {
        de.end()
    }

    #[inline(always)]
    fn output<const D: bool>(value: T, _: &Decoder<SliceRead<'de>, D>) -> T {
        value
    }
}

/// A bare record at the start of the input, and the bytes after it.
struct Prefix<T>(std::marker::PhantomData<fn() -> T>);

impl<'de, T: Deserialize<'de>> Pass<'de> for Prefix<T> {
    type Value = T;
    type Output = (T, &'de [u8]);

    #[inline(always)]
    fn read<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<T> {
        T::deserialize(de)
    }

    #[inline(always)]
    fn output<const D: bool>(value: T, de: &Decoder<SliceRead<'de>, D>) -> Self::Output {
        (value, de.read_ref().rest())
    }
}

impl Options {
    /// [`crate::from_slice`] with these limits.
    ///
    /// # Errors
    /// As [`crate::from_slice`].
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        two_pass(bytes, self, &WholeRecord(std::marker::PhantomData))
    }

    /// [`crate::take_from_slice`] with these limits.
    ///
    /// # Errors
    /// As [`crate::take_from_slice`].
    pub fn take_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, &'de [u8])> {
        two_pass(bytes, self, &Prefix(std::marker::PhantomData))
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
