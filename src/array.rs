//! Shaped arrays: [`Array`] (owned), [`ArrayView`] (borrowed in place) and
//! [`ArrayCow`] (borrowed when the block allows it, copied otherwise).
//!
//! An array is a shape (its dimensions, outermost first) and its elements
//! in row-major order, for the numeric [`Element`] types. In a Kiln record
//! an array's value is its block alone: zero padding up to the next
//! multiple of 64 bytes from the record start, then the elements,
//! little-endian, back to back. Dtype, shape and block location are
//! written once, in the record's directory at its end
//! ([`crate::directory`], `spec/08-directory.md`). Because blocks are
//! 64-aligned from the record start, a record held in 64-aligned memory
//! (or mapped from a file whose record starts on such a boundary) can be
//! read as [`ArrayView`]s that borrow the blocks without copying.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use kiln::{Array, ArrayView};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Sample { label: String, image: Array<f32>, mask: Array<u8> }
//!
//! let sample = Sample {
//!     label: "cat".into(),
//!     image: Array::from_shape_vec(vec![3, 2, 2], vec![0.5; 12])?,
//!     mask: Array::from_shape_vec(vec![2, 2], vec![1, 0, 0, 1])?,
//! };
//! let bytes = kiln::to_vec(&sample)?;
//! // label (7 bytes), padding to 64, image block (48 bytes), padding to
//! // 128, mask block (4), then the directory (2 entries) and trailer.
//! assert_eq!(bytes.len(), 132 + (24 + 3 * 8) + (24 + 2 * 8) + 24);
//! assert_eq!(&bytes[..7], b"\x03\0\0\0cat");
//!
//! let back: Sample = kiln::from_slice(&bytes)?;
//! assert_eq!(back.image.shape(), [3, 2, 2]);
//! assert_eq!(back.mask.data(), [1, 0, 0, 1]);
//!
//! // Views borrow the blocks when the bytes sit in aligned memory:
//! #[derive(Deserialize)]
//! struct SampleView<'a> {
//!     label: &'a str,
//!     #[serde(borrow)] image: ArrayView<'a, f32>,
//!     #[serde(borrow)] mask: ArrayView<'a, u8>,
//! }
//! let mut aligned = kiln::array::AlignedBytes::new();
//! aligned.extend_from_slice(&bytes);
//! let view: SampleView = kiln::from_slice(aligned.as_slice())?;
//! assert_eq!(view.label, "cat");
//! assert_eq!(view.image.data()[0], 0.5);
//! # Ok::<(), kiln::Error>(())
//! ```
//!
//! Other serde formats see an ordinary struct `{ shape, data }` (the name
//! passed to `serialize_newtype_struct` is a private marker that only Kiln
//! acts on), so the same types still work with serde_json and friends;
//! [`ArrayView`] can only be read from Kiln bytes.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::block::Element;
use crate::error::{Error, ErrorKind, Result};

pub use crate::directory::{ArrayInfo, fetch, fetch_view, list};

#[cfg(feature = "ndarray")]
mod nd;
#[cfg(feature = "ndarray")]
pub use nd::serde_ndarray;

