#!/usr/bin/env python3
"""Writes spec/vectors/file.json from the layout in spec/11-file.md.

Files are assembled here byte by byte (frames, padding between them, the
indexed payload of records with arrays), with the standard library only:
hashlib for fingerprints and the CRC-32C of fingerprint.py. They share no
code with the Rust crate; tests/spec/vectors_file.rs runs them.

Each vector has `records`: the records a reader yields before it stops,
and, for a must-reject vector, the `error` code and `offset` (in the
file) of what stops it.

Run: python3 spec/tools/gen_file_vectors.py
"""
import hashlib
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fingerprint import crc32c  # noqa: E402  (the CRC-32C of the spec tools)

MAGIC = bytes([0x89]) + b"KILN\r\n\x1a"
END_MAGIC = MAGIC[::-1]
DIR_MAGIC = b"KILNDIR1"
CHECKSUM, SCHEMA, STREAMED, DIRECTORY, INDEXED = 1, 2, 4, 8, 16

POINT = "root Point\nstruct Point { x: i32, y: i32 }\n"
POINT3 = "root Point3\nstruct Point3 { x: i32, y: i32, z: i32 }\n"
SAMPLE = "root Sample\nstruct Sample { label: str, pixels: array<u16> }\n"


def fingerprint(text):
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def align(n, to):
    return (n + to - 1) // to * to


def frame(text, payload, count, flags=CHECKSUM, embed=False, streamed=False):
    """One frame: header, schema text if `embed`, payload (and trailer)."""
    if embed:
        flags |= SCHEMA
    if streamed:
        flags |= STREAMED
    body = text.encode() if embed else b""
    crc = crc32c(payload) if flags & CHECKSUM else 0
    head = MAGIC + struct.pack("<HHI", 1, flags, len(body))
    head += struct.pack("<Q", fingerprint(text))
    if streamed:
        head += struct.pack("<QQI", 2**64 - 1, 2**64 - 1, 0)
    else:
        head += struct.pack("<QQI", count, len(payload), crc)
    head += bytes(20)
    head += body
    head += bytes(align(len(head), 64) - len(head))
    tail = b""
    if streamed:
        tail = struct.pack("<QQII", count, len(payload), crc, 0) + END_MAGIC
    return head + payload + tail


def file(*frames):
    """Frames back to back, each at a multiple of 64 from the file's start."""
    out = b""
    for f in frames:
        if out:
            out += bytes(align(len(out), 64) - len(out))
        out += f
    return out


def point(x, y):
    return struct.pack("<ii", x, y)


def points(*xy):
    return b"".join(point(x, y) for x, y in xy)


def sample(label, pixels):
    """A Sample record: its values, one u16 block at 64, its directory."""
    values = struct.pack("<I", len(label)) + label.encode()
    values += bytes(align(len(values), 64) - len(values))
    block_at = len(values)
    values += b"".join(struct.pack("<H", p) for p in pixels)
    entry = bytes([0x03, 1]) + bytes(6) + struct.pack("<QQQ", block_at, 2 * len(pixels), len(pixels))
    return values + entry + struct.pack("<QII", len(values), 1, 0) + DIR_MAGIC


def indexed(records, ends=None, gap=b"\0"):
    """An indexed payload: each record at a multiple of 64, the index of
    their ends after the last one (padded to 8)."""
    out, real_ends = b"", []
    for r in records:
        if out:
            out += gap * (align(len(out), 64) - len(out))
        out += r
        real_ends.append(len(out))
    out += bytes(align(len(out), 8) - len(out))
    return out + b"".join(struct.pack("<Q", e) for e in (ends or real_ends))


vectors = []


def add(name, ty, data, records, error=None, offset=None, comment=None):
    v = {"name": "kiln-file-" + name, "mode": "file", "type": ty, "hex": data.hex(), "records": records}
    if error:
        v["error"], v["offset"] = error, offset
    if comment:
        v["comment"] = comment
    vectors.append(v)


P = [{"x": 9, "y": -4}, {"x": 1, "y": 2}, {"x": -1, "y": 0}]
f1 = frame(POINT, points((9, -4), (1, 2)), 2)
f2 = frame(POINT, points((-1, 0)), 1)
two = file(f1, f2)
end1 = len(f1)
start2 = align(end1, 64)

add("points-two-frames", "Point", two, P,
    comment="frames of 2 and 1 Points, the second at the next multiple of 64")
add("empty", "Point", b"", [])
add("points-schema-text", "Point",
    file(frame(POINT, points((9, -4)), 1, embed=True), frame(POINT, points((1, 2)), 1, embed=True)),
    P[:2])
add("points-streamed-last", "Point",
    file(f1, frame(POINT, points((-1, 0)), 1, streamed=True)), P,
    comment="a streamed frame may end a file")

