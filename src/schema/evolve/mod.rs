//! Schema evolution (`spec/12-evolution.md`): reading what another
//! version of a type wrote, by the writer's schema text.
//!
//! When a frame's fingerprint is not the reader's and the reader asked for
//! it ([`FrameOptions::evolve`](crate::frame::FrameOptions::evolve)), the
//! writer's text (embedded in the frame, or from a [`Store`]) is resolved
//! onto the reader's schema once per pair and cached: struct fields by
//! name (aliases count), enum variants by name, and the promotions that
//! keep every value exact. [`check`] gives the same verdict without data,
//! as a [`Report`] a test can assert on:
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, kiln::Schema)]
//! #[serde(rename = "Job")]
//! struct JobV1 { id: u32, name: String }
//!
//! #[derive(Deserialize, kiln::Schema, Debug, PartialEq)]
//! struct Job { id: u64, name: String, #[serde(default)] retries: u8 }
//!
//! let old = kiln::schema::schema_of::<JobV1>()?;
//! let report = kiln::schema::check::<Job>(old.text().unwrap())?;
//! assert!(report.is_compatible(), "{report}");
//!
//! let bytes = kiln::frame::FrameOptions::new()
//!     .embed_schema(true)
//!     .to_vec(&JobV1 { id: 7, name: "sweep".into() })?;
//! let job: Job = kiln::frame::FrameOptions::new().evolve().from_slice(&bytes)?;
//! assert_eq!(job, Job { id: 7, name: "sweep".into(), retries: 0 });
//! # Ok::<(), kiln::Error>(())
//! ```

mod numbers;
mod plan;
mod report;
mod store;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

pub use report::{Difference, Report, Verdict};
pub use store::{STORE_EXTENSION, Store};

use super::{Canonical, Fingerprint, Schema, parse};
use crate::de::Resolution;
use crate::error::{Error, ErrorKind, Result};
use plan::Planner;

// ---------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------

/// Checks, without data, whether `Reader` can read what a writer with
/// schema `writer_text` wrote: every difference and the rule that allows
/// or refuses it. Put it in a test: "this type still reads last
/// release's files".
///
/// # Errors
/// [`ErrorKind::SchemaText`] when `writer_text` is not canonical text,
/// [`ErrorKind::NoSchema`] when `Reader` has no schema.
pub fn check<Reader: Schema + ?Sized>(writer_text: &str) -> Result<Report> {
    let reader = super::schema_of::<Reader>()?;
    let writer = Canonical::from_text(writer_text);
    let writer_model = parse(writer_text)?;
    let reader_model = reader.model().ok_or_else(|| no_model(reader))?;
    Ok(Planner::new(&writer_model, reader_model, true)
        .plan()
        .report(writer.fingerprint(), reader.fingerprint()))
}

/// [`check`] between two schema texts, for tools without the reader's Rust
/// type (`kiln compat OLD NEW`). The text does not say which fields have
/// a default, which names are aliases, or which variant is
/// `#[serde(other)]`: a field new in the reader that is not an option, and
/// a writer variant the reader lacks, are [`Verdict::Conditional`].
///
/// # Errors
/// [`ErrorKind::SchemaText`] when either text is not canonical text.
pub fn check_texts(writer_text: &str, reader_text: &str) -> Result<Report> {
    let writer_model = parse(writer_text)?;
    let reader_model = parse(reader_text)?;
    Ok(Planner::new(&writer_model, &reader_model, false)
        .plan()
        .report(
            Fingerprint::of_text(writer_text),
            Fingerprint::of_text(reader_text),
        ))
}

/// A side of a difference in an error message: `-` for none.
fn side(format: &str) -> String {
    if format.is_empty() {
        "-".to_owned()
    } else {
        format.to_owned()
    }
}

fn no_model(reader: &Canonical) -> Error {
    Error::new(ErrorKind::SchemaIncompatible {
        path: String::new(),
        writer: String::new(),
        reader: reader.fingerprint().to_string(),
        reason: "the reader's schema has no canonical text to resolve onto".into(),
    })
}

/// Resolutions planned so far, by writer fingerprint and reader schema
/// (the reader's `&'static Canonical`, one per type). Bounded: a stream
/// of hostile frames with ever new texts cannot grow it without end.
type Cache = HashMap<(Fingerprint, usize), Arc<Resolution>>;
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(HashMap::new()));
const CACHE_LIMIT: usize = 256;

/// The resolution of `writer_text` onto `reader`, planned once per pair.
/// Errors point at the frame header's fingerprint (16): nothing of the
/// payload has been read.
pub(crate) fn resolution(writer_text: &str, reader: &'static Canonical) -> Result<Arc<Resolution>> {
    let writer_fp = Fingerprint::of_text(writer_text);
    let key = (writer_fp, reader as *const Canonical as usize);
    let cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = cache.get(&key) {
        return Ok(found.clone());
    }
    drop(cache);
    // The header's fingerprint (spec/06-frame.md, 6.2): where a reader
    // stands when it finds that the writer's schema is not its own.
    let at = 16;
    let writer_model = parse(writer_text)?;
    let reader_model = reader
        .model()
        .ok_or_else(|| no_model(reader).or_offset(at))?;
    let planned = Planner::new(&writer_model, reader_model, true).plan();
    if let Some(refused) = planned.refusals.first() {
        return Err(Error::at(
            ErrorKind::SchemaIncompatible {
                path: refused.path.clone(),
                writer: side(&refused.writer),
                reader: side(&refused.reader),
                reason: planned.reasons[0].clone(),
            },
            at,
        ));
    }
    let resolution = Arc::new(planned.resolution);
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, resolution.clone());
    Ok(resolution)
}
