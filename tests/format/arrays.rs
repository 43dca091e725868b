//! Shaped arrays: golden bytes, round trips, views, listing and fetching.

use crate::common::arrays_golden;

use arrays_golden::{GoldenSample, golden_sample};
use kiln::array::AlignedBytes;
use kiln::{Array, ArrayView};
use serde::{Deserialize, Serialize};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/golden/arrays.kiln");

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn golden_file_matches_the_encoder() {
    let bytes = kiln::to_vec(&golden_sample()).unwrap();
    if std::env::var_os("KILN_BLESS").is_some() {
        std::fs::write(GOLDEN, &bytes).unwrap();
    }
    let golden = std::fs::read(GOLDEN).unwrap();
    assert_eq!(bytes, golden);
}

#[test]
fn golden_layout_is_as_the_spec_says() {
    let b = std::fs::read(GOLDEN).unwrap();
    // label "kiln": count 4, then the bytes.
    assert_eq!(&b[..8], b"\x04\0\0\0kiln");
    // zero padding to the first 64-byte boundary, then the image block.
    assert!(b[8..64].iter().all(|&x| x == 0));
    assert_eq!(&b[64..68], &0.0f32.to_le_bytes());
    assert_eq!(&b[68..72], &0.5f32.to_le_bytes());
    assert_eq!(&b[300..304], &29.5f32.to_le_bytes());
    // padding 304..320, then the index block of 18 u32.
    assert!(b[304..320].iter().all(|&x| x == 0));
    assert_eq!(&b[320..324], &0u32.to_le_bytes());
    assert_eq!(&b[388..392], &17u32.to_le_bytes());
    // directory at 392: f32 entry, rank 3.
    assert_eq!(&b[392..400], &[0x0b, 3, 0, 0, 0, 0, 0, 0]);
    assert_eq!((u64_at(&b, 400), u64_at(&b, 408)), (64, 240));
    assert_eq!(
        [u64_at(&b, 416), u64_at(&b, 424), u64_at(&b, 432)],
        [3, 4, 5]
    );
    // u32 entry, rank 2.
    assert_eq!(&b[440..448], &[0x05, 2, 0, 0, 0, 0, 0, 0]);
    assert_eq!((u64_at(&b, 448), u64_at(&b, 456)), (320, 72));
    assert_eq!([u64_at(&b, 464), u64_at(&b, 472)], [6, 3]);
    // trailer: directory offset, count, reserved, magic.
    assert_eq!(u64_at(&b, 480), 392);
    assert_eq!(&b[488..496], &[2, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&b[496..], b"KILNDIR1");
    assert_eq!(b.len(), 504);
}

#[test]
fn golden_file_reads_back() {
    let b = std::fs::read(GOLDEN).unwrap();
    let s: GoldenSample = kiln::from_slice(&b).unwrap();
    assert_eq!(s, golden_sample());
    let r: GoldenSample = kiln::from_reader(&b[..]).unwrap();
    assert_eq!(r, golden_sample());
}

#[test]
fn list_on_the_golden_file() {
    let b = std::fs::read(GOLDEN).unwrap();
    let arrays = kiln::array::list(&b).unwrap();
    assert_eq!(arrays.len(), 2);
    assert_eq!((arrays[0].dtype(), arrays[0].dtype_name()), (0x0b, "f32"));
    assert_eq!(arrays[0].shape(), [3, 4, 5]);
    assert_eq!(arrays[0].byte_range(), 64..304);
    assert_eq!(arrays[0].element_count(), 60);
    assert_eq!((arrays[1].dtype(), arrays[1].dtype_name()), (0x05, "u32"));
    assert_eq!(arrays[1].shape(), [6, 3]);
    assert_eq!(arrays[1].byte_range(), 320..392);
}

#[test]
fn fetch_reads_one_array() {
    let b = std::fs::read(GOLDEN).unwrap();
    let index: Array<u32> = kiln::array::fetch(&b, 1).unwrap();
    assert_eq!(index, golden_sample().index);
    // The image block is not read to fetch the index: spoil it and fetch
    // still works (the padding and values are not the directory's business).
    let mut spoiled = b.clone();
    spoiled[64..304].fill(0xff);
    spoiled[10] = 0xee;
    let again: Array<u32> = kiln::array::fetch(&spoiled, 1).unwrap();
    assert_eq!(again, golden_sample().index);

    let err = kiln::array::fetch::<f32>(&b, 1).unwrap_err();
    assert_eq!(err.kind().code(), "dtype-mismatch");
    assert_eq!(err.offset(), Some(320));
    let err = kiln::array::fetch::<f32>(&b, 2).unwrap_err();
    assert_eq!(err.kind().code(), "array-index");
    assert_eq!(err.offset(), Some(392));
    let err = kiln::array::fetch::<u8>(&[1, 2, 3], 0).unwrap_err();
    assert_eq!(err.kind().code(), "directory-missing");
    assert_eq!(err.offset(), Some(3));
}

#[test]
fn fetch_view_borrows_from_aligned_memory() {
    let b = AlignedBytes::from_slice(&std::fs::read(GOLDEN).unwrap());
    let image: ArrayView<f32> = kiln::array::fetch_view(b.as_slice(), 0).unwrap();
    assert_eq!(image.shape(), [3, 4, 5]);
    assert_eq!(
        image.data().as_ptr() as usize,
        b.as_slice()[64..].as_ptr() as usize
    );
    assert_eq!(image.to_owned(), golden_sample().image);
}

#[test]
fn records_without_arrays_do_not_change() {
    #[derive(Serialize)]
    struct Point {
        x: i32,
        y: i32,
    }
    let bytes = kiln::to_vec(&Point { x: 9, y: -4 }).unwrap();
    assert_eq!(bytes, [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
    assert_eq!(kiln::array::list(&bytes).unwrap(), []);
    let none: Option<Array<f32>> = None;
    assert_eq!(kiln::to_vec(&none).unwrap(), [0]);
}

fn shapes() -> Vec<Vec<usize>> {
    vec![vec![], vec![3], vec![2, 3], vec![2, 1, 3], vec![2, 2, 1, 2]]
}

fn aligned_copy(bytes: &[u8]) -> AlignedBytes {
    let a = AlignedBytes::from_slice(bytes);
    assert_eq!(a.as_slice().as_ptr() as usize % 64, 0);
    a
}

macro_rules! round_trip_types {
    ($($name:ident: $ty:ty => $make:expr,)*) => {$(
        #[test]
        fn $name() {
            let make: fn(usize) -> $ty = $make;
            for shape in shapes() {
                let n: usize = shape.iter().product();
                let data: Vec<$ty> = (0..n).map(make).collect();
                let a = Array::from_shape_vec(shape.clone(), data).unwrap();
                let value = (7u8, a.clone(), "end".to_string());
                let bytes = kiln::to_vec(&value).unwrap();
                // The block sits at 64, the directory after "end".
                let info = kiln::array::list(&bytes).unwrap();
                assert_eq!(info.len(), 1);
                assert_eq!(info[0].dtype(), <$ty as kiln::block::Element>::DTYPE);
                assert_eq!(info[0].byte_range().start, 64);
                assert_eq!(info[0].shape(), shape.iter().map(|&d| d as u64).collect::<Vec<_>>());
                let block = &bytes[64..64 + n * std::mem::size_of::<$ty>()];
                let expect: Vec<u8> = a.data().iter().flat_map(|v| v.to_le_bytes()).collect();
                assert_eq!(block, &expect[..]);

                let back: (u8, Array<$ty>, String) = kiln::from_slice(&bytes).unwrap();
                assert_eq!(back, value);
                let back: (u8, Array<$ty>, String) = kiln::from_reader(&bytes[..]).unwrap();
                assert_eq!(back, value);

                let aligned = aligned_copy(&bytes);
                let view: (u8, ArrayView<$ty>, &str) = kiln::from_slice(aligned.as_slice()).unwrap();
                assert_eq!(view.1.shape(), &shape[..]);
                assert_eq!(view.1.data(), a.data());
                assert_eq!(
                    view.1.data().as_ptr() as usize,
                    aligned.as_slice()[64..].as_ptr() as usize,
                    "the view borrows the block in place"
                );
                assert_eq!(view.1.to_owned(), a);
                // Writing the view writes the same bytes.
                assert_eq!(kiln::to_vec(&(7u8, a.view(), "end")).unwrap(), bytes);

                // Other formats see {shape, data}.
                let json = serde_json::to_string(&a).unwrap();
                let from_json: Array<$ty> = serde_json::from_str(&json).unwrap();
                assert_eq!(from_json, a);
            }
        }
    )*};
}

round_trip_types! {
    round_trip_u8: u8 => |i| (i as u8).wrapping_mul(37),
    round_trip_i8: i8 => |i| (i as i8).wrapping_mul(-37),
    round_trip_u16: u16 => |i| (i as u16).wrapping_mul(40_000),
    round_trip_i16: i16 => |i| (i as i16).wrapping_mul(-9_999),
    round_trip_u32: u32 => |i| (i as u32).wrapping_mul(0x9e37_79b9),
    round_trip_i32: i32 => |i| (i as i32).wrapping_mul(-0x3e37_79b9),
    round_trip_u64: u64 => |i| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
    round_trip_i64: i64 => |i| (i as i64).wrapping_mul(-0x1e37_79b9_7f4a_7c15),
    round_trip_u128: u128 => |i| (i as u128).wrapping_mul(u128::MAX / 3),
    round_trip_i128: i128 => |i| (i as i128).wrapping_mul(i128::MIN / 3 + 1),
    round_trip_f32: f32 => |i| i as f32 * -1.25 + 0.1,
    round_trip_f64: f64 => |i| i as f64 * 1e300 - 0.3,
}

#[test]
fn nan_payloads_survive_bit_exact() {
    let odd = f32::from_bits(0x7fc0_1234);
    let a = Array::from_vec(vec![odd, f32::NEG_INFINITY, -0.0]);
    let back: Array<f32> = kiln::from_slice(&kiln::to_vec(&a).unwrap()).unwrap();
    let bits: Vec<u32> = back.data().iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, [0x7fc0_1234, 0xff80_0000, 0x8000_0000]);
}

#[test]
fn empty_arrays() {
    let empties = vec![
        Array::<u16>::from_shape_vec(vec![0], vec![]).unwrap(),
        Array::<u16>::from_shape_vec(vec![2, 0, 3], vec![]).unwrap(),
        Array::<u16>::zeros(vec![0, 0]).unwrap(),
    ];
    let bytes = kiln::to_vec(&empties).unwrap();
    let info = kiln::array::list(&bytes).unwrap();
    // Count (4 bytes), then three empty blocks, all at 64.
    let ranges: Vec<_> = info.iter().map(|i| i.byte_range()).collect();
    assert_eq!(ranges, [64..64, 64..64, 64..64]);
    assert!(bytes[4..64].iter().all(|&b| b == 0));
    let back: Vec<Array<u16>> = kiln::from_slice(&bytes).unwrap();
    assert_eq!(back, empties);
    // A stream tries each element on its buffer first; arrays need the
    // directory, so they are read from the stream itself.
    let streamed: Vec<Array<u16>> = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(streamed, empties);
    assert!(back.iter().all(Array::is_empty));
    assert_eq!(back[1].shape(), [2, 0, 3]);
}

#[test]
fn a_view_of_a_misaligned_block_says_so() {
    let a = Array::from_vec(vec![1.0f32, 2.0]);
    let bytes = kiln::to_vec(&a).unwrap();
    // The same record one byte into aligned memory.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bytes);
    let buf = AlignedBytes::from_slice(&shifted);
    let record = &buf.as_slice()[1..];
    let err = kiln::from_slice::<ArrayView<f32>>(record).unwrap_err();
    assert_eq!(err.kind().code(), "view-misaligned");
    assert_eq!(err.offset(), Some(0));
    assert_eq!(
        err.to_string(),
        "view misaligned: expected the block's address to be a multiple of 4; read into an \
         owned Array, or keep the record in memory aligned to 64 bytes at byte 0"
    );
    let err = kiln::array::fetch_view::<f32>(record, 0).unwrap_err();
    assert_eq!(err.kind().code(), "view-misaligned");
    // The owned path copies and works from anywhere.
    assert_eq!(kiln::from_slice::<Array<f32>>(record).unwrap(), a);
    // Bytes are always aligned.
    let u = kiln::to_vec(&Array::from_vec(vec![1u8, 2])).unwrap();
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&u);
    let v: ArrayView<u8> = kiln::from_slice(&shifted[1..]).unwrap();
    assert_eq!(v.data(), [1, 2]);
}

#[test]
fn a_view_from_a_stream_is_unavailable() {
    let bytes = kiln::to_vec(&Array::from_vec(vec![1u32])).unwrap();
    let err = kiln::from_reader::<_, Array<u32>>(&bytes[..]).map(|a| a.len());
    assert_eq!(err.unwrap(), 1);
    // ArrayView<'de> is not DeserializeOwned, so use the Deserializer.
    let mut de = kiln::Deserializer::from_reader(&bytes[..]).whole_record();
    let err = ArrayView::<u32>::deserialize(&mut de).unwrap_err();
    assert_eq!(err.kind().code(), "view-unavailable");
    assert_eq!(err.offset(), Some(0));
}

#[test]
fn records_back_to_back_cannot_hold_arrays() {
    let bytes = kiln::to_vec(&Array::from_vec(vec![1u32])).unwrap();
    let err = kiln::take_from_slice::<Array<u32>>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "record-end-unknown");
    assert_eq!(err.offset(), Some(0));
}