/// Product of a shape, saturating (for error messages).
fn product(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

fn check_shape(shape: &[usize], len: usize) -> Result<()> {
    match product(shape) {
        Some(n) if n == len => Ok(()),
        n => Err(Error::new(ErrorKind::ShapeMismatch {
            expected: n.map_or(u128::MAX, |n| n as u128),
            found: len as u64,
        })),
    }
}

/// An owned n-dimensional array: a shape and its elements in row-major
/// order (the last index varies fastest).
///
/// ```
/// let a = kiln::Array::from_shape_vec(vec![2, 3], vec![1u32, 2, 3, 4, 5, 6])?;
/// assert_eq!(a.shape(), [2, 3]);
/// assert_eq!(a.len(), 6);
/// assert_eq!(kiln::Array::from_shape_vec(vec![2, 2], vec![1u32]).unwrap_err().kind().code(),
///            "shape-mismatch");
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Array<T: Element> {
    shape: Vec<usize>,
    data: Vec<T>,
}

impl<T: Element> Array<T> {
    /// An array of the given shape holding `data` in row-major order.
    ///
    /// # Errors
    /// [`ErrorKind::ShapeMismatch`] unless the shape's product is `data.len()`.
    pub fn from_shape_vec(shape: Vec<usize>, data: Vec<T>) -> Result<Self> {
        check_shape(&shape, data.len())?;
        Ok(Array { shape, data })
    }

    /// An array of the given shape with every element zero.
    ///
    /// # Errors
    /// [`ErrorKind::ShapeMismatch`] if the shape's product overflows `usize`.
    pub fn zeros(shape: Vec<usize>) -> Result<Self> {
        let Some(n) = product(&shape) else {
            return Err(Error::new(ErrorKind::ShapeMismatch {
                expected: u128::MAX,
                found: 0,
            }));
        };
        Ok(Array {
            shape,
            data: vec![T::zeroed(); n],
        })
    }

    /// A rank-0 array holding one element.
    pub fn scalar(value: T) -> Self {
        Array {
            shape: Vec::new(),
            data: vec![value],
        }
    }

    /// A rank-1 array holding `data`.
    pub fn from_vec(data: Vec<T>) -> Self {
        Array {
            shape: vec![data.len()],
            data,
        }
    }

    pub(crate) fn from_parts_unchecked(shape: Vec<usize>, data: Vec<T>) -> Self {
        debug_assert_eq!(product(&shape), Some(data.len()));
        Array { shape, data }
    }

    /// The dimensions, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The elements in row-major order.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The elements in row-major order, to change in place.
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the array has no elements (some dimension is zero).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The shape and the elements.
    pub fn into_parts(self) -> (Vec<usize>, Vec<T>) {
        (self.shape, self.data)
    }

    /// A view of this array (for instance to write it without owning it).
    pub fn view(&self) -> ArrayView<'_, T> {
        ArrayView {
            shape: self.shape.clone(),
            data: &self.data,
        }
    }
}

/// An n-dimensional array borrowed in place: a shape and a slice of
/// elements in row-major order.
///
/// Reading an `ArrayView` from Kiln bytes costs no copy: the slice points
/// into the input. That needs the block to be aligned in memory for `T`,
/// which holds when the record starts at a 64-aligned address (blocks are
/// 64-aligned from the record start). When it is not, reading fails with
/// [`ErrorKind::ViewMisaligned`]; read an [`Array`] instead, or use
/// [`ArrayView::to_owned`] on views you keep.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayView<'a, T: Element> {
    shape: Vec<usize>,
    data: &'a [T],
}

impl<'a, T: Element> ArrayView<'a, T> {
    /// A view of `data` with the given shape.
    ///
    /// # Errors
    /// [`ErrorKind::ShapeMismatch`] unless the shape's product is `data.len()`.
    pub fn new(shape: Vec<usize>, data: &'a [T]) -> Result<Self> {
        check_shape(&shape, data.len())?;
        Ok(ArrayView { shape, data })
    }

    pub(crate) fn from_parts_unchecked(shape: Vec<usize>, data: &'a [T]) -> Self {
        debug_assert_eq!(product(&shape), Some(data.len()));
        ArrayView { shape, data }
    }

    /// The dimensions, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The elements in row-major order, borrowed from the input.
    pub fn data(&self) -> &'a [T] {
        self.data
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// An owned copy.
    pub fn to_owned(&self) -> Array<T> {
        Array {
            shape: self.shape.clone(),
            data: self.data.to_vec(),
        }
    }
}

// ----- writing -----

/// The name Kiln's serializer recognises in `serialize_newtype_struct`.
pub(crate) const WRITE_MARKER: &str = "\0kiln::Array";

