//! Kiln bytes read and written without the Rust type that wrote them:
//! [`Value`], a typed tree built from a schema ([`Plan`]) that a frame
//! carries, a file holds, or a type describes.
//!
//! The schema drives every step, so a value read this way is read with the
//! same rules as by the type: the same limits, the same errors at the same
//! byte offsets. A [`Value`] implements `Serialize`, so it converts to JSON
//! (or YAML, or any serde format) by the mapping of `spec/10-values.md`;
//! and a value that fits a schema encodes back to the same Kiln bytes.
//!
//! ```
//! use kiln::value::{self, Plan, Value};
//!
//! let plan = Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
//! let bytes = [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff];
//! let point = value::from_slice(&bytes, &plan)?;
//! assert_eq!(point.get("y"), Some(&Value::I32(-4)));
//! assert_eq!(serde_json::to_string(&point).unwrap(), r#"{"x":9,"y":-4}"#);
//! assert_eq!(value::to_vec(&point, &plan)?, bytes);
//!
//! // And from JSON, strictly: what does not fit the schema names its path.
//! let json = |text| value::from_deserializer(&mut serde_json::Deserializer::from_str(text), &plan);
//! let v = json(r#"{"x": 1, "y": 2}"#)?;
//! assert_eq!(value::to_vec(&v, &plan)?, [1, 0, 0, 0, 2, 0, 0, 0]);
//! let err = json(r#"{"x": 1, "y": 2.5}"#).unwrap_err();
//! assert_eq!(err.kind().code(), "value-mismatch");
//! assert_eq!(err.path().as_deref(), Some("Point.y"));
//! # Ok::<(), kiln::Error>(())
//! ```

mod build;
mod decode;
pub(crate) mod encode;
mod frames;
mod from_serde;
mod json_out;
mod json_program;
mod plan;
mod serialize;
mod table;

pub use build::{Build, Compound, build_frame, build_slice};
pub(crate) use decode::Seed;
pub(crate) use frames::plan_of;
pub use frames::{
    BareRecords, FrameRecords, JsonRecords, StreamRecords, bare_records, frame_records,
    frame_records_with,
};
pub use plan::Plan;
pub use table::{Table, table};

use std::borrow::Cow;
use std::sync::Arc;

use crate::dtype::Dtype;
use crate::error::Result;
use crate::options::Options;
use crate::read::{IoRead, SliceRead};

