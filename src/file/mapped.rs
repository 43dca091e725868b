//! A whole file held for reading: in 64-byte-aligned memory or mapped. Its
//! frames are listed from their headers, its arrays from their records'
//! directories, each named by its field path (`spec/11-file.md`, 11.5).

use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;

use super::layout::{self, Indexed};
use super::read::{PlanFrames, Records, Values, read_indexed, records_with, values};
use crate::array::{AlignedBytes, Array, ArrayInfo, ArrayView, shape_to_usize, view_block};
use crate::block::Element;
use crate::error::{Error, ErrorKind, Result};
use crate::frame::{FrameHeader, FrameOptions};
use crate::schema::Schema;
use crate::value::{Plan, Seed, Value};

enum Storage {
    Aligned(AlignedBytes),
    #[cfg(feature = "mmap")]
    Mapped(memmap2::Mmap),
}

/// One complete frame of a [`KilnFile`], as its header describes it.
#[derive(Debug)]
pub struct FrameInfo {
    /// The frame's first byte in the file.
    pub offset: u64,
    /// Its header.
    pub header: FrameHeader,
    /// Its payload's bytes in the file.
    pub payload: Range<u64>,
    /// The index, in the whole file, of its first record.
    pub first_record: u64,
    /// Its records.
    pub record_count: u64,
    /// The plan of its records, parsed when first needed.
    plan: OnceLock<Option<FramePlan>>,
}

/// A record's directory entries (offsets in the file), its bytes, and
/// their offset in the file.
type RecordEntries<'a> = (Vec<ArrayInfo>, &'a [u8], u64);

/// A frame's plan, and the names of its records' arrays where they are
/// the same for every record (then no record is read to name them).
#[derive(Debug)]
struct FramePlan {
    plan: Plan,
    names: Option<Vec<String>>,
}

/// A shaped array of a file: which record holds it, its field path, and its
/// element type, shape and block (at offsets in the file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedArray {
    /// The record, counted from 0 across the file's frames.
    pub record: u64,
    /// The array's place in its record's directory.
    pub index: usize,
    /// Its field path (`image`, `layers[3].weights`), from the frame's
    /// schema text; `None` for a frame without one.
    pub name: Option<String>,
    /// Element type, shape, and the block's byte range in the file.
    pub info: ArrayInfo,
}

/// A Kiln file held whole for reading: read into 64-byte-aligned memory
/// ([`KilnFile::read`]) or memory-mapped ([`KilnFile::map`]).
///
/// Opening walks the frame headers (not the payloads), so a file of any
/// size opens in time proportional to its frames. Records are read with
/// [`KilnFile::records`] (borrowing strings and arrays from the file);
/// shaped arrays are listed and viewed by name or index without the Rust
/// type. Views point into the file's memory: no copy.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use kiln::{Array, ArrayView};
///
/// #[derive(Serialize, kiln::Schema)]
/// struct Sample { label: String, image: Array<f32> }
///
/// let dir = std::env::temp_dir().join(format!("kiln-doc-shard-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("shard.kiln");
/// # let _ = std::fs::remove_file(&path);
/// let mut w = kiln::file::FileWriter::<Sample>::open(&path)?;
/// for i in 0..3 {
///     let image = Array::from_shape_vec(vec![2, 2], vec![i as f32; 4])?;
///     w.push(&Sample { label: format!("s{i}"), image })?;
/// }
/// w.close()?;
///
/// let file = kiln::file::KilnFile::read(&path)?;
/// let arrays = file.arrays()?;
/// assert_eq!(arrays.len(), 3);
/// assert_eq!(arrays[2].name.as_deref(), Some("image"));
/// assert_eq!(arrays[2].info.byte_range().start % 64, 0);
/// let view: ArrayView<'_, f32> = file.array_view(2, "image")?;
/// assert_eq!(view.data(), [2.0; 4]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct KilnFile {
    storage: Storage,
    frames: Vec<FrameInfo>,
    /// What stopped the walk of the frames, if anything: a torn tail, or a
    /// damaged frame. The frames before it are listed.
    stop: Option<Error>,
    options: FrameOptions,
}

impl std::fmt::Debug for KilnFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KilnFile")
            .field("len", &self.bytes().len())
            .field("frames", &self.frames.len())
            .field("stop", &self.stop)
            .finish()
    }
}

