//! An ML dataset shard: samples with a label and an image tensor, many to
//! a file, every image 64-byte aligned. The shard is then mapped and read
//! as a training loop would: arrays listed by name without the Rust type,
//! one image viewed in place, the labels read with the type.
//!
//! `cargo run --release --example ml_shard [PATH]`

use serde::{Deserialize, Serialize};

use kiln::file::{FileOptions, FileWriter, KilnFile};
use kiln::{Array, ArrayView};

#[derive(Serialize, Deserialize, kiln::Schema)]
struct Sample {
    label: u32,
    name: String,
    image: Array<f32>,
}

const SAMPLES: u32 = 64;
const SHAPE: [usize; 3] = [3, 64, 64];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/ml_shard.kiln".into());
    let _ = std::fs::remove_file(&path);
    // One frame for the whole shard: its index finds any record at once.
    let mut shard: FileWriter<Sample> = FileOptions::new().frame_bytes(usize::MAX).open(&path)?;
    let len: usize = SHAPE.iter().product();
    for i in 0..SAMPLES {
        let pixels = (0..len).map(|p| (p as f32 * 0.001) + i as f32).collect();
        shard.push(&Sample {
            label: i % 10,
            name: format!("img-{i:04}"),
            image: Array::from_shape_vec(SHAPE.to_vec(), pixels)?,
        })?;
    }
    shard.close()?;

    // SAFETY: this program wrote the file and nothing else changes it
    // while it is mapped.
    let file = unsafe { KilnFile::map(&path)? };
    let arrays = file.arrays()?;
    println!(
        "{path}: {} bytes, {} frame(s), {} records, {} arrays",
        file.bytes().len(),
        file.frames().len(),
        file.record_count(),
        arrays.len()
    );
    for a in arrays.iter().take(3) {
        println!(
            "  record {} {:<6} {} {:?} at bytes {:?}",
            a.record,
            a.name.as_deref().unwrap_or("?"),
            a.info.dtype_name(),
            a.info.shape(),
            a.info.byte_range()
        );
    }
    let view: ArrayView<'_, f32> = file.array_view(7, "image")?;
    assert_eq!(view.shape(), SHAPE);
    assert_eq!(view.data()[0], 7.0);
    let aligned = (view.data().as_ptr() as usize).is_multiple_of(64);
    println!(
        "record 7 image: viewed in the map, 64-byte aligned: {aligned}, first pixels {:?}",
        &view.data()[..3]
    );
    let labels: Vec<u32> = file
        .records::<Sample>()
        .map(|s| s.map(|s| s.label))
        .collect::<Result<_, _>>()?;
    println!("labels: {:?}...", &labels[..12]);
    Ok(())
}
