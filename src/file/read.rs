//! Reading a file's records across its frames from its bytes (a slice,
//! a memory map) (`spec/11-file.md`, 11.3); `stream` reads them from an
//! `io::Read`.

use serde::Deserialize;

use super::layout::{self, Indexed, Span};
use crate::de::{Deserializer, Evolved, RecordSeed, Typed};
use crate::error::{Error, ErrorKind, Result};
use crate::frame::{Evolve, FrameHeader, FrameOptions};
use crate::options::Options;
use crate::read::SliceRead;
use crate::records::SliceRecords;
use crate::schema::{self, Schema};
use crate::value::{Plan, Seed, Value};

/// How the records of each frame are read: what a frame must be for the
/// reader (its fingerprint), and the seed that reads its records.
pub(crate) trait FrameSeed<'de> {
    type Seed: RecordSeed<'de>;
    /// The seed for the frame with `header`; errors at offsets in the frame.
    fn for_frame(&mut self, header: &FrameHeader) -> Result<Self::Seed>;
}

/// Records read by `T`'s `Deserialize`: every frame must be `T`'s.
pub(crate) struct TypedFrames<T>(pub(crate) std::marker::PhantomData<fn() -> T>);

impl<'de, T: Deserialize<'de> + Schema> FrameSeed<'de> for TypedFrames<T> {
    type Seed = Typed<T>;

    fn for_frame(&mut self, header: &FrameHeader) -> Result<Typed<T>> {
        header.check_schema(schema::schema_of::<T>()?)?;
        Ok(Typed::new())
    }
}

/// Records read as `T` from frames of `T`'s schema or of another version's
/// (`spec/12-evolution.md`), each frame by its own fingerprint.
pub(crate) struct EvolvedFrames<T> {
    evolve: Evolve,
    marker: std::marker::PhantomData<fn() -> T>,
}

impl<'de, T: Deserialize<'de> + Schema> FrameSeed<'de> for EvolvedFrames<T> {
    type Seed = Evolved<T>;

    fn for_frame(&mut self, header: &FrameHeader) -> Result<Evolved<T>> {
        self.evolve.seed_for::<T>(header)
    }
}

/// Records read as [`Value`]s: each frame by the caller's plan when it has
/// the frame's fingerprint, otherwise by the frame's own schema text.
pub(crate) struct PlanFrames {
    pub(crate) given: Option<Plan>,
    /// The last plan parsed from a frame, kept for the frames after it.
    last: Option<Plan>,
    /// The plan of the frame being read.
    current: Option<Plan>,
}

impl PlanFrames {
    pub(crate) fn new(given: Option<Plan>) -> Self {
        PlanFrames {
            given,
            last: None,
            current: None,
        }
    }

    /// The plan of the frame with `header`.
    pub(crate) fn plan(&mut self, header: &FrameHeader) -> Result<Plan> {
        let plan = self.find(header)?;
        self.current = Some(plan.clone());
        Ok(plan)
    }

    fn find(&mut self, header: &FrameHeader) -> Result<Plan> {
        for plan in [&self.given, &self.last].into_iter().flatten() {
            if plan.fingerprint() == header.fingerprint {
                return Ok(plan.clone());
            }
        }
        let plan = crate::value::plan_of(header, None).map_err(|e| match &self.given {
            // Say which schema was given, rather than that none was.
            Some(given) => header.check_schema(given.canonical()).err().unwrap_or(e),
            None => e,
        })?;
        self.last = Some(plan.clone());
        Ok(plan)
    }
}

impl<'de> FrameSeed<'de> for PlanFrames {
    type Seed = Seed;

    fn for_frame(&mut self, header: &FrameHeader) -> Result<Seed> {
        self.plan(header).map(Seed)
    }
}

/// The records of the frame being read.
enum Current<'de, K: RecordSeed<'de>> {
    None,
    Plain(SliceRecords<'de, K::Value, K>),
    /// A frame with DIRECTORY: its one record.
    Single(Option<Result<K::Value>>),
    Indexed {
        records: Indexed<'de>,
        next: u64,
        seed: K,
    },
}

/// Reads the records of every frame of `bytes` in order.
pub(crate) struct FileRecords<'de, F: FrameSeed<'de>> {
    bytes: &'de [u8],
    /// Where the last complete frame ends.
    good: u64,
    options: FrameOptions,
    frames: F,
    current: Current<'de, F::Seed>,
    /// Records yielded so far, in the whole file.
    index: u64,
    /// Records before the current frame.
    frame_first: u64,
    done: bool,
}

impl<'de, F: FrameSeed<'de>> FileRecords<'de, F> {
    pub(crate) fn new(bytes: &'de [u8], options: FrameOptions, frames: F) -> Self {
        FileRecords {
            bytes,
            good: 0,
            options,
            frames,
            current: Current::None,
            index: 0,
            frame_first: 0,
            done: false,
        }
    }

