//! Shaped arrays in frames: the framed golden record, listing and fetching
//! without the type, the DIRECTORY flag, and batches refusing arrays.

use crate::common::arrays_golden;

use arrays_golden::{GoldenSample, golden_sample};
use kiln::array::{AlignedBytes, ArrayCow};
use kiln::frame::{self, FLAG_CHECKSUM, FLAG_DIRECTORY, FrameOptions};
use kiln::{Array, ArrayView};
use serde::{Deserialize, Serialize};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/spec/golden/arrays-framed.kiln"
);
const BARE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/golden/arrays.kiln");

/// The golden record read as views: same name and fields, so the same
/// fingerprint as the owned type.
mod view {
    use kiln::ArrayView;
    #[derive(serde::Deserialize, Debug, kiln::Schema)]
    pub struct GoldenSample<'a> {
        pub label: &'a str,
        #[serde(borrow)]
        pub image: ArrayView<'a, f32>,
        #[serde(borrow)]
        pub index: ArrayView<'a, u32>,
    }
}

/// The golden record read as copy-on-write arrays.
mod cow {
    use kiln::array::ArrayCow;
    #[derive(serde::Deserialize, Debug, kiln::Schema)]
    pub struct GoldenSample<'a> {
        pub label: String,
        #[serde(borrow)]
        pub image: ArrayCow<'a, f32>,
        #[serde(borrow)]
        pub index: ArrayCow<'a, u32>,
    }
}

/// A record without arrays (`Vec<u8>` is a counted sequence of bytes).
#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
struct Wrapped {
    inner: Vec<u8>,
}

fn code(e: &kiln::Error) -> (&'static str, Option<u64>) {
    (e.kind().code(), e.offset())
}

fn set_flags(bytes: &mut [u8], flags: u16) {
    bytes[10..12].copy_from_slice(&flags.to_le_bytes());
}

