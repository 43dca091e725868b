//! Planning a resolution: the rules of `spec/12-evolution.md` (12.3)
//! applied to a writer's model and a reader's, into the steps
//! `crate::de` reads by and the differences a report lists.

use std::collections::{HashMap, HashSet};

use super::numbers::{number, promotion};
use super::report::{Difference, Report, Verdict};
use crate::de::{FieldStep, Payload, Resolution, Skip, SkipId, Step, StepId, VariantStep};
use crate::schema::Fingerprint;
use crate::schema::model::{Container, Field, Format, Model, Shape, Variant};
use crate::schema::text::write_format;

// ---------------------------------------------------------------------------
// The planner
// ---------------------------------------------------------------------------

/// What planning found: the resolution (complete only when nothing was
/// refused), the differences, and why each refusal is one.
pub(super) struct Planned {
    pub(super) resolution: Resolution,
    differences: Vec<Difference>,
    pub(super) refusals: Vec<Difference>,
    pub(super) reasons: Vec<String>,
}

impl Planned {
    pub(super) fn report(self, writer: Fingerprint, reader: Fingerprint) -> Report {
        Report {
            writer,
            reader,
            differences: self.differences,
        }
    }
}

/// The step every unchanged value shares.
const SAME: StepId = 0;

pub(super) struct Planner<'m> {
    writer: &'m Model,
    reader: &'m Model,
    /// Whether the reader's model says which fields have defaults (it was
    /// described from the Rust type, not parsed from text).
    defaults_known: bool,
    steps: Vec<Step>,
    skips: Vec<Skip>,
    /// Named pairs planned or being planned (recursive types).
    pairs: HashMap<(&'m str, &'m str), Option<StepId>>,
    skip_of: HashMap<&'m str, SkipId>,
    /// Pairs of containers known (or assumed, while comparing) equal.
    same_pairs: HashSet<(&'m str, &'m str)>,
    differences: Vec<Difference>,
    refusals: Vec<Difference>,
    reasons: Vec<String>,
}

fn text_of(format: &Format) -> String {
    let mut out = String::new();
    write_format(&mut out, format);
    out
}

