"""Kiln from Python: read and write Kiln frames and files.

Kiln is a binary format for Rust's serde: values are written without names,
in declaration order, and a frame carries the schema text that says how to
read them. This package reads frames and files through the Rust crate's own
decoder into Python objects, and writes Python objects back, strictly, by a
schema.

    >>> import kiln
    >>> schema = "root Point\\nstruct Point { x: i32, y: i32 }\\n"
    >>> data = kiln.dumps({"x": 9, "y": -4}, schema)
    >>> kiln.loads(data)
    {'x': 9, 'y': -4}

The mapping (``spec/10-values.md``, section 10.5): a struct is a ``dict``,
a tuple, ``[T; N]`` and tuple struct a ``tuple``, a sequence a ``list``, a
sequence of numbers a numpy array, a sequence of fixed-size records a numpy
structured array, a map a ``dict`` (a list of ``(key, value)`` tuples when
its keys have no hashable form), bytes ``bytes``, a unit variant its name,
other variants a one-key ``dict``, a shaped array a numpy array of its
shape and dtype, an option ``None`` or its value.
"""

from ._kiln import (
    Error,
    File,
    Records,
    Writer,
    decode,
    dumps,
    encode,
    fingerprint,
    load,
    loads,
    loads_batch,
    open,
)

__all__ = [
    "Error",
    "File",
    "Records",
    "Writer",
    "decode",
    "dumps",
    "encode",
    "fingerprint",
    "load",
    "loads",
    "loads_batch",
    "open",
]
