//! The crash test: a child process appends and flushes until it is killed
//! with SIGKILL at a random moment, 200 times over one file. After every
//! kill, every record the child reported flushed reads back exactly, no
//! record is misread, and the tail is either clean or `truncated-tail` at
//! the end of the last complete frame.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kiln::file::{FileOptions, FileWriter, KilnFile};

use serde::{Deserialize, Serialize};

use super::scratch;

/// A record mostly made of bytes, so that the child spends much of its
/// time inside `write` calls, where a kill tears a frame.
#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Blob {
    seq: u64,
    data: Vec<u8>,
}

impl Blob {
    fn nth(seq: u64) -> Blob {
        Blob {
            seq,
            data: vec![seq as u8; (seq.wrapping_mul(7919) % 100_000) as usize],
        }
    }
}

const CHILD_ENV: &str = "KILN_CRASH_CHILD_FILE";
const KILLS: u32 = 200;

/// The child: appends events from where the file ends, flushing every few
/// records, and prints the number of records in the file after each
/// flush. It runs until killed.
#[test]
fn crash_child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return; // only a child started by the crash test does anything
    };
    let mut w: FileWriter<Blob> = FileOptions::new()
        .truncate_torn_tail(true)
        .frame_bytes(256 * 1024)
        .open(&path)
        .expect("open for append");
    let mut next = KilnFile::read(&path).expect("read").record_count();
    let mut rng = next.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    loop {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        for _ in 0..(rng % 8 + 1) {
            w.push(&Blob::nth(next)).expect("push");
            next += 1;
        }
        w.flush().expect("flush");
        println!("{next}");
    }
}

#[test]
fn killed_writers_lose_nothing_they_flushed() {
    let dir = scratch("crash");
    let exe = std::env::current_exe().expect("test binary");
    let mut flushed = 0u64;
    let mut total = 0u64;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut torn_tails = 0;
    for kill in 0..KILLS {
        // A new file every 20 kills keeps each one small enough to check
        // whole after every kill.
        let path = dir.join(format!("log-{}.kiln", kill / 20));
        if kill % 20 == 0 {
            total += flushed;
            flushed = 0;
        }
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "crash::crash_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the child");
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // Wait for some flushes, then kill at a random moment after one.
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let wanted = seed % 5 + 1;
        let started = Instant::now();
        let mut seen = 0;
        while seen < wanted && started.elapsed() < Duration::from_secs(20) {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Ok(n) = line.trim().parse::<u64>() {
                        flushed = flushed.max(n);
                        seen += 1;
                    }
                }
                _ => break,
            }
        }
        std::thread::sleep(Duration::from_micros(seed % 5_000));
        child.kill().expect("SIGKILL");
        // Lines written before the kill still count.
        for line in lines.map_while(Result::ok) {
            if let Ok(n) = line.trim().parse::<u64>() {
                flushed = flushed.max(n);
            }
        }
        let _ = child.wait();
        assert!(seen > 0, "kill {kill}: the child flushed nothing");

        let file = KilnFile::read(&path).expect("read");
        let mut count = 0u64;
        for r in file.records::<Blob>() {
            match r {
                Ok(e) => {
                    assert_eq!(e, Blob::nth(count), "kill {kill}: record {count} misread");
                    count += 1;
                }
                Err(e) => {
                    assert_eq!(e.kind().code(), "truncated-tail", "kill {kill}: {e}");
                    let last = file.frames().last().expect("a complete frame");
                    let end = last.payload.end;
                    assert_eq!(e.offset(), Some(end), "kill {kill}: tail offset");
                    torn_tails += 1;
                }
            }
        }
        assert!(
            count >= flushed,
            "kill {kill}: {count} records, {flushed} flushed"
        );
    }
    total += flushed;
    eprintln!("{KILLS} kills, {total} records flushed, {torn_tails} torn tails seen");
    assert!(
        torn_tails > 0,
        "no kill landed inside a write: the test did not test"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}
