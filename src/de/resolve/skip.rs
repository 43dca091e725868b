//! Reading a writer value the reader does not take, checked as the plain
//! reader would check it, and dropping it (`spec/12-evolution.md`, 12.4).

use super::{Resolution, Skip, SkipId};
use crate::de::Decoder;
use crate::error::Result;
use crate::read::Read;

/// Reads and checks one writer value of `skip`, and drops it.
pub(super) fn skip_value<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    res: &Resolution,
    skip: SkipId,
) -> Result<()> {
    match &res.skips[skip as usize] {
        Skip::Nothing => {}
        Skip::Number(n) => {
            de.read_some(*n as usize, "a skipped number")?;
        }
        Skip::Bool => {
            de.raw_bool()?;
        }
        Skip::Char => {
            de.raw_char()?;
        }
        Skip::Str => {
            de.raw_str_ref()?;
        }
        Skip::Bytes => {
            de.read_counted_bytes("byte string bytes")?;
        }
        Skip::Option(inner) => {
            if de.raw_option_tag()? {
                de.raw_nested(|de| skip_value(de, res, *inner))?;
            }
        }
        Skip::Block(size) => {
            let count = de.raw_count()?;
            let len = u64::from(count) * u64::from(*size);
            if de.read_ref().remaining().is_some_and(|r| r >= len) {
                // A slice that holds the whole block: one read.
                de.read_some(len as usize, "a skipped block")?;
            } else {
                // Element by element, so that a block cut short fails at
                // the element that cannot be read whole, as the plain
                // reader's does (spec 3), from a slice and a stream alike.
                for _ in 0..count {
                    de.read_some(*size as usize, "a skipped block")?;
                }
            }
        }
        Skip::Seq(elem) => {
            let count = de.raw_count()?;
            de.raw_nested(|de| repeat(de, res, *elem, count.into()))?;
        }
        Skip::Map(k, v) => {
            let count = de.raw_count()?;
            de.raw_nested(|de| {
                for _ in 0..count {
                    let start = de.offset();
                    skip_value(de, res, *k)?;
                    skip_value(de, res, *v)?;
                    if de.offset() == start {
                        de.charge_zero_sized(1)?;
                    }
                }
                Ok(())
            })?;
        }
        Skip::Tuple(items) => {
            de.raw_nested(|de| items.iter().try_for_each(|item| skip_value(de, res, *item)))?
        }
        Skip::Repeat(item, n) => de.raw_nested(|de| repeat(de, res, *item, *n))?,
        Skip::Newtype(inner) => de.raw_nested(|de| skip_value(de, res, *inner))?,
        Skip::Enum(name, variants) => de.raw_nested(|de| {
            let index = de.raw_variant(name, variants.len())?;
            variants[index as usize]
                .iter()
                .try_for_each(|item| skip_value(de, res, *item))
        })?,
        Skip::Shaped(dtype) => {
            de.raw_array(*dtype)?;
        }
    }
    Ok(())
}

/// `n` values of `item`; those that take no bytes draw on the zero-sized
/// budget, so that a claimed count never buys work the input did not pay for.
fn repeat<'de, R: Read<'de>, const D: bool>(
    de: &mut Decoder<R, D>,
    res: &Resolution,
    item: SkipId,
    n: u64,
) -> Result<()> {
    for _ in 0..n {
        let start = de.offset();
        skip_value(de, res, item)?;
        if de.offset() == start {
            de.charge_zero_sized(1)?;
        }
    }
    Ok(())
}
