//! Kiln files (`spec/11-file.md`): frames appended across runs, torn
//! tails, records with arrays in indexed frames, names, maps, and a crash
//! test that kills a writing process.

mod append;
mod arrays;
mod crash;
mod torn;

use serde::{Deserialize, Serialize};

/// A log event, as the service of the examples writes them.
#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq, Clone)]
pub struct Event {
    pub seq: u64,
    pub level: u8,
    pub text: String,
    pub tags: Vec<u32>,
}

impl Event {
    /// Event `i`, different in every field and length.
    pub fn nth(i: u64) -> Event {
        Event {
            seq: i,
            level: (i % 5) as u8,
            text: format!("event {i} {}", "x".repeat((i % 37) as usize)),
            tags: (0..(i % 7) as u32).map(|t| t * 3 + i as u32).collect(),
        }
    }
}

/// A fresh directory for one test's files.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-file-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
