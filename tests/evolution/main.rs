//! Schema evolution (`spec/12-evolution.md`): the compatibility matrix.
//!
//! Each case is a writer type and a reader type of one serde name. Every
//! case is read twice, from a frame that embeds the writer's text and from
//! a batch of two records whose text comes from a `schema::Store`, and
//! must give the exact value or the exact error expected; `schema::check`
//! must give the same verdict without data. The cases are also written out
//! as the language-neutral vectors of `spec/vectors/evolution.json`, which
//! this test compares with the file (`KILN_BLESS=1` rewrites it).

mod cases;

use std::fmt::Debug;

use kiln::frame::FrameOptions;
use kiln::schema::{Schema, Store, Verdict};
use kiln::value::{self, Plan};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// What a case expects.
pub enum Expect<R> {
    /// The reader's value; the report holds these rules, all allowed or
    /// conditional.
    Value(R, &'static [&'static str]),
    /// Refused before the first value: this rule at this path.
    Refused(&'static str, &'static str),
    /// Planned, but the data fails: this code at this offset in the payload.
    Fails(&'static str, u64),
}

/// The vectors being built, in case order.
#[derive(Default)]
pub struct Matrix {
    vectors: Vec<serde_json::Value>,
    names: std::collections::BTreeSet<String>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The fields of the reader's model that have a default, as `Type.field`.
fn defaults<R: Schema>() -> Vec<String> {
    let schema = kiln::schema::schema_of::<R>().unwrap();
    let model = schema.model().unwrap();
    let mut out = Vec::new();
    for (name, c) in &model.containers {
        let mut push = |prefix: String, fields: &[kiln::schema::model::Field]| {
            for f in fields.iter().filter(|f| f.default) {
                out.push(format!("{prefix}.{}", f.name));
            }
        };
        match c {
            kiln::schema::model::Container::Struct(kiln::schema::model::Shape::Struct(fields)) => {
                push(name.clone(), fields)
            }
            kiln::schema::model::Container::Enum(variants) => {
                for v in variants {
                    if let kiln::schema::model::Shape::Struct(fields) = &v.shape {
                        push(format!("{name}::{}", v.name), fields);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn others<R: Schema>() -> Vec<String> {
    let schema = kiln::schema::schema_of::<R>().unwrap();
    let model = schema.model().unwrap();
    let mut out = Vec::new();
    for (name, c) in &model.containers {
        if let kiln::schema::model::Container::Enum(variants) = c {
            for v in variants.iter().filter(|v| v.other) {
                out.push(format!("{name}::{}", v.name));
            }
        }
    }
    out
}

fn aliases<R: Schema>() -> serde_json::Map<String, serde_json::Value> {
    let schema = kiln::schema::schema_of::<R>().unwrap();
    let model = schema.model().unwrap();
    let mut out = serde_json::Map::new();
    let mut add = |path: String, names: &[String]| {
        if !names.is_empty() {
            out.insert(
                path,
                names
                    .iter()
                    .map(|n| serde_json::Value::from(n.as_str()))
                    .collect(),
            );
        }
    };
    for (name, c) in &model.containers {
        match c {
            kiln::schema::model::Container::Struct(kiln::schema::model::Shape::Struct(fields)) => {
                for f in fields {
                    add(format!("{name}.{}", f.name), &f.aliases);
                }
            }
            kiln::schema::model::Container::Enum(variants) => {
                for v in variants {
                    add(format!("{name}::{}", v.name), &v.aliases);
                }
            }
            _ => {}
        }
    }
    out
}

impl Matrix {
    /// Runs one case: `w` written by the writer, read as `R`.
    pub fn case<W, R>(&mut self, name: &str, w: W, expect: Expect<R>)
    where
        W: Serialize + Schema + Clone,
        R: DeserializeOwned + Serialize + Schema + Debug + PartialEq,
    {
        assert!(self.names.insert(name.to_owned()), "two cases named {name}");
        let writer = kiln::schema::schema_of::<W>().unwrap();
        let reader = kiln::schema::schema_of::<R>().unwrap();
        let writer_text = writer.text().unwrap();
        assert_ne!(
            writer.fingerprint(),
            reader.fingerprint(),
            "{name}: same schema"
        );

        // One record in a frame with the writer's text.
        let framed = FrameOptions::new()
            .checksum(false)
            .embed_schema(true)
            .to_vec(&w)
            .unwrap();
        let payload_at = framed.len() as u64 - kiln::to_vec(&w).unwrap().len() as u64;
        // Without evolution: refused before the first value, as always.
        let plain = FrameOptions::new().from_slice::<R>(&framed).unwrap_err();
        assert_eq!(plain.kind().code(), "schema-mismatch", "{name}");
        let evolving = FrameOptions::new().evolve();
        let from_frame = evolving.from_slice::<R>(&framed);
        let from_stream = evolving.from_reader::<_, R>(&framed[..]);

        // Two records in a batch without text; the text is in a store.
        let batch = FrameOptions::new()
            .batch_to_vec(&[w.clone(), w.clone()])
            .unwrap();
        let batch_payload_at = batch.len() as u64 - 2 * kiln::to_vec(&w).unwrap().len() as u64;
        let mut store = Store::new();
        store.add::<W>().unwrap();
        let stored = FrameOptions::new().evolve().schema_store(store.clone());
        let from_batch: kiln::Result<Vec<R>> = stored
            .batch_from_slice::<R>(&batch)
            .and_then(|records| records.collect());
        // Without the store and without text: the writer's schema is unknown.
        let unknown = FrameOptions::new().evolve().batch_from_slice::<R>(&batch);
        assert_eq!(
            unknown.err().map(|e| e.kind().code()),
            Some("writer-schema-unknown"),
            "{name}"
        );

        let report = kiln::schema::check::<R>(writer_text).unwrap();
        let mut vector = serde_json::json!({
            "name": format!("kiln-evolution-{name}"),
            "mode": "evolve",
            "writer": writer_text,
            "reader": reader.text().unwrap(),
        });
        let defaults = defaults::<R>();
        if !defaults.is_empty() {
            vector["defaults"] = defaults.into();
        }
        let others = others::<R>();
        if !others.is_empty() {
            vector["other"] = others.into();
        }
        let aliases = aliases::<R>();
        if !aliases.is_empty() {
            vector["aliases"] = aliases.into();
        }
        vector["hex"] = hex(&framed).into();
        match expect {
            Expect::Value(r, rules) => {
                assert_eq!(from_frame.as_ref().unwrap(), &r, "{name}: frame");
                assert_eq!(from_stream.as_ref().unwrap(), &r, "{name}: stream");
                let batch = from_batch.as_ref().unwrap();
                assert!(
                    batch.len() == 2 && batch.iter().all(|b| b == &r),
                    "{name}: batch {batch:?}"
                );
                assert!(report.is_compatible(), "{name}: {report}");
                for rule in rules {
                    assert!(
                        report.differences.iter().any(|d| d.rule == *rule),
                        "{name}: no {rule} in\n{report}"
                    );
                }
                let plan = Plan::of::<R>().unwrap();
                let mut json = Vec::new();
                value::write_json(&kiln::to_vec(&r).unwrap(), &plan, &mut json).unwrap();
                vector["json"] = String::from_utf8(json).unwrap().into();
            }
            Expect::Refused(rule, path) => {
                for (how, got) in [
                    ("frame", from_frame.map(|_| ()).err()),
                    ("stream", from_stream.map(|_| ()).err()),
                    ("batch", from_batch.map(|_| ()).err()),
                ] {
                    let e = got.unwrap_or_else(|| panic!("{name}: {how} read"));
                    assert_eq!(e.kind().code(), "schema-incompatible", "{name}: {how}: {e}");
                    assert_eq!(e.offset(), Some(16), "{name}: {how}");
                    assert!(
                        e.to_string().contains(&format!(" at {path}:")),
                        "{name}: {e}"
                    );
                }
                assert!(!report.is_compatible(), "{name}: {report}");
                assert!(
                    report
                        .refusals()
                        .any(|d| d.rule == rule && d.path == path && d.verdict == Verdict::Refused),
                    "{name}: no refused {rule} at {path} in\n{report}"
                );
                vector["error"] = "schema-incompatible".into();
                vector["offset"] = 16.into();
            }
            Expect::Fails(code, offset) => {
                let e = from_frame
                    .err()
                    .unwrap_or_else(|| panic!("{name}: frame read"));
                assert_eq!(e.kind().code(), code, "{name}: {e}");
                assert_eq!(e.offset(), Some(payload_at + offset), "{name}: {e}");
                let e = from_stream
                    .err()
                    .unwrap_or_else(|| panic!("{name}: stream read"));
                assert_eq!(
                    (e.kind().code(), e.offset()),
                    (code, Some(payload_at + offset)),
                    "{name}: {e}"
                );
                let e = from_batch
                    .err()
                    .unwrap_or_else(|| panic!("{name}: batch read"));
                assert_eq!(
                    (e.kind().code(), e.offset()),
                    (code, Some(batch_payload_at + offset)),
                    "{name}: {e}"
                );
                assert!(report.is_compatible(), "{name}: {report}");
                vector["error"] = code.into();
                vector["offset"] = (payload_at + offset).into();
            }
        }
        self.vectors.push(vector);
    }

    /// A case whose frame bytes are given (to make them lie about the
    /// writer's text): read with evolution, it must fail with `code` at
    /// `offset` in the frame.
    pub fn hostile<R>(&mut self, name: &str, framed: Vec<u8>, code: &str, offset: u64, path: &str)
    where
        R: DeserializeOwned + Schema + Debug,
    {
        assert!(self.names.insert(name.to_owned()), "two cases named {name}");
        let e = FrameOptions::new()
            .evolve()
            .from_slice::<R>(&framed)
            .unwrap_err();
        // The path names the reader's containers and the writer's fields.
        assert_eq!(
            (e.kind().code(), e.offset(), e.path().as_deref()),
            (code, Some(offset), Some(path)),
            "{name}: {e}"
        );
        let e = FrameOptions::new()
            .evolve()
            .from_reader::<_, R>(&framed[..])
            .unwrap_err();
        assert_eq!(
            (e.kind().code(), e.offset(), e.path().as_deref()),
            (code, Some(offset), Some(path)),
            "{name}: {e}"
        );
        let header = kiln::frame::FrameHeader::parse(&framed).unwrap();
        let reader = kiln::schema::schema_of::<R>().unwrap();
        self.vectors.push(serde_json::json!({
            "name": format!("kiln-evolution-{name}"),
            "mode": "evolve",
            "writer": header.schema_text.unwrap(),
            "reader": reader.text().unwrap(),
            "hex": hex(&framed),
            "error": code,
            "offset": offset,
        }));
    }
}

#[test]
fn compatibility_matrix() {
    let mut m = Matrix::default();
    cases::all(&mut m);
    assert!(m.vectors.len() >= 40, "only {} cases", m.vectors.len());
    let file = serde_json::json!({ "area": "evolution", "vectors": m.vectors });
    let text = serde_json::to_string_pretty(&file).unwrap() + "\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors/evolution.json");
    if std::env::var_os("KILN_BLESS").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        on_disk == text,
        "spec/vectors/evolution.json is not what the matrix gives: run KILN_BLESS=1 cargo test --test evolution"
    );
}

/// The report a user prints: one line per difference, then the verdict.
#[test]
fn report_lists_every_difference_with_its_rule() {
    #[derive(Serialize, kiln::Schema)]
    #[serde(rename = "Job")]
    #[allow(dead_code)]
    struct JobV1 {
        id: u32,
        name: String,
        owner: String,
        state: StateV1,
    }
    #[derive(Serialize, kiln::Schema)]
    #[serde(rename = "State")]
    #[allow(dead_code)]
    enum StateV1 {
        Queued,
        Done(f32),
        Lost,
    }
    #[derive(serde::Deserialize, kiln::Schema)]
    #[allow(dead_code)]
    struct Job {
        #[serde(alias = "name")]
        title: String,
        id: u64,
        #[serde(default)]
        retries: u8,
        state: State,
        size: u32,
    }
    #[derive(serde::Deserialize, kiln::Schema)]
    #[allow(dead_code)]
    enum State {
        Queued,
        Done(f64),
        Failed,
    }
    let writer = kiln::schema::schema_of::<JobV1>().unwrap();
    let report = kiln::schema::check::<Job>(writer.text().unwrap()).unwrap();
    let text = report.to_string();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "allowed     int-widened            Job.id: u32 -> u64",
            "allowed     field-alias            Job.title: name -> title",
            "allowed     field-removed          Job.owner: str -> -",
            "allowed     float-widened          Job.state::Done: f32 -> f64",
            "conditional variant-removed        Job.state::Lost: Lost -> -",
            "allowed     variant-added          Job.state::Failed: - -> Failed",
            "allowed     field-moved            Job: id, name, state -> title, id, state",
            "allowed     field-added-default    Job.retries: - -> u8",
            "refused     field-added            Job.size: - -> u32",
            "incompatible",
        ]
    );
    assert!(!report.is_compatible());
    assert_eq!(report.refusals().count(), 1);
}

/// A file appended to by two releases, each with its own version of the
/// type, reads whole through `Evolve::file_records`; the plain reader stops
/// at the first frame of the other version.
#[test]
fn a_file_appended_by_two_releases_reads_whole() {
    #[derive(Serialize, kiln::Schema)]
    #[serde(rename = "Event")]
    struct EventV1 {
        id: u32,
        host: String,
    }
    #[derive(Serialize, serde::Deserialize, kiln::Schema, Debug, PartialEq)]
    struct Event {
        id: u64,
        #[serde(default)]
        tags: Vec<String>,
    }
    let dir = std::env::temp_dir().join(format!("kiln-evolve-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("events.kiln");
    let _ = std::fs::remove_file(&path);
    let mut w = kiln::file::FileWriter::<EventV1>::open(&path).unwrap();
    for id in 0..3 {
        w.push(&EventV1 {
            id,
            host: "a".into(),
        })
        .unwrap();
    }
    w.close().unwrap();
    let mut w = kiln::file::FileWriter::<Event>::open(&path).unwrap();
    w.push(&Event {
        id: 3,
        tags: vec!["x".into()],
    })
    .unwrap();
    w.close().unwrap();

    let bytes = std::fs::read(&path).unwrap();
    let plain = kiln::file::records::<Event>(&bytes)
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(
        (plain.kind().code(), plain.offset()),
        ("schema-mismatch", Some(16))
    );
    let events: Vec<Event> = FrameOptions::new()
        .evolve()
        .file_records(&bytes)
        .collect::<kiln::Result<_>>()
        .unwrap();
    let expected: Vec<Event> = (0..3)
        .map(|id| Event { id, tags: vec![] })
        .chain([Event {
            id: 3,
            tags: vec!["x".into()],
        }])
        .collect();
    assert_eq!(events, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A refusal names the place, the reason and both sides, with `-` for a
/// side that has nothing there.
#[test]
fn a_refusal_says_where_and_why() {
    #[derive(Serialize, kiln::Schema)]
    #[serde(rename = "Job")]
    struct JobV1 {
        id: u32,
    }
    #[derive(serde::Deserialize, kiln::Schema, Debug)]
    #[allow(dead_code)]
    struct Job {
        id: u32,
        extra: String,
    }
    let bytes = FrameOptions::new()
        .embed_schema(true)
        .to_vec(&JobV1 { id: 1 })
        .unwrap();
    let e = FrameOptions::new()
        .evolve()
        .from_slice::<Job>(&bytes)
        .unwrap_err();
    assert_eq!(e.offset(), Some(16));
    assert_eq!(
        e.to_string(),
        "schema incompatible at Job.extra: the writer has no field `extra` and the reader gives \
         it no default (#[serde(default)]) and it is not an Option (writer: -, reader: str) at byte 16"
    );
}
