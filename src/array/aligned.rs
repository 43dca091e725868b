//! Blocks in memory: copying a block out, borrowing it in place, and a
//! buffer whose start is 64-byte aligned so that views can borrow.

use crate::block::Element;
use crate::error::{Error, ErrorKind, Result};

/// Borrows a block as `&[T]`, if it is aligned in memory and the host is
/// little-endian.
pub(crate) fn view_block<T: Element>(bytes: &[u8], at: u64) -> Result<&[T]> {
    if cfg!(target_endian = "big") {
        return Err(Error::at(
            ErrorKind::ViewUnavailable {
                reason: "blocks are little-endian and this host is big-endian; read an owned Array",
            },
            at,
        ));
    }
    // Aligned to the element size (at least its alignment), as the
    // deserializer checks, so the answer is the same on every host.
    let misaligned = || {
        Error::at(
            ErrorKind::ViewMisaligned {
                align: T::SIZE as u64,
            },
            at,
        )
    };
    if !(bytes.as_ptr() as usize).is_multiple_of(T::SIZE) {
        return Err(misaligned());
    }
    bytemuck::try_cast_slice(bytes).map_err(|_| misaligned())
}

/// A growable byte buffer whose start is 64-byte aligned, so that Kiln
/// records copied or read into it can be viewed in place.
///
/// ```
/// let mut buf = kiln::array::AlignedBytes::new();
/// buf.extend_from_slice(&[1, 2, 3]);
/// assert_eq!(buf.as_slice(), [1, 2, 3]);
/// assert_eq!(buf.as_slice().as_ptr() as usize % 64, 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct AlignedBytes {
    chunks: Vec<Chunk>,
    len: usize,
}

#[derive(Clone, Copy, Debug, bytemuck::Zeroable, bytemuck::Pod)]
#[repr(C, align(64))]
pub(super) struct Chunk([u8; 64]);

impl AlignedBytes {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// A buffer holding a copy of `bytes`.
    pub fn from_slice(bytes: &[u8]) -> Self {
        let mut b = Self::new();
        b.extend_from_slice(bytes);
        b
    }

    /// Appends `bytes`.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        let new_len = self.len + bytes.len();
        self.chunks.resize(new_len.div_ceil(64), Chunk([0; 64]));
        let all: &mut [u8] = bytemuck::cast_slice_mut(&mut self.chunks);
        all[self.len..new_len].copy_from_slice(bytes);
        self.len = new_len;
    }

    /// The bytes, starting at a 64-aligned address.
    pub fn as_slice(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.chunks)[..self.len]
    }

    /// The bytes, to fill in place (a stream read straight into the
    /// buffer, without a copy).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut(&mut self.chunks)[..self.len]
    }

    /// Makes the buffer `len` bytes long, keeping its allocation: bytes
    /// past the old length are zero.
    pub(crate) fn resize(&mut self, len: usize) {
        if len > self.len {
            // The old last chunk's tail may hold bytes from before a shrink.
            let all: &mut [u8] = bytemuck::cast_slice_mut(&mut self.chunks);
            let keep = all.len().min(len);
            all[self.len..keep].fill(0);
        }
        self.chunks.resize(len.div_ceil(64), Chunk([0; 64]));
        self.len = len;
    }
}
