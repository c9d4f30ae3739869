"""Compressed clip files (``.skc``): the bytes of :meth:`skelsimd.CompressedClip.to_bytes`, as
``python -m skelsimd compress`` writes them and the dataset pipeline reads them.

A file is untrusted: :func:`read_skc` reads at most ``max_file_bytes`` bytes, and
:func:`load_skc` checks the size of the decoded clip against ``max_bytes`` before decoding it
(a few kilobytes of a static clip can declare millions of frames).
"""
from __future__ import annotations

import os
from typing import Union

from ..clip import Clip
from ..compress import CompressedClip, compress
from ._writing import path_and_clip, write_file

__all__ = ["read_skc", "load_skc", "save_skc", "SUFFIX"]

#: The suffix of compressed clip files (skelsimd clip).
SUFFIX = ".skc"

#: Default limit of a decoded clip's size (``load_skc``'s ``max_bytes``): 256 MiB.
MAX_CLIP_BYTES = 256 << 20
#: Default limit of the file read (``read_skc``'s ``max_file_bytes``): 1 GiB.
MAX_FILE_BYTES = 1 << 30

_Path = Union[str, "os.PathLike[str]"]


def read_skc(path: _Path, *, max_file_bytes: int = MAX_FILE_BYTES) -> CompressedClip:
    """The :class:`~skelsimd.CompressedClip` stored in the file ``path``.

    A file that is not one (bad magic, truncated or altered: the checksum fails) is a
    ValueError naming the file; a file larger than ``max_file_bytes`` is refused before it is
    read.

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> path = os.path.join(tempfile.mkdtemp(), "walk.skc")
    >>> _ = skelsimd.save_skc(skelsimd.data.load_example()[:30], path, precision=0.01)
    >>> skelsimd.io.read_skc(path).num_frames
    30
    """
    path = os.fspath(path)
    size = os.path.getsize(path)
    if size > max_file_bytes:
        raise ValueError(f"{path}: {size} bytes, more than max_file_bytes = {max_file_bytes}")
    with open(path, "rb") as f:
        # read what the file holds (at most the bound): f.read(n) allocates n bytes up front
        data = f.read(min(size, max_file_bytes) + 1)
        if len(data) > max_file_bytes:      # the file grew since its size was taken
            raise ValueError(f"{path}: more than max_file_bytes = {max_file_bytes} bytes")
    try:
        return CompressedClip.from_bytes(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def load_skc(path: _Path, *, max_bytes: int | None = None) -> Clip:
    """The decompressed :class:`~skelsimd.Clip` of a compressed clip file: its poses are within
    the precision it was compressed to.

    ``max_bytes`` (default :data:`MAX_CLIP_BYTES`, 256 MiB) bounds the decoded clip
    (``frames * joints * 32`` bytes of QTS poses): a larger one is a ValueError raised before
    anything is decoded.

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> path = os.path.join(tempfile.mkdtemp(), "walk.skc")
    >>> clip = skelsimd.data.load_example()[:30]
    >>> _ = skelsimd.save_skc(clip, path, precision=0.01)
    >>> back = skelsimd.load_skc(path)
    >>> back.frames, len(back.skeleton) == len(clip.skeleton)
    (30, True)
    """
    if max_bytes is None:
        max_bytes = MAX_CLIP_BYTES
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise TypeError(f"max_bytes: expected a non-negative int, got {max_bytes!r}")
    c = read_skc(path)
    need = c.num_frames * c.num_joints * 32
    if need > max_bytes:
        raise ValueError(f"{os.fspath(path)}: the clip would take {c.num_frames} frames x "
                         f"{c.num_joints} joints x 32 = {need} bytes, more than max_bytes = "
                         f"{max_bytes} (pass a larger max_bytes to load it)")
    return c.to_clip()


def save_skc(clip: Clip | CompressedClip | _Path, path: _Path | Clip | CompressedClip,
             **settings: object) -> CompressedClip:
    """Write ``clip`` to the file ``path`` as a compressed clip and return the
    :class:`~skelsimd.CompressedClip` written: ``save_skc(path, clip)``, the order of every
    writer, or ``save_skc(clip, path)`` (told apart by type). A :class:`~skelsimd.Clip` is
    compressed first with :func:`skelsimd.compress` and ``settings`` (``precision``,
    ``shell_distance``, ``segment_length``); a CompressedClip is written as it is (no
    settings). A clip of 0 frames is a ValueError. The file is written whole or not at all (a
    temporary name in its directory, renamed over ``path`` once complete): a failed write
    leaves an existing file as it was."""
    dest, source = path_and_clip(clip, path, (Clip, CompressedClip))
    if not isinstance(dest, (str, os.PathLike)):
        raise TypeError(f"path: expected a str or os.PathLike, got {type(dest).__name__}")
    if isinstance(source, Clip) and source.frames == 0:
        raise ValueError("clip: expected at least one frame, got 0")
    if isinstance(source, CompressedClip):
        if settings:
            raise TypeError(f"settings: a CompressedClip is written as it is, got "
                            f"{sorted(settings)}")
        packed = source
    else:
        packed = compress(source, **settings)  # type: ignore[arg-type]
    write_file(os.fsdecode(os.fspath(dest)), packed.to_bytes())
    return packed
