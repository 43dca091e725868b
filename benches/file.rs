//! Kiln files (`kiln::file`) beside what they are built on.
//!
//! * A million log events written through `FileWriter` (frames of 1 MiB,
//!   checksum and schema text in each, into a file) beside the same events
//!   as one bare batch written to a file; read back across frames beside
//!   the bare batch read from memory.
//! * A shard of 1,000 records, each a label and a 3×224×224 f32 image, in
//!   one indexed frame of a memory-mapped file: every array listed by name,
//!   one viewed in place, one copied out (beside a memory copy of the same
//!   bytes), and the same 1,000 tensors in one safetensors file, mapped.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kiln::file::{FileOptions, FileWriter, KilnFile};
use kiln::frame::FrameOptions;
use kiln::{Array, ArrayView};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, kiln::Schema, Clone)]
struct LogEvent {
    seq: u64,
    level: u8,
    source: String,
    message: String,
    latency_us: u32,
}

/// Under `cargo test --benches` (no `--bench` argument) criterion runs
/// each benchmark once, to check it; the data is then kept small.
fn checking_only() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

fn events() -> Vec<LogEvent> {
    let n = if checking_only() { 10_000 } else { 1_000_000 };
    (0..n)
        .map(|seq| LogEvent {
            seq,
            level: (seq % 4) as u8,
            source: ["api", "db", "queue"][(seq % 3) as usize].to_owned(),
            message: format!("request {seq} served in {} us", seq * 37 % 5000),
            latency_us: (seq * 37 % 5000) as u32,
        })
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-bench-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write_file(path: &Path, events: &[LogEvent]) {
    write_file_with(path, events, FileOptions::new())
}

fn write_file_with(path: &Path, events: &[LogEvent], options: FileOptions) {
    let _ = std::fs::remove_file(path);
    let mut w: FileWriter<LogEvent> = options.open(path).unwrap();
    for e in events {
        w.push(e).unwrap();
    }
    w.close().unwrap();
}

fn log(c: &mut Criterion) {
    let events = events();
    let bare_path = scratch("bare.kiln");
    let file_path = scratch("log.kiln");
    let mut buf = Vec::new();
    kiln::batch::extend(&mut buf, &events).unwrap();
    let bare = buf.clone();

    let mut g = c.benchmark_group("file-log-1M-write");
    g.sample_size(10);
    g.throughput(Throughput::Elements(events.len() as u64));
    g.bench_function("kiln-bare-batch-to-file", |b| {
        b.iter(|| {
            buf.clear();
            kiln::batch::extend(&mut buf, black_box(&events)).unwrap();
            std::fs::write(&bare_path, &buf).unwrap();
        })
    });
    g.bench_function("kiln-file-writer", |b| {
        b.iter(|| write_file(&file_path, black_box(&events)))
    });
    g.finish();

    write_file(&file_path, &events);
    let file = KilnFile::read(&file_path).unwrap();
    // The same frames without their checksums: what checking them costs.
    let unchecked = FrameOptions::new().embed_schema(true).checksum(false);
    write_file_with(
        &file_path,
        &events,
        FileOptions::new().frame_options(unchecked),
    );
    let unchecked_file = KilnFile::read(&file_path).unwrap();
    let mut g = c.benchmark_group("file-log-1M-read");
    g.sample_size(10);
    g.throughput(Throughput::Elements(events.len() as u64));
    g.bench_function("kiln-bare-batch-slice", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for e in kiln::batch::from_slice::<LogEvent>(black_box(&bare)) {
                n += e.unwrap().seq;
            }
            n
        })
    });
    g.bench_function("kiln-file-records-slice", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for e in black_box(&file).records::<LogEvent>() {
                n += e.unwrap().seq;
            }
            n
        })
    });
    g.bench_function("kiln-file-records-slice-no-checksum", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for e in black_box(&unchecked_file).records::<LogEvent>() {
                n += e.unwrap().seq;
            }
            n
        })
    });
    g.bench_function("kiln-file-reader-stream", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for e in kiln::file::Reader::<_, LogEvent>::new(black_box(file.bytes())) {
                n += e.unwrap().seq;
            }
            n
        })
    });
    g.finish();
    let _ = std::fs::remove_file(&bare_path);
    let _ = std::fs::remove_file(&file_path);
}

#[derive(Serialize, kiln::Schema)]
struct Sample {
    label: String,
    image: Array<f32>,
}

