//! Framed batches read from an `io::Read`: the payload handed to the
//! record reader, checked at its end (`spec/06-frame.md`, 6.4 and 6.5).

use std::io;

use crate::de::{RecordSeed, Typed};

use super::{FrameHeader, TRAILER_LEN, Trailer, read_up_to, truncated};
use crate::error::{Error, ErrorKind, Result};
use crate::records::{StreamEnd, StreamRecords};

// ---------------------------------------------------------------------------
// Reading from io::Read
// ---------------------------------------------------------------------------

/// Hands the payload to the record reader and nothing else: at most the
/// declared length, or for a streamed frame everything but the last 32
/// bytes (held back as the trailer). Checksums what it hands over.
pub(crate) struct PayloadSource<R> {
    pub(super) reader: R,
    /// The declared length, or `None` when streamed.
    pub(super) len: Option<u64>,
    pub(super) delivered: u64,
    pub(super) crc: u32,
    pub(super) checksum: bool,
    /// Streamed: bytes read ahead, of which the last 32 may be the trailer.
    pub(super) hold: Vec<u8>,
    pub(super) start: usize,
    pub(super) end: usize,
    /// The underlying reader ended.
    pub(super) eof: bool,
    /// The underlying reader ended before the declared length.
    pub(super) short: bool,
    /// Where the payload starts in the frame.
    pub(super) payload_offset: u64,
}

pub(super) const HOLD: usize = 8 * 1024;

impl<R: io::Read> PayloadSource<R> {
    pub(super) fn new(reader: R, header: &FrameHeader) -> Self {
        PayloadSource {
            reader,
            len: header.payload_len,
            delivered: 0,
            crc: 0,
            checksum: header.has_checksum(),
            hold: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            short: false,
            payload_offset: header.payload_offset,
        }
    }

    /// Streamed: the held-back bytes once the reader ended.
    fn trailer(&self) -> &[u8] {
        &self.hold[self.start..self.end]
    }

    /// Streamed, at the end: the trailer's own checks (size, magic,
    /// reserved bytes), at its offset in the frame.
    fn trailer_check(&self, flags: u16) -> Result<Trailer> {
        let t = self.trailer();
        let at = self.payload_offset.saturating_add(self.delivered);
        if t.len() < TRAILER_LEN {
            return Err(truncated("trailer", TRAILER_LEN as u64, t.len() as u64, at));
        }
        Trailer::parse(t, at, flags)
    }
}

impl<R: io::Read> io::Read for PayloadSource<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match self.len {
            Some(len) => {
                let left = len - self.delivered;
                if left == 0 || out.is_empty() {
                    return Ok(0);
                }
                let want = out.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                let n = loop {
                    match self.reader.read(&mut out[..want]) {
                        Ok(n) => break n.min(want),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                };
                if n == 0 {
                    self.short = true;
                }
                if self.checksum {
                    self.crc = crc32c::crc32c_append(self.crc, &out[..n]);
                }
                self.delivered += n as u64;
                Ok(n)
            }
            None => loop {
                let held = self.end - self.start;
                if held > TRAILER_LEN {
                    let n = (held - TRAILER_LEN).min(out.len());
                    let src = &self.hold[self.start..self.start + n];
                    out[..n].copy_from_slice(src);
                    if self.checksum {
                        self.crc = crc32c::crc32c_append(self.crc, src);
                    }
                    self.start += n;
                    self.delivered += n as u64;
                    return Ok(n);
                }
                if self.eof || out.is_empty() {
                    return Ok(0);
                }
                if self.hold.is_empty() {
                    self.hold = vec![0; HOLD];
                }
                if self.end == self.hold.len() {
                    // Full: move the held bytes (at most 32) to the front.
                    self.hold.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                }
                let n = loop {
                    match self.reader.read(&mut self.hold[self.end..]) {
                        Ok(n) => break n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                };
                // A reader that claims more than the room is broken; clamp.
                self.end = (self.end + n).min(self.hold.len());
                if n == 0 {
                    self.eof = true;
                }
            },
        }
    }
}

/// The records of a framed batch read from a stream by `seed`, whose
/// header (and schema text) `reader` has given already.
pub(crate) fn framed_records<R: io::Read, T, K>(
    reader: R,
    header: FrameHeader,
    options: crate::options::Options,
    seed: K,
) -> StreamRecords<PayloadSource<R>, T, FrameEnd, K> {
    let source = PayloadSource::new(reader, &header);
    StreamRecords::with_seed(source, options, FrameEnd { header }, seed)
}

