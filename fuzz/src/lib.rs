//! What Kiln's fuzz targets share: a rich type that touches every serde
//! kind, bit-exact (NaN-aware) equality, readers and writers that move a few
//! bytes at a time, and one checking function per target.
//!
//! The targets in `fuzz_targets/` are one line each; the checks live here so
//! that the seed writer (`examples/seeds.rs`) and every target reuse the
//! same type and helpers.

use serde::{Deserialize, Serialize};

#[path = "../../tests/common/rich.rs"]
mod rich;
pub use rich::*;

pub mod evolve;
pub use evolve::check_evolve;

pub mod records;
pub use records::check_records;

pub mod blocks;
pub use blocks::{ByElement, ElementWise, check_blocks};

// ---------------------------------------------------------------------------
// The checks, one per target
// ---------------------------------------------------------------------------

/// The limits the decoding targets use: the defaults, except a budget of
/// 4096 zero-sized elements instead of 2^20, so that one input cannot spend
/// seconds producing `()`s (the budget logic is the same at any size).
pub fn opts() -> kiln::Options {
    kiln::Options::new().zero_sized_limit(4096)
}

/// The facts of a decode error that two decodes must agree on.
#[derive(Debug)]
pub struct Facts {
    /// [`kiln::ErrorKind::code`].
    pub code: &'static str,
    /// [`kiln::Error::offset`].
    pub offset: Option<u64>,
    /// [`kiln::Error::path`].
    pub path: Option<String>,
    /// The message, for failure reports.
    pub message: String,
}

impl From<&kiln::Error> for Facts {
    fn from(e: &kiln::Error) -> Self {
        Facts {
            code: e.kind().code(),
            offset: e.offset(),
            path: e.path(),
            message: e.to_string(),
        }
    }
}

/// A decode result with its error reduced to [`Facts`].
pub fn facts<T>(r: kiln::Result<T>) -> Result<T, Facts> {
    r.map_err(|e| Facts::from(&e))
}

/// What two decodes of the same bytes must agree on: the same value, or the
/// same error code, offset and path.
fn same_outcome<T: BitEq + std::fmt::Debug>(
    what: &str,
    slice: &Result<T, Facts>,
    other: &Result<T, Facts>,
) {
    match (slice, other) {
        (Ok(a), Ok(b)) => assert!(a.bit_eq(b), "{what}: values differ:\n{a:?}\n{b:?}"),
        // Only a slice knows how many bytes remain, so only a slice can
        // refuse a count up front; a reader finds out later, never earlier.
        // A reader refuses a value that would cross its byte limit before
        // reading it; a slice has no such limit and finds its end, or
        // whatever else is wrong there or later, instead. (A frame with
        // arrays is read whole, so the limit stops it at its payload, before
        // the embedded schema text is compared.)
        (Err(e), Err(f)) if f.code == "byte-limit" && e.offset >= f.offset => {}
        (Err(e), Err(f)) if e.code == "count-too-large" => {
            assert!(
                f.offset >= e.offset,
                "{what}: reader failed before the slice's count check: {e:?} / {f:?}"
            );
        }
        (Err(e), Err(f)) => {
            assert_eq!(
                (e.code, e.offset, &e.path),
                (f.code, f.offset, &f.path),
                "{what}: errors differ: {} / {}",
                e.message,
                f.message
            );
        }
        (a, b) => panic!("{what}: one decode failed:\n{a:?}\n{b:?}"),
    }
}

