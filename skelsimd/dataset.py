"""Motion datasets without Dask: the records, readers, per-clip steps and file discovery of the
dataset pipeline, NumPy only (importable, and usable one clip at a time with
:func:`process_clip`, without the ``[dask]`` extra). :mod:`skelsimd.dask.dataset` runs them
over many files on Dask and writes the clips into a Zarr store (:mod:`skelsimd.io.zarr_store`,
which also names the groups); its docstring describes the pipeline, the steps' arrays and the
store.

Examples
--------
>>> import skelsimd
>>> from skelsimd.dataset import ClipItem, apply_steps, default_steps
>>> item = ClipItem("walk", "walk.bvh", skelsimd.data.load_example())
>>> sorted(apply_steps(item, default_steps()).arrays)
['heading', 'heading_velocity', 'positions', 'rel_positions', 'rel_velocities']
"""
from __future__ import annotations

import dataclasses
import glob
import math
import os
from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from ._rotation64 import quat_rotate
from .blend import blend_joints
from .clip import Clip
from .compress import compress
from .io.bvh import load_bvh
from .io.gltf import load_gltf_clip
from .io.skc import load_skc
from .io.zarr_store import ClipSummary, group_name
from .qts import qts_local_to_global_matrix

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Literal, TypeAlias

    from numpy.typing import NDArray

    _Path = str | os.PathLike[str]
    _Source = _Path | Iterable[_Path]
    _Readers = Mapping[str, Callable[[str], Clip]]
    _Step = Callable[["ClipItem"], "ClipItem"]
    _Entry: TypeAlias = "tuple[str, str] | ClipFailure"
    _F64 = NDArray[np.float64]

__all__ = [
    "ClipItem", "ClipFailure", "DatasetReport",
    "Resample", "GlobalPositions", "RootFeatures", "Compress", "default_steps",
    "load_compressed", "COMPRESSED_SUFFIX",
    "DEFAULT_READERS", "find_motion_files", "clip_name", "read_clip", "apply_steps",
    "process_clip",
]

def load_compressed(path: _Path, *, max_bytes: int | None = None) -> Clip:
    """The decompressed :class:`skelsimd.Clip` of a compressed clip file (``.skc``); the same as
    :func:`skelsimd.load_skc`, kept under this name for the dataset pipeline."""
    return load_skc(path, max_bytes=max_bytes)


#: Compressed clip files carry the suffix ``.skc`` (skelsimd clip) by convention.
COMPRESSED_SUFFIX = ".skc"

DEFAULT_READERS: dict[str, Callable[..., Clip]] = {
                   ".bvh": load_bvh, ".bvh.gz": load_bvh, COMPRESSED_SUFFIX: load_compressed,
                   ".gltf": load_gltf_clip, ".glb": load_gltf_clip}


# --- records -------------------------------------------------------------------------------------

@dataclasses.dataclass
class ClipItem:
    """A clip on its way through the pipeline.

    name : the Zarr group name (see :func:`group_name`); path : the file read; clip : the
    :class:`skelsimd.Clip` (steps may replace it); arrays : name -> ndarray written into the
    group besides ``local`` (``positions`` among them once computed); attrs : extra attributes.
    """
    name: str
    path: str
    clip: Clip
    arrays: dict[str, np.ndarray[Any, Any]] = dataclasses.field(default_factory=dict)
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class ClipFailure:
    """A file that was not written: its path, group name, the stage that failed ("read",
    "write", "name" or a step's name) and the error message (with the line for BVH syntax)."""
    path: str
    name: str
    stage: str
    error: str

    def __str__(self) -> str:
        return f"{self.path}: {self.error}" if self.stage == "read" else \
            f"{self.path}: {self.stage}: {self.error}"


