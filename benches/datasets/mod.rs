//! Benchmark datasets, each built deterministically from a fixed seed.
//!
//! Every generator takes a [`Rng`] seeded with [`SEED`], so every run, on
//! every machine, measures exactly the same values. The shapes follow
//! issue 6: web-server logs, a triangle mesh, a game's saved state, a
//! stream of network updates, a million points and a 4 MiB tensor.
//!
//! Beside serde's traits, every type derives those of the libraries without
//! a serde API that `benches/compare.rs` measures: bitcode's
//! `Encode`/`Decode`, wincode's `SchemaWrite`/`SchemaRead` and rkyv's
//! `Archive`/`Serialize`/`Deserialize` (the borrowing types only those
//! that can borrow: see each).

pub mod log;
pub mod mesh;
pub mod network;
pub mod points;
pub mod rng;
pub mod savegame;
pub mod tensors;

pub use rng::Rng;

/// The seed of every dataset; changing it changes every number.
pub const SEED: u64 = 0x6b69_6c6e_2d62_656e; // "kiln-ben"

/// A fresh generator for the dataset called `name`, so that adding a
/// dataset never changes the values of another one.
pub fn rng_for(name: &str) -> Rng {
    let mut h = SEED;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    Rng::new(h)
}