/// `decode` target: arbitrary bytes read as [`RichRef`] from a slice and as
/// [`RichOwned`] from two readers must give the same value or the same error
/// (code, offset, path); a value read must re-encode to bytes that read back
/// to the same value.
pub fn check_decode(data: &[u8]) {
    let borrowed: kiln::Result<RichRef<'_>> = opts().from_slice(data);
    let from_slice = match &borrowed {
        Ok(v) => Ok(v.to_owned_rich()),
        Err(e) => Err(Facts::from(e)),
    };
    let owned_slice = facts(opts().from_slice::<RichOwned>(data));
    same_outcome("slice borrowed/owned", &from_slice, &owned_slice);
    let from_reader = facts(opts().from_reader::<_, RichOwned>(data));
    same_outcome("slice/reader", &from_slice, &from_reader);
    let from_trickle = facts(opts().from_reader::<_, RichOwned>(Trickle::new(data)));
    same_outcome("slice/trickle", &from_slice, &from_trickle);

    if let (Ok(value), Ok(borrowed)) = (&from_slice, &borrowed) {
        let bytes = kiln::to_vec(value).expect("a decoded value encodes");
        // Duplicate map keys collapse, so the encoding can only shrink.
        assert!(bytes.len() <= data.len());
        assert_eq!(
            kiln::serialized_size(borrowed).unwrap(),
            bytes.len() as u64,
            "borrowed and owned forms differ in size"
        );
        let again: RichOwned = opts()
            .from_slice(&bytes)
            .expect("a re-encoded value decodes");
        assert!(again.bit_eq(value), "re-encoded value differs");
    }
}

/// `roundtrip` target: a value built by `arbitrary` is written three ways
/// (`to_vec`, `to_writer` through a writer that takes a few bytes at a time,
/// `serialized_size`), which must agree, and read back three ways (owned and
/// borrowed from the slice, owned from a reader), which must all give the
/// value back bit for bit. Cutting the bytes short must be an error. The
/// value's numeric vectors must give the same bytes and values through the
/// block fast path and the element-by-element path ([`check_blocks`]).
pub fn check_roundtrip(value: &RichOwned) {
    check_blocks(value);
    let bytes = kiln::to_vec(value).expect("every value of the rich type encodes");
    let mut w = TrickleWriter::default();
    kiln::to_writer(&mut w, value).expect("to_writer");
    assert_eq!(w.bytes, bytes, "to_writer and to_vec differ");
    assert_eq!(
        kiln::serialized_size(value).expect("serialized_size"),
        bytes.len() as u64
    );
    let mut reused = vec![0xaa; 3];
    kiln::to_vec_into(value, &mut reused).expect("to_vec_into");
    assert_eq!(reused[..3], [0xaa; 3]);
    assert_eq!(reused[3..], bytes[..], "to_vec_into and to_vec differ");

    // `arbitrary` may nest deeper than the default limit of 128; the limit
    // is tested elsewhere, here only the bytes matter.
    let opts = kiln::Options::new().max_depth(1 << 20);
    let owned: RichOwned = opts.from_slice(&bytes).expect("owned from slice");
    assert!(owned.bit_eq(value), "owned from slice differs");
    let borrowed: RichRef<'_> = opts.from_slice(&bytes).expect("borrowed from slice");
    assert!(
        borrowed.to_owned_rich().bit_eq(value),
        "borrowed from slice differs"
    );
    let streamed: RichOwned = opts
        .from_reader(Trickle::new(&bytes))
        .expect("owned from reader");
    assert!(streamed.bit_eq(value), "owned from reader differs");

    for cut in [bytes.len() - 1, bytes.len() / 2] {
        let err = opts.from_slice::<RichRef<'_>>(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(err.kind().code(), "unexpected-end" | "count-too-large"),
            "prefix of {cut} bytes: {err}"
        );
        let err = opts.from_reader::<_, RichOwned>(&bytes[..cut]).unwrap_err();
        assert_eq!(err.kind().code(), "unexpected-end", "prefix of {cut} bytes");
    }
}

