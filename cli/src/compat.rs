//! `kiln compat OLD NEW`: whether a reader of schema NEW can read what a
//! writer of schema OLD wrote (`spec/12-evolution.md`, 12.7).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::files::{Mapped, frames, in_file, is_framed};
use crate::{Failure, out};

/// The schema texts `path` holds: the distinct texts its frames embed, in
/// file order, or the whole file as one schema text.
fn texts(path: &Path) -> Result<Vec<String>, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::Io(e, path.to_owned()))?;
    if !is_framed(&bytes) {
        let text = String::from_utf8(bytes).map_err(|_| {
            Failure::Usage(format!(
                "{}: neither a Kiln file nor a schema text (not UTF-8)",
                path.display()
            ))
        })?;
        return Ok(vec![text]);
    }
    let map = Mapped::open(path)?;
    let mut out: Vec<String> = Vec::new();
    for f in in_file(frames(map.bytes()), path)? {
        match f.header.schema_text {
            Some(t) if !out.contains(&t) => out.push(t),
            Some(_) => {}
            None => {
                return Err(Failure::Usage(format!(
                    "{}: the frame at byte {} carries no schema text, only its fingerprint {}; \
                     give the schema text file instead",
                    path.display(),
                    f.offset,
                    f.header.fingerprint
                )));
            }
        }
    }
    Ok(out)
}

pub(crate) fn run(old: &Path, new: &Path) -> Result<ExitCode, Failure> {
    let writers = texts(old)?;
    let readers = texts(new)?;
    let [reader] = readers.as_slice() else {
        return Err(Failure::Usage(format!(
            "{}: holds {} schema texts; the reader's must be one",
            new.display(),
            readers.len()
        )));
    };
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    let mut compatible = true;
    for (i, writer) in writers.iter().enumerate() {
        let report = kiln::schema::check_texts(writer, reader).map_err(|e| {
            // Say which of the two texts is not canonical.
            let bad = if kiln::schema::parse(writer).is_err() {
                old
            } else {
                new
            };
            Failure::Kiln(e, Some(bad.to_owned()))
        })?;
        if i > 0 {
            out(writeln!(w))?;
        }
        out(writeln!(w, "{report}"))?;
        compatible &= report.is_compatible();
    }
    Ok(if compatible {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
