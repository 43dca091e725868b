//! Defects found by attacking Kiln (an abort, denials of service, silent
//! misreads, `#[serde(alias)]`), each with the test that failed before its
//! fix. The test names say which defect they hold down.

use crate::common::alloc;

use std::io::{self, Read};
use std::time::Duration;

use kiln::frame::{self, FrameOptions, HEADER_LEN};
use kiln::{ErrorKind, Options};
use serde::{Deserialize, Serialize};

use crate::common::Point;

/// An endless reader that counts the bytes taken from it.
struct Endless<'a> {
    taken: &'a mut u64,
}

impl Read for Endless<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        buf.fill(0);
        *self.taken += buf.len() as u64;
        Ok(buf.len())
    }
}

/// A frame header with the schema flag and `schema_len` as given, for
/// `Point`'s fingerprint.
fn header_claiming_text(schema_len: u32) -> Vec<u8> {
    let mut h = FrameOptions::new()
        .checksum(false)
        .to_vec(&Point { x: 1, y: 2 })
        .unwrap();
    h.truncate(HEADER_LEN);
    h[10..12].copy_from_slice(&frame::FLAG_SCHEMA.to_le_bytes());
    h[12..16].copy_from_slice(&schema_len.to_le_bytes());
    h
}

// ---------------------------------------------------------------------------
// 2. The schema text a header claims is checked before it is read.
// ---------------------------------------------------------------------------

#[test]
fn schema_text_claim_is_refused_before_reading_from_a_stream() {
    let head = header_claiming_text(u32::MAX);
    let opts = FrameOptions::new().decode(Options::new().byte_limit(1 << 20));
    let (mut taken, mut taken_single) = (0, 0);
    let ((batch, single), cost) = alloc::measure(|| {
        let reader = head.as_slice().chain(Endless { taken: &mut taken });
        let batch = opts.batch_from_reader::<_, Point>(reader).map(drop);
        let reader = head.as_slice().chain(Endless {
            taken: &mut taken_single,
        });
        let single = opts.from_reader::<_, Point>(reader);
        (batch, single)
    });
    for e in [batch.unwrap_err(), single.unwrap_err()] {
        assert_eq!(e.kind().code(), "schema-text-limit", "{e}");
        assert_eq!(e.offset(), Some(12));
        assert!(matches!(
            e.kind(),
            ErrorKind::SchemaTextLimit { len, limit: 1048576 } if *len == u64::from(u32::MAX)
        ));
    }
    assert_eq!(
        (taken, taken_single),
        (0, 0),
        "no byte of the text may be read"
    );
    assert!(cost.peak < 64 << 10, "allocated {} bytes", cost.peak);
}

#[test]
fn schema_text_within_its_cap_still_obeys_the_byte_limit() {
    // 512 KiB of text is under the 1 MiB cap, but over a 4 KiB byte limit.
    let head = header_claiming_text(512 << 10);
    let opts = FrameOptions::new().decode(Options::new().byte_limit(4096));
    let mut taken = 0;
    let reader = head.as_slice().chain(Endless { taken: &mut taken });
    let e = opts
        .batch_from_reader::<_, Point>(reader)
        .map(drop)
        .unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("byte-limit", Some(64)));
    assert_eq!(taken, 0);
    // The cap is a knob of its own; from a slice too.
    let opts = FrameOptions::new().decode(Options::new().schema_text_limit(100));
    let e = opts
        .from_slice::<Point>(&header_claiming_text(101))
        .unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset()),
        ("schema-text-limit", Some(12))
    );
    let e = opts
        .from_slice::<Point>(&header_claiming_text(100))
        .unwrap_err();
    assert_eq!(e.kind().code(), "frame-truncated");
}

// ---------------------------------------------------------------------------
// 3. Elements that take no input bytes: one budget for the whole input,
//    counted in memory.
// ---------------------------------------------------------------------------

