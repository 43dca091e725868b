//! Input Kiln did not write: exact errors with offsets and paths, and
//! bounds on memory, stack and work for hostile bytes.

#[path = "../common/mod.rs"]
mod common;

/// Counts allocations per thread (`common::alloc`), for the tests that
/// bound memory.
#[global_allocator]
static GLOBAL: common::alloc::Counting = common::alloc::Counting;

mod batch_memory;
mod bounds;
mod defects;
mod errors;
mod hostile;
mod io_read_limit;
mod regressions;
