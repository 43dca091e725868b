//! serde's data model read kind by kind: one method per kind of
//! `spec/03-types.md`, and the errors they make.

use serde::de::{self, Visitor};

use super::Decoder;
use super::{ANY_FEATURES, CountedAccess, EnumAccess, IDENTIFIER_FEATURES, IGNORED_ANY_FEATURES};
use crate::block::{self};
use crate::error::{Error, ErrorKind, Result};
use crate::read::{Counted, Read, Reference};

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

impl<'de, R: Read<'de>, const D: bool> de::Deserializer<'de> for &mut Decoder<R, D> {
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
        if !D && let Some(counted) = self.read.take_counted_quiet() {
            return visitor.visit_borrowed_str(counted_utf8(counted?)?);
        }
        if !D && let Some(counted) = self.read.take_counted_held_quiet() {
            return visitor.visit_str(counted_utf8(counted?)?);
        }
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
        if !D && let Some(counted) = self.read.take_counted_quiet() {
            return visitor.visit_borrowed_bytes(counted?.bytes);
        }
        if !D && let Some(counted) = self.read.take_counted_held_quiet() {
            return visitor.visit_bytes(counted?.bytes);
        }
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
        let visitor = match self.try_block(visitor)? {
            Ok(vec) => return Ok(vec),
            Err(visitor) => visitor,
        };
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

impl<'de, R: Read<'de>, const D: bool> Decoder<R, D> {
    /// A value read in place by the access that reads a field, element,
    /// key or value, without detail (from a slice, or from a stream's
    /// buffered window): a string ([`Decoder::quiet_string`]) or a byte
    /// array ([`Decoder::quiet_byte_array`]). `None` for every other type,
    /// having read nothing.
    #[inline(always)]
    pub(super) fn quiet_value<T: de::Deserialize<'de>>(&mut self) -> Option<Result<T>> {
        if let Some(value) = self.quiet_string::<T>() {
            return Some(value);
        }
        self.quiet_byte_array::<T>()
    }

    /// A byte array (`[u8; N]` for N from 1 to 32, the sizes serde reads:
    /// addresses, hashes, keys, ids) read in one step, where serde reads it
    /// as a tuple of N `u8`s, each a call and a bounds check of its own.
    /// The same bytes and value; the tuple's nesting level is checked as
    /// [`Decoder::nested`] would, and a failure is [`Error::undetailed`]
    /// (the value is then read again with detail).
    #[inline(always)]
    fn quiet_byte_array<T>(&mut self) -> Option<Result<T>> {
        if D || std::mem::align_of::<T>() != 1 {
            return None;
        }
        macro_rules! sizes {
            ($($n:literal)*) => {
                match std::mem::size_of::<T>() {
                    $($n if typeid::of::<T>() == std::any::TypeId::of::<[u8; $n]>() => {
                        Some(self.byte_array::<$n, T>())
                    })*
                    _ => None,
                }
            };
        }
        sizes!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    }

    /// The `N` bytes of a `[u8; N]` that `T` is (the caller has checked).
    #[inline(always)]
    fn byte_array<const N: usize, T>(&mut self) -> Result<T> {
        assert!(typeid::of::<T>() == std::any::TypeId::of::<[u8; N]>());
        if self.depth_left == 0 {
            return Err(Error::undetailed());
        }
        let bytes = self.read.read_array_quiet::<N>("u8")?;
        // SAFETY: `[u8; N]` has no lifetime, so the only type with its id is
        // `[u8; N]`: `T` is `[u8; N]` (asserted above; the check folds away).
        Ok(unsafe { std::mem::transmute_copy::<[u8; N], T>(&bytes) })
    }

    /// A `&str` or `String` value read in place, where the access reading a
    /// field or an element is asked for one of those two types on the
    /// quiet slice path (no detail; `None` everywhere else, having read
    /// nothing). The same bytes, checks and value as serde's own impls,
    /// which reach [`de::Deserializer::deserialize_str`] through a function
    /// the compiler keeps out of line: here the read joins the caller's,
    /// and the reader's position can stay in registers from one field to
    /// the next.
    #[inline(always)]
    pub(super) fn quiet_string<T: de::Deserialize<'de>>(&mut self) -> Option<Result<T>> {
        let borrowed = typeid::of::<T>() == std::any::TypeId::of::<&'static str>();
        let owned = typeid::of::<T>() == std::any::TypeId::of::<String>();
        if D || !(borrowed || owned) {
            return None;
        }
        if borrowed {
            let counted = match self.read.take_counted_quiet()? {
                Ok(counted) => counted,
                Err(e) => return Some(Err(e)),
            };
            let text: &'de str = match counted_utf8(counted) {
                Ok(text) => text,
                Err(e) => return Some(Err(e)),
            };
            // SAFETY: `typeid::of` erases lifetimes only, so `T` is `&'a str`
            // for some `'a`, and `T: Deserialize<'de>` holds for `&'a str`
            // only where `'de: 'a`: the string, borrowed for `'de`, is a
            // valid `T`. The copy moves a reference; nothing is dropped.
            return Some(Ok(unsafe {
                std::mem::transmute_copy::<&'de str, T>(&text)
            }));
        }
        // An owned string may come from a stream's window too.
        let counted = match self.read.take_counted_held_quiet()? {
            Ok(counted) => counted,
            Err(e) => return Some(Err(e)),
        };
        let value = {
            let text = match counted_utf8(counted) {
                Ok(text) => text,
                Err(e) => return Some(Err(e)),
            };
            let text = std::mem::ManuallyDrop::new(String::from(text));
            // SAFETY: `String` has no lifetime, so the only type with its id
            // is `String`: `T` is `String`. The value is moved out of the
            // `ManuallyDrop`, which keeps it from being dropped twice.
            unsafe { std::mem::transmute_copy::<String, T>(&text) }
        };
        Some(Ok(value))
    }
}

