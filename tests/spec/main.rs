//! The spec checked against the crate: every vector file, every golden
//! file, and the catalogue of rejections (chapter 9).

#[path = "../common/mod.rs"]
mod common;

mod golden;
mod rejections;
mod vectors;
mod vectors_batch;
mod vectors_block;
mod vectors_directory;
mod vectors_file;
mod vectors_frame;
mod vectors_values;
