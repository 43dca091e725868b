//! The [`Schema`] trait, and the [`Describer`] its impls build a model
//! with (`spec/05-schema.md`, 5.1 and 5.6).
//!
//! A type's schema comes from what it is, not from running its code:
//! `#[derive(kiln::Schema)]` writes `describe` from the same attributes
//! serde's derive reads, and hand-written impls say the format serde's
//! impl writes. Nothing is made up and nothing is deserialized, so types
//! that validate their input (dates, `NonZeroU32`) have schemas too.

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};

use super::model::{Container, Format, Model};
use super::text;

/// How deep `describe` calls may nest before the description stops with
/// an error: far beyond any real type (a named container ends a chain),
/// so only a hand-written impl that calls itself forever reaches it.
pub const MAX_DESCRIBE_DEPTH: usize = 1024;

/// A type whose Kiln schema is known: the format serde writes it in, and
/// the named containers it reaches.
///
/// Derive it with `#[derive(kiln::Schema)]` next to serde's derives; Kiln
/// implements it for the standard library's types, its own arrays, and,
/// behind features, the types of popular crates. Frames need it: a frame
/// carries the fingerprint of its type's schema.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
/// struct Point { x: i32, y: i32 }
///
/// let schema = kiln::schema::schema_of::<Point>()?;
/// assert_eq!(schema.text(), Some("root Point\nstruct Point { x: i32, y: i32 }\n"));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// A hand-written impl says how serde writes the type, through the
/// [`Describer`]:
///
/// ```
/// use kiln::schema::{Describer, model::Format};
///
/// /// Written by its Serialize impl as a string.
/// struct Email(String);
///
/// impl kiln::Schema for Email {
///     fn describe(_: &mut Describer) -> Format {
///         Format::Str
///     }
/// }
/// assert_eq!(kiln::schema::schema_of::<Email>()?.text(), Some("root str\n"));
/// # Ok::<(), kiln::Error>(())
/// ```
pub trait Schema {
    /// The format `Self` is written in. Named containers it reaches are
    /// defined through `d` ([`Describer::container`]); other types'
    /// formats come from [`Describer::format`].
    fn describe(d: &mut Describer) -> Format;
}

/// Builds one schema model: the containers found so far, and what keeps
/// the description finite (each named type described once, no type
/// inside itself without a name, a depth limit).
#[derive(Debug, Default)]
pub struct Describer {
    /// The containers by serde name, with the Rust type that defined each.
    containers: BTreeMap<String, (Container, &'static str)>,
    /// The Rust types already described or being described, by serde name.
    named: HashMap<TypeId, String>,
    /// The transparent types being described since the last named
    /// container: meeting one again means it contains itself unnamed.
    unnamed: Vec<TypeId>,
    depth: usize,
    /// The first error: (the Rust type, why).
    error: Option<(String, String)>,
}

impl Describer {
    /// The format of `T`, with its containers defined in `self`.
    pub fn format<T: Schema + ?Sized>(&mut self) -> Format {
        if self.error.is_some() {
            return Format::Unit;
        }
        if self.depth >= MAX_DESCRIBE_DEPTH {
            self.fail(
                std::any::type_name::<T>(),
                format!(
                    "its description nests more than {MAX_DESCRIBE_DEPTH} levels deep; \
                     a hand-written Schema impl probably describes itself"
                ),
            );
            return Format::Unit;
        }
        self.depth += 1;
        let format = T::describe(self);
        self.depth -= 1;
        format
    }