/// Checks string bytes that begin at `start`; the error points at the
/// first byte that is not valid UTF-8.
///
/// Most strings in records are short and ASCII; `is_ascii` answers for
/// them in a few word-wide steps, where `from_utf8` pays a call and its
/// set-up per string (borrowed log records: 1.05 ms -> 0.58 ms in
/// `benches/compare.rs`; `simdutf8` falls back to `from_utf8` below 64
/// bytes, so it would not help here). Always inlined: each string field
/// then has its own branches on length, which the processor predicts from
/// one record to the next; a copy shared by every field (what `#[inline]`
/// got in cargo's default profile) mispredicts as lengths alternate.
#[inline(always)]
pub(super) fn utf8<const D: bool>(bytes: &[u8], start: u64) -> Result<&str> {
    if is_ascii(bytes) {
        // SAFETY: every ASCII byte sequence is valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).map_err(|e| {
        fail::<D>(
            || ErrorKind::InvalidUtf8 {
                valid_up_to: e.valid_up_to(),
            },
            start + e.valid_up_to() as u64,
        )
    })
}

/// [`utf8`] without detail, for string bytes read with what follows them
/// ([`Counted`]): a short string is first tried with [`short_ascii`].
#[inline(always)]
fn counted_utf8(counted: Counted<'_>) -> Result<&str> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(text) = short_ascii(counted) {
        return Ok(text);
    }
    utf8::<false>(counted.bytes, 0)
}

/// The string, if it has at most 16 bytes, all ASCII, and the input holds
/// 16 bytes from its start: one 16-byte load, whose bytes' high bits are
/// masked to the string's length. No branch on the length, and a third of
/// the steps [`is_ascii`] takes below 16 bytes (its clamped loads), for the
/// short strings records are full of (names, codes, `-`): borrowed log
/// records, 2.09 M -> 1.90 M instructions per read with LTO.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn short_ascii(counted: Counted<'_>) -> Option<&str> {
    use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8};
    let Counted { bytes, onward } = counted;
    debug_assert!(std::ptr::eq(bytes.as_ptr(), onward.as_ptr()) && bytes.len() <= onward.len());
    let n = bytes.len();
    if n > 16 {
        return None;
    }
    let word = onward.first_chunk::<16>()?;
    // SAFETY: SSE2 is enabled (the `cfg` above), and the load reads the 16
    // bytes of `word`, with no alignment required.
    let high = unsafe { _mm_movemask_epi8(_mm_loadu_si128(word.as_ptr().cast())) } as u32;
    // Bit `i` is byte `i`'s high bit; the low `n` bits are the string's
    // (`n <= 16`: the shift stays inside the `u32`).
    if high & ((1u32 << n) - 1) != 0 {
        return None;
    }
    // The string is the bytes just checked, `bytes` itself (asserted).
    let text = &word[..n];
    // SAFETY: the high bits of `text` are clear: it is ASCII, and every
    // ASCII byte sequence is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(text) })
}

