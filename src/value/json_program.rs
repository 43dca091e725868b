//! A [`Plan`] compiled for printing JSON: a flat list of operations,
//! with the text that never changes (`{"name":`, `,`, `]`) merged into
//! literals, run over the bytes of a slice (or a stream's buffered
//! window) without the decoder's per-value bookkeeping. This is what
//! makes `kiln cat` print a record as fast as serde_json prints the typed
//! one.
//!
//! The program only ever says yes or "don't know": every check the typed
//! reader makes (bounds, UTF-8, bools, chars, option tags, variant
//! indices) is made here too, and on any failure the printer gives up;
//! the caller then reads the record again with the reading walk
//! (`json_out`), which finds the error with its offset and path. Schemas
//! the program does not cover (recursive types, shaped arrays, maps whose
//! keys are not JSON keys) have no program and always take the walk; so
//! does a record deeper than the decoder's depth budget allows, and an
//! element that takes no bytes (whose zero-sized budget the walk keeps).

use super::json_out::{byte_array, escape_into, float, int};
use super::plan::{Node, NodeId, Plan, SeqForm, VariantShape};
use crate::dtype::Dtype;

/// Operations, nested where a value repeats or branches.
#[derive(Debug)]
enum Op {
    /// Text from the literal pool.
    Lit {
        at: u32,
        len: u32,
    },
    /// A number; `key`: quoted, as a map key.
    Num {
        dtype: Dtype,
        key: bool,
    },
    /// A bool; `key`: quoted.
    Bool {
        key: bool,
    },
    Char,
    Str,
    /// A byte string, as an array of numbers.
    Bytes,
    /// A tag, then `null` or the inner value.
    Option(Box<[Op]>),
    /// A count, then `[`, the elements separated by `,`, `]`.
    Seq(Box<[Op]>),
    /// A count, then that many numbers of `dtype` as an array.
    Block(Dtype),
    /// The elements of `[T; N]`, separated by `,` (the brackets are
    /// literals around it).
    Repeat(Box<[Op]>, u64),
    /// A count, then `{`, `key:value` entries separated by `,`, `}`.
    Map(Box<[Op]>, Box<[Op]>),
    /// A variant index, then that variant's operations.
    Enum(Box<[Box<[Op]>]>),
}

/// A compiled plan.
#[derive(Debug)]
pub(crate) struct Program {
    ops: Box<[Op]>,
    lits: Box<[u8]>,
    /// Nesting levels the deepest value takes: the program runs only where
    /// the decoder has more left, so it never meets the depth limit.
    depth: u32,
}

/// `[T; N]` of a scalar `T` up to this long is unrolled.
const UNROLL: u64 = 16;

impl Op {
    /// A copy of a scalar's operation, for unrolling; `None` for the
    /// others (which keep their loop).
    fn copy_leaf(&self) -> Option<Op> {
        Some(match *self {
            Op::Num { dtype, key } => Op::Num { dtype, key },
            Op::Bool { key } => Op::Bool { key },
            Op::Char => Op::Char,
            Op::Str => Op::Str,
            _ => return None,
        })
    }
}

/// Programs longer than this are not worth their memory: the walk prints
/// them.
const MAX_OPS: usize = 1 << 16;

impl Program {
    /// The program for node `root`, or `None` where the walk must print.
    pub(crate) fn compile(plan: &Plan, root: NodeId) -> Option<Program> {
        let mut c = Compiler {
            plan,
            lits: Vec::new(),
            open: Vec::new(),
            ops: 0,
            pending: Vec::new(),
        };
        let mut ops = Vec::new();
        let depth = c.node(root, false, &mut ops)?;
        c.flush(&mut ops);
        // Every literal can be copied sixteen bytes at a time.
        c.lits.extend_from_slice(&[0; 16]);
        Some(Program {
            ops: ops.into_boxed_slice(),
            lits: c.lits.into_boxed_slice(),
            depth,
        })
    }

