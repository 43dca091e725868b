//! Kiln against serde_json, rmp-serde, bincode 2 (serde API), postcard,
//! bitcode (serde API and derive), wincode and rkyv on the datasets of
//! issue 6.
//!
//! Run everything (about 10 minutes of measuring on a 2-core machine, plus
//! the LTO build):
//!
//! ```text
//! cargo bench --bench compare
//! python3 benches/report.py          # writes docs/benchmarks.md and .svg
//! ```
//!
//! `report.py --help` lists how to add the runs under cargo's default
//! release profile and with one codegen unit (each in a target directory
//! of its own, built with `CARGO_PROFILE_BENCH_LTO=false` and
//! `CARGO_PROFILE_BENCH_CODEGEN_UNITS=16` or `1`).
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
//! to `target/kiln-bench/sizes.json`. Before a dataset is measured, every
//! library must decode its own encoding back to the very value.
//!
//! Library settings:
//!
//! - bincode: `config::standard()` (its default: varints), serde API.
//! - rmp-serde: `encode::write` (structs as arrays, no field names).
//! - postcard: defaults. serde_json: compact.
//! - `bitcode-serde`: bitcode's serde API, `bitcode::serialize` and
//!   `bitcode::deserialize`. `serialize` returns a new `Vec<u8>` each time
//!   (it has no form that writes into a given buffer), so this row
//!   allocates its output on every call.
//! - `bitcode`: bitcode's own derive (`bitcode::Encode`/`Decode`) through
//!   one reused `bitcode::Buffer` per row, for writing and reading; written
//!   bytes stay in the buffer (`Buffer::encode` returns a slice of it).
//! - `wincode`: its derive (`SchemaWrite`/`SchemaRead`) with
//!   `Configuration::default()` (fixed-width little-endian integers, `u64`
//!   lengths, `u32` enum tags) but the preallocation limit disabled: the
//!   default limit, 4 MiB per sequence (checked when writing too), refuses
//!   the mesh and points datasets. Writes with `config::serialize_into` into the reused
//!   `Vec<u8>`, reads with `config::deserialize`, and from `io::Read` with
//!   `config::deserialize_from` over `io::std_read::ReadAdapter`.
//! - `rkyv`: 0.8, validated. Writes with `api::high::to_bytes_in` into a
//!   reused `AlignedVec` (and rkyv's thread-local arena, which `to_bytes`
//!   reuses as well); reads with `from_bytes` (validation, then an owned
//!   value). Its input is a copy of its encoding in an `AlignedVec`, made
//!   once: rkyv reads aligned memory only. Its `deserialize-borrowed` row is
//!   `rkyv::access` on the owned type's archive: validation alone, in place,
//!   with no value built (the other libraries build a `Vec` of borrowing
//!   records), so it is not the same work as the other rows of that line.
//!
//! Rows left out: `deserialize-reader` for `bitcode-serde`, `bitcode` and
//! `rkyv` (no `io::Read` path: each reads a whole slice); in
//! `network/deserialize-borrowed`, serde_json (no borrowed bytes),
//! `bitcode-serde` (its `deserialize_bytes` hands out a fresh `Vec<u8>`,
//! never borrowed bytes) and `bitcode` (its derive has no `Decode` for
//! `&[u8]`).

mod datasets;

use std::hint::black_box;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use rkyv::util::AlignedVec;
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
    /// bitcode's serde API.
    BitcodeSerde,
    /// bitcode's derive.
    Bitcode,
    Wincode,
    Rkyv,
}

