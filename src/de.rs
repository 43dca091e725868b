//! The deserializer: Kiln's positional layout read back into serde's data
//! model.
//!
//! Every byte of a bare record is read here (the fixed-size reads go
//! through [`crate::read`]). The reader is strict: a byte that is not what
//! the layout allows is an error at its offset, never a guess. Because the
//! bytes carry no names and no types, the type being read drives every
//! step, and serde features that need the input to describe itself
//! (`deserialize_any` and friends) are refused with an error that names them.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

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
/// `DETAILED` is `true` for every deserializer a caller makes: each error
/// says what was expected, at which byte, in which field of which struct.
/// Kiln's own slice entry points ([`crate::from_slice`], the batch and frame
/// readers) first read with `DETAILED = false`. Every failure is then one
/// and the same error, so the compiler can check and load a struct's fields
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
pub struct Deserializer<R, const DETAILED: bool = true> {
    read: R,
    depth_left: u32,
    zero_sized_left: u64,
    /// Elements that open sequences and maps have told serde to reserve
    /// room for and that have not arrived yet. All of them together never
    /// exceed the bytes left, so nested claims cannot multiply memory.
    reserved: u64,
    options: Options,
    /// The record's array directory, once needed (`spec/08-directory.md`).
    arrays: crate::directory::ArrayState,
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

impl<'de, R: Read<'de>> Deserializer<R, false> {
    /// A deserializer without detailed errors, for a first attempt that
    /// is repeated with detail if it fails.
    pub(crate) fn undetailed(read: R, options: Options) -> Self {
        Self::build(read, options)
    }
}

impl<'de, R: Read<'de>, const D: bool> Deserializer<R, D> {
    #[inline]
    fn build(mut read: R, options: Options) -> Self {
        read.set_byte_limit(0, options.byte_limit);
        Deserializer {
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
        self.arrays.whole_record = true;
        self
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
    fn on_window<'w>(&self, window: &'w [u8]) -> Deserializer<WindowRead<'w>, false> {
        Deserializer {
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
        read: impl FnOnce(&mut Deserializer<WindowRead<'_>, false>) -> Result<T>,
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
    pub(crate) fn deserialize_next<T: de::Deserialize<'de>>(
        &mut self,
        last_len: &mut usize,
    ) -> Result<T> {
        if D && let Some((value, used)) = self.read_buffered(*last_len, |de| T::deserialize(de)) {
            *last_len = used;
            return Ok(value);
        }
        self.deserialize_streamed(last_len)
    }

    /// [`Deserializer::deserialize_next`] from the stream itself: out of
    /// line, so that the buffered reading stays small enough to inline into
    /// the caller's loop. Taken once per refill of the buffer, or for every
    /// value when values are larger than the buffer.
    #[inline(never)]
    fn deserialize_streamed<T: de::Deserialize<'de>>(&mut self, last_len: &mut usize) -> Result<T> {
        let start = self.read.offset();
        let value = T::deserialize(&mut *self)?;
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
    /// a block element type, reads the vector at once (see [`crate::block`]).
    /// `None` (having read nothing) for every other visitor.
    #[inline]
    fn try_block<V: Visitor<'de>>(&mut self) -> Result<Option<V::Value>> {
        macro_rules! each {
            ($($t:ty)*) => {$(
                if block::is_vec_visitor::<V, $t>() {
                    let vec = self.read_block::<$t>()?;
                    return Ok(block::cast_vec(vec));
                }
            )*};
        }
        each!(u8 i8 u16 i16 u32 i32 u64 i64 u128 i128 f32 f64);
        Ok(None)
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
        self.nested(|de| {
            let mut access = CountedAccess::new(de, count);
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

macro_rules! read_number {
    ($($method:ident => $visit:ident($ty:ty),)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            const N: usize = std::mem::size_of::<$ty>();
            let v = <$ty>::from_le_bytes(self.read_fixed::<N>(stringify!($ty))?);
            let offset = self.read.offset() - N as u64;
            visitor.$visit(v).map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset)))
        }
    )*};
}

impl<'de, R: Read<'de>, const D: bool> de::Deserializer<'de> for &mut Deserializer<R, D> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::at(
            ErrorKind::Unsupported {
                method: "deserialize_any",
                features: ANY_FEATURES,
            },
            self.read.offset(),
        ))
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let offset = self.read.offset();
        let v = match self.read_u8("bool")? {
            0 => false,
            1 => true,
            b => return Err(fail::<D>(|| ErrorKind::InvalidBool(b), offset)),
        };
        visitor
            .visit_bool(v)
            .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset)))
    }

    read_number! {
        deserialize_i8 => visit_i8(i8),
        deserialize_i16 => visit_i16(i16),
        deserialize_i32 => visit_i32(i32),
        deserialize_i64 => visit_i64(i64),
        deserialize_i128 => visit_i128(i128),
        deserialize_u8 => visit_u8(u8),
        deserialize_u16 => visit_u16(u16),
        deserialize_u32 => visit_u32(u32),
        deserialize_u64 => visit_u64(u64),
        deserialize_u128 => visit_u128(u128),
        deserialize_f32 => visit_f32(f32),
        deserialize_f64 => visit_f64(f64),
    }

    #[inline]
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let offset = self.read.offset();
        let v = self.read_u32("char (u32)")?;
        match char::from_u32(v) {
            Some(c) => visitor
                .visit_char(c)
                .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset))),
            None => Err(fail::<D>(|| ErrorKind::InvalidChar(v), offset)),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (start, bytes) = self.read_counted_bytes("string bytes")?;
        match bytes {
            Reference::Borrowed(b) => visitor.visit_borrowed_str(utf8::<D>(b, start)?),
            Reference::Copied(b) => visitor.visit_str(utf8::<D>(b, start)?),
        }
        .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(start)))
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (start, bytes) = self.read_counted_bytes("byte string bytes")?;
        match bytes {
            Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
            Reference::Copied(b) => visitor.visit_bytes(b),
        }
        .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(start)))
    }

    #[inline]
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.read.remaining().is_none() {
            // A stream: build the owned bytes in one copy out of the reader's
            // buffer, in bounded steps, and hand them over.
            let count_offset = self.read.offset();
            let count = self.read_u32("count (u32)")?;
            let bytes = block::read_elements::<u8, R>(&mut self.read, count, count_offset, None)?;
            return visitor
                .visit_byte_buf(bytes)
                .map_err(|e: Error| e.or_offset(count_offset + 4));
        }
        self.deserialize_bytes(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.check_depth()?;
        let offset = self.read.offset();
        match self.read_u8("option tag")? {
            0 => visitor
                .visit_none()
                .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset))),
            1 => self.nested(|de| visitor.visit_some(de)),
            b => Err(fail::<D>(|| ErrorKind::InvalidOptionTag(b), offset)),
        }
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let offset = self.read.offset();
        visitor
            .visit_unit()
            .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset)))
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if let Some(request) = crate::array::request(name) {
            return self.read_array(request, visitor);
        }
        self.nested(|de| visitor.visit_newtype_struct(de))
            .map_err(|e| detail::<D>(e, |e| in_container(e, name)))
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.check_depth()?;
        if let Some(vec) = self.try_block::<V>()? {
            return Ok(vec);
        }
        let count = self.read_count()?;
        self.visit_counted(count, visitor)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.visit_fixed(len, None, visitor)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.visit_fixed(len, None, visitor)
            .map_err(|e| detail::<D>(e, |e| in_container(e, name)))
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.check_depth()?;
        let count = self.read_count()?;
        self.nested(|de| {
            let mut access = CountedAccess::new(de, count);
            let value = visitor.visit_map(&mut access);
            access.release();
            let value = value?;
            access.finish(count)?;
            Ok(value)
        })
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.visit_fixed(fields.len(), Some(fields), visitor)
            .map_err(|e| detail::<D>(e, |e| in_container(e, name)))
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.nested(|de| visitor.visit_enum(EnumAccess { de, name, variants }))
            .map_err(|e| detail::<D>(e, |e| in_container(e, name)))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::at(
            ErrorKind::Unsupported {
                method: "deserialize_identifier",
                features: IDENTIFIER_FEATURES,
            },
            self.read.offset(),
        ))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::at(
            ErrorKind::Unsupported {
                method: "deserialize_ignored_any",
                features: IGNORED_ANY_FEATURES,
            },
            self.read.offset(),
        ))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// Checks string bytes that begin at `start`; the error points at the
