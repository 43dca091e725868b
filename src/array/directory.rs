//! The array directory: where a record says which shaped arrays it holds.
//!
//! A record that holds [`Array`]s ends with a directory (one
//! entry per array, in the order the arrays appear in the record) and a
//! fixed 24-byte trailer. The trailer sits at the very end, so a reader
//! that knows where the record ends finds the directory without knowing the
//! record's Rust type: that is what [`list`] and [`fetch`] do. A record
//! without arrays has neither, and its bytes do not change at all.
//!
//! Everything here is validated before it is used, in a fixed order, and
//! each violation is its own [`ErrorKind`] with the offset (from the record
//! start) of the field that broke the rule. `spec/08-directory.md`
//! describes the bytes and the rules.
//!
//! ```
//! let image = kiln::Array::from_shape_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?;
//! let record = kiln::to_vec(&("cat", image))?;
//! let arrays = kiln::array::list(&record)?;
//! assert_eq!(arrays.len(), 1);
//! assert_eq!(arrays[0].dtype_name(), "f32");
//! assert_eq!(arrays[0].shape(), [2, 2]);
//! assert_eq!(arrays[0].byte_range(), 64..80);
//! let back: kiln::Array<f32> = kiln::array::fetch(&record, 0)?;
//! assert_eq!(back.data(), [1.0, 2.0, 3.0, 4.0]);
//! # Ok::<(), kiln::Error>(())
//! ```

use std::ops::Range;

use crate::Dtype;
use crate::array::{Array, ArrayView};
use crate::block::Element;
use crate::error::{Error, ErrorKind, Result};

/// The last eight bytes of a record that has a directory.
pub const MAGIC: [u8; 8] = *b"KILNDIR1";
/// Bytes in the trailer: directory offset (u64), entry count (u32),
/// reserved (u32, zero), [`MAGIC`].
pub const TRAILER_LEN: u64 = 24;
/// Bytes in an entry before its dimensions.
pub const ENTRY_FIXED_LEN: u64 = 24;
/// Every block starts at a multiple of this many bytes from the record start.
pub const BLOCK_ALIGN: u64 = 64;
/// The most dimensions an array may have.
pub const MAX_RANK: u64 = 8;
/// The largest dimension: 2^53 − 1, so that every shape is exact as an
/// IEEE double in languages whose numbers are doubles.
pub const MAX_DIMENSION: u64 = (1 << 53) - 1;

/// One array of a record, as its directory entry describes it.
///
/// Validated: the dtype is known, the rank and dimensions are within the
/// limits, and the block lies 64-aligned inside the record, after the
/// previous block and before the directory, with exactly the length the
/// shape needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayInfo {
    pub(crate) dtype: u8,
    pub(crate) shape: Vec<u64>,
    pub(crate) offset: u64,
    pub(crate) len: u64,
}

impl ArrayInfo {
    /// The dtype code (see [`Element::DTYPE`]).
    pub fn dtype(&self) -> u8 {
        self.dtype
    }

    /// The element type's Rust name, such as `"f32"`.
    pub fn dtype_name(&self) -> &'static str {
        Dtype::from_code(self.dtype).map_or("unknown", Dtype::name)
    }

    /// The dimensions, outermost first (row-major).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Bytes of the block, from the record start.
    pub fn byte_range(&self) -> Range<u64> {
        self.offset..self.offset + self.len
    }

    /// The number of elements (the product of the shape).
    pub fn element_count(&self) -> u64 {
        // Cannot overflow: validated to fit with the element size.
        self.len / Dtype::from_code(self.dtype).map_or(1, Dtype::size) as u64
    }
}

/// A record's validated directory.
#[derive(Debug)]
pub(crate) struct Directory {
    /// Where the directory starts: the record's values end here.
    pub(crate) offset: u64,
    /// Where the record ends.
    pub(crate) end: u64,
    pub(crate) entries: Vec<ArrayInfo>,
}

