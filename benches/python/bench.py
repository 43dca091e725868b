"""Kiln from Python against the formats Python programs use, in one process,
on the same data: the log dataset into dicts, a million Points into numpy,
and a 3x224x224 f32 image out of a file.

    pip install ./python msgpack orjson fastavro safetensors
    python3 benches/python/bench.py            # prints a markdown table
    python3 benches/python/bench.py --quick    # fewer repeats (CI smoke)

Each figure is the best of several repeats (the machine is shared), as a
time per whole operation; the ratio column compares with Kiln's row.
"""

import importlib
import io
import json
import os
import pickle
import platform
import random
import sys
import tempfile
import time

import numpy as np

import kiln

QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 15


def best(fn, repeats=REPEATS, inner=1):
    """The best time of `repeats` runs of `inner` calls of fn, per call."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t) / inner)
    return min(times)


def optional(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


msgpack = optional("msgpack")
orjson = optional("orjson")
fastavro = optional("fastavro")
safetensors_numpy = optional("safetensors.numpy")

# ---------------------------------------------------------------------------
# The log dataset: 10,000 access-log records (benches/datasets/log.rs).
# ---------------------------------------------------------------------------

LOG = (
    "root Log\nstruct Log { address: [u8; 4], identity: str, userid: str, date: str, "
    "request: str, status: u16, size: u64 }\n"
)


def log_records(n, seed=7):
    rng = random.Random(seed)
    users = ["-", "-", "-", "alice", "bob", "carol", "dave", "eve"]
    methods = ["GET", "GET", "GET", "POST", "PUT", "DELETE", "HEAD"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    exts = ["html", "css", "js", "png", "json", "txt"]
    statuses = [200, 200, 200, 200, 200, 204, 301, 304, 400, 403, 404, 500]

    def word(lo, hi):
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(lo, hi - 1)))

    out = []
    for _ in range(n):
        path = "".join("/" + word(3, 10) for _ in range(rng.randint(1, 3))) + "." + rng.choice(exts)
        out.append({
            "address": tuple(rng.randint(1, 254) for _ in range(4)),
            "identity": "-",
            "userid": rng.choice(users),
            "date": f"{rng.randint(1, 28):02}/{rng.choice(months)}/2026:{rng.randint(0, 23):02}:"
                    f"{rng.randint(0, 59):02}:{rng.randint(0, 59):02} +0000",
            "request": f"{rng.choice(methods)} {path} HTTP/1.1",
            "status": rng.choice(statuses),
            "size": rng.randint(0, 1 << 20),
        })
    return out


def bench_log(rows):
    records = log_records(10_000)
    as_lists = [dict(r, address=list(r["address"])) for r in records]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "log.kiln")
        with kiln.Writer(path, LOG) as w:
            for r in records:
                w.write(r)
        data = open(path, "rb").read()
    frame = kiln.dumps(records[0], LOG)
    assert kiln.loads(frame) == records[0]
    f = kiln.open(data)
    assert list(f) == records
    cases = [("kiln (open + iterate)", len(data), lambda: list(kiln.open(data)))]
    if msgpack:
        packed = msgpack.packb(as_lists)
        assert msgpack.unpackb(packed) == as_lists
        cases.append(("msgpack", len(packed), lambda: msgpack.unpackb(packed)))
    if orjson:
        text = orjson.dumps(as_lists)
        cases.append(("orjson", len(text), lambda: orjson.loads(text)))
    text = json.dumps(as_lists).encode()
    cases.append(("json", len(text), lambda: json.loads(text)))
    pickled = pickle.dumps(records, protocol=5)
    cases.append(("pickle", len(pickled), lambda: pickle.loads(pickled)))
    if fastavro:
        schema = fastavro.parse_schema({
            "type": "record", "name": "Log", "fields": [
                {"name": "address", "type": {"type": "fixed", "name": "A", "size": 4}},
                {"name": "identity", "type": "string"}, {"name": "userid", "type": "string"},
                {"name": "date", "type": "string"}, {"name": "request", "type": "string"},
                {"name": "status", "type": "int"}, {"name": "size", "type": "long"},
            ]})
        buf = io.BytesIO()
        fastavro.writer(buf, schema, [dict(r, address=bytes(r["address"])) for r in records])
        avro = buf.getvalue()
        cases.append(("fastavro", len(avro), lambda: list(fastavro.reader(io.BytesIO(avro)))))
    timed = [(name, size, best(fn, repeats=max(3, REPEATS // 3))) for name, size, fn in cases]
    base = timed[0][2]
    for name, size, t in timed:
        rows.append(("log: 10,000 records into dicts", name, size, t, t / base))


# ---------------------------------------------------------------------------
# A million Points into numpy.
# ---------------------------------------------------------------------------

POINT = "root Point\nstruct Point { x: i32, y: i32 }\n"


def bench_points(rows):
    n = 1_000_000
    xs = np.arange(n, dtype=np.int32)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "points.kiln")
        with kiln.Writer(path, POINT, frame_bytes=1 << 30) as w:
            for i in range(0, n, 1):
                if i == 200_000 and QUICK:
                    break
                w.write({"x": int(xs[i]), "y": -int(xs[i])})
        count = len(kiln.open(path))
        f = kiln.open(path)
        t = f.table()
        assert len(t) == count and int(t["y"][-1]) == -(count - 1)
        kiln_t = best(lambda: kiln.open(path).table(), inner=10)
        rows.append((f"points: {count:,} into numpy", "kiln (open + table(), mmap)",
                     os.path.getsize(path), kiln_t, 1.0))
        pairs = [[int(x), -int(x)] for x in xs[:count]]
        if msgpack:
            packed = msgpack.packb(pairs)
            tm = best(lambda: msgpack.unpackb(packed), repeats=max(3, REPEATS // 5))
            rows.append((f"points: {count:,} into numpy", "msgpack into lists", len(packed), tm,
                         tm / kiln_t))
            tn = best(lambda: np.array(msgpack.unpackb(packed), dtype=np.int32),
                      repeats=max(3, REPEATS // 5))
            rows.append((f"points: {count:,} into numpy", "msgpack, then np.array", len(packed), tn,
                         tn / kiln_t))
        structured = np.zeros(count, dtype=[("x", "<i4"), ("y", "<i4")])
        pickled = pickle.dumps(structured, protocol=5)
        tp = best(lambda: pickle.loads(pickled), inner=10)
        rows.append((f"points: {count:,} into numpy", "pickle of a numpy array", len(pickled), tp,
                     tp / kiln_t))
        del f, t


# ---------------------------------------------------------------------------
# A 3x224x224 f32 image out of a file.
# ---------------------------------------------------------------------------

SAMPLE = "root Sample\nstruct Sample { label: str, image: array<f32> }\n"


def bench_image(rows):
    image = np.random.default_rng(1).random((3, 224, 224), dtype=np.float32)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "shard.kiln")
        with kiln.Writer(path, SAMPLE) as w:
            w.write({"label": "cat", "image": image})
        f = kiln.open(path)
        np.testing.assert_array_equal(f.array(0, "image"), image)
        label = "image: 3x224x224 f32 from a file"
        t_view = best(lambda: f.array(0, "image"), inner=2000)
        rows.append((label, "kiln f.array(0, 'image'): a view", os.path.getsize(path), t_view, 1.0))
        t_rec = best(lambda: f[0], inner=2000)
        rows.append((label, "kiln f[0]: the record, image a view", os.path.getsize(path), t_rec,
                     t_rec / t_view))
        t_open = best(lambda: kiln.open(path).array(0, "image"), inner=500)
        rows.append((label, "kiln open + array (mmap)", os.path.getsize(path), t_open,
                     t_open / t_view))
        if safetensors_numpy:
            from safetensors import safe_open
            st = os.path.join(d, "image.safetensors")
            safetensors_numpy.save_file({"image": image}, st)
            with safe_open(st, framework="numpy") as g:
                np.testing.assert_array_equal(g.get_tensor("image"), image)
                t_st = best(lambda: g.get_tensor("image"), inner=500)
                rows.append((label, "safetensors get_tensor (open file)", os.path.getsize(st), t_st,
                             t_st / t_view))
            t_st2 = best(lambda: safe_open(st, framework="numpy").get_tensor("image"), inner=200)
            rows.append((label, "safetensors safe_open + get_tensor", os.path.getsize(st), t_st2,
                         t_st2 / t_view))
        pickled = pickle.dumps(image, protocol=5)
        tp = best(lambda: pickle.loads(pickled), inner=200)
        rows.append((label, "pickle.loads (in memory)", len(pickled), tp, tp / t_view))
        del f


def fmt(t):
    if t < 1e-3:
        return f"{t * 1e6:,.1f} µs"
    return f"{t * 1e3:,.2f} ms"


def main():
    rows = []
    bench_log(rows)
    bench_points(rows)
    bench_image(rows)
    print(f"Python {platform.python_version()}, numpy {np.__version__}, kiln from ./python; "
          f"{platform.machine()}, {os.cpu_count()} cores; best of {REPEATS} runs\n")
    print("| data | reader | bytes | time | × Kiln's |")
    print("|---|---|---:|---:|---:|")
    for data, name, size, t, ratio in rows:
        print(f"| {data} | {name} | {size:,} | {fmt(t)} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
