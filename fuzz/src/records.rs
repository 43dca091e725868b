//! The `records` target: sequences of records of numbers (spec 4.4.1),
//! which Kiln reads in one copy, against the element-by-element path.
//!
//! The input is a piece size, a byte limit and then bytes. Those bytes are
//! read as a `Vec` of fixed arrays and of a registered struct, through the
//! one-copy path (`Vec<T>`) and through the element path (a visitor of its
//! own, [`crate::ElementWise`]), from a slice and from a stream that hands
//! out pieces of the given size under the given byte limit. Each pair must
//! agree exactly: the same records bit for bit, or the same error text
//! (kind, offset and path). A value read must write back to the bytes it
//! was read from.

use std::io;
use std::sync::Once;

use bytemuck::{Pod, Zeroable};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::ElementWise;

/// A struct of mixed widths, registered for the one-copy path.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
pub struct Sample {
    pub at: [f64; 2],
    pub id: u32,
    pub level: i16,
    pub flags: [u8; 2],
}

static REGISTER: Once = Once::new();

/// Hands out `data` at most `piece` bytes per call.
struct Pieces<'a> {
    data: &'a [u8],
    piece: usize,
}

impl io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.piece.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Checks one input; see the module documentation.
pub fn check_records(data: &[u8]) {
    REGISTER.call_once(|| kiln::block::register::<Sample>().expect("Sample is Pod"));
    let Some((&[piece, limit], bytes)) = data.split_first_chunk::<2>() else {
        return;
    };
    // Pieces of 1 to 255 bytes, or whole (0); a limit of 0 is none.
    let piece = if piece == 0 {
        usize::MAX
    } else {
        usize::from(piece)
    };
    let limit = match limit {
        0 => u64::MAX,
        l => u64::from(l) * 37,
    };
    agree::<[f32; 3]>(bytes, piece, limit);
    agree::<[[u16; 2]; 2]>(bytes, piece, limit);
    agree::<[u8; 5]>(bytes, piece, limit);
    agree::<Sample>(bytes, piece, limit);
}

/// The one-copy and the element path agree on `bytes` as a `Vec<T>`,
/// from a slice and from a stream.
fn agree<T>(bytes: &[u8], piece: usize, limit: u64)
where
    T: Pod + Serialize + DeserializeOwned + std::fmt::Debug,
{
    let opts = crate::opts();
    let fast = opts.from_slice::<Vec<T>>(bytes);
    let slow = opts.from_slice::<ElementWise<T>>(bytes).map(|v| v.0);
    same::<T>("slice", &fast, &slow);
    if let Ok(records) = &fast {
        let written = kiln::to_vec(records).expect("records write");
        assert_eq!(written, bytes, "records write back other bytes");
    }
    let opts = opts.byte_limit(limit);
    let stream = |bytes| Pieces { data: bytes, piece };
    let fast = opts.from_reader::<_, Vec<T>>(stream(bytes));
    let slow = opts
        .from_reader::<_, ElementWise<T>>(stream(bytes))
        .map(|v| v.0);
    same::<T>("stream", &fast, &slow);
}

fn same<T: Pod>(what: &str, fast: &kiln::Result<Vec<T>>, slow: &kiln::Result<Vec<T>>) {
    match (fast, slow) {
        (Ok(a), Ok(b)) => assert_eq!(
            bytemuck::cast_slice::<T, u8>(a),
            bytemuck::cast_slice::<T, u8>(b),
            "{what}: the paths read different records"
        ),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}: errors differ"),
        (a, b) => panic!(
            "{what}: one path failed: one copy {:?}, element path {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
}
