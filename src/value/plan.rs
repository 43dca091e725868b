//! A schema compiled for reading and writing values without the Rust
//! type: every format of the model becomes a node, every container name a
//! node index, so that a reader follows indices instead of looking names
//! up, and every name it hands out is shared, not copied.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::model::{Container, Format, Model, Shape};
use crate::schema::{Canonical, Fingerprint, Schema};

/// Index of a node in a [`Plan`].
pub(crate) type NodeId = u32;

/// The names of a struct (or struct variant) and of its fields, shared by
/// every value read with it.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct Names {
    pub(crate) container: Arc<str>,
    pub(crate) fields: Box<[Arc<str>]>,
    /// Each field's JSON key, escaped and quoted, with its colon.
    keys: Box<[Box<[u8]>]>,
}

impl Names {
    pub(crate) fn new(container: &str, fields: impl IntoIterator<Item = Arc<str>>) -> Names {
        let fields: Box<[Arc<str>]> = fields.into_iter().collect();
        let keys = fields
            .iter()
            .map(|f| {
                let mut key = Vec::with_capacity(f.len() + 3);
                super::json_out::escape_into(&mut key, f);
                key.push(b':');
                key.into_boxed_slice()
            })
            .collect();
        Names {
            container: container.into(),
            fields,
            keys,
        }
    }

    /// Field `i`'s JSON key (`"name":`).
    pub(crate) fn key(&self, i: usize) -> &[u8] {
        &self.keys[i]
    }
}

/// An enum variant: its name and what follows its index.
#[derive(Debug)]
pub(crate) struct VariantPlan {
    pub(crate) name: Arc<str>,
    pub(crate) shape: VariantShape,
}

#[derive(Debug)]
pub(crate) enum VariantShape {
    Unit,
    Newtype(NodeId),
    Tuple(Box<[NodeId]>),
    Struct(Arc<Names>, Box<[NodeId]>),
}

/// How a sequence is read: element by element, as one block of numbers,
/// or as one run of fixed-size records.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SeqForm {
    Plain,
    Block(Dtype),
    /// Elements of this many bytes each, every byte pattern a value but
    /// the bools, nested `depth` levels.
    Table {
        size: usize,
        depth: u32,
    },
}

/// One format of the schema.
#[derive(Debug)]
pub(crate) enum Node {
    Unit,
    Bool,
    Num(Dtype),
    Char,
    Str,
    Bytes,
    Option(NodeId),
    Seq(NodeId, SeqForm),
    Map(NodeId, NodeId),
    Tuple(Box<[NodeId]>),
    /// `[T; N]`.
    Repeat(NodeId, u64),
    Shaped(Dtype),
    UnitStruct(Arc<str>),
    Newtype(Arc<str>, NodeId),
    TupleStruct(Arc<str>, Box<[NodeId]>),
    Struct(Arc<Names>, Box<[NodeId]>),
    Enum(Arc<str>, Box<[VariantPlan]>),
}

/// A schema ready to read and write [`Value`](super::Value)s: parsed from
/// a canonical text (a frame's, a file's), built from a
/// [`Model`], or described from a Rust type.
///
/// Cheap to clone (the compiled nodes are shared).
///
/// ```
/// let plan = kiln::value::Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
/// assert_eq!(plan.fingerprint().to_string(), "bebd985ebacd608a");
/// # Ok::<(), kiln::Error>(())
/// ```
#[derive(Clone)]
pub struct Plan(pub(crate) Arc<PlanInner>);

pub(crate) struct PlanInner {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
    pub(crate) schema: Canonical,
    /// The root compiled for printing JSON, on first use.
    json: std::sync::OnceLock<Option<super::json_program::Program>>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("fingerprint", &self.fingerprint())
            .field("text", &self.text())
            .finish()
    }
}