/// The elements of an array, typed, for formats other than Kiln.
#[derive(Clone, Copy)]
pub(crate) enum ArrayData<'a> {
    U8(&'a [u8]),
    I8(&'a [i8]),
    U16(&'a [u16]),
    I16(&'a [i16]),
    U32(&'a [u32]),
    I32(&'a [i32]),
    U64(&'a [u64]),
    I64(&'a [i64]),
    U128(&'a [u128]),
    I128(&'a [i128]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl<'a> ArrayData<'a> {
    fn of<T: Element>(data: &'a [T]) -> Self {
        // `T::DTYPE` names `T` exactly, so each cast is to the same type and
        // cannot fail; `cast_slice` checks size and alignment anyway.
        use bytemuck::cast_slice as c;
        match T::DTYPE {
            0x01 => ArrayData::U8(c(data)),
            0x02 => ArrayData::I8(c(data)),
            0x03 => ArrayData::U16(c(data)),
            0x04 => ArrayData::I16(c(data)),
            0x05 => ArrayData::U32(c(data)),
            0x06 => ArrayData::I32(c(data)),
            0x07 => ArrayData::U64(c(data)),
            0x08 => ArrayData::I64(c(data)),
            0x09 => ArrayData::U128(c(data)),
            0x0a => ArrayData::I128(c(data)),
            0x0b => ArrayData::F32(c(data)),
            _ => ArrayData::F64(c(data)),
        }
    }

    /// The elements' native bytes.
    pub(crate) fn native_bytes(&self) -> &'a [u8] {
        use bytemuck::cast_slice as c;
        match *self {
            ArrayData::U8(d) => d,
            ArrayData::I8(d) => c(d),
            ArrayData::U16(d) => c(d),
            ArrayData::I16(d) => c(d),
            ArrayData::U32(d) => c(d),
            ArrayData::I32(d) => c(d),
            ArrayData::U64(d) => c(d),
            ArrayData::I64(d) => c(d),
            ArrayData::U128(d) => c(d),
            ArrayData::I128(d) => c(d),
            ArrayData::F32(d) => c(d),
            ArrayData::F64(d) => c(d),
        }
    }
}

impl Serialize for ArrayData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            ArrayData::U8(d) => d.serialize(s),
            ArrayData::I8(d) => d.serialize(s),
            ArrayData::U16(d) => d.serialize(s),
            ArrayData::I16(d) => d.serialize(s),
            ArrayData::U32(d) => d.serialize(s),
            ArrayData::I32(d) => d.serialize(s),
            ArrayData::U64(d) => d.serialize(s),
            ArrayData::I64(d) => d.serialize(s),
            ArrayData::U128(d) => d.serialize(s),
            ArrayData::I128(d) => d.serialize(s),
            ArrayData::F32(d) => d.serialize(s),
            ArrayData::F64(d) => d.serialize(s),
        }
    }
}

/// What [`Array`] and [`ArrayView`] hand to `serialize_newtype_struct`.
/// Kiln's serializer recognises this exact type (by a lifetime-blind type
/// id) and writes a block; other formats serialize it as `{shape, data}`.
pub(crate) struct RawArray<'a> {
    pub(crate) dtype: u8,
    pub(crate) shape: &'a [usize],
    pub(crate) data: ArrayData<'a>,
}

impl Serialize for RawArray<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Array", 2)?;
        st.serialize_field("shape", self.shape)?;
        st.serialize_field("data", &self.data)?;
        st.end()
    }
}

/// `value` as a [`RawArray`], if that is its type.
#[inline]
pub(crate) fn as_raw_array<T: ?Sized>(value: &T) -> Option<&RawArray<'_>> {
    if typeid::of::<T>() == typeid::of::<RawArray<'static>>() {
        // SAFETY: the type ids, which ignore lifetimes, are equal, so `T` is
        // `RawArray<'x>` for some `'x` (a sized type: the thin pointer cast
        // keeps the whole value). `T: 'v` for the borrow `'v` of `value`, so
        // `'x: 'v`, and `RawArray` is covariant in its lifetime: the result,
        // a `&'v RawArray<'v>`, is no longer-lived than what it points to.
        Some(unsafe { &*(value as *const T as *const RawArray<'_>) })
    } else {
        None
    }
}

fn serialize_raw<S: Serializer, T: Element>(
    s: S,
    shape: &[usize],
    data: &[T],
) -> std::result::Result<S::Ok, S::Error> {
    if crate::schema::tracing() {
        // The schema tracer needs only the element type, in the name.
        return s.serialize_newtype_struct(owned_marker(T::DTYPE), &());
    }
    s.serialize_newtype_struct(
        WRITE_MARKER,
        &RawArray {
            dtype: T::DTYPE,
            shape,
            data: ArrayData::of(data),
        },
    )
}

impl<T: Element> Serialize for Array<T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        serialize_raw(s, &self.shape, &self.data)
    }
}

impl<T: Element> Serialize for ArrayView<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        serialize_raw(s, &self.shape, self.data)
    }
}

