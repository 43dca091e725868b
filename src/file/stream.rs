//! Reading a file's records from a stream (`spec/11-file.md`, 11.3): a
//! pipe, a socket, a file read front to back, one frame in memory at a
//! time.

use std::io::{self, Read as _};

use serde::de::DeserializeOwned;

use super::layout;
use super::read::{FileRecords, TypedFrames};
use crate::error::{Error, ErrorKind, Result};
use crate::frame::{FrameHeader, FrameOptions, HEADER_LEN};
use crate::schema::Schema;

/// The records of a file read from an [`io::Read`] (a pipe, a socket, a
/// file read front to back), as `T`. Each frame is read into memory whole
/// (within the byte limit) and checked before its records are yielded;
/// its records are then read from that buffer one by one, as from a
/// slice. Memory is one frame's bytes, reused from frame to frame; a file
/// written by [`FileWriter`](super::FileWriter) has frames of about
/// [`FileOptions::frame_bytes`](super::FileOptions::frame_bytes).
pub struct Reader<R, T: DeserializeOwned + Schema> {
    /// The current frame's records, read from `frame`. Declared before
    /// `frame` so that it is dropped first; see [`Reader::open`].
    records: Option<FileRecords<'static, TypedFrames<T>>>,
    /// The current frame, at a 64-aligned address.
    frame: crate::array::AlignedBytes,
    reader: R,
    options: FrameOptions,
    /// Bytes of the stream consumed so far: the end of the last frame read.
    at: u64,
    /// Where the current frame starts in the stream, and where the frame
    /// before it ended (a torn frame is reported there).
    frame_at: u64,
    good: u64,
    /// Records yielded before the current frame.
    frame_first: u64,
    index: u64,
    done: bool,
}

impl<R, T: DeserializeOwned + Schema> std::fmt::Debug for Reader<R, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("at", &self.at)
            .field("index", &self.index)
            .finish()
    }
}

impl<R: io::Read, T: DeserializeOwned + Schema> Reader<R, T> {
    /// A reader of the file that `reader` holds from its first byte.
    pub fn new(reader: R) -> Self {
        Self::with_options(reader, FrameOptions::new())
    }

    /// [`Reader::new`] with the limits of `options`.
    pub fn with_options(reader: R, options: FrameOptions) -> Self {
        Reader {
            records: None,
            frame: crate::array::AlignedBytes::new(),
            reader,
            options,
            at: 0,
            frame_at: 0,
            good: 0,
            frame_first: 0,
            index: 0,
            done: false,
        }
    }

    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Reads the next frame into `frame`: `false` at the clean end of the
    /// stream.
    fn next_frame(&mut self) -> Result<bool> {
        self.records = None;
        let decode = self.options.decode_options();
        let pad = (layout::next_frame_start(self.at) - self.at) as usize;
        let mut head = [0u8; 64 + HEADER_LEN];
        let got = read_up_to(&mut self.reader, &mut head[..pad + HEADER_LEN], self.at)?;
        if got == 0 {
            return Ok(false);
        }
        if let Some(i) = head[..pad.min(got)].iter().position(|&b| b != 0) {
            return Err(Error::at(
                ErrorKind::PaddingNonZero(head[i]),
                self.at + i as u64,
            ));
        }
        if got <= pad {
            return Err(layout::torn(
                "padding with no frame after it",
                self.at,
                self.at + got as u64,
            ));
        }
        self.frame.resize(0);
        self.frame.extend_from_slice(&head[pad..got]);
        // The header says how much follows; nothing is read beyond the
        // byte limit on its word.
        if got == pad + HEADER_LEN
            && let Ok((h, _)) = FrameHeader::parse_fixed(&head[pad..got], decode.schema_text_limit)
        {
            let limit = decode.byte_limit;
            // The frame's length: in the header, or, streamed, to the end
            // of the stream. Past the limit, the stream is read only to
            // tell a cut-short frame (a torn tail, as from a slice) from a
            // long one (`byte-limit`).
            let want = match h.payload_len {
                Some(n) if !h.is_streamed() => h.payload_offset.checked_add(n),
                _ => None,
            };
            match want {
                Some(w) if w <= limit => {
                    // Straight into the aligned buffer, which grows with
                    // the bytes that come (at most doubling), not with
                    // the length the header claims.
                    let w = w as usize;
                    let mut filled = HEADER_LEN;
                    while filled < w {
                        let next = w.min(filled.saturating_mul(2).max(filled + (64 << 10)));
                        self.frame.resize(next);
                        let room = &mut self.frame.as_mut_slice()[filled..next];
                        let at = self.at + (pad + filled) as u64;
                        filled += read_up_to(&mut self.reader, room, at)?;
                        if filled < next {
                            break;
                        }
                    }
                    self.frame.resize(filled);
                }
                _ => {
                    let mut rest = Vec::new();
                    io::Read::take(
                        &mut self.reader,
                        limit.saturating_add(1) - HEADER_LEN as u64,
                    )
                    .read_to_end(&mut rest)
                    .map_err(|e| {
                        Error::at(ErrorKind::Io(e), self.at + (got + rest.len()) as u64)
                    })?;
                    self.frame.extend_from_slice(&rest);
                }
            }
            if self.frame.as_slice().len() as u64 > limit {
                let at = self.at + pad as u64 + h.payload_offset.min(limit);
                return Err(Error::at(ErrorKind::ByteLimit { limit }, at));
            }
        }
        self.good = self.at;
        self.frame_at = self.at + pad as u64;
        self.at = self.frame_at + self.frame.as_slice().len() as u64;
        self.frame_first = self.index;
        self.open();
        Ok(true)
    }

    /// Starts reading the records of `frame`, checked and read as the
    /// slice reader does (offsets are moved to the stream's as they come).
    fn open(&mut self) {
        let bytes: &[u8] = self.frame.as_slice();
        // SAFETY: the records borrow the frame's heap allocation, which
        // does not move when the `Reader` moves. Every path that changes
        // or frees `frame` (`next_frame`, the `Reader`'s drop, fields
        // dropped in declaration order) drops `records` first, so the
        // borrow never outlives the bytes. The lifetime claimed, 'static,
        // reaches no value given out: `T: DeserializeOwned` borrows nothing
        // from its input, and errors own their contents.
        let bytes: &'static [u8] =
            unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) };
        self.records = Some(FileRecords::new(
            bytes,
            self.options,
            TypedFrames::<T>(std::marker::PhantomData),
        ));
    }

    /// An error from the current frame's records, moved to the stream.
    fn frame_error(&self, e: Error) -> Error {
        if let ErrorKind::TruncatedTail { found, .. } = e.kind() {
            return layout::torn(found, self.good, self.at);
        }
        let e = e.shifted(self.frame_at);
        match e.record() {
            Some(r) => e.in_record(self.frame_first + r),
            None => e,
        }
    }
}

impl<R: io::Read, T: DeserializeOwned + Schema> Iterator for Reader<R, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(records) = &mut self.records {
                match records.next() {
                    Some(Ok(v)) => {
                        self.index += 1;
                        return Some(Ok(v));
                    }
                    Some(Err(e)) => {
                        self.done = true;
                        self.records = None;
                        return Some(Err(self.frame_error(e)));
                    }
                    None => self.records = None,
                }
            }
            match self.next_frame() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    self.records = None;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// Reads until `buf` is full or the reader ends; returns the bytes read.
fn read_up_to<R: io::Read>(reader: &mut R, buf: &mut [u8], at: u64) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::at(ErrorKind::Io(e), at + got as u64)),
        }
    }
    Ok(got)
}
