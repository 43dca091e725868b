//! The deserializer: Kiln's positional layout read back into serde's data
//! model (`spec/03-types.md`).
//!
//! Every byte of a bare record is read here (the fixed-size reads go
//! through [`crate::read`]). The reader is strict: a byte that is not what
//! the layout allows is an error at its offset, never a guess. Because the
//! bytes carry no names and no types, the type being read drives every
//! step, and serde features that need the input to describe itself
//! (`deserialize_any` and friends) are refused with an error that names them.

mod access;
mod arrays;
mod entry;
mod model;
mod raw;
mod resolve;

pub(crate) use entry::{Pass, RecordSeed, Typed, two_pass, with_detail};
pub(crate) use resolve::{
    Evolved, FieldStep, Payload, Resolution, Skip, SkipId, Step, StepId, VariantStep,
};

use access::*;
use model::*;

use serde::de::Visitor;

use crate::block::{self, Element};
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::read::{IoRead, Read, Reference, SliceRead, WindowRead};

/// What `deserialize_any` users should know.
const ANY_FEATURES: &str = "#[serde(untagged)] enums, internally or adjacently tagged enums \
     (#[serde(tag = ...)]), #[serde(flatten)] and self-describing types such as serde_json::Value";
/// Read into "which {features} need": a noun phrase. Kiln writes no field
/// or variant names, so nothing that reads one by name can work.
const IDENTIFIER_FEATURES: &str = "adjacently tagged enums (#[serde(tag = ..., content = ...)]), \
     #[serde(flatten)] and other readers of field names (Kiln writes no names)";
/// Read into "which {features} need": a noun phrase. A value of unknown
/// type cannot be skipped when the bytes carry neither types nor lengths.
const IGNORED_ANY_FEATURES: &str = "serde::de::IgnoredAny and the skipping of unknown fields \
     (Kiln bytes carry no types to skip by)";

/// A serde `Deserializer` that reads Kiln bytes from a [`Read`].
///
/// Most callers use [`crate::from_slice`] or [`crate::from_reader`]; this
/// type is for those who drive serde themselves, or read several records
/// one after the other:
///
/// ```
/// use serde::Deserialize;
///
/// let bytes = [1, 0, 2, 0];
/// let mut de = kiln::Deserializer::from_slice(&bytes);
/// let a = u16::deserialize(&mut de)?;
/// let b = u16::deserialize(&mut de)?;
/// de.end()?;
/// assert_eq!((a, b), (1, 2));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Detail
///
/// Every error says what was expected, at which byte, in which field of
/// which struct. Kiln's own slice entry points ([`crate::from_slice`], the
/// batch and frame readers) first read with a deserializer that keeps no
/// detail. Every failure is then one and the same error, so the compiler can check and load a struct's fields
/// together, as it would for a format without positions in its errors; and
/// should that reading fail, they read the same bytes again with detail,
/// for the error the caller gets. A `Deserialize` implementation therefore
/// runs twice on input that fails. Should the second reading succeed (an
/// implementation that is not deterministic), `from_slice` returns its
/// value, and a batch reader refuses the record with an error that says so.
///
/// A stream cannot be read twice, but the bytes it has buffered can. Every
/// element of a sequence and every entry of a map that serde's own
/// collections ask for, and every record of a batch read from a stream, is
/// first read without detail from the bytes already in [`IoRead`]'s
/// buffer, as from a slice. An element that runs past them
/// (or fails, or takes no bytes) is then read from the stream with detail,
/// from the same first byte, and the stream refills the buffer as it goes.
/// A window shorter than the last element is not tried at all, so elements
/// larger than the buffer are not read twice each. From a stream too, then,
/// a `Deserialize` runs twice on an element that fails, and once or twice
/// on one that straddles the end of the buffer.
pub type Deserializer<R> = Decoder<R, true>;

/// The deserializer with or without detail in its errors; see
/// [`Deserializer`], the one callers make (`DETAILED = true`).
#[doc(hidden)]
pub struct Decoder<R, const DETAILED: bool> {
    read: R,
    depth_left: u32,
    zero_sized_left: u64,
    /// Elements that the open sequences and maps have told serde to
    /// reserve room for. All of them together never exceed the bytes left,
    /// so nested claims cannot multiply memory.
    reserved: u64,
    options: Options,
    /// The record's array directory, once needed (`spec/08-directory.md`).
    arrays: crate::array::directory::ArrayState,
}

