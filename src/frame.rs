//! Frames: a fixed header in front of one record or a batch, so that a
//! reader notices a changed type before it reads a value.
//!
//! The header holds a magic number, the format version, flags, the writer's
//! schema [`Fingerprint`] (see [`crate::schema`]), the record count, the
//! payload length and, optionally, a CRC-32C of the payload and the writer's
//! canonical schema text. The payload starts at a multiple of 64 bytes from
//! the start of the frame. `spec/06-frame.md` has the byte table.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Point { x: i32, y: i32 }
//!
//! let bytes = kiln::frame::to_vec(&Point { x: 9, y: -4 })?;
//! assert_eq!(bytes.len(), 64 + 8);
//! assert_eq!(&bytes[..8], kiln::frame::MAGIC);
//! assert_eq!(&bytes[64..], [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]); // the bare record
//! assert_eq!(kiln::frame::from_slice::<Point>(&bytes)?, Point { x: 9, y: -4 });
//!
//! // A reader built from another struct stops before the first value:
//! #[derive(Deserialize, Debug)]
//! struct Point3 { x: i32, y: i32, z: i32 }
//! let err = kiln::frame::from_slice::<Point3>(&bytes).unwrap_err();
//! assert_eq!(err.kind().code(), "schema-mismatch");
//! assert_eq!(err.offset(), Some(16));
//! # Ok::<(), kiln::Error>(())
//! ```
//!
//! Two forms exist. A writer that knows the count and length (it wrote into
//! memory) puts them in the header. A writer that streams into an
//! [`io::Write`] sets [`FLAG_STREAMED`], writes all-ones in those header
//! fields, and ends the frame with a 32-byte trailer holding the count, the
//! length and the checksum. Readers accept both.
//!
//! A record that holds shaped arrays ([`crate::Array`]) travels alone in a
//! frame with the [`FLAG_DIRECTORY`] flag: its directory is at the
//! payload's end, and [`list_arrays`], [`fetch_array`] and
//! [`fetch_array_view`] read it without the record's type, at offsets from
//! the frame's start. Batches refuse such records.

use std::borrow::Borrow;
use std::io::{self, Read as _};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::batch::{BatchWriter, SliceRecords, no_record_there, read_record};
use crate::de::Deserializer;
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::read::{IoRead, SliceRead};
use crate::schema::guard::Guarded;
use crate::schema::{self, Fingerprint, Schema};
use crate::ser::Serializer;

/// The 8 bytes every frame starts with: `89 'K' 'I' 'L' 'N' CR LF 1A`. The
/// high first byte marks binary data; CR LF and 1A catch newline
/// translation and text-mode truncation.
pub const MAGIC: [u8; 8] = [0x89, b'K', b'I', b'L', b'N', 0x0d, 0x0a, 0x1a];
/// The last 8 bytes of a streamed frame's trailer: the magic reversed.
pub const END_MAGIC: [u8; 8] = [0x1a, 0x0a, 0x0d, b'N', b'L', b'I', b'K', 0x89];
/// The frame format version this crate writes and reads.
pub const VERSION: u16 = 1;
/// Size of the fixed header.
pub const HEADER_LEN: usize = 64;
/// Size of a streamed frame's trailer.
pub const TRAILER_LEN: usize = 32;
/// The payload starts at a multiple of this many bytes from the frame's start.
pub const PAYLOAD_ALIGN: u64 = 64;
/// Flag bit 0: the payload's CRC-32C is in the header (or the trailer).
pub const FLAG_CHECKSUM: u16 = 1 << 0;
/// Flag bit 1: the writer's canonical schema text follows the header.
pub const FLAG_SCHEMA: u16 = 1 << 1;
/// Flag bit 2: count, length and checksum are in a trailer after the payload.
pub const FLAG_STREAMED: u16 = 1 << 2;
/// Flag bit 3: the payload is one record that holds shaped arrays, so it
/// ends with an array directory (`spec/08-directory.md`). Set by the
/// writer exactly when the record wrote a directory; readers without the
/// record's type ([`list_arrays`]) trust it instead of guessing from the
/// payload's last bytes.
pub const FLAG_DIRECTORY: u16 = 1 << 3;
/// The flag bits version 1 defines; the others must be zero.
pub const KNOWN_FLAGS: u16 = FLAG_CHECKSUM | FLAG_SCHEMA | FLAG_STREAMED | FLAG_DIRECTORY;
/// The value of the count and length fields of a streamed header.
pub const UNKNOWN: u64 = u64::MAX;

const END_MAGIC_HEX: &str = "1a 0a 0d 4e 4c 49 4b 89";

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn truncated(expected: &'static str, needed: u64, available: u64, offset: u64) -> Error {
    Error::at(
        ErrorKind::FrameTruncated {
            expected,
            needed,
            available,
        },
        offset,
    )
}

/// Fails at the first nonzero byte of `bytes`, which sit at `offset`.
fn check_zero(bytes: &[u8], offset: u64) -> Result<()> {
    match bytes.iter().position(|&b| b != 0) {
        None => Ok(()),
        Some(i) => Err(Error::at(
            ErrorKind::PaddingNonZero(bytes[i]),
            offset + i as u64,
        )),
    }
}

/// Rounds `len` up to the payload alignment, or `None` on overflow.
fn align_up(len: u64) -> Option<u64> {
    len.checked_add(PAYLOAD_ALIGN - 1)
        .map(|v| v / PAYLOAD_ALIGN * PAYLOAD_ALIGN)
}

/// A parsed and checked frame header, read without the record's Rust type.
///
/// ```
/// let bytes = kiln::frame::FrameOptions::new()
///     .embed_schema(true)
///     .batch_to_vec(&[1u16, 2, 3])?;
/// let header = kiln::frame::FrameHeader::parse(&bytes)?;
/// assert_eq!(header.record_count, Some(3));
/// assert_eq!(header.payload_len, Some(6));
/// assert_eq!(header.schema_text.as_deref(), Some("root u16\n"));
/// assert_eq!(header.payload_offset, 128);
/// let payload = header.payload(&bytes)?;
/// assert_eq!(payload.bytes, [1, 0, 2, 0, 3, 0]);
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    /// The format version (always [`VERSION`] once parsed).
    pub version: u16,
    /// The flag bits ([`FLAG_CHECKSUM`], [`FLAG_SCHEMA`], [`FLAG_STREAMED`]).
    pub flags: u16,
    /// The writer's schema fingerprint.
    pub fingerprint: Fingerprint,
    /// The record count, `None` in a streamed frame (it is in the trailer).
    pub record_count: Option<u64>,
    /// The payload length, `None` in a streamed frame.
    pub payload_len: Option<u64>,
    /// The payload's CRC-32C when the header carries it (checksum flag set,
    /// frame not streamed).
    pub checksum: Option<u32>,
    /// The writer's canonical schema text, when embedded.
    pub schema_text: Option<String>,
    /// Where the payload starts: 64 plus the schema text rounded up to 64.
    pub payload_offset: u64,
}

