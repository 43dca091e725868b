//! Arbitrary writer schema texts and records read as one fixed reader
//! type through `FrameOptions::evolve()`: see `kiln_fuzz::check_evolve`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kiln_fuzz::check_evolve(data));
