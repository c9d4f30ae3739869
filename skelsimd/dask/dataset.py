"""Motion datasets on Dask: many motion files -> per-clip work -> one Zarr group per clip.

The pipeline, each stage usable on its own::

    paths = find_motion_files("cmu/")                  # a directory (recursive), a glob or a list
    clips = read_clips(paths)                          # dask bag of ClipItem (or ClipFailure)
    clips = clips.map(apply_steps, steps)              # per-clip work, a list of steps
    done = write_clips(clips, "cmu.zarr")              # dask bag of ClipSummary (or ClipFailure)
    done.compute()                                     # any dask scheduler or cluster

or all of it, with a progress bar and a report, in ``build_dataset(source, store, steps=...)``
(``python -m skelsimd dataset IN_DIR --out OUT.zarr``).

The store (Zarr format 3, zarr-python 3)
-----------------------------------------
One group per clip, named by the file's path relative to the input directory without the
reader's suffix (``01_01.bvh`` and ``01_01.bvh.gz`` -> ``01_01``; ``batch01/131_01.bvh`` ->
``batch01%2F131_01``): one flat level of groups, the path escaped by :func:`group_name` so that
no file name can address anything outside its own group (separators, ``%`` and unsafe
characters become ``%XX``, ``..`` becomes ``%2E%2E``), the same names on every run and worker
count. The group's ``source`` attribute keeps the path read. Its contents:

* ``local`` float32 ``(F, J, 8)``: the local QTS poses ``(qx, qy, qz, qw, tx, ty, tz, s)`` after
  the steps (resampled when a :class:`Resample` step ran);
* ``positions`` float32 ``(F, J, 3)``: global joint positions in the file's units (forward
  kinematics on the kernels; always written, computed from ``local`` if no step did);
* every array the steps add (:class:`RootFeatures`: ``rel_positions``, ``rel_velocities``,
  ``heading``, ``heading_velocity``; :class:`Compress`: ``compressed``);
* attributes ``fps``, ``frame_time``, ``names``, ``parents`` (``-1`` for a root), ``source`` (the
  path read) and what the steps add (``resampled_from_fps``, ``up``, ``forward``,
  ``compression``).

Arrays are chunked along frames (``chunk_frames`` frames per chunk, 4096 by default) with Zarr's
default compression. The root group's attributes record the run: ``skelsimd_version``,
``steps``, ``clips`` (how many groups were written) and ``failed`` (``{"path", "error"}`` of every
file that was not written).

Failures
--------
Nothing is dropped without a word. Every stage catches the errors of one clip and turns the clip
into a :class:`ClipFailure` (path, group name, stage, message; a BVH file that does not parse
says where: ``line 19: expected 9 channel values (frame 0), got 8``); the other clips go on and
are written. Two files whose names agree (case-insensitively, as macOS and Windows file
systems compare them) are a failure of the second (the first is written). Directories that
cannot be read and symbolic links that lead back into a directory being read are failures of
the stage "find"; other links to directories are followed. A write that fails removes exactly
the files it created.
``build_dataset`` returns a :class:`DatasetReport` of what was written and what failed.

Extending the pipeline
----------------------
* Steps: any picklable callable ``step(item) -> item`` on :class:`ClipItem` (``item.clip`` the
  :class:`skelsimd.Clip`, ``item.arrays`` the arrays to write, ``item.attrs`` the attributes);
  a ``name`` attribute names it in failure reports. Steps that change the timing or the poses
  (resampling, retargeting) come before steps that derive arrays. :class:`Compress` stores a
  compressed clip's bytes as the ``uint8`` array ``compressed`` and its settings and measured
  error as the attribute ``compression``.
* Readers: ``readers={".suffix": callable(path) -> skelsimd.Clip}`` for other motion formats;
  the default reads ``.bvh`` and ``.bvh.gz`` with :func:`skelsimd.load_bvh`, ``.gltf`` and
  ``.glb`` with :func:`skelsimd.io.gltf.load_gltf_clip` (the file's first clip: its first
  animation with the first skin that animation drives) and compressed
  clips (``.skc``, ``CompressedClip.to_bytes()``) with :func:`load_compressed`. Readers and steps are passed with the tasks, so they work on local
  processes and on distributed workers alike (they must be importable there).
"""
import dataclasses
import glob
import math
import os
import re
import sys
import time

import numpy as np

