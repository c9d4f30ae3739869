"""Motion matching: a feature database over clips, an exact and fast pose search, and
inertialized transitions.

Motion matching (Clavet, "Motion Matching and The Road to Next-Gen Animation", GDC 2016; Holden
et al., "Learned Motion Matching", 2020, whose reference implementation this module follows)
animates a character by searching, several times a second, a database of every frame of a clip
library for the frame whose features best match the character's current pose and the
trajectory the player asks for, then switching to it without a pop by inertialization.

* :class:`MotionDatabase`: the features of every candidate frame, normalised and weighted, and
  :meth:`~MotionDatabase.search` (exact, SIMD, pruned by two levels of bounding boxes).
* :func:`pose_velocity`, :func:`inertialize_transition`, :func:`inertialize_update` and
  :class:`Inertializer`: offsets between two streams of poses that decay with a critically
  damped spring (Holden, "Spring-It-On: The Game Developer's Spring-Roll-Call", 2021);
  :meth:`skelsimd.Clip.transition` switches clips with them.

Features (the reference implementation's 27 with the defaults), per frame, in the character's
root space:

====================  ======  ========================================================  =======
group                 size    value                                                      weight
====================  ======  ========================================================  =======
``foot_position``     3 per   joint positions relative to the root                       0.75
``foot_velocity``     3 per   joint velocities (per second)                              1.0
``hip_velocity``      3       the hip's velocity                                         1.0
``trajectory_position`` 2 per offset  the root's future ground position (side, forward)  1.0
``trajectory_direction`` 2 per offset the root's future facing direction (side, forward) 1.5
====================  ======  ========================================================  =======

The root of a frame is the hip projected on the ground plane (its up coordinate set to 0),
facing the hip's ``forward`` axis projected on the ground and normalised. Root-space coordinates
of a vector ``v`` are ``(v . side, v . up, v . facing)`` with ``side = up x facing`` (so ``(x,
y, z)`` for a y-up character facing +z at rest); ground vectors keep ``(side, facing)``.
Velocities are backward differences ``(p[f] - p[f - 1]) / frame_time`` (frame 0 takes frame
1's). Trajectory offsets are in seconds, rounded to frames; a frame is a candidate (a row of
the database) only when its furthest offset still lies inside its clip.

Normalisation (the reference implementation's): each group is centred on its per-dimension
mean over the database and divided by its scale, the mean over the group's dimensions of their
standard deviations, then multiplied by its weight: ``features = (raw - mean) / scale *
weight``. The cost of a candidate is the squared Euclidean distance to the query in that space.
"""
from __future__ import annotations

import math
import operator
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, cast

import numpy as np
import numpy.typing as npt

from . import _core
from ._typing import Axis
from .clip import Clip
from .inertialize import Inertializer, inertialize_transition, inertialize_update, pose_velocity
from .skeleton import Skeleton, mirror_pairs

__all__ = ["MotionDatabase", "DEFAULT_WEIGHTS", "pose_velocity", "inertialize_transition",
           "inertialize_update", "Inertializer"]

DEFAULT_WEIGHTS: Dict[str, float] = {"foot_position": 0.75, "foot_velocity": 1.0,
                                     "hip_velocity": 1.0, "trajectory_position": 1.0,
                                     "trajectory_direction": 1.5}
"""The weights of the feature groups (those of the reference implementation's controller)."""

GROUPS = ("foot_position", "foot_velocity", "hip_velocity", "trajectory_position",
          "trajectory_direction")

_AXES = {"x": 0, "y": 1, "z": 2}
_LIMIT = 1e15      # |feature| and |query| bound of the search (no float32 cost overflows)

ArrayLike = npt.ArrayLike
Range = Tuple[int, int]


# --- clips of a dataset store ---------------------------------------------------------------------

def _is_store(x: Any) -> bool:
    """A path, or a Zarr group (duck-typed: zarr is an optional extra, imported only to read)."""
    return isinstance(x, (str, os.PathLike)) or (
        type(x).__module__.split(".")[0] == "zarr" and hasattr(x, "groups"))