    /// A named container: `build` gives its definition the first time
    /// `T` is met; every time, the format is the name. This is what makes
    /// recursive types finite (5.2, rule 4). `rust_name` is `T`'s name in
    /// Rust, for messages.
    pub fn container<T: ?Sized>(
        &mut self,
        name: &str,
        rust_name: &'static str,
        build: impl FnOnce(&mut Describer) -> Container,
    ) -> Format {
        let id = typeid::of::<T>();
        if self.error.is_some() || self.named.contains_key(&id) {
            return Format::Named(name.to_owned());
        }
        self.named.insert(id, name.to_owned());
        // Recursion through a named type is fine: a transparent type met
        // again inside it is met again under a name.
        let unnamed = std::mem::take(&mut self.unnamed);
        let container = build(self);
        self.unnamed = unnamed;
        match self.containers.get(name) {
            None => {
                self.containers
                    .insert(name.to_owned(), (container, rust_name));
            }
            Some((existing, other)) => {
                let (a, b) = (
                    text::container_line(name, existing),
                    text::container_line(name, &container),
                );
                if a != b {
                    let other = *other;
                    self.fail(
                        rust_name,
                        format!(
                            "two types in one schema have the serde name `{name}` but \
                             different layouts (`{other}` is `{}`, this one is `{}`). \
                             serde names every instance of a generic type alike: wrap \
                             one in a newtype struct of its own name; two distinct \
                             types can take #[serde(rename = \"...\")]",
                            a.trim_end(),
                            b.trim_end()
                        ),
                    );
                }
            }
        }
        Format::Named(name.to_owned())
    }

    /// A type with no line of its own (a `#[serde(transparent)]` or
    /// `from`/`into` type): its format is `build`'s, in place. Such a type
    /// met again inside itself before any named container has nothing to
    /// refer back to, and is refused.
    pub fn transparent<T: ?Sized>(
        &mut self,
        rust_name: &'static str,
        build: impl FnOnce(&mut Describer) -> Format,
    ) -> Format {
        let id = typeid::of::<T>();
        if self.error.is_some() {
            return Format::Unit;
        }
        if self.unnamed.contains(&id) {
            self.fail(
                rust_name,
                "it contains itself through #[serde(transparent)] (or from/into) types \
                 only: a type with no line of its own in the schema text cannot refer \
                 back to itself. Remove #[serde(transparent)] from it (a newtype struct \
                 costs no byte, and its name lets the text refer back to it)"
                    .into(),
            );
            return Format::Unit;
        }
        self.unnamed.push(id);
        let format = build(self);
        self.unnamed.pop();
        format
    }

    /// The format written as text in chapter 5's grammar, for
    /// `#[kiln(schema = "...")]` on the field `path`. The text may use
    /// the formats of the grammar but no named container.
    pub fn format_text(&mut self, format: &str, path: &str) -> Format {
        if self.error.is_some() {
            return Format::Unit;
        }
        match text::parse(&format!("root {format}\n")) {
            Ok(model) if model.containers.is_empty() => model.root,
            Ok(_) => {
                self.fail(
                    path,
                    format!(
                        "its #[kiln(schema = \"{format}\")] names a container; use \
                         #[kiln(with = Type)] for a named type"
                    ),
                );
                Format::Unit
            }
            Err(e) => {
                self.fail(
                    path,
                    format!("its #[kiln(schema = \"{format}\")] is not a format of chapter 5: {e}"),
                );
                Format::Unit
            }
        }
    }

    /// Stops the description with an error about `rust_name`; the first
    /// error is the one reported.
    pub fn fail(&mut self, rust_name: &str, reason: String) {
        if self.error.is_none() {
            self.error = Some((rust_name.to_owned(), reason));
        }
    }

    /// The model of `T`, or the first error: (the Rust type, why).
    pub(crate) fn model_of<T: Schema + ?Sized>() -> Result<Model, (String, String)> {
        let mut d = Describer::default();
        let root = d.format::<T>();
        if let Some(error) = d.error {
            return Err(error);
        }
        let mut containers = BTreeMap::new();
        let mut rust_names = BTreeMap::new();
        for (name, (container, rust_name)) in d.containers {
            rust_names.insert(name.clone(), rust_name.to_owned());
            containers.insert(name, container);
        }
        Ok(Model {
            root,
            containers,
            rust_names,
        })
    }
}
