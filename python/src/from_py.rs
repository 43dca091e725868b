//! Python objects made into values of a schema, strictly, by the mapping
//! of `spec/10-values.md` (10.5): what does not fit raises `kiln.Error`
//! (`value-mismatch`) naming the path, what the schema has there and what
//! the object is. kiln's encoder then writes the value.

use std::borrow::Cow;

use kiln::Dtype;
use kiln::value::{ArrayValue, Block, Struct, Value, Variant};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple,
};

use crate::numpy;
use crate::shapes::{Fields, Id, Shape, Shapes, VariantShape, describe};

/// A step of an error's path, outermost last (as kiln's errors keep it).
pub(crate) enum Step {
    Container(String),
    Field(String),
    Position(usize),
    Index(usize),
    Entry(usize),
    Variant(String),
}

/// Why an object could not be made into a value.
pub(crate) enum Fail {
    /// It does not fit the schema.
    Mismatch {
        expected: String,
        found: String,
        path: Vec<Step>,
    },
    /// It is nested deeper than a reader would read (the path so far).
    Depth(Vec<Step>),
    /// Looking at it raised.
    Python(PyErr),
}

impl From<PyErr> for Fail {
    fn from(e: PyErr) -> Fail {
        Fail::Python(e)
    }
}

impl Fail {
    /// Adds a container's step only to a mismatch found inside it (a
    /// mismatch of the whole container has no path, as in kiln).
    fn inside(self, step: Step) -> Fail {
        match &self {
            Fail::Mismatch { path, .. } | Fail::Depth(path) if !path.is_empty() => self.at(step),
            _ => self,
        }
    }

    fn at(mut self, step: Step) -> Fail {
        if let Fail::Mismatch { path, .. } | Fail::Depth(path) = &mut self {
            path.push(step);
        }
        self
    }

    /// The Python exception: `kiln.Error` for a mismatch, with `record`
    /// when the object was one of several.
    pub(crate) fn into_py(self, py: Python<'_>, record: Option<u64>) -> PyErr {
        match self {
            Fail::Python(e) => e,
            Fail::Depth(path) => {
                let limit = kiln::options::DEFAULT_MAX_DEPTH;
                let path = render(&path);
                let message = format!(
                    "nesting too deep: the limit is {limit} levels{}",
                    path.as_deref()
                        .map(|p| format!(" in {p}"))
                        .unwrap_or_default()
                );
                crate::error::raise(py, message, "depth-limit", None, record, path)
            }
            Fail::Mismatch {
                expected,
                found,
                path,
            } => {
                let path = render(&path);
                let mut message =
                    format!("value does not fit the schema: expected {expected}, found {found}");
                if let Some(r) = record {
                    message.push_str(&format!(" in record {r}"));
                }
                if let Some(p) = &path {
                    message.push_str(&format!(" in {p}"));
                }
                crate::error::raise(py, message, "value-mismatch", None, record, path)
            }
        }
    }
}

