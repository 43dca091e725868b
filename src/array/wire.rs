//! How arrays meet serde: the marker names Kiln's serializer and
//! deserializer recognise, and the plain `{ shape, data }` struct every
//! other format sees (`spec/08-directory.md`, 8.2 to 8.4).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Array, ArrayCow, ArrayView, product};
use crate::block::Element;
use crate::block::vec_from_whole;
use crate::error::{Error, ErrorKind, Result};

// ----- writing -----

/// The name Kiln's serializer recognises in `serialize_newtype_struct`.
pub(crate) const WRITE_MARKER: &str = "\0kiln::Array";

macro_rules! array_data {
    ($($ty:ident $variant:ident $code:literal,)*) => {
        /// The elements of an array, typed, for formats other than Kiln.
        #[derive(Clone, Copy)]
        pub(crate) enum ArrayData<'a> {
            $($variant(&'a [$ty]),)*
        }

        impl<'a> ArrayData<'a> {
            fn of<T: Element>(data: &'a [T]) -> Self {
                // `T::DTYPE` names `T` exactly, so each cast is to the same
                // type and cannot fail; `cast_slice` checks size and
                // alignment anyway.
                match T::DTYPE {
                    $($code => ArrayData::$variant(bytemuck::cast_slice(data)),)*
                    _ => unreachable!("every element type has a code of the table"),
                }
            }

            /// The elements' native bytes.
            pub(crate) fn native_bytes(&self) -> &'a [u8] {
                match *self {
                    $(ArrayData::$variant(d) => bytemuck::cast_slice(d),)*
                }
            }
        }

        impl Serialize for ArrayData<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                match *self {
                    $(ArrayData::$variant(d) => d.serialize(s),)*
                }
            }
        }
    };
}
crate::dtype::with_dtypes!(array_data);

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

pub(super) fn serialize_raw<S: Serializer, T: Element>(
    s: S,
    shape: &[usize],
    data: &[T],
) -> std::result::Result<S::Ok, S::Error> {
    if tracing() {
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

/// Serializes an array given as its elements' little-endian bytes (for
/// writers without the Rust type, `crate::value`): in place when the
/// bytes are aligned for the element type on a little-endian host,
/// otherwise copied into typed elements first. `bytes` holds exactly the
/// elements of `shape`.
pub(crate) fn serialize_le_bytes<S: Serializer>(
    s: S,
    dtype: crate::Dtype,
    shape: &[usize],
    bytes: &[u8],
) -> std::result::Result<S::Ok, S::Error> {
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match dtype {
                $(crate::Dtype::$variant => {
                    let in_place = if cfg!(target_endian = "little") {
                        bytemuck::try_cast_slice::<u8, $ty>(bytes).ok()
                    } else {
                        None
                    };
                    match in_place {
                        Some(data) => serialize_raw(s, shape, data),
                        None => {
                            let data = crate::block::vec_from_le_bytes::<$ty>(bytes)
                                .ok_or_else(|| serde::ser::Error::custom("array bytes are not whole elements"))?;
                            serialize_raw(s, shape, &data)
                        }
                    }
                })*
            }
        };
    }
    crate::dtype::with_dtypes!(each)
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
    ($($ty:ident $variant:ident $code:literal,)*) => {
        fn owned_marker(dtype: u8) -> &'static str {
            match dtype {
                $($code => concat!("\0kiln::Array<", stringify!($ty), ">"),)*
                _ => "\0kiln::Array<?>",
            }
        }
        fn view_marker(dtype: u8) -> &'static str {
            match dtype {
                $($code => concat!("\0kiln::ArrayView<", stringify!($ty), ">"),)*
                _ => "\0kiln::ArrayView<?>",
            }
        }
    };
}

crate::dtype::with_dtypes!(read_markers);

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
    let dtype = crate::Dtype::from_name(ty)?;
    Some(Request {
        dtype: dtype.code(),
        name: dtype.name(),
        size: dtype.size(),
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

/// The fields of the struct other formats see.
pub(super) const FIELDS: &[&str] = &["shape", "data"];

/// The elements of an owned array, read either from Kiln's block (bytes)
/// or element by element from another format.
pub(super) struct OwnedData<T>(Vec<T>);

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
                Ok(OwnedData(vec_from_whole(v)))
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
pub(super) struct ViewData<'de, T>(&'de [T]);

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
pub(super) struct ShapedVisitor<D, F> {
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

pub(super) trait DataLen {
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
        if tracing() {
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

/// The elements of an [`ArrayCow`]: borrowed if they can be, else copied.
pub(super) enum CowData<'de, T> {
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
                Ok(CowData::Owned(vec_from_whole(v)))
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

pub(super) struct BlockAccess<'de, 'b> {
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

/// Whether this thread is tracing a schema. [`crate::Array`] and its kin
/// then hand the tracer a bare marker (their element type is in its name)
/// instead of a shape and data the tracer would have to make up; the
/// canonical text writes them as `array<T>`.
#[cfg(feature = "trace")]
pub(crate) fn tracing() -> bool {
    TRACING.with(std::cell::Cell::get)
}

/// Without the tracer (feature `trace`), never.
#[cfg(not(feature = "trace"))]
#[inline(always)]
pub(crate) fn tracing() -> bool {
    false
}

/// Marks this thread as tracing until dropped.
#[cfg(feature = "trace")]
pub(crate) struct Tracing(bool);

#[cfg(feature = "trace")]
impl Tracing {
    pub(crate) fn start() -> Tracing {
        Tracing(TRACING.with(|t| t.replace(true)))
    }
}

#[cfg(feature = "trace")]
impl Drop for Tracing {
    fn drop(&mut self) {
        TRACING.with(|t| t.set(self.0));
    }
}

#[cfg(feature = "trace")]
thread_local! {
    /// Set while this thread runs the schema tracer, so that shaped arrays
    /// stand for themselves (see [`tracing`]).
    static TRACING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
