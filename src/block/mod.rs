//! Blocks: sequences of primitive numbers, stored as their little-endian
//! bytes back to back (`spec/04-blocks.md`).
//!
//! [`Element`] is the sealed set of element types that may form a block:
//! the twelve fixed-width integers and floats. `bool` and `char` are not
//! among them, since every one of their values must be checked on reading.
//! Shaped arrays use the same set, with the codes of [`crate::Dtype`];
//! `spec/04-blocks.md` and `spec/08-directory.md` describe the bytes.
//!
//! # One copy, same bytes
//!
//! A block is written as a `u32` count and the elements' little-endian
//! bytes, which is exactly what the element-by-element path writes for a
//! sequence of numbers. Because every bit pattern is a valid value of each
//! element type, and the layout in memory of `[T]` on a little-endian host
//! *is* those bytes, a block can be written and read with one memory copy.
//! Which path ran is never visible in the bytes.
//!
//! * **Writing.** serde's `Serialize` impls for `[T]` and `Vec<T>` (and so
//!   for `Box<[T]>`, `Cow<[T]>`, `Arc<[T]>`, which forward to `[T]`) call
//!   `Serializer::collect_seq` with `&[T]` or `&Vec<T>`. Kiln's
//!   `collect_seq` compares the iterator's type with those two, by a
//!   [`TypeId`] that ignores lifetimes ([`typeid::of`]), for each element
//!   type; on a match it writes the count and the slice's bytes at once.
//!   Any other iterator takes the generic path.
//! * **Reading.** `Vec<T>::deserialize` calls `deserialize_seq` with a
//!   visitor private to serde, one type per `T`. Kiln learns that type once
//!   per element type by running `Vec<T>::deserialize` against a probe
//!   deserializer that only records the visitor's type id (cached in a
//!   `OnceLock`). When `deserialize_seq` later receives exactly that visitor,
//!   Kiln checks the count against the input, allocates the `Vec<T>` once
//!   and copies the bytes into it, without calling the visitor. Any other
//!   visitor, including a user's own visitor whose value is a `Vec<f32>`, is
//!   driven element by element as usual. `Box<[T]>`, `Cow<[T]>` and
//!   `Arc<[T]>` are deserialized by serde through `Vec<T>`, so they profit
//!   too.
//! * **Returning the vector.** A `Vec<T>` built by Kiln is handed back as the
//!   visitor's `Value` only after checking that `Value` *is* `Vec<T>`
//!   (`cast_vec`); since `Vec<T>` of an element type has no lifetime in
//!   it, equal lifetime-free type ids mean equal types.
//!
//! Sequences of *records* of numbers, fixed arrays such as `[f32; 3]` and
//! registered `Pod` structs, take the same one-copy route through the
//! layouts of `block::pod` ([`register`]).
//!
//! On a big-endian host the same routes swap each element's bytes while
//! copying ([`write_swapped`], [`swap_all`]); those routines are public so
//! that the conversion can be tested on any host.

use std::any::TypeId;
use std::mem::MaybeUninit;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Visitor};

use crate::error::{Error, ErrorKind, Result};
use crate::read::Read;

pub(crate) mod pod;

#[doc(hidden)]
pub use pod::element_path_only;
pub use pod::{RegisterError, register, registered};

mod private {
    use std::any::TypeId;

    pub trait Sealed {
        /// What the reader calls a block of this element in errors.
        const BLOCK: &'static str;
        /// The type id of the visitor `Vec<Self>::deserialize` passes to
        /// `deserialize_seq`, or `None` if it does not call it.
        fn vec_visitor_id() -> Option<TypeId>;
    }
}

/// A primitive number type whose sequences are written and read as blocks.
///
/// Sealed: implemented for `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`,
/// `i64`, `u128`, `i128`, `f32` and `f64`. Every bit pattern of
/// [`Element::SIZE`] bytes is a valid value of each of them, which is what
/// lets a block be copied as bytes.
pub trait Element:
    private::Sealed
    + bytemuck::Pod
    + Copy
    + Default
    + PartialEq
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// The element's dtype code in a directory entry (`spec/08-directory.md`).
    const DTYPE: u8;
    /// The element's name, as in Rust.
    const NAME: &'static str;
    /// Bytes per element.
    const SIZE: usize = std::mem::size_of::<Self>();

    /// The element with its bytes in the opposite order; what a big-endian
    /// host applies to turn native values into little-endian ones.
    #[inline]
    fn swap_bytes(self) -> Self {
        let mut v = self;
        bytemuck::bytes_of_mut(&mut v).reverse();
        v
    }
}

