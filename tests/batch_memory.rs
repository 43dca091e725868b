//! A million-record framed batch read back through `io::Read` in bounded
//! memory, measured with a counting global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use kiln::frame::{self, FrameOptions};
use serde::{Deserialize, Serialize};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(live, Ordering::SeqCst);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Point {
    x: i32,
    y: i32,
}

const N: i32 = 1_000_000;

#[test]
fn million_points_in_bounded_memory() {
    let points = (0..N).map(|i| Point { x: i, y: -i });
    let bytes = FrameOptions::new()
        .batch_to_vec(&points.collect::<Vec<_>>())
        .unwrap();
    assert_eq!(bytes.len(), 64 + 8_000_000);

    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let mut n = 0i64;
    let mut sum = 0i64;
    for p in frame::batch_from_reader::<_, Point>(&bytes[..]).unwrap() {
        let p = p.unwrap();
        assert_eq!(p.x, -p.y);
        sum += i64::from(p.x);
        n += 1;
    }
    let extra = PEAK.load(Ordering::SeqCst) - base;
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
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let mut count = 0usize;
    for p in frame::batch_from_reader::<_, Point>(&streamed[..]).unwrap() {
        assert_eq!(p.unwrap().x as usize, count);
        count += 1;
    }
    let extra = PEAK.load(Ordering::SeqCst) - base;
    assert_eq!(count, N as usize);
    assert!(extra < 64 * 1024, "streamed reading took {extra} bytes");
}
