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
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::de::Decoder;
use crate::de::Deserializer;
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::read::{IoRead, Read, SliceRead};
use crate::ser::Serializer;

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

/// Reads one record, with a fresh nesting depth (the zero-sized budget is
/// the whole input's); errors carry the record index and offsets from the
/// start of the whole input (`base` is where the reader's byte 0 sits in
/// it). Readers of streams pass `last_len`, what the last record took, and
/// the record is first tried on the bytes already buffered (see
/// [`Deserializer::deserialize_next`]).
#[inline(always)]
pub(crate) fn read_record<'de, R: Read<'de>, T: Deserialize<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    index: u64,
    base: u64,
    last_len: Option<&mut usize>,
) -> Result<T> {
    de.reset_budgets();
    let start = de.offset();
    let limit = de.options().byte_limit;
    de.read_mut().set_byte_limit(start, limit);
    let value = match last_len {
        Some(last_len) => de.deserialize_next(last_len),
        None => T::deserialize(&mut *de),
    };
    match value {
        Ok(value) => {
            if de.offset() == start {
                // A record of no bytes: without the budget a huge count
                // would loop.
                de.charge_zero_sized(std::mem::size_of::<T>())
                    .map_err(|e| in_record(e, base, index))?;
            }
            Ok(value)
        }
        // An error without an offset was raised by the record's own
        // `Deserialize` (a `try_from` that fails): it points at the record.
        Err(e) => Err(in_record(e.or_offset(start), base, index)),
    }
}

/// Whether a record's error means that no record was there at all: it
/// needed bytes and the payload had none left before its first byte. A
/// frame then declared too many records (`count-mismatch`, spec 6.5, check
/// 23), which every reader reports the same way.
#[inline]
pub(crate) fn no_record_there(e: &Error, at_payload_end: bool) -> bool {
    at_payload_end && matches!(e.kind(), ErrorKind::UnexpectedEnd { .. })
}

#[cold]
fn in_record(e: Error, base: u64, index: u64) -> Error {
    e.shifted(base).in_record(index)
}

/// Reads the records of a batch held in a byte slice; see [`from_slice`].
pub struct SliceRecords<'de, T> {
    /// Reads without detail; a record that fails is read again with detail
    /// ([`record_error`]).
    de: Decoder<SliceRead<'de>, false>,
    index: u64,
    /// Offset of the slice in the whole input.
    base: u64,
    /// Records still to read, when a frame declared the count.
    count_left: Option<u64>,
    /// The payload length a frame's header declared (`None` for a bare
    /// batch, and for a streamed frame, whose trailer was checked already).
    declared_len: Option<u64>,
    done: bool,
    marker: PhantomData<fn() -> T>,
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
        ReaderRecords {
            de: Deserializer::with_options(IoRead::new(reader), *self),
            index: 0,
            last_len: 0,
            done: false,
            marker: PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>> SliceRecords<'de, T> {
    pub(crate) fn new(
        bytes: &'de [u8],
        options: Options,
        base: u64,
        count: Option<u64>,
        declared_len: Option<u64>,
    ) -> Self {
        SliceRecords {
            de: Decoder::undetailed(SliceRead::new(bytes), options),
            index: 0,
            base,
            count_left: count,
            declared_len,
            done: false,
            marker: PhantomData,
        }
    }

    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'de [u8] {
        self.de.read_ref().rest()
    }

    /// At the end of the records: checks a frame's declarations, and
    /// finishes the iterator. Returns the error only, never a record, so
    /// that `next`'s fast path does not share a stack slot for its record
    /// with this cold one; and the cold part takes no reference to `self`,
    /// so that the reader's position can stay in registers in the loop.
    #[inline(always)]
    fn at_end(&mut self) -> Option<Error> {
        self.done = true;
        let (index, error) = end_of_records::<T>(
            self.rest(),
            self.de.offset(),
            self.base,
            self.index,
            self.count_left,
            self.declared_len,
            *self.de.options(),
            self.de.zero_sized_left(),
        );
        self.index = index;
        error
    }
}

/// The error of a record that failed without detail, found by reading it
/// again with detail from where it began (`rest`, of an input of `len`
/// bytes). Takes and returns plain values, so that `next`'s loop keeps its
/// reader in registers. Should the second reading succeed, the record's
/// `Deserialize` is not deterministic, and that is the error.
#[cold]
#[inline(never)]
fn record_error<'de, T: Deserialize<'de>>(
    rest: &'de [u8],
    len: usize,
    options: Options,
    index: u64,
    base: u64,
    zero_sized_left: u64,
) -> Error {
    let read = SliceRead::from_parts(rest, len);
    let start = read.offset();
    let mut de = Deserializer::with_options(read, options);
    de.set_zero_sized_left(zero_sized_left);
    match read_record::<_, T, true>(&mut de, index, base, None) {
        Err(e) => e,
        Ok(_) => Error::at(
            ErrorKind::Custom(
                "the record failed to decode, then decoded when read again: \
                 its Deserialize implementation is not deterministic"
                    .into(),
            ),
            base.saturating_add(start),
        )
        .in_record(index),
    }
}

