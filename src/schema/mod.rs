//! The schema of a type as serde sees it, its canonical text, and its
//! 64-bit fingerprint.
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
//! [`ErrorKind::SchemaTrace`] naming the type; for those, trace with sample
//! values through a [`Tracer`], or state the fingerprint with
//! [`Schema::from_fingerprint`], and [`register`] the result.

use std::any::TypeId;
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{LazyLock, RwLock};

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_reflection::{ContainerFormat, Format, Named, Registry, Samples, VariantFormat};

/// serde-reflection's tracer configuration (made-up values, sample use),
/// re-exported for [`Tracer::with_config`].
pub use serde_reflection::TracerConfig;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Result};

mod bounded;
pub(crate) mod guard;
pub mod model;
mod text;

use crate::array::Tracing;
use bounded::Root;
pub use model::Model;
pub use text::{MAX_NESTING, parse};

/// A 64-bit schema fingerprint: the first 8 bytes of the SHA-256 digest of
/// the canonical schema text, read as a little-endian `u64`.
///
/// It is written into a frame header as those same 8 bytes, so the header
/// holds the digest's first 8 bytes in digest order. It displays as 16
/// lowercase hex digits of the `u64`.
///
/// ```
/// use kiln::schema::Fingerprint;
///
/// let fp = Fingerprint::of_text("root u8\n");
/// assert_eq!(fp, Fingerprint::from_le_bytes(fp.to_le_bytes()));
/// assert_eq!(fp.to_string().len(), 16);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// The fingerprint of a canonical schema text.
    pub fn of_text(text: &str) -> Fingerprint {
        let digest = Sha256::digest(text.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Fingerprint(u64::from_le_bytes(first))
    }

    /// The 8 bytes written in a frame header.
    pub fn to_le_bytes(self) -> [u8; 8] {
        self.0.to_le_bytes()
    }

    /// The fingerprint read from the 8 bytes of a frame header.
    pub fn from_le_bytes(bytes: [u8; 8]) -> Fingerprint {
        Fingerprint(u64::from_le_bytes(bytes))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({:016x})", self.0)
    }
}

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

// ---------------------------------------------------------------------------
// Tracing
// ---------------------------------------------------------------------------

/// Most root passes one trace may take. Each pass discovers at least one
/// variant, so this bounds the variants a schema can have in all.
const MAX_PASSES: usize = 1 << 16;

type Include = Box<dyn Fn(&mut serde_reflection::Tracer, &Samples) -> TraceResult<()> + Send>;
type Replay = Box<dyn Fn(&mut serde_reflection::Tracer) -> TraceResult<()> + Send>;
type TraceResult<T> = std::result::Result<T, serde_reflection::Error>;

/// Traces a schema with help: sample values for types that validate,
/// enums the root alone does not reach, or other default values.
///
/// ```
/// use std::num::NonZeroU32;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Id(NonZeroU32);
/// #[derive(Serialize, Deserialize)]
/// struct User { id: Id, name: String }
///
/// // The tracer's made-up 0 is not a NonZeroU32:
/// let err = kiln::schema::Tracer::new().trace::<User>().unwrap_err();
/// assert_eq!(err.kind().code(), "schema-trace");
///
/// // A sample of the newtype is used in its place:
/// let id = Id(NonZeroU32::new(7).unwrap());
/// let schema = kiln::schema::Tracer::new().sample(id)?.trace::<User>()?;
/// assert_eq!(
///     schema.text(),
///     Some("root User\nstruct Id(u32)\nstruct User { id: Id, name: str }\n")
/// );
/// # Ok::<(), kiln::Error>(())
/// ```
pub struct Tracer {
    config: fn() -> TracerConfig,
    samples: Samples,
    /// Records the samples' formats; kept so that samples agree with types.
    sampler: serde_reflection::Tracer,
    /// Records a sample's formats again in each fresh tracer, which needs
    /// them before it may use the sample.
    replays: Vec<Replay>,
    includes: Vec<Include>,
}

impl Default for Tracer {
    fn default() -> Self {
        Tracer::new()
    }
}

impl fmt::Debug for Tracer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tracer")
            .field("samples", &self.samples)
            .field("includes", &self.includes.len())
            .finish()
    }
}

fn default_config() -> TracerConfig {
    TracerConfig::default()
}

impl Tracer {
    /// A tracer with serde-reflection's default made-up values (zeros,
    /// empty strings, `'A'`) and no samples.
    pub fn new() -> Self {
        Tracer::with_config(default_config)
    }