/// One step of the `take` target: `take_from_slice::<T>` on `input`, checked
/// against `from_slice::<T>` on the same input and on the bytes it consumed.
/// Returns the rest when there is something left to take.
fn take_step<'de, T>(input: &'de [u8], canonical: bool) -> Option<&'de [u8]>
where
    T: Deserialize<'de> + Serialize + std::fmt::Debug,
{
    let taken = opts().take_from_slice::<T>(input);
    let whole = opts().from_slice::<T>(input);
    match taken {
        Ok((value, rest)) => {
            let used = input.len() - rest.len();
            assert!(
                std::ptr::eq(rest, &input[used..]),
                "rest is not the tail of the input"
            );
            match whole {
                Ok(_) => assert!(rest.is_empty(), "from_slice ignored trailing bytes"),
                Err(e) => {
                    assert_eq!(
                        (e.kind().code(), e.offset()),
                        ("trailing-bytes", Some(used as u64)),
                        "{e}"
                    );
                }
            }
            let alone = opts()
                .from_slice::<T>(&input[..used])
                .expect("the consumed bytes decode");
            let bytes = kiln::to_vec(&value).expect("a decoded value encodes");
            // (Hash maps iterate in a per-instance order, so compare sizes.)
            assert_eq!(bytes.len(), kiln::to_vec(&alone).unwrap().len());
            if canonical {
                // Without maps there is exactly one encoding of each value.
                assert_eq!(bytes, input[..used], "{value:?} re-encodes differently");
            } else {
                assert!(bytes.len() <= used);
            }
            (used > 0 && !rest.is_empty()).then_some(rest)
        }
        Err(e) => {
            let f = whole.expect_err("take_from_slice failed but from_slice did not");
            assert_eq!(
                (e.kind().code(), e.offset(), e.path()),
                (f.kind().code(), f.offset(), f.path())
            );
            None
        }
    }
}

/// `take` target: the first byte picks a record type, the rest is read as
/// records of that type back to back with `take_from_slice` until an error
/// or the end.
pub fn check_take(data: &[u8]) {
    let Some((&selector, mut rest)) = data.split_first() else {
        return;
    };
    loop {
        let next = match selector % 4 {
            0 => take_step::<RichRef<'_>>(rest, false),
            1 => take_step::<Vec<Shape>>(rest, true),
            2 => take_step::<(Point, Option<&str>, Tree)>(rest, true),
            _ => take_step::<(Vec<()>, u8)>(rest, true),
        };
        match next {
            Some(r) => rest = r,
            None => break,
        }
    }
}

// ---------------------------------------------------------------------------
// Frames
// ---------------------------------------------------------------------------

/// The frame options the frame and batch targets read with: the defaults,
/// with [`opts`]' decoding limits.
pub fn frame_opts() -> kiln::frame::FrameOptions {
    kiln::frame::FrameOptions::new().decode(opts())
}

/// Error codes a framed reader from a slice gives for the frame's own
/// integrity, which it checks over the whole payload before reading a
/// record. A reader from a stream can only check them at the end, so it
/// may meet a broken record first and report that instead.
const PAYLOAD_CHECKS: &[&str] = &[
    "checksum-mismatch",
    "frame-truncated",
    "trailing-bytes",
    "bad-trailer",
    "payload-length-mismatch",
    "padding-nonzero",
    "header-field",
    "count-mismatch",
];

/// What a slice read and a stream read of the same frame must agree on.
/// Both succeed with the same value or both fail; errors in the header
/// (before the payload) are the same; errors inside a payload that passed
/// the frame's checks are the same (with [`same_outcome`]'s allowances);
/// when the slice refuses the payload as a whole, the stream may name a
/// record that broke first.
fn same_frame_outcome<T: BitEq + std::fmt::Debug>(
    what: &str,
    data: &[u8],
    slice: &Result<T, Facts>,
    other: &Result<T, Facts>,
) {
    match (slice, other) {
        (Err(e), Err(f)) => {
            let payload_ok = kiln::frame::open(data).is_ok();
            let header_at = kiln::frame::FrameHeader::parse(data)
                .map(|h| h.payload_offset)
                .unwrap_or(u64::MAX);
            let in_header = e.offset.is_some_and(|o| o < header_at)
                && !PAYLOAD_CHECKS.contains(&e.code)
                || header_at == u64::MAX;
            if in_header || payload_ok && !PAYLOAD_CHECKS.contains(&e.code) {
                same_outcome(what, slice, other);
            } else {
                assert!(
                    PAYLOAD_CHECKS.contains(&e.code) || PAYLOAD_CHECKS.contains(&f.code),
                    "{what}: neither error is a frame check: {e:?} / {f:?}"
                );
            }
        }
        _ => same_outcome(what, slice, other),
    }
}

