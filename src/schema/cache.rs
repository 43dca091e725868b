//! The per-process cache of schemas by type: traced once, or registered
//! by hand (`spec/05-schema.md`, 5.7).

use std::any::TypeId;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use serde::Deserialize;
use serde_reflection::Samples;

use super::trace::{default_config, trace_schema};
use super::{Fingerprint, Schema};
use crate::error::{Error, ErrorKind, Result};

// ---------------------------------------------------------------------------
// The per-process cache
// ---------------------------------------------------------------------------

enum Entry {
    Traced(&'static Schema),
    Failed { type_name: String, reason: String },
}

static CACHE: LazyLock<RwLock<HashMap<TypeId, Entry>>> =
    LazyLock::new(|| RwLock::new(HashMap::new()));

static NO_SAMPLES: LazyLock<Samples> = LazyLock::new(Samples::new);

thread_local! {
    /// The last schema this thread looked up: frames of one type in a loop
    /// skip the lock and the hash.
    static LAST: Cell<Option<(TypeId, &'static Schema)>> = const { Cell::new(None) };
}

fn lookup(id: TypeId) -> Option<Result<&'static Schema>> {
    let cache = CACHE.read().unwrap_or_else(|p| p.into_inner());
    cache.get(&id).map(|entry| match entry {
        Entry::Traced(schema) => Ok(*schema),
        Entry::Failed { type_name, reason } => Err(Error::new(ErrorKind::SchemaTrace {
            type_name: type_name.clone(),
            reason: reason.clone(),
        })),
    })
}

/// The schema of `T`, traced on first use and cached for the process.
///
/// A failed trace is cached too, so the cost of failing is paid once; the
/// error is returned again on every call until a schema is [`register`]ed.
///
/// ```
/// #[derive(serde::Deserialize)]
/// enum Shape { Circle(f64), Rect { w: f32, h: f32 }, Empty }
///
/// let s = kiln::schema::schema_of::<Shape>()?;
/// assert_eq!(
///     s.text(),
///     Some("root Shape\nenum Shape { Circle(f64), Rect { w: f32, h: f32 }, Empty }\n")
/// );
/// // The same `&'static Schema` every time:
/// assert!(std::ptr::eq(s, kiln::schema::schema_of::<Shape>()?));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`Tracer::trace`](super::Tracer::trace).
#[inline]
pub fn schema_of<'de, T: Deserialize<'de>>() -> Result<&'static Schema> {
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
fn schema_of_slow<'de, T: Deserialize<'de>>(id: TypeId) -> Result<&'static Schema> {
    let found = match lookup(id) {
        Some(found) => found,
        None => {
            // Traced outside the lock: tracing runs user code.
            let traced = trace_schema::<T>(&NO_SAMPLES, default_config, &[], &[]);
            let mut cache = CACHE.write().unwrap_or_else(|p| p.into_inner());
            let entry = cache.entry(id).or_insert_with(|| match traced {
                Ok(schema) => Entry::Traced(Box::leak(Box::new(schema))),
                Err(e) => match e.kind() {
                    ErrorKind::SchemaTrace { type_name, reason } => Entry::Failed {
                        type_name: type_name.clone(),
                        reason: reason.clone(),
                    },
                    _ => Entry::Failed {
                        type_name: std::any::type_name::<T>().to_string(),
                        reason: e.to_string(),
                    },
                },
            });
            match entry {
                Entry::Traced(schema) => Ok(*schema),
                Entry::Failed { type_name, reason } => Err(Error::new(ErrorKind::SchemaTrace {
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

/// The fingerprint of `T`: [`schema_of`]`::<T>()?.fingerprint()`.
///
/// # Errors
/// As [`schema_of`].
pub fn fingerprint_of<'de, T: Deserialize<'de>>() -> Result<Fingerprint> {
    schema_of::<T>().map(Schema::fingerprint)
}

/// Sets the schema of `T` for this process, for types that cannot be traced
/// without help. Call it before the first frame of `T` is written or read.
///
/// ```
/// use kiln::schema::{self, Fingerprint, Schema};
///
/// #[derive(serde::Deserialize)]
/// struct Even(#[serde(deserialize_with = "even")] u32);
/// fn even<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
///     let v = <u32 as serde::Deserialize>::deserialize(d)?;
///     if v % 2 == 0 && v > 0 { Ok(v) } else { Err(serde::de::Error::custom("odd")) }
/// }
///
/// assert!(schema::schema_of::<Even>().is_err());
/// schema::register::<Even>(Schema::from_fingerprint(Fingerprint(42)))?;
/// assert_eq!(schema::fingerprint_of::<Even>()?, Fingerprint(42));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::SchemaTrace`] if `T` already has a different schema in this
/// process (a schema in use is never replaced); registering the same
/// schema again is fine.
pub fn register<T: ?Sized>(schema: Schema) -> Result<&'static Schema> {
    let id = typeid::of::<T>();
    let mut cache = CACHE.write().unwrap_or_else(|p| p.into_inner());
    match cache.get(&id) {
        Some(Entry::Traced(existing)) if **existing == schema => Ok(*existing),
        Some(Entry::Traced(existing)) => Err(Error::new(ErrorKind::SchemaTrace {
            type_name: std::any::type_name::<T>().to_string(),
            reason: format!(
                "it already has the schema {} in this process; register before first use",
                existing.fingerprint
            ),
        })),
        _ => {
            let schema: &'static Schema = Box::leak(Box::new(schema));
            cache.insert(id, Entry::Traced(schema));
            Ok(schema)
        }
    }
}