/// 4,096 records of `00 00 10 00`: each a `Vec<()>` of 2^20 units.
fn unit_vector_records() -> Vec<u8> {
    [0u8, 0, 0x10, 0].repeat(4096)
}

/// The budget's end: from a slice the count is refused first, since the
/// bytes left plus the budget left cannot hold it (`count-too-large`); a
/// stream does not know the bytes left and stops where the budget runs out.
fn expect_out_of_budget(e: &kiln::Error, code: &str, record: u64) {
    assert_eq!(e.kind().code(), code, "{e}");
    assert_eq!(e.record(), Some(record), "{e}");
}

#[test]
fn zero_sized_budget_covers_a_whole_bare_batch() {
    let bytes = unit_vector_records();
    // The first record spends the whole budget of 2^20; the second fails at
    // its first element, so the work is one budget, not one per record.
    let mut it = kiln::batch::from_slice::<Vec<()>>(&bytes);
    assert_eq!(it.next().unwrap().unwrap().len(), 1 << 20);
    let e = it.next().unwrap().unwrap_err();
    expect_out_of_budget(&e, "count-too-large", 1);
    assert_eq!(e.offset(), Some(4));
    assert!(it.next().is_none());

    let mut it = kiln::batch::from_reader::<_, Vec<()>>(&bytes[..]);
    assert_eq!(it.next().unwrap().unwrap().len(), 1 << 20);
    let f = it.next().unwrap().unwrap_err();
    expect_out_of_budget(&f, "zero-sized-limit", 1);
    assert_eq!(f.offset(), Some(8));
}

#[test]
fn zero_sized_budget_covers_a_whole_framed_batch() {
    let records = vec![vec![(); 1 << 19]; 3];
    // Writing is not limited; reading is.
    let bytes = frame::batch_to_vec(&records).unwrap();
    let read: Vec<_> = frame::batch_from_slice::<Vec<()>>(&bytes)
        .unwrap()
        .collect();
    assert_eq!(read.len(), 3);
    assert!(read[0].is_ok() && read[1].is_ok());
    expect_out_of_budget(read[2].as_ref().unwrap_err(), "count-too-large", 2);
    let read: Vec<_> = frame::batch_from_reader::<_, Vec<()>>(&bytes[..])
        .unwrap()
        .collect();
    assert!(read[0].is_ok() && read[1].is_ok());
    expect_out_of_budget(read[2].as_ref().unwrap_err(), "zero-sized-limit", 2);
    // A larger budget reads them all.
    let opts = FrameOptions::new().decode(Options::new().zero_sized_limit(3 << 19));
    let all: Vec<Vec<()>> = opts
        .batch_from_slice(&bytes)
        .unwrap()
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(all, records);
}

/// A struct whose only field is skipped: no input bytes, 1 KiB of memory.
#[derive(Deserialize, Debug, kiln::Schema)]
struct Cached {
    #[serde(skip)]
    _cache: Vec<[u64; 128]>,
    #[serde(skip)]
    _inline: Option<[u64; 125]>,
}

#[test]
fn zero_byte_elements_are_charged_their_memory() {
    assert!(std::mem::size_of::<Cached>() >= 1024);
    // Four bytes claim 2^20 elements of 1 KiB: 1 GiB before the fix.
    let bytes = [0u8, 0, 0x10, 0];
    let (result, cost) = alloc::measure(|| kiln::from_slice::<Vec<Cached>>(&bytes).map(drop));
    let e = result.unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("zero-sized-limit", Some(4)));
    let budget = kiln::options::DEFAULT_ZERO_SIZED_LIMIT as usize;
    // The elements' memory stays within the budget, and the vector's
    // doubling (the old and the new buffer during a move) within 3 times it.
    assert!(cost.peak <= 3 * budget, "peak {} bytes", cost.peak);
    // The same from a stream.
    let (result, cost) =
        alloc::measure(|| kiln::from_reader::<_, Vec<Cached>>(&bytes[..]).map(drop));
    assert_eq!(result.unwrap_err().kind().code(), "zero-sized-limit");
    assert!(
        cost.peak <= 3 * budget + (64 << 10),
        "peak {} bytes",
        cost.peak
    );
    // Within the budget, such elements still decode.
    let v = kiln::from_slice::<Vec<Cached>>(&[100, 0, 0, 0]).unwrap();
    assert_eq!(v.len(), 100);
}

