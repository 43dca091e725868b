//! The exact error of every reject class: message, code, offset and path.
//!
//! Every case is decoded twice, from a slice and from an `io::Read`, and
//! both must give the same error. (The one deliberate difference, a count
//! too large for the input, is tested at the end: a reader does not know
//! how many bytes remain, so it finds the end of input instead.)

use std::collections::BTreeMap;

use crate::common::hex;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What a rejection must look like.
struct Expect<'a> {
    code: &'a str,
    offset: u64,
    path: Option<&'a str>,
    message: &'a str,
}

/// Decodes `bytes` as `T` from a slice and from a reader; both must fail
/// exactly as `want` says.
fn rejects<T: DeserializeOwned + std::fmt::Debug>(bytes: &[u8], want: Expect<'_>) {
    let from_slice = kiln::from_slice::<T>(bytes).unwrap_err();
    let from_reader = kiln::from_reader::<_, T>(bytes).unwrap_err();
    for (source, err) in [("slice", &from_slice), ("reader", &from_reader)] {
        assert_eq!(err.kind().code(), want.code, "{source}: {err}");
        assert_eq!(err.offset(), Some(want.offset), "{source}: {err}");
        assert_eq!(err.path().as_deref(), want.path, "{source}: {err}");
        assert_eq!(err.to_string(), want.message, "{source}");
    }
}

#[test]
fn bad_bool() {
    rejects::<bool>(
        &[0x02],
        Expect {
            code: "invalid-bool",
            offset: 0,
            path: None,
            message: "invalid bool: expected 00 or 01, found 02 at byte 0",
        },
    );
    #[derive(Deserialize, Debug, kiln::Schema)]
    #[allow(dead_code)]
    struct Flags {
        a: bool,
        b: bool,
    }
    rejects::<Flags>(
        &[0x01, 0xff],
        Expect {
            code: "invalid-bool",
            offset: 1,
            path: Some("Flags.b"),
            message: "invalid bool: expected 00 or 01, found ff at byte 1 in Flags.b",
        },
    );
}

#[test]
fn bad_option_tag() {
    rejects::<Option<u8>>(
        &[0x02, 0x00],
        Expect {
            code: "invalid-option-tag",
            offset: 0,
            path: None,
            message: "invalid option tag: expected 00 or 01, found 02 at byte 0",
        },
    );
    // The inner tag of a nested option.
    rejects::<Option<Option<u8>>>(
        &[0x01, 0x80],
        Expect {
            code: "invalid-option-tag",
            offset: 1,
            path: None,
            message: "invalid option tag: expected 00 or 01, found 80 at byte 1",
        },
    );
}

#[test]
fn surrogate_char() {
    rejects::<char>(
        &hex("00 d8 00 00"),
        Expect {
            code: "invalid-char",
            offset: 0,
            path: None,
            message: "invalid char: expected a Unicode scalar value, found 0xd800 at byte 0",
        },
    );
    rejects::<(u8, char)>(
        &hex("07 ff df 00 00"),
        Expect {
            code: "invalid-char",
            offset: 1,
            path: Some(".1"),
            message: "invalid char: expected a Unicode scalar value, found 0xdfff at byte 1 in .1",
        },
    );
}

#[test]
fn char_above_max() {
    rejects::<char>(
        &hex("00 00 11 00"),
        Expect {
            code: "invalid-char",
            offset: 0,
            path: None,
            message: "invalid char: expected a Unicode scalar value, found 0x110000 at byte 0",
        },
    );
    rejects::<char>(
        &hex("ff ff ff ff"),
        Expect {
            code: "invalid-char",
            offset: 0,
            path: None,
            message: "invalid char: expected a Unicode scalar value, found 0xffffffff at byte 0",
        },
    );
}

