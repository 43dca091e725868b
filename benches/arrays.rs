//! A training sample: a 3×224×224 f32 image and a 224×224 u8 mask.
//!
//! Kiln (owned arrays and in-place views) against safetensors on the same
//! arrays, bincode 2 and rmp-serde with the arrays as plain vectors, and a
//! plain memory copy of the same bytes (the limit for owned reads).
//! Writers fill reused buffers where the library allows it (safetensors
//! returns a new `Vec`).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kiln::array::AlignedBytes;
use kiln::{Array, ArrayView};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Sample {
    image: Array<f32>,
    mask: Array<u8>,
}

#[derive(Deserialize)]
struct SampleView<'a> {
    #[serde(borrow)]
    image: ArrayView<'a, f32>,
    #[serde(borrow)]
    mask: ArrayView<'a, u8>,
}

#[derive(Serialize, Deserialize)]
struct Plain {
    image_shape: Vec<u64>,
    image: Vec<f32>,
    mask_shape: Vec<u64>,
    mask: Vec<u8>,
}

fn sample() -> Sample {
    let image: Vec<f32> = (0..3 * 224 * 224)
        .map(|i| (i % 251) as f32 / 251.0)
        .collect();
    let mask: Vec<u8> = (0..224 * 224).map(|i| (i % 7 == 0) as u8).collect();
    Sample {
        image: Array::from_shape_vec(vec![3, 224, 224], image).unwrap(),
        mask: Array::from_shape_vec(vec![224, 224], mask).unwrap(),
    }
}

fn plain(s: &Sample) -> Plain {
    Plain {
        image_shape: vec![3, 224, 224],
        image: s.image.data().to_vec(),
        mask_shape: vec![224, 224],
        mask: s.mask.data().to_vec(),
    }
}

fn safetensors_bytes(s: &Sample) -> Vec<u8> {
    use safetensors::Dtype;
    use safetensors::tensor::TensorView;
    let image = TensorView::new(
        Dtype::F32,
        vec![3, 224, 224],
        bytemuck::cast_slice(s.image.data()),
    )
    .unwrap();
    let mask = TensorView::new(Dtype::U8, vec![224, 224], s.mask.data()).unwrap();
    safetensors::serialize([("image", image), ("mask", mask)], None).unwrap()
}

fn bench(c: &mut Criterion) {
    let s = sample();
    let p = plain(&s);
    let payload = (s.image.len() * 4 + s.mask.len()) as u64;
    let kiln_bytes = kiln::to_vec(&s).unwrap();
    let kiln_aligned = AlignedBytes::from_slice(&kiln_bytes);
    let st_bytes = safetensors_bytes(&s);
    let st_aligned = AlignedBytes::from_slice(&st_bytes);
    let bincode_bytes = bincode::serde::encode_to_vec(&p, bincode::config::standard()).unwrap();
    let rmp_bytes = rmp_serde::to_vec(&p).unwrap();

    let mut g = c.benchmark_group("arrays/write");
    g.throughput(Throughput::Bytes(payload));
    let mut buf = Vec::with_capacity(kiln_bytes.len() * 2);
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            buf.clear();
            buf.extend_from_slice(bytemuck::cast_slice(black_box(&s).image.data()));
            buf.extend_from_slice(s.mask.data());
            black_box(buf.len())
        })
    });
    g.bench_function("kiln", |b| {
        b.iter(|| {
            buf.clear();
            kiln::to_vec_into(black_box(&s), &mut buf).unwrap();
            black_box(buf.len())
        })
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| black_box(safetensors_bytes(black_box(&s))).len())
    });
    g.bench_function("bincode", |b| {
        b.iter(|| {
            buf.clear();
            bincode::serde::encode_into_std_write(
                black_box(&p),
                &mut buf,
                bincode::config::standard(),
            )
            .unwrap();
            black_box(buf.len())
        })
    });
    g.bench_function("rmp-serde", |b| {
        b.iter(|| {
            buf.clear();
            rmp_serde::encode::write(&mut buf, black_box(&p)).unwrap();
            black_box(buf.len())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("arrays/read_owned");
    g.throughput(Throughput::Bytes(payload));
    g.bench_function("memcpy", |b| {
        let image = &kiln_bytes[64..64 + s.image.len() * 4];
        let mask_at = kiln::array::list(&kiln_bytes).unwrap()[1].byte_range();
        let mask = &kiln_bytes[mask_at.start as usize..mask_at.end as usize];
        b.iter(|| black_box((black_box(image).to_vec(), black_box(mask).to_vec())))
    });
    g.bench_function("kiln", |b| {
        b.iter(|| black_box(kiln::from_slice::<Sample>(black_box(&kiln_bytes)).unwrap()))
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| {
            let st = safetensors::SafeTensors::deserialize(black_box(&st_bytes)).unwrap();
            let image = st.tensor("image").unwrap();
            let mut owned = vec![0f32; image.data().len() / 4];
            bytemuck::cast_slice_mut::<f32, u8>(&mut owned).copy_from_slice(image.data());
            let mask = st.tensor("mask").unwrap().data().to_vec();
            black_box((owned, mask))
        })
    });
    g.bench_function("bincode", |b| {
        b.iter(|| {
            let (v, _): (Plain, usize) = bincode::serde::decode_from_slice(
                black_box(&bincode_bytes),
                bincode::config::standard(),
            )
            .unwrap();
            black_box(v)
        })
    });
    g.bench_function("rmp-serde", |b| {
        b.iter(|| black_box(rmp_serde::from_slice::<Plain>(black_box(&rmp_bytes)).unwrap()))
    });
    g.finish();

    let mut g = c.benchmark_group("arrays/read_view");
    g.bench_function("kiln", |b| {
        b.iter(|| {
            let v: SampleView = kiln::from_slice(black_box(kiln_aligned.as_slice())).unwrap();
            black_box((v.image.data().len(), v.mask.data().len()))
        })
    });
    g.bench_function("kiln_fetch_view", |b| {
        b.iter(|| {
            let v: ArrayView<f32> =
                kiln::array::fetch_view(black_box(kiln_aligned.as_slice()), 0).unwrap();
            black_box(v.data().len())
        })
    });
    // The same record with a 16x larger image: a view costs the same.
    let big = Sample {
        image: Array::zeros(vec![3, 896, 896]).unwrap(),
        mask: Array::zeros(vec![896, 896]).unwrap(),
    };
    let big_aligned = AlignedBytes::from_slice(&kiln::to_vec(&big).unwrap());
    drop(big);
    g.bench_function("kiln_16x_larger", |b| {
        b.iter(|| {
            let v: SampleView = kiln::from_slice(black_box(big_aligned.as_slice())).unwrap();
            black_box((v.image.data().len(), v.mask.data().len()))
        })
    });
    g.bench_function("safetensors", |b| {
        b.iter(|| {
            let st =
                safetensors::SafeTensors::deserialize(black_box(st_aligned.as_slice())).unwrap();
            let image: &[f32] =
                bytemuck::try_cast_slice(st.tensor("image").unwrap().data()).unwrap();
            let mask = st.tensor("mask").unwrap().data();
            black_box((image.len(), mask.len()))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
