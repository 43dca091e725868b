//! A sequence of fixed-size records held as its bytes ([`Table`]): how a
//! `seq<Point>` or `seq<[f32; 3]>` is read without work per record.

use std::borrow::Cow;

use super::plan::{Node, NodeId, Plan};
use super::{Value, decode};
use crate::error::Result;
use crate::read::SliceRead;

/// A `seq<T>` whose element `T` is a record of fixed size made of numbers
/// and bools (a struct of `f32`, an `[u8; 4]`, a tuple of those): the
/// elements' bytes as the input holds them, each exactly as chapter 3
/// writes it, read back one at a time by [`Table::get`].
#[derive(Clone)]
pub struct Table<'a> {
    plan: Plan,
    elem: NodeId,
    size: usize,
    len: usize,
    bytes: Cow<'a, [u8]>,
}

impl<'a> Table<'a> {
    pub(crate) fn new(
        plan: &Plan,
        elem: NodeId,
        size: usize,
        len: usize,
        bytes: Cow<'a, [u8]>,
    ) -> Table<'a> {
        Table {
            plan: plan.clone(),
            elem,
            size,
            len,
            bytes,
        }
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes per record.
    pub fn record_size(&self) -> usize {
        self.size
    }

    /// The records' bytes, back to back (what a numpy structured array
    /// views).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Record `i`, read into a value.
    pub fn get(&self, i: usize) -> Option<Value<'static>> {
        if i >= self.len {
            return None;
        }
        let bytes = &self.bytes[i * self.size..(i + 1) * self.size];
        let mut de = crate::Deserializer::new(SliceRead::new(bytes));
        // Checked when the table was read: these bytes are a valid record.
        decode::read(&mut de, &self.plan, self.elem)
            .ok()
            .map(Value::into_owned)
    }

    /// The records, read one by one.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Value<'static>> + '_ {
        (0..self.len).map(|i| self.get(i).unwrap_or(Value::Unit))
    }

    /// The same table owning its bytes.
    pub fn into_owned(self) -> Table<'static> {
        Table {
            plan: self.plan,
            elem: self.elem,
            size: self.size,
            len: self.len,
            bytes: Cow::Owned(self.bytes.into_owned()),
        }
    }

    pub(crate) fn elem(&self) -> NodeId {
        self.elem
    }
}

impl PartialEq for Table<'_> {
    fn eq(&self, other: &Table<'_>) -> bool {
        self.size == other.size && self.len == other.len && self.bytes == other.bytes
    }
}

impl std::fmt::Debug for Table<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Reads `bytes`, records of `plan`'s root back to back (a batch's
/// payload), as one [`Table`] when the root is a record of fixed size
/// ([`Plan::record_size`]); `None` when it is not. What a numpy
/// structured array views: no work per record but checking each bool.
///
/// ```
/// let plan = kiln::value::Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
/// let bytes = [9, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff, 1, 0, 0, 0, 2, 0, 0, 0];
/// let table = kiln::value::table(&bytes, &plan)?.expect("Point has a fixed size");
/// assert_eq!(table.len(), 2);
/// assert_eq!(table.get(1).unwrap().get("y"), Some(&kiln::value::Value::I32(2)));
/// let err = kiln::value::table(&bytes[..12], &plan).unwrap_err();
/// assert_eq!((err.kind().code(), err.offset(), err.record()), ("unexpected-end", Some(12), Some(1)));
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// # Errors
/// The first record's error, as reading records one by one reports it
/// (with the record's index, at its offset in `bytes`): a bool that is
/// not `00` or `01`, or a last record cut short.
pub fn table<'a>(bytes: &'a [u8], plan: &Plan) -> Result<Option<Table<'a>>> {
    let Some(size) = plan.record_size() else {
        return Ok(None);
    };
    let root = plan.root();
    if !bytes.len().is_multiple_of(size) || !bools_valid(plan, root, bytes, size) {
        // Read record by record, for the first error and its offset.
        for (i, start) in (0..bytes.len()).step_by(size).enumerate() {
            let record = &bytes[start..(start + size).min(bytes.len())];
            super::from_slice(record, plan)
                .map_err(|e| e.shifted(start as u64).in_record(i as u64))?;
        }
    }
    let len = bytes.len() / size;
    Ok(Some(Table::new(
        plan,
        root,
        size,
        len,
        Cow::Borrowed(bytes),
    )))
}

/// Whether every bool of every record in `bytes` is `00` or `01`.
pub(crate) fn bools_valid(plan: &Plan, elem: NodeId, bytes: &[u8], size: usize) -> bool {
    let mut offsets = Vec::new();
    bool_offsets(plan, elem, 0, &mut offsets);
    if offsets.is_empty() {
        return true;
    }
    bytes
        .chunks_exact(size)
        .all(|record| offsets.iter().all(|&o| record[o] <= 1))
}

/// The offsets of the bools of a record of node `id` that starts at `at`;
/// returns the record's size.
fn bool_offsets(plan: &Plan, id: NodeId, at: usize, out: &mut Vec<usize>) -> usize {
    match plan.node(id) {
        Node::Bool => {
            out.push(at);
            1
        }
        Node::Num(d) => d.size(),
        Node::Tuple(items) | Node::TupleStruct(_, items) | Node::Struct(_, items) => {
            let mut size = 0;
            for &i in items.iter() {
                size += bool_offsets(plan, i, at + size, out);
            }
            size
        }
        Node::Newtype(_, inner) => bool_offsets(plan, *inner, at, out),
        Node::Repeat(inner, n) => {
            let mut size = 0;
            for _ in 0..*n {
                size += bool_offsets(plan, *inner, at + size, out);
            }
            size
        }
        _ => 0,
    }
}

/// Appends the bytes of `value`, a record of node `id` (as read by the
/// element path), to `out`.
pub(crate) fn append(plan: &Plan, id: NodeId, value: &Value<'_>, out: &mut Vec<u8>) {
    match (plan.node(id), value) {
        (Node::Bool, Value::Bool(b)) => out.push(u8::from(*b)),
        (Node::Num(_), v) => append_number(v, out),
        (Node::Tuple(items) | Node::TupleStruct(_, items), Value::Tuple(vs)) => {
            for (&i, v) in items.iter().zip(vs) {
                append(plan, i, v, out);
            }
        }
        (Node::Struct(_, items), Value::Struct(s)) => {
            for (&i, v) in items.iter().zip(s.values()) {
                append(plan, i, v, out);
            }
        }
        (Node::Newtype(_, inner), v) => append(plan, *inner, v, out),
        (Node::Repeat(inner, _), Value::Tuple(vs)) => {
            for v in vs {
                append(plan, *inner, v, out);
            }
        }
        _ => {}
    }
}

pub(crate) fn append_number(v: &Value<'_>, out: &mut Vec<u8>) {
    match v {
        Value::U8(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I8(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U16(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I16(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U128(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I128(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::F32(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        Value::F64(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        _ => {}
    }
}
