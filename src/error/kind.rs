//! What went wrong: every [`ErrorKind`] with its stable code (the codes
//! of `spec/09-rejections.md`) and its [`Category`].

use std::fmt;
use std::io;

pub use crate::fingerprint::Fingerprint;

/// What went wrong.
///
/// The enum is `#[non_exhaustive]`: later versions may add kinds, so match
/// with a wildcard arm. [`ErrorKind::code`] gives a stable short name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    // ----- decoding: the bytes -----
    /// The input ended inside a value.
    #[error(
        "unexpected end of input: expected {expected} ({}), found {}",
        bytes(.needed),
        bytes(.available)
    )]
    UnexpectedEnd {
        /// What was being read.
        expected: &'static str,
        /// How many bytes it needed.
        needed: u64,
        /// How many bytes were left.
        available: u64,
    },
    /// A `bool` byte other than `00` or `01`.
    #[error("invalid bool: expected 00 or 01, found {0:02x}")]
    InvalidBool(u8),
    /// An `Option` tag other than `00` or `01`.
    #[error("invalid option tag: expected 00 or 01, found {0:02x}")]
    InvalidOptionTag(u8),
    /// A `char` that is a surrogate or above `0x10FFFF`.
    #[error("invalid char: expected a Unicode scalar value, found {0:#x}")]
    InvalidChar(u32),
    /// String bytes that are not UTF-8.
    #[error(
        "invalid UTF-8: expected a string, found a bad sequence after {} valid {}",
        .valid_up_to,
        plural(.valid_up_to, "byte", "bytes")
    )]
    InvalidUtf8 {
        /// Length of the longest valid UTF-8 prefix.
        valid_up_to: usize,
    },
    /// An enum variant index the type does not have.
    #[error(
        "unknown variant: expected an index below {variants} for enum {enum_name}, found {index}"
    )]
    UnknownVariant {
        /// The enum's name.
        enum_name: std::borrow::Cow<'static, str>,
        /// The index found in the input.
        index: u32,
        /// How many variants the reader's type has.
        variants: usize,
    },
    /// A count larger than the rest of the input can possibly hold.
    #[error(
        "count too large: found a count of {count}, but the rest of the input can hold at most {max} \
         elements (one byte each, plus the zero-byte budget)"
    )]
    CountTooLarge {
        /// The count found in the input.
        count: u64,
        /// The most the remaining bytes could hold.
        max: u64,
    },
    /// More zero-byte elements than [`Options::zero_sized_limit`](crate::Options::zero_sized_limit) allows.
    #[error("too many zero-byte elements: the limit is {limit}")]
    ZeroSizedLimit {
        /// The limit in force.
        limit: u64,
    },
    /// Values nested deeper than [`Options::max_depth`](crate::Options::max_depth).
    #[error("nesting too deep: the limit is {limit} levels")]
    DepthLimit {
        /// The limit in force.
        limit: u32,
    },
    /// A value read from a stream would reach past
    /// [`Options::byte_limit`](crate::Options::byte_limit). This is checked
    /// before the value is read, so a huge claim fails at once, whether or
    /// not the stream really holds that many bytes.
    #[error(
        "byte limit: expected at most {} of input, found a value reaching past them",
        bytes(.limit)
    )]
    ByteLimit {
        /// The limit in force.
        limit: u64,
    },
    /// A frame header claims a schema text longer than
    /// [`Options::schema_text_limit`](crate::Options::schema_text_limit).
    #[error("schema text too long: expected at most {}, found a header claiming {len}", bytes(.limit))]
    SchemaTextLimit {
        /// The length the header claims.
        len: u64,
        /// The limit in force.
        limit: u64,
    },
    /// Bytes were left after the record.
    #[error("trailing bytes: expected end of input, found {count} more {}", plural(.count, "byte", "bytes"))]
    TrailingBytes {
        /// How many (for readers: at least how many).
        count: u64,
    },
    /// The type asked for something a positional format cannot answer.
    #[error("unsupported: Kiln is positional and cannot answer `{method}`, which {features} need")]
    Unsupported {
        /// The serde method that was called.
        method: &'static str,
        /// The serde features that lead to that call.
        features: &'static str,
    },
    // ----- encoding -----
    /// A `Serialize` impl skipped a field (`#[serde(skip_serializing_if)]`).
    #[error(
        "field `{container}.{field}` was skipped (skip_serializing_if?): a positional reader cannot know that a field is missing"
    )]
    SkippedField {
        /// The struct.
        container: &'static str,
        /// The field left out.
        field: &'static str,
    },
    /// A length that does not fit the 32-bit count.
    #[error("length {len} does not fit in the 32-bit count")]
    CountOverflow {
        /// The length that was asked for.
        len: u64,
    },
    /// The slice given to [`crate::to_slice`] is too short for the value.
    #[error("the output slice is full: {} needed, {available} available", bytes(.needed))]
    BufferFull {
        /// Bytes the value needed so far (at least; writing stopped here).
        needed: u64,
        /// The slice's length.
        available: u64,
    },
    /// A `Serialize` impl wrote a different number of elements than it declared.
    #[error("length mismatch: declared {declared} elements, found {actual}")]
    LengthMismatch {
        /// The length given to `serialize_seq` or `serialize_map`.
        declared: u64,
        /// The number of elements actually written.
        actual: u64,
    },
    /// A map entry was written without its key or value.
    #[error("map entry written without its key or its value")]
    MapEntryIncomplete,
    // ----- shaped arrays (spec/08-directory.md) -----
    /// A record holds an array but does not end with a directory trailer.
    #[error(
        "array directory missing: expected the record to end with a {expected}-byte trailer ending in \"KILNDIR1\", found {found}"
    )]
    DirectoryMissing {
        /// Trailer size.
        expected: u64,
        /// What the record's end holds.
        found: &'static str,
    },
    /// An array was read where the end of the record is not known.
    #[error(
        "array record end unknown: arrays need the whole record (from_slice, a single-record frame or from_reader), found a reader of records back to back"
    )]
    RecordEndUnknown,
    /// A batch writer was given a record that holds shaped arrays.
    #[error(
        "arrays in a batch: expected a record without arrays (records back to back have no known end, so no directory can follow them), found {arrays} array(s); write such records one per single-record frame (kiln::frame::to_vec) or bare (kiln::to_vec)"
    )]
    ArraysInBatch {
        /// Arrays the record wrote.
        arrays: u64,
    },
    /// A frame's directory flag disagrees with its payload or with the
    /// record read from it.
    #[error("directory flag mismatch: {0}")]
    DirectoryFlag(FlagMismatch),
    /// The trailer's directory offset is outside the record.
    #[error("directory offset out of range: expected at most {max}, found {offset}")]
    DirectoryOffset {
        /// The offset in the trailer.
        offset: u64,
        /// Where the trailer starts.
        max: u64,
    },
    /// The directory's entries do not fill its bytes exactly.
    #[error(
        "directory length mismatch: {entries} {} {}, found {}",
        plural(.entries, "entry needs", "entries need"),
        bytes(.needed),
        bytes(.found)
    )]
    DirectoryLength {
        /// Entry count from the trailer.
        entries: u64,
        /// Bytes the entries need (at least, if they run past the end).
        needed: u64,
        /// Bytes between the directory offset and the trailer.
        found: u64,
    },
    /// A reserved byte of the directory is not zero.
    #[error("directory reserved byte not zero: expected 00, found {0:02x}")]
    DirectoryReserved(u8),
    /// A dtype code Kiln does not define.
    #[error("unknown dtype: expected a code from 01 to 0c, found {0:02x}")]
    UnknownDtype(u8),
    /// A rank above [`MAX_RANK`](crate::array::directory::MAX_RANK).
    #[error("rank too large: expected at most {max} dimensions, found {rank}")]
    RankLimit {
        /// The rank found.
        rank: u64,
        /// The limit.
        max: u64,
    },
    /// A dimension above [`MAX_DIMENSION`](crate::array::directory::MAX_DIMENSION).
    #[error("dimension too large: expected at most {max}, found {dim}")]
    DimensionLimit {
        /// The dimension found.
        dim: u64,
        /// The limit.
        max: u64,
    },
    /// The shape's element count times the element size overflows 64 bits.
    #[error(
        "array size overflows: the shape's element count times {} does not fit in 64 bits",
        bytes(.elem_size)
    )]
    ArraySizeOverflow {
        /// Bytes per element.
        elem_size: u64,
    },
    /// A block length that is not the shape's element count times the element size.
    #[error(
        "block length mismatch: the shape needs {}, found a block of {found}",
        bytes(.expected)
    )]
    BlockLength {
        /// Element count times element size.
        expected: u64,
        /// Block length in the entry.
        found: u64,
    },
    /// A block offset that is not a multiple of 64.
    #[error("block misaligned: expected an offset that is a multiple of 64, found {0}")]
    BlockMisaligned(u64),
    /// A block that does not lie before the directory.
    #[error(
        "block out of bounds: expected the block to end by byte {limit}, found offset {offset} and length {len}"
    )]
    BlockOutOfBounds {
        /// Block offset.
        offset: u64,
        /// Block length.
        len: u64,
        /// The directory offset, which every block must end by.
        limit: u64,
    },
    /// A block that starts before the block listed before it.
    #[error("blocks out of order: expected an offset of at least {min}, found {offset}")]
    BlockOrder {
        /// Block offset.
        offset: u64,
        /// Offset of the block listed before it.
        min: u64,
    },
    /// A block that overlaps the block listed before it.
    #[error("blocks overlap: the previous block ends at {previous_end}, found a block at {offset}")]
    BlockOverlap {
        /// Block offset.
        offset: u64,
        /// End of the previous block.
        previous_end: u64,
    },
    /// A padding byte (in front of a block, after a frame's schema text, or
    /// reserved in a frame header or trailer) that must be zero is not.
    #[error("padding not zero: expected 00, found {0:02x}")]
    PaddingNonZero(u8),
    /// An array's block is not where its directory entry says.
    #[error(
        "array position mismatch: array {index} has its block at {found}, its directory entry says {expected}"
    )]
    ArrayPosition {
        /// Index of the array in the record.
        index: u64,
        /// Offset in the entry.
        expected: u64,
        /// Offset the reader reached.
        found: u64,
    },
    /// An array's dtype is not the element type being read.
    #[error("array dtype mismatch: expected {expected}, found dtype {found:02x}")]
    DtypeMismatch {
        /// The reader's element type.
        expected: &'static str,
        /// The entry's dtype code.
        found: u8,
    },
    /// The reader met another number of arrays than the directory lists.
    #[error(
        "array count mismatch: the directory lists {entries} arrays, the record's values hold {found}"
    )]
    ArrayCount {
        /// Entries in the directory.
        entries: u64,
        /// Arrays met (at least, if more than the entries).
        found: u64,
    },
    /// The record's values do not end where the directory starts.
    #[error("directory position mismatch: expected the values to end at {expected}, found {found}")]
    DirectoryPosition {
        /// The directory offset.
        expected: u64,
        /// Where the values ended.
        found: u64,
    },
    /// An array index past the directory's entries.
    #[error("array index out of range: expected an index below {count}, found {index}")]
    ArrayIndex {
        /// The index asked for.
        index: u64,
        /// Entries in the directory.
        count: u64,
    },
    /// A shape whose element count is not the number of elements given.
    #[error("shape mismatch: the shape holds {expected} elements, found {found}")]
    ShapeMismatch {
        /// Product of the shape (`u128::MAX` if it overflows `usize`).
        expected: u128,
        /// Elements given.
        found: u64,
    },
    /// A view was asked of a block not aligned in memory for its element type.
    #[error(
        "view misaligned: expected the block's address to be a multiple of {align}; read into an owned Array, or keep the record in memory aligned to 64 bytes"
    )]
    ViewMisaligned {
        /// The alignment needed.
        align: u64,
    },
    /// A view was asked where the block cannot be borrowed.
    #[error("view unavailable: {reason}")]
    ViewUnavailable {
        /// Why.
        reason: &'static str,
    },
    // ----- frames, schemas and batches -----
    /// The input does not start with the frame magic.
    #[error("bad magic: expected a Kiln frame (89 4b 49 4c 4e 0d 0a 1a), found {found}")]
    BadMagic {
        /// The bytes found, in hex.
        found: String,
    },
    /// A frame format version this reader does not know.
    #[error("unsupported frame version: expected {supported}, found {found}")]
    UnsupportedVersion {
        /// The version in the header.
        found: u16,
        /// The version this reader reads.
        supported: u16,
    },
    /// A flag bit that this version reserves is set.
    #[error("reserved frame flag set: expected only bits {known:#06x}, found flags {flags:#06x}")]
    ReservedFlag {
        /// The flags found.
        flags: u16,
        /// The bits this version defines.
        known: u16,
    },
    /// A header field holds a value its flags do not allow.
    #[error("bad frame header field `{field}`: expected {expected}, found {found}")]
    HeaderField {
        /// The field.
        field: FrameField,
        /// What the flags require.
        expected: &'static str,
        /// The value found.
        found: u64,
    },
    /// The writer's schema is not the reader's.
    #[error(
        "schema mismatch: the reader's type has fingerprint {expected}, the frame was written with {found}{}",
        schema_texts(expected_text.as_deref(), found_text.as_deref())
    )]
    SchemaMismatch {
        /// The reader's fingerprint (shown as 16 hex digits).
        expected: Fingerprint,
        /// The fingerprint in the frame.
        found: Fingerprint,
        /// The reader's canonical schema text, if known.
        expected_text: Option<String>,
        /// The writer's canonical schema text, if embedded in the frame.
        found_text: Option<String>,
    },
    /// The writer's schema cannot be read as the reader's type: a field
    /// the reader needs that the writer never wrote, a change no rule of
    /// `spec/12-evolution.md` allows. Found when the resolution is
    /// planned, before the first value; the offset is the header's
    /// fingerprint.
    #[error("schema incompatible at {path}: {reason} (writer: {writer}, reader: {reader})")]
    SchemaIncompatible {
        /// Where in the reader's type (`V2.retries`, `Shape::Circle.r`).
        path: String,
        /// The writer's format there, as schema text (`-` for none: a
        /// field only the reader has).
        writer: String,
        /// The reader's format there, as schema text (`-` for none).
        reader: String,
        /// Why no rule allows it.
        reason: String,
    },
    /// A variant the writer wrote that the reader's enum does not have,
    /// and the reader has no `#[serde(other)]` variant to take it.
    #[error(
        "variant not in reader: enum {enum_name} has no variant `{variant}`, which the writer wrote"
    )]
    VariantNotInReader {
        /// The enum's name in the writer's schema.
        enum_name: String,
        /// The writer's variant.
        variant: String,
    },
    /// Frames of another version of the type, with evolution asked for,
    /// but neither the frame nor the schema store holds the writer's text.
    #[error(
        "writer schema unknown: the frame was written with fingerprint {found}, whose schema text is neither embedded nor in the store"
    )]
    WriterSchemaUnknown {
        /// The frame's fingerprint.
        found: Fingerprint,
    },
    /// Embedded schema text whose fingerprint is not the header's.
    #[error(
        "embedded schema text does not match the header: expected fingerprint {expected}, the text hashes to {found}"
    )]
    SchemaTextMismatch {
        /// The header's fingerprint.
        expected: Fingerprint,
        /// The fingerprint of the embedded text.
        found: Fingerprint,
    },
    /// A schema text is not canonical text (`spec/05-schema.md`, 5.2); the
    /// offset is the byte within the text.
    #[error("malformed schema text: {reason}")]
    SchemaText {
        /// What is wrong there.
        reason: &'static str,
    },
    /// A `Serialize` impl wrote something other than what the schema a
    /// frame stamps (from the type's `Schema`) lets a reader read back.
    #[error("{what} does not match the frame's schema: {why}")]
    SerializeMismatch {
        /// The struct, tuple struct or enum variant that was written.
        what: String,
        /// What the schema says instead, and the likely cause.
        why: String,
    },
    /// A type has no schema Kiln can write: its description failed (two
    /// containers of one name, a type inside itself without a name), or
    /// the optional tracer could not trace it.
    #[error("no schema for `{type_name}`: {reason}")]
    NoSchema {
        /// The Rust type.
        type_name: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// The frame ends before its header, schema text, payload or trailer does.
    #[error(
        "frame truncated: expected {expected} ({}), found {}",
        bytes(.needed),
        bytes(.available)
    )]
    FrameTruncated {
        /// The part of the frame that was being read.
        expected: &'static str,
        /// How many bytes it needs.
        needed: u64,
        /// How many were there.
        available: u64,
    },
    /// The payload held another number of records than the frame declares.
    #[error(
        "record count mismatch: the frame declares {declared} records, the payload holds {found}"
    )]
    CountMismatch {
        /// The count in the header or trailer.
        declared: u64,
        /// The records actually read (at least this many).
        found: u64,
    },
    /// The declared payload length is not the bytes the records took.
    #[error(
        "payload length mismatch: the frame declares {}, the records took {found}",
        bytes(.declared)
    )]
    PayloadLengthMismatch {
        /// The length in the header or trailer.
        declared: u64,
        /// The bytes the records took (at least this many).
        found: u64,
    },
    /// The payload's CRC-32C is not the one the frame carries.
    #[error(
        "checksum mismatch: the frame carries CRC-32C {expected:08x}, the payload has {found:08x}"
    )]
    ChecksumMismatch {
        /// The checksum in the header or trailer.
        expected: u32,
        /// The checksum of the bytes read.
        found: u32,
    },
    /// A streamed frame whose trailer does not end with the trailer magic.
    #[error("bad trailer: expected the end magic {expected}, found {found}")]
    BadTrailer {
        /// The magic, in hex.
        expected: &'static str,
        /// The bytes found, in hex.
        found: String,
    },
    // ----- files: frames back to back (spec/11-file.md) -----
    /// A file ends inside a frame (or inside the padding before one): the
    /// last write was cut short. The offset is the end of the last
    /// complete frame, where `kiln repair` cuts the file.
    #[error(
        "truncated tail: expected a complete frame after the last good one, found {found} \
         ({} to the end of the file)",
        bytes(.available)
    )]
    TruncatedTail {
        /// What was cut: `a header`, `a payload`, `padding`, ...
        found: &'static str,
        /// The bytes after the last complete frame.
        available: u64,
    },
    /// The record index of an indexed frame (flag INDEXED) is not a list
    /// of record ends that fits its payload.
    #[error("bad record index: expected {expected}, found {found}")]
    RecordIndex {
        /// What the index must hold there.
        expected: &'static str,
        /// The value found.
        found: u64,
    },
    /// A file writer was asked to append after a streamed frame, which
    /// extends to the end of its input, so nothing can follow it.
    #[error(
        "cannot append: the file's last frame is streamed (it extends to the end of the file); \
         start a new file, or copy its records into one written by kiln::file"
    )]
    StreamedTail,
    /// A value does not fit the schema it is written or read under
    /// (`spec/10-values.md`); the error's path says where.
    #[error("value does not fit the schema: expected {expected}, found {found}")]
    ValueMismatch {
        /// What the schema has there.
        expected: String,
        /// What the value has there.
        found: String,
    },
    // ----- either side -----
    /// An I/O error from the underlying reader or writer.
    #[error("I/O error: {0}")]
    Io(io::Error),
    /// A message from a `Serialize` or `Deserialize` impl (`Error::custom`).
    #[error("{0}")]
    Custom(String),
}

