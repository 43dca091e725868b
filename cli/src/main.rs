//! `kiln`: look inside Kiln files without the Rust types that wrote them.
//!
//! Every command reads through `kiln::value`, so what the command accepts
//! and refuses is exactly what the library does; an error prints the
//! library's typed error (code, byte offset, path) and exits with 1.

mod arrays;
mod cat;
mod compat;
mod files;
mod from_json;
mod inspect;
mod progress;
mod repair;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Look inside Kiln files without their Rust types.
#[derive(Parser)]
#[command(name = "kiln", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every frame of a file: offset, version, flags, fingerprint, record
    /// count, payload length, checksum verdict, schema text and arrays.
    Inspect {
        file: PathBuf,
        /// One JSON document instead of the human table.
        #[arg(long)]
        json: bool,
    },
    /// The schema text a file's frames carry (or check a schema text file).
    Schema {
        /// A Kiln file, or with --text a file holding a schema text.
        file: PathBuf,
        /// FILE is a schema text: check that it is canonical, print its
        /// fingerprint.
        #[arg(long)]
        text: bool,
        /// Print the fingerprint of each frame's schema, not its text.
        #[arg(long, conflicts_with = "text")]
        fingerprint: bool,
    },
    /// Records as JSON, streaming: the first record is printed before the
    /// last is read, in constant memory.
    Cat {
        file: PathBuf,
        /// One JSON array of all records.
        #[arg(long, conflicts_with = "ndjson")]
        json: bool,
        /// One record per line (the default).
        #[arg(long)]
        ndjson: bool,
        /// The writer's schema text, for frames without one and bare files.
        #[arg(long, value_name = "SCHEMA_FILE")]
        schema: Option<PathBuf>,
        /// Only records A (from 0) up to B, not included: `10..20`, `5..`, `..3`.
        #[arg(long, value_name = "A..B", value_parser = cat::parse_range)]
        records: Option<cat::Range>,
    },
    /// Check a file whole: headers, checksums, every record against its
    /// schema, nothing after the last frame. Exit code 0 when it is sound.
    Verify {
        file: PathBuf,
        /// The writer's schema text, for frames without one and bare files.
        #[arg(long, value_name = "SCHEMA_FILE")]
        schema: Option<PathBuf>,
    },
    /// The shaped arrays of a file: frame, index, name, dtype, shape, bytes.
    Arrays {
        file: PathBuf,
        /// One JSON document instead of the human table.
        #[arg(long)]
        json: bool,
    },
    /// Cut a torn tail: the frame a crash left half written at the end of
    /// a file. Says what it drops (bytes and where) and what it keeps; a
    /// file damaged elsewhere is left alone.
    Repair {
        file: PathBuf,
        /// Say what would be dropped, and change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Write one array as a NumPy `.npy` file.
    Extract {
        file: PathBuf,
        /// The array's name (`image`, `layers[3].weights`) or index.
        array: String,
        /// Where to write the `.npy` file.
        #[arg(short, long)]
        output: PathBuf,
        /// The record that holds the array, counted across the file's
        /// frames, when the file has several.
        #[arg(long, default_value_t = 0)]
        record: u64,
    },
    /// Whether a reader of schema NEW reads what a writer of schema OLD
    /// wrote: every difference, the rule that allows or refuses it
    /// (spec chapter 12), and a verdict. Each of OLD and NEW is a schema
    /// text file or a Kiln file (its frames' embedded texts). Exit code 0
    /// when compatible, 1 when a difference is refused. The text does not
    /// say which fields have a default: a new field that is not an option
    /// is "conditional", allowed if the reader's type gives it one.
    Compat {
        /// The writer's schema: a schema text file or a Kiln file.
        old: PathBuf,
        /// The reader's schema: a schema text file or a Kiln file.
        new: PathBuf,
    },
    /// JSON values from stdin (one or many, whitespace between) to Kiln
    /// bytes on stdout: a bare record per value, or one frame with --frame.
    FromJson {
        /// The schema text the values are written under.
        #[arg(long, value_name = "SCHEMA_FILE")]
        schema: PathBuf,
        /// One frame holding every record, with the schema text embedded.
        #[arg(long)]
        frame: bool,
    },
}

/// A failure to report: the library's error, or one of the command's.
pub(crate) enum Failure {
    Kiln(kiln::Error, Option<PathBuf>),
    Io(std::io::Error, PathBuf),
    Usage(String),
    /// Standard output was closed (`kiln cat big.kiln | head`): not an error.
    Closed,
}

impl From<kiln::Error> for Failure {
    fn from(e: kiln::Error) -> Self {
        Failure::Kiln(e, None)
    }
}

/// Reports a write to standard output; a closed pipe ends quietly.
pub(crate) fn out(r: std::io::Result<()>) -> Result<(), Failure> {
    r.map_err(|e| match e.kind() {
        std::io::ErrorKind::BrokenPipe => Failure::Closed,
        _ => Failure::Io(e, PathBuf::from("<stdout>")),
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Inspect { file, json } => inspect::run(&file, json),
        Command::Schema {
            file,
            text,
            fingerprint,
        } => inspect::schema(&file, text, fingerprint),
        Command::Cat {
            file,
            json,
            ndjson: _,
            schema,
            records,
        } => cat::run(&file, json, schema.as_deref(), records),
        Command::Verify { file, schema } => verify::run(&file, schema.as_deref()),
        Command::Arrays { file, json } => arrays::list(&file, json),
        Command::Repair { file, dry_run } => repair::run(&file, dry_run),
        Command::Extract {
            file,
            array,
            output,
            record,
        } => arrays::extract(&file, &array, &output, record),
        Command::FromJson { schema, frame } => from_json::run(&schema, frame),
        Command::Compat { old, new } => compat::run(&old, &new),
    };
    match result {
        Ok(code) => code,
        Err(Failure::Closed) => ExitCode::SUCCESS,
        Err(Failure::Kiln(e, path)) => {
            let file = path
                .map(|p| format!("{}: ", p.display()))
                .unwrap_or_default();
            eprintln!("kiln: {file}{e}");
            eprintln!("  code: {}", e.kind().code());
            if let Some(offset) = e.offset() {
                eprintln!("  byte offset: {offset}");
            }
            if let Some(record) = e.record() {
                eprintln!("  record: {record}");
            }
            if let Some(p) = e.path() {
                eprintln!("  path: {p}");
            }
            ExitCode::FAILURE
        }
        Err(Failure::Io(e, path)) => {
            eprintln!("kiln: {}: {e}", path.display());
            ExitCode::FAILURE
        }
        Err(Failure::Usage(msg)) => {
            eprintln!("kiln: {msg}");
            ExitCode::from(2)
        }
    }
}
