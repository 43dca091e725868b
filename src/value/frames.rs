//! Frames read and written without the Rust type: the schema is the
//! frame's embedded text, or one the caller gives, checked against the
//! frame's fingerprint (`spec/06-frame.md`, `spec/10-values.md`).

use std::io::{self, Read as _};

use super::decode::{self, Seed};
use super::{Plan, Value};
use crate::error::{Error, ErrorKind, Result};
use crate::frame::{self, FrameEnd, FrameHeader, FrameOptions, PayloadSource};
use crate::records::{Bare, SliceRecords, StreamRecords as Records};

/// A frame opened on a stream: its header, its plan, and what follows.
struct Opened<R> {
    header: FrameHeader,
    plan: Plan,
    body: Body<R>,
}

enum Body<R> {
    /// The stream at the first record.
    Records(R),
    /// The whole frame, read within the byte limit: a record with shaped
    /// arrays (the DIRECTORY flag) has its directory at its end, so it is
    /// read whole, as the typed single-record reader does.
    Whole(Vec<u8>),
}

/// Reads a frame's header and schema from `reader`, and the plan of its
/// records (`plan`, checked against the frame, or the embedded text).
fn open_frame<R: io::Read>(
    reader: R,
    plan: Option<&Plan>,
    options: &FrameOptions,
) -> Result<Opened<R>> {
    let mut reader = Recorder {
        inner: reader,
        seen: Vec::new(),
    };
    let header = options.header_from_reader(&mut reader)?;
    header.not_indexed()?;
    let plan = plan_of(&header, plan)?;
    if !header.has_directory() {
        return Ok(Opened {
            header,
            plan,
            body: Body::Records(reader.inner),
        });
    }
    let limit = options
        .decode_options()
        .byte_limit
        .saturating_add(frame::TRAILER_LEN as u64);
    let mut frame = reader.seen;
    io::Read::take(&mut reader.inner, limit)
        .read_to_end(&mut frame)
        .map_err(|e| Error::at(ErrorKind::Io(e), header.payload_offset))?;
    Ok(Opened {
        header,
        plan,
        body: Body::Whole(frame),
    })
}

/// The plan of a frame: the caller's, if given (it must have the frame's
/// fingerprint), otherwise the frame's embedded text.
pub(crate) fn plan_of(header: &FrameHeader, given: Option<&Plan>) -> Result<Plan> {
    match given {
        Some(plan) => {
            header.check_schema(plan.canonical())?;
            Ok(plan.clone())
        }
        None => match &header.schema_text {
            Some(text) => Plan::parse(text).map_err(|e| e.shifted(frame::HEADER_LEN as u64)),
            None => Err(Error::at(
                ErrorKind::NoSchema {
                    type_name: header.fingerprint.to_string(),
                    reason: "the frame carries no schema text; give the schema \
                             (the writer's canonical text)"
                        .into(),
                },
                16,
            )),
        },
    }
}

/// The records of one frame held in memory, read as [`Value`]s.
pub struct FrameRecords<'a> {
    header: FrameHeader,
    plan: Plan,
    /// The records the frame declares.
    count: u64,
    inner: Inner<'a>,
}

enum Inner<'a> {
    /// A record with arrays, alone in its frame.
    Single(Option<Result<Value<'a>>>),
    Batch(SliceRecords<'a, Value<'a>, Seed>),
}

/// Reads the frame in `bytes` (exactly one frame): header, schema,
/// payload checks (length, trailer, checksum), then an iterator over its
/// records. `plan` is the schema to read with; `None` takes the frame's
/// embedded text.
///
/// ```
/// #[derive(serde::Serialize, kiln::Schema)]
/// struct Point { x: i32, y: i32 }
///
/// let opts = kiln::frame::FrameOptions::new().embed_schema(true);
/// let bytes = opts.batch_to_vec(&[Point { x: 1, y: 2 }, Point { x: 3, y: 4 }])?;
/// let records = kiln::value::frame_records(&bytes, None)?;
/// let json: Vec<String> = records
///     .map(|r| r.map(|v| serde_json::to_string(&v).unwrap()))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(json, [r#"{"x":1,"y":2}"#, r#"{"x":3,"y":4}"#]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// Those of [`FrameHeader::parse`] and [`FrameHeader::payload`];
/// [`ErrorKind::NoSchema`] for a frame without text when no plan is
/// given; [`ErrorKind::SchemaMismatch`] for a plan of another fingerprint;
/// [`ErrorKind::SchemaText`] for an embedded text that does not parse
/// (offset in the frame). The items fail as typed records do.
pub fn frame_records<'a>(bytes: &'a [u8], plan: Option<&Plan>) -> Result<FrameRecords<'a>> {
    frame_records_with(bytes, plan, &FrameOptions::new())
}

