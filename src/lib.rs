//! # Kiln
//!
//! A binary format for serde: the values of your `#[derive(Serialize,
//! Deserialize)]` types in declaration order, with no names, no field
//! numbers and no type tags. Numbers are fixed-width little-endian;
//! strings, byte strings, sequences and maps carry a `u32` count.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Point { x: i32, y: i32 }
//!
//! let bytes = kiln::to_vec(&Point { x: 9, y: -4 })?;
//! assert_eq!(bytes, [0x09, 0x00, 0x00, 0x00, 0xfc, 0xff, 0xff, 0xff]);
//! assert_eq!(kiln::from_slice::<Point>(&bytes)?, Point { x: 9, y: -4 });
//! # Ok::<(), kiln::Error>(())
//! ```
//!
//! Both sides must be built from the same type: the bytes say nothing about
//! which value is which. Reading is strict and every error carries the byte
//! offset and, where known, the field path:
//!
//! ```
//! # use serde::Deserialize;
//! #[derive(Deserialize, Debug)]
//! struct Message { text: String }
//!
//! let err = kiln::from_slice::<Message>(&[2, 0, 0, 0, 0x68, 0xff]).unwrap_err();
//! assert_eq!(err.kind().code(), "invalid-utf8");
//! assert_eq!(err.offset(), Some(5));
//! assert_eq!(err.path().as_deref(), Some("Message.text"));
//! ```
//!
//! The byte-level specification is in the repository's `spec/` folder; each
//! module that writes or reads bytes names the chapter that describes them.
//!
//! ## Modules
//! * [`ser`]: the serializer; [`de`]: the deserializer;
//! * [`block`]: the element types of numeric blocks, their dtype codes and
//!   the routines that write and read a block with one memory copy;
//! * [`array`](mod@array): shaped arrays ([`Array`], [`ArrayView`]);
//!   [`array::directory`]: the array directory at the end of a record, and
//!   listing or fetching arrays without the record's type;
//! * [`read`]: where the deserializer's bytes come from (slices borrow);
//! * [`error`]: the one error type, with offset and path;
//! * [`options`]: decoding limits (depth, zero-sized elements, byte limit).

#![deny(missing_docs)]

/// The README's examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod array;
pub mod batch;
pub mod block;
pub mod de;
mod dtype;
pub mod error;
pub mod file;
mod fingerprint;
pub mod frame;
pub mod options;
pub mod read;
mod records;
pub mod schema;
pub mod ser;
pub mod value;

use std::io;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use crate::array::{Array, ArrayCow, ArrayView};
pub use crate::de::Deserializer;
pub use crate::dtype::Dtype;
pub use crate::error::{Error, ErrorKind, Result};
pub use crate::options::Options;
pub use crate::schema::Schema;
pub use crate::ser::Serializer;
/// `#[derive(kiln::Schema)]`: see [`Schema`] and `spec/05-schema.md`.
#[cfg(feature = "derive")]
pub use kiln_derive::Schema;

/// Encodes `value` into a new `Vec<u8>`.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Message { text: String }
///
/// let bytes = kiln::to_vec(&Message { text: "hi".into() })?;
/// assert_eq!(bytes, [0x02, 0x00, 0x00, 0x00, 0x68, 0x69]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::SkippedField`] if a field was skipped
/// (`skip_serializing_if`), [`ErrorKind::CountOverflow`] for a length above
/// `u32::MAX`, [`ErrorKind::LengthMismatch`] if a `Serialize` impl wrote
/// another number of elements than it declared, and any error the value's
/// `Serialize` impl returns.
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    to_vec_into(value, &mut out)?;
    Ok(out)
}

/// Encodes `value` at the end of `out`, so a buffer can be reused.
///
/// The value is written into `out`'s spare capacity as into a slice, which
/// is as fast as [`to_slice`]. When the capacity runs out, Kiln measures
/// the value ([`serialized_size`]), reserves that once and writes it again:
/// a reused buffer pays this on its first record only, and a `Serialize`
/// impl may run more than once per call.
///
/// ```
/// let mut buf = Vec::with_capacity(64);
/// kiln::to_vec_into(&1u16, &mut buf)?;
/// kiln::to_vec_into(&2u16, &mut buf)?;
/// assert_eq!(buf, [1, 0, 2, 0]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`to_vec`]. On an error (or a panic in a `Serialize` impl), `out`
/// keeps its earlier bytes and nothing of the value.
pub fn to_vec_into<T: ?Sized + Serialize>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    ser::append_to_vec(value, out)
}