/// Reads a little-endian u64 at absolute offset `at` from `tail`, which
/// starts at absolute offset `base`. Callers have checked the bounds.
fn u64_at(tail: &[u8], base: u64, at: u64) -> u64 {
    let i = (at - base) as usize;
    let mut b = [0u8; 8];
    b.copy_from_slice(&tail[i..i + 8]);
    u64::from_le_bytes(b)
}

fn check_zero(tail: &[u8], base: u64, at: u64, len: u64) -> Result<()> {
    let i = (at - base) as usize;
    match tail[i..i + len as usize].iter().position(|&b| b != 0) {
        None => Ok(()),
        Some(j) => Err(Error::at(
            ErrorKind::DirectoryReserved(tail[i + j]),
            at + j as u64,
        )),
    }
}

/// Whether `record` ends with the directory magic.
pub(crate) fn has_trailer(record: &[u8]) -> bool {
    record.len() as u64 >= TRAILER_LEN && record.ends_with(&MAGIC)
}

/// Parses and validates the directory at the end of a record.
///
/// `tail` is the end of the record, starting at absolute offset `base`
/// (`base` is 0 when `tail` is the whole record; the deserializer passes
/// the part it has not read yet). Returns `None` if the record does not end
/// with the magic.
pub(crate) fn parse(tail: &[u8], base: u64) -> Result<Option<Directory>> {
    if !has_trailer(tail) {
        return Ok(None);
    }
    let end = base + tail.len() as u64;
    let t = end - TRAILER_LEN;
    let dir_offset = u64_at(tail, base, t);
    if dir_offset > t {
        return Err(Error::at(
            ErrorKind::DirectoryOffset {
                offset: dir_offset,
                max: t,
            },
            t,
        ));
    }
    if dir_offset < base {
        // The directory would begin inside values already read.
        return Err(Error::at(
            ErrorKind::DirectoryPosition {
                expected: dir_offset,
                found: base,
            },
            t,
        ));
    }
    let ti = (t - base) as usize;
    let count = u32::from_le_bytes([tail[ti + 8], tail[ti + 9], tail[ti + 10], tail[ti + 11]]);
    check_zero(tail, base, t + 12, 4)?;
    let dir_len = t - dir_offset;
    let length_error = |needed: u64, at: u64| {
        Error::at(
            ErrorKind::DirectoryLength {
                entries: count.into(),
                needed,
                found: dir_len,
            },
            at,
        )
    };
    // Every entry takes at least ENTRY_FIXED_LEN bytes: refuse a count the
    // directory cannot hold before reserving anything for it.
    let min_needed = u64::from(count) * ENTRY_FIXED_LEN;
    if min_needed > dir_len {
        return Err(length_error(min_needed, t + 8));
    }
    let mut entries = Vec::with_capacity(count as usize);
    let mut p = dir_offset;
    let (mut prev_offset, mut prev_end) = (0u64, 0u64);
    for _ in 0..count {
        if t - p < ENTRY_FIXED_LEN {
            return Err(length_error(p - dir_offset + ENTRY_FIXED_LEN, p));
        }
        let i = (p - base) as usize;
        let dtype = tail[i];
        let Some(size) = Dtype::from_code(dtype).map(Dtype::size) else {
            return Err(Error::at(ErrorKind::UnknownDtype(dtype), p));
        };
        let rank = u64::from(tail[i + 1]);
        if rank > MAX_RANK {
            return Err(Error::at(
                ErrorKind::RankLimit {
                    rank,
                    max: MAX_RANK,
                },
                p + 1,
            ));
        }
        check_zero(tail, base, p + 2, 6)?;
        let offset = u64_at(tail, base, p + 8);
        let len = u64_at(tail, base, p + 16);
        let entry_len = ENTRY_FIXED_LEN + 8 * rank;
        if t - p < entry_len {
            return Err(length_error(p - dir_offset + entry_len, p));
        }
        let mut shape = Vec::with_capacity(rank as usize);
        let mut elements: Option<u64> = Some(1);
        for d in 0..rank {
            let at = p + ENTRY_FIXED_LEN + 8 * d;
            let dim = u64_at(tail, base, at);
            if dim > MAX_DIMENSION {
                return Err(Error::at(
                    ErrorKind::DimensionLimit {
                        dim,
                        max: MAX_DIMENSION,
                    },
                    at,
                ));
            }
            elements = elements.and_then(|e| e.checked_mul(dim));
            shape.push(dim);
        }
        let Some(bytes) = elements.and_then(|e| e.checked_mul(size as u64)) else {
            return Err(Error::at(
                ErrorKind::ArraySizeOverflow {
                    elem_size: size as u64,
                },
                p + ENTRY_FIXED_LEN,
            ));
        };
        if bytes != len {
            return Err(Error::at(
                ErrorKind::BlockLength {
                    expected: bytes,
                    found: len,
                },
                p + 16,
            ));
        }
        if !offset.is_multiple_of(BLOCK_ALIGN) {
            return Err(Error::at(ErrorKind::BlockMisaligned(offset), p + 8));
        }
        if offset < prev_offset {
            return Err(Error::at(
                ErrorKind::BlockOrder {
                    offset,
                    min: prev_offset,
                },
                p + 8,
            ));
        }
        if offset < prev_end {
            return Err(Error::at(
                ErrorKind::BlockOverlap {
                    offset,
                    previous_end: prev_end,
                },
                p + 8,
            ));
        }
        match offset.checked_add(len) {
            Some(block_end) if block_end <= dir_offset => {
                prev_offset = offset;
                prev_end = block_end;
            }
            _ => {
                return Err(Error::at(
                    ErrorKind::BlockOutOfBounds {
                        offset,
                        len,
                        limit: dir_offset,
                    },
                    p + 8,
                ));
            }
        }
        entries.push(ArrayInfo {
            dtype,
            shape,
            offset,
            len,
        });
        p += entry_len;
    }
    if p != t {
        return Err(Error::at(
            ErrorKind::DirectoryLength {
                entries: count.into(),
                needed: p - dir_offset,
                found: dir_len,
            },
            p,
        ));
    }
    Ok(Some(Directory {
        offset: dir_offset,
        end,
        entries,
    }))
}

