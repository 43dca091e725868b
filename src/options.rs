//! Decoding limits (`spec/03-types.md`, 3.19).
//!
//! Limits protect a reader from hostile input. None of them changes a single
//! byte that is written or the meaning of any byte that is read: a value
//! either decodes the same under every setting or is rejected.

/// Default for [`Options::max_depth`].
pub const DEFAULT_MAX_DEPTH: u32 = 128;
/// Default for [`Options::zero_sized_limit`].
pub const DEFAULT_ZERO_SIZED_LIMIT: u64 = 1 << 20;
/// Default for [`Options::byte_limit`]: 1 GiB.
pub const DEFAULT_BYTE_LIMIT: u64 = 1 << 30;
/// Default for [`Options::schema_text_limit`]: 1 MiB.
pub const DEFAULT_SCHEMA_TEXT_LIMIT: u64 = 1 << 20;

/// Limits for decoding, with the builder methods that set them.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Point { x: i32, y: i32 }
///
/// let bytes = [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff];
/// let opts = kiln::Options::new().max_depth(8).byte_limit(1024);
/// let p: Point = opts.from_slice(&bytes)?;
/// assert_eq!(p, Point { x: 9, y: -4 });
/// let q: Point = opts.from_reader(&bytes[..])?;
/// assert_eq!(q, p);
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub(crate) max_depth: u32,
    pub(crate) zero_sized_limit: u64,
    pub(crate) byte_limit: u64,
    pub(crate) schema_text_limit: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: DEFAULT_MAX_DEPTH,
            zero_sized_limit: DEFAULT_ZERO_SIZED_LIMIT,
            byte_limit: DEFAULT_BYTE_LIMIT,
            schema_text_limit: DEFAULT_SCHEMA_TEXT_LIMIT,
        }
    }
}

impl Options {
    /// The defaults: depth 128, a zero-sized budget of 2^20, 1 GiB from readers,
    /// schema texts up to 1 MiB.
    pub fn new() -> Self {
        Self::default()
    }

    /// How deeply values may nest (structs, enums, sequences, maps, options,
    /// tuples, newtypes) before decoding stops with
    /// [`ErrorKind::DepthLimit`](crate::ErrorKind::DepthLimit).
    ///
    /// The limit is what keeps hostile input from overflowing the stack,
    /// so it must fit the stack of the thread that decodes. Measured for
    /// the default of 128 with a recursive enum: under 32 KiB in a release
    /// build, and about 128 KiB in a debug build (64 KiB overflows there).
    /// Main threads (8 MiB) and spawned threads (2 MiB) have room to spare;
    /// a thread with a smaller stack should lower the limit.
    pub fn max_depth(mut self, depth: u32) -> Self {
        self.max_depth = depth;
        self
    }

    /// The budget for elements and records that occupy no input bytes
    /// (such as `()` in `Vec<()>`), shared by the whole input: one record,
    /// or every record of a batch or stream. Without it, a four-byte count
    /// could make the reader loop four billion times.
    ///
    /// Each such element costs its size in memory in bytes, at least 1, so
    /// that the memory they hold stays within the budget too (a struct
    /// whose fields are all `#[serde(skip)]` takes no input and may be
    /// large). With the default of 2^20, `Vec<()>` holds up to 2^20
    /// elements, and zero-byte elements hold at most 1 MiB.
    pub fn zero_sized_limit(mut self, limit: u64) -> Self {
        self.zero_sized_limit = limit;
        self
    }

    /// How many bytes a decode from an `io::Read` may consume.
    pub fn byte_limit(mut self, limit: u64) -> Self {
        self.byte_limit = limit;
        self
    }

    /// How long a frame's embedded schema text may be, in bytes. A header
    /// that claims a longer text is refused with
    /// [`ErrorKind::SchemaTextLimit`](crate::ErrorKind::SchemaTextLimit)
    /// before a byte of the text is read, from a slice and from a stream.
    pub fn schema_text_limit(mut self, limit: u64) -> Self {
        self.schema_text_limit = limit;
        self
    }
}
