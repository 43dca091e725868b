//! What the test binaries share: hex text, the spec's vector and golden
//! files, the `Point` and `Message` of the spec, and the helpers in the
//! submodules (a counting allocator, readers that hand out bytes in pieces,
//! a type with every serde kind, the golden array record, types nesting
//! through themselves).

#![allow(dead_code)]

pub mod alloc;
pub mod arrays_golden;
pub mod nesting;
pub mod pieces;
pub mod rich;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How many random cases a property tries: `n`, or 4 under Miri (CI runs
/// the block and record properties there on a big-endian target, where
/// each case takes seconds).
pub fn cases(n: u64) -> u64 {
    if cfg!(miri) { 4 } else { n }
}

/// The spec's `Point { x: 9, y: -4 }` is `09 00 00 00 fc ff ff ff`.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy, Default, kiln::Schema)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// The spec's `Message { text: "hi" }` is `02 00 00 00 68 69`.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Default, kiln::Schema)]
pub struct Message {
    pub text: String,
}

/// Bytes from hex text; spaces and line breaks between digits are ignored.
pub fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert!(
        digits.len().is_multiple_of(2),
        "odd number of hex digits in {s:?}"
    );
    digits
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).expect("ASCII hex");
            u8::from_str_radix(pair, 16).unwrap_or_else(|_| panic!("bad hex {pair:?}"))
        })
        .collect()
}

/// Lowercase hex text of `bytes`, two digits a byte, no spaces.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A path below the repository's `spec/`.
pub fn spec_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("spec")
        .join(rel)
}

/// The vectors of `spec/vectors/<area>.json`, after checking its `area`.
pub fn vectors(area: &str) -> Vec<serde_json::Value> {
    let path = spec_path(&format!("vectors/{area}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let file: serde_json::Value = serde_json::from_str(&text).expect("vector file JSON");
    assert_eq!(file["area"], area, "{path:?}");
    file["vectors"].as_array().expect("vectors array").clone()
}

/// The bytes of `spec/golden/<name>.kiln`.
pub fn golden(name: &str) -> Vec<u8> {
    let path = spec_path(&format!("golden/{name}.kiln"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}
