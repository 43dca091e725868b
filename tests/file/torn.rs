//! A file cut at every byte of its last frame: the records of the
//! complete frames, then `truncated-tail` at the last complete frame's
//! end; the writer refuses the file or cuts it back when asked.

use kiln::file::{FileOptions, FileWriter, KilnFile, Reader};

use super::{Event, scratch};

/// A file of two frames (8 and 5 records); returns it and where the first
/// frame ends.
fn two_frames(path: &std::path::Path) -> (Vec<u8>, u64) {
    let mut w = FileWriter::<Event>::open(path).unwrap();
    for i in 0..8 {
        w.push(&Event::nth(i)).unwrap();
    }
    w.flush().unwrap();
    let first_end = w.file_len();
    for i in 8..13 {
        w.push(&Event::nth(i)).unwrap();
    }
    w.close().unwrap();
    (std::fs::read(path).unwrap(), first_end)
}

#[test]
fn every_cut_of_the_last_frame_is_a_truncated_tail() {
    let dir = scratch("cuts");
    let (bytes, first_end) = two_frames(&dir.join("full.kiln"));
    let full: Vec<Event> = kiln::file::records(&bytes)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(full.len(), 13);
    for cut in first_end as usize + 1..bytes.len() {
        let part = &bytes[..cut];
        let mut got = Vec::new();
        let mut err = None;
        for r in kiln::file::records::<Event>(part) {
            match r {
                Ok(e) => got.push(e),
                Err(e) => err = Some(e),
            }
        }
        assert_eq!(got, full[..8], "cut at {cut}: the first frame's records");
        let e = err.unwrap_or_else(|| panic!("cut at {cut}: no error"));
        assert_eq!(e.kind().code(), "truncated-tail", "cut at {cut}: {e}");
        assert_eq!(e.offset(), Some(first_end), "cut at {cut}");
        // The same from a stream.
        let streamed: Vec<_> = Reader::<_, Event>::new(part).collect();
        assert_eq!(streamed.len(), 9);
        let e = streamed[8].as_ref().unwrap_err();
        assert_eq!(
            (e.kind().code(), e.offset()),
            ("truncated-tail", Some(first_end))
        );
        // And for a mapped or read file.
        let file = KilnFile::from_bytes(part);
        assert_eq!(file.frames().len(), 1);
        assert_eq!(file.stop().map(|e| e.kind().code()), Some("truncated-tail"));
    }
}

#[test]
fn the_writer_refuses_a_torn_file_unless_told_to_cut_it() {
    let dir = scratch("refuse");
    let path = dir.join("log.kiln");
    let (bytes, first_end) = two_frames(&path);
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let e = FileWriter::<Event>::open(&path).unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset()),
        ("truncated-tail", Some(first_end))
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        bytes.len() as u64 - 3,
        "untouched"
    );

    let mut w: FileWriter<Event> = FileOptions::new()
        .truncate_torn_tail(true)
        .open(&path)
        .unwrap();
    assert_eq!(w.file_len(), first_end);
    w.push(&Event::nth(100)).unwrap();
    w.close().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let got: Vec<Event> = kiln::file::records(&bytes)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(got.len(), 9);
    assert_eq!(got[8], Event::nth(100));
}

#[test]
fn a_damaged_last_frame_is_not_a_torn_one() {
    let dir = scratch("damaged");
    let path = dir.join("log.kiln");
    let (mut bytes, _) = two_frames(&path);
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let e = FileWriter::<Event>::open(&path).unwrap_err();
    assert_eq!(e.kind().code(), "checksum-mismatch");
    let e = kiln::file::records::<Event>(&bytes)
        .nth(8)
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind().code(), "checksum-mismatch");
}

#[test]
fn bytes_that_are_not_a_frame_after_one_are_refused() {
    let dir = scratch("garbage");
    let (mut bytes, first_end) = two_frames(&dir.join("log.kiln"));
    bytes.truncate(first_end as usize);
    bytes.extend_from_slice(&[0, 0, 7]);
    let e = kiln::file::records::<Event>(&bytes)
        .nth(8)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        (e.kind().code(), e.offset()),
        ("padding-nonzero", Some(first_end + 2))
    );
    bytes.truncate(first_end as usize);
    bytes.resize(bytes.len().next_multiple_of(64), 0);
    bytes.extend_from_slice(b"not a frame, clearly");
    let e = kiln::file::records::<Event>(&bytes)
        .nth(8)
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind().code(), "bad-magic");
}

/// Found by the `file` fuzz target: frames of zero-byte records may claim
/// any count, and the running record number across frames must not
/// overflow (it saturates: such a file cannot be read to its end anyway).
#[test]
fn record_counts_that_overflow_across_frames_do_not_panic() {
    let one = kiln::frame::batch_to_vec(&[()]).unwrap();
    assert_eq!(one.len(), 64, "a header and an empty payload");
    let mut frame = one.clone();
    frame[24..32].copy_from_slice(&(1u64 << 63).to_le_bytes());
    let bytes = [frame.clone(), frame.clone(), frame].concat();
    let file = KilnFile::from_bytes(&bytes);
    assert_eq!(file.frames().len(), 3);
    assert_eq!(file.record_count(), u64::MAX);
    let firsts: Vec<u64> = kiln::file::read_frames(&bytes)
        .map(|f| f.unwrap().first_record)
        .collect();
    assert_eq!(firsts, [0, 1 << 63, u64::MAX]);
    assert!(file.arrays().unwrap().is_empty());
}

/// Found by the `file` fuzz target: a frame whose header claims more than
/// the byte limit, in a stream that ends before the limit, is a torn tail
/// as from a slice (not `byte-limit`). Only a stream has a byte limit
/// (spec 9.2): past it, the stream reader says `byte-limit` at the payload.
#[test]
fn a_stream_cut_short_within_the_byte_limit_is_a_torn_tail_as_from_a_slice() {
    let dir = scratch("limit");
    let (bytes, first_end) = two_frames(&dir.join("log.kiln"));
    let options = kiln::frame::FrameOptions::new().decode(kiln::Options::new().byte_limit(300));
    let read = |part: &[u8]| {
        let slice: Vec<_> = kiln::file::records_with::<Event>(part, options)
            .map(|r| r.map_err(|e| (e.kind().code(), e.offset())))
            .collect();
        let stream: Vec<_> = Reader::<_, Event>::with_options(part, options)
            .map(|r| r.map_err(|e| (e.kind().code(), e.offset())))
            .collect();
        (slice, stream)
    };
    let payload = 192; // 64 + the schema text, padded to 64
    assert!(first_end > 301, "the first frame is over the limit");
    for cut in [150, payload, 250, 300] {
        let (slice, stream) = read(&bytes[..cut]);
        assert_eq!(slice, stream, "cut at {cut}");
        assert_eq!(stream, [Err(("truncated-tail", Some(0)))], "cut at {cut}");
    }
    for cut in [301, first_end as usize - 1, bytes.len()] {
        let (_, stream) = read(&bytes[..cut]);
        assert_eq!(
            stream,
            [Err(("byte-limit", Some(payload as u64)))],
            "cut at {cut}"
        );
    }
    assert_eq!(read(&bytes).0.len(), 13, "a slice has no byte limit");
}
