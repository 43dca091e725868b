//! Where the deserializer's bytes come from.
//!
//! [`Read`] is sealed: Kiln implements it for a byte slice ([`SliceRead`]) and
//! for any [`std::io::Read`] ([`IoRead`]). Reading from a slice hands out
//! references into the input ([`Reference::Borrowed`]), which is what lets
//! `&str` and `&[u8]` fields borrow without copying; reading from an
//! `io::Read` copies into a buffer ([`Reference::Copied`]).
//!
//! Every read states what it was reading, so that an input cut short reports
//! `expected u32 (4 bytes), found 2 bytes at byte 12` rather than a bare EOF.
//! The offset of such an error is the offset of the first byte of the value
//! that could not be read whole.

use std::mem::MaybeUninit;

use crate::error::{Error, ErrorKind, Result};

mod slice;
mod stream;

pub use slice::SliceRead;
pub(crate) use slice::WindowRead;
pub use stream::IoRead;

mod private {
    pub trait Sealed {}
}

/// The bytes of a string or byte string ([`Read::take_counted_quiet`]),
/// and the input from their first byte on: the bytes and what follows
/// them, so that a short string can be checked with one whole-word load.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Counted<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) onward: &'a [u8],
}

/// A value read from the input: borrowed from it for as long as `'de`, or
/// copied into a buffer that lives only until the next read.
#[derive(Debug)]
pub enum Reference<'b, 'c, T: ?Sized> {
    /// Points into the input itself.
    Borrowed(&'b T),
    /// Points into a buffer of the reader.
    Copied(&'c T),
}

impl<T: ?Sized> std::ops::Deref for Reference<'_, '_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Reference::Borrowed(b) => b,
            Reference::Copied(c) => c,
        }
    }
}