@dataclasses.dataclass
class DatasetReport:
    """What ``build_dataset`` did: the clips written and the files that failed, in input order;
    ``skipped``: the group names found complete in the store and not written again
    (``resume=True``); ``interrupted``: the run was stopped (Ctrl-C) before every file was
    processed (the clips listed as written are complete in the store; rerun with
    ``resume=True`` / ``--resume`` to write the rest)."""
    store: str
    written: list[ClipSummary]
    failed: list[ClipFailure]
    seconds: float
    skipped: list[str] = dataclasses.field(default_factory=list)
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return not self.failed and not self.interrupted

    def summary(self) -> str:
        frames = sum(s.frames for s in self.written)
        head = "interrupted: " if self.interrupted else ""
        lines = [f"{head}wrote {len(self.written)} clips ({frames} frames) to {self.store} in "
                 f"{self.seconds:.1f} s"
                 + (f" ({len(self.skipped)} complete already, skipped)" if self.skipped else "")
                 + (f"; {len(self.failed)} failed:" if self.failed else "")]
        lines += [f"  {f}" for f in self.failed]
        if self.interrupted:
            lines.append("the clips written are complete; rerun with --resume (resume=True) to "
                         "write the others")
        return "\n".join(lines)

    __str__ = summary


def _describe(exc: BaseException, path: str | None = None) -> str:
    """The message of a failure: ValueErrors (a BVH file's 'line N: ...') as they are, other
    errors with their type; the readers' leading ``path: `` is left out (the failure names the
    path)."""
    text = str(exc)
    if path is not None and text.startswith(f"{path}: "):
        text = text[len(path) + 2:]
    if type(exc) is ValueError:
        return text
    return f"{type(exc).__name__}: {text}"


def _step_name(step: object) -> str:
    name: str = (getattr(step, "name", None) or getattr(step, "__name__", None)
                 or type(step).__name__)
    return name


# --- steps ---------------------------------------------------------------------------------------

class Resample:
    """Resample the clip to ``fps`` frames per second (before any step that derives arrays).

    New frame k is at time ``k / fps`` for every such time within the clip (the first and last
    frames are kept in time: ``floor((F - 1) * frame_time * fps) + 1`` frames). Between two
    source frames the pose is :func:`skelsimd.blend_joints` of them (rotations by ``method``,
    slerp by default, translations and scales linear); a time on a source frame copies it
    exactly. The group gets the attribute ``resampled_from_fps``.
    """
    name = "resample"

    def __init__(self, fps: float, method: Literal["fast", "exact", "nlerp"] = "fast") -> None:
        fps = float(fps)
        if not (fps > 0 and math.isfinite(fps)):
            raise ValueError(f"fps: expected a positive number, got {fps}")
        if method not in ("fast", "exact", "nlerp"):
            raise ValueError(f"method: expected 'fast', 'exact' or 'nlerp', got {method!r}")
        self.fps = fps
        self.method = method

    def __repr__(self) -> str:
        return f"Resample({self.fps:g}, method={self.method!r})"

    def __call__(self, item: ClipItem) -> ClipItem:
        if item.arrays:
            raise ValueError(f"resample must come before the steps that derive arrays "
                             f"(found {', '.join(item.arrays)})")
        clip = item.clip
        frames = clip.frames
        if frames < 2:
            count = frames
            pos = np.zeros(count)
        else:
            span = (frames - 1) * clip.frame_time
            count = int(math.floor(span * self.fps * (1 + 1e-12))) + 1
            pos = np.arange(count, dtype=np.float64) / self.fps / clip.frame_time
            near = np.round(pos)
            pos = np.where(np.abs(pos - near) < 1e-9 * np.maximum(1.0, near), near, pos)
        i = np.minimum(np.floor(pos).astype(np.int64), max(frames - 2, 0))
        u = (pos - i).astype(np.float32)
        if frames < 2:
            local = clip.local.copy()
        else:
            local = blend_joints(clip.local[i], clip.local[i + 1], u, method=self.method)
        resampled = Clip(clip.skeleton, local, 1.0 / self.fps, channels=clip.channels,
                         end_site=clip.end_site)
        attrs = dict(item.attrs, resampled_from_fps=clip.fps)
        return dataclasses.replace(item, clip=resampled, attrs=attrs)