/// The two schema texts of a [`ErrorKind::SchemaMismatch`], when known.
/// The word for `n` things in a message: `one` if `n` is 1, else `many`.
fn plural<N: Copy + TryInto<u64>>(n: &N, one: &'static str, many: &'static str) -> &'static str {
    if (*n).try_into().is_ok_and(|n: u64| n == 1) {
        one
    } else {
        many
    }
}

/// A size in bytes for a message: "1 byte", "4 bytes".
fn bytes(n: &u64) -> String {
    format!("{n} {}", plural(n, "byte", "bytes"))
}

fn schema_texts(reader: Option<&str>, writer: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(text) = reader {
        out.push_str("\nreader's schema:\n");
        out.push_str(text);
    }
    match writer {
        Some(text) => {
            out.push_str("\nwriter's schema:\n");
            out.push_str(text);
        }
        None => out.push_str("\n(the frame does not embed the writer's schema text)"),
    }
    out
}

impl ErrorKind {
    /// A stable, language-neutral name for the kind, as used in
    /// `spec/vectors/` must-reject cases.
    pub fn code(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd { .. } => "unexpected-end",
            ErrorKind::InvalidBool(_) => "invalid-bool",
            ErrorKind::InvalidOptionTag(_) => "invalid-option-tag",
            ErrorKind::InvalidChar(_) => "invalid-char",
            ErrorKind::InvalidUtf8 { .. } => "invalid-utf8",
            ErrorKind::UnknownVariant { .. } => "unknown-variant",
            ErrorKind::CountTooLarge { .. } => "count-too-large",
            ErrorKind::ZeroSizedLimit { .. } => "zero-sized-limit",
            ErrorKind::DepthLimit { .. } => "depth-limit",
            ErrorKind::ByteLimit { .. } => "byte-limit",
            ErrorKind::SchemaTextLimit { .. } => "schema-text-limit",
            ErrorKind::TrailingBytes { .. } => "trailing-bytes",
            ErrorKind::Unsupported { .. } => "unsupported",
            ErrorKind::SkippedField { .. } => "skipped-field",
            ErrorKind::CountOverflow { .. } => "count-overflow",
            ErrorKind::BufferFull { .. } => "buffer-full",
            ErrorKind::LengthMismatch { .. } => "length-mismatch",
            ErrorKind::MapEntryIncomplete => "map-entry-incomplete",
            ErrorKind::DirectoryMissing { .. } => "directory-missing",
            ErrorKind::RecordEndUnknown => "record-end-unknown",
            ErrorKind::ArraysInBatch { .. } => "arrays-in-batch",
            ErrorKind::DirectoryFlag(_) => "directory-flag",
            ErrorKind::DirectoryOffset { .. } => "directory-offset",
            ErrorKind::DirectoryLength { .. } => "directory-length",
            ErrorKind::DirectoryReserved(_) => "directory-reserved",
            ErrorKind::UnknownDtype(_) => "unknown-dtype",
            ErrorKind::RankLimit { .. } => "rank-limit",
            ErrorKind::DimensionLimit { .. } => "dimension-limit",
            ErrorKind::ArraySizeOverflow { .. } => "array-size-overflow",
            ErrorKind::BlockLength { .. } => "block-length",
            ErrorKind::BlockMisaligned(_) => "block-misaligned",
            ErrorKind::BlockOutOfBounds { .. } => "block-out-of-bounds",
            ErrorKind::BlockOrder { .. } => "block-order",
            ErrorKind::BlockOverlap { .. } => "block-overlap",
            ErrorKind::PaddingNonZero(_) => "padding-nonzero",
            ErrorKind::ArrayPosition { .. } => "array-position",
            ErrorKind::DtypeMismatch { .. } => "dtype-mismatch",
            ErrorKind::ArrayCount { .. } => "array-count",
            ErrorKind::DirectoryPosition { .. } => "directory-position",
            ErrorKind::ArrayIndex { .. } => "array-index",
            ErrorKind::ShapeMismatch { .. } => "shape-mismatch",
            ErrorKind::ViewMisaligned { .. } => "view-misaligned",
            ErrorKind::ViewUnavailable { .. } => "view-unavailable",
            ErrorKind::BadMagic { .. } => "bad-magic",
            ErrorKind::UnsupportedVersion { .. } => "unsupported-version",
            ErrorKind::ReservedFlag { .. } => "reserved-flag",
            ErrorKind::HeaderField { .. } => "header-field",
            ErrorKind::SchemaMismatch { .. } => "schema-mismatch",
            ErrorKind::SchemaIncompatible { .. } => "schema-incompatible",
            ErrorKind::VariantNotInReader { .. } => "variant-not-in-reader",
            ErrorKind::WriterSchemaUnknown { .. } => "writer-schema-unknown",
            ErrorKind::SchemaTextMismatch { .. } => "schema-text-mismatch",
            ErrorKind::SchemaText { .. } => "schema-text",
            ErrorKind::SerializeMismatch { .. } => "serialize-mismatch",
            ErrorKind::ValueMismatch { .. } => "value-mismatch",
            ErrorKind::NoSchema { .. } => "no-schema",
            ErrorKind::FrameTruncated { .. } => "frame-truncated",
            ErrorKind::CountMismatch { .. } => "count-mismatch",
            ErrorKind::PayloadLengthMismatch { .. } => "payload-length-mismatch",
            ErrorKind::ChecksumMismatch { .. } => "checksum-mismatch",
            ErrorKind::BadTrailer { .. } => "bad-trailer",
            ErrorKind::TruncatedTail { .. } => "truncated-tail",
            ErrorKind::RecordIndex { .. } => "record-index",
            ErrorKind::StreamedTail => "streamed-tail",
            ErrorKind::Io(_) => "io",
            ErrorKind::Custom(_) => "custom",
        }
    }
}

