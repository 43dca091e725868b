//! The `kiln` command run as a process: on the golden files, on hostile
//! frames from the spec's vectors, on a 100 MB file (memory stays flat),
//! and `extract` read back by NumPy.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const POINT: &str = "root Point\nstruct Point { x: i32, y: i32 }\n";

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/golden")
        .join(name)
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn kiln(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn inspect_shows_every_field_of_a_frame() {
    let file = golden("frame-batch-points-crc-schema.kiln");
    let o = kiln(&["inspect", path(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "1 frames",
        "frame 0 at byte 0",
        "flags        checksum, schema",
        "fingerprint  bebd985ebacd608a",
        "records      3",
        "checksum     ok",
        "schema       root Point",
        "struct Point { x: i32, y: i32 }",
    ] {
        assert!(text.contains(needle), "{needle:?} not in\n{text}");
    }
    let o = kiln(&["inspect", "--json", path(&file)]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &doc["frames"][0];
    assert_eq!(f["fingerprint"], "bebd985ebacd608a");
    assert_eq!(f["records"], 3);
    assert_eq!(f["checksum"], "ok");
    assert_eq!(f["schema"], POINT);
    assert_eq!(f["flags"], serde_json::json!(["checksum", "schema"]));
}

#[test]
fn inspect_names_the_arrays_of_a_record() {
    let o = kiln(&["inspect", "--json", path(&golden("arrays-framed.kiln"))]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let arrays = &doc["frames"][0]["arrays"];
    assert_eq!(
        arrays[0]["name"],
        serde_json::Value::Null,
        "no text in this frame"
    );
    assert_eq!(arrays[0]["dtype"], "f32");
    assert_eq!(arrays[0]["shape"], serde_json::json!([3, 4, 5]));
    assert_eq!(arrays[0]["bytes"], serde_json::json!([128, 368]));
    assert_eq!(arrays[1]["bytes"], serde_json::json!([384, 456]));
}

#[test]
fn schema_prints_the_embedded_text_and_checks_texts() {
    let o = kiln(&["schema", path(&golden("frame-batch-points-schema.kiln"))]);
    assert_eq!(stdout(&o), POINT);
    let o = kiln(&[
        "schema",
        "--fingerprint",
        path(&golden("frame-batch-points-schema.kiln")),
    ]);
    assert_eq!(stdout(&o), "bebd985ebacd608a\n");
    let dir = scratch("schema");
    let text = dir.join("bad.schema");
    std::fs::write(&text, "root Point\n").unwrap();
    let o = kiln(&["schema", "--text", path(&text)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("code: schema-text"), "{}", stderr(&o));
    assert!(stderr(&o).contains("byte offset: 5"), "{}", stderr(&o));
}

#[test]
fn cat_prints_records_as_json() {
    let file = golden("frame-batch-points-schema.kiln");
    let o = kiln(&["cat", path(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 3);
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert!(first["x"].is_i64() && first["y"].is_i64(), "{first}");
    let o = kiln(&["cat", "--json", path(&file)]);
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 3);
    assert_eq!(all[0], first);
    let o = kiln(&["cat", "--records", "1..2", path(&file)]);
    assert_eq!(stdout(&o).lines().count(), 1);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(stdout(&o).trim()).unwrap(),
        all[1]
    );
}

#[test]
fn cat_reads_bare_files_by_a_schema_file() {
    let dir = scratch("bare");
    let schema = dir.join("point.schema");
    std::fs::write(&schema, POINT).unwrap();
    let o = kiln(&[
        "cat",
        "--schema",
        path(&schema),
        path(&golden("point.kiln")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{\"x\":9,\"y\":-4}\n");
    // Without the schema, the bytes are not a frame: an error, not a guess.
    let o = kiln(&["cat", path(&golden("point.kiln"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("byte offset: 0"), "{}", stderr(&o));
    // A frame without text takes the schema file too.
    let o = kiln(&[
        "cat",
        "--schema",
        path(&schema),
        path(&golden("frame-batch-points.kiln")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 3);
}

#[test]
fn verify_reports_the_first_failure_with_its_offset() {
    let file = golden("frame-batch-points-crc-schema.kiln");
    let o = kiln(&["verify", path(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("ok: 1 frames, 3 records"),
        "{}",
        stdout(&o)
    );
    let dir = scratch("verify");
    let mut bytes = std::fs::read(&file).unwrap();
    // A payload byte changed: the checksum in the header (byte 40) disagrees.
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let bad = dir.join("bad.kiln");
    std::fs::write(&bad, &bytes).unwrap();
    let o = kiln(&["verify", path(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("FAILED at byte 40: checksum-mismatch"),
        "{}",
        stdout(&o)
    );
    // Cut short, and with bytes after the last frame.
    std::fs::write(&bad, &bytes[..bytes.len() - 5]).unwrap();
    let o = kiln(&["verify", path(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAILED at byte"), "{}", stdout(&o));
    let mut extra = std::fs::read(&file).unwrap();
    let len = extra.len();
    extra.extend_from_slice(b"junk");
    std::fs::write(&bad, &extra).unwrap();
    let o = kiln(&["verify", path(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains(&format!("FAILED at byte {len}: ")),
        "{}",
        stdout(&o)
    );
}

/// Every must-reject frame vector of the spec, as a file: `verify` fails
/// with the vector's code and offset, and no command panics on it.
#[test]
fn hostile_frames_fail_with_the_spec_code() {
    let dir = scratch("hostile");
    let schema = dir.join("point.schema");
    std::fs::write(&schema, POINT).unwrap();
    let vectors: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(golden("../vectors/frame.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    for v in vectors["vectors"].as_array().unwrap() {
        let (Some(code), Some(hex)) = (v["error"].as_str(), v["hex"].as_str()) else {
            continue;
        };
        // A file without the magic is read as bare records when a schema
        // is given (`cat --schema`), so bad-magic vectors are checked
        // without one, below.
        // An empty file holds no frames (a file of frames may be empty),
        // where a frame reader given no bytes refuses them.
        if v["type"] != "Point"
            || v["mode"] != "framed-batch"
            || code == "bad-magic"
            || hex.is_empty()
            // The command reads an INDEXED frame as a file (chapter 11);
            // this vector is for the batch readers of chapter 6.
            || v["name"] == "kiln-frame-indexed-to-batch-reader"
        {
            continue;
        }
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let file = dir.join("v.kiln");
        std::fs::write(&file, &bytes).unwrap();
        let o = kiln(&["verify", "--schema", path(&schema), path(&file)]);
        let name = v["name"].as_str().unwrap();
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stdout(&o));
        // A file that ends inside its only frame is a torn tail, cut at 0
        // (spec 11.2): the frame-truncated and bad-trailer vectors; zero
        // bytes after the frame are padding with no frame after it.
        let want = match code {
            "frame-truncated" | "bad-trailer" => "FAILED at byte 0: truncated-tail".to_owned(),
            "trailing-bytes" => format!("FAILED at byte {}: truncated-tail", v["offset"]),
            _ => format!("FAILED at byte {}: {code}", v["offset"]),
        };
        assert!(
            stdout(&o).contains(&want),
            "{name}: {want} not in {}",
            stdout(&o)
        );
        for cmd in ["inspect", "cat", "arrays", "schema"] {
            let o = kiln(&[cmd, path(&file)]);
            assert!(!stderr(&o).contains("panicked"), "{name}: {cmd} panicked");
            assert!(
                o.status.code().is_some(),
                "{name}: {cmd} killed by a signal"
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} vectors");
    let file = dir.join("v.kiln");
    std::fs::write(&file, b"KILN but not a frame").unwrap();
    let o = kiln(&["verify", path(&file)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("FAILED at byte 0: bad-magic"),
        "{}",
        stdout(&o)
    );
}

/// An `.npy` file of format 1.0 as NumPy writes it: magic, version, the
/// header's length, the dict padded with spaces to a 128-byte header (both
/// arrays' dicts are short enough), then the data.
fn npy_bytes(dict: &str, data: &[u8]) -> Vec<u8> {
    let text = format!("{dict}{}\n", " ".repeat(128 - 10 - dict.len() - 1));
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&118u16.to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn extract_writes_an_npy_that_numpy_reads() {
    let dir = scratch("extract");
    let out = dir.join("image.npy");
    let file = golden("arrays-framed.kiln");
    let o = kiln(&["extract", path(&file), "0", "-o", path(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let index = dir.join("index.npy");
    let o = kiln(&["extract", path(&file), "1", "-o", path(&index)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The bytes, whole: this needs nothing but the test.
    let image: Vec<u8> = (0..60u16)
        .flat_map(|i| (f32::from(i) / 2.0).to_le_bytes())
        .collect();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        npy_bytes(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, 5), }",
            &image
        )
    );
    let rows: Vec<u8> = (0..18u32).flat_map(u32::to_le_bytes).collect();
    assert_eq!(
        std::fs::read(&index).unwrap(),
        npy_bytes(
            "{'descr': '<u4', 'fortran_order': False, 'shape': (6, 3), }",
            &rows
        )
    );
    // And NumPy itself reads them. A machine without NumPy has checked the
    // bytes above; CI, which installs NumPy, sets KILN_TEST_NUMPY=required
    // so that this part cannot go missing there.
    let has_numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if has_numpy || std::env::var("KILN_TEST_NUMPY").as_deref() == Ok("required") {
        let check = format!(
            "import numpy as np\n\
             a = np.load({:?}); b = np.load({:?})\n\
             assert a.dtype == np.float32 and a.shape == (3, 4, 5), (a.dtype, a.shape)\n\
             assert (a.ravel() == np.arange(60, dtype=np.float32) / 2).all()\n\
             assert b.dtype == np.uint32 and b.shape == (6, 3)\n\
             assert (b.ravel() == np.arange(18)).all()\n\
             print('ok')",
            path(&out),
            path(&index)
        );
        let o = Command::new("python3")
            .args(["-c", &check])
            .output()
            .unwrap();
        assert_eq!(stdout(&o).trim(), "ok", "{}", stderr(&o));
    } else {
        eprintln!("NumPy is not installed: the .npy files were checked byte by byte only");
    }
    let o = kiln(&["extract", path(&file), "nope", "-o", path(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has no array \"nope\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn from_json_writes_what_cat_reads_back() {
    let dir = scratch("from-json");
    let schema = dir.join("point.schema");
    std::fs::write(&schema, POINT).unwrap();
    let run = |args: &[&str], input: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let o = run(
        &["from-json", "--schema", path(&schema)],
        r#"{"x": 9, "y": -4}"#,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, std::fs::read(golden("point.kiln")).unwrap());
    let o = run(
        &["from-json", "--frame", "--schema", path(&schema)],
        "{\"x\": 1, \"y\": 2}\n{\"y\": 4, \"x\": 3}\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let framed = dir.join("points.kiln");
    std::fs::write(&framed, &o.stdout).unwrap();
    let o = kiln(&["cat", path(&framed)]);
    assert_eq!(stdout(&o), "{\"x\":1,\"y\":2}\n{\"x\":3,\"y\":4}\n");
    let o = run(
        &["from-json", "--schema", path(&schema)],
        r#"{"x": 1, "y": 2} {"x": 1, "y": true}"#,
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("JSON value 1"), "{err}");
    assert!(err.contains("code: value-mismatch"), "{err}");
    assert!(err.contains("path: Point.y"), "{err}");
}

/// Peak resident memory of a running child, from /proc (Linux).
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[test]
fn cat_streams_a_100_mb_file_in_flat_memory() {
    #[derive(serde::Serialize, kiln::Schema)]
    struct Event {
        id: u64,
        source: String,
        message: String,
        values: Vec<f32>,
    }
    let dir = scratch("big");
    let file = dir.join("big.kiln");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let opts = kiln::frame::FrameOptions::new().embed_schema(true);
    let mut frame = opts.batch_writer::<_, Event>(&mut w).unwrap();
    let message = "x".repeat(900);
    let count = 110_000u64;
    for id in 0..count {
        frame
            .push(&Event {
                id,
                source: format!("host-{}", id % 97),
                message: message.clone(),
                values: vec![id as f32; 16],
            })
            .unwrap();
    }
    frame.finish().unwrap();
    drop(w);
    let len = std::fs::metadata(&file).unwrap().len();
    assert!(len > 100_000_000, "{len}");

    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["cat", "--ndjson", path(&file)])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    use std::io::BufRead;
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    // The first record is out while the command still runs.
    assert!(line.starts_with("{\"id\":0,"), "{line}");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the whole file was read first"
    );
    let mut lines = 1u64;
    let mut peak = 0;
    let mut buf = String::new();
    loop {
        buf.clear();
        if reader.read_line(&mut buf).unwrap() == 0 {
            break;
        }
        lines += 1;
        if lines.is_multiple_of(1000) {
            peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
        }
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(lines, count);
    // Flat: the process, its buffers and one record, not the file.
    assert!(
        peak > 0 && peak < 40 * 1024,
        "peak RSS {peak} KiB for a {len}-byte file"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[derive(serde::Serialize, kiln::Schema)]
struct LogEvent {
    seq: u64,
    text: String,
}

#[test]
fn files_of_many_frames_are_read_and_a_torn_tail_repaired() {
    let dir = scratch("file");
    let file = dir.join("log.kiln");
    for run in 0..2u64 {
        let mut w = kiln::file::FileWriter::<LogEvent>::open(&file).unwrap();
        for i in 0..3 {
            w.push(&LogEvent {
                seq: run * 3 + i,
                text: format!("run {run}"),
            })
            .unwrap();
        }
        w.close().unwrap();
    }
    let o = kiln(&["cat", "--ndjson", path(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[5], r#"{"seq":5,"text":"run 1"}"#);
    let o = kiln(&["verify", path(&file)]);
    assert!(
        stdout(&o).contains("ok: 2 frames, 6 records"),
        "{}",
        stdout(&o)
    );

    // A crash in the middle of the second frame's write.
    let full = std::fs::read(&file).unwrap();
    std::fs::write(&file, &full[..full.len() - 10]).unwrap();
    let first_end = kiln::file::read_frames(&full)
        .next()
        .unwrap()
        .unwrap()
        .bytes
        .len();
    let o = kiln(&["verify", path(&file)]);
    assert_eq!(o.status.code(), Some(1));
    let want = format!("FAILED at byte {first_end}: truncated-tail");
    assert!(stdout(&o).contains(&want), "{}", stdout(&o));
    let o = kiln(&["cat", "--ndjson", path(&file)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o).lines().count(),
        3,
        "the complete frame's records, then the error"
    );

    let o = kiln(&["repair", "--dry-run", path(&file)]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("would be dropped"), "{}", stdout(&o));
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        full.len() as u64 - 10
    );
    let o = kiln(&["repair", path(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.contains(&format!("{first_end}..{}: dropped", full.len() - 10)),
        "{said}"
    );
    assert!(
        said.contains("kept: 1 complete frames, 3 records"),
        "{said}"
    );
    assert_eq!(std::fs::metadata(&file).unwrap().len(), first_end as u64);
    let o = kiln(&["repair", path(&file)]);
    assert!(stdout(&o).contains("nothing to repair"), "{}", stdout(&o));

    // Damage elsewhere is not cut.
    let mut damaged = full.clone();
    damaged[70] ^= 1;
    std::fs::write(&file, &damaged).unwrap();
    let o = kiln(&["repair", path(&file)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("not a torn tail"), "{}", stdout(&o));
    assert_eq!(std::fs::read(&file).unwrap(), damaged);
}

#[derive(serde::Serialize, kiln::Schema)]
struct Layer {
    weights: kiln::Array<f32>,
}

#[derive(serde::Serialize, kiln::Schema)]
struct Net {
    name: String,
    layers: Vec<Layer>,
}

#[test]
fn arrays_of_a_shard_are_listed_by_name_and_extracted() {
    let dir = scratch("shard");
    let file = dir.join("nets.kiln");
    let mut w = kiln::file::FileWriter::<Net>::open(&file).unwrap();
    for n in 0..3usize {
        let layers = (0..=n)
            .map(|l| Layer {
                weights: kiln::Array::from_shape_vec(vec![2, l + 1], vec![n as f32; 2 * (l + 1)])
                    .unwrap(),
            })
            .collect();
        w.push(&Net {
            name: format!("net{n}"),
            layers,
        })
        .unwrap();
    }
    w.close().unwrap();
    let o = kiln(&["arrays", "--json", path(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|a| format!("{}:{}", a["record"], a["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            "0:layers[0].weights",
            "1:layers[0].weights",
            "1:layers[1].weights",
            "2:layers[0].weights",
            "2:layers[1].weights",
            "2:layers[2].weights"
        ]
    );
    let o = kiln(&["inspect", path(&file)]);
    assert!(stdout(&o).contains("indexed"), "{}", stdout(&o));
    let out = dir.join("w.npy");
    let o = kiln(&[
        "extract",
        path(&file),
        "layers[2].weights",
        "--record",
        "2",
        "-o",
        path(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let npy = std::fs::read(&out).unwrap();
    assert_eq!(npy.len(), 128 + 6 * 4);
    assert_eq!(&npy[128..132], 2.0f32.to_le_bytes());
    let o = kiln(&["cat", "--ndjson", path(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 3);
}

#[test]
fn compat_reports_each_difference_and_exits_by_the_verdict() {
    let dir = scratch("compat");
    let old = dir.join("old.txt");
    std::fs::write(
        &old,
        "root Job\nstruct Job { id: u32, name: str, owner: str }\n",
    )
    .unwrap();
    let new = dir.join("new.txt");
    std::fs::write(
        &new,
        "root Job\nstruct Job { id: u64, name: str, retries: u8, tag: option<str> }\n",
    )
    .unwrap();
    let o = kiln(&["compat", path(&old), path(&new)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "writer 0f767b972f1858a2 -> reader d71952d19db03699\n\
         allowed     int-widened            Job.id: u32 -> u64\n\
         allowed     field-removed          Job.owner: str -> -\n\
         conditional field-added            Job.retries: - -> u8\n\
         allowed     field-added-option     Job.tag: - -> option<str>\n\
         compatible\n"
    );

    // Narrowing is refused: exit code 1, the rule on its line.
    let narrow = dir.join("narrow.txt");
    std::fs::write(&narrow, "root Job\nstruct Job { id: i16, name: str }\n").unwrap();
    let o = kiln(&["compat", path(&old), path(&narrow)]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("refused     number-narrowed        Job.id: u32 -> i16\n"),
        "{text}"
    );
    assert!(text.ends_with("incompatible\n"), "{text}");

    // A Kiln file as the writer's side: its embedded text.
    let golden_points = golden("frame-batch-points-crc-schema.kiln");
    let wide = dir.join("wide.txt");
    std::fs::write(
        &wide,
        "root Point\nstruct Point { x: i64, y: f64, z: option<i32> }\n",
    )
    .unwrap();
    let o = kiln(&["compat", path(&golden_points), path(&wide)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("allowed     int-to-float           Point.y: i32 -> f64\n"));

    // A text that is not canonical names its file.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "root  Job\n").unwrap();
    let o = kiln(&["compat", path(&bad), path(&new)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad.txt"), "{}", stderr(&o));
    assert!(stderr(&o).contains("code: schema-text"), "{}", stderr(&o));
}
