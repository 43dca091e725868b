"""Every frame the Rust derive's zoo writes (tests/format/zoo.rs, run by
`cargo test`), read in Python and compared with the JSON the Rust reader
gives for it, then written back from Python to the same bytes."""

import json

import pytest

import kiln
from conftest import ZOO, same

FRAMES = sorted(ZOO.glob("*.kiln")) if ZOO.is_dir() else []


def test_the_zoo_was_written():
    # `cargo test` writes the zoo; without it this suite would test nothing.
    assert len(FRAMES) >= 40, f"run `cargo test --test format` first: {ZOO} has {len(FRAMES)} frames"


@pytest.mark.parametrize("path", FRAMES, ids=lambda p: p.stem)
def test_zoo_frame(path):
    data = path.read_bytes()
    value = kiln.loads(data)
    same(value, json.loads(path.with_suffix(".json").read_text()))
    f = kiln.open(data)
    written = kiln.dumps(value, f.schema, checksum=f.frames[0]["checksum"])
    if written != data:
        # Only where the Python form is lossy as JSON's is: Some(None).
        assert "option<option<" in f.schema, path.stem