/// The visitor `Vec<T>::deserialize` hands to `deserialize_seq`, found by
/// asking it once; `None` if it never calls `deserialize_seq`.
fn probe_vec_visitor<T: DeserializeOwned>() -> Option<TypeId> {
    let mut seen = None;
    let _ = Vec::<T>::deserialize(Probe { seen: &mut seen });
    seen
}

/// A deserializer that reads nothing: it records the type of the visitor
/// given to `deserialize_seq` and fails every call.
struct Probe<'a> {
    seen: &'a mut Option<TypeId>,
}

/// The only error [`Probe`] returns.
#[derive(Debug)]
struct ProbeError;

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("probe")
    }
}

impl std::error::Error for ProbeError {}

impl de::Error for ProbeError {
    fn custom<T: std::fmt::Display>(_msg: T) -> Self {
        ProbeError
    }
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = ProbeError;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, ProbeError> {
        Err(ProbeError)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, ProbeError> {
        *self.seen = Some(typeid::of::<V>());
        Err(ProbeError)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

macro_rules! sealed {
    ($ty:ty) => {
        impl private::Sealed for $ty {
            const BLOCK: &'static str = concat!(stringify!($ty), " block");
            fn vec_visitor_id() -> Option<TypeId> {
                static ID: OnceLock<Option<TypeId>> = OnceLock::new();
                *ID.get_or_init(probe_vec_visitor::<$ty>)
            }
        }
    };
}

macro_rules! elements {
    ($($ty:ident $variant:ident $code:literal,)*) => {$(
        sealed!($ty);
        impl Element for $ty {
            const DTYPE: u8 = crate::Dtype::$variant.code();
            const NAME: &'static str = crate::Dtype::$variant.name();
        }
    )*};
}
crate::dtype::with_dtypes!(elements);

// ----- bytes of a slice -------------------------------------------------

/// The elements' bytes in memory order, without copying: on a little-endian
/// host, their Kiln encoding.
///
/// ```
/// assert_eq!(kiln::block::native_bytes(&[1u16, 2]), u16_bytes());
/// # fn u16_bytes() -> &'static [u8] {
/// #     if cfg!(target_endian = "little") { &[1, 0, 2, 0] } else { &[0, 1, 0, 2] }
/// # }
/// ```
#[inline]
pub fn native_bytes<T: Element>(elems: &[T]) -> &[u8] {
    bytemuck::cast_slice(elems)
}

/// The elements' bytes in memory order, writable: whatever bytes are stored
/// through it, each element holds a valid value afterwards.
#[inline]
pub fn native_bytes_mut<T: Element>(elems: &mut [T]) -> &mut [u8] {
    bytemuck::cast_slice_mut(elems)
}

/// Reverses the bytes of every element in place: the conversion between
/// native and little-endian order on a big-endian host.
///
/// ```
/// let mut v = [0x0102_0304u32, 0x0a0b_0c0d];
/// kiln::block::swap_all(&mut v);
/// assert_eq!(v, [0x0403_0201, 0x0d0c_0b0a]);
/// ```
#[inline]
pub fn swap_all<T: Element>(elems: &mut [T]) {
    for e in elems {
        *e = e.swap_bytes();
    }
}

/// Turns elements whose bytes were copied from little-endian input into
/// native values: nothing to do on a little-endian host, [`swap_all`] on a
/// big-endian one.
#[inline]
pub fn le_to_native<T: Element>(elems: &mut [T]) {
    if cfg!(target_endian = "big") {
        swap_all(elems);
    }
}

/// Elements converted per step by [`write_swapped`] (at most 4 KiB).
const SWAP_STEP: usize = 256;

/// Hands `sink` the little-endian bytes of `elems`: on a little-endian
/// host, one call with the slice's own memory (no copy here); on a
/// big-endian host, [`write_swapped`].
///
/// ```
/// let mut out = Vec::new();
/// kiln::block::write_le(&[1.0f32, -2.0], |b| { out.extend_from_slice(b); Ok::<_, ()>(()) })?;
/// assert_eq!(out, [0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
/// # Ok::<(), ()>(())
/// ```
///
/// # Errors
/// Whatever `sink` returns; the first error stops the writing.
#[inline]
pub fn write_le<T: Element, E>(
    elems: &[T],
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    if cfg!(target_endian = "little") {
        sink(native_bytes(elems))
    } else {
        write_swapped(elems, sink)
    }
}

/// Hands `sink` the bytes of `elems` with each element's bytes reversed,
/// a few kilobytes at a time. This is how a big-endian host writes
/// little-endian blocks; on a little-endian host it produces big-endian
/// bytes, which is how the conversion is tested.
///
/// ```
/// let mut out = Vec::new();
/// kiln::block::write_swapped(&[0x0102u16, 0x0304], |b| { out.extend_from_slice(b); Ok::<_, ()>(()) })?;
/// let expected: Vec<u8> = [0x0102u16, 0x0304].iter().flat_map(|v| v.swap_bytes().to_ne_bytes()).collect();
/// assert_eq!(out, expected);
/// # Ok::<(), ()>(())
/// ```
///
/// # Errors
/// Whatever `sink` returns; the first error stops the writing.
pub fn write_swapped<T: Element, E>(
    elems: &[T],
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let mut buf = [T::default(); SWAP_STEP];
    for chunk in elems.chunks(SWAP_STEP) {
        let tmp = &mut buf[..chunk.len()];
        tmp.copy_from_slice(chunk);
        swap_all(tmp);
        sink(native_bytes(tmp))?;
    }
    Ok(())
}

/// A `Vec<T>` holding the elements whose little-endian bytes are `bytes`:
/// one allocation of exactly the right size and one copy. `None` if the
/// length is not a whole number of elements.
///
/// ```
/// let v: Vec<f32> = kiln::block::vec_from_le_bytes(&[0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).unwrap();
/// assert_eq!(v, [1.0, -2.0]);
/// assert_eq!(kiln::block::vec_from_le_bytes::<f32>(&[0, 0, 0x80]), None);
/// ```
pub fn vec_from_le_bytes<T: Element>(bytes: &[u8]) -> Option<Vec<T>> {
    if !bytes.len().is_multiple_of(T::SIZE) {
        return None;
    }
    Some(vec_from_whole(bytes))
}

/// [`vec_from_le_bytes`] for callers that know the length is a whole number
/// of elements (a trailing part of an element is left out).
///
/// The elements are copied into the vector's uninitialised capacity rather
/// than into a zeroed vector: the allocator reuses freed memory, so zeroing
/// costs a pass as large as the copy (owned array reads in
/// `benches/arrays.rs` went from about 70% of a plain copy to its speed).
#[inline]
pub(crate) fn vec_from_whole<T: Element>(bytes: &[u8]) -> Vec<T> {
    let n = bytes.len() / T::SIZE;
    let mut vec = Vec::<T>::with_capacity(n);
    // SAFETY: the vector owns room for at least `n` elements, that is
    // `n * T::SIZE <= bytes.len()` bytes, at `as_mut_ptr()`, valid for
    // writes; `bytes` holds at least that many bytes to read, and the fresh
    // allocation cannot overlap it. After the copy the first `n` elements
    // hold valid values, because every bit pattern is a valid `T` for the
    // sealed element types, so `set_len(n)` (with `n <= capacity`) exposes
    // only initialised elements.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), vec.as_mut_ptr().cast::<u8>(), n * T::SIZE);
        vec.set_len(n);
    }
    le_to_native(&mut vec);
    vec
}

// ----- recognising slices and serde's Vec visitor -------------------------

/// Sees `value` as a slice when its type is `&[T]` or `&Vec<T>` (of any
/// lifetime); the types serde passes to `collect_seq` for `[T]` and `Vec<T>`.
#[inline]
pub(crate) fn as_slice<'b, I, T: Element>(value: &'b I) -> Option<&'b [T]> {
    let id = typeid::of::<I>();
    if id == TypeId::of::<&'static [T]>() {
        // SAFETY: `typeid::of` erases lifetimes only, and `&[T]` has no other
        // lifetime than its own, so `I` is `&'x [T]` for some `'x`. Because
        // `value: &'b I` exists, `I: 'b`, so `'x: 'b`: reading the reference
        // out and using it for `'b` shortens its lifetime, which is sound.
        Some(unsafe { *(value as *const I).cast::<&'b [T]>() })
    } else if id == TypeId::of::<&'static Vec<T>>() {
        // SAFETY: as above, `I` is `&'x Vec<T>` with `'x: 'b`.
        let vec = unsafe { *(value as *const I).cast::<&'b Vec<T>>() };
        Some(vec.as_slice())
    } else {
        None
    }
}

/// Work to do with a slice of whichever element type it turns out to be.
pub(crate) trait SliceFn {
    /// What the work returns.
    type Out;
    /// Does the work.
    fn call<T: Element>(self, elems: &[T]) -> Self::Out;
}

/// Calls `f` with `value` as a slice if it is a `&[T]` or `&Vec<T>` of an
/// element type ([`as_slice`]); gives `f` back otherwise.
#[inline]
pub(crate) fn with_slice<I, F: SliceFn>(value: &I, f: F) -> Result<F::Out, F> {
    macro_rules! each {
        ($($t:ident $variant:ident $code:literal,)*) => {$(
            if let Some(s) = as_slice::<I, $t>(value) {
                return Ok(f.call(s));
            }
        )*};
    }
    crate::dtype::with_dtypes!(each);
    Err(f)
}

/// Whether `V` is exactly the visitor serde's `Vec<T>::deserialize` uses,
/// so that the vector may be built without it.
///
/// The first test (the visitor's value is `Vec<T>`) is decided at compile
/// time and keeps the cost off every other sequence; the second compares
/// with the visitor found by probing `Vec<T>::deserialize` once.
#[inline]
pub(crate) fn is_vec_visitor<'de, V: Visitor<'de>, T: Element>() -> bool {
    typeid::of::<V::Value>() == TypeId::of::<Vec<T>>()
        && Some(typeid::of::<V>()) == <T as private::Sealed>::vec_visitor_id()
}

/// Returns `vec` as an `X`, if `X` is `Vec<T>`; `None` otherwise.
#[inline]
pub(crate) fn cast_vec<T: Element, X>(vec: Vec<T>) -> Option<X> {
    if typeid::of::<X>() != TypeId::of::<Vec<T>>() {
        return None;
    }
    let vec = std::mem::ManuallyDrop::new(vec);
    // SAFETY: `typeid::of::<X>()` is the id of `X` with its lifetimes made
    // `'static`. `Vec<T>` for an element type contains no lifetime at all,
    // so the only type with its id is `Vec<T>` itself: `X` is `Vec<T>`.
    // Reading the vector out as `X` is then a move of the same type; the
    // `ManuallyDrop` keeps the original from being dropped twice.
    Some(unsafe { std::ptr::read((&*vec as *const Vec<T>).cast::<X>()) })
}

/// Grows `vec` towards `count` elements in steps, never reserving on the
/// word of the count alone: how a stream's blocks and records are read.
/// The first step is [`STREAM_FIRST_STEP`] bytes; the capacities after it
/// are `count / 4^k`, ..., `count / 16`, `count / 4`, `count`, from the
/// first of them above the first step. Each is at most [`STREAM_GROWTH`]
/// times what arrived before it (plus a rounding of a few elements), so
/// memory follows the input; and the copies made in growing add up to
/// about a third of the block, whatever its length. `fill` gets each
/// step's room, the vector's spare capacity as bytes not yet initialised
/// (nothing is zeroed first), and the number of elements before it; it
/// returns the bytes it wrote, from the room's start. Their whole elements
/// join `vec`; a room not filled to its end (the stream ended) ends the
/// growth.
pub(crate) fn grow_in_steps<T: bytemuck::Pod>(
    vec: &mut Vec<T>,
    count: usize,
    mut fill: impl for<'d> FnMut(&'d mut [MaybeUninit<u8>], usize) -> Result<&'d mut [u8]>,
) -> Result<()> {
    let size = std::mem::size_of::<T>();
    assert!(size > 0, "a zero-sized element has no bytes to read");
    if count == 0 {
        return Ok(());
    }
    let first = (STREAM_FIRST_STEP / size).max(1);
    // How many times the count is divided for the capacity after the
    // first step (`STREAM_GROWTH^divisions` is below the count: no
    // overflow).
    let mut divisions = 0u32;
    let mut smallest = count;
    while smallest / STREAM_GROWTH > first {
        smallest /= STREAM_GROWTH;
        divisions += 1;
    }
    let mut capacity = first.min(count);
    loop {
        let old = vec.len();
        let n = capacity - old;
        vec.reserve_exact(n);
        let room = &mut vec.spare_capacity_mut()[..n];
        // SAFETY: `n` elements of `T` are `n * size` bytes of the same
        // allocation, and any byte may be left uninitialised in a
        // `MaybeUninit<u8>` as in a `MaybeUninit<T>`.
        let room = unsafe {
            std::slice::from_raw_parts_mut(room.as_mut_ptr().cast::<MaybeUninit<u8>>(), n * size)
        };
        let start = room.as_ptr().cast::<u8>();
        let written = fill(room, old)?;
        let got = written.len();
        // `written` must be the start of the room for the elements below
        // to be initialised (or empty: nothing arrived); `fill` is ours,
        // but this is what makes `set_len` sound whatever it does.
        assert!(
            got == 0 || (std::ptr::eq(written.as_ptr(), start) && got <= n * size),
            "fill wrote outside the room it was given"
        );
        // SAFETY: the first `got` bytes of the room are initialised (they
        // are `written`, a `&mut [u8]`), so the first `got / size` elements
        // after `old` are; every bit pattern is a valid `T` (`Pod`).
        unsafe { vec.set_len(old + got / size) };
        if got < n * size || capacity == count {
            return Ok(());
        }
        capacity = count / STREAM_GROWTH.pow(divisions);
        divisions = divisions.saturating_sub(1);
    }
}