#[test]
fn framed_golden_file_matches_the_encoder() {
    let bytes = frame::to_vec(&golden_sample()).unwrap();
    let golden = std::fs::read(GOLDEN).unwrap();
    assert_eq!(bytes, golden);
    assert_eq!(bytes.len(), 64 + 504);
    // flags CHECKSUM | DIRECTORY, count 1, payload 504, payload = bare golden
    assert_eq!(&bytes[8..12], [0x01, 0x00, 0x09, 0x00]);
    assert_eq!(
        &bytes[24..40],
        [1, 0, 0, 0, 0, 0, 0, 0, 0xf8, 1, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(&bytes[64..], std::fs::read(BARE).unwrap());
    let crc = crc32c_of(&bytes[64..]);
    assert_eq!(&bytes[40..44], crc.to_le_bytes());
    assert_eq!(
        frame::from_slice::<GoldenSample>(&golden).unwrap(),
        golden_sample()
    );
}

/// CRC-32C, bit by bit: an independent check of the header's field.
fn crc32c_of(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82f6_3b78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn listing_the_framed_golden_gives_absolute_aligned_ranges() {
    let golden = std::fs::read(GOLDEN).unwrap();
    let arrays = frame::list_arrays(&golden).unwrap();
    assert_eq!(arrays.len(), 2);
    assert_eq!((arrays[0].dtype(), arrays[0].dtype_name()), (0x0b, "f32"));
    assert_eq!(arrays[0].shape(), [3, 4, 5]);
    assert_eq!(arrays[0].byte_range(), 128..368);
    assert_eq!((arrays[1].dtype(), arrays[1].dtype_name()), (0x05, "u32"));
    assert_eq!(arrays[1].shape(), [6, 3]);
    assert_eq!(arrays[1].byte_range(), 384..456);
    for a in &arrays {
        assert_eq!(a.byte_range().start % 64, 0);
    }
    // Slicing the file at the listed range gives the elements.
    let image: Vec<f32> = golden[128..368]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(image, golden_sample().image.data());
    let index: Vec<u32> = golden[384..456]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(index, golden_sample().index.data());
}

#[test]
fn fetching_one_array_from_a_frame() {
    let golden = std::fs::read(GOLDEN).unwrap();
    let index: Array<u32> = frame::fetch_array(&golden, 1).unwrap();
    assert_eq!(index, golden_sample().index);
    let image: Array<f32> = frame::fetch_array(&golden, 0).unwrap();
    assert_eq!(image, golden_sample().image);
    let e = frame::fetch_array::<u32>(&golden, 2).unwrap_err();
    assert_eq!(code(&e), ("array-index", Some(64 + 392)));
    let e = frame::fetch_array::<u32>(&golden, 0).unwrap_err();
    assert_eq!(code(&e), ("dtype-mismatch", Some(128)));
}

#[test]
fn views_borrow_from_an_aligned_framed_file() {
    let aligned = AlignedBytes::from_slice(&std::fs::read(GOLDEN).unwrap());
    let bytes = aligned.as_slice();
    let base = bytes.as_ptr() as usize;

    let v: view::GoldenSample = frame::from_slice(bytes).unwrap();
    assert_eq!(v.label, "kiln");
    assert_eq!(v.image.shape(), [3, 4, 5]);
    assert_eq!(v.image.data(), golden_sample().image.data());
    assert_eq!(v.index.data(), golden_sample().index.data());
    assert_eq!(v.image.data().as_ptr() as usize, base + 128);
    assert_eq!(v.index.data().as_ptr() as usize, base + 384);

    let f: ArrayView<f32> = frame::fetch_array_view(bytes, 0).unwrap();
    assert_eq!(f.data().as_ptr() as usize, base + 128);
    assert_eq!(f.shape(), [3, 4, 5]);
    let i: ArrayView<u32> = frame::fetch_array_view(bytes, 1).unwrap();
    assert_eq!(i.data().as_ptr() as usize, base + 384);
    assert_eq!(i.to_owned(), golden_sample().index);

    let c: cow::GoldenSample = frame::from_slice(bytes).unwrap();
    assert!(c.image.is_borrowed() && c.index.is_borrowed());
    assert_eq!(c.label, "kiln");
}

#[test]
fn views_from_a_misaligned_frame_say_so() {
    let golden = std::fs::read(GOLDEN).unwrap();
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&golden);
    let aligned = AlignedBytes::from_slice(&shifted);
    let bytes = &aligned.as_slice()[1..];
    let e = frame::fetch_array_view::<f32>(bytes, 0).unwrap_err();
    assert_eq!(code(&e), ("view-misaligned", Some(128)));
    let e = frame::from_slice::<view::GoldenSample>(bytes).unwrap_err();
    assert_eq!(code(&e), ("view-misaligned", Some(128)));
    // Owned and copy-on-write reads still work.
    let c: cow::GoldenSample = frame::from_slice(bytes).unwrap();
    assert!(!c.image.is_borrowed());
    assert_eq!(c.image.into_owned(), golden_sample().image);
    assert_eq!(
        frame::fetch_array::<f32>(bytes, 0).unwrap(),
        golden_sample().image
    );
}

#[test]
fn round_trips_through_slices_and_readers_with_every_option() {
    for checksum in [false, true] {
        for schema in [false, true] {
            let opts = FrameOptions::new().checksum(checksum).embed_schema(schema);
            let bytes = opts.to_vec(&golden_sample()).unwrap();
            let flags = u16::from_le_bytes([bytes[10], bytes[11]]);
            assert_eq!(flags & FLAG_DIRECTORY, FLAG_DIRECTORY);
            assert_eq!(flags & FLAG_CHECKSUM != 0, checksum);
            let payload = frame::FrameHeader::parse(&bytes).unwrap().payload_offset as usize;
            assert_eq!(payload, if schema { 192 } else { 64 }); // 93 bytes of text
            assert_eq!(&bytes[payload..], std::fs::read(BARE).unwrap());
            assert_eq!(
                opts.from_slice::<GoldenSample>(&bytes).unwrap(),
                golden_sample()
            );
            assert_eq!(
                opts.from_reader::<_, GoldenSample>(&bytes[..]).unwrap(),
                golden_sample()
            );
            let arrays = frame::list_arrays(&bytes).unwrap();
            assert_eq!(arrays[1].byte_range().start, payload as u64 + 320);
            let mut written = Vec::new();
            opts.to_writer(&mut written, &golden_sample()).unwrap();
            assert_eq!(written, bytes);
        }
    }
}

#[test]
fn owned_views_and_cows_share_one_fingerprint() {
    let owned = kiln::schema::schema_of::<GoldenSample>().unwrap();
    assert_eq!(
        owned.text(),
        Some(
            "root GoldenSample\nstruct GoldenSample { label: str, image: array<f32>, index: array<u32> }\n"
        )
    );
    assert_eq!(owned.fingerprint().to_string(), "8ce787869450f43b");
    let golden = std::fs::read(GOLDEN).unwrap();
    assert_eq!(golden[16..24], owned.fingerprint().to_le_bytes());
    for other in [
        kiln::schema::fingerprint_of::<view::GoldenSample>().unwrap(),
        kiln::schema::fingerprint_of::<cow::GoldenSample>().unwrap(),
    ] {
        assert_eq!(other, owned.fingerprint());
    }
    // Another element type is another schema.
    assert_eq!(
        kiln::schema::schema_of::<Array<f64>>().unwrap().text(),
        Some("root array<f64>\n")
    );
    let e = frame::from_slice::<(String, Array<f64>, Array<u32>)>(&golden).unwrap_err();
    assert_eq!(code(&e), ("schema-mismatch", Some(16)));
}

#[test]
fn records_without_arrays_keep_the_flag_clear_and_their_bytes() {
    let bytes = frame::to_vec(&Wrapped { inner: vec![1, 2] }).unwrap();
    assert_eq!(&bytes[10..12], [0x01, 0x00]);
    assert_eq!(&bytes[64..], [2, 0, 0, 0, 1, 2]);
    assert_eq!(frame::list_arrays(&bytes).unwrap(), []);
    let e = frame::fetch_array::<u8>(&bytes, 3).unwrap_err();
    assert_eq!(code(&e), ("array-index", Some(70)));
    assert!(e.to_string().contains("below 0, found 3"), "{e}");
    // The framed Point golden file is unchanged by this flag.
    let point = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/spec/golden/frame-point.kiln"
    ))
    .unwrap();
    assert_eq!(&point[10..12], [0x01, 0x00]);
}

