//! Hand-written [`Schema`](super::Schema) impls for types Kiln does not
//! derive: the standard library's, Kiln's own arrays, and, behind
//! features, those of the crates users put in records. Each says the
//! format that type's own `Serialize` impl writes to Kiln.

/// `Schema` for types written as one fixed format.
#[allow(unused_macros)]
macro_rules! fixed {
    ($($ty:ty => $format:expr),* $(,)?) => {$(
        impl crate::schema::describe::Schema for $ty {
            fn describe(_: &mut crate::schema::describe::Describer) -> crate::schema::model::Format {
                $format
            }
        }
    )*};
}

pub(crate) mod arrays;
mod crates;
mod standard;