// ----- reading -----

/// What the reader asked for: the element type and whether it borrows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Request {
    pub(crate) dtype: u8,
    pub(crate) name: &'static str,
    pub(crate) size: usize,
    pub(crate) view: bool,
}

macro_rules! read_markers {
    ($($code:literal $ty:literal,)*) => {
        fn owned_marker(dtype: u8) -> &'static str {
            match dtype {
                $($code => concat!("\0kiln::Array<", $ty, ">"),)*
                _ => "\0kiln::Array<?>",
            }
        }
        fn view_marker(dtype: u8) -> &'static str {
            match dtype {
                $($code => concat!("\0kiln::ArrayView<", $ty, ">"),)*
                _ => "\0kiln::ArrayView<?>",
            }
        }
    };
}

read_markers! {
    0x01 "u8", 0x02 "i8", 0x03 "u16", 0x04 "i16", 0x05 "u32", 0x06 "i32",
    0x07 "u64", 0x08 "i64", 0x09 "u128", 0x0a "i128", 0x0b "f32", 0x0c "f64",
}

/// The request behind a `deserialize_newtype_struct` name, if it is one of
/// the markers above. Cheap for other names: one byte compare.
#[inline]
pub(crate) fn request(name: &str) -> Option<Request> {
    if !name.starts_with('\0') {
        return None;
    }
    let (rest, view) = if let Some(r) = name.strip_prefix("\0kiln::ArrayView<") {
        (r, true)
    } else {
        (name.strip_prefix("\0kiln::Array<")?, false)
    };
    let ty = rest.strip_suffix('>')?;
    let dtype = (1..=0x0c).find(|&c| crate::block::dtype_name(c) == Some(ty))?;
    Some(Request {
        dtype,
        name: crate::block::dtype_name(dtype)?,
        size: crate::block::dtype_size(dtype)?,
        view,
    })
}

/// Converts directory dimensions to `usize` (they may not fit on 32-bit
/// hosts when some other dimension is zero).
pub(crate) fn shape_to_usize(shape: &[u64], at: u64) -> Result<Vec<usize>> {
    shape
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                Error::at(
                    ErrorKind::DimensionLimit {
                        dim: d,
                        max: usize::MAX as u64,
                    },
                    at,
                )
            })
        })
        .collect()
}

/// Copies a block's little-endian bytes into a new `Vec<T>`: one copy.
pub(crate) fn copy_block<T: Element>(bytes: &[u8]) -> Vec<T> {
    let n = bytes.len() / T::SIZE;
    let src = &bytes[..n * T::SIZE];
    let mut out = Vec::<T>::with_capacity(n);
    // Copying into the uninitialised capacity instead of a zeroed vector
    // saves a pass over the memory: the allocator reuses freed memory, so
    // a zeroed vector costs a memset as large as the copy (measured in
    // benches/arrays.rs: owned reads went from about 70% of a plain copy
    // to about its speed).
    // SAFETY: `out` has capacity for `n` elements, that is `src.len()`
    // bytes; `src` cannot overlap the fresh allocation; `T: Pod`, so every
    // byte pattern is a valid `T`, and all `n` elements are written before
    // `set_len(n)`.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), out.as_mut_ptr().cast::<u8>(), src.len());
        out.set_len(n);
    }
    if cfg!(target_endian = "big") {
        for v in &mut out {
            *v = v.swap_bytes();
        }
    }
    out
}