/// One type read as a single-record frame from a slice and two readers.
fn frame_single<T>(data: &[u8])
where
    T: serde::de::DeserializeOwned + Serialize + kiln::Schema + BitEq + std::fmt::Debug,
{
    let slice = facts(frame_opts().from_slice::<T>(data));
    let reader = facts(frame_opts().from_reader::<_, T>(data));
    same_frame_outcome("frame slice/reader", data, &slice, &reader);
    let trickle = facts(frame_opts().from_reader::<_, T>(Trickle::new(data)));
    same_frame_outcome("frame slice/trickle", data, &slice, &trickle);
    if let Ok(value) = &slice {
        // A frame that reads is a valid frame, and its payload is the
        // record's bytes.
        let (header, payload) = kiln::frame::open(data).expect("a frame that reads opens");
        assert_eq!(payload.record_count, 1);
        assert_eq!(payload.offset, header.payload_offset);
        let again: T = opts()
            .from_slice(payload.bytes)
            .expect("the payload of a frame that reads is a record");
        assert!(again.bit_eq(value), "payload read bare differs");
        // Written again (same checksum flag, same schema flag), it reads back.
        let out = kiln::frame::FrameOptions::new()
            .checksum(header.has_checksum())
            .embed_schema(header.schema_text.is_some())
            .to_vec(value)
            .expect("a value read from a frame writes");
        let back: T = frame_opts()
            .from_slice(&out)
            .expect("rewritten frame reads");
        assert!(back.bit_eq(value), "rewritten frame differs");
    }
}

/// `frame` target: arbitrary bytes read as a single-record frame of
/// [`Point`] and of [`RichOwned`] (and [`RichRef`] borrowed) from a slice
/// and from readers must agree (see `same_frame_outcome`);
/// [`kiln::frame::FrameHeader::parse`] and [`kiln::frame::open`] never
/// panic and agree with each other.
pub fn check_frame(data: &[u8]) {
    let header = kiln::frame::FrameHeader::parse(data);
    let opened = kiln::frame::open(data);
    match (&header, &opened) {
        (Ok(h), Ok((h2, payload))) => {
            assert_eq!(h, h2);
            assert_eq!(payload.offset, h.payload_offset);
            assert!(payload.offset as usize + payload.bytes.len() <= data.len());
            assert_eq!(payload.offset % 64, 0);
        }
        (Err(e), Err(f)) => assert_eq!(
            (e.kind().code(), e.offset()),
            (f.kind().code(), f.offset()),
            "parse and open disagree on the header"
        ),
        (Err(e), Ok(_)) => panic!("open succeeded where parse failed: {e}"),
        (Ok(_), Err(_)) => {}
    }

    frame_single::<Point>(data);
    frame_single::<RichOwned>(data);
    // Both forms have one schema (`BlobRef` is `Blob` to serde).
    let borrowed = frame_opts().from_slice::<RichRef<'_>>(data);
    let owned = facts(frame_opts().from_slice::<RichOwned>(data));
    let borrowed = match &borrowed {
        Ok(v) => Ok(v.to_owned_rich()),
        Err(e) => Err(Facts::from(e)),
    };
    same_outcome("frame borrowed/owned", &borrowed, &owned);
}

// ---------------------------------------------------------------------------
// Batches
// ---------------------------------------------------------------------------

/// At most this many records are compared per input (the zero-sized
/// budget of [`opts`] already bounds batches of empty records).
const MAX_RECORDS: usize = 10_000;

/// A batch's items with errors reduced to [`Facts`] and the record index
/// they name. Stops after the first error, as the iterators promise to.
fn items<T>(
    it: impl Iterator<Item = kiln::Result<T>>,
    keep: impl Fn(T) -> T,
) -> Vec<Result<T, (Facts, Option<u64>)>> {
    let mut out = Vec::new();
    let mut it = it.fuse();
    for item in it.by_ref() {
        let failed = item.is_err();
        out.push(item.map(&keep).map_err(|e| (Facts::from(&e), e.record())));
        if failed || out.len() == MAX_RECORDS {
            break;
        }
    }
    if out.last().is_some_and(|r| r.is_err()) {
        assert!(it.next().is_none(), "a batch went on after an error");
    }
    out
}