/// A frame's payload, checked against the header (and trailer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Payload<'a> {
    /// The payload bytes: the records back to back.
    pub bytes: &'a [u8],
    /// The offset of the payload in the frame (a multiple of 64).
    pub offset: u64,
    /// The number of records the frame declares.
    pub record_count: u64,
}

impl FrameHeader {
    /// Whether the writer streamed the frame (count and length in the trailer).
    pub fn is_streamed(&self) -> bool {
        self.flags & FLAG_STREAMED != 0
    }

    /// Whether the frame carries a CRC-32C of the payload.
    pub fn has_checksum(&self) -> bool {
        self.flags & FLAG_CHECKSUM != 0
    }

    /// Whether the payload is one record that ends with an array directory.
    pub fn has_directory(&self) -> bool {
        self.flags & FLAG_DIRECTORY != 0
    }

    /// Checks the fixed 64-byte header (without the schema text); returns
    /// it with the schema text length.
    /// A schema text longer than `max_text` is refused here, before a byte
    /// of it is read.
    fn parse_fixed(bytes: &[u8], max_text: u64) -> Result<(FrameHeader, u32)> {
        let seen = MAGIC.len().min(bytes.len());
        if bytes[..seen] != MAGIC[..seen] {
            return Err(Error::at(
                ErrorKind::BadMagic {
                    found: hex(&bytes[..seen]),
                },
                0,
            ));
        }
        // A fixed-size view: every field read below has a constant index.
        let Some(h) = bytes.first_chunk::<HEADER_LEN>() else {
            return Err(truncated(
                "frame header",
                HEADER_LEN as u64,
                bytes.len() as u64,
                0,
            ));
        };
        let version = le_u16(h, 8);
        if version != VERSION {
            return Err(Error::at(
                ErrorKind::UnsupportedVersion {
                    found: version,
                    supported: VERSION,
                },
                8,
            ));
        }
        let flags = le_u16(h, 10);
        if flags & !KNOWN_FLAGS != 0 {
            return Err(Error::at(
                ErrorKind::ReservedFlag {
                    flags,
                    known: KNOWN_FLAGS,
                },
                10,
            ));
        }
        let field = |field, expected, found, at| {
            Error::at(
                ErrorKind::HeaderField {
                    field,
                    expected,
                    found,
                },
                at,
            )
        };
        let schema_len = le_u32(h, 12);
        if flags & FLAG_SCHEMA == 0 && schema_len != 0 {
            return Err(field(
                "schema_len",
                "0 without the schema flag",
                schema_len.into(),
                12,
            ));
        }
        if u64::from(schema_len) > max_text {
            return Err(Error::at(
                ErrorKind::SchemaTextLimit {
                    len: schema_len.into(),
                    limit: max_text,
                },
                12,
            ));
        }
        let fingerprint = Fingerprint::from_le_bytes(h[16..24].try_into().unwrap_or([0; 8]));
        let count = le_u64(h, 24);
        let len = le_u64(h, 32);
        let crc = le_u32(h, 40);
        let streamed = flags & FLAG_STREAMED != 0;
        if streamed {
            if count != UNKNOWN {
                return Err(field(
                    "record_count",
                    "ff..ff in a streamed frame",
                    count,
                    24,
                ));
            }
            if len != UNKNOWN {
                return Err(field("payload_len", "ff..ff in a streamed frame", len, 32));
            }
        }
        if flags & FLAG_DIRECTORY != 0 {
            // Only a single-record frame knows where its record ends.
            if streamed {
                return Err(field(
                    "flags",
                    "DIRECTORY only in a frame that is not STREAMED",
                    flags.into(),
                    10,
                ));
            }
            if count != 1 {
                return Err(field(
                    "record_count",
                    "1 in a frame with the DIRECTORY flag",
                    count,
                    24,
                ));
            }
        }
        if (streamed || flags & FLAG_CHECKSUM == 0) && crc != 0 {
            return Err(field(
                "crc32c",
                "0 without the checksum flag or in a streamed frame",
                crc.into(),
                40,
            ));
        }
        if h[44..HEADER_LEN].iter().fold(0, |acc, &b| acc | b) != 0 {
            check_zero(&h[44..HEADER_LEN], 44)?;
        }
        let payload_offset = align_up(HEADER_LEN as u64 + u64::from(schema_len)).unwrap_or(0);
        Ok((
            FrameHeader {
                version,
                flags,
                fingerprint,
                record_count: (!streamed).then_some(count),
                payload_len: (!streamed).then_some(len),
                checksum: (!streamed && flags & FLAG_CHECKSUM != 0).then_some(crc),
                schema_text: None,
                payload_offset,
            },
            schema_len,
        ))
    }

    /// Checks the schema text and its padding (`area` is bytes 64 up to
    /// the payload offset) and stores the text.
    fn take_schema(&mut self, area: &[u8], schema_len: u32) -> Result<()> {
        if self.flags & FLAG_SCHEMA == 0 {
            return Ok(());
        }
        let (text, pad) = area.split_at(schema_len as usize);
        check_zero(pad, HEADER_LEN as u64 + u64::from(schema_len))?;
        let text = std::str::from_utf8(text).map_err(|e| {
            Error::at(
                ErrorKind::InvalidUtf8 {
                    valid_up_to: e.valid_up_to(),
                },
                (HEADER_LEN + e.valid_up_to()) as u64,
            )
        })?;
        let hashed = Fingerprint::of_text(text);
        if hashed != self.fingerprint {
            return Err(Error::at(
                ErrorKind::SchemaTextMismatch {
                    expected: self.fingerprint.to_string(),
                    found: hashed.to_string(),
                },
                HEADER_LEN as u64,
            ));
        }
        self.schema_text = Some(text.to_owned());
        Ok(())
    }

    /// Parses and checks the header at the start of `bytes`: magic, version,
    /// flags, the fields the flags constrain, reserved and padding bytes,
    /// and the embedded schema text (UTF-8, hashing to the fingerprint).
    /// Needs only the bytes up to the payload; the payload is checked by
    /// [`FrameHeader::payload`].
    ///
    /// # Errors
    /// [`ErrorKind::BadMagic`], [`ErrorKind::FrameTruncated`],
    /// [`ErrorKind::UnsupportedVersion`], [`ErrorKind::ReservedFlag`],
    /// [`ErrorKind::HeaderField`], [`ErrorKind::SchemaTextLimit`] (a text
    /// over [`DEFAULT_SCHEMA_TEXT_LIMIT`](crate::options::DEFAULT_SCHEMA_TEXT_LIMIT)),
    /// [`ErrorKind::PaddingNonZero`],
    /// [`ErrorKind::InvalidUtf8`], [`ErrorKind::SchemaTextMismatch`], each
    /// with the offset of the byte at fault.
    pub fn parse(bytes: &[u8]) -> Result<FrameHeader> {
        Self::parse_with(bytes, crate::options::DEFAULT_SCHEMA_TEXT_LIMIT)
    }

