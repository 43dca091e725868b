//! The schema of a type as serde sees it, its canonical text, and its
//! 64-bit fingerprint (`spec/05-schema.md`).
//!
//! Kiln writes no names, so a reader built from another struct would read
//! garbage. A frame (see [`crate::frame`]) therefore carries the writer's
//! fingerprint, and the reader compares it with its own before it reads a
//! value. The fingerprint is derived from what serde's derive tells about a
//! type (container names, field names in order, variant names in index
//! order, the kinds of the leaves), collected by
//! [serde-reflection](https://docs.rs/serde-reflection)'s tracer, written out
//! as a canonical text, and hashed:
//!
//! ```
//! #[derive(serde::Deserialize)]
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
//! library can recompute it. `spec/05-schema.md` gives the grammar.
//!
//! [`schema_of`] traces a type once per process and caches the result.
//! Types whose `Deserialize` refuses the tracer's made-up values
//! (`NonZeroU32`, validating newtypes, dates) fail with
//! [`ErrorKind::SchemaTrace`](crate::ErrorKind::SchemaTrace) naming the type; for those, trace with sample
//! values through a [`Tracer`], or state the fingerprint with
//! [`Schema::from_fingerprint`], and [`register`] the result.

/// serde-reflection's tracer configuration (made-up values, sample use),
/// re-exported for [`Tracer::with_config`].
pub use serde_reflection::TracerConfig;

mod bounded;
mod cache;
pub(crate) mod guard;
pub mod model;
mod text;
mod trace;

pub use crate::fingerprint::Fingerprint;
pub use cache::{fingerprint_of, register, schema_of};
pub use model::Model;
pub use text::{MAX_NESTING, parse};
pub use trace::Tracer;

/// The schema of one type: its canonical text (when known), its model,
/// and its fingerprint.
#[derive(Clone, Debug)]
pub struct Schema {
    text: Option<String>,
    fingerprint: Fingerprint,
    /// The text's model, when the text is canonical.
    model: Option<std::sync::Arc<guard::Guard>>,
}

impl PartialEq for Schema {
    fn eq(&self, other: &Schema) -> bool {
        self.fingerprint == other.fingerprint && self.text == other.text
    }
}

impl Eq for Schema {}

impl Schema {
    /// A schema from its canonical text; the fingerprint is computed.
    ///
    /// The text is kept as it is, so that the fingerprint is that of the
    /// text another program wrote (such as the one embedded in a frame);
    /// when it parses as canonical text ([`parse`]), its model is kept too,
    /// and frame writers check what they write against it.
    pub fn from_text(text: impl Into<String>) -> Schema {
        let text = text.into();
        let fingerprint = Fingerprint::of_text(&text);
        let model = parse(&text)
            .ok()
            .map(|m| std::sync::Arc::new(guard::Guard::new(m)));
        Schema {
            text: Some(text),
            fingerprint,
            model,
        }
    }

    /// The schema of a model: its canonical text and fingerprint.
    pub fn from_model(model: Model) -> Schema {
        let text = text::write(&model);
        Schema {
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

    /// A schema known only by its fingerprint, for types that cannot be
    /// traced. Frames written with it cannot embed the schema text.
    ///
    /// ```
    /// use kiln::schema::{Fingerprint, Schema};
    ///
    /// let s = Schema::from_fingerprint(Fingerprint(0x0123_4567_89ab_cdef));
    /// assert_eq!(s.text(), None);
    /// assert_eq!(s.fingerprint().to_string(), "0123456789abcdef");
    /// ```
    pub fn from_fingerprint(fingerprint: Fingerprint) -> Schema {
        Schema {
            text: None,
            fingerprint,
            model: None,
        }
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
