//! Frame writers: a header, the records, and for the streamed form a
//! trailer (`spec/06-frame.md`, 6.1 to 6.4 and 6.7).

use std::borrow::Borrow;
use std::io;

use serde::Serialize;

use super::header::at;
use super::{
    FLAG_DIRECTORY, FLAG_SCHEMA, FLAG_STREAMED, FrameOptions, HEADER_LEN, MAGIC, Trailer, UNKNOWN,
    VERSION, align_up,
};
use crate::batch::BatchWriter;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::guard::Guarded;
use crate::schema::{self, Canonical, Schema};
use crate::ser::Serializer;

/// Writes the header, schema text and padding for `schema` into `out`.
pub(crate) fn header_bytes(
    out: &mut Vec<u8>,
    schema: &Canonical,
    flags: u16,
    count: u64,
    len: u64,
) -> Result<()> {
    let frame_start = out.len();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    let text = if flags & FLAG_SCHEMA != 0 {
        let text = schema.text().ok_or_else(|| {
            Error::new(ErrorKind::NoSchema {
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
        // P counts from the frame's first byte, wherever it sits in `out`.
        let padded = align_up((out.len() - frame_start) as u64).unwrap_or(0) as usize;
        out.resize(frame_start + padded, 0);
    }
    Ok(())
}

impl FrameOptions {
    /// Writes a frame around whatever `fill` appends to `out`, patching the
    /// count, length and checksum in afterwards.
    fn write_into(
        &self,
        out: &mut Vec<u8>,
        schema: &Canonical,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<u64>,
    ) -> Result<()> {
        let frame_start = out.len();
        header_bytes(out, schema, self.flags(), 0, 0)?;
        let start = out.len();
        let count = fill(out)?;
        let len = (out.len() - start) as u64;
        let h = &mut out[frame_start..frame_start + HEADER_LEN];
        h[at::RECORD_COUNT..at::RECORD_COUNT + 8].copy_from_slice(&count.to_le_bytes());
        h[at::PAYLOAD_LEN..at::PAYLOAD_LEN + 8].copy_from_slice(&len.to_le_bytes());
        if self.checksum {
            let crc = crc32c::crc32c(&out[start..]);
            let at_crc = frame_start + at::CRC32C;
            out[at_crc..at_crc + 4].copy_from_slice(&crc.to_le_bytes());
        }
        Ok(())
    }

    /// A frame holding one record, in a new `Vec<u8>`. A record that holds
    /// shaped arrays gets its directory and the [`FLAG_DIRECTORY`] flag.
    ///
    /// # Errors
    /// Those of [`schema::schema_of`] and of [`crate::to_vec`].
    pub fn to_vec<T: Serialize + Schema>(&self, value: &T) -> Result<Vec<u8>> {
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
            out[at::FLAGS..at::FLAGS + 2].copy_from_slice(&flags.to_le_bytes());
        }
        Ok(out)
    }

    /// A frame of `records` written under `schema`, for writers without
    /// the Rust type, which check each record against the schema
    /// themselves: one record that holds shaped arrays gets its directory
    /// and [`FLAG_DIRECTORY`]; a batch refuses them, as
    /// [`FrameOptions::batch_extend`] does.
    pub(crate) fn records_to_vec<V: Serialize>(
        &self,
        schema: &Canonical,
        records: &[V],
    ) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(HEADER_LEN + 64);
        let mut directory = false;
        self.write_into(&mut out, schema, |out| {
            let mut ser = Serializer::new(out);
            for (count, record) in records.iter().enumerate() {
                record.serialize(&mut ser)?;
                if records.len() == 1 {
                    directory = ser.array_count() > 0;
                } else {
                    crate::batch::no_arrays(&ser, count as u64)?;
                }
            }
            ser.finish()?;
            Ok(records.len() as u64)
        })?;
        if directory {
            let flags = self.flags() | FLAG_DIRECTORY;
            out[at::FLAGS..at::FLAGS + 2].copy_from_slice(&flags.to_le_bytes());
        }
        Ok(out)
    }

    /// A frame holding one record, written into an [`io::Write`]. The
    /// record is encoded in memory first, so the header can hold its
    /// length; the bytes are those of [`FrameOptions::to_vec`].
    ///
    /// # Errors
    /// As [`FrameOptions::to_vec`], plus [`ErrorKind::Io`].
    pub fn to_writer<W: io::Write, T: Serialize + Schema>(
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
    pub fn batch_to_vec<T: Serialize + Schema>(&self, records: &[T]) -> Result<Vec<u8>> {
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
    pub fn batch_extend<T, I>(&self, out: &mut Vec<u8>, records: I) -> Result<u64>
    where
        T: Serialize + Schema,
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
    pub fn batch_writer<W, T>(&self, writer: W) -> Result<FrameWriter<W, T>>
    where
        T: Serialize + Schema,
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
}

/// Counts and checksums what passes through to the writer.
pub(super) struct CrcWriter<W> {
    pub(super) writer: W,
    pub(super) crc: u32,
    pub(super) checksum: bool,
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
/// let mut w = kiln::frame::FrameOptions::new().batch_writer::<_, u32>(Vec::new())?;
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
