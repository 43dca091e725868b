//! The bytes of a file (`spec/11-file.md`): where each frame starts and
//! ends, what a cut-short tail looks like, and the indexed payload that
//! holds records with arrays. The one parser and builder of those bytes;
//! readers and the writer take their positions from here.

use std::io;
use std::ops::Range;

use crate::array::directory;
use crate::error::{Error, ErrorKind, Result};
use crate::frame::{self, FrameHeader, HEADER_LEN, MAGIC};

/// Every frame of a file starts at a multiple of this many bytes from the
/// file's start (zero padding before it), so that the blocks of its
/// records, at multiples of 64 from the frame's start, are at multiples of
/// 64 in the file and in a memory map of it.
pub const FRAME_ALIGN: u64 = 64;

/// Rounds `at` up to a multiple of `to`, or `None` on overflow.
pub(crate) fn align_to(at: u64, to: u64) -> Option<u64> {
    at.checked_add(to - 1).map(|v| v / to * to)
}

/// Where the frame after one that ends at `end` starts.
pub(crate) fn next_frame_start(end: u64) -> u64 {
    if end == 0 {
        0
    } else {
        align_to(end, FRAME_ALIGN).unwrap_or(u64::MAX)
    }
}

/// Where a frame lies in a file: found from its header alone.
#[derive(Clone, Debug)]
pub(crate) struct Span {
    /// The frame's first byte (after the padding before it).
    pub(crate) start: u64,
    /// One past its last byte (for a streamed frame, the file's end).
    pub(crate) end: u64,
    pub(crate) header: FrameHeader,
}

/// Bytes a frame walk reads from: a slice, or a file read in place.
pub(crate) trait Source {
    /// The length of the whole input.
    fn len(&self) -> u64;
    /// Reads exactly `buf.len()` bytes at `at` (the caller stays in bounds).
    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<()>;
}

impl Source for &[u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<()> {
        let at = at as usize;
        buf.copy_from_slice(&self[at..at + buf.len()]);
        Ok(())
    }
}

/// A file read through `Seek` and `Read`, with its length taken once.
pub(crate) struct FileSource<'f> {
    pub(crate) file: &'f mut std::fs::File,
    pub(crate) len: u64,
}

impl Source for FileSource<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<()> {
        use std::io::{Read, Seek};
        self.file
            .seek(io::SeekFrom::Start(at))
            .and_then(|_| self.file.read_exact(buf))
            .map_err(|e| Error::at(ErrorKind::Io(e), at))
    }
}

/// The tail after the last complete frame, which ends at `good`, is cut
/// short (the input ends at `len`): `found` says where.
pub(crate) fn torn(found: &'static str, good: u64, len: u64) -> Error {
    Error::at(
        ErrorKind::TruncatedTail {
            found,
            available: len - good,
        },
        good,
    )
}

/// The frame after the one that ends at `good` (0 at the file's start):
/// `None` at the end of the input. Reads the header and schema text, not
/// the payload, so a file of any size is walked in time proportional to
/// its frames. The payload is checked by [`FrameHeader::payload`] when it
/// is read ([`check_payload`]).
///
/// # Errors
/// [`ErrorKind::TruncatedTail`] at `good` when the input ends inside the
/// padding, header, schema text or payload of the next frame; the
/// header's own errors (`bad-magic`, `header-field`, ...) at their offsets
/// in the file; [`ErrorKind::PaddingNonZero`] in the padding before it.
pub(crate) fn next_span(src: &mut impl Source, good: u64, max_text: u64) -> Result<Option<Span>> {
    let len = src.len();
    if good >= len {
        return Ok(None);
    }
    let start = next_frame_start(good);
    let mut pad = [0u8; FRAME_ALIGN as usize];
    let pad = &mut pad[..(start.min(len) - good) as usize];
    src.read_at(good, pad)?;
    if let Some(i) = pad.iter().position(|&b| b != 0) {
        return Err(Error::at(
            ErrorKind::PaddingNonZero(pad[i]),
            good + i as u64,
        ));
    }
    if start >= len {
        return Err(torn("padding with no frame after it", good, len));
    }
    let mut fixed = [0u8; HEADER_LEN];
    let have = (len - start).min(HEADER_LEN as u64) as usize;
    src.read_at(start, &mut fixed[..have])?;
    let seen = have.min(MAGIC.len());
    if fixed[..seen] != MAGIC[..seen] {
        // Not a frame: the header parser says how, at its offset.
        return Err(match FrameHeader::parse_fixed(&fixed[..have], max_text) {
            Err(e) => e.shifted(start),
            Ok(_) => torn("bytes that do not start a frame", good, len),
        });
    }
    if have < HEADER_LEN {
        return Err(torn("a frame header cut short", good, len));
    }
    let (fixed_header, _) =
        FrameHeader::parse_fixed(&fixed, max_text).map_err(|e| e.shifted(start))?;
    let text_end = fixed_header.payload_offset;
    if len - start < text_end {
        return Err(torn("a schema text cut short", good, len));
    }
    let header = if text_end > HEADER_LEN as u64 {
        let mut all = vec![0u8; text_end as usize];
        all[..HEADER_LEN].copy_from_slice(&fixed);
        src.read_at(start + HEADER_LEN as u64, &mut all[HEADER_LEN..])?;
        FrameHeader::parse_with(&all, max_text).map_err(|e| e.shifted(start))?
    } else {
        fixed_header
    };
    let end = match header.payload_len {
        Some(n) if !header.is_streamed() => {
            match start.checked_add(text_end).and_then(|p| p.checked_add(n)) {
                Some(end) if end <= len => end,
                _ => return Err(torn("a payload cut short", good, len)),
            }
        }
        _ => len,
    };
    Ok(Some(Span { start, end, header }))
}

