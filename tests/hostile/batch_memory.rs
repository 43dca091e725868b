//! A million-record framed batch read back through `io::Read` in bounded
//! memory, measured with the binary's counting allocator (per thread).

use kiln::frame::{self, FrameOptions};

use crate::common::Point;
use crate::common::alloc::measure;

const N: i32 = 1_000_000;

#[test]
fn million_points_in_bounded_memory() {
    let points = (0..N).map(|i| Point { x: i, y: -i });
    let bytes = FrameOptions::new()
        .batch_to_vec(&points.collect::<Vec<_>>())
        .unwrap();
    assert_eq!(bytes.len(), 64 + 8_000_000);

    let ((n, sum), cost) = measure(|| {
        let mut n = 0i64;
        let mut sum = 0i64;
        for p in frame::batch_from_reader::<_, Point>(&bytes[..]).unwrap() {
            let p = p.unwrap();
            assert_eq!(p.x, -p.y);
            sum += i64::from(p.x);
            n += 1;
        }
        (n, sum)
    });
    let extra = cost.peak;
    assert_eq!(n, i64::from(N));
    assert_eq!(sum, i64::from(N) * i64::from(N - 1) / 2);
    // The input is 8 MB; the reader holds an 8 KiB buffer and the schema.
    assert!(
        extra < 64 * 1024,
        "reading took {extra} bytes beyond the input"
    );

    // Streamed form, with a count the header does not state.
    let mut w = FrameOptions::new()
        .batch_writer::<_, Point>(Vec::new())
        .unwrap();
    for i in 0..N {
        w.push(&Point { x: i, y: -i }).unwrap();
    }
    let streamed = w.finish().unwrap();
    let (count, cost) = measure(|| {
        let mut count = 0usize;
        for p in frame::batch_from_reader::<_, Point>(&streamed[..]).unwrap() {
            assert_eq!(p.unwrap().x as usize, count);
            count += 1;
        }
        count
    });
    let extra = cost.peak;
    assert_eq!(count, N as usize);
    assert!(extra < 64 * 1024, "streamed reading took {extra} bytes");
}

/// A file's frame header claiming half a GiB of payload, in a stream of a
/// few hundred bytes: the stream reader's buffer grows with the bytes that
/// come, not with the claim, and the frame is a torn tail at 0.
#[test]
fn a_file_stream_allocates_for_the_bytes_it_gets_not_the_header_claim() {
    let points: Vec<Point> = (0..30).map(|i| Point { x: i, y: -i }).collect();
    let mut bytes = frame::batch_to_vec(&points).unwrap();
    bytes[32..40].copy_from_slice(&(512u64 << 20).to_le_bytes());
    let (items, cost) = measure(|| {
        kiln::file::Reader::<_, Point>::new(&bytes[..])
            .map(|r| r.map_err(|e| (e.kind().code(), e.offset())))
            .collect::<Vec<_>>()
    });
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap_err(), &("truncated-tail", Some(0)));
    assert!(cost.largest < 1 << 20, "{cost:?}");
}
