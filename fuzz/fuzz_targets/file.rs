//! Arbitrary bytes read as a Kiln file (`spec/11-file.md`): never a panic,
//! never unbounded work; the slice reader, the stream reader and
//! `KilnFile` yield the same records and stop with the same error at the
//! same offset; every array `KilnFile` lists lies inside the file, 64-byte
//! aligned, and reads back the same owned and viewed.
#![no_main]

use kiln::file::{KilnFile, Reader};

#[derive(serde::Deserialize, kiln::Schema, Debug, PartialEq)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(serde::Deserialize, kiln::Schema, Debug, PartialEq)]
struct Sample {
    label: String,
    pixels: kiln::Array<u16>,
}

type Outcome<T> = (Vec<T>, Option<(&'static str, Option<u64>)>);

fn outcome<T>(items: impl Iterator<Item = kiln::Result<T>>) -> Outcome<T> {
    let mut records = Vec::new();
    for item in items {
        match item {
            Ok(r) => records.push(r),
            Err(e) => return (records, Some((e.kind().code(), e.offset()))),
        }
    }
    (records, None)
}

fn same<T: serde::de::DeserializeOwned + kiln::Schema + PartialEq + std::fmt::Debug>(data: &[u8]) {
    let slice = outcome(kiln::file::records::<T>(data));
    let stream = outcome(Reader::<_, T>::new(data));
    assert_eq!(slice, stream, "slice and stream readers differ");
    if let (_, Some((_, Some(at)))) = &slice {
        assert!(*at <= data.len() as u64, "an error past the file's end");
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    same::<Point>(data);
    same::<Sample>(data);
    let file = KilnFile::from_bytes(data);
    let mapped = outcome(file.records::<Sample>());
    assert_eq!(mapped, outcome(kiln::file::records::<Sample>(data)));
    for v in file.values(None) {
        if v.is_err() {
            break;
        }
    }
    if let Ok(arrays) = file.arrays() {
        for a in arrays {
            let r = a.info.byte_range();
            assert!(r.end <= data.len() as u64 && r.start % 64 == 0, "{a:?}");
            if a.info.dtype_name() == "u16" {
                let owned = file.array_at::<u16>(a.record, a.index).expect("listed");
                let view = file
                    .array_view_at::<u16>(a.record, a.index)
                    .expect("aligned");
                assert_eq!(owned.data(), view.data());
            }
        }
    }
});
