//! The one error type of the crate; its codes are those of
//! `spec/09-rejections.md`.
//!
//! Every failure, whether it happens while writing or while reading, is an
//! [`Error`]. An error is a pointer to a boxed record, so a `Result<T, Error>`
//! costs one word beyond `T`. The record holds:
//!
//! * the [`ErrorKind`]: what went wrong, with the expected and found values;
//! * the byte offset at which it went wrong, for errors found while reading;
//! * the field path (`Scene.meshes[3].name`), gathered for free while the
//!   error travels back up through the nested values.
//!
//! Each kind has a stable, language-neutral code ([`ErrorKind::code`]) used by
//! the must-reject vectors in `spec/vectors/`.

use std::borrow::Cow;
use std::fmt::{self, Display};
use std::io;

mod kind;

pub use kind::{Category, ErrorKind, FlagMismatch, FrameField};

/// `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error from encoding or decoding Kiln bytes.
///
/// ```
/// let err = kiln::from_slice::<bool>(&[7]).unwrap_err();
/// assert_eq!(err.kind().code(), "invalid-bool");
/// assert_eq!(err.offset(), Some(0));
/// assert_eq!(err.to_string(), "invalid bool: expected 00 or 01, found 07 at byte 0");
/// ```
pub struct Error(Handle);

/// The boxed [`ErrorImpl`], held as its address in a plain `u64`.
///
/// Why not a `Box`: a `Box` has a niche (it is never null), and the
/// compiler uses it to lay the error over the bytes of the `T` in
/// `Result<T, Error>`. Pairs of 4-byte fields of `T` (the `y` and `z` of an
/// `f32` vector) then travel through the stack as one 8-byte value, and the
/// 8-byte load that reads back two 4-byte stores stalls the processor.
/// Without a niche, `Result<T, Error>` keeps a tag of its own and the
/// error beside `T`'s fields.
///
/// Why one `u64` and not two `u32` halves (the layout until 2026-12-03):
/// `Result<(), Error>` is then 16 bytes, 8-byte aligned, which rustc 1.95 returns
/// in two registers; at 12 bytes, 4-byte aligned, it was returned through
/// memory. Every `serialize` of a struct that the compiler did not inline
/// stored its result and its caller loaded it back at once, and the reads
/// of the mesh dataset kept more values on the stack. Measured with
/// `benches/compare.rs` (mesh, 125,000 triangles of `f32`, speed over
/// bincode's in the same run): reading from a slice went from 0.83 to
/// 1.22, writing from 1.00 to 1.17. Earlier, a `Box` gave 0.33 and a
/// handle whose low half could never be zero 0.23.
struct Handle {
    addr: u64,
}

// `Handle` owns an `ErrorImpl` like a `Box` does, so it may cross threads
// exactly when a `Box<ErrorImpl>` may (its `u64` field would let it
// anyway).
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Box<ErrorImpl>>();
};

impl Handle {
    fn new(inner: Box<ErrorImpl>) -> Self {
        // The address is exposed, so that `ptr` may turn it back into a
        // pointer with this allocation's provenance.
        let addr = Box::into_raw(inner).expose_provenance() as u64;
        Handle { addr }
    }

    fn ptr(&self) -> *mut ErrorImpl {
        std::ptr::with_exposed_provenance_mut(self.addr as usize)
    }
}

impl std::ops::Deref for Handle {
    type Target = ErrorImpl;

    fn deref(&self) -> &ErrorImpl {
        // SAFETY: `addr` holds the address of a live allocation made by
        // `Box::into_raw` in `new` (a `usize` address round-trips through
        // a `u64` exactly, on 32- and 64-bit targets), exposed there; it is
        // freed only by `drop`, and the `&self` borrow keeps it alive and
        // unaliased by `&mut` for the returned lifetime.
        unsafe { &*self.ptr() }
    }
}

