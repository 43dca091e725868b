//! `kiln inspect` and `kiln schema`: what a file's frames say about
//! themselves, read from their headers and directories.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use kiln::ErrorKind;
use kiln::file::{FrameAt, KilnFile};
use kiln::frame::{FLAG_CHECKSUM, FLAG_DIRECTORY, FLAG_INDEXED, FLAG_SCHEMA, FLAG_STREAMED};
use serde_json::{Value as Json, json};

use crate::files::{Mapped, frames, in_file};
use crate::{Failure, out};

/// One shaped array of a frame, at offsets in the file.
pub(crate) struct ArrayReport {
    /// The record that holds it, counted across the file.
    pub(crate) record: u64,
    pub(crate) index: usize,
    pub(crate) name: Option<String>,
    pub(crate) dtype: &'static str,
    pub(crate) shape: Vec<u64>,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

/// What one frame says.
struct FrameReport {
    offset: u64,
    version: u16,
    flags: Vec<&'static str>,
    fingerprint: String,
    records: Option<u64>,
    payload_offset: u64,
    payload_len: Option<u64>,
    checksum: String,
    schema: Option<String>,
    arrays: Vec<ArrayReport>,
}

fn flag_names(flags: u16) -> Vec<&'static str> {
    [
        (FLAG_CHECKSUM, "checksum"),
        (FLAG_SCHEMA, "schema"),
        (FLAG_STREAMED, "streamed"),
        (FLAG_DIRECTORY, "directory"),
        (FLAG_INDEXED, "indexed"),
    ]
    .into_iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, name)| name)
    .collect()
}

/// The arrays of the records of a frame, named by the record's schema
/// when the frame carries its text, at offsets in the file.
pub(crate) fn arrays_of(
    file: &KilnFile,
    frame: &FrameAt<'_>,
) -> Result<Vec<ArrayReport>, kiln::Error> {
    let h = &frame.header;
    if !(h.has_directory() || h.is_indexed()) {
        return Ok(Vec::new());
    }
    let count = h.record_count.unwrap_or(0);
    let mut out = Vec::new();
    for r in frame.first_record..frame.first_record.saturating_add(count) {
        for a in file.record_arrays(r)? {
            out.push(ArrayReport {
                record: a.record,
                index: a.index,
                name: a.name,
                dtype: a.info.dtype_name(),
                shape: a.info.shape().to_vec(),
                start: a.info.byte_range().start,
                end: a.info.byte_range().end,
            });
        }
    }
    Ok(out)
}

fn report(file: &KilnFile, frame: &FrameAt<'_>) -> FrameReport {
    let h = &frame.header;
    let (records, checksum) = match h.payload(frame.bytes) {
        Ok(p) => (
            Some(p.record_count),
            if h.has_checksum() {
                "ok".to_owned()
            } else {
                "none".to_owned()
            },
        ),
        Err(e) => (
            h.record_count,
            match e.kind() {
                ErrorKind::ChecksumMismatch { expected, found } => {
                    format!("MISMATCH (header {expected:08x}, payload {found:08x})")
                }
                _ => format!("not checked: {e}"),
            },
        ),
    };
    let arrays = arrays_of(file, frame).unwrap_or_default();
    FrameReport {
        offset: frame.offset,
        version: h.version,
        flags: flag_names(h.flags),
        fingerprint: h.fingerprint.to_string(),
        records,
        payload_offset: frame.offset + h.payload_offset,
        payload_len: h.payload_len.or_else(|| {
            // Streamed: the payload runs to the trailer.
            (frame.bytes.len() as u64)
                .checked_sub(h.payload_offset + kiln::frame::TRAILER_LEN as u64)
        }),
        checksum,
        schema: h.schema_text.clone(),
        arrays,
    }
}

fn to_json(r: &FrameReport) -> Json {
    json!({
        "offset": r.offset,
        "version": r.version,
        "flags": r.flags,
        "fingerprint": r.fingerprint,
        "records": r.records,
        "payload_offset": r.payload_offset,
        "payload_length": r.payload_len,
        "checksum": r.checksum,
        "schema": r.schema,
        "arrays": r.arrays.iter().map(array_json).collect::<Vec<_>>(),
    })
}

pub(crate) fn array_json(a: &ArrayReport) -> Json {
    json!({
        "record": a.record,
        "index": a.index,
        "name": a.name,
        "dtype": a.dtype,
        "shape": a.shape,
        "bytes": [a.start, a.end],
    })
}