#[test]
fn the_flag_settles_a_record_that_only_looks_like_it_has_a_directory() {
    // A record without arrays whose last bytes are a whole record with a
    // directory: the bare listing is fooled (or confused), the frame's not.
    let inner = std::fs::read(BARE).unwrap();
    let bytes = frame::to_vec(&Wrapped {
        inner: inner.clone(),
    })
    .unwrap();
    assert_eq!(bytes[10] & FLAG_DIRECTORY as u8, 0);
    let payload = &bytes[64..];
    assert!(payload.ends_with(b"KILNDIR1"));
    assert_ne!(kiln::array::list(payload).ok(), Some(vec![]));
    assert_eq!(frame::list_arrays(&bytes).unwrap(), []);
    assert_eq!(
        frame::from_slice::<Wrapped>(&bytes).unwrap(),
        Wrapped { inner }
    );
}

#[test]
fn the_typed_reader_refuses_a_flag_that_disagrees_with_the_record() {
    let golden = std::fs::read(GOLDEN).unwrap();

    // Flag cleared on a record with arrays (the checksum covers only the
    // payload, so it still holds).
    let mut cleared = golden.clone();
    set_flags(&mut cleared, FLAG_CHECKSUM);
    let e = frame::from_slice::<GoldenSample>(&cleared).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));
    let e = frame::from_reader::<_, GoldenSample>(&cleared[..]).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));
    assert_eq!(frame::list_arrays(&cleared).unwrap(), []);
    let e = frame::fetch_array::<f32>(&cleared, 0).unwrap_err();
    assert_eq!(code(&e), ("array-index", Some(568)));
    // ... also on the general path (schema text embedded).
    let mut with_text = FrameOptions::new()
        .embed_schema(true)
        .to_vec(&golden_sample())
        .unwrap();
    set_flags(&mut with_text, FLAG_CHECKSUM | 2);
    let e = frame::from_slice::<GoldenSample>(&with_text).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));
    let e = frame::from_reader::<_, GoldenSample>(&with_text[..]).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));

    // Flag set on a record without arrays whose payload has no trailer.
    let mut plain = frame::to_vec(&Wrapped { inner: vec![7; 40] }).unwrap();
    set_flags(&mut plain, FLAG_CHECKSUM | FLAG_DIRECTORY);
    let e = frame::from_slice::<Wrapped>(&plain).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));
    let e = frame::from_reader::<_, Wrapped>(&plain[..]).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));
    let e = frame::list_arrays(&plain).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));

    // Flag set, the payload ends with a trailer, but the reader's type has
    // no arrays: the record is read and then refused.
    let mut fooled = frame::to_vec(&Wrapped {
        inner: std::fs::read(BARE).unwrap(),
    })
    .unwrap();
    set_flags(&mut fooled, FLAG_CHECKSUM | FLAG_DIRECTORY);
    let e = frame::from_slice::<Wrapped>(&fooled).unwrap_err();
    assert_eq!(code(&e), ("directory-flag", Some(10)));
}

