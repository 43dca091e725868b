//! What Kiln's fuzz targets share: a rich type that touches every serde
//! kind, bit-exact (NaN-aware) equality, readers and writers that move a few
//! bytes at a time, and one checking function per target.
//!
//! The targets in `fuzz_targets/` are one line each; the checks live here so
//! that the seed writer (`examples/seeds.rs`) and any future target (frame,
//! batch, directory) reuse the same type and helpers.

use serde::{Deserialize, Serialize};

#[path = "../../tests/common/rich.rs"]
mod rich;
pub use rich::*;

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
        // reading it; a slice has no such limit and finds its end instead.
        (Err(e), Err(f)) if f.code == "byte-limit" && e.code == "unexpected-end" => {
            assert_eq!(e.offset, f.offset, "{what}: {} / {}", e.message, f.message);
        }
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
/// value back bit for bit. Cutting the bytes short must be an error.
pub fn check_roundtrip(value: &RichOwned) {
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
