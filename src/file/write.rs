//! The file writer: frames appended to a file, each closed whole by one
//! write, so that a crash leaves complete frames and at most a torn tail
//! (`spec/11-file.md`, 11.2 and 11.4).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::FileOptions;
use super::layout::{self, FileSource, IndexBuilder};
use crate::error::{Error, ErrorKind, Result};
use crate::frame::{FLAG_INDEXED, HEADER_LEN, at, header_bytes};
use crate::schema::guard::Guarded;
use crate::schema::{self, Canonical, Schema};
use crate::ser::Serializer;
use crate::value::{Plan, Value, encode::Fit};

/// Appends records of `T` to a Kiln file, frame after frame.
///
/// Records are encoded into the current frame in memory. The frame is
/// written (with one `write` call, padding, header and payload together)
/// when it reaches [`FileOptions::frame_bytes`], on [`FileWriter::flush`],
/// on [`FileWriter::close`] and when the writer is dropped. Once `flush`
/// returns, its records are in the operating system's hands and survive
/// the process being killed; [`FileWriter::sync`] also asks the disk to
/// keep them through a power loss (`fsync`).
///
/// Records that hold shaped arrays go into indexed frames (flag INDEXED,
/// `spec/11-file.md`): every block at a multiple of 64 in the file, each
/// record readable alone.
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
/// struct Event { id: u64, text: String }
///
/// let dir = std::env::temp_dir().join(format!("kiln-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("events.kiln");
/// # let _ = std::fs::remove_file(&path);
/// for run in 0..2 {
///     // Each run appends to what the last one left.
///     let mut w = kiln::file::FileWriter::<Event>::open(&path)?;
///     w.push(&Event { id: run, text: "started".into() })?;
///     w.close()?;
/// }
/// let file = kiln::file::KilnFile::read(&path)?;
/// let events: Vec<Event> = file.records().collect::<Result<_, _>>()?;
/// assert_eq!(events.len(), 2);
/// assert_eq!(events[1], Event { id: 1, text: "started".into() });
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FileWriter<T> {
    file: File,
    path: PathBuf,
    /// Bytes in the file: where the next frame's padding starts.
    len: u64,
    options: FileOptions,
    schema: WriterSchema,
    /// The next write: padding, header (count, length and checksum
    /// patched in when it is written) and the payload so far.
    buf: Vec<u8>,
    /// Where the header starts in `buf`.
    head: usize,
    /// Where the payload starts in `buf`.
    origin: usize,
    /// Records in the current frame.
    count: u64,
    /// Records pushed since the writer was opened.
    pushed: u64,
    /// Set when the current frame holds records with arrays.
    indexed: Option<IndexBuilder>,
    closed: bool,
    marker: PhantomData<fn(&T)>,
}

/// The schema a writer's frames carry: a Rust type's, or a plan's (for
/// records written as [`Value`]s).
enum WriterSchema {
    Type(&'static Canonical),
    Plan(Plan),
}

impl WriterSchema {
    fn canonical(&self) -> &Canonical {
        match self {
            WriterSchema::Type(c) => c,
            WriterSchema::Plan(p) => p.canonical(),
        }
    }
}

impl<T> std::fmt::Debug for FileWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileWriter")
            .field("path", &self.path)
            .field("len", &self.len)
            .field("pending_records", &self.count)
            .finish()
    }
}

/// An I/O error of the file writer, at `at` in the file.
fn io_at(e: io::Error, at: u64) -> Error {
    Error::at(ErrorKind::Io(e), at)
}

impl<T: Serialize + Schema> FileWriter<T> {
    /// Opens `path` for appending with the default [`FileOptions`],
    /// creating it if it does not exist.
    ///
    /// # Errors
    /// As [`FileOptions::open`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        FileOptions::new().open(path)
    }

    pub(super) fn open_with(path: &Path, options: FileOptions) -> Result<Self> {
        let schema = WriterSchema::Type(schema::schema_of::<T>()?);
        Self::open_schema(path, options, schema)
    }

    /// Adds a record to the current frame, and writes the frame if it has
    /// reached [`FileOptions::frame_bytes`].
    ///
    /// # Errors
    /// The errors of [`crate::frame::to_vec`] for the record (with its
    /// index since the writer was opened), which is then left out; an I/O
    /// error writing a full frame, after which the frame stays in memory
    /// for the next `flush`.
    pub fn push(&mut self, record: &T) -> Result<()> {
        self.push_serialize(record)
    }
}

