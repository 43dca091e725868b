//! Batches: records of one type back to back, nothing between them
//! (`spec/07-batch.md`).
//!
//! A batch payload is the bare encoding of each record, one after the
//! other: a hundred `Point`s are exactly 800 bytes. There is no count, no
//! length and no separator; a reader knows where a record ends because it
//! knows the type. `spec/07-batch.md` describes the bytes. Inside a frame
//! (see [`crate::frame`]) the header carries the count, the payload length
//! and a checksum; a bare batch ends where its bytes end.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Point { x: i32, y: i32 }
//!
//! let points: Vec<Point> = (0..100).map(|i| Point { x: i, y: -i }).collect();
//! let bytes = kiln::batch::to_vec(&points)?;
//! assert_eq!(bytes.len(), 800);
//! assert_eq!(&bytes[8..16], [1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
//!
//! let back: Vec<Point> = kiln::batch::from_slice(&bytes).collect::<kiln::Result<_>>()?;
//! assert_eq!(back, points);
//! # Ok::<(), kiln::Error>(())
//! ```
//!
//! Readers are iterators of `Result<T>`. The iterator ends (`None`) only at
//! a clean end: the input is exhausted exactly at a record boundary. A
//! record cut short is an error whose [`Error::record`] is its index and
//! whose offset is the byte where the input ran out.

use std::io;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::records::{Bare, StreamRecords};
use crate::ser::Serializer;

pub use crate::records::{ReaderRecords, SliceRecords};

/// Size at which [`BatchWriter`] hands its buffer to the writer.
pub(crate) const FLUSH_AT: usize = 64 * 1024;

/// Encodes `records` back to back into a new `Vec<u8>`.
///
/// # Errors
/// As [`crate::to_vec`], for the first record that fails, and
/// [`ErrorKind::ArraysInBatch`] for a record that holds shaped arrays
/// (`spec/07-batch.md` 7.3).
pub fn to_vec<T: Serialize>(records: &[T]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    extend(&mut out, records)?;
    Ok(out)
}

/// Encodes the records of an iterator at the end of `out`; returns how
/// many were written.
///
/// ```
/// let mut out = vec![0xaa];
/// let n = kiln::batch::extend(&mut out, (1u16..=3).map(|i| (i, i as u8)))?;
/// assert_eq!((n, out), (3, vec![0xaa, 1, 0, 1, 2, 0, 2, 3, 0, 3]));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`to_vec`]. The records before the failing one stay in `out`, and
/// so may part of the failing one.
pub fn extend<I>(out: &mut Vec<u8>, records: I) -> Result<u64>
where
    I: IntoIterator,
    I::Item: Serialize,
{
    let mut count = 0u64;
    let mut ser = Serializer::new(out);
    for record in records {
        record.serialize(&mut ser)?;
        no_arrays(&ser, count)?;
        count += 1;
    }
    Ok(count)
}

/// Refuses a record that wrote arrays: back to back, nothing tells where
/// it ends, so its directory could never be found (`spec/07-batch.md`).
#[inline]
pub(crate) fn no_arrays<O: crate::ser::Output, C: crate::ser::Check>(
    ser: &Serializer<O, C>,
    index: u64,
) -> Result<()> {
    match ser.array_count() {
        0 => Ok(()),
        n => Err(arrays_in_batch(n, index)),
    }
}

#[cold]
fn arrays_in_batch(n: usize, index: u64) -> Error {
    Error::new(ErrorKind::ArraysInBatch { arrays: n as u64 }).in_record(index)
}

/// Encodes the records of an iterator into an [`io::Write`], in bounded
/// memory; returns how many were written.
///
/// # Errors
/// As [`to_vec`], plus [`ErrorKind::Io`].
pub fn to_writer<W, I>(writer: W, records: I) -> Result<u64>
where
    W: io::Write,
    I: IntoIterator,
    I::Item: Serialize,
{
    let mut w = BatchWriter::new(writer);
    for record in records {
        w.push(&record)?;
    }
    let count = w.count();
    w.finish()?;
    Ok(count)
}

/// Writes records one at a time into an [`io::Write`], for producers that
/// do not know the count up front.
///
/// Records are encoded into an internal buffer that is handed to the
/// writer whenever it passes 64 KiB, so memory stays bounded by that plus
/// one record. Call [`BatchWriter::finish`] at the end: dropping the
/// writer without it loses the buffered records.
///
/// ```
/// let mut w = kiln::batch::BatchWriter::new(Vec::new());
/// w.push(&1u32)?;
/// w.push(&2u32)?;
/// assert_eq!(w.count(), 2);
/// assert_eq!(w.finish()?, [1, 0, 0, 0, 2, 0, 0, 0]);
/// # Ok::<(), kiln::Error>(())
/// ```
pub struct BatchWriter<W> {
    writer: W,
    buf: Vec<u8>,
    count: u64,
    /// Bytes handed to the writer so far.
    written: u64,
}

