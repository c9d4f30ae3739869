"""The Zarr layout of a motion dataset (Zarr format 3, zarr-python 3: the optional ``[dask]``
extra, imported only when a store is written or checked).

One group per clip, named by :func:`group_name` (one safe path component, escaped from the
file's relative path), holding the clip's arrays and attributes (:func:`skelsimd.dask.dataset`
describes them); a clip's write removes exactly the files it created when it fails; a store is
checked before a run (only a Zarr store is ever replaced). The dataset pipeline
(:mod:`skelsimd.dataset`, :mod:`skelsimd.dask.dataset`) names its clips and writes them here.

Examples
--------
>>> from skelsimd.io.zarr_store import group_name
>>> group_name("batch01/131_01")
'batch01%2F131_01'
"""
from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import shutil
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

if TYPE_CHECKING:
    from ..clip import Clip

    # an array of a clip's group: name, C-contiguous data, chunks, dimension names
    _Array = tuple[str, np.ndarray[Any, Any], tuple[int, ...], tuple[str, ...] | None]

__all__ = ["group_name", "check_group_name", "MAX_NAME_BYTES", "ClipSummary"]


class ClipRecord(Protocol):
    """What the store writes of a dataset item (a :class:`skelsimd.dataset.ClipItem` is one,
    the store takes it by what it has so that the dataset steps can import this module): its
    group name, the file it came from, the clip, the extra arrays and attributes."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def clip(self) -> Clip: ...

    @property
    def arrays(self) -> dict[str, np.ndarray[Any, Any]]: ...

    @property
    def attrs(self) -> dict[str, Any]: ...


# --- group names ---------------------------------------------------------------------------------

#: Characters a group name keeps as they are; every other character of a file's relative path
#: (path separators, control characters, ``%``, characters Windows forbids, non-ASCII) is written
#: as ``%XX`` per UTF-8 byte, so that a name is one safe path component on every file system.
_NAME_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                       "_-.+,()@=[]{}!#$&;'~ ")
_WINDOWS_DEVICES = frozenset(["CON", "PRN", "AUX", "NUL"] + [f"COM{i}" for i in range(1, 10)]
                             + [f"LPT{i}" for i in range(1, 10)])
#: Longest group name (bytes): file systems take 255 bytes per component.
MAX_NAME_BYTES = 240


def _escape(ch: str) -> str:
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))


def group_name(relative: str | os.PathLike[str]) -> str:
    """The Zarr group name of a file's path ``relative`` to its input root, reader suffix
    already removed: ``"01_01"`` stays ``01_01``; ``"batch01/131_01"`` is ``batch01%2F131_01``.

    The name is one path component that addresses nothing outside its group, on any file
    system: path separators (``/`` and ``\\``), ``%``, control and non-ASCII characters and
    the characters Windows forbids become ``%XX`` (UTF-8 bytes, as in URLs); so do the dots of
    a name made of dots only (``..`` -> ``%2E%2E``), a leading ``_`` of a name starting with
    ``__`` (reserved by Zarr), the name ``zarr.json`` (any case), Windows device names and a
    trailing dot or space. The mapping is one-to-one (``%`` itself is escaped), deterministic and
    independent of the other files, so a store's names are the same on every run and worker
    count. Raises ValueError for an empty name and one longer than :data:`MAX_NAME_BYTES` bytes.

    Examples
    --------
    >>> group_name("walk")
    'walk'
    >>> group_name("subject 01/walk")
    'subject 01%2Fwalk'
    >>> group_name("..")
    '%2E%2E'
    """
    relative = os.fspath(relative).replace(os.sep, "/")
    if not relative:
        raise ValueError("group name: a file name is empty")
    out = "".join(c if c in _NAME_SAFE else _escape(c) for c in relative)
    if set(out) == {"."}:
        out = "%2E" * len(out)
    if out.startswith("__"):
        out = "%5F" + out[1:]
    if out.lower() == "zarr.json" or out.split(".")[0].upper() in _WINDOWS_DEVICES:
        out = _escape(out[0]) + out[1:]
    if out[-1] in ". ":
        out = out[:-1] + _escape(out[-1])
    if len(out.encode()) > MAX_NAME_BYTES:
        raise ValueError(f"group name: {relative!r} gives a name of {len(out.encode())} bytes "
                         f"(at most {MAX_NAME_BYTES})")
    return out


def check_group_name(name: str) -> str:
    """Raise ValueError unless ``name`` is a group name :func:`group_name` could have made: one
    path component, not made of dots, not reserved (see :func:`group_name`)."""
    if not isinstance(name, str):
        raise TypeError(f"group name: expected str, got {type(name).__name__}")
    bad = [c for c in re.sub("%[0-9A-F]{2}", "", name) if c not in _NAME_SAFE]
    if (not name or bad or set(name) == {"."} or name.startswith("__")
            or name.lower() == "zarr.json" or name.split(".")[0].upper() in _WINDOWS_DEVICES
            or name[-1] in ". " or len(name.encode()) > MAX_NAME_BYTES):
        raise ValueError(f"group name: {name!r} is not a safe Zarr group name (expected one path "
                         f"component of {''.join(sorted(_NAME_SAFE))!r} and %XX escapes, not "
                         f"made of dots, not reserved; skelsimd.dask.dataset.group_name makes one)")
    return name



# --- a clip's group -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ClipSummary:
    """A clip written to the store."""
    name: str
    path: str
    frames: int
    joints: int
    fps: float


_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "local": ("frame", "joint", "qts"), "positions": ("frame", "joint", "xyz"),
    "rel_positions": ("frame", "joint", "xyz"), "rel_velocities": ("frame", "joint", "xyz"),
    "heading": ("frame",), "heading_velocity": ("frame",), "compressed": ("byte",),
}


def _json(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    return value


def _clip_layout(item: ClipRecord, chunk_frames: int) -> tuple[Any, list[_Array]]:
    """(attributes, [(array name, C-contiguous array, chunks, dimension names)]) of a clip."""
    clip = item.clip
    attrs = dict(fps=clip.fps, frame_time=clip.frame_time, names=list(clip.skeleton.names),
                 parents=[int(p) for p in clip.skeleton.parents], source=item.path,
                 **item.attrs)
    arrays = []
    for key, value in dict(local=clip.local, **item.arrays).items():
        value = np.ascontiguousarray(value)
        chunks = tuple(max(1, s) for s in value.shape)
        dims = _DIMENSIONS.get(key)
        if value.ndim and (dims is None or dims[0] == "frame"):    # bytes: one chunk
            chunks = (max(1, min(value.shape[0], int(chunk_frames))),) + chunks[1:]
        arrays.append((key, value, chunks, dims if dims and len(dims) == value.ndim else None))
    return _json(attrs), arrays


async def _write_clip_async(target: Any, item: ClipRecord, chunk_frames: int) -> ClipSummary:
    """Write one clip as the group ``item.name`` of the Zarr store ``target``.

    The group is built in a MemoryStore first (Zarr's metadata checks and codecs, no I/O), then
    its files are copied into the target concurrently, the group's own metadata last: about
    13 writes per clip instead of Zarr's 40-odd checks and writes through its thread pool
    (30 ms -> a few ms per clip on a shared 2-core machine). A failure removes what was written.
    """
    from zarr.api.asynchronous import open_group
    from zarr.core.buffer import default_buffer_prototype
    from zarr.storage import MemoryStore

    name = check_group_name(item.name)
    existing = [k async for k in target.list_prefix(f"{name}/")]
    if existing:
        raise ValueError(f"a group named {name!r} already exists in the store")
    attrs, arrays = _clip_layout(item, chunk_frames)
    mem = MemoryStore()
    group = await open_group(store=mem, mode="w", attributes=attrs, zarr_format=3)
    created = await asyncio.gather(*(
        group.create_array(key, shape=value.shape, dtype=value.dtype, chunks=chunks,
                           dimension_names=dims)
        for key, value, chunks, dims in arrays))
    await asyncio.gather(*(a.setitem(Ellipsis, value)
                           for a, (_, value, _, _) in zip(created, arrays) if value.size))
    proto = default_buffer_prototype()
    keys = [k async for k in mem.list()]
    body = [k for k in keys if k != "zarr.json"]
    written = []

    async def put(key: str, value: Any) -> None:
        written.append(key)     # before the write: a partly written file is removed too
        await target.set(key, value)

    try:
        values = await asyncio.gather(*(mem.get(k, prototype=proto) for k in keys))
        files = dict(zip(keys, values))
        await asyncio.gather(*(put(f"{name}/{k}", files[k]) for k in body))
        await put(f"{name}/zarr.json", files["zarr.json"])
    except BaseException:
        # Remove exactly the files this write created (never a directory as a whole: the
        # name was checked to be one component, and nothing else was there before).
        for key in written:
            try:
                await target.delete(key)
            except Exception:
                pass
        _remove_empty_dirs(target, name)
        raise
    clip = item.clip
    return ClipSummary(name, item.path, clip.frames, len(clip.skeleton), clip.fps)


def _remove_empty_dirs(target: Any, name: str) -> None:
    """After a failed write into a local store: remove the group's directories left empty."""
    root = getattr(target, "root", None)
    if root is None:
        return
    top = os.path.join(os.fspath(root), name)
    for d, _, _ in sorted(os.walk(top), key=lambda w: -len(w[0])):
        try:
            os.rmdir(d)     # only empty directories
        except OSError:
            pass


# --- the store -------------------------------------------------------------------------------------

def _is_zarr_store(path: str) -> bool:
    """True for a directory holding a Zarr group or array (format 3 or 2) at its root."""
    return any(os.path.isfile(os.path.join(path, f)) for f in ("zarr.json", ".zgroup", ".zarray"))


def _prepare_store(store: Any, overwrite: bool) -> Literal["w", "w-"]:
    """Check that ``store`` can be created, and with ``overwrite`` remove an existing Zarr store
    there. Anything that is not a Zarr store (a file, a non-empty directory without Zarr
    metadata) is never removed: FileExistsError. Returns the mode to open the root group with."""
    if not isinstance(store, str) or "://" in store:
        return "w" if overwrite else "w-"   # a URL or a store object: zarr's own rules
    if not os.path.lexists(store):
        return "w-"
    if os.path.islink(store) or not os.path.isdir(store):
        raise FileExistsError(f"{store}: exists and is not a directory (a file or link is never "
                              f"replaced; remove it or choose another --out)")
    if not any(os.scandir(store)):
        return "w-"     # an empty directory: used as it is
    if not _is_zarr_store(store):
        only = " (--overwrite replaces only a Zarr store)" if overwrite else ""
        raise FileExistsError(f"{store}: is a non-empty directory that is not a Zarr store; it "
                              f"is never replaced{only}: choose another --out")
    if not overwrite:
        raise FileExistsError(f"{store}: a Zarr store already exists there (overwrite=True or "
                              f"--overwrite replaces it)")
    shutil.rmtree(store)
    return "w-"


