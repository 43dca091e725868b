//! Shaped arrays: [`Array`] (owned), [`ArrayView`] (borrowed in place) and
//! [`ArrayCow`] (borrowed when the block allows it, copied otherwise).
//!
//! An array is a shape (its dimensions, outermost first) and its elements
//! in row-major order, for the numeric [`Element`] types. In a Kiln record
//! an array's value is its block alone: zero padding up to the next
//! multiple of 64 bytes from the record start, then the elements,
//! little-endian, back to back. Dtype, shape and block location are
//! written once, in the record's directory at its end
//! ([`crate::array::directory`], `spec/08-directory.md`). Because blocks are
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

mod aligned;
pub mod directory;
#[cfg(feature = "ndarray")]
mod nd;
mod wire;

pub use aligned::AlignedBytes;
pub(crate) use aligned::view_block;
pub use directory::{ArrayInfo, fetch, fetch_view, list};
#[cfg(feature = "ndarray")]
pub use nd::serde_ndarray;
pub(crate) use wire::*;

use crate::block::Element;
use crate::error::{Error, ErrorKind, Result};

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
