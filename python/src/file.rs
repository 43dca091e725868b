//! Kiln files from Python: `kiln.open` (records, slices, `table()`,
//! array views over a memory map) and `kiln.Writer`.

use std::collections::VecDeque;
use std::ffi::{c_int, c_void};
use std::path::PathBuf;
use std::sync::Arc;

use kiln::file::{FileOptions, FileWriter, KilnFile};
use kiln::frame::{FrameHeader, FrameOptions};
use kiln::value::Value;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PySlice};

use crate::build::PyBuild;
use crate::error::{self, OrRaise};
use crate::numpy::{self, Source};
use crate::schemas::{self, Compiled};
use crate::to_py::ToPy;

/// A file's bytes, lent to numpy through the buffer protocol: every view
/// of the file holds this object, so the memory stays while a view lives,
/// whatever happens to the `File`.
#[pyclass(frozen, module = "kiln")]
pub(crate) struct Buffer {
    file: Arc<KilnFile>,
}

#[pymethods]
impl Buffer {
    /// Read-only: the bytes are a file's (often a read-only mapping).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        let bytes = slf.get().file.bytes();
        let len =
            isize::try_from(bytes.len()).map_err(|_| PyValueError::new_err("file too large"))?;
        // SAFETY: `view` is the buffer struct Python handed to this
        // exporter. The memory is `KilnFile`'s (a mapping or an allocation
        // it owns), which lives as long as this object, and
        // PyBuffer_FillInfo stores a new reference to this object in
        // `view.obj`, so the memory outlives every view. The buffer is
        // marked read-only (readonly = 1): a request for a writable buffer
        // fails with BufferError, and numpy's views are read-only.
        let rc = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                bytes.as_ptr() as *mut c_void,
                len,
                1,
                flags,
            )
        };
        if rc == -1 {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }
}

/// Opens a Kiln file for reading (``kiln.open(source)``).
///
/// ``source`` is a path (the file is memory-mapped, or read into memory
/// when ``mmap`` is false) or bytes. ``schema`` is the writer's schema
/// text for frames that do not embed theirs. A mapped file must not be
/// truncated or rewritten while it is open or any array from it lives
/// (appending is fine); use ``mmap=False`` for files others may change.
#[pyfunction]
#[pyo3(signature = (source, schema=None, *, mmap=true))]
pub(crate) fn open(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    schema: Option<&str>,
    mmap: bool,
) -> PyResult<File> {
    let given = schema.map(|t| schemas::get(py, t)).transpose()?;
    let (file, path) = if let Ok(b) = source.cast::<PyBytes>() {
        (KilnFile::from_bytes(b.as_bytes()), None)
    } else if let Ok(b) = source.cast::<pyo3::types::PyByteArray>() {
        (KilnFile::from_bytes(&b.to_vec()), None)
    } else if source.is_instance_of::<pyo3::types::PyMemoryView>() {
        let b = source.call_method0("tobytes")?;
        (KilnFile::from_bytes(b.cast::<PyBytes>()?.as_bytes()), None)
    } else if let Ok(path) = source.extract::<PathBuf>() {
        let file = if mmap {
            // SAFETY: the contract of KilnFile::map, passed on to the
            // caller in this function's documentation: the mapped bytes
            // are not truncated or rewritten while they are in use.
            unsafe { KilnFile::map(&path) }
        } else {
            KilnFile::read(&path)
        }
        .map_err(|e| {
            error::raise(
                py,
                format!("{e}: {}", path.display()),
                e.kind().code(),
                None,
                None,
                None,
            )
        })?;
        (file, Some(path))
    } else {
        return Err(PyTypeError::new_err("kiln.open takes a path or bytes"));
    };
    // Where each complete frame starts and ends, header to trailer.
    let spans: Vec<(usize, usize)> = kiln::file::read_frames(file.bytes())
        .map_while(Result::ok)
        .map(|f| (f.offset as usize, f.offset as usize + f.bytes.len()))
        .collect();
    let file = Arc::new(file);
    let buffer = Py::new(py, Buffer { file: file.clone() })?;
    Ok(File {
        file: Some(file),
        buffer,
        given,
        path,
        spans: Arc::new(spans),
    })
}

