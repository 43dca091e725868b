//! numpy, reached through Python: its functions looked up once per
//! interpreter, and the dtype code of each Kiln element type. Arrays are
//! made by `numpy.frombuffer` over a buffer (the input's, or a copy), so
//! the extension needs no numpy headers and views keep their owner alive.

use kiln::Dtype;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyDict};

static FROMBUFFER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DTYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static INTEGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static FLOATING: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static VOID: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static BOOL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn numpy_attr<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("numpy")?.getattr(name)?.unbind())
    })
    .map(|f| f.bind(py))
}

/// `numpy.dtype`.
pub(crate) fn dtype_fn(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    numpy_attr(py, &DTYPE, "dtype")
}

/// `numpy.ndarray`.
pub(crate) fn ndarray(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    numpy_attr(py, &NDARRAY, "ndarray")
}

/// `numpy.integer`, `numpy.floating` and `numpy.void`: numpy's scalars.
pub(crate) fn integer(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    numpy_attr(py, &INTEGER, "integer")
}

pub(crate) fn floating(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    numpy_attr(py, &FLOATING, "floating")
}

pub(crate) fn void(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    numpy_attr(py, &VOID, "void")
}

/// `numpy.bool_`.
pub(crate) fn bool_type(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    numpy_attr(py, &BOOL, "bool_")
}

/// The numpy dtype string of a Kiln element type: little-endian, as the
/// bytes are, whatever the host. `None` for the 128-bit integers, which
/// numpy does not have.
pub(crate) fn code(d: Dtype) -> &'static str {
    match d {
        Dtype::U8 => "u1",
        Dtype::U16 => "<u2",
        Dtype::U32 => "<u4",
        Dtype::U64 => "<u8",
        Dtype::I8 => "i1",
        Dtype::I16 => "<i2",
        Dtype::I32 => "<i4",
        Dtype::I64 => "<i8",
        Dtype::F32 => "<f4",
        Dtype::F64 => "<f8",
        // Never asked: 128-bit elements become Python ints.
        Dtype::U128 | Dtype::I128 => "O",
    }
}

/// Where an array's bytes come from.
pub(crate) struct Source<'py, 'b> {
    /// An object with the buffer protocol whose buffer is `bytes`.
    pub(crate) owner: Bound<'py, PyAny>,
    pub(crate) bytes: &'b [u8],
}

/// A numpy array of `count` elements of `dtype` over `data`: a view of
/// the source's buffer when `data` lies in it (read-only, keeping the
/// owner alive), else over a copy (writable).
pub(crate) fn array<'py>(
    py: Python<'py>,
    source: Option<&Source<'py, '_>>,
    data: &[u8],
    dtype: &Bound<'py, PyAny>,
    count: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let frombuffer = numpy_attr(py, &FROMBUFFER, "frombuffer")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    kwargs.set_item("count", count)?;
    if let Some(src) = source
        && let Some(offset) = offset_in(src.bytes, data)
        && !data.is_empty()
    {
        kwargs.set_item("offset", offset)?;
        return frombuffer.call((&src.owner,), Some(&kwargs));
    }
    let copy = PyByteArray::new(py, data);
    frombuffer.call((copy,), Some(&kwargs))
}

/// Where `part` starts in `whole`, if it lies inside it.
fn offset_in(whole: &[u8], part: &[u8]) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start.checked_add(part.len())? <= whole.len()).then_some(start)
}