/// A path as kiln writes it: `Point.y`, `Scene.meshes[3].name`.
fn render(path: &[Step]) -> Option<String> {
    let mut out = String::new();
    for (i, step) in path.iter().rev().enumerate() {
        match step {
            Step::Container(name) if i == 0 => out.push_str(name),
            Step::Container(_) => {}
            Step::Field(name) => {
                out.push('.');
                out.push_str(name);
            }
            Step::Position(p) => out.push_str(&format!(".{p}")),
            Step::Index(p) => out.push_str(&format!("[{p}]")),
            Step::Entry(p) => out.push_str(&format!("{{entry {p}}}")),
            Step::Variant(name) => {
                out.push_str("::");
                out.push_str(name);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

type Made = Result<Value<'static>, Fail>;

/// One conversion under a schema.
pub(crate) struct FromPy<'s> {
    pub(crate) shapes: &'s Shapes,
    /// Levels entered so far: a Python object nested deeper than the
    /// readers' limit is refused before it can exhaust the stack.
    pub(crate) depth: std::cell::Cell<u32>,
}

impl<'s> FromPy<'s> {
    pub(crate) fn new(shapes: &'s Shapes) -> FromPy<'s> {
        FromPy {
            shapes,
            depth: std::cell::Cell::new(0),
        }
    }
}

impl FromPy<'_> {
    fn mismatch(&self, id: Id, obj: &Bound<'_, PyAny>) -> Fail {
        Fail::Mismatch {
            expected: describe(self.shapes, id),
            found: found(obj),
            path: Vec::new(),
        }
    }

    /// The value of node `id` that `obj` stands for.
    pub(crate) fn value(&self, id: Id, obj: &Bound<'_, PyAny>) -> Made {
        let depth = self.depth.get();
        if depth >= kiln::options::DEFAULT_MAX_DEPTH {
            return Err(Fail::Depth(Vec::new()));
        }
        self.depth.set(depth + 1);
        let made = self.value_at(id, obj);
        self.depth.set(depth);
        made
    }

    fn value_at(&self, id: Id, obj: &Bound<'_, PyAny>) -> Made {
        match self.shapes.node(id) {
            Shape::Unit | Shape::UnitStruct(_) if obj.is_none() => Ok(Value::Unit),
            Shape::Bool => match obj.cast::<PyBool>() {
                Ok(b) => Ok(Value::Bool(b.is_true())),
                Err(_) if is_numpy_bool(obj) => Ok(Value::Bool(obj.is_truthy()?)),
                Err(_) => Err(self.mismatch(id, obj)),
            },
            Shape::Num(d) => self.number(id, *d, obj),
            Shape::Char => match obj.cast::<PyString>() {
                Ok(s) => {
                    let s = s.to_cow()?;
                    let mut chars = s.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) => Ok(Value::Char(c)),
                        _ => Err(self.mismatch(id, obj)),
                    }
                }
                Err(_) => Err(self.mismatch(id, obj)),
            },
            Shape::Str => match obj.cast::<PyString>() {
                Ok(s) => match s.to_str() {
                    Ok(s) => Ok(Value::Str(Cow::Owned(s.to_owned()))),
                    // A lone surrogate: no UTF-8 form.
                    Err(_) => Err(self.mismatch(id, obj)),
                },
                Err(_) => Err(self.mismatch(id, obj)),
            },
            Shape::Bytes => match bytes_of(obj)? {
                Some(b) => Ok(Value::Bytes(Cow::Owned(b))),
                None => Err(self.mismatch(id, obj)),
            },
            Shape::Option(inner) => {
                if obj.is_none() {
                    Ok(Value::Option(None))
                } else {
                    Ok(Value::Option(Some(Box::new(self.value(*inner, obj)?))))
                }
            }
            Shape::Seq(elem) => self.seq(id, *elem, obj),
            Shape::Map { key, value, dict } => self.map(id, *key, *value, *dict, obj),
            Shape::Tuple(ids) => self.tuple(id, ids.len(), |i| ids[i], obj),
            Shape::Repeat(item, n) => self.tuple(id, *n, |_| *item, obj),
            Shape::Shaped(d) => self.shaped(id, *d, obj),
            Shape::Newtype(name, inner) => self
                .value(*inner, obj)
                .map_err(|e| e.inside(Step::Container(name.clone()))),
            Shape::TupleStruct(name, ids) => self
                .tuple(id, ids.len(), |i| ids[i], obj)
                .map_err(|e| e.inside(Step::Container(name.clone()))),
            Shape::Struct(f) => self
                .fields(id, f, obj)
                .map(Value::Struct)
                .map_err(|e| e.inside(Step::Container(f.name.clone()))),
            Shape::Enum(name, variants) => self
                .variant(id, variants, obj)
                .map_err(|e| e.at(Step::Container(name.clone()))),
            Shape::Unit | Shape::UnitStruct(_) => Err(self.mismatch(id, obj)),
        }
    }

    /// An enum's value: a unit variant's name, or a dict of one key, the
    /// variant's name, whose value is the payload.
    fn variant(&self, id: Id, variants: &[VariantShape], obj: &Bound<'_, PyAny>) -> Made {
        let (vname, payload) = if let Ok(s) = obj.cast::<PyString>() {
            (s.to_str()?.to_owned(), None)
        } else if let Ok(d) = obj.cast::<PyDict>()
            && d.len() == 1
            && let Some((k, v)) = d.iter().next()
            && let Ok(k) = k.cast::<PyString>()
        {
            (k.to_str()?.to_owned(), Some(v))
        } else {
            return Err(self.mismatch(id, obj));
        };
        let Some(index) = variants.iter().position(|v| v.name == vname) else {
            return Err(Fail::Mismatch {
                expected: describe(self.shapes, id),
                found: format!("the variant {vname:?}"),
                path: Vec::new(),
            });
        };
        let vs = &variants[index];
        let payload = || -> Result<Option<Value<'static>>, Fail> {
            Ok(match (vs.node, &payload) {
                (None, None) => None,
                (Some(node), Some(p)) => Some(self.value(node, p)?),
                (_, p) => {
                    return Err(Fail::Mismatch {
                        expected: format!("the payload of {vname}"),
                        found: p.as_ref().map_or_else(|| "no payload".into(), found),
                        path: Vec::new(),
                    });
                }
            })
        };
        let value = payload().map_err(|e| e.at(Step::Variant(vname.clone())))?;
        Ok(Value::Variant(Box::new(Variant {
            name: vs.name.as_str().into(),
            index: index as u32,
            value,
        })))
    }

    fn number(&self, id: Id, d: Dtype, obj: &Bound<'_, PyAny>) -> Made {
        let py = obj.py();
        let is_bool = obj.is_instance_of::<PyBool>() || is_numpy_bool(obj);
        let is_int =
            !is_bool && (obj.is_instance_of::<PyInt>() || obj.is_instance(numpy::integer(py)?)?);
        let is_float = !is_bool
            && !is_int
            && (obj.is_instance_of::<PyFloat>() || obj.is_instance(numpy::floating(py)?)?);
        if is_int {
            // Beyond 128 bits fits no Kiln number.
            let v: i128 = match obj.extract::<i128>() {
                Ok(v) => v,
                Err(_) => match obj.extract::<u128>() {
                    Ok(v) if d == Dtype::U128 => return Ok(Value::U128(v)),
                    _ => return Err(self.mismatch(id, obj)),
                },
            };
            // An int stands for a float only when it is exact.
            let out = Value::from_int(d, v);
            return out.ok_or_else(|| self.mismatch(id, obj));
        }
        if is_float {
            let v: f64 = obj.extract()?;
            return match d {
                Dtype::F64 => Ok(Value::F64(v)),
                // Rounded to the nearest f32, as from JSON; one too large
                // for an f32 does not fit.
                Dtype::F32 if (v as f32).is_finite() || !v.is_finite() => Ok(Value::F32(v as f32)),
                _ => Err(self.mismatch(id, obj)),
            };
        }
        Err(self.mismatch(id, obj))
    }

    fn seq(&self, id: Id, elem: Id, obj: &Bound<'_, PyAny>) -> Made {
        let py = obj.py();
        if obj.is_instance(numpy::ndarray(py)?)? {
            if let Shape::Num(d) = self.shapes.node(elem)
                && !matches!(d, Dtype::I128 | Dtype::U128)
                && obj.getattr("ndim")?.extract::<usize>()? == 1
            {
                let bytes = numpy_bytes(self, id, *d, obj)?;
                return Ok(Value::Block(block_of(*d, &bytes)));
            }
        } else if !is_sequence(obj) {
            return Err(self.mismatch(id, obj));
        }
        let mut items = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            items.push(self.value(elem, &item?).map_err(|e| e.at(Step::Index(i)))?);
        }
        Ok(Value::Seq(items))
    }

    fn map(&self, id: Id, key: Id, value: Id, dict: bool, obj: &Bound<'_, PyAny>) -> Made {
        let mut entries = Vec::new();
        if let Ok(d) = obj.cast::<PyDict>() {
            for (i, (k, v)) in d.iter().enumerate() {
                let k = self.value(key, &k).map_err(|e| e.at(Step::Entry(i)))?;
                let v = self.value(value, &v).map_err(|e| e.at(Step::Entry(i)))?;
                entries.push((k, v));
            }
        } else if !dict && is_sequence(obj) {
            // Keys without a hashable form: a list of (key, value) pairs.
            for (i, pair) in obj.try_iter()?.enumerate() {
                let pair = pair?;
                let both = pair
                    .cast::<PyTuple>()
                    .ok()
                    .filter(|t| t.len() == 2)
                    .map(|t| (t.get_item(0), t.get_item(1)));
                let Some((Ok(k), Ok(v))) = both else {
                    return Err(Fail::Mismatch {
                        expected: "a (key, value) pair".into(),
                        found: found(&pair),
                        path: vec![Step::Entry(i)],
                    });
                };
                let k = self.value(key, &k).map_err(|e| e.at(Step::Entry(i)))?;
                let v = self.value(value, &v).map_err(|e| e.at(Step::Entry(i)))?;
                entries.push((k, v));
            }
        } else {
            return Err(self.mismatch(id, obj));
        }
        Ok(Value::Map(entries))
    }

    /// A tuple, `[T; N]`, tuple struct or tuple variant: a tuple or list
    /// (or numpy array, or numpy record) of exactly its length.
    /// (`len` elements, element `i` of node `item(i)`; the length is
    /// checked before anything is allocated.)
    fn tuple(
        &self,
        id: Id,
        len: usize,
        item: impl Fn(usize) -> Id,
        obj: &Bound<'_, PyAny>,
    ) -> Made {
        let py = obj.py();
        let ok = obj.is_instance_of::<PyTuple>()
            || obj.is_instance_of::<PyList>()
            || obj.is_instance(numpy::ndarray(py)?)?
            || obj.is_instance(numpy::void(py)?)?;
        if !ok || obj.len()? != len {
            return Err(self.mismatch(id, obj));
        }
        let mut items = Vec::with_capacity(len);
        for (i, x) in obj.try_iter()?.enumerate() {
            items.push(
                self.value(item(i), &x?)
                    .map_err(|e| e.at(Step::Position(i)))?,
            );
        }
        Ok(Value::Tuple(items))
    }

    /// A struct or struct variant: a dict with exactly its field names
    /// (or a numpy record with them).
    fn fields(&self, id: Id, f: &Fields, obj: &Bound<'_, PyAny>) -> Result<Struct<'static>, Fail> {
        let py = obj.py();
        let mut values = Vec::with_capacity(f.ids.len());
        if let Ok(d) = obj.cast::<PyDict>() {
            for (key, (name, &fid)) in f.keys.iter().zip(f.names.iter().zip(f.ids.iter())) {
                let Some(x) = d.get_item(key.bind(py))? else {
                    return Err(Fail::Mismatch {
                        expected: format!("the field {name}"),
                        found: "no such key".into(),
                        path: vec![Step::Field(name.clone())],
                    });
                };
                values.push(
                    self.value(fid, &x)
                        .map_err(|e| e.at(Step::Field(name.clone())))?,
                );
            }
            if d.len() != f.ids.len() {
                let extra = d
                    .keys()
                    .iter()
                    .find(|k| {
                        k.extract::<&str>()
                            .map(|k| !f.names.iter().any(|n| n == k))
                            .unwrap_or(true)
                    })
                    .map(|k| found_key(&k))
                    .unwrap_or_default();
                return Err(Fail::Mismatch {
                    expected: describe(self.shapes, id),
                    found: format!("a dict with the key {extra}, which it does not have"),
                    path: Vec::new(),
                });
            }
        } else if obj.is_instance(numpy::void(py)?)? {
            let names = obj.getattr("dtype")?.getattr("names")?;
            if names.is_none() || names.len()? != f.names.len() {
                return Err(self.mismatch(id, obj));
            }
            for (name, &fid) in f.names.iter().zip(f.ids.iter()) {
                let x = obj.get_item(name.as_str()).map_err(|_| Fail::Mismatch {
                    expected: format!("the field {name}"),
                    found: "a numpy record without it".into(),
                    path: vec![Step::Field(name.clone())],
                })?;
                values.push(
                    self.value(fid, &x)
                        .map_err(|e| e.at(Step::Field(name.clone())))?,
                );
            }
        } else {
            return Err(self.mismatch(id, obj));
        }
        Ok(Struct::new(&f.name, f.names.iter().cloned().zip(values)))
    }

    fn shaped(&self, id: Id, d: Dtype, obj: &Bound<'_, PyAny>) -> Made {
        let py = obj.py();
        if !obj.is_instance(numpy::ndarray(py)?)? {
            return Err(self.mismatch(id, obj));
        }
        let shape: Vec<usize> = obj.getattr("shape")?.extract()?;
        let data = if matches!(d, Dtype::I128 | Dtype::U128) {
            // numpy has no 128-bit integers: an array of Python ints (as
            // reading gives), or of narrower integers.
            let mut data = Vec::new();
            let flat = obj.call_method0("ravel")?.call_method0("tolist")?;
            for (i, x) in flat.try_iter()?.enumerate() {
                let x = x?;
                let v = if x.is_instance_of::<PyInt>() && !x.is_instance_of::<PyBool>() {
                    match d {
                        Dtype::I128 => x.extract::<i128>().ok().map(|v| v.to_le_bytes()),
                        _ => x.extract::<u128>().ok().map(|v| v.to_le_bytes()),
                    }
                } else {
                    None
                };
                match v {
                    Some(bytes) => data.extend_from_slice(&bytes),
                    None => {
                        return Err(Fail::Mismatch {
                            expected: d.name().into(),
                            found: found(&x),
                            path: vec![Step::Index(i)],
                        });
                    }
                }
            }
            data
        } else {
            numpy_bytes(self, id, d, obj)?
        };
        Ok(Value::Array(ArrayValue {
            dtype: d,
            shape,
            data: Cow::Owned(data),
        }))
    }
}