impl Plan {
    /// Parses a canonical schema text (`spec/05-schema.md`).
    ///
    /// # Errors
    /// [`ErrorKind::SchemaText`] at the byte of the text where it stops
    /// being canonical, as [`crate::schema::parse`].
    pub fn parse(text: &str) -> Result<Plan> {
        let model = crate::schema::parse(text)?;
        Ok(Plan::build(&model, Canonical::from_text(text)))
    }

    /// The plan of a model.
    pub fn from_model(model: &Model) -> Plan {
        Plan::build(model, Canonical::from_model(model.clone()))
    }

    /// The plan of `T`'s schema, to read what `T` wrote without `T`.
    ///
    /// # Errors
    /// [`ErrorKind::NoSchema`] if `T`'s schema cannot be described.
    pub fn of<T: Schema + ?Sized>() -> Result<Plan> {
        let schema = crate::schema::schema_of::<T>()?;
        match schema.model() {
            Some(model) => Ok(Plan::build(model, schema.clone())),
            None => Err(Error::new(ErrorKind::NoSchema {
                type_name: std::any::type_name::<T>().into(),
                reason: "its schema text does not parse as canonical text".into(),
            })),
        }
    }

    /// The canonical text.
    pub fn text(&self) -> &str {
        self.0.schema.text().unwrap_or("")
    }

    /// The fingerprint of the text.
    pub fn fingerprint(&self) -> Fingerprint {
        self.0.schema.fingerprint()
    }

    /// The model the plan was built from.
    pub fn model(&self) -> &Model {
        self.0
            .schema
            .model()
            .expect("a plan is always built from a model")
    }

    /// The schema as a frame carries it.
    pub fn canonical(&self) -> &Canonical {
        &self.0.schema
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.0.nodes[id as usize]
    }

    /// The size of every record, when the root is a record of fixed size
    /// made of numbers and bools (and tuples, `[T; N]` and structs of
    /// them): then records back to back read as a [`Table`](super::Table)
    /// ([`super::table`]).
    ///
    /// ```
    /// let plan = kiln::value::Plan::parse("root Point\nstruct Point { x: i32, y: i32 }\n")?;
    /// assert_eq!(plan.record_size(), Some(8));
    /// assert_eq!(kiln::value::Plan::parse("root str\n")?.record_size(), None);
    /// # Ok::<(), kiln::Error>(())
    /// ```
    pub fn record_size(&self) -> Option<usize> {
        fixed(&self.0.nodes, self.0.root, &mut Vec::new())
            .map(|(size, _)| size)
            .filter(|&size| size > 0)
    }

    pub(crate) fn root(&self) -> NodeId {
        self.0.root
    }

    /// The field paths of the shaped arrays of every value of this plan,
    /// in directory order and named as [`Value::arrays`](super::Value::arrays)
    /// names them, when they are the same for every value: `None` if an
    /// array sits under an option, a sequence, a map or an enum (then each
    /// record must be read to name its arrays).
    pub(crate) fn static_array_paths(&self) -> Option<Vec<String>> {
        let holds = self.holding_arrays();
        let mut walk = PathWalk {
            plan: self,
            holds: &holds,
            path: String::new(),
            out: Vec::new(),
        };
        walk.visit(self.root(), 0)?;
        Some(walk.out)
    }

    /// For each node, whether a value of it may hold a shaped array.
    fn holding_arrays(&self) -> Vec<bool> {
        let nodes = &self.0.nodes;
        let mut holds: Vec<bool> = nodes.iter().map(|n| matches!(n, Node::Shaped(_))).collect();
        // Until nothing changes: at most one round per node.
        loop {
            let mut changed = false;
            for (i, node) in nodes.iter().enumerate() {
                if !holds[i] && children(node).any(|c| holds[c as usize]) {
                    holds[i] = true;
                    changed = true;
                }
            }
            if !changed {
                return holds;
            }
        }
    }

    /// The root's JSON program, where it has one.
    pub(crate) fn json_program(&self) -> Option<&super::json_program::Program> {
        self.0
            .json
            .get_or_init(|| super::json_program::Program::compile(self, self.0.root))
            .as_ref()
    }