// ---------------------------------------------------------------------------
// 4. `#[serde(alias)]`: serde_derive lists aliases among a struct's fields.
// ---------------------------------------------------------------------------

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, kiln::Schema)]
struct Renamed {
    id: u32,
    #[serde(alias = "label", alias = "a_title")]
    name: String,
    #[serde(alias = "old_score")]
    score: i16,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, kiln::Schema)]
enum WithVariant {
    Unit,
    Fields {
        #[serde(alias = "w")]
        width: u8,
        height: u8,
    },
}

#[test]
fn aliased_fields_read_back_in_bare_records_and_batches() {
    let r = Renamed {
        id: 7,
        name: "hi".into(),
        score: -2,
    };
    let bytes = kiln::to_vec(&r).unwrap();
    // An alias changes no byte.
    assert_eq!(bytes, [7, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0xfe, 0xff]);
    assert_eq!(kiln::from_slice::<Renamed>(&bytes).unwrap(), r);
    assert_eq!(kiln::from_reader::<_, Renamed>(&bytes[..]).unwrap(), r);
    let (back, rest) = kiln::take_from_slice::<Renamed>(&bytes).unwrap();
    assert_eq!((back, rest), (r.clone(), &[][..]));

    let records = vec![r.clone(), r.clone(), r];
    let mut batch = Vec::new();
    for rec in &records {
        kiln::to_vec_into(rec, &mut batch).unwrap();
    }
    let read: Vec<Renamed> = kiln::batch::from_slice(&batch)
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(read, records);
    let read: Vec<Renamed> = kiln::batch::from_reader(&batch[..])
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(read, records);

    let v = WithVariant::Fields {
        width: 3,
        height: 4,
    };
    let bytes = kiln::to_vec(&v).unwrap();
    assert_eq!(bytes, [1, 0, 0, 0, 3, 4]);
    assert_eq!(kiln::from_slice::<WithVariant>(&bytes).unwrap(), v);
    // A short record is still refused, at the field that is missing.
    let e = kiln::from_slice::<Renamed>(&[7, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0xfe]).unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("unexpected-end", Some(10)));
}

#[test]
fn aliased_fields_read_back_in_frames_and_leave_the_schema_text_alone() {
    use kiln::schema::model::{Container, Shape};
    let r = Renamed {
        id: 7,
        name: "hi".into(),
        score: -2,
    };
    let bytes = frame::to_vec(&r).unwrap();
    assert_eq!(frame::from_slice::<Renamed>(&bytes).unwrap(), r);
    assert_eq!(frame::from_reader::<_, Renamed>(&bytes[..]).unwrap(), r);
    let batch = frame::batch_to_vec(&[r.clone(), r.clone()]).unwrap();
    let read: Vec<Renamed> = frame::batch_from_slice(&batch)
        .unwrap()
        .collect::<kiln::Result<_>>()
        .unwrap();
    assert_eq!(read, [r.clone(), r]);
    let v = WithVariant::Fields {
        width: 3,
        height: 4,
    };
    let bytes = frame::to_vec(&v).unwrap();
    assert_eq!(frame::from_slice::<WithVariant>(&bytes).unwrap(), v);

    // An alias is not text, so it changes no fingerprint; the model keeps it.
    let schema = kiln::schema::schema_of::<Renamed>().unwrap();
    assert_eq!(
        schema.text(),
        Some("root Renamed\nstruct Renamed { id: u32, name: str, score: i16 }\n")
    );
    let Container::Struct(Shape::Struct(fields)) = &schema.model().unwrap().containers["Renamed"]
    else {
        unreachable!()
    };
    assert_eq!(fields[1].aliases, ["a_title", "label"]);
    assert_eq!(fields[2].aliases, ["old_score"]);
}

