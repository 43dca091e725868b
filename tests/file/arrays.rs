//! Records with shaped arrays in indexed frames: aligned blocks, views,
//! names from the schema, the switch from a plain frame, and a map.

use kiln::file::{FileOptions, FileWriter, KilnFile};
use kiln::{Array, ArrayView};
use serde::{Deserialize, Serialize};

use super::scratch;

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Layer {
    name: String,
    weights: Array<f32>,
}

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Model {
    id: u32,
    layers: Vec<Layer>,
    mask: Option<Array<u8>>,
}

fn model(i: u32) -> Model {
    Model {
        id: i,
        layers: (0..(i % 4 + 1))
            .map(|l| Layer {
                name: format!("l{l}"),
                weights: Array::from_shape_vec(
                    vec![2, (l + 1) as usize],
                    (0..2 * (l + 1)).map(|x| (x + i) as f32).collect(),
                )
                .unwrap(),
            })
            .collect(),
        mask: i
            .is_multiple_of(2)
            .then(|| Array::from_vec(vec![i as u8; 3])),
    }
}

#[test]
fn a_shard_of_records_with_arrays_reads_back_named_and_aligned() {
    let path = scratch("shard").join("models.kiln");
    let mut w = FileWriter::<Model>::open(&path).unwrap();
    for i in 0..10 {
        w.push(&model(i)).unwrap();
    }
    w.close().unwrap();

    let file = KilnFile::read(&path).unwrap();
    assert_eq!(file.frames().len(), 1);
    assert!(file.frames()[0].header.is_indexed());
    let read: Vec<Model> = file.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(read, (0..10).map(model).collect::<Vec<_>>());

    let arrays = file.arrays().unwrap();
    let expected: usize = (0..10u32)
        .map(|i| (i % 4 + 1) as usize + usize::from(i % 2 == 0))
        .sum();
    assert_eq!(arrays.len(), expected);
    for a in &arrays {
        assert_eq!(a.info.byte_range().start % 64, 0, "{a:?}");
    }
    let names = |r| -> Vec<String> {
        file.record_arrays(r)
            .unwrap()
            .into_iter()
            .map(|a| a.name.unwrap())
            .collect()
    };
    assert_eq!(
        names(3),
        [
            "layers[0].weights",
            "layers[1].weights",
            "layers[2].weights",
            "layers[3].weights"
        ]
    );
    assert_eq!(
        names(2),
        [
            "layers[0].weights",
            "layers[1].weights",
            "layers[2].weights",
            "mask"
        ]
    );

    let v: ArrayView<'_, f32> = file.array_view(3, "layers[3].weights").unwrap();
    assert_eq!(v.shape(), [2, 4]);
    assert_eq!(v.data(), model(3).layers[3].weights.data());
    let by_index: ArrayView<'_, f32> = file.array_view_at(3, 3).unwrap();
    assert_eq!(
        by_index.data().as_ptr(),
        v.data().as_ptr(),
        "the same bytes, in place"
    );
    let owned: Array<u8> = file.array(4, "mask").unwrap();
    assert_eq!(owned.data(), [4, 4, 4]);
    assert_eq!(
        file.array_view::<u8>(3, "mask").unwrap_err().kind().code(),
        "custom"
    );
    assert_eq!(
        file.array_view::<u8>(3, "layers[0].weights")
            .unwrap_err()
            .kind()
            .code(),
        "dtype-mismatch"
    );
    assert_eq!(
        file.array_view_at::<f32>(3, 9).unwrap_err().kind().code(),
        "array-index"
    );
}

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Maybe {
    n: u16,
    grid: Option<Array<u16>>,
}

#[test]
fn records_before_the_first_array_close_a_plain_frame() {
    let path = scratch("switch").join("maybe.kiln");
    let records: Vec<Maybe> = (0..9u16)
        .map(|n| Maybe {
            n,
            grid: (n >= 3 && n % 2 == 1).then(|| Array::from_vec(vec![n; n as usize])),
        })
        .collect();
    let mut w = FileWriter::<Maybe>::open(&path).unwrap();
    for r in &records {
        w.push(r).unwrap();
    }
    w.close().unwrap();
    let file = KilnFile::read(&path).unwrap();
    let kinds: Vec<_> = file
        .frames()
        .iter()
        .map(|f| (f.header.is_indexed(), f.record_count))
        .collect();
    assert_eq!(kinds, [(false, 3), (true, 6)]);
    let back: Vec<Maybe> = file.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(back, records);
    assert_eq!(file.arrays().unwrap().len(), 3);
    assert!(
        file.record_arrays(4).unwrap().is_empty(),
        "an empty directory"
    );
    let v: ArrayView<'_, u16> = file.array_view(5, "grid").unwrap();
    assert_eq!(v.data(), [5; 5]);
}