    /// Nesting levels a record takes at most.
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// Prints the record at the start of `input` into `out`: the number of
    /// bytes it took, or `None` (with `out` as it was) where the walk must
    /// read it.
    pub(crate) fn run(&self, input: &[u8], out: &mut Vec<u8>) -> Option<usize> {
        let mark = out.len();
        let mut r = Run {
            input,
            pos: 0,
            lits: &self.lits,
            out,
        };
        match r.ops(&self.ops) {
            Some(()) => Some(r.pos),
            None => {
                r.out.truncate(mark);
                None
            }
        }
    }
}

struct Compiler<'p> {
    plan: &'p Plan,
    lits: Vec<u8>,
    /// Nodes being compiled: meeting one again is recursion.
    open: Vec<NodeId>,
    ops: usize,
    /// Literal text not yet emitted, merged with what follows.
    pending: Vec<u8>,
}

impl Compiler<'_> {
    fn lit(&mut self, text: &[u8]) {
        self.pending.extend_from_slice(text);
    }

    fn str_lit(&mut self, s: &str) {
        escape_into(&mut self.pending, s);
    }

    fn flush(&mut self, ops: &mut Vec<Op>) {
        if self.pending.is_empty() {
            return;
        }
        let at = self.lits.len() as u32;
        self.lits.extend_from_slice(&self.pending);
        ops.push(Op::Lit {
            at,
            len: self.pending.len() as u32,
        });
        self.pending.clear();
        self.ops += 1;
    }

    fn push(&mut self, ops: &mut Vec<Op>, op: Op) -> Option<()> {
        self.flush(ops);
        ops.push(op);
        self.ops += 1;
        (self.ops <= MAX_OPS).then_some(())
    }

    /// A nested list of operations: literals do not cross its edge.
    fn sub(
        &mut self,
        f: impl FnOnce(&mut Self, &mut Vec<Op>) -> Option<u32>,
    ) -> Option<(Box<[Op]>, u32)> {
        let outer = std::mem::take(&mut self.pending);
        let mut ops = Vec::new();
        let depth = f(self, &mut ops);
        self.flush(&mut ops);
        self.pending = outer;
        Some((ops.into_boxed_slice(), depth?))
    }

    /// Compiles node `id` into `ops`; returns the nesting levels it takes
    /// (as `Decoder::nested` and the depth checks count them).
    fn node(&mut self, id: NodeId, key: bool, ops: &mut Vec<Op>) -> Option<u32> {
        if self.open.contains(&id) {
            return None;
        }
        self.open.push(id);
        let depth = self.node_inner(id, key, ops);
        self.open.pop();
        depth
    }

    fn node_inner(&mut self, id: NodeId, key: bool, ops: &mut Vec<Op>) -> Option<u32> {
        let plan = self.plan;
        Some(match plan.node(id) {
            Node::Unit | Node::UnitStruct(_) if !key => {
                self.lit(b"null");
                0
            }
            Node::Bool => {
                self.push(ops, Op::Bool { key })?;
                0
            }
            Node::Num(dtype) => {
                self.push(ops, Op::Num { dtype: *dtype, key })?;
                0
            }
            Node::Char => {
                self.push(ops, Op::Char)?;
                0
            }
            Node::Str => {
                self.push(ops, Op::Str)?;
                0
            }
            Node::Newtype(_, inner) => 1 + self.node(*inner, key, ops)?,
            _ if key => return None,
            Node::Bytes => {
                self.push(ops, Op::Bytes)?;
                0
            }
            Node::Option(inner) => {
                let (sub, d) = self.sub(|c, ops| c.node(*inner, false, ops))?;
                self.push(ops, Op::Option(sub))?;
                1 + d
            }
            Node::Seq(_, SeqForm::Block(dtype)) => {
                self.push(ops, Op::Block(*dtype))?;
                1
            }
            Node::Seq(elem, _) => {
                let (sub, d) = self.sub(|c, ops| c.node(*elem, false, ops))?;
                self.push(ops, Op::Seq(sub))?;
                1 + d
            }
            Node::Map(k, v) => {
                if !super::decode::object_keys(plan, *k) {
                    return None;
                }
                let (keys, dk) = self.sub(|c, ops| c.node(*k, true, ops))?;
                let (values, dv) = self.sub(|c, ops| c.node(*v, false, ops))?;
                self.push(ops, Op::Map(keys, values))?;
                1 + dk.max(dv)
            }
            Node::Tuple(items) | Node::TupleStruct(_, items) => 1 + self.tuple(items, ops)?,
            Node::Repeat(item, n) => {
                self.lit(b"[");
                let (sub, d) = self.sub(|c, ops| c.node(*item, false, ops))?;
                if *n > 0 && sub.len() == 1 && *n <= UNROLL {
                    // `[u8; 4]`, `[f32; 3]`: one operation per element.
                    let [op] = &*sub else { unreachable!() };
                    for i in 0..*n {
                        if i > 0 {
                            self.lit(b",");
                        }
                        self.push(ops, op.copy_leaf()?)?;
                    }
                } else if *n > 0 {
                    self.push(ops, Op::Repeat(sub, *n))?;
                }
                self.lit(b"]");
                1 + d
            }
            Node::Struct(names, fields) => 1 + self.fields(names, fields, ops)?,
            Node::Enum(_, variants) => {
                let mut arms = Vec::with_capacity(variants.len());
                let mut depth = 0;
                for v in variants.iter() {
                    let (arm, d) = self.sub(|c, ops| {
                        if matches!(v.shape, VariantShape::Unit) {
                            c.str_lit(&v.name);
                            return Some(0);
                        }
                        c.lit(b"{");
                        c.str_lit(&v.name);
                        c.lit(b":");
                        let d = match &v.shape {
                            VariantShape::Unit => 0,
                            VariantShape::Newtype(inner) => c.node(*inner, false, ops)?,
                            VariantShape::Tuple(items) => 1 + c.tuple(items, ops)?,
                            VariantShape::Struct(names, fields) => {
                                1 + c.fields(names, fields, ops)?
                            }
                        };
                        c.lit(b"}");
                        Some(d)
                    })?;
                    arms.push(arm);
                    depth = depth.max(d);
                }
                self.push(ops, Op::Enum(arms.into_boxed_slice()))?;
                1 + depth
            }
            Node::Unit | Node::UnitStruct(_) | Node::Shaped(_) => return None,
        })
    }

    fn tuple(&mut self, items: &[NodeId], ops: &mut Vec<Op>) -> Option<u32> {
        self.lit(b"[");
        let mut depth = 0;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.lit(b",");
            }
            depth = depth.max(self.node(*item, false, ops)?);
        }
        self.lit(b"]");
        Some(depth)
    }

    fn fields(
        &mut self,
        names: &super::plan::Names,
        fields: &[NodeId],
        ops: &mut Vec<Op>,
    ) -> Option<u32> {
        self.lit(b"{");
        let mut depth = 0;
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                self.lit(b",");
            }
            self.lit(names.key(i));
            depth = depth.max(self.node(*field, false, ops)?);
        }
        self.lit(b"}");
        Some(depth)
    }
}

