//! Frame readers from a slice, and the single-record reader from a
//! stream (`spec/06-frame.md`, 6.5).

use std::io::{self, Read as _};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::header::{at, plain_single};
use super::{
    FLAG_DIRECTORY, FLAG_SCHEMA, FLAG_STREAMED, FrameEnd, FrameHeader, FrameOptions,
    FramedReaderRecords, HEADER_LEN, PayloadSource, le_u16, truncated,
};
use crate::de::Deserializer;
use crate::de::{Decoder, Pass, RecordSeed, Typed, two_pass};
use crate::error::{Error, ErrorKind, FlagMismatch, FrameField, Result};
use crate::read::SliceRead;
use crate::records::{SliceRecords, StreamRecords, no_record_there};
use crate::schema;
use crate::schema::Schema;

impl FrameOptions {
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
    pub fn from_slice<'de, T: Deserialize<'de> + Schema>(&self, bytes: &'de [u8]) -> Result<T> {
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
        header.not_indexed()?;
        let payload = header.payload(bytes)?;
        if payload.record_count != 1 {
            return Err(not_one_record(payload.record_count));
        }
        self.single_record(payload.bytes, payload.offset)
    }

    /// Reads the one record that must fill `payload` (at `offset`), in
    /// two passes ([`two_pass`]). Always inlined, with its errors made out
    /// of line from scalars: a record returned from a call comes back
    /// through memory, and for a small record that costs more than reading it.
    #[inline(always)]
    fn single_record<'de, T: Deserialize<'de> + Schema>(
        &self,
        payload: &'de [u8],
        offset: u64,
    ) -> Result<T> {
        let pass = SingleRecord {
            offset,
            marker: std::marker::PhantomData,
        };
        two_pass(payload, &self.options, &pass)
    }

    /// Reads the record of a frame with the DIRECTORY flag, which fills
    /// `payload` (at `offset`) and ends with its array directory.
    fn record_with_directory<'de, T: Deserialize<'de> + Schema>(
        &self,
        payload: &'de [u8],
        offset: u64,
    ) -> Result<T> {
        self.record_with_directory_by(payload, offset, |de| T::deserialize(de))
    }

