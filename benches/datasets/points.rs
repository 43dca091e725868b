//! 1,000,000 points with `i32` coordinates.

use serde::{Deserialize, Serialize};

use super::Rng;

/// The struct of the format's first example; `#[repr(C)]` and `Pod`, so
/// `kiln::block::register` can copy its sequences whole.
#[derive(
    bytemuck::Pod,
    bytemuck::Zeroable,
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
#[repr(C)]
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