#[test]
fn the_reader_byte_limit_bounds_the_directory_read() {
    let bytes = kiln::to_vec(&("x", Array::from_vec(vec![1u32; 100]))).unwrap();
    let err = kiln::Options::new()
        .byte_limit(100)
        .from_reader::<_, (String, Array<u32>)>(&bytes[..])
        .unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    let ok: (String, Array<u32>) = kiln::Options::new()
        .byte_limit(bytes.len() as u64)
        .from_reader(&bytes[..])
        .unwrap();
    assert_eq!(ok.1.len(), 100);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Shape {
    Empty,
    Mesh {
        vertices: Array<f32>,
        indices: Array<u32>,
    },
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Scene {
    name: String,
    shapes: Vec<Shape>,
    extra: Option<Array<i64>>,
}

fn scene() -> Scene {
    Scene {
        name: "s".into(),
        shapes: vec![
            Shape::Mesh {
                vertices: Array::from_shape_vec(vec![3, 3], (0..9).map(|i| i as f32).collect())
                    .unwrap(),
                indices: Array::from_shape_vec(vec![1, 3], vec![0, 1, 2]).unwrap(),
            },
            Shape::Empty,
            Shape::Mesh {
                vertices: Array::from_shape_vec(vec![1, 3], vec![0.5; 3]).unwrap(),
                indices: Array::from_shape_vec(vec![0, 3], vec![]).unwrap(),
            },
        ],
        extra: Some(Array::scalar(-5)),
    }
}

#[test]
fn arrays_nested_in_enums_vecs_and_options() {
    let s = scene();
    let bytes = kiln::to_vec(&s).unwrap();
    assert_eq!(kiln::array::list(&bytes).unwrap().len(), 5);
    assert_eq!(kiln::serialized_size(&s).unwrap(), bytes.len() as u64);
    let mut w = Vec::new();
    kiln::to_writer(&mut w, &s).unwrap();
    assert_eq!(w, bytes);
    assert_eq!(kiln::from_slice::<Scene>(&bytes).unwrap(), s);
    let third: Array<f32> = kiln::array::fetch(&bytes, 2).unwrap();
    assert_eq!(third.data(), [0.5; 3]);
}

/// A sequence of unknown length: the stream writer buffers it, and block
/// alignment must still count from the record start.
struct Unsized<'a>(&'a [Array<u8>]);

impl Serialize for Unsized<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().filter(|_| true))
    }
}