const LIBS: [Lib; 9] = [
    Lib::Kiln,
    Lib::Bincode,
    Lib::Postcard,
    Lib::Rmp,
    Lib::Json,
    Lib::BitcodeSerde,
    Lib::Bitcode,
    Lib::Wincode,
    Lib::Rkyv,
];

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Kiln => "kiln",
            Lib::Bincode => "bincode",
            Lib::Postcard => "postcard",
            Lib::Rmp => "rmp-serde",
            Lib::Json => "serde_json",
            Lib::BitcodeSerde => "bitcode-serde",
            Lib::Bitcode => "bitcode",
            Lib::Wincode => "wincode",
            Lib::Rkyv => "rkyv",
        }
    }

    /// Whether the library reads from an `io::Read` (the
    /// `deserialize-reader` rows).
    fn has_reader(self) -> bool {
        !matches!(self, Lib::BitcodeSerde | Lib::Bitcode | Lib::Rkyv)
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

/// wincode's default configuration without its preallocation limit.
type WincodeConfig =
    wincode::config::Configuration<true, { wincode::config::PREALLOCATION_SIZE_LIMIT_DISABLED }>;

const WINCODE: WincodeConfig =
    wincode::config::Configuration::default().disable_preallocation_size_limit();

type RkyvError = rkyv::rancor::Error;
type RkyvSerializer<'a> =
    rkyv::api::high::HighSerializer<AlignedVec, rkyv::ser::allocator::ArenaHandle<'a>, RkyvError>;

/// rkyv's high-level, validated API, with its bounds written once.
trait Rkyv: rkyv::Archive + Sized {
    /// Writes into `out`, which is cleared first and keeps its capacity.
    fn rkyv_encode(&self, out: &mut AlignedVec);
    /// `rkyv::from_bytes`: validates, then deserializes.
    fn rkyv_decode(bytes: &[u8]) -> Self;
    /// `rkyv::access`: validates, and reads in place.
    fn rkyv_access(bytes: &[u8]) -> &Self::Archived;
    /// `rkyv::deserialize` of an archive already validated.
    fn rkyv_deserialize(archived: &Self::Archived) -> Self;
}

impl<T> Rkyv for T
where
    T: rkyv::Archive + for<'a> rkyv::Serialize<RkyvSerializer<'a>>,
    T::Archived: for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, RkyvError>>
        + rkyv::Deserialize<T, rkyv::api::high::HighDeserializer<RkyvError>>,
{
    #[inline]
    fn rkyv_encode(&self, out: &mut AlignedVec) {
        let mut vec = std::mem::take(out);
        vec.clear();
        *out = rkyv::api::high::to_bytes_in::<_, RkyvError>(self, vec).unwrap();
    }

    #[inline]
    fn rkyv_decode(bytes: &[u8]) -> Self {
        rkyv::from_bytes::<T, RkyvError>(bytes).unwrap()
    }

    #[inline]
    fn rkyv_access(bytes: &[u8]) -> &Self::Archived {
        rkyv::access::<T::Archived, RkyvError>(bytes).unwrap()
    }

    fn rkyv_deserialize(archived: &Self::Archived) -> Self {
        rkyv::deserialize::<T, RkyvError>(archived).unwrap()
    }
}

/// What every library needs of a dataset's type.
trait Dataset:
    Serialize
    + DeserializeOwned
    + bitcode::Encode
    + bitcode::DecodeOwned
    + wincode::SchemaWrite<WincodeConfig, Src = Self>
    + for<'de> wincode::SchemaRead<'de, WincodeConfig, Dst = Self>
    + Rkyv
    + PartialEq
    + std::fmt::Debug
{
}

impl<T> Dataset for T where
    T: Serialize
        + DeserializeOwned
        + bitcode::Encode
        + bitcode::DecodeOwned
        + wincode::SchemaWrite<WincodeConfig, Src = T>
        + for<'de> wincode::SchemaRead<'de, WincodeConfig, Dst = T>
        + Rkyv
        + PartialEq
        + std::fmt::Debug
{
}

/// What the serializers write into, kept from one call to the next.
#[derive(Default)]
struct Out {
    /// Every library's but bitcode's derive and rkyv.
    vec: Vec<u8>,
    /// bitcode's derive writes into its own buffer.
    bitcode: bitcode::Buffer,
    /// rkyv writes into aligned memory, readable in place.
    rkyv: AlignedVec,
}

/// Encodes `value` with `lib` into `out`, and returns the bytes written.
#[inline]
fn encode<'o, T: Dataset>(lib: Lib, value: &T, out: &'o mut Out) -> &'o [u8] {
    match lib {
        Lib::Bitcode => out.bitcode.encode(value),
        Lib::Rkyv => {
            value.rkyv_encode(&mut out.rkyv);
            &out.rkyv
        }
        _ => encode_vec(lib, value, &mut out.vec),
    }
}