#[test]
fn invalid_utf8_points_at_the_bad_byte() {
    // "a", then a lone continuation byte: the bad byte is at offset 5.
    rejects::<String>(
        &hex("03 00 00 00 61 80 62"),
        Expect {
            code: "invalid-utf8",
            offset: 5,
            path: None,
            message: "invalid UTF-8: expected a string, found a bad sequence after 1 valid byte \
                      at byte 5",
        },
    );
    // A sequence cut short by the end of the string.
    rejects::<String>(
        &hex("03 00 00 00 61 62 e2"),
        Expect {
            code: "invalid-utf8",
            offset: 6,
            path: None,
            message: "invalid UTF-8: expected a string, found a bad sequence after 2 valid bytes \
                      at byte 6",
        },
    );
    // Borrowed strings are checked the same way.
    let err = kiln::from_slice::<&str>(&hex("02 00 00 00 c0 80")).unwrap_err();
    assert_eq!(err.kind().code(), "invalid-utf8");
    assert_eq!(err.offset(), Some(4));
    // Byte strings are not checked.
    let b: serde_bytes::ByteBuf = kiln::from_slice(&hex("02 00 00 00 c0 80")).unwrap();
    assert_eq!(b.as_slice(), [0xc0, 0x80]);
}

#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
enum Shape {
    Empty,
    Circle(f32),
    Rect(u16, bool),
    Poly { sides: u8, name: String },
}

#[test]
fn unknown_variant_index() {
    rejects::<Shape>(
        &hex("04 00 00 00"),
        Expect {
            code: "unknown-variant",
            offset: 0,
            path: Some("Shape"),
            message: "unknown variant: expected an index below 4 for enum Shape, found 4 \
                      at byte 0 in Shape",
        },
    );
    rejects::<Vec<Shape>>(
        &hex("02 00 00 00 00 00 00 00 ff ff ff ff"),
        Expect {
            code: "unknown-variant",
            offset: 8,
            path: Some("[1]"),
            message: "unknown variant: expected an index below 4 for enum Shape, \
                      found 4294967295 at byte 8 in [1]",
        },
    );
    // Result has two variants.
    rejects::<Result<u8, u8>>(
        &hex("02 00 00 00 00"),
        Expect {
            code: "unknown-variant",
            offset: 0,
            path: Some("Result"),
            message: "unknown variant: expected an index below 2 for enum Result, found 2 \
                      at byte 0 in Result",
        },
    );
}

#[test]
fn truncation_reports_the_value_that_could_not_be_read_whole() {
    rejects::<u32>(
        &[1, 2],
        Expect {
            code: "unexpected-end",
            offset: 0,
            path: None,
            message: "unexpected end of input: expected u32 (4 bytes), found 2 bytes at byte 0",
        },
    );
    rejects::<u8>(
        &[],
        Expect {
            code: "unexpected-end",
            offset: 0,
            path: None,
            message: "unexpected end of input: expected u8 (1 byte), found 0 bytes at byte 0",
        },
    );
    // A string whose bytes are cut: the offset is where its bytes begin.
    rejects::<String>(
        &hex("05 00 00 00 61 62"),
        Expect {
            code: "unexpected-end",
            offset: 4,
            path: None,
            message: "unexpected end of input: expected string bytes (5 bytes), found 2 bytes \
                      at byte 4",
        },
    );
    // A count cut short.
    rejects::<Vec<u8>>(
        &hex("01 00"),
        Expect {
            code: "unexpected-end",
            offset: 0,
            path: None,
            message: "unexpected end of input: expected count (u32) (4 bytes), found 2 bytes \
                      at byte 0",
        },
    );
    // A variant payload cut short, with the path through the variant.
    rejects::<Shape>(
        &hex("02 00 00 00 01 00"),
        Expect {
            code: "unexpected-end",
            offset: 6,
            path: Some("Shape::Rect.1"),
            message: "unexpected end of input: expected bool (1 byte), found 0 bytes at byte 6 \
                      in Shape::Rect.1",
        },
    );
    rejects::<Shape>(
        &hex("03 00 00 00 05 02 00 00 00 78"),
        Expect {
            code: "unexpected-end",
            offset: 9,
            path: Some("Shape::Poly.name"),
            message: "unexpected end of input: expected string bytes (2 bytes), found 1 byte \
                      at byte 9 in Shape::Poly.name",
        },
    );
}

