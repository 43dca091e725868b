//! `kiln._kiln`, the extension module of the `kiln` Python package.
//!
//! Reading goes through the Rust crate's own decoder (`kiln::value`),
//! with every check and limit of the Rust readers: records of batches and
//! bare records are built straight into Python objects as the decoder
//! walks them (`build`, through `kiln::value::Build`); a record with
//! shaped arrays becomes a `Value` first. Both follow the mapping of
//! `spec/10-values.md` (10.5) in `to_py`. Writing goes the
//! other way through `from_py` and kiln's encoder. Errors are
//! `kiln.Error` (`error`).

mod build;
mod error;
mod file;
mod from_py;
mod numpy;
mod schemas;
mod shapes;
mod to_py;

use kiln::frame::FrameOptions;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::OrRaise;
use crate::numpy::Source;

/// `data` as an immutable `bytes` object (copied if it is another
/// bytes-like object), which numpy views can keep.
fn owned_bytes<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    match data.cast::<PyBytes>() {
        Ok(b) => Ok(b.clone()),
        Err(_) => Ok(py.get_type::<PyBytes>().call1((data,))?.cast_into()?),
    }
}

/// The converter of values read from `owner`'s bytes.
fn reader<'s, 'py, 'b>(
    py: Python<'py>,
    compiled: &'s schemas::Compiled,
    owner: &'b Bound<'py, PyBytes>,
) -> to_py::ToPy<'s, 'py, 'b> {
    to_py::ToPy {
        py,
        shapes: &compiled.shapes,
        source: Some(Source {
            owner: owner.clone().into_any(),
            bytes: owner.as_bytes(),
        }),
    }
}

/// The frame in `owner` with its records, and the schema they are read by.
fn frame<'b>(
    py: Python<'_>,
    owner: &'b Bound<'_, PyBytes>,
    schema: Option<&str>,
) -> PyResult<(
    kiln::value::FrameRecords<'b>,
    std::sync::Arc<schemas::Compiled>,
)> {
    let given = schema.map(|t| schemas::get(py, t)).transpose()?;
    let records = kiln::value::frame_records(owner.as_bytes(), given.as_ref().map(|g| &g.plan))
        .or_raise(py)?;
    let compiled = match given {
        Some(g) => g,
        None => schemas::of_plan(py, records.plan()),
    };
    Ok((records, compiled))
}

/// `obj` made into a value of `compiled`'s schema, or `kiln.Error`.
fn value_of(
    py: Python<'_>,
    compiled: &schemas::Compiled,
    obj: &Bound<'_, PyAny>,
) -> PyResult<kiln::value::Value<'static>> {
    from_py::FromPy::new(&compiled.shapes)
        .value(compiled.shapes.root, obj)
        .map_err(|e| e.into_py(py, None))
}

/// Reads the one record of a frame (``kiln.loads(data)``).
///
/// ``schema`` is the writer's schema text, needed when the frame does
/// not embed it; when both are there they must have the same
/// fingerprint. Shaped arrays and tables come back as read-only numpy
/// views of ``data``.
#[pyfunction]
#[pyo3(signature = (data, schema=None))]
fn loads<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    schema: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let owner = owned_bytes(py, data)?;
    let (records, compiled) = frame(py, &owner, schema)?;
    let value = records.single().or_raise(py)?;
    reader(py, &compiled, &owner).value(compiled.shapes.root, &value)
}