#[test]
fn the_directory_flag_needs_a_single_record_frame() {
    let mut batch = frame::batch_to_vec(&[1u8, 2]).unwrap();
    set_flags(&mut batch, FLAG_CHECKSUM | FLAG_DIRECTORY);
    let e = frame::FrameHeader::parse(&batch).unwrap_err();
    assert_eq!(code(&e), ("header-field", Some(24)));
    let e = frame::list_arrays(&batch).unwrap_err();
    assert_eq!(code(&e), ("header-field", Some(24)));

    let mut w = FrameOptions::new()
        .batch_writer::<_, u8>(Vec::new())
        .unwrap();
    w.push(&1).unwrap();
    let mut streamed = w.finish().unwrap();
    let flags = u16::from_le_bytes([streamed[10], streamed[11]]);
    set_flags(&mut streamed, flags | FLAG_DIRECTORY);
    let e = frame::FrameHeader::parse(&streamed).unwrap_err();
    assert_eq!(code(&e), ("header-field", Some(10)));
    let e = frame::from_reader::<_, u8>(&streamed[..]).unwrap_err();
    assert_eq!(code(&e), ("header-field", Some(10)));

    // The batch readers leave a DIRECTORY frame to the single-record ones.
    let golden = std::fs::read(GOLDEN).unwrap();
    let e = frame::batch_from_slice::<GoldenSample>(&golden)
        .err()
        .unwrap();
    assert_eq!(code(&e), ("directory-flag", Some(10)));
    let e = frame::batch_from_reader::<_, GoldenSample>(&golden[..])
        .err()
        .unwrap();
    assert_eq!(code(&e), ("directory-flag", Some(10)));

    // Bit 4 is INDEXED, the many-record form, never with DIRECTORY; bit
    // 5 and above stay reserved.
    let mut golden = std::fs::read(GOLDEN).unwrap();
    golden[10] |= 0x10;
    let e = frame::list_arrays(&golden).unwrap_err();
    assert_eq!(code(&e), ("header-field", Some(10)));
    golden[10] |= 0x20;
    let e = frame::list_arrays(&golden).unwrap_err();
    assert_eq!(code(&e), ("reserved-flag", Some(10)));
}