    /// [`FrameHeader::parse`] with a limit on the schema text's length.
    fn parse_with(bytes: &[u8], max_text: u64) -> Result<FrameHeader> {
        let (mut header, schema_len) =
            Self::parse_fixed(&bytes[..bytes.len().min(HEADER_LEN)], max_text)?;
        let end = usize::try_from(header.payload_offset).unwrap_or(usize::MAX);
        let Some(area) = bytes.get(HEADER_LEN..end) else {
            return Err(truncated(
                "schema text and padding",
                header.payload_offset - HEADER_LEN as u64,
                (bytes.len() - HEADER_LEN) as u64,
                HEADER_LEN as u64,
            ));
        };
        header.take_schema(area, schema_len)?;
        Ok(header)
    }

    /// The payload of the frame in `bytes` (the whole frame, from its
    /// first byte), checked against the header: its length, for a streamed
    /// frame the trailer, and the checksum when there is one.
    ///
    /// # Errors
    /// [`ErrorKind::FrameTruncated`], [`ErrorKind::TrailingBytes`],
    /// [`ErrorKind::BadTrailer`], [`ErrorKind::PaddingNonZero`],
    /// [`ErrorKind::HeaderField`], [`ErrorKind::PayloadLengthMismatch`]
    /// and [`ErrorKind::ChecksumMismatch`].
    pub fn payload<'a>(&self, bytes: &'a [u8]) -> Result<Payload<'a>> {
        let start = self.payload_offset;
        let after = (bytes.len() as u64).saturating_sub(start);
        let rest = bytes.get(start as usize..).unwrap_or(&[]);
        let (payload, count, crc, crc_at) = match (self.record_count, self.payload_len) {
            (Some(count), Some(len)) => {
                if after < len {
                    return Err(truncated("payload", len, after, start));
                }
                if after > len {
                    return Err(Error::at(
                        ErrorKind::TrailingBytes { count: after - len },
                        start + len,
                    ));
                }
                (rest, count, self.checksum, 40)
            }
            _ => {
                if after < TRAILER_LEN as u64 {
                    return Err(truncated("trailer", TRAILER_LEN as u64, after, start));
                }
                let (payload, t) = rest.split_at(rest.len() - TRAILER_LEN);
                let t_at = start + payload.len() as u64;
                let trailer = Trailer::parse(t, t_at, self.flags)?;
                if trailer.payload_len != payload.len() as u64 {
                    return Err(Error::at(
                        ErrorKind::PayloadLengthMismatch {
                            declared: trailer.payload_len,
                            found: payload.len() as u64,
                        },
                        t_at + 8,
                    ));
                }
                (payload, trailer.record_count, trailer.checksum, t_at + 16)
            }
        };
        if let Some(expected) = crc {
            let found = crc32c::crc32c(payload);
            if found != expected {
                return Err(Error::at(
                    ErrorKind::ChecksumMismatch { expected, found },
                    crc_at,
                ));
            }
        }
        Ok(Payload {
            bytes: payload,
            offset: start,
            record_count: count,
        })
    }

    /// Fails with [`ErrorKind::SchemaMismatch`] unless the frame was written
    /// with `schema`.
    ///
    /// # Errors
    /// [`ErrorKind::SchemaMismatch`] at offset 16, showing both fingerprints
    /// and both texts where known.
    pub fn check_schema(&self, schema: &Schema) -> Result<()> {
        if self.fingerprint == schema.fingerprint() {
            return Ok(());
        }
        Err(Error::at(
            ErrorKind::SchemaMismatch {
                expected: schema.fingerprint().to_string(),
                found: self.fingerprint.to_string(),
                expected_text: schema.text().map(str::to_owned),
                found_text: self.schema_text.clone(),
            },
            16,
        ))
    }
}

/// A streamed frame's trailer.
struct Trailer {
    record_count: u64,
    payload_len: u64,
    checksum: Option<u32>,
}

impl Trailer {
    /// Checks the 32 trailer bytes `t`, which sit at offset `at`.
    fn parse(t: &[u8], at: u64, flags: u16) -> Result<Trailer> {
        if t[24..32] != END_MAGIC {
            return Err(Error::at(
                ErrorKind::BadTrailer {
                    expected: END_MAGIC_HEX,
                    found: hex(&t[24..32]),
                },
                at + 24,
            ));
        }
        check_zero(&t[20..24], at + 20)?;
        let crc = le_u32(t, 16);
        if flags & FLAG_CHECKSUM == 0 && crc != 0 {
            return Err(Error::at(
                ErrorKind::HeaderField {
                    field: "trailer crc32c",
                    expected: "0 without the checksum flag",
                    found: crc.into(),
                },
                at + 16,
            ));
        }
        Ok(Trailer {
            record_count: le_u64(t, 0),
            payload_len: le_u64(t, 8),
            checksum: (flags & FLAG_CHECKSUM != 0).then_some(crc),
        })
    }

    fn bytes(count: u64, len: u64, crc: u32) -> [u8; TRAILER_LEN] {
        let mut t = [0u8; TRAILER_LEN];
        t[0..8].copy_from_slice(&count.to_le_bytes());
        t[8..16].copy_from_slice(&len.to_le_bytes());
        t[16..20].copy_from_slice(&crc.to_le_bytes());
        t[24..32].copy_from_slice(&END_MAGIC);
        t
    }
}

/// Parses the header and checks the payload of the frame in `bytes`,
/// without the record's type: [`FrameHeader::parse`] then
/// [`FrameHeader::payload`].
///
/// # Errors
/// As those two.
pub fn open(bytes: &[u8]) -> Result<(FrameHeader, Payload<'_>)> {
    let header = FrameHeader::parse(bytes)?;
    let payload = header.payload(bytes)?;
    Ok((header, payload))
}

// ---------------------------------------------------------------------------
// Arrays of a framed record, without its type
// ---------------------------------------------------------------------------

/// The checked payload of a single-record frame, and its directory if the
/// DIRECTORY flag says there is one. Errors are at offsets in the frame.
fn framed_directory(bytes: &[u8]) -> Result<(Payload<'_>, Option<crate::directory::Directory>)> {
    let (header, payload) = open(bytes)?;
    if payload.record_count != 1 {
        return Err(not_one_record(payload.record_count));
    }
    if !header.has_directory() {
        return Ok((payload, None));
    }
    match crate::directory::parse(payload.bytes, 0).map_err(|e| e.shifted(payload.offset))? {
        Some(dir) => Ok((payload, Some(dir))),
        None => Err(Error::at(
            ErrorKind::DirectoryFlag {
                expected: "a payload that ends with an array directory (flag DIRECTORY set)",
                found: "no directory trailer",
            },
            10,
        )),
    }
}