#[test]
fn count_too_large() {
    // Slices know how many bytes remain: four billion u64s cannot fit in six.
    let bytes = hex("ff ff ff ff 00 00 00 00 00 00");
    let err = kiln::from_slice::<Vec<u64>>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(0));
    assert_eq!(err.path(), None);
    // For elements in general the bound is one byte per element plus the
    // zero-sized budget (2^20). (A Vec of numbers may be read as a block,
    // whose bound is the exact element size; its message says so.)
    let err = kiln::from_slice::<Vec<Option<u64>>>(&bytes).unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(0));
    assert_eq!(
        err.to_string(),
        "count too large: found a count of 4294967295, but the rest of the input can hold at most \
         1048582 elements (one byte each, plus the zero-byte budget) at byte 0"
    );
    // Maps too, with the path of the field.
    #[derive(Deserialize, Debug, kiln::Schema)]
    #[allow(dead_code)]
    struct Index {
        version: u8,
        entries: BTreeMap<u32, u32>,
    }
    let err = kiln::from_slice::<Index>(&hex("01 ff ff ff 7f")).unwrap_err();
    assert_eq!(err.kind().code(), "count-too-large");
    assert_eq!(err.offset(), Some(1));
    assert_eq!(err.path().as_deref(), Some("Index.entries"));
    assert_eq!(
        err.to_string(),
        "count too large: found a count of 2147483647, but the rest of the input can hold at most \
         1048576 elements (one byte each, plus the zero-byte budget) at byte 1 in Index.entries"
    );
}

#[test]
fn count_too_large_from_a_reader_is_the_end_of_input() {
    // A stream cannot say how much is left, so the reader reads elements
    // as they arrive (allocating only for what arrives) until the input
    // ends: the error is at the first read that could not complete.
    let bytes = hex("ff ff ff ff 00 00 00 00 00 00");
    // A block of u64s that would pass the 1 GiB byte limit is refused whole.
    let err = kiln::from_reader::<_, Vec<u64>>(&bytes[..]).unwrap_err();
    assert_eq!(err.kind().code(), "byte-limit");
    assert_eq!(err.offset(), Some(4));
    // Under the limit, it is read as it arrives and ends with the input.
    let err =
        kiln::from_reader::<_, Vec<u64>>(&hex("00 00 00 01 00 00 00 00 00 00")[..]).unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(4));
    #[derive(Deserialize, Debug, kiln::Schema)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
        y: i32,
    }
    let err = kiln::from_reader::<_, Vec<Point>>(&bytes[..]).unwrap_err();
    assert_eq!(err.kind().code(), "unexpected-end");
    assert_eq!(err.offset(), Some(8));
    assert_eq!(err.path().as_deref(), Some("[0].y"));
    assert_eq!(
        err.to_string(),
        "unexpected end of input: expected i32 (4 bytes), found 2 bytes at byte 8 in [0].y"
    );
}

#[test]
fn trailing_bytes() {
    rejects::<u8>(
        &[1, 2, 3],
        Expect {
            code: "trailing-bytes",
            offset: 1,
            path: None,
            message: "trailing bytes: expected end of input, found 2 more bytes at byte 1",
        },
    );
    #[derive(Deserialize, Debug, kiln::Schema)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
        y: i32,
    }
    rejects::<Point>(
        &hex("09 00 00 00 fc ff ff ff 00"),
        Expect {
            code: "trailing-bytes",
            offset: 8,
            path: None,
            message: "trailing bytes: expected end of input, found 1 more byte at byte 8",
        },
    );
    // take_from_slice hands them back instead.
    let (v, rest) = kiln::take_from_slice::<u8>(&[1, 2, 3]).unwrap();
    assert_eq!((v, rest), (1, &[2u8, 3][..]));
}

/// `Option<Box<Nest>>` all the way down: two levels per byte (the newtype
/// struct and the option).
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Nest(Option<Box<Nest>>);