/// Records in the shard (a few when only checking).
fn records() -> u64 {
    if checking_only() { 8 } else { 1000 }
}
const SHAPE: [usize; 3] = [3, 224, 224];

fn image(i: u64) -> Vec<f32> {
    let n: usize = SHAPE.iter().product();
    (0..n).map(|p| ((p as u64 + i) % 251) as f32).collect()
}

fn shard(c: &mut Criterion) {
    let kiln_path = scratch("shard.kiln");
    let st_path = scratch("shard.safetensors");
    let _ = std::fs::remove_file(&kiln_path);
    let mut w: FileWriter<Sample> = FileOptions::new()
        .frame_bytes(usize::MAX)
        .open(&kiln_path)
        .unwrap();
    let mut images = Vec::new();
    for i in 0..records() {
        let img = image(i);
        w.push(&Sample {
            label: format!("sample-{i:04}"),
            image: Array::from_shape_vec(SHAPE.to_vec(), img.clone()).unwrap(),
        })
        .unwrap();
        images.push(img);
    }
    w.close().unwrap();
    {
        use safetensors::Dtype;
        use safetensors::tensor::TensorView;
        let names: Vec<String> = (0..records()).map(|i| format!("{i}.image")).collect();
        let views: Vec<(String, TensorView<'_>)> = names
            .iter()
            .zip(&images)
            .map(|(n, img)| {
                let v = TensorView::new(Dtype::F32, SHAPE.to_vec(), bytemuck::cast_slice(img));
                (n.clone(), v.unwrap())
            })
            .collect();
        safetensors::serialize_to_file(views, None, &st_path).unwrap();
    }
    drop(images);
    // SAFETY: the benchmark's own files; nothing changes them while mapped.
    let file = unsafe { KilnFile::map(&kiln_path) }.unwrap();
    let st_file = std::fs::File::open(&st_path).unwrap();
    // SAFETY: as above.
    let st_map = unsafe { memmap2::Mmap::map(&st_file) }.unwrap();
    let block = SHAPE.iter().product::<usize>() * 4;
    let mid = records() / 2;
    let st_name = format!("{mid}.image");

    let mut g = c.benchmark_group("file-shard-1000x3x224x224");
    g.bench_function("kiln-open-map", |b| {
        // SAFETY: as above.
        b.iter(|| unsafe { KilnFile::map(black_box(&kiln_path)) }.unwrap())
    });
    g.bench_function("kiln-list-by-name", |b| {
        b.iter(|| black_box(&file).arrays().unwrap().len())
    });
    g.bench_function("safetensors-open-list", |b| {
        b.iter(|| {
            let st = safetensors::SafeTensors::deserialize(black_box(&st_map)).unwrap();
            st.names().len()
        })
    });
    g.bench_function("kiln-view-by-name", |b| {
        b.iter(|| {
            let v: ArrayView<'_, f32> = black_box(&file).array_view(mid, "image").unwrap();
            v.data().len()
        })
    });
    g.bench_function("kiln-view-by-index", |b| {
        b.iter(|| {
            let v: ArrayView<'_, f32> = black_box(&file).array_view_at(mid, 0).unwrap();
            v.data().len()
        })
    });
    let st = safetensors::SafeTensors::deserialize(&st_map).unwrap();
    g.bench_function("safetensors-view", |b| {
        b.iter(|| black_box(&st).tensor(&st_name).unwrap().data().len())
    });
    g.throughput(Throughput::Bytes(block as u64));
    g.bench_function("kiln-owned", |b| {
        b.iter(|| black_box(&file).array::<f32>(mid, "image").unwrap())
    });
    let view: ArrayView<'_, f32> = file.array_view(mid, "image").unwrap();
    g.bench_function("memcpy", |b| b.iter(|| black_box(view.data()).to_vec()));
    g.bench_function("safetensors-owned", |b| {
        b.iter(|| {
            let t = black_box(&st).tensor(&st_name).unwrap();
            let mut v = vec![0f32; t.data().len() / 4];
            bytemuck::cast_slice_mut::<f32, u8>(&mut v).copy_from_slice(t.data());
            v
        })
    });
    g.finish();
    drop(file);
    let _ = std::fs::remove_file(&kiln_path);
    let _ = std::fs::remove_file(&st_path);
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = log, shard
}
criterion_main!(benches);
