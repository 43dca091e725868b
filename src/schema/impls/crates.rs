//! [`Schema`] for the types of crates users put in records, each behind
//! the feature of the crate's name. Each impl says what that crate's
//! `Serialize` writes to a serializer that is not human readable, as
//! Kiln's is; the zoo (`tests/format/zoo.rs`) frames a value of each,
//! reads it back, and walks its bare bytes by the schema alone.

#[allow(unused_imports)]
use crate::schema::describe::{Describer, Schema};
#[allow(unused_imports)]
use crate::schema::model::{Container, Format, Shape};

/// chrono writes its dates and times as ISO 8601 text.
#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::*;

    impl<Tz: chrono::TimeZone> Schema for chrono::DateTime<Tz> {
        fn describe(_: &mut Describer) -> Format {
            Format::Str
        }
    }

    fixed! {
        chrono::NaiveDate => Format::Str,
        chrono::NaiveTime => Format::Str,
        chrono::NaiveDateTime => Format::Str,
    }
}

/// time writes its types, when not human readable, as tuples of their
/// parts.
#[cfg(feature = "time")]
mod time_impls {
    use super::*;

    fixed! {
        time::Date => Format::tuple(vec![Format::I32, Format::U16]),
        time::Time => Format::tuple(vec![Format::U8, Format::U8, Format::U8, Format::U32]),
        time::PrimitiveDateTime => Format::tuple(vec![
            Format::I32, Format::U16, Format::U8, Format::U8, Format::U8, Format::U32,
        ]),
        time::OffsetDateTime => Format::tuple(vec![
            Format::I32, Format::U16, Format::U8, Format::U8, Format::U8, Format::U32,
            Format::I8, Format::I8, Format::I8,
        ]),
        time::UtcOffset => Format::tuple(vec![Format::I8, Format::I8, Format::I8]),
        time::Duration => Format::tuple(vec![Format::I64, Format::I32]),
    }
}

// uuid writes its 16 bytes as a byte string when not human readable.
#[cfg(feature = "uuid")]
fixed! { uuid::Uuid => Format::Bytes }

// rust_decimal writes a decimal as its text.
#[cfg(feature = "rust_decimal")]
fixed! { rust_decimal::Decimal => Format::Str }

// url writes a URL as its text.
#[cfg(feature = "url")]
fixed! { url::Url => Format::Str }

// bytes writes its buffers as byte strings.
#[cfg(feature = "bytes")]
fixed! { bytes::Bytes => Format::Bytes, bytes::BytesMut => Format::Bytes }

/// serde_bytes's buffers are byte strings.
#[cfg(feature = "serde_bytes")]
mod serde_bytes_impls {
    use super::*;

    fixed! { serde_bytes::ByteBuf => Format::Bytes, serde_bytes::Bytes => Format::Bytes }

    impl<const N: usize> Schema for serde_bytes::ByteArray<N> {
        fn describe(_: &mut Describer) -> Format {
            Format::Bytes
        }
    }
}

/// indexmap's maps and sets are written as maps and sequences, in their
/// order.
#[cfg(feature = "indexmap")]
mod indexmap_impls {
    use super::*;

    impl<K: Schema, V: Schema, S> Schema for indexmap::IndexMap<K, V, S> {
        fn describe(d: &mut Describer) -> Format {
            Format::Map(Box::new(d.format::<K>()), Box::new(d.format::<V>()))
        }
    }

    impl<T: Schema, S> Schema for indexmap::IndexSet<T, S> {
        fn describe(d: &mut Describer) -> Format {
            Format::Seq(Box::new(d.format::<T>()))
        }
    }
}

/// A SmallVec is a sequence.
#[cfg(feature = "smallvec")]
impl<A: smallvec::Array> Schema for smallvec::SmallVec<A>
where
    A::Item: Schema,
{
    fn describe(d: &mut Describer) -> Format {
        Format::Seq(Box::new(d.format::<A::Item>()))
    }
}

/// half's floats are written as their bits (a newtype struct of `u16`).
#[cfg(feature = "half")]
mod half_impls {
    use super::*;

    impl Schema for half::f16 {
        fn describe(d: &mut Describer) -> Format {
            d.container::<half::f16>("f16", "half::f16", |_| {
                Container::Struct(Shape::Newtype(Format::U16))
            })
        }
    }

    impl Schema for half::bf16 {
        fn describe(d: &mut Describer) -> Format {
            d.container::<half::bf16>("bf16", "half::bf16", |_| {
                Container::Struct(Shape::Newtype(Format::U16))
            })
        }
    }
}
