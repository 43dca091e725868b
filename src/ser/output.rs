//! Where the serializer's bytes go: a `Vec<u8>`, any `io::Write`, or
//! nowhere (counting).

use std::io;
use std::mem::MaybeUninit;

use super::private;
use crate::error::{Error, ErrorKind, Result};

/// Where the serializer's bytes go. Sealed: Kiln writes into a `Vec<u8>`
/// (owned or borrowed), into any [`io::Write`] through [`IoWriter`], or
/// nowhere through [`SizeCounter`].
pub trait Output: private::Sealed {
    /// Appends `bytes`.
    #[doc(hidden)]
    fn write(&mut self, bytes: &[u8]) -> Result<()>;

    /// Reserves a `u32` count to be filled in later; returns its token.
    #[doc(hidden)]
    fn begin_count(&mut self) -> Result<usize>;

    /// Fills in the count reserved by [`Output::begin_count`].
    #[doc(hidden)]
    fn end_count(&mut self, token: usize, count: u32) -> Result<()>;

    /// Bytes written so far (arrays pad their blocks from this).
    #[doc(hidden)]
    fn position(&self) -> u64;
}

impl private::Sealed for Vec<u8> {}
impl Output for Vec<u8> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    #[inline]
    fn begin_count(&mut self) -> Result<usize> {
        let at = self.len();
        self.extend_from_slice(&[0; 4]);
        Ok(at)
    }

    #[inline]
    fn end_count(&mut self, token: usize, count: u32) -> Result<()> {
        if let Some(slot) = self.get_mut(token..token + 4) {
            slot.copy_from_slice(&count.to_le_bytes());
        }
        Ok(())
    }

    #[inline]
    fn position(&self) -> u64 {
        self.len() as u64
    }
}

impl private::Sealed for &mut Vec<u8> {}
impl Output for &mut Vec<u8> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        (**self).write(bytes)
    }
    #[inline]
    fn begin_count(&mut self) -> Result<usize> {
        (**self).begin_count()
    }
    #[inline]
    fn end_count(&mut self, token: usize, count: u32) -> Result<()> {
        (**self).end_count(token, count)
    }
    #[inline]
    fn position(&self) -> u64 {
        self.len() as u64
    }
}

/// Writes into a slice: the caller's ([`crate::to_slice`]) or the spare
/// capacity of a `Vec` ([`crate::to_vec_into`]).
///
/// The bytes go through one `&mut` slice, which the compiler knows nothing
/// else can see, so it keeps the position in a register across a record's
/// fields, and even vectorises a loop of them. Through a `Vec`'s raw
/// pointer, or a slice made from one inside the same function, it reloads
/// length, capacity and pointer after every store: writing a million
/// `Point`s into a reused `Vec` took 4.2 times the instructions of writing
/// them into a slice, and now takes the same (callgrind).
pub struct SliceOutput<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    pos: usize,
}

impl<'a> SliceOutput<'a> {
    /// Views an initialised slice as memory to write; what this output
    /// stores through the view is always initialised bytes, so `buf` stays
    /// initialised for its owner.
    pub(crate) fn as_uninit(buf: &mut [u8]) -> &mut [MaybeUninit<u8>] {
        // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout; the
        // only writes through the view are of initialised bytes (`write`,
        // `end_count`), so nothing uninitialised reaches the owner's slice.
        unsafe { &mut *(buf as *mut [u8] as *mut [MaybeUninit<u8>]) }
    }

    /// Writes into memory that may not be initialised yet (a `Vec`'s spare
    /// capacity); [`SliceOutput::written`] bytes are initialised afterwards.
    pub(crate) fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> Self {
        SliceOutput { buf, pos: 0 }
    }

    /// How many bytes have been written.
    pub(crate) fn written(&self) -> usize {
        self.pos
    }

    #[cold]
    fn full(&self, len: usize) -> Error {
        Error::new(ErrorKind::BufferFull {
            needed: self.pos as u64 + len as u64,
            available: self.buf.len() as u64,
        })
    }
}

impl private::Sealed for SliceOutput<'_> {}
impl Output for SliceOutput<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        // `pos <= buf.len()`, so the sum cannot overflow for a real slice.
        let end = self.pos + bytes.len();
        match self.buf.get_mut(self.pos..end) {
            Some(dst) => {
                // SAFETY: `dst` is exactly `bytes.len()` bytes of memory we
                // may write, and cannot overlap `bytes` (it is borrowed
                // mutably here); storing initialised bytes into
                // `MaybeUninit<u8>` is always allowed.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        bytes.as_ptr(),
                        dst.as_mut_ptr().cast::<u8>(),
                        bytes.len(),
                    );
                }
                self.pos = end;
                Ok(())
            }
            None => Err(self.full(bytes.len())),
        }
    }

    #[inline]
    fn begin_count(&mut self) -> Result<usize> {
        let at = self.pos;
        self.write(&[0; 4])?;
        Ok(at)
    }

    #[inline]
    fn end_count(&mut self, token: usize, count: u32) -> Result<()> {
        if let Some(slot) = self.buf.get_mut(token..token + 4) {
            for (dst, b) in slot.iter_mut().zip(count.to_le_bytes()) {
                dst.write(b);
            }
        }
        Ok(())
    }

    #[inline]
    fn position(&self) -> u64 {
        self.pos as u64
    }
}

/// Writes into an [`io::Write`].
///
/// Values of known length go straight to the writer. A sequence or map of
/// unknown length (`serialize_seq(None)`) cannot have its count patched in a
/// stream, so it is gathered in memory and written once its count is known.
pub struct IoWriter<W> {
    writer: W,
    /// Bytes of the unknown-length sequences now open.
    pending: Vec<u8>,
    open: usize,
    /// Bytes handed to `writer` so far.
    written: u64,
}

impl<W: io::Write> IoWriter<W> {
    /// Writes into `writer`.
    pub fn new(writer: W) -> Self {
        IoWriter {
            writer,
            pending: Vec::new(),
            open: 0,
            written: 0,
        }
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.writer
    }
}

impl<W> private::Sealed for IoWriter<W> {}
impl<W: io::Write> Output for IoWriter<W> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        if self.open > 0 {
            self.pending.extend_from_slice(bytes);
            Ok(())
        } else {
            self.written += bytes.len() as u64;
            self.writer.write_all(bytes).map_err(Error::from)
        }
    }

    fn begin_count(&mut self) -> Result<usize> {
        self.open += 1;
        self.pending.begin_count()
    }

    fn end_count(&mut self, token: usize, count: u32) -> Result<()> {
        self.pending.end_count(token, count)?;
        self.open -= 1;
        if self.open == 0 {
            self.writer.write_all(&self.pending)?;
            self.written += self.pending.len() as u64;
            self.pending.clear();
        }
        Ok(())
    }

    #[inline]
    fn position(&self) -> u64 {
        self.written + self.pending.len() as u64
    }
}

/// Counts bytes instead of writing them; see [`crate::serialized_size`].
#[derive(Debug, Default)]
pub struct SizeCounter {
    /// Bytes counted so far.
    pub size: u64,
}

impl private::Sealed for SizeCounter {}
impl Output for SizeCounter {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.size += bytes.len() as u64;
        Ok(())
    }
    fn begin_count(&mut self) -> Result<usize> {
        self.size += 4;
        Ok(0)
    }
    fn end_count(&mut self, _: usize, _: u32) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn position(&self) -> u64 {
        self.size
    }
}
