//! `kiln.Error`: the one exception the package raises for bad input, with
//! the Rust error's code, byte offset, record and path as attributes.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    kiln,
    Error,
    PyException,
    "Input that Kiln refuses, or a value that does not fit the schema.\n\n\
     Attributes: ``code`` (the error code of spec/09-rejections.md, such as \
     ``'invalid-bool'``), ``offset`` (the byte offset, or None), ``record`` \
     (the record's index in a batch or file, or None) and ``path`` (where in \
     the value, such as ``'Point.y'``, or None)."
);

/// A `kiln.Error` with its attributes.
pub(crate) fn raise(
    py: Python<'_>,
    message: String,
    code: &str,
    offset: Option<u64>,
    record: Option<u64>,
    path: Option<String>,
) -> PyErr {
    let err = Error::new_err(message);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("code", code)?;
        value.setattr("offset", offset)?;
        value.setattr("record", record)?;
        value.setattr("path", path)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The Python form of a Rust error.
pub(crate) fn to_py(py: Python<'_>, e: &kiln::Error) -> PyErr {
    raise(
        py,
        e.to_string(),
        e.kind().code(),
        e.offset(),
        e.record(),
        e.path(),
    )
}

/// `?` on a kiln result inside a function holding the interpreter.
pub(crate) trait OrRaise<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for kiln::Result<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, &e))
    }
}
