//! Records taken back to back from arbitrary bytes; see
//! `kiln_fuzz::check_take`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kiln_fuzz::check_take(data));
