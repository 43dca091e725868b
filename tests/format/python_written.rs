//! Files the Python package wrote (`python/tests/test_written.py`, which
//! checks it still writes exactly these bytes), read here with the Rust
//! types: a Python program's output is a Rust program's input.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::common::Point;

fn written(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("python/tests/written")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
enum State {
    Idle,
    Failed(String),
    Moved { dx: i16, dy: i16 },
}

#[derive(Deserialize, Debug, kiln::Schema)]
struct Reading {
    sensor: String,
    values: Vec<f32>,
    scale: Option<f64>,
    state: State,
    tags: BTreeMap<String, u32>,
    pair: (u8, String),
    corners: [Point; 2],
    image: kiln::Array<f32>,
}

#[derive(Deserialize, Debug, kiln::Schema)]
struct Sample {
    label: String,
    pixels: kiln::Array<u16>,
}

#[test]
fn a_frame_python_wrote_reads_as_the_rust_type() {
    let bytes = written("reading.kiln");
    let r: Reading = kiln::frame::from_slice(&bytes).unwrap();
    assert_eq!(r.sensor, "t-1");
    assert_eq!(r.values, [0.5, -1.25, 3.0]);
    assert_eq!(r.scale, Some(2.5));
    assert_eq!(r.state, State::Moved { dx: -3, dy: 4 });
    assert_eq!(
        r.tags,
        BTreeMap::from([("rack".into(), 2), ("site".into(), 7)])
    );
    assert_eq!(r.pair, (9, "nine".into()));
    assert_eq!(r.corners, [Point { x: 0, y: 0 }, Point { x: 640, y: 480 }]);
    assert_eq!(r.image.shape(), [3, 4]);
    let want: Vec<f32> = (0..12).map(|i| i as f32 / 4.0).collect();
    assert_eq!(r.image.data(), want);
}

#[test]
fn files_python_wrote_read_as_the_rust_type() {
    let bytes = written("points.kiln");
    let file = kiln::file::KilnFile::from_bytes(&bytes);
    assert!(file.frames().len() >= 2);
    let points: Vec<Point> = file.records().collect::<Result<_, _>>().unwrap();
    let want: Vec<Point> = (0..5).map(|i| Point { x: i, y: -2 * i }).collect();
    assert_eq!(points, want);

    let states: Vec<State> = kiln::file::records(&written("states.kiln"))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        states,
        [
            State::Idle,
            State::Failed("jammed".into()),
            State::Moved { dx: 1, dy: -1 }
        ]
    );

    let bytes = written("samples.kiln");
    let file = kiln::file::KilnFile::from_bytes(&bytes);
    let samples: Vec<Sample> = file.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(samples.len(), 3);
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(s.label, format!("s{i}"));
        assert_eq!(s.pixels.shape(), [2, 3]);
        assert_eq!(s.pixels.data(), [i as u16; 6]);
    }
    let view: kiln::ArrayView<'_, u16> = file.array_view(2, "pixels").unwrap();
    assert_eq!(view.data(), [2; 6]);
}