/// What kind of failure an error is, for callers that act on it rather
/// than print it (serde_json's `Category` is the model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The underlying reader or writer failed.
    Io,
    /// The input ended before a value, frame or record did: a stream that
    /// is still being written may yet hold it.
    Eof,
    /// The bytes, or the value being written, break a rule of the format.
    Data,
    /// A limit of the reader (nesting, zero-sized elements, bytes, schema
    /// text) or of the format (32-bit counts) was reached.
    Limit,
    /// The schema does not allow it: another type's frame, a schema text
    /// that is not canonical, a type whose schema cannot be known, or a
    /// `Serialize` that disagrees with its schema.
    Schema,
    /// A serde feature or a request Kiln cannot serve (self-describing
    /// types, skipped fields, arrays in a batch, a view of a block that
    /// cannot be borrowed).
    Unsupported,
}

impl ErrorKind {
    /// The [`Category`] of the kind.
    pub fn category(&self) -> Category {
        use ErrorKind as K;
        match self {
            K::Io(_) => Category::Io,
            K::UnexpectedEnd { .. } | K::FrameTruncated { .. } | K::TruncatedTail { .. } => {
                Category::Eof
            }
            K::ZeroSizedLimit { .. }
            | K::DepthLimit { .. }
            | K::ByteLimit { .. }
            | K::SchemaTextLimit { .. }
            | K::CountOverflow { .. }
            | K::BufferFull { .. } => Category::Limit,
            K::SchemaMismatch { .. }
            | K::SchemaIncompatible { .. }
            | K::WriterSchemaUnknown { .. }
            | K::SchemaTextMismatch { .. }
            | K::SchemaText { .. }
            | K::NoSchema { .. }
            | K::SerializeMismatch { .. }
            | K::ValueMismatch { .. } => Category::Schema,
            K::Unsupported { .. }
            | K::SkippedField { .. }
            | K::ArraysInBatch { .. }
            | K::ViewMisaligned { .. }
            | K::ViewUnavailable { .. }
            | K::StreamedTail => Category::Unsupported,
            _ => Category::Data,
        }
    }
}