/// Appends the directory for `entries`, which starts at record offset
/// `dir_offset`, and the trailer, through `write`.
pub(crate) fn write(
    entries: &[ArrayInfo],
    dir_offset: u64,
    mut write: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let count = u32::try_from(entries.len()).map_err(|_| {
        Error::new(ErrorKind::CountOverflow {
            len: entries.len() as u64,
        })
    })?;
    for e in entries {
        let mut fixed = [0u8; ENTRY_FIXED_LEN as usize];
        fixed[0] = e.dtype;
        fixed[1] = e.shape.len() as u8;
        fixed[8..16].copy_from_slice(&e.offset.to_le_bytes());
        fixed[16..24].copy_from_slice(&e.len.to_le_bytes());
        write(&fixed)?;
        for d in &e.shape {
            write(&d.to_le_bytes())?;
        }
    }
    let mut trailer = [0u8; TRAILER_LEN as usize];
    trailer[0..8].copy_from_slice(&dir_offset.to_le_bytes());
    trailer[8..12].copy_from_slice(&count.to_le_bytes());
    trailer[16..24].copy_from_slice(&MAGIC);
    write(&trailer)
}

/// Lists the arrays of a record, given the record's bytes, without its
/// Rust type.
///
/// `record` must be exactly one record: the whole input of a bare
/// [`crate::from_slice`], or the payload of a single-record frame. A record
/// that does not end with the directory magic has no arrays and gives an
/// empty list. The directory is validated in full; the blocks are not read.
///
/// Without the type, a record of a type that has no arrays but whose last
/// 24 bytes happen to form a valid trailer cannot be told apart from one
/// that has arrays. A frame's DIRECTORY flag settles it: for framed
/// records use [`crate::frame::list_arrays`] (`spec/08-directory.md` 8.7).
///
/// # Errors
/// Every directory rule of `spec/08-directory.md`: [`ErrorKind::DirectoryOffset`],
/// [`ErrorKind::DirectoryReserved`], [`ErrorKind::DirectoryLength`],
/// [`ErrorKind::UnknownDtype`], [`ErrorKind::RankLimit`],
/// [`ErrorKind::DimensionLimit`], [`ErrorKind::ArraySizeOverflow`],
/// [`ErrorKind::BlockLength`], [`ErrorKind::BlockMisaligned`],
/// [`ErrorKind::BlockOrder`], [`ErrorKind::BlockOverlap`],
/// [`ErrorKind::BlockOutOfBounds`], each with the offset of the field.
pub fn list(record: &[u8]) -> Result<Vec<ArrayInfo>> {
    Ok(parse(record, 0)?.map(|d| d.entries).unwrap_or_default())
}