    /// Records read so far.
    pub(crate) fn index(&self) -> u64 {
        self.index
    }

    /// The same reader starting at the frame at `offset` (a frame of
    /// `bytes`, found by its header), whose first record is record
    /// `first_record` of the file.
    pub(crate) fn starting_at(mut self, offset: u64, first_record: u64) -> Self {
        self.good = offset;
        self.index = first_record;
        self.frame_first = first_record;
        self
    }

    /// Opens the frame after the last complete one: `None` at the end.
    fn open_next(&mut self) -> Result<Option<()>> {
        let decode = self.options.decode_options();
        let mut src: &[u8] = self.bytes;
        let Some(span) = layout::next_span(&mut src, self.good, decode.schema_text_limit)? else {
            return Ok(None);
        };
        let frame = &self.bytes[span.start as usize..span.end as usize];
        let payload = layout::check_payload(&span, frame, self.good, self.bytes.len() as u64)?;
        let seed = self
            .frames
            .for_frame(&span.header)
            .map_err(|e| e.shifted(span.start))?;
        let base = span.start + payload.offset;
        self.current = open_frame(
            &span,
            payload.bytes,
            payload.record_count,
            base,
            decode,
            seed,
        )?;
        self.frame_first = self.index;
        self.good = span.end;
        Ok(Some(()))
    }

    fn fail(&mut self, e: Error) -> Option<Result<<F::Seed as RecordSeed<'de>>::Value>> {
        self.done = true;
        self.current = Current::None;
        let e = match e.record() {
            Some(r) => e.in_record(self.frame_first + r),
            None => e,
        };
        Some(Err(e))
    }
}

/// The reader of one frame's records, whose payload is `payload` at `base`.
fn open_frame<'de, K: RecordSeed<'de>>(
    span: &Span,
    payload: &'de [u8],
    count: u64,
    base: u64,
    decode: Options,
    seed: K,
) -> Result<Current<'de, K>> {
    let header = &span.header;
    if header.is_indexed() {
        let records = Indexed::parse(payload, count, base)?;
        return Ok(Current::Indexed {
            records,
            next: 0,
            seed,
        });
    }
    if header.has_directory() {
        let record = FrameOptions::new()
            .decode(decode)
            .record_with_directory_by(payload, base - span.start, |de| seed.read(de))
            .map_err(|e| e.shifted(span.start));
        return Ok(Current::Single(Some(record)));
    }
    Ok(Current::Plain(SliceRecords::with_seed(
        payload,
        decode,
        base,
        Some(count),
        (!header.is_streamed()).then_some(payload.len() as u64),
        seed,
    )))
}

/// Reads record `k` of an indexed payload with `seed`: a record whose
/// directory is empty is its values alone; one with arrays is read as a
/// single record with its directory (`spec/08-directory.md`).
pub(crate) fn read_indexed<'de, K: RecordSeed<'de>>(
    records: &Indexed<'de>,
    k: u64,
    seed: &K,
    options: Options,
) -> Result<K::Value> {
    let (dir, bytes, at) = records.directory(k)?;
    let arrays = !dir.entries.is_empty();
    let input = if arrays {
        bytes
    } else {
        &bytes[..dir.offset as usize]
    };
    let mut de = Deserializer::with_options(SliceRead::new(input), options).whole_record();
    let value = seed.read(&mut de).map_err(|e| e.or_offset(0).shifted(at))?;
    if arrays && !de.read_directory() {
        return Err(Error::at(
            ErrorKind::ArrayCount {
                entries: dir.entries.len() as u64,
                found: 0,
            },
            at + dir.offset,
        ));
    }
    de.end().map_err(|e| e.shifted(at))?;
    Ok(value)
}