try:
    import dask
    import dask.bag as db
    from dask.callbacks import Callback
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("skelsimd.dask needs the optional dependencies of the [dask] extra: "
                      "pip install 'skelsimd[dask]'") from exc

from .. import __version__
from .._rotation64 import quat_rotate
from ..blend import blend_joints
from ..clip import Clip
from ..io.bvh import load_bvh
from ..io.gltf import load_gltf_clip
from ..io.skc import load_skc
from ..qts import qts_local_to_global_matrix

__all__ = [
    "ClipItem", "ClipFailure", "ClipSummary", "DatasetReport",
    "Resample", "GlobalPositions", "RootFeatures", "Compress", "default_steps",
    "load_compressed", "COMPRESSED_SUFFIX",
    "DEFAULT_READERS", "find_motion_files", "clip_name", "group_name", "check_group_name",
    "MAX_NAME_BYTES", "read_clip", "apply_steps",
    "process_clip", "read_clips", "write_clips", "write_clip", "build_dataset",
]

def load_compressed(path, *, max_bytes=None):
    """The decompressed :class:`skelsimd.Clip` of a compressed clip file (``.skc``); the same as
    :func:`skelsimd.load_skc`, kept under this name for the dataset pipeline."""
    return load_skc(path, max_bytes=max_bytes)


#: Compressed clip files carry the suffix ``.skc`` (skelsimd clip) by convention.
COMPRESSED_SUFFIX = ".skc"

DEFAULT_READERS = {".bvh": load_bvh, ".bvh.gz": load_bvh, COMPRESSED_SUFFIX: load_compressed,
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
    arrays: dict = dataclasses.field(default_factory=dict)
    attrs: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class ClipFailure:
    """A file that was not written: its path, group name, the stage that failed ("read",
    "write", "name" or a step's name) and the error message (with the line for BVH syntax)."""
    path: str
    name: str
    stage: str
    error: str

    def __str__(self):
        return f"{self.path}: {self.error}" if self.stage == "read" else \
            f"{self.path}: {self.stage}: {self.error}"


@dataclasses.dataclass(frozen=True)
class ClipSummary:
    """A clip written to the store."""
    name: str
    path: str
    frames: int
    joints: int
    fps: float


@dataclasses.dataclass
class DatasetReport:
    """What ``build_dataset`` did: the clips written and the files that failed, in input order;
    ``skipped``: the group names found complete in the store and not written again
    (``resume=True``); ``interrupted``: the run was stopped (Ctrl-C) before every file was
    processed (the clips listed as written are complete in the store; rerun with
    ``resume=True`` / ``--resume`` to write the rest)."""
    store: str
    written: list
    failed: list
    seconds: float
    skipped: list = dataclasses.field(default_factory=list)
    interrupted: bool = False

    @property
    def ok(self):
        return not self.failed and not self.interrupted

    def summary(self):
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


def _describe(exc):
    """The message of a failure: ValueErrors (a BVH file's 'line N: ...') as they are, other
    errors with their type."""
    if type(exc) is ValueError:
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _step_name(step):
    return getattr(step, "name", None) or getattr(step, "__name__", None) or type(step).__name__


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

    def __init__(self, fps, method="fast"):
        fps = float(fps)
        if not (fps > 0 and math.isfinite(fps)):
            raise ValueError(f"fps: expected a positive number, got {fps}")
        if method not in ("fast", "exact", "nlerp"):
            raise ValueError(f"method: expected 'fast', 'exact' or 'nlerp', got {method!r}")
        self.fps = fps
        self.method = method

    def __repr__(self):
        return f"Resample({self.fps:g}, method={self.method!r})"

    def __call__(self, item):
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

    def __init__(self, precision="float32"):
        self.precision = precision

    def __repr__(self):
        return f"GlobalPositions(precision={self.precision!r})"

    def __call__(self, item):
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

    def __init__(self, root=0, up="y", forward="z"):
        if up not in _AXIS or forward not in _AXIS or up == forward:
            raise ValueError(f"up, forward: expected two different axes among 'x', 'y', 'z', "
                             f"got {up!r}, {forward!r}")
        self.root, self.up, self.forward = int(root), up, forward

    def __repr__(self):
        return f"RootFeatures(root={self.root}, up={self.up!r}, forward={self.forward!r})"

    def __call__(self, item):
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

    def __init__(self, precision=0.01, shell_distance=3.0, segment_length=16, decoded=False):
        # skelsimd.compress's own argument rules, checked now (on a one-joint, one-frame probe:
        # microseconds) rather than once per clip in the workers
        from ..compress import compress

        probe = np.zeros((1, 1, 8), np.float32)
        probe[..., 3] = probe[..., 7] = 1.0
        compress(probe, np.array([-1]), sample_rate=1.0, precision=precision,
                 shell_distance=shell_distance, segment_length=segment_length)
        self.precision = float(precision)
        self.shell_distance = float(shell_distance)
        self.segment_length = int(segment_length)
        self.decoded = bool(decoded)

    def __repr__(self):
        return (f"Compress(precision={self.precision:g}, shell_distance={self.shell_distance:g}, "
                f"segment_length={self.segment_length}, decoded={self.decoded})")

    def __call__(self, item):
        from ..compress import compress

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


def _facing(v, c, s, side, up, fw):
    """Rotate (F, J, 3) vectors by -heading about ``up`` (c, s: (F, 1) cos and sin)."""
    vs, vu, vf = v @ side, v @ up, v @ fw
    rs = c * vs - s * vf
    rf = s * vs + c * vf
    return rs[..., None] * side + vu[..., None] * up + rf[..., None] * fw


def default_steps():
    """The steps of ``python -m skelsimd dataset``: global positions, then root features."""
    return [GlobalPositions(), RootFeatures()]


# --- files ---------------------------------------------------------------------------------------

def _suffix(path, readers):
    low = os.path.basename(path).lower()
    for suffix in sorted(readers, key=len, reverse=True):
        if low.endswith(suffix.lower()):
            return suffix
    return None


#: Characters a group name keeps as they are; every other character of a file's relative path
#: (path separators, control characters, ``%``, characters Windows forbids, non-ASCII) is written
#: as ``%XX`` per UTF-8 byte, so that a name is one safe path component on every file system.
_NAME_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                       "_-.+,()@=[]{}!#$&;'~ ")
_WINDOWS_DEVICES = frozenset(["CON", "PRN", "AUX", "NUL"] + [f"COM{i}" for i in range(1, 10)]
                             + [f"LPT{i}" for i in range(1, 10)])