#[test]
fn unknown_length_sequences_align_the_same_in_streams() {
    let arrays = vec![
        Array::from_vec(vec![1u8; 3]),
        Array::from_vec(vec![2u8; 70]),
    ];
    let value = ("abc", Unsized(&arrays), 9u16);
    let bytes = kiln::to_vec(&value).unwrap();
    let mut w = Vec::new();
    kiln::to_writer(&mut w, &value).unwrap();
    assert_eq!(w, bytes);
    let ranges: Vec<_> = kiln::array::list(&bytes)
        .unwrap()
        .iter()
        .map(|i| i.byte_range())
        .collect();
    assert_eq!(ranges, [64..67, 128..198]);
    let back: (String, Vec<Array<u8>>, u16) = kiln::from_slice(&bytes).unwrap();
    assert_eq!(back.1, arrays);
    let streamed: (String, Vec<Array<u8>>, u16) = kiln::from_reader(&bytes[..]).unwrap();
    assert_eq!(streamed, back);
}

#[test]
fn appending_to_a_buffer_aligns_from_the_record_start() {
    let a = Array::from_vec(vec![3u64, 4]);
    let alone = kiln::to_vec(&("hi", &a)).unwrap();
    let mut buf = vec![0xaa; 5];
    kiln::to_vec_into(&("hi", &a), &mut buf).unwrap();
    assert_eq!(&buf[5..], &alone[..]);
}

