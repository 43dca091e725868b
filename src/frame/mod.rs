//! Frames: a fixed header in front of one record or a batch, so that a
//! reader notices a changed type before it reads a value.
//!
//! The header holds a magic number, the format version, flags, the writer's
//! schema [`Fingerprint`](crate::schema::Fingerprint) (see [`crate::schema`]), the record count, the
//! payload length and, optionally, a CRC-32C of the payload and the writer's
//! canonical schema text. The payload starts at a multiple of 64 bytes from
//! the start of the frame. `spec/06-frame.md` has the byte table.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
//! struct Point { x: i32, y: i32 }
//!
//! let bytes = kiln::frame::to_vec(&Point { x: 9, y: -4 })?;
//! assert_eq!(bytes.len(), 64 + 8);
//! assert_eq!(&bytes[..8], kiln::frame::MAGIC);
//! assert_eq!(&bytes[64..], [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]); // the bare record
//! assert_eq!(kiln::frame::from_slice::<Point>(&bytes)?, Point { x: 9, y: -4 });
//!
//! // A reader built from another struct stops before the first value:
//! #[derive(Deserialize, kiln::Schema, Debug)]
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

mod arrays;
mod evolve;
mod header;
mod read;
mod stream;
mod write;

pub use arrays::{fetch_array, fetch_array_view, list_arrays};
pub use evolve::{Evolve, EvolvedReaderRecords, EvolvedRecords};
pub(crate) use header::at;
pub use header::{FrameHeader, Payload, open};
pub(crate) use read::not_one_record;
pub use stream::FramedReaderRecords;
pub(crate) use stream::{FrameEnd, PayloadSource, framed_records};
pub use write::FrameWriter;
pub(crate) use write::header_bytes;

use header::*;
use read::*;

use std::io;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::options::Options;
use crate::records::SliceRecords;
use crate::schema::Schema;

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
/// Flag bit 4: the payload is records that each end with an array
/// directory, each starting at a multiple of 64, followed by an index of
/// where each record ends (`spec/11-file.md`). Read by [`crate::file`];
/// the readers of this module refuse it.
pub const FLAG_INDEXED: u16 = 1 << 4;
/// The flag bits version 1 defines; the others must be zero.
pub const KNOWN_FLAGS: u16 =
    FLAG_CHECKSUM | FLAG_SCHEMA | FLAG_STREAMED | FLAG_DIRECTORY | FLAG_INDEXED;
/// The value of the count and length fields of a streamed header.
pub const UNKNOWN: u64 = u64::MAX;

// ---------------------------------------------------------------------------
// Options
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

    /// The limits readers use.
    pub fn decode_options(&self) -> Options {
        self.options
    }

    pub(crate) fn flags(&self) -> u16 {
        let mut flags = 0;
        if self.checksum {
            flags |= FLAG_CHECKSUM;
        }
        if self.embed_schema {
            flags |= FLAG_SCHEMA;
        }
        flags
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
pub fn to_vec<T: Serialize + Schema>(value: &T) -> Result<Vec<u8>> {
    FrameOptions::default().to_vec(value)
}

/// [`FrameOptions::to_writer`] with the default options.
///
/// # Errors
/// As [`FrameOptions::to_writer`].
pub fn to_writer<W: io::Write, T: Serialize + Schema>(writer: W, value: &T) -> Result<()> {
    FrameOptions::default().to_writer(writer, value)
}

/// [`FrameOptions::from_slice`] with the default options.
///
/// # Errors
/// As [`FrameOptions::from_slice`].
pub fn from_slice<'de, T: Deserialize<'de> + Schema>(bytes: &'de [u8]) -> Result<T> {
    FrameOptions::default().from_slice(bytes)
}

/// [`FrameOptions::from_reader`] with the default options.
///
/// # Errors
/// As [`FrameOptions::from_reader`].
pub fn from_reader<R: io::Read, T: DeserializeOwned + Schema>(reader: R) -> Result<T> {
    FrameOptions::default().from_reader(reader)
}

/// [`FrameOptions::batch_to_vec`] with the default options.
///
/// # Errors
/// As [`FrameOptions::batch_to_vec`].
pub fn batch_to_vec<T: Serialize + Schema>(records: &[T]) -> Result<Vec<u8>> {
    FrameOptions::default().batch_to_vec(records)
}

/// [`FrameOptions::batch_from_slice`] with the default options.
///
/// # Errors
/// As [`FrameOptions::batch_from_slice`].
pub fn batch_from_slice<'de, T: Deserialize<'de> + Schema>(
    bytes: &'de [u8],
) -> Result<SliceRecords<'de, T>> {
    FrameOptions::default().batch_from_slice(bytes)
}

/// [`FrameOptions::batch_from_reader`] with the default options.
///
/// # Errors
/// As [`FrameOptions::batch_from_reader`].
pub fn batch_from_reader<R: io::Read, T: DeserializeOwned + Schema>(
    reader: R,
) -> Result<FramedReaderRecords<R, T>> {
    FrameOptions::default().batch_from_reader(reader)
}