#[test]
fn depth_limit() {
    // A depth error is at the first byte of the value that is too deep.
    // The Nest read before option tag k is level 2k + 1, its option level
    // 2k + 2. With the default limit of 128, the Nest before tag 64 would
    // be level 129: the error is at byte 64, before that tag is read.
    let mut bytes = vec![1u8; 200];
    bytes.push(0);
    rejects::<Nest>(
        &bytes,
        Expect {
            code: "depth-limit",
            offset: 64,
            path: Some("Nest"),
            message: "nesting too deep: the limit is 128 levels at byte 64 in Nest",
        },
    );
    // Tags 0..=63 use levels 1..=128 exactly: that fits; one more does not.
    let mut ok = vec![1u8; 63];
    ok.push(0);
    kiln::from_slice::<Nest>(&ok).unwrap();
    let mut too_deep = vec![1u8; 64];
    too_deep.push(0);
    let err = kiln::from_slice::<Nest>(&too_deep).unwrap_err();
    assert_eq!((err.kind().code(), err.offset()), ("depth-limit", Some(64)));

    // Sequences: the fourth Vec is one too deep for max_depth(3). The
    // error is at the first byte of that Vec: its count, not yet read.
    let opts = kiln::Options::new().max_depth(3);
    let bytes = hex("01 00 00 00 01 00 00 00 01 00 00 00 01 00 00 00 05");
    let err = opts
        .from_slice::<Vec<Vec<Vec<Vec<u8>>>>>(&bytes)
        .unwrap_err();
    assert_eq!(err.kind().code(), "depth-limit");
    assert_eq!(err.offset(), Some(12));
    assert_eq!(err.path().as_deref(), Some("[0][0][0]"));
    assert_eq!(
        err.to_string(),
        "nesting too deep: the limit is 3 levels at byte 12 in [0][0][0]"
    );
    let err2 = opts
        .from_reader::<_, Vec<Vec<Vec<Vec<u8>>>>>(&bytes[..])
        .unwrap_err();
    assert_eq!(err2.to_string(), err.to_string());
    // One level fewer is fine.
    let v: Vec<Vec<Vec<u8>>> = opts.from_slice(&bytes[4..]).unwrap();
    assert_eq!(v, vec![vec![vec![5]]]);
}

// ----- serde features a positional reader cannot follow -----

const ANY: &str = "unsupported: Kiln is positional and cannot answer `deserialize_any`, which \
                   #[serde(untagged)] enums, internally or adjacently tagged enums \
                   (#[serde(tag = ...)]), #[serde(flatten)] and self-describing types such as \
                   serde_json::Value need";
const IDENTIFIER: &str = "unsupported: Kiln is positional and cannot answer \
                          `deserialize_identifier`, which adjacently tagged enums \
                          (#[serde(tag = ..., content = ...)]), #[serde(flatten)] and other \
                          readers of field names (Kiln writes no names) need";
const IGNORED_ANY: &str = "unsupported: Kiln is positional and cannot answer \
                           `deserialize_ignored_any`, which serde::de::IgnoredAny and the \
                           skipping of unknown fields (Kiln bytes carry no types to skip by) need";

/// Writes `value` (which works: the writer cannot tell) and reads it back
/// as `T`, which must fail with `unsupported`.
fn unsupported<T: Serialize + DeserializeOwned + std::fmt::Debug>(
    value: &T,
    offset: u64,
    path: Option<&str>,
    message: String,
) {
    let bytes = kiln::to_vec(value).unwrap();
    rejects::<T>(
        &bytes,
        Expect {
            code: "unsupported",
            offset,
            path,
            message: &message,
        },
    );
}

#[test]
fn untagged_enum_is_unsupported() {
    #[derive(Serialize, Deserialize, Debug)]
    #[serde(untagged)]
    enum Number {
        Int(i64),
        Text(String),
    }
    unsupported(&Number::Int(1), 0, None, format!("{ANY} at byte 0"));
    unsupported(
        &Number::Text("x".into()),
        0,
        None,
        format!("{ANY} at byte 0"),
    );
}

#[test]
fn internally_tagged_enum_is_unsupported() {
    #[derive(Serialize, Deserialize, Debug)]
    #[serde(tag = "t")]
    enum Event {
        Click { x: u8 },
    }
    unsupported(&Event::Click { x: 1 }, 0, None, format!("{ANY} at byte 0"));
    // Inside a struct the path says where.
    #[derive(Serialize, Deserialize, Debug)]
    struct Log {
        id: u32,
        event: Event,
    }
    unsupported(
        &Log {
            id: 7,
            event: Event::Click { x: 1 },
        },
        4,
        Some("Log.event"),
        format!("{ANY} at byte 4 in Log.event"),
    );
}

#[test]
fn adjacently_tagged_enum_is_unsupported() {
    #[derive(Serialize, Deserialize, Debug)]
    #[serde(tag = "t", content = "c")]
    enum Event {
        Key(u8),
    }
    unsupported(
        &Event::Key(1),
        0,
        Some("Event.t"),
        format!("{IDENTIFIER} at byte 0 in Event.t"),
    );
}

