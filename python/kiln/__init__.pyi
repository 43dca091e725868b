"""Type stubs of the kiln package (the extension module kiln._kiln)."""

import os
import pathlib
from types import TracebackType
from typing import Any, Iterator, Optional, Union, overload

import numpy as np

_Path = Union[str, "os.PathLike[str]"]
_Bytes = Union[bytes, bytearray, memoryview]

class Error(Exception):
    """Input Kiln refuses, or a value that does not fit the schema."""

    code: str
    """The error code of spec/09-rejections.md, such as ``'invalid-bool'``."""
    offset: Optional[int]
    """The byte offset in the input (the file, the frame), or None."""
    record: Optional[int]
    """The record's index in a batch or file, or None."""
    path: Optional[str]
    """Where in the value, such as ``'Point.y'`` or ``'[3].name'``, or None."""

def loads(data: _Bytes, schema: Optional[str] = None) -> Any:
    """The one record of a frame. ``schema`` (the writer's schema text) is
    needed when the frame does not embed its own."""

def loads_batch(data: _Bytes, schema: Optional[str] = None) -> list[Any]:
    """Every record of one frame, as a list."""

def load(path: _Path, schema: Optional[str] = None) -> Any:
    """The one record of the frame in the file at ``path``."""

def dumps(obj: Any, schema: str, *, embed_schema: bool = True, checksum: bool = False) -> bytes:
    """``obj`` as one frame of ``schema``; raises :class:`Error`
    (``value-mismatch``, with the path) if it does not fit."""

def decode(data: _Bytes, schema: str) -> Any:
    """A bare record (no frame) of ``schema``."""

def encode(obj: Any, schema: str) -> bytes:
    """``obj`` as a bare record (no frame) of ``schema``."""

def fingerprint(schema: str) -> str:
    """The schema's fingerprint, 16 hex digits."""

def open(source: Union[_Path, _Bytes], schema: Optional[str] = None, *, mmap: bool = True) -> File:
    """A Kiln file for reading: a path (memory-mapped unless ``mmap`` is
    false) or bytes."""

class File:
    """A Kiln file open for reading."""

    @property
    def schema(self) -> Optional[str]:
        """The schema text records are read by."""
    @property
    def path(self) -> Optional[pathlib.Path]: ...
    @property
    def frames(self) -> list[dict[str, Any]]:
        """Each complete frame: offset, records, first_record, fingerprint,
        schema, checksum, arrays."""
    @property
    def tail_error(self) -> Optional[Error]:
        """What ended the file early (a torn tail), or None."""
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __iter__(self) -> Records: ...
    def table(self) -> np.ndarray:
        """Every record as one numpy structured array (fixed-size records)."""
    def array(self, record: int, name: str) -> np.ndarray:
        """Shaped array ``name`` of record ``record``: a read-only view."""
    def close(self) -> None: ...
    def __enter__(self) -> File: ...
    def __exit__(
        self,
        ty: Optional[type[BaseException]],
        value: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

class Records(Iterator[Any]):
    """The records of a file, frame after frame."""

    def __iter__(self) -> Records: ...
    def __next__(self) -> Any: ...

class Writer:
    """Appends records of ``schema`` to the file at ``path``."""

    def __init__(
        self,
        path: _Path,
        schema: str,
        *,
        checksum: bool = True,
        embed_schema: bool = True,
        frame_bytes: int = 1048576,
        truncate_torn_tail: bool = False,
    ) -> None: ...
    def write(self, obj: Any) -> None: ...
    def flush(self) -> None: ...
    def sync(self) -> None: ...
    def close(self) -> None: ...
    @property
    def pushed(self) -> int: ...
    def __enter__(self) -> Writer: ...
    def __exit__(
        self,
        ty: Optional[type[BaseException]],
        value: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...
