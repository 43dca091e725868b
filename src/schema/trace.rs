//! The run-time tracer: a type's schema collected by calling its
//! `Deserialize` with serde-reflection's made-up values (`spec/05-schema.md`, 5.1 and 5.6).

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_reflection::{ContainerFormat, Format, Named, Registry, Samples, VariantFormat};

/// serde-reflection's tracer configuration (made-up values, sample use),
/// for [`Tracer::with_config`].
pub use serde_reflection::TracerConfig;

use super::bounded::{self, Root};
use super::{Canonical, Model, model};
use crate::array::Tracing;
use crate::error::{Error, ErrorKind, Result};

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
/// assert_eq!(err.kind().code(), "no-schema");
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

pub(super) fn default_config() -> TracerConfig {
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
    /// [`ErrorKind::NoSchema`] if the value's `Serialize` impl fails or
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
    /// [`ErrorKind::NoSchema`], naming the type and saying what to do:
    /// when `T`'s `Deserialize` refuses a made-up value, when it needs a
    /// self-describing format (`#[serde(untagged)]`, `#[serde(tag)]`,
    /// `#[serde(flatten)]`: Kiln cannot read such types either), or when an
    /// enum's variants cannot all be reached.
    pub fn trace<'a, T: Deserialize<'a>>(&'a self) -> Result<Canonical> {
        trace_schema::<T>(&self.samples, self.config, &self.replays, &self.includes)
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
             `Tracer::with_config`; or derive kiln::Schema, which needs no values"
        ),
        E::MissingVariants(names) => format!(
            "the tracer could not reach every variant of enum(s) {0}, which sit inside a \
             sequence, option, map or later enum variant; trace them explicitly with \
             `kiln::schema::Tracer::new(){1}.trace::<{2}>()`",
            names.join(", "),
            names
                .iter()
                .map(|n| format!(".include::<{n}>()"))
                .collect::<String>(),
            type_name.rsplit("::").next().unwrap_or(type_name),
        ),
        other => other.to_string(),
    };
    Error::new(ErrorKind::NoSchema {
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
pub(super) fn trace_schema<'de, T: Deserialize<'de>>(
    samples: &'de Samples,
    config: fn() -> TracerConfig,
    replays: &[Replay],
    includes: &[Include],
) -> Result<Canonical> {
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
                    Error::new(ErrorKind::NoSchema {
                        type_name: type_name.to_string(),
                        reason,
                    })
                })?;
                return Ok(Canonical::from_model(model));
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
        rust_names: std::collections::BTreeMap::new(),
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
        .map(|f| Ok(model::Field::new(f.name.clone(), format_of(&f.value)?)))
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
                out.push(model::Variant::new(variant.name.clone(), shape));
            }
            Container::Enum(out)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::text;

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
