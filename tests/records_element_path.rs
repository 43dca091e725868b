//! The path a big-endian host takes for sequences of records: no layout
//! applies and every record goes through its serde impls. Forced here with
//! `kiln::block::element_path_only`, which is global, hence this test
//! binary of its own. The bytes and values must be those of the one-copy
//! path (tests/format/records.rs checks that path).

use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
struct Vertex {
    position: [f32; 3],
    #[serde(serialize_with = "count_write", deserialize_with = "count_read")]
    id: u32,
}

#[test]
fn records_take_the_element_path_with_the_same_bytes() {
    kiln::block::element_path_only(true);
    assert!(!kiln::block::registered::<[f32; 3]>());
    kiln::block::register::<Vertex>().unwrap();
    assert!(!kiln::block::registered::<Vertex>());

    let mesh: Vec<Vertex> = (0..100u32)
        .map(|i| Vertex {
            position: [i as f32, -(i as f32), 0.5],
            id: i,
        })
        .collect();
    let (w0, r0) = (
        WRITTEN.load(Ordering::Relaxed),
        READ.load(Ordering::Relaxed),
    );
    // Room enough up front: `to_vec_into` then runs each impl once.
    let mut bytes = Vec::with_capacity(4096);
    kiln::to_vec_into(&mesh, &mut bytes).unwrap();
    let back: Vec<Vertex> = kiln::from_slice(&bytes).unwrap();
    assert_eq!(back, mesh);
    // Every record went through its serde impls.
    assert_eq!(WRITTEN.load(Ordering::Relaxed) - w0, 100);
    assert_eq!(READ.load(Ordering::Relaxed) - r0, 100);

    // The bytes of chapter 3, written out by hand.
    let mut expected = 100u32.to_le_bytes().to_vec();
    for v in &mesh {
        for x in v.position {
            expected.extend_from_slice(&x.to_le_bytes());
        }
        expected.extend_from_slice(&v.id.to_le_bytes());
    }
    assert_eq!(bytes, expected);

    let arrays = vec![[[1.5f64, -2.0], [0.0, 4.0]]; 3];
    let bytes = kiln::to_vec(&arrays).unwrap();
    let expected: Vec<u8> = 3u32
        .to_le_bytes()
        .into_iter()
        .chain(
            arrays
                .iter()
                .flatten()
                .flatten()
                .flat_map(|x| x.to_le_bytes()),
        )
        .collect();
    assert_eq!(bytes, expected);
    assert_eq!(
        kiln::from_slice::<Vec<[[f64; 2]; 2]>>(&bytes).unwrap(),
        arrays
    );
    let mut buf = vec![0u8; bytes.len()];
    assert_eq!(kiln::to_slice(&arrays, &mut buf).unwrap(), bytes.as_slice());
}