impl<'de> Deserializer<SliceRead<'de>> {
    /// Reads from a byte slice, with default [`Options`].
    pub fn from_slice(bytes: &'de [u8]) -> Self {
        Deserializer::new(SliceRead::new(bytes))
    }
}

impl<R: std::io::Read> Deserializer<IoRead<R>> {
    /// Reads from an `io::Read`, with default [`Options`].
    pub fn from_reader(reader: R) -> Self {
        Deserializer::new(IoRead::new(reader))
    }
}

impl<'de, R: Read<'de>> Deserializer<R> {
    /// Reads from `read` with default [`Options`].
    pub fn new(read: R) -> Self {
        Self::with_options(read, Options::default())
    }

    /// Reads from `read` with the given limits.
    pub fn with_options(read: R, options: Options) -> Self {
        Self::build(read, options)
    }
}

impl<'de, R: Read<'de>> Decoder<R, false> {
    /// A deserializer without detailed errors, for a first attempt that
    /// is repeated with detail if it fails.
    pub(crate) fn undetailed(read: R, options: Options) -> Self {
        Self::build(read, options)
    }
}

impl<'de, R: Read<'de>, const D: bool> Decoder<R, D> {
    #[inline]
    fn build(mut read: R, options: Options) -> Self {
        read.set_byte_limit(0, options.byte_limit);
        Decoder {
            read,
            depth_left: options.max_depth,
            zero_sized_left: options.zero_sized_limit,
            reserved: 0,
            options,
            arrays: Default::default(),
        }
    }

    /// Declares that the input is exactly one record, so that its end is
    /// the record's end. Records that hold [`Array`](crate::Array)s need
    /// this: their directory is at the end ([`crate::from_slice`] and
    /// [`crate::from_reader`] set it; a reader of records back to back
    /// cannot, and reading an array there fails with
    /// [`ErrorKind::RecordEndUnknown`]).
    pub fn whole_record(mut self) -> Self {
        self.set_whole_record();
        self
    }

    /// [`Deserializer::whole_record`] in place.
    #[inline(always)]
    pub(crate) fn set_whole_record(&mut self) {
        self.arrays.whole_record = true;
    }

    /// Whether the record read so far met an array (and so loaded its
    /// directory).
    pub(crate) fn read_directory(&self) -> bool {
        self.arrays.dir.is_some()
    }

    /// Checks that the whole input was read. If the record held arrays,
    /// its values must end where its directory starts, and every directory
    /// entry must have been read.
    ///
    /// # Errors
    /// [`ErrorKind::TrailingBytes`] if bytes remain;
    /// [`ErrorKind::ArrayCount`] or [`ErrorKind::DirectoryPosition`] if the
    /// values did not match the directory.
    #[inline]
    pub fn end(&mut self) -> Result<()> {
        if let Some(dir) = &self.arrays.dir {
            let at = self.read.offset();
            if self.arrays.next != dir.entries.len() {
                return Err(Error::at(
                    ErrorKind::ArrayCount {
                        entries: dir.entries.len() as u64,
                        found: self.arrays.next as u64,
                    },
                    at,
                ));
            }
            if at != dir.offset {
                return Err(Error::at(
                    ErrorKind::DirectoryPosition {
                        expected: dir.offset,
                        found: at,
                    },
                    at,
                ));
            }
            // Validated already, when the first array was read.
            let rest = (dir.end - at) as usize;
            self.read.read_bytes(rest, "array directory")?;
        }
        self.read.end()
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.read.offset()
    }

    /// The underlying reader.
    pub fn into_read(self) -> R {
        self.read
    }

    /// The underlying reader, in place (batch readers move its byte limit
    /// forward record by record).
    pub(crate) fn read_mut(&mut self) -> &mut R {
        &mut self.read
    }

    /// The underlying reader, shared (batch readers look at what is left).
    pub(crate) fn read_ref(&self) -> &R {
        &self.read
    }

