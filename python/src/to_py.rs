//! Values read by kiln's decoder, made into Python objects by the mapping
//! of `spec/10-values.md` (10.5): the schema node and the value are walked
//! together, so that each choice (dict or list of pairs for a map, a
//! numpy dtype for a table) follows from the schema, the same for every
//! record.

use kiln::Dtype;
use kiln::value::{ArrayValue, Block, Table, Value};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::numpy::{self, Source};
use crate::shapes::{Id, Shape, Shapes};

/// One conversion: the schema, and the buffer that borrowed parts of the
/// value lie in (for numpy views).
pub(crate) struct ToPy<'s, 'py, 'b> {
    pub(crate) py: Python<'py>,
    pub(crate) shapes: &'s Shapes,
    pub(crate) source: Option<Source<'py, 'b>>,
}

impl<'py> ToPy<'_, 'py, '_> {
    /// The Python form of `v`, a value of node `id`.
    pub(crate) fn value(&self, id: Id, v: &Value<'_>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        match (self.shapes.node(id), v) {
            (Shape::Newtype(_, inner), v) => self.value(*inner, v),
            (Shape::Option(inner), Value::Option(o)) => match o {
                Some(x) => self.value(*inner, x),
                None => Ok(py.None().into_bound(py)),
            },
            (Shape::Seq(elem), Value::Seq(items)) => {
                let list = PyList::empty(py);
                for item in items {
                    list.append(self.value(*elem, item)?)?;
                }
                Ok(list.into_any())
            }
            (Shape::Seq(elem), Value::Table(t)) => self.table(*elem, t),
            (Shape::Map { key, value, dict }, Value::Map(entries)) => {
                if *dict {
                    let out = PyDict::new(py);
                    for (k, x) in entries {
                        out.set_item(self.value(*key, k)?, self.value(*value, x)?)?;
                    }
                    Ok(out.into_any())
                } else {
                    let out = PyList::empty(py);
                    for (k, x) in entries {
                        let pair =
                            PyTuple::new(py, [self.value(*key, k)?, self.value(*value, x)?])?;
                        out.append(pair)?;
                    }
                    Ok(out.into_any())
                }
            }
            (Shape::Tuple(ids) | Shape::TupleStruct(_, ids), Value::Tuple(items)) => {
                self.tuple(ids.iter().copied(), items)
            }
            (Shape::Repeat(item, _), Value::Tuple(items)) => {
                self.tuple(std::iter::repeat(*item), items)
            }
            (Shape::Struct(f), Value::Struct(s)) => {
                let out = f.template.bind(py).copy()?;
                for ((key, &fid), x) in f.keys.iter().zip(f.ids.iter()).zip(s.values()) {
                    out.set_item(key.bind(py), self.value(fid, x)?)?;
                }
                Ok(out.into_any())
            }
            (Shape::Enum(_, variants), Value::Variant(var)) => {
                let Some(vs) = variants.get(var.index as usize) else {
                    return loose(py, v);
                };
                let (Some(node), Some(x)) = (vs.node, &var.value) else {
                    return Ok(vs.key.bind(py).clone().into_any());
                };
                let payload = self.value(node, x)?;
                let out = PyDict::new(py);
                out.set_item(vs.key.bind(py), payload)?;
                Ok(out.into_any())
            }
            (_, Value::Array(a)) => shaped(py, self.source.as_ref(), a),
            (_, Value::Block(b)) => block(py, b),
            (_, v) => loose(py, v),
        }
    }

    fn tuple(
        &self,
        ids: impl Iterator<Item = Id>,
        items: &[Value<'_>],
    ) -> PyResult<Bound<'py, PyAny>> {
        let parts = ids
            .zip(items)
            .map(|(id, x)| self.value(id, x))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new(self.py, parts)?.into_any())
    }

    /// A sequence of fixed-size records: a numpy structured array over the
    /// records' bytes, or a list when numpy cannot hold the record.
    pub(crate) fn table(&self, elem: Id, t: &Table<'_>) -> PyResult<Bound<'py, PyAny>> {
        match self.shapes.dtype(self.py, elem)? {
            Some(dtype) => numpy::array(self.py, self.source.as_ref(), t.bytes(), &dtype, t.len()),
            None => {
                let list = PyList::empty(self.py);
                for record in t.iter() {
                    list.append(self.value(elem, &record)?)?;
                }
                Ok(list.into_any())
            }
        }
    }
}

/// A shaped array: a numpy array of its shape (a view where it can be).
pub(crate) fn shaped<'py>(
    py: Python<'py>,
    source: Option<&Source<'py, '_>>,
    a: &ArrayValue<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    {
        let flat = if matches!(a.dtype, Dtype::I128 | Dtype::U128) {
            let items = (0..a.len()).map(|i| a.get(i).unwrap_or(Value::Unit));
            let list = PyList::empty(py);
            for x in items {
                list.append(loose(py, &x)?)?;
            }
            let kwargs = PyDict::new(py);
            kwargs.set_item("dtype", "O")?;
            py.import("numpy")?
                .getattr("array")?
                .call((list,), Some(&kwargs))?
        } else {
            let dtype = numpy::dtype_fn(py)?.call1((numpy::code(a.dtype),))?;
            numpy::array(py, source, &a.data, &dtype, a.len())?
        };
        reshape(py, &flat, &a.shape)
    }
}