class GlobalPositions:
    """``positions``: global joint positions ``(F, J, 3)`` float32 (forward kinematics by
    :func:`skelsimd.qts_local_to_global_matrix`, translation column; ``precision`` as there)."""
    name = "positions"

    def __init__(self, precision: Literal["float32", "float64"] = "float32") -> None:
        self.precision = precision

    def __repr__(self) -> str:
        return f"GlobalPositions(precision={self.precision!r})"

    def __call__(self, item: ClipItem) -> ClipItem:
        mats = qts_local_to_global_matrix(item.clip.local, item.clip.skeleton,
                                          precision=self.precision)
        arrays = dict(item.arrays, positions=np.ascontiguousarray(mats[..., 3]))
        return dataclasses.replace(item, arrays=arrays)


_AXIS = {"x": 0, "y": 1, "z": 2}


class RootFeatures:
    """Root-relative features for learning, in the character's facing frame.

    The facing frame at frame t: its origin is the root joint's position on the ground (the
    ``up`` component set to 0) and it is turned about ``up`` by the root's heading, the angle
    from ``forward`` to the root's rotated ``forward`` axis projected on the ground. Arrays
    (float32, computed in float64 and rounded once):

    * ``rel_positions`` ``(F, J, 3)``: global positions in the facing frame of their frame
      (heights unchanged);
    * ``rel_velocities`` ``(F, J, 3)``: ``(p[t+1] - p[t]) * fps`` in the facing frame of frame t,
      in units per second (the last frame repeats the one before; a one-frame clip has zeros);
    * ``heading`` ``(F,)``: the heading angle in radians, in (-pi, pi];
    * ``heading_velocity`` ``(F,)``: the heading's change to the next frame, wrapped to
      (-pi, pi], times fps (radians per second; the last frame repeats the one before).

    ``root`` must be a root joint (its global rotation is its local one); ``up`` and
    ``forward`` are two different axes among "x", "y", "z" (BVH files are usually y-up and
    face +z).
    """
    name = "root-features"

    def __init__(self, root: int = 0, up: Literal["x", "y", "z"] = "y",
                 forward: Literal["x", "y", "z"] = "z") -> None:
        if up not in _AXIS or forward not in _AXIS or up == forward:
            raise ValueError(f"up, forward: expected two different axes among 'x', 'y', 'z', "
                             f"got {up!r}, {forward!r}")
        self.root, self.up, self.forward = int(root), up, forward

    def __repr__(self) -> str:
        return f"RootFeatures(root={self.root}, up={self.up!r}, forward={self.forward!r})"

    def __call__(self, item: ClipItem) -> ClipItem:
        clip = item.clip
        skel = clip.skeleton
        if not (0 <= self.root < len(skel)) or skel.parents[self.root] != -1:
            raise ValueError(f"root: expected a root joint (parent -1), got joint {self.root}")
        if "positions" not in item.arrays:
            item = GlobalPositions()(item)
        p = item.arrays["positions"].astype(np.float64)                  # (F, J, 3)
        q = clip.local[:, self.root, :4].astype(np.float64)               # root global = local
        q = q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-300)
        up, fw = np.zeros(3), np.zeros(3)
        up[_AXIS[self.up]] = 1.0
        fw[_AXIS[self.forward]] = 1.0
        side = np.cross(up, fw)                                          # (side, up, forward)
        f = quat_rotate(q, fw)                                               # (F, 3)
        heading = np.arctan2(f @ side, f @ fw)                           # from forward towards side
        c, s = np.cos(heading)[:, None], np.sin(heading)[:, None]
        origin = p[:, self.root, :] - (p[:, self.root, :] @ up)[:, None] * up
        rel = _facing(p - origin[:, None, :], c, s, side, up, fw)
        fps = clip.fps
        if clip.frames > 1:
            vel = _facing(np.diff(p, axis=0) * fps, c[:-1], s[:-1], side, up, fw)
            vel = np.concatenate([vel, vel[-1:]], axis=0)
            dh = np.angle(np.exp(1j * np.diff(heading))) * fps
            dh = np.concatenate([dh, dh[-1:]])
        else:
            vel = np.zeros_like(p)
            dh = np.zeros(clip.frames)
        arrays = dict(item.arrays,
                      rel_positions=rel.astype(np.float32),
                      rel_velocities=vel.astype(np.float32),
                      heading=heading.astype(np.float32),
                      heading_velocity=dh.astype(np.float32))
        attrs = dict(item.attrs, up=self.up, forward=self.forward, root=self.root)
        return dataclasses.replace(item, arrays=arrays, attrs=attrs)


