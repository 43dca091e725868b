//! The access objects serde's visitors read through: counted sequences
//! and maps, fixed tuples and structs, enums and their variants.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::Decoder;
use super::{detail, element_error, entry_error, fail, field_error, in_variant, length_mismatch};
use crate::error::{Error, ErrorKind, Result};
use crate::read::{Read, WindowRead};

/// Elements of a sequence or entries of a map, behind a count.
pub(super) struct CountedAccess<'a, R, const D: bool> {
    de: &'a mut Decoder<R, D>,
    left: u32,
    index: u64,
    /// Offset at which the current map entry began.
    entry_start: u64,
    /// Memory size of the current map entry's key, for the zero-sized
    /// budget.
    key_size: usize,
    /// Bytes the last element took: a stream's window shorter than this is
    /// not tried (see [`CountedAccess::read_buffered`]).
    last_len: usize,
    /// The size hint given to serde, claimed until the sequence closes;
    /// `None` for streams, which give no hint.
    reserved: Option<u64>,
}

impl<'a, 'de, R: Read<'de>, const D: bool> CountedAccess<'a, R, D> {
    /// Starts reading `count` elements. Slices hint at most as many
    /// elements as bytes are left after the hints of the sequences around
    /// this one (each element takes a byte at least), so that serde's
    /// reservations add up to no more than the input, however deeply the
    /// claims nest. A claim stands until its sequence closes, rather than
    /// shrinking as elements arrive: the hints of sequences inside are
    /// then at most smaller than they could be, and no element pays for
    /// the bookkeeping. Streams give no hint: nothing is reserved on the
    /// word of the input.
    #[inline]
    pub(super) fn new(de: &'a mut Decoder<R, D>, count: u32) -> Self {
        let reserved = de
            .read
            .remaining()
            .map(|r| u64::from(count).min(r.saturating_sub(de.reserved)));
        de.reserved = de.reserved.saturating_add(reserved.unwrap_or(0));
        CountedAccess {
            de,
            left: count,
            index: 0,
            entry_start: 0,
            key_size: 0,
            last_len: 0,
            reserved,
        }
    }

    /// Numbers the elements from `first` on, in errors: the access reads
    /// the end of a sequence whose first `first` elements were read
    /// otherwise (records from a stream in one copy).
    #[inline]
    pub(super) fn numbered_from(mut self, first: u32) -> Self {
        self.index = u64::from(first);
        self
    }

    /// [`Deserializer::read_buffered`] for the next element, with the
    /// last element's length as the shortest window worth trying.
    #[inline]
    fn read_buffered<T>(
        &mut self,
        read: impl FnOnce(&mut Decoder<WindowRead<'_, T>, false>) -> Result<T>,
    ) -> Option<T> {
        let (value, used) = self.de.read_buffered(self.last_len, read)?;
        self.last_len = used;
        Some(value)
    }

    #[inline]
    fn hint(&self) -> Option<usize> {
        self.reserved.map(|r| r as usize)
    }

    /// The sequence is over (read or failed): its reservation is released.
    #[inline]
    pub(super) fn release(&mut self) {
        if let Some(r) = self.reserved.take() {
            self.de.reserved = self.de.reserved.saturating_sub(r);
        }
    }

    #[inline]
    pub(super) fn finish(&self, count: u32) -> Result<()> {
        if self.left == 0 {
            return Ok(());
        }
        if !D {
            return Err(Error::undetailed());
        }
        Err(length_mismatch(
            count.into(),
            u64::from(count - self.left),
            self.de.read.offset(),
        ))
    }
}

impl<'de, R: Read<'de>, const D: bool> de::SeqAccess<'de> for CountedAccess<'_, R, D> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let start = self.de.read.offset();
        let value = seed
            .deserialize(&mut *self.de)
            .map_err(|e: Error| detail::<D>(e, |e| element_error(e, start, self.index)))?;
        let end = self.de.read.offset();
        if end == start {
            self.de
                .charge_zero_sized(std::mem::size_of::<T::Value>())
                .map_err(|e| detail::<D>(e, |e| e.in_index(self.index)))?;
        }
        // The index names the element in detailed errors, and the length
        // sizes the next window tried from a stream (which reads with
        // detail); reading without detail needs neither.
        if D {
            self.last_len = usize::try_from(end - start).unwrap_or(usize::MAX);
            self.index += 1;
        }
        Ok(Some(value))
    }

    /// serde's own sequences (`Vec<T>`, sets, ...) come here. From a
    /// stream, each element is tried on the buffered window first
    /// ([`CountedAccess::read_buffered`]); everything else goes on to
    /// [`next_element_seed`](de::SeqAccess::next_element_seed).
    #[inline]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        if D && self.left > 0
            && let Some(value) = self.read_buffered(|de| T::deserialize(de))
        {
            self.left -= 1;
            self.index += 1;
            return Ok(Some(value));
        }
        // A string takes four bytes at least, a byte array one: nothing to
        // charge.
        if self.left > 0
            && let Some(value) = self.de.quiet_value::<T>()
        {
            self.left -= 1;
            return value.map(Some);
        }
        self.next_element_seed(std::marker::PhantomData)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.hint()
    }
}