/// Two readings of the same batch, record by record: same values, then the
/// same error (same record index) or the same clean end.
fn same_records<T: BitEq + std::fmt::Debug>(
    what: &str,
    a: &[Result<T, (Facts, Option<u64>)>],
    b: &[Result<T, (Facts, Option<u64>)>],
) {
    let n = a.len().min(b.len());
    for i in 0..n {
        let (x, y) = (&a[i], &b[i]);
        if let (Err((_, ri)), Err((_, rj))) = (x, y) {
            assert_eq!(ri, rj, "{what}: errors name different records");
        }
        let x = x.as_ref().map_err(|(f, _)| f_clone(f));
        let y = y.as_ref().map_err(|(f, _)| f_clone(f));
        same_outcome(&format!("{what}, record {i}"), &x, &y);
    }
    if a.len() < MAX_RECORDS && b.len() < MAX_RECORDS {
        assert_eq!(
            a.len(),
            b.len(),
            "{what}: different numbers of items: {:?} / {:?}",
            a.last(),
            b.last()
        );
    }
}

/// [`same_records`] for a framed batch. A slice reader knows the declared
/// count (from the header or the trailer, checked first) and refuses the
/// first record past it; a stream reader of a streamed frame meets the
/// trailer only at the end, so it may hand out records past the count
/// before it fails. It must fail with the same error, at the same offset.
fn same_framed_records<T: BitEq + std::fmt::Debug>(
    what: &str,
    a: &[Result<T, (Facts, Option<u64>)>],
    b: &[Result<T, (Facts, Option<u64>)>],
) {
    let Some(i) = a.iter().position(|r| r.is_err()) else {
        return same_records(what, a, b);
    };
    let Err((e, _)) = &a[i] else { unreachable!() };
    if b.len() <= i || b[i].is_err() || !PAYLOAD_CHECKS.contains(&e.code) {
        return same_records(what, a, b);
    }
    same_records(what, &a[..i], &b[..i]);
    match b.last() {
        Some(Err((f, _))) => assert_eq!(
            (e.code, e.offset),
            (f.code, f.offset),
            "{what}: {} / {}",
            e.message,
            f.message
        ),
        _ if b.len() == MAX_RECORDS => {}
        other => panic!("{what}: the stream ended without the slice's error {e:?}: {other:?}"),
    }
}

fn f_clone(f: &Facts) -> Facts {
    Facts {
        code: f.code,
        offset: f.offset,
        path: f.path.clone(),
        message: f.message.clone(),
    }
}

/// A bare batch of `T` from a slice and from two readers.
fn batch_bare<'de, T, O>(data: &'de [u8], own: impl Fn(T) -> O + Copy)
where
    T: Deserialize<'de>,
    O: serde::de::DeserializeOwned + BitEq + std::fmt::Debug,
{
    let slice = items(
        opts().batch_from_slice::<T>(data).map(|r| r.map(own)),
        |v| v,
    );
    let reader = items(opts().batch_from_reader::<_, O>(data), |v| v);
    same_records("bare slice/reader", &slice, &reader);
    let trickle = items(opts().batch_from_reader::<_, O>(Trickle::new(data)), |v| v);
    same_records("bare slice/trickle", &slice, &trickle);
    // Records read one after the other with `take_from_slice` are the same.
    let mut rest = data;
    for (i, item) in slice.iter().enumerate() {
        if rest.is_empty() {
            break;
        }
        match (item, opts().take_from_slice::<T>(rest)) {
            (Ok(v), Ok((w, r))) => {
                assert!(v.bit_eq(&own(w)), "record {i}: batch and take differ");
                rest = r;
            }
            (Err(_), Err(_)) => break,
            // The batch draws every record's zero-sized elements from one
            // budget for the whole input (spec 3.19.2); a single take has
            // a fresh one. So where a take succeeds, the batch may refuse
            // with `zero-sized-limit`, or, when a count exceeds the bytes
            // left plus the budget left, with `count-too-large` (3.19.3).
            (Err((f, _)), Ok(_)) if f.code == "zero-sized-limit" || f.code == "count-too-large" => {
                break;
            }
            (a, b) => panic!(
                "record {i}: batch and take disagree: {a:?} / {:?}",
                b.map(|(w, _)| own(w))
            ),
        }
    }
}

