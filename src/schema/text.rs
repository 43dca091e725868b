//! The canonical schema text (`spec/05-schema.md`, 5.2): written from a
//! [`Model`] and parsed back into one.
//!
//! Parsing is strict: a text is accepted only when writing its model gives
//! the same bytes back, so one model has one text and one fingerprint.
//! Malformed text is a [`ErrorKind::SchemaText`] error whose offset is the
//! byte within the text. Parsing is bounded: the caller's length cap,
//! [`MAX_NESTING`] levels of nested formats, and no work beyond a few passes
//! over the text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::model::{Container, Dtype, Field, Format, Model, Shape, Variant};
use crate::error::{Error, ErrorKind, Result};

/// Formats nested deeper than this (`option<option<...>>`) are refused.
/// A decode refuses values nested deeper than 128 by default too.
pub const MAX_NESTING: usize = 128;
/// Texts longer than this many bytes are refused by [`parse`], at this
/// offset: 16 MiB, sixteen times what a frame reader accepts by default.
pub const MAX_TEXT_LEN: usize = 1 << 24;
/// Texts that define more containers than this are refused by [`parse`],
/// at the first line past it.
pub const MAX_CONTAINERS: usize = 1 << 16;

/// Words of the grammar: a name equal to one of them is quoted.
const RESERVED: &[&str] = &[
    "root", "struct", "enum", "unit", "bool", "i8", "i16", "i32", "i64", "i128", "u8", "u16",
    "u32", "u64", "u128", "f32", "f64", "char", "str", "bytes", "option", "seq", "map",
];

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// The canonical text of `model`: the line `root <format>`, then one line
/// per container in the byte order of the names.
pub fn write(model: &Model) -> String {
    let mut out = String::from("root ");
    write_format(&mut out, &model.root);
    out.push('\n');
    for (name, container) in &model.containers {
        write_container(&mut out, name, container);
    }
    out
}

/// Writes a container, field or variant name: bare when it is an ASCII
/// identifier that is not a reserved word, otherwise quoted.
pub(crate) fn write_name(out: &mut String, name: &str) {
    let mut chars = name.chars();
    let plain = matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !RESERVED.contains(&name);
    if plain {
        out.push_str(name);
        return;
    }
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The name of a primitive format, or `None` for the others.
fn primitive_name(format: &Format) -> Option<&'static str> {
    Some(match format {
        Format::Unit => "unit",
        Format::Bool => "bool",
        Format::I8 => "i8",
        Format::I16 => "i16",
        Format::I32 => "i32",
        Format::I64 => "i64",
        Format::I128 => "i128",
        Format::U8 => "u8",
        Format::U16 => "u16",
        Format::U32 => "u32",
        Format::U64 => "u64",
        Format::U128 => "u128",
        Format::F32 => "f32",
        Format::F64 => "f64",
        Format::Char => "char",
        Format::Str => "str",
        Format::Bytes => "bytes",
        _ => return None,
    })
}

/// The primitive format named `word`.
fn primitive(word: &str) -> Option<Format> {
    Some(match word {
        "unit" => Format::Unit,
        "bool" => Format::Bool,
        "i8" => Format::I8,
        "i16" => Format::I16,
        "i32" => Format::I32,
        "i64" => Format::I64,
        "i128" => Format::I128,
        "u8" => Format::U8,
        "u16" => Format::U16,
        "u32" => Format::U32,
        "u64" => Format::U64,
        "u128" => Format::U128,
        "f32" => Format::F32,
        "f64" => Format::F64,
        "char" => Format::Char,
        "str" => Format::Str,
        "bytes" => Format::Bytes,
        _ => return None,
    })
}

