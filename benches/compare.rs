//! Kiln against serde_json, rmp-serde, bincode 2 (serde API) and postcard
//! on the datasets of issue 6.
//!
//! Run everything (about 6 minutes of measuring on a 2-core machine, plus about
//! 3 minutes of LTO build: 9 minutes in all):
//!
//! ```text
//! cargo bench --bench compare
//! python3 benches/report.py          # writes docs/benchmarks.md and .svg
//! ```
//!
//! Or a part, with criterion's filter and shorter times:
//!
//! ```text
//! cargo bench --bench compare -- 'log/|points/' --warm-up-time 1 --measurement-time 2
//! ```
//!
//! Benchmark ids are `<dataset>/<direction>/<library>`, with directions
//! `serialize` (into a reused `Vec<u8>`), `deserialize` (owned, from a
//! slice), `deserialize-reader` (owned, from `&[u8]` used as `io::Read`) and
//! `deserialize-borrowed` (strings and bytes borrowed from the slice; only
//! for datasets that have a borrowing type). Every row of a dataset uses
//! the same throughput figure, the size of the *Kiln* encoding, so bytes per
//! second compare like times do. Each library's own encoded size is written
//! to `target/kiln-bench/sizes.json`.
//!
//! Library settings: bincode `config::standard()` (its default: varints),
//! rmp-serde `encode::write` (structs as arrays, no field names), postcard's
//! defaults, serde_json compact.

mod datasets;

use std::hint::black_box;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned};

use datasets::rng_for;

/// The libraries measured, in table order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lib {
    Kiln,
    Bincode,
    Postcard,
    Rmp,
    Json,
}

const LIBS: [Lib; 5] = [Lib::Kiln, Lib::Bincode, Lib::Postcard, Lib::Rmp, Lib::Json];

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Kiln => "kiln",
            Lib::Bincode => "bincode",
            Lib::Postcard => "postcard",
            Lib::Rmp => "rmp-serde",
            Lib::Json => "serde_json",
        }
    }
}

/// bincode 2's `Writer` over a reused `Vec<u8>`: the same appends its own
/// `encode_to_vec` does, without allocating a new vector each time.
struct VecWriter<'a>(&'a mut Vec<u8>);

impl bincode::enc::write::Writer for VecWriter<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), bincode::error::EncodeError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes `value` with `lib` into `buf`, which is cleared first and keeps
/// its capacity from one call to the next.
#[inline]
fn encode<T: Serialize + ?Sized>(lib: Lib, value: &T, buf: &mut Vec<u8>) {
    buf.clear();
    match lib {
        Lib::Kiln => kiln::to_vec_into(value, buf).unwrap(),
        Lib::Bincode => {
            bincode::serde::encode_into_writer(value, VecWriter(buf), bincode_config()).unwrap()
        }
        Lib::Postcard => {
            let taken = std::mem::take(buf);
            *buf = postcard::to_extend(value, taken).unwrap();
        }
        Lib::Rmp => rmp_serde::encode::write(buf, value).unwrap(),
        Lib::Json => serde_json::to_writer(&mut *buf, value).unwrap(),
    }
}

/// Decodes an owned value from a slice.
#[inline]
fn decode<T: DeserializeOwned>(lib: Lib, bytes: &[u8]) -> T {
    match lib {
        Lib::Kiln => kiln::from_slice(bytes).unwrap(),
        Lib::Bincode => {
            bincode::serde::decode_from_slice(bytes, bincode_config())
                .unwrap()
                .0
        }
        Lib::Postcard => postcard::from_bytes(bytes).unwrap(),
        Lib::Rmp => rmp_serde::from_slice(bytes).unwrap(),
        Lib::Json => serde_json::from_slice(bytes).unwrap(),
    }
}

/// Decodes an owned value from `bytes` used as an `io::Read`. postcard
/// needs a scratch buffer for strings and byte strings; it is reused.
#[inline]
fn decode_reader<T: DeserializeOwned>(lib: Lib, mut bytes: &[u8], scratch: &mut [u8]) -> T {
    match lib {
        Lib::Kiln => kiln::from_reader(bytes).unwrap(),
        Lib::Bincode => bincode::serde::decode_from_std_read(&mut bytes, bincode_config()).unwrap(),
        Lib::Postcard => postcard::from_io((bytes, scratch)).unwrap().0,
        Lib::Rmp => rmp_serde::from_read(bytes).unwrap(),
        Lib::Json => serde_json::from_reader(bytes).unwrap(),
    }
}

/// Decodes a value that borrows from `bytes`.
#[inline]
fn decode_borrowed<'a, T: Deserialize<'a>>(lib: Lib, bytes: &'a [u8]) -> T {
    match lib {
        Lib::Kiln => kiln::from_slice(bytes).unwrap(),
        Lib::Bincode => {
            bincode::serde::borrow_decode_from_slice(bytes, bincode_config())
                .unwrap()
                .0
        }
        Lib::Postcard => postcard::from_bytes(bytes).unwrap(),
        Lib::Rmp => rmp_serde::from_slice(bytes).unwrap(),
        Lib::Json => serde_json::from_slice(bytes).unwrap(),
    }
}

/// A type that borrows from its input, for any lifetime.
trait Borrowing {
    type Of<'a>: Deserialize<'a> + Serialize;
    /// Libraries that cannot produce it (serde_json has no borrowed bytes).
    const SKIP: &'static [Lib] = &[];
}

struct NoBorrowed;
impl Borrowing for NoBorrowed {
    type Of<'a> = ();
}

struct LogRefs;
impl Borrowing for LogRefs {
    type Of<'a> = Vec<datasets::log::LogRef<'a>>;
}

