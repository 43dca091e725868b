//! Appending across runs, reading across frames, frame sizes, drop and
//! flush, frames of two types in one file.

use kiln::file::{FileOptions, FileWriter, KilnFile, Reader};
use serde::{Deserialize, Serialize};

use super::{Event, scratch};

#[test]
fn three_runs_append_and_read_back_in_order() {
    let path = scratch("three-runs").join("log.kiln");
    let mut next = 0;
    for run in 0..3u64 {
        let opts = FileOptions::new().frame_bytes(500);
        let mut w: FileWriter<Event> = opts.open(&path).unwrap();
        for _ in 0..(40 + run * 13) {
            w.push(&Event::nth(next)).unwrap();
            next += 1;
        }
        w.close().unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let read: Vec<Event> = kiln::file::records(&bytes)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(read, (0..next).map(Event::nth).collect::<Vec<_>>());

    let file = KilnFile::read(&path).unwrap();
    assert!(file.frames().len() > 3, "frames of about 500 bytes");
    assert_eq!(file.record_count(), next);
    assert!(file.stop().is_none());
    for f in file.frames() {
        assert_eq!(f.offset % 64, 0, "every frame at a multiple of 64");
        assert!(
            f.header.schema_text.is_some(),
            "files embed the schema text"
        );
    }
    // The same from a stream, and without the type.
    let streamed: Vec<Event> = Reader::new(std::fs::File::open(&path).unwrap())
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(streamed, read);
    let values: Vec<_> = file.values(None).collect::<Result<_, _>>().unwrap();
    assert_eq!(values.len() as u64, next);
    assert_eq!(
        values[5].get("text").and_then(|v| v.as_str()),
        Some(Event::nth(5).text.as_str())
    );
}

#[test]
fn drop_flushes_and_flush_makes_records_readable() {
    let path = scratch("drop").join("log.kiln");
    {
        let mut w = FileWriter::<Event>::open(&path).unwrap();
        w.push(&Event::nth(0)).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "buffered");
        w.flush().unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        assert!(len > 64);
        assert_eq!(w.file_len(), len);
        w.push(&Event::nth(1)).unwrap();
    } // dropped: flushes
    let file = KilnFile::read(&path).unwrap();
    let got: Vec<Event> = file.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(got, [Event::nth(0), Event::nth(1)]);
    assert_eq!(file.frames().len(), 2);
}

static DROP_ERRORS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

#[test]
fn write_errors_come_back_from_flush_and_reach_the_drop_hook() {
    // /dev/full takes no byte: every write fails with ENOSPC.
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let opts = FileOptions::new().on_drop_error(|path, e| {
        DROP_ERRORS
            .lock()
            .unwrap()
            .push(format!("{}: {}", path.display(), e.kind().code()));
    });
    let mut w: FileWriter<Event> = opts.open("/dev/full").unwrap();
    w.push(&Event::nth(0)).unwrap();
    let e = w.flush().unwrap_err();
    assert_eq!(e.kind().code(), "io");
    // The records stay for another try; the drop tries and reports.
    drop(w);
    assert_eq!(*DROP_ERRORS.lock().unwrap(), ["/dev/full: io"]);
    let mut w: FileWriter<Event> = opts.open("/dev/full").unwrap();
    w.push(&Event::nth(0)).unwrap();
    assert_eq!(w.close().unwrap_err().kind().code(), "io");
    assert_eq!(
        DROP_ERRORS.lock().unwrap().len(),
        1,
        "close returns, drop stays quiet"
    );
}

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct EventV2 {
    seq: u64,
    text: String,
}

#[test]
fn frames_of_another_type_are_refused_at_their_fingerprint() {
    let path = scratch("two-types").join("log.kiln");
    let mut w = FileWriter::<Event>::open(&path).unwrap();
    w.push(&Event::nth(0)).unwrap();
    w.push(&Event::nth(1)).unwrap();
    w.close().unwrap();
    let mut w = FileWriter::<EventV2>::open(&path).unwrap();
    w.push(&EventV2 {
        seq: 2,
        text: "v2".into(),
    })
    .unwrap();
    w.close().unwrap();

    let file = KilnFile::read(&path).unwrap();
    let second = file.frames()[1].offset;
    let mut records = file.records::<Event>();
    assert_eq!(records.next().unwrap().unwrap(), Event::nth(0));
    assert_eq!(records.next().unwrap().unwrap(), Event::nth(1));
    let e = records.next().unwrap().unwrap_err();
    assert_eq!(e.kind().code(), "schema-mismatch");
    assert_eq!(e.offset(), Some(second + 16));
    assert!(records.next().is_none());
    // A reader of the new type stops at the first frame.
    let e = file.records::<EventV2>().next().unwrap().unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("schema-mismatch", Some(16)));
    // Without the type, each frame by its own schema text.
    let values: Vec<_> = file.values(None).collect::<Result<_, _>>().unwrap();
    assert_eq!(values.len(), 3);
    assert_eq!(values[2].get("text").and_then(|v| v.as_str()), Some("v2"));
}

#[test]
fn a_record_the_schema_check_refuses_is_left_out() {
    // A record that fails to serialize leaves the frame as it was.
    #[derive(Serialize, kiln::Schema)]
    struct Bad {
        #[kiln(with = u32)]
        #[serde(serialize_with = "fail")]
        x: u32,
    }
    fn fail<S: serde::Serializer>(_: &u32, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("no"))
    }
    let path = scratch("refused").join("bad.kiln");
    let mut w = FileWriter::<Bad>::open(&path).unwrap();
    let e = w.push(&Bad { x: 1 }).unwrap_err();
    assert_eq!(e.record(), Some(0));
    w.close().unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
}

#[test]
fn a_streamed_last_frame_cannot_be_appended_to() {
    let path = scratch("streamed").join("s.kiln");
    let mut fw = kiln::frame::FrameOptions::new()
        .batch_writer::<_, Event>(std::fs::File::create(&path).unwrap())
        .unwrap();
    fw.push(&Event::nth(0)).unwrap();
    fw.finish().unwrap();
    let e = FileWriter::<Event>::open(&path).unwrap_err();
    assert_eq!((e.kind().code(), e.offset()), ("streamed-tail", Some(0)));
    // It reads as the last frame of a file.
    let bytes = std::fs::read(&path).unwrap();
    let got: Vec<Event> = kiln::file::records(&bytes)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(got, [Event::nth(0)]);
}