/// A Kiln file open for reading: its frames, its records by index, slice
/// or iteration, its records as one numpy table, its arrays as views.
#[pyclass(module = "kiln")]
pub(crate) struct File {
    file: Option<Arc<KilnFile>>,
    buffer: Py<Buffer>,
    given: Option<Arc<Compiled>>,
    path: Option<PathBuf>,
    spans: Arc<Vec<(usize, usize)>>,
}

impl File {
    fn file(&self) -> PyResult<&Arc<KilnFile>> {
        self.file
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("I/O operation on a closed kiln.File"))
    }

    fn reader(&self, py: Python<'_>) -> PyResult<Reader> {
        Ok(Reader {
            file: self.file()?.clone(),
            buffer: self.buffer.clone_ref(py),
            given: self.given.clone(),
            spans: self.spans.clone(),
        })
    }
}

#[pymethods]
impl File {
    /// The number of records in the file's complete frames.
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.file()?.record_count() as usize)
    }

    /// The schema text records are read by: the one given to
    /// :func:`kiln.open`, else the first frame's, else None.
    #[getter]
    fn schema(&self) -> PyResult<Option<String>> {
        if let Some(g) = &self.given {
            return Ok(Some(g.plan.text().to_owned()));
        }
        Ok(self
            .file()?
            .frames()
            .first()
            .and_then(|f| f.header.schema_text.clone()))
    }

    /// The path the file was opened from, or None for bytes.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// The complete frames: a list of dicts with ``offset``, ``records``,
    /// ``first_record``, ``fingerprint``, ``schema`` (text or None),
    /// ``checksum`` and ``arrays`` (whether its records hold arrays).
    #[getter]
    fn frames<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for f in self.file()?.frames() {
            let d = PyDict::new(py);
            d.set_item("offset", f.offset)?;
            d.set_item("records", f.record_count)?;
            d.set_item("first_record", f.first_record)?;
            d.set_item("fingerprint", f.header.fingerprint.to_string())?;
            d.set_item("schema", f.header.schema_text.as_deref())?;
            d.set_item("checksum", f.header.has_checksum())?;
            d.set_item("arrays", f.header.is_indexed() || f.header.has_directory())?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// What ended the file before its last byte, as a ``kiln.Error`` (a
    /// torn tail from a crash, a damaged frame), or None. Iterating the
    /// records raises it after the last complete frame's records.
    #[getter]
    fn tail_error<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self
            .file()?
            .stop()
            .map(|e| error::to_py(py, e).value(py).clone().into_any()))
    }

    /// Record ``i``, or a list of the records of a slice.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let count = self.file()?.record_count();
        let reader = self.reader(py)?;
        if let Ok(slice) = index.cast::<PySlice>() {
            let idx = slice.indices(count.min(isize::MAX as u64) as isize)?;
            let out = PyList::empty(py);
            if idx.slicelength == 0 {
                return Ok(out.into_any());
            }
            let (lo, hi) = if idx.step > 0 {
                (
                    idx.start,
                    idx.start + (idx.slicelength as isize - 1) * idx.step,
                )
            } else {
                (
                    idx.start + (idx.slicelength as isize - 1) * idx.step,
                    idx.start,
                )
            };
            let records = reader.range(py, lo as u64, hi as u64 + 1)?;
            let picked: Vec<_> = if idx.step > 0 {
                records.into_iter().step_by(idx.step as usize).collect()
            } else {
                records
                    .into_iter()
                    .rev()
                    .step_by(idx.step.unsigned_abs())
                    .collect()
            };
            for r in picked {
                out.append(r)?;
            }
            return Ok(out.into_any());
        }
        let i: i64 = index.extract()?;
        let at = if i < 0 { i + count as i64 } else { i };
        if at < 0 || at as u64 >= count {
            return Err(PyIndexError::new_err(format!(
                "record {i} of a file of {count} records"
            )));
        }
        let mut records = reader.range(py, at as u64, at as u64 + 1)?;
        records
            .pop()
            .ok_or_else(|| PyIndexError::new_err(format!("record {i}")))
    }

    /// The records in order, frame after frame.
    fn __iter__(&self, py: Python<'_>) -> PyResult<Records> {
        Ok(Records {
            reader: self.reader(py)?,
            frame: 0,
            pending: VecDeque::new(),
            done: false,
            failed: None,
        })
    }

    /// Every record as one numpy structured array, when every record is
    /// of one fixed-size schema (numbers, bools, and tuples, fixed arrays
    /// and structs of them): a read-only view of the file for a file of
    /// one frame, one copy joining the frames otherwise. Checksums are
    /// checked and every bool is checked to be 0 or 1; nothing else is
    /// done per record.
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.reader(py)?.table(py)
    }

    /// The shaped array ``name`` (its field path, such as ``'image'`` or
    /// ``'layers[3].weights'``) of record ``record``, as a read-only numpy
    /// view of the file, without reading the rest of the record.
    fn array<'py>(&self, py: Python<'py>, record: i64, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let file = self.file()?;
        // Negative indices count from the end, as for f[i].
        let count = file.record_count();
        let record = if record < 0 {
            count.checked_sub(record.unsigned_abs()).ok_or_else(|| {
                PyIndexError::new_err(format!("record {record} of a file of {count} records"))
            })?
        } else {
            record as u64
        };
        let arrays = file.record_arrays(record).or_raise(py)?;
        let Some(found) = arrays.iter().find(|a| a.name.as_deref() == Some(name)) else {
            let names: Vec<_> = arrays.iter().filter_map(|a| a.name.clone()).collect();
            return Err(PyIndexError::new_err(format!(
                "record {record} has no array {name:?} (it has {names:?})"
            )));
        };
        let info = &found.info;
        let dtype = kiln::Dtype::from_code(info.dtype())
            .filter(|d| !matches!(d, kiln::Dtype::I128 | kiln::Dtype::U128))
            .ok_or_else(|| PyTypeError::new_err("numpy has no 128-bit integers"))?;
        let range = info.byte_range();
        let bytes = file.bytes();
        let data = &bytes[range.start as usize..range.end as usize];
        let source = Source {
            owner: self.buffer.bind(py).clone().into_any(),
            bytes,
        };
        let np_dtype = numpy::dtype_fn(py)?.call1((numpy::code(dtype),))?;
        let shape: Vec<u64> = info.shape().to_vec();
        let count = data.len() / dtype.size();
        let flat = numpy::array(py, Some(&source), data, &np_dtype, count)?;
        crate::to_py::reshape(py, &flat, &shape)
    }

    /// Lets go of the file. Arrays already taken from it stay valid: they
    /// hold the memory themselves.
    fn close(&mut self) {
        self.file = None;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &mut self,
        _ty: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        match &self.file {
            None => "<kiln.File closed>".into(),
            Some(f) => format!(
                "<kiln.File {}{} records in {} frames>",
                self.path
                    .as_ref()
                    .map(|p| format!("{} ", p.display()))
                    .unwrap_or_default(),
                f.record_count(),
                f.frames().len()
            ),
        }
    }
}

