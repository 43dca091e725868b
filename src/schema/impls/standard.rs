//! [`Schema`] for the standard library's types: the format each of
//! serde's own impls writes, under Kiln's serializer (which is not human
//! readable, so addresses are bytes, not strings).
//!
//! Every impl here is checked by the zoo (`tests/format/zoo.rs`), which
//! frames a value of each type, reads it back, and walks its bare bytes by
//! the schema alone.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI128, NonZeroIsize, NonZeroU8,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU128, NonZeroUsize, Saturating, Wrapping,
};
use std::ops::{Bound, Range, RangeFrom, RangeInclusive, RangeTo};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use crate::schema::describe::{Describer, Schema};
use crate::schema::model::{Container, Field, Format, Shape, Variant};

fixed! {
    () => Format::Unit,
    bool => Format::Bool,
    i8 => Format::I8, i16 => Format::I16, i32 => Format::I32, i64 => Format::I64,
    i128 => Format::I128, isize => Format::I64,
    u8 => Format::U8, u16 => Format::U16, u32 => Format::U32, u64 => Format::U64,
    u128 => Format::U128, usize => Format::U64,
    f32 => Format::F32, f64 => Format::F64,
    char => Format::Char,
    str => Format::Str, String => Format::Str,
    Path => Format::Str, PathBuf => Format::Str,
    // serde writes C strings as byte strings, without the NUL.
    CStr => Format::Bytes, CString => Format::Bytes,
    Ipv4Addr => Format::tuple(vec![Format::U8; 4]),
    Ipv6Addr => Format::tuple(vec![Format::U8; 16]),
    atomic::AtomicBool => Format::Bool,
    atomic::AtomicI8 => Format::I8, atomic::AtomicI16 => Format::I16,
    atomic::AtomicI32 => Format::I32, atomic::AtomicI64 => Format::I64,
    atomic::AtomicIsize => Format::I64,
    atomic::AtomicU8 => Format::U8, atomic::AtomicU16 => Format::U16,
    atomic::AtomicU32 => Format::U32, atomic::AtomicU64 => Format::U64,
    atomic::AtomicUsize => Format::U64,
}

/// Types written as their one parameter is: pointers, cells, wrappers.
macro_rules! as_inner {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: Schema + ?Sized> Schema for $ty<T> {
            fn describe(d: &mut Describer) -> Format {
                d.format::<T>()
            }
        }
    )*};
}

as_inner!(Box, Rc, Arc, Mutex, RwLock);

macro_rules! as_inner_sized {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: Schema> Schema for $ty<T> {
            fn describe(d: &mut Describer) -> Format {
                d.format::<T>()
            }
        }
    )*};
}

as_inner_sized!(Cell, RefCell, Wrapping, Saturating, Reverse);

impl<T: Schema + ?Sized> Schema for &T {
    fn describe(d: &mut Describer) -> Format {
        d.format::<T>()
    }
}

impl<T: Schema + ?Sized> Schema for &mut T {
    fn describe(d: &mut Describer) -> Format {
        d.format::<T>()
    }
}

impl<T: Schema + ToOwned + ?Sized> Schema for Cow<'_, T> {
    fn describe(d: &mut Describer) -> Format {
        d.format::<T>()
    }
}

fixed! {
    NonZeroI8 => Format::I8, NonZeroI16 => Format::I16, NonZeroI32 => Format::I32,
    NonZeroI64 => Format::I64, NonZeroI128 => Format::I128, NonZeroIsize => Format::I64,
    NonZeroU8 => Format::U8, NonZeroU16 => Format::U16, NonZeroU32 => Format::U32,
    NonZeroU64 => Format::U64, NonZeroU128 => Format::U128, NonZeroUsize => Format::U64,
}

impl<T: Schema> Schema for Option<T> {
    fn describe(d: &mut Describer) -> Format {
        Format::Option(Box::new(d.format::<T>()))
    }
}

/// Sequences: a count, then the elements.
macro_rules! seq {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: Schema> Schema for $ty<T> {
            fn describe(d: &mut Describer) -> Format {
                Format::Seq(Box::new(d.format::<T>()))
            }
        }
    )*};
}

seq!(Vec, VecDeque, LinkedList, BinaryHeap, BTreeSet);

impl<T: Schema> Schema for [T] {
    fn describe(d: &mut Describer) -> Format {
        Format::Seq(Box::new(d.format::<T>()))
    }
}

impl<T: Schema, S> Schema for HashSet<T, S> {
    fn describe(d: &mut Describer) -> Format {
        Format::Seq(Box::new(d.format::<T>()))
    }
}

impl<K: Schema, V: Schema> Schema for BTreeMap<K, V> {
    fn describe(d: &mut Describer) -> Format {
        Format::Map(Box::new(d.format::<K>()), Box::new(d.format::<V>()))
    }
}

impl<K: Schema, V: Schema, S> Schema for HashMap<K, V, S> {
    fn describe(d: &mut Describer) -> Format {
        Format::Map(Box::new(d.format::<K>()), Box::new(d.format::<V>()))
    }
}

