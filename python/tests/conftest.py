"""Shared paths and helpers of the Python package's tests."""

import math
import os
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
# Where `cargo test` leaves the zoo's frames (tests/format/zoo.rs).
ZOO = pathlib.Path(os.environ.get("KILN_ZOO_DIR", ROOT / "target" / "tmp" / "zoo"))
# The files this suite writes and a Rust test reads with the Rust types.
WRITTEN = pathlib.Path(__file__).resolve().parent / "written"

POINT = "root Point\nstruct Point { x: i32, y: i32 }\n"


def same(got, want, path="$"):
    """Whether `got` (the Python mapping) is `want` (the JSON mapping of
    spec/10-values.md, as json.loads gives it); raises AssertionError
    naming the first place they differ."""

    def fail(why):
        raise AssertionError(f"{path}: {why}: {got!r} against {want!r}")

    if isinstance(got, np.ndarray):
        if isinstance(want, dict) and set(want) == {"shape", "data"}:
            if list(got.shape) != want["shape"]:
                fail("shape")
            return same(got.reshape(-1), want["data"], path + ".data")
        if got.dtype.names:
            rows = [record(r) for r in got]
            return same(rows, want, path)
        return same(got.tolist(), want, path)
    if isinstance(got, bytes):
        return same(list(got), want, path)
    if got is None:
        if want is not None:
            fail("None")
        return True
    if isinstance(got, bool) or isinstance(want, bool):
        if got is not want:
            fail("bool")
        return True
    if isinstance(got, float):
        if want is None and (math.isnan(got) or math.isinf(got)):
            return True
        if not isinstance(want, (int, float)):
            fail("float")
        if got != want and np.float32(got) != np.float32(want):
            fail("number")
        return True
    if isinstance(got, int):
        if got != want:
            fail("int")
        return True
    if isinstance(got, str):
        if got != want:
            fail("str")
        return True
    if isinstance(got, (list, tuple)):
        if isinstance(want, dict):
            # A map whose keys have no hashable form: a list of pairs; JSON
            # has an object only when it is empty.
            if got or want:
                fail("pairs against an object")
            return True
        if not isinstance(want, list) or len(got) != len(want):
            fail("sequence")
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{path}[{i}]")
        return True
    if isinstance(got, dict):
        if isinstance(want, list):
            # A map the JSON writes as pairs (its keys are not strings there).
            if len(got) != len(want):
                fail("map size")
            for i, ((k, v), (wk, wv)) in enumerate(zip(got.items(), want)):
                same(k, wk, f"{path}{{key {i}}}")
                same(v, wv, f"{path}{{entry {i}}}")
            return True
        if not isinstance(want, dict) or len(got) != len(want):
            fail("dict")
        for (k, v), (wk, wv) in zip(got.items(), want.items()):
            if json_key(k) != wk and not (
                isinstance(k, float) and np.float32(k) == np.float32(float(wk))
            ):
                fail(f"key {k!r} against {wk!r}")
            same(v, wv, f"{path}.{wk}")
        return True
    fail("kind")


def json_key(k):
    """A map key as serde_json writes it in an object."""
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, float):
        if math.isnan(k):
            return "NaN"
        if math.isinf(k):
            return "inf" if k > 0 else "-inf"
        return repr(k)
    return str(k)


def record(r):
    """A numpy structured record as the JSON mapping has it: an object by
    field name, or an array for a tuple (fields f0, f1, ...)."""
    names = r.dtype.names
    if names is None:
        return r.tolist() if isinstance(r, np.ndarray) else r.item()
    items = [record(r[n]) if r[n].dtype.names else to_plain(r[n]) for n in names]
    if all(n == f"f{i}" for i, n in enumerate(names)):
        return items
    return dict(zip(names, items))


def to_plain(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    return x.item() if hasattr(x, "item") else x