class Compress:
    """Compress the clip (:func:`skelsimd.compress`) and store the bytes for a runtime to load.

    Adds the array ``compressed``: ``CompressedClip.to_bytes()`` as ``uint8`` ``(nbytes,)``
    (``CompressedClip.from_bytes(group["compressed"][:].tobytes())`` gives it back, names and
    hierarchy included), and the attribute ``compression``: ``precision``, ``shell_distance``,
    ``segment_length``, ``max_error`` (measured on the decoded clip, never above the
    precision), ``nbytes`` (the animation data) and ``ratio``. With ``decoded=True`` the
    clip is replaced by its decompressed poses, so that the steps after it (positions,
    features) and ``local`` describe what a runtime plays back, not the source.
    """
    name = "compress"

    def __init__(self, precision: float = 0.01, shell_distance: float = 3.0,
                 segment_length: int = 16, decoded: bool = False) -> None:
        # skelsimd.compress's own argument rules, checked now (on a one-joint, one-frame probe:
        # microseconds) rather than once per clip in the workers
        probe = np.zeros((1, 1, 8), np.float32)
        probe[..., 3] = probe[..., 7] = 1.0
        compress(probe, np.array([-1]), sample_rate=1.0, precision=precision,
                 shell_distance=shell_distance, segment_length=segment_length)
        self.precision = float(precision)
        self.shell_distance = float(shell_distance)
        self.segment_length = int(segment_length)
        self.decoded = bool(decoded)

    def __repr__(self) -> str:
        return (f"Compress(precision={self.precision:g}, shell_distance={self.shell_distance:g}, "
                f"segment_length={self.segment_length}, decoded={self.decoded})")

    def __call__(self, item: ClipItem) -> ClipItem:
        c = compress(item.clip, precision=self.precision, shell_distance=self.shell_distance,
                     segment_length=self.segment_length)
        data = np.frombuffer(c.to_bytes(), dtype=np.uint8)
        arrays = dict(item.arrays, compressed=data)
        attrs = dict(item.attrs, compression=dict(
            precision=self.precision, shell_distance=self.shell_distance,
            segment_length=self.segment_length, max_error=float(c.stats["max_error"]),
            nbytes=int(c.nbytes), ratio=float(c.ratio)))
        clip = item.clip
        if self.decoded:
            clip = Clip(clip.skeleton, c.decompress(), clip.frame_time, channels=clip.channels,
                        end_site=clip.end_site)
        return dataclasses.replace(item, clip=clip, arrays=arrays, attrs=attrs)


def _facing(v: _F64, c: _F64, s: _F64, side: _F64, up: _F64, fw: _F64) -> _F64:
    """Rotate (F, J, 3) vectors by -heading about ``up`` (c, s: (F, 1) cos and sin)."""
    vs, vu, vf = v @ side, v @ up, v @ fw
    rs = c * vs - s * vf
    rf = s * vs + c * vf
    return rs[..., None] * side + vu[..., None] * up + rf[..., None] * fw


def default_steps() -> list[_Step]:
    """The steps of ``python -m skelsimd dataset``: global positions, then root features."""
    return [GlobalPositions(), RootFeatures()]


# --- files ---------------------------------------------------------------------------------------

def _suffix(path: _Path, readers: Iterable[str]) -> str | None:
    low = os.path.basename(path).lower()
    for suffix in sorted(readers, key=len, reverse=True):
        if low.endswith(suffix.lower()):
            return suffix
    return None


def _strip_suffix(base: str, readers: Iterable[str]) -> str:
    suffix = _suffix(base, readers)
    if suffix is not None and len(base) > len(suffix):
        return base[:-len(suffix)]
    return os.path.splitext(base)[0] or base