// ---------------------------------------------------------------------------
// 7. A custom error at the top level points at the value's first byte.
// ---------------------------------------------------------------------------

#[derive(Deserialize, Debug, kiln::Schema)]
#[serde(try_from = "u32")]
struct Even(#[allow(dead_code)] u32);

impl TryFrom<u32> for Even {
    type Error = String;
    fn try_from(v: u32) -> Result<Self, String> {
        if v.is_multiple_of(2) {
            Ok(Even(v))
        } else {
            Err(format!("{v} is odd"))
        }
    }
}

#[test]
fn custom_errors_at_the_top_level_have_an_offset() {
    // Duration overflow: u64::MAX seconds and 10^9 nanoseconds.
    let mut bytes = u64::MAX.to_le_bytes().to_vec();
    bytes.extend_from_slice(&1_000_000_000u32.to_le_bytes());
    let e = kiln::from_slice::<Duration>(&bytes).unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("custom", Some(0)));
    let e = kiln::from_reader::<_, Duration>(&bytes[..]).unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("custom", Some(0)));
    // As before, inside a tuple it points at the element.
    let mut tuple = vec![5];
    tuple.extend_from_slice(&bytes);
    let e = kiln::from_slice::<(u8, Duration)>(&tuple).unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("custom", Some(1)));

    let e = kiln::from_slice::<Even>(&[3, 0, 0, 0]).unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("custom", Some(0)));
    let e = kiln::take_from_slice::<Even>(&[3, 0, 0, 0]).unwrap_err();
    assert_eq!(e.offset(), Some(0));
    // In a batch, at the record's start.
    let e = kiln::batch::from_slice::<Even>(&[2, 0, 0, 0, 3, 0, 0, 0])
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset(), e.record()),
        ("custom", Some(4), Some(1))
    );
    let e = kiln::batch::from_reader::<_, Even>(&[2, 0, 0, 0, 3, 0, 0, 0][..])
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert_eq!((e.offset(), e.record()), (Some(4), Some(1)));
}

// ---------------------------------------------------------------------------
// 6. A byte-limit error in a batch reports the limit that was set.
// ---------------------------------------------------------------------------

#[derive(Deserialize, Debug, kiln::Schema)]
struct Message {
    #[allow(dead_code)]
    text: String,
}

#[test]
fn byte_limit_in_a_batch_reports_the_limit_the_record_and_the_field() {
    // Record 0 is "hi"; record 1 claims a string of 0xf0000000 bytes.
    let bytes = [2, 0, 0, 0, b'h', b'i', 0, 0, 0, 0xf0];
    let e = kiln::batch::from_reader::<_, Message>(&bytes[..])
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::ByteLimit { limit: 1073741824 }),
        "{e}"
    );
    assert_eq!((e.offset(), e.record()), (Some(10), Some(1)));
    assert_eq!(e.path().as_deref(), Some("Message.text"));
    assert!(e.to_string().contains("at most 1073741824 bytes"), "{e}");
    let opts = Options::new().byte_limit(100);
    let e = opts
        .batch_from_reader::<_, Message>(&bytes[..])
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::ByteLimit { limit: 100 }),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// 1. Describing a type that reaches itself only through transparent types
//    is an error naming it, not a stack overflow. One that names itself is
//    refused at compile time (tests/derive_fail/transparent_recursive.rs);
//    a cycle through two such types is refused when described.
// ---------------------------------------------------------------------------