/// A program running over one record.
struct Run<'a> {
    input: &'a [u8],
    pos: usize,
    lits: &'a [u8],
    out: &'a mut Vec<u8>,
}

impl<'a> Run<'a> {
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b = *self.input.get(self.pos..)?.first_chunk::<N>()?;
        self.pos += N;
        Some(b)
    }

    #[inline(always)]
    fn bytes(&mut self, len: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(len)?;
        let input: &'a [u8] = self.input;
        let b = input.get(self.pos..end)?;
        self.pos = end;
        Some(b)
    }

    #[inline(always)]
    fn count(&mut self) -> Option<u32> {
        self.take::<4>().map(u32::from_le_bytes)
    }

    fn ops(&mut self, ops: &[Op]) -> Option<()> {
        for op in ops {
            match op {
                Op::Lit { at, len } => {
                    let (at, len) = (*at as usize, *len as usize);
                    match self.lits.get(at..).and_then(|l| l.first_chunk::<16>()) {
                        Some(chunk) if len <= 16 => put_fixed(self.out, chunk, len),
                        _ => self.out.extend_from_slice(&self.lits[at..at + len]),
                    }
                }
                Op::Num { dtype, key } => self.num(*dtype, *key)?,
                Op::Str => {
                    let len = self.count()? as usize;
                    let start = self.pos;
                    let bytes = self.bytes(len)?;
                    // A short string is checked in one load of the eight
                    // bytes from its start, where the input has them.
                    let word = self.input.get(start..).and_then(|b| b.first_chunk::<8>());
                    write_str(self.out, bytes, word)?;
                }
                Op::Bool { key } => {
                    let s: &[u8] = match (self.take::<1>()?[0], key) {
                        (0, false) => b"false",
                        (1, false) => b"true",
                        (0, true) => b"\"false\"",
                        (1, true) => b"\"true\"",
                        _ => return None,
                    };
                    self.out.extend_from_slice(s);
                }
                Op::Char => {
                    let c = char::from_u32(u32::from_le_bytes(self.take::<4>()?))?;
                    escape_into(self.out, c.encode_utf8(&mut [0; 4]));
                }
                Op::Bytes => {
                    let len = self.count()? as usize;
                    let bytes = self.bytes(len)?;
                    byte_array(self.out, bytes);
                }
                Op::Option(inner) => match self.take::<1>()?[0] {
                    0 => self.out.extend_from_slice(b"null"),
                    1 => self.ops(inner)?,
                    _ => return None,
                },
                Op::Seq(elem) => {
                    let count = self.count()?;
                    self.out.push(b'[');
                    for i in 0..count {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        self.element(elem)?;
                    }
                    self.out.push(b']');
                }
                Op::Block(dtype) => {
                    let count = self.count()? as usize;
                    let bytes = self.bytes(count.checked_mul(dtype.size())?)?;
                    let out = &mut *self.out;
                    out.push(b'[');
                    for (i, x) in bytes.chunks_exact(dtype.size()).enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        print_num(out, *dtype, x, false);
                    }
                    out.push(b']');
                }
                Op::Repeat(elem, n) => {
                    for i in 0..*n {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        self.element(elem)?;
                    }
                }
                Op::Map(keys, values) => {
                    let count = self.count()?;
                    self.out.push(b'{');
                    for i in 0..count {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        let start = self.pos;
                        self.ops(keys)?;
                        self.out.push(b':');
                        self.ops(values)?;
                        if self.pos == start {
                            return None;
                        }
                    }
                    self.out.push(b'}');
                }
                Op::Enum(arms) => {
                    let index = u32::from_le_bytes(self.take::<4>()?);
                    self.ops(arms.get(index as usize)?)?;
                }
            }
        }
        Some(())
    }

    /// One element of a sequence or `[T; N]`: it must take bytes (one that
    /// takes none draws on the walk's zero-sized budget).
    #[inline]
    fn element(&mut self, elem: &[Op]) -> Option<()> {
        let start = self.pos;
        self.ops(elem)?;
        (self.pos > start).then_some(())
    }

    #[inline]
    fn num(&mut self, dtype: Dtype, key: bool) -> Option<()> {
        let bytes = self.bytes(dtype.size())?;
        print_num(self.out, dtype, bytes, key);
        Some(())
    }
}

