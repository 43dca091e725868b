"""The Python mapping (spec/10-values.md, 10.5): every kind both ways, the
numpy forms, and strict writing with the path of what does not fit."""

import numpy as np
import pytest

import kiln
from conftest import POINT

ALL = (
    "root All\n"
    "struct All { flag: bool, small: i8, big: u128, neg: i128, ratio: f64, letter: char, "
    "name: str, raw: bytes, maybe: option<u32>, none: option<str>, nums: seq<f32>, "
    "words: seq<str>, pair: (u8, str), trio: [u16; 3], counts: map<str, u32>, "
    "shapes: seq<Shape>, nothing: unit, empty: (), points: seq<Point>, image: array<f32> }\n"
    "struct Point { x: i32, y: i32 }\n"
    "enum Shape { Empty, Circle(f32), Rect(u16, u16), Label { text: str, size: u8 } }\n"
)


def sample():
    return {
        "flag": True,
        "small": -3,
        "big": 2**127 + 5,
        "neg": -(2**100),
        "ratio": 0.1,
        "letter": "é",
        "name": "kiln",
        "raw": b"\x00\xff",
        "maybe": 7,
        "none": None,
        "nums": np.array([1.5, -2.0], dtype=np.float32),
        "words": ["a", "bc"],
        "pair": (1, "x"),
        "trio": (1, 2, 3),
        "counts": {"a": 1, "b": 2},
        "shapes": ["Empty", {"Circle": 1.0}, {"Rect": (3, 4)}, {"Label": {"text": "hi", "size": 9}}],
        "nothing": None,
        "empty": (),
        "points": [{"x": 9, "y": -4}, {"x": 1, "y": 2}],
        "image": np.arange(6, dtype=np.float32).reshape(2, 3),
    }


def test_point_golden_bytes_both_ways():
    assert kiln.encode({"x": 9, "y": -4}, POINT) == bytes.fromhex("09000000fcffffff")
    assert kiln.decode(bytes.fromhex("09000000fcffffff"), POINT) == {"x": 9, "y": -4}
    framed = kiln.dumps({"x": 9, "y": -4}, POINT)
    assert framed[:8] == b"\x89KILN\r\n\x1a"
    assert framed.endswith(bytes.fromhex("09000000fcffffff"))
    assert kiln.loads(framed) == {"x": 9, "y": -4}
    assert kiln.fingerprint(POINT) == "bebd985ebacd608a"


def test_every_kind_round_trips_with_its_python_form():
    data = kiln.dumps(sample(), ALL)
    back = kiln.loads(data)
    want = sample()
    assert list(back) == list(want)
    for key in ["flag", "small", "big", "neg", "ratio", "letter", "name", "raw", "maybe",
                "none", "words", "pair", "trio", "counts", "shapes", "nothing", "empty"]:
        assert back[key] == want[key], key
        assert type(back[key]) is type(want[key]), key
    assert isinstance(back["nums"], np.ndarray) and back["nums"].dtype == np.float32
    np.testing.assert_array_equal(back["nums"], want["nums"])
    # seq<Point>: fixed-size records, a structured array over the frame.
    pts = back["points"]
    assert pts.dtype.names == ("x", "y") and pts["y"].tolist() == [-4, 2]
    assert pts.dtype.itemsize == 8
    # array<f32>: its shape and dtype, a read-only view of the bytes.
    img = back["image"]
    assert img.shape == (2, 3) and img.dtype == np.dtype("<f4")
    np.testing.assert_array_equal(img, want["image"])
    assert not img.flags.writeable
    # Written back from what was read: the same bytes.
    assert kiln.dumps(back, ALL) == data


def test_maps_with_keys_python_cannot_hash_are_lists_of_pairs():
    schema = "root map<Point, str>\nstruct Point { x: i32, y: i32 }\n"
    value = [({"x": 1, "y": 2}, "a"), ({"x": 3, "y": 4}, "b")]
    assert kiln.decode(kiln.encode(value, schema), schema) == value
    assert kiln.decode(kiln.encode({7: True}, "root map<u8, bool>\n"), "root map<u8, bool>\n") == {7: True}


