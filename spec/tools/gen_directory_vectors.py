#!/usr/bin/env python3
"""Writes spec/vectors/directory.json from the layout in spec/08-directory.md.

The records are assembled here byte by byte, independently of the Rust
encoder; tests/vectors_directory.rs checks the Rust code against them.
Each must-reject vector breaks one rule of the chapter and names the error
code and offset the chapter says a reader reports.

Run: python3 spec/tools/gen_directory_vectors.py
"""
import json
import os
import struct

MAGIC = b"KILNDIR1"
SIZES = {0x01: 1, 0x02: 1, 0x03: 2, 0x04: 2, 0x05: 4, 0x06: 4, 0x07: 8,
         0x08: 8, 0x09: 16, 0x0a: 16, 0x0b: 4, 0x0c: 8}


def entry(dtype, shape, offset, length, reserved=b"\0" * 6, rank=None):
    rank = len(shape) if rank is None else rank
    return (bytes([dtype, rank]) + reserved + struct.pack("<QQ", offset, length)
            + b"".join(struct.pack("<Q", d) for d in shape))


def trailer(dir_offset, count, reserved=0):
    return struct.pack("<QII", dir_offset, count, reserved) + MAGIC


def record(values, entries, count=None, dir_offset=None):
    """values: the record's values (blocks included); entries: bytes each."""
    d = len(values) if dir_offset is None else dir_offset
    n = len(entries) if count is None else count
    return values + b"".join(entries) + trailer(d, n)


def pad_to(b, n):
    assert len(b) <= n
    return b + b"\0" * (n - len(b))


def put(b, at, new):
    return b[:at] + new + b[at + len(new):]


vectors = []


def valid(name, ty, value, hexbytes):
    vectors.append({"name": "kiln-directory-" + name, "type": ty,
                    "value": value, "hex": hexbytes.hex()})


def reject(name, ty, b, error, offset, mode=None, **extra):
    v = {"name": "kiln-directory-" + name}
    if ty is not None:
        v["type"] = ty
    v.update({"hex": b.hex(), "error": error, "offset": offset})
    if mode:
        v["mode"] = mode
    v.update(extra)
    vectors.append(v)


# ----- valid -----
# A rank-0 f32 array: block at 0, directory at 4.
scalar = record(struct.pack("<f", 1.5), [entry(0x0b, [], 0, 4)])
valid("scalar-f32", "Array<f32>", {"shape": [], "data": [1.5]}, scalar)

# An empty u8 array [0]: an empty block at 0, directory at 0.
empty = record(b"", [entry(0x01, [0], 0, 0)])
valid("empty-u8", "Array<u8>", {"shape": [0], "data": []}, empty)

# A label, then a u16 array [2, 2]: "hi" takes 6 bytes, padding to 64.
labeled_values = pad_to(b"\x02\0\0\0hi", 64) + struct.pack("<4H", 1, 2, 3, 0xffff)
labeled = record(labeled_values, [entry(0x03, [2, 2], 64, 8)])
valid("label-then-u16", "Labeled<u16>",
      ["hi", {"shape": [2, 2], "data": [1, 2, 3, 65535]}], labeled)

# Two arrays: u8 [3] at 0, u16 [2] at 64; directory at 68, trailer at 132.
two_values = pad_to(b"\x01\x02\x03", 64) + struct.pack("<2H", 258, 772)
two_entries = [entry(0x01, [3], 0, 3), entry(0x03, [2], 64, 4)]
two = record(two_values, two_entries)
assert len(two) == 156
valid("two-arrays", "Two",
      [{"shape": [3], "data": [1, 2, 3]}, {"shape": [2], "data": [258, 772]}], two)

# ----- must reject: the directory (checked with or without the type) -----
# Offsets in `two`: entry 0 at 68 (dtype 68, rank 69, reserved 70..76,
# offset 76, length 84, dim 92); entry 1 at 100 (dtype 100, rank 101,
# reserved 102..108, offset 108, length 116, dim 124); trailer at 132
# (directory offset 132, count 140, reserved 144, magic 148).
reject("directory-offset-past-trailer", None, put(two, 132, struct.pack("<Q", 133)),
       "directory-offset", 132, mode="list")
reject("trailer-reserved-not-zero", None, put(two, 145, b"\x01"),
       "directory-reserved", 145, mode="list")
reject("entry-reserved-not-zero", None, put(two, 72, b"\x05"),
       "directory-reserved", 72, mode="list")
reject("count-too-large-for-directory", None, put(two, 140, struct.pack("<I", 3)),
       "directory-length", 140, mode="list")
reject("count-huge", None, put(two, 140, struct.pack("<I", 0xffffffff)),
       "directory-length", 140, mode="list")
reject("directory-bytes-left-over", None, put(two, 140, struct.pack("<I", 1)),
       "directory-length", 100, mode="list")
