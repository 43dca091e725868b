//! Blocks of numbers, and sequences of `[f32; 3]` records: Kiln against a plain memory copy of the same bytes
//! (the limit) and against bincode 2 (serde API), postcard, rmp-serde and
//! serde_json, writing into reused buffers and reading from slices.
//!
//! Run: `cargo bench --bench block -- --warm-up-time 1 --measurement-time 3`.
//! Throughput is the size of the numbers themselves (not of each format's
//! encoding), so GB/s compare like with like.

use std::hint::black_box;

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
struct TwoVectors {
    x: Vec<f32>,
    y: Vec<f32>,
}

fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// One value, every library, write and read.
fn compare<T>(c: &mut Criterion, name: &str, value: &T, raw: &[&[u8]])
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let bytes: usize = raw.iter().map(|r| r.len()).sum();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(20);

    baseline(&mut group, raw);

    // Every serializer writes into a buffer reused across iterations.
    let mut buf = Vec::new();
    kiln::to_vec_into(value, &mut buf).unwrap();
    group.bench_function("write/kiln", |b| {
        b.iter(|| {
            buf.clear();
            kiln::to_vec_into(black_box(value), &mut buf).unwrap();
            black_box(buf.len())
        })
    });
    // The same into a slice of the right size (`to_slice`): the Vec path
    // should be as fast once its capacity is there.
    let mut slice = vec![0u8; buf.len()];
    group.bench_function("write-slice/kiln", |b| {
        b.iter(|| black_box(kiln::to_slice(black_box(value), &mut slice).unwrap().len()))
    });
    let enc = kiln::to_vec(value).unwrap();
    assert_eq!(&kiln::from_slice::<T>(&enc).unwrap(), value);
    group.bench_function("read/kiln", |b| {
        b.iter(|| kiln::from_slice::<T>(black_box(&enc)).unwrap())
    });

    group.bench_function("write/bincode", |b| {
        b.iter(|| {
            buf.clear();
            bincode::serde::encode_into_std_write(black_box(value), &mut buf, bincode_config())
                .unwrap();
            black_box(buf.len())
        })
    });
    let enc = bincode::serde::encode_to_vec(value, bincode_config()).unwrap();
    group.bench_function("read/bincode", |b| {
        b.iter(|| {
            bincode::serde::decode_from_slice::<T, _>(black_box(&enc), bincode_config())
                .unwrap()
                .0
        })
    });

    group.bench_function("write/postcard", |b| {
        b.iter(|| {
            buf.clear();
            buf = postcard::to_extend(black_box(value), std::mem::take(&mut buf)).unwrap();
            black_box(buf.len())
        })
    });
    let enc = postcard::to_allocvec(value).unwrap();
    group.bench_function("read/postcard", |b| {
        b.iter(|| postcard::from_bytes::<T>(black_box(&enc)).unwrap())
    });

    group.bench_function("write/rmp-serde", |b| {
        b.iter(|| {
            buf.clear();
            rmp_serde::encode::write(&mut buf, black_box(value)).unwrap();
            black_box(buf.len())
        })
    });
    let enc = rmp_serde::to_vec(value).unwrap();
    group.bench_function("read/rmp-serde", |b| {
        b.iter(|| rmp_serde::from_slice::<T>(black_box(&enc)).unwrap())
    });

    group.bench_function("write/serde_json", |b| {
        b.iter(|| {
            buf.clear();
            serde_json::to_writer(&mut buf, black_box(value)).unwrap();
            black_box(buf.len())
        })
    });
    let enc = serde_json::to_vec(value).unwrap();
    group.bench_function("read/serde_json", |b| {
        b.iter(|| serde_json::from_slice::<T>(black_box(&enc)).unwrap())
    });

    group.finish();
}

/// The limit: copying the same bytes. Writing copies into a reused buffer;
/// reading allocates a new vector and copies into it, as a decoder must.
fn baseline(group: &mut BenchmarkGroup<'_, WallTime>, raw: &[&[u8]]) {
    let mut dst: Vec<Vec<u8>> = raw.iter().map(|r| vec![0u8; r.len()]).collect();
    group.bench_function("write/memcpy", |b| {
        b.iter(|| {
            for (d, s) in dst.iter_mut().zip(raw) {
                d.copy_from_slice(black_box(s));
            }
            black_box(&dst);
        })
    });
    group.bench_function("read/memcpy", |b| {
        b.iter(|| {
            raw.iter()
                .map(|s| black_box(*s).to_vec())
                .collect::<Vec<Vec<u8>>>()
        })
    });
}

fn bytes_of<T: kiln::block::Element>(v: &[T]) -> &[u8] {
    kiln::block::native_bytes(v)
}

fn blocks(c: &mut Criterion) {
    let small: Vec<f32> = (0..16 * 1024).map(|i| i as f32 * 0.5 - 7.25).collect();
    compare(c, "vec_f32_64KiB", &small, &[bytes_of(&small)]);

    let f32s: Vec<f32> = (0..1024 * 1024).map(|i| (i as f32).sin()).collect();
    compare(c, "vec_f32_4MiB", &f32s, &[bytes_of(&f32s)]);

    let f64s: Vec<f64> = (0..512 * 1024).map(|i| (i as f64).cos()).collect();
    compare(c, "vec_f64_4MiB", &f64s, &[bytes_of(&f64s)]);

    let u8s: Vec<u8> = (0..16 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    compare(c, "vec_u8_16MiB", &u8s, &[&u8s]);

    // Records of numbers (spec 4.4.1): fixed arrays need nothing.
    let vectors: Vec<[f32; 3]> = (0..4 * 1024 * 1024 / 12)
        .map(|i| [i as f32, (i as f32).sin(), -(i as f32)])
        .collect();
    let raw: &[u8] = bytemuck::cast_slice(&vectors);
    compare(c, "vec_f32x3_4MiB", &vectors, &[raw]);

    let two = TwoVectors {
        x: (0..512 * 1024).map(|i| i as f32).collect(),
        y: (0..512 * 1024).map(|i| -(i as f32)).collect(),
    };
    compare(
        c,
        "struct_two_f32_2x2MiB",
        &two,
        &[bytes_of(&two.x), bytes_of(&two.y)],
    );
}

criterion::criterion_group!(benches, blocks);
criterion::criterion_main!(benches);