/// first byte that is not valid UTF-8.
#[inline]
fn utf8<const D: bool>(bytes: &[u8], start: u64) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        fail::<D>(
            || ErrorKind::InvalidUtf8 {
                valid_up_to: e.valid_up_to(),
            },
            start + e.valid_up_to() as u64,
        )
    })
}

// The error constructors and decorations below are out of line and cold,
// and take scalars only, on purpose. A cold call that took the deserializer
// by reference would make the compiler keep its position in memory, in every
// loop that reads; inline, the decorations made every field's success path
// too big for the compiler to inline, and a struct of three floats cost a
// call per field (see benches/compare.rs, the mesh dataset).

/// An error of `kind` at `offset`, in a deserializer with detailed
/// errors. Without detail, every failure is the same undetailed error, so
/// that all of a record's failure paths are one path: the compiler can then
/// check a struct's fields against the input together, and load them
/// together (see `Deserializer`'s documentation on detail).
#[inline(always)]
fn fail<const D: bool>(kind: impl FnOnce() -> ErrorKind, offset: u64) -> Error {
    if D {
        Error::at(kind(), offset)
    } else {
        Error::undetailed()
    }
}

/// `e` with what `decorate` adds (a field, an index, an offset), in a
/// deserializer with detailed errors; `e` as it is otherwise.
#[inline(always)]
fn detail<const D: bool>(e: Error, decorate: impl FnOnce(Error) -> Error) -> Error {
    if D { decorate(e) } else { e }
}