/// What reading records needs, detached from the `File` object.
struct Reader {
    file: Arc<KilnFile>,
    buffer: Py<Buffer>,
    given: Option<Arc<Compiled>>,
    /// Each frame's bytes in the file.
    spans: Arc<Vec<(usize, usize)>>,
}

impl Reader {
    /// The schema for the frame with `header`: the caller's when it has
    /// the frame's fingerprint, else the frame's own text; `None` when
    /// neither (kiln's reader then says so).
    fn compiled_for(
        &self,
        py: Python<'_>,
        header: &FrameHeader,
    ) -> PyResult<Option<Arc<Compiled>>> {
        if let Some(g) = &self.given
            && g.plan.fingerprint() == header.fingerprint
        {
            return Ok(Some(g.clone()));
        }
        match &header.schema_text {
            Some(text) => schemas::get(py, text).map(Some).or_else(|_| Ok(None)),
            None => Ok(None),
        }
    }

    /// The records of frame `j`, from its `skip`th, at most `take` of
    /// them, as Python objects, and the error that stopped the frame
    /// early, if any (the records before it are kept).
    fn frame<'py>(
        &self,
        py: Python<'py>,
        j: usize,
        skip: u64,
        take: u64,
    ) -> (Vec<Bound<'py, PyAny>>, Option<PyErr>) {
        let mut out = Vec::new();
        let err = self.frame_into(py, j, skip, take, &mut out).err();
        (out, err)
    }

    fn frame_into<'py>(
        &self,
        py: Python<'py>,
        j: usize,
        skip: u64,
        take: u64,
        out: &mut Vec<Bound<'py, PyAny>>,
    ) -> PyResult<()> {
        let info = &self.file.frames()[j];
        let compiled = self.compiled_for(py, &info.header)?;
        if let Some(c) = &compiled
            && let Some(&(start, end)) = self.spans.get(j)
            && start as u64 == info.offset
            && self.built(py, c, start, end, info.first_record, skip, take, out)?
        {
            return Ok(());
        }
        let plan = compiled
            .as_ref()
            .map(|c| &c.plan)
            .or(self.given.as_ref().map(|g| &g.plan));
        let mut values = self.file.frame_values(j, plan);
        let source = Source {
            owner: self.buffer.bind(py).clone().into_any(),
            bytes: self.file.bytes(),
        };
        let want = take.min(info.record_count.saturating_sub(skip));
        let total = skip.saturating_add(want);
        if total == 0 {
            return Ok(());
        }
        let Some(first) = values.next() else {
            return Ok(());
        };
        let first = first.or_raise(py)?;
        // The frame's schema: known before reading, or the one kiln read
        // the first record by.
        let compiled = match compiled {
            Some(c) => c,
            None => match values.plan() {
                Some(p) => schemas::of_plan(py, p),
                None => return Ok(()),
            },
        };
        let conv = ToPy {
            py,
            shapes: &compiled.shapes,
            source: Some(source),
        };
        let root = compiled.shapes.root;
        if skip == 0 {
            out.push(conv.value(root, &first)?);
        }
        drop(first);
        for k in 1..total {
            let Some(v) = values.next() else { break };
            let v = v.or_raise(py)?;
            if k >= skip {
                out.push(conv.value(root, &v)?);
            }
        }
        Ok(())
    }

    /// Records of the batch frame at `start..end` built straight into
    /// Python objects (no `Value` tree); `false` for a frame whose records
    /// hold arrays, which the caller reads through values.
    #[allow(clippy::too_many_arguments)]
    fn built<'py>(
        &self,
        py: Python<'py>,
        compiled: &Compiled,
        start: usize,
        end: usize,
        first_record: u64,
        skip: u64,
        take: u64,
        out: &mut Vec<Bound<'py, PyAny>>,
    ) -> PyResult<bool> {
        let bytes = self.file.bytes();
        let conv = ToPy {
            py,
            shapes: &compiled.shapes,
            source: Some(Source {
                owner: self.buffer.bind(py).clone().into_any(),
                bytes,
            }),
        };
        let builder = std::cell::RefCell::new(PyBuild::new(conv));
        let at =
            |e: kiln::Error| error::to_py(py, &e.shifted(start as u64).records_from(first_record));
        let records =
            kiln::value::build_frame(&bytes[start..end], &compiled.plan, &builder).map_err(at)?;
        let Some(records) = records else {
            return Ok(false);
        };
        let mut records = records;
        for k in 0..skip.saturating_add(take) {
            builder.borrow_mut().start();
            let Some(r) = records.next() else { break };
            let r = r.map_err(at)?;
            let r = builder.borrow_mut().finish(r)?;
            if k >= skip {
                out.push(r);
            }
        }
        Ok(true)
    }

    /// Records `lo..hi` (within the record count).
    fn range<'py>(&self, py: Python<'py>, lo: u64, hi: u64) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let mut out = Vec::new();
        for (j, f) in self.file.frames().iter().enumerate() {
            let end = f.first_record + f.record_count;
            if end <= lo || f.first_record >= hi {
                continue;
            }
            let skip = lo.saturating_sub(f.first_record);
            let take = hi.min(end) - (f.first_record + skip);
            self.frame_into(py, j, skip, take, &mut out)?;
        }
        Ok(out)
    }

    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut parts = Vec::new();
        let mut fingerprint = None;
        let source = Source {
            owner: self.buffer.bind(py).clone().into_any(),
            bytes: self.file.bytes(),
        };
        let mut first_dtype = None;
        for (j, frame) in kiln::file::read_frames(self.file.bytes()).enumerate() {
            let frame = frame.or_raise(py)?;
            let header = &frame.header;
            if header.is_indexed() || header.has_directory() {
                return Err(PyValueError::new_err(format!(
                    "table(): the records of frame {j} hold shaped arrays; read them one by one"
                )));
            }
            if *fingerprint.get_or_insert(header.fingerprint) != header.fingerprint {
                return Err(PyValueError::new_err(format!(
                    "table(): frame {j} has another schema ({}) than the first ({})",
                    header.fingerprint,
                    fingerprint.map(|f| f.to_string()).unwrap_or_default()
                )));
            }
            let Some(compiled) = self.compiled_for(py, header)? else {
                // No schema for this frame: kiln's reader says why.
                let mut values = self
                    .file
                    .frame_values(j, self.given.as_ref().map(|g| &g.plan));
                values.next().transpose().or_raise(py)?;
                return Err(PyValueError::new_err("table(): no schema for the records"));
            };
            let payload = header
                .payload(frame.bytes)
                .map_err(|e| e.shifted(frame.offset))
                .or_raise(py)?;
            let base = frame.offset + payload.offset;
            let table = kiln::value::table(payload.bytes, &compiled.plan)
                .map_err(|e| e.shifted(base))
                .or_raise(py)?
                .filter(|t| t.len() as u64 == payload.record_count);
            let dtype = compiled.shapes.dtype(py, compiled.shapes.root)?;
            let (Some(table), Some(dtype)) = (table, dtype) else {
                return Err(PyValueError::new_err(format!(
                    "table(): records of this schema are not a fixed-size record of \
                     numbers and bools that numpy can hold:\n{}",
                    compiled.plan.text()
                )));
            };
            first_dtype.get_or_insert_with(|| dtype.clone());
            parts.push(numpy::array(
                py,
                Some(&source),
                table.bytes(),
                &dtype,
                table.len(),
            )?);
        }
        if let Some(e) = self.file.stop() {
            return Err(error::to_py(py, e));
        }
        match parts.len() {
            1 => Ok(parts.remove(0)),
            0 => {
                let Some(g) = &self.given else {
                    return Err(PyValueError::new_err(
                        "table(): the file has no records and no schema was given",
                    ));
                };
                match g.shapes.dtype(py, g.shapes.root)? {
                    Some(dtype) => numpy::array(py, None, &[], &dtype, 0),
                    None => Err(PyValueError::new_err(
                        "table(): records of this schema are not a fixed-size record",
                    )),
                }
            }
            _ => py
                .import("numpy")?
                .getattr("concatenate")?
                .call1((PyList::new(py, parts)?,)),
        }
    }
}