/// [`frame_records`] with the limits of `options`.
///
/// # Errors
/// As [`frame_records`].
pub fn frame_records_with<'a>(
    bytes: &'a [u8],
    plan: Option<&Plan>,
    options: &FrameOptions,
) -> Result<FrameRecords<'a>> {
    let decode_options = options.decode_options();
    let header = FrameHeader::parse_with(bytes, decode_options.schema_text_limit)?;
    // An indexed frame is a file's (`kiln::file` reads it): its payload
    // is not records back to back.
    header.not_indexed()?;
    let plan = plan_of(&header, plan)?;
    let payload = header.payload(bytes)?;
    let count = payload.record_count;
    let inner = if header.has_directory() {
        let record = if payload.record_count != 1 {
            Err(frame::not_one_record(payload.record_count))
        } else {
            options.record_with_directory_by(payload.bytes, payload.offset, |de| {
                decode::read(de, &plan, plan.root())
            })
        };
        Inner::Single(Some(record))
    } else {
        Inner::Batch(SliceRecords::with_seed(
            payload.bytes,
            decode_options,
            payload.offset,
            Some(payload.record_count),
            (!header.is_streamed()).then_some(payload.bytes.len() as u64),
            Seed(plan.clone()),
        ))
    };
    Ok(FrameRecords {
        header,
        plan,
        count,
        inner,
    })
}

impl<'a> FrameRecords<'a> {
    /// The frame's header.
    pub fn header(&self) -> &FrameHeader {
        &self.header
    }

    /// The schema the records are read with.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The number of records the frame declares.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The frame's one record, as [`frame::from_slice`](crate::frame::from_slice)
    /// reads a typed one.
    ///
    /// ```
    /// let plan = kiln::value::Plan::parse("root u16\n")?;
    /// let opts = kiln::frame::FrameOptions::new().embed_schema(true);
    /// let bytes = opts.to_vec(&7u16)?;
    /// let one = kiln::value::frame_records(&bytes, None)?.single()?;
    /// assert_eq!(one, kiln::value::Value::U16(7));
    /// let two = opts.batch_to_vec(&[1u16, 2])?;
    /// let err = kiln::value::frame_records(&two, Some(&plan))?.single().unwrap_err();
    /// assert_eq!((err.kind().code(), err.offset()), ("header-field", Some(24)));
    /// # Ok::<(), kiln::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::HeaderField`](crate::ErrorKind::HeaderField) at the
    /// record count when the frame holds other than one record; the
    /// record's own errors.
    pub fn single(mut self) -> Result<Value<'a>> {
        if self.count != 1 {
            return Err(frame::not_one_record(self.count));
        }
        self.next().unwrap_or_else(|| Err(frame::not_one_record(0)))
    }
}

impl<'a> Iterator for FrameRecords<'a> {
    type Item = Result<Value<'a>>;

    fn next(&mut self) -> Option<Result<Value<'a>>> {
        match &mut self.inner {
            Inner::Single(record) => record.take(),
            Inner::Batch(records) => records.next(),
        }
    }
}

/// Records read from a stream as owned values, for [`StreamRecords`].
#[derive(Clone)]
pub(crate) struct OwnedSeed(Plan);

impl<'de> crate::de::RecordSeed<'de> for OwnedSeed {
    type Value = Value<'static>;

    fn read<R: crate::read::Read<'de>, const D: bool>(
        &self,
        de: &mut crate::de::Decoder<R, D>,
    ) -> Result<Value<'static>> {
        decode::read(de, &self.0, self.0.root()).map(Value::into_owned)
    }

    fn memory_size(&self) -> usize {
        1
    }
}