    fn build(model: &Model, schema: Canonical) -> Plan {
        let mut b = Builder {
            nodes: Vec::new(),
            ids: BTreeMap::new(),
        };
        // Containers first, so that names resolve to indices (a recursive
        // type refers to its own index).
        for name in model.containers.keys() {
            let id = b.push(Node::Unit);
            b.ids.insert(name.clone(), id);
        }
        for (name, container) in &model.containers {
            let node = b.container(name, container);
            let id = b.ids[name];
            b.nodes[id as usize] = node;
        }
        let root = b.format(&model.root);
        let mut nodes = b.nodes;
        forms(&mut nodes);
        Plan(Arc::new(PlanInner {
            nodes,
            root,
            schema,
            json: std::sync::OnceLock::new(),
        }))
    }
}

struct Builder {
    nodes: Vec<Node>,
    ids: BTreeMap<String, NodeId>,
}

impl Builder {
    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        (self.nodes.len() - 1) as NodeId
    }

    fn formats(&mut self, formats: &[Format]) -> Box<[NodeId]> {
        formats.iter().map(|f| self.format(f)).collect()
    }

    fn names(&mut self, container: &str, fields: &[crate::schema::model::Field]) -> Arc<Names> {
        Arc::new(Names::new(
            container,
            fields.iter().map(|f| Arc::from(f.name.as_str())),
        ))
    }

    fn container(&mut self, name: &str, container: &Container) -> Node {
        match container {
            Container::Struct(shape) => match shape {
                Shape::Unit => Node::UnitStruct(name.into()),
                Shape::Newtype(f) => {
                    let inner = self.format(f);
                    Node::Newtype(name.into(), inner)
                }
                Shape::Tuple(items) => {
                    let items = self.formats(items);
                    Node::TupleStruct(name.into(), items)
                }
                Shape::Struct(fields) => {
                    let names = self.names(name, fields);
                    let formats: Vec<Format> = fields.iter().map(|f| f.format.clone()).collect();
                    Node::Struct(names, self.formats(&formats))
                }
            },
            Container::Enum(variants) => {
                let variants = variants
                    .iter()
                    .map(|v| VariantPlan {
                        name: v.name.as_str().into(),
                        shape: match &v.shape {
                            Shape::Unit => VariantShape::Unit,
                            Shape::Newtype(f) => VariantShape::Newtype(self.format(f)),
                            Shape::Tuple(items) => VariantShape::Tuple(self.formats(items)),
                            Shape::Struct(fields) => {
                                let names = self.names(&v.name, fields);
                                let formats: Vec<Format> =
                                    fields.iter().map(|f| f.format.clone()).collect();
                                VariantShape::Struct(names, self.formats(&formats))
                            }
                        },
                    })
                    .collect();
                Node::Enum(name.into(), variants)
            }
        }
    }

    fn format(&mut self, format: &Format) -> NodeId {
        let node = match format {
            Format::Unit => Node::Unit,
            Format::Bool => Node::Bool,
            Format::I8 => Node::Num(Dtype::I8),
            Format::I16 => Node::Num(Dtype::I16),
            Format::I32 => Node::Num(Dtype::I32),
            Format::I64 => Node::Num(Dtype::I64),
            Format::I128 => Node::Num(Dtype::I128),
            Format::U8 => Node::Num(Dtype::U8),
            Format::U16 => Node::Num(Dtype::U16),
            Format::U32 => Node::Num(Dtype::U32),
            Format::U64 => Node::Num(Dtype::U64),
            Format::U128 => Node::Num(Dtype::U128),
            Format::F32 => Node::Num(Dtype::F32),
            Format::F64 => Node::Num(Dtype::F64),
            Format::Char => Node::Char,
            Format::Str => Node::Str,
            Format::Bytes => Node::Bytes,
            Format::Option(inner) => Node::Option(self.format(inner)),
            Format::Seq(inner) => Node::Seq(self.format(inner), SeqForm::Plain),
            Format::Map(k, v) => {
                let k = self.format(k);
                Node::Map(k, self.format(v))
            }
            Format::Tuple(items) => Node::Tuple(self.formats(items)),
            Format::Array(inner, n) => Node::Repeat(self.format(inner), *n),
            Format::Shaped(dtype) => Node::Shaped(*dtype),
            Format::Named(name) => return self.ids[name],
        };
        self.push(node)
    }
}