impl<W: io::Write> BatchWriter<W> {
    /// A writer of records into `writer`.
    pub fn new(writer: W) -> Self {
        BatchWriter {
            writer,
            buf: Vec::with_capacity(FLUSH_AT + 1024),
            count: 0,
            written: 0,
        }
    }

    /// Appends one record.
    ///
    /// # Errors
    /// As [`crate::to_writer`], and [`ErrorKind::ArraysInBatch`] for a
    /// record that holds shaped arrays. A record that fails to encode is
    /// taken out again: the batch holds only whole records.
    pub fn push<T: ?Sized + Serialize>(&mut self, record: &T) -> Result<()> {
        self.push_with(record, crate::ser::Unchecked)
    }

    /// [`BatchWriter::push`] with `check` told of what is written.
    #[inline]
    pub(crate) fn push_with<T: ?Sized + Serialize, C: crate::ser::Check>(
        &mut self,
        record: &T,
        check: C,
    ) -> Result<()> {
        let start = self.buf.len();
        let mut ser = Serializer::with_check(&mut self.buf, check);
        if let Err(e) = record
            .serialize(&mut ser)
            .and_then(|()| no_arrays(&ser, self.count))
        {
            self.buf.truncate(start);
            return Err(e);
        }
        self.count += 1;
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Records pushed so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Payload bytes produced so far (handed over or buffered).
    pub fn len(&self) -> u64 {
        self.written + self.buf.len() as u64
    }

    /// Whether no payload byte was produced yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands the buffered bytes to the writer.
    fn flush_buf(&mut self) -> Result<()> {
        self.writer.write_all(&self.buf)?;
        self.written += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// Writes what is buffered and returns the writer.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] from the writer.
    pub fn finish(mut self) -> Result<W> {
        self.flush_buf()?;
        self.writer.flush()?;
        Ok(self.writer)
    }
}

/// Reads the records of a bare batch from `bytes`; records may borrow from
/// it (`&str`, `&[u8]`).
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Point { x: i32, y: i32 }
///
/// // Two whole records, then three bytes of a third:
/// let bytes = [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0];
/// let mut it = kiln::batch::from_slice::<Point>(&bytes);
/// assert_eq!(it.next().unwrap()?, Point { x: 1, y: 2 });
/// assert_eq!(it.next().unwrap()?, Point { x: 3, y: 4 });
/// let err = it.next().unwrap().unwrap_err();
/// assert_eq!(err.kind().code(), "unexpected-end");
/// assert_eq!((err.record(), err.offset()), (Some(2), Some(16)));
/// assert!(it.next().is_none());
/// # Ok::<(), kiln::Error>(())
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> SliceRecords<'de, T> {
    SliceRecords::new(bytes, Options::default(), 0, None, None)
}

impl Options {
    /// [`batch::from_slice`](from_slice) with these limits; the zero-sized
    /// budget is shared by every record of the batch (see
    /// [`Options::zero_sized_limit`]).
    pub fn batch_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> SliceRecords<'de, T> {
        SliceRecords::new(bytes, *self, 0, None, None)
    }

    /// [`batch::from_reader`](from_reader) with these limits.
    pub fn batch_from_reader<R: io::Read, T: DeserializeOwned>(
        &self,
        reader: R,
    ) -> ReaderRecords<R, T> {
        ReaderRecords(StreamRecords::new(reader, *self, Bare))
    }
}

/// Reads the records of a bare batch from an [`io::Read`], through an 8 KiB
/// buffer: memory stays bounded whatever the input claims. The byte limit
/// of [`Options`] applies to each record.
///
/// ```
/// let bytes = [1, 0, 2, 0, 3];
/// let mut it = kiln::batch::from_reader::<_, u16>(&bytes[..]);
/// assert_eq!(it.next().unwrap()?, 1);
/// assert_eq!(it.next().unwrap()?, 2);
/// let err = it.next().unwrap().unwrap_err();
/// assert_eq!((err.kind().code(), err.record(), err.offset()), ("unexpected-end", Some(2), Some(4)));
/// # Ok::<(), kiln::Error>(())
/// ```
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> ReaderRecords<R, T> {
    Options::default().batch_from_reader(reader)
}