/// `flat` in `shape`; a shape numpy cannot hold (its dimensions other than
/// zero multiply past numpy's index range) is a `kiln.Error`.
pub(crate) fn reshape<'py, D: IntoPyObject<'py> + Copy + std::fmt::Debug>(
    py: Python<'py>,
    flat: &Bound<'py, PyAny>,
    shape: &[D],
) -> PyResult<Bound<'py, PyAny>> {
    flat.call_method1("reshape", (PyTuple::new(py, shape.iter().copied())?,))
        .map_err(|e| {
            crate::error::raise(
                py,
                format!("numpy cannot hold an array of shape {shape:?}: {e}"),
                "array-size-overflow",
                None,
                None,
                None,
            )
        })
}

/// A block: a new numpy array of its elements (a list of ints for the
/// 128-bit types, which numpy does not have).
fn block<'py>(py: Python<'py>, b: &Block) -> PyResult<Bound<'py, PyAny>> {
    macro_rules! le {
        ($v:expr, $d:expr) => {{
            let size = $d.size();
            let mut bytes = vec![0u8; $v.len() * size];
            for (out, x) in bytes.chunks_exact_mut(size).zip($v.iter()) {
                out.copy_from_slice(&x.to_le_bytes());
            }
            let dtype = numpy::dtype_fn(py)?.call1((numpy::code($d),))?;
            numpy::array(py, None, &bytes, &dtype, $v.len())
        }};
    }
    match b {
        Block::U8(v) => le!(v, Dtype::U8),
        Block::U16(v) => le!(v, Dtype::U16),
        Block::U32(v) => le!(v, Dtype::U32),
        Block::U64(v) => le!(v, Dtype::U64),
        Block::I8(v) => le!(v, Dtype::I8),
        Block::I16(v) => le!(v, Dtype::I16),
        Block::I32(v) => le!(v, Dtype::I32),
        Block::I64(v) => le!(v, Dtype::I64),
        Block::F32(v) => le!(v, Dtype::F32),
        Block::F64(v) => le!(v, Dtype::F64),
        Block::U128(v) => Ok(PyList::new(py, v)?.into_any()),
        Block::I128(v) => Ok(PyList::new(py, v)?.into_any()),
    }
}

/// The Python form of a value where the schema adds nothing: numbers,
/// strings, bytes, unit.
fn loose<'py>(py: Python<'py>, v: &Value<'_>) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Unit => Ok(py.None().into_bound(py)),
        Value::Bool(x) => x.into_bound_py_any(py),
        Value::I8(x) => x.into_bound_py_any(py),
        Value::I16(x) => x.into_bound_py_any(py),
        Value::I32(x) => x.into_bound_py_any(py),
        Value::I64(x) => x.into_bound_py_any(py),
        Value::I128(x) => x.into_bound_py_any(py),
        Value::U8(x) => x.into_bound_py_any(py),
        Value::U16(x) => x.into_bound_py_any(py),
        Value::U32(x) => x.into_bound_py_any(py),
        Value::U64(x) => x.into_bound_py_any(py),
        Value::U128(x) => x.into_bound_py_any(py),
        Value::F32(x) => f64::from(*x).into_bound_py_any(py),
        Value::F64(x) => x.into_bound_py_any(py),
        Value::Char(c) => c.into_bound_py_any(py),
        Value::Str(s) => Ok(PyString::new(py, s).into_any()),
        Value::Bytes(b) => Ok(PyBytes::new(py, b).into_any()),
        Value::Option(None) => Ok(py.None().into_bound(py)),
        Value::Option(Some(x)) => loose(py, x),
        Value::Block(b) => block(py, b),
        Value::Seq(items) | Value::Tuple(items) => {
            let list = PyList::empty(py);
            for x in items {
                list.append(loose(py, x)?)?;
            }
            Ok(list.into_any())
        }
        Value::Table(t) => {
            let list = PyList::empty(py);
            for x in t.iter() {
                list.append(loose(py, &x)?)?;
            }
            Ok(list.into_any())
        }
        Value::Map(entries) => {
            let list = PyList::empty(py);
            for (k, x) in entries {
                list.append(PyTuple::new(py, [loose(py, k)?, loose(py, x)?])?)?;
            }
            Ok(list.into_any())
        }
        Value::Struct(s) => {
            let out = PyDict::new(py);
            for (name, x) in s.fields() {
                out.set_item(name, loose(py, x)?)?;
            }
            Ok(out.into_any())
        }
        Value::Variant(var) => match &var.value {
            None => Ok(PyString::new(py, &var.name).into_any()),
            Some(x) => {
                let out = PyDict::new(py);
                out.set_item(&*var.name, loose(py, x)?)?;
                Ok(out.into_any())
            }
        },
        Value::Array(a) => shaped(py, None, a),
    }
}