pub(crate) fn write_format(out: &mut String, format: &Format) {
    if let Some(word) = primitive_name(format) {
        out.push_str(word);
        return;
    }
    match format {
        Format::Option(inner) => {
            out.push_str("option<");
            write_format(out, inner);
            out.push('>');
        }
        Format::Seq(inner) => {
            out.push_str("seq<");
            write_format(out, inner);
            out.push('>');
        }
        Format::Map(key, value) => {
            out.push_str("map<");
            write_format(out, key);
            out.push_str(", ");
            write_format(out, value);
            out.push('>');
        }
        Format::Tuple(items) => match Format::tuple(items.clone()) {
            // Rule 2: equal elements are an array, however the model says it.
            array @ Format::Array(..) => write_format(out, &array),
            _ => write_tuple(out, items),
        },
        Format::Array(item, len) => {
            out.push('[');
            write_format(out, item);
            let _ = write!(out, "; {len}]");
        }
        Format::Shaped(dtype) => {
            let _ = write!(out, "array<{}>", dtype.name());
        }
        Format::Named(name) => write_name(out, name),
        _ => unreachable!("primitives are written above"),
    }
}

/// `(A, B)`; a single element keeps a trailing comma, `(A,)`; none is `()`.
fn write_tuple(out: &mut String, items: &[Format]) {
    out.push('(');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_format(out, item);
    }
    if items.len() == 1 {
        out.push(',');
    }
    out.push(')');
}

/// What follows a struct's or a variant's name.
fn write_shape(out: &mut String, shape: &Shape, unit: &str) {
    match shape {
        Shape::Unit => out.push_str(unit),
        Shape::Newtype(inner) => {
            out.push('(');
            write_format(out, inner);
            out.push(')');
        }
        Shape::Tuple(items) => write_tuple(out, items),
        Shape::Struct(fields) if fields.is_empty() => out.push_str(" {}"),
        Shape::Struct(fields) => {
            out.push_str(" { ");
            for (i, field) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_name(out, &field.name);
                out.push_str(": ");
                write_format(out, &field.format);
            }
            out.push_str(" }");
        }
    }
}

/// The line of one container, as the text writes it (with its line feed).
pub(crate) fn container_line(name: &str, container: &Container) -> String {
    let mut out = String::new();
    write_container(&mut out, name, container);
    out
}

fn write_container(out: &mut String, name: &str, container: &Container) {
    match container {
        Container::Struct(shape) => {
            out.push_str("struct ");
            write_name(out, name);
            write_shape(out, shape, ";");
        }
        Container::Enum(variants) => {
            out.push_str("enum ");
            write_name(out, name);
            out.push_str(" { ");
            for (i, variant) in variants.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_name(out, &variant.name);
                write_shape(out, &variant.shape, "");
            }
            out.push_str(" }");
        }
    }
    out.push('\n');
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

