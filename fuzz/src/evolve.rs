//! The `evolve` target's reader type and check: arbitrary writer schema
//! texts and payloads read as one fixed reader type through
//! `FrameOptions::evolve()` (spec chapter 12).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The reader: fields with defaults and options, nested structs in a
/// sequence, an enum with an `other` variant, a map, numbers that older
/// versions may have written narrower.
#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
#[serde(rename = "Rec")]
pub struct Reader {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub tags: Vec<String>,
    pub score: Option<f64>,
    pub kind: Kind,
    pub items: Vec<Item>,
    pub meta: BTreeMap<String, i64>,
}

/// The reader's enum.
#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
pub enum Kind {
    A,
    B(u32),
    C {
        x: f64,
    },
    #[serde(other)]
    Other,
}

/// The reader's nested struct.
#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
pub struct Item {
    pub v: i64,
    #[serde(default)]
    pub w: Option<u16>,
}

/// An older version of [`Reader`], for seeds: narrower numbers, a field
/// since dropped, no `tags`, a variant since removed.
#[derive(Serialize, kiln::Schema, Debug)]
#[serde(rename = "Rec")]
pub struct Older {
    pub id: u32,
    pub name: String,
    pub dropped: Vec<(bool, char)>,
    pub score: f32,
    pub kind: OlderKind,
    pub items: Vec<OlderItem>,
    pub meta: BTreeMap<String, i32>,
}

/// [`Older`]'s enum.
#[derive(Serialize, kiln::Schema, Debug)]
#[serde(rename = "Kind")]
pub enum OlderKind {
    A,
    B(u16),
    Gone(String),
}

/// [`Older`]'s nested struct.
#[derive(Serialize, kiln::Schema, Debug)]
#[serde(rename = "Item")]
pub struct OlderItem {
    pub v: i32,
}

/// A frame of one record (`spec/06-frame.md`) that embeds `text`, with
/// `payload` as its record and no checksum: written here from the byte
/// table, so that any text, canonical or not, gets a frame whose
/// fingerprint is its own.
pub fn frame(text: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = kiln::frame::MAGIC.to_vec();
    out.extend_from_slice(&kiln::frame::VERSION.to_le_bytes());
    out.extend_from_slice(&kiln::frame::FLAG_SCHEMA.to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(&kiln::schema::Fingerprint::of_text(text).to_le_bytes());
    out.extend_from_slice(&1u64.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.resize(kiln::frame::HEADER_LEN, 0);
    out.extend_from_slice(text.as_bytes());
    out.resize(out.len().next_multiple_of(64), 0);
    out.extend_from_slice(payload);
    out
}

/// The input: a `u16` little-endian length, that many bytes of writer
/// schema text, then the record. Read as [`Reader`] from a frame that
/// embeds the text: never a panic; a refusal before any value exactly
/// when `schema::check` refuses the text; the slice and stream readers
/// agree; every error has an offset inside the frame.
pub fn check_evolve(data: &[u8]) {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let len = usize::from(u16::from_le_bytes(*len));
    let Some(text) = rest.get(..len) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let payload = &rest[len..];
    let bytes = frame(text, payload);
    let evolve = kiln::frame::FrameOptions::new()
        .checksum(false)
        .decode(crate::opts())
        .evolve();
    let slice = evolve.from_slice::<Reader>(&bytes);
    let stream = evolve.from_reader::<_, Reader>(&bytes[..]);
    // The stream reader agrees with the slice reader as in the other
    // targets (`same_outcome`): only a slice refuses a count up front, and
    // only a stream has a byte limit to meet first.
    match (&slice, &stream) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(e), Err(f)) if f.kind().code() == "byte-limit" && e.offset() >= f.offset() => {}
        (Err(e), Err(f)) if e.kind().code() == "count-too-large" => {
            assert!(f.offset() >= e.offset(), "{e} / {f}");
        }
        (Err(e), Err(f)) => {
            assert_eq!(
                (e.kind().code(), e.offset(), e.path()),
                (f.kind().code(), f.offset(), f.path()),
                "{e} / {f}"
            );
        }
        _ => panic!("slice {slice:?} and stream {stream:?} disagree under {text:?}"),
    }
    if let Err(e) = &slice {
        assert!(
            e.offset().is_some_and(|o| o <= bytes.len() as u64),
            "{e} (frame of {} bytes)",
            bytes.len()
        );
    }
    let ours = kiln::schema::schema_of::<Reader>().expect("the reader has a schema");
    if kiln::schema::Fingerprint::of_text(text) == ours.fingerprint() {
        return;
    }
    match kiln::schema::check::<Reader>(text) {
        // Not canonical text: the frame is refused at its text.
        Err(_) => assert!(slice.is_err()),
        Ok(report) => {
            let refused = matches!(&slice, Err(e) if e.kind().code() == "schema-incompatible");
            assert_eq!(refused, !report.is_compatible(), "{report}\n{slice:?}");
        }
    }
}
