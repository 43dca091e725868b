//! Sequences of records of numbers in one copy (`kiln::block::register`,
//! fixed arrays): the same bytes, values and errors as the element-by-element
//! path on random data, misaligned input, cut-off input, depth limits,
//! registration refusals, frames, and `to_slice`.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

use kiln::ErrorKind;
use quickcheck::QuickCheck;
use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::common::pieces::trickle;

// ----- the element path, forced -------------------------------------------

/// Writes a slice through an iterator that is not `&[T]`, so no layout
/// applies; reads with a visitor of its own, element by element.
#[derive(Debug, PartialEq)]
struct ByElement<T>(Vec<T>);

impl<T: Serialize> Serialize for ByElement<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ByElement<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ByElement<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(e) = seq.next_element()? {
                    out.push(e);
                }
                Ok(ByElement(out))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

/// The records' memory, compared instead of their values (NaN != NaN).
fn mem<T: bytemuck::Pod>(v: &[T]) -> &[u8] {
    bytemuck::cast_slice(v)
}

/// Both paths give the same bytes, and both read them back to `v`.
fn same_both_ways<T>(v: &[T]) -> bool
where
    T: Serialize + DeserializeOwned + bytemuck::Pod + fmt::Debug,
{
    let fast = kiln::to_vec(v).unwrap();
    let slow = kiln::to_vec(&ByElement(v.to_vec())).unwrap();
    let mut sized = vec![0u8; fast.len()];
    let in_slice = kiln::to_slice(v, &mut sized).unwrap().to_vec();
    let back: Vec<T> = kiln::from_slice(&fast).unwrap();
    let back_slow: ByElement<T> = kiln::from_slice(&fast).unwrap();
    let streamed: Vec<T> = kiln::from_reader(trickle(&fast)).unwrap();
    fast == slow
        && in_slice == fast
        && mem(&back) == mem(v)
        && mem(&back_slow.0) == mem(v)
        && mem(&streamed) == mem(v)
}

/// `n` records of `T` built from the random numbers in `seed`.
fn records<T: bytemuck::Pod>(seed: &[u64], n: usize) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let mut bytes = Vec::with_capacity(n * size);
    let mut x = seed
        .iter()
        .fold(0x9e37_79b9_7f4a_7c15u64, |a, b| a ^ b.rotate_left(17));
    while bytes.len() < n * size {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    bytes.truncate(n * size);
    bytes
        .chunks_exact(size)
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

// ----- a registered struct that counts its serde calls --------------------

static WRITTEN: AtomicUsize = AtomicUsize::new(0);
static READ: AtomicUsize = AtomicUsize::new(0);

fn count_write<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
    WRITTEN.fetch_add(1, Ordering::Relaxed);
    v.serialize(s)
}

fn count_read<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    READ.fetch_add(1, Ordering::Relaxed);
    u32::deserialize(d)
}

/// A vertex: its memory is its encoding. Its `id` counts serde's calls, so
/// a test can tell which path ran.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
struct Vertex {
    position: [f32; 3],
    normal: [i16; 2],
    #[serde(serialize_with = "count_write", deserialize_with = "count_read")]
    id: u32,
}

/// Nested structs of numbers, two levels deep.
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    bytemuck::Pod,
    bytemuck::Zeroable,
    kiln::Schema,
)]
#[repr(C)]
struct Segment {
    from: Point,
    to: Point,
}

#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    bytemuck::Pod,
    bytemuck::Zeroable,
    kiln::Schema,
)]
#[repr(C)]
struct Point {
    x: f64,
    y: f64,
}

fn register_all() {
    kiln::block::register::<Vertex>().unwrap();
    kiln::block::register::<Segment>().unwrap();
}

#[test]
fn arrays_of_numbers_need_no_registration() {
    // On a big-endian host nothing takes the one-copy path.
    let little = cfg!(target_endian = "little");
    assert_eq!(kiln::block::registered::<[f32; 3]>(), little);
    assert_eq!(kiln::block::registered::<[[f64; 4]; 4]>(), little);
    assert_eq!(kiln::block::registered::<[u8; 32]>(), little);
    assert!(!kiln::block::registered::<[f32; 17]>());
    assert!(!kiln::block::registered::<(f32, f32, f32)>());
    // The golden bytes of chapter 3: a count, then the numbers in order.
    let v = vec![[1.0f32, 2.0, 3.0], [-1.0, 0.5, 0.0]];
    let bytes = kiln::to_vec(&v).unwrap();
    let mut expected = vec![2, 0, 0, 0];
    for x in v.iter().flatten() {
        expected.extend_from_slice(&x.to_le_bytes());
    }
    assert_eq!(bytes, expected);
}

