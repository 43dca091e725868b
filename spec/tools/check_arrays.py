#!/usr/bin/env python3
"""Independent check of spec/golden/arrays.kiln and arrays-framed.kiln
against spec/06-frame.md and spec/08-directory.md.

Reads the trailer and directory with `struct`, then views each block with
numpy's `frombuffer` at the listed offset and compares it with the values
the golden record holds (tests/common/arrays_golden.rs). For the framed
file it first checks the 64-byte frame header (magic, version, flags with
DIRECTORY set, count 1, payload length, CRC-32C), then reads the directory
in the payload and views the blocks at their offsets from the start of the
file, each a multiple of 64. Exits non-zero on any mismatch.

Run: python3 spec/tools/check_arrays.py [arrays.kiln [arrays-framed.kiln]]
"""
import os
import struct
import sys

import numpy as np

DTYPES = {0x01: "<u1", 0x02: "<i1", 0x03: "<u2", 0x04: "<i2", 0x05: "<u4",
          0x06: "<i4", 0x07: "<u8", 0x08: "<i8", 0x0b: "<f4", 0x0c: "<f8"}
# 0x09/0x0a (u128/i128) have no numpy dtype; the golden record has none.


def parse(record):
    assert record[-8:] == b"KILNDIR1", "magic"
    dir_offset, count, reserved = struct.unpack_from("<QII", record, len(record) - 24)
    assert reserved == 0, "trailer reserved"
    entries, p = [], dir_offset
    for _ in range(count):
        dtype, rank = record[p], record[p + 1]
        assert record[p + 2:p + 8] == b"\0" * 6, "entry reserved"
        offset, length = struct.unpack_from("<QQ", record, p + 8)
        shape = struct.unpack_from(f"<{rank}Q", record, p + 24)
        entries.append((dtype, shape, offset, length))
        p += 24 + 8 * rank
    assert p == len(record) - 24, "directory fills the space before the trailer"
    return dir_offset, entries


def crc32c(data):
    """CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


FLAG_CHECKSUM, FLAG_SCHEMA, FLAG_STREAMED, FLAG_DIRECTORY = 1, 2, 4, 8


def parse_frame(data):
    """Checks a single-record frame's header; returns the payload offset."""
    (magic, version, flags, schema_len, _fp, count, length, crc,
     reserved) = struct.unpack_from("<8sHHIQQQI20s", data, 0)
    assert magic == b"\x89KILN\r\n\x1a", "frame magic"
    assert version == 1, "frame version"
    assert flags & ~0xF == 0, "reserved flag bits"
    assert flags & FLAG_DIRECTORY, "the DIRECTORY flag (the record holds arrays)"
    assert not flags & FLAG_STREAMED and count == 1, "one record, not streamed"
    assert reserved == b"\0" * 20, "header reserved bytes"
    assert flags & FLAG_SCHEMA or schema_len == 0, "schema_len without SCHEMA"
    start = (64 + schema_len + 63) // 64 * 64
    assert start + length == len(data), "payload length"
    assert crc == (crc32c(data[start:]) if flags & FLAG_CHECKSUM else 0), "crc32c"
    return start


def blocks(data, base, record):
    """The arrays of `record`, which starts at byte `base` of `data`, viewed
    in `data` at their offsets from its start."""
    dir_offset, entries = parse(record)
    arrays = []
    prev_end = 0
    for dtype, shape, offset, length in entries:
        assert offset % 64 == 0, f"block at {offset} is not 64-aligned"
        assert offset >= prev_end and offset + length <= dir_offset, "block placement"
        dt = np.dtype(DTYPES[dtype])
        count = int(np.prod(shape, dtype=np.uint64)) if shape else 1
        assert count * dt.itemsize == length, "block length"
        at = base + offset
        assert at % 64 == 0, f"block at {at} of the file is not 64-aligned"
        arrays.append(np.frombuffer(data, dtype=dt, count=count, offset=at).reshape(shape))
        prev_end = offset + length
    return entries, arrays


def check(path, framed):
    data = open(path, "rb").read()
    base = parse_frame(data) if framed else 0
    record = data[base:]
    entries, arrays = blocks(data, base, record)
    image, index = arrays
    assert image.dtype == np.float32 and image.shape == (3, 4, 5)
    assert np.array_equal(image.ravel(), np.arange(60, dtype=np.float32) * 0.5)
    assert index.dtype == np.uint32 and index.shape == (6, 3)
    assert np.array_equal(index.ravel(), np.arange(18, dtype=np.uint32))
    # The label comes first: count 4, "kiln", then zero padding to the image.
    assert record[:8] == b"\x04\0\0\0kiln" and record[8:64] == b"\0" * 56
    print(f"ok: {len(entries)} arrays in {os.path.basename(path)}: "
          + ", ".join(f"{a.dtype}{list(a.shape)}@{base + e[2]}" for a, e in zip(arrays, entries)))
    return record


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    golden = os.path.join(here, "..", "golden")
    bare = sys.argv[1] if len(sys.argv) > 1 else os.path.join(golden, "arrays.kiln")
    framed = sys.argv[2] if len(sys.argv) > 2 else os.path.join(golden, "arrays-framed.kiln")
    record = check(bare, framed=False)
    assert check(framed, framed=True) == record, "the framed payload is the bare record"


if __name__ == "__main__":
    main()
