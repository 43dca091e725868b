//! The record of `spec/golden/arrays.kiln`, shared by the tests that need
//! it (bare here; a framed golden file can encode the same value).

use kiln::Array;
use serde::{Deserialize, Serialize};

/// A training sample: a label, an f32 image [3, 4, 5] and a u32 index
/// list [6, 3].
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, kiln::Schema)]
pub struct GoldenSample {
    pub label: String,
    pub image: Array<f32>,
    pub index: Array<u32>,
}

/// The value of the golden record: image[i] = i / 2, index[i] = i.
pub fn golden_sample() -> GoldenSample {
    GoldenSample {
        label: "kiln".into(),
        image: Array::from_shape_vec(vec![3, 4, 5], (0..60).map(|i| i as f32 * 0.5).collect())
            .expect("60 elements"),
        index: Array::from_shape_vec(vec![6, 3], (0..18).collect()).expect("18 elements"),
    }
}
