//! The frame header, the streamed form's trailer and the payload checks:
//! the one parser of the bytes of `spec/06-frame.md` (6.1 to 6.5).

use super::{
    END_MAGIC, FLAG_CHECKSUM, FLAG_DIRECTORY, FLAG_INDEXED, FLAG_SCHEMA, FLAG_STREAMED, HEADER_LEN,
    KNOWN_FLAGS, MAGIC, PAYLOAD_ALIGN, TRAILER_LEN, UNKNOWN, VERSION,
};
use crate::error::{Error, ErrorKind, FrameField, Result};
use crate::schema::{Canonical, Fingerprint};

pub(super) const END_MAGIC_HEX: &str = "1a 0a 0d 4e 4c 49 4b 89";

/// Where each field of the 64-byte header starts (`spec/06-frame.md`,
/// 6.1): the one place the header's layout is written down. Readers,
/// writers and the offsets of errors all take their positions from here.
pub(crate) mod at {
    /// `magic`, 8 bytes.
    pub const MAGIC: usize = 0;
    /// `version`, `u16`.
    pub const VERSION: usize = 8;
    /// `flags`, `u16`.
    pub const FLAGS: usize = 10;
    /// `schema_len`, `u32`.
    pub const SCHEMA_LEN: usize = 12;
    /// `fingerprint`, 8 bytes.
    pub const FINGERPRINT: usize = 16;
    /// `record_count`, `u64`.
    pub const RECORD_COUNT: usize = 24;
    /// `payload_len`, `u64`.
    pub const PAYLOAD_LEN: usize = 32;
    /// `crc32c`, `u32`.
    pub const CRC32C: usize = 40;
    /// The reserved bytes, zero, up to the header's end.
    pub const RESERVED: usize = 44;
    /// The trailer of the streamed form (6.4), from its first byte:
    /// `record_count`, `payload_len`, `crc32c`, reserved, end magic.
    pub const TRAILER_COUNT: usize = 0;
    /// See [`TRAILER_COUNT`].
    pub const TRAILER_LEN: usize = 8;
    /// See [`TRAILER_COUNT`].
    pub const TRAILER_CRC32C: usize = 16;
    /// See [`TRAILER_COUNT`].
    pub const TRAILER_RESERVED: usize = 20;
    /// See [`TRAILER_COUNT`].
    pub const TRAILER_END_MAGIC: usize = 24;
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(super) fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

pub(super) fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

pub(super) fn truncated(expected: &'static str, needed: u64, available: u64, offset: u64) -> Error {
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
pub(super) fn check_zero(bytes: &[u8], offset: u64) -> Result<()> {
    match bytes.iter().position(|&b| b != 0) {
        None => Ok(()),
        Some(i) => Err(Error::at(
            ErrorKind::PaddingNonZero(bytes[i]),
            offset + i as u64,
        )),
    }
}

/// Rounds `len` up to the payload alignment, or `None` on overflow.
pub(super) fn align_up(len: u64) -> Option<u64> {
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

    /// Whether the payload is records with arrays and an index of their
    /// ends (`spec/11-file.md`), read by [`crate::file`].
    pub fn is_indexed(&self) -> bool {
        self.flags & FLAG_INDEXED != 0
    }

    /// Refuses an indexed frame to a reader of this module, which reads
    /// records back to back or one record alone.
    pub(crate) fn not_indexed(&self) -> Result<()> {
        if self.is_indexed() {
            return Err(Error::at(
                ErrorKind::DirectoryFlag(crate::error::FlagMismatch::Indexed),
                at::FLAGS as u64,
            ));
        }
        Ok(())
    }

    /// Checks the fixed 64-byte header (without the schema text); returns
    /// it with the schema text length.
    /// A schema text longer than `max_text` is refused here, before a byte
    /// of it is read.
    pub(crate) fn parse_fixed(bytes: &[u8], max_text: u64) -> Result<(FrameHeader, u32)> {
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
        let version = le_u16(h, at::VERSION);
        if version != VERSION {
            return Err(Error::at(
                ErrorKind::UnsupportedVersion {
                    found: version,
                    supported: VERSION,
                },
                at::VERSION as u64,
            ));
        }
        let flags = le_u16(h, at::FLAGS);
        if flags & !KNOWN_FLAGS != 0 {
            return Err(Error::at(
                ErrorKind::ReservedFlag {
                    flags,
                    known: KNOWN_FLAGS,
                },
                at::FLAGS as u64,
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
        let schema_len = le_u32(h, at::SCHEMA_LEN);
        if flags & FLAG_SCHEMA == 0 && schema_len != 0 {
            return Err(field(
                FrameField::SchemaLen,
                "0 without the schema flag",
                schema_len.into(),
                at::SCHEMA_LEN as u64,
            ));
        }
        if u64::from(schema_len) > max_text {
            return Err(Error::at(
                ErrorKind::SchemaTextLimit {
                    len: schema_len.into(),
                    limit: max_text,
                },
                at::SCHEMA_LEN as u64,
            ));
        }
        let fingerprint = Fingerprint(le_u64(h, at::FINGERPRINT));
        let count = le_u64(h, at::RECORD_COUNT);
        let len = le_u64(h, at::PAYLOAD_LEN);
        let crc = le_u32(h, at::CRC32C);
        let streamed = flags & FLAG_STREAMED != 0;
        if streamed {
            // Both are in the trailer, and the header says so with all ones.
            for (name, value, offset) in [
                (FrameField::RecordCount, count, at::RECORD_COUNT),
                (FrameField::PayloadLen, len, at::PAYLOAD_LEN),
            ] {
                if value != UNKNOWN {
                    let expected = "ff..ff in a streamed frame";
                    return Err(field(name, expected, value, offset as u64));
                }
            }
        }
        if flags & FLAG_DIRECTORY != 0 {
            // Only a single-record frame knows where its record ends.
            if streamed {
                return Err(field(
                    FrameField::Flags,
                    "DIRECTORY only in a frame that is not STREAMED",
                    flags.into(),
                    at::FLAGS as u64,
                ));
            }
            if count != 1 {
                return Err(field(
                    FrameField::RecordCount,
                    "1 in a frame with the DIRECTORY flag",
                    count,
                    at::RECORD_COUNT as u64,
                ));
            }
        }
        if flags & FLAG_INDEXED != 0 && (streamed || flags & FLAG_DIRECTORY != 0) {
            // The index is at the payload's end, which a streamed header
            // does not state; DIRECTORY is the one-record form.
            return Err(field(
                FrameField::Flags,
                "INDEXED only without STREAMED and DIRECTORY",
                flags.into(),
                at::FLAGS as u64,
            ));
        }
        if (streamed || flags & FLAG_CHECKSUM == 0) && crc != 0 {
            return Err(field(
                FrameField::Crc32c,
                "0 without the checksum flag or in a streamed frame",
                crc.into(),
                at::CRC32C as u64,
            ));
        }
        if h[at::RESERVED..].iter().fold(0, |acc, &b| acc | b) != 0 {
            check_zero(&h[at::RESERVED..], at::RESERVED as u64)?;
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
    pub(super) fn take_schema(&mut self, area: &[u8], schema_len: u32) -> Result<()> {
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
                    expected: self.fingerprint,
                    found: hashed,
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
    pub(crate) fn parse_with(bytes: &[u8], max_text: u64) -> Result<FrameHeader> {
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
                (rest, count, self.checksum, at::CRC32C as u64)
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
    pub fn check_schema(&self, schema: &Canonical) -> Result<()> {
        if self.fingerprint == schema.fingerprint() {
            return Ok(());
        }
        Err(Error::at(
            ErrorKind::SchemaMismatch {
                expected: schema.fingerprint(),
                found: self.fingerprint,
                expected_text: schema.text().map(str::to_owned),
                found_text: self.schema_text.clone(),
            },
            at::FINGERPRINT as u64,
        ))
    }
}

/// A streamed frame's trailer.
pub(super) struct Trailer {
    pub(super) record_count: u64,
    pub(super) payload_len: u64,
    pub(super) checksum: Option<u32>,
}

impl Trailer {
    /// Checks the 32 trailer bytes `t`, which sit at offset `at`.
    pub(super) fn parse(t: &[u8], at: u64, flags: u16) -> Result<Trailer> {
        use self::at::{
            TRAILER_COUNT, TRAILER_CRC32C, TRAILER_END_MAGIC, TRAILER_LEN as LEN, TRAILER_RESERVED,
        };
        let end_magic = &t[TRAILER_END_MAGIC..TRAILER_END_MAGIC + 8];
        if end_magic != END_MAGIC {
            return Err(Error::at(
                ErrorKind::BadTrailer {
                    expected: END_MAGIC_HEX,
                    found: hex(end_magic),
                },
                at + TRAILER_END_MAGIC as u64,
            ));
        }
        check_zero(
            &t[TRAILER_RESERVED..TRAILER_END_MAGIC],
            at + TRAILER_RESERVED as u64,
        )?;
        let crc = le_u32(t, TRAILER_CRC32C);
        if flags & FLAG_CHECKSUM == 0 && crc != 0 {
            return Err(Error::at(
                ErrorKind::HeaderField {
                    field: FrameField::TrailerCrc32c,
                    expected: "0 without the checksum flag",
                    found: crc.into(),
                },
                at + TRAILER_CRC32C as u64,
            ));
        }
        Ok(Trailer {
            record_count: le_u64(t, TRAILER_COUNT),
            payload_len: le_u64(t, LEN),
            checksum: (flags & FLAG_CHECKSUM != 0).then_some(crc),
        })
    }

    pub(super) fn bytes(count: u64, len: u64, crc: u32) -> [u8; TRAILER_LEN] {
        use self::at::{TRAILER_COUNT, TRAILER_CRC32C, TRAILER_END_MAGIC, TRAILER_LEN as LEN};
        let mut t = [0u8; TRAILER_LEN];
        t[TRAILER_COUNT..TRAILER_COUNT + 8].copy_from_slice(&count.to_le_bytes());
        t[LEN..LEN + 8].copy_from_slice(&len.to_le_bytes());
        t[TRAILER_CRC32C..TRAILER_CRC32C + 4].copy_from_slice(&crc.to_le_bytes());
        t[TRAILER_END_MAGIC..].copy_from_slice(&END_MAGIC);
        t
    }
}

/// The fast path of the parser above: the payload of `bytes` if it is the
/// most common frame, valid in every
/// respect: one record, no schema text, not streamed, fingerprint `fp`,
/// checksum (if flagged) right. `None` sends the caller down the general
/// path, which finds the same frames valid and names what is wrong with
/// the others.
#[inline]
pub(super) fn plain_single(bytes: &[u8], fp: Fingerprint) -> Option<&[u8]> {
    let h = bytes.first_chunk::<HEADER_LEN>()?;
    let word = |at: usize| u64::from_le_bytes(*h[at..].first_chunk::<8>().unwrap_or(&[0; 8]));
    let flags = le_u16(h, at::FLAGS);
    let reserved =
        word(at::RESERVED + 4) | word(at::RESERVED + 12) | u64::from(le_u32(h, at::RESERVED));
    if h[at::MAGIC..at::VERSION] != MAGIC
        || le_u16(h, at::VERSION) != VERSION
        || flags & !FLAG_CHECKSUM != 0
        || le_u32(h, at::SCHEMA_LEN) != 0
        || reserved != 0
        || word(at::FINGERPRINT) != fp.0
        || word(at::RECORD_COUNT) != 1
        || word(at::PAYLOAD_LEN) != (bytes.len() - HEADER_LEN) as u64
    {
        return None;
    }
    let payload = &bytes[HEADER_LEN..];
    let crc = le_u32(h, at::CRC32C);
    let want = if flags & FLAG_CHECKSUM != 0 {
        crc32c::crc32c(payload)
    } else {
        0
    };
    (crc == want).then_some(payload)
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
