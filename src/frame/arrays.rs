//! The arrays of a framed record, listed and fetched without its Rust
//! type (`spec/06-frame.md`, 6.6).

use super::header::at;
use super::{Payload, not_one_record, open};
use crate::error::{Error, ErrorKind, FlagMismatch, Result};

// ---------------------------------------------------------------------------
// Arrays of a framed record, without its type
// ---------------------------------------------------------------------------

/// The checked payload of a single-record frame, and its directory if the
/// DIRECTORY flag says there is one. Errors are at offsets in the frame.
pub(super) fn framed_directory(
    bytes: &[u8],
) -> Result<(Payload<'_>, Option<crate::array::directory::Directory>)> {
    let (header, payload) = open(bytes)?;
    header.not_indexed()?;
    if payload.record_count != 1 {
        return Err(not_one_record(payload.record_count));
    }
    if !header.has_directory() {
        return Ok((payload, None));
    }
    match crate::array::directory::parse(payload.bytes, 0).map_err(|e| e.shifted(payload.offset))? {
        Some(dir) => Ok((payload, Some(dir))),
        None => Err(Error::at(
            ErrorKind::DirectoryFlag(FlagMismatch::NoTrailer),
            at::FLAGS as u64,
        )),
    }
}

/// Lists the arrays of the record in a single-record frame, without the
/// record's Rust type: dtype, shape and byte range of each block.
///
/// Byte ranges are from the first byte of the frame (`bytes`), so a reader
/// can slice the file or a memory map directly; each starts at a multiple
/// of 64. The header is checked as [`from_slice`](super::from_slice) checks it (magic,
/// version, flags, lengths, schema text, checksum) except the fingerprint,
/// which needs the type. Whether the record has arrays is the DIRECTORY
/// flag's word ([`FLAG_DIRECTORY`](super::FLAG_DIRECTORY)): without it the list is empty, whatever
/// the payload's last bytes look like.
///
/// ```
/// let image = kiln::Array::from_shape_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?;
/// let frame = kiln::frame::to_vec(&("cat".to_string(), image))?;
/// let arrays = kiln::frame::list_arrays(&frame)?;
/// assert_eq!(arrays.len(), 1);
/// assert_eq!((arrays[0].dtype_name(), arrays[0].shape()), ("f32", &[2, 2][..]));
/// assert_eq!(arrays[0].byte_range(), 128..144); // header 64, block at 64 in the record
/// let block = &frame[128..144];
/// assert_eq!(block[4..8], 2.0f32.to_le_bytes());
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// Those of [`open`], [`ErrorKind::HeaderField`] for a count other than 1,
/// [`ErrorKind::DirectoryFlag`] if the flag is set but the payload does not
/// end with a directory, and every directory rule of
/// [`crate::array::directory::list`], at offsets from the start of the frame.
pub fn list_arrays(bytes: &[u8]) -> Result<Vec<crate::array::directory::ArrayInfo>> {
    let (payload, dir) = framed_directory(bytes)?;
    let mut entries = dir.map(|d| d.entries).unwrap_or_default();
    for e in &mut entries {
        // Cannot overflow: the block lies inside `bytes`.
        e.offset += payload.offset;
    }
    Ok(entries)
}

/// The payload and the checks of [`fetch_array`], before the copy or view.
pub(super) fn framed_entry(bytes: &[u8], index: usize) -> Result<Payload<'_>> {
    let (payload, dir) = framed_directory(bytes)?;
    if dir.is_none() {
        return Err(Error::at(
            ErrorKind::ArrayIndex {
                index: index as u64,
                count: 0,
            },
            payload.offset + payload.bytes.len() as u64,
        ));
    }
    Ok(payload)
}

/// Reads array `index` of the record in a single-record frame into an
/// owned [`Array`](crate::Array), without the record's type and without
/// reading the other arrays or values (the checksum, when the frame has
/// one, is still computed over the whole payload).
///
/// ```
/// let frame = kiln::frame::to_vec(&(7u8, kiln::Array::from_vec(vec![1u32, 2, 3])))?;
/// let a: kiln::Array<u32> = kiln::frame::fetch_array(&frame, 0)?;
/// assert_eq!(a.data(), [1, 2, 3]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// As [`list_arrays`], plus [`ErrorKind::ArrayIndex`] for an index past
/// the arrays (at the directory, or at the payload's end when the frame
/// has no arrays) and [`ErrorKind::DtypeMismatch`] if the array is not of
/// `T`, at offsets from the start of the frame.
pub fn fetch_array<T: crate::block::Element>(
    bytes: &[u8],
    index: usize,
) -> Result<crate::Array<T>> {
    let payload = framed_entry(bytes, index)?;
    crate::array::directory::fetch(payload.bytes, index).map_err(|e| e.shifted(payload.offset))
}

/// Views array `index` of the record in a single-record frame in place,
/// without copying and without the record's type.
///
/// The view needs the block aligned in memory for `T`: it is whenever the
/// frame starts at a 64-aligned address (a page-aligned memory map, or
/// [`crate::array::AlignedBytes`]), since the payload and every block
/// start at multiples of 64 from the frame's start.
///
/// # Errors
/// As [`fetch_array`], plus [`ErrorKind::ViewMisaligned`] if the block is
/// not aligned in memory and [`ErrorKind::ViewUnavailable`] on a big-endian
/// host.
pub fn fetch_array_view<T: crate::block::Element>(
    bytes: &[u8],
    index: usize,
) -> Result<crate::ArrayView<'_, T>> {
    let payload = framed_entry(bytes, index)?;
    crate::array::directory::fetch_view(payload.bytes, index).map_err(|e| e.shifted(payload.offset))
}