/// A value of any schema: serde's data model as a tree.
///
/// Strings, byte strings and the blocks of shaped arrays borrow from the
/// input when it is a slice. A named-field struct keeps its field names
/// ([`Struct`]), an enum its variant name ([`Variant`]). Unit structs read
/// as [`Value::Unit`], newtype structs as their inner value, tuple structs
/// as [`Value::Tuple`], as serde's self-describing formats see them.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// `unit`, and unit structs.
    Unit,
    /// `bool`.
    Bool(bool),
    /// `i8`.
    I8(i8),
    /// `i16`.
    I16(i16),
    /// `i32`.
    I32(i32),
    /// `i64`.
    I64(i64),
    /// `i128`.
    I128(i128),
    /// `u8`.
    U8(u8),
    /// `u16`.
    U16(u16),
    /// `u32`.
    U32(u32),
    /// `u64`.
    U64(u64),
    /// `u128`.
    U128(u128),
    /// `f32`, bit for bit.
    F32(f32),
    /// `f64`, bit for bit.
    F64(f64),
    /// `char`.
    Char(char),
    /// `str`.
    Str(Cow<'a, str>),
    /// `bytes`.
    Bytes(Cow<'a, [u8]>),
    /// `option<T>`.
    Option(Option<Box<Value<'a>>>),
    /// `seq<T>` of any other element than those of [`Value::Block`] and
    /// [`Value::Table`].
    Seq(Vec<Value<'a>>),
    /// `seq<T>` of one of the twelve block element types (chapter 4),
    /// read in one copy.
    Block(Block),
    /// `seq<T>` whose element is a fixed-size record of numbers and bools
    /// (`seq<Point>`, `seq<[f32; 3]>`): its bytes as they are, read with
    /// no work per record. [`Table::get`] reads one element.
    Table(Table<'a>),
    /// `map<K, V>`, entries in the order of the input.
    Map(Vec<(Value<'a>, Value<'a>)>),
    /// Tuples, `[T; N]` and tuple structs.
    Tuple(Vec<Value<'a>>),
    /// A struct with named fields.
    Struct(Struct<'a>),
    /// An enum variant.
    Variant(Box<Variant<'a>>),
    /// `array<T>`: a shaped array (chapter 8).
    Array(ArrayValue<'a>),
}

macro_rules! block_enum {
    ($($ty:ident $variant:ident $code:literal,)*) => {
        /// A sequence of one block element type, in memory.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Block {
            $(
                #[doc = concat!("`seq<", stringify!($ty), ">`.")]
                $variant(Vec<$ty>),
            )*
        }

        impl Block {
            /// The element type.
            pub fn dtype(&self) -> Dtype {
                match self {
                    $(Block::$variant(_) => Dtype::$variant,)*
                }
            }

            /// The number of elements.
            pub fn len(&self) -> usize {
                match self {
                    $(Block::$variant(v) => v.len(),)*
                }
            }

            /// Element `i` as a value.
            pub fn get(&self, i: usize) -> Option<Value<'static>> {
                match self {
                    $(Block::$variant(v) => v.get(i).map(|x| Value::$variant(*x)),)*
                }
            }
        }
    };
}
crate::dtype::with_dtypes!(block_enum);

impl Block {
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A struct (or struct variant) with named fields.
#[derive(Clone, PartialEq)]
pub struct Struct<'a> {
    names: Arc<plan::Names>,
    values: Vec<Value<'a>>,
}

impl<'a> Struct<'a> {
    /// A struct called `name` with these fields, in order.
    pub fn new(
        name: &str,
        fields: impl IntoIterator<Item = (impl Into<String>, Value<'a>)>,
    ) -> Struct<'a> {
        let (names, values): (Vec<String>, Vec<Value<'a>>) =
            fields.into_iter().map(|(n, v)| (n.into(), v)).unzip();
        Struct {
            names: Arc::new(plan::Names::new(
                name,
                names.iter().map(|n| Arc::from(n.as_str())),
            )),
            values,
        }
    }

    pub(crate) fn from_parts(names: Arc<plan::Names>, values: Vec<Value<'a>>) -> Struct<'a> {
        Struct { names, values }
    }

    /// The struct's name (for a struct variant, the variant's).
    pub fn name(&self) -> &str {
        &self.names.container
    }

    /// The fields, in order, with their names.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = (&str, &Value<'a>)> + '_ {
        self.names
            .fields
            .iter()
            .map(|n| &**n)
            .zip(self.values.iter())
    }

    /// The field values, in order.
    pub fn values(&self) -> &[Value<'a>] {
        &self.values
    }

    /// The field called `name`.
    pub fn get(&self, name: &str) -> Option<&Value<'a>> {
        self.fields().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The same struct owning everything it borrowed.
    pub fn into_owned(self) -> Struct<'static> {
        Struct {
            names: self.names,
            values: self.values.into_iter().map(Value::into_owned).collect(),
        }
    }
}

impl std::fmt::Debug for Struct<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct(self.name());
        for (name, value) in self.fields() {
            s.field(name, value);
        }
        s.finish()
    }
}

/// An enum variant: its name, its index, and what follows the index.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant<'a> {
    /// The variant's name.
    pub name: Arc<str>,
    /// The variant's index in its enum.
    pub index: u32,
    /// `None` for a unit variant; the inner value of a newtype variant; a
    /// [`Value::Tuple`] or [`Value::Struct`] for the others.
    pub value: Option<Value<'a>>,
}

/// A shaped array: element type, shape, and the elements' little-endian
/// bytes, in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayValue<'a> {
    /// The element type.
    pub dtype: Dtype,
    /// The dimensions, outermost first.
    pub shape: Vec<usize>,
    /// The elements, little-endian; borrowed from a slice input.
    pub data: Cow<'a, [u8]>,
}

impl ArrayValue<'_> {
    /// Element `i` (row-major) as a value.
    pub fn get(&self, i: usize) -> Option<Value<'static>> {
        let size = self.dtype.size();
        let bytes = self
            .data
            .get(i.checked_mul(size)?..(i + 1).checked_mul(size)?)?;
        Some(number(self.dtype, bytes))
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len() / self.dtype.size()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The number of `dtype` in little-endian `bytes` (exactly its size).
pub(crate) fn number(dtype: Dtype, bytes: &[u8]) -> Value<'static> {
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match dtype {
                $(Dtype::$variant => {
                    let mut a = [0u8; std::mem::size_of::<$ty>()];
                    a.copy_from_slice(bytes);
                    Value::$variant(<$ty>::from_le_bytes(a))
                })*
            }
        };
    }
    crate::dtype::with_dtypes!(each)
}