/// The human table of an array list, indented by `indent`.
pub(crate) fn array_table(arrays: &[ArrayReport], indent: &str) -> String {
    let rows: Vec<[String; 6]> = arrays
        .iter()
        .map(|a| {
            [
                a.record.to_string(),
                a.index.to_string(),
                a.name.clone().unwrap_or_else(|| "-".into()),
                a.dtype.to_owned(),
                format!("{:?}", a.shape),
                format!("{}..{}", a.start, a.end),
            ]
        })
        .collect();
    let head = ["record", "#", "name", "dtype", "shape", "bytes"].map(str::to_owned);
    let mut widths = [0usize; 6];
    for row in std::iter::once(&head).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut s = String::new();
    for row in std::iter::once(&head).chain(&rows) {
        s.push_str(indent);
        for (i, (w, cell)) in widths.iter().zip(row).enumerate() {
            if i + 1 == row.len() {
                s.push_str(cell);
            } else {
                let _ = write!(s, "{cell:<w$}  ");
            }
        }
        s.push('\n');
    }
    s
}

fn human(index: usize, r: &FrameReport) -> String {
    let mut s = format!("frame {index} at byte {}\n", r.offset);
    let mut line = |k: &str, v: String| {
        let _ = writeln!(s, "  {k:<12} {v}");
    };
    line("version", r.version.to_string());
    line(
        "flags",
        if r.flags.is_empty() {
            "none".into()
        } else {
            r.flags.join(", ")
        },
    );
    line("fingerprint", r.fingerprint.clone());
    line(
        "records",
        r.records.map_or("unknown".into(), |n| n.to_string()),
    );
    line(
        "payload",
        match r.payload_len {
            Some(n) => format!("{n} bytes at byte {}", r.payload_offset),
            None => format!("at byte {}", r.payload_offset),
        },
    );
    line("checksum", r.checksum.clone());
    match &r.schema {
        Some(text) => {
            let mut lines = text.lines();
            line("schema", lines.next().unwrap_or("").to_owned());
            for l in lines {
                line("", l.to_owned());
            }
        }
        None => line("schema", "not embedded (fingerprint only)".into()),
    }
    if !r.arrays.is_empty() {
        s.push_str("  arrays\n");
        s.push_str(&array_table(&r.arrays, "    "));
    }
    s
}

pub(crate) fn run(path: &Path, as_json: bool) -> Result<ExitCode, Failure> {
    let map = Mapped::open(path)?;
    let bytes = map.bytes();
    let mut reports = Vec::new();
    let mut failure = None;
    for frame in kiln::file::read_frames(bytes) {
        match frame {
            Ok(f) => reports.push(report(map.file(), &f)),
            Err(e) => failure = Some(e),
        }
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    use std::io::Write;
    if as_json {
        let doc = json!({
            "file": path.display().to_string(),
            "length": bytes.len(),
            "frames": reports.iter().map(to_json).collect::<Vec<_>>(),
            "error": failure.as_ref().map(|e| json!({
                "code": e.kind().code(),
                "offset": e.offset(),
                "message": e.to_string(),
            })),
        });
        out(writeln!(
            w,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ))?;
    } else {
        out(writeln!(
            w,
            "{}: {} bytes, {} frames",
            path.display(),
            bytes.len(),
            reports.len()
        ))?;
        for (i, r) in reports.iter().enumerate() {
            out(write!(w, "{}", human(i, r)))?;
        }
    }
    out(w.flush())?;
    match failure {
        Some(e) => Err(Failure::Kiln(e, Some(path.to_owned()))),
        None => Ok(ExitCode::SUCCESS),
    }
}

pub(crate) fn schema(path: &Path, text: bool, fingerprint: bool) -> Result<ExitCode, Failure> {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if text {
        let plan = crate::files::plan_from(path)?;
        out(writeln!(w, "{}", plan.fingerprint()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let map = Mapped::open(path)?;
    let frames = in_file(frames(map.bytes()), path)?;
    // Consecutive frames of one schema print it once.
    let mut last = None;
    for f in &frames {
        let fp = f.header.fingerprint;
        if last == Some(fp) {
            continue;
        }
        last = Some(fp);
        if fingerprint {
            out(writeln!(w, "{fp}"))?;
            continue;
        }
        match &f.header.schema_text {
            Some(t) => out(write!(w, "{t}"))?,
            None => {
                return Err(Failure::Usage(format!(
                    "{}: the frame at byte {} carries no schema text, only its fingerprint {fp}",
                    path.display(),
                    f.offset
                )));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
