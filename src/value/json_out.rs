//! JSON written straight from the bytes, by the mapping of
//! `spec/10-values.md`: the reading walk of `decode.rs` with a sink that
//! prints, so that `kiln cat` builds no tree. The text is byte for byte
//! what serde_json prints for the same [`Value`] (tests compare the two).

use std::sync::Arc;

use super::decode::{Num, Open, Sink, walk};
use super::plan::{NodeId, Plan};
use super::{ArrayValue, Block, Table, Value};
use crate::error::Result;
use crate::read::SliceRead;

/// Writes JSON into `out`.
pub(crate) struct Writer<'o> {
    pub(crate) out: &'o mut Vec<u8>,
    /// The next leaf is a map's key: numbers and bools are quoted.
    key: bool,
}

impl<'o> Writer<'o> {
    pub(crate) fn new(out: &'o mut Vec<u8>) -> Writer<'o> {
        Writer { out, key: false }
    }
}

/// A compound value being written: what closes it and how its parts are
/// separated.
pub(crate) struct WriteAcc {
    open: Kind,
}

#[derive(Clone, Copy)]
enum Kind {
    Array,
    Object,
    /// A map written as an array of `[key, value]` pairs.
    Pairs,
    /// A map written as an object.
    Keyed,
}

/// Bytes that a JSON string cannot hold as they are: the control
/// characters, `"` and `\`; serde_json escapes exactly these.
static ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Writes `s` as a JSON string, escaped as serde_json escapes it.
pub(crate) fn escape_into(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !ESCAPE[b as usize] {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 15) as usize]);
            }
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

pub(crate) fn int(out: &mut Vec<u8>, v: impl itoa::Integer, key: bool) {
    let mut buf = itoa::Buffer::new();
    let s = buf.format(v);
    if key {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}

/// A byte string as serde_json writes `serde_bytes`: an array of numbers.
pub(crate) fn byte_array(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'[');
    for (i, x) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        int(out, *x, false);
    }
    out.push(b']');
}

/// A float as serde_json writes it: the shortest round-trip decimal, and
/// `null` for NaN and the infinities; as a key, quoted, with the
/// non-finite ones spelled `NaN`, `inf`, `-inf`.
pub(crate) fn float<F: zmij::Float + Into<f64> + Copy>(out: &mut Vec<u8>, v: F, key: bool) {
    let f: f64 = v.into();
    if key {
        out.push(b'"');
    }
    if f.is_finite() {
        let mut buf = zmij::Buffer::new();
        out.extend_from_slice(buf.format_finite(v).as_bytes());
    } else if key {
        out.extend_from_slice(non_finite_key(f).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
    if key {
        out.push(b'"');
    }
}

/// How a non-finite float key is spelled (10.2).
pub(crate) fn non_finite_key(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

fn block(out: &mut Vec<u8>, b: &Block) {
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match b {
                $(Block::$variant(v) => {
                    out.push(b'[');
                    for (i, x) in v.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        number(out, &Value::$variant(*x), false);
                    }
                    out.push(b']');
                })*
            }
        };
    }
    crate::dtype::with_dtypes!(each)
}

fn number(out: &mut Vec<u8>, v: &Value<'_>, key: bool) {
    match *v {
        Value::U8(x) => int(out, x, key),
        Value::I8(x) => int(out, x, key),
        Value::U16(x) => int(out, x, key),
        Value::I16(x) => int(out, x, key),
        Value::U32(x) => int(out, x, key),
        Value::I32(x) => int(out, x, key),
        Value::U64(x) => int(out, x, key),
        Value::I64(x) => int(out, x, key),
        Value::U128(x) => int(out, x, key),
        Value::I128(x) => int(out, x, key),
        Value::F32(x) => float(out, x, key),
        Value::F64(x) => float(out, x, key),
        _ => {}
    }
}

fn array(out: &mut Vec<u8>, a: &ArrayValue<'_>) {
    out.extend_from_slice(b"{\"shape\":[");
    for (i, d) in a.shape.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        int(out, *d, false);
    }
    out.extend_from_slice(b"],\"data\":[");
    for i in 0..a.len() {
        if i > 0 {
            out.push(b',');
        }
        if let Some(v) = a.get(i) {
            number(out, &v, false);
        }
    }
    out.extend_from_slice(b"]}");
}

fn table(out: &mut Vec<u8>, plan: &Plan, t: &Table<'_>) {
    out.push(b'[');
    for i in 0..t.len() {
        if i > 0 {
            out.push(b',');
        }
        let bytes = &t.bytes()[i * t.record_size()..(i + 1) * t.record_size()];
        let mut de = crate::Deserializer::new(SliceRead::new(bytes));
        // Checked when the table was read: a valid record, which cannot fail.
        let _ = walk(&mut de, plan, t.elem(), &mut Writer::new(out));
    }
    out.push(b']');
}