fn io_error(e: std::io::Error) -> Error {
    Error::at(ErrorKind::Io(e), 0)
}

impl KilnFile {
    /// Reads the file at `path` into 64-byte-aligned memory.
    ///
    /// # Errors
    /// [`ErrorKind::Io`]. Damage in the file is not an error here: see
    /// [`KilnFile::check`].
    pub fn read(path: impl AsRef<Path>) -> Result<KilnFile> {
        let bytes = std::fs::read(path).map_err(io_error)?;
        Ok(Self::from_bytes(&bytes))
    }

    /// A file from bytes already in memory (copied to aligned memory).
    pub fn from_bytes(bytes: &[u8]) -> KilnFile {
        Self::with_storage(Storage::Aligned(AlignedBytes::from_slice(bytes)))
    }

    /// Maps the file at `path` into memory, read-only. Nothing is read
    /// until it is used: listing frames touches their headers, listing
    /// arrays their directories, and a view the pages of its block.
    ///
    /// # Safety
    /// The mapping shows the file as it is on disk at every moment, not as
    /// it was when mapped. The caller must ensure that no process (this
    /// one included) truncates or rewrites the file's existing bytes while
    /// the `KilnFile` or anything borrowed from it lives: a truncation
    /// makes a read of the lost pages raise `SIGBUS`, and a rewrite changes
    /// bytes that were already checked, so that a `&str` could stop being
    /// UTF-8. Appending (what [`FileWriter`](super::FileWriter) does) is
    /// safe: bytes past the mapped length are not seen. Use
    /// [`KilnFile::read`] for files that others may change.
    ///
    /// # Errors
    /// [`ErrorKind::Io`].
    #[cfg(feature = "mmap")]
    pub unsafe fn map(path: impl AsRef<Path>) -> Result<KilnFile> {
        let file = std::fs::File::open(path).map_err(io_error)?;
        let len = file.metadata().map_err(io_error)?.len();
        if len == 0 {
            // An empty file cannot be mapped; it holds no frames.
            return Ok(Self::from_bytes(&[]));
        }
        // SAFETY: the map is read-only and the caller upholds the contract
        // above: the file's mapped bytes do not change while it lives.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_error)?;
        Ok(Self::with_storage(Storage::Mapped(map)))
    }