/// No Schema: the bare layout needs none.
#[derive(Serialize, Deserialize, Debug)]
#[serde(transparent)]
struct Nest(Option<Box<Nest>>);

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
#[serde(transparent)]
struct Forest(Vec<Trees>);

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
#[serde(transparent)]
struct Trees(Option<Box<Forest>>);

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
#[serde(transparent)]
struct Dict(std::collections::BTreeMap<String, DictValue>);

#[derive(Serialize, Deserialize, Debug, kiln::Schema)]
#[serde(from = "Dict", into = "Dict")]
struct DictValue(Box<Dict>);

impl From<Dict> for DictValue {
    fn from(d: Dict) -> Self {
        DictValue(Box::new(d))
    }
}

impl From<DictValue> for Dict {
    fn from(d: DictValue) -> Self {
        *d.0
    }
}

impl Clone for Dict {
    fn clone(&self) -> Self {
        Dict(
            self.0
                .iter()
                .map(|(k, v)| (k.clone(), DictValue(v.0.clone())))
                .collect(),
        )
    }
}

impl Clone for DictValue {
    fn clone(&self) -> Self {
        DictValue(self.0.clone())
    }
}

/// Recursion through a named newtype has a name to refer back to.
#[derive(Serialize, Deserialize, Debug, PartialEq, kiln::Schema)]
struct Named(Option<Box<Named>>);

fn expect_transparent_recursion(e: kiln::Error, type_name: &str) {
    assert_eq!(e.kind().code(), "no-schema", "{e}");
    let ErrorKind::NoSchema {
        type_name: named,
        reason,
    } = e.kind()
    else {
        unreachable!()
    };
    assert!(named.ends_with(type_name), "{named}");
    assert!(reason.contains("#[serde(transparent)]"), "{reason}");
    assert!(reason.contains("contains itself"), "{reason}");
}

#[test]
fn transparent_recursion_is_a_schema_error_not_an_abort() {
    expect_transparent_recursion(kiln::schema::schema_of::<Forest>().unwrap_err(), "Forest");
    expect_transparent_recursion(frame::to_vec(&Forest(vec![])).unwrap_err(), "Forest");
    let mut framed = FrameOptions::new().to_vec(&0u8).unwrap();
    framed.truncate(HEADER_LEN);
    framed.extend_from_slice(&kiln::to_vec(&Forest(vec![])).unwrap());
    expect_transparent_recursion(frame::from_slice::<Forest>(&framed).unwrap_err(), "Forest");
    expect_transparent_recursion(
        frame::to_vec(&Dict(Default::default())).unwrap_err(),
        "Dict",
    );
    // The bare layout needs no schema and reads these types as ever.
    assert!(kiln::from_slice::<Nest>(&[1, 1, 0]).unwrap().0.is_some());

    let n = Named(Some(Box::new(Named(None))));
    let bytes = frame::to_vec(&n).unwrap();
    assert_eq!(frame::from_slice::<Named>(&bytes).unwrap(), n);
    assert_eq!(
        kiln::schema::schema_of::<Named>().unwrap().text(),
        Some("root Named\nstruct Named(option<Named>)\n")
    );
}

// ---------------------------------------------------------------------------
// 5. A frame never holds bytes its own schema would misread: the frame
//    writers check what `Serialize` writes against the schema they stamp.
// ---------------------------------------------------------------------------

/// The derive refuses `skip_serializing` alone at compile time; a
/// hand-written `Schema` that says what `Deserialize` reads (as the old
/// tracer did) is what the frame writer's guard still has to catch.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct SkipSer {
    a: u32,
    #[serde(skip_serializing)]
    b: u32,
    c: u32,
}

/// serde's own test enum: the first variant is never read, so the reading
/// side numbers `Seq` 0 and `Map` 1 while the writing side says 1 and 2.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum SkipVariant {
    #[serde(skip_deserializing)]
    #[allow(dead_code)]
    Unit,
    Seq(u8, u8, u8),
    Map {
        a: u8,
        b: u8,
        c: u8,
    },
}