impl<'m> Planner<'m> {
    pub(super) fn new(writer: &'m Model, reader: &'m Model, defaults_known: bool) -> Planner<'m> {
        Planner {
            writer,
            reader,
            defaults_known,
            steps: vec![Step::Same],
            skips: Vec::new(),
            pairs: HashMap::new(),
            skip_of: HashMap::new(),
            same_pairs: HashSet::new(),
            differences: Vec::new(),
            refusals: Vec::new(),
            reasons: Vec::new(),
        }
    }

    pub(super) fn plan(mut self) -> Planned {
        let (w, r) = (&self.writer.root, &self.reader.root);
        let path = match r {
            Format::Named(name) => name.clone(),
            _ => "root".to_owned(),
        };
        let root = self.resolve(w, r, &path).unwrap_or(SAME);
        Planned {
            resolution: Resolution {
                steps: self.steps,
                skips: self.skips,
                root,
            },
            differences: self.differences,
            refusals: self.refusals,
            reasons: self.reasons,
        }
    }

    fn note(&mut self, path: &str, rule: &'static str, verdict: Verdict, w: String, r: String) {
        let d = Difference {
            path: path.to_owned(),
            rule,
            verdict,
            writer: w,
            reader: r,
        };
        if verdict == Verdict::Refused {
            self.refusals.push(d.clone());
        }
        self.differences.push(d);
    }

    fn refuse(&mut self, path: &str, rule: &'static str, w: &Format, r: &Format, why: String) {
        self.note(path, rule, Verdict::Refused, text_of(w), text_of(r));
        self.reasons.push(why);
    }

    fn push(&mut self, step: Step) -> StepId {
        self.steps.push(step);
        (self.steps.len() - 1) as StepId
    }

    fn container_w(&self, name: &str) -> Option<&'m Container> {
        self.writer.containers.get(name)
    }

    fn container_r(&self, name: &str) -> Option<&'m Container> {
        self.reader.containers.get(name)
    }

    // ----- sameness -----

    /// Whether `w` and `r` are the same format: same bytes, same names,
    /// so that the reader's `Deserialize` can read the writer's bytes as
    /// they are. Container names may differ (a renamed type).
    fn same(&mut self, w: &'m Format, r: &'m Format) -> bool {
        use Format as F;
        match (w, r) {
            (F::Named(a), F::Named(b)) => {
                if self.same_pairs.contains(&(a.as_str(), b.as_str())) {
                    return true;
                }
                let (Some(ca), Some(cb)) = (self.container_w(a), self.container_r(b)) else {
                    return false;
                };
                self.same_pairs.insert((a.as_str(), b.as_str()));
                let same = match (ca, cb) {
                    (Container::Struct(x), Container::Struct(y)) => self.same_shape(x, y),
                    (Container::Enum(x), Container::Enum(y)) => {
                        x.len() == y.len()
                            && x.iter().zip(y).all(|(v, u)| {
                                v.name == u.name && self.same_shape(&v.shape, &u.shape)
                            })
                    }
                    _ => false,
                };
                if !same {
                    self.same_pairs.remove(&(a.as_str(), b.as_str()));
                }
                same
            }
            (F::Option(a), F::Option(b)) | (F::Seq(a), F::Seq(b)) => self.same(a, b),
            (F::Map(a, b), F::Map(c, d)) => self.same(a, c) && self.same(b, d),
            (F::Tuple(a), F::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.same(x, y))
            }
            (F::Array(a, n), F::Array(b, m)) => n == m && self.same(a, b),
            (F::Named(_), _) | (_, F::Named(_)) => false,
            _ => w == r,
        }
    }

    fn same_shape(&mut self, a: &'m Shape, b: &'m Shape) -> bool {
        match (a, b) {
            (Shape::Unit, Shape::Unit) => true,
            (Shape::Newtype(x), Shape::Newtype(y)) => self.same(x, y),
            (Shape::Tuple(x), Shape::Tuple(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| self.same(p, q))
            }
            (Shape::Struct(x), Shape::Struct(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(f, g)| f.name == g.name && self.same(&f.format, &g.format))
            }
            _ => false,
        }
    }

    // ----- resolution -----

    /// Plans `w` (writer) onto `r` (reader) at `path`; `None` when refused
    /// (the refusal is noted, and planning goes on to find the others).
    fn resolve(&mut self, w: &'m Format, r: &'m Format, path: &str) -> Option<StepId> {
        use Format as F;
        if self.same(w, r) {
            return Some(SAME);
        }
        // Newtypes: the bytes are the inner value's either way.
        if let F::Named(rn) = r
            && let Some(Container::Struct(Shape::Newtype(ri))) = self.container_r(rn)
        {
            if let F::Named(wn) = w
                && let Some(Container::Struct(Shape::Newtype(wi))) = self.container_w(wn)
            {
                self.renamed(wn, rn, path);
                let inner = self.resolve(wi, ri, path)?;
                return Some(self.push(Step::Newtype(rn.as_str().into(), inner)));
            }
            self.note(
                path,
                "newtype-wrapped",
                Verdict::Allowed,
                text_of(w),
                text_of(r),
            );
            let inner = self.resolve(w, ri, path)?;
            return Some(self.push(Step::Newtype(rn.as_str().into(), inner)));
        }
        if let F::Named(wn) = w
            && let Some(Container::Struct(Shape::Newtype(wi))) = self.container_w(wn)
        {
            self.note(
                path,
                "newtype-unwrapped",
                Verdict::Allowed,
                text_of(w),
                text_of(r),
            );
            return self.resolve(wi, r, path);
        }
        match (w, r) {
            (F::Option(wi), F::Option(ri)) => {
                let inner = self.resolve(wi, ri, path)?;
                Some(self.push(Step::Option(inner)))
            }
            (_, F::Option(ri)) => {
                self.note(
                    path,
                    "into-option",
                    Verdict::Allowed,
                    text_of(w),
                    text_of(r),
                );
                let inner = self.resolve(w, ri, path)?;
                Some(self.push(Step::IntoSome(inner)))
            }
            (F::Seq(wi), F::Seq(ri)) => {
                let inner = self.resolve(wi, ri, &format!("{path}[]"))?;
                Some(self.push(Step::Seq(inner)))
            }
            (F::Array(wi, n), F::Seq(ri)) => {
                self.note(
                    path,
                    "array-to-seq",
                    Verdict::Allowed,
                    text_of(w),
                    text_of(r),
                );
                let inner = self.resolve(wi, ri, &format!("{path}[]"))?;
                Some(self.push(Step::ArrayToSeq(inner, *n)))
            }
            (F::Array(wi, n), F::Array(ri, m)) if n == m => {
                let inner = self.resolve(wi, ri, &format!("{path}[]"))?;
                Some(self.push(Step::Repeat(inner, *n)))
            }
            (F::Tuple(_) | F::Array(..), F::Tuple(_) | F::Array(..)) => {
                let ws = fixed_items(w);
                let rs = fixed_items(r);
                if ws.len() != rs.len() {
                    let why = format!("{} elements against {}", ws.len(), rs.len());
                    self.refuse(path, "length-changed", w, r, why);
                    return None;
                }
                let items = self.items(&ws, &rs, path)?;
                Some(self.push(Step::Tuple(items)))
            }
            (F::Map(wk, wv), F::Map(rk, rv)) => {
                let k = self.resolve(wk, rk, &format!("{path}{{key}}"));
                let v = self.resolve(wv, rv, &format!("{path}{{value}}"));
                Some(self.push(Step::Map(k?, v?)))
            }
            (F::Str, F::Bytes) => {
                self.note(
                    path,
                    "str-to-bytes",
                    Verdict::Allowed,
                    text_of(w),
                    text_of(r),
                );
                Some(self.push(Step::StrToBytes))
            }
            (F::Named(wn), F::Named(rn)) => self.named(wn, rn, w, r, path),
            _ => {
                if let (Some(from), Some(to)) = (number(w), number(r)) {
                    return match promotion(from, to) {
                        Ok(rule) => {
                            self.note(path, rule, Verdict::Allowed, text_of(w), text_of(r));
                            Some(self.push(Step::Promote { from, to }))
                        }
                        Err(why) => {
                            self.refuse(path, "number-narrowed", w, r, why);
                            None
                        }
                    };
                }
                let why = format!(
                    "no rule turns {} into {}",
                    describe(w, self.writer),
                    describe(r, self.reader)
                );
                self.refuse(path, "kind-changed", w, r, why);
                None
            }
        }
    }

    fn items(&mut self, ws: &[&'m Format], rs: &[&'m Format], path: &str) -> Option<Box<[StepId]>> {
        let mut out = Vec::with_capacity(ws.len());
        let mut ok = true;
        for (i, (w, r)) in ws.iter().zip(rs).enumerate() {
            match self.resolve(w, r, &format!("{path}.{i}")) {
                Some(id) => out.push(id),
                None => ok = false,
            }
        }
        ok.then(|| out.into_boxed_slice())
    }

    fn renamed(&mut self, wn: &str, rn: &str, path: &str) {
        if wn != rn {
            self.note(
                path,
                "container-renamed",
                Verdict::Allowed,
                wn.into(),
                rn.into(),
            );
        }
    }

    /// Two named containers (neither a newtype struct).
    fn named(
        &mut self,
        wn: &'m str,
        rn: &'m str,
        w: &'m Format,
        r: &'m Format,
        path: &str,
    ) -> Option<StepId> {
        if let Some(planned) = self.pairs.get(&(wn, rn)) {
            return *planned;
        }
        let (Some(wc), Some(rc)) = (self.container_w(wn), self.container_r(rn)) else {
            self.refuse(
                path,
                "kind-changed",
                w,
                r,
                "a container without a definition".into(),
            );
            return None;
        };
        // Reserve the step first: a recursive type meets itself below.
        let id = self.push(Step::Same);
        self.pairs.insert((wn, rn), Some(id));
        self.renamed(wn, rn, path);
        let step = match (wc, rc) {
            (Container::Struct(ws), Container::Struct(rs)) => match (ws, rs) {
                (Shape::Unit, Shape::Unit) => Some(Step::UnitStruct),
                (Shape::Tuple(a), Shape::Tuple(b)) if a.len() == b.len() => {
                    let ws: Vec<_> = a.iter().collect();
                    let rs: Vec<_> = b.iter().collect();
                    let items = self.items(&ws, &rs, path);
                    items.map(|items| Step::TupleStruct(rn.into(), items))
                }
                (Shape::Struct(a), Shape::Struct(b)) => {
                    let fields = self.fields(a, b, path);
                    fields.map(|fields| Step::Struct(rn.into(), fields))
                }
                _ => {
                    let why = format!("{} against {}", ws.describe(), rs.describe());
                    self.refuse(path, "shape-changed", w, r, why);
                    None
                }
            },
            (Container::Enum(a), Container::Enum(b)) => self.variants(rn, a, b, path),
            _ => {
                let why = "a struct and an enum".to_owned();
                self.refuse(path, "kind-changed", w, r, why);
                None
            }
        };
        match step {
            Some(step) => {
                self.steps[id as usize] = step;
                Some(id)
            }
            None => {
                self.pairs.insert((wn, rn), None);
                None
            }
        }
    }

    /// A struct's fields: the writer's order, each kept under the reader's
    /// name or dropped.
    fn fields(&mut self, ws: &'m [Field], rs: &'m [Field], path: &str) -> Option<Box<[FieldStep]>> {
        let mut ok = true;
        let mut out = Vec::with_capacity(ws.len());
        // Each reader field takes the writer field of its own name, else
        // the first one named by an alias; at most one each (12.3).
        let mut reader_of = vec![None; ws.len()];
        let mut taken = vec![false; rs.len()];
        for (j, rf) in rs.iter().enumerate() {
            let by_name = ws.iter().position(|wf| wf.name == rf.name);
            let by_alias = || {
                ws.iter()
                    .enumerate()
                    .position(|(i, wf)| reader_of[i].is_none() && rf.aliases.contains(&wf.name))
            };
            if let Some(i) = by_name
                .filter(|&i| reader_of[i].is_none())
                .or_else(by_alias)
            {
                reader_of[i] = Some(j);
                taken[j] = true;
            }
        }
        let mut last = None;
        let mut moved = false;
        for (wf, j) in ws.iter().zip(&reader_of) {
            match *j {
                Some(j) => {
                    let rf = &rs[j];
                    let fpath = format!("{path}.{}", rf.name);
                    if rf.name != wf.name {
                        self.note(
                            &fpath,
                            "field-alias",
                            Verdict::Allowed,
                            wf.name.clone(),
                            rf.name.clone(),
                        );
                    }
                    moved |= last.is_some_and(|l| l > j);
                    last = Some(j);
                    match self.resolve(&wf.format, &rf.format, &fpath) {
                        Some(step) => out.push(FieldStep::Keep {
                            name: rf.name.as_str().into(),
                            step,
                        }),
                        None => ok = false,
                    }
                }
                None => {
                    let fpath = format!("{path}.{}", wf.name);
                    self.note(
                        &fpath,
                        "field-removed",
                        Verdict::Allowed,
                        text_of(&wf.format),
                        String::new(),
                    );
                    let skip = self.skip(&wf.format);
                    out.push(FieldStep::Drop {
                        name: wf.name.as_str().into(),
                        skip,
                    });
                }
            }
        }
        if moved {
            // Both orders of the fields the two sides share.
            let order = |names: Vec<&str>| names.join(", ");
            let writer_order = ws
                .iter()
                .zip(&reader_of)
                .filter(|(_, j)| j.is_some())
                .map(|(wf, _)| wf.name.as_str())
                .collect();
            let reader_order = rs
                .iter()
                .zip(&taken)
                .filter(|(_, t)| **t)
                .map(|(rf, _)| rf.name.as_str())
                .collect();
            let (w, r) = (order(writer_order), order(reader_order));
            self.note(path, "field-moved", Verdict::Allowed, w, r);
        }
        for (rf, taken) in rs.iter().zip(taken) {
            if taken {
                continue;
            }
            let fpath = format!("{path}.{}", rf.name);
            let r = text_of(&rf.format);
            if rf.default {
                self.note(
                    &fpath,
                    "field-added-default",
                    Verdict::Allowed,
                    String::new(),
                    r,
                );
            } else if matches!(rf.format, Format::Option(_)) {
                self.note(
                    &fpath,
                    "field-added-option",
                    Verdict::Allowed,
                    String::new(),
                    r,
                );
            } else if !self.defaults_known {
                self.note(
                    &fpath,
                    "field-added",
                    Verdict::Conditional,
                    String::new(),
                    r,
                );
            } else {
                self.note(&fpath, "field-added", Verdict::Refused, String::new(), r);
                self.reasons.push(format!(
                    "the writer has no field `{}` and the reader gives it no default \
                     (#[serde(default)]) and it is not an Option",
                    rf.name
                ));
                ok = false;
            }
        }
        ok.then(|| out.into_boxed_slice())
    }

    /// An enum's variants, by writer index.
    fn variants(
        &mut self,
        rn: &str,
        ws: &'m [Variant],
        rs: &'m [Variant],
        path: &str,
    ) -> Option<Step> {
        let mut ok = true;
        let mut out = Vec::with_capacity(ws.len());
        let other = rs.iter().find(|v| v.other);
        for (i, wv) in ws.iter().enumerate() {
            let found = rs
                .iter()
                .position(|rv| rv.name == wv.name)
                .or_else(|| rs.iter().position(|rv| rv.aliases.contains(&wv.name)));
            let Some(j) = found else {
                let vpath = format!("{path}::{}", wv.name);
                match other {
                    Some(o) => {
                        self.note(
                            &vpath,
                            "variant-other",
                            Verdict::Allowed,
                            wv.name.clone(),
                            o.name.clone(),
                        );
                        let skips = self.shape_skips(&wv.shape);
                        out.push(VariantStep::Other {
                            name: o.name.as_str().into(),
                            skips,
                        });
                    }
                    None => {
                        self.note(
                            &vpath,
                            "variant-removed",
                            Verdict::Conditional,
                            wv.name.clone(),
                            String::new(),
                        );
                        out.push(VariantStep::Unknown {
                            name: wv.name.as_str().into(),
                        });
                    }
                }
                continue;
            };
            let rv = &rs[j];
            let vpath = format!("{path}::{}", rv.name);
            if rv.name != wv.name {
                self.note(
                    &vpath,
                    "variant-alias",
                    Verdict::Allowed,
                    wv.name.clone(),
                    rv.name.clone(),
                );
            }
            if i != j {
                self.note(
                    &vpath,
                    "variant-moved",
                    Verdict::Allowed,
                    i.to_string(),
                    j.to_string(),
                );
            }
            let payload = match (&wv.shape, &rv.shape) {
                (Shape::Unit, Shape::Unit) => Some(Payload::Unit),
                (Shape::Newtype(a), Shape::Newtype(b)) => {
                    self.resolve(a, b, &vpath).map(Payload::Newtype)
                }
                (Shape::Tuple(a), Shape::Tuple(b)) if a.len() == b.len() => {
                    let ws: Vec<_> = a.iter().collect();
                    let rs: Vec<_> = b.iter().collect();
                    self.items(&ws, &rs, &vpath).map(Payload::Tuple)
                }
                (Shape::Struct(a), Shape::Struct(b)) => {
                    self.fields(a, b, &vpath).map(Payload::Struct)
                }
                (a, b) => {
                    self.note(
                        &vpath,
                        "shape-changed",
                        Verdict::Refused,
                        a.describe(),
                        b.describe(),
                    );
                    self.reasons.push(format!(
                        "the variant holds {} against {}",
                        a.describe(),
                        b.describe()
                    ));
                    None
                }
            };
            match payload {
                Some(payload) => out.push(VariantStep::To {
                    name: rv.name.as_str().into(),
                    payload,
                }),
                None => ok = false,
            }
        }
        for rv in rs {
            let known = ws
                .iter()
                .any(|wv| wv.name == rv.name || rv.aliases.contains(&wv.name));
            if !known {
                let vpath = format!("{path}::{}", rv.name);
                self.note(
                    &vpath,
                    "variant-added",
                    Verdict::Allowed,
                    String::new(),
                    rv.name.clone(),
                );
            }
        }
        ok.then(|| Step::Enum(rn.into(), out.into_boxed_slice()))
    }

    // ----- skipping -----

    fn push_skip(&mut self, skip: Skip) -> SkipId {
        self.skips.push(skip);
        (self.skips.len() - 1) as SkipId
    }

    fn shape_skips(&mut self, shape: &'m Shape) -> Box<[SkipId]> {
        match shape {
            Shape::Unit => Box::new([]),
            Shape::Newtype(f) => Box::new([self.skip(f)]),
            Shape::Tuple(items) => items.iter().map(|f| self.skip(f)).collect(),
            Shape::Struct(fields) => fields.iter().map(|f| self.skip(&f.format)).collect(),
        }
    }

    /// How to read and drop a writer value of `format`.
    fn skip(&mut self, format: &'m Format) -> SkipId {
        use Format as F;
        let skip = match format {
            F::Unit => Skip::Nothing,
            F::Bool => Skip::Bool,
            F::Char => Skip::Char,
            F::Str => Skip::Str,
            F::Bytes => Skip::Bytes,
            F::Option(inner) => Skip::Option(self.skip(inner)),
            F::Seq(inner) => match number(inner) {
                Some(d) => Skip::Block(d.size() as u32),
                None => Skip::Seq(self.skip(inner)),
            },
            F::Map(k, v) => Skip::Map(self.skip(k), self.skip(v)),
            F::Tuple(items) => Skip::Tuple(items.iter().map(|f| self.skip(f)).collect()),
            F::Array(inner, n) => Skip::Repeat(self.skip(inner), *n),
            F::Shaped(d) => Skip::Shaped(*d),
            F::Named(name) => {
                if let Some(id) = self.skip_of.get(name.as_str()) {
                    return *id;
                }
                let id = self.push_skip(Skip::Nothing);
                self.skip_of.insert(name, id);
                let skip = match self.container_w(name) {
                    None | Some(Container::Struct(Shape::Unit)) => Skip::Nothing,
                    Some(Container::Struct(Shape::Newtype(f))) => Skip::Newtype(self.skip(f)),
                    Some(Container::Struct(shape)) => Skip::Tuple(self.shape_skips(shape)),
                    Some(Container::Enum(vs)) => Skip::Enum(
                        name.as_str().into(),
                        vs.iter().map(|v| self.shape_skips(&v.shape)).collect(),
                    ),
                };
                self.skips[id as usize] = skip;
                return id;
            }
            other => match number(other) {
                Some(d) => Skip::Number(d.size() as u32),
                None => Skip::Nothing,
            },
        };
        self.push_skip(skip)
    }
}

/// The elements of a tuple or `[T; N]` (small `N` only: longer arrays
/// are resolved element type to element type, never expanded).
fn fixed_items(format: &Format) -> Vec<&Format> {
    match format {
        Format::Tuple(items) => items.iter().collect(),
        Format::Array(item, n) if *n <= 4096 => std::iter::repeat_n(&**item, *n as usize).collect(),
        _ => Vec::new(),
    }
}

/// A format in words, for refusals ("a struct", "str").
fn describe(format: &Format, model: &Model) -> String {
    match format {
        Format::Named(name) => match model.containers.get(name) {
            Some(Container::Enum(_)) => format!("enum {name}"),
            Some(Container::Struct(shape)) => format!("struct {name} ({})", shape.describe()),
            None => name.clone(),
        },
        other => text_of(other),
    }
}
