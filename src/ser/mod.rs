//! The serializer: serde's data model written in Kiln's positional layout.
//!
//! Every byte of a bare record is written here; `spec/03-types.md` is the
//! chapter that describes them. Numbers are fixed-width little-endian,
//! strings, byte strings, sequences and maps carry a `u32` count, and
//! nothing else (no names, no field numbers, no type tags) is written.

use serde::ser::{self, Serialize};

use crate::block::{self, Element};
use crate::error::{Error, ErrorKind, Result};

mod check;
mod compound;
mod output;

pub use check::{Check, Unchecked, Written, WrittenShape};
pub use compound::Compound;
pub use output::{IoWriter, Output, SizeCounter, SliceOutput};

pub(crate) mod private {
    pub trait Sealed {}
}

/// A serde `Serializer` that writes Kiln bytes into an [`Output`].
///
/// ```
/// use serde::Serialize;
///
/// let mut buf = Vec::new();
/// (9i32, -4i32).serialize(&mut kiln::Serializer::new(&mut buf))?;
/// assert_eq!(buf, [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
/// # Ok::<(), kiln::Error>(())
/// ```
pub struct Serializer<O, C = Unchecked> {
    out: O,
    /// What checks the containers written (a frame's schema guard), or
    /// nothing ([`Unchecked`], which compiles to no code).
    check: C,
    /// Output position where the current record started.
    origin: u64,
    /// Arrays written in the current record, for its directory.
    arrays: Vec<crate::array::directory::ArrayInfo>,
}

/// Encodes `value` at the end of `out` with a serializer that owns the
/// vector for the length of the call (what [`crate::to_vec_into`] does).
///
/// Why lend the vector rather than write through `&mut Vec<u8>`: the bytes
/// written could, for all the compiler knows, land on the vector's own
/// length and capacity behind that reference, so it read both again after
/// every number. Owned by the serializer, which `serialize` gets as a
/// `&mut` argument, they stay in registers for a whole struct (the
/// `Vector3::serialize` of the mesh dataset in `benches/compare.rs` then
/// compiles to the same instructions as postcard's). The vector goes back
/// into `out` however the call ends, a panic in `serialize` included.
pub(crate) fn append_to_vec<T: ?Sized + Serialize>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    // Into the spare capacity, as into a slice (see `SliceOutput` for why
    // that is faster); a reused buffer has room after its first record.
    if let Some(()) = append_in_capacity(value, out)? {
        return Ok(());
    }
    // Too little room: measure, make room once, and write again.
    let size = crate::serialized_size(value)?;
    out.reserve(usize::try_from(size).unwrap_or(usize::MAX));
    if let Some(()) = append_in_capacity(value, out)? {
        return Ok(());
    }
    // A `Serialize` impl that wrote more the second time: grow as it goes.
    append_growing(value, out)
}

