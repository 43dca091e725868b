//! A value built by `arbitrary` is written and read back bit for bit; see
//! `kiln_fuzz::check_roundtrip`.
#![no_main]

libfuzzer_sys::fuzz_target!(|value: kiln_fuzz::RichOwned| kiln_fuzz::check_roundtrip(&value));