#[test]
fn untyped_errors_are_at_offsets_in_the_frame() {
    // Without a checksum, damage to the directory is found by its rules.
    let mut bytes = FrameOptions::new()
        .checksum(false)
        .to_vec(&golden_sample())
        .unwrap();
    bytes[64 + 392] = 0xff; // entry 0's dtype
    let e = frame::list_arrays(&bytes).unwrap_err();
    assert_eq!(code(&e), ("unknown-dtype", Some(64 + 392)));
    let e = frame::fetch_array::<u32>(&bytes, 1).unwrap_err();
    assert_eq!(code(&e), ("unknown-dtype", Some(64 + 392)));
    let e = frame::from_slice::<GoldenSample>(&bytes).unwrap_err();
    assert_eq!(code(&e), ("unknown-dtype", Some(64 + 392)));

    // With one, the checksum comes first.
    let mut golden = std::fs::read(GOLDEN).unwrap();
    golden[64 + 392] = 0xff;
    let e = frame::list_arrays(&golden).unwrap_err();
    assert_eq!(code(&e), ("checksum-mismatch", Some(40)));

    // Header checks as the frame reader makes them.
    let golden = std::fs::read(GOLDEN).unwrap();
    let e = frame::list_arrays(&golden[..golden.len() - 1]).unwrap_err();
    assert_eq!(code(&e), ("frame-truncated", Some(64)));
    let mut longer = golden.clone();
    longer.push(0);
    let e = frame::list_arrays(&longer).unwrap_err();
    assert_eq!(code(&e), ("trailing-bytes", Some(568)));
    let e = frame::from_reader::<_, GoldenSample>(&longer[..]).unwrap_err();
    assert_eq!(code(&e), ("trailing-bytes", Some(568)));
    let e = frame::from_reader::<_, GoldenSample>(&golden[..300]).unwrap_err();
    assert_eq!(code(&e), ("frame-truncated", Some(64)));
    let mut bad = golden.clone();
    bad[0] = b'{';
    let e = frame::fetch_array_view::<f32>(&bad, 0).unwrap_err();
    assert_eq!(code(&e), ("bad-magic", Some(0)));
    let mut v2 = golden.clone();
    v2[8] = 2;
    let e = frame::list_arrays(&v2).unwrap_err();
    assert_eq!(code(&e), ("unsupported-version", Some(8)));
}

#[test]
fn a_reader_keeps_to_the_byte_limit() {
    let golden = std::fs::read(GOLDEN).unwrap();
    let tight = FrameOptions::new().decode(kiln::Options::new().byte_limit(503));
    let e = tight
        .from_reader::<_, GoldenSample>(&golden[..])
        .unwrap_err();
    assert_eq!(code(&e), ("byte-limit", Some(64)));
    let enough = FrameOptions::new().decode(kiln::Options::new().byte_limit(504));
    assert_eq!(
        enough.from_reader::<_, GoldenSample>(&golden[..]).unwrap(),
        golden_sample()
    );
}

#[test]
fn batch_writers_refuse_records_with_arrays() {
    let plain = Wrapped { inner: vec![1] };
    let with = golden_sample();

    let e = kiln::batch::to_vec(std::slice::from_ref(&with)).unwrap_err();
    assert_eq!((e.kind().code(), e.record()), ("arrays-in-batch", Some(0)));
    assert!(e.to_string().contains("single-record frame"), "{e}");

    let mut out = Vec::new();
    let e = kiln::batch::extend(
        &mut out,
        [Ok(plain), Err(with.clone())].iter().map(|r| match r {
            Ok(p) => Either::A(p),
            Err(g) => Either::B(g),
        }),
    )
    .unwrap_err();
    assert_eq!((e.kind().code(), e.record()), ("arrays-in-batch", Some(1)));

    // The streaming writer takes the record out again and carries on.
    let mut w = kiln::batch::BatchWriter::new(Vec::new());
    w.push(&7u16).unwrap();
    let e = w.push(&with).unwrap_err();
    assert_eq!((e.kind().code(), e.record()), ("arrays-in-batch", Some(1)));
    w.push(&8u16).unwrap();
    assert_eq!(w.count(), 2);
    assert_eq!(w.finish().unwrap(), [7, 0, 8, 0]);

    // Framed batches too, in memory and streamed.
    let e = frame::batch_to_vec(&[with.clone(), with.clone()]).unwrap_err();
    assert_eq!((e.kind().code(), e.record()), ("arrays-in-batch", Some(0)));
    let mut fw = FrameOptions::new()
        .batch_writer::<_, GoldenSample>(Vec::new())
        .unwrap();
    let e = fw.push(&with).unwrap_err();
    assert_eq!((e.kind().code(), e.record()), ("arrays-in-batch", Some(0)));
    assert_eq!(fw.count(), 0);
    let empty = fw.finish().unwrap();
    assert_eq!(
        frame::batch_from_slice::<GoldenSample>(&empty)
            .unwrap()
            .count(),
        0
    );
    // A single-record frame is the way.
    assert!(frame::to_vec(&with).is_ok());
}

