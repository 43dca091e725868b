//! Records read without the Rust type straight into another program's
//! objects ([`Build`]): the walk of [`super::from_slice`], with its checks,
//! limits and error offsets, handing each value to the caller instead of
//! building a [`Value`] tree. The Python package builds its dicts and
//! lists this way.

use std::cell::RefCell;
use std::sync::Arc;

use super::decode::{self, Num, Open, Sink};
use super::{Plan, Value};
use crate::de::{Decoder, RecordSeed};
use crate::error::Result;
use crate::frame::{FrameHeader, FrameOptions};
use crate::read::{Read, Reference, SliceRead};
use crate::records::SliceRecords;

/// A compound value that opens, for [`Build::open`].
#[derive(Clone, Copy, Debug)]
pub enum Compound<'p> {
    /// A `seq` read element by element.
    Seq,
    /// A tuple, `[T; N]`, tuple struct or tuple variant's payload.
    Tuple,
    /// A map: its parts are key, value, key, value, ...
    Map,
    /// A struct (or struct variant's payload): its name and its fields'.
    Struct {
        /// The struct's name.
        name: &'p str,
        /// The field names, in the order the fields are read.
        fields: &'p [Arc<str>],
    },
}

/// What a typeless read makes of the values it reads, in the order of the
/// schema: leaves, and compound values opened, filled part by part and
/// closed. Each call returns the caller's object; a builder that can fail
/// keeps its first error and returns placeholders.
pub trait Build<'de> {
    /// What a value becomes.
    type Out;
    /// A compound value being filled.
    type Acc;
    /// `unit`, a bool, number, char, bytes, a block, a table of
    /// fixed-size records, or a shaped array (borrowed from the input
    /// where the reader can).
    fn leaf(&mut self, v: Value<'de>) -> Self::Out;
    /// A string.
    fn str(&mut self, s: &str) -> Self::Out;
    /// An option's none.
    fn none(&mut self) -> Self::Out;
    /// An option's some, once its value is read.
    fn some(&mut self, v: Self::Out) -> Self::Out;
    /// A compound value of `len` parts (a map: keys and values) opens.
    fn open(&mut self, c: Compound<'_>, len: usize) -> Self::Acc;
    /// Part `i` is about to be read.
    fn before(&mut self, acc: &mut Self::Acc, i: usize);
    /// The part just read.
    fn push(&mut self, acc: &mut Self::Acc, v: Self::Out);
    /// The compound value is complete.
    fn close(&mut self, acc: Self::Acc) -> Self::Out;
    /// Variant `index` is about to read its payload (not called for unit
    /// variants).
    fn variant_open(&mut self, index: u32);
    /// Variant `index` called `name`, with its payload once read.
    fn variant(&mut self, index: u32, name: &str, payload: Option<Self::Out>) -> Self::Out;
}

/// The walk's sink that forwards to a [`Build`].
struct Via<'b, B>(&'b mut B);

impl<'de, B: Build<'de>> Sink<'de> for Via<'_, B> {
    type V = B::Out;
    type Acc = B::Acc;

    #[inline]
    fn leaf(&mut self, _: &Plan, v: Value<'de>) -> B::Out {
        self.0.leaf(v)
    }

    #[inline]
    fn num(&mut self, n: Num) -> B::Out {
        self.0.leaf(n.value())
    }

    #[inline]
    fn str(&mut self, s: Reference<'de, '_, str>) -> B::Out {
        match s {
            Reference::Borrowed(s) => self.0.str(s),
            Reference::Copied(s) => self.0.str(s),
        }
    }

    fn none(&mut self) -> B::Out {
        self.0.none()
    }

    fn some(&mut self, v: B::Out) -> B::Out {
        self.0.some(v)
    }

    fn open(&mut self, open: Open<'_>, len: usize) -> B::Acc {
        let c = match open {
            Open::Seq => Compound::Seq,
            Open::Tuple => Compound::Tuple,
            Open::Map { .. } => Compound::Map,
            Open::Struct(names) => Compound::Struct {
                name: &names.container,
                fields: &names.fields,
            },
        };
        self.0.open(c, len)
    }

    #[inline]
    fn before(&mut self, acc: &mut B::Acc, _: Open<'_>, i: usize) {
        self.0.before(acc, i);
    }

    #[inline]
    fn push(&mut self, acc: &mut B::Acc, _: usize, v: B::Out) {
        self.0.push(acc, v);
    }

    fn close(&mut self, acc: B::Acc) -> B::Out {
        self.0.close(acc)
    }