/// A source of Kiln bytes. Sealed: use [`SliceRead`] or [`IoRead`].
pub trait Read<'de>: private::Sealed {
    /// Bytes consumed since the start of the input.
    fn offset(&self) -> u64;

    /// Bytes known to remain, if the reader knows (slices do, streams don't).
    fn remaining(&self) -> Option<u64>;

    /// Reads exactly `N` bytes.
    #[doc(hidden)]
    fn read_array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]>;

    /// Reads exactly `len` bytes, borrowed where the input allows.
    #[doc(hidden)]
    fn read_bytes<'s>(
        &'s mut self,
        len: usize,
        expected: &'static str,
    ) -> Result<Reference<'de, 's, [u8]>>;

    /// [`Read::read_array`] whose failure is [`Error::undetailed`] where
    /// the reader can say nothing more than "too short" (slices); streams,
    /// whose failures can be I/O errors, give the detailed error.
    #[doc(hidden)]
    #[inline(always)]
    fn read_array_quiet<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        self.read_array(expected)
    }

    /// [`Read::read_bytes`], failing as [`Read::read_array_quiet`] does.
    #[doc(hidden)]
    #[inline(always)]
    fn read_bytes_quiet<'s>(
        &'s mut self,
        len: usize,
        expected: &'static str,
    ) -> Result<Reference<'de, 's, [u8]>> {
        self.read_bytes(len, expected)
    }

    /// Slices only: reads a `u32` count and that many bytes, borrowed for
    /// `'de`, failing as [`Read::read_array_quiet`] does. The common path
    /// of a string or byte string read without detail, in one step that
    /// hands back the bytes with the input that follows them ([`Counted`]);
    /// `None` from readers that copy.
    #[doc(hidden)]
    #[inline(always)]
    fn take_counted_quiet(&mut self) -> Option<Result<Counted<'de>>> {
        None
    }

    /// [`Read::take_counted_quiet`] for every reader whose bytes are in
    /// memory for as long as it is borrowed (a slice, a stream's window):
    /// enough to build an owned string from. `None` from a stream itself.
    #[doc(hidden)]
    #[inline(always)]
    fn take_counted_held_quiet(&mut self) -> Option<Result<Counted<'_>>> {
        None
    }

    /// Streams: fills as much of `dst` as the stream has, the buffered
    /// bytes first and then, for a large rest, straight from the stream
    /// into `dst` (one copy, no read-ahead); stops early only at the end
    /// of the stream, and returns the bytes it wrote, the start of `dst`.
    /// `dst` may be uninitialised (a vector's spare capacity), so that a
    /// block read from a stream is not zeroed first. The caller keeps
    /// within the byte limit ([`Read::bytes_allowed`]). Slices, whose
    /// bytes are read in place, write nothing.
    #[doc(hidden)]
    fn read_up_to<'d>(&mut self, dst: &'d mut [MaybeUninit<u8>]) -> Result<&'d mut [u8]> {
        let _ = dst;
        Ok(&mut [])
    }

    /// Streams: puts back `bytes`, the last ones [`Read::read_up_to`]
    /// returned when the stream ended, so that the next read starts with
    /// them (no longer than the buffer).
    #[doc(hidden)]
    fn unread(&mut self, bytes: &[u8]) {
        let _ = bytes;
    }

    /// Bytes that may still be read before the byte limit (streams).
    #[doc(hidden)]
    fn bytes_allowed(&self) -> u64 {
        u64::MAX
    }

    /// Fails with [`ErrorKind::TrailingBytes`] unless the input is exhausted.
    #[doc(hidden)]
    fn end(&mut self) -> Result<()>;

    /// Sets the byte limit (streams only; slices are bounded by their
    /// length): at most `limit` bytes from offset `from` on.
    #[doc(hidden)]
    fn set_byte_limit(&mut self, from: u64, limit: u64);

    /// Fails with [`ErrorKind::ByteLimit`] if `len` more bytes would pass
    /// the byte limit: lets a value that will be read in steps (a block from
    /// a stream) be refused as a whole, before its first step.
    #[doc(hidden)]
    fn check_byte_limit(&self, len: u64) -> Result<()>;

    /// All bytes not read yet, up to the end of the input, without
    /// consuming them: where a record's array directory is found. Streams
    /// read the rest of the stream into memory, within the byte limit.
    #[doc(hidden)]
    fn rest_of_input<'s>(&'s mut self) -> Result<Reference<'de, 's, [u8]>>;

    /// Streams: the bytes already buffered that may be read now (within
    /// the byte limit), without asking the stream for more. Sequences,
    /// maps and readers of records try each element, entry or record on
    /// this window first, as a slice (see [`WindowRead`]). `None` for
    /// slices, which are read as slices already.
    #[doc(hidden)]
    #[inline(always)]
    fn buffered_window(&self) -> Option<&[u8]> {
        None
    }

    /// Consumes the first `n` bytes of [`Read::buffered_window`].
    #[doc(hidden)]
    #[inline(always)]
    fn consume_window(&mut self, n: usize) {
        let _ = n;
    }

    /// The bytes that may be read now as from a slice, without asking a
    /// stream for more: a slice's rest, a stream's buffered window. Lets
    /// a reader that works on plain bytes (the JSON printer of
    /// `value::json_program`) try a value there first.
    #[doc(hidden)]
    #[inline(always)]
    fn peek(&self) -> Option<&[u8]> {
        self.buffered_window()
    }

    /// Consumes the first `n` bytes of [`Read::peek`].
    #[doc(hidden)]
    #[inline(always)]
    fn skip_peeked(&mut self, n: usize) {
        self.consume_window(n);
    }
}

/// An input cut short: `needed` bytes for `expected`, `available` there,
/// at byte `offset`.
#[cold]
#[inline(never)]
pub(crate) fn unexpected_end(
    expected: &'static str,
    needed: usize,
    available: usize,
    offset: u64,
) -> Error {
    Error::at(
        ErrorKind::UnexpectedEnd {
            expected,
            needed: needed as u64,
            available: available as u64,
        },
        offset,
    )
}

/// `count` bytes left over after the record, at byte `offset`.
#[cold]
#[inline(never)]
fn trailing_bytes(count: u64, offset: u64) -> Error {
    Error::at(ErrorKind::TrailingBytes { count }, offset)
}