/// The records of a frame read from an [`io::Read`] in bounded memory, as
/// [`Value`]s: the first record comes before the last is read. As for
/// typed readers, the checksum and a streamed frame's trailer are checked
/// at the end, so the last item may be an error.
pub struct StreamRecords<R: io::Read> {
    plan: Plan,
    inner: StreamInner<R>,
}

enum StreamInner<R: io::Read> {
    Single(Option<Result<Value<'static>>>),
    Batch(Box<Records<PayloadSource<R>, Value<'static>, FrameEnd, OwnedSeed>>),
}

/// Keeps the bytes of a frame's header area as they are read, so that a
/// record with arrays can be read with its frame around it.
struct Recorder<R> {
    inner: R,
    seen: Vec<u8>,
}

impl<R: io::Read> io::Read for Recorder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

impl<R: io::Read> StreamRecords<R> {
    /// Reads the frame's header and schema from `reader`; records follow
    /// as the iterator asks. A record with shaped arrays (the DIRECTORY
    /// flag) is read whole, within the byte limit.
    ///
    /// # Errors
    /// As [`frame_records`], and [`ErrorKind::Io`].
    pub fn new(reader: R, plan: Option<&Plan>, options: &FrameOptions) -> Result<Self> {
        let opened = open_frame(reader, plan, options)?;
        let plan = opened.plan;
        let inner = match opened.body {
            Body::Whole(frame) => StreamInner::Single(Some(
                frame_records_with(&frame, Some(&plan), options)
                    .and_then(|mut r| r.next().unwrap_or_else(|| Ok(Value::Unit)))
                    .map(Value::into_owned),
            )),
            Body::Records(reader) => StreamInner::Batch(Box::new(frame::framed_records(
                reader,
                opened.header,
                options.decode_options(),
                OwnedSeed(plan.clone()),
            ))),
        };
        Ok(StreamRecords { plan, inner })
    }

    /// The schema the records are read with.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Records read so far.
    pub fn index(&self) -> u64 {
        match &self.inner {
            StreamInner::Single(r) => u64::from(r.is_none()),
            StreamInner::Batch(b) => b.index(),
        }
    }
}

impl<R: io::Read> Iterator for StreamRecords<R> {
    type Item = Result<Value<'static>>;

    fn next(&mut self) -> Option<Result<Value<'static>>> {
        match &mut self.inner {
            StreamInner::Single(record) => record.take(),
            StreamInner::Batch(records) => records.next(),
        }
    }
}

/// The records of a bare batch (records back to back, no frame) read
/// from a stream by a schema given by the caller, in bounded memory; see
/// [`bare_records`].
pub struct BareRecords<R: io::Read>(Records<R, Value<'static>, Bare, OwnedSeed>);

/// Reads a bare batch from `reader` as `plan` says its records are
/// written: the first record comes before the last is read. Bare bytes
/// carry no schema, so the plan must be the writer's; nothing can check
/// it.
///
/// # Errors
/// The items fail as typed records do, with the record index.
pub fn bare_records<R: io::Read>(
    reader: R,
    plan: &Plan,
    options: &crate::Options,
) -> BareRecords<R> {
    BareRecords(Records::with_seed(
        reader,
        *options,
        Bare,
        OwnedSeed(plan.clone()),
    ))
}

impl<R: io::Read> BareRecords<R> {
    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.0.index()
    }
}

impl<R: io::Read> Iterator for BareRecords<R> {
    type Item = Result<Value<'static>>;

    fn next(&mut self) -> Option<Result<Value<'static>>> {
        self.0.next()
    }
}

/// Records written as JSON as they are read, for [`JsonRecords`]: the
/// text of each record is appended to the seed's buffer, which is the
/// caller's, lent for the record.
pub(crate) struct JsonSeed {
    plan: Plan,
    out: std::cell::RefCell<Vec<u8>>,
}

impl Clone for JsonSeed {
    /// A clone writes into a buffer of its own.
    fn clone(&self) -> Self {
        JsonSeed {
            plan: self.plan.clone(),
            out: Default::default(),
        }
    }
}