/// Borrows a block as `&[T]`, if it is aligned in memory and the host is
/// little-endian.
pub(crate) fn view_block<T: Element>(bytes: &[u8], at: u64) -> Result<&[T]> {
    if cfg!(target_endian = "big") {
        return Err(Error::at(
            ErrorKind::ViewUnavailable {
                reason: "blocks are little-endian and this host is big-endian; read an owned Array",
            },
            at,
        ));
    }
    // Aligned to the element size (at least its alignment), as the
    // deserializer checks, so the answer is the same on every host.
    let misaligned = || {
        Error::at(
            ErrorKind::ViewMisaligned {
                align: T::SIZE as u64,
            },
            at,
        )
    };
    if !(bytes.as_ptr() as usize).is_multiple_of(T::SIZE) {
        return Err(misaligned());
    }
    bytemuck::try_cast_slice(bytes).map_err(|_| misaligned())
}

/// The fields of the struct other formats see.
const FIELDS: &[&str] = &["shape", "data"];

/// The elements of an owned array, read either from Kiln's block (bytes)
/// or element by element from another format.
struct OwnedData<T>(Vec<T>);

impl<'de, T: Element + Deserialize<'de>> Deserialize<'de> for OwnedData<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Element + Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OwnedData<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a sequence of {}", T::NAME)
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Self::Value, E> {
                if !v.len().is_multiple_of(T::SIZE) {
                    return Err(E::invalid_length(v.len(), &self));
                }
                Ok(OwnedData(copy_block(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                // Reserve no more than a page's worth on the input's word.
                let hint = seq.size_hint().unwrap_or(0).min(4096 / T::SIZE.max(1));
                let mut out = Vec::with_capacity(hint);
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(OwnedData(out))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

/// The elements of a view: only Kiln's borrowed block will do.
struct ViewData<'de, T>(&'de [T]);

impl<'de, T: Element> Deserialize<'de> for ViewData<'de, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Element> Visitor<'de> for V<T> {
            type Value = ViewData<'de, T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a Kiln block of {} borrowed from the input", T::NAME)
            }
            fn visit_borrowed_bytes<E: de::Error>(
                self,
                v: &'de [u8],
            ) -> std::result::Result<Self::Value, E> {
                // Kiln checks alignment before it gets here; this is the
                // checked cast all the same.
                bytemuck::try_cast_slice(v)
                    .map(ViewData)
                    .map_err(|e| E::custom(format_args!("cannot view block: {e}")))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

/// Reads `{shape, data}` as a sequence (Kiln, binary formats) or a map
/// (self-describing formats), then checks the shape against the data.
struct ShapedVisitor<D, F> {
    what: &'static str,
    make: F,
    marker: PhantomData<D>,
}

impl<'de, D, F, Out> ShapedVisitor<D, F>
where
    D: Deserialize<'de> + DataLen,
    F: FnOnce(Vec<usize>, D) -> Out,
{
    fn finish<E: de::Error>(self, shape: Vec<usize>, data: D) -> std::result::Result<Out, E> {
        let len = data.len();
        if product(&shape) != Some(len) {
            return Err(E::custom(format_args!(
                "shape {shape:?} does not hold {len} elements"
            )));
        }
        Ok((self.make)(shape, data))
    }
}

trait DataLen {
    fn len(&self) -> usize;
    /// No elements: what the schema tracer gets.
    fn empty() -> Self;
}
impl<T> DataLen for OwnedData<T> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn empty() -> Self {
        OwnedData(Vec::new())
    }
}
impl<T> DataLen for ViewData<'_, T> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn empty() -> Self {
        ViewData(&[])
    }
}

impl<'de, D, F, Out> Visitor<'de> for ShapedVisitor<D, F>
where
    D: Deserialize<'de> + DataLen,
    F: FnOnce(Vec<usize>, D) -> Out,
{
    type Value = Out;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.what)
    }

    fn visit_newtype_struct<De: Deserializer<'de>>(
        self,
        d: De,
    ) -> std::result::Result<Out, De::Error> {
        if crate::schema::tracing() {
            // The tracer learns the element type from the marker's name
            // (`array<T>` in the schema text); there is nothing inside.
            <()>::deserialize(d)?;
            return Ok((self.make)(vec![0], D::empty()));
        }
        d.deserialize_struct("Array", FIELDS, self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Out, A::Error> {
        let shape: Vec<usize> = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let data: D = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        self.finish(shape, data)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Out, A::Error> {
        let (mut shape, mut data) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "shape" => shape = Some(map.next_value::<Vec<usize>>()?),
                "data" => data = Some(map.next_value::<D>()?),
                other => return Err(de::Error::unknown_field(other, FIELDS)),
            }
        }
        let shape = shape.ok_or_else(|| de::Error::missing_field("shape"))?;
        let data = data.ok_or_else(|| de::Error::missing_field("data"))?;
        self.finish(shape, data)
    }
}