    fn variant_open(&mut self, _: &Arc<str>, index: u32) {
        self.0.variant_open(index);
    }

    fn variant(&mut self, name: &Arc<str>, index: u32, payload: Option<B::Out>) -> B::Out {
        self.0.variant(index, name, payload)
    }
}

/// Reads the bare record that fills `bytes` exactly, as
/// [`from_slice`](super::from_slice) does, handing its values to `b`.
///
/// ```
/// use kiln::value::{Build, Compound, Plan, Value};
///
/// /// Counts the leaves and strings of a record.
/// struct Count;
/// impl<'de> Build<'de> for Count {
///     type Out = usize;
///     type Acc = usize;
///     fn leaf(&mut self, _: Value<'de>) -> usize { 1 }
///     fn str(&mut self, _: &str) -> usize { 1 }
///     fn none(&mut self) -> usize { 0 }
///     fn some(&mut self, n: usize) -> usize { n }
///     fn open(&mut self, _: Compound<'_>, _: usize) -> usize { 0 }
///     fn before(&mut self, _: &mut usize, _: usize) {}
///     fn push(&mut self, acc: &mut usize, n: usize) { *acc += n }
///     fn close(&mut self, acc: usize) -> usize { acc }
///     fn variant_open(&mut self, _: u32) {}
///     fn variant(&mut self, _: u32, _: &str, p: Option<usize>) -> usize { p.unwrap_or(0) }
/// }
///
/// let plan = Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
/// assert_eq!(kiln::value::build_slice(&[9, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff], &plan, &mut Count)?, 2);
/// let err = kiln::value::build_slice(&[9, 0, 0], &plan, &mut Count).unwrap_err();
/// assert_eq!((err.kind().code(), err.path().as_deref()), ("unexpected-end", Some("Point.x")));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`from_slice`](super::from_slice).
pub fn build_slice<'de, B: Build<'de>>(bytes: &'de [u8], plan: &Plan, b: &mut B) -> Result<B::Out> {
    let mut de = crate::Deserializer::new(SliceRead::new(bytes)).whole_record();
    let out = decode::walk(&mut de, plan, plan.root(), &mut Via(b))?;
    de.end()?;
    Ok(out)
}

/// Records read into a [`Build`], for the readers of records back to back.
struct BuildSeed<'b, B> {
    plan: Plan,
    b: &'b RefCell<B>,
}

impl<B> Clone for BuildSeed<'_, B> {
    fn clone(&self) -> Self {
        BuildSeed {
            plan: self.plan.clone(),
            b: self.b,
        }
    }
}

impl<'de, B: Build<'de>> RecordSeed<'de> for BuildSeed<'_, B> {
    type Value = B::Out;

    fn read<R: Read<'de>, const D: bool>(&self, de: &mut Decoder<R, D>) -> Result<B::Out> {
        let mut b = self.b.borrow_mut();
        decode::walk(de, &self.plan, self.plan.root(), &mut Via(&mut *b))
    }

    fn memory_size(&self) -> usize {
        1
    }
}

/// Reads the records of the batch frame in `frame` (exactly one frame,
/// records back to back: not one with arrays) into `b`, as
/// [`frame_records`](super::frame_records) reads them into values: the
/// header, schema and payload checks first (checksum included), then the
/// records one by one, each error at its offset in the frame. Returns
/// `None` for a frame whose records hold shaped arrays (read those with
/// [`frame_records`](super::frame_records) or [`crate::file`]).
///
/// # Errors
/// As [`frame_records`](super::frame_records), before any record; the
/// items fail as its records do.
pub fn build_frame<'de, 'b, B: Build<'de>>(
    frame: &'de [u8],
    plan: &Plan,
    b: &'b RefCell<B>,
) -> Result<Option<impl Iterator<Item = Result<B::Out>> + use<'de, 'b, B>>>
where
    'de: 'b,
{
    let options = FrameOptions::new();
    let decode_options = options.decode_options();
    let header = FrameHeader::parse_with(frame, decode_options.schema_text_limit)?;
    if header.is_indexed() || header.has_directory() {
        return Ok(None);
    }
    header.check_schema(plan.canonical())?;
    let payload = header.payload(frame)?;
    Ok(Some(SliceRecords::with_seed(
        payload.bytes,
        decode_options,
        payload.offset,
        Some(payload.record_count),
        (!header.is_streamed()).then_some(payload.bytes.len() as u64),
        BuildSeed {
            plan: plan.clone(),
            b,
        },
    )))
}