#[test]
fn flatten_is_unsupported() {
    #[derive(Serialize, Deserialize, Debug, kiln::Schema)]
    struct Extra {
        b: u8,
    }
    #[derive(Serialize, Deserialize, Debug)]
    struct Outer {
        a: u8,
        #[serde(flatten)]
        extra: Extra,
    }
    // A flattened struct is written as a map of named entries; reading the
    // first key (after the count) is refused.
    let value = Outer {
        a: 1,
        extra: Extra { b: 2 },
    };
    assert_eq!(
        kiln::to_vec(&value).unwrap(),
        hex("02 00 00 00 01 00 00 00 61 01 01 00 00 00 62 02")
    );
    unsupported(
        &value,
        4,
        Some("{entry 0}"),
        format!("{IDENTIFIER} at byte 4 in {{entry 0}}"),
    );
}

#[test]
fn self_describing_values_are_unsupported() {
    rejects::<serde_json::Value>(
        &[0],
        Expect {
            code: "unsupported",
            offset: 0,
            path: None,
            message: &format!("{ANY} at byte 0"),
        },
    );
    rejects::<serde::de::IgnoredAny>(
        &[0],
        Expect {
            code: "unsupported",
            offset: 0,
            path: None,
            message: &format!("{IGNORED_ANY} at byte 0"),
        },
    );
    // Inside a sequence, at its element.
    rejects::<Vec<serde_json::Value>>(
        &hex("01 00 00 00 00"),
        Expect {
            code: "unsupported",
            offset: 4,
            path: Some("[0]"),
            message: &format!("{ANY} at byte 4 in [0]"),
        },
    );
}

// ----- paths -----

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
struct Mesh {
    id: u8,
    name: String,
}

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
struct Scene {
    version: u16,
    meshes: Vec<Mesh>,
}

#[test]
fn path_through_a_vec_of_structs() {
    let scene = Scene {
        version: 1,
        meshes: (0..5)
            .map(|i| Mesh {
                id: i,
                name: "ab".into(),
            })
            .collect(),
    };
    let mut bytes = kiln::to_vec(&scene).unwrap();
    // version (2) + count (4) + 3 meshes of 1 + 4 + 2 bytes, then mesh 3's
    // id (1) and name count (4): its first name byte is at 2+4+21+1+4 = 32.
    // Make its second byte a lone continuation byte.
    assert_eq!(&bytes[32..34], b"ab");
    bytes[33] = 0x80;
    rejects::<Scene>(
        &bytes,
        Expect {
            code: "invalid-utf8",
            offset: 33,
            path: Some("Scene.meshes[3].name"),
            message: "invalid UTF-8: expected a string, found a bad sequence after 1 valid byte \
                      at byte 33 in Scene.meshes[3].name",
        },
    );
}

#[test]
fn path_through_a_map_entry_and_a_variant() {
    #[derive(Serialize, Deserialize, Debug, kiln::Schema)]
    struct Layers {
        by_id: BTreeMap<u8, Shape>,
    }
    // Entry 0: key 1 -> Empty; entry 1: key 2 -> Poly { sides: 3, name: <bad> }.
    let bytes = hex("02 00 00 00  01 00 00 00 00  02 03 00 00 00 03 01 00 00 00 ff");
    rejects::<Layers>(
        &bytes,
        Expect {
            code: "invalid-utf8",
            offset: 19,
            path: Some("Layers.by_id{entry 1}::Poly.name"),
            message: "invalid UTF-8: expected a string, found a bad sequence after 0 valid bytes \
                      at byte 19 in Layers.by_id{entry 1}::Poly.name",
        },
    );
    // A bad key: the path names the entry.
    let bytes = hex("01 00 00 00 01 00 00 00 ff 00 00 00 00");
    rejects::<BTreeMap<String, Shape>>(
        &bytes,
        Expect {
            code: "invalid-utf8",
            offset: 8,
            path: Some("{entry 0}"),
            message: "invalid UTF-8: expected a string, found a bad sequence after 0 valid bytes \
                      at byte 8 in {entry 0}",
        },
    );
    // A newtype variant's payload.
    rejects::<Vec<Shape>>(
        &hex("01 00 00 00 01 00 00 00 00 00"),
        Expect {
            code: "unexpected-end",
            offset: 8,
            path: Some("[0]::Circle"),
            message: "unexpected end of input: expected f32 (4 bytes), found 2 bytes at byte 8 \
                      in [0]::Circle",
        },
    );
}