S = [{"label": "a", "pixels": [1, 2]}, {"label": "bc", "pixels": [3]}]
samples = [sample("a", [1, 2]), sample("bc", [3])]
add("samples-indexed", "Sample", file(frame(SAMPLE, indexed(samples), 2, flags=CHECKSUM | INDEXED)), S,
    comment="records with arrays: two records at 0 and 128 of the payload, index of their ends")

# Torn tails: every cut after the first frame is truncated-tail at its end.
add("torn-padding", "Point", two[:end1 + 10], P[:2], "truncated-tail", end1,
    "the file ends in the padding before the second frame")
add("torn-header", "Point", two[:start2 + 30], P[:2], "truncated-tail", end1,
    "the file ends inside the second frame's header")
add("torn-payload", "Point", two[:-3], P[:2], "truncated-tail", end1,
    "the file ends inside the second frame's payload")
streamed_cut = file(f1, frame(POINT, points((-1, 0)), 1, streamed=True))[:-5]
add("torn-streamed", "Point", streamed_cut, P[:2], "truncated-tail", end1,
    "a streamed last frame without its whole trailer")

# Damage that is not a torn tail.
bad_pad = two[:end1] + b"\x07" + two[end1 + 1:]
add("padding-nonzero", "Point", bad_pad, P[:2], "padding-nonzero", end1)
add("not-a-frame", "Point", two[:start2] + b"NOTAFRAME" + bytes(60), P[:2], "bad-magic", start2)
crc_bad = two[:-1] + bytes([two[-1] ^ 1])
add("checksum", "Point", crc_bad, P[:2], "checksum-mismatch", start2 + 40)
other = file(f1, frame(POINT3, struct.pack("<iii", 1, 2, 3), 1))
add("other-fingerprint", "Point", other, P[:2], "schema-mismatch", start2 + 16,
    "the second frame was written from another type")
add("indexed-streamed", "Point",
    file(f1, frame(POINT, points((-1, 0)), 1, flags=CHECKSUM | INDEXED, streamed=True)),
    P[:2], "header-field", start2 + 10, "INDEXED needs the length in the header")

# Indexed payloads.
five = [sample("r%d" % i, [i, i + 1]) for i in range(5)]
FIVE = [{"label": "r%d" % i, "pixels": [i, i + 1]} for i in range(5)]


def indexed_file(payload, count=5):
    return file(frame(SAMPLE, payload, count, flags=CHECKSUM | INDEXED))


base = 64  # the payload's offset in a file of one frame without text
add("indexed-five", "Sample", indexed_file(indexed(five)), FIVE)

# Record 3's block runs into record 4: its length says 4 elements, past
# its own directory. Each record's directory is checked inside the record.
r3 = bytearray(five[3])
struct.pack_into("<QQ", r3, 64 + 2 * 2 + 16, 8, 4)  # block length 8, dimension 4
entry_at = 64 + 4  # values: label (6 bytes) padded to 64, block of 4 bytes
over = five[:3] + [bytes(r3)] + five[4:]
rec3_at = base + 3 * 128
add("indexed-record-3-block-into-record-4", "Sample", indexed_file(indexed(over)), FIVE[:3],
    "block-out-of-bounds", rec3_at + entry_at + 8,
    "record 3's directory claims a block that runs past its own values, into record 4")

payload = indexed(five)
index_at = len(payload) - 40
ends = [struct.unpack_from("<Q", payload, index_at + 8 * k)[0] for k in range(5)]
bad_ends = ends[:]
bad_ends[2] = 200  # record 2 starts at 256
add("indexed-end-before-start", "Sample", indexed_file(indexed(five, ends=bad_ends)), [],
    "record-index", base + index_at + 16, "record 2 ends before it starts")
bad_ends = ends[:]
bad_ends[4] = index_at + 8
add("indexed-end-past-index", "Sample", indexed_file(indexed(five, ends=bad_ends)), [],
    "record-index", base + index_at + 32, "record 4 ends inside the index")
add("indexed-count-too-large", "Sample", indexed_file(payload, count=1000), [],
    "record-index", base + len(payload), "1000 records need 8000 bytes of index")
add("indexed-gap-nonzero", "Sample", indexed_file(indexed(five, gap=b"\x01")), [],
    "padding-nonzero", base + ends[0], "a byte between record 0 and record 1 is not zero")
bare = five[:2] + [five[2][:-24]] + five[3:]  # record 2 without its trailer
add("indexed-record-without-directory", "Sample", indexed_file(indexed(bare)), FIVE[:2],
    "directory-missing", base + 256 + len(five[2]) - 24,
    "every record of an indexed frame ends with a directory, empty or not")

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "vectors", "file.json")
with open(out, "w") as f:
    json.dump({"area": "file", "vectors": vectors}, f, indent=2)
    f.write("\n")
print("wrote %d vectors to %s" % (len(vectors), os.path.relpath(out)))