impl Value<'static> {
    /// The integer `v` as a number of `dtype`, when that type holds it
    /// exactly (a float only when no rounding happens): how JSON and
    /// Python integers become numbers of a schema.
    ///
    /// ```
    /// use kiln::{Dtype, value::Value};
    /// assert_eq!(Value::from_int(Dtype::U8, 255), Some(Value::U8(255)));
    /// assert_eq!(Value::from_int(Dtype::U8, 256), None);
    /// assert_eq!(Value::from_int(Dtype::F32, (1 << 24) + 1), None);
    /// ```
    pub fn from_int(dtype: Dtype, v: i128) -> Option<Value<'static>> {
        match dtype {
            Dtype::U8 => u8::try_from(v).ok().map(Value::U8),
            Dtype::I8 => i8::try_from(v).ok().map(Value::I8),
            Dtype::U16 => u16::try_from(v).ok().map(Value::U16),
            Dtype::I16 => i16::try_from(v).ok().map(Value::I16),
            Dtype::U32 => u32::try_from(v).ok().map(Value::U32),
            Dtype::I32 => i32::try_from(v).ok().map(Value::I32),
            Dtype::U64 => u64::try_from(v).ok().map(Value::U64),
            Dtype::I64 => i64::try_from(v).ok().map(Value::I64),
            Dtype::U128 => u128::try_from(v).ok().map(Value::U128),
            Dtype::I128 => Some(Value::I128(v)),
            Dtype::F32 => Some(Value::F32(v as f32)).filter(|_| (v as f32) as i128 == v),
            Dtype::F64 => Some(Value::F64(v as f64)).filter(|_| (v as f64) as i128 == v),
        }
    }
}

impl<'a> Value<'a> {
    /// The field `name` of a struct, or `None`.
    pub fn get(&self, name: &str) -> Option<&Value<'a>> {
        match self {
            Value::Struct(s) => s.get(name),
            _ => None,
        }
    }

    /// The shaped arrays the value holds, in the order the record writes
    /// them (the order of its directory, chapter 8), each with its path
    /// from the record: `image`, `layers[3].weights`, `0` for a tuple's
    /// first element, `Some` of an option adds nothing, a variant's
    /// payload is `::Variant`, a map's entry `{entry 2}`.
    pub fn arrays(&self) -> Vec<(String, &ArrayValue<'a>)> {
        fn walk<'v, 'a>(
            v: &'v Value<'a>,
            path: &mut String,
            out: &mut Vec<(String, &'v ArrayValue<'a>)>,
        ) {
            let len = path.len();
            let mut push = |path: &mut String, step: std::fmt::Arguments<'_>, v: &'v Value<'a>| {
                use std::fmt::Write;
                let _ = path.write_fmt(step);
                walk(v, path, out);
                path.truncate(len);
            };
            match v {
                Value::Array(a) => out.push((path.clone(), a)),
                Value::Option(Some(inner)) => walk(inner, path, out),
                Value::Seq(items) => {
                    for (i, item) in items.iter().enumerate() {
                        push(path, format_args!("[{i}]"), item);
                    }
                }
                Value::Tuple(items) => {
                    for (i, item) in items.iter().enumerate() {
                        let dot = if path.is_empty() { "" } else { "." };
                        push(path, format_args!("{dot}{i}"), item);
                    }
                }
                Value::Struct(s) => {
                    for (name, item) in s.fields() {
                        let dot = if path.is_empty() { "" } else { "." };
                        push(path, format_args!("{dot}{name}"), item);
                    }
                }
                Value::Map(entries) => {
                    for (i, (k, item)) in entries.iter().enumerate() {
                        push(path, format_args!("{{entry {i}}}"), k);
                        push(path, format_args!("{{entry {i}}}"), item);
                    }
                }
                Value::Variant(var) => {
                    if let Some(inner) = &var.value {
                        push(path, format_args!("::{}", var.name), inner);
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut String::new(), &mut out);
        out
    }

    /// The string, if this is a `str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value owning everything it borrowed from the input.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Unit => Value::Unit,
            Value::Bool(v) => Value::Bool(v),
            Value::I8(v) => Value::I8(v),
            Value::I16(v) => Value::I16(v),
            Value::I32(v) => Value::I32(v),
            Value::I64(v) => Value::I64(v),
            Value::I128(v) => Value::I128(v),
            Value::U8(v) => Value::U8(v),
            Value::U16(v) => Value::U16(v),
            Value::U32(v) => Value::U32(v),
            Value::U64(v) => Value::U64(v),
            Value::U128(v) => Value::U128(v),
            Value::F32(v) => Value::F32(v),
            Value::F64(v) => Value::F64(v),
            Value::Char(v) => Value::Char(v),
            Value::Str(s) => Value::Str(Cow::Owned(s.into_owned())),
            Value::Bytes(b) => Value::Bytes(Cow::Owned(b.into_owned())),
            Value::Option(o) => Value::Option(o.map(|v| Box::new(v.into_owned()))),
            Value::Seq(v) => Value::Seq(v.into_iter().map(Value::into_owned).collect()),
            Value::Block(b) => Value::Block(b),
            Value::Table(t) => Value::Table(t.into_owned()),
            Value::Map(m) => Value::Map(
                m.into_iter()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect(),
            ),
            Value::Tuple(v) => Value::Tuple(v.into_iter().map(Value::into_owned).collect()),
            Value::Struct(s) => Value::Struct(s.into_owned()),
            Value::Variant(v) => Value::Variant(Box::new(Variant {
                name: v.name,
                index: v.index,
                value: v.value.map(Value::into_owned),
            })),
            Value::Array(a) => Value::Array(ArrayValue {
                dtype: a.dtype,
                shape: a.shape,
                data: Cow::Owned(a.data.into_owned()),
            }),
        }
    }
}

