//! A reader that hands out its bytes in small pieces, so that values
//! straddle the deserializer's buffer: a stream reads each element and
//! record from its buffered bytes first, and from the stream when the
//! buffer ends inside one.

/// Gives the bytes in pieces of the sizes in `sizes`, in turn (a size of
/// 0 counts as 1).
pub struct Pieces<'a> {
    bytes: &'a [u8],
    sizes: Vec<usize>,
    turn: usize,
}

impl<'a> Pieces<'a> {
    /// `bytes` in pieces of `sizes`, cycled; one byte at a time if empty.
    pub fn new(bytes: &'a [u8], sizes: &[usize]) -> Self {
        Pieces {
            bytes,
            sizes: sizes.to_vec(),
            turn: 0,
        }
    }
}

/// `bytes` at most 7 at a time.
#[allow(dead_code)]
pub fn trickle(bytes: &[u8]) -> Pieces<'_> {
    Pieces::new(bytes, &[7])
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = match self.sizes.len() {
            0 => 1,
            n => self.sizes[self.turn % n].max(1),
        };
        self.turn += 1;
        let n = buf.len().min(size).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}