/// A sequence, map or struct held a different number of values than its
/// count or type says.
#[cold]
#[inline(never)]
fn length_mismatch(declared: u64, actual: u64, offset: u64) -> Error {
    Error::at(ErrorKind::LengthMismatch { declared, actual }, offset)
}

/// The nesting limit is reached.
#[cold]
#[inline(never)]
fn depth_error(limit: u32, offset: u64) -> Error {
    Error::at(ErrorKind::DepthLimit { limit }, offset)
}

/// Names the container an error passed through.
#[cold]
#[inline(never)]
fn in_container(e: Error, name: &'static str) -> Error {
    e.in_container(name)
}

/// Names the enum variant an error passed through.
#[cold]
#[inline(never)]
fn in_variant(e: Error, variant: &'static str) -> Error {
    e.in_variant(variant)
}

/// Places an error in element `index` of a sequence that began at `start`.
#[cold]
#[inline(never)]
fn element_error(e: Error, start: u64, index: u64) -> Error {
    e.or_offset(start).in_index(index)
}

/// Places an error in entry `index` of a map.
#[cold]
#[inline(never)]
fn entry_error(e: Error, start: u64, index: u64) -> Error {
    e.or_offset(start).in_entry(index)
}

/// Places an error in field (or position) `index` of a struct or tuple.
#[cold]
#[inline(never)]
fn field_error(
    e: Error,
    start: u64,
    fields: Option<&'static [&'static str]>,
    index: usize,
) -> Error {
    let e = e.or_offset(start);
    match fields.and_then(|f| f.get(index)) {
        Some(name) => e.in_field(name),
        None => e.in_position(index),
    }
}

/// Elements of a sequence or entries of a map, behind a count.
struct CountedAccess<'a, R, const D: bool> {
    de: &'a mut Deserializer<R, D>,
    left: u32,
    index: u64,
    /// Offset at which the current map entry began.
    entry_start: u64,
    /// Memory size of the current map entry's key, for the zero-sized
    /// budget.
    key_size: usize,
    /// Bytes the last element took: a stream's window shorter than this is
    /// not tried (see [`CountedAccess::read_buffered`]).
    last_len: usize,
    /// The size hint given to serde and not used up yet; `None` for
    /// streams, which give no hint.
    reserved: Option<u64>,
}

