//! Reading from bytes in memory: a slice ([`SliceRead`]), whose strings
//! and byte strings borrow from it, and a stream's buffered window
//! ([`WindowRead`]), read as a slice on a first attempt.

use std::marker::PhantomData;

use super::{Counted, Read, Reference, private, trailing_bytes, unexpected_end};
use crate::error::{Error, Result};

/// Reads from a byte slice; strings and byte strings borrow from it.
#[derive(Debug, Clone, Copy)]
pub struct SliceRead<'de> {
    rest: &'de [u8],
    len: usize,
}

impl<'de> SliceRead<'de> {
    /// Reads `bytes` from the start.
    pub fn new(bytes: &'de [u8]) -> Self {
        SliceRead {
            rest: bytes,
            len: bytes.len(),
        }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'de [u8] {
        self.rest
    }

    /// The reader's state as plain values: the bytes not read yet, and the
    /// length of the whole input. [`SliceRead::from_parts`] puts it back.
    #[inline(always)]
    pub(crate) fn parts(&self) -> (&'de [u8], usize) {
        (self.rest, self.len)
    }

    /// A reader in the state that [`SliceRead::parts`] returned.
    #[inline(always)]
    pub(crate) fn from_parts(rest: &'de [u8], len: usize) -> Self {
        SliceRead { rest, len }
    }

    /// The error for a read of `needed` bytes that found fewer. Inline, so
    /// that only scalars go to the cold constructor: a call that took
    /// `&self` would make the reader's position live in memory in every
    /// loop that reads (the compiler must assume the call looks at it).
    #[inline(always)]
    fn eof(&self, expected: &'static str, needed: usize) -> Error {
        unexpected_end(expected, needed, self.rest.len(), self.offset())
    }

    /// Takes `len` bytes, borrowed for `'de`.
    #[inline]
    pub(crate) fn take(&mut self, len: usize, expected: &'static str) -> Result<&'de [u8]> {
        match self.rest.split_at_checked(len) {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(head)
            }
            None => Err(self.eof(expected, len)),
        }
    }
}

impl private::Sealed for SliceRead<'_> {}

impl<'de> Read<'de> for SliceRead<'de> {
    #[inline]
    fn offset(&self) -> u64 {
        (self.len - self.rest.len()) as u64
    }

    #[inline]
    fn remaining(&self) -> Option<u64> {
        Some(self.rest.len() as u64)
    }

    #[inline]
    fn read_array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        match self.rest.split_first_chunk::<N>() {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(*head)
            }
            None => Err(self.eof(expected, N)),
        }
    }

    #[inline]
    fn read_bytes<'s>(
        &'s mut self,
        len: usize,
        expected: &'static str,
    ) -> Result<Reference<'de, 's, [u8]>> {
        self.take(len, expected).map(Reference::Borrowed)
    }

    #[inline(always)]
    fn read_array_quiet<const N: usize>(&mut self, _expected: &'static str) -> Result<[u8; N]> {
        match self.rest.split_first_chunk::<N>() {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(*head)
            }
            None => Err(Error::undetailed()),
        }
    }

    #[inline(always)]
    fn read_bytes_quiet<'s>(
        &'s mut self,
        len: usize,
        _expected: &'static str,
    ) -> Result<Reference<'de, 's, [u8]>> {
        match self.rest.split_at_checked(len) {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(Reference::Borrowed(head))
            }
            None => Err(Error::undetailed()),
        }
    }

    #[inline(always)]
    fn take_counted_held_quiet(&mut self) -> Option<Result<Counted<'_>>> {
        self.take_counted_quiet()
    }

    #[inline(always)]
    fn take_counted_quiet(&mut self) -> Option<Result<Counted<'de>>> {
        let Some((count, tail)) = self.rest.split_first_chunk::<4>() else {
            return Some(Err(Error::undetailed()));
        };
        match tail.split_at_checked(u32::from_le_bytes(*count) as usize) {
            Some((bytes, rest)) => {
                self.rest = rest;
                Some(Ok(Counted {
                    bytes,
                    onward: tail,
                }))
            }
            None => Some(Err(Error::undetailed())),
        }
    }

    #[inline]
    fn end(&mut self) -> Result<()> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(trailing_bytes(self.rest.len() as u64, self.offset()))
        }
    }

    fn set_byte_limit(&mut self, _from: u64, _limit: u64) {}

    fn check_byte_limit(&self, _len: u64) -> Result<()> {
        Ok(())
    }

    fn rest_of_input<'s>(&'s mut self) -> Result<Reference<'de, 's, [u8]>> {
        Ok(Reference::Borrowed(self.rest))
    }

    #[inline(always)]
    fn peek(&self) -> Option<&[u8]> {
        Some(self.rest)
    }

    #[inline(always)]
    fn skip_peeked(&mut self, n: usize) {
        self.rest = &self.rest[n..];
    }
}

