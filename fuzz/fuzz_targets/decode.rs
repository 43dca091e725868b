//! Arbitrary bytes decoded from a slice (borrowed and owned) and from
//! readers must agree; see `kiln_fuzz::check_decode`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kiln_fuzz::check_decode(data));