impl kiln::Schema for SkipSer {
    fn describe(d: &mut kiln::schema::Describer) -> kiln::schema::model::Format {
        use kiln::schema::model::{Container, Field, Format, Shape};
        d.container::<Self>("SkipSer", "SkipSer", |_| {
            Container::Struct(Shape::Struct(
                ["a", "b", "c"].map(|n| Field::new(n, Format::U32)).into(),
            ))
        })
    }
}

impl kiln::Schema for SkipVariant {
    fn describe(d: &mut kiln::schema::Describer) -> kiln::schema::model::Format {
        use kiln::schema::model::{Container, Field, Format, Shape, Variant};
        d.container::<Self>("SkipVariant", "SkipVariant", |_| {
            Container::Enum(vec![
                Variant::new("Seq", Shape::Tuple(vec![Format::U8; 3])),
                Variant::new(
                    "Map",
                    Shape::Struct(["a", "b", "c"].map(|n| Field::new(n, Format::U8)).into()),
                ),
            ])
        })
    }
}

/// Every frame writer, one record or a batch, from a slice, an iterator or
/// pushed one at a time, gives the same error for `value`.
fn every_frame_writer_refuses<T>(value: T) -> Vec<kiln::Error>
where
    T: Serialize + for<'de> Deserialize<'de> + kiln::Schema + Clone,
{
    let options = kiln::frame::FrameOptions::new();
    let mut w = options.batch_writer::<_, T>(Vec::new()).unwrap();
    vec![
        kiln::frame::to_vec(&value).unwrap_err(),
        kiln::frame::batch_to_vec(&[value.clone(), value.clone()]).unwrap_err(),
        options
            .batch_extend::<T, _>(&mut Vec::new(), [value.clone()])
            .unwrap_err(),
        w.push(&value).unwrap_err(),
    ]
}

#[test]
fn a_field_skipped_only_when_serializing_is_refused_by_frame_writers() {
    let v = SkipSer { a: 0, b: 9, c: 3 };
    // Bare, the bytes go out and come back wrong: nothing can tell.
    let bare = kiln::to_vec(&[&v, &v]).unwrap();
    assert_eq!(bare.len(), 2 * 8); // two records of two fields, not three
    for e in every_frame_writer_refuses(SkipSer { a: 0, b: 9, c: 3 }) {
        assert_eq!(e.kind().code(), "serialize-mismatch", "{e}");
        let msg = e.to_string();
        assert!(
            msg.starts_with("struct `SkipSer` with 2 fields does not match the frame's schema: the schema reads 3 fields (a, b, c) where 2 are written"),
            "{msg}"
        );
        assert!(msg.contains("skip_serializing"), "{msg}");
    }
}

#[test]
fn a_variant_skipped_only_when_deserializing_is_refused_by_frame_writers() {
    // Bare, `Seq(1, 2, 3)` reads back as `Map { a: 1, b: 2, c: 3 }`.
    let bare = kiln::to_vec(&SkipVariant::Seq(1, 2, 3)).unwrap();
    assert_eq!(
        kiln::from_slice::<SkipVariant>(&bare).unwrap(),
        SkipVariant::Map { a: 1, b: 2, c: 3 }
    );
    for e in every_frame_writer_refuses(SkipVariant::Seq(1, 2, 3)) {
        assert_eq!(e.kind().code(), "serialize-mismatch", "{e}");
        assert_eq!(
            e.to_string(),
            "variant `SkipVariant::Seq` (index 1) with a tuple of 3 does not match the frame's \
             schema: index 1 is `Map` in the schema, so this variant would be read back as `Map`; \
             a variant before it is skipped when deserializing (#[serde(skip_deserializing)] \
             shifts the indices)"
        );
    }
    // The last variant's index is past the schema's two.
    let e = kiln::frame::to_vec(&SkipVariant::Map { a: 1, b: 2, c: 3 }).unwrap_err();
    assert!(
        e.to_string()
            .contains("the schema's enum has 2 variants, so index 2 reads as nothing"),
        "{e}"
    );
}