/// A framed batch of `T` from a slice and from two readers.
fn batch_framed<'de, T, O>(data: &'de [u8], own: impl Fn(T) -> O + Copy)
where
    T: Deserialize<'de> + kiln::Schema,
    O: serde::de::DeserializeOwned + kiln::Schema + BitEq + std::fmt::Debug,
{
    let slice = frame_opts().batch_from_slice::<T>(data);
    for (what, reader) in [
        (
            "framed slice/reader",
            frame_opts().batch_from_reader::<_, O>(Box::new(data) as Box<dyn std::io::Read>),
        ),
        (
            "framed slice/trickle",
            frame_opts()
                .batch_from_reader::<_, O>(Box::new(Trickle::new(data)) as Box<dyn std::io::Read>),
        ),
    ] {
        match (&slice, reader) {
            (Ok(_), Ok(reader)) => {
                let a = items(
                    frame_opts()
                        .batch_from_slice::<T>(data)
                        .expect("opened once")
                        .map(|r| r.map(own)),
                    |v| v,
                );
                let b = items(reader, |v| v);
                same_framed_records(what, &a, &b);
            }
            (Ok(_), Err(f)) => panic!("{what}: only the slice opened: {f}"),
            (Err(e), Ok(reader)) => {
                // The slice checked the whole payload up front; the stream
                // must fail by the end.
                assert!(
                    PAYLOAD_CHECKS.contains(&e.kind().code()),
                    "{what}: only the stream opened, slice said {e}"
                );
                let b = items(reader, |v| v);
                assert!(
                    b.len() == MAX_RECORDS || b.last().is_some_and(|r| r.is_err()),
                    "{what}: the stream ended cleanly on a frame the slice refused ({e})"
                );
            }
            (Err(e), Err(f)) => assert_eq!(
                (e.kind().code(), e.offset()),
                (f.kind().code(), f.offset()),
                "{what}: {e} / {f}"
            ),
        }
    }
    // The free functions are the default options (other limits aside).
    if let (Ok(_), Ok(_)) = (&slice, kiln::frame::batch_from_slice::<T>(data)) {
    } else {
        assert_eq!(
            slice.as_ref().err().map(|e| e.kind().code()),
            kiln::frame::batch_from_slice::<T>(data)
                .err()
                .map(|e| e.kind().code())
        );
    }
}

/// `batch` target: the first byte picks a record type and bare or framed;
/// the rest is read as a batch from a slice, from a reader and from a
/// reader that hands out a few bytes per call. They must agree record by
/// record and end the same way (cleanly, or the same error at the same
/// record); bare records must match `take_from_slice`.
pub fn check_batch(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let framed = selector & 0x80 != 0;
    match (selector & 0x7f) % 4 {
        0 if framed => batch_framed::<Point, Point>(rest, |v| v),
        0 => batch_bare::<Point, Point>(rest, |v| v),
        1 if framed => batch_framed::<RichOwned, RichOwned>(rest, |v| v),
        1 => batch_bare::<RichRef<'_>, RichOwned>(rest, |v| v.to_owned_rich()),
        2 if framed => batch_framed::<(u16, String), (u16, String)>(rest, |v| v),
        2 => batch_bare::<(u16, &str), (u16, String)>(rest, |(a, b)| (a, b.to_owned())),
        _ if framed => batch_framed::<(), ()>(rest, |v| v),
        _ => batch_bare::<Unit, Unit>(rest, |v| v),
    }
}

// ---------------------------------------------------------------------------
// The array directory
// ---------------------------------------------------------------------------