impl<'de, T: Element + Deserialize<'de>> Deserialize<'de> for Array<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_newtype_struct(
            owned_marker(T::DTYPE),
            ShapedVisitor {
                what: "a shaped array",
                make: |shape, data: OwnedData<T>| Array {
                    shape,
                    data: data.0,
                },
                marker: PhantomData,
            },
        )
    }
}

impl<'de: 'a, 'a, T: Element> Deserialize<'de> for ArrayView<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_newtype_struct(
            view_marker(T::DTYPE),
            ShapedVisitor {
                what: "a shaped array borrowed from Kiln bytes",
                make: |shape, data: ViewData<'de, T>| ArrayView {
                    shape,
                    data: data.0,
                },
                marker: PhantomData,
            },
        )
    }
}

/// An array that borrows its block when it can and copies it when it
/// cannot: the block is misaligned in memory, the input is a stream, the
/// host is big-endian, or the format is not Kiln.
///
/// Where [`ArrayView`] fails with [`ErrorKind::ViewMisaligned`],
/// `ArrayCow` says which way it went ([`ArrayCow::is_borrowed`]) and always
/// reads.
///
/// ```
/// use kiln::array::{AlignedBytes, ArrayCow};
///
/// let bytes = kiln::to_vec(&kiln::Array::from_vec(vec![1.5f32, 2.5]))?;
/// let aligned = AlignedBytes::from_slice(&bytes);
/// let a: ArrayCow<f32> = kiln::from_slice(aligned.as_slice())?;
/// assert!(a.is_borrowed());
///
/// let mut shifted = vec![0u8];
/// shifted.extend_from_slice(&bytes);
/// let shifted = AlignedBytes::from_slice(&shifted);
/// let b: ArrayCow<f32> = kiln::from_slice(&shifted.as_slice()[1..])?;
/// assert!(!b.is_borrowed());
/// assert_eq!(a.data(), b.data());
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayCow<'a, T: Element> {
    /// The block, in place.
    Borrowed(ArrayView<'a, T>),
    /// A copy of the block.
    Owned(Array<T>),
}

impl<T: Element> ArrayCow<'_, T> {
    /// Whether the elements are borrowed from the input.
    pub fn is_borrowed(&self) -> bool {
        matches!(self, ArrayCow::Borrowed(_))
    }

    /// The dimensions, outermost first.
    pub fn shape(&self) -> &[usize] {
        match self {
            ArrayCow::Borrowed(v) => v.shape(),
            ArrayCow::Owned(a) => a.shape(),
        }
    }

    /// The elements in row-major order.
    pub fn data(&self) -> &[T] {
        match self {
            ArrayCow::Borrowed(v) => v.data(),
            ArrayCow::Owned(a) => a.data(),
        }
    }

    /// An owned array (a copy only if borrowed).
    pub fn into_owned(self) -> Array<T> {
        match self {
            ArrayCow::Borrowed(v) => v.to_owned(),
            ArrayCow::Owned(a) => a,
        }
    }
}

/// The elements of an [`ArrayCow`]: borrowed if they can be, else copied.
enum CowData<'de, T> {
    Borrowed(&'de [T]),
    Owned(Vec<T>),
}

impl<T> DataLen for CowData<'_, T> {
    fn len(&self) -> usize {
        match self {
            CowData::Borrowed(d) => d.len(),
            CowData::Owned(d) => d.len(),
        }
    }
    fn empty() -> Self {
        CowData::Owned(Vec::new())
    }
}