/// A streamed frame's payload range (in the frame) and record count, read
/// from its trailer without checking the payload (no checksum, so listing
/// a mapped file does not touch every page); `None` when the frame does
/// not end with a trailer.
pub(crate) fn streamed_extent(header: &FrameHeader, frame: &[u8]) -> Option<(Range<u64>, u64)> {
    let p = header.payload_offset;
    let t = (frame.len() as u64).checked_sub(frame::TRAILER_LEN as u64)?;
    if t < p || !frame.ends_with(&frame::END_MAGIC) {
        return None;
    }
    let count = u64::from_le_bytes(frame[t as usize..t as usize + 8].try_into().ok()?);
    Some((p..t, count))
}

/// Checks the payload of the frame `frame` (its bytes, from its first),
/// which starts at `start` in the file: its length, trailer and checksum.
/// A streamed frame without a whole trailer is the file's torn tail.
pub(crate) fn check_payload<'a>(
    span: &Span,
    frame: &'a [u8],
    good: u64,
    file_len: u64,
) -> Result<frame::Payload<'a>> {
    span.header.payload(frame).map_err(|e| {
        let cut = matches!(
            e.kind(),
            ErrorKind::FrameTruncated { .. } | ErrorKind::BadTrailer { .. }
        );
        if span.header.is_streamed() && cut {
            torn("a streamed frame without its trailer", good, file_len)
        } else {
            e.shifted(span.start)
        }
    })
}

// ---------------------------------------------------------------------------
// The indexed payload: records with arrays, and the index of their ends
// ---------------------------------------------------------------------------

/// The records of an indexed payload (flag INDEXED), validated: record
/// `k` starts at `align64(end[k-1])` (0 for the first) and ends at
/// `end[k]`; the ends are the `u64`s of the payload's last `8 × count`
/// bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Indexed<'a> {
    pub(crate) payload: &'a [u8],
    /// Where the index starts in the payload.
    index_at: usize,
    pub(crate) count: u64,
    /// The payload's offset in the whole input, for errors.
    pub(crate) base: u64,
}

fn index_error(expected: &'static str, found: u64, at: u64) -> Error {
    Error::at(ErrorKind::RecordIndex { expected, found }, at)
}