/// The record of `spec/golden/arrays.kiln`: a string and two arrays.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, kiln::Schema)]
pub struct Sample {
    /// A label.
    pub label: String,
    /// An f32 array.
    pub image: kiln::Array<f32>,
    /// A u32 array.
    pub index: kiln::Array<u32>,
}

/// [`Sample`] viewed in place (needs the record 64-byte aligned).
#[derive(Deserialize, Debug, kiln::Schema)]
pub struct SampleView<'a> {
    /// A label.
    pub label: &'a str,
    /// An f32 array, viewed.
    #[serde(borrow)]
    pub image: kiln::ArrayView<'a, f32>,
    /// A u32 array, viewed.
    #[serde(borrow)]
    pub index: kiln::ArrayView<'a, u32>,
}

/// [`Sample`] borrowing where the block is aligned, copying where not.
#[derive(Deserialize, Debug, kiln::Schema)]
pub struct SampleCow<'a> {
    /// A label.
    pub label: &'a str,
    /// An f32 array.
    #[serde(borrow)]
    pub image: kiln::ArrayCow<'a, f32>,
    /// A u32 array.
    #[serde(borrow)]
    pub index: kiln::ArrayCow<'a, u32>,
}

pub(crate) fn bits_f32(d: &[f32]) -> Vec<u32> {
    d.iter().map(|x| x.to_bits()).collect()
}

/// Array `i` of `record` fetched (owned and viewed) as every element type:
/// only the listed dtype succeeds, with the listed shape and the block's
/// bytes; the others fail with `dtype-mismatch` at the entry's block.
fn fetch_all(record: &[u8], aligned: &[u8], i: usize, info: &kiln::array::ArrayInfo) {
    let range = info.byte_range();
    let block = &record[range.start as usize..range.end as usize];
    macro_rules! each {
        ($($t:ty),*) => {$({
            let owned = kiln::array::fetch::<$t>(record, i);
            let viewed = kiln::array::fetch_view::<$t>(aligned, i);
            let unaligned = kiln::array::fetch_view::<$t>(record, i);
            if info.dtype_name() == stringify!($t) {
                let owned = owned.unwrap_or_else(|e| panic!("listed array {i} fetches: {e}"));
                let viewed = viewed.unwrap_or_else(|e| panic!("listed array {i} views aligned: {e}"));
                let shape: Vec<u64> = owned.shape().iter().map(|&d| d as u64).collect();
                assert_eq!(shape, info.shape());
                assert_eq!(owned.len() as u64, info.element_count());
                let bytes: Vec<u8> = owned.data().iter().flat_map(|x| x.to_le_bytes()).collect();
                assert_eq!(bytes, block, "array {i}: fetched data is not the block");
                assert_eq!(viewed.shape(), owned.shape());
                let vbytes: Vec<u8> = viewed.data().iter().flat_map(|x| x.to_le_bytes()).collect();
                assert_eq!(vbytes, bytes, "array {i}: view differs from fetch");
                match unaligned {
                    Ok(v) => assert_eq!(v.data().len(), owned.len()),
                    Err(e) => assert_eq!(e.kind().code(), "view-misaligned", "{e}"),
                }
            } else {
                for r in [owned.map(drop), viewed.map(drop), unaligned.map(drop)] {
                    let e = r.expect_err("fetch of another dtype");
                    assert_eq!(
                        (e.kind().code(), e.offset()),
                        ("dtype-mismatch", Some(range.start)),
                        "{e}"
                    );
                }
            }
        })*};
    }
    each!(u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, f32, f64);
}