/// How a frame's DIRECTORY flag and what it holds disagree
/// (`spec/06-frame.md`, 6.5 rows 13a and 22a).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FlagMismatch {
    /// The flag is set, but the payload does not end with a directory trailer.
    NoTrailer,
    /// The flag is set, but the record type read no array.
    RecordWithoutArrays,
    /// The flag is clear, but the record type holds arrays.
    RecordWithArrays,
    /// The flag is set on a frame handed to a batch reader.
    InBatch,
    /// The INDEXED flag is set on a frame handed to a reader of one
    /// record or of records back to back.
    Indexed,
}

impl fmt::Display for FlagMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FlagMismatch::NoTrailer => {
                "expected a payload that ends with an array directory (flag DIRECTORY set), \
                 found no directory trailer"
            }
            FlagMismatch::RecordWithoutArrays => {
                "expected a record type without arrays (flag DIRECTORY clear), found flag DIRECTORY set"
            }
            FlagMismatch::RecordWithArrays => {
                "expected flag DIRECTORY set, as the record type holds arrays, \
                 found flag DIRECTORY clear"
            }
            FlagMismatch::InBatch => {
                "expected records back to back (flag DIRECTORY clear) in a batch reader, \
                 found flag DIRECTORY set: one record with arrays, read it with frame::from_slice"
            }
            FlagMismatch::Indexed => {
                "expected one record or records back to back (flag INDEXED clear), found flag \
                 INDEXED set: records with arrays and an index, read them with kiln::file"
            }
        })
    }
}