/// The little-endian bytes of a numpy array's elements as `d`, row-major.
/// Casts are those numpy calls safe (no value changes), and floats to a
/// narrower float, rounded as a Python float is for an `f32` (a finite
/// value too large for it is refused).
fn numpy_bytes(
    conv: &FromPy<'_>,
    id: Id,
    d: Dtype,
    arr: &Bound<'_, PyAny>,
) -> Result<Vec<u8>, Fail> {
    let py = arr.py();
    let np = py.import("numpy")?;
    let target = numpy::dtype_fn(py)?.call1((numpy::code(d),))?;
    let from = arr.getattr("dtype")?;
    let safe: bool = np
        .getattr("can_cast")?
        .call1((&from, &target, "safe"))?
        .extract()?;
    let float_to_float =
        from.getattr("kind")?.extract::<String>()? == "f" && matches!(d, Dtype::F32 | Dtype::F64);
    if !safe && !float_to_float {
        return Err(conv.mismatch(id, arr));
    }
    // Narrowing floats: overflow is checked below, not warned about.
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("over", "ignore")?;
    let quiet = np.getattr("errstate")?.call((), Some(&kwargs))?;
    quiet.call_method0("__enter__")?;
    let cast = np.getattr("ascontiguousarray")?.call1((arr, &target));
    quiet.call_method1("__exit__", (py.None(), py.None(), py.None()))?;
    let contiguous = cast?;
    if !safe {
        // Rounding is allowed; turning a finite number into infinity is not.
        let isfinite = np.getattr("isfinite")?;
        let same: bool = np
            .getattr("array_equal")?
            .call1((isfinite.call1((arr,))?, isfinite.call1((&contiguous,))?))?
            .extract()?;
        if !same {
            return Err(Fail::Mismatch {
                expected: format!("numbers that fit {}", d.name()),
                found: "a finite value too large for it".into(),
                path: Vec::new(),
            });
        }
    }
    let bytes = contiguous.call_method0("tobytes")?;
    Ok(bytes
        .cast::<PyBytes>()
        .map_err(PyErr::from)?
        .as_bytes()
        .to_vec())
}