#[test]
fn random_arrays_match_the_element_path() {
    fn prop(seed: Vec<u64>, n: u8) -> bool {
        let n = n as usize;
        same_both_ways(&records::<[f32; 3]>(&seed, n))
            && same_both_ways(&records::<[[f64; 4]; 4]>(&seed, n))
            && same_both_ways(&records::<[u8; 5]>(&seed, n))
            && same_both_ways(&records::<[[i16; 2]; 3]>(&seed, n))
            && same_both_ways(&records::<[u128; 2]>(&seed, n))
            && same_both_ways(&records::<[i64; 32]>(&seed, n % 8))
    }
    QuickCheck::new()
        .tests(crate::common::cases(200))
        .quickcheck(prop as fn(Vec<u64>, u8) -> bool);
}

#[test]
fn random_registered_structs_match_the_element_path() {
    register_all();
    fn prop(seed: Vec<u64>, n: u8) -> bool {
        // Under Miri (CI's big-endian run) up to 31 records: each one read
        // element by element costs it a fraction of a second.
        let n = if cfg!(miri) {
            n as usize % 32
        } else {
            n as usize
        };
        same_both_ways(&records::<Vertex>(&seed, n))
            && same_both_ways(&records::<Segment>(&seed, n))
    }
    QuickCheck::new()
        .tests(crate::common::cases(200))
        .quickcheck(prop as fn(Vec<u64>, u8) -> bool);
}

#[test]
fn registered_structs_are_copied_without_their_serde_impls() {
    register_all();
    let n = if cfg!(miri) { 300 } else { 1000 };
    let mesh = records::<Vertex>(&[7], n);
    // Other tests run in parallel and count too; this one looks for a
    // change far smaller than the `n` calls of the element path.
    let before = (
        WRITTEN.load(Ordering::Relaxed),
        READ.load(Ordering::Relaxed),
    );
    let bytes = kiln::to_vec(&mesh).unwrap();
    let back: Vec<Vertex> = kiln::from_slice(&bytes).unwrap();
    let after = (
        WRITTEN.load(Ordering::Relaxed),
        READ.load(Ordering::Relaxed),
    );
    assert_eq!(mem(&back), mem(&mesh));
    // On a big-endian host every record goes through its impls.
    let one_copy = cfg!(target_endian = "little");
    assert_eq!(
        after.0 - before.0 < n / 2,
        one_copy,
        "written element by element"
    );
    assert_eq!(
        after.1 - before.1 < n / 2,
        one_copy,
        "read element by element"
    );
    assert_eq!(bytes.len(), 4 + n * 20);
}

#[test]
fn misaligned_input_reads_the_same() {
    register_all();
    let v = records::<Segment>(&[3], 100);
    let bytes = kiln::to_vec(&v).unwrap();
    for shift in 1..8 {
        let mut shifted = vec![0u8; shift];
        shifted.extend_from_slice(&bytes);
        let back: Vec<Segment> = kiln::from_slice(&shifted[shift..]).unwrap();
        assert_eq!(mem(&back), mem(&v), "shifted by {shift}");
        let arrays = records::<[f64; 3]>(&[4], 50);
        let mut shifted = vec![0u8; shift];
        shifted.extend_from_slice(&kiln::to_vec(&arrays).unwrap());
        let back: Vec<[f64; 3]> = kiln::from_slice(&shifted[shift..]).unwrap();
        assert_eq!(mem(&back), mem(&arrays));
    }
}

/// Reads `bytes` both ways and returns both results' error text.
fn both_errors<T>(bytes: &[u8], options: kiln::Options) -> (String, String)
where
    T: DeserializeOwned + fmt::Debug,
{
    let fast = options.from_slice::<Vec<T>>(bytes).unwrap_err();
    let slow = options.from_slice::<ByElement<T>>(bytes).unwrap_err();
    (fast.to_string(), slow.to_string())
}

/// The error of reading `bytes` as a `Vec<T>` from a stream.
fn streamed_error<T: DeserializeOwned + fmt::Debug>(bytes: &[u8]) -> String {
    kiln::from_reader::<_, Vec<T>>(trickle(bytes))
        .unwrap_err()
        .to_string()
}