impl<'de, F: FrameSeed<'de>> Iterator for FileRecords<'de, F> {
    type Item = Result<<F::Seed as RecordSeed<'de>>::Value>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let item = match &mut self.current {
                Current::None => match self.open_next() {
                    Ok(Some(())) => continue,
                    Ok(None) => {
                        self.done = true;
                        return None;
                    }
                    Err(e) => return self.fail(e),
                },
                Current::Plain(records) => records.next(),
                Current::Single(record) => record.take(),
                Current::Indexed {
                    records,
                    next,
                    seed,
                } => (*next < records.count).then(|| {
                    *next += 1;
                    read_indexed(records, *next - 1, seed, self.options.decode_options())
                }),
            };
            match item {
                None => self.current = Current::None,
                Some(Ok(v)) => {
                    self.index += 1;
                    return Some(Ok(v));
                }
                Some(Err(e)) => {
                    let e = if e.record().is_none() && !matches!(self.current, Current::Plain(_)) {
                        e.in_record(self.index - self.frame_first)
                    } else {
                        e
                    };
                    return self.fail(e);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Public readers
// ---------------------------------------------------------------------------

/// The records of a file held in memory (a slice, [`KilnFile`](super::KilnFile)'s
/// bytes), read as `T` across all its frames; records may borrow from the
/// bytes. See [`records`].
pub struct Records<'de, T: Deserialize<'de> + Schema>(FileRecords<'de, TypedFrames<T>>);

impl<'de, T: Deserialize<'de> + Schema> Records<'de, T> {
    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.0.index()
    }
}

impl<'de, T: Deserialize<'de> + Schema> Iterator for Records<'de, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        self.0.next()
    }
}

impl<'de, T: Deserialize<'de> + Schema> std::fmt::Debug for Records<'de, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records")
            .field("index", &self.0.index)
            .field("good", &self.0.good)
            .finish()
    }
}

/// Reads every record of the file `bytes` as `T`, frame after frame.
///
/// A frame's records are yielded only once the whole frame is present and
/// its length and checksum are right. A file whose last write was cut
/// short yields the records of every complete frame, then
/// [`ErrorKind::TruncatedTail`] at the end of the last complete frame. A
/// frame written from another type is [`ErrorKind::SchemaMismatch`] at
/// its fingerprint (frame start + 16), before any of its records.
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
/// struct Point { x: i32, y: i32 }
///
/// let mut bytes = kiln::frame::batch_to_vec(&[Point { x: 1, y: 2 }])?;
/// bytes.resize(128, 0); // the next frame starts at a multiple of 64
/// bytes.extend(kiln::frame::batch_to_vec(&[Point { x: 3, y: 4 }])?);
/// let points: Vec<Point> = kiln::file::records(&bytes).collect::<Result<_, _>>()?;
/// assert_eq!(points, [Point { x: 1, y: 2 }, Point { x: 3, y: 4 }]);
///
/// let err = kiln::file::records::<Point>(&bytes[..150]).nth(1).unwrap().unwrap_err();
/// assert_eq!(err.kind().code(), "truncated-tail");
/// assert_eq!(err.offset(), Some(72)); // where the first frame ends
/// # Ok::<(), kiln::Error>(())
/// ```
pub fn records<'de, T: Deserialize<'de> + Schema>(bytes: &'de [u8]) -> Records<'de, T> {
    records_with(bytes, FrameOptions::new())
}

/// [`records`] with the limits of `options`.
pub fn records_with<'de, T: Deserialize<'de> + Schema>(
    bytes: &'de [u8],
    options: FrameOptions,
) -> Records<'de, T> {
    Records(FileRecords::new(
        bytes,
        options,
        TypedFrames(std::marker::PhantomData),
    ))
}

/// The records of a file held in memory read as `T`, whichever version of
/// `T` wrote each frame; see [`Evolve::file_records`].
pub struct EvolvedRecords<'de, T: Deserialize<'de> + Schema>(FileRecords<'de, EvolvedFrames<T>>);

impl<'de, T: Deserialize<'de> + Schema> EvolvedRecords<'de, T> {
    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.0.index()
    }
}

impl<'de, T: Deserialize<'de> + Schema> Iterator for EvolvedRecords<'de, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        self.0.next()
    }
}

impl<'de, T: Deserialize<'de> + Schema> std::fmt::Debug for EvolvedRecords<'de, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvolvedRecords")
            .field("index", &self.0.index)
            .field("good", &self.0.good)
            .finish()
    }
}