/// Encodes `value` at the start of `buf` and returns the part written, as
/// postcard's `to_slice`: for a caller that owns its buffer (a stack array,
/// a shared-memory region) and wants no allocation.
///
/// ```
/// let mut buf = [0u8; 16];
/// let written = kiln::to_slice(&(9u32, -4i32), &mut buf)?;
/// assert_eq!(written, [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
///
/// let err = kiln::to_slice(&"too long", &mut [0u8; 6]).unwrap_err();
/// assert_eq!(err.kind().code(), "buffer-full");
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`to_vec`], plus [`ErrorKind::BufferFull`] when `buf` is too short;
/// the slice may then hold part of the value.
pub fn to_slice<'b, T: ?Sized + Serialize>(value: &T, buf: &'b mut [u8]) -> Result<&'b mut [u8]> {
    let n = ser::write_into(value, ser::SliceOutput::as_uninit(buf))?;
    Ok(&mut buf[..n])
}

/// Encodes `value` into an [`io::Write`].
///
/// ```
/// let mut file = Vec::new(); // any io::Write
/// kiln::to_writer(&mut file, &vec![1.0f32, -2.0])?;
/// assert_eq!(file, [2, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`to_vec`], plus [`ErrorKind::Io`] from the writer.
pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    let mut ser = Serializer::new(ser::IoWriter::new(writer));
    value.serialize(&mut ser)?;
    ser.finish()
}

/// The number of bytes [`to_vec`] would produce, without producing them.
///
/// ```
/// assert_eq!(kiln::serialized_size(&"hi")?, 6);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`to_vec`].
pub fn serialized_size<T: ?Sized + Serialize>(value: &T) -> Result<u64> {
    let mut ser = Serializer::new(ser::SizeCounter::default());
    value.serialize(&mut ser)?;
    ser.finish()?;
    Ok(ser.into_inner().size)
}

/// Decodes one value that fills `bytes` exactly. Strings and byte strings
/// may borrow from `bytes` (`&str`, `&[u8]`, `Cow`).
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Message<'a> { text: &'a str }
///
/// let bytes = [0x02, 0x00, 0x00, 0x00, 0x68, 0x69];
/// let m: Message = kiln::from_slice(&bytes)?;
/// assert_eq!(m.text, "hi");
/// // A byte too many is an error, never ignored:
/// let err = kiln::from_slice::<Message>(&[2, 0, 0, 0, 0x68, 0x69, 0]).unwrap_err();
/// assert_eq!(err.to_string(), "trailing bytes: expected end of input, found 1 more byte at byte 6");
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// Any [`ErrorKind`] of decoding, with the byte offset where it happened:
/// the input ending early, a byte the layout does not allow (bool, option
/// tag, char, UTF-8, variant index), a count the input cannot hold, nesting
/// deeper than the limit, trailing bytes, or a serde feature Kiln cannot
/// follow ([`ErrorKind::Unsupported`]).
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    Options::default().from_slice(bytes)
}

/// Decodes one value from the front of `bytes` and returns it with the
/// bytes after it, for records stored back to back.
///
/// ```
/// let bytes = [1, 0, 2, 0, 3];
/// let (a, rest): (u16, _) = kiln::take_from_slice(&bytes)?;
/// let (b, rest): (u16, _) = kiln::take_from_slice(rest)?;
/// assert_eq!((a, b, rest), (1, 2, &[3u8][..]));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// The end of the record is not known here, so a record that holds
/// [`Array`]s cannot be read this way (their directory is at the record's
/// end): reading one fails with [`ErrorKind::RecordEndUnknown`].
///
/// # Errors
/// As [`from_slice`], except that trailing bytes are returned, not refused.
pub fn take_from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<(T, &'de [u8])> {
    Options::default().take_from_slice(bytes)
}

/// Decodes one value from an [`io::Read`], which must then be at its end.
///
/// The reader is read through an internal buffer, in bounded steps: memory
/// grows with the bytes that arrive, never with a count the input claims.
/// At most [`options::DEFAULT_BYTE_LIMIT`] bytes are read; set another limit
/// with [`Options::byte_limit`]. A record that holds [`Array`]s has its
/// directory at its end: when the first array is met, the rest of the
/// stream (within the byte limit) is read into memory to find it.
///
/// ```
/// let v: Vec<f32> = kiln::from_reader(&[2, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0][..])?;
/// assert_eq!(v, [1.0, -2.0]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`from_slice`], plus [`ErrorKind::Io`] and [`ErrorKind::ByteLimit`].
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    Options::default().from_reader(reader)
}
