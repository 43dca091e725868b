"""Kiln files from Python: the writer, reading by index, slice and
iteration, table(), array views over the mapping, torn tails."""

import gc
import os

import numpy as np
import pytest

import kiln
from conftest import POINT

SAMPLE = "root Sample\nstruct Sample { label: str, image: array<f32> }\n"


def write_points(path, n, frame_bytes=1 << 20):
    with kiln.Writer(path, POINT, frame_bytes=frame_bytes) as w:
        for i in range(n):
            w.write({"x": i, "y": -i})
        assert w.pushed == n
    assert w.pushed == n


@pytest.mark.parametrize("mmap", [True, False])
def test_records_by_index_slice_and_iteration(tmp_path, mmap):
    path = tmp_path / "points.kiln"
    write_points(path, 1000, frame_bytes=1024)
    with kiln.open(path, mmap=mmap) as f:
        assert len(f) == 1000
        assert len(f.frames) > 5
        assert sum(fr["records"] for fr in f.frames) == 1000
        assert f.frames[1]["first_record"] == f.frames[0]["records"]
        assert f.schema == POINT and f.frames[0]["checksum"]
        assert f[0] == {"x": 0, "y": 0}
        assert f[999] == f[-1] == {"x": 999, "y": -999}
        assert [r["x"] for r in f[126:131]] == [126, 127, 128, 129, 130]
        assert [r["x"] for r in f[::-250]] == [999, 749, 499, 249]
        assert f[5:5] == []
        assert [r["x"] for r in f] == list(range(1000))
        with pytest.raises(IndexError):
            f[1000]
    with pytest.raises(ValueError):
        len(f)


def test_table_is_a_structured_view_with_no_per_record_work(tmp_path):
    path = tmp_path / "points.kiln"
    write_points(path, 10_000)
    f = kiln.open(path)
    t = f.table()
    assert t.dtype.names == ("x", "y") and t.dtype.itemsize == 8 and len(t) == 10_000
    np.testing.assert_array_equal(t["x"], np.arange(10_000))
    np.testing.assert_array_equal(t["y"], -np.arange(10_000))
    assert not t.flags.writeable
    # One frame: a view of the mapping, alive after the file is closed.
    f.close()
    del f
    gc.collect()
    assert int(t["x"][-1]) == 9999
    # Several frames: joined.
    path2 = tmp_path / "many.kiln"
    write_points(path2, 1000, frame_bytes=512)
    t2 = kiln.open(path2).table()
    np.testing.assert_array_equal(t2["x"], np.arange(1000))


def test_table_of_bools_checks_each_bool(tmp_path):
    schema = "root Flag\nstruct Flag { on: bool, n: u16 }\n"
    path = tmp_path / "flags.kiln"
    with kiln.Writer(path, schema, checksum=False) as w:
        for i in range(4):
            w.write({"on": i % 2 == 1, "n": i})
    t = kiln.open(path).table()
    assert t["on"].tolist() == [False, True, False, True]
    data = bytearray(path.read_bytes())
    data[-3] = 2  # the last record's bool
    with pytest.raises(kiln.Error) as e:
        kiln.open(bytes(data)).table()
    assert (e.value.code, e.value.record, e.value.offset) == ("invalid-bool", 3, len(data) - 3)


def test_table_refuses_records_that_are_not_fixed_size(tmp_path):
    path = tmp_path / "m.kiln"
    with kiln.Writer(path, "root Message\nstruct Message { text: str }\n") as w:
        w.write({"text": "hi"})
    with pytest.raises(ValueError, match="fixed-size"):
        kiln.open(path).table()


def test_array_views_over_the_mapping(tmp_path):
    path = tmp_path / "shard.kiln"
    images = [np.full((3, 4, 4), i, dtype=np.float32) for i in range(5)]
    with kiln.Writer(path, SAMPLE) as w:
        for i, img in enumerate(images):
            w.write({"label": f"s{i}", "image": img})
    f = kiln.open(path)
    assert f.frames[0]["arrays"]
    v = f.array(3, "image")
    assert v.shape == (3, 4, 4) and v.dtype == np.float32 and not v.flags.writeable
    np.testing.assert_array_equal(v, images[3])
    rec = f[2]
    assert rec["label"] == "s2" and rec["image"].shape == (3, 4, 4)
    np.testing.assert_array_equal(f.array(-1, "image"), images[4])
    f.close()
    del f
    gc.collect()
    assert float(v[0, 0, 0]) == 3.0
    with pytest.raises(IndexError):
        kiln.open(path).array(0, "nope")


def test_a_torn_tail_ends_iteration_with_its_error(tmp_path):
    path = tmp_path / "torn.kiln"
    write_points(path, 10, frame_bytes=40)
    size = os.path.getsize(path)
    with open(path, "r+b") as fh:
        fh.truncate(size - 3)
    f = kiln.open(path)
    assert f.tail_error is not None and f.tail_error.code == "truncated-tail"
    got = []
    with pytest.raises(kiln.Error) as e:
        for r in f:
            got.append(r["x"])
    assert e.value.code == "truncated-tail"
    assert got == list(range(len(f))) and len(f) < 10
    # The writer refuses to append to it, then repairs when told to.
    with pytest.raises(kiln.Error) as e:
        kiln.Writer(path, POINT)
    assert e.value.code == "truncated-tail"
    with kiln.Writer(path, POINT, truncate_torn_tail=True) as w:
        w.write({"x": 100, "y": 0})
    assert kiln.open(path)[-1] == {"x": 100, "y": 0}


def test_writer_refuses_a_record_that_does_not_fit_and_writes_the_rest(tmp_path):
    path = tmp_path / "w.kiln"
    with kiln.Writer(path, POINT) as w:
        w.write({"x": 1, "y": 2})
        with pytest.raises(kiln.Error) as e:
            w.write({"x": 1, "y": "two"})
        assert (e.value.code, e.value.path, e.value.record) == ("value-mismatch", "Point.y", 1)
        w.write({"x": 3, "y": 4})
    assert [r["x"] for r in kiln.open(path)] == [1, 3]
    with pytest.raises(ValueError):
        w.write({"x": 5, "y": 6})


def test_open_takes_any_bytes_like_object(tmp_path):
    path = tmp_path / "p.kiln"
    write_points(path, 3)
    data = path.read_bytes()
    for source in [data, bytearray(data), memoryview(data)]:
        assert kiln.open(source)[2] == {"x": 2, "y": -2}


def test_load_reads_a_framed_record_from_a_path(tmp_path):
    path = tmp_path / "one.kiln"
    path.write_bytes(kiln.dumps({"x": 9, "y": -4}, POINT))
    assert kiln.load(path) == {"x": 9, "y": -4}
    assert kiln.load(str(path)) == {"x": 9, "y": -4}
    with pytest.raises(kiln.Error) as e:
        kiln.load(tmp_path / "missing.kiln")
    assert e.value.code == "io"