impl<'a, 'de, R: Read<'de>, const D: bool> CountedAccess<'a, R, D> {
    /// Starts reading `count` elements. Slices hint at most as many
    /// elements as bytes are left after the hints of the sequences around
    /// this one (each element takes a byte at least), so that serde's
    /// reservations add up to no more than the input, however deeply the
    /// claims nest. Streams give no hint: nothing is reserved on the word of
    /// the input.
    #[inline]
    fn new(de: &'a mut Deserializer<R, D>, count: u32) -> Self {
        let reserved = de
            .read
            .remaining()
            .map(|r| u64::from(count).min(r.saturating_sub(de.reserved)));
        de.reserved = de.reserved.saturating_add(reserved.unwrap_or(0));
        CountedAccess {
            de,
            left: count,
            index: 0,
            entry_start: 0,
            key_size: 0,
            last_len: 0,
            reserved,
        }
    }

    /// [`Deserializer::read_buffered`] for the next element, with the
    /// last element's length as the shortest window worth trying.
    #[inline]
    fn read_buffered<T>(
        &mut self,
        read: impl FnOnce(&mut Deserializer<WindowRead<'_>, false>) -> Result<T>,
    ) -> Option<T> {
        let (value, used) = self.de.read_buffered(self.last_len, read)?;
        self.last_len = used;
        Some(value)
    }

    #[inline]
    fn hint(&self) -> Option<usize> {
        self.reserved.map(|r| r as usize)
    }

    /// An element arrived: one fewer reserved and waiting.
    #[inline]
    fn arrived(&mut self) {
        if let Some(r) = &mut self.reserved
            && *r > 0
        {
            *r -= 1;
            self.de.reserved = self.de.reserved.saturating_sub(1);
        }
    }

    /// The sequence is over (read or failed): its reservation is released.
    #[inline]
    fn release(&mut self) {
        if let Some(r) = self.reserved.take() {
            self.de.reserved = self.de.reserved.saturating_sub(r);
        }
    }

    #[inline]
    fn finish(&self, count: u32) -> Result<()> {
        if self.left == 0 {
            return Ok(());
        }
        if !D {
            return Err(Error::undetailed());
        }
        Err(length_mismatch(
            count.into(),
            u64::from(count - self.left),
            self.de.read.offset(),
        ))
    }
}

impl<'de, R: Read<'de>, const D: bool> de::SeqAccess<'de> for CountedAccess<'_, R, D> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let start = self.de.read.offset();
        let value = seed
            .deserialize(&mut *self.de)
            .map_err(|e: Error| detail::<D>(e, |e| element_error(e, start, self.index)))?;
        let end = self.de.read.offset();
        if end == start {
            self.de
                .charge_zero_sized(std::mem::size_of::<T::Value>())
                .map_err(|e| detail::<D>(e, |e| e.in_index(self.index)))?;
        }
        self.last_len = usize::try_from(end - start).unwrap_or(usize::MAX);
        self.arrived();
        self.index += 1;
        Ok(Some(value))
    }

    /// serde's own sequences (`Vec<T>`, sets, ...) come here. From a
    /// stream, each element is tried on the buffered window first
    /// ([`CountedAccess::read_buffered`]); everything else goes on to
    /// [`next_element_seed`](de::SeqAccess::next_element_seed).
    #[inline]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        if D && self.left > 0
            && let Some(value) = self.read_buffered(|de| T::deserialize(de))
        {
            self.left -= 1;
            self.arrived();
            self.index += 1;
            return Ok(Some(value));
        }
        self.next_element_seed(std::marker::PhantomData)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.hint()
    }
}