/// Lists the arrays of the record in a single-record frame, without the
/// record's Rust type: dtype, shape and byte range of each block.
///
/// Byte ranges are from the first byte of the frame (`bytes`), so a reader
/// can slice the file or a memory map directly; each starts at a multiple
/// of 64. The header is checked as [`from_slice`] checks it (magic,
/// version, flags, lengths, schema text, checksum) except the fingerprint,
/// which needs the type. Whether the record has arrays is the DIRECTORY
/// flag's word ([`FLAG_DIRECTORY`]): without it the list is empty, whatever
/// the payload's last bytes look like.
///
/// ```
/// let image = kiln::Array::from_shape_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?;
/// let frame = kiln::frame::to_vec(&("cat".to_string(), image))?;
/// let arrays = kiln::frame::list_arrays(&frame)?;
/// assert_eq!(arrays.len(), 1);
/// assert_eq!((arrays[0].dtype_name(), arrays[0].shape()), ("f32", &[2, 2][..]));
/// assert_eq!(arrays[0].byte_range(), 128..144); // header 64, block at 64 in the record
/// let block = &frame[128..144];
/// assert_eq!(block[4..8], 2.0f32.to_le_bytes());
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// Those of [`open`], [`ErrorKind::HeaderField`] for a count other than 1,
/// [`ErrorKind::DirectoryFlag`] if the flag is set but the payload does not
/// end with a directory, and every directory rule of
/// [`crate::directory::list`], at offsets from the start of the frame.
pub fn list_arrays(bytes: &[u8]) -> Result<Vec<crate::directory::ArrayInfo>> {
    let (payload, dir) = framed_directory(bytes)?;
    let mut entries = dir.map(|d| d.entries).unwrap_or_default();
    for e in &mut entries {
        // Cannot overflow: the block lies inside `bytes`.
        e.offset += payload.offset;
    }
    Ok(entries)
}

/// The payload and the checks of [`fetch_array`], before the copy or view.
fn framed_entry(bytes: &[u8], index: usize) -> Result<Payload<'_>> {
    let (payload, dir) = framed_directory(bytes)?;
    if dir.is_none() {
        return Err(Error::at(
            ErrorKind::ArrayIndex {
                index: index as u64,
                count: 0,
            },
            payload.offset + payload.bytes.len() as u64,
        ));
    }
    Ok(payload)
}

/// Reads array `index` of the record in a single-record frame into an
/// owned [`Array`](crate::Array), without the record's type and without
/// reading the other arrays or values (the checksum, when the frame has
/// one, is still computed over the whole payload).
///
/// ```
/// let frame = kiln::frame::to_vec(&(7u8, kiln::Array::from_vec(vec![1u32, 2, 3])))?;
/// let a: kiln::Array<u32> = kiln::frame::fetch_array(&frame, 0)?;
/// assert_eq!(a.data(), [1, 2, 3]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`list_arrays`], plus [`ErrorKind::ArrayIndex`] for an index past
/// the arrays (at the directory, or at the payload's end when the frame
/// has no arrays) and [`ErrorKind::DtypeMismatch`] if the array is not of
/// `T`, at offsets from the start of the frame.
pub fn fetch_array<T: crate::block::Element>(
    bytes: &[u8],
    index: usize,
) -> Result<crate::Array<T>> {
    let payload = framed_entry(bytes, index)?;
    crate::directory::fetch(payload.bytes, index).map_err(|e| e.shifted(payload.offset))
}

/// Views array `index` of the record in a single-record frame in place,
/// without copying and without the record's type.
///
/// The view needs the block aligned in memory for `T`: it is whenever the
/// frame starts at a 64-aligned address (a page-aligned memory map, or
/// [`crate::array::AlignedBytes`]), since the payload and every block
/// start at multiples of 64 from the frame's start.
///
/// # Errors
/// As [`fetch_array`], plus [`ErrorKind::ViewMisaligned`] if the block is
/// not aligned in memory and [`ErrorKind::ViewUnavailable`] on a big-endian
/// host.
pub fn fetch_array_view<T: crate::block::Element>(
    bytes: &[u8],
    index: usize,
) -> Result<crate::ArrayView<'_, T>> {
    let payload = framed_entry(bytes, index)?;
    crate::directory::fetch_view(payload.bytes, index).map_err(|e| e.shifted(payload.offset))
}

// ---------------------------------------------------------------------------
// Options and writing
// ---------------------------------------------------------------------------

/// How frames are written (checksum, embedded schema) and read (limits).
///
/// ```
/// let opts = kiln::frame::FrameOptions::new().checksum(false).embed_schema(true);
/// let bytes = opts.to_vec(&7u8)?;
/// assert_eq!(bytes[10], 0b010); // flags: schema, no checksum
/// assert_eq!(bytes.len(), 128 + 1); // header, schema text padded to 64, payload
/// assert_eq!(opts.from_slice::<u8>(&bytes)?, 7);
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameOptions {
    checksum: bool,
    embed_schema: bool,
    options: Options,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions {
            checksum: true,
            embed_schema: false,
            options: Options::default(),
        }
    }
}

/// Writes the header, schema text and padding for `schema` into `out`.
fn header_bytes(
    out: &mut Vec<u8>,
    schema: &Schema,
    flags: u16,
    count: u64,
    len: u64,
) -> Result<()> {
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    let text = if flags & FLAG_SCHEMA != 0 {
        let text = schema.text().ok_or_else(|| {
            Error::new(ErrorKind::SchemaTrace {
                type_name: schema.fingerprint().to_string(),
                reason: "the schema is known only by its fingerprint, so its text cannot be \
                         embedded; write without embed_schema"
                    .into(),
            })
        })?;
        let len = u32::try_from(text.len()).map_err(|_| {
            Error::new(ErrorKind::CountOverflow {
                len: text.len() as u64,
            })
        })?;
        out.extend_from_slice(&len.to_le_bytes());
        Some(text)
    } else {
        out.extend_from_slice(&0u32.to_le_bytes());
        None
    };
    out.extend_from_slice(&schema.fingerprint().to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&[0; HEADER_LEN - 40]);
    if let Some(text) = text {
        out.extend_from_slice(text.as_bytes());
        let padded = align_up(out.len() as u64).unwrap_or(0) as usize;
        out.resize(padded, 0);
    }
    Ok(())
}

impl FrameOptions {
    /// The defaults: checksum on, schema text not embedded, default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether writers add a CRC-32C of the payload (default: yes).
    pub fn checksum(mut self, on: bool) -> Self {
        self.checksum = on;
        self
    }

    /// Whether writers embed the canonical schema text (default: no).
    pub fn embed_schema(mut self, on: bool) -> Self {
        self.embed_schema = on;
        self
    }