/// `[T; N]` is a tuple of `N` elements to serde (so `[T; N]` with `N >= 2`
/// in the text, `(T,)` and `()` below).
impl<T: Schema, const N: usize> Schema for [T; N] {
    fn describe(d: &mut Describer) -> Format {
        let element = d.format::<T>();
        Format::tuple(vec![element; N])
    }
}

macro_rules! tuples {
    ($(($($name:ident),+))*) => {$(
        impl<$($name: Schema),+> Schema for ($($name,)+) {
            fn describe(d: &mut Describer) -> Format {
                Format::tuple(vec![$(d.format::<$name>()),+])
            }
        }
    )*};
}

tuples! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
    (A, B, C, D, E, F, G, H, I)
    (A, B, C, D, E, F, G, H, I, J)
    (A, B, C, D, E, F, G, H, I, J, K)
    (A, B, C, D, E, F, G, H, I, J, K, L)
    (A, B, C, D, E, F, G, H, I, J, K, L, M)
    (A, B, C, D, E, F, G, H, I, J, K, L, M, N)
    (A, B, C, D, E, F, G, H, I, J, K, L, M, N, O)
    (A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P)
}

impl<T: ?Sized> Schema for PhantomData<T> {
    fn describe(d: &mut Describer) -> Format {
        d.container::<PhantomData<()>>("PhantomData", "PhantomData", |_| {
            Container::Struct(Shape::Unit)
        })
    }
}

/// Structs serde names after the Rust type: `(field, type)` pairs.
macro_rules! named_struct {
    ($($ty:ident => [$($field:literal: $fty:ty),+]),* $(,)?) => {$(
        impl Schema for $ty {
            fn describe(d: &mut Describer) -> Format {
                d.container::<$ty>(stringify!($ty), std::any::type_name::<$ty>(), |d| {
                    Container::Struct(Shape::Struct(vec![
                        $(Field::new($field, d.format::<$fty>())),+
                    ]))
                })
            }
        }
    )*};
}

named_struct! {
    Duration => ["secs": u64, "nanos": u32],
    SystemTime => ["secs_since_epoch": u64, "nanos_since_epoch": u32],
}

/// Enums of a V4 and a V6 form, which serde names after the Rust type
/// when not human readable.
macro_rules! v4_or_v6 {
    ($($ty:ident => $v4:ty, $v6:ty);* $(;)?) => {$(
        impl Schema for $ty {
            fn describe(d: &mut Describer) -> Format {
                d.container::<$ty>(stringify!($ty), std::any::type_name::<$ty>(), |d| {
                    Container::Enum(vec![
                        Variant::new("V4", Shape::Newtype(d.format::<$v4>())),
                        Variant::new("V6", Shape::Newtype(d.format::<$v6>())),
                    ])
                })
            }
        }
    )*};
}

v4_or_v6! {
    IpAddr => Ipv4Addr, Ipv6Addr;
    SocketAddr => SocketAddrV4, SocketAddrV6;
}

/// serde writes a socket address, when not human readable, as the tuple
/// (address, port).
impl Schema for SocketAddrV4 {
    fn describe(d: &mut Describer) -> Format {
        Format::tuple(vec![d.format::<Ipv4Addr>(), d.format::<u16>()])
    }
}

impl Schema for SocketAddrV6 {
    fn describe(d: &mut Describer) -> Format {
        Format::tuple(vec![d.format::<Ipv6Addr>(), d.format::<u16>()])
    }
}

/// `Range`, `RangeInclusive`, `RangeFrom`, `RangeTo`: structs of their
/// bounds, which serde names after the Rust type.
macro_rules! ranges {
    ($($ty:ident => [$($field:literal),+]),* $(,)?) => {$(
        impl<Idx: Schema> Schema for $ty<Idx> {
            fn describe(d: &mut Describer) -> Format {
                d.container::<$ty<Idx>>(stringify!($ty), std::any::type_name::<Self>(), |d| {
                    Container::Struct(Shape::Struct(vec![
                        $(Field::new($field, d.format::<Idx>())),+
                    ]))
                })
            }
        }
    )*};
}

ranges! {
    Range => ["start", "end"],
    RangeInclusive => ["start", "end"],
    RangeFrom => ["start"],
    RangeTo => ["end"],
}

impl<T: Schema> Schema for Bound<T> {
    fn describe(d: &mut Describer) -> Format {
        d.container::<Bound<T>>("Bound", std::any::type_name::<Self>(), |d| {
            let inner = d.format::<T>();
            Container::Enum(vec![
                Variant::new("Unbounded", Shape::Unit),
                Variant::new("Included", Shape::Newtype(inner.clone())),
                Variant::new("Excluded", Shape::Newtype(inner)),
            ])
        })
    }
}

impl<T: Schema, E: Schema> Schema for Result<T, E> {
    fn describe(d: &mut Describer) -> Format {
        d.container::<Result<T, E>>("Result", std::any::type_name::<Self>(), |d| {
            Container::Enum(vec![
                Variant::new("Ok", Shape::Newtype(d.format::<T>())),
                Variant::new("Err", Shape::Newtype(d.format::<E>())),
            ])
        })
    }
}
