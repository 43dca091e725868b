//! The schema of a type as serde sees it, its canonical text, and its
//! 64-bit fingerprint (`spec/05-schema.md`).
//!
//! Kiln writes no names, so a reader built from another struct would read
//! garbage. A frame (see [`crate::frame`]) therefore carries the writer's
//! fingerprint, and the reader compares it with its own before it reads a
//! value. A type's schema is what its [`Schema`] impl describes, usually
//! `#[derive(kiln::Schema)]`, which reads the same attributes as serde's
//! derive (container names, field names in order, variant names in index
//! order, the kinds of the leaves); the description is written out as a
//! canonical text and hashed:
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
//! struct Point { x: i32, y: i32 }
//!
//! let schema = kiln::schema::schema_of::<Point>()?;
//! assert_eq!(schema.text(), Some("root Point\nstruct Point { x: i32, y: i32 }\n"));
//! assert_eq!(schema.fingerprint().to_string(), "bebd985ebacd608a");
//! # Ok::<(), kiln::Error>(())
//! ```
//!
//! The fingerprint is the first 8 bytes of the SHA-256 digest of the text's
//! UTF-8 bytes, read as a little-endian `u64`; any language's standard
//! library can recompute it. `spec/05-schema.md` gives the grammar, and
//! how the derive turns each of serde's attributes into text.
//!
//! [`schema_of`] describes a type once per process and caches the result.
//! With the `trace` feature, [`Tracer`] collects a schema the old way, by
//! running `Deserialize` on made-up values (serde-reflection): a way to
//! check that the derive agrees for types that both can see.

#[cfg(feature = "trace")]
mod bounded;
mod cache;
mod describe;
mod evolve;
pub(crate) mod guard;
mod impls;
pub mod model;
mod text;
#[cfg(feature = "trace")]
mod trace;

pub use crate::fingerprint::Fingerprint;
pub use cache::{fingerprint_of, schema_of};
pub use describe::{Describer, MAX_DESCRIBE_DEPTH, Schema};
pub(crate) use evolve::resolution;
pub use evolve::{Difference, Report, STORE_EXTENSION, Store, Verdict, check, check_texts};
#[cfg(feature = "ndarray")]
pub use impls::arrays::{NdarrayField, describe_ndarray};
pub use model::Model;
pub use text::{MAX_CONTAINERS, MAX_NESTING, MAX_TEXT_LEN, parse};
#[cfg(feature = "trace")]
pub use trace::{Tracer, TracerConfig};

/// A schema in canonical form: its text (when known), its model, and its
/// fingerprint; what [`schema_of`] gives and a frame carries.
#[derive(Clone, Debug)]
pub struct Canonical {
    text: Option<String>,
    fingerprint: Fingerprint,
    /// The text's model, when the text is canonical.
    model: Option<std::sync::Arc<guard::Guard>>,
}

impl PartialEq for Canonical {
    fn eq(&self, other: &Canonical) -> bool {
        self.fingerprint == other.fingerprint && self.text == other.text
    }
}

impl Eq for Canonical {}

impl Canonical {
    /// A schema from its canonical text; the fingerprint is computed.
    ///
    /// The text is kept as it is, so that the fingerprint is that of the
    /// text another program wrote (such as the one embedded in a frame);
    /// when it parses as canonical text ([`parse`]), its model is kept too,
    /// and frame writers check what they write against it.
    pub fn from_text(text: impl Into<String>) -> Canonical {
        let text = text.into();
        let fingerprint = Fingerprint::of_text(&text);
        let model = parse(&text)
            .ok()
            .map(|m| std::sync::Arc::new(guard::Guard::new(m)));
        Canonical {
            text: Some(text),
            fingerprint,
            model,
        }
    }

    /// The schema of a model: its canonical text and fingerprint.
    pub fn from_model(model: Model) -> Canonical {
        let text = text::write(&model);
        Canonical {
            fingerprint: Fingerprint::of_text(&text),
            text: Some(text),
            model: Some(std::sync::Arc::new(guard::Guard::new(model))),
        }
    }

    /// The model of the text, when the schema has a canonical text.
    pub fn model(&self) -> Option<&Model> {
        self.model.as_deref().map(guard::Guard::model)
    }

    /// The frame writer's guard, when there is a model to check against.
    pub(crate) fn guard(&self) -> Option<&guard::Guard> {
        self.model.as_deref()
    }

    /// The canonical text, if known.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }
}
