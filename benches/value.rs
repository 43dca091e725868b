//! Reading without the Rust type (`kiln::value`) beside the typed reader,
//! in one run: the log and mesh datasets decoded to `Value` and to their
//! types, and the log as NDJSON the way `kiln cat --ndjson` prints it
//! against serde_json writing the typed records.
//!
//! Run: `cargo bench --bench value`. Short run:
//! `cargo bench --bench value -- --warm-up-time 1 --measurement-time 3`.

#[allow(dead_code)]
mod datasets;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kiln::value::{self, Plan, Value};

use datasets::log::Log;
use datasets::mesh::Mesh;
use datasets::rng_for;

fn decode(c: &mut Criterion) {
    let log = datasets::log::generate(&mut rng_for("log"), 10_000);
    let log_bytes = kiln::to_vec(&log).unwrap();
    let log_plan = Plan::of::<Vec<Log>>().unwrap();
    let mesh = datasets::mesh::generate(&mut rng_for("mesh"), 125_000);
    let mesh_bytes = kiln::to_vec(&mesh).unwrap();
    let mesh_plan = Plan::of::<Mesh>().unwrap();
    // The value reader reads what the typed one does.
    let v = value::from_slice(&log_bytes, &log_plan).unwrap();
    assert_eq!(value::to_vec(&v, &log_plan).unwrap(), log_bytes);
    let v = value::from_slice(&mesh_bytes, &mesh_plan).unwrap();
    assert_eq!(value::to_vec(&v, &mesh_plan).unwrap(), mesh_bytes);

    let mut g = c.benchmark_group("value-log-decode");
    g.throughput(Throughput::Bytes(log_bytes.len() as u64));
    g.bench_function("typed", |b| {
        b.iter(|| kiln::from_slice::<Vec<Log>>(black_box(&log_bytes)).unwrap())
    });
    g.bench_function("value", |b| {
        b.iter(|| value::from_slice(black_box(&log_bytes), &log_plan).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("value-mesh-decode");
    g.throughput(Throughput::Bytes(mesh_bytes.len() as u64));
    g.bench_function("typed", |b| {
        b.iter(|| kiln::from_slice::<Mesh>(black_box(&mesh_bytes)).unwrap())
    });
    g.bench_function("value", |b| {
        b.iter(|| value::from_slice(black_box(&mesh_bytes), &mesh_plan).unwrap())
    });
    g.finish();
}

/// What `kiln cat --ndjson` does per record, against serde_json writing
/// the typed records it already has.
fn ndjson(c: &mut Criterion) {
    let log = datasets::log::generate(&mut rng_for("log"), 10_000);
    let opts = kiln::frame::FrameOptions::new().embed_schema(true);
    let framed = opts.batch_to_vec(&log).unwrap();
    let mut out = Vec::with_capacity(4 << 20);
    let mut g = c.benchmark_group("value-log-ndjson");
    g.throughput(Throughput::Elements(log.len() as u64));
    g.bench_function("serde_json-typed", |b| {
        b.iter(|| {
            out.clear();
            for r in black_box(&log) {
                serde_json::to_writer(&mut out, r).unwrap();
                out.push(b'\n');
            }
        })
    });
    g.bench_function("kiln-value-serde_json", |b| {
        b.iter(|| {
            out.clear();
            for r in value::frame_records(black_box(&framed), None).unwrap() {
                let r: Value = r.unwrap();
                serde_json::to_writer(&mut out, &r).unwrap();
                out.push(b'\n');
            }
        })
    });
    // What `kiln cat --ndjson` does: JSON printed while the bytes are read.
    g.bench_function("kiln-cat", |b| {
        b.iter(|| {
            out.clear();
            let mut records =
                value::JsonRecords::frame(black_box(&framed[..]), None, &opts).unwrap();
            while let Some(r) = records.next_into(&mut out) {
                r.unwrap();
                out.push(b'\n');
            }
        })
    });
    g.finish();
    // Both print the same lines.
    let mut typed = Vec::new();
    for r in &log {
        serde_json::to_writer(&mut typed, r).unwrap();
        typed.push(b'\n');
    }
    assert_eq!(out, typed);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = decode, ndjson
}
criterion_main!(benches);