def test_fixed_arrays_tuples_and_tuple_structs_are_tuples():
    schema = "root Pair\nstruct Pair(u8, [f64; 2])\n"
    assert kiln.decode(kiln.encode([1, [0.5, 2.0]], schema), schema) == (1, (0.5, 2.0))


def test_numpy_inputs_are_taken_where_no_value_changes():
    seq = "root seq<f64>\n"
    out = kiln.decode(kiln.encode(np.array([1, 2], dtype=np.int32), seq), seq)
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0]
    # Floats narrow by rounding, as a Python float does for an f32 field;
    # integers only where numpy calls the cast safe.
    f32 = kiln.decode(kiln.encode(np.array([0.1, 2.0]), "root seq<f32>\n"), "root seq<f32>\n")
    assert f32.dtype == np.float32 and f32.tolist() == [np.float32(0.1), 2.0]
    with pytest.raises(kiln.Error) as e:
        kiln.encode(np.array([1e300]), "root seq<f32>\n")
    assert e.value.code == "value-mismatch" and "too large" in str(e.value)
    shaped = "root array<u8>\n"
    with pytest.raises(kiln.Error) as e:
        kiln.encode(np.array([[3]], dtype=np.int64), shaped)
    assert "a numpy array of int64 with shape (1, 1)" in str(e.value)
    with pytest.raises(kiln.Error) as e:
        kiln.encode({"x": np.uint64(2**40), "y": 0}, POINT)
    assert "the numpy uint64 1099511627776" in str(e.value)
    assert kiln.encode({"x": np.uint64(5), "y": np.int8(-4)}, POINT) == kiln.encode({"x": 5, "y": -4}, POINT)
    img = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)[:, ::2]  # not contiguous
    back = kiln.decode(kiln.encode(img, shaped), shaped)
    np.testing.assert_array_equal(back, img)
    # A structured array fills a seq of structs, record by record.
    recs = np.array([(9, -4), (1, 2)], dtype=[("x", "<i4"), ("y", "<i4")])
    schema = "root seq<Point>\nstruct Point { x: i32, y: i32 }\n"
    assert kiln.encode(recs, schema) == kiln.encode([{"x": 9, "y": -4}, {"x": 1, "y": 2}], schema)
    extra = np.array([(9, -4, 1)], dtype=[("x", "<i4"), ("y", "<i4"), ("z", "<i4")])
    with pytest.raises(kiln.Error):
        kiln.encode(extra, schema)
    # 128-bit arrays: read as ints, written back from them.
    big = "root array<u128>\n"
    data = kiln.encode(np.array([[2**100, 1]], dtype=object), big)
    back = kiln.decode(data, big)
    assert back.shape == (1, 2) and back.tolist() == [[2**100, 1]]
    assert kiln.encode(back, big) == data


def test_fixed_lengths_are_checked_before_anything_is_allocated():
    with pytest.raises(kiln.Error) as e:
        kiln.encode({"v": [0]}, "root A\nstruct A { v: [u8; 4294967295] }\n")
    assert e.value.path == "A.v" or e.value.path is None


def test_strings_without_a_utf8_form_do_not_fit():
    with pytest.raises(kiln.Error) as e:
        kiln.encode({"text": "a\ud800"}, "root Message\nstruct Message { text: str }\n")
    assert (e.value.code, e.value.path) == ("value-mismatch", "Message.text")


def test_error_attributes_exist_on_the_class():
    e = kiln.Error("made in Python")
    assert (e.code, e.offset, e.record, e.path) == (None, None, None, None)


@pytest.mark.parametrize(
    "obj, path, found",
    [
        ({"x": 1, "y": 2.5}, "Point.y", "the float 2.5"),
        ({"x": 1}, "Point.y", "no such key"),
        ({"x": 1, "y": 2, "z": 3}, None, "the key 'z'"),
        ({"x": 2**31, "y": 0}, "Point.x", "the int 2147483648"),
        ({"x": True, "y": 0}, "Point.x", "the bool True"),
        ([1, 2], None, "a list of 2"),
    ],
)
def test_a_value_that_does_not_fit_names_its_path(obj, path, found):
    with pytest.raises(kiln.Error) as e:
        kiln.dumps(obj, POINT)
    assert e.value.code == "value-mismatch"
    assert e.value.path == path
    assert e.value.offset is None
    assert found in str(e.value)


