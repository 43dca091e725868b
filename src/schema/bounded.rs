//! A deserializer adapter that bounds how deeply the schema tracer may
//! follow a type.
//!
//! serde-reflection stops at a named container it has seen, but a type
//! that reaches itself only through unnamed steps (`#[serde(transparent)]`
//! around an `Option`, `Box`, `Vec` or map of itself) would be followed
//! forever, until the stack overflows. The adapter sits between the traced
//! type and the tracer's deserializer, passes every call through
//! unchanged, and counts the nesting levels on the way down: past
//! [`MAX_DEPTH`] it fails with [`TOO_DEEP`], which
//! [`trace_error`](super::trace_error) turns into an error naming the type.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

/// Nesting levels the tracer follows. A decode refuses values nested
/// deeper than 128 by default anyway, so no type worth a schema is lost.
pub(super) const MAX_DEPTH: u32 = 128;

/// The message of the error the adapter raises past [`MAX_DEPTH`].
pub(super) const TOO_DEEP: &str = "kiln: nesting deeper than the tracer follows";

/// The seed the tracer is given in place of `T` itself.
pub(super) struct Root<T>(PhantomData<fn() -> T>);

impl<T> Root<T> {
    pub(super) fn new() -> Self {
        Root(PhantomData)
    }
}

impl<T> Clone for Root<T> {
    fn clone(&self) -> Self {
        Root::new()
    }
}

impl<'de, T: de::Deserialize<'de>> DeserializeSeed<'de> for Root<T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(Bounded { inner: d, depth: 0 })
    }
}

/// One level deeper than `depth`, or the error past the limit.
fn deeper<E: de::Error>(depth: u32) -> Result<u32, E> {
    if depth >= MAX_DEPTH {
        return Err(E::custom(TOO_DEEP));
    }
    Ok(depth + 1)
}

struct Bounded<D> {
    inner: D,
    depth: u32,
}

struct Wrap<V> {
    inner: V,
    depth: u32,
}

struct Seed<S> {
    inner: S,
    depth: u32,
}

impl<A> Wrap<A> {
    /// `seed`, to be run at this level.
    fn seed<S>(&self, seed: S) -> Seed<S> {
        Seed {
            inner: seed,
            depth: self.depth,
        }
    }

    /// `visitor`, to be run at this level.
    fn wrap<V>(&self, visitor: V) -> Wrap<V> {
        Wrap {
            inner: visitor,
            depth: self.depth,
        }
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Bounded {
            inner: d,
            depth: self.depth,
        })
    }
}

/// Methods that pass their arguments on and wrap the visitor.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* Wrap { inner: visitor, depth: self.depth })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Bounded<D> {
    type Error = D::Error;

    forward! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16()
        deserialize_i32() deserialize_i64() deserialize_i128() deserialize_u8()
        deserialize_u16() deserialize_u32() deserialize_u64() deserialize_u128()
        deserialize_f32() deserialize_f64() deserialize_char() deserialize_str()
        deserialize_string() deserialize_bytes() deserialize_byte_buf() deserialize_option()
        deserialize_unit() deserialize_seq() deserialize_map() deserialize_identifier()
        deserialize_ignored_any()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! visit {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str)
        visit_borrowed_str(&'de str) visit_string(String) visit_bytes(&[u8])
        visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let depth = deeper(self.depth)?;
        self.inner.visit_some(Bounded { inner: d, depth })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let depth = deeper(self.depth)?;
        self.inner.visit_newtype_struct(Bounded { inner: d, depth })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let depth = deeper(self.depth)?;
        self.inner.visit_seq(Wrap { inner: seq, depth })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let depth = deeper(self.depth)?;
        self.inner.visit_map(Wrap { inner: map, depth })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        let depth = deeper(self.depth)?;
        self.inner.visit_enum(Wrap { inner: data, depth })
    }
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Wrap<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let seed = self.seed(seed);
        self.inner.next_element_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Wrap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let seed = self.seed(seed);
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let seed = self.seed(seed);
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: de::EnumAccess<'de>> de::EnumAccess<'de> for Wrap<A> {
    type Error = A::Error;
    type Variant = Wrap<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Wrap<A::Variant>), A::Error> {
        let depth = self.depth;
        let seed = Seed { inner: seed, depth };
        let (value, variant) = self.inner.variant_seed(seed)?;
        Ok((
            value,
            Wrap {
                inner: variant,
                depth,
            },
        ))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Wrap<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        let seed = self.seed(seed);
        self.inner.newtype_variant_seed(seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let visitor = self.wrap(visitor);
        self.inner.tuple_variant(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let visitor = self.wrap(visitor);
        self.inner.struct_variant(fields, visitor)
    }
}