/// The bytes a stream has buffered, read as a slice on a first attempt
/// without detail (see [`Read::buffered_window`]). Every read fails
/// without detail, detailed or "quiet".
///
/// Values are copied out ([`Reference::Copied`]), as from the stream, so
/// the window can serve any `'de`. Everything that needs more than the
/// window (the array directory, the end of the input) fails with
/// [`Error::undetailed`], and the element is then read from the stream
/// itself, with detail; so does an element that runs past the window.
///
/// `Root` is the type of the value tried on the window. It changes
/// nothing at run time: it gives every window's reading code of its own,
/// so that the reading of a nested type inside a window is called from
/// one place only, as it is from a slice, and the compiler inlines it
/// there as it does for a slice. Without it, the elements of a record that
/// is read from the stream (tried one by one on the window) would share
/// that code with the same elements inside a record read wholly from the
/// window, and the compiler would keep it out of line for both.
pub(crate) struct WindowRead<'w, Root> {
    inner: SliceRead<'w>,
    root: PhantomData<fn() -> Root>,
}

impl<'w, Root> WindowRead<'w, Root> {
    #[inline(always)]
    pub(crate) fn new(window: &'w [u8]) -> Self {
        WindowRead {
            inner: SliceRead::new(window),
            root: PhantomData,
        }
    }
}

impl<Root> private::Sealed for WindowRead<'_, Root> {}

impl<'de, Root> Read<'de> for WindowRead<'_, Root> {
    #[inline(always)]
    fn offset(&self) -> u64 {
        self.inner.offset()
    }

    #[inline(always)]
    fn remaining(&self) -> Option<u64> {
        self.inner.remaining()
    }

    #[inline(always)]
    fn read_array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        self.inner.read_array_quiet(expected)
    }

    #[inline(always)]
    fn read_bytes<'s>(
        &'s mut self,
        len: usize,
        expected: &'static str,
    ) -> Result<Reference<'de, 's, [u8]>> {
        match self.inner.read_bytes_quiet(len, expected)? {
            Reference::Borrowed(b) | Reference::Copied(b) => Ok(Reference::Copied(b)),
        }
    }

    #[inline(always)]
    fn take_counted_held_quiet(&mut self) -> Option<Result<Counted<'_>>> {
        self.inner.take_counted_quiet()
    }

    fn end(&mut self) -> Result<()> {
        Err(Error::undetailed())
    }

    fn set_byte_limit(&mut self, _from: u64, _limit: u64) {}

    fn check_byte_limit(&self, _len: u64) -> Result<()> {
        Ok(())
    }

    fn rest_of_input<'s>(&'s mut self) -> Result<Reference<'de, 's, [u8]>> {
        Err(Error::undetailed())
    }

    #[inline(always)]
    fn peek(&self) -> Option<&[u8]> {
        self.inner.peek()
    }

    #[inline(always)]
    fn skip_peeked(&mut self, n: usize) {
        self.inner.skip_peeked(n);
    }
}