/// A block of `d` from little-endian bytes.
fn block_of(d: Dtype, bytes: &[u8]) -> Block {
    macro_rules! each {
        ($variant:ident, $ty:ty) => {
            Block::$variant(
                bytes
                    .chunks_exact(std::mem::size_of::<$ty>())
                    .map(|c| <$ty>::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )
        };
    }
    match d {
        Dtype::U8 => Block::U8(bytes.to_vec()),
        Dtype::I8 => each!(I8, i8),
        Dtype::U16 => each!(U16, u16),
        Dtype::I16 => each!(I16, i16),
        Dtype::U32 => each!(U32, u32),
        Dtype::I32 => each!(I32, i32),
        Dtype::U64 => each!(U64, u64),
        Dtype::I64 => each!(I64, i64),
        Dtype::U128 => each!(U128, u128),
        Dtype::I128 => each!(I128, i128),
        Dtype::F32 => each!(F32, f32),
        Dtype::F64 => each!(F64, f64),
    }
}

/// Whether `obj` is a sequence for a `seq`, a map of pairs or a tuple:
/// a list, tuple or numpy array, not a string, bytes or dict.
fn is_sequence(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || numpy::ndarray(obj.py())
            .and_then(|t| obj.is_instance(t))
            .unwrap_or(false)
}

fn is_numpy_bool(obj: &Bound<'_, PyAny>) -> bool {
    numpy::bool_type(obj.py())
        .and_then(|t| obj.is_instance(t))
        .unwrap_or(false)
}

/// The bytes of `bytes`, `bytearray` or `memoryview`.
fn bytes_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Some(b.to_vec()));
    }
    if obj.is_instance_of::<PyMemoryView>() {
        let b = obj.call_method0("tobytes")?;
        return Ok(b.cast::<PyBytes>().ok().map(|b| b.as_bytes().to_vec()));
    }
    Ok(None)
}

