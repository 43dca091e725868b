//! The twelve element types of numeric blocks and shaped arrays, with the
//! codes a directory entry gives them (`spec/04-blocks.md` 4.1,
//! `spec/08-directory.md` 8.3): the one table every other module reads.

/// Calls `$m!` with the whole table, one `Type Variant code,` entry per
/// element type, in code order. Everything that must list the element
/// types (their [`Element`](crate::block::Element) impls, the array
/// markers, the typed slices) is written from this one list.
macro_rules! with_dtypes {
    ($m:ident) => {
        $m! {
            u8 U8 0x01, i8 I8 0x02, u16 U16 0x03, i16 I16 0x04,
            u32 U32 0x05, i32 I32 0x06, u64 U64 0x07, i64 I64 0x08,
            u128 U128 0x09, i128 I128 0x0a, f32 F32 0x0b, f64 F64 0x0c,
        }
    };
}
pub(crate) use with_dtypes;

macro_rules! dtype_enum {
    ($($ty:ident $variant:ident $code:literal,)*) => {
        /// An element type of blocks and shaped arrays.
        ///
        /// ```
        /// use kiln::Dtype;
        ///
        /// assert_eq!(Dtype::from_code(0x0b), Some(Dtype::F32));
        /// assert_eq!((Dtype::F32.name(), Dtype::F32.size()), ("f32", 4));
        /// assert_eq!(Dtype::from_name("u128").map(Dtype::code), Some(0x09));
        /// assert_eq!(Dtype::from_code(0x0d), None);
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Dtype {
            $(
                #[doc = concat!("`", stringify!($ty), "`, code ", stringify!($code), ".")]
                $variant = $code,
            )*
        }

        impl Dtype {
            /// Every element type, in code order.
            pub const ALL: [Dtype; 12] = [$(Dtype::$variant),*];

            /// The element type of a directory code, or `None` for a code
            /// no element type has.
            pub const fn from_code(code: u8) -> Option<Dtype> {
                match code {
                    $($code => Some(Dtype::$variant),)*
                    _ => None,
                }
            }

            /// The element type of a Rust name (`"f32"`, `"u8"`, ...).
            pub fn from_name(name: &str) -> Option<Dtype> {
                match name {
                    $(stringify!($ty) => Some(Dtype::$variant),)*
                    _ => None,
                }
            }

            /// The directory code.
            pub const fn code(self) -> u8 {
                self as u8
            }

            /// The Rust name of the element type.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Dtype::$variant => stringify!($ty),)*
                }
            }

            /// Bytes per element.
            pub const fn size(self) -> usize {
                match self {
                    $(Dtype::$variant => std::mem::size_of::<$ty>(),)*
                }
            }
        }
    };
}
with_dtypes!(dtype_enum);

impl std::fmt::Display for Dtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Dtype;

    #[test]
    fn the_table_is_whole_and_consistent() {
        for (i, d) in Dtype::ALL.iter().enumerate() {
            assert_eq!(d.code() as usize, i + 1);
            assert_eq!(Dtype::from_code(d.code()), Some(*d));
            assert_eq!(Dtype::from_name(d.name()), Some(*d));
        }
        assert_eq!(Dtype::from_code(0), None);
        assert_eq!(Dtype::from_code(13), None);
        let sizes: Vec<usize> = Dtype::ALL.iter().map(|d| d.size()).collect();
        assert_eq!(sizes, [1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 4, 8]);
    }
}
