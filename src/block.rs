//! Blocks: sequences of primitive numbers, stored as their little-endian
//! bytes back to back.
//!
//! [`Element`] is the sealed set of element types that may form a block:
//! the twelve fixed-width integers and floats. `bool` and `char` are not
//! among them, since every one of their values must be checked on reading.
//! Shaped arrays ([`crate`]'s directory) use the same set and the `DTYPE`
//! codes defined here; `spec/04-blocks.md` and `spec/08-directory.md`
//! describe the bytes.

mod private {
    pub trait Sealed {}
}

/// A primitive number type whose sequences are written and read as blocks.
///
/// Sealed: implemented for `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`,
/// `i64`, `u128`, `i128`, `f32` and `f64`.
pub trait Element:
    private::Sealed
    + bytemuck::Pod
    + Copy
    + Default
    + PartialEq
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// The element's dtype code in a directory entry (`spec/08-directory.md`).
    const DTYPE: u8;
    /// The element's name, as in Rust.
    const NAME: &'static str;
    /// Bytes per element.
    const SIZE: usize = std::mem::size_of::<Self>();

    /// The element with its bytes in the opposite order; what a big-endian
    /// host applies to turn native values into little-endian ones.
    fn swap_bytes(self) -> Self;
}

macro_rules! int_element {
    ($($ty:ty => $code:expr,)*) => {$(
        impl private::Sealed for $ty {}
        impl Element for $ty {
            const DTYPE: u8 = $code;
            const NAME: &'static str = stringify!($ty);
            #[inline]
            fn swap_bytes(self) -> Self {
                <$ty>::swap_bytes(self)
            }
        }
    )*};
}

int_element! {
    u8 => 0x01, i8 => 0x02, u16 => 0x03, i16 => 0x04,
    u32 => 0x05, i32 => 0x06, u64 => 0x07, i64 => 0x08,
    u128 => 0x09, i128 => 0x0a,
}

macro_rules! float_element {
    ($($ty:ty => $code:expr,)*) => {$(
        impl private::Sealed for $ty {}
        impl Element for $ty {
            const DTYPE: u8 = $code;
            const NAME: &'static str = stringify!($ty);
            #[inline]
            fn swap_bytes(self) -> Self {
                <$ty>::from_bits(self.to_bits().swap_bytes())
            }
        }
    )*};
}

float_element! {
    f32 => 0x0b, f64 => 0x0c,
}

/// The element size for a dtype code, or `None` for an unknown code.
pub fn dtype_size(code: u8) -> Option<usize> {
    Some(match code {
        0x01 | 0x02 => 1,
        0x03 | 0x04 => 2,
        0x05 | 0x06 | 0x0b => 4,
        0x07 | 0x08 | 0x0c => 8,
        0x09 | 0x0a => 16,
        _ => return None,
    })
}

/// The Rust name of a dtype code, or `None` for an unknown code.
pub fn dtype_name(code: u8) -> Option<&'static str> {
    Some(match code {
        0x01 => "u8",
        0x02 => "i8",
        0x03 => "u16",
        0x04 => "i16",
        0x05 => "u32",
        0x06 => "i32",
        0x07 => "u64",
        0x08 => "i64",
        0x09 => "u128",
        0x0a => "i128",
        0x0b => "f32",
        0x0c => "f64",
        _ => return None,
    })
}