impl std::ops::DerefMut for Handle {
    fn deref_mut(&mut self) -> &mut ErrorImpl {
        // SAFETY: as in `deref`; `&mut self` is the only access to the
        // allocation, since a `Handle` is never copied or cloned.
        unsafe { &mut *self.ptr() }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` in `new` and is
        // turned back into a `Box` exactly once, here.
        drop(unsafe { Box::from_raw(self.ptr()) });
    }
}

struct ErrorImpl {
    kind: ErrorKind,
    offset: Option<u64>,
    /// Path segments, innermost first: pushed while the error unwinds.
    path: Vec<Segment>,
    /// Index of the record, for errors inside a batch.
    record: Option<u64>,
}

/// One step of the path from the outermost value to the one that failed.
///
/// Names are borrowed from the Rust type when it has them, owned when they
/// come from a schema read at run time ([`crate::value`]).
#[derive(Clone, Debug)]
enum Segment {
    /// A struct or enum passed on the way out; only the outermost is shown.
    Container(Cow<'static, str>),
    Field(Cow<'static, str>),
    Position(usize),
    Index(u64),
    Entry(u64),
    Variant(Cow<'static, str>),
}

impl Error {
    /// An error of `kind` at byte `offset`.
    #[cold]
    pub(crate) fn at(kind: ErrorKind, offset: u64) -> Self {
        Error(Handle::new(Box::new(ErrorImpl {
            kind,
            offset: Some(offset),
            path: Vec::new(),
            record: None,
        })))
    }

    /// The error of a deserializer without detail (see
    /// [`Deserializer`](crate::Deserializer)): only says that decoding
    /// failed. Kiln decodes again with detail before an error reaches the
    /// caller, so no caller ever sees this one. One function with no
    /// arguments, so that every failure site calls it the same way.
    #[cold]
    #[inline(never)]
    pub(crate) fn undetailed() -> Self {
        Error::new(ErrorKind::Custom(
            "decoding failed (undetailed; decode again with detailed errors)".into(),
        ))
    }

    /// An error of `kind` with no position (encoding errors).
    #[cold]
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error(Handle::new(Box::new(ErrorImpl {
            kind,
            offset: None,
            path: Vec::new(),
            record: None,
        })))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The [`Category`] of the error: what a caller can do about it.
    ///
    /// ```
    /// use kiln::error::Category;
    ///
    /// let cut = kiln::from_slice::<u32>(&[1, 0]).unwrap_err();
    /// assert_eq!(cut.classify(), Category::Eof);
    /// assert!(cut.is_eof());
    /// let bad = kiln::from_slice::<bool>(&[7]).unwrap_err();
    /// assert_eq!(bad.classify(), Category::Data);
    /// ```
    pub fn classify(&self) -> Category {
        self.0.kind.category()
    }

    /// Whether the input ended early ([`Category::Eof`]): a stream that is
    /// still being written may hold the rest later.
    pub fn is_eof(&self) -> bool {
        self.classify() == Category::Eof
    }

    /// The byte offset, from the start of the input, at which decoding failed.
    ///
    /// `None` for errors found while encoding.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The index of the record (from 0) in which a batch read failed, or
    /// `None` outside batches.
    pub fn record(&self) -> Option<u64> {
        self.0.record
    }

    /// The path from the outermost value to the one that failed, such as
    /// `Scene.meshes[3].name`, or `None` if the error happened at the top.
    ///
    /// Steps: `Type` the outermost struct or enum, `.field` a struct field,
    /// `.0` a tuple position, `[3]` a sequence element, `{entry 3}` the
    /// fourth entry of a map (its key or its value; a struct read as a map,
    /// as `#[serde(flatten)]` does, shows this too), `::Variant` an enum
    /// variant.
    pub fn path(&self) -> Option<String> {
        use fmt::Write;
        if self.0.path.is_empty() {
            return None;
        }
        let mut out = String::new();
        for (i, seg) in self.0.path.iter().rev().enumerate() {
            let _ = match seg {
                Segment::Container(name) if i == 0 => write!(out, "{name}"),
                Segment::Container(_) => Ok(()),
                Segment::Field(name) => write!(out, ".{name}"),
                Segment::Position(p) => write!(out, ".{p}"),
                Segment::Index(p) => write!(out, "[{p}]"),
                Segment::Entry(p) => write!(out, "{{entry {p}}}"),
                Segment::Variant(name) => write!(out, "::{name}"),
            };
        }
        if out.is_empty() { None } else { Some(out) }
    }

    /// Sets the offset if the error does not carry one yet (errors raised by
    /// visitors through `de::Error::custom` learn their position this way).
    #[cold]
    pub(crate) fn or_offset(mut self, offset: u64) -> Self {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
        }
        self
    }