#: Longest group name (bytes): file systems take 255 bytes per component.
MAX_NAME_BYTES = 240


def _escape(ch):
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))


def group_name(relative):
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


def check_group_name(name):
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


def _strip_suffix(base, readers):
    suffix = _suffix(base, readers)
    if suffix is not None and len(base) > len(suffix):
        return base[:-len(suffix)]
    return os.path.splitext(base)[0] or base


def clip_name(path, readers=None, root=None):
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


def _walk(source, readers, problems):
    """The motion files below the directory ``source``: symbolic links to directories are
    followed (a link back into a directory already being walked is reported, not followed);
    directories that cannot be read are reported. ``problems`` gets (path, message) pairs."""
    found = []
    seen = set()

    def walk(d, stack):
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


def _discover(source, readers):
    """([_Found], [(path, problem)]) of ``source`` (see :func:`find_motion_files`)."""
    if isinstance(source, (list, tuple)):
        out, problems = [], []
        for s in source:
            f, p = _discover(s, readers)
            out += f
            problems += p
        return out, problems
    source = os.fspath(source)
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


def find_motion_files(source, readers=None):
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

def read_clip(path, name=None, readers=None):
    """Read one file into a :class:`ClipItem`, or a :class:`ClipFailure` (stage "read")."""
    readers = DEFAULT_READERS if readers is None else readers
    name = clip_name(path, readers) if name is None else name
    suffix = _suffix(path, readers)
    if suffix is None:
        return ClipFailure(path, name, "read", f"no reader for this file type (known: "
                                               f"{', '.join(sorted(readers))})")
    try:
        clip = readers[suffix](path)
        if not isinstance(clip, Clip):
            raise TypeError(f"the reader for {suffix} returned {type(clip).__name__}, not a Clip")
    except Exception as exc:
        return ClipFailure(path, name, "read", _describe(exc))
    return ClipItem(name, path, clip)


def apply_steps(item, steps):
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


def process_clip(path, steps=(), *, name=None, readers=None):
    """``apply_steps(read_clip(path), steps)`` plus ``positions`` when no step computed them:
    exactly what the pipeline writes for one file, in memory."""
    item = apply_steps(read_clip(path, name, readers), steps)
    return _with_positions(item)