/// The validated entry `index`, checked against `dtype`, and its block.
fn entry_and_block<'r>(
    record: &'r [u8],
    index: usize,
    dtype: u8,
    expected: &'static str,
) -> Result<(ArrayInfo, &'r [u8])> {
    let Some(mut dir) = parse(record, 0)? else {
        return Err(Error::at(
            ErrorKind::DirectoryMissing {
                expected: TRAILER_LEN,
                found: if (record.len() as u64) < TRAILER_LEN {
                    "fewer bytes"
                } else {
                    "no magic"
                },
            },
            record.len() as u64,
        ));
    };
    let count = dir.entries.len();
    if index >= count {
        return Err(Error::at(
            ErrorKind::ArrayIndex {
                index: index as u64,
                count: count as u64,
            },
            dir.offset,
        ));
    }
    let info = dir.entries.swap_remove(index);
    if info.dtype != dtype {
        return Err(Error::at(
            ErrorKind::DtypeMismatch {
                expected,
                found: info.dtype,
            },
            info.offset,
        ));
    }
    // In bounds: validated against the directory offset.
    let bytes = &record[info.offset as usize..(info.offset + info.len) as usize];
    Ok((info, bytes))
}

/// Reads array `index` of a record into an owned [`Array`], without
/// reading the other arrays or the other values.
///
/// `record` is as for [`list`]. Costs one copy of the block.
///
/// # Errors
/// As [`list`], plus [`ErrorKind::DirectoryMissing`] if the record has no
/// directory, [`ErrorKind::ArrayIndex`] for an index past the entries, and
/// [`ErrorKind::DtypeMismatch`] if the array's dtype is not `T`'s.
pub fn fetch<T: Element>(record: &[u8], index: usize) -> Result<Array<T>> {
    let (info, bytes) = entry_and_block(record, index, T::DTYPE, T::NAME)?;
    let shape = crate::array::shape_to_usize(&info.shape, info.offset)?;
    Ok(Array::from_parts_unchecked(
        shape,
        crate::block::vec_from_whole(bytes),
    ))
}

/// Views array `index` of a record in place, without copying.
///
/// `record` is as for [`list`]; the view needs the block aligned in memory
/// for `T`, which holds when the record itself starts at an address that is
/// a multiple of 64 (or of `T`'s size).
///
/// # Errors
/// As [`fetch`], plus [`ErrorKind::ViewMisaligned`] if the block's address
/// is not aligned for `T`, and [`ErrorKind::ViewUnavailable`] on a
/// big-endian host.
pub fn fetch_view<T: Element>(record: &[u8], index: usize) -> Result<ArrayView<'_, T>> {
    let (info, bytes) = entry_and_block(record, index, T::DTYPE, T::NAME)?;
    let shape = crate::array::shape_to_usize(&info.shape, info.offset)?;
    let data = crate::array::view_block::<T>(bytes, info.offset)?;
    Ok(ArrayView::from_parts_unchecked(shape, data))
}

/// What a deserializer knows about the arrays of the record it reads.
#[derive(Debug, Default)]
pub(crate) struct ArrayState {
    /// The input is exactly one record, so its end is the record's end.
    pub(crate) whole_record: bool,
    /// The directory, once the first array was met. Boxed, so that
    /// dropping a deserializer is one test of a pointer, inlined: the
    /// compiler calls a larger drop out of line with the deserializer's
    /// address, and then cannot keep the reader's position in registers.
    pub(crate) dir: Option<Box<Directory>>,
    /// Index of the next array.
    pub(crate) next: usize,
}