#[cfg(feature = "mmap")]
#[test]
fn a_mapped_file_views_blocks_in_the_mapping() {
    let path = scratch("mapped").join("models.kiln");
    let mut w: FileWriter<Model> = FileOptions::new().frame_bytes(200).open(&path).unwrap();
    for i in 0..6 {
        w.push(&model(i)).unwrap();
    }
    w.close().unwrap();
    // SAFETY: the file is this test's own and nothing changes it.
    let file = unsafe { KilnFile::map(&path) }.unwrap();
    assert!(file.frames().len() > 1);
    let v: ArrayView<'_, f32> = file.array_view(5, "layers[1].weights").unwrap();
    let base = file.bytes().as_ptr() as usize;
    assert!((base..base + file.bytes().len()).contains(&(v.data().as_ptr() as usize)));
    assert_eq!(v.data(), model(5).layers[1].weights.data());
    let read: Vec<Model> = file.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(read.len(), 6);
}

#[derive(Deserialize, kiln::Schema)]
struct Borrowed<'a> {
    #[serde(borrow)]
    name: &'a str,
}

#[derive(Serialize, kiln::Schema)]
#[serde(rename = "Borrowed")]
struct Owned {
    name: String,
}

#[test]
fn strings_are_borrowed_from_the_file() {
    let path = scratch("borrow").join("names.kiln");
    let mut w = FileWriter::<Owned>::open(&path).unwrap();
    w.push(&Owned {
        name: "kiln".into(),
    })
    .unwrap();
    w.close().unwrap();
    let file = KilnFile::read(&path).unwrap();
    let r: Borrowed<'_> = file.records().next().unwrap().unwrap();
    let base = file.bytes().as_ptr() as usize;
    assert!((base..base + file.bytes().len()).contains(&(r.name.as_ptr() as usize)));
    assert_eq!(r.name, "kiln");
}

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Inner {
    image: Array<f32>,
}

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Wrap(Array<u8>);

/// Arrays at places the schema fixes: named from the schema alone.
#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Fixed {
    label: String,
    pair: (Array<u8>, u32, Array<i16>),
    inner: Inner,
    wrapped: Wrap,
    two: [Array<u64>; 2],
}

fn fixed(i: u8) -> Fixed {
    Fixed {
        label: format!("f{i}"),
        pair: (
            Array::from_vec(vec![i; 2]),
            i.into(),
            Array::from_vec(vec![-i16::from(i); 3]),
        ),
        inner: Inner {
            image: Array::from_shape_vec(vec![2, 2], vec![f32::from(i); 4]).unwrap(),
        },
        wrapped: Wrap(Array::from_vec(vec![i])),
        two: [
            Array::from_vec(vec![u64::from(i)]),
            Array::from_vec(vec![7; usize::from(i)]),
        ],
    }
}

#[test]
fn names_fixed_by_the_schema_are_the_names_of_the_records_values() {
    let path = scratch("fixed").join("fixed.kiln");
    let mut w = FileWriter::<Fixed>::open(&path).unwrap();
    for i in 0..4 {
        w.push(&fixed(i)).unwrap();
    }
    w.close().unwrap();
    let file = KilnFile::read(&path).unwrap();
    let expected = [
        "pair.0",
        "pair.2",
        "inner.image",
        "wrapped",
        "two.0",
        "two.1",
    ];
    for (r, value) in file.values(None).enumerate() {
        let value = value.unwrap();
        let from_value: Vec<String> = value.arrays().into_iter().map(|(n, _)| n).collect();
        assert_eq!(from_value, expected, "record {r}, read as a value");
        let listed: Vec<String> = file
            .record_arrays(r as u64)
            .unwrap()
            .into_iter()
            .map(|a| a.name.unwrap())
            .collect();
        assert_eq!(listed, expected, "record {r}, listed");
        let two: ArrayView<'_, u64> = file.array_view(r as u64, "two.1").unwrap();
        assert_eq!(two.data(), fixed(r as u8).two[1].data());
        let image: Array<f32> = file.array(r as u64, "inner.image").unwrap();
        assert_eq!(image, fixed(r as u8).inner.image);
    }
    let e = file.array_view::<u8>(0, "pair.1").unwrap_err();
    assert_eq!(
        e.to_string(),
        "no array named \"pair.1\" in record 0 (6 arrays)"
    );
}