impl FileWriter<Value<'static>> {
    pub(super) fn open_plan(path: &Path, options: FileOptions, plan: &Plan) -> Result<Self> {
        Self::open_schema(path, options, WriterSchema::Plan(plan.clone()))
    }

    /// Adds a record given as a [`Value`] of the writer's plan, as
    /// [`FileWriter::push`] adds a typed one.
    ///
    /// # Errors
    /// [`ErrorKind::ValueMismatch`] with the path where the value does not
    /// fit the plan; otherwise as [`FileWriter::push`].
    pub fn push_value(&mut self, record: &Value<'_>) -> Result<()> {
        let WriterSchema::Plan(plan) = &self.schema else {
            unreachable!("a writer of values is opened with a plan")
        };
        // A clone of the plan's handle: the record borrows it while the
        // writer's buffer is borrowed mutably.
        let plan = plan.clone();
        let fit = Fit::new(record, &plan).map_err(|e| e.in_record(self.pushed))?;
        self.push_serialize(&fit)
    }
}

impl<T> FileWriter<T> {
    fn open_schema(path: &Path, options: FileOptions, schema: WriterSchema) -> Result<Self> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| io_at(e, 0))?;
        let len = check_tail(&mut file, &options)?;
        let mut w = FileWriter {
            file,
            path: path.to_owned(),
            len,
            options,
            schema,
            buf: Vec::new(),
            head: 0,
            origin: 0,
            count: 0,
            pushed: 0,
            indexed: None,
            closed: false,
            marker: PhantomData,
        };
        w.begin_frame()?;
        Ok(w)
    }

    /// Starts the next frame in the buffer: padding to a multiple of 64 in
    /// the file, and the header with its count and length to be patched.
    fn begin_frame(&mut self) -> Result<()> {
        self.buf.clear();
        let pad = layout::next_frame_start(self.len) - self.len;
        self.buf.resize(pad as usize, 0);
        self.head = self.buf.len();
        header_bytes(
            &mut self.buf,
            self.schema.canonical(),
            self.options.frame.flags(),
            0,
            0,
        )?;
        self.origin = self.buf.len();
        self.count = 0;
        self.indexed = None;
        Ok(())
    }

    /// Encodes one record into the current frame (see [`FileWriter::push`]).
    fn push_serialize<S: Serialize + ?Sized>(&mut self, record: &S) -> Result<()> {
        let before = self.buf.len();
        if let Some(index) = &self.indexed {
            index.start_record(&mut self.buf, self.origin);
        }
        let start = self.buf.len();
        let written = {
            let mut ser =
                Serializer::with_check(&mut self.buf, Guarded::new(self.schema.canonical()));
            record.serialize(&mut ser).and_then(|()| {
                let arrays = ser.array_count() > 0;
                ser.finish().map(|()| arrays)
            })
        };
        let arrays = match written {
            Ok(arrays) => arrays,
            Err(e) => {
                self.buf.truncate(before);
                return Err(e.in_record(self.pushed));
            }
        };
        match &mut self.indexed {
            Some(index) => index.end_record(&mut self.buf, self.origin, start, arrays),
            None if !arrays => {}
            None => {
                // The first record with arrays: the records before it
                // close a frame of their own, and this one starts an
                // indexed frame. Its bytes do not depend on where it sits.
                let record = self.buf.split_off(start);
                if self.count > 0 {
                    self.write_frame()?;
                }
                let mut index = IndexBuilder::default();
                index.start_record(&mut self.buf, self.origin);
                let start = self.buf.len();
                self.buf.extend_from_slice(&record);
                index.end_record(&mut self.buf, self.origin, start, true);
                self.indexed = Some(index);
            }
        }
        self.count += 1;
        self.pushed += 1;
        if self.buf.len() - self.origin >= self.options.frame_bytes {
            self.write_frame()?;
        }
        Ok(())
    }

    /// Closes the current frame and writes it with one `write` call. On an
    /// error the file is cut back to where it was and the frame stays in
    /// memory, so that a later `flush` can try again.
    fn write_frame(&mut self) -> Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        let mut flags = self.options.frame.flags();
        let body_len = self.buf.len();
        if let Some(index) = &self.indexed {
            index.finish(&mut self.buf, self.origin);
            flags |= FLAG_INDEXED;
        }
        let payload_len = (self.buf.len() - self.origin) as u64;
        let crc = self
            .options
            .checksum()
            .then(|| crc32c::crc32c(&self.buf[self.origin..]));
        let h = &mut self.buf[self.head..self.head + HEADER_LEN];
        h[at::FLAGS..at::FLAGS + 2].copy_from_slice(&flags.to_le_bytes());
        h[at::RECORD_COUNT..at::RECORD_COUNT + 8].copy_from_slice(&self.count.to_le_bytes());
        h[at::PAYLOAD_LEN..at::PAYLOAD_LEN + 8].copy_from_slice(&payload_len.to_le_bytes());
        if let Some(crc) = crc {
            h[at::CRC32C..at::CRC32C + 4].copy_from_slice(&crc.to_le_bytes());
        }
        if let Err(e) = self.file.write_all(&self.buf) {
            // Best effort: take a partial frame out again, so the file
            // ends at its last complete frame.
            let _ = self.file.set_len(self.len);
            // The records stay for a retry; the index is made again then.
            self.buf.truncate(body_len);
            return Err(io_at(e, self.len));
        }
        self.len += self.buf.len() as u64;
        self.begin_frame()
    }

    /// Writes the current frame, so that every record pushed so far is in
    /// the file, complete, and survives this process being killed.
    ///
    /// # Errors
    /// [`ErrorKind::Io`], with the offset where the frame was to go.
    pub fn flush(&mut self) -> Result<()> {
        self.write_frame()
    }

    /// [`FileWriter::flush`], then `fsync`: the records survive a power
    /// loss as well.
    ///
    /// # Errors
    /// As [`FileWriter::flush`].
    pub fn sync(&mut self) -> Result<()> {
        self.flush()?;
        self.file.sync_data().map_err(|e| io_at(e, self.len))
    }

    /// Writes the current frame and closes the file, returning the error
    /// that dropping the writer could only report to
    /// [`FileOptions::on_drop_error`].
    ///
    /// # Errors
    /// As [`FileWriter::flush`].
    pub fn close(mut self) -> Result<()> {
        self.closed = true;
        self.flush()
    }

    /// Records pushed since the writer was opened.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Bytes in the file, not counting the frame still in memory.
    pub fn file_len(&self) -> u64 {
        self.len
    }
}