/// Whether every byte of `bytes` is ASCII: `<[u8]>::is_ascii` with fewer
/// steps for the short strings records are made of, and no loop whose
/// length depends on the string's.
///
/// From 16 to 64 bytes it ORs four 16-byte words at offsets clamped to the
/// last whole word (they overlap on shorter strings), from 8 to 15 the
/// first and last 8 bytes, below 8 seven bytes clamped the same way. The
/// standard library loops over words and then over the bytes left: where
/// lengths vary from record to record, the loop's exit mispredicts (1.3
/// times per borrowed log record, a quarter of its reading time).
#[inline(always)]
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    if n >= 16 {
        if n > 64 {
            return bytes.is_ascii();
        }
        // Offsets 0 and `n - 16`, and the two between clamped to `n - 16`.
        const WIDE: u128 = u128::from_ne_bytes([0x80; 16]);
        let last = n - 16;
        let word = |at: usize| match bytes[at..].first_chunk::<16>() {
            Some(word) => u128::from_ne_bytes(*word),
            None => WIDE,
        };
        (word(0) | word(16.min(last)) | word(32.min(last)) | word(last)) & WIDE == 0
    } else if n >= 8 {
        let (Some(first), Some(last)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) else {
            return false;
        };
        (u64::from_ne_bytes(*first) | u64::from_ne_bytes(*last)) & HIGH == 0
    } else if n > 0 {
        // Bytes 0 to 6, each clamped to `n - 1`: at most 7 bytes, all seen.
        let last = n - 1;
        let mut seen = 0;
        for i in 0..7 {
            seen |= bytes[i.min(last)];
        }
        seen & 0x80 == 0
    } else {
        true
    }
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
pub(super) fn fail<const D: bool>(kind: impl FnOnce() -> ErrorKind, offset: u64) -> Error {
    if D {
        Error::at(kind(), offset)
    } else {
        Error::undetailed()
    }
}

/// `e` with what `decorate` adds (a field, an index, an offset), in a
/// deserializer with detailed errors; `e` as it is otherwise.
#[inline(always)]
pub(super) fn detail<const D: bool>(e: Error, decorate: impl FnOnce(Error) -> Error) -> Error {
    if D { decorate(e) } else { e }
}

/// A sequence, map or struct held a different number of values than its
/// count or type says.
#[cold]
#[inline(never)]
pub(super) fn length_mismatch(declared: u64, actual: u64, offset: u64) -> Error {
    Error::at(ErrorKind::LengthMismatch { declared, actual }, offset)
}

/// The nesting limit is reached.
#[cold]
#[inline(never)]
pub(super) fn depth_error(limit: u32, offset: u64) -> Error {
    Error::at(ErrorKind::DepthLimit { limit }, offset)
}

/// Names the container an error passed through.
#[cold]
#[inline(never)]
pub(super) fn in_container(e: Error, name: &'static str) -> Error {
    e.in_container(name)
}

/// Names the enum variant an error passed through.
#[cold]
#[inline(never)]
pub(super) fn in_variant(e: Error, variant: &'static str) -> Error {
    e.in_variant(variant)
}

/// Places an error in element `index` of a sequence that began at `start`.
#[cold]
#[inline(never)]
pub(super) fn element_error(e: Error, start: u64, index: u64) -> Error {
    e.or_offset(start).in_index(index)
}

/// Places an error in entry `index` of a map.
#[cold]
#[inline(never)]
pub(super) fn entry_error(e: Error, start: u64, index: u64) -> Error {
    e.or_offset(start).in_entry(index)
}

/// Places an error in field (or position) `index` of a struct or tuple.
#[cold]
#[inline(never)]
pub(super) fn field_error(
    e: Error,
    start: u64,
    fields: Option<&'static [&'static str]>,
    index: usize,
) -> Error {
    let e = e.or_offset(start);
    match fields.and_then(|f| f.get(index)) {
        Some(name) => e.in_field(*name),
        None => e.in_position(index),
    }
}
