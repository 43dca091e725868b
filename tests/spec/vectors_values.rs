//! `spec/vectors/values.json`: bytes read without their type, by their
//! schema text alone, to the JSON of `spec/10-values.md`; written back to
//! the same bytes; and the must-reject vectors failing with the typed
//! reader's error, offset and path.

use kiln::value::{self, Plan};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn values_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors/values.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(file["area"], "values");
    let mut valid = 0;
    let mut rejected = 0;
    for v in file["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let plan =
            Plan::parse(v["schema"].as_str().unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = hex(v["hex"].as_str().unwrap());
        match v.get("json") {
            Some(json) => {
                let value =
                    value::from_slice(&bytes, &plan).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(
                    serde_json::to_string(&value).unwrap(),
                    json.as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    value::to_vec(&value, &plan).unwrap(),
                    bytes,
                    "{name}: written back"
                );
                valid += 1;
            }
            None => {
                let mut out = b"kept".to_vec();
                let printed = value::write_json(&bytes, &plan, &mut out).unwrap_err();
                assert_eq!(out, b"kept", "{name}: nothing printed on error");
                let err = value::from_slice(&bytes, &plan).unwrap_err();
                assert_eq!(
                    (printed.kind().code(), printed.offset()),
                    (err.kind().code(), err.offset()),
                    "{name}"
                );
                assert_eq!(
                    err.kind().code(),
                    v["error"].as_str().unwrap(),
                    "{name}: {err}"
                );
                assert_eq!(err.offset(), v["offset"].as_u64(), "{name}: {err}");
                assert_eq!(err.path().as_deref(), v["path"].as_str(), "{name}: {err}");
                rejected += 1;
            }
        }
    }
    assert!(
        valid >= 25 && rejected >= 5,
        "{valid} valid, {rejected} rejected"
    );
}
