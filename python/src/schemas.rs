//! Schemas by their text, parsed and compiled once per interpreter: a
//! program that reads many small frames of one type parses its schema
//! once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use kiln::value::Plan;
use pyo3::prelude::*;

use crate::error::OrRaise;
use crate::shapes::Shapes;

/// A schema ready to read and write: kiln's plan and its Python shapes.
pub(crate) struct Compiled {
    pub(crate) plan: Plan,
    pub(crate) shapes: Shapes,
}

/// More distinct schemas than this and the cache starts again.
const LIMIT: usize = 256;

static CACHE: Mutex<Option<HashMap<String, Arc<Compiled>>>> = Mutex::new(None);

/// The compiled schema of `text`, a canonical schema text.
pub(crate) fn get(py: Python<'_>, text: &str) -> PyResult<Arc<Compiled>> {
    if let Some(c) = lock().as_ref().and_then(|m| m.get(text)) {
        return Ok(c.clone());
    }
    let plan = Plan::parse(text).or_raise(py)?;
    Ok(insert(py, text, plan))
}

/// The compiled schema of `plan` (a frame's), by its text.
pub(crate) fn of_plan(py: Python<'_>, plan: &Plan) -> Arc<Compiled> {
    if let Some(c) = lock().as_ref().and_then(|m| m.get(plan.text())) {
        return c.clone();
    }
    insert(py, plan.text(), plan.clone())
}

fn insert(py: Python<'_>, text: &str, plan: Plan) -> Arc<Compiled> {
    let shapes = Shapes::new(py, plan.model());
    let compiled = Arc::new(Compiled { plan, shapes });
    let mut cache = lock();
    let map = cache.get_or_insert_with(HashMap::new);
    if map.len() >= LIMIT {
        map.clear();
    }
    map.insert(text.to_owned(), compiled.clone());
    compiled
}

fn lock() -> std::sync::MutexGuard<'static, Option<HashMap<String, Arc<Compiled>>>> {
    // A panic while holding the lock leaves a usable map behind.
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}
