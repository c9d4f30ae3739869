"""What the writers (save_bvh, save_gltf, save_skc) share.

Whole-file writes: a file is written under a
temporary name in its own directory and renamed over the target with :func:`os.replace` once
every byte is written, so a reader never sees a partial file and a failed write (a full disk,
an exception) leaves an existing file as it was and no temporary file behind. The temporary
file is created with mode 0o666 minus the umask, as :func:`open` creates files.

The argument order: every writer takes ``(path, clip)``; save_bvh and save_skc also take their
former ``(clip, path)``, told apart by the types (:func:`path_and_clip`).

Examples
--------
>>> import os, tempfile
>>> from skelsimd.io._writing import write_file
>>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
>>> write_file(path, b"hello")
>>> open(path, "rb").read()
b'hello'
"""
from __future__ import annotations

import errno
import os
import secrets

__all__ = ["write_file", "path_and_clip", "output_path"]


def path_and_clip(first: object, second: object,
                  clip_types: tuple[type, ...]) -> tuple[object, object]:
    """(path, clip) of a writer called as ``(path, clip)`` or ``(clip, path)``: the path first
    when ``second`` is one of ``clip_types`` and ``first`` is not; else the clip first (the
    writers' former order, so that an error names what was passed as the clip)."""
    if isinstance(second, clip_types) and not isinstance(first, clip_types):
        return first, second
    return second, first


def write_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` in one piece: a temporary file beside it, then os.replace."""
    if not path:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
    directory, base = os.path.split(os.path.abspath(path))
    temp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        try:
            os.remove(temp)
        except OSError:
            pass
        raise


def output_path(path: object, suffixes: tuple[str, ...]) -> tuple[str, str]:
    """``(path, suffix)`` of a file to write: a str or os.PathLike whose name ends in one of
    ``suffixes`` (lower case; the name's case is ignored), else a TypeError or ValueError
    naming ``path``."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a str or os.PathLike, got {type(path).__name__}")
    fspath = os.fspath(path)
    if not isinstance(fspath, str):
        raise TypeError("path: expected a str path, got bytes")
    suffix = os.path.splitext(fspath)[1].lower()
    if suffix not in suffixes:
        names = (", ".join(suffixes[:-1]) + " or " + suffixes[-1]) if len(suffixes) > 1 \
            else suffixes[0]
        raise ValueError(f"path: expected a name ending in {names}, got {fspath!r}")
    return fspath, suffix
