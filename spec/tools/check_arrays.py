#!/usr/bin/env python3
"""Independent check of spec/golden/arrays.kiln against spec/08-directory.md.

Reads the trailer and directory with `struct`, then views each block with
numpy's `frombuffer` at the listed offset and compares it with the values
the golden record holds (tests/common/arrays_golden.rs). Exits non-zero on
any mismatch.

Run: python3 spec/tools/check_arrays.py [path/to/arrays.kiln]
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


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "golden", "arrays.kiln")
    record = open(path, "rb").read()
    dir_offset, entries = parse(record)
    arrays = []
    prev_end = 0
    for dtype, shape, offset, length in entries:
        assert offset % 64 == 0, f"block at {offset} is not 64-aligned"
        assert offset >= prev_end and offset + length <= dir_offset, "block placement"
        dt = np.dtype(DTYPES[dtype])
        count = int(np.prod(shape, dtype=np.uint64)) if shape else 1
        assert count * dt.itemsize == length, "block length"
        arrays.append(np.frombuffer(record, dtype=dt, count=count, offset=offset).reshape(shape))
        prev_end = offset + length
    image, index = arrays
    assert image.dtype == np.float32 and image.shape == (3, 4, 5)
    assert np.array_equal(image.ravel(), np.arange(60, dtype=np.float32) * 0.5)
    assert index.dtype == np.uint32 and index.shape == (6, 3)
    assert np.array_equal(index.ravel(), np.arange(18, dtype=np.uint32))
    # The label comes first: count 4, "kiln", then zero padding to the image.
    assert record[:8] == b"\x04\0\0\0kiln" and record[8:64] == b"\0" * 56
    print(f"ok: {len(entries)} arrays in {os.path.basename(path)}: "
          + ", ".join(f"{a.dtype}{list(a.shape)}@{e[2]}" for a, e in zip(arrays, entries)))


if __name__ == "__main__":
    main()
