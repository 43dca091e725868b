//! A global allocator that counts, per thread, the bytes allocated in all
//! (total), the most held at once (peak) and the number of allocations.
//!
//! Counters are thread-local so that tests running in parallel on the test
//! harness's threads do not see each other's allocations. [`measure`] resets
//! them, runs a closure and reports what it cost.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Wraps the system allocator and counts.
pub struct Counting;

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static TOTAL: Cell<usize> = const { Cell::new(0) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn on_alloc(size: usize) {
    // `try_with`: the allocator may run while thread-locals are torn down.
    let _ = CURRENT.try_with(|c| {
        let now = c.get() + size as isize;
        c.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
    let _ = TOTAL.try_with(|t| t.set(t.get() + size));
    let _ = CALLS.try_with(|n| n.set(n.get() + 1));
    let _ = LARGEST.try_with(|m| m.set(m.get().max(size)));
}

fn on_dealloc(size: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get() - size as isize));
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees carry over; the counting touches only
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        // SAFETY: forwarded unchanged (see the impl's comment).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        on_dealloc(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        on_dealloc(layout.size());
        on_alloc(new_size);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What one measured closure cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The most bytes held at once above what was held at the start.
    pub peak: usize,
    /// All bytes allocated (a `realloc` counts its new size).
    pub total: usize,
    /// Number of allocations and reallocations.
    pub calls: usize,
    /// The largest single allocation (a `realloc` counts its new size).
    pub largest: usize,
}

/// Runs `f` with the counters reset and returns its result and cost.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Cost) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    TOTAL.with(|t| t.set(0));
    CALLS.with(|n| n.set(0));
    LARGEST.with(|m| m.set(0));
    let out = f();
    let cost = Cost {
        peak: (PEAK.with(Cell::get) - base).max(0) as usize,
        total: TOTAL.with(Cell::get),
        calls: CALLS.with(Cell::get),
        largest: LARGEST.with(Cell::get),
    };
    (out, cost)
}
