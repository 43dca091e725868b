//! Opening a file: mapped for the commands that read headers and
//! directories only, and split into its frames.

use std::path::Path;

use kiln::file::{FrameAt, KilnFile};
use kiln::value::Plan;

use crate::Failure;

/// A file mapped into memory, its frames listed from their headers.
pub(crate) struct Mapped(KilnFile);

impl Mapped {
    pub(crate) fn open(path: &Path) -> Result<Mapped, Failure> {
        // SAFETY: the map is only read. Another process that truncates or
        // rewrites the file while it is mapped makes what the command sees
        // undefined (a read past a truncation raises SIGBUS): the command
        // reads files at rest, as `less` or `grep` do, and says so in its
        // help. No reference into the map outlives the command.
        let file = unsafe { KilnFile::map(path) }.map_err(|e| match e.kind() {
            kiln::ErrorKind::Io(io) => Failure::Io(
                std::io::Error::new(io.kind(), io.to_string()),
                path.to_owned(),
            ),
            _ => Failure::Kiln(e, Some(path.to_owned())),
        })?;
        Ok(Mapped(file))
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        self.0.bytes()
    }

    pub(crate) fn file(&self) -> &KilnFile {
        &self.0
    }
}

/// Whether `bytes` start like a frame.
pub(crate) fn is_framed(bytes: &[u8]) -> bool {
    bytes.starts_with(&kiln::frame::MAGIC)
}

/// The frames of a file, each or the first error (with its offset in the
/// file).
pub(crate) fn frames(bytes: &[u8]) -> Result<Vec<FrameAt<'_>>, kiln::Error> {
    kiln::file::read_frames(bytes).collect()
}

/// Reads and parses a schema text file.
pub(crate) fn plan_from(path: &Path) -> Result<Plan, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::Io(e, path.to_owned()))?;
    Plan::parse(&text).map_err(|e| Failure::Kiln(e, Some(path.to_owned())))
}

/// Names a file in a library error.
pub(crate) fn in_file<T>(r: Result<T, kiln::Error>, path: &Path) -> Result<T, Failure> {
    r.map_err(|e| Failure::Kiln(e, Some(path.to_owned())))
}