def clip_name(path: _Path, readers: _Readers | None = None, root: _Path | None = None) -> str:
    """The group name of a file: its path relative to ``root`` (default: its directory, so just
    the file name) without the reader's suffix (``01_01.bvh.gz`` -> ``01_01``), or without its
    last extension for an unknown type, escaped by :func:`group_name`. ``build_dataset`` names a
    directory's files relative to that directory: ``mocap/batch01/131_01.bvh`` under
    ``mocap/`` is the group ``batch01%2F131_01``."""
    readers = DEFAULT_READERS if readers is None else readers
    path = os.fspath(path)
    rel = os.path.basename(path) if root is None else os.path.relpath(path, os.fspath(root))
    head, base = os.path.split(rel)
    stem = _strip_suffix(base, readers)
    return group_name(os.path.join(head, stem) if head else stem)


@dataclasses.dataclass(frozen=True)
class _Found:
    """A motion file and the root its group name is relative to."""
    path: str
    root: str


def _walk(source: str, readers: Iterable[str], problems: list[tuple[str, str]]) -> list[str]:
    """The motion files below the directory ``source``: symbolic links to directories are
    followed (a link back into a directory already being walked is reported, not followed);
    directories that cannot be read are reported. ``problems`` gets (path, message) pairs."""
    found = []
    seen = set()

    def walk(d: str, stack: frozenset[str]) -> None:
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as exc:
            problems.append((d, f"directory not read: {exc.strerror or exc}"))
            return
        for e in entries:
            try:
                is_dir = e.is_dir(follow_symlinks=True)
                is_file = not is_dir and e.is_file(follow_symlinks=True)
            except OSError as exc:
                problems.append((e.path, f"not read: {exc.strerror or exc}"))
                continue
            if is_dir:
                real = os.path.realpath(e.path)
                if real in stack:
                    problems.append((e.path, "directory not followed: a link back into "
                                             f"{real}, which is being read (a cycle)"))
                    continue
                if e.is_symlink() and real in seen:
                    problems.append((e.path, f"directory not followed: a link to {real}, "
                                             "which was read already"))
                    continue
                seen.add(real)
                walk(e.path, stack | {real})
            elif is_file and _suffix(e.name, readers) is not None:
                found.append(e.path)
            elif not is_file and not e.is_symlink() and _suffix(e.name, readers) is not None:
                problems.append((e.path, "not a regular file"))
            elif e.is_symlink() and not os.path.exists(e.path) and _suffix(e.name, readers):
                problems.append((e.path, "a broken symbolic link"))

    real = os.path.realpath(source)
    seen.add(real)
    walk(source, frozenset([real]))
    return found


def _discover(source: _Source,
              readers: Iterable[str]) -> tuple[list[_Found], list[tuple[str, str]]]:
    """([_Found], [(path, problem)]) of ``source`` (see :func:`find_motion_files`)."""
    if isinstance(source, (list, tuple)):
        out: list[_Found] = []
        problems: list[tuple[str, str]] = []
        for s in source:
            f, p = _discover(s, readers)
            out += f
            problems += p
        return out, problems
    source = os.fspath(cast("_Path", source))
    problems = []
    if os.path.isdir(source):
        return [_Found(p, source) for p in sorted(_walk(source, readers, problems))], problems
    if os.path.isfile(source):
        return [_Found(source, os.path.dirname(source))], problems
    matches = sorted(p for p in glob.glob(source, recursive=True) if os.path.isfile(p))
    if not matches:
        raise FileNotFoundError(f"{source}: no such file or directory, and no file matches it "
                                f"as a glob pattern")
    base = os.path.dirname(matches[0]) if len(matches) == 1 else \
        os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in matches])
    if len(matches) > 1 and not os.path.isabs(source):
        base = os.path.relpath(base)
    return [_Found(p, base) for p in matches], problems


