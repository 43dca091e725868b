//! Arbitrary bytes read by an arbitrary schema without a Rust type
//! (`kiln::value`): never a panic, never unbounded work; a value that
//! reads writes back to the same bytes, and prints as JSON, the same
//! text whether printed from the value or while reading the bytes.
//!
//! Input: a `u16` little-endian length, that many bytes of schema text,
//! then the record.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let len = usize::from(u16::from_le_bytes(*len));
    let Some(text) = rest.get(..len) else {
        return;
    };
    let record = &rest[len..];
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(plan) = kiln::value::Plan::parse(text) else {
        return;
    };
    match kiln::value::from_slice(record, &plan) {
        Ok(v) => {
            let back = kiln::value::to_vec(&v, &plan).expect("a value read writes back");
            assert_eq!(back, record, "written back differently under {text}");
            let json = serde_json::to_vec(&v).expect("a value prints as JSON");
            let mut printed = Vec::new();
            kiln::value::write_json(record, &plan, &mut printed).expect("prints as it reads");
            assert_eq!(printed, json, "printed while read differs under {text}");
        }
        Err(e) => {
            assert!(e.offset().is_some_and(|o| o <= record.len() as u64), "{e}");
            let mut printed = Vec::new();
            let p = kiln::value::write_json(record, &plan, &mut printed).unwrap_err();
            assert_eq!((p.kind().code(), p.offset()), (e.kind().code(), e.offset()));
            assert!(printed.is_empty());
        }
    }
});