/// Appends the first `len` bytes of `src` (`len <= N`) with one copy of
/// `N` bytes, which the compiler makes a few moves: a call to `memcpy`
/// for a literal of a few bytes costs more than the copy itself.
#[inline(always)]
fn put_fixed<const N: usize>(out: &mut Vec<u8>, src: &[u8; N], len: usize) {
    out.reserve(N);
    let at = out.len();
    for (dst, src) in out.spare_capacity_mut()[..N].iter_mut().zip(src) {
        dst.write(*src);
    }
    // SAFETY: `reserve(N)` made room for `N` bytes after `at`, the loop
    // initialized all `N` of them, and `len.min(N) <= N`.
    unsafe { out.set_len(at + len.min(N)) };
}

/// The decimal text of every `u8`, and its length: numbers of one byte
/// (addresses, pixels, flags) are the common ones.
static U8_TEXT: [([u8; 4], u8); 256] = {
    let mut t = [([0; 4], 0); 256];
    let mut i = 0;
    while i < 256 {
        let (h, d, u) = ((i / 100) as u8, ((i / 10) % 10) as u8, (i % 10) as u8);
        t[i] = if i >= 100 {
            ([b'0' + h, b'0' + d, b'0' + u, 0], 3)
        } else if i >= 10 {
            ([b'0' + d, b'0' + u, 0, 0], 2)
        } else {
            ([b'0' + u, 0, 0, 0], 1)
        };
        i += 1;
    }
    t
};