#[test]
fn errors_from_visitors_get_the_offset_of_their_value() {
    // NonZeroU8 refuses 0 through de::Error::custom / invalid_value.
    let err = kiln::from_slice::<(u8, std::num::NonZeroU8)>(&[5, 0]).unwrap_err();
    assert_eq!(err.kind().code(), "custom");
    assert_eq!(err.offset(), Some(1));
    assert_eq!(err.path().as_deref(), Some(".1"));
    assert_eq!(
        err.to_string(),
        "invalid value: integer `0`, expected a nonzero u8 at byte 1 in .1"
    );
}

#[test]
fn io_errors_from_the_reader() {
    /// Gives `n` good bytes, then fails.
    struct FailAfter(usize);
    impl std::io::Read for FailAfter {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("cable unplugged"));
            }
            let n = self.0.min(buf.len());
            buf[..n].fill(0);
            self.0 -= n;
            Ok(n)
        }
    }
    let err = kiln::from_reader::<_, (u32, u32)>(FailAfter(6)).unwrap_err();
    assert_eq!(err.kind().code(), "io");
    assert_eq!(err.offset(), Some(6));
    assert_eq!(
        err.to_string(),
        "I/O error: cable unplugged at byte 6 in .1"
    );
    assert!(std::error::Error::source(&err).is_some());
}

/// Every error kind has a distinct, stable code.
#[test]
fn codes_are_distinct_kebab_case() {
    let errors = [
        kiln::from_slice::<bool>(&[2]).unwrap_err(),
        kiln::from_slice::<Option<u8>>(&[2]).unwrap_err(),
        kiln::from_slice::<char>(&hex("00 d8 00 00")).unwrap_err(),
        kiln::from_slice::<String>(&hex("01 00 00 00 ff")).unwrap_err(),
        kiln::from_slice::<Shape>(&hex("09 00 00 00")).unwrap_err(),
        kiln::from_slice::<u16>(&[1]).unwrap_err(),
        kiln::from_slice::<Vec<u8>>(&hex("ff ff ff ff")).unwrap_err(),
        kiln::from_slice::<u8>(&[1, 1]).unwrap_err(),
        kiln::from_slice::<serde_json::Value>(&[]).unwrap_err(),
        kiln::Options::new()
            .max_depth(0)
            .from_slice::<Vec<u8>>(&hex("00 00 00 00"))
            .unwrap_err(),
        kiln::Options::new()
            .zero_sized_limit(0)
            .from_reader::<_, Vec<()>>(&hex("01 00 00 00")[..])
            .unwrap_err(),
        kiln::Options::new()
            .byte_limit(1)
            .from_reader::<_, u16>(&[1, 2][..])
            .unwrap_err(),
    ];
    let codes: Vec<&str> = errors.iter().map(|e| e.kind().code()).collect();
    assert_eq!(
        codes,
        [
            "invalid-bool",
            "invalid-option-tag",
            "invalid-char",
            "invalid-utf8",
            "unknown-variant",
            "unexpected-end",
            "count-too-large",
            "trailing-bytes",
            "unsupported",
            "depth-limit",
            "zero-sized-limit",
            "byte-limit",
        ]
    );
    // Every decode error carries an offset.
    assert!(errors.iter().all(|e| e.offset().is_some()));
}

// ----- readers: chunk boundaries, interruptions -----

/// Hands out at most `step` bytes per call, and `Interrupted` before each.
struct Choppy<'a> {
    rest: &'a [u8],
    step: usize,
    interrupt: bool,
}

impl std::io::Read for Choppy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = self.step.min(buf.len()).min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

