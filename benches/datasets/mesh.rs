//! 125,000 triangles: three vertices and a normal, each three `f32`, as a
//! `Vec` of structs (not a flat `Vec<f32>`).

use serde::{Deserialize, Serialize};

use super::Rng;

/// A point or direction in space. `#[repr(C)]` and `Pod`: its memory is
/// its encoding, which `kiln::block::register` lets Kiln use.
#[derive(
    bytemuck::Pod,
    bytemuck::Zeroable,
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
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
#[repr(C)]
pub struct Vector3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// One triangle of the mesh (`#[repr(C)]`, `Pod`, as [`Vector3`]).
#[derive(
    bytemuck::Pod,
    bytemuck::Zeroable,
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
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
#[repr(C)]
pub struct Triangle {
    pub v0: Vector3,
    pub v1: Vector3,
    pub v2: Vector3,
    pub normal: Vector3,
}

/// A mesh.
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
pub struct Mesh {
    pub triangles: Vec<Triangle>,
}

/// A vector with each component in `[-range, range)`.
pub fn vector(rng: &mut Rng, range: f32) -> Vector3 {
    Vector3 {
        x: rng.f32_in(-range, range),
        y: rng.f32_in(-range, range),
        z: rng.f32_in(-range, range),
    }
}

/// A mesh of `count` random triangles.
pub fn generate(rng: &mut Rng, count: usize) -> Mesh {
    Mesh {
        triangles: (0..count)
            .map(|_| Triangle {
                v0: vector(rng, 100.0),
                v1: vector(rng, 100.0),
                v2: vector(rng, 100.0),
                normal: vector(rng, 1.0),
            })
            .collect(),
    }
}
