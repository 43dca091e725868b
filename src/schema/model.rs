//! The schema as data: what the canonical text of `spec/05-schema.md`
//! says, as Rust values.
//!
//! One model serves every side of a schema: the tracer builds it, the text
//! module writes it out and parses it back, and the frame writer checks
//! what a `Serialize` impl writes against it. Its parts mirror the grammar
//! of chapter 5 one to one, so a model always has exactly one text.

use std::collections::BTreeMap;

pub use crate::Dtype;

/// How serde writes one value: the grammar's `format`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `unit`: `()`.
    Unit,
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `i128`.
    I128,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `u128`.
    U128,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `char`.
    Char,
    /// `str`: a UTF-8 string.
    Str,
    /// `bytes`: a byte string (`serde_bytes`).
    Bytes,
    /// `option<T>`.
    Option(Box<Format>),
    /// `seq<T>`.
    Seq(Box<Format>),
    /// `map<K, V>`.
    Map(Box<Format>, Box<Format>),
    /// `(A, B, ...)`: a tuple whose elements are not all the same (or has
    /// fewer than two). Build it with [`Format::tuple`], which writes equal
    /// elements as an [`Format::Array`] as rule 2 of chapter 5 says.
    Tuple(Vec<Format>),
    /// `[T; N]` with `N >= 2`: a tuple of `N` equal elements.
    Array(Box<Format>, u64),
    /// `array<T>`: a shaped array (chapter 8) of a fixed-width number.
    Shaped(Dtype),
    /// A named container, defined on its own line.
    Named(String),
}

impl Format {
    /// The format of a tuple of `items`: an [`Format::Array`] when there are
    /// two or more and all are equal (serde cannot tell `(u8, u8)` from
    /// `[u8; 2]`), a [`Format::Tuple`] otherwise.
    pub fn tuple(items: Vec<Format>) -> Format {
        match items.split_first() {
            Some((first, rest)) if !rest.is_empty() && rest.iter().all(|f| f == first) => {
                Format::Array(Box::new(first.clone()), items.len() as u64)
            }
            _ => Format::Tuple(items),
        }
    }
}

/// A named field of a struct or struct variant.
///
/// `default` and `aliases` are not part of the text or the fingerprint:
/// they are what a reader of another version of the type needs (a field
/// it may fill in, the names it also answers to), kept from the derive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// The name serde reads (after `rename`).
    pub name: String,
    /// How its value is written.
    pub format: Format,
    /// Whether serde fills the field in when it is missing
    /// (`#[serde(default)]` on it or on its container).
    pub default: bool,
    /// The other names serde accepts for it (`#[serde(alias)]`).
    pub aliases: Vec<String>,
}

impl Field {
    /// A field without default or aliases.
    pub fn new(name: impl Into<String>, format: Format) -> Field {
        Field {
            name: name.into(),
            format,
            default: false,
            aliases: Vec::new(),
        }
    }

    /// The field with `default` set.
    pub fn with_default(mut self, default: bool) -> Field {
        self.default = default;
        self
    }

    /// The field with these aliases.
    pub fn with_aliases(mut self, aliases: &[&str]) -> Field {
        self.aliases = aliases.iter().map(|a| (*a).to_owned()).collect();
        self
    }
}

/// What follows a struct's name, or a variant's: the shapes are the same.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `struct Name;` or a unit variant: nothing.
    Unit,
    /// `struct Name(T)` or `Variant(T)`: one value, no tuple around it.
    Newtype(Format),
    /// `struct Name(A, B)` or `Variant(A, B)`: always written as a tuple,
    /// never as an array.
    Tuple(Vec<Format>),
    /// `struct Name { a: A }` or `Variant { a: A }`.
    Struct(Vec<Field>),
}

impl Shape {
    /// How many values a reader takes: 0, 1, the tuple's or the fields'
    /// count.
    pub fn len(&self) -> usize {
        match self {
            Shape::Unit => 0,
            Shape::Newtype(_) => 1,
            Shape::Tuple(items) => items.len(),
            Shape::Struct(fields) => fields.len(),
        }
    }

    /// Whether it holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the shape is called in messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Shape::Unit => "a unit".into(),
            Shape::Newtype(_) => "a newtype".into(),
            Shape::Tuple(items) => format!("a tuple of {}", items.len()),
            Shape::Struct(fields) => format!("{} named fields", fields.len()),
        }
    }
}

/// An enum variant, at the index its position gives.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The name serde reads.
    pub name: String,
    /// What follows the variant index.
    pub shape: Shape,
    /// The other names serde accepts for it (`#[serde(alias)]`); not part
    /// of the text, like [`Field::aliases`].
    pub aliases: Vec<String>,
    /// Whether serde reads every unknown variant as this one
    /// (`#[serde(other)]`); not part of the text either.
    pub other: bool,
}

impl Variant {
    /// A variant without aliases.
    pub fn new(name: impl Into<String>, shape: Shape) -> Variant {
        Variant {
            name: name.into(),
            shape,
            aliases: Vec::new(),
            other: false,
        }
    }

    /// The variant with these aliases.
    pub fn with_aliases(mut self, aliases: &[&str]) -> Variant {
        self.aliases = aliases.iter().map(|a| (*a).to_owned()).collect();
        self
    }

    /// The variant with `other` set: the one serde reads unknown
    /// variants as.
    pub fn with_other(mut self, other: bool) -> Variant {
        self.other = other;
        self
    }
}

/// A named container: a struct or an enum.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Container {
    /// A struct of any shape.
    Struct(Shape),
    /// An enum, variants in index order.
    Enum(Vec<Variant>),
}

/// A whole schema: the root format and every container it reaches, by
/// name. Containers iterate in the byte order of their names, the order of
/// the canonical text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Model {
    /// The format of the record itself.
    pub root: Format,
    /// The containers, by name.
    pub containers: BTreeMap<String, Container>,
    /// The Rust type that defined each container, when the model was
    /// described from Rust types (empty when parsed from text); not part
    /// of the text.
    pub rust_names: BTreeMap<String, String>,
}