/// Parses a canonical schema text into its model.
///
/// ```
/// use kiln::schema::model::{Container, Format, Shape};
///
/// let model = kiln::schema::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
/// assert_eq!(model.root, Format::Named("Point".into()));
/// assert!(matches!(&model.containers["Point"], Container::Struct(Shape::Struct(f)) if f.len() == 2));
///
/// let err = kiln::schema::parse("root Point\n").unwrap_err();
/// assert_eq!(err.kind().code(), "schema-text");
/// assert_eq!(err.offset(), Some(5)); // where `Point` is used but never defined
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::SchemaText`] at the byte of the text where it stops being
/// canonical text: a grammar error, a name used but not defined, a
/// container defined twice, out of order or not reached from the root, a
/// format nested deeper than [`MAX_NESTING`], or any other spelling than
/// the canonical one (a tuple of equal elements, a quoted plain name, ...).
pub fn parse(text: &str) -> Result<Model> {
    if text.len() > MAX_TEXT_LEN {
        return Err(Error::at(
            ErrorKind::SchemaText {
                reason: "the text is longer than MAX_TEXT_LEN (16 MiB)",
            },
            MAX_TEXT_LEN as u64,
        ));
    }
    let mut p = Parser {
        bytes: text.as_bytes(),
        text,
        at: 0,
        uses: Vec::new(),
    };
    p.expect("root ")?;
    let root = p.format(0)?;
    p.expect("\n")?;
    let mut containers: BTreeMap<String, Container> = BTreeMap::new();
    let mut lines: Vec<(usize, String)> = Vec::new();
    while p.at < p.bytes.len() {
        let start = p.at;
        if lines.len() == MAX_CONTAINERS {
            return Err(p.fail_at(start, "more containers than MAX_CONTAINERS (65536)"));
        }
        let (name, container) = p.container()?;
        p.expect("\n")?;
        if containers.contains_key(&name) {
            return Err(p.fail_at(start, "a container is defined twice"));
        }
        lines.push((start, name.clone()));
        containers.insert(name, container);
    }
    // Every name used is defined.
    for (at, name) in &p.uses {
        if !containers.contains_key(name) {
            return Err(p.fail_at(*at, "a container is used but not defined"));
        }
    }
    let model = Model {
        root,
        containers,
        rust_names: BTreeMap::new(),
    };
    // Every container defined is reached from the root.
    let reached = reached(&model);
    if let Some((at, _)) = lines
        .iter()
        .find(|(_, name)| !reached.contains(name.as_str()))
    {
        return Err(p.fail_at(*at, "a container is defined but not reached from the root"));
    }
    // The one spelling: writing the model gives the text back.
    let canonical = write(&model);
    if canonical != text {
        let at = canonical
            .bytes()
            .zip(text.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(canonical.len().min(text.len()));
        let reason = if lines.windows(2).any(|w| w[0].1 >= w[1].1) {
            "containers are not in the byte order of their names"
        } else {
            "not the canonical spelling (a tuple of equal elements is an array, a plain name is not quoted)"
        };
        return Err(p.fail_at(at, reason));
    }
    Ok(model)
}

/// The names of the containers the root reaches.
fn reached(model: &Model) -> std::collections::BTreeSet<&str> {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo: Vec<&Format> = vec![&model.root];
    while let Some(format) = todo.pop() {
        match format {
            Format::Option(inner) | Format::Seq(inner) | Format::Array(inner, _) => {
                todo.push(inner)
            }
            Format::Map(k, v) => {
                todo.push(k);
                todo.push(v);
            }
            Format::Tuple(items) => todo.extend(items),
            Format::Named(name) => {
                if let Some((name, container)) = model.containers.get_key_value(name)
                    && seen.insert(name.as_str())
                {
                    let shapes: Vec<&Shape> = match container {
                        Container::Struct(shape) => vec![shape],
                        Container::Enum(variants) => variants.iter().map(|v| &v.shape).collect(),
                    };
                    for shape in shapes {
                        match shape {
                            Shape::Unit => {}
                            Shape::Newtype(inner) => todo.push(inner),
                            Shape::Tuple(items) => todo.extend(items),
                            Shape::Struct(fields) => todo.extend(fields.iter().map(|f| &f.format)),
                        }
                    }
                }
            }
            _ => {}
        }
    }
    seen
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    /// Every container name used in a format, with its offset.
    uses: Vec<(usize, String)>,
}

impl Parser<'_> {
    fn fail_at(&self, at: usize, reason: &'static str) -> Error {
        Error::at(ErrorKind::SchemaText { reason }, at as u64)
    }

    fn fail(&self, reason: &'static str) -> Error {
        self.fail_at(self.at, reason)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.bytes[self.at..].starts_with(s.as_bytes()) {
            self.at += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &'static str) -> Result<()> {
        if self.eat(s) {
            return Ok(());
        }
        Err(self.fail(match s {
            "root " => "the text does not start with `root `",
            "\n" => "expected the end of the line",
            ", " => "expected `, `",
            ": " => "expected `: `",
            ">" => "expected `>`",
            "; " => "expected `; `",
            "]" => "expected `]`",
            " { " => "expected ` { `",
            _ => "unexpected text",
        }))
    }

    /// A bare word: `[A-Za-z0-9_]+` (digits included, so `u8` is a word).
    fn word(&mut self) -> &str {
        let start = self.at;
        while matches!(self.peek(), Some(b) if b == b'_' || b.is_ascii_alphanumeric()) {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    /// A container, field or variant name, bare or quoted.
    fn name(&mut self) -> Result<String> {
        if self.peek() == Some(b'"') {
            return self.quoted();
        }
        let start = self.at;
        let word = self.word();
        if word.is_empty() || word.as_bytes()[0].is_ascii_digit() {
            return Err(self.fail_at(start, "expected a name"));
        }
        if RESERVED.contains(&word) {
            return Err(self.fail_at(start, "a reserved word is used as a name without quotes"));
        }
        Ok(word.to_string())
    }

    fn quoted(&mut self) -> Result<String> {
        self.at += 1; // the opening quote
        let mut name = String::new();
        loop {
            let rest = &self.text[self.at..];
            let Some(c) = rest.chars().next() else {
                return Err(self.fail("a quoted name is not closed"));
            };
            match c {
                '"' => {
                    self.at += 1;
                    return Ok(name);
                }
                '\\' => {
                    let esc = rest.as_bytes().get(1).copied();
                    match esc {
                        Some(b'\\') => name.push('\\'),
                        Some(b'"') => name.push('"'),
                        Some(b'u') => {
                            let hex = rest.get(2..6).filter(|h| {
                                h.bytes()
                                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                            });
                            let code = hex.and_then(|h| u32::from_str_radix(h, 16).ok());
                            match code.and_then(char::from_u32) {
                                Some(c) => name.push(c),
                                None => return Err(self.fail("a bad `\\u` escape in a name")),
                            }
                            self.at += 4;
                        }
                        _ => return Err(self.fail("an unknown escape in a quoted name")),
                    }
                    self.at += 2;
                }
                c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                    return Err(self.fail("a control character in a quoted name"));
                }
                c => {
                    name.push(c);
                    self.at += c.len_utf8();
                }
            }
        }
    }

    fn format(&mut self, depth: usize) -> Result<Format> {
        if depth >= MAX_NESTING {
            return Err(self.fail("formats nest too deeply"));
        }
        let start = self.at;
        match self.peek() {
            Some(b'(') => {
                return match Format::tuple(self.tuple(depth)?) {
                    Format::Array(..) => Err(self.fail_at(
                        start,
                        "a tuple of two or more equal elements is written as an array",
                    )),
                    tuple => Ok(tuple),
                };
            }
            Some(b'[') => {
                self.at += 1;
                let item = self.format(depth + 1)?;
                self.expect("; ")?;
                let digits = self.at;
                let count = self.word();
                let len = count
                    .parse::<u64>()
                    .ok()
                    .filter(|_| count.bytes().all(|b| b.is_ascii_digit()));
                let Some(len) = len else {
                    return Err(self.fail_at(digits, "expected an array length"));
                };
                if len < 2 || count.starts_with('0') {
                    return Err(self.fail_at(
                        digits,
                        "an array length is 2 or more, without leading zeros",
                    ));
                }
                self.expect("]")?;
                return Ok(Format::Array(Box::new(item), len));
            }
            Some(b'"') => {
                let name = self.quoted()?;
                self.uses.push((start, name.clone()));
                return Ok(Format::Named(name));
            }
            _ => {}
        }
        let word = self.word().to_string();
        if let Some(p) = primitive(&word) {
            return Ok(p);
        }
        let one = |p: &mut Self, depth| -> Result<Box<Format>> {
            let inner = p.format(depth + 1)?;
            p.expect(">")?;
            Ok(Box::new(inner))
        };
        match word.as_str() {
            "option" if self.eat("<") => Ok(Format::Option(one(self, depth)?)),
            "seq" if self.eat("<") => Ok(Format::Seq(one(self, depth)?)),
            "map" if self.eat("<") => {
                let key = self.format(depth + 1)?;
                self.expect(", ")?;
                Ok(Format::Map(Box::new(key), one(self, depth)?))
            }
            "array" if self.eat("<") => {
                let at = self.at;
                let dtype = Dtype::from_name(self.word())
                    .ok_or_else(|| self.fail_at(at, "a shaped array of an unknown element type"))?;
                self.expect(">")?;
                Ok(Format::Shaped(dtype))
            }
            w if w.is_empty() || w.as_bytes()[0].is_ascii_digit() || RESERVED.contains(&w) => {
                Err(self.fail_at(start, "expected a format"))
            }
            _ => {
                self.uses.push((start, word.clone()));
                Ok(Format::Named(word))
            }
        }
    }

    /// `()`, `(A,)` or `(A, B, ...)`.
    fn tuple(&mut self, depth: usize) -> Result<Vec<Format>> {
        self.at += 1; // `(`
        let mut items = Vec::new();
        if self.eat(")") {
            return Ok(items);
        }
        loop {
            items.push(self.format(depth + 1)?);
            if items.len() == 1 && self.eat(",)") {
                return Ok(items);
            }
            if self.peek() == Some(b')') {
                if items.len() == 1 {
                    return Err(self.fail("a one-element tuple ends with `,)`"));
                }
                self.at += 1;
                return Ok(items);
            }
            self.expect(", ")?;
        }
    }

    /// What follows a struct's or variant's name; `unit` is what ends a
    /// unit struct (`;`) or a unit variant (nothing: `,` or ` }` follows).
    fn shape(&mut self, unit: &str) -> Result<Shape> {
        match self.peek() {
            Some(b'(') => {
                // A newtype is `(T)`; a one-element tuple is `(T,)`.
                let save = self.at;
                self.at += 1;
                if self.peek() != Some(b')') {
                    let inner = self.format(1)?;
                    if self.eat(")") {
                        return Ok(Shape::Newtype(inner));
                    }
                }
                self.at = save;
                Ok(Shape::Tuple(self.tuple(0)?))
            }
            Some(b' ') if self.eat(" {}") => Ok(Shape::Struct(Vec::new())),
            Some(b' ') if self.bytes[self.at..].starts_with(b" { ") => {
                self.at += 3;
                let mut fields = Vec::new();
                loop {
                    let at = self.at;
                    let name = self.name()?;
                    self.expect(": ")?;
                    if fields.iter().any(|f: &Field| f.name == name) {
                        return Err(self.fail_at(at, "two fields have the same name"));
                    }
                    let format = self.format(1)?;
                    fields.push(Field::new(name, format));
                    if self.eat(" }") {
                        return Ok(Shape::Struct(fields));
                    }
                    self.expect(", ")?;
                }
            }
            _ if self.eat(unit) => Ok(Shape::Unit),
            _ => Err(self.fail("expected `;`, `(`, ` {}` or ` { ` after a struct's name")),
        }
    }

    fn container(&mut self) -> Result<(String, Container)> {
        if self.eat("struct ") {
            let name = self.name()?;
            let shape = self.shape(";")?;
            return Ok((name, Container::Struct(shape)));
        }
        if self.eat("enum ") {
            let enum_name = self.name()?;
            self.expect(" { ")?;
            let mut variants = Vec::new();
            loop {
                let at = self.at;
                let name = self.name()?;
                if variants.iter().any(|v: &Variant| v.name == name) {
                    return Err(self.fail_at(at, "two variants have the same name"));
                }
                let shape = match self.peek() {
                    Some(b',') => Shape::Unit,
                    Some(b' ') if self.bytes[self.at..].starts_with(b" }") => Shape::Unit,
                    _ => self.shape("")?,
                };
                variants.push(Variant::new(name, shape));
                if self.eat(" }") {
                    return Ok((enum_name, Container::Enum(variants)));
                }
                self.expect(", ")?;
            }
        }
        Err(self.fail("expected `struct ` or `enum `"))
    }
}
