//! Writes the seed corpora of the fuzz targets into `fuzz/corpus/<target>/`:
//! encodings of the sample values, the spec's golden files and the hex of
//! every vector in `spec/vectors/*.json` (when those exist), and frames,
//! batches and records with arrays for the targets that read them. Run through
//! `fuzz/seed.sh`; the output is the same on every run.

use std::fs;
use std::path::{Path, PathBuf};

fn hex_decode(hex: &str) -> Option<Vec<u8>> {
    let hex: String = hex.chars().filter(|c| !c.is_whitespace()).collect();
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::create_dir_all(dir).expect("create corpus directory");
    fs::write(dir.join(name), bytes).expect("write seed");
}

fn main() {
    let fuzz = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let spec = fuzz.join("../spec");
    let corpus = fuzz.join("corpus");
    let (decode, take, roundtrip) = (
        corpus.join("decode"),
        corpus.join("take"),
        corpus.join("roundtrip"),
    );

    // Named inputs: (name, bytes).
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, value) in kiln_fuzz::sample_values().iter().enumerate() {
        inputs.push((
            format!("sample-{i}"),
            kiln::to_vec(value).expect("encode sample"),
        ));
    }
    if let Ok(entries) = fs::read_dir(spec.join("golden")) {
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            inputs.push((
                format!("golden-{name}"),
                fs::read(&path).expect("read golden"),
            ));
        }
    }
    if let Ok(entries) = fs::read_dir(spec.join("vectors")) {
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for path in paths {
            let text = fs::read_to_string(&path).expect("read vectors");
            let json: serde_json::Value = match serde_json::from_str(&text) {
                Ok(j) => j,
                Err(e) => panic!("{}: {e}", path.display()),
            };
            for v in json["vectors"].as_array().into_iter().flatten() {
                if let (Some(name), Some(hex)) = (v["name"].as_str(), v["hex"].as_str()) {
                    let bytes = hex_decode(hex)
                        .unwrap_or_else(|| panic!("{}: bad hex in {name}", path.display()));
                    inputs.push((format!("vector-{name}"), bytes));
                }
            }
        }
    }

    let mut records = Vec::new();
    for (name, bytes) in &inputs {
        write(&decode, name, bytes);
        // `arbitrary` reads any bytes; encodings make varied starting points.
        write(&roundtrip, name, bytes);
        // The take target's first byte picks the record type.
        for selector in 0..4u8 {
            let mut seed = vec![selector];
            seed.extend_from_slice(bytes);
            write(&take, &format!("{name}-{selector}"), &seed);
        }
        records.extend_from_slice(bytes);
    }
    // Records back to back, for the take target.
    let mut seed = vec![0u8];
    seed.extend_from_slice(&records);
    write(&take, "all-records", &seed);

    // Frames, batches and directories: every input (golden frames, frame,
    // directory and block vectors among them) plus encodings made here.
    let (frame, batch, directory) = (
        corpus.join("frame"),
        corpus.join("batch"),
        corpus.join("directory"),
    );
    let samples = kiln_fuzz::sample_values();
    let point = kiln_fuzz::Point { x: 9, y: -4 };
    let mut framed: Vec<(String, Vec<u8>)> = Vec::new();
    for (checksum, schema) in [(true, false), (false, false), (true, true), (false, true)] {
        let o = kiln::frame::FrameOptions::new()
            .checksum(checksum)
            .embed_schema(schema);
        let tag = format!("c{}s{}", checksum as u8, schema as u8);
        framed.push((format!("point-{tag}"), o.to_vec(&point).unwrap()));
        for (i, v) in samples.iter().enumerate() {
            let bytes = o.to_vec(v).unwrap();
            // The frame target compares values only if frames of the rich
            // type read; make sure its seeds do.
            let back: kiln_fuzz::RichOwned = kiln::frame::from_slice(&bytes).unwrap();
            assert!(kiln_fuzz::BitEq::bit_eq(&back, v), "framed sample {i}");
            let back: kiln_fuzz::RichOwned = kiln::frame::from_reader(&bytes[..]).unwrap();
            assert!(kiln_fuzz::BitEq::bit_eq(&back, v), "framed sample {i}");
            let borrowed: kiln_fuzz::RichRef<'_> = kiln::frame::from_slice(&bytes).unwrap();
            assert!(kiln_fuzz::BitEq::bit_eq(&borrowed.to_owned_rich(), v));
            framed.push((format!("rich-{i}-{tag}"), bytes));
        }
        let points = [point, kiln_fuzz::Point { x: -1, y: 2 }];
        framed.push((format!("points-{tag}"), o.batch_to_vec(&points).unwrap()));
        framed.push((format!("riches-{tag}"), o.batch_to_vec(&samples).unwrap()));
        let pairs = [(1u16, "a".to_string()), (2, String::new())];
        framed.push((format!("pairs-{tag}"), o.batch_to_vec(&pairs).unwrap()));
        framed.push((format!("units-{tag}"), o.batch_to_vec(&[(), ()]).unwrap()));
        let mut w = o.batch_writer::<_, kiln_fuzz::Point>(Vec::new()).unwrap();
        for p in points {
            w.push(&p).unwrap();
        }
        framed.push((format!("points-streamed-{tag}"), w.finish().unwrap()));
    }
    for (name, bytes) in inputs.iter().chain(&framed) {
        write(&frame, name, bytes);
        write(&directory, name, bytes);
        // The batch target's first byte picks the type and framed or bare.
        for selector in [0u8, 1, 2, 3, 0x80, 0x81, 0x82, 0x83] {
            let mut seed = vec![selector];
            seed.extend_from_slice(bytes);
            write(&batch, &format!("{name}-{selector:02x}"), &seed);
        }
    }
    let mut bare = vec![0u8];
    bare.extend(kiln::batch::to_vec(&[point, point]).unwrap());
    write(&batch, "bare-points", &bare);
    let mut bare = vec![1u8];
    bare.extend(kiln::batch::to_vec(&samples).unwrap());
    write(&batch, "bare-riches", &bare);
    for (i, (rank, len)) in [
        (vec![2, 3], 6usize),
        (vec![0], 0),
        (vec![], 1),
        (vec![70], 70),
    ]
    .into_iter()
    .enumerate()
    {
        let s = kiln_fuzz::Sample {
            label: "x".repeat(i * 30),
            image: kiln::Array::from_shape_vec(rank.clone(), (0..len).map(|k| k as f32).collect())
                .unwrap(),
            index: kiln::Array::from_shape_vec(rank, (0..len as u32).collect()).unwrap(),
        };
        write(
            &directory,
            &format!("sample-arrays-{i}"),
            &kiln::to_vec(&s).unwrap(),
        );
    }
    // Schema texts: every text of spec/vectors/schema.json, valid or not.
    let schema_text = corpus.join("schema_text");
    let file = fs::read_to_string(spec.join("vectors/schema.json")).expect("schema vectors");
    let json: serde_json::Value = serde_json::from_str(&file).expect("schema vectors JSON");
    for v in json["vectors"].as_array().expect("vectors") {
        let name = v["name"].as_str().expect("name");
        if let Some(text) = v["text"].as_str() {
            write(&schema_text, name, text.as_bytes());
        }
    }
    // Evolution: older versions of the evolve target's reader, and every
    // text of spec/vectors/evolution.json with its frame's record.
    let evolve = corpus.join("evolve");
    let input = |text: &str, payload: &[u8]| {
        let mut input = (text.len() as u16).to_le_bytes().to_vec();
        input.extend_from_slice(text.as_bytes());
        input.extend_from_slice(payload);
        input
    };
    let older = kiln_fuzz::evolve::Older {
        id: 7,
        name: "seven".into(),
        dropped: vec![(true, 'x'), (false, 'é')],
        score: 0.5,
        kind: kiln_fuzz::evolve::OlderKind::Gone("g".into()),
        items: vec![kiln_fuzz::evolve::OlderItem { v: -1 }],
        meta: [("k".to_string(), 3)].into_iter().collect(),
    };
    let older_text = kiln::schema::schema_of::<kiln_fuzz::evolve::Older>()
        .expect("schema")
        .text()
        .expect("text")
        .to_owned();
    write(
        &evolve,
        "older",
        &input(&older_text, &kiln::to_vec(&older).unwrap()),
    );
    let reader_text = kiln::schema::schema_of::<kiln_fuzz::evolve::Reader>()
        .expect("schema")
        .text()
        .expect("text")
        .to_owned();
    let reader = kiln_fuzz::evolve::Reader {
        id: 1,
        name: "r".into(),
        tags: vec!["t".into()],
        score: None,
        kind: kiln_fuzz::evolve::Kind::C { x: 1.0 },
        items: vec![kiln_fuzz::evolve::Item { v: 2, w: Some(3) }],
        meta: Default::default(),
    };
    write(
        &evolve,
        "reader",
        &input(&reader_text, &kiln::to_vec(&reader).unwrap()),
    );
    let file = fs::read_to_string(spec.join("vectors/evolution.json")).expect("evolution vectors");
    let json: serde_json::Value = serde_json::from_str(&file).expect("evolution vectors JSON");
    for v in json["vectors"].as_array().expect("vectors") {
        let name = v["name"].as_str().expect("name");
        let text = v["writer"].as_str().expect("writer");
        let frame = hex_decode(v["hex"].as_str().expect("hex")).expect("hex");
        let header = kiln::frame::FrameHeader::parse(&frame).expect("a frame");
        let payload = &frame[header.payload_offset as usize..];
        write(&evolve, name, &input(text, payload));
    }

    // Records: a piece size, a byte limit, then sequences of records, whole
    // and cut (the records target).
    let records = corpus.join("records");
    let sample = kiln_fuzz::records::Sample {
        at: [1.5, -2.0],
        id: 7,
        level: -3,
        flags: [1, 2],
    };
    let encodings = [
        kiln::to_vec(&vec![[1.0f32, 2.0, 3.0]; 40]).unwrap(),
        kiln::to_vec(&vec![sample; 300]).unwrap(),
        kiln::to_vec(&vec![[[9u16, 8], [7, 6]]; 5]).unwrap(),
    ];
    for (i, bytes) in encodings.iter().enumerate() {
        for (j, head) in [[0u8, 0], [7, 0], [3, 40]].iter().enumerate() {
            let mut input = head.to_vec();
            input.extend_from_slice(bytes);
            write(&records, &format!("records-{i}-{j}"), &input);
            input.truncate(input.len() - 3);
            write(&records, &format!("records-{i}-{j}-cut"), &input);
        }
    }

    // Values: every vector of spec/vectors/values.json, as the value
    // target's input (text length, text, record).
    let value = corpus.join("value");
    let file = fs::read_to_string(spec.join("vectors/values.json")).expect("values vectors");
    let json: serde_json::Value = serde_json::from_str(&file).expect("values vectors JSON");
    for v in json["vectors"].as_array().expect("vectors") {
        let name = v["name"].as_str().expect("name");
        let text = v["schema"].as_str().expect("schema");
        let hex = v["hex"].as_str().expect("hex");
        let mut input = (text.len() as u16).to_le_bytes().to_vec();
        input.extend_from_slice(text.as_bytes());
        input.extend(
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")),
        );
        write(&value, name, &input);
    }
    // Files: every vector of spec/vectors/file.json and the golden files.
    let files = corpus.join("file");
    let text = fs::read_to_string(spec.join("vectors/file.json")).expect("file vectors");
    let json: serde_json::Value = serde_json::from_str(&text).expect("file vectors JSON");
    for v in json["vectors"].as_array().expect("vectors") {
        let hex = v["hex"].as_str().expect("hex");
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect();
        write(&files, v["name"].as_str().expect("name"), &bytes);
    }
    for name in ["file-points-two-frames", "file-samples-indexed"] {
        let bytes = fs::read(spec.join(format!("golden/{name}.kiln"))).expect("golden file");
        write(&files, name, &bytes);
    }
    println!("wrote {} inputs into {}", inputs.len(), corpus.display());
}
