//! The per-process cache of schemas by type: described once, then a
//! lookup (`spec/05-schema.md`, 5.7).

use std::any::TypeId;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use super::describe::{Describer, Schema};
use super::{Canonical, Fingerprint};
use crate::error::{Error, ErrorKind, Result};

// ---------------------------------------------------------------------------
// The per-process cache
// ---------------------------------------------------------------------------

enum Entry {
    Described(&'static Canonical),
    Failed { type_name: String, reason: String },
}

static CACHE: LazyLock<RwLock<HashMap<TypeId, Entry>>> =
    LazyLock::new(|| RwLock::new(HashMap::new()));

thread_local! {
    /// The last schema this thread looked up: frames of one type in a loop
    /// skip the lock and the hash.
    static LAST: Cell<Option<(TypeId, &'static Canonical)>> = const { Cell::new(None) };
}

fn lookup(id: TypeId) -> Option<Result<&'static Canonical>> {
    let cache = CACHE.read().unwrap_or_else(|p| p.into_inner());
    cache.get(&id).map(|entry| match entry {
        Entry::Described(schema) => Ok(*schema),
        Entry::Failed { type_name, reason } => Err(Error::new(ErrorKind::NoSchema {
            type_name: type_name.clone(),
            reason: reason.clone(),
        })),
    })
}

/// The schema of `T`, described on first use and cached for the process.
///
/// A failed description is cached too, and returned again on every call.
///
/// ```
/// #[derive(serde::Deserialize, kiln::Schema)]
/// enum Shape { Circle(f64), Rect { w: f32, h: f32 }, Empty }
///
/// let s = kiln::schema::schema_of::<Shape>()?;
/// assert_eq!(
///     s.text(),
///     Some("root Shape\nenum Shape { Circle(f64), Rect { w: f32, h: f32 }, Empty }\n")
/// );
/// // The same `&'static Canonical` every time:
/// assert!(std::ptr::eq(s, kiln::schema::schema_of::<Shape>()?));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::NoSchema`] naming the type and saying why: two types of
/// one serde name with different layouts in the schema, a type inside
/// itself through transparent types only, a `#[kiln(schema = "...")]`
/// that is not a format, or a description nested deeper than
/// [`MAX_DESCRIBE_DEPTH`](super::MAX_DESCRIBE_DEPTH) or
/// [`MAX_NESTING`](super::MAX_NESTING).
#[inline]
pub fn schema_of<T: Schema + ?Sized>() -> Result<&'static Canonical> {
    let id = typeid::of::<T>();
    if let Some((last, schema)) = LAST.with(Cell::get)
        && last == id
    {
        return Ok(schema);
    }
    schema_of_slow::<T>(id)
}

/// [`schema_of`] when this thread's last lookup was another type: the
/// shared cache, or a trace. Out of line, so that a loop over frames of one
/// type keeps only the thread-local check.
#[cold]
#[inline(never)]
fn schema_of_slow<T: Schema + ?Sized>(id: TypeId) -> Result<&'static Canonical> {
    let found = match lookup(id) {
        Some(found) => found,
        None => {
            // Described outside the lock: hand-written impls run user code.
            let described = describe::<T>();
            let mut cache = CACHE.write().unwrap_or_else(|p| p.into_inner());
            let entry = cache.entry(id).or_insert_with(|| match described {
                Ok(schema) => Entry::Described(Box::leak(Box::new(schema))),
                Err((type_name, reason)) => Entry::Failed { type_name, reason },
            });
            match entry {
                Entry::Described(schema) => Ok(*schema),
                Entry::Failed { type_name, reason } => Err(Error::new(ErrorKind::NoSchema {
                    type_name: type_name.clone(),
                    reason: reason.clone(),
                })),
            }
        }
    };
    let schema = found?;
    LAST.with(|last| last.set(Some((id, schema))));
    Ok(schema)
}

/// Describes `T` and checks that its text is canonical text (a format
/// nested deeper than the text allows is refused here, not by readers).
fn describe<T: Schema + ?Sized>() -> std::result::Result<Canonical, (String, String)> {
    let model = Describer::model_of::<T>()?;
    let schema = Canonical::from_model(model);
    let text = schema.text().unwrap_or_default();
    match super::parse(text) {
        Ok(_) => Ok(schema),
        Err(e) => Err((
            std::any::type_name::<T>().to_owned(),
            format!("its schema text is not canonical text ({e})"),
        )),
    }
}

/// The fingerprint of `T`: [`schema_of`]`::<T>()?.fingerprint()`.
///
/// # Errors
/// As [`schema_of`].
pub fn fingerprint_of<T: Schema + ?Sized>() -> Result<Fingerprint> {
    schema_of::<T>().map(Canonical::fingerprint)
}