/// Reads every record of one frame, a batch (``kiln.loads_batch(data)``),
/// into a list; see :func:`loads`. For a file of many frames, use
/// :func:`open`.
#[pyfunction]
#[pyo3(signature = (data, schema=None))]
fn loads_batch<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    schema: Option<&str>,
) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    let owner = owned_bytes(py, data)?;
    let out = pyo3::types::PyList::empty(py);
    // A batch: straight into Python objects; a record with arrays: through
    // its value. The schema: the caller's, else the frame's text (kiln's
    // frame reader below says what is wrong when neither fits).
    let header = kiln::frame::FrameHeader::parse(owner.as_bytes()).or_raise(py)?;
    let compiled = match (schema, header.schema_text.as_deref()) {
        (Some(t), _) => Some(schemas::get(py, t)?),
        // An embedded text that does not parse: kiln's reader reports it
        // at its offset in the frame.
        (None, Some(t)) => schemas::get(py, t).ok(),
        (None, None) => None,
    };
    if let Some(compiled) = compiled.filter(|c| c.plan.fingerprint() == header.fingerprint) {
        let builder = std::cell::RefCell::new(build::PyBuild::new(reader(py, &compiled, &owner)));
        if let Some(built) =
            kiln::value::build_frame(owner.as_bytes(), &compiled.plan, &builder).or_raise(py)?
        {
            for r in built {
                let r = r.or_raise(py)?;
                out.append(builder.borrow_mut().finish(r)?)?;
                builder.borrow_mut().start();
            }
            return Ok(out);
        }
    }
    let (records, compiled) = frame(py, &owner, schema)?;
    let conv = reader(py, &compiled, &owner);
    for value in records {
        out.append(conv.value(compiled.shapes.root, &value.or_raise(py)?)?)?;
    }
    Ok(out)
}

/// Reads the one record of the frame in the file at ``path``
/// (``kiln.load(path)``); see :func:`loads`.
#[pyfunction]
#[pyo3(signature = (path, schema=None))]
fn load<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    schema: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = std::fs::read(&path).map_err(|e| {
        error::raise(
            py,
            format!("I/O error: {e}: {}", path.display()),
            "io",
            None,
            None,
            None,
        )
    })?;
    loads(py, PyBytes::new(py, &bytes).as_any(), schema)
}

/// Writes ``obj`` as one frame of ``schema`` (``kiln.dumps(obj, schema)``).
///
/// Strict: a value that does not fit the schema raises ``kiln.Error``
/// (code ``value-mismatch``) naming its path. The frame embeds the schema
/// text unless ``embed_schema`` is false, and carries a CRC-32C of its
/// payload when ``checksum`` is true. The bytes are those the Rust type
/// of the schema writes with ``kiln::frame``.
#[pyfunction]
#[pyo3(signature = (obj, schema, *, embed_schema=true, checksum=false))]
fn dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    schema: &str,
    embed_schema: bool,
    checksum: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let compiled = schemas::get(py, schema)?;
    let value = value_of(py, &compiled, obj)?;
    let options = FrameOptions::new()
        .embed_schema(embed_schema)
        .checksum(checksum);
    let bytes = kiln::value::frame_to_vec(std::slice::from_ref(&value), &compiled.plan, &options)
        .or_raise(py)?;
    Ok(PyBytes::new(py, &bytes))
}

/// Reads a bare record, the bytes of chapter 3 with no frame
/// (``kiln.decode(data, schema)``): ``data`` must hold exactly one record
/// of ``schema``.
#[pyfunction]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    schema: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let owner = owned_bytes(py, data)?;
    let compiled = schemas::get(py, schema)?;
    let mut b = build::PyBuild::new(reader(py, &compiled, &owner));
    let out = kiln::value::build_slice(owner.as_bytes(), &compiled.plan, &mut b).or_raise(py)?;
    b.finish(out)
}

/// Writes ``obj`` as a bare record of ``schema``, with no frame
/// (``kiln.encode(obj, schema)``): the bytes the Rust type writes with
/// ``kiln::to_vec``.
#[pyfunction]
fn encode<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    schema: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let compiled = schemas::get(py, schema)?;
    let value = value_of(py, &compiled, obj)?;
    let bytes = kiln::value::to_vec(&value, &compiled.plan).or_raise(py)?;
    Ok(PyBytes::new(py, &bytes))
}

/// The fingerprint of a schema text, as 16 hex digits (``kiln.fingerprint``).
#[pyfunction]
fn fingerprint(py: Python<'_>, schema: &str) -> PyResult<String> {
    Ok(schemas::get(py, schema)?.plan.fingerprint().to_string())
}

#[pymodule]
fn _kiln(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let error = m.py().get_type::<error::Error>();
    // Class defaults, so that a kiln.Error made in Python has them too.
    for name in ["code", "offset", "record", "path"] {
        error.setattr(name, m.py().None())?;
    }
    m.add("Error", error)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(loads_batch, m)?)?;
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(file::open, m)?)?;
    m.add_class::<file::File>()?;
    m.add_class::<file::Records>()?;
    m.add_class::<file::Writer>()?;
    Ok(())
}