def find_motion_files(source: _Source, readers: _Readers | None = None) -> list[str]:
    """The motion files of ``source``, sorted: a directory (searched recursively for the
    readers' suffixes, ``.bvh`` and ``.bvh.gz`` by default, case-insensitive; symbolic links to
    directories are followed unless they lead back into a directory being read), a file, a glob
    pattern (``**`` recurses; every matching file is kept, so one of an unknown type is
    reported as a failure rather than skipped) or a list of these.

    Raises FileNotFoundError when a source names nothing. Directories that cannot be read are
    not silently skipped by :func:`build_dataset`: it reports each as a failure.
    """
    readers = DEFAULT_READERS if readers is None else readers
    return [f.path for f in _discover(source, readers)[0]]


# --- per clip ------------------------------------------------------------------------------------

def read_clip(path: _Path, name: str | None = None,
              readers: _Readers | None = None) -> ClipItem | ClipFailure:
    """Read one file into a :class:`ClipItem`, or a :class:`ClipFailure` (stage "read")."""
    readers = DEFAULT_READERS if readers is None else readers
    name = clip_name(path, readers) if name is None else name
    suffix = _suffix(path, readers)
    path = cast(str, path)              # recorded as given (the pipeline passes str paths)
    if suffix is None:
        return ClipFailure(path, name, "read", f"no reader for this file type (known: "
                                               f"{', '.join(sorted(readers))})")
    try:
        clip = readers[suffix](path)
        if not isinstance(clip, Clip):
            raise TypeError(f"the reader for {suffix} returned {type(clip).__name__}, not a Clip")
    except Exception as exc:
        return ClipFailure(path, name, "read", _describe(exc, str(path)))
    return ClipItem(name, path, clip)


def apply_steps(item: ClipItem | ClipFailure,
                steps: Sequence[_Step]) -> ClipItem | ClipFailure:
    """Run ``steps`` on a :class:`ClipItem` in order; the first error turns it into a
    :class:`ClipFailure` naming the step. Failures pass through unchanged."""
    for step in steps:
        if isinstance(item, ClipFailure):
            return item
        try:
            result = step(item)
            if not isinstance(result, ClipItem):
                raise TypeError(f"the step returned {type(result).__name__}, not a ClipItem")
            item = result
        except Exception as exc:
            return ClipFailure(item.path, item.name, _step_name(step), _describe(exc))
    return item


def process_clip(path: _Path, steps: Sequence[_Step] = (), *, name: str | None = None,
                 readers: _Readers | None = None) -> ClipItem | ClipFailure:
    """``apply_steps(read_clip(path), steps)`` plus ``positions`` when no step computed them:
    exactly what the pipeline writes for one file, in memory."""
    item = apply_steps(read_clip(path, name, readers), steps)
    return _with_positions(item)


def _with_positions(item: ClipItem | ClipFailure) -> ClipItem | ClipFailure:
    if isinstance(item, ClipItem) and "positions" not in item.arrays:
        item = apply_steps(item, [GlobalPositions()])
    return item



# --- entries of a run ---------------------------------------------------------------------------

def _named(found: Iterable[_Found], readers: _Readers,
           problems: Iterable[tuple[str, str]] = ()) -> list[_Entry]:
    """(name, path) per file, named by its path relative to its root; a name that cannot be
    made, or that is taken (compared case-insensitively: macOS and Windows file systems fold
    case), makes a ClipFailure of the later file. ``problems`` (directories not read, links not
    followed) come first as failures of the stage "find"."""
    out: list[_Entry] = [ClipFailure(path, "", "find", message) for path, message in problems]
    seen: dict[str, str] = {}
    for f in found:
        try:
            name = clip_name(f.path, readers, root=f.root)
        except ValueError as exc:
            out.append(ClipFailure(f.path, "", "name", str(exc)))
            continue
        key = name.lower()
        if key in seen:
            out.append(ClipFailure(f.path, name, "name", f"the group name {name!r} is taken by "
                                                         f"{seen[key]}"))
        else:
            seen[key] = f.path
            out.append((name, f.path))
    return out


def _read_entry(entry: _Entry, readers: _Readers) -> ClipItem | ClipFailure:
    if isinstance(entry, ClipFailure):
        return entry
    name, path = entry
    return read_clip(path, name, readers)