impl Evolve {
    /// Reads every record of the file `bytes` as `T`, frame after frame,
    /// as [`records`] does, except that a frame another version of `T`
    /// wrote is read through the resolution of its schema text (embedded,
    /// or from the [`schema_store`](Evolve::schema_store)) onto `T`'s: a
    /// file appended to by one release after another reads whole. A
    /// [`KilnFile`](super::KilnFile)'s records: `evolve.file_records(file.bytes())`.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, kiln::Schema)]
    /// #[serde(rename = "Event")]
    /// struct EventV1 { id: u32 }
    ///
    /// #[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
    /// struct Event { id: u64, #[serde(default)] note: String }
    ///
    /// let opts = kiln::frame::FrameOptions::new().embed_schema(true);
    /// // Last release appended a frame, this one another.
    /// let mut bytes = opts.batch_to_vec(&[EventV1 { id: 1 }])?;
    /// bytes.resize(bytes.len().next_multiple_of(64), 0);
    /// bytes.extend(opts.batch_to_vec(&[Event { id: 2, note: "new".into() }])?);
    ///
    /// let events: Vec<Event> = opts.evolve().file_records(&bytes).collect::<kiln::Result<_>>()?;
    /// assert_eq!(events[0], Event { id: 1, note: String::new() });
    /// assert_eq!(events[1], Event { id: 2, note: "new".into() });
    /// # Ok::<(), kiln::Error>(())
    /// ```
    pub fn file_records<'de, T: Deserialize<'de> + Schema>(
        &self,
        bytes: &'de [u8],
    ) -> EvolvedRecords<'de, T> {
        EvolvedRecords(FileRecords::new(
            bytes,
            self.frame_options(),
            EvolvedFrames {
                evolve: self.clone(),
                marker: std::marker::PhantomData,
            },
        ))
    }
}

/// The records of a file held in memory, read without the Rust type as
/// [`Value`]s; see [`values`].
pub struct Values<'de>(FileRecords<'de, PlanFrames>);

impl<'de> Values<'de> {
    pub(crate) fn starting_at(self, offset: u64, first_record: u64) -> Self {
        Values(self.0.starting_at(offset, first_record))
    }

    /// The schema the last record was read with: its frame's.
    pub fn plan(&self) -> Option<&Plan> {
        self.0.frames.current.as_ref()
    }

    /// Records read so far, counted across the file.
    pub fn index(&self) -> u64 {
        self.0.index
    }
}

impl<'de> Iterator for Values<'de> {
    type Item = Result<Value<'de>>;

    fn next(&mut self) -> Option<Result<Value<'de>>> {
        self.0.next()
    }
}

impl std::fmt::Debug for Values<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Values")
            .field("index", &self.0.index)
            .finish()
    }
}

/// Reads every record of the file `bytes` without the Rust type: each
/// frame by `plan` when it has the frame's fingerprint, otherwise by the
/// schema text the frame embeds (a frame with neither is
/// [`ErrorKind::NoSchema`]). Frames of different types may follow each
/// other. Torn tails are reported as by [`records`].
pub fn values<'de>(bytes: &'de [u8], plan: Option<&Plan>, options: FrameOptions) -> Values<'de> {
    Values(FileRecords::new(
        bytes,
        options,
        PlanFrames::new(plan.cloned()),
    ))
}

// ---------------------------------------------------------------------------
// Frames
// ---------------------------------------------------------------------------

/// One frame of a file: where it starts, its header, its bytes, and the
/// index of its first record in the file.
#[derive(Debug)]
pub struct FrameAt<'a> {
    /// The frame's first byte in the file.
    pub offset: u64,
    /// Its header.
    pub header: FrameHeader,
    /// The whole frame, header to trailer.
    pub bytes: &'a [u8],
    /// The index of its first record in the file.
    pub first_record: u64,
}

/// The frames of the file `bytes`, by their headers: each frame's payload
/// is not checked (its length is; [`FrameHeader::payload`] checks the
/// rest), so a frame whose checksum is wrong is still listed. The
/// iteration ends after the first error: a torn tail
/// ([`ErrorKind::TruncatedTail`] at the end of the last complete frame),
/// bytes that are not a frame, nonzero padding between frames, each at
/// its offset in the file.
pub fn read_frames(bytes: &[u8]) -> impl Iterator<Item = Result<FrameAt<'_>>> + '_ {
    let mut good = 0;
    let mut first_record = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut src = bytes;
        let max_text = crate::options::DEFAULT_SCHEMA_TEXT_LIMIT;
        let span = match layout::next_span(&mut src, good, max_text) {
            Ok(Some(span)) => span,
            Ok(None) => return None,
            Err(e) => {
                done = true;
                return Some(Err(e));
            }
        };
        let frame = &bytes[span.start as usize..span.end as usize];
        let count = match span.header.record_count {
            Some(n) => n,
            None => match layout::streamed_extent(&span.header, frame) {
                Some((_, n)) => n,
                // No whole trailer: a torn tail, or what else is wrong.
                None => {
                    done = true;
                    let len = bytes.len() as u64;
                    return layout::check_payload(&span, frame, good, len)
                        .err()
                        .map(Err);
                }
            },
        };
        let item = FrameAt {
            offset: span.start,
            header: span.header,
            bytes: frame,
            first_record,
        };
        first_record = first_record.saturating_add(count);
        good = span.end;
        Some(Ok(item))
    })
}
