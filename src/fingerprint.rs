//! The 64-bit fingerprint of a canonical schema text (`spec/05-schema.md`,
//! 5.3): the first 8 bytes of its SHA-256 digest.

use std::fmt;

use sha2::{Digest, Sha256};

/// A 64-bit schema fingerprint: the first 8 bytes of the SHA-256 digest of
/// the canonical schema text, read as a little-endian `u64`.
///
/// It is written into a frame header as those same 8 bytes, so the header
/// holds the digest's first 8 bytes in digest order. It displays as 16
/// lowercase hex digits of the `u64`.
///
/// ```
/// use kiln::schema::Fingerprint;
///
/// let fp = Fingerprint::of_text("root u8\n");
/// assert_eq!(fp, Fingerprint::from_le_bytes(fp.to_le_bytes()));
/// assert_eq!(fp.to_string().len(), 16);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// The fingerprint of a canonical schema text.
    pub fn of_text(text: &str) -> Fingerprint {
        let digest = Sha256::digest(text.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Fingerprint(u64::from_le_bytes(first))
    }

    /// The 8 bytes written in a frame header.
    pub fn to_le_bytes(self) -> [u8; 8] {
        self.0.to_le_bytes()
    }

    /// The fingerprint read from the 8 bytes of a frame header.
    pub fn from_le_bytes(bytes: [u8; 8]) -> Fingerprint {
        Fingerprint(u64::from_le_bytes(bytes))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({:016x})", self.0)
    }
}