/// An iterator over a file's records, one frame read at a time.
#[pyclass(module = "kiln")]
pub(crate) struct Records {
    reader: Reader,
    frame: usize,
    pending: VecDeque<Py<PyAny>>,
    done: bool,
    /// An error to raise once the records read before it are taken.
    failed: Option<PyErr>,
}

#[pymethods]
impl Records {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                return Ok(Some(r));
            }
            if let Some(e) = self.failed.take() {
                return Err(e);
            }
            if self.done {
                return Ok(None);
            }
            if self.frame >= self.reader.file.frames().len() {
                self.done = true;
                if let Some(e) = self.reader.file.stop() {
                    return Err(error::to_py(py, e));
                }
                return Ok(None);
            }
            let (records, err) = self.reader.frame(py, self.frame, 0, u64::MAX);
            self.frame += 1;
            self.pending.extend(records.into_iter().map(Bound::unbind));
            if let Some(e) = err {
                // The records before the error first, then the error.
                self.done = true;
                self.failed = Some(e);
            }
        }
    }
}

/// Appends records to a Kiln file (``kiln.Writer(path, schema)``), frame
/// after frame, crash-safe as the Rust ``FileWriter``: a frame is written
/// whole when it reaches ``frame_bytes``, on ``flush()`` and on
/// ``close()``; ``sync()`` also asks the disk to keep it.
#[pyclass(module = "kiln")]
pub(crate) struct Writer {
    inner: Option<FileWriter<Value<'static>>>,
    compiled: Arc<Compiled>,
    /// Records written, kept after `close`.
    pushed: u64,
}