/// Writes `value` into `out`'s spare capacity and extends `out` over it;
/// `None` (with `out` unchanged) if the capacity ran out.
fn append_in_capacity<T: ?Sized + Serialize>(value: &T, out: &mut Vec<u8>) -> Result<Option<()>> {
    let len = out.len();
    match write_into(value, out.spare_capacity_mut()) {
        Ok(n) => {
            // SAFETY: `write_into` stored `n` initialised bytes at the start
            // of the spare capacity, right after the first `len` bytes, so
            // the first `len + n <= capacity` bytes are initialised.
            unsafe { out.set_len(len + n) };
            Ok(Some(()))
        }
        Err(e) if matches!(e.kind(), ErrorKind::BufferFull { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `value` at the start of `buf`; returns how many bytes, all now
/// initialised. `buf` arrives as a parameter on purpose: the compiler then
/// knows no other pointer reaches it (see [`SliceOutput`]).
pub(crate) fn write_into<T: ?Sized + Serialize>(
    value: &T,
    buf: &mut [std::mem::MaybeUninit<u8>],
) -> Result<usize> {
    let mut ser = Serializer::new(SliceOutput::uninit(buf));
    value.serialize(&mut ser)?;
    ser.finish()?;
    Ok(ser.into_inner().written())
}

/// The path for a vector with no room to spare: appends as it goes. On an
/// error or a panic the vector is given back with its earlier bytes only.
fn append_growing<T: ?Sized + Serialize>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    struct Lent<'a> {
        slot: &'a mut Vec<u8>,
        ser: Serializer<Vec<u8>>,
        len: usize,
        done: bool,
    }
    impl Drop for Lent<'_> {
        fn drop(&mut self) {
            std::mem::swap(self.slot, &mut self.ser.out);
            if !self.done {
                self.slot.truncate(self.len);
            }
        }
    }
    let mut lent = Lent {
        len: out.len(),
        ser: Serializer::new(std::mem::take(out)),
        slot: out,
        done: false,
    };
    value.serialize(&mut lent.ser)?;
    lent.ser.finish()?;
    lent.done = true;
    Ok(())
}

impl<O: Output> Serializer<O> {
    /// A serializer that writes into `out`. The record starts at the
    /// output's current end: array blocks are aligned from there.
    pub fn new(out: O) -> Self {
        Serializer::with_check(out, Unchecked)
    }
}

impl<O: Output, C: Check> Serializer<O, C> {
    /// A serializer that tells `check` of every container it writes.
    pub(crate) fn with_check(out: O, check: C) -> Self {
        let origin = out.position();
        Serializer {
            out,
            check,
            origin,
            arrays: Vec::new(),
        }
    }

    /// Ends the current record: if it holds [`Array`](crate::Array)s,
    /// appends its directory (`spec/08-directory.md`); a record without
    /// arrays gets nothing. The next value starts a new record.
    ///
    /// [`crate::to_vec`] and the other entry points call this; call it
    /// yourself after `value.serialize(&mut serializer)` when you drive the
    /// serializer directly and the value may hold arrays.
    ///
    /// ```
    /// use serde::Serialize;
    ///
    /// let mut buf = Vec::new();
    /// let mut ser = kiln::Serializer::new(&mut buf);
    /// kiln::Array::from_vec(vec![7u8]).serialize(&mut ser)?;
    /// ser.finish()?;
    /// assert_eq!(buf, kiln::to_vec(&kiln::Array::from_vec(vec![7u8]))?);
    /// # Ok::<(), kiln::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::CountOverflow`] for more than `u32::MAX` arrays, and
    /// errors of the output.
    pub fn finish(&mut self) -> Result<()> {
        if !self.arrays.is_empty() {
            let arrays = std::mem::take(&mut self.arrays);
            let dir_offset = self.out.position() - self.origin;
            crate::array::directory::write(&arrays, dir_offset, |b| self.out.write(b))?;
        }
        self.origin = self.out.position();
        Ok(())
    }

    /// Arrays written in the current record so far: a record with any
    /// gets a directory at [`Serializer::finish`].
    pub(crate) fn array_count(&self) -> usize {
        self.arrays.len()
    }

    /// Writes an array's block: zero padding to the next multiple of 64
    /// from the record start, then the elements little-endian.
    fn write_array(&mut self, raw: &crate::array::RawArray<'_>) -> Result<()> {
        use crate::array::directory::{BLOCK_ALIGN, MAX_DIMENSION, MAX_RANK};
        if raw.shape.len() as u64 > MAX_RANK {
            return Err(Error::new(ErrorKind::RankLimit {
                rank: raw.shape.len() as u64,
                max: MAX_RANK,
            }));
        }
        if let Some(&dim) = raw.shape.iter().find(|&&d| d as u64 > MAX_DIMENSION) {
            return Err(Error::new(ErrorKind::DimensionLimit {
                dim: dim as u64,
                max: MAX_DIMENSION,
            }));
        }
        let pos = self.out.position() - self.origin;
        let pad = (BLOCK_ALIGN - pos % BLOCK_ALIGN) % BLOCK_ALIGN;
        self.write(&[0u8; BLOCK_ALIGN as usize][..pad as usize])?;
        let bytes = raw.data.native_bytes();
        if cfg!(target_endian = "big") {
            let size = crate::Dtype::from_code(raw.dtype).map_or(1, crate::Dtype::size);
            let mut le = bytes.to_vec();
            for chunk in le.chunks_exact_mut(size) {
                chunk.reverse();
            }
            self.write(&le)?;
        } else {
            self.write(bytes)?;
        }
        self.arrays.push(crate::array::directory::ArrayInfo {
            dtype: raw.dtype,
            shape: raw.shape.iter().map(|&d| d as u64).collect(),
            offset: pos + pad,
            len: bytes.len() as u64,
        });
        Ok(())
    }

    /// The output, with everything written so far.
    pub fn into_inner(self) -> O {
        self.out
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write(bytes)
    }

    /// Writes a `u32` count for a length, refusing lengths that do not fit.
    #[inline]
    pub(crate) fn write_count(&mut self, len: usize) -> Result<()> {
        let count = count_of(len)?;
        self.write(&count.to_le_bytes())
    }

    /// Opens a struct or tuple struct of `len` values, after telling the
    /// check of it.
    #[inline]
    fn open_struct(
        &mut self,
        name: &'static str,
        shape: WrittenShape,
        len: usize,
    ) -> Result<Compound<'_, O, C>> {
        if C::ON {
            self.check.written(Written::Struct { name, shape })?;
        }
        Ok(Compound::fixed(self, name, len))
    }

    /// Writes a variant's index and opens its `len` values.
    #[inline]
    fn open_variant(
        &mut self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        shape: WrittenShape,
        len: usize,
    ) -> Result<Compound<'_, O, C>> {
        self.write_variant(name, index, variant, shape)?;
        Ok(Compound::fixed(self, name, len))
    }

    /// Writes a variant's index, after telling the check what follows it.
    #[inline]
    fn write_variant(
        &mut self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        shape: WrittenShape,
    ) -> Result<()> {
        if C::ON {
            self.check.written(Written::Variant {
                name,
                index,
                variant,
                shape,
            })?;
        }
        self.write(&index.to_le_bytes())
    }

    fn open_seq(&mut self, len: Option<usize>) -> Result<Compound<'_, O, C>> {
        let (declared, token) = match len {
            Some(n) => {
                self.write_count(n)?;
                (Some(n as u64), None)
            }
            None => (None, Some(self.out.begin_count()?)),
        };
        Ok(Compound::counted(self, declared, token))
    }
}