#[test]
fn lengths_that_are_not_whole_records_fail_as_the_element_path_does() {
    register_all();
    let v = records::<Vertex>(&[5], 10);
    let bytes = kiln::to_vec(&v).unwrap();
    for cut in [3, 4, 5, 23, 24, 25, 150, bytes.len() - 1] {
        let (fast, slow) = both_errors::<Vertex>(&bytes[..cut], kiln::Options::new());
        assert_eq!(fast, slow, "cut at {cut}");
        assert_eq!(
            fast,
            streamed_error::<Vertex>(&bytes[..cut]),
            "cut at {cut}"
        );
    }
    let (fast, _) = both_errors::<Vertex>(&bytes[..25], kiln::Options::new());
    assert_eq!(
        fast,
        "unexpected end of input: expected f32 (4 bytes), found 1 byte at byte 24 in [1].position.0"
    );
    let arrays = kiln::to_vec(&vec![[1u16; 3]; 4]).unwrap();
    let (fast, slow) = both_errors::<[u16; 3]>(&arrays[..13], kiln::Options::new());
    assert_eq!(fast, slow);
    // A count larger than the input: refused at the count, before any
    // allocation, as for any sequence (a stream, whose length is unknown,
    // reads on to its end).
    let mut huge = bytes.clone();
    huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let (fast, slow) = both_errors::<Vertex>(&huge, kiln::Options::new());
    assert_eq!(fast, slow);
    assert!(fast.starts_with("count "), "{fast}");
}

#[test]
fn depth_limits_apply_to_the_records_inside() {
    register_all();
    let arrays = kiln::to_vec(&vec![[[1u8; 2]; 2]; 3]).unwrap();
    let segments = kiln::to_vec(&records::<Segment>(&[1], 3)).unwrap();
    // A sequence of [[u8; 2]; 2] needs three levels; of Segment, three.
    for depth in 1..=3 {
        let options = kiln::Options::new().max_depth(depth);
        let fast = options.from_slice::<Vec<[[u8; 2]; 2]>>(&arrays);
        let slow = options.from_slice::<ByElement<[[u8; 2]; 2]>>(&arrays);
        assert_eq!(fast.is_ok(), depth == 3, "depth {depth}");
        assert_eq!(
            fast.map(|_| ()).map_err(|e| e.to_string()),
            slow.map(|_| ()).map_err(|e| e.to_string())
        );
        let fast = options.from_slice::<Vec<Segment>>(&segments);
        let slow = options.from_slice::<ByElement<Segment>>(&segments);
        assert_eq!(fast.is_ok(), depth == 3, "depth {depth}");
        assert_eq!(
            fast.map(|_| ()).map_err(|e| e.to_string()),
            slow.map(|_| ()).map_err(|e| e.to_string())
        );
    }
    // An empty sequence enters no record.
    let empty = kiln::to_vec(&Vec::<Segment>::new()).unwrap();
    let options = kiln::Options::new().max_depth(1);
    assert_eq!(options.from_slice::<Vec<Segment>>(&empty).unwrap(), []);
}

/// `register`'s refusal of `T` on a little-endian host. On a big-endian
/// host, where registration has no effect, it accepts any `T` that is not
/// zero-sized, and this returns `None`.
fn refused<T: bytemuck::Pod + Serialize + serde::de::DeserializeOwned>()
-> Option<kiln::block::RegisterError> {
    let registered = kiln::block::register::<T>();
    if cfg!(target_endian = "big") {
        assert!(registered.is_ok(), "{registered:?}");
        return None;
    }
    Some(registered.unwrap_err())
}

#[test]
fn types_whose_serde_bytes_are_not_their_memory_are_refused() {
    #[derive(
        Serialize, Deserialize, Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable,
    )]
    #[repr(C)]
    struct Skipping {
        a: u32,
        #[serde(skip)]
        b: u32,
    }
    if let Some(err) = refused::<Skipping>() {
        assert!(
            matches!(
                err,
                kiln::block::RegisterError::WrittenDiffers {
                    offset: 4,
                    len: 8,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    fn negate<S: Serializer>(v: &i32, s: S) -> Result<S::Ok, S::Error> {
        v.wrapping_neg().serialize(s)
    }
    #[derive(
        Serialize, Deserialize, Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable,
    )]
    #[repr(C)]
    struct Converting {
        a: u16,
        b: u16,
        #[serde(serialize_with = "negate")]
        c: i32,
    }
    if let Some(err) = refused::<Converting>() {
        assert!(
            err.to_string().contains("first difference at byte 4 of 8"),
            "{err}"
        );
    }
    assert!(!kiln::block::registered::<Converting>());
    // Its sequences still take the element path, with its own bytes.
    let v = vec![Converting { a: 1, b: 2, c: 3 }];
    assert_eq!(
        kiln::to_vec(&v).unwrap(),
        [1, 0, 0, 0, 1, 0, 2, 0, 0xfd, 0xff, 0xff, 0xff]
    );

    #[derive(
        Serialize, Deserialize, Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable,
    )]
    #[repr(C)]
    struct Empty;
    assert!(matches!(
        kiln::block::register::<Empty>(),
        Err(kiln::block::RegisterError::ZeroSized(_))
    ));
}