    /// The decoding limits readers use (per record in batches).
    pub fn decode(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    fn flags(&self) -> u16 {
        let mut flags = 0;
        if self.checksum {
            flags |= FLAG_CHECKSUM;
        }
        if self.embed_schema {
            flags |= FLAG_SCHEMA;
        }
        flags
    }

    /// Writes a frame around whatever `fill` appends to `out`, patching the
    /// count, length and checksum in afterwards.
    fn write_into(
        &self,
        out: &mut Vec<u8>,
        schema: &Schema,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<u64>,
    ) -> Result<()> {
        let frame_start = out.len();
        header_bytes(out, schema, self.flags(), 0, 0)?;
        let start = out.len();
        let count = fill(out)?;
        let len = (out.len() - start) as u64;
        let h = &mut out[frame_start..frame_start + HEADER_LEN];
        h[24..32].copy_from_slice(&count.to_le_bytes());
        h[32..40].copy_from_slice(&len.to_le_bytes());
        if self.checksum {
            let crc = crc32c::crc32c(&out[start..]);
            out[frame_start + 40..frame_start + 44].copy_from_slice(&crc.to_le_bytes());
        }
        Ok(())
    }

    /// A frame holding one record, in a new `Vec<u8>`. A record that holds
    /// shaped arrays gets its directory and the [`FLAG_DIRECTORY`] flag.
    ///
    /// # Errors
    /// Those of [`schema::schema_of`] and of [`crate::to_vec`].
    pub fn to_vec<'de, T: Serialize + Deserialize<'de>>(&self, value: &T) -> Result<Vec<u8>> {
        let schema = schema::schema_of::<T>()?;
        let mut out = Vec::with_capacity(HEADER_LEN + 64);
        let mut directory = false;
        self.write_into(&mut out, schema, |out| {
            let mut ser = Serializer::with_check(out, Guarded::new(schema));
            value.serialize(&mut ser)?;
            directory = ser.array_count() > 0;
            ser.finish()?;
            Ok(1)
        })?;
        if directory {
            let flags = self.flags() | FLAG_DIRECTORY;
            out[10..12].copy_from_slice(&flags.to_le_bytes());
        }
        Ok(out)
    }

    /// A frame holding one record, written into an [`io::Write`]. The
    /// record is encoded in memory first, so the header can hold its
    /// length; the bytes are those of [`FrameOptions::to_vec`].
    ///
    /// # Errors
    /// As [`FrameOptions::to_vec`], plus [`ErrorKind::Io`].
    pub fn to_writer<'de, W: io::Write, T: Serialize + Deserialize<'de>>(
        &self,
        mut writer: W,
        value: &T,
    ) -> Result<()> {
        let bytes = self.to_vec(value)?;
        writer.write_all(&bytes)?;
        Ok(())
    }

    /// A frame holding a batch of `records`, in a new `Vec<u8>`.
    ///
    /// # Errors
    /// As [`FrameOptions::to_vec`].
    pub fn batch_to_vec<'de, T: Serialize + Deserialize<'de>>(
        &self,
        records: &[T],
    ) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.batch_extend::<T, _>(&mut out, records)?;
        Ok(out)
    }

    /// Appends a frame holding the records of an iterator to `out`; the
    /// count need not be known up front. Returns the count.
    ///
    /// # Errors
    /// As [`FrameOptions::to_vec`], and [`ErrorKind::ArraysInBatch`] for a
    /// record that holds shaped arrays (they need a frame each); `out` may
    /// then hold a partial frame.
    pub fn batch_extend<'de, T, I>(&self, out: &mut Vec<u8>, records: I) -> Result<u64>
    where
        T: Serialize + Deserialize<'de>,
        I: IntoIterator,
        I::Item: Borrow<T>,
    {
        let schema = schema::schema_of::<T>()?;
        let mut count = 0;
        self.write_into(out, schema, |out| {
            let mut ser = Serializer::with_check(out, Guarded::new(schema));
            for record in records {
                record.borrow().serialize(&mut ser)?;
                crate::batch::no_arrays(&ser, count)?;
                count += 1;
            }
            Ok(count)
        })?;
        Ok(count)
    }

    /// A streaming writer of a framed batch into an [`io::Write`] that
    /// cannot seek: the header says "streamed", the trailer written by
    /// [`FrameWriter::finish`] holds the count, length and checksum.
    ///
    /// # Errors
    /// As [`schema::schema_of`], plus [`ErrorKind::Io`] for the header.
    pub fn batch_writer<'de, T, W>(&self, writer: W) -> Result<FrameWriter<W, T>>
    where
        T: Serialize + Deserialize<'de>,
        W: io::Write,
    {
        let schema = schema::schema_of::<T>()?;
        let mut head = Vec::with_capacity(HEADER_LEN);
        header_bytes(
            &mut head,
            schema,
            self.flags() | FLAG_STREAMED,
            UNKNOWN,
            UNKNOWN,
        )?;
        let mut writer = writer;
        writer.write_all(&head)?;
        Ok(FrameWriter {
            inner: BatchWriter::new(CrcWriter {
                writer,
                crc: 0,
                checksum: self.checksum,
            }),
            guard: Guarded::new(schema),
            marker: std::marker::PhantomData,
        })
    }

