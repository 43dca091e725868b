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

use std::io;

use crate::error::{Error, ErrorKind, Result};
use crate::options::DEFAULT_BYTE_LIMIT;

mod private {
    pub trait Sealed {}
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
    /// hands back a plain slice (`None` from readers that copy).
    #[doc(hidden)]
    #[inline(always)]
    fn take_counted_quiet(&mut self) -> Option<Result<&'de [u8]>> {
        None
    }

    /// [`Read::take_counted_quiet`] for every reader whose bytes are in
    /// memory for as long as it is borrowed (a slice, a stream's window):
    /// enough to build an owned string from. `None` from a stream itself.
    #[doc(hidden)]
    #[inline(always)]
    fn take_counted_held_quiet(&mut self) -> Option<Result<&[u8]>> {
        None
    }

    /// Streams: fills as much of `dst` as the stream has, the buffered
    /// bytes first and then, for a large rest, straight from the stream
    /// into `dst` (one copy, no read-ahead); stops early only at the end
    /// of the stream, and returns how many bytes it wrote. The caller
    /// keeps within the byte limit ([`Read::bytes_allowed`]). Slices,
    /// whose bytes are read in place, write nothing.
    #[doc(hidden)]
    fn read_up_to(&mut self, dst: &mut [u8]) -> Result<usize> {
        let _ = dst;
        Ok(0)
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

    /// Fills `dst` entirely.
    #[doc(hidden)]
    fn read_into(&mut self, dst: &mut [u8], expected: &'static str) -> Result<()>;

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
    fn take_counted_held_quiet(&mut self) -> Option<Result<&[u8]>> {
        self.take_counted_quiet()
    }

    #[inline(always)]
    fn take_counted_quiet(&mut self) -> Option<Result<&'de [u8]>> {
        let Some((count, tail)) = self.rest.split_first_chunk::<4>() else {
            return Some(Err(Error::undetailed()));
        };
        match tail.split_at_checked(u32::from_le_bytes(*count) as usize) {
            Some((bytes, rest)) => {
                self.rest = rest;
                Some(Ok(bytes))
            }
            None => Some(Err(Error::undetailed())),
        }
    }

    #[inline]
    fn read_into(&mut self, dst: &mut [u8], expected: &'static str) -> Result<()> {
        let src = self.take(dst.len(), expected)?;
        dst.copy_from_slice(src);
        Ok(())
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
pub(crate) struct WindowRead<'w> {
    inner: SliceRead<'w>,
}

impl<'w> WindowRead<'w> {
    #[inline(always)]
    pub(crate) fn new(window: &'w [u8]) -> Self {
        WindowRead {
            inner: SliceRead::new(window),
        }
    }
}

impl private::Sealed for WindowRead<'_> {}

impl<'de> Read<'de> for WindowRead<'_> {
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
    fn take_counted_held_quiet(&mut self) -> Option<Result<&[u8]>> {
        self.inner.take_counted_quiet()
    }

    #[inline]
    fn read_into(&mut self, dst: &mut [u8], expected: &'static str) -> Result<()> {
        let Reference::Borrowed(src) = self.inner.read_bytes_quiet(dst.len(), expected)? else {
            return Err(Error::undetailed());
        };
        dst.copy_from_slice(src);
        Ok(())
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

/// Size of [`IoRead`]'s internal buffer, and the most it asks of the
/// underlying reader at once.
const IO_BUFFER: usize = 8 * 1024;

/// Reads from any [`io::Read`], through a buffer of its own.
///
/// Memory follows the bytes that actually arrive, never a count read from
/// the input: a string that claims four gigabytes is read in 8 KiB steps
/// and fails as soon as the stream ends. No more than the byte limit
/// (see [`Options::byte_limit`](crate::Options::byte_limit)) is consumed.
///
/// The buffer reads ahead, so bytes after the record may have been taken
/// from the underlying reader; [`IoRead::buffered`] returns them.
///
/// The elements of a sequence, the entries of a map and the records of a
/// batch are read from the buffer as from a slice when they are wholly in
/// it, and from the stream otherwise (see
/// [`Deserializer`](crate::Deserializer), "Detail"): nothing is read from
/// the underlying reader before the deserializer needs it, so a reader
/// that blocks until its peer sends more is never asked early.
pub struct IoRead<R> {
    reader: R,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    /// End of the bytes in `buf` that may be handed out without crossing
    /// the byte limit: `min(filled, limit - base)`. Lets the common read
    /// check one bound instead of two.
    readable: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// Stream offset past which nothing may be read.
    limit: u64,
    /// Where the limit was counted from (a batch counts it per record), so
    /// that errors report the limit the caller set.
    limit_from: u64,
    scratch: Vec<u8>,
}

impl<R: io::Read> IoRead<R> {
    /// Reads from `reader` with the default byte limit.
    pub fn new(reader: R) -> Self {
        IoRead {
            reader,
            buf: vec![0; IO_BUFFER].into_boxed_slice(),
            pos: 0,
            filled: 0,
            readable: 0,
            base: 0,
            limit: DEFAULT_BYTE_LIMIT,
            limit_from: 0,
            scratch: Vec::new(),
        }
    }

    /// Bytes read from the underlying reader but not yet consumed.
    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.pos..self.filled]
    }

    /// The underlying reader. Bytes in [`IoRead::buffered`] are lost.
    pub fn into_inner(self) -> R {
        self.reader
    }

    /// The underlying reader, in place (the frame reader asks it for the
    /// checksum and trailer once the payload is read).
    pub(crate) fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// Whether the stream is at its end, refilling the buffer if needed.
    pub(crate) fn at_eof(&mut self) -> Result<bool> {
        if self.pos < self.filled {
            return Ok(false);
        }
        Ok(self.fill()? == 0)
    }

    /// The byte limit as the caller set it.
    #[cold]
    fn allowed(&self) -> u64 {
        self.limit.saturating_sub(self.limit_from)
    }

    /// Recomputes [`IoRead::readable`] after `filled`, `base` or `limit` changed.
    fn update_readable(&mut self) {
        let room = self.limit.saturating_sub(self.base);
        self.readable = usize::try_from(room).map_or(self.filled, |r| r.min(self.filled));
    }

    /// Refills the empty buffer; returns how many bytes arrived (0 at EOF).
    fn fill(&mut self) -> Result<usize> {
        debug_assert_eq!(self.pos, self.filled);
        self.base += self.filled as u64;
        self.pos = 0;
        self.filled = 0;
        loop {
            match self.reader.read(&mut self.buf) {
                Ok(n) => {
                    // A reader that claims more than the buffer is broken;
                    // clamp rather than trust it.
                    self.filled = n.min(self.buf.len());
                    self.update_readable();
                    return Ok(self.filled);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::at(ErrorKind::Io(e), self.base)),
            }
        }
    }

    #[inline]
    fn check_limit(&self, len: usize) -> Result<()> {
        let end = self.offset().checked_add(len as u64);
        match end {
            Some(end) if end <= self.limit => Ok(()),
            _ => Err(Error::at(
                ErrorKind::ByteLimit {
                    limit: self.allowed(),
                },
                self.offset(),
            )),
        }
    }

    /// Copies `len` bytes into `sink` piece by piece, as they arrive.
    fn copy_out(
        &mut self,
        len: usize,
        expected: &'static str,
        mut sink: impl FnMut(&[u8]),
    ) -> Result<()> {
        let start = self.offset();
        let mut left = len;
        while left > 0 {
            if self.pos == self.filled && self.fill()? == 0 {
                return Err(Error::at(
                    ErrorKind::UnexpectedEnd {
                        expected,
                        needed: len as u64,
                        available: (len - left) as u64,
                    },
                    start,
                ));
            }
            let n = left.min(self.filled - self.pos);
            sink(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            left -= n;
        }
        Ok(())
    }

    /// [`Read::read_array`] across a refill: out of line, so that the
    /// buffered case stays small enough to inline into every field.
    #[cold]
    #[inline(never)]
    fn read_array_slow<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        self.check_limit(N)?;
        let mut out = [0u8; N];
        let mut at = 0;
        self.copy_out(N, expected, |piece| {
            out[at..at + piece.len()].copy_from_slice(piece);
            at += piece.len();
        })?;
        Ok(out)
    }
}