/// What a fixed-size record is: its size in bytes and its nesting depth,
/// or `None` for a format whose values differ in size, need checks other
/// than a bool's, or reach a container that reaches itself.
fn fixed(nodes: &[Node], id: NodeId, visiting: &mut Vec<NodeId>) -> Option<(usize, u32)> {
    if visiting.contains(&id) || visiting.len() > 64 {
        return None;
    }
    visiting.push(id);
    let all = |ids: &[NodeId], visiting: &mut Vec<NodeId>| -> Option<(usize, u32)> {
        let mut size = 0usize;
        let mut depth = 0u32;
        for &i in ids {
            let (s, d) = fixed(nodes, i, visiting)?;
            size = size.checked_add(s)?;
            depth = depth.max(d);
        }
        Some((size, depth))
    };
    let out = match &nodes[id as usize] {
        Node::Unit | Node::UnitStruct(_) => Some((0, 0)),
        Node::Bool => Some((1, 0)),
        Node::Num(d) => Some((d.size(), 0)),
        Node::Tuple(items) | Node::TupleStruct(_, items) | Node::Struct(_, items) => {
            all(items, visiting).map(|(s, d)| (s, d + 1))
        }
        Node::Newtype(_, inner) => fixed(nodes, *inner, visiting).map(|(s, d)| (s, d + 1)),
        Node::Repeat(inner, n) => {
            let (s, d) = fixed(nodes, *inner, visiting)?;
            let size = s.checked_mul(usize::try_from(*n).ok()?)?;
            // Large arrays of arrays are left to the element path.
            (size <= 1 << 16).then_some((size, d + 1))
        }
        _ => None,
    };
    visiting.pop();
    out
}

/// Chooses how each sequence is read.
fn forms(nodes: &mut [Node]) {
    for i in 0..nodes.len() {
        let Node::Seq(elem, _) = nodes[i] else {
            continue;
        };
        let form = match &nodes[elem as usize] {
            Node::Num(d) => SeqForm::Block(*d),
            _ => match fixed(nodes, elem, &mut Vec::new()) {
                Some((size, depth)) if size > 0 => SeqForm::Table { size, depth },
                _ => SeqForm::Plain,
            },
        };
        nodes[i] = Node::Seq(elem, form);
    }
}

/// The nodes a value of `node` may hold directly.
fn children(node: &Node) -> Box<dyn Iterator<Item = NodeId> + '_> {
    match node {
        Node::Option(i) | Node::Seq(i, _) | Node::Repeat(i, _) | Node::Newtype(_, i) => {
            Box::new(std::iter::once(*i))
        }
        Node::Map(k, v) => Box::new([*k, *v].into_iter()),
        Node::Tuple(items) | Node::TupleStruct(_, items) | Node::Struct(_, items) => {
            Box::new(items.iter().copied())
        }
        Node::Enum(_, variants) => Box::new(variants.iter().flat_map(|v| {
            match &v.shape {
                VariantShape::Unit => &[][..],
                VariantShape::Newtype(i) => std::slice::from_ref(i),
                VariantShape::Tuple(items) | VariantShape::Struct(_, items) => items,
            }
            .iter()
            .copied()
        })),
        _ => Box::new(std::iter::empty()),
    }
}

/// The walk of [`Plan::static_array_paths`]: it enters only nodes that may
/// hold arrays, so its work is bounded by the arrays it names (at most
/// [`PathWalk::MAX`]) times the depth, whatever the schema text.
struct PathWalk<'p> {
    plan: &'p Plan,
    holds: &'p [bool],
    path: String,
    out: Vec<String>,
}