/// Converts a length to the 32-bit count, or [`ErrorKind::CountOverflow`].
#[inline]
pub(crate) fn count_of(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::new(ErrorKind::CountOverflow { len: len as u64 }))
}

macro_rules! write_number {
    ($($method:ident($ty:ty),)*) => {$(
        #[inline]
        fn $method(self, v: $ty) -> Result<()> {
            self.write(&v.to_le_bytes())
        }
    )*};
}

impl<'a, O: Output, C: Check> ser::Serializer for &'a mut Serializer<O, C> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, O, C>;
    type SerializeTuple = Compound<'a, O, C>;
    type SerializeTupleStruct = Compound<'a, O, C>;
    type SerializeTupleVariant = Compound<'a, O, C>;
    type SerializeMap = Compound<'a, O, C>;
    type SerializeStruct = Compound<'a, O, C>;
    type SerializeStructVariant = Compound<'a, O, C>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.write(&[v as u8])
    }

    write_number! {
        serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32), serialize_f64(f64),
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<()> {
        self.write(&(v as u32).to_le_bytes())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.serialize_bytes(v.as_bytes())
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.write_count(v.len())?;
        self.write(v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.write(&[0])
    }

    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        self.write(&[1])?;
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        if C::ON {
            self.check.written(Written::Struct {
                name,
                shape: WrittenShape::Unit,
            })?;
        }
        Ok(())
    }

    #[inline]
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.write_variant(name, index, variant, WrittenShape::Unit)
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if name == crate::array::WRITE_MARKER
            && let Some(raw) = crate::array::as_raw_array(value)
        {
            return self.write_array(raw);
        }
        if C::ON {
            self.check.written(Written::Struct {
                name,
                shape: WrittenShape::Newtype,
            })?;
        }
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.write_variant(name, index, variant, WrittenShape::Newtype)?;
        value.serialize(self)
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, O, C>> {
        self.open_seq(len)
    }

    /// `[T]` and `Vec<T>` of a block element type (what serde passes here
    /// for them) or of a record layout (`[f32; 3]`, a registered struct)
    /// are written with one copy, see [`crate::block`]; any other
    /// sequence element by element. The bytes are the same either way.
    #[inline]
    fn collect_seq<I>(self, iter: I) -> Result<()>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        let ser = match block::with_slice(&iter, WriteBlock(self)) {
            Ok(written) => return written,
            Err(WriteBlock(ser)) => ser,
        };
        if let Some((layout, bytes)) = block::pod::seq_bytes(&iter, C::ON) {
            ser.write_count(bytes.len() / layout.size)?;
            return ser.out.write(bytes);
        }
        let iter = iter.into_iter();
        let len = match iter.size_hint() {
            (lo, Some(hi)) if lo == hi => Some(lo),
            _ => None,
        };
        let mut seq = ser.open_seq(len)?;
        for item in iter {
            seq.element(&item)?;
        }
        seq.finish()
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, O, C>> {
        Ok(Compound::fixed(self, "", len))
    }

    #[inline]
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, O, C>> {
        self.open_struct(name, WrittenShape::Tuple(len), len)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, O, C>> {
        self.open_variant(name, index, variant, WrittenShape::Tuple(len), len)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, O, C>> {
        self.open_seq(len)
    }

    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, O, C>> {
        self.open_struct(name, WrittenShape::Fields(len), len)
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, O, C>> {
        self.open_variant(name, index, variant, WrittenShape::Fields(len), len)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// Writes a block: the count, then the elements' little-endian bytes at once.
struct WriteBlock<'a, O, C>(&'a mut Serializer<O, C>);

impl<O: Output, C: Check> block::SliceFn for WriteBlock<'_, O, C> {
    type Out = Result<()>;
    #[inline]
    fn call<T: Element>(self, elems: &[T]) -> Result<()> {
        self.0.write_count(elems.len())?;
        block::write_le(elems, |bytes| self.0.out.write(bytes))
    }
}