struct PacketRefs;
impl Borrowing for PacketRefs {
    type Of<'a> = Vec<datasets::network::PacketRef<'a>>;
    const SKIP: &'static [Lib] = &[Lib::Json];
}

/// Encoded sizes, per dataset, per library, in run order.
#[derive(Default)]
struct Sizes(Vec<(&'static str, Vec<(Lib, usize)>)>);

impl Sizes {
    /// Writes `target/kiln-bench/sizes.json` for `benches/report.py`.
    fn save(&self) -> std::io::Result<()> {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target"));
        let dir = target.join("kiln-bench");
        std::fs::create_dir_all(&dir)?;
        let mut out = String::from("{\n");
        for (i, (dataset, sizes)) in self.0.iter().enumerate() {
            let entries: Vec<String> = sizes
                .iter()
                .map(|(lib, size)| format!("\"{}\": {size}", lib.name()))
                .collect();
            let comma = if i + 1 < self.0.len() { "," } else { "" };
            out += &format!("  \"{dataset}\": {{{}}}{comma}\n", entries.join(", "));
        }
        out += "}\n";
        std::fs::File::create(dir.join("sizes.json"))?.write_all(out.as_bytes())
    }
}

/// Runs every row of one dataset.
fn bench_dataset<T, B>(c: &mut Criterion, sizes: &mut Sizes, name: &'static str, value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
    B: Borrowing,
{
    // Encode once per library: the inputs of the read rows, and the sizes.
    let encoded: Vec<(Lib, Vec<u8>)> = LIBS
        .iter()
        .map(|&lib| {
            let mut buf = Vec::new();
            encode(lib, value, &mut buf);
            (lib, buf)
        })
        .collect();
    sizes.0.push((
        name,
        encoded.iter().map(|(lib, b)| (*lib, b.len())).collect(),
    ));
    // Saved after every dataset, so an interrupted run still has its sizes.
    sizes.save().expect("writing target/kiln-bench/sizes.json");
    let kiln_size = encoded[0].1.len() as u64;
    let mut scratch = vec![0u8; 256 << 10];

    // Every library must give the value back, or its numbers mean nothing.
    for (lib, bytes) in &encoded {
        assert_eq!(
            &decode::<T>(*lib, bytes),
            value,
            "{name}: {lib:?} round trip"
        );
        assert_eq!(
            &decode_reader::<T>(*lib, bytes, &mut scratch),
            value,
            "{name}: {lib:?} reader round trip"
        );
    }

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(kiln_size));
    group.sampling_mode(SamplingMode::Flat);

    for (lib, _) in &encoded {
        let mut buf = Vec::new();
        group.bench_function(format!("serialize/{}", lib.name()), |b| {
            b.iter(|| encode(*lib, black_box(value), &mut buf))
        });
    }
    for (lib, bytes) in &encoded {
        group.bench_function(format!("deserialize/{}", lib.name()), |b| {
            b.iter(|| decode::<T>(*lib, black_box(bytes)))
        });
    }
    for (lib, bytes) in &encoded {
        group.bench_function(format!("deserialize-reader/{}", lib.name()), |b| {
            b.iter(|| decode_reader::<T>(*lib, black_box(bytes), &mut scratch))
        });
    }
    if std::any::type_name::<B>() != std::any::type_name::<NoBorrowed>() {
        bench_borrowed::<B>(&mut group, &encoded);
    }
    group.finish();
}

fn bench_borrowed<B: Borrowing>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    encoded: &[(Lib, Vec<u8>)],
) {
    for (lib, bytes) in encoded {
        if B::SKIP.contains(lib) {
            continue;
        }
        // The borrowed value must encode back to the very same bytes.
        let mut again = Vec::new();
        encode(*lib, &decode_borrowed::<B::Of<'_>>(*lib, bytes), &mut again);
        assert!(&again == bytes, "{lib:?}: borrowed round trip");
        group.bench_function(format!("deserialize-borrowed/{}", lib.name()), |b| {
            b.iter(|| decode_borrowed::<B::Of<'_>>(*lib, black_box(bytes)))
        });
    }
}

fn main() {
    // Defaults chosen so that the whole run stays near 8 minutes on two
    // cores; command-line options (--measurement-time, --sample-size, a
    // filter) override them.
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(10)
        .nresamples(10_000)
        .without_plots()
        .configure_from_args();
    let mut sizes = Sizes::default();

    let log = datasets::log::generate(&mut rng_for("log"), 10_000);
    bench_dataset::<_, LogRefs>(&mut c, &mut sizes, "log", &log);
    drop(log);

    let mesh = datasets::mesh::generate(&mut rng_for("mesh"), 125_000);
    bench_dataset::<_, NoBorrowed>(&mut c, &mut sizes, "mesh", &mesh);
    drop(mesh);

    let save = datasets::savegame::generate(&mut rng_for("savegame"), 500);
    bench_dataset::<_, NoBorrowed>(&mut c, &mut sizes, "savegame", &save);
    drop(save);

    let net = datasets::network::generate(&mut rng_for("network"), 10_000);
    bench_dataset::<_, PacketRefs>(&mut c, &mut sizes, "network", &net);
    drop(net);

    let points = datasets::points::generate(&mut rng_for("points"), 1_000_000);
    bench_dataset::<_, NoBorrowed>(&mut c, &mut sizes, "points", &points);
    drop(points);

    let tensor = datasets::tensors::generate(&mut rng_for("tensors"), 4 << 20);
    bench_dataset::<_, NoBorrowed>(&mut c, &mut sizes, "tensors", &tensor);
    drop(tensor);

    c.final_summary();
}
