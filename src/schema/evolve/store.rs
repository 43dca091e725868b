//! Writer schema texts kept by fingerprint (`spec/12-evolution.md`, 12.6).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::schema::{Canonical, Fingerprint, Schema, parse};

// ---------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------

/// Writer schema texts by fingerprint, so that frames need not carry
/// their text to be read by another version of the type: a batch
/// written without [`embed_schema`](crate::frame::FrameOptions::embed_schema)
/// is resolved by the text the store holds for its fingerprint
/// ([`Evolve::schema_store`](crate::frame::Evolve::schema_store)).
///
/// Cheap to clone (the texts are shared). On disk, a store is a directory
/// of files named `<fingerprint>.kschema` ([`Store::save_dir`]), or one
/// file of texts separated by an empty line; either way each text is
/// checked to be canonical and keyed by its own hash, never by its name.
///
/// ```
/// #[derive(serde::Serialize, kiln::Schema)]
/// struct Point { x: i32, y: i32 }
///
/// let mut store = kiln::schema::Store::new();
/// let fp = store.add::<Point>()?;
/// assert_eq!(store.get(fp), Some("root Point\nstruct Point { x: i32, y: i32 }\n"));
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Store {
    texts: Arc<HashMap<Fingerprint, String>>,
}

/// The extension of a store directory's files.
pub const STORE_EXTENSION: &str = "kschema";

impl Store {
    /// An empty store.
    pub fn new() -> Store {
        Store::default()
    }

    /// Adds a canonical schema text; returns its fingerprint.
    ///
    /// # Errors
    /// [`ErrorKind::SchemaText`] when `text` is not canonical text.
    pub fn insert(&mut self, text: &str) -> Result<Fingerprint> {
        // `parse` accepts canonical text only (5.8).
        let canonical = parse(text).map(|_| Canonical::from_text(text))?;
        let fp = canonical.fingerprint();
        Arc::make_mut(&mut self.texts).insert(fp, text.to_owned());
        Ok(fp)
    }

    /// Adds the schema of `T` (the version this program writes).
    ///
    /// # Errors
    /// [`ErrorKind::NoSchema`] when `T` has none.
    pub fn add<T: Schema + ?Sized>(&mut self) -> Result<Fingerprint> {
        let schema = crate::schema::schema_of::<T>()?;
        let text = schema.text().expect("described schemas have text");
        let fp = schema.fingerprint();
        Arc::make_mut(&mut self.texts).insert(fp, text.to_owned());
        Ok(fp)
    }

    /// The text of `fingerprint`, if the store holds it.
    pub fn get(&self, fingerprint: Fingerprint) -> Option<&str> {
        self.texts.get(&fingerprint).map(String::as_str)
    }

    /// How many texts the store holds.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Reads a store from `path`: a directory of `*.kschema` files, or
    /// one file of texts separated by an empty line.
    ///
    /// # Errors
    /// [`ErrorKind::Io`], and [`ErrorKind::SchemaText`] for a text that is
    /// not canonical (offset within that text).
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        let io = |e| Error::new(ErrorKind::Io(e));
        let mut store = Store::new();
        if path.is_dir() {
            let mut files: Vec<_> = std::fs::read_dir(path)
                .map_err(io)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == STORE_EXTENSION))
                .collect();
            files.sort();
            for file in files {
                store.insert(&std::fs::read_to_string(&file).map_err(io)?)?;
            }
        } else {
            let all = std::fs::read_to_string(path).map_err(io)?;
            for text in all.split("\n\n").filter(|t| !t.trim().is_empty()) {
                let text = text.trim_start_matches('\n');
                if text.ends_with('\n') {
                    store.insert(text)?;
                } else {
                    store.insert(&format!("{text}\n"))?;
                }
            }
        }
        Ok(store)
    }

    /// Writes every text into `dir` as `<fingerprint>.kschema`.
    ///
    /// # Errors
    /// [`ErrorKind::Io`].
    pub fn save_dir(&self, dir: impl AsRef<Path>) -> Result<()> {
        let dir = dir.as_ref();
        let io = |e| Error::new(ErrorKind::Io(e));
        std::fs::create_dir_all(dir).map_err(io)?;
        for (fp, text) in self.texts.iter() {
            std::fs::write(dir.join(format!("{fp}.{STORE_EXTENSION}")), text).map_err(io)?;
        }
        Ok(())
    }
}