# Rule 5.1: the second entry has 16 bytes before the trailer, not 24 (the
# first, of rank 3, took 48 of the 64 that rule 4 allows for two entries).
short_entry = record(b"\x01", [entry(0x01, [1, 1, 1], 0, 1), b"\0" * 16], count=2)
reject("entry-cut-by-trailer", None, short_entry, "directory-length", 49, mode="list")
# Rule 5.5: entry 1 claims rank 2, but only one dimension fits before t.
reject("dimensions-past-trailer", None, put(two, 101, b"\x02"),
       "directory-length", 100, mode="list")
reject("unknown-dtype-0d", None, put(two, 100, b"\x0d"), "unknown-dtype", 100, mode="list")
reject("unknown-dtype-00", None, put(two, 68, b"\x00"), "unknown-dtype", 68, mode="list")
reject("rank-above-8", None, put(two, 69, b"\x09"), "rank-limit", 69, mode="list")
reject("dimension-above-limit", None, put(two, 92, struct.pack("<Q", 1 << 53)),
       "dimension-limit", 92, mode="list")
# Rank 2 with dimensions 2^40 x 2^40: the element count overflows 64 bits.
overflow = record(b"", [entry(0x01, [1 << 40, 1 << 40], 0, 0)])
reject("element-count-overflows", None, overflow, "array-size-overflow", 24, mode="list")
# 2^52 x 2^11 u128 elements: the count fits, times 16 bytes does not.
overflow16 = record(b"", [entry(0x09, [1 << 52, 1 << 11], 0, 0)])
reject("byte-count-overflows", None, overflow16, "array-size-overflow", 24, mode="list")
reject("block-length-wrong", None, put(two, 84, struct.pack("<Q", 4)),
       "block-length", 84, mode="list")
reject("block-misaligned", None, put(two, 108, struct.pack("<Q", 65)),
       "block-misaligned", 108, mode="list")
swapped = put(put(two, 76, struct.pack("<Q", 64)), 108, struct.pack("<Q", 0))
reject("blocks-out-of-order", None, swapped, "block-order", 108, mode="list")
reject("blocks-overlap", None, put(two, 108, struct.pack("<Q", 0)),
       "block-overlap", 108, mode="list")
reject("block-past-directory", None, put(two, 108, struct.pack("<Q", 128)),
       "block-out-of-bounds", 108, mode="list")
reject("block-end-overflows", None,
       put(put(put(two, 108, struct.pack("<Q", 0xffffffffffffffc0)), 116,
               struct.pack("<Q", 128)), 124, struct.pack("<Q", 64)),
       "block-out-of-bounds", 108, mode="list")

# ----- must reject: the record against the directory (needs the type) -----
reject("padding-not-zero", "Two", put(two, 10, b"\xff"), "padding-nonzero", 10)
# Entry 0 says 64, but the first array starts the record (at 0).
moved = record(pad_to(b"", 128) + b"\0" * 4,
               [entry(0x01, [3], 64, 3), entry(0x03, [2], 128, 4)])
reject("array-not-where-entry-says", "Two", moved, "array-position", 0)
reject("dtype-not-the-readers", "Two", put(two, 68, b"\x02"), "dtype-mismatch", 0)
one_entry = record(b"\x01\x02\x03", [entry(0x01, [3], 0, 3)])
reject("more-arrays-than-entries", "Two", one_entry, "array-count", 3)
reject("more-entries-than-arrays", "Array<u8>", two, "array-count", 3)
gap = record(b"\x01\x02\x03\x00", [entry(0x01, [3], 0, 3)])
reject("values-end-before-directory", "Array<u8>", gap, "directory-position", 3)
# The directory offset points before the first array (d = 2 in `labeled`,
# whose array is met at 6; trailer at 112): without the type, the entries
# are read from 2 and the first is refused; a typed reader, which finds the
# directory at the first array, refuses the offset itself (8.6, rule 2a).
assert len(labeled) == 136
before = put(labeled, 112, struct.pack("<Q", 2))
reject("directory-before-first-array-list", None, before, "unknown-dtype", 2, mode="list")
reject("directory-before-first-array", "Labeled<u16>", before, "directory-position", 112)
reject("no-directory", "Array<u8>", b"\x01\x02\x03", "directory-missing", 3)
reject("magic-wrong", "Array<u8>", put(one_entry, len(one_entry) - 1, b"2"),
       "directory-missing", len(one_entry))
reject("records-back-to-back", "Array<u8>", one_entry, "record-end-unknown", 0, mode="take")
reject("fetch-index-past-entries", None, one_entry, "array-index", 3,
       mode="fetch", index=1, element="u8")
reject("fetch-wrong-dtype", None, two, "dtype-mismatch", 64,
       mode="fetch", index=1, element="u8")
reject("directory-without-arrays", "u8", b"\x07" + trailer(1, 0),
       "trailing-bytes", 1)

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "vectors", "directory.json")
with open(out, "w") as f:
    json.dump({"area": "directory", "vectors": vectors}, f, indent=1)
    f.write("\n")
print(f"wrote {len(vectors)} vectors to {os.path.normpath(out)}")