impl<T> Drop for FileWriter<T> {
    /// Writes the current frame. An error cannot be returned from here: it
    /// goes to [`FileOptions::on_drop_error`] (by default, printed on
    /// stderr). Call [`FileWriter::close`] to get it as a `Result`.
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        if let Err(e) = self.write_frame() {
            (self.options.on_drop_error)(&self.path, &e);
        }
    }
}

/// Checks the end of the file a writer opens: every frame is walked by its
/// header, the last one's checksum is checked, and a torn tail is refused
/// or, if the options say so, cut off. Returns the length to append at.
fn check_tail(file: &mut File, options: &FileOptions) -> Result<u64> {
    let len = file.metadata().map_err(|e| io_at(e, 0))?.len();
    let max_text = options.frame.decode_options().schema_text_limit;
    let mut good = 0;
    let mut last = None;
    let mut src = FileSource { file, len };
    loop {
        match layout::next_span(&mut src, good, max_text) {
            Ok(None) => break,
            Ok(Some(span)) => {
                if span.header.is_streamed() {
                    return Err(Error::at(ErrorKind::StreamedTail, span.start));
                }
                good = span.end;
                last = Some(span);
            }
            Err(e) if matches!(e.kind(), ErrorKind::TruncatedTail { .. }) => {
                if !options.truncate_torn_tail {
                    return Err(e);
                }
                src.file.set_len(good).map_err(|e| io_at(e, good))?;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(span) = last
        && let Some(expected) = span.header.checksum
    {
        // The frame before the new ones must be sound: its checksum, read
        // in chunks, whatever its size.
        let p = span.start + span.header.payload_offset;
        src.file
            .seek(io::SeekFrom::Start(p))
            .map_err(|e| io_at(e, p))?;
        let mut left = span.end - p;
        let mut crc = 0;
        let mut chunk = vec![0u8; 64 * 1024];
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            src.file
                .read_exact(&mut chunk[..n])
                .map_err(|e| io_at(e, span.end - left))?;
            crc = crc32c::crc32c_append(crc, &chunk[..n]);
            left -= n as u64;
        }
        if crc != expected {
            return Err(Error::at(
                ErrorKind::ChecksumMismatch {
                    expected,
                    found: crc,
                },
                span.start + at::CRC32C as u64,
            ));
        }
    }
    Ok(good)
}