impl<'de, R: Read<'de>, const D: bool> de::MapAccess<'de> for CountedAccess<'_, R, D> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let start = self.de.read.offset();
        self.entry_start = start;
        self.key_size = std::mem::size_of::<K::Value>();
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(|e: Error| detail::<D>(e, |e| entry_error(e, start, self.index)))
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let start = self.de.read.offset();
        let value = seed
            .deserialize(&mut *self.de)
            .map_err(|e: Error| detail::<D>(e, |e| entry_error(e, start, self.index)))?;
        let end = self.de.read.offset();
        if end == self.entry_start {
            self.de
                .charge_zero_sized(self.key_size + std::mem::size_of::<V::Value>())
                .map_err(|e| detail::<D>(e, |e| e.in_entry(self.index)))?;
        }
        self.last_len = usize::try_from(end - self.entry_start).unwrap_or(usize::MAX);
        self.arrived();
        self.index += 1;
        Ok(value)
    }

    /// serde's own maps come here. From a stream, each entry is tried on
    /// the buffered window first, as sequence elements are.
    #[inline]
    fn next_entry<K, V>(&mut self) -> Result<Option<(K, V)>>
    where
        K: de::Deserialize<'de>,
        V: de::Deserialize<'de>,
    {
        if D && self.left > 0
            && let Some(entry) =
                self.read_buffered(|de| Ok((K::deserialize(&mut *de)?, V::deserialize(de)?)))
        {
            self.left -= 1;
            self.arrived();
            self.index += 1;
            return Ok(Some(entry));
        }
        match self.next_key()? {
            Some(key) => Ok(Some((key, self.next_value()?))),
            None => Ok(None),
        }
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.hint()
    }
}

/// The values of a tuple, tuple struct or struct: a fixed number, no count.
struct FixedAccess<'a, R, const D: bool> {
    de: &'a mut Deserializer<R, D>,
    len: usize,
    index: usize,
    fields: Option<&'static [&'static str]>,
    /// Receives `index` when the visitor is done with the access.
    taken: &'a mut usize,
}

impl<R, const D: bool> Drop for FixedAccess<'_, R, D> {
    #[inline(always)]
    fn drop(&mut self) {
        *self.taken = self.index;
    }
}

impl<'de, R: Read<'de>, const D: bool> de::SeqAccess<'de> for FixedAccess<'_, R, D> {
    type Error = Error;

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.index == self.len {
            return Ok(None);
        }
        let index = self.index;
        self.index += 1;
        let start = self.de.read.offset();
        let fields = self.fields;
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(|e| detail::<D>(e, |e| field_error(e, start, fields, index)))
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.index)
    }
}

/// An enum: the variant index, then the payload.
struct EnumAccess<'a, R, const D: bool> {
    de: &'a mut Deserializer<R, D>,
    name: &'static str,
    variants: &'static [&'static str],
}

impl<'de, 'a, R: Read<'de>, const D: bool> de::EnumAccess<'de> for EnumAccess<'a, R, D> {
    type Error = Error;
    type Variant = VariantAccess<'a, R, D>;

    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let offset = self.de.read.offset();
        let index = self.de.read_u32("variant index (u32)")?;
        let Some(&variant) = self.variants.get(index as usize) else {
            let (enum_name, variants) = (self.name, self.variants.len());
            return Err(fail::<D>(
                || ErrorKind::UnknownVariant {
                    enum_name,
                    index,
                    variants,
                },
                offset,
            ));
        };
        let de: de::value::U32Deserializer<Error> = index.into_deserializer();
        let value = seed
            .deserialize(de)
            .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset)))?;
        Ok((
            value,
            VariantAccess {
                de: self.de,
                variant,
            },
        ))
    }
}

/// The payload of the variant just read.
struct VariantAccess<'a, R, const D: bool> {
    de: &'a mut Deserializer<R, D>,
    variant: &'static str,
}

impl<'de, R: Read<'de>, const D: bool> de::VariantAccess<'de> for VariantAccess<'_, R, D> {
    type Error = Error;

