//! Kiln files: frames one after another, appended across runs, read back
//! across frames, safe against a crash in the middle of a write
//! (`spec/11-file.md`).
//!
//! * [`FileWriter`] appends records of one type to a path. It checks the
//!   file's tail when it opens it (a torn last write is refused unless
//!   [`FileOptions::truncate_torn_tail`] is set), gathers records into a
//!   frame in memory, and writes each frame whole: [`FileWriter::flush`]
//!   puts every record so far on disk as complete frames,
//!   [`FileWriter::sync`] adds `fsync`, dropping the writer flushes.
//! * [`records`] reads every record of a file in memory as `T`, across
//!   frames; [`values`] reads them without the type; [`Reader`] reads them
//!   from a stream. Each yields the records of every complete frame, then
//!   [`ErrorKind::TruncatedTail`](crate::ErrorKind::TruncatedTail) if the
//!   last write was cut short.
//! * [`KilnFile`] holds a file (read into 64-byte-aligned memory, or
//!   memory-mapped): it lists frames and shaped arrays from headers and
//!   directories only, names each array by its field path, and views
//!   arrays in place.
//!
//! Records that hold shaped arrays are written into indexed frames: each
//! record at a multiple of 64, followed by an index of where each record
//! ends, so that any record (and any of its arrays) is found without
//! reading the others.

mod layout;
mod mapped;
mod read;
mod stream;
mod write;

pub use layout::FRAME_ALIGN;
pub use mapped::{FrameInfo, KilnFile, NamedArray};
pub use read::{
    EvolvedRecords, FrameAt, Records, Values, read_frames, records, records_with, values,
};
pub use stream::Reader;
pub use write::FileWriter;

use std::path::Path;

use serde::Serialize;

use crate::Error;
use crate::error::Result;
use crate::frame::FrameOptions;
use crate::schema::Schema;

/// The default [`FileOptions::frame_bytes`]: 1 MiB.
pub const DEFAULT_FRAME_BYTES: usize = 1 << 20;

/// How a [`FileWriter`] writes (checksum, schema text, frame size) and what
/// it does with a torn tail and with errors when dropped.
///
/// ```
/// let opts = kiln::file::FileOptions::new().frame_bytes(64 * 1024).truncate_torn_tail(true);
/// # let _ = opts;
/// ```
#[derive(Clone, Copy)]
pub struct FileOptions {
    pub(crate) frame: FrameOptions,
    pub(crate) frame_bytes: usize,
    pub(crate) truncate_torn_tail: bool,
    pub(crate) on_drop_error: fn(&Path, &Error),
}

impl std::fmt::Debug for FileOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileOptions")
            .field("frame", &self.frame)
            .field("frame_bytes", &self.frame_bytes)
            .field("truncate_torn_tail", &self.truncate_torn_tail)
            .finish()
    }
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            frame: FrameOptions::new().embed_schema(true),
            frame_bytes: DEFAULT_FRAME_BYTES,
            truncate_torn_tail: false,
            on_drop_error: print_drop_error,
        }
    }
}

/// The default [`FileOptions::on_drop_error`]: one line on stderr.
fn print_drop_error(path: &Path, e: &Error) {
    eprintln!(
        "kiln: a FileWriter dropped with records it could not write to {}: {e}",
        path.display()
    );
}

impl FileOptions {
    /// The defaults: checksum on, schema text in every frame (so the file
    /// can be read without the type, and by a reader of another version
    /// of it), frames of about 1 MiB, a torn tail refused, drop errors
    /// printed on stderr.
    pub fn new() -> Self {
        Self::default()
    }

    /// The frame options: checksum, schema text, and the decoding limits
    /// used when the writer checks the file's tail.
    pub fn frame_options(mut self, options: FrameOptions) -> Self {
        self.frame = options;
        self
    }

    /// Once the current frame's payload reaches `bytes`, it is written.
    /// Larger frames mean fewer headers; a reader from a stream holds one
    /// frame in memory. A record larger than `bytes` is a frame alone.
    pub fn frame_bytes(mut self, bytes: usize) -> Self {
        self.frame_bytes = bytes.max(1);
        self
    }

    /// What to do when the file ends in a torn frame (a write cut short by
    /// a crash): `false` (the default) refuses to open it with
    /// [`ErrorKind::TruncatedTail`](crate::ErrorKind::TruncatedTail), so
    /// that nothing is lost without a decision; `true` cuts the file back
    /// to its last complete frame first.
    pub fn truncate_torn_tail(mut self, on: bool) -> Self {
        self.truncate_torn_tail = on;
        self
    }

    /// Called with the path and the error when a dropped [`FileWriter`]
    /// cannot write its last frame (drop cannot return it). The default
    /// prints one line on stderr; [`FileWriter::close`] returns the error
    /// instead.
    pub fn on_drop_error(mut self, report: fn(&Path, &Error)) -> Self {
        self.on_drop_error = report;
        self
    }

    pub(crate) fn checksum(&self) -> bool {
        self.frame.flags() & crate::frame::FLAG_CHECKSUM != 0
    }

    /// Opens `path` for appending records of `T`, creating it if needed.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io); for an existing file, the
    /// errors of its frames' headers, with offsets in the file;
    /// [`ErrorKind::TruncatedTail`](crate::ErrorKind::TruncatedTail) at
    /// the end of the last complete frame if the file is torn (unless
    /// [`FileOptions::truncate_torn_tail`]);
    /// [`ErrorKind::ChecksumMismatch`](crate::ErrorKind::ChecksumMismatch)
    /// if the last frame is damaged;
    /// [`ErrorKind::StreamedTail`](crate::ErrorKind::StreamedTail) if the
    /// last frame is streamed; the errors of
    /// [`schema_of`](crate::schema::schema_of) for `T`.
    pub fn open<T: Serialize + Schema>(&self, path: impl AsRef<Path>) -> Result<FileWriter<T>> {
        FileWriter::open_with(path.as_ref(), *self)
    }

    /// Opens `path` for appending records without the Rust type:
    /// [`Value`](crate::value::Value)s of `plan`'s schema, pushed with
    /// [`FileWriter::push_value`]. The file's bytes are those the type
    /// the plan describes would write.
    ///
    /// ```
    /// use kiln::value::{Plan, Struct, Value};
    ///
    /// let plan = Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
    /// let dir = std::env::temp_dir().join(format!("kiln-doc-values-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("points.kiln");
    /// # let _ = std::fs::remove_file(&path);
    /// let mut w = kiln::file::FileOptions::new().open_values(&path, &plan)?;
    /// let point = Value::Struct(Struct::new("Point", [("x", Value::I32(9)), ("y", Value::I32(-4))]));
    /// w.push_value(&point)?;
    /// let bad = Value::Struct(Struct::new("Point", [("x", Value::I32(9))]));
    /// assert_eq!(w.push_value(&bad).unwrap_err().kind().code(), "value-mismatch");
    /// w.close()?;
    ///
    /// #[derive(serde::Deserialize, kiln::Schema, Debug, PartialEq)]
    /// struct Point { x: i32, y: i32 }
    /// let file = kiln::file::KilnFile::read(&path)?;
    /// let points: Vec<Point> = file.records().collect::<Result<_, _>>()?;
    /// assert_eq!(points, [Point { x: 9, y: -4 }]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FileOptions::open`], but for the type's schema errors.
    pub fn open_values(
        &self,
        path: impl AsRef<Path>,
        plan: &crate::value::Plan,
    ) -> Result<FileWriter<crate::value::Value<'static>>> {
        FileWriter::open_plan(path.as_ref(), *self, plan)
    }
}
