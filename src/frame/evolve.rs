//! Reading frames another version of the type wrote
//! (`spec/12-evolution.md`): the same readers as [`FrameOptions`]'s, which
//! resolve the writer's schema text onto the reader's type when the
//! fingerprints differ.

use std::io;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::header::at;
use super::read::{flag_clear, not_one_record, single};
use super::{FrameHeader, FrameOptions, FramedReaderRecords, HEADER_LEN};
use crate::de::{Evolved, RecordSeed};
use crate::error::{Error, ErrorKind, Result};
use crate::records::SliceRecords;
use crate::schema::{self, Schema, Store};

/// The records of a framed batch read by [`Evolve::batch_from_slice`].
pub type EvolvedRecords<'de, T> = SliceRecords<'de, T, Evolved<T>>;
/// The records of a framed batch read by [`Evolve::batch_from_reader`].
pub type EvolvedReaderRecords<R, T> = FramedReaderRecords<R, T, Evolved<T>>;

/// Frame readers that read what another version of the type wrote, made
/// by [`FrameOptions::evolve`].
///
/// A frame of the reader's own schema is read exactly as [`FrameOptions`]
/// reads it. A frame of another fingerprint is read through the writer's
/// schema text, embedded in the frame or held by the
/// [`schema_store`](Evolve::schema_store), resolved onto the reader's
/// type by the rules of `spec/12-evolution.md` (see
/// [`schema::check`](crate::schema::check)): fields by name, defaults for
/// fields the writer did not have, promotions that keep every value.
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, kiln::Schema)]
/// #[serde(rename = "Reading")]
/// struct ReadingV1 { sensor: u16, value: f32 }
///
/// #[derive(Deserialize, kiln::Schema, Debug, PartialEq)]
/// struct Reading { sensor: u32, value: f64, unit: Option<String> }
///
/// let old = [ReadingV1 { sensor: 7, value: 0.5 }, ReadingV1 { sensor: 8, value: 1.5 }];
/// // A batch without its schema text; the text is kept in a store.
/// let bytes = kiln::frame::batch_to_vec(&old)?;
/// let mut store = kiln::schema::Store::new();
/// store.add::<ReadingV1>()?;
///
/// let readings: Vec<Reading> = kiln::frame::FrameOptions::new()
///     .evolve()
///     .schema_store(store)
///     .batch_from_slice(&bytes)?
///     .collect::<kiln::Result<_>>()?;
/// assert_eq!(readings[1], Reading { sensor: 8, value: 1.5, unit: None });
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Evolve {
    options: FrameOptions,
    store: Option<Store>,
}

impl FrameOptions {
    /// Readers with these options that also read frames another version
    /// of the type wrote ([`Evolve`]). Without it, such a frame is
    /// [`ErrorKind::SchemaMismatch`] before its first value.
    pub fn evolve(self) -> Evolve {
        Evolve {
            options: self,
            store: None,
        }
    }
}

impl Evolve {
    /// The writer schema texts to resolve by, for frames that do not
    /// embed theirs.
    pub fn schema_store(mut self, store: Store) -> Evolve {
        self.store = Some(store);
        self
    }

    /// The frame options the readers use.
    pub fn frame_options(&self) -> FrameOptions {
        self.options
    }

    /// How records of the frame with `header` are read as `T`.
    ///
    /// # Errors
    /// [`ErrorKind::WriterSchemaUnknown`] without the writer's text, and
    /// [`ErrorKind::SchemaIncompatible`] when no rule reads it as `T`;
    /// both at 16, before any value.
    pub(crate) fn seed_for<T: Schema>(&self, header: &FrameHeader) -> Result<Evolved<T>> {
        let schema = schema::schema_of::<T>()?;
        if header.fingerprint == schema.fingerprint() {
            return Ok(Evolved::same());
        }
        let text = header
            .schema_text
            .as_deref()
            .or_else(|| self.store.as_ref()?.get(header.fingerprint));
        let Some(text) = text else {
            return Err(Error::at(
                ErrorKind::WriterSchemaUnknown {
                    found: header.fingerprint,
                },
                at::FINGERPRINT as u64,
            ));
        };
        Ok(Evolved::resolved(schema::resolution(text, schema)?))
    }

    /// Reads a frame of one record from `bytes`, of `T`'s schema or
    /// another version's; the record may borrow.
    ///
    /// # Errors
    /// Those of [`FrameOptions::from_slice`] except
    /// [`ErrorKind::SchemaMismatch`], and those of `seed_for`
    /// (`writer-schema-unknown`, `schema-incompatible`).
    pub fn from_slice<'de, T: Deserialize<'de> + Schema>(&self, bytes: &'de [u8]) -> Result<T> {
        let max_text = self.options.decode_options().schema_text_limit;
        let (fixed, _) = FrameHeader::parse_fixed(&bytes[..bytes.len().min(HEADER_LEN)], max_text)?;
        if fixed.fingerprint == schema::schema_of::<T>()?.fingerprint() {
            return self.options.from_slice(bytes);
        }
        let header = FrameHeader::parse_with(bytes, max_text)?;
        let seed = self.seed_for::<T>(&header)?;
        if header.has_directory() {
            let payload = header.payload(bytes)?;
            return self
                .options
                .record_with_directory_by(payload.bytes, payload.offset, |de| seed.read(de));
        }
        let mut records = self.options.batch_from_slice_with(bytes, |_| Ok(seed))?;
        if let Some(count) = header.record_count
            && count != 1
        {
            return Err(not_one_record(count));
        }
        single(records.next(), records.next(), records.index()).map_err(flag_clear)
    }

    /// Reads a frame of one record from an [`io::Read`], of `T`'s schema
    /// or another version's.
    ///
    /// # Errors
    /// As [`FrameOptions::from_reader`], and as [`Evolve::from_slice`].
    pub fn from_reader<R: io::Read, T: DeserializeOwned + Schema>(&self, reader: R) -> Result<T> {
        self.options
            .record_from_reader_with(reader, |header| self.seed_for::<T>(header))
    }

    /// Reads a framed batch from `bytes`, of `T`'s schema or another
    /// version's; records may borrow from `bytes`.
    ///
    /// # Errors
    /// As [`FrameOptions::batch_from_slice`], and as [`Evolve::from_slice`].
    pub fn batch_from_slice<'de, T: Deserialize<'de> + Schema>(
        &self,
        bytes: &'de [u8],
    ) -> Result<EvolvedRecords<'de, T>> {
        self.options
            .batch_from_slice_with(bytes, |header| self.seed_for::<T>(header))
    }

    /// Reads a framed batch from an [`io::Read`] in bounded memory, of
    /// `T`'s schema or another version's.
    ///
    /// # Errors
    /// As [`FrameOptions::batch_from_reader`], and as [`Evolve::from_slice`].
    pub fn batch_from_reader<R: io::Read, T: DeserializeOwned + Schema>(
        &self,
        reader: R,
    ) -> Result<EvolvedReaderRecords<R, T>> {
        self.options
            .batch_from_reader_with(reader, |header| self.seed_for::<T>(header))
    }
}