#[test]
fn readers_agree_with_slices_across_buffer_refills() {
    // A 20 000-byte string with a bad byte at 10 000: the reader copies it
    // across two refills of its 8 KiB buffer and must report the same byte.
    let mut bytes = 20_000u32.to_le_bytes().to_vec();
    bytes.extend(std::iter::repeat_n(b'a', 20_000));
    bytes[4 + 10_000] = 0xfe;
    let from_slice = kiln::from_slice::<String>(&bytes).unwrap_err();
    assert_eq!(from_slice.offset(), Some(10_004));
    for step in [1, 7, 8192, 100_000] {
        let choppy = Choppy {
            rest: &bytes,
            step,
            interrupt: false,
        };
        let err = kiln::from_reader::<_, String>(choppy).unwrap_err();
        assert_eq!(err.to_string(), from_slice.to_string(), "step {step}");
    }

    // Cut short after 15 000 of its bytes: both report the string's start
    // and how many of its bytes arrived.
    let from_slice = kiln::from_slice::<String>(&bytes[..4 + 15_000]).unwrap_err();
    assert_eq!(
        from_slice.to_string(),
        "unexpected end of input: expected string bytes (20000 bytes), found 15000 bytes \
         at byte 4"
    );
    for step in [1, 4096, 100_000] {
        let choppy = Choppy {
            rest: &bytes[..4 + 15_000],
            step,
            interrupt: false,
        };
        let err = kiln::from_reader::<_, String>(choppy).unwrap_err();
        assert_eq!(err.to_string(), from_slice.to_string(), "step {step}");
    }

    // Numbers split across reads decode the same.
    let v = (1u8, u128::MAX - 5, -3i64, 'é');
    let bytes = kiln::to_vec(&v).unwrap();
    let choppy = Choppy {
        rest: &bytes,
        step: 3,
        interrupt: false,
    };
    assert_eq!(
        kiln::from_reader::<_, (u8, u128, i64, char)>(choppy).unwrap(),
        v
    );
}

#[test]
fn trailing_bytes_from_a_reader_count_what_it_has_seen() {
    // A reader cannot know how long the rest of a stream is; it reports
    // the bytes it has buffered (at least one), at the same offset.
    let mut bytes = vec![7u8];
    bytes.extend(std::iter::repeat_n(0u8, 100_000));
    let from_slice = kiln::from_slice::<u8>(&bytes).unwrap_err();
    assert_eq!(
        from_slice.to_string(),
        "trailing bytes: expected end of input, found 100000 more bytes at byte 1"
    );
    let from_reader = kiln::from_reader::<_, u8>(&bytes[..]).unwrap_err();
    assert_eq!(from_reader.kind().code(), "trailing-bytes");
    assert_eq!(from_reader.offset(), Some(1));
    match from_reader.kind() {
        kiln::ErrorKind::TrailingBytes { count } => assert!((1..=100_000).contains(count)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_error_is_one_word_and_thread_safe() {
    // One pointer held as a `u64` (see `Handle` in src/error/mod.rs): 8 bytes,
    // 8-byte aligned, and no niche, so `Result<()>` carries a tag of its
    // own and is 16 bytes, which rustc returns in two registers.
    assert_eq!(
        std::mem::size_of::<kiln::Error>(),
        std::mem::size_of::<u64>()
    );
    assert_eq!(std::mem::align_of::<kiln::Error>(), 8);
    assert_eq!(std::mem::size_of::<kiln::Result<()>>(), 16);
    fn send_sync_static<T: Send + Sync + 'static + std::error::Error>() {}
    send_sync_static::<kiln::Error>();
}

/// The error's allocation is held as its address in a `u64`
/// (`src/error/mod.rs`, `Handle`): it must survive moves, a trip to another
/// thread, mutation on the way out, and be freed once.
#[test]
fn an_error_keeps_its_contents_across_moves_and_threads() {
    #[derive(serde::Deserialize, Debug, kiln::Schema)]
    #[allow(dead_code)]
    struct Outer {
        a: u8,
        inner: Vec<(u16, bool)>,
    }
    // a = 1, one element: 0x0203, then bool 07 at byte 7.
    let bytes = [1, 1, 0, 0, 0, 3, 2, 7];
    let errors: Vec<kiln::Error> = (0..64)
        .map(|_| kiln::from_slice::<Outer>(&bytes).unwrap_err())
        .collect();
    let texts = std::thread::spawn(move || {
        errors
            .into_iter()
            .map(|e| (e.kind().code(), e.offset(), e.to_string()))
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    assert_eq!(texts.len(), 64);
    for (code, offset, text) in texts {
        assert_eq!((code, offset), ("invalid-bool", Some(7)));
        assert!(text.contains("Outer.inner[0].1"), "{text}");
    }
}
