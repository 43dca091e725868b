//! A 4 MiB `Vec<f32>`: the shape the block fast path (issue 3) is for.

use super::Rng;

/// `bytes / 4` floats from a standard-normal-ish distribution.
pub fn generate(rng: &mut Rng, bytes: usize) -> Vec<f32> {
    (0..bytes / 4)
        .map(|_| {
            // Sum of four uniforms: cheap, bell-shaped, never NaN.
            let s: f32 = (0..4).map(|_| rng.f32_in(-1.0, 1.0)).sum();
            s * 0.5
        })
        .collect()
}
