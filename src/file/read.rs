//! Reading a file's records across its frames, from its bytes (a slice,
//! a memory map) or from a stream (`spec/11-file.md`, 11.3).

use std::io::{self, Read as _};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::layout::{self, Indexed, Span};
use crate::de::{Deserializer, Evolved, RecordSeed, Typed};
use crate::error::{Error, ErrorKind, Result};
use crate::frame::{Evolve, FrameHeader, FrameOptions, HEADER_LEN};
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
pub(crate) struct TypedFrames<T>(std::marker::PhantomData<fn() -> T>);

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

// ---------------------------------------------------------------------------
// From a stream
// ---------------------------------------------------------------------------

/// The records of a file read from an [`io::Read`] (a pipe, a socket, a
/// file read front to back), as `T`. Each frame is read into memory whole
/// (within the byte limit) and checked before its records are yielded;
/// its records are then read from that buffer one by one, as from a
/// slice. Memory is one frame's bytes, reused from frame to frame; a file
/// written by [`FileWriter`](super::FileWriter) has frames of about
/// [`FileOptions::frame_bytes`](super::FileOptions::frame_bytes).
pub struct Reader<R, T: DeserializeOwned + Schema> {
    /// The current frame's records, read from `frame`. Declared before
    /// `frame` so that it is dropped first; see [`Reader::open`].
    records: Option<FileRecords<'static, TypedFrames<T>>>,
    /// The current frame, at a 64-aligned address.
    frame: crate::array::AlignedBytes,
    reader: R,
    options: FrameOptions,
    /// Bytes of the stream consumed so far: the end of the last frame read.
    at: u64,
    /// Where the current frame starts in the stream, and where the frame
    /// before it ended (a torn frame is reported there).
    frame_at: u64,
    good: u64,
    /// Records yielded before the current frame.
    frame_first: u64,
    index: u64,
    done: bool,
}

impl<R, T: DeserializeOwned + Schema> std::fmt::Debug for Reader<R, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("at", &self.at)
            .field("index", &self.index)
            .finish()
    }
}

impl<R: io::Read, T: DeserializeOwned + Schema> Reader<R, T> {
    /// A reader of the file that `reader` holds from its first byte.
    pub fn new(reader: R) -> Self {
        Self::with_options(reader, FrameOptions::new())
    }