/// Encodes `value` with a library that writes a `Vec<u8>`, into `buf`,
/// which is cleared first and keeps its capacity from one call to the next
/// (but for `bitcode-serde`, which returns a new vector). Also what the
/// borrowing types are written with, which have no rkyv derive.
#[inline]
fn encode_vec<'o, T>(lib: Lib, value: &T, buf: &'o mut Vec<u8>) -> &'o [u8]
where
    T: Serialize + wincode::SchemaWrite<WincodeConfig, Src = T>,
{
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
        Lib::BitcodeSerde => *buf = bitcode::serialize(value).unwrap(),
        Lib::Wincode => wincode::config::serialize_into(&mut *buf, value, WINCODE).unwrap(),
        Lib::Bitcode | Lib::Rkyv => unreachable!("{lib:?} does not write a Vec<u8>"),
    }
    buf
}

/// Decodes an owned value from a slice. `bitcode` is the reused buffer of
/// bitcode's derive.
#[inline]
fn decode<T: Dataset>(lib: Lib, bytes: &[u8], bitcode: &mut bitcode::Buffer) -> T {
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
        Lib::BitcodeSerde => bitcode::deserialize(bytes).unwrap(),
        Lib::Bitcode => bitcode.decode(bytes).unwrap(),
        Lib::Wincode => wincode::config::deserialize(bytes, WINCODE).unwrap(),
        Lib::Rkyv => T::rkyv_decode(bytes),
    }
}

/// Decodes an owned value from `bytes` used as an `io::Read`. postcard
/// needs a scratch buffer for strings and byte strings; it is reused.
#[inline]
fn decode_reader<T: Dataset>(lib: Lib, mut bytes: &[u8], scratch: &mut [u8]) -> T {
    match lib {
        Lib::Kiln => kiln::from_reader(bytes).unwrap(),
        Lib::Bincode => bincode::serde::decode_from_std_read(&mut bytes, bincode_config()).unwrap(),
        Lib::Postcard => postcard::from_io((bytes, scratch)).unwrap().0,
        Lib::Rmp => rmp_serde::from_read(bytes).unwrap(),
        Lib::Json => serde_json::from_reader(bytes).unwrap(),
        Lib::Wincode => wincode::config::deserialize_from(
            wincode::io::std_read::ReadAdapter::new(bytes),
            WINCODE,
        )
        .unwrap(),
        Lib::BitcodeSerde | Lib::Bitcode | Lib::Rkyv => {
            unreachable!("{lib:?} has no io::Read path")
        }
    }
}

/// Decodes a value that borrows from `bytes`. rkyv reads in place instead:
/// see [`Rkyv::rkyv_access`].
#[inline]
fn decode_borrowed<'a, B: Borrowing>(
    lib: Lib,
    bytes: &'a [u8],
    bitcode: &mut bitcode::Buffer,
) -> B::Of<'a> {
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
        Lib::BitcodeSerde => bitcode::deserialize(bytes).unwrap(),
        Lib::Bitcode => B::bitcode_decode(bitcode, bytes),
        Lib::Wincode => wincode::config::deserialize(bytes, WINCODE).unwrap(),
        Lib::Rkyv => unreachable!("rkyv reads in place"),
    }
}

/// A type that borrows from its input, for any lifetime.
trait Borrowing {
    type Of<'a>: Deserialize<'a>
        + Serialize
        + wincode::SchemaWrite<WincodeConfig, Src = Self::Of<'a>>
        + wincode::SchemaRead<'a, WincodeConfig, Dst = Self::Of<'a>>;
    /// Libraries that cannot produce it.
    const SKIP: &'static [Lib] = &[];

    /// bitcode's derive, which cannot borrow bytes (`&[u8]` has no
    /// `bitcode::Decode`), so not every borrowing type has it: those that do
    /// override these two, the others list `Lib::Bitcode` in `SKIP`.
    fn bitcode_decode<'a>(_: &mut bitcode::Buffer, _: &'a [u8]) -> Self::Of<'a> {
        unreachable!("no bitcode derive: Lib::Bitcode belongs in SKIP")
    }
    fn bitcode_encode<'o>(_: &Self::Of<'_>, _: &'o mut bitcode::Buffer) -> &'o [u8] {
        unreachable!("no bitcode derive: Lib::Bitcode belongs in SKIP")
    }
}

