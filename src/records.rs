//! The readers of records back to back (`spec/07-batch.md`): one record
//! at a time with a fresh depth, over a slice ([`SliceRecords`]) or a
//! stream ([`StreamRecords`]), for bare batches and framed ones alike.
//!
//! What ends the records is the caller's: a bare batch ends with its bytes;
//! a frame declares a count, a length, a trailer ([`StreamEnd`], whose
//! frame rules live in `crate::frame`). Reading a record is written once
//! ([`read_record`]), and so is the way back to detail after a failure
//! ([`crate::de::with_detail`]).

use std::io;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::de::{Decoder, Deserializer, Pass, RecordSeed, Typed, with_detail};
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::read::{IoRead, Read, SliceRead};

/// Reads one record, with a fresh nesting depth (the zero-sized budget is
/// the whole input's); errors carry the record index and offsets from the
/// start of the whole input (`base` is where the reader's byte 0 sits in
/// it). Readers of streams pass `last_len`, what the last record took, and
/// the record is first tried on the bytes already buffered (see
/// [`Deserializer::deserialize_next`]).
#[inline(always)]
pub(crate) fn read_record<'de, R: Read<'de>, K: RecordSeed<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    seed: &K,
    index: u64,
    base: u64,
    last_len: Option<&mut usize>,
) -> Result<K::Value> {
    de.reset_budgets();
    let start = de.offset();
    let limit = de.options().byte_limit;
    de.read_mut().set_byte_limit(start, limit);
    let value = match last_len {
        Some(last_len) => de.deserialize_next(seed, last_len),
        None => seed.read(de),
    };
    match value {
        Ok(value) => {
            if de.offset() == start {
                // A record of no bytes: without the budget a huge count
                // would loop.
                de.charge_zero_sized(seed.memory_size())
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

/// Reads the records of a batch held in a byte slice; see
/// [`batch::from_slice`](crate::batch::from_slice).
///
/// `K` says how a record is read: by `T`'s own `Deserialize`, or by a
/// schema known at run time ([`crate::value`]).
pub struct SliceRecords<'de, T, K = Typed<T>> {
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
    seed: K,
    marker: PhantomData<fn() -> T>,
}

impl<'de, T: Deserialize<'de>> SliceRecords<'de, T> {
    pub(crate) fn new(
        bytes: &'de [u8],
        options: Options,
        base: u64,
        count: Option<u64>,
        declared_len: Option<u64>,
    ) -> Self {
        SliceRecords::with_seed(bytes, options, base, count, declared_len, Typed::new())
    }
}

impl<'de, T, K: RecordSeed<'de, Value = T>> SliceRecords<'de, T, K> {
    pub(crate) fn with_seed(
        bytes: &'de [u8],
        options: Options,
        base: u64,
        count: Option<u64>,
        declared_len: Option<u64>,
        seed: K,
    ) -> Self {
        SliceRecords {
            de: Decoder::undetailed(SliceRead::new(bytes), options),
            index: 0,
            base,
            count_left: count,
            declared_len,
            done: false,
            seed,
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
        let (index, error) = end_of_records(
            self.seed.clone(),
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
fn record_error<'de, K: RecordSeed<'de>>(
    seed: K,
    rest: &'de [u8],
    len: usize,
    options: Options,
    index: u64,
    base: u64,
    zero_sized_left: u64,
) -> Error {
    let record = OneRecord {
        seed: &seed,
        index,
        base,
        zero_sized_left,
    };
    match with_detail(rest, len, &options, &record) {
        Err(e) => e,
        Ok(_) => Error::at(
            ErrorKind::Custom(
                "the record failed to decode, then decoded when read again: \
                 its Deserialize implementation is not deterministic"
                    .into(),
            ),
            base.saturating_add((len - rest.len()) as u64),
        )
        .in_record(index),
    }
}

/// One record of a batch, for [`with_detail`]: it starts where the
/// reader stands, with `zero_sized_left` of the input's budget.
struct OneRecord<'k, K> {
    seed: &'k K,
    index: u64,
    base: u64,
    zero_sized_left: u64,
}

impl<'de, K: RecordSeed<'de>> Pass<'de> for OneRecord<'_, K> {
    type Value = K::Value;
    type Output = K::Value;

    fn start<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) {
        de.set_zero_sized_left(self.zero_sized_left);
    }

    fn read<const D: bool>(&self, de: &mut Decoder<SliceRead<'de>, D>) -> Result<K::Value> {
        read_record(de, self.seed, self.index, self.base, None)
    }

    fn output<const D: bool>(value: K::Value, _: &Decoder<SliceRead<'de>, D>) -> K::Value {
        value
    }
}

/// What the end of a slice batch means: nothing, for a bare batch, or a
/// frame's declared count or length that the records did not meet.
/// `consumed` is how far the reader got, `rest` what it left; returns the
/// record count at the end (a streamed frame's extra records are counted).
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
fn end_of_records<'de, K: RecordSeed<'de>>(
    seed: K,
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
                if let Err(e) = read_record(&mut de, &seed, index, offset, None) {
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

impl<'de, T, K: RecordSeed<'de, Value = T>> Iterator for SliceRecords<'de, T, K> {
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
        match read_record(&mut self.de, &self.seed, self.index, self.base, None) {
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
                let e = record_error(
                    self.seed.clone(),
                    rest,
                    len,
                    options,
                    self.index,
                    self.base,
                    zero_sized_left,
                );
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

impl<T, K> std::fmt::Debug for SliceRecords<'_, T, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SliceRecords")
            .field("index", &self.index)
            .field("records_left", &self.count_left)
            .field("bytes_left", &self.de.read_ref().rest().len())
            .field("done", &self.done)
            .finish()
    }
}

/// What ends records read from a stream, and what must hold there. A bare
/// batch ([`Bare`]) ends with its bytes; a frame declares its count and
/// length in its header or its trailer.
pub(crate) trait StreamEnd<S> {
    /// Where the stream's byte 0 sits in the whole input.
    fn base(&self) -> u64;
    /// How many records the input declares, if that is known by now
    /// (`at_eof`: no payload byte is left).
    fn declared(&mut self, src: &mut S, at_eof: bool) -> Option<u64>;
    /// Whether records of no bytes may still be read once no byte is left.
    fn reads_empty_records(&self, src: &S) -> bool;
    /// The records are over, `index` of them read, the stream at `offset`
    /// of the whole input with `consumed` of its own bytes read and
    /// `at_eof` whether any is left: what is wrong, if anything.
    fn finish(
        &mut self,
        src: &mut S,
        index: u64,
        offset: u64,
        consumed: u64,
        at_eof: bool,
    ) -> Result<()>;
    /// A record failed with `e`: the error to report, which what ends the
    /// records may explain better (a stream cut short).
    fn explain(&mut self, src: &mut S, e: Error) -> Error;
}

/// A bare batch: the records end where the bytes end, at a record's
/// boundary, and nothing is declared.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bare;

impl<S> StreamEnd<S> for Bare {
    #[inline(always)]
    fn base(&self) -> u64 {
        0
    }
    #[inline(always)]
    fn declared(&mut self, _: &mut S, _: bool) -> Option<u64> {
        None
    }
    #[inline(always)]
    fn reads_empty_records(&self, _: &S) -> bool {
        false
    }
    #[inline(always)]
    fn finish(&mut self, _: &mut S, _: u64, _: u64, _: u64, _: bool) -> Result<()> {
        Ok(())
    }
    #[inline(always)]
    fn explain(&mut self, _: &mut S, e: Error) -> Error {
        e
    }
}

/// Reads records from an [`io::Read`] `S`, through the deserializer's
/// buffer, until `E` says they are over: [`ReaderRecords`] for a bare
/// batch, [`FramedReaderRecords`](crate::frame::FramedReaderRecords) for
/// a framed one.
pub(crate) struct StreamRecords<S, T, E, K = Typed<T>> {
    de: Deserializer<IoRead<S>>,
    end: E,
    seed: K,
    index: u64,
    /// Bytes the last record took.
    last_len: usize,
    done: bool,
    marker: PhantomData<fn() -> T>,
}

/// Reads the records of a bare batch from an [`io::Read`]; see
/// [`batch::from_reader`](crate::batch::from_reader).
pub struct ReaderRecords<R, T>(pub(crate) StreamRecords<R, T, Bare>);

impl<R: io::Read, T> ReaderRecords<R, T> {
    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.0.index()
    }
}

impl<R: io::Read, T: DeserializeOwned> Iterator for ReaderRecords<R, T> {
    type Item = Result<T>;

    #[inline]
    fn next(&mut self) -> Option<Result<T>> {
        self.0.next()
    }
}

impl<R, T> std::fmt::Debug for ReaderRecords<R, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt_as("ReaderRecords", f)
    }
}

impl<S, T, E, K> StreamRecords<S, T, E, K> {
    /// The `Debug` of the public type `name` that wraps this reader.
    pub(crate) fn fmt_as(&self, name: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(name)
            .field("index", &self.index)
            .field("done", &self.done)
            .finish()
    }
}

impl<S: io::Read, T, E> StreamRecords<S, T, E> {
    pub(crate) fn new(source: S, options: Options, end: E) -> Self {
        StreamRecords::with_seed(source, options, end, Typed::new())
    }
}

impl<S: io::Read, T, E, K> StreamRecords<S, T, E, K> {
    pub(crate) fn with_seed(source: S, options: Options, end: E, seed: K) -> Self {
        StreamRecords {
            de: Deserializer::with_options(IoRead::new(source), options),
            end,
            seed,
            index: 0,
            last_len: 0,
            done: false,
            marker: PhantomData,
        }
    }

    /// Records read so far.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// How the records are read.
    pub(crate) fn seed(&self) -> &K {
        &self.seed
    }

    /// What ends the records (a frame's header, for a framed batch).
    pub(crate) fn end(&self) -> &E {
        &self.end
    }
}

impl<S: io::Read, T, E: StreamEnd<S>, K: for<'de> RecordSeed<'de, Value = T>>
    StreamRecords<S, T, E, K>
{
    /// The records are over: what `E` finds wrong there, if anything.
    #[cold]
    #[inline(never)]
    fn finish(&mut self, at_eof: bool) -> Option<Result<T>> {
        self.done = true;
        let consumed = self.de.offset();
        let offset = self.end.base().saturating_add(consumed);
        let src = self.de.read_mut().get_mut();
        self.end
            .finish(src, self.index, offset, consumed, at_eof)
            .err()
            .map(Err)
    }

    /// Reads the next record, counting it, or explains its error. Always
    /// inlined into `next`: a record returned from a call comes back
    /// through memory.
    #[inline(always)]
    fn record(&mut self) -> Option<Result<T>> {
        let base = self.end.base();
        match read_record(
            &mut self.de,
            &self.seed,
            self.index,
            base,
            Some(&mut self.last_len),
        ) {
            Ok(value) => {
                self.index += 1;
                Some(Ok(value))
            }
            Err(e) => {
                self.done = true;
                Some(Err(self.end.explain(self.de.read_mut().get_mut(), e)))
            }
        }
    }
}

impl<S: io::Read, T, E: StreamEnd<S>, K: for<'de> RecordSeed<'de, Value = T>> Iterator
    for StreamRecords<S, T, E, K>
{
    type Item = Result<T>;

    #[inline]
    fn next(&mut self) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        let at_eof = match self.de.read_mut().at_eof() {
            Ok(v) => v,
            Err(e) => {
                self.done = true;
                return Some(Err(e.shifted(self.end.base()).in_record(self.index)));
            }
        };
        let declared = self.end.declared(self.de.read_mut().get_mut(), at_eof);
        if declared == Some(self.index) {
            return self.finish(at_eof);
        }
        if at_eof {
            // Only records of no bytes (`()`, unit structs) can follow.
            let more = declared.is_some_and(|d| d > self.index);
            if more && self.end.reads_empty_records(self.de.read_mut().get_mut()) {
                match self.record() {
                    Some(Err(e)) if no_record_there(&e, at_eof) => {}
                    record => return record,
                }
            }
            return self.finish(at_eof);
        }
        self.record()
    }
}
