"""The spec's golden files and language-neutral vectors, read by the
Python package: valid vectors give their values, must-reject vectors
raise kiln.Error with the vector's code and offset."""

import json

import pytest

import kiln
from conftest import POINT, SPEC, same

SHAPE = "enum Shape { Empty, Circle(f32), Rect(u16, u16), Label { text: str, size: u8 } }\n"

# The schema text of each Rust type the vectors name (spec/vectors/README.md).
# Two have none, so a reader without the type cannot read them: `Nest`
# (a transparent newtype that reaches itself) and `Untagged` (read with
# deserialize_any).
SCHEMAS = {
    "bool": "root bool\n", "i8": "root i8\n", "u8": "root u8\n", "i16": "root i16\n",
    "u16": "root u16\n", "i32": "root i32\n", "u32": "root u32\n", "i64": "root i64\n",
    "u64": "root u64\n", "i128": "root i128\n", "u128": "root u128\n",
    "usize": "root u64\n", "isize": "root i64\n", "f32": "root f32\n", "f64": "root f64\n",
    "char": "root char\n", "String": "root str\n", "Bytes": "root bytes\n", "()": "root unit\n",
    "Unit": "root Unit\nstruct Unit;\n", "Id": "root Id\nstruct Id(u32)\n",
    "Option<u8>": "root option<u8>\n", "Option<String>": "root option<str>\n",
    "Option<Option<u8>>": "root option<option<u8>>\n",
    "Option<Shape>": "root option<Shape>\n" + SHAPE, "Shape": "root Shape\n" + SHAPE,
    "Chain": "root Chain\nenum Chain { End, Link(Chain) }\n",
    "Vec<u8>": "root seq<u8>\n", "Vec<u16>": "root seq<u16>\n", "Vec<u64>": "root seq<u64>\n",
    "Vec<f32>": "root seq<f32>\n", "Vec<String>": "root seq<str>\n",
    "Vec<Vec<u8>>": "root seq<seq<u8>>\n", "Vec<()>": "root seq<unit>\n",
    "(Vec<()>,u8)": "root (seq<unit>, u8)\n", "(u8,i16)": "root (u8, i16)\n",
    "Pair": "root Pair\nstruct Pair(u8, str)\n", "[u16;3]": "root [u16; 3]\n",
    "BTreeMap<String,u32>": "root map<str, u32>\n", "Point": POINT,
    "Message": "root Message\nstruct Message { text: str }\n",
    "Sample": "root Sample\nstruct Sample { label: str, pixels: array<u16> }\n",
    "GoldenSample": "root GoldenSample\nstruct GoldenSample { label: str, image: array<f32>, "
    "index: array<u32> }\n",
}
for t in ["i8", "i16", "i32", "i64", "i128", "u16", "u32", "u128", "f64"]:
    SCHEMAS[f"Vec<{t}>"] = f"root seq<{t}>\n"
NO_SCHEMA = {"Nest", "Untagged"}


def vectors(area):
    return json.loads((SPEC / "vectors" / f"{area}.json").read_text())["vectors"]


def test_every_schema_text_here_is_canonical():
    for name, text in SCHEMAS.items():
        kiln.fingerprint(text)  # raises kiln.Error if it does not parse


GOLDEN = {
    "point.kiln": (POINT, {"x": 9, "y": -4}),
    "message.kiln": ("root Message\nstruct Message { text: str }\n", {"text": "hi"}),
    "list-f32.kiln": ("root seq<f32>\n", [1.0, -2.0]),
    "shape-label.kiln": (
        "root Shape\n" + SHAPE,
        {"Label": {"text": "hi", "size": 9}},
    ),
    "option-some-none.kiln": ("root option<option<u8>>\n", None),
    "map.kiln": ("root map<str, u32>\n", {"a": 1, "b": 2}),
    "batch-points.kiln": ("root seq<Point>\nstruct Point { x: i32, y: i32 }\n", None),
}