/// What an object is, for an error: `the int 300`, `a str`, `a list of 3`.
fn found(obj: &Bound<'_, PyAny>) -> String {
    let ty = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    if obj.is_none() {
        return "None".into();
    }
    if obj.is_instance_of::<PyBool>()
        || obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyFloat>()
    {
        let repr = obj.repr().map(|r| r.to_string()).unwrap_or_default();
        return format!("the {ty} {repr}");
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let s = s.to_cow().map(|s| s.into_owned()).unwrap_or_default();
        let short: String = s.chars().take(40).collect();
        return format!("the str {short:?}");
    }
    if let Ok(dtype) = obj.getattr("dtype")
        && let Ok(shape) = obj.getattr("shape")
    {
        if obj.getattr("ndim").and_then(|n| n.extract::<usize>()).ok() == Some(0) {
            let repr = obj.str().map(|r| r.to_string()).unwrap_or_default();
            return format!("the numpy {ty} {repr}");
        }
        return format!("a numpy array of {dtype} with shape {shape}");
    }
    match obj.len() {
        Ok(n) if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() => {
            format!("a {ty} of {n}")
        }
        _ => format!("a {ty}"),
    }
}

fn found_key(k: &Bound<'_, PyAny>) -> String {
    k.repr().map(|r| r.to_string()).unwrap_or_default()
}