/// A hand-written `Serialize` that declares two fields and writes one.
#[derive(Deserialize, Debug, Clone, PartialEq, kiln::Schema)]
struct Liar {
    a: u32,
    b: u32,
}

impl Serialize for Liar {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Liar", 2)?;
        st.serialize_field("a", &self.a)?;
        st.end()
    }
}

#[test]
fn a_struct_that_writes_fewer_fields_than_it_declares_is_refused_by_frame_writers() {
    for e in every_frame_writer_refuses(Liar { a: 1, b: 2 }) {
        assert_eq!(e.kind().code(), "length-mismatch", "{e}");
        assert_eq!(
            e.to_string(),
            "length mismatch: declared 2 elements, found 1"
        );
    }
}

#[test]
fn frames_of_matching_types_are_written_as_before() {
    let shapes = [SkipVariant::Seq(1, 2, 3)];
    // The same type without the skipped variant frames fine, and a frame
    // writer leaves a bad record out of the batch it pushes to.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone, kiln::Schema)]
    enum Plain {
        Seq(u8, u8, u8),
        Map { a: u8, b: u8, c: u8 },
    }
    let plain = [Plain::Seq(1, 2, 3), Plain::Map { a: 4, b: 5, c: 6 }];
    let bytes = kiln::frame::batch_to_vec(&plain).unwrap();
    let back: Vec<Plain> = kiln::frame::batch_from_slice(&bytes)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(back, plain);
    let mut w = kiln::frame::FrameOptions::new()
        .batch_writer::<_, SkipVariant>(Vec::new())
        .unwrap();
    assert!(w.push(&shapes[0]).is_err());
    assert_eq!(w.count(), 0);
}

// ---------------------------------------------------------------------------
// Spec 6.5, as an independent reader asked: the single-record reader on a
// streamed frame, whose count is only in the trailer.
// ---------------------------------------------------------------------------

fn streamed(points: &[Point]) -> Vec<u8> {
    let mut w = FrameOptions::new()
        .batch_writer::<_, Point>(Vec::new())
        .unwrap();
    for p in points {
        w.push(p).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn single_record_reader_on_streamed_frames_follows_spec_6_5() {
    let p = Point { x: 9, y: -4 };
    // Exactly one record: read as from any frame.
    let one = streamed(&[p]);
    assert_eq!(frame::from_slice::<Point>(&one).unwrap(), p);
    assert_eq!(frame::from_reader::<_, Point>(&one[..]).unwrap(), p);
    // None, or a second one: header-field at 24, found 0 or 2.
    for (bytes, found) in [(streamed(&[]), 0), (streamed(&[p, p]), 2)] {
        let errors = [
            frame::from_slice::<Point>(&bytes).unwrap_err(),
            frame::from_reader::<_, Point>(&bytes[..]).unwrap_err(),
        ];
        for e in errors {
            assert_eq!(
                (e.kind().code(), e.offset()),
                ("header-field", Some(24)),
                "{e}"
            );
            assert!(
                matches!(e.kind(), ErrorKind::HeaderField { found: f, .. } if *f == found),
                "{e}"
            );
        }
    }
    // One record, but a trailer that says 2: count-mismatch at the
    // payload's end (64 + 8), as for a batch.
    let mut lying = streamed(&[p]);
    let trailer = lying.len() - 32;
    lying[trailer..trailer + 8].copy_from_slice(&2u64.to_le_bytes());
    let errors = [
        frame::from_slice::<Point>(&lying).unwrap_err(),
        frame::from_reader::<_, Point>(&lying[..]).unwrap_err(),
    ];
    for e in errors {
        assert_eq!(
            (e.kind().code(), e.offset()),
            ("count-mismatch", Some(72)),
            "{e}"
        );
    }
}
