//! A batch of 1,000,000 Points written and read by Kiln, by a hand-written
//! loop over the same bytes (the limit), and by serde_json and rmp-serde
//! arrays of the same structs; and a framed single Point against a bare one.
//!
//! Run: `cargo bench --bench batch`. Short run:
//! `cargo bench --bench batch -- --warm-up-time 1 --measurement-time 2`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy, kiln::Schema)]
struct Point {
    x: i32,
    y: i32,
}

const N: usize = 1_000_000;

fn points() -> Vec<Point> {
    (0..N as i32)
        .map(|i| Point {
            x: i,
            y: i.wrapping_mul(-7),
        })
        .collect()
}

fn hand_write(points: &[Point], out: &mut Vec<u8>) {
    for p in points {
        out.extend_from_slice(&p.x.to_le_bytes());
        out.extend_from_slice(&p.y.to_le_bytes());
    }
}

fn hand_read(bytes: &[u8], out: &mut Vec<Point>) {
    for c in bytes.chunks_exact(8) {
        out.push(Point {
            x: i32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            y: i32::from_le_bytes([c[4], c[5], c[6], c[7]]),
        });
    }
}

fn write(c: &mut Criterion) {
    let pts = points();
    let mut g = c.benchmark_group("batch-1M-points-write");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = Vec::with_capacity(N * 40);
    g.bench_function("hand-loop", |b| {
        b.iter(|| {
            out.clear();
            hand_write(black_box(&pts), &mut out);
            black_box(out.len())
        })
    });
    g.bench_function("kiln-batch", |b| {
        b.iter(|| {
            out.clear();
            kiln::batch::extend(&mut out, black_box(&pts)).unwrap();
            black_box(out.len())
        })
    });
    let framed = kiln::frame::FrameOptions::new();
    g.bench_function("kiln-frame-crc", |b| {
        b.iter(|| {
            out.clear();
            framed
                .batch_extend::<Point, _>(&mut out, black_box(&pts))
                .unwrap();
            black_box(out.len())
        })
    });
    g.bench_function("kiln-frame-streamed-io-write", |b| {
        b.iter(|| {
            out.clear();
            let mut w = framed.batch_writer::<_, Point>(&mut out).unwrap();
            for p in black_box(&pts) {
                w.push(p).unwrap();
            }
            w.finish().unwrap();
            black_box(out.len())
        })
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| {
            out.clear();
            serde_json::to_writer(&mut out, black_box(&pts)).unwrap();
            black_box(out.len())
        })
    });
    g.bench_function("rmp-serde", |b| {
        b.iter(|| {
            out.clear();
            rmp_serde::encode::write(&mut out, black_box(&pts)).unwrap();
            black_box(out.len())
        })
    });
    g.finish();
}

fn read(c: &mut Criterion) {
    let pts = points();
    let bare = kiln::batch::to_vec(&pts).unwrap();
    let framed = kiln::frame::batch_to_vec(&pts).unwrap();
    let json = serde_json::to_vec(&pts).unwrap();
    let rmp = rmp_serde::to_vec(&pts).unwrap();
    let mut g = c.benchmark_group("batch-1M-points-read");
    g.throughput(Throughput::Elements(N as u64));
    let mut out: Vec<Point> = Vec::with_capacity(N);
    g.bench_function("hand-loop", |b| {
        b.iter(|| {
            out.clear();
            hand_read(black_box(&bare), &mut out);
            black_box(out.len())
        })
    });
    g.bench_function("kiln-batch-slice", |b| {
        b.iter(|| {
            out.clear();
            for p in kiln::batch::from_slice::<Point>(black_box(&bare)) {
                out.push(p.unwrap());
            }
            black_box(out.len())
        })
    });
    g.bench_function("kiln-frame-crc-slice", |b| {
        b.iter(|| {
            out.clear();
            for p in kiln::frame::batch_from_slice::<Point>(black_box(&framed)).unwrap() {
                out.push(p.unwrap());
            }
            black_box(out.len())
        })
    });
    g.bench_function("kiln-frame-crc-io-read", |b| {
        b.iter(|| {
            out.clear();
            for p in kiln::frame::batch_from_reader::<_, Point>(black_box(&framed[..])).unwrap() {
                out.push(p.unwrap());
            }
            black_box(out.len())
        })
    });
    // Context for the hand loop: the fastest serde format on the same
    // records, fixed-width like Kiln (bincode's legacy configuration).
    let fixed = bincode::config::legacy();
    let bin = bincode::serde::encode_to_vec(&pts, fixed).unwrap();
    g.bench_function("bincode-fixed-vec", |b| {
        b.iter(|| {
            let (v, _): (Vec<Point>, _) =
                bincode::serde::decode_from_slice(black_box(&bin), fixed).unwrap();
            black_box(v)
        })
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| black_box(serde_json::from_slice::<Vec<Point>>(black_box(&json)).unwrap()))
    });
    g.bench_function("rmp-serde", |b| {
        b.iter(|| black_box(rmp_serde::from_slice::<Vec<Point>>(black_box(&rmp)).unwrap()))
    });
    g.finish();
}

fn single(c: &mut Criterion) {
    let p = Point { x: 9, y: -4 };
    let bare = kiln::to_vec(&p).unwrap();
    let framed = kiln::frame::to_vec(&p).unwrap();
    let mut g = c.benchmark_group("single-point");
    g.bench_function("bare-to_vec", |b| {
        b.iter(|| kiln::to_vec(black_box(&p)).unwrap())
    });
    g.bench_function("framed-to_vec", |b| {
        b.iter(|| kiln::frame::to_vec(black_box(&p)).unwrap())
    });
    g.bench_function("bare-from_slice", |b| {
        b.iter(|| kiln::from_slice::<Point>(black_box(&bare)).unwrap())
    });
    g.bench_function("framed-from_slice", |b| {
        b.iter(|| kiln::frame::from_slice::<Point>(black_box(&framed)).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = write, read, single
}
criterion_main!(benches);
