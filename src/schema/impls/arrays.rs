//! [`Schema`] for Kiln's shaped arrays: `array<T>` (5.2, rule 6), the
//! same for owned arrays, views, copy-on-write arrays and ndarray fields
//! written through [`crate::array::serde_ndarray`].

use crate::array::{Array, ArrayCow, ArrayView};
use crate::block::Element;
use crate::dtype::Dtype;
use crate::schema::describe::{Describer, Schema};
use crate::schema::model::Format;

/// `array<T>`, for `T`'s dtype.
fn shaped<T: Element>(d: &mut Describer) -> Format {
    match Dtype::from_code(T::DTYPE) {
        Some(dtype) => Format::Shaped(dtype),
        None => {
            d.fail(T::NAME, "it is an Element without a dtype".into());
            Format::Unit
        }
    }
}

impl<T: Element> Schema for Array<T> {
    fn describe(d: &mut Describer) -> Format {
        shaped::<T>(d)
    }
}

impl<T: Element> Schema for ArrayView<'_, T> {
    fn describe(d: &mut Describer) -> Format {
        shaped::<T>(d)
    }
}

impl<T: Element> Schema for ArrayCow<'_, T> {
    fn describe(d: &mut Describer) -> Format {
        shaped::<T>(d)
    }
}

/// An `ndarray` array's element type, for fields written through
/// [`crate::array::serde_ndarray`].
#[cfg(feature = "ndarray")]
pub trait NdarrayField {
    /// The element type.
    type Element: Element;
}

#[cfg(feature = "ndarray")]
impl<S, D> NdarrayField for ndarray::ArrayBase<S, D>
where
    S: ndarray::RawData,
    S::Elem: Element,
{
    type Element = S::Elem;
}

/// The format of a field written through
/// [`crate::array::serde_ndarray`]: `array<T>`. `#[derive(kiln::Schema)]`
/// calls it for such fields; there is nothing to write by hand.
#[cfg(feature = "ndarray")]
pub fn describe_ndarray<A: NdarrayField>(d: &mut Describer) -> Format {
    shaped::<A::Element>(d)
}
