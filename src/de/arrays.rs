//! Shaped arrays met while reading a record: checked against the record's
//! directory and handed to the visitor (`spec/08-directory.md`, 8.6).

use serde::de::Visitor;

use super::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::read::{Read, Reference};

impl<'de, R: Read<'de>, const D: bool> Decoder<R, D> {
    /// Reads an array: checks it against the directory (loaded and
    /// validated from the record's end at the first array), checks the
    /// padding, and hands the block to the visitor.
    pub(super) fn read_array<V: Visitor<'de>>(
        &mut self,
        request: crate::array::Request,
        visitor: V,
    ) -> Result<V::Value> {
        let (shape, bytes, aligned) = self.read_array_block(request)?;
        visitor
            .visit_newtype_struct(crate::array::BlockDeserializer { shape, bytes })
            .map_err(|e| e.or_offset(aligned))
    }

    /// The checks of [`Decoder::read_array`], up to the block: its shape,
    /// its bytes and the offset at which they start.
    pub(crate) fn read_array_block<'s>(
        &'s mut self,
        request: crate::array::Request,
    ) -> Result<(Vec<usize>, Reference<'de, 's, [u8]>, u64)> {
        use crate::array::directory::{BLOCK_ALIGN, TRAILER_LEN};
        let start = self.read.offset();
        if !self.arrays.whole_record {
            return Err(Error::at(ErrorKind::RecordEndUnknown, start));
        }
        if self.arrays.dir.is_none() {
            let tail = self.read.rest_of_input()?;
            match crate::array::directory::parse(&tail, start)? {
                Some(dir) => self.arrays.dir = Some(Box::new(dir)),
                None => {
                    let found = if (tail.len() as u64) < TRAILER_LEN {
                        "fewer bytes"
                    } else {
                        "no magic"
                    };
                    let end = start + tail.len() as u64;
                    return Err(Error::at(
                        ErrorKind::DirectoryMissing {
                            expected: TRAILER_LEN,
                            found,
                        },
                        end,
                    ));
                }
            }
        }
        let index = self.arrays.next;
        let entries = self.arrays.dir.as_ref().map_or(&[][..], |d| &d.entries[..]);
        let Some(info) = entries.get(index) else {
            return Err(Error::at(
                ErrorKind::ArrayCount {
                    entries: entries.len() as u64,
                    found: index as u64 + 1,
                },
                start,
            ));
        };
        if info.dtype != request.dtype {
            return Err(Error::at(
                ErrorKind::DtypeMismatch {
                    expected: request.name,
                    found: info.dtype,
                },
                start,
            ));
        }
        let aligned = start.next_multiple_of(BLOCK_ALIGN);
        if info.offset != aligned {
            return Err(Error::at(
                ErrorKind::ArrayPosition {
                    index: index as u64,
                    expected: info.offset,
                    found: aligned,
                },
                start,
            ));
        }
        // Both fit in memory: the block lies inside the input.
        let len = info.len as usize;
        let shape = crate::array::shape_to_usize(&info.shape, start)?;
        self.arrays.next += 1;
        let pad = (aligned - start) as usize;
        if pad > 0 {
            let padding = self.read.read_bytes(pad, "array padding")?;
            if let Some(i) = padding.iter().position(|&b| b != 0) {
                return Err(Error::at(
                    ErrorKind::PaddingNonZero(padding[i]),
                    start + i as u64,
                ));
            }
        }
        let bytes = self.read.read_bytes(len, "array block")?;
        if request.view {
            let reason = match &bytes {
                Reference::Copied(_) => Some(
                    "the input is a stream, so nothing can borrow from it; read an owned Array",
                ),
                Reference::Borrowed(_) if cfg!(target_endian = "big") => Some(
                    "blocks are little-endian and this host is big-endian; read an owned Array",
                ),
                Reference::Borrowed(b) => {
                    if !(b.as_ptr() as usize).is_multiple_of(request.size) {
                        return Err(Error::at(
                            ErrorKind::ViewMisaligned {
                                align: request.size as u64,
                            },
                            aligned,
                        ));
                    }
                    None
                }
            };
            if let Some(reason) = reason {
                return Err(Error::at(ErrorKind::ViewUnavailable { reason }, aligned));
            }
        }
        Ok((shape, bytes, aligned))
    }
}