#[test]
fn one_serializer_many_records_with_finish() {
    let mut buf = Vec::new();
    let mut ser = kiln::Serializer::new(&mut buf);
    Array::from_vec(vec![1u8]).serialize(&mut ser).unwrap();
    ser.finish().unwrap();
    let first_len = buf.len();
    let mut ser = kiln::Serializer::new(&mut buf);
    (1u8, Array::from_vec(vec![2u16]))
        .serialize(&mut ser)
        .unwrap();
    ser.finish().unwrap();
    let one: Array<u8> = kiln::from_slice(&buf[..first_len]).unwrap();
    let two: (u8, Array<u16>) = kiln::from_slice(&buf[first_len..]).unwrap();
    assert_eq!((one.data(), two.1.data()), (&[1u8][..], &[2u16][..]));
}

#[test]
fn typed_reads_check_the_record_against_the_directory() {
    let bytes = kiln::to_vec(&(Array::from_vec(vec![1u8]), Array::from_vec(vec![2u8]))).unwrap();
    // One array fewer than the directory lists.
    let err = kiln::from_slice::<Array<u8>>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "array-count");
    assert_eq!(err.offset(), Some(1));
    // The wrong element type.
    let err = kiln::from_slice::<(Array<u8>, Array<i8>)>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "dtype-mismatch");
    assert_eq!(err.offset(), Some(1));
    assert_eq!(err.path().as_deref(), Some(".1"));
    // A record of a type without arrays does not accept a directory.
    let err = kiln::from_slice::<u8>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "trailing-bytes");
}