impl<R> private::Sealed for IoRead<R> {}

impl<'de, R: io::Read> Read<'de> for IoRead<R> {
    #[inline]
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    #[inline]
    fn remaining(&self) -> Option<u64> {
        None
    }

    #[inline]
    fn read_array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        // Fast path: the bytes are buffered and within the limit.
        let end = self.pos + N;
        if end <= self.readable
            && let Some(chunk) = self
                .buf
                .get(self.pos..end)
                .and_then(|b| b.first_chunk::<N>())
        {
            let out = *chunk;
            self.pos = end;
            return Ok(out);
        }
        self.read_array_slow(expected)
    }

    fn read_bytes<'s>(
        &'s mut self,
        len: usize,
        expected: &'static str,
    ) -> Result<Reference<'de, 's, [u8]>> {
        self.check_limit(len)?;
        if self.filled - self.pos >= len {
            let start = self.pos;
            self.pos += len;
            return Ok(Reference::Copied(&self.buf[start..start + len]));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let res = self.copy_out(len, expected, |piece| scratch.extend_from_slice(piece));
        self.scratch = scratch;
        res?;
        Ok(Reference::Copied(&self.scratch))
    }

    fn read_into(&mut self, dst: &mut [u8], expected: &'static str) -> Result<()> {
        self.check_limit(dst.len())?;
        let start = self.offset();
        let got = self.read_up_to(dst)?;
        if got < dst.len() {
            return Err(Error::at(
                ErrorKind::UnexpectedEnd {
                    expected,
                    needed: dst.len() as u64,
                    available: got as u64,
                },
                start,
            ));
        }
        Ok(())
    }

    fn read_up_to(&mut self, dst: &mut [u8]) -> Result<usize> {
        let mut at = 0;
        while at < dst.len() {
            if self.pos < self.filled {
                let n = (dst.len() - at).min(self.filled - self.pos);
                dst[at..at + n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
                self.pos += n;
                at += n;
            } else if dst.len() - at >= self.buf.len() {
                // At least a buffer's worth to go: straight into `dst`,
                // sparing a copy. Only bytes the caller needs are asked for.
                self.base += self.filled as u64;
                self.pos = 0;
                self.filled = 0;
                let n = loop {
                    match self.reader.read(&mut dst[at..]) {
                        Ok(n) => break n.min(dst.len() - at),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            self.update_readable();
                            return Err(Error::at(ErrorKind::Io(e), self.base));
                        }
                    }
                };
                self.base += n as u64;
                self.update_readable();
                if n == 0 {
                    break;
                }
                at += n;
            } else if self.fill()? == 0 {
                break;
            }
        }
        Ok(at)
    }

    fn unread(&mut self, bytes: &[u8]) {
        // Only ever after `read_up_to` found the end of the stream, so the
        // buffer holds nothing unread.
        debug_assert_eq!(self.pos, self.filled);
        let n = bytes.len();
        if n == 0 {
            return;
        }
        if n > self.buf.len() {
            self.buf = vec![0; n].into_boxed_slice();
        }
        self.base += self.filled as u64;
        self.base -= n as u64;
        self.buf[..n].copy_from_slice(bytes);
        self.pos = 0;
        self.filled = n;
        self.update_readable();
    }

    fn bytes_allowed(&self) -> u64 {
        self.limit.saturating_sub(self.offset())
    }

    fn end(&mut self) -> Result<()> {
        let offset = self.offset();
        if self.at_eof()? {
            Ok(())
        } else {
            Err(Error::at(
                ErrorKind::TrailingBytes {
                    count: (self.filled - self.pos) as u64,
                },
                offset,
            ))
        }
    }

    fn set_byte_limit(&mut self, from: u64, limit: u64) {
        self.limit_from = from;
        self.limit = from.saturating_add(limit);
        self.update_readable();
    }

    fn check_byte_limit(&self, len: u64) -> Result<()> {
        match self.offset().checked_add(len) {
            Some(end) if end <= self.limit => Ok(()),
            _ => Err(Error::at(
                ErrorKind::ByteLimit {
                    limit: self.allowed(),
                },
                self.offset(),
            )),
        }
    }

    #[inline(always)]
    fn buffered_window(&self) -> Option<&[u8]> {
        self.buf.get(self.pos..self.readable)
    }

    #[inline(always)]
    fn consume_window(&mut self, n: usize) {
        debug_assert!(self.pos + n <= self.readable);
        self.pos += n;
    }

    fn rest_of_input<'s>(&'s mut self) -> Result<Reference<'de, 's, [u8]>> {
        use io::Read as _;
        let start = self.offset();
        let mut all = self.buf[self.pos..self.filled].to_vec();
        // One byte past the limit tells a stream at the limit from a longer one.
        let budget = self.limit.saturating_sub(start + all.len() as u64);
        let taken = self
            .reader
            .by_ref()
            .take(budget.saturating_add(1))
            .read_to_end(&mut all);
        if let Err(e) = taken {
            return Err(Error::at(ErrorKind::Io(e), start));
        }
        if start + all.len() as u64 > self.limit {
            return Err(Error::at(
                ErrorKind::ByteLimit {
                    limit: self.allowed(),
                },
                start,
            ));
        }
        // The buffer now holds the rest of the stream; later reads take
        // from it, and the next refill finds the stream at its end.
        self.base = start;
        self.pos = 0;
        self.filled = all.len();
        self.buf = all.into_boxed_slice();
        Ok(Reference::Copied(&self.buf[..]))
    }
}