/// Records of two types in one batch, to fail on the second.
#[derive(Serialize)]
#[serde(untagged)]
enum Either<'a> {
    A(&'a Wrapped),
    B(&'a GoldenSample),
}

#[test]
fn cow_arrays_write_like_owned_ones() {
    let a = Array::from_vec(vec![1.5f64, 2.5]);
    let cow: ArrayCow<f64> = ArrayCow::Owned(a.clone());
    assert_eq!(frame::to_vec(&cow).unwrap(), frame::to_vec(&a).unwrap());
    let back: Array<f64> = frame::from_slice(&frame::to_vec(&cow).unwrap()).unwrap();
    assert_eq!(back, a);
}

/// A record whose other field refused the old tracer's made-up zero.
#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
struct Counted {
    n: std::num::NonZeroU32,
    data: Array<i16>,
}

#[test]
fn validating_fields_beside_arrays_have_schemas() {
    let value = Counted {
        n: std::num::NonZeroU32::new(3).unwrap(),
        data: Array::from_vec(vec![-1, 2, -3]),
    };
    let schema = kiln::schema::schema_of::<Counted>().unwrap();
    assert_eq!(
        schema.text(),
        Some("root Counted\nstruct Counted { n: u32, data: array<i16> }\n")
    );
    let bytes = frame::to_vec(&value).unwrap();
    assert_eq!(bytes[16..24], schema.fingerprint().to_le_bytes());
    assert_eq!(frame::from_slice::<Counted>(&bytes).unwrap(), value);
    // Other formats still see `{ shape, data }`.
    let json = serde_json::to_string(&value.data).unwrap();
    assert_eq!(json, r#"{"shape":[3],"data":[-1,2,-3]}"#);
}

/// Found by the `frame` fuzz target: a frame with the DIRECTORY flag read
/// from a stream checked the byte limit before the fingerprint, so a reader
/// of another type got `byte-limit` where a slice gave `schema-mismatch`.
#[test]
fn stream_checks_the_fingerprint_before_the_byte_limit() {
    #[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
    struct WithArray {
        a: kiln::Array<u8>,
    }
    #[derive(serde::Deserialize, Debug, kiln::Schema)]
    struct Other {
        #[allow(dead_code)]
        b: kiln::Array<u16>,
    }
    let value = WithArray {
        a: kiln::Array::from_shape_vec(vec![2], vec![1, 2]).unwrap(),
    };
    let bytes = kiln::frame::to_vec(&value).unwrap();
    let opts = kiln::frame::FrameOptions::new().decode(kiln::Options::new().byte_limit(70));
    let from_slice = opts.from_slice::<Other>(&bytes).unwrap_err();
    let from_stream = opts.from_reader::<_, Other>(&bytes[..]).unwrap_err();
    for err in [from_slice, from_stream] {
        assert_eq!(err.kind().code(), "schema-mismatch", "{err}");
        assert_eq!(err.offset(), Some(16), "{err}");
    }
}