/// Reads the bare record that fills `bytes` exactly, as `plan` says it is
/// written. Strings, byte strings and arrays borrow from `bytes`.
///
/// # Errors
/// Every error the typed reading of the same bytes gives, at the same
/// offset (`spec/03-types.md`, `spec/08-directory.md`).
pub fn from_slice<'a>(bytes: &'a [u8], plan: &Plan) -> Result<Value<'a>> {
    from_slice_with(bytes, plan, &Options::default())
}

/// [`from_slice`] with other limits.
///
/// # Errors
/// As [`from_slice`].
pub fn from_slice_with<'a>(bytes: &'a [u8], plan: &Plan, options: &Options) -> Result<Value<'a>> {
    let mut de = crate::Deserializer::with_options(SliceRead::new(bytes), *options).whole_record();
    let value = decode::read(&mut de, plan, plan.root())?;
    de.end()?;
    Ok(value)
}

/// Reads the bare record that fills `bytes` exactly, as [`from_slice`]
/// does, and appends its JSON (`spec/10-values.md`) to `out` without
/// building a [`Value`]: the text serde_json prints for the value.
///
/// ```
/// let plan = kiln::value::Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
/// let mut out = Vec::new();
/// kiln::value::write_json(&[9, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff], &plan, &mut out)?;
/// assert_eq!(out, br#"{"x":9,"y":-4}"#);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`from_slice`]; on an error, `out` is as it was.
pub fn write_json(bytes: &[u8], plan: &Plan, out: &mut Vec<u8>) -> Result<()> {
    let mark = out.len();
    let mut de = crate::Deserializer::new(SliceRead::new(bytes)).whole_record();
    json_out::write_record(&mut de, plan, plan.root(), out)?;
    de.end().inspect_err(|_| out.truncate(mark))
}

/// Reads one bare record from a stream, as `plan` says it is written.
///
/// # Errors
/// As [`from_slice`], and [`ErrorKind::Io`](crate::ErrorKind::Io).
pub fn from_reader<R: std::io::Read>(reader: R, plan: &Plan) -> Result<Value<'static>> {
    let mut de = crate::Deserializer::new(IoRead::new(reader)).whole_record();
    let value = decode::read(&mut de, plan, plan.root())?;
    de.end()?;
    Ok(value)
}

/// Encodes `value` as `plan` says: the bytes the Rust type would write.
///
/// # Errors
/// [`ErrorKind::ValueMismatch`](crate::ErrorKind::ValueMismatch), with the
/// path, where the value does not fit the schema; the errors of
/// [`crate::to_vec`].
pub fn to_vec(value: &Value<'_>, plan: &Plan) -> Result<Vec<u8>> {
    crate::to_vec(&encode::Fit::new(value, plan)?)
}

/// Reads a value of `plan`'s schema from any self-describing serde
/// format (JSON, YAML, ...), strictly, by the mapping of
/// `spec/10-values.md`: a value that does not fit is an error that names
/// its path.
///
/// # Errors
/// [`ErrorKind::ValueMismatch`](crate::ErrorKind::ValueMismatch) with the
/// path; errors of the format itself (JSON that is not JSON) come back as
/// [`ErrorKind::Custom`](crate::ErrorKind::Custom), with the format's own
/// position in the message.
pub fn from_deserializer<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
    plan: &Plan,
) -> Result<Value<'static>> {
    from_serde::from_deserializer(deserializer, plan)
}

/// A frame holding `records` under `plan`'s schema (with its text when
/// `options` embeds it): one record with shaped arrays alone, or a batch.
///
/// # Errors
/// As [`to_vec`] for each record (with its index), and
/// [`ErrorKind::ArraysInBatch`](crate::ErrorKind::ArraysInBatch) for
/// arrays in a batch of more than one record.
pub fn frame_to_vec(
    records: &[Value<'_>],
    plan: &Plan,
    options: &crate::frame::FrameOptions,
) -> Result<Vec<u8>> {
    let fits = records
        .iter()
        .enumerate()
        .map(|(i, r)| encode::Fit::new(r, plan).map_err(|e| e.in_record(i as u64)))
        .collect::<Result<Vec<_>>>()?;
    options.records_to_vec(plan.canonical(), &fits)
}
