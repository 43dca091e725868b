//! `kiln cat`: records as JSON, read from the file as a stream, so memory
//! stays flat and the first record is out before the last is read.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::process::ExitCode;

use kiln::value::{JsonRecords, Plan};

use crate::files::{Mapped, in_file, is_framed, plan_from};
use crate::progress::Counted;
use crate::{Failure, out};

/// Records `start` (from 0) up to `end`, not included.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    start: u64,
    end: u64,
}

pub(crate) fn parse_range(s: &str) -> Result<Range, String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?} is not a range A..B"))?;
    let num = |x: &str, default: u64| -> Result<u64, String> {
        if x.is_empty() {
            Ok(default)
        } else {
            x.parse()
                .map_err(|_| format!("{x:?} is not a record number"))
        }
    };
    Ok(Range {
        start: num(a, 0)?,
        end: num(b, u64::MAX)?,
    })
}

/// Writes records as JSON, one per line or as one array.
struct Printer<W: Write> {
    w: W,
    array: bool,
    range: Range,
    index: u64,
    printed: u64,
}

impl<W: Write> Printer<W> {
    fn start(&mut self) -> Result<(), Failure> {
        if self.array {
            out(self.w.write_all(b"["))?;
        }
        Ok(())
    }

    /// Whether records after this one are wanted.
    fn record(&mut self, json: &[u8]) -> Result<bool, Failure> {
        let i = self.index;
        self.index += 1;
        if i < self.range.start {
            return Ok(true);
        }
        if i >= self.range.end {
            return Ok(false);
        }
        if self.array {
            out(self
                .w
                .write_all(if self.printed == 0 { b"\n" } else { b",\n" }))?;
        }
        out(self.w.write_all(json))?;
        if !self.array {
            out(self.w.write_all(b"\n"))?;
        }
        self.printed += 1;
        Ok(self.index < self.range.end)
    }

    fn end(&mut self) -> Result<(), Failure> {
        if self.array {
            out(self
                .w
                .write_all(if self.printed == 0 { b"]\n" } else { b"\n]\n" }))?;
        }
        out(self.w.flush())
    }
}

pub(crate) fn run(
    path: &Path,
    array: bool,
    schema: Option<&Path>,
    range: Option<Range>,
) -> Result<ExitCode, Failure> {
    let plan = schema.map(plan_from).transpose()?;
    let stdout = std::io::stdout();
    let mut printer = Printer {
        w: BufWriter::with_capacity(1 << 16, stdout.lock()),
        array,
        range: range.unwrap_or(Range {
            start: 0,
            end: u64::MAX,
        }),
        index: 0,
        printed: 0,
    };
    printer.start()?;
    let result = each_record(path, plan.as_ref(), false, &mut |v| printer.record(v)).map(drop);
    // What was read before a failure is printed, then the failure.
    let ended = printer.end();
    result?;
    ended?;
    Ok(ExitCode::SUCCESS)
}

fn open(path: &Path) -> Result<(File, u64), Failure> {
    let file = File::open(path).map_err(|e| Failure::Io(e, path.to_owned()))?;
    let len = file
        .metadata()
        .map_err(|e| Failure::Io(e, path.to_owned()))?
        .len();
    Ok((file, len))
}

/// What [`each_record`] went through.
#[derive(Default)]
pub(crate) struct Walked {
    pub(crate) frames: u64,
    pub(crate) records: u64,
    /// Frames without schema text (and no schema given): only their
    /// header and payload checks ran.
    pub(crate) unread: u64,
}

/// Reads every record of the file at `path`, streaming, and hands each to
/// `on_record` until it returns `false`. A frame without schema text, when
/// no plan is given, is an error, or with `check_only` has only its
/// payload checked (length, trailer, checksum).
pub(crate) fn each_record(
    path: &Path,
    plan: Option<&Plan>,
    check_only: bool,
    on_record: &mut dyn FnMut(&[u8]) -> Result<bool, Failure>,
) -> Result<Walked, Failure> {
    let mut walked = Walked::default();
    let map = Mapped::open(path)?;
    if map.bytes().is_empty() {
        return Ok(walked);
    }
    let (mut file, len) = open(path)?;
    if !is_framed(map.bytes()) {
        let Some(plan) = plan else {
            // Not a frame, and no schema to read bare records by: the
            // frame reader's own error says what the first bytes are.
            in_file(kiln::frame::FrameHeader::parse(map.bytes()).map(drop), path)?;
            return Ok(walked);
        };
        let reader = Counted::new(BufReader::with_capacity(1 << 16, file), len);
        let mut records = JsonRecords::bare(reader, plan, &kiln::Options::default());
        let mut json = Vec::new();
        while let Some(r) = records.next_into(&mut json) {
            in_file(r, path)?;
            walked.records += 1;
            let more = on_record(&json)?;
            json.clear();
            if !more {
                break;
            }
        }
        return Ok(walked);
    }
    let options = kiln::frame::FrameOptions::new();
    let bar = Counted::new(std::io::empty(), len);
    // Frame by frame: the records of the frames before a torn tail or a
    // damaged frame come out before its error.
    for f in kiln::file::read_frames(map.bytes()) {
        let f = in_file(f, path)?;
        walked.frames += 1;
        let shift = |e: kiln::Error| Failure::Kiln(e.shifted(f.offset), Some(path.to_owned()));
        if check_only && plan.is_none() && f.header.schema_text.is_none() {
            f.header.payload(f.bytes).map_err(shift)?;
            walked.unread += 1;
            continue;
        }
        if f.header.is_indexed() {
            // Records with arrays: read in place from the map, each by the
            // frame's schema, and printed as the Value's JSON.
            let mut json = Vec::new();
            for v in kiln::file::values(f.bytes, plan, options) {
                let v = v.map_err(shift)?;
                serde_json::to_writer(&mut json, &v)
                    .map_err(|e| Failure::Io(e.into(), path.to_owned()))?;
                walked.records += 1;
                let more = on_record(&json)?;
                json.clear();
                if !more {
                    bar.finish();
                    return Ok(walked);
                }
            }
            bar.tick(f.bytes.len() as u64);
            continue;
        }
        file.seek(SeekFrom::Start(f.offset))
            .map_err(|e| Failure::Io(e, path.to_owned()))?;
        let reader = BufReader::with_capacity(1 << 16, (&mut file).take(f.bytes.len() as u64));
        let reader = Tick {
            inner: reader,
            bar: &bar,
        };
        let mut records = JsonRecords::frame(reader, plan, &options).map_err(shift)?;
        let mut json = Vec::new();
        while let Some(r) = records.next_into(&mut json) {
            r.map_err(shift)?;
            walked.records += 1;
            let more = on_record(&json)?;
            json.clear();
            if !more {
                bar.finish();
                return Ok(walked);
            }
        }
    }
    bar.finish();
    Ok(walked)
}

/// Feeds the bytes read to the progress bar of the whole file.
struct Tick<'b, R> {
    inner: R,
    bar: &'b Counted<std::io::Empty>,
}

impl<R: Read> Read for Tick<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.tick(n as u64);
        Ok(n)
    }
}