impl Writer {
    fn inner(&mut self) -> PyResult<&mut FileWriter<Value<'static>>> {
        self.inner
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("write to a closed kiln.Writer"))
    }
}

#[pymethods]
impl Writer {
    #[new]
    #[pyo3(signature = (path, schema, *, checksum=true, embed_schema=true, frame_bytes=1048576, truncate_torn_tail=false))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        schema: &str,
        checksum: bool,
        embed_schema: bool,
        frame_bytes: usize,
        truncate_torn_tail: bool,
    ) -> PyResult<Writer> {
        let compiled = schemas::get(py, schema)?;
        let options = FileOptions::new()
            .frame_options(
                FrameOptions::new()
                    .checksum(checksum)
                    .embed_schema(embed_schema),
            )
            .frame_bytes(frame_bytes)
            .truncate_torn_tail(truncate_torn_tail);
        let inner = options.open_values(&path, &compiled.plan).or_raise(py)?;
        Ok(Writer {
            inner: Some(inner),
            compiled,
            pushed: 0,
        })
    }

    /// Adds one record; raises ``kiln.Error`` (``value-mismatch``, with
    /// the path and the record's index) if it does not fit the schema,
    /// and then nothing of it is written.
    fn write(&mut self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        let compiled = self.compiled.clone();
        let inner = self.inner()?;
        let value = crate::from_py::FromPy::new(&compiled.shapes)
            .value(compiled.shapes.root, obj)
            .map_err(|e| e.into_py(py, Some(inner.pushed())))?;
        inner.push_value(&value).or_raise(py)?;
        self.pushed = inner.pushed();
        Ok(())
    }

    /// Writes the records so far as complete frames.
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        self.inner()?.flush().or_raise(py)
    }

    /// ``flush()``, then fsync.
    fn sync(&mut self, py: Python<'_>) -> PyResult<()> {
        self.inner()?.sync().or_raise(py)
    }

    /// Writes the last frame and closes the file.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        match self.inner.take() {
            Some(w) => w.close().or_raise(py),
            None => Ok(()),
        }
    }

    /// Records written since the writer was opened.
    #[getter]
    fn pushed(&self) -> u64 {
        self.pushed
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &mut self,
        py: Python<'_>,
        _ty: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}
