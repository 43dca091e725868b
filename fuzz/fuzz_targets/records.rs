//! Sequences of records of numbers, in one copy and element by element;
//! see `kiln_fuzz::check_records`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kiln_fuzz::check_records(data));