    /// [`FrameOptions::record_with_directory`] with the record read by
    /// `read` (a type's `Deserialize`, or a schema at run time).
    pub(crate) fn record_with_directory_by<'de, V>(
        &self,
        payload: &'de [u8],
        offset: u64,
        read: impl FnOnce(&mut Deserializer<SliceRead<'de>>) -> Result<V>,
    ) -> Result<V> {
        if !crate::array::directory::has_trailer(payload) {
            return Err(Error::at(
                ErrorKind::DirectoryFlag(FlagMismatch::NoTrailer),
                at::FLAGS as u64,
            ));
        }
        let mut de =
            Deserializer::with_options(SliceRead::new(payload), self.options).whole_record();
        let value = read(&mut de).map_err(|e| e.or_offset(0).shifted(offset).in_record(0))?;
        if !de.read_directory() {
            return Err(Error::at(
                ErrorKind::DirectoryFlag(FlagMismatch::RecordWithoutArrays),
                at::FLAGS as u64,
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
    pub fn from_reader<R: io::Read, T: DeserializeOwned + Schema>(&self, reader: R) -> Result<T> {
        self.record_from_reader_with(reader, typed::<T>)
    }

    /// [`FrameOptions::from_reader`] with each record read by the seed
    /// `seed_for` gives for the frame's header (which checks the schema).
    pub(super) fn record_from_reader_with<R, T, K>(
        &self,
        mut reader: R,
        seed_for: impl Fn(&FrameHeader) -> Result<K>,
    ) -> Result<T>
    where
        R: io::Read,
        K: for<'de> RecordSeed<'de, Value = T>,
    {
        let mut fixed = [0u8; HEADER_LEN];
        let got = read_up_to(&mut reader, &mut fixed, 0)?;
        if got == HEADER_LEN && le_u16(&fixed, at::FLAGS) & FLAG_DIRECTORY != 0 {
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
            let seed = seed_for(&header)?;
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
            let header = FrameHeader::parse_with(&all, max_text)?;
            let payload = header.payload(&all)?;
            return self
                .record_with_directory_by(payload.bytes, payload.offset, |de| seed.read(de));
        }
        let reader = io::Read::chain(&fixed[..got], reader);
        let mut records = self.batch_from_reader_with(reader, seed_for)?;
        // As from a slice: a declared count other than 1 is refused before
        // any record is read, not after the payload runs out.
        if let Some(count) = records.header().record_count
            && count != 1
        {
            return Err(not_one_record(count));
        }
        let first = records.next();
        let second = records.next();
        single(first, second, records.index()).map_err(flag_clear)
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
    pub fn batch_from_slice<'de, T: Deserialize<'de> + Schema>(
        &self,
        bytes: &'de [u8],
    ) -> Result<SliceRecords<'de, T>> {
        self.batch_from_slice_with(bytes, typed::<T>)
    }

    /// [`FrameOptions::batch_from_slice`] with the records read by the seed
    /// `seed_for` gives for the frame's header (which checks the schema).
    pub(super) fn batch_from_slice_with<'de, T, K: RecordSeed<'de, Value = T>>(
        &self,
        bytes: &'de [u8],
        seed_for: impl FnOnce(&FrameHeader) -> Result<K>,
    ) -> Result<SliceRecords<'de, T, K>> {
        let header = FrameHeader::parse_with(bytes, self.options.schema_text_limit)?;
        let seed = seed_for(&header)?;
        not_a_batch(&header)?;
        let payload = header.payload(bytes)?;
        Ok(SliceRecords::with_seed(
            payload.bytes,
            self.options,
            payload.offset,
            Some(payload.record_count),
            (!header.is_streamed()).then_some(payload.bytes.len() as u64),
            seed,
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
    pub fn batch_from_reader<R: io::Read, T: DeserializeOwned + Schema>(
        &self,
        reader: R,
    ) -> Result<FramedReaderRecords<R, T>> {
        self.batch_from_reader_with(reader, typed::<T>)
    }

    /// [`FrameOptions::batch_from_reader`] with the records read by the
    /// seed `seed_for` gives for the frame's header (which checks the schema).
    pub(super) fn batch_from_reader_with<R: io::Read, T, K>(
        &self,
        mut reader: R,
        seed_for: impl FnOnce(&FrameHeader) -> Result<K>,
    ) -> Result<FramedReaderRecords<R, T, K>>
    where
        K: for<'de> RecordSeed<'de, Value = T>,
    {
        let header = self.header_from_reader(&mut reader)?;
        let seed = seed_for(&header)?;
        not_a_batch(&header)?;
        let source = PayloadSource::new(reader, &header);
        Ok(FramedReaderRecords(StreamRecords::with_seed(
            source,
            self.options,
            FrameEnd { header },
            seed,
        )))
    }

    /// Reads a frame's header and schema text from a stream, leaving the
    /// stream at the payload's first byte. The text is read only within
    /// both limits, never on the word of the header alone.
    pub(crate) fn header_from_reader<R: io::Read>(&self, reader: &mut R) -> Result<FrameHeader> {
        let mut fixed = [0u8; HEADER_LEN];
        let got = read_up_to(reader, &mut fixed, 0)?;
        let (mut header, schema_len) =
            FrameHeader::parse_fixed(&fixed[..got], self.options.schema_text_limit)?;
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
        io::Read::take(reader, area_len)
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
        Ok(header)
    }
}

/// The seed of records read by `T`'s own `Deserialize`: the frame must
/// be `T`'s.
fn typed<T: Schema>(header: &FrameHeader) -> Result<Typed<T>> {
    header.check_schema(schema::schema_of::<T>()?)?;
    Ok(Typed::new())
}

/// Refuses a frame with the DIRECTORY flag to the batch readers: its one
/// record ends with a directory that only a single-record reader finds.
pub(super) fn not_a_batch(header: &FrameHeader) -> Result<()> {
    header.not_indexed()?;
    if header.has_directory() {
        return Err(Error::at(
            ErrorKind::DirectoryFlag(FlagMismatch::InBatch),
            at::FLAGS as u64,
        ));
    }
    Ok(())
}

/// A single-record frame without the DIRECTORY flag whose record met an
/// array: the reader knows the record's end, but the writer said there is
/// no directory.
#[cold]
pub(super) fn flag_clear(e: Error) -> Error {
    if matches!(e.kind(), ErrorKind::RecordEndUnknown) {
        return Error::at(
            ErrorKind::DirectoryFlag(FlagMismatch::RecordWithArrays),
            at::FLAGS as u64,
        );
    }
    e
}

/// The error of the record of a single-record frame whose payload starts
/// at `offset`. An empty payload holds no record at all: the count is
/// wrong, as a batch reader and a reader of a stream report it.
#[cold]
#[inline(never)]
pub(super) fn single_record_error(e: Error, payload_empty: bool, offset: u64) -> Error {
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
pub(super) fn payload_too_long(declared: u64, used: u64, offset: u64) -> Error {
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
pub(crate) fn not_one_record(found: u64) -> Error {
    Error::at(
        ErrorKind::HeaderField {
            field: FrameField::RecordCount,
            expected: "1 in a single-record frame",
            found,
        },
        at::RECORD_COUNT as u64,
    )
}

/// The record of a single-record frame, or why there is not exactly one.
pub(super) fn single<T>(
    first: Option<Result<T>>,
    second: Option<Result<T>>,
    index: u64,
) -> Result<T> {
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
pub(super) fn read_up_to<R: io::Read>(reader: &mut R, buf: &mut [u8], base: u64) -> Result<usize> {
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

/// The record of a single-record frame without arrays: it fills the
/// payload, which starts at `offset` in the frame.
struct SingleRecord<T> {
    offset: u64,
    marker: std::marker::PhantomData<fn() -> T>,
}

impl<'de, T: Deserialize<'de>> Pass<'de> for SingleRecord<T> {
    type Value = T;
    type Output = T;

    #[inline(always)]
    fn read<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<T> {
        T::deserialize(de)
    }

    fn explain(&self, e: Error, rest: &'de [u8]) -> Error {
        single_record_error(e, rest.is_empty(), self.offset)
    }

    #[inline(always)]
    fn end<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<()> {
        let (used, rest) = (de.offset(), de.read_ref().rest().len() as u64);
        if rest != 0 {
            return Err(payload_too_long(used + rest, used, self.offset));
        }
        Ok(())
    }

    #[inline(always)]
    fn output<const D: bool>(value: T, _: &Decoder<SliceRead<'de>, D>) -> T {
        value
    }
}
