"""Files written by Python for Rust: this suite writes them and checks they
are byte for byte the ones in `written/`, which `tests/format/python_written.rs`
reads with the Rust types. `KILN_BLESS=1` rewrites them."""

import os

import numpy as np
import pytest

import kiln
from conftest import POINT, WRITTEN

READING = (
    "root Reading\n"
    "struct Point { x: i32, y: i32 }\n"
    "struct Reading { sensor: str, values: seq<f32>, scale: option<f64>, state: State, "
    "tags: map<str, u32>, pair: (u8, str), corners: [Point; 2], image: array<f32> }\n"
    "enum State { Idle, Failed(str), Moved { dx: i16, dy: i16 } }\n"
)
SAMPLE = "root Sample\nstruct Sample { label: str, pixels: array<u16> }\n"


def reading():
    return {
        "sensor": "t-1",
        "values": np.array([0.5, -1.25, 3.0], dtype=np.float32),
        "scale": 2.5,
        "state": {"Moved": {"dx": -3, "dy": 4}},
        "tags": {"site": 7, "rack": 2},
        "pair": (9, "nine"),
        "corners": ({"x": 0, "y": 0}, {"x": 640, "y": 480}),
        "image": np.arange(12, dtype=np.float32).reshape(3, 4) / 4,
    }


def write_all(dir):
    (dir / "reading.kiln").write_bytes(kiln.dumps(reading(), READING, checksum=True))
    for name, schema, records in [
        ("points.kiln", POINT, [{"x": i, "y": -2 * i} for i in range(5)]),
        ("samples.kiln", SAMPLE, [
            {"label": f"s{i}", "pixels": np.full((2, 3), i, dtype=np.uint16)} for i in range(3)
        ]),
        ("states.kiln", "root State\nenum State { Idle, Failed(str), Moved { dx: i16, dy: i16 } }\n",
         ["Idle", {"Failed": "jammed"}, {"Moved": {"dx": 1, "dy": -1}}]),
    ]:
        path = dir / name
        if path.exists():
            path.unlink()
        with kiln.Writer(path, schema, frame_bytes=16) as w:
            for r in records:
                w.write(r)


def test_python_writes_the_files_rust_reads(tmp_path):
    write_all(tmp_path)
    if os.environ.get("KILN_BLESS"):
        WRITTEN.mkdir(exist_ok=True)
        write_all(WRITTEN)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(p.name for p in WRITTEN.glob("*.kiln"))
    for name in names:
        assert (tmp_path / name).read_bytes() == (WRITTEN / name).read_bytes(), (
            f"{name} differs from python/tests/written/{name}: rerun with KILN_BLESS=1 "
            "and check tests/format/python_written.rs"
        )


def test_and_reads_them_back():
    r = kiln.load(WRITTEN / "reading.kiln")
    assert r["state"] == {"Moved": {"dx": -3, "dy": 4}}
    np.testing.assert_array_equal(r["image"], reading()["image"])
    assert kiln.open(WRITTEN / "points.kiln").table()["y"].tolist() == [0, -2, -4, -6, -8]
    assert [s["pixels"].sum() for s in kiln.open(WRITTEN / "samples.kiln")] == [0, 6, 12]


@pytest.mark.parametrize("name", ["points.kiln", "samples.kiln", "states.kiln"])
def test_files_of_several_frames(name):
    assert len(kiln.open(WRITTEN / name).frames) >= 2
