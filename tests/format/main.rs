//! The format written and read back: every serde kind, blocks, shaped
//! arrays, frames, batches, schemas, and properties over random values.

#[path = "../common/mod.rs"]
mod common;

/// Counts allocations per thread (`common::alloc`), for the tests that
/// bound memory.
#[global_allocator]
static GLOBAL: common::alloc::Counting = common::alloc::Counting;

mod arrays;
mod batch;
mod block;
mod byte_arrays;
mod detail;
mod fixed_access;
mod frame;
mod frame_arrays;
mod properties;
mod python_written;
mod records;
mod roundtrip;
mod schema;
mod value;
mod zoo;