    /// Reads a frame of one record from `bytes`; the record may borrow.
    ///
    /// # Errors
    /// Those of [`FrameHeader::parse`], then [`ErrorKind::SchemaMismatch`]
    /// before any value is read, then those of [`FrameHeader::payload`],
    /// [`ErrorKind::HeaderField`] for a count other than 1, the decoding
    /// errors of [`crate::from_slice`] with the record index, and
    /// [`ErrorKind::DirectoryFlag`] (at 10) when the [`FLAG_DIRECTORY`]
    /// flag and the record disagree: set without a directory trailer or
    /// for a record type that read no array, clear for one that met one.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        let schema = schema::schema_of::<T>()?;
        if let Some(payload) = plain_single(bytes, schema.fingerprint()) {
            return self.single_record(payload, HEADER_LEN as u64);
        }
        let max_text = self.options.schema_text_limit;
        let (header, _) =
            FrameHeader::parse_fixed(&bytes[..bytes.len().min(HEADER_LEN)], max_text)?;
        if header.has_directory() {
            // A record with arrays: its directory is at the payload's end.
            let header = FrameHeader::parse_with(bytes, max_text)?;
            header.check_schema(schema)?;
            let payload = header.payload(bytes)?;
            return self.record_with_directory(payload.bytes, payload.offset);
        }
        if header.flags & (FLAG_SCHEMA | FLAG_STREAMED) != 0 {
            // Text to check, or a trailer to find: the general path.
            let mut records = self.batch_from_slice::<T>(bytes)?;
            // A declared count other than 1 is refused before any record
            // is read, as from a stream.
            if let Some(count) = header.record_count
                && count != 1
            {
                return Err(not_one_record(count));
            }
            return single(records.next(), records.next(), records.index()).map_err(flag_clear);
        }
        // The common case, kept lean: a header, one record, nothing else.
        header.check_schema(schema)?;
        let payload = header.payload(bytes)?;
        if payload.record_count != 1 {
            return Err(not_one_record(payload.record_count));
        }
        self.single_record(payload.bytes, payload.offset)
    }

    /// Reads the one record that must fill `payload` (at `offset`). Always
    /// inlined, with its errors made out of line from scalars: a record
    /// returned from a call comes back through memory, and for a small
    /// record that costs more than reading it.
    #[inline(always)]
    fn single_record<'de, T: Deserialize<'de>>(
        &self,
        payload: &'de [u8],
        offset: u64,
    ) -> Result<T> {
        // First without detail, which is faster; a failure is read again
        // with detail, to say what and where.
        // The value is returned from inside the `if`, not moved out of a
        // `Result` (see `Options::from_slice`).
        let mut quick = Deserializer::undetailed(SliceRead::new(payload), self.options);
        if let Ok(value) = T::deserialize(&mut quick)
            && quick.offset() == payload.len() as u64
        {
            return Ok(value);
        }
        self.single_record_detailed(payload, offset)
    }

    /// [`FrameOptions::single_record`] with detailed errors.
    #[cold]
    #[inline(never)]
    fn single_record_detailed<'de, T: Deserialize<'de>>(
        &self,
        payload: &'de [u8],
        offset: u64,
    ) -> Result<T> {
        let mut de = Deserializer::with_options(SliceRead::new(payload), self.options);
        let value = T::deserialize(&mut de)
            .map_err(|e| single_record_error(e, payload.is_empty(), offset))?;
        let used = de.offset();
        if used != payload.len() as u64 {
            return Err(payload_too_long(payload.len() as u64, used, offset));
        }
        Ok(value)
    }

    /// Reads the record of a frame with the DIRECTORY flag, which fills
    /// `payload` (at `offset`) and ends with its array directory.
    fn record_with_directory<'de, T: Deserialize<'de>>(
        &self,
        payload: &'de [u8],
        offset: u64,
    ) -> Result<T> {
        if !crate::directory::has_trailer(payload) {
            return Err(Error::at(
                ErrorKind::DirectoryFlag {
                    expected: "a payload that ends with an array directory (flag DIRECTORY set)",
                    found: "no directory trailer",
                },
                10,
            ));
        }
        let mut de =
            Deserializer::with_options(SliceRead::new(payload), self.options).whole_record();
        let value =
            T::deserialize(&mut de).map_err(|e| e.or_offset(0).shifted(offset).in_record(0))?;
        if !de.read_directory() {
            return Err(Error::at(
                ErrorKind::DirectoryFlag {
                    expected: "a record type without arrays (flag DIRECTORY clear)",
                    found: "flag DIRECTORY set",
                },
                10,
            ));
        }
        de.end().map_err(|e| e.shifted(offset).in_record(0))?;
        Ok(value)
    }

    /// Reads a frame of one record from an [`io::Read`].
    ///
    /// A frame with the DIRECTORY flag (a record with arrays) is read into
    /// memory whole, within the byte limit, because its directory is at
    /// its end; other frames are read in bounded memory.
    ///
    /// # Errors
    /// As [`FrameOptions::from_slice`], plus [`ErrorKind::Io`] and
    /// [`ErrorKind::ByteLimit`] for a record with arrays longer than the
    /// byte limit.
    pub fn from_reader<R: io::Read, T: DeserializeOwned>(&self, mut reader: R) -> Result<T> {
        let mut fixed = [0u8; HEADER_LEN];
        let got = read_up_to(&mut reader, &mut fixed, 0)?;
        if got == HEADER_LEN && le_u16(&fixed, 10) & FLAG_DIRECTORY != 0 {
            // The checks a slice makes, in its order: the header and any
            // schema text (read first, within the byte limit), the
            // fingerprint, then the payload's length against the limit.
            let max_text = self.options.schema_text_limit;
            let (fixed_header, _) = FrameHeader::parse_fixed(&fixed, max_text)?;
            let text_end = fixed_header.payload_offset;
            if text_end > self.options.byte_limit {
                return Err(Error::at(
                    ErrorKind::ByteLimit {
                        limit: self.options.byte_limit,
                    },
                    HEADER_LEN as u64,
                ));
            }
            let mut all = fixed.to_vec();
            io::Read::take(&mut reader, text_end - HEADER_LEN as u64)
                .read_to_end(&mut all)
                .map_err(|e| Error::at(ErrorKind::Io(e), HEADER_LEN as u64))?;
            let header = FrameHeader::parse_with(&all, max_text)?;
            header.check_schema(schema::schema_of::<T>()?)?;
            let len = header.payload_len.unwrap_or(0);
            if len > self.options.byte_limit {
                return Err(Error::at(
                    ErrorKind::ByteLimit {
                        limit: self.options.byte_limit,
                    },
                    header.payload_offset,
                ));
            }
            // One byte past the frame tells trailing bytes apart.
            io::Read::take(&mut reader, len.saturating_add(1))
                .read_to_end(&mut all)
                .map_err(|e| Error::at(ErrorKind::Io(e), header.payload_offset))?;
            return self.from_slice(&all);
        }
        let reader = io::Read::chain(&fixed[..got], reader);
        let mut records = self.batch_from_reader::<T, _>(reader)?;
        // As from a slice: a declared count other than 1 is refused before
        // any record is read, not after the payload runs out.
        if let Some(count) = records.header().record_count
            && count != 1
        {
            return Err(not_one_record(count));
        }
        let first = records.next();
        let second = records.next();
        single(first, second, records.index).map_err(flag_clear)
    }

    /// Reads a framed batch from `bytes`: the header, the fingerprint and
    /// the payload (length, trailer, checksum) are checked before the
    /// iterator is returned; records may borrow from `bytes`.
    ///
    /// # Errors
    /// Those of [`FrameHeader::parse`], [`ErrorKind::SchemaMismatch`], and
    /// those of [`FrameHeader::payload`]. The iterator's items fail with
    /// decoding errors (with the record index), and its last item with
    /// [`ErrorKind::CountMismatch`] or [`ErrorKind::PayloadLengthMismatch`]
    /// if the records do not fill the payload as declared.
    pub fn batch_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<SliceRecords<'de, T>> {
        let header = FrameHeader::parse_with(bytes, self.options.schema_text_limit)?;
        header.check_schema(schema::schema_of::<T>()?)?;
        not_a_batch(&header)?;
        let payload = header.payload(bytes)?;
        Ok(SliceRecords::new(
            payload.bytes,
            self.options,
            payload.offset,
            Some(payload.record_count),
            (!header.is_streamed()).then_some(payload.bytes.len() as u64),
        ))
    }

    /// Reads a framed batch from an [`io::Read`] in bounded memory: the
    /// header and fingerprint are checked before the iterator is returned.
    /// The checksum, and for a streamed frame the trailer, can only be
    /// checked at the end: the iterator's last item is then an error, so
    /// read it to the end before trusting the records.
    ///
    /// # Errors
    /// As [`FrameOptions::batch_from_slice`], plus [`ErrorKind::Io`].
    pub fn batch_from_reader<T: DeserializeOwned, R: io::Read>(
        &self,
        mut reader: R,
    ) -> Result<FramedReaderRecords<R, T>> {
        let mut fixed = [0u8; HEADER_LEN];
        let got = read_up_to(&mut reader, &mut fixed, 0)?;
        let (mut header, schema_len) =
            FrameHeader::parse_fixed(&fixed[..got], self.options.schema_text_limit)?;
        // The text is read only within both limits: never on the word of
        // the header alone.
        if header.payload_offset > self.options.byte_limit {
            return Err(Error::at(
                ErrorKind::ByteLimit {
                    limit: self.options.byte_limit,
                },
                HEADER_LEN as u64,
            ));
        }
        let area_len = header.payload_offset - HEADER_LEN as u64;
        let mut area = Vec::new();
        io::Read::take(&mut reader, area_len)
            .read_to_end(&mut area)
            .map_err(|e| Error::at(ErrorKind::Io(e), HEADER_LEN as u64))?;
        if (area.len() as u64) < area_len {
            return Err(truncated(
                "schema text and padding",
                area_len,
                area.len() as u64,
                HEADER_LEN as u64,
            ));
        }
        header.take_schema(&area, schema_len)?;
        header.check_schema(schema::schema_of::<T>()?)?;
        not_a_batch(&header)?;
        let source = PayloadSource::new(reader, &header);
        Ok(FramedReaderRecords {
            de: Deserializer::with_options(IoRead::new(source), self.options),
            base: header.payload_offset,
            header,
            index: 0,
            last_len: 0,
            done: false,
            marker: std::marker::PhantomData,
        })
    }
}

