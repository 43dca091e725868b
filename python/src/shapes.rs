//! A schema compiled for Python: the model's formats as a flat list of
//! nodes, with each struct's field names and each variant's name made into
//! Python strings once, so that a million records build their dicts from
//! the same key objects.

use std::collections::HashMap;
use std::sync::Arc;

use kiln::Dtype;
use kiln::schema::model::{Container, Field, Format, Model, Shape as ModelShape};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};

use crate::numpy;

/// A node's place in [`Shapes::nodes`].
pub(crate) type Id = usize;

/// One format of the schema.
pub(crate) enum Shape {
    Unit,
    Bool,
    Num(Dtype),
    Char,
    Str,
    Bytes,
    Option(Id),
    Seq(Id),
    /// `dict`: whether the keys have a hashable Python form, so the map
    /// is a `dict` (else a list of `(key, value)` tuples).
    Map {
        key: Id,
        value: Id,
        dict: bool,
    },
    Tuple(Box<[Id]>),
    /// `[T; N]`.
    Repeat(Id, usize),
    Shaped(Dtype),
    UnitStruct(String),
    Newtype(String, Id),
    TupleStruct(String, Box<[Id]>),
    Struct(Arc<Fields>),
    Enum(String, Box<[VariantShape]>),
}

/// The fields of a struct or struct variant.
pub(crate) struct Fields {
    /// The struct's (or variant's) name, for error paths.
    pub(crate) name: String,
    pub(crate) names: Box<[String]>,
    /// The same names as Python strings: the dict keys.
    pub(crate) keys: Box<[Py<PyString>]>,
    pub(crate) ids: Box<[Id]>,
    /// A dict of the keys (values None) that each record's dict is copied
    /// from: a copy is made at its final size, where a new dict would grow
    /// (and rehash) as its keys are set.
    pub(crate) template: Py<PyDict>,
}

pub(crate) struct VariantShape {
    pub(crate) name: String,
    pub(crate) key: Py<PyString>,
    /// The payload as a node of its own (the inner node of a newtype
    /// variant, a tuple or struct node for the others): what a reader
    /// reads after the variant's index; `None` for a unit variant.
    pub(crate) node: Option<Id>,
}

/// A compiled schema, and the numpy dtypes of its fixed-size records,
/// made when first needed.
pub(crate) struct Shapes {
    pub(crate) nodes: Vec<Shape>,
    pub(crate) root: Id,
    dtypes: Vec<PyOnceLock<Option<Py<PyAny>>>>,
}

impl Shapes {
    /// Compiles `model`.
    pub(crate) fn new(py: Python<'_>, model: &Model) -> Shapes {
        let mut b = Builder {
            py,
            model,
            nodes: Vec::new(),
            named: HashMap::new(),
        };
        let root = b.format(&model.root);
        let mut nodes: Vec<Shape> = b.nodes.into_iter().map(|n| n.expect("compiled")).collect();
        for i in 0..nodes.len() {
            if let Shape::Map { key, .. } = nodes[i] {
                let hashable = hashable(&nodes, key, &mut Vec::new());
                if let Shape::Map { dict, .. } = &mut nodes[i] {
                    *dict = hashable;
                }
            }
        }
        let dtypes = (0..nodes.len()).map(|_| PyOnceLock::new()).collect();
        Shapes {
            nodes,
            root,
            dtypes,
        }
    }

    pub(crate) fn node(&self, id: Id) -> &Shape {
        &self.nodes[id]
    }

    /// The size in bytes of a fixed-size record of node `id` made of
    /// numbers and bools (what a numpy structured dtype can hold), or
    /// `None`.
    fn size(&self, id: Id, visiting: &mut Vec<Id>) -> Option<usize> {
        if visiting.contains(&id) {
            return None;
        }
        visiting.push(id);
        let out = match self.node(id) {
            Shape::Bool => Some(1),
            // numpy has no 128-bit integers.
            Shape::Num(Dtype::I128 | Dtype::U128) => None,
            Shape::Num(d) => Some(d.size()),
            Shape::Newtype(_, inner) => self.size(*inner, visiting),
            Shape::Repeat(inner, n) => self.size(*inner, visiting)?.checked_mul(*n),
            Shape::Tuple(ids) | Shape::TupleStruct(_, ids) => self.sum(ids, visiting),
            Shape::Struct(f) => self.sum(&f.ids, visiting),
            _ => None,
        };
        visiting.pop();
        out.filter(|&s| s > 0)
    }

    fn sum(&self, ids: &[Id], visiting: &mut Vec<Id>) -> Option<usize> {
        ids.iter()
            .try_fold(0usize, |n, &i| n.checked_add(self.size(i, visiting)?))
    }

