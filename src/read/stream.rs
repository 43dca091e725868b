//! Reading from any [`std::io::Read`] ([`IoRead`]), through a buffer of
//! its own.

use std::io;
use std::mem::MaybeUninit;

use super::{Read, Reference, private};
use crate::error::{Error, ErrorKind, Result};
use crate::options::DEFAULT_BYTE_LIMIT;

/// Size of [`IoRead`]'s internal buffer, and the most it asks of the
/// underlying reader at once.
const IO_BUFFER: usize = 8 * 1024;

/// Most bytes handed to the underlying reader at once when reading
/// straight into uninitialised memory, which must be zeroed first: small
/// enough that the zeroed bytes are still in cache when the reader
/// overwrites them.
const DIRECT_STEP: usize = 256 * 1024;

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

    /// [`Read::read_up_to`]: returns how many bytes it wrote, from the
    /// start of `dst`. The underlying reader may only be handed
    /// initialised bytes, so each direct read is given a step of at most
    /// [`DIRECT_STEP`] bytes, zeroed just before (once: a reader that
    /// returns less leaves the rest of the step initialised for the next).
    fn fill_up_to(&mut self, dst: &mut [MaybeUninit<u8>]) -> Result<usize> {
        let mut at = 0;
        // `dst[at..initialised]` is initialised (zeroed, or written by
        // the reader beyond what it returned).
        let mut initialised = 0;
        while at < dst.len() {
            if self.pos < self.filled {
                let n = (dst.len() - at).min(self.filled - self.pos);
                dst[at..at + n].write_copy_of_slice(&self.buf[self.pos..self.pos + n]);
                self.pos += n;
                at += n;
            } else if dst.len() - at >= self.buf.len() {
                // At least a buffer's worth to go: straight into `dst`,
                // sparing a copy. Only bytes the caller needs are asked for.
                self.base += self.filled as u64;
                self.pos = 0;
                self.filled = 0;
                let end = at + (dst.len() - at).min(DIRECT_STEP);
                if initialised < end {
                    dst[initialised.max(at)..end].fill(MaybeUninit::new(0));
                    initialised = end;
                }
                let room = &mut dst[at..end];
                // SAFETY: every byte of `room` is initialised: zeroed just
                // now, or by an earlier step and then perhaps written by
                // the reader.
                let room = unsafe { &mut *(room as *mut [MaybeUninit<u8>] as *mut [u8]) };
                let n = loop {
                    match self.reader.read(room) {
                        Ok(n) => break n.min(room.len()),
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

    fn read_up_to<'d>(&mut self, dst: &'d mut [MaybeUninit<u8>]) -> Result<&'d mut [u8]> {
        let got = self.fill_up_to(dst)?;
        // SAFETY: `fill_up_to` initialised the first `got` bytes of `dst`.
        Ok(unsafe { &mut *(&mut dst[..got] as *mut [MaybeUninit<u8>] as *mut [u8]) })
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

#[cfg(test)]
mod tests {
    use std::io;
    use std::mem::MaybeUninit;

    use super::{DIRECT_STEP, IO_BUFFER, IoRead};
    use crate::read::Read as _;

    /// Gives `data` in pieces of `piece` bytes, writing `0xee` over the
    /// rest of each buffer it is handed (as a reader may), and notes, for
    /// each buffer, its length and whether it was all zeros when handed.
    struct Scribbler<'a> {
        data: &'a [u8],
        piece: usize,
        seen: Vec<(usize, bool)>,
    }

    impl io::Read for Scribbler<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.seen.push((buf.len(), buf.iter().all(|&b| b == 0)));
            let n = buf.len().min(self.piece).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            buf[n..].fill(0xee);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn read_up_to(data: &[u8], piece: usize, wanted: usize) -> (Vec<u8>, Vec<(usize, bool)>) {
        let mut read = IoRead::new(Scribbler {
            data,
            piece,
            seen: Vec::new(),
        });
        // Garbage where the vector's spare capacity would be.
        let mut dst = vec![MaybeUninit::new(0xab_u8); wanted];
        let got = read.read_up_to(&mut dst).unwrap().to_vec();
        (got, read.into_inner().seen)
    }

    #[test]
    fn direct_reads_get_zeroed_steps_of_bounded_length() {
        let data: Vec<u8> = (0..3 * DIRECT_STEP + 5).map(|i| (i % 251) as u8).collect();
        let (got, seen) = read_up_to(&data, usize::MAX, data.len());
        assert_eq!(got, data);
        // Straight into the destination, a step at a time, each zeroed.
        assert_eq!(
            seen,
            [
                (DIRECT_STEP, true),
                (DIRECT_STEP, true),
                (DIRECT_STEP, true),
                (IO_BUFFER, true)
            ]
        );
        // A stream that ends early: only what arrived is handed back.
        let (got, _) = read_up_to(&data[..DIRECT_STEP + 9], usize::MAX, data.len());
        assert_eq!(got, &data[..DIRECT_STEP + 9]);
    }

    #[test]
    fn a_step_is_zeroed_once_however_short_the_reads() {
        // Reads of 1,000 bytes: each later read is handed the step from
        // where the last one stopped, still holding what the reader wrote
        // past its count (not zeroed again); only the 1,000 bytes new at
        // its end are zeroed.
        let data: Vec<u8> = (0..DIRECT_STEP + 2 * IO_BUFFER)
            .map(|i| (i % 253) as u8)
            .collect();
        let (got, seen) = read_up_to(&data, 1000, data.len());
        assert_eq!(got, data);
        assert_eq!(seen[0], (DIRECT_STEP, true));
        assert_eq!(seen[1], (DIRECT_STEP, false));
        assert_eq!(seen[2], (DIRECT_STEP, false));
        assert!(seen.iter().all(|&(len, _)| len <= DIRECT_STEP));
    }
}
