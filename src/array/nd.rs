//! Conversions between Kiln's arrays and `ndarray` (cargo feature `ndarray`).
//!
//! Owned arrays move their buffer when it is already row-major and
//! contiguous; views convert in place. [`serde_ndarray`] lets a field of
//! type `ndarray::Array<T, D>` be written and read as a Kiln array with
//! `#[serde(with = "kiln::array::serde_ndarray")]`.
//!
//! ```
//! let a = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]).into_dyn();
//! let k = kiln::Array::from(a.clone());
//! assert_eq!(k.shape(), [2, 2]);
//! let bytes = kiln::to_vec(&k)?;
//! let back: kiln::Array<f32> = kiln::from_slice(&bytes)?;
//! assert_eq!(ndarray::ArrayD::try_from(back)?, a);
//! # Ok::<(), kiln::Error>(())
//! ```

use ndarray::{ArrayD, ArrayViewD, Dimension, IxDyn};

use super::{Array, ArrayView};
use crate::block::Element;
use crate::error::{Error, ErrorKind, Result};

fn shape_error(shape: &[usize], len: usize) -> Error {
    Error::new(ErrorKind::ShapeMismatch {
        expected: super::product(shape).map_or(u128::MAX, |n| n as u128),
        found: len as u64,
    })
}

impl<T: Element, D: Dimension> From<ndarray::Array<T, D>> for Array<T> {
    /// Takes the buffer as it is when the array is row-major and starts at
    /// its buffer's start; otherwise copies the elements in row-major order.
    fn from(a: ndarray::Array<T, D>) -> Self {
        let shape = a.shape().to_vec();
        let len = a.len();
        let data = if a.is_standard_layout() {
            // Row-major and contiguous: the elements are `len` in a row
            // from `offset` in the buffer.
            match a.into_raw_vec_and_offset() {
                (v, None) => v,
                (v, Some(0)) if v.len() == len => v,
                (v, Some(off)) => v.into_iter().skip(off).take(len).collect(),
            }
        } else {
            a.iter().copied().collect()
        };
        Array::from_parts_unchecked(shape, data)
    }
}

impl<T: Element> TryFrom<Array<T>> for ArrayD<T> {
    type Error = Error;

    /// Moves the buffer into an `ndarray` array of dynamic rank.
    fn try_from(a: Array<T>) -> Result<Self> {
        let (shape, data) = a.into_parts();
        let len = data.len();
        ArrayD::from_shape_vec(IxDyn(&shape), data).map_err(|_| shape_error(&shape, len))
    }
}

impl<'a, T: Element> ArrayView<'a, T> {
    /// The same elements as an `ndarray` view, without copying.
    ///
    /// # Errors
    /// [`ErrorKind::ShapeMismatch`] if `ndarray` refuses the shape (its
    /// element count above `isize::MAX`).
    pub fn to_ndarray(&self) -> Result<ArrayViewD<'a, T>> {
        ArrayViewD::from_shape(IxDyn(self.shape()), self.data())
            .map_err(|_| shape_error(self.shape(), self.len()))
    }
}

impl<'a, T: Element, D: Dimension> TryFrom<ndarray::ArrayView<'a, T, D>> for ArrayView<'a, T> {
    type Error = Error;

    /// Borrows the view's elements, which must be row-major and contiguous.
    fn try_from(v: ndarray::ArrayView<'a, T, D>) -> Result<Self> {
        let shape = v.shape().to_vec();
        match v.to_slice() {
            Some(data) => Ok(ArrayView::from_parts_unchecked(shape, data)),
            None => Err(Error::new(ErrorKind::ViewUnavailable {
                reason: "the ndarray view is not row-major and contiguous; convert an owned copy",
            })),
        }
    }
}

/// `#[serde(with = "kiln::array::serde_ndarray")]` for `ndarray` fields:
/// written and read as a Kiln [`Array`] (block and directory entry), and as
/// `{shape, data}` in other formats.
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Mesh {
///     #[serde(with = "kiln::array::serde_ndarray")]
///     vertices: ndarray::Array2<f32>,
/// }
///
/// let mesh = Mesh { vertices: ndarray::Array2::zeros((4, 3)) };
/// let bytes = kiln::to_vec(&mesh)?;
/// assert_eq!(kiln::array::list(&bytes)?[0].shape(), [4, 3]);
/// assert_eq!(kiln::from_slice::<Mesh>(&bytes)?, mesh);
/// # Ok::<(), kiln::Error>(())
/// ```
pub mod serde_ndarray {
    use ndarray::{ArrayBase, Data, Dimension, IxDyn};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::array::{Array, ArrayView};
    use crate::block::Element;

    /// Writes `a` as a Kiln array; no copy when it is row-major and contiguous.
    ///
    /// # Errors
    /// Those of the serializer.
    pub fn serialize<S, T, A, D>(a: &ArrayBase<A, D>, s: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        T: Element,
        A: Data<Elem = T>,
        D: Dimension,
    {
        match a.as_slice() {
            Some(data) => ArrayView::from_parts_unchecked(a.shape().to_vec(), data).serialize(s),
            None => Array::from_parts_unchecked(a.shape().to_vec(), a.iter().copied().collect())
                .serialize(s),
        }
    }

    /// Reads a Kiln array into an `ndarray` array of dimension `D`.
    ///
    /// # Errors
    /// Those of the deserializer, and a custom error if the rank is not
    /// `D`'s.
    pub fn deserialize<'de, De, T, D>(d: De) -> Result<ndarray::Array<T, D>, De::Error>
    where
        De: Deserializer<'de>,
        T: Element + Deserialize<'de>,
        D: Dimension,
    {
        let (shape, data) = Array::<T>::deserialize(d)?.into_parts();
        let dynamic = ndarray::ArrayD::from_shape_vec(IxDyn(&shape), data)
            .map_err(serde::de::Error::custom)?;
        dynamic.into_dimensionality::<D>().map_err(|_| {
            serde::de::Error::custom(format_args!(
                "expected rank {:?}, found shape {shape:?}",
                D::NDIM
            ))
        })
    }
}