#[test]
fn frames_check_registered_structs_element_by_element() {
    register_all();
    #[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
    struct Mesh {
        segments: Vec<Segment>,
        normals: Vec<[f32; 3]>,
    }
    let mesh = Mesh {
        segments: records::<Segment>(&[9], 20),
        normals: records::<[f32; 3]>(&[9], 20),
    };
    let framed = kiln::frame::to_vec(&mesh).unwrap();
    let back: Mesh = kiln::frame::from_slice(&framed).unwrap();
    assert_eq!(mem(&back.segments), mem(&mesh.segments));
    assert_eq!(mem(&back.normals), mem(&mesh.normals));
    // The payload is the bare record's bytes.
    let bare = kiln::to_vec(&mesh).unwrap();
    assert!(framed.windows(bare.len()).any(|w| w == bare.as_slice()));
}

#[test]
fn to_slice_fails_cleanly_when_the_slice_is_short() {
    let v = records::<[f32; 3]>(&[2], 10);
    let needed = kiln::serialized_size(&v).unwrap() as usize;
    let mut buf = vec![0u8; needed];
    assert_eq!(kiln::to_slice(&v, &mut buf).unwrap().len(), needed);
    for short in [0, 3, 4, needed - 1] {
        let err = kiln::to_slice(&v, &mut buf[..short]).unwrap_err();
        match err.kind() {
            ErrorKind::BufferFull {
                needed: n,
                available,
            } => {
                assert_eq!(*available, short as u64);
                assert!(*n > short as u64 && *n <= needed as u64, "{n}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(err.kind().code(), "buffer-full");
    }
    // Counts patched after the fact (a sequence of unknown length) and
    // strings land where `to_vec` puts them.
    struct Unsized<'a>(&'a [&'a str]);
    impl Serialize for Unsized<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().filter(|_| true))
        }
    }
    let value = ("kiln", Unsized(&["a", ""]), 7u8);
    let mut buf = [0u8; 64];
    assert_eq!(
        kiln::to_slice(&value, &mut buf).unwrap(),
        kiln::to_vec(&value).unwrap().as_slice()
    );
}

#[test]
fn streams_longer_than_their_buffer_read_and_fail_as_the_element_path_does() {
    register_all();
    let v = records::<Vertex>(&[11], 3000);
    let bytes = kiln::to_vec(&v).unwrap();
    // Far more than a stream's buffer: read record by record.
    let back: Vec<Vertex> = kiln::from_reader(trickle(&bytes)).unwrap();
    assert_eq!(mem(&back), mem(&v));
    for cut in [4, 5, 4 + 20 * 1000 + 7, bytes.len() - 1] {
        let fast = kiln::from_reader::<_, Vec<Vertex>>(trickle(&bytes[..cut])).unwrap_err();
        let slow = kiln::from_reader::<_, ByElement<Vertex>>(trickle(&bytes[..cut])).unwrap_err();
        assert_eq!(fast.to_string(), slow.to_string(), "cut at {cut}");
    }
    // Past the byte limit: refused as the element path refuses it.
    let options = kiln::Options::new().byte_limit(10_000);
    let fast = options
        .from_reader::<_, Vec<Vertex>>(trickle(&bytes))
        .unwrap_err();
    let slow = options
        .from_reader::<_, ByElement<Vertex>>(trickle(&bytes))
        .unwrap_err();
    assert_eq!(fast.to_string(), slow.to_string());
    assert_eq!(fast.kind().code(), "byte-limit");
}

#[test]
fn a_stream_claiming_many_records_costs_what_arrives() {
    register_all();
    // 50 million records (1 GB, within the default byte limit) claimed,
    // 100 bytes sent.
    let mut bytes = 50_000_000u32.to_le_bytes().to_vec();
    bytes.extend_from_slice(&[0; 100]);
    let (result, cost) = crate::common::alloc::measure(|| {
        kiln::from_reader::<_, Vec<Vertex>>(trickle(&bytes)).map(|v| v.len())
    });
    let err = result.unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(104));
    assert!(cost.largest < 64 << 10, "{} bytes", cost.largest);
}