struct NoBorrowed;
impl Borrowing for NoBorrowed {
    type Of<'a> = ();
}

struct LogRefs;
impl Borrowing for LogRefs {
    type Of<'a> = Vec<datasets::log::LogRef<'a>>;

    #[inline]
    fn bitcode_decode<'a>(buffer: &mut bitcode::Buffer, bytes: &'a [u8]) -> Self::Of<'a> {
        buffer.decode(bytes).unwrap()
    }
    fn bitcode_encode<'o>(value: &Self::Of<'_>, buffer: &'o mut bitcode::Buffer) -> &'o [u8] {
        buffer.encode(value)
    }
}

struct SaveGameRefs;
impl Borrowing for SaveGameRefs {
    type Of<'a> = datasets::savegame::SaveGameRef<'a>;

    #[inline]
    fn bitcode_decode<'a>(buffer: &mut bitcode::Buffer, bytes: &'a [u8]) -> Self::Of<'a> {
        buffer.decode(bytes).unwrap()
    }
    fn bitcode_encode<'o>(value: &Self::Of<'_>, buffer: &'o mut bitcode::Buffer) -> &'o [u8] {
        buffer.encode(value)
    }
}

struct PacketRefs;
impl Borrowing for PacketRefs {
    type Of<'a> = Vec<datasets::network::PacketRef<'a>>;
    /// serde_json has no borrowed bytes; bitcode's serde API reads bytes
    /// into a new `Vec<u8>` only; bitcode's derive has no `&[u8]`.
    const SKIP: &'static [Lib] = &[Lib::Json, Lib::BitcodeSerde, Lib::Bitcode];
}

/// One library's encoding of a dataset: the input of its read rows.
struct Encoded {
    lib: Lib,
    /// Every library but rkyv reads this.
    bytes: Vec<u8>,
    /// rkyv reads aligned memory only: a copy of `bytes`, made once (empty
    /// for the other libraries).
    aligned: AlignedVec,
}

impl Encoded {
    fn new(lib: Lib, bytes: &[u8]) -> Self {
        let mut aligned = AlignedVec::new();
        if lib == Lib::Rkyv {
            aligned.extend_from_slice(bytes);
        }
        Encoded {
            lib,
            bytes: bytes.to_vec(),
            aligned,
        }
    }

    /// The bytes that the library reads.
    fn input(&self) -> &[u8] {
        if self.lib == Lib::Rkyv {
            &self.aligned
        } else {
            &self.bytes
        }
    }
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
fn bench_dataset<T: Dataset, B: Borrowing>(
    c: &mut Criterion,
    sizes: &mut Sizes,
    name: &'static str,
    value: &T,
) {
    // Encode once per library: the inputs of the read rows, and the sizes.
    let encoded: Vec<Encoded> = LIBS
        .iter()
        .map(|&lib| Encoded::new(lib, encode(lib, value, &mut Out::default())))
        .collect();
    sizes.0.push((
        name,
        encoded.iter().map(|e| (e.lib, e.bytes.len())).collect(),
    ));
    // Saved after every dataset, so an interrupted run still has its sizes.
    sizes.save().expect("writing target/kiln-bench/sizes.json");
    let kiln_size = encoded[0].bytes.len() as u64;
    let mut scratch = vec![0u8; 256 << 10];

    // Every library must give the value back, or its numbers mean nothing.
    for e in &encoded {
        let lib = e.lib;
        assert_eq!(
            &decode::<T>(lib, e.input(), &mut bitcode::Buffer::new()),
            value,
            "{name}: {lib:?} round trip"
        );
        if lib.has_reader() {
            assert_eq!(
                &decode_reader::<T>(lib, e.input(), &mut scratch),
                value,
                "{name}: {lib:?} reader round trip"
            );
        }
    }

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(kiln_size));
    group.sampling_mode(SamplingMode::Flat);