def _with_positions(item):
    if isinstance(item, ClipItem) and "positions" not in item.arrays:
        item = apply_steps(item, [GlobalPositions()])
    return item


_DIMENSIONS = {
    "local": ("frame", "joint", "qts"), "positions": ("frame", "joint", "xyz"),
    "rel_positions": ("frame", "joint", "xyz"), "rel_velocities": ("frame", "joint", "xyz"),
    "heading": ("frame",), "heading_velocity": ("frame",), "compressed": ("byte",),
}


def _json(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    return value


def _clip_layout(item, chunk_frames):
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


async def _write_clip_async(target, item, chunk_frames):
    """Write one clip as the group ``item.name`` of the Zarr store ``target``.

    The group is built in a MemoryStore first (Zarr's metadata checks and codecs, no I/O), then
    its files are copied into the target concurrently, the group's own metadata last: about
    13 writes per clip instead of Zarr's 40-odd checks and writes through its thread pool
    (30 ms -> a few ms per clip on a shared 2-core machine). A failure removes what was written.
    """
    import asyncio

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

    async def put(key, value):
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


def _remove_empty_dirs(target, name):
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


async def _write_items_async(store, items, chunk_frames):
    """Write a partition's clips one after the other; a clip's error becomes its failure."""
    from zarr.api.asynchronous import open_group

    target = None
    out = []
    for item in items:
        if isinstance(item, ClipFailure):
            out.append(item)
            continue
        try:
            if target is None:
                target = (await open_group(store=store, mode="r+")).store
            out.append(await _write_clip_async(target, _with_positions(item), chunk_frames))
        except Exception as exc:
            out.append(ClipFailure(item.path, item.name, "write", _describe(exc)))
    return out


def write_clip(store, item, chunk_frames=4096):
    """Write one :class:`ClipItem` (``positions`` computed if missing) as the group
    ``item.name`` of the existing Zarr store ``store``; returns its :class:`ClipSummary`, or a
    :class:`ClipFailure` (stage "write") when the write fails (the group is then removed)."""
    return _write_partition([item], _store_path(store), chunk_frames)[0]


# --- the bag -------------------------------------------------------------------------------------

def _named(found, readers, problems=()):
    """(name, path) per file, named by its path relative to its root; a name that cannot be
    made, or that is taken (compared case-insensitively: macOS and Windows file systems fold
    case), makes a ClipFailure of the later file. ``problems`` (directories not read, links not
    followed) come first as failures of the stage "find"."""
    out = [ClipFailure(path, "", "find", message) for path, message in problems]
    seen = {}
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


def _read_entry(entry, readers):
    if isinstance(entry, ClipFailure):
        return entry
    name, path = entry
    return read_clip(path, name, readers)


def default_partition_size(count):
    """Clips per task: 1 for small sets (balance), up to 8 for thousands (fewer tasks)."""
    return max(1, min(8, count // 128))


def read_clips(source, *, readers=None, partition_size=None):
    """A dask bag of the motion files of ``source`` (see :func:`find_motion_files`), read lazily
    into :class:`ClipItem` (a file that does not read is a :class:`ClipFailure` element), in
    the order of the files. ``partition_size`` clips per partition (default: 1 per clip for up
    to 255 files, up to 8 for thousands)."""
    readers = DEFAULT_READERS if readers is None else dict(readers)
    found, problems = _discover(source, readers)
    entries = _named(found, readers, problems)
    if not entries:
        raise FileNotFoundError(f"{source}: no motion files ({', '.join(sorted(readers))})")
    size = partition_size or default_partition_size(len(entries))
    return db.from_sequence(entries, partition_size=size).map(_read_entry, readers)


def _write_partition(items, store, chunk_frames):
    from zarr.core.sync import sync     # runs a coroutine on Zarr's own event loop

    return sync(_write_items_async(store, list(items), chunk_frames))


def write_clips(clips, store, *, chunk_frames=4096):
    """Lazily write a bag of :class:`ClipItem` into the Zarr store ``store`` (a path or URL the
    workers can reach; the root group is created now when missing), one group per clip; the
    result is a bag of :class:`ClipSummary` and :class:`ClipFailure` (write errors included).
    Clips without ``positions`` get them computed before writing."""
    import zarr

    zarr.open_group(_store_path(store), mode="a")
    return clips.map_partitions(_write_partition, _store_path(store), chunk_frames)


def _store_path(store):
    return os.fspath(store) if isinstance(store, os.PathLike) else store


# --- running -------------------------------------------------------------------------------------

class _Progress:
    """A progress bar over clips (tqdm when installed, else a line per 10%) that prints every
    failure as it arrives."""

    def __init__(self, total, enabled, stream=None):
        self.results = []       # the partition results seen, for an interrupted run
        self.total = total
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.done = 0
        self.bar = None
        self.next_line = 0.1
        if enabled:
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, unit="clip", file=self.stream, dynamic_ncols=True)
            except ImportError:
                self.bar = None

    def update(self, results):
        self.results.append(results)
        if self.enabled:
            for r in results:
                if isinstance(r, ClipFailure):
                    self.write(f"FAILED {r}")
        self.done += len(results)
        if self.bar is not None:
            self.bar.update(len(results))
        elif self.enabled and self.done >= self.next_line * self.total:
            print(f"{self.done}/{self.total} clips", file=self.stream, flush=True)
            while self.next_line * self.total <= self.done:
                self.next_line += 0.1

    def write(self, text):
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()


class _LocalProgress(Callback):
    """Feeds _Progress from the local schedulers (threads, processes, synchronous)."""

    def __init__(self, keys, progress):
        super().__init__()
        self.keys = set(keys)
        self.progress = progress

    def _posttask(self, key, result, dsk, state, id):
        if key in self.keys:
            self.keys.discard(key)
            self.progress.update(result)


def _partition_entries(entries, size):
    return [entries[i:i + size] for i in range(0, len(entries), size)]


def _failed_partition(entries, exc):
    out = []
    for e in entries:
        if isinstance(e, ClipFailure):
            out.append(e)
        else:
            out.append(ClipFailure(e[1], e[0], "task", _describe(exc)))
    return out


def build_dataset(source, store, *, steps=None, scheduler="processes", workers=None,
                  progress=True, overwrite=False, readers=None, partition_size=None,
                  chunk_frames=4096, resume=False):
    """Read every motion file of ``source``, run ``steps`` on each clip and write one Zarr group
    per clip into ``store``; returns a :class:`DatasetReport`.

    Parameters
    ----------
    source : path, glob pattern or list of them (see :func:`find_motion_files`)
    store : str or os.PathLike
        The Zarr store to create (a directory path, or a URL the workers reach; an empty
        directory is used as it is). An existing Zarr store is a FileExistsError unless
        ``overwrite=True``, which replaces it; anything else there (a file, a directory that is
        not a Zarr store) is never removed, overwrite or not: FileExistsError.
    steps : list of callables, default :func:`default_steps` (positions and root features)
        Per-clip work, in order (see the module docstring); ``positions`` are always written.
    scheduler : "processes" (default), "threads", "sync", a ``dask.distributed.Client``, or the
        address of a distributed scheduler (``tcp://host:8786``; a ``.json`` path is a
        scheduler file)
    workers : int, optional
        Worker processes or threads of the local schedulers (default: one per core); ignored
        on a cluster, which has its own.
    progress : bool
        A progress bar on stderr (tqdm when installed) that prints each failure as it happens
        (False: nothing is printed; the report still lists every failure).
    resume : bool
        Continue a run into an existing store (a local directory): groups that are complete
        (their ``zarr.json`` exists: it is written last) are skipped, the files of incomplete
        ones (a run stopped while writing them) are removed and written again.

    A KeyboardInterrupt (Ctrl-C) stops the run: the report returned has ``interrupted=True``
    and lists the clips written (each complete); the store's attributes record them.
    """
    t0 = time.perf_counter()
    readers = DEFAULT_READERS if readers is None else dict(readers)
    steps = default_steps() if steps is None else list(steps)
    store = _store_path(store)
    found, problems = _discover(source, readers)
    entries = _named(found, readers, problems)
    if not found:
        raise FileNotFoundError(f"{source}: no motion files ({', '.join(sorted(readers))})")

    import zarr

    skipped = []
    if resume:
        if overwrite:
            raise ValueError("resume and overwrite: choose one (overwrite replaces the store, "
                             "resume continues it)")
        entries, skipped = _resume_entries(store, entries)
        root = zarr.open_group(store, mode="r+")
    else:
        root = zarr.open_group(store, mode=_prepare_store(store, overwrite))
    root.attrs.update({"skelsimd_version": __version__, "steps": [repr(s) for s in steps]})
    if not entries:
        return DatasetReport(str(store), [], [], time.perf_counter() - t0, skipped)

    size = partition_size or default_partition_size(len(entries))
    bag = (db.from_sequence(entries, partition_size=size)
           .map(_read_entry, readers)
           .map(apply_steps, steps)
           .map_partitions(_write_partition, store, chunk_frames))
    parts = _partition_entries(entries, size)
    assert bag.npartitions == len(parts)

    bar = _Progress(len(entries), progress)
    interrupted = False
    try:
        results = _run(bag, parts, scheduler, workers, bar)
    except KeyboardInterrupt:
        # what the progress bar saw complete (a partition's clips are each complete: a write
        # that was cut removes its own files, or leaves a group without zarr.json that
        # resume=True removes)
        interrupted = True
        results = bar.results
    finally:
        bar.close()
    flat = [r for part in results for r in part]
    written = [r for r in flat if isinstance(r, ClipSummary)]
    failed = [r for r in flat if isinstance(r, ClipFailure)]
    previous = root.attrs.get("clips", 0) if resume else 0
    root.attrs.update({"clips": len(written) + (previous if isinstance(previous, int) else 0),
                       "interrupted": interrupted,
                       "failed": [{"path": f.path, "stage": f.stage, "error": f.error}
                                  for f in failed]})
    return DatasetReport(str(store), written, failed, time.perf_counter() - t0, skipped,
                         interrupted)


def _resume_entries(store, entries):
    """(entries still to write, names of complete groups) of a run resumed into the local
    store ``store``: a group is complete when its zarr.json exists (written last); the files
    of an incomplete group are removed (its directory, inside the store: the name was checked
    to be one safe component)."""
    import shutil

    if not isinstance(store, str) or "://" in store:
        raise ValueError(f"resume: expected a local directory store, got {store!r}")
    if not (os.path.isdir(store) and _is_zarr_store(store)):
        raise FileNotFoundError(f"{store}: no Zarr store to resume (run without --resume to "
                                f"create it)")
    todo, done = [], []
    for e in entries:
        if isinstance(e, ClipFailure):
            todo.append(e)
            continue
        name = check_group_name(e[0])
        group = os.path.join(store, name)
        if os.path.isfile(os.path.join(group, "zarr.json")):
            done.append(name)
            continue
        if os.path.isdir(group) and not os.path.islink(group):
            shutil.rmtree(group)        # a group cut mid-write: written again
        todo.append(e)
    return todo, done


def _is_zarr_store(path):
    """True for a directory holding a Zarr group or array (format 3 or 2) at its root."""
    return any(os.path.isfile(os.path.join(path, f)) for f in ("zarr.json", ".zgroup", ".zarray"))


def _prepare_store(store, overwrite):
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
    import shutil
    shutil.rmtree(store)
    return "w-"


def _run(bag, parts, scheduler, workers, bar):
    """Compute the bag's partitions, feeding the progress bar; returns the list of partition
    results in order (a partition whose task failed as a whole becomes failures)."""
    if isinstance(scheduler, str) and scheduler in ("threads", "processes", "sync", "synchronous"):
        keys = bag.__dask_keys__()
        with _LocalProgress(keys, bar):
            (results,) = dask.compute(bag.to_delayed(), scheduler=scheduler, num_workers=workers)
        return list(results)

    from distributed import Client, as_completed

    own = None
    if isinstance(scheduler, Client):
        client = scheduler
    elif isinstance(scheduler, str):
        if scheduler.endswith(".json"):
            client = own = Client(scheduler_file=scheduler)
        else:
            client = own = Client(scheduler)
    else:
        raise ValueError(f"scheduler: expected 'processes', 'threads', 'sync', a "
                         f"distributed.Client or a scheduler address, got {scheduler!r}")
    try:
        futures = client.compute(bag.to_delayed())
        index = {f.key: i for i, f in enumerate(futures)}
        results = [None] * len(futures)
        for fut in as_completed(futures):
            i = index[fut.key]
            if fut.status == "error":
                results[i] = _failed_partition(parts[i], fut.exception())
            else:
                results[i] = fut.result()
            bar.update(results[i])
            fut.release()
        return results
    finally:
        if own is not None:
            own.close()
