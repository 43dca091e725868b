//! Arbitrary text parsed as a schema text: never a panic, and a text that
//! parses writes back byte for byte with the same fingerprint.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match kiln::schema::parse(text) {
        Ok(model) => {
            let schema = kiln::schema::Canonical::from_model(model);
            assert_eq!(schema.text(), Some(text));
            assert_eq!(
                schema.fingerprint(),
                kiln::schema::Fingerprint::of_text(text)
            );
        }
        Err(e) => {
            assert_eq!(e.kind().code(), "schema-text");
            assert!(e.offset().is_some_and(|o| o <= text.len() as u64), "{e}");
        }
    }
});