    for e in &encoded {
        let mut out = Out::default();
        group.bench_function(format!("serialize/{}", e.lib.name()), |b| {
            b.iter(|| encode(e.lib, black_box(value), &mut out).len())
        });
    }
    // Into a slice of the right size, for the two libraries that offer it
    // through serde: `kiln::to_slice`, `postcard::to_slice`.
    let mut slice = vec![0u8; encoded.iter().map(|e| e.input().len()).max().unwrap_or(0)];
    group.bench_function("serialize-slice/kiln", |b| {
        b.iter(|| kiln::to_slice(black_box(value), &mut slice).unwrap().len())
    });
    group.bench_function("serialize-slice/postcard", |b| {
        b.iter(|| {
            postcard::to_slice(black_box(value), &mut slice)
                .unwrap()
                .len()
        })
    });
    for e in &encoded {
        let bytes = e.input();
        let mut bitcode = bitcode::Buffer::new();
        group.bench_function(format!("deserialize/{}", e.lib.name()), |b| {
            b.iter(|| decode::<T>(e.lib, black_box(bytes), &mut bitcode))
        });
    }
    for e in encoded.iter().filter(|e| e.lib.has_reader()) {
        let bytes = e.input();
        group.bench_function(format!("deserialize-reader/{}", e.lib.name()), |b| {
            b.iter(|| decode_reader::<T>(e.lib, black_box(bytes), &mut scratch))
        });
    }
    if std::any::type_name::<B>() != std::any::type_name::<NoBorrowed>() {
        bench_borrowed::<T, B>(&mut group, &encoded, value);
    }
    group.finish();
}

fn bench_borrowed<T: Dataset, B: Borrowing>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    encoded: &[Encoded],
    value: &T,
) {
    for e in encoded {
        let (lib, bytes) = (e.lib, e.input());
        if B::SKIP.contains(&lib) {
            continue;
        }
        let id = format!("deserialize-borrowed/{}", lib.name());
        if lib == Lib::Rkyv {
            // The archive, validated and read in place, must hold the value.
            assert_eq!(
                &T::rkyv_deserialize(T::rkyv_access(bytes)),
                value,
                "rkyv: borrowed round trip"
            );
            // The reference returned goes through criterion's black_box.
            group.bench_function(id, |b| b.iter(|| T::rkyv_access(black_box(bytes))));
            continue;
        }
        // The borrowed value must encode back to the very same bytes.
        let mut bitcode = bitcode::Buffer::new();
        let decoded = decode_borrowed::<B>(lib, bytes, &mut bitcode);
        let mut out = Out::default();
        let again = match lib {
            Lib::Bitcode => B::bitcode_encode(&decoded, &mut out.bitcode),
            _ => encode_vec(lib, &decoded, &mut out.vec),
        };
        assert!(again == bytes, "{lib:?}: borrowed round trip");
        drop(decoded);
        group.bench_function(id, |b| {
            b.iter(|| decode_borrowed::<B>(lib, black_box(bytes), &mut bitcode))
        });
    }
}

fn main() {
    // Defaults chosen so that the whole run stays near 10 minutes on two
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

    // The one line a user adds for a struct of numbers (spec 4.4.1).
    kiln::block::register::<datasets::mesh::Triangle>().expect("Triangle is Pod");
    let mesh = datasets::mesh::generate(&mut rng_for("mesh"), 125_000);
    bench_dataset::<_, NoBorrowed>(&mut c, &mut sizes, "mesh", &mesh);
    drop(mesh);

    let save = datasets::savegame::generate(&mut rng_for("savegame"), 500);
    bench_dataset::<_, SaveGameRefs>(&mut c, &mut sizes, "savegame", &save);
    drop(save);

    let net = datasets::network::generate(&mut rng_for("network"), 10_000);
    bench_dataset::<_, PacketRefs>(&mut c, &mut sizes, "network", &net);
    drop(net);

    kiln::block::register::<datasets::points::Point>().expect("Point is Pod");
    let points = datasets::points::generate(&mut rng_for("points"), 1_000_000);
    bench_dataset::<_, NoBorrowed>(&mut c, &mut sizes, "points", &points);
    drop(points);

    let tensor = datasets::tensors::generate(&mut rng_for("tensors"), 4 << 20);
    bench_dataset::<_, NoBorrowed>(&mut c, &mut sizes, "tensors", &tensor);
    drop(tensor);

    c.final_summary();
}