    /// A tracer whose made-up values come from `config`, such as
    /// `|| TracerConfig::default().default_u32_value(1)` for types that
    /// refuse zero. Samples recorded with [`Tracer::sample`] use the same
    /// configuration.
    pub fn with_config(config: fn() -> TracerConfig) -> Self {
        Tracer {
            config,
            samples: Samples::new(),
            sampler: serde_reflection::Tracer::new(config()),
            replays: Vec::new(),
            includes: Vec::new(),
        }
    }

    /// Keeps `value` as a sample: when the tracer meets a newtype struct
    /// of the same name it uses the sample instead of making a value up
    /// (with [`TracerConfig::record_samples_for_structs`] and friends in
    /// the config, structs and tuple structs too).
    ///
    /// # Errors
    /// [`ErrorKind::SchemaTrace`] if the value's `Serialize` impl fails or
    /// disagrees with an earlier sample.
    pub fn sample<T: Serialize + Send + 'static>(mut self, value: T) -> Result<Self> {
        let _tracing = Tracing::start();
        self.sampler
            .trace_value(&mut self.samples, &value)
            .map_err(|e| trace_error(std::any::type_name::<T>(), e))?;
        self.replays.push(Box::new(move |tracer| {
            let _tracing = Tracing::start();
            tracer.trace_value(&mut Samples::new(), &value).map(|_| ())
        }));
        Ok(self)
    }

    /// Traces `T` too, before the root: for an enum that the root reaches
    /// only through a later variant of another enum, whose own variants the
    /// tracer could otherwise not all see.
    pub fn include<T: DeserializeOwned>(mut self) -> Self {
        self.includes.push(Box::new(|tracer, samples| {
            tracer
                .trace_type_with_seed(samples, Root::<T>::new())
                .map(|_| ())
        }));
        self
    }

    /// Traces `T` and returns its schema.
    ///
    /// # Errors
    /// [`ErrorKind::SchemaTrace`], naming the type and saying what to do:
    /// when `T`'s `Deserialize` refuses a made-up value, when it needs a
    /// self-describing format (`#[serde(untagged)]`, `#[serde(tag)]`,
    /// `#[serde(flatten)]`: Kiln cannot read such types either), or when an
    /// enum's variants cannot all be reached.
    pub fn trace<'a, T: Deserialize<'a>>(&'a self) -> Result<Schema> {
        trace_schema::<T>(&self.samples, self.config, &self.replays, &self.includes)
    }

    /// Traces `T` and [`register`]s the result for it.
    ///
    /// # Errors
    /// As [`Tracer::trace`] and [`register`].
    pub fn register<'a, T: Deserialize<'a>>(&'a self) -> Result<Schema> {
        let schema = self.trace::<T>()?;
        register::<T>(schema.clone())?;
        Ok(schema)
    }
}

/// Turns a tracing failure into an error that names the type and the fix.
fn trace_error(type_name: &str, e: serde_reflection::Error) -> Error {
    use serde_reflection::Error as E;
    let reason = match e {
        E::NotSupported(what) if what.contains("deserialize_any") => format!(
            "it calls `{what}`, which only self-describing formats answer: \
             #[serde(untagged)] and internally or adjacently tagged enums \
             (#[serde(tag = ...)]) and types such as serde_json::Value need it. \
             Kiln cannot read such types either; use an externally tagged enum"
        ),
        E::NotSupported(what) if what.contains("identifier") => format!(
            "it calls `{what}`, which #[serde(flatten)] and structs read as maps need. \
             Kiln cannot read such types either; nest the struct as a field instead"
        ),
        E::NotSupported(what) => format!(
            "it calls `{what}`, which a positional format cannot answer \
             (Kiln cannot read it either)"
        ),
        E::Custom(msg) if msg.contains(bounded::TOO_DEEP) => format!(
            "it nests more than {} levels deep without passing a named container. \
             A #[serde(transparent)] type that contains itself (through an Option, \
             Box, Vec or map) has no name in the schema text to refer back to, so \
             it has no schema: remove #[serde(transparent)] from it (a newtype \
             struct costs no byte, and its name lets the text refer back to it)",
            bounded::MAX_DEPTH
        ),
        E::Custom(msg) => format!(
            "its Deserialize refused a value the tracer made up ({msg}). Give a sample \
             with `kiln::schema::Tracer::new().sample(value)` (an owned value), other made-up values with \
             `Tracer::with_config`, or the fingerprint itself with `Schema::from_fingerprint`, \
             then `kiln::schema::register`"
        ),
        E::MissingVariants(names) => format!(
            "the tracer could not reach every variant of enum(s) {0}, which sit inside a \
             sequence, option, map or later enum variant; trace them explicitly with \
             `kiln::schema::Tracer::new(){1}.register::<{2}>()`",
            names.join(", "),
            names
                .iter()
                .map(|n| format!(".include::<{n}>()"))
                .collect::<String>(),
            type_name.rsplit("::").next().unwrap_or(type_name),
        ),
        other => other.to_string(),
    };
    Error::new(ErrorKind::SchemaTrace {
        type_name: type_name.to_string(),
        reason,
    })
}

