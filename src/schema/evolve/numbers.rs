//! Which writer numbers a reader's number type takes, and the rule that
//! says so (`spec/12-evolution.md`, 12.3): widening that keeps every value.

use crate::dtype::Dtype;
use crate::schema::model::Format;

/// The dtype of a number format.
pub(super) fn number(format: &Format) -> Option<Dtype> {
    Some(match format {
        Format::I8 => Dtype::I8,
        Format::I16 => Dtype::I16,
        Format::I32 => Dtype::I32,
        Format::I64 => Dtype::I64,
        Format::I128 => Dtype::I128,
        Format::U8 => Dtype::U8,
        Format::U16 => Dtype::U16,
        Format::U32 => Dtype::U32,
        Format::U64 => Dtype::U64,
        Format::U128 => Dtype::U128,
        Format::F32 => Dtype::F32,
        Format::F64 => Dtype::F64,
        _ => return None,
    })
}

/// The rule that turns a writer number into a reader number, if one does
/// without losing a value (12.3): `Ok(rule)`, or `Err(why not)`.
pub(super) fn promotion(from: Dtype, to: Dtype) -> std::result::Result<&'static str, String> {
    use Dtype::*;
    let signed = |d| matches!(d, I8 | I16 | I32 | I64 | I128);
    let float = |d| matches!(d, F32 | F64);
    let bits = |d: Dtype| d.size() * 8;
    match (float(from), float(to)) {
        (true, true) if from == F32 && to == F64 => Ok("float-widened"),
        (true, _) => Err(format!("{} does not fit in {}", from.name(), to.name())),
        (false, true) => {
            // Every value of the integer must be exact in the float.
            let mantissa = if to == F32 { 24 } else { 53 };
            let value_bits = if signed(from) {
                bits(from) - 1
            } else {
                bits(from)
            };
            if value_bits <= mantissa {
                Ok("int-to-float")
            } else {
                Err(format!(
                    "not every {} is exact in {} ({mantissa}-bit mantissa)",
                    from.name(),
                    to.name()
                ))
            }
        }
        (false, false) => {
            let ok = match (signed(from), signed(to)) {
                (true, true) | (false, false) => bits(to) > bits(from),
                (false, true) => bits(to) > bits(from),
                (true, false) => false,
            };
            if ok {
                Ok("int-widened")
            } else if signed(from) && !signed(to) {
                Err(format!(
                    "{} may be negative, {} cannot",
                    from.name(),
                    to.name()
                ))
            } else {
                Err(format!("not every {} fits in {}", from.name(), to.name()))
            }
        }
    }
}