/// Reads the records of a framed batch from an [`io::Read`]; see
/// [`FrameOptions::batch_from_reader`](super::FrameOptions::batch_from_reader).
/// `K` says how each record is read: by `T`'s `Deserialize`, or through
/// a resolution of another version's schema ([`Evolve`](super::Evolve)).
pub struct FramedReaderRecords<R, T, K = Typed<T>>(
    pub(super) StreamRecords<PayloadSource<R>, T, FrameEnd, K>,
);

impl<R: io::Read, T, K: for<'de> RecordSeed<'de, Value = T>> FramedReaderRecords<R, T, K> {
    /// The frame's header.
    pub fn header(&self) -> &FrameHeader {
        &self.0.end().header
    }

    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.0.index()
    }
}

impl<R: io::Read, T, K: for<'de> RecordSeed<'de, Value = T>> Iterator
    for FramedReaderRecords<R, T, K>
{
    type Item = Result<T>;

    #[inline]
    fn next(&mut self) -> Option<Result<T>> {
        self.0.next()
    }
}

impl<R, T, K> std::fmt::Debug for FramedReaderRecords<R, T, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt_as("FramedReaderRecords", f)
    }
}

/// What ends a framed batch read from a stream: the count and length of
/// its header, or of its trailer when streamed, then its checksum and the
/// end of the input.
pub(crate) struct FrameEnd {
    pub(super) header: FrameHeader,
}

impl<R: io::Read> StreamEnd<PayloadSource<R>> for FrameEnd {
    fn base(&self) -> u64 {
        self.header.payload_offset
    }

    /// A streamed frame's count is known once its trailer is reached.
    fn declared(&mut self, src: &mut PayloadSource<R>, at_eof: bool) -> Option<u64> {
        match self.header.record_count {
            Some(count) => Some(count),
            None if at_eof => src
                .trailer_check(self.header.flags)
                .ok()
                .map(|t| t.record_count),
            None => None,
        }
    }

    fn reads_empty_records(&self, src: &PayloadSource<R>) -> bool {
        !src.short
    }

    fn finish(
        &mut self,
        src: &mut PayloadSource<R>,
        index: u64,
        offset: u64,
        consumed: u64,
        at_eof: bool,
    ) -> Result<()> {
        let header = &self.header;
        if !at_eof {
            // All declared records were read but payload bytes remain.
            return Err(Error::at(
                ErrorKind::PayloadLengthMismatch {
                    declared: header.payload_len.unwrap_or(0),
                    found: consumed,
                },
                offset,
            ));
        }
        let (declared_count, crc, crc_at) = match (header.record_count, header.payload_len) {
            (Some(count), Some(len)) => {
                if src.short {
                    return Err(truncated(
                        "payload",
                        len,
                        src.delivered,
                        header.payload_offset,
                    ));
                }
                let mut probe = [0u8; 1];
                if read_up_to(&mut src.reader, &mut probe, offset)? > 0 {
                    return Err(Error::at(ErrorKind::TrailingBytes { count: 1 }, offset));
                }
                (count, header.checksum, 40)
            }
            _ => {
                let trailer = src.trailer_check(header.flags)?;
                if trailer.payload_len != src.delivered {
                    return Err(Error::at(
                        ErrorKind::PayloadLengthMismatch {
                            declared: trailer.payload_len,
                            found: src.delivered,
                        },
                        offset + 8,
                    ));
                }
                (trailer.record_count, trailer.checksum, offset + 16)
            }
        };
        if let Some(expected) = crc
            && expected != src.crc
        {
            return Err(Error::at(
                ErrorKind::ChecksumMismatch {
                    expected,
                    found: src.crc,
                },
                crc_at,
            ));
        }
        if declared_count != index {
            return Err(Error::at(
                ErrorKind::CountMismatch {
                    declared: declared_count,
                    found: index,
                },
                offset,
            ));
        }
        Ok(())
    }

    fn explain(&mut self, src: &mut PayloadSource<R>, e: Error) -> Error {
        // A streamed frame cut short shows first as a record cut short;
        // its trailer says what really happened, as it does for a slice,
        // whose trailer is checked first.
        if src.eof
            && self.header.is_streamed()
            && let Err(trailer) = src.trailer_check(self.header.flags)
        {
            return trailer;
        }
        if src.short
            && let Some(len) = self.header.payload_len
        {
            return truncated("payload", len, src.delivered, self.header.payload_offset);
        }
        e
    }
}