fn not_reached(type_name: &str, names: &BTreeSet<String>) -> Error {
    trace_error(
        type_name,
        serde_reflection::Error::MissingVariants(names.iter().cloned().collect()),
    )
}

/// Traces `T` until every enum it reaches is complete.
///
/// serde-reflection's `trace_type` completes the root enum only. Nested
/// enums are marked incomplete and then always answered with their first
/// variant; clearing that mark and tracing the root again lets each pass
/// discover one more variant of every enum the pass reaches. Enums whose
/// names are only learned from a failed attempt are handled by starting
/// again, knowing the names.
fn trace_schema<'de, T: Deserialize<'de>>(
    samples: &'de Samples,
    config: fn() -> TracerConfig,
    replays: &[Replay],
    includes: &[Include],
) -> Result<Schema> {
    let type_name = std::any::type_name::<T>();
    let fail = |e| trace_error(type_name, e);
    let _tracing = Tracing::start();
    let mut enums: BTreeSet<String> = BTreeSet::new();
    let mut passes = 0usize;
    loop {
        let mut tracer = serde_reflection::Tracer::new(config());
        for replay in replays {
            replay(&mut tracer).map_err(fail)?;
        }
        for include in includes {
            include(&mut tracer, samples).map_err(fail)?;
        }
        let (root, _) = tracer
            .trace_type_with_seed(samples, Root::<T>::new())
            .map_err(fail)?;
        loop {
            let mut cleared = false;
            for name in &enums {
                cleared |= tracer.check_incomplete_enum(name).is_some();
            }
            if !cleared {
                break;
            }
            passes += 1;
            if passes > MAX_PASSES {
                return Err(not_reached(type_name, &enums));
            }
            tracer
                .trace_type_with_seed(samples, Root::<T>::new())
                .map_err(fail)?;
        }
        match tracer.registry() {
            Ok(registry) => {
                // An enum whose mark was cleared but that the root no longer
                // reaches still holds provisional (non-contiguous) indices.
                let partial: BTreeSet<String> = registry
                    .iter()
                    .filter(|(_, c)| match c {
                        ContainerFormat::Enum(v) => {
                            v.keys().enumerate().any(|(i, &k)| k as usize != i)
                        }
                        _ => false,
                    })
                    .map(|(n, _)| n.clone())
                    .collect();
                if !partial.is_empty() {
                    return Err(not_reached(type_name, &partial));
                }
                let model = model_of(&root, &registry).map_err(|reason| {
                    Error::new(ErrorKind::SchemaTrace {
                        type_name: type_name.to_string(),
                        reason,
                    })
                })?;
                return Ok(Schema::from_model(model));
            }
            Err(serde_reflection::Error::MissingVariants(names)) => {
                let before = enums.len();
                enums.extend(names.iter().cloned());
                if enums.len() == before {
                    return Err(not_reached(type_name, &names.into_iter().collect()));
                }
            }
            Err(e) => return Err(fail(e)),
        }
    }
}

// ---------------------------------------------------------------------------
// From the tracer's registry to the model
// ---------------------------------------------------------------------------

/// The model of the root format and the containers it uses, from what
/// serde-reflection recorded; an error says what the tracer left unknown.
fn model_of(root: &Format, registry: &Registry) -> std::result::Result<Model, String> {
    let mut containers = std::collections::BTreeMap::new();
    for (name, container) in registry {
        if crate::array::request(name).is_some() {
            continue; // written in place as `array<T>`
        }
        containers.insert(name.clone(), container_of(name, container)?);
    }
    Ok(Model {
        root: format_of(root)?,
        containers,
    })
}

