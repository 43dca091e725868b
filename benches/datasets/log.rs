//! 10,000 web-server access-log records, as a server would parse them.

use serde::{Deserialize, Serialize};

use super::Rng;

/// One line of an access log.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Log {
    pub address: [u8; 4],
    pub identity: String,
    /// A default, so that records of a version without it read
    /// (`benches/evolve.rs`).
    #[serde(default)]
    pub userid: String,
    pub date: String,
    pub request: String,
    pub status: u16,
    pub size: u64,
}

/// The same record with its strings borrowed from the input. No rkyv
/// derive: rkyv reads [`Log`]'s archived form in place instead.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub struct LogRef<'a> {
    pub address: [u8; 4],
    pub identity: &'a str,
    pub userid: &'a str,
    pub date: &'a str,
    pub request: &'a str,
    pub status: u16,
    pub size: u64,
}

const USERS: &[&str] = &["-", "-", "-", "alice", "bob", "carol", "dave", "eve"];
const METHODS: &[&str] = &["GET", "GET", "GET", "POST", "PUT", "DELETE", "HEAD"];
const MONTHS: &[&str] = &[
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const EXTENSIONS: &[&str] = &["html", "css", "js", "png", "json", "txt"];
const STATUSES: &[u16] = &[200, 200, 200, 200, 200, 204, 301, 304, 400, 403, 404, 500];

/// `count` log records.
pub fn generate(rng: &mut Rng, count: usize) -> Vec<Log> {
    (0..count)
        .map(|_| {
            let depth = rng.range(1, 4);
            let mut path = String::new();
            for _ in 0..depth {
                path.push('/');
                path.push_str(&rng.word(3, 10));
            }
            path.push('.');
            path.push_str(rng.pick(EXTENSIONS));
            Log {
                address: [
                    rng.range(1, 223) as u8,
                    rng.below(256) as u8,
                    rng.below(256) as u8,
                    rng.range(1, 254) as u8,
                ],
                identity: "-".to_string(),
                userid: rng.pick(USERS).to_string(),
                date: format!(
                    "{:02}/{}/{}:{:02}:{:02}:{:02} +0000",
                    rng.range(1, 28),
                    rng.pick(MONTHS),
                    rng.range(1995, 2025),
                    rng.below(24),
                    rng.below(60),
                    rng.below(60)
                ),
                request: format!("{} {} HTTP/1.1", rng.pick(METHODS), path),
                status: rng.pick(STATUSES),
                size: rng.below(100_000_000),
            }
        })
        .collect()
}