@pytest.mark.parametrize("name", sorted(p.name for p in (SPEC / "golden").glob("*.kiln")))
def test_every_golden_file(name):
    data = (SPEC / "golden" / name).read_bytes()
    if data.startswith(b"\x89KILN"):
        # Frames and files: read with their own schema text, or Point's.
        schema = POINT
        if "samples" in name:
            schema = SCHEMAS["Sample"]
        elif "arrays" in name:
            schema = SCHEMAS["GoldenSample"]
        f = kiln.open(data, schema=schema)
        records = list(f)
        assert len(records) == len(f) > 0
        assert f.tail_error is None
        if f.frames[0]["arrays"]:
            assert any(hasattr(v, "shape") for r in records for v in r.values())
        else:
            assert records[0] == {"x": 9, "y": -4}
        return
    if name in ("arrays.kiln", "record.kiln", "batch-points.kiln"):
        return golden_bare_with_more(name, data)
    schema, want = GOLDEN[name]
    got = kiln.decode(data, schema)
    if name == "list-f32.kiln":
        assert got.tolist() == want
    else:
        assert got == want
    if name == "option-some-none.kiln":
        # Some(None) is None in Python (10.5), so it is written back as None.
        assert kiln.encode(got, schema) == b"\x00"
        return
    assert kiln.encode(got, schema) == data


def golden_bare_with_more(name, data):
    if name == "record.kiln":
        schema = (
            "root Record\nstruct Point { x: i32, y: i32 }\n"
            "struct Record { id: u64, name: str, tags: seq<str>, origin: Point, shape: Shape, "
            "scale: option<f32> }\n" + SHAPE
        )
        got = kiln.decode(data, schema)
        assert got == {"id": 1, "name": "hi", "tags": ["a"], "origin": {"x": 9, "y": -4},
                       "shape": {"Circle": 1.0}, "scale": None}
    elif name == "batch-points.kiln":
        # A bare batch: Points back to back, read as a seq's elements.
        n = len(data) // 8
        got = kiln.decode(n.to_bytes(4, "little") + data, GOLDEN[name][0])
        assert got.tolist() == [(9, -4), (1, 2), (-1, 0)]
    else:
        schema = "root GoldenSample\nstruct GoldenSample { label: str, image: array<f32>, index: array<u32> }\n"
        got = kiln.decode(data, schema)
        assert got["image"].ndim >= 1 and got["index"].dtype.kind == "u"
    assert kiln.encode(got, schema if name != "batch-points.kiln" else GOLDEN[name][0]) is not None


@pytest.mark.parametrize("v", vectors("values"), ids=lambda v: v["name"])
def test_values_vectors(v):
    data = bytes.fromhex(v["hex"])
    if "error" in v:
        with pytest.raises(kiln.Error) as e:
            kiln.decode(data, v["schema"])
        assert (e.value.code, e.value.offset) == (v["error"], v["offset"])
        assert e.value.path == v.get("path")
        return
    got = kiln.decode(data, v["schema"])
    same(got, json.loads(v["json"]))
    if v["name"] == "kiln-values-option-some-none":
        # Some(None) is None in Python, as null in JSON (10.5): written
        # back it is None.
        assert got is None and kiln.encode(got, v["schema"]) == b"\x00"
        return
    assert kiln.encode(got, v["schema"]) == data


@pytest.mark.parametrize("v", [v for v in vectors("core") if "error" in v], ids=lambda v: v["name"])
def test_core_must_reject_vectors(v):
    if v["type"] in NO_SCHEMA:
        return
    with pytest.raises(kiln.Error) as e:
        kiln.decode(bytes.fromhex(v["hex"]), SCHEMAS[v["type"]])
    assert (e.value.code, e.value.offset) == (v["error"], v["offset"])


@pytest.mark.parametrize("v", vectors("frame"), ids=lambda v: v["name"])
def test_frame_vectors(v):
    data = bytes.fromhex(v["hex"])
    schema = SCHEMAS[v["type"]]
    if v["mode"] == "framed":
        if "error" in v:
            with pytest.raises(kiln.Error) as e:
                kiln.loads(data, schema=schema)
            assert (e.value.code, e.value.offset) == (v["error"], v["offset"])
        else:
            assert kiln.loads(data, schema=schema) == v["value"]
        return
    if "error" in v:
        with pytest.raises(kiln.Error) as e:
            kiln.loads_batch(data, schema=schema)
        assert (e.value.code, e.value.offset) == (v["error"], v["offset"])
    else:
        assert kiln.loads_batch(data, schema=schema) == v["value"]


@pytest.mark.parametrize("v", vectors("file"), ids=lambda v: v["name"])
def test_file_vectors(v):
    f = kiln.open(bytes.fromhex(v["hex"]), schema=SCHEMAS.get(v["type"]))
    got = []
    if "error" in v:
        with pytest.raises(kiln.Error) as e:
            for r in f:
                got.append(r)
        assert (e.value.code, e.value.offset) == (v["error"], v["offset"])
    else:
        got = list(f)
    want = v.get("records", [])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