fn format_of(format: &Format) -> std::result::Result<model::Format, String> {
    use model::Format as M;
    let boxed = |f: &Format| format_of(f).map(Box::new);
    Ok(match format {
        Format::Variable(_) => {
            return Err(
                "a part of the type stayed unknown to the tracer (an Option, \
                 sequence or map it never saw inside); trace with samples that fill it"
                    .into(),
            );
        }
        Format::TypeName(name) => match crate::array::request(name) {
            // A shaped array: owned, view or cow, the same bytes.
            Some(request) => M::Shaped(model::Dtype::from_code(request.dtype).ok_or("dtype")?),
            None => M::Named(name.clone()),
        },
        Format::Unit => M::Unit,
        Format::Bool => M::Bool,
        Format::I8 => M::I8,
        Format::I16 => M::I16,
        Format::I32 => M::I32,
        Format::I64 => M::I64,
        Format::I128 => M::I128,
        Format::U8 => M::U8,
        Format::U16 => M::U16,
        Format::U32 => M::U32,
        Format::U64 => M::U64,
        Format::U128 => M::U128,
        Format::F32 => M::F32,
        Format::F64 => M::F64,
        Format::Char => M::Char,
        Format::Str => M::Str,
        Format::Bytes => M::Bytes,
        Format::Option(inner) => M::Option(boxed(inner)?),
        Format::Seq(inner) => M::Seq(boxed(inner)?),
        Format::Map { key, value } => M::Map(boxed(key)?, boxed(value)?),
        Format::Tuple(items) => M::tuple(formats_of(items)?),
        Format::TupleArray { content, size } => M::tuple(vec![format_of(content)?; *size]),
    })
}

fn formats_of(items: &[Format]) -> std::result::Result<Vec<model::Format>, String> {
    items.iter().map(format_of).collect()
}

fn fields_of(fields: &[Named<Format>]) -> std::result::Result<Vec<model::Field>, String> {
    fields
        .iter()
        .map(|f| {
            Ok(model::Field {
                name: f.name.clone(),
                format: format_of(&f.value)?,
            })
        })
        .collect()
}

fn container_of(
    name: &str,
    container: &ContainerFormat,
) -> std::result::Result<model::Container, String> {
    use model::{Container, Shape};
    Ok(match container {
        ContainerFormat::UnitStruct => Container::Struct(Shape::Unit),
        ContainerFormat::NewTypeStruct(inner) => {
            Container::Struct(Shape::Newtype(format_of(inner)?))
        }
        ContainerFormat::TupleStruct(items) => Container::Struct(Shape::Tuple(formats_of(items)?)),
        ContainerFormat::Struct(fields) => Container::Struct(Shape::Struct(fields_of(fields)?)),
        ContainerFormat::Enum(variants) => {
            let mut out = Vec::with_capacity(variants.len());
            for (i, (index, variant)) in variants.iter().enumerate() {
                if *index as usize != i {
                    return Err(format!(
                        "enum {name} has no variant at index {i}: its variants were not all traced"
                    ));
                }
                let shape = match &variant.value {
                    VariantFormat::Variable(_) => {
                        return Err(format!(
                            "variant {name}::{} stayed unknown to the tracer",
                            variant.name
                        ));
                    }
                    VariantFormat::Unit => Shape::Unit,
                    VariantFormat::NewType(inner) => Shape::Newtype(format_of(inner)?),
                    VariantFormat::Tuple(items) => Shape::Tuple(formats_of(items)?),
                    VariantFormat::Struct(fields) => Shape::Struct(fields_of(fields)?),
                };
                out.push(model::Variant {
                    name: variant.name.clone(),
                    shape,
                });
            }
            Container::Enum(out)
        }
    })
}

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
/// As [`Tracer::trace`].
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_when_not_plain() {
        let mut s = String::new();
        for n in [
            "Point", "_x1", "u8", "root", "my field", "a\"b\\c", "1x", "", "\u{1}",
        ] {
            text::write_name(&mut s, n);
            s.push(' ');
        }
        assert_eq!(
            s,
            "Point _x1 \"u8\" \"root\" \"my field\" \"a\\\"b\\\\c\" \"1x\" \"\" \"\\u0001\" "
        );
    }

    #[test]
    fn tuples_and_arrays() {
        let f = format_of(&Format::Tuple(vec![
            Format::Tuple(vec![]),
            Format::Tuple(vec![Format::U8]),
            Format::Tuple(vec![Format::U8, Format::U8]),
            Format::TupleArray {
                content: Box::new(Format::I16),
                size: 1,
            },
            Format::TupleArray {
                content: Box::new(Format::I16),
                size: 3,
            },
        ]))
        .unwrap();
        let mut s = String::new();
        text::write_format(&mut s, &f);
        assert_eq!(s, "((), (u8,), [u8; 2], (i16,), [i16; 3])");
    }
}