#[test]
fn shape_checks_and_write_limits() {
    let err = Array::from_shape_vec(vec![2, 3], vec![0u8; 5]).unwrap_err();
    assert_eq!(err.kind().code(), "shape-mismatch");
    assert_eq!(
        err.to_string(),
        "shape mismatch: the shape holds 6 elements, found 5"
    );
    assert_eq!(
        ArrayView::new(vec![usize::MAX, 2], &[0u8; 0][..])
            .unwrap_err()
            .kind()
            .code(),
        "shape-mismatch"
    );
    let nine = Array::from_shape_vec(vec![1; 9], vec![1u8]).unwrap();
    let err = kiln::to_vec(&nine).unwrap_err();
    assert_eq!(err.kind().code(), "rank-limit");
    let eight = Array::from_shape_vec(vec![1; 8], vec![1u8]).unwrap();
    let back: Array<u8> = kiln::from_slice(&kiln::to_vec(&eight).unwrap()).unwrap();
    assert_eq!(back, eight);
}

#[test]
fn other_formats_check_shapes_too() {
    let err = serde_json::from_str::<Array<u8>>(r#"{"shape":[2,2],"data":[1,2,3]}"#).unwrap_err();
    assert!(
        err.to_string().contains("does not hold 3 elements"),
        "{err}"
    );
    let a: Array<u8> = serde_json::from_str(r#"{"shape":[3],"data":[1,2,3]}"#).unwrap();
    assert_eq!(a.data(), [1, 2, 3]);
    assert_eq!(
        serde_json::to_string(&Array::from_shape_vec(vec![1, 2], vec![5i16, -6]).unwrap()).unwrap(),
        r#"{"shape":[1,2],"data":[5,-6]}"#
    );
    let bin = bincode::serde::encode_to_vec(scene(), bincode::config::standard()).unwrap();
    let (back, _): (Scene, _) =
        bincode::serde::decode_from_slice(&bin, bincode::config::standard()).unwrap();
    assert_eq!(back, scene());
}

#[test]
fn padding_must_be_zero() {
    let mut bytes = kiln::to_vec(&("ab", Array::from_vec(vec![1u32]))).unwrap();
    bytes[40] = 1;
    let err = kiln::from_slice::<(String, Array<u32>)>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "padding-nonzero");
    assert_eq!(err.offset(), Some(40));
}

#[cfg(feature = "ndarray")]
mod with_ndarray {
    use super::*;
    use ndarray::{ArrayD, IxDyn, s};

    #[test]
    fn owned_conversions_keep_shape_and_order() {
        let nd =
            ndarray::Array::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as i32);
        let k = Array::from(nd.clone());
        assert_eq!(k.shape(), [2, 3, 4]);
        assert_eq!(&k.data()[..5], [0, 1, 2, 3, 10]);
        let back = ArrayD::try_from(k).unwrap();
        assert_eq!(back, nd.clone().into_dyn());
        // A transposed (column-major) array is copied in row-major order.
        let t = Array::from(nd.clone().reversed_axes());
        assert_eq!(t.shape(), [4, 3, 2]);
        assert_eq!(&t.data()[..3], [0, 100, 10]);
        // A sliced array that starts inside its buffer.
        let sliced = nd.slice_move(s![1.., .., ..]);
        let k = Array::from(sliced.clone());
        assert_eq!(k.shape(), [1, 3, 4]);
        assert_eq!(k.data(), sliced.iter().copied().collect::<Vec<_>>());
    }

    #[test]
    fn views_convert_without_copying() {
        let bytes = std::fs::read(GOLDEN).unwrap();
        let aligned = AlignedBytes::from_slice(&bytes);
        let v: ArrayView<f32> = kiln::array::fetch_view(aligned.as_slice(), 0).unwrap();
        let nd = v.to_ndarray().unwrap();
        assert_eq!(nd.shape(), [3, 4, 5]);
        assert_eq!(nd[IxDyn(&[1, 2, 3])], (20 + 10 + 3) as f32 * 0.5);
        assert_eq!(nd.as_ptr(), v.data().as_ptr());
        let again = ArrayView::try_from(nd.view()).unwrap();
        assert_eq!(again, v);
        let err = ArrayView::try_from(nd.t()).unwrap_err();
        assert_eq!(err.kind().code(), "view-unavailable");
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Mesh {
        #[serde(with = "kiln::array::serde_ndarray")]
        vertices: ndarray::Array2<f32>,
        #[serde(with = "kiln::array::serde_ndarray")]
        indices: ndarray::Array2<u32>,
    }

    #[test]
    fn ndarray_fields_are_kiln_arrays() {
        let mesh = Mesh {
            vertices: ndarray::Array2::from_shape_fn((4, 3), |(i, j)| (i * 3 + j) as f32),
            indices: ndarray::arr2(&[[0, 1, 2], [0, 2, 3]]),
        };
        let bytes = kiln::to_vec(&mesh).unwrap();
        let expect = kiln::to_vec(&(
            Array::from(mesh.vertices.clone()),
            Array::from(mesh.indices.clone()),
        ))
        .unwrap();
        assert_eq!(bytes, expect);
        assert_eq!(kiln::from_slice::<Mesh>(&bytes).unwrap(), mesh);
        // A non-contiguous field is written in row-major order.
        let t = Mesh {
            vertices: mesh.vertices.t().to_owned(),
            indices: mesh.indices.clone(),
        };
        let tb = kiln::to_vec(&Mesh {
            vertices: mesh.vertices.clone().reversed_axes(),
            indices: mesh.indices.clone(),
        })
        .unwrap();
        assert_eq!(kiln::from_slice::<Mesh>(&tb).unwrap(), t);
        // The wrong rank is refused.
        let three = kiln::to_vec(&(
            Array::<f32>::zeros(vec![1, 1, 1]).unwrap(),
            Array::<u32>::zeros(vec![0, 3]).unwrap(),
        ))
        .unwrap();
        let err = kiln::from_slice::<Mesh>(&three).unwrap_err();
        assert!(err.to_string().contains("expected rank"), "{err}");
    }
}

/// Every single-byte change and every truncation of the golden record is
/// either read or refused with an error: never a panic.
#[test]
fn mutated_golden_records_never_panic() {
    let golden = std::fs::read(GOLDEN).unwrap();
    let try_all = |b: &[u8]| {
        let typed = kiln::from_slice::<GoldenSample>(b);
        let listed = kiln::array::list(b);
        let fetched = kiln::array::fetch::<u32>(b, 1);
        let aligned = AlignedBytes::from_slice(b);
        let viewed = kiln::array::fetch_view::<f32>(aligned.as_slice(), 0);
        let streamed = kiln::from_reader::<_, GoldenSample>(b);
        (
            typed.is_ok(),
            listed.is_ok(),
            fetched.is_ok(),
            viewed.is_ok(),
            streamed.is_ok(),
        )
    };
    let mut refused = 0;
    for at in 0..golden.len() {
        for x in [0x01u8, 0x80, 0xff] {
            let mut b = golden.clone();
            b[at] ^= x;
            let (typed, _, _, _, streamed) = try_all(&b);
            assert_eq!(typed, streamed, "slice and stream agree at {at}");
            refused += usize::from(!typed);
        }
    }
    // Only changes inside the blocks' values (and the label's letters)
    // can still be read; every padding, directory and trailer byte counts.
    assert!(refused > 3 * (504 - 240 - 72 - 4) - 10, "{refused}");
    for len in 0..golden.len() {
        let (typed, ..) = try_all(&golden[..len]);
        assert!(!typed, "truncated to {len} bytes");
    }
}

#[test]
fn quickcheck_round_trips_with_any_prefix() {
    fn prop(prefix: String, dims: Vec<u8>, seed: u64) -> bool {
        let shape: Vec<usize> = dims.iter().take(4).map(|&d| d as usize % 5).collect();
        let n: usize = shape.iter().product();
        let data: Vec<f64> = (0..n)
            .map(|i| f64::from_bits(seed.wrapping_mul(i as u64 + 1)))
            .collect();
        let a = Array::from_shape_vec(shape.clone(), data).unwrap();
        let b = Array::from_vec(vec![seed as u16; n % 3]);
        let value = (prefix, a, b);
        let bytes = kiln::to_vec(&value).unwrap();
        let info = kiln::array::list(&bytes).unwrap();
        let back: (String, Array<f64>, Array<u16>) = kiln::from_slice(&bytes).unwrap();
        let bits = |x: &Array<f64>| x.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        info.len() == 2
            && info.iter().all(|i| i.byte_range().start % 64 == 0)
            && info[0].shape() == shape.iter().map(|&d| d as u64).collect::<Vec<_>>()
            && back.0 == value.0
            && back.1.shape() == value.1.shape()
            && bits(&back.1) == bits(&value.1)
            && back.2 == value.2
            && kiln::serialized_size(&value).unwrap() == bytes.len() as u64
    }
    quickcheck::QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(String, Vec<u8>, u64) -> bool);
}