    /// [`Reader::new`] with the limits of `options`.
    pub fn with_options(reader: R, options: FrameOptions) -> Self {
        Reader {
            records: None,
            frame: crate::array::AlignedBytes::new(),
            reader,
            options,
            at: 0,
            frame_at: 0,
            good: 0,
            frame_first: 0,
            index: 0,
            done: false,
        }
    }

    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Reads the next frame into `frame`: `false` at the clean end of the
    /// stream.
    fn next_frame(&mut self) -> Result<bool> {
        self.records = None;
        let decode = self.options.decode_options();
        let pad = (layout::next_frame_start(self.at) - self.at) as usize;
        let mut head = [0u8; 64 + HEADER_LEN];
        let got = read_up_to(&mut self.reader, &mut head[..pad + HEADER_LEN], self.at)?;
        if got == 0 {
            return Ok(false);
        }
        if let Some(i) = head[..pad.min(got)].iter().position(|&b| b != 0) {
            return Err(Error::at(
                ErrorKind::PaddingNonZero(head[i]),
                self.at + i as u64,
            ));
        }
        if got <= pad {
            return Err(layout::torn(
                "padding with no frame after it",
                self.at,
                self.at + got as u64,
            ));
        }
        self.frame.resize(0);
        self.frame.extend_from_slice(&head[pad..got]);
        // The header says how much follows; nothing is read beyond the
        // byte limit on its word.
        if got == pad + HEADER_LEN
            && let Ok((h, _)) = FrameHeader::parse_fixed(&head[pad..got], decode.schema_text_limit)
        {
            let limit = decode.byte_limit;
            // The frame's length: in the header, or, streamed, to the end
            // of the stream. Past the limit, the stream is read only to
            // tell a cut-short frame (a torn tail, as from a slice) from a
            // long one (`byte-limit`).
            let want = match h.payload_len {
                Some(n) if !h.is_streamed() => h.payload_offset.checked_add(n),
                _ => None,
            };
            match want {
                Some(w) if w <= limit => {
                    // Straight into the aligned buffer, which grows with
                    // the bytes that come (at most doubling), not with
                    // the length the header claims.
                    let w = w as usize;
                    let mut filled = HEADER_LEN;
                    while filled < w {
                        let next = w.min(filled.saturating_mul(2).max(filled + (64 << 10)));
                        self.frame.resize(next);
                        let room = &mut self.frame.as_mut_slice()[filled..next];
                        let at = self.at + (pad + filled) as u64;
                        filled += read_up_to(&mut self.reader, room, at)?;
                        if filled < next {
                            break;
                        }
                    }
                    self.frame.resize(filled);
                }
                _ => {
                    let mut rest = Vec::new();
                    io::Read::take(
                        &mut self.reader,
                        limit.saturating_add(1) - HEADER_LEN as u64,
                    )
                    .read_to_end(&mut rest)
                    .map_err(|e| {
                        Error::at(ErrorKind::Io(e), self.at + (got + rest.len()) as u64)
                    })?;
                    self.frame.extend_from_slice(&rest);
                }
            }
            if self.frame.as_slice().len() as u64 > limit {
                let at = self.at + pad as u64 + h.payload_offset.min(limit);
                return Err(Error::at(ErrorKind::ByteLimit { limit }, at));
            }
        }
        self.good = self.at;
        self.frame_at = self.at + pad as u64;
        self.at = self.frame_at + self.frame.as_slice().len() as u64;
        self.frame_first = self.index;
        self.open();
        Ok(true)
    }

    /// Starts reading the records of `frame`, checked and read as the
    /// slice reader does (offsets are moved to the stream's as they come).
    fn open(&mut self) {
        let bytes: &[u8] = self.frame.as_slice();
        // SAFETY: the records borrow the frame's heap allocation, which
        // does not move when the `Reader` moves. Every path that changes
        // or frees `frame` (`next_frame`, the `Reader`'s drop, fields
        // dropped in declaration order) drops `records` first, so the
        // borrow never outlives the bytes. The lifetime claimed, 'static,
        // reaches no value given out: `T: DeserializeOwned` borrows nothing
        // from its input, and errors own their contents.
        let bytes: &'static [u8] =
            unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) };
        self.records = Some(FileRecords::new(
            bytes,
            self.options,
            TypedFrames::<T>(std::marker::PhantomData),
        ));
    }

    /// An error from the current frame's records, moved to the stream.
    fn frame_error(&self, e: Error) -> Error {
        if let ErrorKind::TruncatedTail { found, .. } = e.kind() {
            return layout::torn(found, self.good, self.at);
        }
        let e = e.shifted(self.frame_at);
        match e.record() {
            Some(r) => e.in_record(self.frame_first + r),
            None => e,
        }
    }
}

impl<R: io::Read, T: DeserializeOwned + Schema> Iterator for Reader<R, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(records) = &mut self.records {
                match records.next() {
                    Some(Ok(v)) => {
                        self.index += 1;
                        return Some(Ok(v));
                    }
                    Some(Err(e)) => {
                        self.done = true;
                        self.records = None;
                        return Some(Err(self.frame_error(e)));
                    }
                    None => self.records = None,
                }
            }
            match self.next_frame() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    self.records = None;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// Reads until `buf` is full or the reader ends; returns the bytes read.
fn read_up_to<R: io::Read>(reader: &mut R, buf: &mut [u8], at: u64) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::at(ErrorKind::Io(e), at + got as u64)),
        }
    }
    Ok(got)
}