/// A field of the frame header or trailer (`spec/06-frame.md`, 6.1 and 6.4),
/// named as the spec names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FrameField {
    /// `flags`.
    Flags,
    /// `schema_len`.
    SchemaLen,
    /// `record_count`.
    RecordCount,
    /// `payload_len`.
    PayloadLen,
    /// `crc32c` of the header.
    Crc32c,
    /// `crc32c` of the streamed form's trailer.
    TrailerCrc32c,
}

impl fmt::Display for FrameField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FrameField::Flags => "flags",
            FrameField::SchemaLen => "schema_len",
            FrameField::RecordCount => "record_count",
            FrameField::PayloadLen => "payload_len",
            FrameField::Crc32c => "crc32c",
            FrameField::TrailerCrc32c => "trailer crc32c",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;

    /// Sizes and counts of one take the singular, every other the plural.
    #[test]
    fn messages_count_in_words() {
        let end = |needed, available| ErrorKind::UnexpectedEnd {
            expected: "u8",
            needed,
            available,
        };
        let directory = |entries, found| ErrorKind::DirectoryLength {
            entries,
            needed: 1,
            found,
        };
        let cases = [
            (
                end(1, 0),
                "unexpected end of input: expected u8 (1 byte), found 0 bytes",
            ),
            (
                end(2, 1),
                "unexpected end of input: expected u8 (2 bytes), found 1 byte",
            ),
            (
                directory(1, 2),
                "directory length mismatch: 1 entry needs 1 byte, found 2 bytes",
            ),
            (
                directory(3, 1),
                "directory length mismatch: 3 entries need 1 byte, found 1 byte",
            ),
            (
                ErrorKind::InvalidUtf8 { valid_up_to: 1 },
                "invalid UTF-8: expected a string, found a bad sequence after 1 valid byte",
            ),
            (
                ErrorKind::TrailingBytes { count: 2 },
                "trailing bytes: expected end of input, found 2 more bytes",
            ),
        ];
        for (kind, message) in cases {
            assert_eq!(kind.to_string(), message);
        }
    }
}
