//! The reading of each kind of `spec/03-types.md` as plain values, for
//! readers that are driven by a schema instead of a serde visitor
//! ([`crate::value`]). Each method reads, checks and fails exactly as the
//! serde method of the same kind in `model.rs` does: same bytes, same
//! limits, same error at the same offset.

use std::borrow::Cow;

use super::{Decoder, fail, utf8};
use crate::block::{self, Element};
use crate::dtype::Dtype;
use crate::error::{ErrorKind, Result};
use crate::read::{Read, Reference};

impl<'de, R: Read<'de>, const D: bool> Decoder<R, D> {
    /// `N` bytes of a fixed-width number (`spec/03-types.md` 3.2 to 3.5).
    #[inline]
    pub(crate) fn raw_fixed<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        self.read_fixed::<N>(expected)
    }

    /// A `bool` (3.1).
    #[inline]
    pub(crate) fn raw_bool(&mut self) -> Result<bool> {
        let offset = self.read.offset();
        match self.read_u8("bool")? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(fail::<D>(|| ErrorKind::InvalidBool(b), offset)),
        }
    }

    /// A `char` (3.6).
    #[inline]
    pub(crate) fn raw_char(&mut self) -> Result<char> {
        let offset = self.read.offset();
        let v = self.read_u32("char (u32)")?;
        char::from_u32(v).ok_or_else(|| fail::<D>(|| ErrorKind::InvalidChar(v), offset))
    }

    /// A string (3.7) as the reader holds it: borrowed from a slice, or
    /// in the reader's buffer until the next read (no copy either way).
    #[inline]
    pub(crate) fn raw_str_ref<'s>(&'s mut self) -> Result<Reference<'de, 's, str>> {
        let (start, bytes) = self.read_counted_bytes("string bytes")?;
        Ok(match bytes {
            Reference::Borrowed(b) => Reference::Borrowed(utf8::<D>(b, start)?),
            Reference::Copied(b) => Reference::Copied(utf8::<D>(b, start)?),
        })
    }

    /// A byte string (3.8), borrowed from a slice; from a stream, copied
    /// in bounded steps as the bytes arrive.
    #[inline]
    pub(crate) fn raw_bytes(&mut self) -> Result<Cow<'de, [u8]>> {
        if self.read.remaining().is_none() {
            let count_offset = self.read.offset();
            let count = self.read_u32("count (u32)")?;
            let bytes = block::read_elements::<u8, R>(&mut self.read, count, count_offset, None)?;
            return Ok(Cow::Owned(bytes));
        }
        let (_, bytes) = self.read_counted_bytes("byte string bytes")?;
        Ok(match bytes {
            Reference::Borrowed(b) => Cow::Borrowed(b),
            Reference::Copied(b) => Cow::Owned(b.to_vec()),
        })
    }

    /// An option's tag (3.9), after the depth check an option makes
    /// before its tag: `true` for `Some`, whose value the caller reads
    /// inside [`Decoder::raw_nested`].
    #[inline]
    pub(crate) fn raw_option_tag(&mut self) -> Result<bool> {
        self.check_depth()?;
        let offset = self.read.offset();
        match self.read_u8("option tag")? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(fail::<D>(|| ErrorKind::InvalidOptionTag(b), offset)),
        }
    }

    /// A variant index (3.12) of an enum of `variants` variants.
    #[inline]
    pub(crate) fn raw_variant(&mut self, enum_name: &str, variants: usize) -> Result<u32> {
        let offset = self.read.offset();
        let index = self.read_u32("variant index (u32)")?;
        if (index as usize) < variants {
            return Ok(index);
        }
        Err(fail::<D>(
            || ErrorKind::UnknownVariant {
                enum_name: enum_name.to_owned().into(),
                index,
                variants,
            },
            offset,
        ))
    }

    /// A sequence's or map's count (3.13, 3.15) after the depth check
    /// they make before it, checked against the input left.
    #[inline]
    pub(crate) fn raw_count(&mut self) -> Result<u32> {
        self.check_depth()?;
        self.read_count()
    }

    /// A block of `T` (chapter 4) after the depth check: the single-copy
    /// path, which fails as the element-by-element one does.
    #[inline]
    pub(crate) fn raw_block<T: Element>(&mut self) -> Result<Vec<T>> {
        self.check_depth()?;
        self.read_block::<T>()
    }

    /// `f` one nesting level deeper (3.19.1).
    #[inline]
    pub(crate) fn raw_nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.nested(f)
    }

    /// A shaped array of `dtype` (8.3): its shape, its block (borrowed from
    /// a slice whatever its alignment, copied from a stream) and the offset
    /// of the block's first byte.
    pub(crate) fn raw_array(&mut self, dtype: Dtype) -> Result<(Vec<usize>, Cow<'de, [u8]>, u64)> {
        let request = crate::array::Request {
            dtype: dtype.code(),
            name: dtype.name(),
            size: dtype.size(),
            view: false,
        };
        let (shape, bytes, at) = self.read_array_block(request)?;
        let bytes = match bytes {
            Reference::Borrowed(b) => Cow::Borrowed(b),
            Reference::Copied(b) => Cow::Owned(b.to_vec()),
        };
        Ok((shape, bytes, at))
    }

    /// From a slice holding at least `len` more bytes that `check`
    /// accepts: those bytes, consumed. `None`, having consumed nothing,
    /// otherwise (and always from a stream).
    #[inline]
    pub(crate) fn raw_take_if(
        &mut self,
        len: u64,
        check: impl FnOnce(&[u8]) -> bool,
    ) -> Result<Option<Cow<'de, [u8]>>> {
        if self.read.remaining().is_none_or(|r| r < len) {
            return Ok(None);
        }
        let len = len as usize;
        if !check(&self.read.rest_of_input()?[..len]) {
            return Ok(None);
        }
        Ok(Some(match self.read_some(len, "records")? {
            Reference::Borrowed(b) => Cow::Borrowed(b),
            Reference::Copied(b) => Cow::Owned(b.to_vec()),
        }))
    }

    /// The bytes that may be read now as from a slice ([`Read::peek`]).
    #[inline]
    pub(crate) fn raw_peek(&self) -> Option<&[u8]> {
        self.read.peek()
    }

    /// Consumes the first `n` bytes of [`Decoder::raw_peek`].
    #[inline]
    pub(crate) fn raw_skip_peeked(&mut self, n: usize) {
        self.read.skip_peeked(n);
    }

    /// The nesting levels left.
    #[inline]
    pub(crate) fn raw_depth_left(&self) -> u32 {
        self.depth_left
    }
}