    fn with_storage(storage: Storage) -> KilnFile {
        let mut me = KilnFile {
            storage,
            frames: Vec::new(),
            stop: None,
            options: FrameOptions::new(),
        };
        let (frames, stop) = list_frames(me.bytes(), &me.options);
        me.frames = frames;
        me.stop = stop;
        me
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Aligned(b) => b.as_slice(),
            #[cfg(feature = "mmap")]
            Storage::Mapped(m) => m,
        }
    }

    /// The complete frames, in order, from their headers.
    pub fn frames(&self) -> &[FrameInfo] {
        &self.frames
    }

    /// Records in the complete frames.
    pub fn record_count(&self) -> u64 {
        self.frames
            .last()
            .map_or(0, |f| f.first_record.saturating_add(f.record_count))
    }

    /// What ended the walk of the frames before the end of the file: a
    /// torn tail ([`ErrorKind::TruncatedTail`], at the end of the last
    /// complete frame, where `kiln repair` cuts) or a damaged frame.
    pub fn stop(&self) -> Option<&Error> {
        self.stop.as_ref()
    }

    /// Fails with [`KilnFile::stop`], if any.
    ///
    /// # Errors
    /// That error, again (it is not `Clone`, so a copy of its kind, offset
    /// and message).
    pub fn check(&self) -> Result<()> {
        match &self.stop {
            None => Ok(()),
            Some(e) => Err(copy_error(e)),
        }
    }

    /// Every record as `T`, across frames; see [`super::records`].
    pub fn records<'de, T: Deserialize<'de> + Schema>(&'de self) -> Records<'de, T> {
        records_with(self.bytes(), self.options)
    }

    /// Every record without the Rust type; see [`super::values`].
    pub fn values(&self, plan: Option<&Plan>) -> Values<'_> {
        values(self.bytes(), plan, self.options)
    }

    /// The records from frame `frame` (an index into [`KilnFile::frames`])
    /// to the end of the file, without the Rust type, as
    /// [`KilnFile::values`] reads them: errors carry offsets in the file
    /// and record indices counted from the file's first record. Past the
    /// last frame, nothing.
    ///
    /// ```
    /// let opts = kiln::frame::FrameOptions::new().embed_schema(true);
    /// let mut bytes = opts.batch_to_vec(&[1u16, 2])?;
    /// bytes.resize(bytes.len().next_multiple_of(64), 0); // frames start at multiples of 64
    /// bytes.extend(opts.batch_to_vec(&[3u16])?);
    /// let file = kiln::file::KilnFile::from_bytes(&bytes);
    /// assert_eq!(file.frames().len(), 2);
    /// assert_eq!(file.frames()[1].first_record, 2);
    /// let mut rest = file.frame_values(1, None);
    /// assert_eq!(rest.next().transpose()?, Some(kiln::value::Value::U16(3)));
    /// assert_eq!(rest.index(), 3);
    /// assert_eq!(rest.plan().map(|p| p.text()), Some("root u16\n"));
    /// # Ok::<(), kiln::Error>(())
    /// ```
    pub fn frame_values(&self, frame: usize, plan: Option<&Plan>) -> Values<'_> {
        let values = values(self.bytes(), plan, self.options);
        match self.frames.get(frame) {
            Some(f) => values.starting_at(f.offset, f.first_record),
            None => values.starting_at(self.bytes().len() as u64, self.record_count()),
        }
    }

    /// The frame holding record `record`, and the record's index in it.
    fn frame_of(&self, record: u64) -> Result<(&FrameInfo, u64)> {
        let i = self
            .frames
            .partition_point(|f| f.first_record.saturating_add(f.record_count) <= record);
        match self.frames.get(i) {
            Some(f) if f.first_record <= record => Ok((f, record - f.first_record)),
            _ => Err(Error::new(ErrorKind::ArrayIndex {
                index: record,
                count: self.record_count(),
            })),
        }
    }

    /// The bytes of record `k` of `frame` if it ends with a directory, and
    /// its offset in the file.
    fn record_bytes(&self, frame: &FrameInfo, k: u64) -> Option<(&[u8], u64)> {
        let payload = &self.bytes()[frame.payload.start as usize..frame.payload.end as usize];
        if frame.header.is_indexed() {
            let index = Indexed::trusted(payload, frame.record_count, frame.payload.start);
            let (bytes, start) = index.record(k);
            Some((bytes, frame.payload.start + start))
        } else if frame.header.has_directory() {
            Some((payload, frame.payload.start))
        } else {
            None
        }
    }

    /// The arrays of record `record` (counted across the file), with their
    /// names when the frame carries its schema text.
    ///
    /// # Errors
    /// [`ErrorKind::ArrayIndex`] for a record past the complete frames;
    /// the directory rules of `spec/08-directory.md`, at offsets in the
    /// file; the decoding errors of the record when naming its arrays.
    pub fn record_arrays(&self, record: u64) -> Result<Vec<NamedArray>> {
        let (frame, k) = self.frame_of(record)?;
        let Some((entries, bytes, at)) = self.entries(frame, k)? else {
            return Ok(Vec::new());
        };
        let names = match Self::static_names(frame, entries.len()) {
            Some(names) => Some(names.to_vec()),
            None => self.read_names(frame, k, bytes, at)?,
        };
        Ok(entries
            .into_iter()
            .enumerate()
            .map(|(index, info)| NamedArray {
                record,
                index,
                name: names.as_ref().and_then(|n| n.get(index).cloned()),
                info,
            })
            .collect())
    }

    /// The directory entries of record `k` of `frame` (offsets in the
    /// file), its bytes and their offset; `None` for a frame of records
    /// without directories.
    fn entries(&self, frame: &FrameInfo, k: u64) -> Result<Option<RecordEntries<'_>>> {
        let Some((bytes, at)) = self.record_bytes(frame, k) else {
            return Ok(None);
        };
        let mut entries = crate::array::directory::parse(bytes, 0)
            .map_err(|e| e.shifted(at))?
            .map(|d| d.entries)
            .unwrap_or_default();
        for info in &mut entries {
            info.offset += at;
        }
        Ok(Some((entries, bytes, at)))
    }

    /// The frame's plan, parsed from its schema text once.
    fn plan(frame: &FrameInfo) -> Option<&FramePlan> {
        frame
            .plan
            .get_or_init(|| {
                let plan = PlanFrames::new(None).plan(&frame.header).ok()?;
                let names = plan.static_array_paths();
                Some(FramePlan { plan, names })
            })
            .as_ref()
    }

    /// The names of a record's `count` arrays when the schema fixes them.
    fn static_names(frame: &FrameInfo, count: usize) -> Option<&[String]> {
        let names = Self::plan(frame)?.names.as_deref()?;
        (names.len() == count).then_some(names)
    }

    /// The field paths of the arrays of record `k` of `frame`, in
    /// directory order, found by reading the record through the frame's
    /// plan (an array under an option, a sequence, an enum).
    fn read_names(
        &self,
        frame: &FrameInfo,
        k: u64,
        bytes: &[u8],
        at: u64,
    ) -> Result<Option<Vec<String>>> {
        let Some(FramePlan { plan, .. }) = Self::plan(frame) else {
            return Ok(None);
        };
        let decode = self.options.decode_options();
        let value: Value<'_> = if frame.header.is_indexed() {
            let payload = &self.bytes()[frame.payload.start as usize..frame.payload.end as usize];
            let index = Indexed::trusted(payload, frame.record_count, frame.payload.start);
            read_indexed(&index, k, &Seed(plan.clone()), decode)?
        } else {
            self.options.record_with_directory_by(bytes, at, |de| {
                crate::de::RecordSeed::read(&Seed(plan.clone()), de)
            })?
        };
        Ok(Some(
            value.arrays().into_iter().map(|(name, _)| name).collect(),
        ))
    }

    /// Every shaped array of the complete frames, record by record.
    ///
    /// # Errors
    /// As [`KilnFile::record_arrays`].
    pub fn arrays(&self) -> Result<Vec<NamedArray>> {
        let mut all = Vec::new();
        for frame in &self.frames {
            if !(frame.header.is_indexed() || frame.header.has_directory()) {
                continue;
            }
            for k in 0..frame.record_count {
                all.extend(self.record_arrays(frame.first_record.saturating_add(k))?);
            }
        }
        Ok(all)
    }

    /// The array `name` of record `record`.
    fn find(&self, record: u64, name: &str) -> Result<NamedArray> {
        let (frame, k) = self.frame_of(record)?;
        if let Some((mut entries, _, _)) = self.entries(frame, k)?
            && let Some(names) = Self::static_names(frame, entries.len())
            && let Some(index) = names.iter().position(|n| n == name)
        {
            return Ok(NamedArray {
                record,
                index,
                name: Some(names[index].clone()),
                info: entries.swap_remove(index),
            });
        }
        // Named by reading the record, or not there: the full listing says.
        let arrays = self.record_arrays(record)?;
        let count = arrays.len() as u64;
        arrays
            .into_iter()
            .find(|a| a.name.as_deref() == Some(name))
            .ok_or_else(|| {
                Error::new(ErrorKind::Custom(format!(
                    "no array named {name:?} in record {record} ({count} arrays)"
                )))
            })
    }

    /// The array `index` of record `record` (not named: nothing is read
    /// but the record's directory).
    fn nth(&self, record: u64, index: usize) -> Result<NamedArray> {
        let (frame, k) = self.frame_of(record)?;
        let mut entries = self.entries(frame, k)?.map(|e| e.0).unwrap_or_default();
        if index >= entries.len() {
            return Err(Error::new(ErrorKind::ArrayIndex {
                index: index as u64,
                count: entries.len() as u64,
            }));
        }
        Ok(NamedArray {
            record,
            index,
            name: None,
            info: entries.swap_remove(index),
        })
    }

    /// The shape and block of `a`, checked to hold `T`s.
    fn block_of<T: Element>(&self, a: &NamedArray) -> Result<(Vec<usize>, &[u8], u64)> {
        let info = &a.info;
        let r = info.byte_range();
        if info.dtype() != T::DTYPE {
            return Err(Error::at(
                ErrorKind::DtypeMismatch {
                    expected: T::NAME,
                    found: info.dtype(),
                },
                r.start,
            ));
        }
        let shape = shape_to_usize(info.shape(), r.start)?;
        Ok((
            shape,
            &self.bytes()[r.start as usize..r.end as usize],
            r.start,
        ))
    }

    fn view_of<T: Element>(&self, a: &NamedArray) -> Result<ArrayView<'_, T>> {
        let (shape, bytes, at) = self.block_of::<T>(a)?;
        let data = view_block::<T>(bytes, at)?;
        Ok(ArrayView::from_parts_unchecked(shape, data))
    }

    /// Views the array `name` of record `record` in place (no copy).
    ///
    /// # Errors
    /// As [`KilnFile::record_arrays`]; [`ErrorKind::Custom`] naming the
    /// array if the record has none of that name;
    /// [`ErrorKind::DtypeMismatch`] if it is not of `T`;
    /// [`ErrorKind::ViewUnavailable`] on a big-endian host.
    pub fn array_view<T: Element>(&self, record: u64, name: &str) -> Result<ArrayView<'_, T>> {
        self.view_of(&self.find(record, name)?)
    }

    /// Views the array `index` of record `record` in place (no copy).
    ///
    /// # Errors
    /// As [`KilnFile::array_view`], with [`ErrorKind::ArrayIndex`] for an
    /// index past the record's arrays.
    pub fn array_view_at<T: Element>(&self, record: u64, index: usize) -> Result<ArrayView<'_, T>> {
        self.view_of(&self.nth(record, index)?)
    }

    /// Copies the array `name` of record `record` into an owned [`Array`]
    /// (one copy of its block).
    ///
    /// # Errors
    /// As [`KilnFile::record_arrays`], [`ErrorKind::DtypeMismatch`].
    pub fn array<T: Element>(&self, record: u64, name: &str) -> Result<Array<T>> {
        let a = self.find(record, name)?;
        owned(self, &a)
    }

    /// Copies the array `index` of record `record` into an owned [`Array`].
    ///
    /// # Errors
    /// As [`KilnFile::array`], [`ErrorKind::ArrayIndex`].
    pub fn array_at<T: Element>(&self, record: u64, index: usize) -> Result<Array<T>> {
        let a = self.nth(record, index)?;
        owned(self, &a)
    }
}