/// `directory` target: arbitrary bytes listed, fetched and viewed (from a
/// 64-byte aligned copy and from the unaligned input) as every element
/// type, and read as [`Sample`] (owned, viewed, copy-on-write, and from a
/// reader). Everything must agree: a listing that succeeds lets every entry
/// be fetched as its own dtype and no other; a listing that fails makes
/// every fetch fail the same way; a typed read that succeeds matches the
/// listing and the fetched arrays.
pub fn check_directory(data: &[u8]) {
    // Offset the input by one byte from a 64-byte boundary, so the
    // unaligned reads are really unaligned.
    let mut shifted = kiln::array::AlignedBytes::new();
    shifted.extend_from_slice(&[0]);
    shifted.extend_from_slice(data);
    let record = &shifted.as_slice()[1..];
    let copy = kiln::array::AlignedBytes::from_slice(data);
    let aligned = copy.as_slice();

    let listed = kiln::array::list(record);
    match &listed {
        Ok(entries) => {
            for (i, info) in entries.iter().enumerate() {
                let r = info.byte_range();
                assert!(r.start <= r.end && r.end <= data.len() as u64);
                assert_eq!(r.start % 64, 0, "blocks start at multiples of 64");
                fetch_all(record, aligned, i, info);
            }
            let past = kiln::array::fetch::<u8>(record, entries.len()).unwrap_err();
            assert!(
                matches!(past.kind().code(), "array-index" | "directory-missing"),
                "{past}"
            );
        }
        Err(e) => {
            for i in 0..3 {
                let f = kiln::array::fetch::<f32>(record, i).unwrap_err();
                let g = kiln::array::fetch_view::<u32>(aligned, i).unwrap_err();
                for f in [f, g] {
                    assert_eq!(
                        (e.kind().code(), e.offset()),
                        (f.kind().code(), f.offset()),
                        "list and fetch disagree: {e} / {f}"
                    );
                }
            }
        }
    }

    let owned = opts().from_slice::<Sample>(record);
    let view = opts().from_slice::<SampleView<'_>>(aligned);
    let cow = opts().from_slice::<SampleCow<'_>>(record);
    let streamed = opts().from_reader::<_, Sample>(Trickle::new(data));
    match &owned {
        Ok(s) => {
            let entries = listed.as_ref().expect("a record that reads lists");
            assert_eq!(entries.len(), 2, "two arrays listed");
            assert_eq!(
                (entries[0].dtype_name(), entries[1].dtype_name()),
                ("f32", "u32")
            );
            let image = kiln::array::fetch::<f32>(record, 0).unwrap();
            let index = kiln::array::fetch::<u32>(record, 1).unwrap();
            assert_eq!(image.shape(), s.image.shape());
            assert_eq!(bits_f32(image.data()), bits_f32(s.image.data()));
            assert_eq!(index, s.index);
            let v = view.expect("an aligned copy of a record that reads views");
            assert_eq!(v.label, s.label);
            assert_eq!(v.image.shape(), s.image.shape());
            assert_eq!(bits_f32(v.image.data()), bits_f32(s.image.data()));
            assert_eq!(v.index.to_owned(), s.index);
            let c = cow.expect("a record that reads reads copy-on-write");
            assert_eq!(c.label, s.label);
            // Blocks of the aligned copy are borrowed, of the shifted input copied.
            let a = opts()
                .from_slice::<SampleCow<'_>>(aligned)
                .expect("the aligned copy reads copy-on-write");
            assert!(a.image.is_borrowed() && a.index.is_borrowed());
            assert!(!c.image.is_borrowed() || s.image.is_empty());
            assert_eq!(bits_f32(c.image.data()), bits_f32(s.image.data()));
            assert_eq!(c.index.data(), s.index.data());
            let t = streamed.expect("a record that reads from a slice reads from a stream");
            assert_eq!(t.label, s.label);
            assert_eq!(bits_f32(t.image.data()), bits_f32(s.image.data()));
            assert_eq!(t.index, s.index);
            // Written again, it reads back the same.
            let out = kiln::to_vec(s).expect("a record read writes");
            let back: Sample = opts().from_slice(&out).expect("rewritten record reads");
            assert_eq!(bits_f32(back.image.data()), bits_f32(s.image.data()));
            assert_eq!(back.index, s.index);
            assert_eq!(back.label, s.label);
        }
        Err(e) => {
            for (what, f) in [
                ("view", view.map(drop)),
                ("cow", cow.map(drop)),
                ("stream", streamed.map(drop)),
            ] {
                assert!(f.is_err(), "{what} read a record the slice refused: {e}");
            }
        }
    }
}