    /// Marks the error as raised inside record `index` of a batch.
    #[cold]
    pub(crate) fn in_record(mut self, index: u64) -> Self {
        self.0.record = Some(index);
        self
    }

    /// Moves the offset by `base`: for errors of a reader that started at
    /// byte `base` of a larger input (a frame's payload, a frame in a
    /// file), so that the offset counts from the larger input's start.
    ///
    /// ```
    /// let err = kiln::from_slice::<bool>(&[7]).unwrap_err().shifted(100);
    /// assert_eq!(err.offset(), Some(100));
    /// ```
    #[cold]
    #[must_use]
    pub fn shifted(mut self, base: u64) -> Self {
        if let Some(offset) = self.0.offset {
            self.0.offset = Some(offset.saturating_add(base));
        }
        self
    }

    /// Moves the record index by `first`: for errors of a reader of one
    /// frame whose first record is record `first` of a file.
    ///
    /// ```
    /// let err = kiln::batch::from_slice::<bool>(&[1, 7]).find_map(Result::err).unwrap();
    /// let err = err.records_from(10);
    /// assert_eq!(err.record(), Some(11));
    /// ```
    #[cold]
    #[must_use]
    pub fn records_from(mut self, first: u64) -> Self {
        if let Some(record) = self.0.record {
            self.0.record = Some(record.saturating_add(first));
        }
        self
    }

    #[cold]
    pub(crate) fn in_container(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.0.path.push(Segment::Container(name.into()));
        self
    }

    #[cold]
    pub(crate) fn in_field(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.0.path.push(Segment::Field(name.into()));
        self
    }

    #[cold]
    pub(crate) fn in_position(mut self, pos: usize) -> Self {
        self.0.path.push(Segment::Position(pos));
        self
    }

    #[cold]
    pub(crate) fn in_index(mut self, index: u64) -> Self {
        self.0.path.push(Segment::Index(index));
        self
    }

    #[cold]
    pub(crate) fn in_entry(mut self, index: u64) -> Self {
        self.0.path.push(Segment::Entry(index));
        self
    }

    #[cold]
    pub(crate) fn in_variant(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.0.path.push(Segment::Variant(name.into()));
        self
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.0.kind, f)?;
        if let Some(offset) = self.0.offset {
            write!(f, " at byte {offset}")?;
        }
        if let Some(record) = self.0.record {
            write!(f, " in record {record}")?;
        }
        if let Some(path) = self.path() {
            write!(f, " in {path}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.0.kind);
        if let Some(offset) = self.0.offset {
            d.field("offset", &offset);
        }
        if let Some(record) = self.0.record {
            d.field("record", &record);
        }
        if let Some(path) = self.path() {
            d.field("path", &path);
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

/// Lets Kiln's errors travel through `io::Result` code: an I/O failure gives
/// back the underlying `io::Error`, an early end becomes
/// [`io::ErrorKind::UnexpectedEof`], anything else
/// [`io::ErrorKind::InvalidData`] with the Kiln error inside.
///
/// ```
/// let e = kiln::from_slice::<u32>(&[1]).unwrap_err();
/// let io: std::io::Error = e.into();
/// assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
/// ```
impl From<Error> for io::Error {
    fn from(mut e: Error) -> io::Error {
        match e.classify() {
            Category::Io => {
                match std::mem::replace(&mut e.0.kind, ErrorKind::Custom(String::new())) {
                    ErrorKind::Io(inner) => inner,
                    other => io::Error::other(other.to_string()),
                }
            }
            Category::Eof => io::Error::new(io::ErrorKind::UnexpectedEof, e),
            _ => io::Error::new(io::ErrorKind::InvalidData, e),
        }
    }
}

impl serde::ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Custom(msg.to_string()))
    }
}

impl serde::de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Custom(msg.to_string()))
    }
}