    /// The numpy dtype of a record of node `id` (a structured dtype for a
    /// struct or tuple, a subarray dtype for `[T; N]`), or `None` when the
    /// record is not one numpy can view.
    pub(crate) fn dtype<'py>(
        &self,
        py: Python<'py>,
        id: Id,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Some(d) = self.dtypes[id].get(py) {
            return Ok(d.as_ref().map(|d| d.bind(py).clone()));
        }
        let made = match self.size(id, &mut Vec::new()) {
            Some(_) => Some(self.make_dtype(py, id)?),
            None => None,
        };
        let stored = self.dtypes[id].get_or_init(py, || made.map(Bound::unbind));
        Ok(stored.as_ref().map(|d| d.bind(py).clone()))
    }

    fn make_dtype<'py>(&self, py: Python<'py>, id: Id) -> PyResult<Bound<'py, PyAny>> {
        let np_dtype = numpy::dtype_fn(py)?;
        match self.node(id) {
            Shape::Bool => np_dtype.call1(("?",)),
            Shape::Num(d) => np_dtype.call1((numpy::code(*d),)),
            Shape::Newtype(_, inner) => self.make_dtype(py, *inner),
            Shape::Repeat(inner, n) => {
                let item = self.make_dtype(py, *inner)?;
                np_dtype.call1(((item, (*n,)),))
            }
            Shape::Tuple(ids) | Shape::TupleStruct(_, ids) => {
                let names: Vec<String> = (0..ids.len()).map(|i| format!("f{i}")).collect();
                self.structured(py, &names, ids)
            }
            Shape::Struct(f) => self.structured(py, &f.names, &f.ids),
            _ => Err(pyo3::exceptions::PyTypeError::new_err(
                "not a fixed-size record",
            )),
        }
    }

    fn structured<'py>(
        &self,
        py: Python<'py>,
        names: &[String],
        ids: &[Id],
    ) -> PyResult<Bound<'py, PyAny>> {
        let formats = PyList::empty(py);
        let offsets = PyList::empty(py);
        let mut at = 0usize;
        for &i in ids {
            formats.append(self.make_dtype(py, i)?)?;
            offsets.append(at)?;
            at += self.size(i, &mut Vec::new()).unwrap_or(0);
        }
        let spec = PyDict::new(py);
        spec.set_item("names", names)?;
        spec.set_item("formats", formats)?;
        spec.set_item("offsets", offsets)?;
        spec.set_item("itemsize", at)?;
        numpy::dtype_fn(py)?.call1((spec,))
    }
}

/// Whether every value of node `id` has a hashable Python form (no dict,
/// list or numpy array in it).
fn hashable(nodes: &[Shape], id: Id, visiting: &mut Vec<Id>) -> bool {
    if visiting.contains(&id) {
        return true;
    }
    visiting.push(id);
    let out = match &nodes[id] {
        Shape::Unit
        | Shape::Bool
        | Shape::Num(_)
        | Shape::Char
        | Shape::Str
        | Shape::Bytes
        | Shape::UnitStruct(_) => true,
        Shape::Option(i) | Shape::Newtype(_, i) | Shape::Repeat(i, _) => {
            hashable(nodes, *i, visiting)
        }
        Shape::Tuple(ids) | Shape::TupleStruct(_, ids) => {
            ids.iter().all(|&i| hashable(nodes, i, visiting))
        }
        Shape::Enum(_, variants) => variants.iter().all(|v| v.node.is_none()),
        Shape::Seq(_) | Shape::Map { .. } | Shape::Shaped(_) | Shape::Struct(_) => false,
    };
    visiting.pop();
    out
}

struct Builder<'m, 'py> {
    py: Python<'py>,
    model: &'m Model,
    /// `None` while a container is being compiled (it may reach itself).
    nodes: Vec<Option<Shape>>,
    named: HashMap<&'m str, Id>,
}