impl PathWalk<'_> {
    const MAX: usize = 1 << 16;

    fn step(&mut self, name: &dyn std::fmt::Display, item: NodeId, depth: usize) -> Option<()> {
        if !self.holds[item as usize] {
            return Some(());
        }
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(&name.to_string());
        let r = self.visit(item, depth + 1);
        self.path.truncate(len);
        r
    }

    fn visit(&mut self, id: NodeId, depth: usize) -> Option<()> {
        // A plan from a hostile text may recurse without end.
        if depth > self.plan.0.nodes.len() || self.out.len() >= Self::MAX {
            return None;
        }
        match self.plan.node(id) {
            Node::Shaped(_) => self.out.push(self.path.clone()),
            Node::Newtype(_, inner) => self.visit(*inner, depth + 1)?,
            Node::Tuple(items) | Node::TupleStruct(_, items) => {
                for (i, item) in items.iter().enumerate() {
                    self.step(&i, *item, depth)?;
                }
            }
            Node::Repeat(item, n) if self.holds[*item as usize] => {
                for i in 0..*n {
                    self.step(&i, *item, depth)?;
                }
            }
            Node::Struct(names, fields) => {
                for (name, item) in names.fields.iter().zip(fields.iter()) {
                    self.step(name, *item, depth)?;
                }
            }
            // The arrays of these differ from value to value.
            Node::Option(_) | Node::Seq(..) | Node::Map(..) | Node::Enum(..)
                if self.holds[id as usize] =>
            {
                return None;
            }
            _ => {}
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::Plan;

    fn paths(text: &str) -> Option<Vec<String>> {
        Plan::parse(text).unwrap().static_array_paths()
    }

    #[test]
    fn arrays_at_fixed_places_are_named_from_the_schema() {
        let text = "root Fixed\n\
            struct Fixed { label: str, pair: (array<u8>, u32, array<i16>), inner: Inner, wrapped: Wrap, two: [array<u64>; 2] }\n\
            struct Inner { image: array<f32> }\n\
            struct Wrap(array<u8>)\n";
        assert_eq!(
            paths(text).unwrap(),
            [
                "pair.0",
                "pair.2",
                "inner.image",
                "wrapped",
                "two.0",
                "two.1"
            ]
        );
        assert_eq!(
            paths("root (u8, [u32; 4000000000])\n").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(paths("root array<u8>\n").unwrap(), [""]);
    }

    #[test]
    fn arrays_under_options_sequences_maps_and_enums_are_not() {
        for field in [
            "option<array<u8>>",
            "seq<array<u8>>",
            "map<str, array<u8>>",
            "E",
            "[array<u8>; 100000]",
        ] {
            let e = if field == "E" {
                "enum E { A, B(array<u8>) }\n"
            } else {
                ""
            };
            let text = format!("root S\n{e}struct S {{ a: array<u8>, b: {field} }}\n");
            assert_eq!(paths(&text), None, "{field}");
        }
        let text = "root S\nstruct S { a: array<u8>, b: option<u8>, c: seq<str> }\n";
        assert_eq!(paths(text).unwrap(), ["a"]);
    }

    /// Twelve levels of ten fields: 10^12 paths to one array, or to none.
    /// The walk stops at its cap, or never enters the fields.
    #[test]
    fn a_text_with_endless_paths_is_not_walked_to_the_end() {
        for leaf in ["array<u8>", "u8"] {
            let mut text = String::from("root A00\n");
            for level in 0..12 {
                let fields: Vec<String> = (0..10)
                    .map(|f| format!("f{f}: A{:02}", level + 1))
                    .collect();
                text += &format!("struct A{level:02} {{ {} }}\n", fields.join(", "));
            }
            text += &format!("struct A12 {{ x: {leaf} }}\n");
            let found = paths(&text);
            match leaf {
                "u8" => assert_eq!(found, Some(vec![])),
                _ => assert_eq!(found, None),
            }
        }
    }
}