impl<'de, R: Read<'de>, const D: bool> de::MapAccess<'de> for CountedAccess<'_, R, D> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let start = self.de.read.offset();
        self.entry_start = start;
        self.key_size = std::mem::size_of::<K::Value>();
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(|e: Error| detail::<D>(e, |e| entry_error(e, start, self.index)))
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let start = self.de.read.offset();
        let value = seed
            .deserialize(&mut *self.de)
            .map_err(|e: Error| detail::<D>(e, |e| entry_error(e, start, self.index)))?;
        let end = self.de.read.offset();
        if end == self.entry_start {
            self.de
                .charge_zero_sized(self.key_size + std::mem::size_of::<V::Value>())
                .map_err(|e| detail::<D>(e, |e| e.in_entry(self.index)))?;
        }
        if D {
            self.last_len = usize::try_from(end - self.entry_start).unwrap_or(usize::MAX);
            self.index += 1;
        }
        Ok(value)
    }

    /// A string or byte-array key is read in place on the quiet slice path
    /// ([`Decoder::quiet_value`]).
    #[inline]
    fn next_key<K: de::Deserialize<'de>>(&mut self) -> Result<Option<K>> {
        if !D && self.left > 0 {
            let start = self.de.read.offset();
            if let Some(key) = self.de.quiet_value::<K>() {
                self.left -= 1;
                self.entry_start = start;
                self.key_size = std::mem::size_of::<K>();
                return key.map(Some);
            }
        }
        self.next_key_seed(std::marker::PhantomData)
    }

    /// A string or byte-array value is read in place on the quiet slice
    /// path; it takes a byte at least, so the entry has nothing to charge.
    #[inline]
    fn next_value<V: de::Deserialize<'de>>(&mut self) -> Result<V> {
        if let Some(value) = self.de.quiet_value::<V>() {
            return value;
        }
        self.next_value_seed(std::marker::PhantomData)
    }

    /// serde's own maps come here. From a stream, each entry is tried on
    /// the buffered window first, as sequence elements are.
    #[inline]
    fn next_entry<K, V>(&mut self) -> Result<Option<(K, V)>>
    where
        K: de::Deserialize<'de>,
        V: de::Deserialize<'de>,
    {
        if D && self.left > 0
            && let Some(entry) =
                self.read_buffered(|de| Ok((K::deserialize(&mut *de)?, V::deserialize(de)?)))
        {
            self.left -= 1;
            self.index += 1;
            return Ok(Some(entry));
        }
        match self.next_key()? {
            Some(key) => Ok(Some((key, self.next_value()?))),
            None => Ok(None),
        }
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.hint()
    }
}

/// The values of a tuple, tuple struct or struct: a fixed number, no count.
pub(super) struct FixedAccess<'a, R, const D: bool> {
    pub(super) de: &'a mut Decoder<R, D>,
    pub(super) len: usize,
    pub(super) index: usize,
    pub(super) fields: Option<&'static [&'static str]>,
    /// Receives `index` when the visitor is done with the access.
    pub(super) taken: &'a mut usize,
}

impl<R, const D: bool> Drop for FixedAccess<'_, R, D> {
    #[inline(always)]
    fn drop(&mut self) {
        *self.taken = self.index;
    }
}

impl<'de, R: Read<'de>, const D: bool> de::SeqAccess<'de> for FixedAccess<'_, R, D> {
    type Error = Error;

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        if self.index < self.len
            && let Some(value) = self.de.quiet_value::<T>()
        {
            self.index += 1;
            return value.map(Some);
        }
        self.next_element_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.index == self.len {
            return Ok(None);
        }
        let index = self.index;
        self.index += 1;
        let start = self.de.read.offset();
        let fields = self.fields;
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(|e| detail::<D>(e, |e| field_error(e, start, fields, index)))
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.index)
    }
}

/// An enum: the variant index, then the payload.
pub(super) struct EnumAccess<'a, R, const D: bool> {
    pub(super) de: &'a mut Decoder<R, D>,
    pub(super) name: &'static str,
    pub(super) variants: &'static [&'static str],
}

impl<'de, 'a, R: Read<'de>, const D: bool> de::EnumAccess<'de> for EnumAccess<'a, R, D> {
    type Error = Error;
    type Variant = VariantAccess<'a, R, D>;

    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let offset = self.de.read.offset();
        let index = self.de.read_u32("variant index (u32)")?;
        let Some(&variant) = self.variants.get(index as usize) else {
            let (enum_name, variants) = (self.name, self.variants.len());
            return Err(fail::<D>(
                || ErrorKind::UnknownVariant {
                    enum_name: enum_name.into(),
                    index,
                    variants,
                },
                offset,
            ));
        };
        let de: de::value::U32Deserializer<Error> = index.into_deserializer();
        let value = seed
            .deserialize(de)
            .map_err(|e: Error| detail::<D>(e, |e| e.or_offset(offset)))?;
        Ok((
            value,
            VariantAccess {
                de: self.de,
                variant,
            },
        ))
    }
}

/// The payload of the variant just read.
pub(super) struct VariantAccess<'a, R, const D: bool> {
    de: &'a mut Decoder<R, D>,
    variant: &'static str,
}

impl<'de, R: Read<'de>, const D: bool> de::VariantAccess<'de> for VariantAccess<'_, R, D> {
    type Error = Error;

    #[inline]
    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        let start = self.de.read.offset();
        seed.deserialize(&mut *self.de)
            .map_err(|e: Error| detail::<D>(e, |e| in_variant(e.or_offset(start), self.variant)))
    }

    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.de
            .visit_fixed(len, None, visitor)
            .map_err(|e| detail::<D>(e, |e| in_variant(e, self.variant)))
    }

    #[inline]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.de
            .visit_fixed(fields.len(), Some(fields), visitor)
            .map_err(|e| detail::<D>(e, |e| in_variant(e, self.variant)))
    }
}