impl<'m> Builder<'m, '_> {
    fn push(&mut self, shape: Shape) -> Id {
        self.nodes.push(Some(shape));
        self.nodes.len() - 1
    }

    fn format(&mut self, f: &'m Format) -> Id {
        let shape = match f {
            Format::Unit => Shape::Unit,
            Format::Bool => Shape::Bool,
            Format::I8 => Shape::Num(Dtype::I8),
            Format::I16 => Shape::Num(Dtype::I16),
            Format::I32 => Shape::Num(Dtype::I32),
            Format::I64 => Shape::Num(Dtype::I64),
            Format::I128 => Shape::Num(Dtype::I128),
            Format::U8 => Shape::Num(Dtype::U8),
            Format::U16 => Shape::Num(Dtype::U16),
            Format::U32 => Shape::Num(Dtype::U32),
            Format::U64 => Shape::Num(Dtype::U64),
            Format::U128 => Shape::Num(Dtype::U128),
            Format::F32 => Shape::Num(Dtype::F32),
            Format::F64 => Shape::Num(Dtype::F64),
            Format::Char => Shape::Char,
            Format::Str => Shape::Str,
            Format::Bytes => Shape::Bytes,
            Format::Option(inner) => Shape::Option(self.format(inner)),
            Format::Seq(inner) => Shape::Seq(self.format(inner)),
            Format::Map(k, v) => Shape::Map {
                key: self.format(k),
                value: self.format(v),
                dict: true,
            },
            Format::Tuple(items) => Shape::Tuple(self.formats(items)),
            Format::Array(inner, n) => Shape::Repeat(
                self.format(inner),
                usize::try_from(*n).unwrap_or(usize::MAX),
            ),
            Format::Shaped(d) => Shape::Shaped(*d),
            Format::Named(name) => return self.named(name),
        };
        self.push(shape)
    }

    fn formats(&mut self, items: &'m [Format]) -> Box<[Id]> {
        items.iter().map(|f| self.format(f)).collect()
    }

    fn named(&mut self, name: &'m str) -> Id {
        if let Some(&id) = self.named.get(name) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(None);
        self.named.insert(name, id);
        // A parsed model names every container it uses.
        let shape = match self.model.containers.get(name) {
            None => Shape::UnitStruct(name.to_owned()),
            Some(Container::Struct(shape)) => match shape {
                ModelShape::Unit => Shape::UnitStruct(name.to_owned()),
                ModelShape::Newtype(f) => Shape::Newtype(name.to_owned(), self.format(f)),
                ModelShape::Tuple(items) => {
                    Shape::TupleStruct(name.to_owned(), self.formats(items))
                }
                ModelShape::Struct(fields) => Shape::Struct(self.fields(name, fields)),
            },
            Some(Container::Enum(variants)) => {
                let mut out = Vec::with_capacity(variants.len());
                for v in variants {
                    let node = match &v.shape {
                        ModelShape::Unit => None,
                        ModelShape::Newtype(f) => Some(self.format(f)),
                        ModelShape::Tuple(items) => {
                            let ids = self.formats(items);
                            Some(self.push(Shape::Tuple(ids)))
                        }
                        ModelShape::Struct(fields) => {
                            let f = self.fields(&v.name, fields);
                            Some(self.push(Shape::Struct(f)))
                        }
                    };
                    out.push(VariantShape {
                        name: v.name.clone(),
                        key: PyString::intern(self.py, &v.name).unbind(),
                        node,
                    });
                }
                let variants = out.into_boxed_slice();
                Shape::Enum(name.to_owned(), variants)
            }
        };
        self.nodes[id] = Some(shape);
        id
    }

    fn fields(&mut self, name: &str, fields: &'m [Field]) -> Arc<Fields> {
        let ids = fields.iter().map(|f| self.format(&f.format)).collect();
        let keys: Box<[Py<PyString>]> = fields
            .iter()
            .map(|f| PyString::intern(self.py, &f.name).unbind())
            .collect();
        let template = PyDict::new(self.py);
        for k in keys.iter() {
            // Setting a str key to None in a new dict cannot fail.
            let _ = template.set_item(k.bind(self.py), self.py.None());
        }
        Arc::new(Fields {
            name: name.to_owned(),
            names: fields.iter().map(|f| f.name.clone()).collect(),
            keys,
            ids,
            template: template.unbind(),
        })
    }
}

/// What the schema has at node `id`, in the words of kiln's own
/// `value-mismatch` errors.
pub(crate) fn describe(shapes: &Shapes, id: Id) -> String {
    match shapes.node(id) {
        Shape::Unit => "unit".into(),
        Shape::Bool => "bool".into(),
        Shape::Num(d) => d.name().into(),
        Shape::Char => "char".into(),
        Shape::Str => "str".into(),
        Shape::Bytes => "bytes".into(),
        Shape::Option(_) => "an option".into(),
        Shape::Seq(_) => "a sequence".into(),
        Shape::Map { .. } => "a map".into(),
        Shape::Tuple(items) => format!("a tuple of {}", items.len()),
        Shape::Repeat(_, n) => format!("an array of {n}"),
        Shape::Shaped(d) => format!("array<{}>", d.name()),
        Shape::UnitStruct(name) => format!("unit struct {name}"),
        Shape::Newtype(name, _) => format!("newtype struct {name}"),
        Shape::TupleStruct(name, items) => format!("tuple struct {name} of {}", items.len()),
        Shape::Struct(f) => format!("struct {}", f.name),
        Shape::Enum(name, _) => format!("enum {name}"),
    }
}
