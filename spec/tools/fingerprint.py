#!/usr/bin/env python3
"""Independent check of Kiln schema fingerprints and golden frames.

Uses only Python's standard library (hashlib for SHA-256, and CRC-32C
written out below), so it shares no code with the Rust implementation.

    python3 spec/tools/fingerprint.py            # check vectors and golden frames
    python3 spec/tools/fingerprint.py FILE...    # print the fingerprint of each text file

The fingerprint of a canonical schema text is the first 8 bytes of the
SHA-256 digest of its UTF-8 bytes, read as a little-endian unsigned 64-bit
integer, shown as 16 lowercase hex digits (spec/05-schema.md).
"""

import hashlib
import json
import pathlib
import struct
import sys

SPEC = pathlib.Path(__file__).resolve().parent.parent
MAGIC = bytes([0x89]) + b"KILN\r\n\x1a"
END_MAGIC = MAGIC[::-1]
FLAG_CHECKSUM, FLAG_SCHEMA, FLAG_STREAMED = 1, 2, 4


def fingerprint(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "%016x" % int.from_bytes(digest[:8], "little")


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), reflected, init and final xor 0xffffffff."""
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def check_frame(name: str, data: bytes, point_fp: str) -> list:
    """Checks a golden frame of Points; returns a list of problems."""
    bad = []
    if data[:8] != MAGIC:
        return [f"{name}: bad magic"]
    version, flags, schema_len = struct.unpack_from("<HHI", data, 8)
    fp = "%016x" % struct.unpack_from("<Q", data, 16)[0]
    count, length, crc = struct.unpack_from("<QQI", data, 24)
    if version != 1:
        bad.append(f"{name}: version {version}")
    if flags & ~7:
        bad.append(f"{name}: reserved flags {flags:#x}")
    if any(data[44:64]):
        bad.append(f"{name}: reserved header bytes set")
    if fp != point_fp:
        bad.append(f"{name}: fingerprint {fp}, Point is {point_fp}")
    offset = 64
    if flags & FLAG_SCHEMA:
        text = data[64 : 64 + schema_len].decode("utf-8")
        if fingerprint(text) != fp:
            bad.append(f"{name}: embedded text hashes to {fingerprint(text)}, header says {fp}")
        offset = 64 + (schema_len + 63) // 64 * 64
        if any(data[64 + schema_len : offset]):
            bad.append(f"{name}: schema padding set")
    if offset % 64:
        bad.append(f"{name}: payload at {offset}")
    if flags & FLAG_STREAMED:
        payload, trailer = data[offset:-32], data[-32:]
        if trailer[24:] != END_MAGIC:
            bad.append(f"{name}: bad trailer")
        count, length, crc = struct.unpack_from("<QQI", trailer, 0)
    else:
        payload = data[offset:]
    if length != len(payload):
        bad.append(f"{name}: length {length}, payload {len(payload)}")
    if count * 8 != len(payload):
        bad.append(f"{name}: count {count} Points for {len(payload)} bytes")
    want = crc32c(payload) if flags & FLAG_CHECKSUM else 0
    if crc != want:
        bad.append(f"{name}: crc {crc:08x}, payload has {want:08x}")
    return bad


def main(argv) -> int:
    if argv:
        for path in argv:
            print(fingerprint(pathlib.Path(path).read_text(encoding="utf-8")), path)
        return 0
    passed, failed = 0, 0
    # A known answer: SHA-256("abc") begins ba 78 16 bf 8f 01 cf ea.
    assert fingerprint("abc") == "eacf018fbf1678ba"
    assert crc32c(b"123456789") == 0xE3069283
    vectors = json.loads((SPEC / "vectors" / "schema.json").read_text())["vectors"]
    point_fp = None
    for v in vectors:
        if "error" in v:
            continue  # a must-reject schema text: the Rust runner checks it
        got = fingerprint(v["text"])
        if got == v["fingerprint"]:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {v['name']}: text hashes to {got}, vector says {v['fingerprint']}")
        if v.get("type") == "Point":
            point_fp = v["fingerprint"]
    for path in sorted((SPEC / "golden").glob("frame-*point*.kiln")):
        problems = check_frame(path.name, path.read_bytes(), point_fp)
        for p in problems:
            print("FAIL", p)
        failed += bool(problems)
        passed += not problems
    print(f"fingerprint.py: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
