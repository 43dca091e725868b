//! Runs `spec/vectors/directory.json` (made by
//! `spec/tools/gen_directory_vectors.py` from the chapter's layout, not by
//! this crate): valid vectors in both directions, must-reject vectors with
//! their error code and offset.

use crate::common::{hex, to_hex};
use kiln::Array;
use serde_json::Value;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors/directory.json");

type Two = (Array<u8>, Array<u16>);
type Labeled = (String, Array<u16>);

/// Decodes `bytes` as `ty` and re-encodes it (valid vectors), or returns
/// the decoding error.
fn decode_as(ty: &str, bytes: &[u8], value: Option<&Value>) -> kiln::Result<()> {
    macro_rules! check {
        ($t:ty) => {{
            let got: $t = kiln::from_slice(bytes)?;
            if let Some(v) = value {
                let want: $t = serde_json::from_value(v.clone()).unwrap();
                assert_eq!(got, want, "decoded value");
                assert_eq!(
                    to_hex(&kiln::to_vec(&want).unwrap()),
                    to_hex(bytes),
                    "encoded"
                );
            }
            Ok(())
        }};
    }
    match ty {
        "Array<f32>" => check!(Array<f32>),
        "Array<u8>" => check!(Array<u8>),
        "Labeled<u16>" => check!(Labeled),
        "Two" => check!(Two),
        "u8" => check!(u8),
        other => panic!("unknown type {other}"),
    }
}

fn run(v: &Value) -> kiln::Result<()> {
    let bytes = hex(v["hex"].as_str().unwrap());
    match v["mode"].as_str().unwrap_or("decode") {
        "decode" => decode_as(v["type"].as_str().unwrap(), &bytes, v.get("value")),
        "list" => kiln::array::list(&bytes).map(drop),
        "take" => {
            assert_eq!(v["type"], "Array<u8>");
            kiln::take_from_slice::<Array<u8>>(&bytes).map(drop)
        }
        "fetch" => {
            let index = v["index"].as_u64().unwrap() as usize;
            match v["element"].as_str().unwrap() {
                "u8" => kiln::array::fetch::<u8>(&bytes, index).map(drop),
                other => panic!("unknown element {other}"),
            }
        }
        other => panic!("unknown mode {other}"),
    }
}

#[test]
fn directory_vectors() {
    let file: Value = serde_json::from_str(&std::fs::read_to_string(FILE).unwrap()).unwrap();
    assert_eq!(file["area"], "directory");
    let vectors = file["vectors"].as_array().unwrap();
    let (mut valid, mut rejected) = (0, 0);
    for v in vectors {
        let name = v["name"].as_str().unwrap();
        assert!(name.starts_with("kiln-directory-"), "{name}");
        let result = run(v);
        match v.get("error") {
            None => {
                result.unwrap_or_else(|e| panic!("{name}: {e}"));
                valid += 1;
            }
            Some(code) => {
                let err = result.expect_err(name);
                assert_eq!(err.kind().code(), code.as_str().unwrap(), "{name}: {err}");
                assert_eq!(err.offset(), v["offset"].as_u64(), "{name}: {err}");
                rejected += 1;
            }
        }
    }
    assert!(
        valid >= 4 && rejected >= 25,
        "{valid} valid, {rejected} rejected"
    );
}

/// Every directory rule has a must-reject vector.
#[test]
fn every_rule_has_a_vector() {
    let text = std::fs::read_to_string(FILE).unwrap();
    for code in [
        "directory-missing",
        "record-end-unknown",
        "directory-offset",
        "directory-length",
        "directory-reserved",
        "unknown-dtype",
        "rank-limit",
        "dimension-limit",
        "array-size-overflow",
        "block-length",
        "block-misaligned",
        "block-out-of-bounds",
        "block-order",
        "block-overlap",
        "padding-nonzero",
        "array-position",
        "dtype-mismatch",
        "array-count",
        "directory-position",
        "array-index",
    ] {
        assert!(
            text.contains(&format!("\"error\": \"{code}\"")),
            "no vector for {code}"
        );
    }
}