/// The payload of `bytes` if it is the most common frame, valid in every
/// respect: one record, no schema text, not streamed, fingerprint `fp`,
/// checksum (if flagged) right. `None` sends the caller down the general
/// path, which finds the same frames valid and names what is wrong with
/// the others.
#[inline]
fn plain_single(bytes: &[u8], fp: Fingerprint) -> Option<&[u8]> {
    let h = bytes.first_chunk::<HEADER_LEN>()?;
    let word = |at: usize| u64::from_le_bytes(*h[at..].first_chunk::<8>().unwrap_or(&[0; 8]));
    let flags = le_u16(h, 10);
    let reserved = word(48) | word(56) | u64::from(le_u32(h, 44));
    if h[..8] != MAGIC
        || le_u16(h, 8) != VERSION
        || flags & !FLAG_CHECKSUM != 0
        || le_u32(h, 12) != 0
        || reserved != 0
        || word(16) != fp.0
        || word(24) != 1
        || word(32) != (bytes.len() - HEADER_LEN) as u64
    {
        return None;
    }
    let payload = &bytes[HEADER_LEN..];
    let crc = le_u32(h, 40);
    let want = if flags & FLAG_CHECKSUM != 0 {
        crc32c::crc32c(payload)
    } else {
        0
    };
    (crc == want).then_some(payload)
}

/// Refuses a frame with the DIRECTORY flag to the batch readers: its one
/// record ends with a directory that only a single-record reader finds.
fn not_a_batch(header: &FrameHeader) -> Result<()> {
    if header.has_directory() {
        return Err(Error::at(
            ErrorKind::DirectoryFlag {
                expected: "records back to back (flag DIRECTORY clear) in a batch reader",
                found: "flag DIRECTORY set: one record with arrays, read it with frame::from_slice",
            },
            10,
        ));
    }
    Ok(())
}

/// A single-record frame without the DIRECTORY flag whose record met an
/// array: the reader knows the record's end, but the writer said there is
/// no directory.
#[cold]
fn flag_clear(e: Error) -> Error {
    if matches!(e.kind(), ErrorKind::RecordEndUnknown) {
        return Error::at(
            ErrorKind::DirectoryFlag {
                expected: "flag DIRECTORY set, as the record type holds arrays",
                found: "flag DIRECTORY clear",
            },
            10,
        );
    }
    e
}

/// The error of the record of a single-record frame whose payload starts
/// at `offset`. An empty payload holds no record at all: the count is
/// wrong, as a batch reader and a reader of a stream report it.
#[cold]
#[inline(never)]
fn single_record_error(e: Error, payload_empty: bool, offset: u64) -> Error {
    if no_record_there(&e, payload_empty) {
        return Error::at(
            ErrorKind::CountMismatch {
                declared: 1,
                found: 0,
            },
            offset,
        );
    }
    // An error raised by the record's own `Deserialize` after its value
    // was read (a `try_from` that fails) points at the record's start.
    flag_clear(e.or_offset(0).shifted(offset).in_record(0))
}

/// A single record that ended after `used` of the payload's `declared`
/// bytes (the payload starts at `offset`).
#[cold]
#[inline(never)]
fn payload_too_long(declared: u64, used: u64, offset: u64) -> Error {
    Error::at(
        ErrorKind::PayloadLengthMismatch {
            declared,
            found: used,
        },
        offset + used,
    )
}

/// The error of a single-record frame whose header (at byte 24) declares
/// `found` records.
#[cold]
fn not_one_record(found: u64) -> Error {
    Error::at(
        ErrorKind::HeaderField {
            field: "record_count",
            expected: "1 in a single-record frame",
            found,
        },
        24,
    )
}

/// The record of a single-record frame, or why there is not exactly one.
fn single<T>(first: Option<Result<T>>, second: Option<Result<T>>, index: u64) -> Result<T> {
    let value = match first {
        Some(v) => v?,
        None => {
            return Err(not_one_record(0));
        }
    };
    match second {
        None => Ok(value),
        Some(Err(e)) => Err(e),
        Some(Ok(_)) => Err(not_one_record(index.max(2))),
    }
}

/// Reads until `buf` is full or the reader ends; returns the bytes read.
fn read_up_to<R: io::Read>(reader: &mut R, buf: &mut [u8], base: u64) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n.min(buf.len() - got),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::at(ErrorKind::Io(e), base + got as u64)),
        }
    }
    Ok(got)
}

/// Counts and checksums what passes through to the writer.
struct CrcWriter<W> {
    writer: W,
    crc: u32,
    checksum: bool,
}