#[test]
fn array_cow_borrows_when_it_can_and_copies_when_it_cannot() {
    use kiln::ArrayCow;
    let golden = std::fs::read(GOLDEN).unwrap();
    #[derive(Deserialize)]
    struct Cow<'a> {
        label: &'a str,
        #[serde(borrow)]
        image: ArrayCow<'a, f32>,
        #[serde(borrow)]
        index: ArrayCow<'a, u32>,
    }
    let aligned = AlignedBytes::from_slice(&golden);
    let c: Cow = kiln::from_slice(aligned.as_slice()).unwrap();
    assert_eq!(c.label, "kiln");
    assert!(c.image.is_borrowed() && c.index.is_borrowed());
    assert_eq!(
        c.image.data().as_ptr() as usize,
        aligned.as_slice()[64..].as_ptr() as usize
    );
    assert_eq!(c.image.shape(), [3, 4, 5]);
    assert_eq!(c.index.clone().into_owned(), golden_sample().index);

    let mut shifted = vec![0u8; 2];
    shifted.extend_from_slice(&golden);
    let shifted = AlignedBytes::from_slice(&shifted);
    let c: Cow = kiln::from_slice(&shifted.as_slice()[2..]).unwrap();
    assert!(!c.image.is_borrowed() && !c.index.is_borrowed());
    assert_eq!(c.image.into_owned(), golden_sample().image);

    // Streams and other formats copy.
    let mut de = kiln::Deserializer::from_reader(&golden[..]).whole_record();
    let c = <(String, ArrayCow<f32>, ArrayCow<u32>)>::deserialize(&mut de).unwrap();
    assert!(!c.1.is_borrowed());
    de.end().unwrap();
    let json = serde_json::to_string(&golden_sample().index).unwrap();
    let c: ArrayCow<u32> = serde_json::from_str(&json).unwrap();
    assert_eq!(c, ArrayCow::Owned(golden_sample().index));
    // Writing a cow writes the array.
    assert_eq!(
        kiln::to_vec(&(
            "kiln",
            ArrayCow::Owned(golden_sample().image),
            golden_sample().index
        ))
        .unwrap(),
        golden
    );
}