def test_enum_errors_name_the_variant():
    schema = "root seq<Shape>\nenum Shape { Empty, Circle(f32) }\n"
    with pytest.raises(kiln.Error) as e:
        kiln.encode([{"Empty": None}], schema)
    assert e.value.path == "[0]::Empty"
    with pytest.raises(kiln.Error) as e:
        kiln.encode(["Empty", {"Square": 1}], schema)
    assert e.value.path == "[1]" and "Square" in str(e.value)
    with pytest.raises(kiln.Error) as e:
        kiln.encode([{"Circle": "big"}], schema)
    assert e.value.path == "[0]::Circle"


def test_reading_errors_carry_code_offset_and_path():
    with pytest.raises(kiln.Error) as e:
        kiln.decode(bytes.fromhex("0900000002"), "root Point\nstruct Point { x: i32, y: bool }\n")
    assert (e.value.code, e.value.offset, e.value.path) == ("invalid-bool", 4, "Point.y")
    with pytest.raises(kiln.Error) as e:
        kiln.loads(kiln.dumps({"x": 1, "y": 2}, POINT, embed_schema=False))
    assert e.value.code == "no-schema"
    other = "root Other\nstruct Other { x: i32, y: i32 }\n"
    with pytest.raises(kiln.Error) as e:
        kiln.loads(kiln.dumps({"x": 1, "y": 2}, POINT), schema=other)
    assert e.value.code == "schema-mismatch"


# Every reading path: one record (through a value), a batch and a file
# (built straight into objects), a bare record.
READERS = [
    kiln.loads,
    kiln.loads_batch,
    lambda d: list(kiln.open(d)),
    lambda d: kiln.open(d)[-1:],
    lambda d: kiln.decode(d[128:], ALL),
]


def test_no_input_crashes_the_interpreter():
    rng = np.random.default_rng(7)
    good = kiln.dumps(sample(), ALL, checksum=False)
    seen = set()
    for i in range(3000):
        data = bytearray(good)
        for _ in range(rng.integers(1, 6)):
            data[rng.integers(0, len(data))] = rng.integers(0, 256)
        if i % 7 == 0:
            data = data[: rng.integers(0, len(data))]
        for read in READERS:
            try:
                read(bytes(data))
            except kiln.Error as e:
                seen.add(e.code)
                assert isinstance(e.offset, (int, type(None)))
    assert len(seen) >= 5, seen
    for blob in [b"", b"\x89KILN", bytes(100), bytes(rng.integers(0, 256, 4096, dtype=np.uint8))]:
        with pytest.raises(kiln.Error):
            kiln.loads(blob)
    assert len(kiln.loads_batch(good)) == 1


def test_schemas_that_wrap_themselves_read_without_hanging():
    schema = "root A\nstruct A(option<A>)\n"
    assert kiln.encode(None, schema) == b"\x00"
    # Some(A(Some(A(None)))): None in Python, as nested options are.
    assert kiln.decode(b"\x01\x01\x00", schema) is None
    assert kiln.loads_batch(kiln.dumps(None, schema)) == [None]
    with pytest.raises(kiln.Error) as e:
        kiln.decode(b"\x01" * 1000 + b"\x00", schema)
    assert e.value.code == "depth-limit"


def test_objects_nested_deeper_than_the_readers_limit_are_refused_not_a_crash():
    schema = "root List\nenum List { Nil, Cons(i32, List) }\n"

    def chain(n):
        v = "Nil"
        for i in range(n):
            v = {"Cons": (i, v)}
        return v

    assert kiln.decode(kiln.encode(chain(40), schema), schema)["Cons"][0] == 39
    for n in [200, 100_000]:
        with pytest.raises(kiln.Error) as e:
            kiln.encode(chain(n), schema)
        assert e.value.code == "depth-limit"
    deep = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(kiln.Error) as e:
        kiln.encode(deep, "root Tree\nstruct Tree(seq<Tree>)\n")
    assert e.value.code == "depth-limit"