impl<'de> crate::de::RecordSeed<'de> for JsonSeed {
    type Value = ();

    fn read<R: crate::read::Read<'de>, const D: bool>(
        &self,
        de: &mut crate::de::Decoder<R, D>,
    ) -> Result<()> {
        let mut out = self.out.borrow_mut();
        super::json_out::write_record(de, &self.plan, self.plan.root(), &mut out)
    }

    fn memory_size(&self) -> usize {
        1
    }
}

/// The records of a frame, or of a bare batch, read from a stream and
/// written as JSON (`spec/10-values.md`) without building [`Value`]s: the
/// text is the one `serde_json` prints for each record's [`Value`].
///
/// ```
/// #[derive(serde::Serialize, kiln::Schema)]
/// struct Point { x: i32, y: i32 }
///
/// let opts = kiln::frame::FrameOptions::new().embed_schema(true);
/// let bytes = opts.batch_to_vec(&[Point { x: 1, y: 2 }, Point { x: 3, y: 4 }])?;
/// let mut records = kiln::value::JsonRecords::frame(&bytes[..], None, &opts)?;
/// let mut out = Vec::new();
/// while let Some(r) = records.next_into(&mut out) {
///     r?;
///     out.push(b'\n');
/// }
/// assert_eq!(out, b"{\"x\":1,\"y\":2}\n{\"x\":3,\"y\":4}\n");
/// # Ok::<(), kiln::Error>(())
/// ```
pub struct JsonRecords<R: io::Read> {
    inner: JsonInner<R>,
}

enum JsonInner<R: io::Read> {
    Single(Option<Result<Vec<u8>>>),
    Framed(Box<Records<PayloadSource<R>, (), FrameEnd, JsonSeed>>),
    Bare(Box<Records<R, (), Bare, JsonSeed>>),
}

impl<R: io::Read> JsonRecords<R> {
    /// The records of the frame `reader` holds, by its embedded schema text
    /// or by `plan` (which must have the frame's fingerprint).
    ///
    /// # Errors
    /// As [`StreamRecords::new`].
    pub fn frame(reader: R, plan: Option<&Plan>, options: &FrameOptions) -> Result<Self> {
        let opened = open_frame(reader, plan, options)?;
        let (header, plan) = (opened.header, opened.plan);
        let seed = JsonSeed {
            plan: plan.clone(),
            out: Default::default(),
        };
        let inner = match opened.body {
            Body::Whole(frame) => {
                JsonInner::Single(Some(header.payload(&frame).and_then(|payload| {
                    let mut out = Vec::new();
                    options.record_with_directory_by(payload.bytes, payload.offset, |de| {
                        super::json_out::write_record(de, &plan, plan.root(), &mut out)
                    })?;
                    Ok(out)
                })))
            }
            Body::Records(reader) => JsonInner::Framed(Box::new(frame::framed_records(
                reader,
                header,
                options.decode_options(),
                seed,
            ))),
        };
        Ok(JsonRecords { inner })
    }

    /// The records of a bare batch, by `plan` (bare bytes carry no schema).
    pub fn bare(reader: R, plan: &Plan, options: &crate::Options) -> Self {
        let seed = JsonSeed {
            plan: plan.clone(),
            out: Default::default(),
        };
        JsonRecords {
            inner: JsonInner::Bare(Box::new(Records::with_seed(reader, *options, Bare, seed))),
        }
    }

    /// Appends the next record's JSON to `out`; `None` after the last
    /// record (or the first error).
    pub fn next_into(&mut self, out: &mut Vec<u8>) -> Option<Result<()>> {
        // The seed writes into `out` itself: the caller's buffer is lent
        // to it for the record.
        macro_rules! lend {
            ($records:ident) => {{
                std::mem::swap(&mut *$records.seed().out.borrow_mut(), out);
                let r = $records.next();
                std::mem::swap(&mut *$records.seed().out.borrow_mut(), out);
                r
            }};
        }
        match &mut self.inner {
            JsonInner::Single(record) => record
                .take()
                .map(|r| r.map(|json| out.extend_from_slice(&json))),
            JsonInner::Framed(records) => lend!(records),
            JsonInner::Bare(records) => lend!(records),
        }
    }
}
