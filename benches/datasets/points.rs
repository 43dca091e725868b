//! 1,000,000 points with `i32` coordinates.

use serde::{Deserialize, Serialize};

use super::Rng;

/// The struct of the format's first example.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// `count` points spread over the whole `i32` range.
pub fn generate(rng: &mut Rng, count: usize) -> Vec<Point> {
    (0..count)
        .map(|_| Point {
            x: rng.next_u32() as i32,
            y: rng.next_u32() as i32,
        })
        .collect()
}
