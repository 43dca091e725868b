//! A service writing log events into one Kiln file over many runs: each
//! run appends (the writer checks the file's tail first), flushes every
//! hundred events so that a crash loses at most the unflushed ones, and
//! reads the whole file back at the end.
//!
//! `cargo run --example log_service [PATH]`; run it twice to see the
//! second run append to the first. A file whose last write was cut short
//! is refused until `kiln repair PATH` cuts the torn tail.

use serde::{Deserialize, Serialize};

use kiln::file::{FileOptions, FileWriter, KilnFile};

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Event<'a> {
    seq: u64,
    level: Level,
    #[serde(borrow)]
    source: &'a str,
    message: String,
    latency_us: u32,
}

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq, Clone, Copy)]
enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

fn main() {
    // Errors as Kiln words them (what, where, the code), not as `Debug`.
    if let Err(e) = run() {
        eprintln!("log_service: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/log_service.kiln".into());
    let before = match KilnFile::read(&path) {
        Ok(file) => file.record_count(),
        Err(_) => 0,
    };

    let mut log: FileWriter<Event<'_>> = FileOptions::new().open(&path)?;
    let sources = ["api", "db", "queue"];
    for i in 0..1000u64 {
        let seq = before + i;
        log.push(&Event {
            seq,
            level: [Level::Debug, Level::Info, Level::Warn, Level::Error][(seq % 4) as usize],
            source: sources[(seq % 3) as usize],
            message: format!("request {seq} served"),
            latency_us: (seq * 37 % 5000) as u32,
        })?;
        if i % 100 == 99 {
            log.flush()?;
        }
    }
    log.close()?;

    let file = KilnFile::read(&path)?;
    file.check()?;
    let mut count = 0;
    let mut slow = 0;
    for event in file.records::<Event<'_>>() {
        let event = event?;
        assert_eq!(event.seq, count, "records come back in order");
        slow += u64::from(event.latency_us > 4000);
        count += 1;
    }
    let first = &file.frames()[0];
    let payload = &file.bytes()[first.payload.start as usize..];
    println!(
        "{path}: {} frames, {count} events ({slow} slower than 4 ms)",
        file.frames().len()
    );
    println!("this run appended events {before}..{}", before + 1000);
    println!(
        "first event, as stored: {}",
        hex(&payload[..payload.len().min(40)])
    );
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