/// Prints the number of `dtype` whose bytes are `bytes` (exactly its size).
#[inline]
fn print_num(out: &mut Vec<u8>, dtype: Dtype, bytes: &[u8], key: bool) {
    if let (Dtype::U8, false, [b]) = (dtype, key, bytes) {
        let (text, len) = &U8_TEXT[*b as usize];
        put_fixed(out, text, *len as usize);
        return;
    }
    macro_rules! each {
        ($($ty:ident $variant:ident $code:literal,)*) => {
            match dtype {
                $(Dtype::$variant => {
                    let mut le = [0; size_of::<$ty>()];
                    le.copy_from_slice(bytes);
                    each!(@print out $ty <$ty>::from_le_bytes(le), key);
                })*
            }
        };
        (@print $out:ident f32 $v:expr, $key:ident) => { float($out, $v, $key) };
        (@print $out:ident f64 $v:expr, $key:ident) => { float($out, $v, $key) };
        (@print $out:ident $ty:ident $v:expr, $key:ident) => { int($out, $v, $key) };
    }
    crate::dtype::with_dtypes!(each)
}

/// Writes `bytes` as a JSON string if they are UTF-8 (`None` otherwise):
/// eight bytes at a time while they are ASCII needing no escape, which is
/// the common text, and checked and escaped as `escape_into` does where
/// they are not. `word` is the eight input bytes from the string's start,
/// where there are eight.
#[inline]
fn write_str(out: &mut Vec<u8>, bytes: &[u8], word: Option<&[u8; 8]>) -> Option<()> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    /// A byte of `v` is zero.
    #[inline(always)]
    fn zero_byte(v: u64) -> u64 {
        v.wrapping_sub(LO) & !v & HI
    }
    /// Some byte of the eight is >= 0x80, < 0x20, `"` or `\\`.
    #[inline(always)]
    fn special(x: u64) -> bool {
        (x | zero_byte(x & 0xe0e0_e0e0_e0e0_e0e0)
            | zero_byte(x ^ (LO * b'"' as u64))
            | zero_byte(x ^ (LO * b'\\' as u64)))
            & HI
            != 0
    }
    let len = bytes.len();
    if len < 8 {
        let word = match word {
            Some(w) => *w,
            None => {
                let mut w = [b' '; 8];
                w[..len].copy_from_slice(bytes);
                w
            }
        };
        // The bytes past the string read as spaces, which are plain.
        let keep = (1u64 << (8 * len)) - 1;
        let x = (u64::from_le_bytes(word) & keep) | ((LO * b' ' as u64) & !keep);
        if !special(x) {
            out.reserve(10);
            out.push(b'"');
            put_fixed(out, &word, len);
            out.push(b'"');
            return Some(());
        }
    }
    let plain = len >= 8 && {
        let mut chunks = bytes.chunks_exact(8);
        // The last eight bytes, overlapping the chunks, cover the rest.
        let last = bytes[len - 8..].first_chunk::<8>().copied();
        let word = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        !chunks.any(|c| special(word(c))) && last.is_some_and(|c| !special(u64::from_le_bytes(c)))
    };
    if plain {
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        out.extend_from_slice(bytes);
        out.push(b'"');
        return Some(());
    }
    escape_into(out, std::str::from_utf8(bytes).ok()?);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::Program;
    use crate::read::SliceRead;
    use crate::value::decode::walk;
    use crate::value::json_out::{Writer, write_record};
    use crate::value::{self, Plan};
    use crate::{Deserializer, Options};

    /// The walk's JSON and the bytes it took, or its error.
    fn by_walk(plan: &Plan, bytes: &[u8]) -> crate::Result<(Vec<u8>, usize)> {
        let mut de = Deserializer::new(SliceRead::new(bytes));
        let mut out = Vec::new();
        walk(&mut de, plan, plan.root(), &mut Writer::new(&mut out))?;
        Ok((out, de.offset() as usize))
    }

    /// The program prints what the walk prints, takes the bytes it takes,
    /// and gives up exactly where the walk fails: on the record, on every
    /// prefix of it, and on it with each byte replaced by values that
    /// matter to some check (tags, UTF-8 lead and continuation bytes,
    /// quotes, controls).
    fn agrees(text: &str, json: &str) {
        let plan = Plan::parse(text).unwrap();
        let program =
            Program::compile(&plan, plan.root()).unwrap_or_else(|| panic!("no program for {text}"));
        let v =
            value::from_deserializer(&mut serde_json::Deserializer::from_str(json), &plan).unwrap();
        let bytes = value::to_vec(&v, &plan).unwrap();
        let mut cases = vec![bytes.clone()];
        cases.extend((0..bytes.len()).map(|n| bytes[..n].to_vec()));
        for i in 0..bytes.len() {
            for b in [
                0x00, 0x01, 0x02, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0xbf, 0xc3, 0xf0, 0xff,
            ] {
                let mut c = bytes.clone();
                c[i] = b;
                cases.push(c);
            }
        }
        for case in &cases {
            let mut out = b"[".to_vec();
            let fast = program.run(case, &mut out);
            match (fast, by_walk(&plan, case)) {
                (Some(n), Ok((json, taken))) => {
                    assert_eq!((&out[1..], n), (&json[..], taken), "{text} on {case:02x?}");
                }
                (None, Err(_)) => assert_eq!(out, b"["),
                (fast, walk) => panic!("{text} on {case:02x?}: program {fast:?}, walk {walk:?}"),
            }
        }
        let (json_walk, _) = by_walk(&plan, &bytes).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&json_walk).unwrap(),
            serde_json::from_str::<serde_json::Value>(json).unwrap()
        );
    }

    #[test]
    fn prints_what_the_walk_prints_and_fails_where_it_fails() {
        let shape = "root Shape\nenum Shape { Empty, Circle(f32), Rect(u16, u16), Label { text: str, size: u8 } }\n";
        let cases: &[(&str, &str)] = &[
            (
                "root Point\nstruct Point { x: i32, y: i32 }\n",
                r#"{"x":9,"y":-4}"#,
            ),
            ("root unit\n", "null"),
            ("root bool\n", "true"),
            ("root char\n", r#""é""#),
            ("root i128\n", "-170141183460469231731687303715884105728"),
            ("root f64\n", "0.1"),
            ("root str\n", r#""""#),
            ("root str\n", r#""-""#),
            ("root str\n", r#""seven!!""#),
            ("root str\n", r#""eight!!!""#),
            ("root str\n", r#""a \"quoted\" \\ line\nwith\ttabs \u0001""#),
            ("root str\n", r#""née 😀 at the end: é""#),
            ("root bytes\n", "[0,1,255]"),
            ("root option<option<u8>>\n", "null"),
            ("root option<option<u8>>\n", "7"),
            ("root seq<option<u8>>\n", "[null,3]"),
            (
                "root seq<str>\n",
                r#"["a","bc","","long enough to take chunks"]"#,
            ),
            ("root seq<f32>\n", "[1.5,-0.0,3e38]"),
            ("root [u16; 3]\n", "[1,2,65535]"),
            (
                "root [u8; 20]\n",
                "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,255]",
            ),
            ("root [u8; 4]\n", "[10,0,200,99]"),
            ("root map<str, u32>\n", r#"{"a":1,"b\"":2}"#),
            ("root map<u32, bool>\n", r#"{"1":true,"20":false}"#),
            ("root map<f32, u8>\n", r#"{"1.5":1}"#),
            ("root map<bool, u8>\n", r#"{"true":1,"false":0}"#),
            (shape, r#""Empty""#),
            (shape, r#"{"Circle":1.5}"#),
            (shape, r#"{"Rect":[3,4]}"#),
            (shape, r#"{"Label":{"text":"hi","size":2}}"#),
            ("root Id\nstruct Id(u32)\n", "7"),
            ("root Unit\nstruct Unit;\n", "null"),
            ("root Pair\nstruct Pair(u8, str)\n", r#"[1,"x"]"#),
            (
                "root Log\nstruct Log { address: [u8; 4], identity: str, status: u16, size: u64, tags: seq<Shape>, note: option<str> }\nenum Shape { Empty, Circle(f32), Rect(u16, u16), Label { text: str, size: u8 } }\n",
                r#"{"address":[127,0,0,1],"identity":"-","status":200,"size":1234,"tags":["Empty",{"Rect":[1,2]}],"note":"ok"}"#,
            ),
        ];
        for (text, json) in cases {
            agrees(text, json);
        }
    }

    #[test]
    fn schemas_without_a_program_take_the_walk() {
        for text in [
            // Recursive.
            "root Tree\nstruct Tree { v: u8, kids: seq<Tree> }\n",
            // Keys that are no JSON object keys: pairs.
            "root map<Point, u8>\nstruct Point { x: i32, y: i32 }\n",
        ] {
            let plan = Plan::parse(text).unwrap();
            assert!(Program::compile(&plan, plan.root()).is_none(), "{text}");
        }
        // Such a record still prints, by the walk.
        let plan = Plan::parse("root Tree\nstruct Tree { v: u8, kids: seq<Tree> }\n").unwrap();
        let mut out = Vec::new();
        value::write_json(&[1, 1, 0, 0, 0, 2, 0, 0, 0, 0], &plan, &mut out).unwrap();
        assert_eq!(out, br#"{"v":1,"kids":[{"v":2,"kids":[]}]}"#);
    }

    #[test]
    fn a_record_deeper_than_the_budget_gets_the_walks_depth_error() {
        let plan = Plan::parse("root A\nstruct A { b: B }\nstruct B { c: option<u8> }\n").unwrap();
        let program = plan.json_program().unwrap();
        assert_eq!(program.depth(), 3);
        let bytes = [1, 5];
        let mut out = Vec::new();
        for depth in 0..5 {
            let options = Options::new().max_depth(depth);
            let mut de = Deserializer::with_options(SliceRead::new(&bytes[..]), options);
            let r = write_record(&mut de, &plan, plan.root(), &mut out);
            if depth < 3 {
                let e = r.unwrap_err();
                assert_eq!(e.kind().code(), "depth-limit", "{e}");
            } else {
                r.unwrap();
                assert_eq!(out, br#"{"b":{"c":5}}"#);
            }
            out.clear();
        }
    }

    #[test]
    fn an_element_of_no_bytes_takes_the_walk_and_its_budget() {
        let plan = Plan::parse("root seq<unit>\n").unwrap();
        assert!(plan.json_program().is_some());
        let bytes = 3u32.to_le_bytes();
        let mut out = Vec::new();
        assert_eq!(plan.json_program().unwrap().run(&bytes, &mut out), None);
        value::write_json(&bytes, &plan, &mut out).unwrap();
        assert_eq!(out, b"[null,null,null]");
        // With a smaller budget, the walk's refusal (the count is checked
        // against the budget before the first element).
        let options = Options::new().zero_sized_limit(2);
        let mut de = Deserializer::with_options(SliceRead::new(&bytes[..]), options);
        let e = write_record(&mut de, &plan, plan.root(), &mut Vec::new()).unwrap_err();
        assert_eq!(e.kind().code(), "count-too-large", "{e}");
    }
}
