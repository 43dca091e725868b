//! `kiln verify`: a whole file checked, with a verdict and an exit code.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::cat::each_record;
use crate::files::plan_from;
use crate::{Failure, out};

pub(crate) fn run(path: &Path, schema: Option<&Path>) -> Result<ExitCode, Failure> {
    let plan = schema.map(plan_from).transpose()?;
    let walked = each_record(path, plan.as_ref(), true, &mut |_| Ok(true));
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    match walked {
        Ok(walked) => {
            out(writeln!(
                w,
                "{}: ok: {} frames, {} records read and checked",
                path.display(),
                walked.frames,
                walked.records
            ))?;
            if walked.unread > 0 {
                out(writeln!(
                    w,
                    "  {} frames carry no schema text: their headers, lengths and checksums \
                     were checked, their records not (give --schema)",
                    walked.unread
                ))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(Failure::Kiln(e, p)) => {
            let at = e
                .offset()
                .map(|o| format!(" at byte {o}"))
                .unwrap_or_default();
            out(writeln!(
                w,
                "{}: FAILED{at}: {}",
                path.display(),
                e.kind().code()
            ))?;
            Err(Failure::Kiln(e, p))
        }
        Err(other) => Err(other),
    }
}