/// What the end of a slice batch means: nothing, for a bare batch, or a
/// frame's declared count or length that the records did not meet.
/// `consumed` is how far the reader got, `rest` what it left; returns the
/// record count at the end (a streamed frame's extra records are counted).
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
fn end_of_records<'de, T: Deserialize<'de>>(
    rest: &'de [u8],
    consumed: u64,
    base: u64,
    index: u64,
    count_left: Option<u64>,
    declared_len: Option<u64>,
    options: Options,
    zero_sized_left: u64,
) -> (u64, Option<Error>) {
    let offset = base.saturating_add(consumed);
    let error = match (count_left, declared_len) {
        (Some(0), Some(declared)) if !rest.is_empty() => Error::at(
            ErrorKind::PayloadLengthMismatch {
                declared,
                found: consumed,
            },
            offset,
        ),
        (Some(0), None) if !rest.is_empty() => {
            // A streamed frame: the trailer's length was checked, so the
            // count is what is wrong. Count the records that are there,
            // as a reader of a stream does before it meets the trailer.
            let declared = index;
            let mut index = index;
            let mut de = Deserializer::with_options(SliceRead::new(rest), options);
            de.set_zero_sized_left(zero_sized_left);
            while !de.read_ref().rest().is_empty() {
                if let Err(e) = read_record::<_, T, true>(&mut de, index, offset, None) {
                    return (index, Some(e));
                }
                index += 1;
            }
            let error = Error::at(
                ErrorKind::CountMismatch {
                    declared,
                    found: index,
                },
                offset.saturating_add(de.offset()),
            );
            return (index, Some(error));
        }
        (Some(left), _) if left > 0 => Error::at(
            ErrorKind::CountMismatch {
                declared: index + left,
                found: index,
            },
            offset,
        ),
        _ => return (index, None),
    };
    (index, Some(error))
}

impl<'de, T: Deserialize<'de>> Iterator for SliceRecords<'de, T> {
    type Item = Result<T>;

    // Always inlined into the caller's loop: a record returned from a
    // call comes back through memory (see `benches/batch.rs`).
    #[inline(always)]
    fn next(&mut self) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        let at_end = self.rest().is_empty();
        if self.count_left == Some(0) || (at_end && self.count_left.is_none()) {
            return self.at_end().map(Err);
        }
        let (rest, len) = self.de.read_ref().parts();
        let zero_sized_left = self.de.zero_sized_left();
        match read_record(&mut self.de, self.index, self.base, None) {
            Ok(value) => {
                self.index += 1;
                if let Some(left) = &mut self.count_left {
                    *left -= 1;
                }
                Some(Ok(value))
            }
            Err(_) => {
                // Read the record again, with detail, from where it began.
                *self.de.read_mut() = SliceRead::from_parts(rest, len);
                self.de.set_zero_sized_left(zero_sized_left);
                let options = *self.de.options();
                let e =
                    record_error::<T>(rest, len, options, self.index, self.base, zero_sized_left);
                // A declared count with the bytes used up: records of no
                // bytes may still follow; anything else is a count too large.
                if no_record_there(&e, at_end) {
                    return self.at_end().map(Err);
                }
                self.done = true;
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // Never a lower bound from a count the input claims: `collect`
        // would reserve it.
        (0, None)
    }
}

impl<T> std::fmt::Debug for SliceRecords<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SliceRecords")
            .field("index", &self.index)
            .field("records_left", &self.count_left)
            .field("bytes_left", &self.de.read_ref().rest().len())
            .field("done", &self.done)
            .finish()
    }
}

/// Reads the records of a batch from an [`io::Read`]; see [`from_reader`].
pub struct ReaderRecords<R, T> {
    de: Deserializer<IoRead<R>>,
    index: u64,
    /// Bytes the last record took.
    last_len: usize,
    done: bool,
    marker: PhantomData<fn() -> T>,
}

impl<R, T> std::fmt::Debug for ReaderRecords<R, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReaderRecords")
            .field("index", &self.index)
            .field("done", &self.done)
            .finish()
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

impl<R: io::Read, T: DeserializeOwned> ReaderRecords<R, T> {
    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.index
    }
}

impl<R: io::Read, T: DeserializeOwned> Iterator for ReaderRecords<R, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        match self.de.read_mut().at_eof() {
            Ok(true) => {
                self.done = true;
                return None;
            }
            Ok(false) => {}
            Err(e) => {
                self.done = true;
                return Some(Err(e.in_record(self.index)));
            }
        }
        match read_record(&mut self.de, self.index, 0, Some(&mut self.last_len)) {
            Ok(value) => {
                self.index += 1;
                Some(Ok(value))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
