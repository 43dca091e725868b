//! `kiln repair`: a torn tail cut off, after saying what goes.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use kiln::ErrorKind;

use crate::files::Mapped;
use crate::{Failure, out};

pub(crate) fn run(path: &Path, dry_run: bool) -> Result<ExitCode, Failure> {
    let map = Mapped::open(path)?;
    let file = map.file();
    let len = file.bytes().len() as u64;
    let (frames, records) = (file.frames().len(), file.record_count());
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    let cut = match file.stop() {
        None => {
            out(writeln!(
                w,
                "{}: nothing to repair: {frames} frames, {records} records, no torn tail",
                path.display()
            ))?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(e) => match (e.kind(), e.offset()) {
            (ErrorKind::TruncatedTail { found, .. }, Some(at)) => {
                out(writeln!(
                    w,
                    "{}: the last write was cut short ({found}); {} bytes {at}..{len}: {}",
                    path.display(),
                    len - at,
                    if dry_run {
                        "would be dropped"
                    } else {
                        "dropped"
                    },
                ))?;
                out(writeln!(
                    w,
                    "  kept: {frames} complete frames, {records} records, bytes 0..{at}"
                ))?;
                at
            }
            _ => {
                out(writeln!(
                    w,
                    "{}: not a torn tail, so nothing is cut: the file is damaged at byte {}",
                    path.display(),
                    e.offset().unwrap_or(0)
                ))?;
                return match file.check() {
                    Err(e) => Err(Failure::Kiln(e, Some(path.to_owned()))),
                    Ok(()) => Ok(ExitCode::FAILURE),
                };
            }
        },
    };
    // The map is dropped before the file shrinks under it.
    drop(map);
    if !dry_run {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Failure::Io(e, path.to_owned()))?;
        f.set_len(cut)
            .map_err(|e| Failure::Io(e, path.to_owned()))?;
        f.sync_all().map_err(|e| Failure::Io(e, path.to_owned()))?;
    }
    Ok(ExitCode::SUCCESS)
}