/// `bytes` as a stream that ends once, after `pause` bytes (`read` gives
/// 0), and then goes on, as a file that another process is still writing
/// may.
struct Pausing<'a> {
    bytes: &'a [u8],
    pause: usize,
}

impl std::io::Read for Pausing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pause == 0 {
            self.pause = usize::MAX;
            return Ok(0);
        }
        let n = buf.len().min(self.bytes.len()).min(self.pause);
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        self.pause = self.pause.saturating_sub(n);
        Ok(n)
    }
}

/// `bytes` up to `fail_at`, then an I/O error.
struct Failing<'a> {
    bytes: &'a [u8],
    fail_at: usize,
}

impl std::io::Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.fail_at == 0 {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = buf.len().min(self.bytes.len()).min(self.fail_at);
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        self.fail_at -= n;
        Ok(n)
    }
}

#[test]
fn streamed_records_fail_as_the_element_path_at_every_kind_of_cut() {
    use crate::common::pieces::Pieces;
    register_all();
    // 24 KB: longer than a stream's buffer (8 KiB) and than the first step
    // of the one-copy read (4 KiB: 204 records of 20 bytes).
    let v = records::<Vertex>(&[21], 1200);
    let bytes = kiln::to_vec(&v).unwrap();
    let step = 4 + 20 * 204;
    let cuts = (4..bytes.len()).step_by(997).chain([
        step - 1,
        step,
        step + 1,
        8192,
        8193,
        8196,
        4 + 20 * 409 + 3,
    ]);
    for cut in cuts {
        for sizes in [&[7][..], &[1 << 16], &[1, 5000, 3]] {
            let fast =
                kiln::from_reader::<_, Vec<Vertex>>(Pieces::new(&bytes[..cut], sizes)).unwrap_err();
            let slow = kiln::from_reader::<_, ByElement<Vertex>>(Pieces::new(&bytes[..cut], sizes))
                .unwrap_err();
            assert_eq!(
                fast.to_string(),
                slow.to_string(),
                "cut at {cut}, {sizes:?}"
            );
            assert_eq!(fast.offset(), slow.offset());
        }
    }
    for limit in [
        5,
        24,
        step as u64,
        step as u64 + 1,
        9000,
        bytes.len() as u64 - 1,
    ] {
        let options = kiln::Options::new().byte_limit(limit);
        let fast = options
            .from_reader::<_, Vec<Vertex>>(Pieces::new(&bytes, &[1 << 16]))
            .unwrap_err();
        let slow = options
            .from_reader::<_, ByElement<Vertex>>(Pieces::new(&bytes, &[1 << 16]))
            .unwrap_err();
        assert_eq!(fast.to_string(), slow.to_string(), "limit {limit}");
        assert_eq!(fast.kind().code(), "byte-limit");
    }
    let exact = kiln::Options::new().byte_limit(bytes.len() as u64);
    let back: Vec<Vertex> = exact.from_reader(Pieces::new(&bytes, &[1 << 16])).unwrap();
    assert_eq!(mem(&back), mem(&v));
}

#[test]
fn large_streamed_records_fail_as_the_element_path_at_every_step() {
    use crate::common::pieces::Pieces;
    register_all();
    // 2 MB of 20-byte records: several growth steps (204 records, then
    // 100,000 / 4^k), and many reads straight into the vector's memory.
    let v = records::<Vertex>(&[23], 100_000);
    let bytes = kiln::to_vec(&v).unwrap();
    let readers: [&[usize]; 3] = [&[usize::MAX], &[1 << 16], &[3, 300_001]];
    for sizes in readers {
        let back: Vec<Vertex> = kiln::from_reader(Pieces::new(&bytes, sizes)).unwrap();
        assert_eq!(mem(&back), mem(&v), "{sizes:?}");
    }
    let mut ends = vec![4 + 20 * 204, 8192, bytes.len() - 1];
    let mut k = v.len();
    while k > 204 {
        ends.push(4 + 20 * k);
        k /= 4;
    }
    ends.extend((1..8).map(|i| 4 + 20 * 204 + 256 * 1024 * i));
    for end in ends {
        for cut in [end - 1, end, end + 1, end + 7]
            .into_iter()
            .filter(|&c| c < bytes.len())
        {
            for sizes in readers {
                let fast = kiln::from_reader::<_, Vec<Vertex>>(Pieces::new(&bytes[..cut], sizes))
                    .unwrap_err();
                let slow =
                    kiln::from_reader::<_, ByElement<Vertex>>(Pieces::new(&bytes[..cut], sizes))
                        .unwrap_err();
                assert_eq!(fast.to_string(), slow.to_string(), "cut {cut}, {sizes:?}");
                assert_eq!(fast.offset(), slow.offset(), "cut {cut}, {sizes:?}");
            }
        }
    }
}

