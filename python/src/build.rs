//! Records read straight into Python objects: a `kiln::value::Build`
//! that follows the schema node by node as kiln's walk hands it values,
//! so that no `Value` tree is built between the bytes and the dicts. The
//! choices are those of `to_py` (which it calls for leaves), so both
//! paths give the same objects.

use std::sync::Arc;

use kiln::value::{Build, Compound, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::shapes::{Fields, Id, Shape};
use crate::to_py::ToPy;

/// A compound value being filled.
pub(crate) enum Acc<'py> {
    List(Bound<'py, PyList>, Id),
    /// A tuple, tuple struct or `[T; N]` (its node), parts so far.
    Tuple(Vec<Bound<'py, PyAny>>, Id),
    /// A struct: its dict (copied from the template) and the field being
    /// read.
    Dict(Bound<'py, PyDict>, Arc<Fields>, usize),
    Map {
        key: Id,
        value: Id,
        dict: Option<Bound<'py, PyDict>>,
        pairs: Option<Bound<'py, PyList>>,
        pending: Option<Bound<'py, PyAny>>,
    },
    /// The walk and the schema disagree (never, for a plan of the same
    /// text); the error is kept.
    Broken,
}

/// Builds Python objects for the records of one schema.
pub(crate) struct PyBuild<'s, 'py, 'b> {
    pub(crate) conv: ToPy<'s, 'py, 'b>,
    /// The node of the next value.
    current: Id,
    /// The enums whose payload is being read.
    enums: Vec<Id>,
    /// The first failure of Python; the objects after it are `None`.
    err: Option<PyErr>,
}

impl<'s, 'py, 'b> PyBuild<'s, 'py, 'b> {
    pub(crate) fn new(conv: ToPy<'s, 'py, 'b>) -> Self {
        let current = conv.shapes.root;
        PyBuild {
            conv,
            current,
            enums: Vec::new(),
            err: None,
        }
    }

    /// Before each record: back at the root.
    pub(crate) fn start(&mut self) {
        self.current = self.conv.shapes.root;
        self.enums.clear();
    }

    /// The record just built, or the failure of Python while building it.
    pub(crate) fn finish(&mut self, out: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match self.err.take() {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    fn none(&self) -> Bound<'py, PyAny> {
        self.conv.py.None().into_bound(self.conv.py)
    }

    fn keep<T>(&mut self, r: PyResult<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.err.get_or_insert(e);
                None
            }
        }
    }

    fn or_none(&mut self, r: PyResult<Bound<'py, PyAny>>) -> Bound<'py, PyAny> {
        self.keep(r).unwrap_or_else(|| self.none())
    }

    /// The node of the next value, through options and newtypes (which
    /// add nothing to the bytes of their inner value).
    /// A schema can wrap a container in itself (`struct A(option<A>)`):
    /// at most one step per node is taken.
    fn resolve(&self) -> Id {
        let mut id = self.current;
        for _ in 0..self.conv.shapes.nodes.len() {
            match self.conv.shapes.node(id) {
                Shape::Option(inner) | Shape::Newtype(_, inner) => id = *inner,
                _ => return id,
            }
        }
        id
    }

    fn broken(&mut self) -> Acc<'py> {
        self.err.get_or_insert_with(|| {
            pyo3::exceptions::PyRuntimeError::new_err("kiln: the record and its schema disagree")
        });
        Acc::Broken
    }
}

impl<'de, 'py> Build<'de> for PyBuild<'_, 'py, '_> {
    type Out = Bound<'py, PyAny>;
    type Acc = Acc<'py>;

    fn leaf(&mut self, v: Value<'de>) -> Bound<'py, PyAny> {
        let id = self.resolve();
        let r = self.conv.value(id, &v);
        self.or_none(r)
    }

    fn str(&mut self, s: &str) -> Bound<'py, PyAny> {
        PyString::new(self.conv.py, s).into_any()
    }

    fn none(&mut self) -> Bound<'py, PyAny> {
        PyBuild::none(self)
    }

    fn some(&mut self, v: Bound<'py, PyAny>) -> Bound<'py, PyAny> {
        v
    }

    fn open(&mut self, _: Compound<'_>, len: usize) -> Acc<'py> {
        let py = self.conv.py;
        let id = self.resolve();
        match self.conv.shapes.node(id) {
            Shape::Seq(elem) => Acc::List(PyList::empty(py), *elem),
            Shape::Tuple(_) | Shape::TupleStruct(..) | Shape::Repeat(..) => {
                Acc::Tuple(Vec::with_capacity(len.min(64)), id)
            }
            Shape::Struct(f) => {
                let f = f.clone();
                match self.keep(f.template.bind(py).copy()) {
                    Some(d) => Acc::Dict(d, f, 0),
                    None => Acc::Broken,
                }
            }
            Shape::Map { key, value, dict } => Acc::Map {
                key: *key,
                value: *value,
                dict: dict.then(|| PyDict::new(py)),
                pairs: (!dict).then(|| PyList::empty(py)),
                pending: None,
            },
            _ => self.broken(),
        }
    }

    fn before(&mut self, acc: &mut Acc<'py>, i: usize) {
        self.current = match acc {
            Acc::List(_, elem) => *elem,
            Acc::Tuple(_, id) => match self.conv.shapes.node(*id) {
                Shape::Tuple(ids) | Shape::TupleStruct(_, ids) => match ids.get(i) {
                    Some(id) => *id,
                    None => return,
                },
                Shape::Repeat(item, _) => *item,
                _ => return,
            },
            Acc::Dict(_, f, at) => {
                *at = i;
                match f.ids.get(i) {
                    Some(id) => *id,
                    None => return,
                }
            }
            Acc::Map { key, value, .. } => {
                if i.is_multiple_of(2) {
                    *key
                } else {
                    *value
                }
            }
            Acc::Broken => return,
        };
    }

    fn push(&mut self, acc: &mut Acc<'py>, v: Bound<'py, PyAny>) {
        let r = match acc {
            Acc::List(list, _) => list.append(v),
            Acc::Tuple(items, _) => {
                items.push(v);
                Ok(())
            }
            Acc::Dict(d, f, at) => match f.keys.get(*at) {
                Some(k) => d.set_item(k.bind(self.conv.py), v),
                None => Ok(()),
            },
            Acc::Map {
                dict,
                pairs,
                pending,
                ..
            } => match pending.take() {
                None => {
                    *pending = Some(v);
                    Ok(())
                }
                Some(k) => match (dict, pairs) {
                    (Some(d), _) => d.set_item(k, v),
                    (_, Some(p)) => {
                        PyTuple::new(self.conv.py, [k, v]).and_then(|pair| p.append(pair))
                    }
                    _ => Ok(()),
                },
            },
            Acc::Broken => Ok(()),
        };
        self.keep(r);
    }

    fn close(&mut self, acc: Acc<'py>) -> Bound<'py, PyAny> {
        match acc {
            Acc::List(list, _) => list.into_any(),
            Acc::Tuple(items, _) => {
                let r = PyTuple::new(self.conv.py, items).map(Bound::into_any);
                self.or_none(r)
            }
            Acc::Dict(d, ..) => d.into_any(),
            Acc::Map { dict, pairs, .. } => match (dict, pairs) {
                (Some(d), _) => d.into_any(),
                (_, Some(p)) => p.into_any(),
                _ => self.none(),
            },
            Acc::Broken => self.none(),
        }
    }

    fn variant_open(&mut self, index: u32) {
        let id = self.resolve();
        self.enums.push(id);
        if let Shape::Enum(_, variants) = self.conv.shapes.node(id)
            && let Some(node) = variants.get(index as usize).and_then(|v| v.node)
        {
            self.current = node;
        }
    }

    fn variant(
        &mut self,
        index: u32,
        _: &str,
        payload: Option<Bound<'py, PyAny>>,
    ) -> Bound<'py, PyAny> {
        let py = self.conv.py;
        let id = match payload {
            Some(_) => self.enums.pop(),
            None => Some(self.resolve()),
        };
        let key = id
            .and_then(|id| match self.conv.shapes.node(id) {
                Shape::Enum(_, variants) => variants.get(index as usize),
                _ => None,
            })
            .map(|v| v.key.bind(py).clone());
        let Some(key) = key else {
            self.broken();
            return self.none();
        };
        match payload {
            None => key.into_any(),
            Some(p) => {
                let d = PyDict::new(py);
                let r = d.set_item(key, p).map(|()| d.into_any());
                self.or_none(r)
            }
        }
    }
}