impl<W: io::Write> io::Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.writer.write(buf)?;
        if self.checksum {
            self.crc = crc32c::crc32c_append(self.crc, &buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

/// Writes a streamed framed batch; see [`FrameOptions::batch_writer`].
///
/// ```
/// let mut w = kiln::frame::FrameOptions::new().batch_writer::<u32, _>(Vec::new())?;
/// for i in 0..3u32 {
///     w.push(&i)?;
/// }
/// let bytes = w.finish()?;
/// assert_eq!(bytes.len(), 64 + 12 + 32); // header, payload, trailer
/// let back: Vec<u32> = kiln::frame::batch_from_slice(&bytes)?.collect::<kiln::Result<_>>()?;
/// assert_eq!(back, [0, 1, 2]);
/// # Ok::<(), kiln::Error>(())
/// ```
pub struct FrameWriter<W: io::Write, T> {
    inner: BatchWriter<CrcWriter<W>>,
    /// What every record is checked against before it is written.
    guard: Guarded<'static>,
    marker: std::marker::PhantomData<fn(&T)>,
}

impl<W: io::Write, T: Serialize> FrameWriter<W, T> {
    /// Appends one record.
    ///
    /// # Errors
    /// As [`crate::to_writer`], and [`ErrorKind::ArraysInBatch`] for a
    /// record that holds shaped arrays (the record is taken out again).
    pub fn push(&mut self, record: &T) -> Result<()> {
        self.inner.push_with(record, &mut self.guard)
    }

    /// Records pushed so far.
    pub fn count(&self) -> u64 {
        self.inner.count()
    }

    /// Writes the rest of the payload and the trailer; returns the writer.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] from the writer.
    pub fn finish(self) -> Result<W> {
        let count = self.inner.count();
        let len = self.inner.len();
        let crc_writer = self.inner.finish()?;
        let crc = if crc_writer.checksum {
            crc_writer.crc
        } else {
            0
        };
        let mut writer = crc_writer.writer;
        writer.write_all(&Trailer::bytes(count, len, crc))?;
        writer.flush()?;
        Ok(writer)
    }
}

// ---------------------------------------------------------------------------
// Reading from io::Read
// ---------------------------------------------------------------------------

/// Hands the payload to the record reader and nothing else: at most the
/// declared length, or for a streamed frame everything but the last 32
/// bytes (held back as the trailer). Checksums what it hands over.
struct PayloadSource<R> {
    reader: R,
    /// The declared length, or `None` when streamed.
    len: Option<u64>,
    delivered: u64,
    crc: u32,
    checksum: bool,
    /// Streamed: bytes read ahead, of which the last 32 may be the trailer.
    hold: Vec<u8>,
    start: usize,
    end: usize,
    /// The underlying reader ended.
    eof: bool,
    /// The underlying reader ended before the declared length.
    short: bool,
    /// Where the payload starts in the frame.
    payload_offset: u64,
}

const HOLD: usize = 8 * 1024;

impl<R: io::Read> PayloadSource<R> {
    fn new(reader: R, header: &FrameHeader) -> Self {
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

/// Reads the records of a framed batch from an [`io::Read`]; see
/// [`FrameOptions::batch_from_reader`].
pub struct FramedReaderRecords<R, T> {
    de: Deserializer<IoRead<PayloadSource<R>>>,
    header: FrameHeader,
    base: u64,
    index: u64,
    /// Bytes the last record took.
    last_len: usize,
    done: bool,
    marker: std::marker::PhantomData<fn() -> T>,
}

impl<R: io::Read, T: DeserializeOwned> FramedReaderRecords<R, T> {
    /// The frame's header.
    pub fn header(&self) -> &FrameHeader {
        &self.header
    }

    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The offset in the frame of the next payload byte.
    fn offset(&self) -> u64 {
        self.base.saturating_add(self.de.offset())
    }

    /// The payload ended where a record should start: check the frame's
    /// declarations (count, length, trailer, checksum, end of input).
    fn finish(&mut self) -> Result<()> {
        let offset = self.offset();
        let index = self.index;
        let header = self.header.clone();
        let src = self.de.read_mut().get_mut();
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
                let t_at = offset;
                let trailer = src.trailer_check(header.flags)?;
                if trailer.payload_len != src.delivered {
                    return Err(Error::at(
                        ErrorKind::PayloadLengthMismatch {
                            declared: trailer.payload_len,
                            found: src.delivered,
                        },
                        t_at + 8,
                    ));
                }
                (trailer.record_count, trailer.checksum, t_at + 16)
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

    /// All declared records were read but payload bytes remain.
    fn leftover(&mut self) -> Error {
        let declared = self.header.payload_len.unwrap_or(0);
        Error::at(
            ErrorKind::PayloadLengthMismatch {
                declared,
                found: self.de.offset(),
            },
            self.offset(),
        )
    }
}

impl<R: io::Read, T: DeserializeOwned> Iterator for FramedReaderRecords<R, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        let at_eof = match self.de.read_mut().at_eof() {
            Ok(v) => v,
            Err(e) => {
                self.done = true;
                return Some(Err(e.shifted(self.base)));
            }
        };
        // A streamed frame's count is known once its trailer is reached.
        let declared = match self.header.record_count {
            Some(count) => Some(count),
            None if at_eof => {
                let src = self.de.read_mut().get_mut();
                src.trailer_check(self.header.flags)
                    .ok()
                    .map(|t| t.record_count)
            }
            None => None,
        };
        if declared == Some(self.index) {
            self.done = true;
            if !at_eof {
                return Some(Err(self.leftover()));
            }
            return self.finish().err().map(Err);
        }
        if at_eof {
            // Only records of no bytes (`()`, unit structs) can follow.
            let more = declared.is_some_and(|d| d > self.index);
            if more && !self.de.read_mut().get_mut().short {
                match read_record(
                    &mut self.de,
                    self.index,
                    self.base,
                    Some(&mut self.last_len),
                ) {
                    Ok(value) => {
                        self.index += 1;
                        return Some(Ok(value));
                    }
                    Err(e) if !no_record_there(&e, at_eof) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                    Err(_) => {}
                }
            }
            self.done = true;
            return self.finish().err().map(Err);
        }
        match read_record(
            &mut self.de,
            self.index,
            self.base,
            Some(&mut self.last_len),
        ) {
            Ok(value) => {
                self.index += 1;
                Some(Ok(value))
            }
            Err(e) => {
                self.done = true;
                let src = self.de.read_mut().get_mut();
                // A streamed frame cut short shows first as a record cut
                // short; its trailer says what really happened, as it
                // does for a slice, whose trailer is checked first.
                if src.eof
                    && self.header.is_streamed()
                    && let Err(trailer) = src.trailer_check(self.header.flags)
                {
                    return Some(Err(trailer));
                }
                if src.short
                    && let Some(len) = self.header.payload_len
                {
                    return Some(Err(truncated(
                        "payload",
                        len,
                        src.delivered,
                        self.header.payload_offset,
                    )));
                }
                Some(Err(e))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Free functions with the default options
// ---------------------------------------------------------------------------

/// A frame holding one record, with the default [`FrameOptions`]
/// (checksum on, no schema text).
///
/// # Errors
/// As [`FrameOptions::to_vec`].
pub fn to_vec<'de, T: Serialize + Deserialize<'de>>(value: &T) -> Result<Vec<u8>> {
    FrameOptions::default().to_vec(value)
}

/// [`FrameOptions::to_writer`] with the default options.
///
/// # Errors
/// As [`FrameOptions::to_writer`].
pub fn to_writer<'de, W: io::Write, T: Serialize + Deserialize<'de>>(
    writer: W,
    value: &T,
) -> Result<()> {
    FrameOptions::default().to_writer(writer, value)
}

/// [`FrameOptions::from_slice`] with the default options.
///
/// # Errors
/// As [`FrameOptions::from_slice`].
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    FrameOptions::default().from_slice(bytes)
}

/// [`FrameOptions::from_reader`] with the default options.
///
/// # Errors
/// As [`FrameOptions::from_reader`].
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    FrameOptions::default().from_reader(reader)
}

/// [`FrameOptions::batch_to_vec`] with the default options.
///
/// # Errors
/// As [`FrameOptions::batch_to_vec`].
pub fn batch_to_vec<'de, T: Serialize + Deserialize<'de>>(records: &[T]) -> Result<Vec<u8>> {
    FrameOptions::default().batch_to_vec(records)
}

/// [`FrameOptions::batch_from_slice`] with the default options.
///
/// # Errors
/// As [`FrameOptions::batch_from_slice`].
pub fn batch_from_slice<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
) -> Result<SliceRecords<'de, T>> {
    FrameOptions::default().batch_from_slice(bytes)
}

/// [`FrameOptions::batch_from_reader`] with the default options.
///
/// # Errors
/// As [`FrameOptions::batch_from_reader`].
pub fn batch_from_reader<T: DeserializeOwned, R: io::Read>(
    reader: R,
) -> Result<FramedReaderRecords<R, T>> {
    FrameOptions::default().batch_from_reader(reader)
}