/// An owned copy of the array `a` of `file`, on any host.
fn owned<T: Element>(file: &KilnFile, a: &NamedArray) -> Result<Array<T>> {
    let (shape, bytes, _) = file.block_of::<T>(a)?;
    Ok(Array::from_parts_unchecked(
        shape,
        crate::block::vec_from_whole(bytes),
    ))
}

/// A copy of `e`'s kind (as far as it can be copied), offset and record.
fn copy_error(e: &Error) -> Error {
    let kind = match e.kind() {
        ErrorKind::TruncatedTail { found, available } => ErrorKind::TruncatedTail {
            found,
            available: *available,
        },
        other => ErrorKind::Custom(format!("{} ({})", other, other.code())),
    };
    let mut copy = Error::new(kind);
    if let Some(at) = e.offset() {
        copy = copy.or_offset(at);
    }
    copy
}

/// The complete frames of `bytes`, and what stopped the walk.
fn list_frames(bytes: &[u8], options: &FrameOptions) -> (Vec<FrameInfo>, Option<Error>) {
    let max_text = options.decode_options().schema_text_limit;
    let mut frames = Vec::new();
    let mut good = 0;
    let mut first_record = 0;
    let mut src = bytes;
    loop {
        let span = match layout::next_span(&mut src, good, max_text) {
            Ok(Some(span)) => span,
            Ok(None) => return (frames, None),
            Err(e) => return (frames, Some(e)),
        };
        let frame = &bytes[span.start as usize..span.end as usize];
        let p = span.start + span.header.payload_offset;
        let (payload, count): (Range<u64>, u64) =
            match (span.header.record_count, span.header.payload_len) {
                (Some(count), Some(len)) if !span.header.is_streamed() => (p..p + len, count),
                _ => match layout::streamed_extent(&span.header, frame) {
                    Some((range, count)) => {
                        (span.start + range.start..span.start + range.end, count)
                    }
                    // No trailer: the checks of the payload say what is wrong.
                    None => match layout::check_payload(&span, frame, good, bytes.len() as u64) {
                        Err(e) => return (frames, Some(e)),
                        Ok(_) => return (frames, None),
                    },
                },
            };
        if span.header.is_indexed() {
            let body = &bytes[payload.start as usize..payload.end as usize];
            if let Err(e) = Indexed::parse(body, count, payload.start) {
                return (frames, Some(e));
            }
        }
        frames.push(FrameInfo {
            offset: span.start,
            header: span.header,
            payload,
            first_record,
            record_count: count,
            plan: OnceLock::new(),
        });
        first_record = first_record.saturating_add(count);
        good = span.end;
    }
}
