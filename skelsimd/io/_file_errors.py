"""The readers' errors name the file: :func:`in_file` puts the path at the start of a
ValueError's message, and a file of another format (load_bvh on a .glb, load_gltf on a BVH
file) is refused in one line naming what it looks like (:func:`looks_like`, from its first
bytes) and those bytes shortened (:func:`preview`).

Examples
--------
>>> from skelsimd.io._file_errors import in_file, looks_like, preview
>>> looks_like(b"glTF\\x02\\x00\\x00\\x00" + bytes(100))
'a GLB (binary glTF) file'
>>> looks_like(b"HIERARCHY\\nROOT Hips")
'a BVH file'
>>> preview(b"glTF\\x02\\x00\\x00\\x00" + bytes(100))
"b'glTF\\\\x02\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00'..."
>>> str(in_file("walk.bvh", ValueError("line 3: expected '{'")))
"walk.bvh: line 3: expected '{'"
"""
from __future__ import annotations

import os

__all__ = ["in_file", "looks_like", "preview"]


def in_file(path: object, exc: ValueError) -> ValueError:
    """``exc`` as a ValueError whose message starts with ``path`` (a str, bytes or
    os.PathLike; anything else, e.g. text given in place of a file, leaves it as it is)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return exc
    where = os.fsdecode(os.fspath(path))
    if str(exc).startswith(where + ":"):
        return exc
    return ValueError(f"{where}: {exc}")

_SIGNATURES = (
    (b"glTF", "a GLB (binary glTF) file"),
    (b"SKSCLIP\x00", "a skelsimd compressed clip (.skc)"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"PXR-USDC", "a USD crate file (.usdc)"),
    (b"#usda", "a USD text file (.usda)"),
    (b"FBX", "an FBX file"),
    (b"Kaydara FBX Binary", "an FBX file"),
)


def looks_like(data: bytes) -> str:
    """A short name for what ``data`` (a file's first bytes, or all of them) looks like."""
    for magic, name in _SIGNATURES:
        if data.startswith(magic):
            return name
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    head = text[:64].lstrip()
    if head[:9].upper() == b"HIERARCHY":
        return "a BVH file"
    if head[:1] in (b"{", b"["):
        return "JSON"
    if not head:
        return "an empty file"
    if b"\x00" in text[:512]:
        return "binary data"
    return "text"


def preview(data: bytes, size: int = 16) -> str:
    """The first ``size`` bytes as a bytes literal, with "..." when there are more."""
    return repr(bytes(data[:size])) + ("..." if len(data) > size else "")