impl<'a> Indexed<'a> {
    /// Validates the index of `payload` (at `base` in the input) for
    /// `count` records: every end within the records' area and not before
    /// its record's start, zero padding between records and before the
    /// index. Each record's own directory is validated when it is read.
    pub(crate) fn parse(payload: &'a [u8], count: u64, base: u64) -> Result<Indexed<'a>> {
        let len = payload.len() as u64;
        let index_len = count.checked_mul(8).filter(|&n| n <= len).ok_or_else(|| {
            index_error("8 bytes per record at the payload's end", count, base + len)
        })?;
        let index_at = len - index_len;
        let me = Indexed {
            payload,
            index_at: index_at as usize,
            count,
            base,
        };
        let mut prev_end = 0u64;
        for k in 0..count {
            let start = if k == 0 {
                0
            } else {
                align_to(prev_end, directory::BLOCK_ALIGN).unwrap_or(u64::MAX)
            };
            let end = me.end_of(k);
            let at = base + index_at + 8 * k;
            if end < start || end > index_at {
                return Err(index_error(
                    "a record end at or after the record's start, before the index",
                    end,
                    at,
                ));
            }
            check_zero(&payload[prev_end as usize..start as usize], base + prev_end)?;
            prev_end = end;
        }
        let expected_at = if count == 0 {
            0
        } else {
            align_to(prev_end, 8).unwrap_or(u64::MAX)
        };
        if expected_at != index_at {
            return Err(index_error(
                "the index right after the last record, padded to a multiple of 8",
                index_at,
                base + index_at,
            ));
        }
        check_zero(
            &payload[prev_end as usize..index_at as usize],
            base + prev_end,
        )?;
        Ok(me)
    }

    /// The records of a payload whose index [`Indexed::parse`] validated
    /// before (a [`KilnFile`](super::KilnFile) validates each frame's once).
    pub(crate) fn trusted(payload: &'a [u8], count: u64, base: u64) -> Indexed<'a> {
        Indexed {
            payload,
            index_at: payload.len() - 8 * count as usize,
            count,
            base,
        }
    }

    /// The end of record `k` (< count), from the index.
    fn end_of(&self, k: u64) -> u64 {
        let i = self.index_at + 8 * k as usize;
        u64::from_le_bytes(self.payload[i..i + 8].try_into().expect("8 bytes"))
    }

    /// Record `k` (< count): its bytes and its offset in the payload.
    pub(crate) fn record(&self, k: u64) -> (&'a [u8], u64) {
        let start = if k == 0 {
            0
        } else {
            align_to(self.end_of(k - 1), directory::BLOCK_ALIGN).expect("validated")
        };
        let end = self.end_of(k);
        (&self.payload[start as usize..end as usize], start)
    }

    /// The directory of record `k`, validated, with offsets from the
    /// record's start; `at` is the record's offset in the whole input.
    pub(crate) fn directory(&self, k: u64) -> Result<(directory::Directory, &'a [u8], u64)> {
        let (bytes, start) = self.record(k);
        let at = self.base + start;
        match directory::parse(bytes, 0).map_err(|e| e.shifted(at))? {
            Some(dir) => Ok((dir, bytes, at)),
            None => Err(Error::at(
                ErrorKind::DirectoryMissing {
                    expected: directory::TRAILER_LEN,
                    found: if (bytes.len() as u64) < directory::TRAILER_LEN {
                        "fewer bytes"
                    } else {
                        "no magic"
                    },
                },
                at + bytes.len() as u64,
            )),
        }
    }
}

fn check_zero(bytes: &[u8], at: u64) -> Result<()> {
    match bytes.iter().position(|&b| b != 0) {
        None => Ok(()),
        Some(i) => Err(Error::at(
            ErrorKind::PaddingNonZero(bytes[i]),
            at + i as u64,
        )),
    }
}

/// Builds an indexed payload in a buffer: each record starts at a multiple
/// of 64 from `origin` (the payload's first byte in the buffer) and ends
/// with a directory, empty if it holds no array.
#[derive(Debug, Default)]
pub(crate) struct IndexBuilder {
    ends: Vec<u64>,
}

impl IndexBuilder {
    /// Pads `buf` so that the next record starts at a multiple of 64 from
    /// `origin`.
    pub(crate) fn start_record(&self, buf: &mut Vec<u8>, origin: usize) {
        let at = (buf.len() - origin) as u64;
        let to = align_to(at, directory::BLOCK_ALIGN).unwrap_or(at);
        buf.resize(origin + to as usize, 0);
    }

    /// Records that the record started at `start` ended at the buffer's
    /// end, appending an empty directory if it wrote no array.
    pub(crate) fn end_record(
        &mut self,
        buf: &mut Vec<u8>,
        origin: usize,
        start: usize,
        arrays: bool,
    ) {
        if !arrays {
            let values_end = (buf.len() - start) as u64;
            directory::write(&[], values_end, |b| {
                buf.extend_from_slice(b);
                Ok(())
            })
            .expect("an empty directory into a Vec");
        }
        self.ends.push((buf.len() - origin) as u64);
    }

    /// Appends the index, after padding to a multiple of 8.
    pub(crate) fn finish(&self, buf: &mut Vec<u8>, origin: usize) {
        let at = (buf.len() - origin) as u64;
        buf.resize(origin + align_to(at, 8).unwrap_or(at) as usize, 0);
        for e in &self.ends {
            buf.extend_from_slice(&e.to_le_bytes());
        }
    }
}