// ----- reading a block ----------------------------------------------------

/// Bytes of the first step when a block is read from a stream (see
/// [`grow_in_steps`]).
const STREAM_FIRST_STEP: usize = 4 * 1024;

/// How much larger each of a stream's steps may make a block's vector
/// than it was (see [`grow_in_steps`]).
const STREAM_GROWTH: usize = 4;

/// Reads the elements of a block whose count (`count`, read at
/// `count_offset`) was just read: checks that the input can hold them
/// before allocating, then copies them in.
///
/// `seq` is `Some(zero-sized budget left)` for a sequence and `None` for a
/// byte string. A short sequence fails as the element-by-element reading
/// of the same `seq<T>` does (spec 4.4): [`ErrorKind::CountTooLarge`] at
/// the count if the bytes left plus the budget cannot hold it, else
/// [`ErrorKind::UnexpectedEnd`] at the first element not there whole; a
/// short byte string fails whole, at its first byte. From a slice the
/// vector is allocated once. From a stream, whose length is unknown, it
/// grows in steps (from 4 KiB, see [`grow_in_steps`]) as the bytes arrive,
/// so memory follows the input.
pub(crate) fn read_elements<'de, T: Element, R: Read<'de>>(
    read: &mut R,
    count: u32,
    count_offset: u64,
    seq: Option<u64>,
) -> Result<Vec<T>> {
    let count = count as usize;
    let name = <T as private::Sealed>::BLOCK;
    let too_large = |max: u64| {
        Error::at(
            ErrorKind::CountTooLarge {
                count: count as u64,
                max,
            },
            count_offset,
        )
    };
    if let Some(remaining) = read.remaining() {
        let len = count as u64 * T::SIZE as u64;
        if len > remaining {
            // The errors of the element-by-element reading, which every
            // other reader of the same `seq<T>` meets (a `VecDeque<T>`, a
            // set): the count against the bytes left plus the zero-sized
            // budget (spec 3.19.3), then the first element not there whole.
            let max = remaining.saturating_add(seq.unwrap_or(0));
            if count as u64 > max {
                return Err(too_large(max));
            }
            let whole = remaining / T::SIZE as u64;
            return Err(Error::at(
                ErrorKind::UnexpectedEnd {
                    expected: T::NAME,
                    needed: T::SIZE as u64,
                    available: remaining % T::SIZE as u64,
                },
                read.offset() + whole * T::SIZE as u64,
            )
            .in_index(whole));
        }
        let len = len as usize;
        let bytes = read.read_bytes(len, name)?;
        return Ok(vec_from_whole(&bytes));
    }
    let Some(len) = count.checked_mul(T::SIZE) else {
        return Err(too_large(u64::MAX));
    };
    // A block past the stream's byte limit is refused whole, as a string
    // is, rather than after reading up to the limit.
    read.check_byte_limit(len as u64)?;
    let start = read.offset();
    let mut vec = Vec::new();
    grow_in_steps(&mut vec, count, |room, old| {
        let wanted = room.len();
        let written = read.read_up_to(room)?;
        if written.len() == wanted {
            return Ok(written);
        }
        // The stream ended inside the block. Report the first element not
        // there whole, as the element-by-element reading (and a slice) does.
        let received = (old * T::SIZE + written.len()) as u64;
        Err(match seq {
            // A byte string: reported whole, as from a slice.
            None => Error::at(
                ErrorKind::UnexpectedEnd {
                    expected: name,
                    needed: len as u64,
                    available: received,
                },
                start,
            ),
            Some(_) => {
                let whole = received / T::SIZE as u64;
                Error::at(
                    ErrorKind::UnexpectedEnd {
                        expected: T::NAME,
                        needed: T::SIZE as u64,
                        available: received % T::SIZE as u64,
                    },
                    start + whole * T::SIZE as u64,
                )
                .in_index(whole)
            }
        })
    })?;
    le_to_native(&mut vec);
    Ok(vec)
}