    #[inline]
    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        let start = self.de.read.offset();
        seed.deserialize(&mut *self.de)
            .map_err(|e: Error| detail::<D>(e, |e| in_variant(e.or_offset(start), self.variant)))
    }

    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.de
            .visit_fixed(len, None, visitor)
            .map_err(|e| detail::<D>(e, |e| in_variant(e, self.variant)))
    }

    #[inline]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.de
            .visit_fixed(fields.len(), Some(fields), visitor)
            .map_err(|e| detail::<D>(e, |e| in_variant(e, self.variant)))
    }
}

impl<'de, R: Read<'de>, const D: bool> Deserializer<R, D> {
    /// Reads an array: checks it against the directory (loaded and
    /// validated from the record's end at the first array), checks the
    /// padding, and hands the block to the visitor.
    fn read_array<V: Visitor<'de>>(
        &mut self,
        request: crate::array::Request,
        visitor: V,
    ) -> Result<V::Value> {
        use crate::directory::{BLOCK_ALIGN, TRAILER_LEN};
        let start = self.read.offset();
        if !self.arrays.whole_record {
            return Err(Error::at(ErrorKind::RecordEndUnknown, start));
        }
        if self.arrays.dir.is_none() {
            let tail = self.read.rest_of_input()?;
            match crate::directory::parse(&tail, start)? {
                Some(dir) => self.arrays.dir = Some(Box::new(dir)),
                None => {
                    let found = if (tail.len() as u64) < TRAILER_LEN {
                        "fewer bytes"
                    } else {
                        "no magic"
                    };
                    let end = start + tail.len() as u64;
                    return Err(Error::at(
                        ErrorKind::DirectoryMissing {
                            expected: TRAILER_LEN,
                            found,
                        },
                        end,
                    ));
                }
            }
        }
        let index = self.arrays.next;
        let entries = self.arrays.dir.as_ref().map_or(&[][..], |d| &d.entries[..]);
        let Some(info) = entries.get(index) else {
            return Err(Error::at(
                ErrorKind::ArrayCount {
                    entries: entries.len() as u64,
                    found: index as u64 + 1,
                },
                start,
            ));
        };
        if info.dtype != request.dtype {
            return Err(Error::at(
                ErrorKind::DtypeMismatch {
                    expected: request.name,
                    found: info.dtype,
                },
                start,
            ));
        }
        let aligned = start.next_multiple_of(BLOCK_ALIGN);
        if info.offset != aligned {
            return Err(Error::at(
                ErrorKind::ArrayPosition {
                    index: index as u64,
                    expected: info.offset,
                    found: aligned,
                },
                start,
            ));
        }
        // Both fit in memory: the block lies inside the input.
        let len = info.len as usize;
        let shape = crate::array::shape_to_usize(&info.shape, start)?;
        self.arrays.next += 1;
        let pad = (aligned - start) as usize;
        if pad > 0 {
            let padding = self.read.read_bytes(pad, "array padding")?;
            if let Some(i) = padding.iter().position(|&b| b != 0) {
                return Err(Error::at(
                    ErrorKind::PaddingNonZero(padding[i]),
                    start + i as u64,
                ));
            }
        }
        let bytes = self.read.read_bytes(len, "array block")?;
        if request.view {
            let reason = match &bytes {
                Reference::Copied(_) => Some(
                    "the input is a stream, so nothing can borrow from it; read an owned Array",
                ),
                Reference::Borrowed(_) if cfg!(target_endian = "big") => Some(
                    "blocks are little-endian and this host is big-endian; read an owned Array",
                ),
                Reference::Borrowed(b) => {
                    if !(b.as_ptr() as usize).is_multiple_of(request.size) {
                        return Err(Error::at(
                            ErrorKind::ViewMisaligned {
                                align: request.size as u64,
                            },
                            aligned,
                        ));
                    }
                    None
                }
            };
            if let Some(reason) = reason {
                return Err(Error::at(ErrorKind::ViewUnavailable { reason }, aligned));
            }
        }
        visitor
            .visit_newtype_struct(crate::array::BlockDeserializer { shape, bytes })
            .map_err(|e| e.or_offset(aligned))
    }
}