#[test]
fn streamed_records_read_on_after_a_pause_and_stop_at_an_io_error() {
    register_all();
    let v = records::<Vertex>(&[22], 1200);
    let mut bytes = kiln::to_vec(&v).unwrap();
    // A value after the records: the stream is read no further than it.
    bytes.extend_from_slice(&7u16.to_le_bytes());
    for pause in [4 + 20 * 300 + 7, 4 + 20 * 1000, 9000] {
        let read = kiln::from_reader::<_, (Vec<Vertex>, u16)>(Pausing {
            bytes: &bytes,
            pause,
        });
        // The one-copy path stops at the pause and hands the rest to the
        // element path, which asks the reader again. The element path
        // alone (a big-endian host) takes the pause for the end.
        if cfg!(target_endian = "big") {
            let err = read.unwrap_err();
            assert_eq!(err.kind().code(), "unexpected-end", "pause at {pause}");
            assert_eq!(err.offset(), Some(pause as u64 / 4 * 4), "{err}");
            continue;
        }
        let back = read.unwrap();
        assert_eq!(mem(&back.0), mem(&v), "pause at {pause}");
        assert_eq!(back.1, 7);
    }
    for fail_at in [4, 100, 4 + 20 * 600 + 3, bytes.len() - 3] {
        let err = kiln::from_reader::<_, (Vec<Vertex>, u16)>(Failing {
            bytes: &bytes,
            fail_at,
        })
        .unwrap_err();
        assert_eq!(err.kind().code(), "io", "fail at {fail_at}: {err}");
    }
}

#[test]
fn streamed_records_leave_what_follows_in_the_stream() {
    register_all();
    let v = records::<Vertex>(&[23], 2000);
    let mut bytes = kiln::to_vec(&v).unwrap();
    let len = bytes.len();
    bytes.extend_from_slice(b"next record");
    let mut stream = &bytes[..];
    let mut de = kiln::Deserializer::from_reader(&mut stream);
    let back = Vec::<Vertex>::deserialize(&mut de).unwrap();
    assert_eq!(mem(&back), mem(&v));
    // Only the bytes the records needed were asked for straight from the
    // stream; what the deserializer buffered is the rest.
    let rest = de.into_read();
    assert_eq!(rest.buffered(), &bytes[len..][..rest.buffered().len()]);
    assert_eq!(rest.buffered().len() + stream.len(), b"next record".len());
}

/// A record larger than a stream's buffer (8 KiB).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Tile {
    cells: [[u64; 32]; 32],
    edge: [u64; 32],
}

#[test]
fn streamed_records_larger_than_the_buffer_fail_as_the_element_path_does() {
    use crate::common::pieces::Pieces;
    kiln::block::register::<Tile>().unwrap();
    let tiles = records::<Tile>(&[24], 3);
    let bytes = kiln::to_vec(&tiles).unwrap();
    let back: Vec<Tile> = kiln::from_reader(Pieces::new(&bytes, &[1 << 16])).unwrap();
    assert_eq!(mem(&back), mem(&tiles));
    // Cut inside the second record, with more of it there than a buffer
    // holds: those bytes go back into the stream's buffer, which grows.
    let size = std::mem::size_of::<Tile>();
    for cut in [4 + size + 8300, 4 + size + 8, 4 + 2 * size + 8191] {
        let fast =
            kiln::from_reader::<_, Vec<Tile>>(Pieces::new(&bytes[..cut], &[1 << 16])).unwrap_err();
        let slow = kiln::from_reader::<_, ByElement<Tile>>(Pieces::new(&bytes[..cut], &[1 << 16]))
            .unwrap_err();
        assert_eq!(fast.to_string(), slow.to_string(), "cut at {cut}");
        assert_eq!(fast.kind().code(), "unexpected-end");
    }
}