    /// The limits in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// An undetailed deserializer over a stream's buffered `window`, at
    /// this one's depth and with what is left of its budgets.
    #[inline(always)]
    fn on_window<'w, Root>(&self, window: &'w [u8]) -> Decoder<WindowRead<'w, Root>, false> {
        Decoder {
            read: WindowRead::new(window),
            depth_left: self.depth_left,
            zero_sized_left: self.zero_sized_left,
            reserved: 0,
            options: self.options,
            arrays: Default::default(),
        }
    }

    /// Streams only: reads a value from the bytes already buffered, as
    /// from a slice and without detail, so that the compiler can keep the
    /// position in a register and check a struct's fields together.
    /// Returns the value and the bytes it took; `None`, having consumed
    /// nothing, if the value runs past the window, is bad, or takes no
    /// bytes, and the caller then reads it from the stream with detail.
    /// A window shorter than `at_least` (what the last value took) is not
    /// tried: values larger than the buffer are then read from the stream
    /// without a failed attempt each time.
    #[inline]
    fn read_buffered<T>(
        &mut self,
        at_least: usize,
        read: impl FnOnce(&mut Decoder<WindowRead<'_, T>, false>) -> Result<T>,
    ) -> Option<(T, usize)> {
        let window = self.read.buffered_window()?;
        if window.len() < at_least.max(1) {
            return None;
        }
        let mut quick = self.on_window(window);
        let value = read(&mut quick).ok()?;
        let used = quick.read.offset() as usize;
        if used == 0 {
            return None;
        }
        self.zero_sized_left = quick.zero_sized_left;
        self.read.consume_window(used);
        Some((value, used))
    }

    /// Reads one value; from a stream, from its buffered bytes first (see
    /// [`Deserializer::read_buffered`]). `last_len` is what the last value
    /// took, and is updated. For the readers of records back to back.
    #[inline(always)]
    pub(crate) fn deserialize_next<K: RecordSeed<'de>>(
        &mut self,
        seed: &K,
        last_len: &mut usize,
    ) -> Result<K::Value> {
        if D && let Some((value, used)) = self.read_buffered(*last_len, |de| seed.read(de)) {
            *last_len = used;
            return Ok(value);
        }
        self.deserialize_streamed(seed, last_len)
    }

    /// [`Deserializer::deserialize_next`] from the stream itself: out of
    /// line, so that the buffered reading stays small enough to inline into
    /// the caller's loop. Taken once per refill of the buffer, or for every
    /// value when values are larger than the buffer.
    #[inline(never)]
    fn deserialize_streamed<K: RecordSeed<'de>>(
        &mut self,
        seed: &K,
        last_len: &mut usize,
    ) -> Result<K::Value> {
        let start = self.read.offset();
        let value = seed.read(self)?;
        *last_len = usize::try_from(self.read.offset() - start).unwrap_or(usize::MAX);
        Ok(value)
    }

    /// Resets the per-record state (the nesting depth, the size hints) so
    /// that the next record starts afresh; used when reading records in a
    /// row. The zero-sized budget is not reset: it covers the whole input,
    /// so that the work of reading stays in proportion to its bytes
    /// however many records it holds.
    pub fn reset_budgets(&mut self) {
        self.depth_left = self.options.max_depth;
        self.reserved = 0;
    }

    /// What is left of the zero-sized budget.
    pub(crate) fn zero_sized_left(&self) -> u64 {
        self.zero_sized_left
    }

    /// Sets what is left of the zero-sized budget (a record read again
    /// with detail starts from what was left before it).
    pub(crate) fn set_zero_sized_left(&mut self, left: u64) {
        self.zero_sized_left = left;
    }

    #[inline]
    fn read_u8(&mut self, expected: &'static str) -> Result<u8> {
        self.read_fixed::<1>(expected).map(|[b]| b)
    }

    /// Reads `N` bytes; without detail, a short input is the one undetailed
    /// error.
    #[inline(always)]
    fn read_fixed<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        if D {
            self.read.read_array::<N>(expected)
        } else {
            self.read.read_array_quiet::<N>(expected)
        }
    }

    /// Reads `len` bytes, borrowed where the input allows; without detail,
    /// a short input is the one undetailed error.
    #[inline(always)]
    fn read_some<'s>(
        &'s mut self,
        len: usize,
        expected: &'static str,
    ) -> Result<Reference<'de, 's, [u8]>> {
        if D {
            self.read.read_bytes(len, expected)
        } else {
            self.read.read_bytes_quiet(len, expected)
        }
    }

    #[inline]
    fn read_u32(&mut self, expected: &'static str) -> Result<u32> {
        self.read_fixed::<4>(expected).map(u32::from_le_bytes)
    }

    /// Reads a count and checks it against what the rest of the input can
    /// hold: every element takes at least one byte, except zero-byte ones,
    /// which draw on the zero-sized budget.
    #[inline]
    pub(crate) fn read_count(&mut self) -> Result<u32> {
        let count = self.read_u32("count (u32)")?;
        if let Some(remaining) = self.read.remaining() {
            let max = remaining.saturating_add(self.zero_sized_left);
            if u64::from(count) > max {
                return Err(fail::<D>(
                    || ErrorKind::CountTooLarge {
                        count: count.into(),
                        max,
                    },
                    self.read.offset() - 4,
                ));
            }
        }
        Ok(count)
    }

    /// Charges an element (or record) that took no input bytes against the
    /// budget: `size` bytes of memory, at least 1. Counting memory, not
    /// elements, bounds what such elements can hold (a struct whose fields
    /// are all `#[serde(skip)]` takes no input and any amount of memory).
    #[inline(always)]
    pub(crate) fn charge_zero_sized(&mut self, size: usize) -> Result<()> {
        let cost = (size as u64).max(1);
        if self.zero_sized_left < cost {
            let limit = self.options.zero_sized_limit;
            return Err(fail::<D>(
                || ErrorKind::ZeroSizedLimit { limit },
                self.read.offset(),
            ));
        }
        self.zero_sized_left -= cost;
        Ok(())
    }

    /// Fails if no nesting level is left, before a container reads its
    /// tag or count, so that a depth error points at the first byte of the
    /// value that is too deep (`spec/03-types.md`, section 3.19.1).
    #[inline]
    fn check_depth(&self) -> Result<()> {
        if self.depth_left == 0 {
            return Err(self.depth_error());
        }
        Ok(())
    }

    #[inline(always)]
    fn depth_error(&self) -> Error {
        if D {
            depth_error(self.options.max_depth, self.read.offset())
        } else {
            Error::undetailed()
        }
    }

    /// Runs `f` one nesting level deeper.
    #[inline(always)]
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth_left == 0 {
            return Err(self.depth_error());
        }
        self.depth_left -= 1;
        let out = f(self);
        self.depth_left += 1;
        out
    }

    /// Reads a count-prefixed byte string.
    #[inline]
    fn read_counted_bytes<'s>(
        &'s mut self,
        expected: &'static str,
    ) -> Result<(u64, Reference<'de, 's, [u8]>)> {
        let len = self.read_u32("count (u32)")? as usize;
        let start = self.read.offset();
        Ok((start, self.read_some(len, expected)?))
    }

    /// The single-copy path: when `V` is serde's own visitor for `Vec<T>` of
    /// a block element type or of a record layout, reads the vector at once
    /// (see [`crate::block`]); from a stream, the records that arrive
    /// ([`Decoder::read_records_streamed`]). `Err(visitor)`, the visitor
    /// handed back, having read nothing, for every other visitor.
    #[inline]
    fn try_block<V: Visitor<'de>>(&mut self, visitor: V) -> Result<Result<V::Value, V>> {
        macro_rules! each {
            ($($t:ident $variant:ident $code:literal,)*) => {$(
                if block::is_vec_visitor::<V, $t>() {
                    let vec = self.read_block::<$t>()?;
                    return Ok(block::cast_vec(vec).ok_or(visitor));
                }
            )*};
        }
        crate::dtype::with_dtypes!(each);
        let Some(layout) = block::pod::for_visitor::<V>() else {
            return Ok(Err(visitor));
        };
        match self.read_records::<V::Value>(layout)? {
            Some(vec) => Ok(Ok(vec)),
            None if self.read.remaining().is_none() => {
                self.read_records_streamed(layout, visitor).map(Ok)
            }
            None => Ok(Err(visitor)),
        }
    }

    /// Reads a sequence of records of a [`block::pod`] layout in one copy,
    /// if the element path could not fail on it: the count and all the
    /// records are in the input at hand (a slice, or a stream's buffer),
    /// and the depth limit leaves room for a record's nesting. `Ok(None)`,
    /// having read nothing, otherwise: the element path then reads it and
    /// reports what it always reports. (Reading a stream's records in steps
    /// into one buffer was tried: it cost more passes over memory than the
    /// element path from the stream's buffer, a million `Point`s read in
    /// 5.1 ms against 3.4 ms.)
    fn read_records<Out>(&mut self, layout: &block::pod::Layout) -> Result<Option<Out>> {
        let Some(window) = self.read.peek() else {
            return Ok(None);
        };
        let Some(count) = window.get(..4) else {
            return Ok(None);
        };
        let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]);
        let Some(len) = (count as usize).checked_mul(layout.size) else {
            return Ok(None);
        };
        if count > 0 && self.depth_left <= layout.depth {
            return Ok(None);
        }
        if let Some(bytes) = window.get(4..).and_then(|w| w.get(..len)) {
            let value = block::pod::build::<Out>(layout, bytes);
            if value.is_some() {
                self.read.skip_peeked(4 + len);
            }
            return Ok(value);
        }
        Ok(None)
    }

    /// Reads a sequence of records of a layout from a stream whose buffer
    /// does not hold it: the whole records that arrive, in one copy each
    /// (straight from the stream for the most part), in steps that grow
    /// with what has arrived. Where the stream ends inside the sequence, or
    /// the byte limit falls inside it, the records from there on go through
    /// the element path (the bytes of a record the stream ended inside are
    /// put back first), which then fails exactly as it always does, at the
    /// same byte and index; so does a sequence the layout cannot take (the
    /// depth limit too close).
    fn read_records_streamed<V: Visitor<'de>>(
        &mut self,
        layout: &block::pod::Layout,
        visitor: V,
    ) -> Result<V::Value> {
        let count = self.read_count()?;
        if count == 0 || self.depth_left <= layout.depth {
            return self.visit_counted(count, visitor);
        }
        let within_limit = self.read.bytes_allowed() / layout.size as u64;
        let wanted = u64::from(count).min(within_limit) as usize;
        let read = &mut self.read;
        let Some((mut vec, streamed)) =
            block::pod::read_streamed::<V::Value>(layout, wanted, &mut |dst| read.read_up_to(dst))?
        else {
            return self.visit_counted(count, visitor);
        };
        if streamed.records == count as usize {
            return Ok(vec);
        }
        if !streamed.partial.is_empty() {
            self.read.unread(&streamed.partial);
        }
        let rest = self.visit_counted_from(count, streamed.records as u32, visitor)?;
        block::pod::append(layout, &mut vec, rest);
        Ok(vec)
    }

    /// Reads a block of `T`: the count, checked against the input for
    /// elements of `T::SIZE` bytes, then the elements in one copy.
    fn read_block<T: Element>(&mut self) -> Result<Vec<T>> {
        let count_offset = self.read.offset();
        let count = self.read_u32("count (u32)")?;
        let zero_sized_left = self.zero_sized_left;
        self.nested(|de| {
            block::read_elements::<T, R>(&mut de.read, count, count_offset, Some(zero_sized_left))
        })
    }

    /// Reads a sequence of `count` elements, checking the visitor takes all.
    fn visit_counted<V: Visitor<'de>>(&mut self, count: u32, visitor: V) -> Result<V::Value> {
        self.visit_counted_from(count, 0, visitor)
    }

    /// Reads elements `first..count` of a sequence of `count`, checking the
    /// visitor takes all; errors name their element by its index in the
    /// whole sequence.
    fn visit_counted_from<V: Visitor<'de>>(
        &mut self,
        count: u32,
        first: u32,
        visitor: V,
    ) -> Result<V::Value> {
        self.nested(|de| {
            let mut access = CountedAccess::new(de, count - first).numbered_from(first);
            let value = visitor.visit_seq(&mut access);
            access.release();
            let value = value?;
            access.finish(count)?;
            Ok(value)
        })
    }

    /// Reads a tuple, tuple struct or struct: `len` values, no count.
    #[inline(always)]
    fn visit_fixed<V: Visitor<'de>>(
        &mut self,
        len: usize,
        fields: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value> {
        self.nested(|de| {
            // The access goes to the visitor by value, so that serde's
            // derived code calls `FixedAccess::next_element` directly and
            // the compiler can inline each field; it reports how many values
            // were taken through `taken` when the visitor drops it.
            let mut taken = 0;
            let access = FixedAccess {
                de: &mut *de,
                len,
                index: 0,
                fields,
                taken: &mut taken,
            };
            let value = visitor.visit_seq(access)?;
            // A struct's `fields` lists its aliases too (serde_derive
            // passes every name a field answers to), so its visitor takes
            // fewer values than the list is long; the bytes hold what the
            // visitor took. Tuples must take exactly their length.
            if taken != len && fields.is_none() {
                return Err(fail::<D>(
                    || ErrorKind::LengthMismatch {
                        declared: len as u64,
                        actual: taken as u64,
                    },
                    de.read.offset(),
                ));
            }
            Ok(value)
        })
    }
}
