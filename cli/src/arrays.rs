//! `kiln arrays` and `kiln extract`: the shaped arrays of a file, listed
//! from the directories alone, and one written as a NumPy `.npy` file.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

use crate::files::{Mapped, frames, in_file};
use crate::inspect::{ArrayReport, array_json, array_table, arrays_of};
use crate::{Failure, out};

pub(crate) fn list(path: &Path, as_json: bool) -> Result<ExitCode, Failure> {
    let map = Mapped::open(path)?;
    let frames = in_file(frames(map.bytes()), path)?;
    let mut all: Vec<(usize, Vec<ArrayReport>)> = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let arrays = in_file(arrays_of(map.file(), f), path)?;
        if !arrays.is_empty() {
            all.push((i, arrays));
        }
    }
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if as_json {
        let doc: Vec<_> = all
            .iter()
            .flat_map(|(frame, arrays)| {
                arrays.iter().map(move |a| {
                    let mut j = array_json(a);
                    j["frame"] = json!(frame);
                    j
                })
            })
            .collect();
        out(writeln!(
            w,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ))?;
    } else if all.is_empty() {
        out(writeln!(w, "{}: no shaped arrays", path.display()))?;
    } else {
        for (frame, arrays) in &all {
            out(writeln!(
                w,
                "frame {frame} at byte {}",
                frames[*frame].offset
            ))?;
            out(write!(w, "{}", array_table(arrays, "  ")))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The NumPy type string of an element type; NumPy has no 128-bit integers.
fn numpy_descr(dtype: &str) -> Option<&'static str> {
    Some(match dtype {
        "u8" => "|u1",
        "i8" => "|i1",
        "u16" => "<u2",
        "i16" => "<i2",
        "u32" => "<u4",
        "i32" => "<i4",
        "u64" => "<u8",
        "i64" => "<i8",
        "f32" => "<f4",
        "f64" => "<f8",
        _ => return None,
    })
}

/// The header of an `.npy` file, format version 1.0: magic, version, the
/// header's length, a Python dict literal, spaces and a newline so that
/// the data starts at a multiple of 64.
fn npy_header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

pub(crate) fn extract(
    path: &Path,
    array: &str,
    output: &Path,
    record: u64,
) -> Result<ExitCode, Failure> {
    let map = Mapped::open(path)?;
    let file = map.file();
    if record >= file.record_count() {
        // A damaged or torn file says so, rather than that it is short.
        in_file(file.check(), path)?;
        return Err(Failure::Usage(format!(
            "{}: no record {record}: the file has {} records",
            path.display(),
            file.record_count()
        )));
    }
    let arrays = in_file(file.record_arrays(record), path)?;
    let found = arrays
        .iter()
        .find(|a| a.name.as_deref() == Some(array))
        .or_else(|| array.parse::<usize>().ok().and_then(|i| arrays.get(i)));
    let Some(a) = found else {
        let names: Vec<String> = arrays
            .iter()
            .map(|a| a.name.clone().unwrap_or_else(|| a.index.to_string()))
            .collect();
        return Err(Failure::Usage(format!(
            "{}: record {record} has no array {array:?}; it has: {}",
            path.display(),
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        )));
    };
    let a = crate::inspect::ArrayReport {
        record,
        index: a.index,
        name: a.name.clone(),
        dtype: a.info.dtype_name(),
        shape: a.info.shape().to_vec(),
        start: a.info.byte_range().start,
        end: a.info.byte_range().end,
    };
    let Some(descr) = numpy_descr(a.dtype) else {
        return Err(Failure::Usage(format!(
            "array {array:?} holds {} elements, which NumPy has no type for",
            a.dtype
        )));
    };
    // The block's offsets come from a validated directory, inside the file.
    let block = &map.bytes()[a.start as usize..a.end as usize];
    let mut file = std::fs::File::create(output).map_err(|e| Failure::Io(e, output.to_owned()))?;
    let io = |e| Failure::Io(e, output.to_owned());
    file.write_all(&npy_header(descr, &a.shape)).map_err(io)?;
    file.write_all(block).map_err(io)?;
    file.flush().map_err(io)?;
    Ok(ExitCode::SUCCESS)
}
