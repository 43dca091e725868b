//! See `kiln_fuzz::check_frame`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kiln_fuzz::check_frame(data));