def _clips_from_store(store: Any) -> List[Clip]:
    """The clips of a dataset store written by ``python -m skelsimd dataset`` (the Zarr layout
    of :mod:`skelsimd.dask.dataset`: one group per clip with ``local`` (F, J, 8) and the
    attributes ``frame_time``, ``names`` and ``parents``), in the order of the sorted group
    names. The store is untrusted: anything else is a ValueError naming the group."""
    try:
        import zarr
    except ImportError:
        raise ImportError("clips: reading a dataset store needs zarr, from the optional extra: "
                          "pip install 'skelsimd[dask]'") from None
    root: Any
    if isinstance(store, (str, os.PathLike)):
        try:
            root = zarr.open_group(os.fspath(store), mode="r")
        except Exception as exc:    # missing path, not a Zarr group: zarr's own error types
            raise ValueError(f"clips: {os.fspath(store)!r} is not a readable dataset store "
                             f"({type(exc).__name__}: {exc})") from None
    else:
        root = store
    clips = []
    for name in sorted(n for n, _ in root.groups()):
        group: Any = root[name]
        where = f"clips: group {name!r} of the dataset store"
        try:
            attrs = dict(group.attrs)
            local = group["local"]
            if local.ndim != 3 or local.shape[2] != 8:
                raise ValueError(f"expected local poses (F, J, 8), got shape {local.shape}")
            skeleton = Skeleton(np.asarray(attrs["parents"]), [str(n) for n in attrs["names"]])
            clips.append(Clip(skeleton, np.asarray(local[...], dtype=np.float32),
                              float(attrs["frame_time"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{where}: {type(exc).__name__}: {exc}") from None
    return clips


# --- geometry (float64) --------------------------------------------------------------------------

def _axis(value: Union[str, Sequence[float]], name: str) -> np.ndarray:
    if isinstance(value, str):
        v = value.strip().lower()
        sign = -1.0 if v.startswith("-") else 1.0
        v = v.lstrip("+-")
        if v not in _AXES:
            raise ValueError(f"{name}: expected 'x', 'y', 'z' (optionally signed) or a 3-vector, "
                             f"got {value!r}")
        out = np.zeros(3)
        out[_AXES[v]] = sign
        return out
    try:
        out = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected an axis name or a 3-vector, got "
                        f"{type(value).__name__}") from None
    if out.shape != (3,) or not np.all(np.isfinite(out)) or np.linalg.norm(out) == 0:
        raise ValueError(f"{name}: expected a finite nonzero 3-vector, got {out!r}")
    return out / np.linalg.norm(out)


def _roots(hip_rot: np.ndarray, hip_pos: np.ndarray, up: np.ndarray,
           forward: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Root positions (F, 3) on the ground and root bases (F, 3, 3), rows (side, up, facing),
    from the hip's global rotation matrices (F, 3, 3) and positions (F, 3)."""
    f = hip_rot @ forward
    f = f - (f @ up)[:, None] * up
    norm = np.linalg.norm(f, axis=1)
    bad = norm < 1e-9
    if np.any(bad):            # the forward axis points straight up or down: keep the last facing
        fallback = np.cross(up, np.roll(up, 1))
        for i in np.flatnonzero(bad):
            f[i] = f[i - 1] if i else fallback
            norm[i] = np.linalg.norm(f[i])
    f = f / norm[:, None]
    side = np.cross(up, f)
    basis = np.stack([side, np.broadcast_to(up, f.shape), f], axis=1)
    pos = hip_pos - (hip_pos @ up)[:, None] * up
    return pos, basis


def _velocity(p: np.ndarray, dt: float) -> np.ndarray:
    v = np.empty_like(p)
    if len(p) > 1:
        v[1:] = (p[1:] - p[:-1]) / dt
        v[0] = v[1]
    else:
        v[:] = 0.0
    return v


def _find_feet(skeleton: Skeleton) -> Tuple[int, int]:
    names = skeleton.names
    for left, right in mirror_pairs(skeleton):
        low = names[left].lower()
        if ("foot" in low or "ankle" in low) and "toe" not in low:
            return left, right
    raise ValueError("joints: no left/right pair of joints named like a foot or an ankle "
                     f"among {list(names)}; name them, e.g. joints=('LeftFoot', 'RightFoot')")


# --- the database ----------------------------------------------------------------------------

def _first_difference(a: Skeleton, b: Skeleton) -> str:
    """Where skeleton b first differs from a: the first joint index whose name or parent
    differs, or the joint counts."""
    for j, (na, nb) in enumerate(zip(a.names, b.names)):
        pa, pb = int(a.parents[j]), int(b.parents[j])
        if na != nb:
            return f"joint {j} is {nb!r}, not {na!r} ({len(b)} joints, {len(a)} in clips[0])"
        if pa != pb:
            return (f"joint {j} ({nb!r}) has parent {pb}, not {pa} ({len(b)} joints, {len(a)} in "
                    f"clips[0])")
    return f"{len(b)} joints, not {len(a)} (the first {min(len(a), len(b))} are the same)"


class MotionDatabase:
    """The motion-matching features of every candidate frame of a clip library.

    Parameters
    ----------
    clips : sequence of Clip, or a dataset store
        The library: clips of one skeleton (same joint names and parents). A path to a Zarr
        dataset store written by ``python -m skelsimd dataset`` (or an open ``zarr.Group`` of
        one) reads every clip of the store, in the order of its sorted group names (zarr is
        needed then: the ``[dask]`` extra).
    joints : sequence of str or int, optional
        The joints whose positions and velocities are features (default: the left and right
        feet, found by name: a left/right pair named like a foot or an ankle, e.g. ``LeftFoot``
        / ``RightFoot`` or ``LeftAnkle`` / ``RightAnkle``).
    hip : str or int, optional
        The joint the root follows and whose velocity is a feature (default: the first root).
    offsets : sequence of float, default (1/3, 2/3, 1)
        The future times (seconds, > 0) of the trajectory features.
    weights : dict, optional
        Weights of the feature groups, overriding :data:`DEFAULT_WEIGHTS` (>= 0).
    mirror : bool, default False
        Also add every clip mirrored (:meth:`Clip.mirror` with ``mirror_axis``), after the
        originals: clip ``k + len(clips)`` of :attr:`clips` is clip ``k`` mirrored.
    up : str, default "y"
        The up axis of the clips ("y" as in BVH files, "z", ...).
    forward : str or 3-vector, default "z"
        The hip's local axis that points forward.
    mirror_axis : str, default "x"
        The side-to-side axis the mirrored copies are reflected through.

    Attributes
    ----------
    features : ndarray, float32 (N, D)
        One row per candidate frame, normalised and weighted (read-only).
    raw : ndarray, float32 (N, D)
        The same before normalisation (root-space metres or the clips' units, per second).
    mean, scale : ndarray, float64 (D,)
        ``features = (raw - mean) / scale``: the groups' means, and their scales divided by
        their weights (``inf`` for a weight 0).
    groups : dict of str to slice
        The columns of each feature group.
    clips : list of Clip
        The clips of the database (mirrored copies after the originals).
    offsets : tuple of float
        The trajectory offsets in seconds.

    Notes
    -----
    :meth:`search` is exact: it returns the row a float64 brute force over :attr:`features`
    picks (the least float64 sum of squared differences added in column order; the least row
    on ties). The float32 SIMD pass computes every cost with one row per lane, so the costs,
    and the answer, are bit-identical on every target; whole blocks of rows are skipped when
    their bounding box (64 rows, then 16) is provably further than the best row so far.

    Examples
    --------
    >>> import skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> db = skelsimd.MotionDatabase([clip], mirror=True)
    >>> db.features.shape
    (240, 27)
    >>> i, cost = db.search(db.features[100])
    >>> i, cost
    (100, 0.0)
    >>> db.frame_of(100)
    (0, 100)
    """

    features: np.ndarray
    raw: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    groups: Dict[str, slice]
    clips: List[Clip]
    offsets: Tuple[float, ...]

    def __init__(self, clips: Sequence[Clip], *, joints: Optional[Sequence[Union[str, int]]] = None,
                 hip: Optional[Union[str, int]] = None,
                 offsets: Sequence[float] = (1.0 / 3.0, 2.0 / 3.0, 1.0),
                 weights: Optional[Dict[str, float]] = None, mirror: bool = False,
                 up: str = "y", forward: Union[str, Sequence[float]] = "z",
                 mirror_axis: str = "x") -> None:
        if isinstance(clips, Clip):
            clips = [clips]
        elif _is_store(clips):
            clips = _clips_from_store(clips)
        try:
            clips = list(clips)
        except TypeError:
            raise TypeError(f"clips: expected a sequence of Clip, got {type(clips).__name__}") from None
        if not clips:
            raise ValueError("clips: expected at least one clip, got an empty database")
        for k, c in enumerate(clips):
            if not isinstance(c, Clip):
                raise TypeError(f"clips[{k}]: expected a Clip, got {type(c).__name__}")
        skel = clips[0].skeleton
        for k, c in enumerate(clips[1:], 1):
            if c.skeleton.names != skel.names or not np.array_equal(c.skeleton.parents,
                                                                    skel.parents):
                raise ValueError(f"clips[{k}]: expected the skeleton of clips[0] (same joint names "
                                 f"and parents), got another one: "
                                 f"{_first_difference(skel, c.skeleton)}")
        self._up = _axis(up, "up")
        self._forward = _axis(forward, "forward")
        if joints is None:
            self._joints = list(_find_feet(skel))
        else:
            if isinstance(joints, (str, int)):
                raise TypeError("joints: expected a sequence of joint names or indices")
            self._joints = [skel.index(j) for j in joints]
            if not self._joints:
                raise ValueError("joints: expected at least one joint")
        self._hip = skel.roots[0] if hip is None else skel.index(hip)
        try:
            offs = tuple(float(o) for o in offsets)
        except (TypeError, ValueError):
            raise TypeError("offsets: expected a sequence of seconds") from None
        if not offs or not all(o > 0 and math.isfinite(o) for o in offs):
            raise ValueError(f"offsets: expected positive finite seconds, got {offs}")
        self.offsets = offs
        w = dict(DEFAULT_WEIGHTS)
        if weights is not None:
            for key, value in dict(weights).items():
                if key not in w:
                    raise ValueError(f"weights: unknown group {key!r}; expected some of {GROUPS}")
                value = float(value)
                if not (value >= 0 and math.isfinite(value)):
                    raise ValueError(f"weights[{key!r}]: expected a finite weight >= 0, got {value}")
                w[key] = value
        self.weights = w
        if mirror:
            clips = clips + [c.mirror(cast(Axis, mirror_axis)) for c in clips]
        self.clips = clips
        self._skeleton = skel

        nj, nk = len(self._joints), len(offs)
        sizes = {"foot_position": 3 * nj, "foot_velocity": 3 * nj, "hip_velocity": 3,
                 "trajectory_position": 2 * nk, "trajectory_direction": 2 * nk}
        self.groups = {}
        start = 0
        for g in GROUPS:
            self.groups[g] = slice(start, start + sizes[g])
            start += sizes[g]
        dim = start

        parts: List[np.ndarray] = []
        starts: List[int] = []
        counts: List[int] = []
        for c in clips:
            horizon = self._horizon(c)
            rows = max(0, c.frames - horizon)
            starts.append(sum(counts))
            counts.append(rows)
            if rows:
                parts.append(self._clip_features(c, rows))
        n = sum(counts)
        if n == 0:
            raise ValueError(f"clips: no frame has its whole future ({max(offs)} s) inside its "
                             "clip: the database would be empty")
        raw = np.concatenate(parts, axis=0)
        if not np.all(np.isfinite(raw)):
            bad = np.argwhere(~np.isfinite(raw))[0]
            raise ValueError(f"clips: the features of row {bad[0]} are not finite (column "
                             f"{bad[1]}): the clips hold NaN or inf")
        self._row_starts = np.asarray(starts, dtype=np.int64)
        self._row_counts = np.asarray(counts, dtype=np.int64)
        mean = raw.mean(axis=0)
        scale = np.ones(dim)
        for g in GROUPS:
            sl = self.groups[g]
            s = float(np.mean(raw[:, sl].std(axis=0)))
            s = s if s > 0 else 1.0
            scale[sl] = s / w[g] if w[g] > 0 else np.inf
        self.mean, self.scale = mean, scale
        self.raw = raw.astype(np.float32)
        feats = ((raw - mean) / scale).astype(np.float32)
        if not np.all(np.abs(feats) <= _LIMIT):
            raise ValueError(f"clips: normalised features beyond {_LIMIT:g}")
        self._set_features(feats)

    # --- construction ---------------------------------------------------------------------------

    def _horizon(self, clip: Clip) -> int:
        return max(int(round(o / clip.frame_time)) for o in self.offsets)

    def _clip_features(self, clip: Clip, rows: int) -> np.ndarray:
        g = clip.global_matrices(precision="float64").astype(np.float64)
        return self._features_from_globals(g, clip.frame_time, rows)

    def _features_from_globals(self, g: np.ndarray, dt: float, rows: int) -> np.ndarray:
        """Raw features (rows, D) float64 of frames 0 .. rows - 1 from global matrices (F, J, 3, 4)."""
        hip = g[:, self._hip]
        root_pos, basis = _roots(hip[:, :, :3], hip[:, :, 3], self._up, self._forward)
        pos = g[:, self._joints][..., 3]                            # (F, nj, 3)
        vel = _velocity(pos, dt)
        hip_vel = _velocity(hip[:, :, 3], dt)
        b = basis[:rows]
        out = np.empty((rows, self.groups["trajectory_direction"].stop))
        rel = pos[:rows] - root_pos[:rows, None, :]
        out[:, self.groups["foot_position"]] = np.einsum("fij,fkj->fki", b, rel).reshape(rows, -1)
        out[:, self.groups["foot_velocity"]] = np.einsum("fij,fkj->fki", b, vel[:rows]).reshape(rows, -1)
        out[:, self.groups["hip_velocity"]] = np.einsum("fij,fj->fi", b, hip_vel[:rows])
        tp, td = [], []
        for o in self.offsets:
            k = int(round(o / dt))
            d = root_pos[k:k + rows] - root_pos[:rows]
            tp.append(np.einsum("fij,fj->fi", b[:, [0, 2]], d))
            tp_dir = basis[k:k + rows, 2]
            td.append(np.einsum("fij,fj->fi", b[:, [0, 2]], tp_dir))
        out[:, self.groups["trajectory_position"]] = np.stack(tp, axis=1).reshape(rows, -1)
        out[:, self.groups["trajectory_direction"]] = np.stack(td, axis=1).reshape(rows, -1)
        return out

    def _set_features(self, feats: np.ndarray) -> None:
        n, dim = feats.shape
        nlarge = -(-n // 64)
        ngroups = -(-nlarge // 16)
        padded = np.full((nlarge * 64, dim), np.nan, np.float32)
        padded[:n] = feats
        blocks = padded.reshape(nlarge * 4, 16, dim)
        self._rows = np.ascontiguousarray(blocks.transpose(0, 2, 1))
        with np.errstate(invalid="ignore"):
            sm_lo = np.fmin.reduce(blocks, axis=1)                 # (4 L, D): NaN padding ignored
            sm_hi = np.fmax.reduce(blocks, axis=1)
        empty = np.isnan(sm_lo)
        sm_lo[empty], sm_hi[empty] = np.inf, -np.inf
        self._small_lo = np.ascontiguousarray(sm_lo.reshape(nlarge, 4, dim).transpose(0, 2, 1))
        self._small_hi = np.ascontiguousarray(sm_hi.reshape(nlarge, 4, dim).transpose(0, 2, 1))
        lg_lo = np.full((ngroups * 16, dim), np.inf, np.float32)
        lg_hi = np.full((ngroups * 16, dim), -np.inf, np.float32)
        lg_lo[:nlarge] = sm_lo.reshape(nlarge, 4, dim).min(axis=1)
        lg_hi[:nlarge] = sm_hi.reshape(nlarge, 4, dim).max(axis=1)
        self._large_lo = np.ascontiguousarray(lg_lo.reshape(ngroups, 16, dim).transpose(0, 2, 1))
        self._large_hi = np.ascontiguousarray(lg_hi.reshape(ngroups, 16, dim).transpose(0, 2, 1))
        for a in (self._rows, self._small_lo, self._small_hi, self._large_lo, self._large_hi):
            a.flags.writeable = False
        feats.flags.writeable = False
        self.features = feats
        self._n = n
        self._query_shape = (dim,)

    @classmethod
    def from_features(cls, features: ArrayLike) -> "MotionDatabase":
        """A database searching the given rows ``(N, D)`` as they are (no clips: :meth:`query`
        and :meth:`frame_of` are unavailable; for tests and benchmarks of the search).

        >>> import numpy as np, skelsimd
        >>> db = skelsimd.MotionDatabase.from_features(np.eye(3))
        >>> db.search([0, 0.9, 0])     # the query is float32: 0.9 is 0.89999998
        (1, 0.01000000476837215)
        """
        feats = np.array(features, dtype=np.float32)
        if feats.ndim != 2 or feats.shape[1] < 1:
            raise ValueError(f"features: expected shape (N, D) with D >= 1, got {feats.shape}")
        if feats.shape[0] == 0:
            raise ValueError("features: expected at least one row, got an empty database")
        if not np.all(np.abs(feats) <= _LIMIT):
            raise ValueError(f"features: expected finite values of magnitude <= {_LIMIT:g}")
        db = cls.__new__(cls)
        db.clips, db.offsets, db.groups = [], (), {}
        db.raw = feats.copy()
        db.mean, db.scale = np.zeros(feats.shape[1]), np.ones(feats.shape[1])
        db._row_starts = np.zeros(1, np.int64)
        db._row_counts = np.array([feats.shape[0]], np.int64)
        db._set_features(feats)
        return db

    # --- rows and frames -----------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self._n)

    def __repr__(self) -> str:
        return (f"MotionDatabase({self._n} rows x {self.features.shape[1]} features from "
                f"{len(self.clips)} clips)")

    def frame_of(self, i: int) -> Tuple[int, int]:
        """``(clip index, frame)`` of row ``i`` (clips as in :attr:`clips`)."""
        i = operator.index(i)
        if not 0 <= i < self._n:
            raise ValueError(f"i: expected 0 <= i < {self._n}, got {i}")
        c = int(np.searchsorted(self._row_starts, i, side="right") - 1)
        while self._row_counts[c] == 0:
            c -= 1
        return c, int(i - self._row_starts[c])

    def row_of(self, clip: int, frame: int) -> Optional[int]:
        """The row of ``frame`` of ``clips[clip]``, or None when that frame is no candidate
        (its future runs past the end of its clip)."""
        clip, frame = operator.index(clip), operator.index(frame)
        if not 0 <= clip < len(self._row_counts):
            raise ValueError(f"clip: expected 0 <= clip < {len(self._row_counts)}, got {clip}")
        if 0 <= frame < self._row_counts[clip]:
            return int(self._row_starts[clip] + frame)
        return None

    def clip_rows(self, clip: int) -> Range:
        """The rows ``(start, stop)`` of ``clips[clip]``'s candidate frames."""
        clip = operator.index(clip)
        s = int(self._row_starts[clip])
        return s, s + int(self._row_counts[clip])

    # --- queries -------------------------------------------------------------------------------

    def root(self, pose: ArrayLike) -> Tuple[np.ndarray, np.ndarray]:
        """The character's root: ``(position (3,), basis (3, 3))`` (rows side, up, facing) of a
        pose (a local QTS pose ``(J, 8)`` or global matrices ``(J, 3, 4)``)."""
        g = self._globals(np.asarray(pose)[None], "pose")[0]
        pos, basis = _roots(g[None, self._hip, :, :3], g[None, self._hip, :, 3], self._up,
                            self._forward)
        return pos[0], basis[0]

    def _globals(self, pose: np.ndarray, name: str) -> np.ndarray:
        j = len(self._skeleton)
        if pose.shape[1:] == (j, 8):
            from .qts import qts_local_to_global_matrix
            return qts_local_to_global_matrix(pose.astype(np.float32), self._skeleton,
                                              precision="float64").astype(np.float64)
        if pose.shape[1:] == (j, 3, 4):
            return pose.astype(np.float64)
        raise ValueError(f"{name}: expected local QTS poses (..., {j}, 8) or global matrices "
                         f"(..., {j}, 3, 4), got shape {pose.shape}")

    def query(self, pose: ArrayLike, trajectory: ArrayLike) -> np.ndarray:
        """One query row ``(D,)`` float32, normalised and weighted like :attr:`features`.

        Parameters
        ----------
        pose : array_like (2, J, 8) or (2, J, 3, 4)
            The character at the previous and at the current frame, one frame time of the
            database's clips apart: local QTS poses (as in :attr:`Clip.local`) or global joint
            matrices. Joint positions and velocities (backward difference) are taken in the
            current frame's root space, as for the database.
        trajectory : array_like (K, 4)
            The desired future of the root at the K trajectory offsets (:attr:`offsets`), in the
            current root space: per row ``(side, forward)`` ground position relative to the
            root, then ``(side, forward)`` facing direction (unit).

        Examples
        --------
        >>> import skelsimd
        >>> clip = skelsimd.data.load_example()
        >>> db = skelsimd.MotionDatabase([clip])
        >>> q = db.query(clip.local[99:101], db.raw[100, db.groups["trajectory_position"].start:]
        ...              .reshape(2, 3, 2).transpose(1, 0, 2).reshape(3, 4))
        >>> bool(abs(q - db.features[100]).max() < 1e-4)
        True
        """
        if not self.clips:
            raise ValueError("query: this database was built from features, not clips")
        p = np.asarray(pose)
        if p.dtype.kind not in "biuf":
            raise TypeError(f"pose: expected numbers, got dtype {p.dtype}")
        if p.ndim < 1 or p.shape[0] != 2:
            raise ValueError(f"pose: expected the previous and the current frame, shape (2, J, 8) "
                             f"or (2, J, 3, 4), got {p.shape}")
        g = self._globals(p, "pose")
        nk = len(self.offsets)
        t = np.asarray(trajectory, dtype=np.float64)
        if t.shape != (nk, 4):
            raise ValueError(f"trajectory: expected shape ({nk}, 4) (side, forward position and "
                             f"direction at each of the {nk} offsets), got {t.shape}")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(g))):
            raise ValueError("pose, trajectory: expected finite values")
        dt = self.clips[0].frame_time
        hip = g[:, self._hip]
        root_pos, basis = _roots(hip[:, :, :3], hip[:, :, 3], self._up, self._forward)
        b = basis[1]
        pos = g[:, self._joints][..., 3]
        raw = np.empty(self.features.shape[1])
        raw[self.groups["foot_position"]] = ((pos[1] - root_pos[1]) @ b.T).ravel()
        raw[self.groups["foot_velocity"]] = (((pos[1] - pos[0]) / dt) @ b.T).ravel()
        raw[self.groups["hip_velocity"]] = b @ ((hip[1, :, 3] - hip[0, :, 3]) / dt)
        raw[self.groups["trajectory_position"]] = t[:, :2].ravel()
        raw[self.groups["trajectory_direction"]] = t[:, 2:].ravel()
        q: np.ndarray = ((raw - self.mean) / self.scale).astype(np.float32)
        if not np.all(np.abs(q) <= _LIMIT):
            raise ValueError(f"pose, trajectory: the query is beyond {_LIMIT:g} once normalised")
        return q

    def trajectory(self, pose: ArrayLike, positions: ArrayLike,
                   directions: ArrayLike) -> np.ndarray:
        """The ``(K, 4)`` trajectory argument of :meth:`query` from world-space future root
        positions ``(K, 3)`` and facing directions ``(K, 3)``, for a character in ``pose`` (a
        local QTS pose ``(J, 8)`` or global matrices ``(J, 3, 4)``)."""
        pos, basis = self.root(pose)
        p = np.asarray(positions, dtype=np.float64)
        d = np.asarray(directions, dtype=np.float64)
        nk = len(self.offsets)
        if p.shape != (nk, 3) or d.shape != (nk, 3):
            raise ValueError(f"positions, directions: expected shape ({nk}, 3) each, got {p.shape} "
                             f"and {d.shape}")
        lp = (p - pos) @ basis[[0, 2]].T
        ld = d @ basis[[0, 2]].T
        ld /= np.maximum(np.linalg.norm(ld, axis=1, keepdims=True), 1e-12)
        return np.concatenate([lp, ld], axis=1)

    # --- search --------------------------------------------------------------------------------

    def _check_query(self, query: ArrayLike, name: str, many: bool) -> np.ndarray:
        try:
            q = np.asarray(query)
        except (TypeError, ValueError):
            raise TypeError(f"{name}: expected an array of numbers") from None
        if q.dtype.kind not in "biuf":
            raise TypeError(f"{name}: expected numbers, got dtype {q.dtype}")
        dim = self.features.shape[1]
        want = (q.ndim == 2 and q.shape[1] == dim) if many else q.shape == (dim,)
        if not want:
            raise ValueError(f"{name}: expected shape {'(Q, %d)' % dim if many else '(%d,)' % dim}"
                             f" (the database's {dim} features), got {q.shape}")
        q = np.ascontiguousarray(q, dtype=np.float32)
        if not np.all(np.abs(q) <= _LIMIT):
            bad = tuple(int(k) for k in np.argwhere(~(np.abs(q) <= _LIMIT))[0])
            raise ValueError(f"{name}{list(bad)}: expected a finite value of magnitude <= "
                             f"{_LIMIT:g}, got {q[bad]}")
        return q

    def _ranges(self, exclude: Any, name: str) -> np.ndarray:
        try:
            r = np.asarray(exclude if len(exclude) else np.zeros((0, 2)))
        except (TypeError, ValueError):
            raise TypeError(f"{name}: expected a list of (start, stop) row ranges") from None
        if r.dtype.kind not in "iu" and not (r.size == 0):
            raise TypeError(f"{name}: expected integer (start, stop) row ranges, got dtype {r.dtype}")
        if r.ndim != 2 or r.shape[1] != 2:
            raise ValueError(f"{name}: expected a list of (start, stop) row ranges, got shape "
                             f"{r.shape}")
        r = r.astype(np.int64)
        if np.any(r[:, 0] > r[:, 1]):
            k = int(np.argmax(r[:, 0] > r[:, 1]))
            raise ValueError(f"{name}[{k}] = {tuple(r[k])}: expected start <= stop")
        return r

    def _call(self, q: np.ndarray, ranges: Optional[np.ndarray], offsets: Optional[np.ndarray],
              prune: bool, name: Optional[str] = None) -> Tuple[np.ndarray, np.ndarray]:
        return _core.mm_search(self._rows, self._small_lo, self._small_hi, self._large_lo,
                               self._large_hi, self._n, q, ranges, offsets, prune, name)

    def search(self, query: ArrayLike, *, exclude: Optional[Sequence[Range]] = None,
               prune: bool = True) -> Tuple[int, float]:
        """The best row for one query: ``(i, cost)``.

        Parameters
        ----------
        query : array_like (D,)
            Normalised and weighted like :attr:`features` (see :meth:`query`); finite, of
            magnitude <= 1e15.
        exclude : list of (start, stop), optional
            Row ranges never returned (e.g. the rows around the frame playing now).
        prune : bool, default True
            Skip blocks by their bounding boxes; False scans every row (the brute-force SIMD
            scan, for benchmarks): the same answer.

        Returns
        -------
        i : int
            The row with the least cost ``sum((features[i] - query)**2)`` evaluated in float64
            in column order, the least row on ties.
        cost : float
            That cost (float64).

        Raises ValueError when every row is excluded.
        """
        if (type(query) is np.ndarray and query.dtype == np.float32
                and query.shape == self._query_shape):
            q = query                  # per-frame calls: the values are checked in C
        else:
            q = self._check_query(query, "query", False)
        if exclude is None:
            idx, cost = self._call(q[None], None, None, prune, "query")
        else:
            r = self._ranges(exclude, "exclude")
            idx, cost = self._call(q[None], r, np.array([0, len(r)], np.int64), prune, "query")
        if idx[0] < 0:
            raise ValueError("exclude: every row of the database is excluded")
        return int(idx[0]), float(cost[0])

    def search_many(self, queries: ArrayLike, *,
                    exclude: Optional[Union[Sequence[Range], Sequence[Sequence[Range]]]] = None,
                    prune: bool = True) -> Tuple[np.ndarray, np.ndarray]:
        """The best rows of many queries (a crowd), in one call with the GIL released.

        Parameters
        ----------
        queries : array_like (Q, D)
        exclude : optional
            None; a list of ``(start, stop)`` row ranges excluded for every query; or a list of
            Q such lists (an empty one for none), one per query.
        prune : bool, default True
            As for :meth:`search`.

        Returns
        -------
        indices : ndarray, int64 (Q,)
            The best row of each query; -1 where every row is excluded.
        costs : ndarray, float64 (Q,)
            Their costs (``inf`` where every row is excluded).
        """
        q = self._check_query(queries, "queries", True)
        if exclude is None:
            return self._call(q, None, None, bool(prune))
        per_query = (len(exclude) == len(q) and len(exclude) > 0 and all(
            not np.isscalar(e) and (len(e) == 0 or not np.isscalar(e[0])) for e in exclude))
        if per_query:
            rs = [self._ranges(e, f"exclude[{k}]") for k, e in enumerate(exclude)]
            offsets = np.zeros(len(q) + 1, np.int64)
            offsets[1:] = np.cumsum([len(r) for r in rs])
            ranges = np.concatenate(rs, axis=0) if rs else np.zeros((0, 2), np.int64)
        else:
            r = self._ranges(exclude, "exclude")
            ranges = np.tile(r, (len(q), 1))
            offsets = np.arange(len(q) + 1, dtype=np.int64) * len(r)
        return self._call(q, ranges, offsets, bool(prune))
