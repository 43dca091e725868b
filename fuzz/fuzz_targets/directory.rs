//! See `kiln_fuzz::check_directory`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kiln_fuzz::check_directory(data));