impl<'de> Sink<'de> for Writer<'_> {
    type V = ();
    type Acc = WriteAcc;

    fn leaf(&mut self, plan: &Plan, v: Value<'de>) {
        let key = std::mem::take(&mut self.key);
        let out = &mut *self.out;
        match &v {
            Value::Unit => out.extend_from_slice(b"null"),
            Value::Bool(b) => {
                let s: &[u8] = match (b, key) {
                    (true, false) => b"true",
                    (false, false) => b"false",
                    (true, true) => b"\"true\"",
                    (false, true) => b"\"false\"",
                };
                out.extend_from_slice(s);
            }
            Value::Char(c) => escape_into(out, c.encode_utf8(&mut [0; 4])),
            Value::Str(s) => escape_into(out, s),
            Value::Bytes(b) => byte_array(out, b),
            Value::Block(b) => block(out, b),
            Value::Table(t) => table(out, plan, t),
            Value::Array(a) => array(out, a),
            v => number(out, v, key),
        }
    }

    #[inline]
    fn num(&mut self, n: Num) {
        let key = std::mem::take(&mut self.key);
        let out = &mut *self.out;
        match n {
            Num::U8(x) => int(out, x, key),
            Num::I8(x) => int(out, x, key),
            Num::U16(x) => int(out, x, key),
            Num::I16(x) => int(out, x, key),
            Num::U32(x) => int(out, x, key),
            Num::I32(x) => int(out, x, key),
            Num::U64(x) => int(out, x, key),
            Num::I64(x) => int(out, x, key),
            Num::U128(x) => int(out, x, key),
            Num::I128(x) => int(out, x, key),
            Num::F32(x) => float(out, x, key),
            Num::F64(x) => float(out, x, key),
        }
    }

    #[inline]
    fn str(&mut self, s: crate::read::Reference<'de, '_, str>) {
        self.key = false;
        escape_into(self.out, &s);
    }

    fn none(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    fn some(&mut self, (): ()) {}

    fn open(&mut self, open: Open<'_>, _: usize) -> WriteAcc {
        let (byte, open) = match open {
            Open::Seq | Open::Tuple => (b'[', Kind::Array),
            Open::Map { object: true } => (b'{', Kind::Keyed),
            Open::Map { object: false } => (b'[', Kind::Pairs),
            Open::Struct(_) => (b'{', Kind::Object),
        };
        self.out.push(byte);
        WriteAcc { open }
    }

    fn before(&mut self, acc: &mut WriteAcc, open: Open<'_>, i: usize) {
        match acc.open {
            Kind::Array => {
                if i > 0 {
                    self.out.push(b',');
                }
            }
            Kind::Object => {
                if i > 0 {
                    self.out.push(b',');
                }
                if let Open::Struct(names) = open {
                    self.out.extend_from_slice(names.key(i));
                }
            }
            Kind::Keyed => {
                if i.is_multiple_of(2) {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.key = true;
                } else {
                    self.out.push(b':');
                }
            }
            Kind::Pairs => {
                if i.is_multiple_of(2) {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.out.push(b'[');
                } else {
                    self.out.push(b',');
                }
            }
        }
    }

    fn push(&mut self, acc: &mut WriteAcc, i: usize, (): ()) {
        if matches!(acc.open, Kind::Pairs) && i % 2 == 1 {
            self.out.push(b']');
        }
    }

    fn close(&mut self, acc: WriteAcc) {
        self.out.push(match acc.open {
            Kind::Array | Kind::Pairs => b']',
            Kind::Object | Kind::Keyed => b'}',
        });
    }

    fn variant_open(&mut self, name: &Arc<str>, _: u32) {
        self.out.push(b'{');
        escape_into(self.out, name);
        self.out.push(b':');
    }

    fn variant(&mut self, name: &Arc<str>, _: u32, payload: Option<()>) {
        match payload {
            Some(()) => self.out.push(b'}'),
            None => escape_into(self.out, name),
        }
    }
}

/// Reads the record of node `id` and writes its JSON into `out`; on an
/// error, `out` is as it was. The root's record is printed by its
/// compiled program where it can be (`json_program`), by the walk
/// otherwise, and always by the walk where there is an error to find.
pub(crate) fn write_record<'de, R: crate::read::Read<'de>, const D: bool>(
    de: &mut crate::de::Decoder<R, D>,
    plan: &Plan,
    id: NodeId,
    out: &mut Vec<u8>,
) -> Result<()> {
    if id == plan.root()
        && let Some(program) = plan.json_program()
        && de.raw_depth_left() > program.depth()
        && let Some(input) = de.raw_peek()
        && let Some(n) = program.run(input, out)
    {
        de.raw_skip_peeked(n);
        return Ok(());
    }
    let mark = out.len();
    let r = walk(de, plan, id, &mut Writer::new(out));
    if r.is_err() {
        out.truncate(mark);
    }
    r
}