impl<'de, T: Element + Deserialize<'de>> Deserialize<'de> for CowData<'de, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Element + Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = CowData<'de, T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a sequence of {}", T::NAME)
            }
            fn visit_borrowed_bytes<E: de::Error>(
                self,
                v: &'de [u8],
            ) -> std::result::Result<Self::Value, E> {
                match bytemuck::try_cast_slice(v) {
                    Ok(data) if cfg!(target_endian = "little") => Ok(CowData::Borrowed(data)),
                    _ => self.visit_bytes(v),
                }
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Self::Value, E> {
                if !v.len().is_multiple_of(T::SIZE) {
                    return Err(E::invalid_length(v.len(), &self));
                }
                Ok(CowData::Owned(copy_block(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let owned: OwnedData<T> =
                    Deserialize::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(CowData::Owned(owned.0))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

impl<'de: 'a, 'a, T: Element + Deserialize<'de>> Deserialize<'de> for ArrayCow<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        // Read as an owned array would be (no view checks); the data
        // visitor borrows when the block allows it.
        d.deserialize_newtype_struct(
            owned_marker(T::DTYPE),
            ShapedVisitor {
                what: "a shaped array",
                make: |shape, data: CowData<'de, T>| match data {
                    CowData::Borrowed(d) => {
                        ArrayCow::Borrowed(ArrayView::from_parts_unchecked(shape, d))
                    }
                    CowData::Owned(d) => ArrayCow::Owned(Array::from_parts_unchecked(shape, d)),
                },
                marker: PhantomData,
            },
        )
    }
}

impl<T: Element> Serialize for ArrayCow<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        serialize_raw(s, self.shape(), self.data())
    }
}

/// What Kiln's deserializer hands to the visitor of an array: a sequence
/// of the shape, then the block's bytes (borrowed when the input allows).
pub(crate) struct BlockDeserializer<'de, 'b> {
    pub(crate) shape: Vec<usize>,
    pub(crate) bytes: crate::read::Reference<'de, 'b, [u8]>,
}

impl<'de> de::Deserializer<'de> for BlockDeserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(BlockAccess {
            shape: Some(self.shape),
            bytes: Some(self.bytes),
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct BlockAccess<'de, 'b> {
    shape: Option<Vec<usize>>,
    bytes: Option<crate::read::Reference<'de, 'b, [u8]>>,
}

impl<'de> SeqAccess<'de> for BlockAccess<'de, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        use serde::de::value::{BorrowedBytesDeserializer, BytesDeserializer, SeqDeserializer};
        if let Some(shape) = self.shape.take() {
            return seed
                .deserialize(SeqDeserializer::<_, Error>::new(shape.into_iter()))
                .map(Some);
        }
        match self.bytes.take() {
            Some(crate::read::Reference::Borrowed(b)) => seed
                .deserialize(BorrowedBytesDeserializer::<Error>::new(b))
                .map(Some),
            Some(crate::read::Reference::Copied(b)) => seed
                .deserialize(BytesDeserializer::<Error>::new(b))
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.shape.is_some() as usize + self.bytes.is_some() as usize)
    }
}

/// A growable byte buffer whose start is 64-byte aligned, so that Kiln
/// records copied or read into it can be viewed in place.
///
/// ```
/// let mut buf = kiln::array::AlignedBytes::new();
/// buf.extend_from_slice(&[1, 2, 3]);
/// assert_eq!(buf.as_slice(), [1, 2, 3]);
/// assert_eq!(buf.as_slice().as_ptr() as usize % 64, 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct AlignedBytes {
    chunks: Vec<Chunk>,
    len: usize,
}

#[derive(Clone, Copy, Debug, bytemuck::Zeroable, bytemuck::Pod)]
#[repr(C, align(64))]
struct Chunk([u8; 64]);

impl AlignedBytes {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// A buffer holding a copy of `bytes`.
    pub fn from_slice(bytes: &[u8]) -> Self {
        let mut b = Self::new();
        b.extend_from_slice(bytes);
        b
    }

    /// Appends `bytes`.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        let new_len = self.len + bytes.len();
        self.chunks.resize(new_len.div_ceil(64), Chunk([0; 64]));
        let all: &mut [u8] = bytemuck::cast_slice_mut(&mut self.chunks);
        all[self.len..new_len].copy_from_slice(bytes);
        self.len = new_len;
    }

    /// The bytes, starting at a 64-aligned address.
    pub fn as_slice(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.chunks)[..self.len]
    }
}
