"""User tracks: curves of 1 to 4 floats or of quaternions, sampled in batch, and their events.

The equivalents of ozz-animation's ``FloatTrack``/``Float2Track``/.../``QuaternionTrack`` with
``TrackSamplingJob`` (:meth:`Track.sample`) and ``TrackTriggeringJob`` (:meth:`Track.triggers`),
on times in the clip's own units (seconds) rather than ozz's ratios in [0, 1].

Sampling (:meth:`Track.sample`)
-------------------------------
A sample time is wrapped first when the track loops (period ``times[-1] - times[0]``: the last
key is the same instant as the first, one period later; the remainder is taken exactly in double
precision and the wrapped time rounded once to float32), then clamped to the keys (the first
value before the first key, the last after the last key). Its segment ``k`` is the last one with
``times[k] <= t``, ``a = (t - times[k]) / (times[k + 1] - times[k])``, and

* ``"step"``: ``values[k]`` up to the next key, then ``values[k + 1]`` (ozz's step keys);
* ``"linear"``: ``values[k] + a (values[k + 1] - values[k])`` for floats; quaternions by slerp
  along the shortest arc (:func:`skelsimd.slerp`, method "fast");
* ``"cubic"``: cubic Hermite with Catmull-Rom tangents (the cardinal-spline finite differences
  ``m_k = (v[k+1] - v[k-1]) / (t[k+1] - t[k-1])``, valid for uneven key spacing), one-sided
  ``(v[1] - v[0]) / (t[1] - t[0])`` at the ends of a clamped track and taken across the seam of
  a looping one. The curve passes through every key with a continuous first derivative; it can
  overshoot between keys (no monotonicity is enforced). Quaternions: the same on the
  components of the hemisphere-aligned keys, normalised (ozz has no cubic tracks).

Quaternion keys are normalised when the track is built and each key is negated where needed to
lie on the hemisphere of the previous one (``q`` and ``-q`` are the same rotation), as ozz's
TrackBuilder does, so every segment takes the shortest arc.

Sampling runs in C (the ``track`` kernel family, SIMD across samples, bit-identical on every
target); quaternion slerp reuses the blend family's kernel (:func:`skelsimd.slerp`) on the
segment and fraction the ``track`` kernel finds.

Events (:meth:`Track.triggers`)
-------------------------------
The edges where a float track crosses a threshold, as ozz's TrackTriggeringJob: rising where the
value goes from ``<= threshold`` to ``> threshold``, falling the other way, at the key's time on
step tracks and at the linear crossing on linear tracks. A range ``[t0, t1)`` is scanned
forwards when ``t1 > t0`` and ``[t1, t0)`` backwards when ``t1 < t0`` (edges in decreasing time,
rising and falling swapped), so consecutive ranges ``t0 -> t1 -> t2`` report every edge exactly
once in either direction. An edge exactly at the end of a pass of the keys is reported by the
range that reaches that end (ozz's rule: ``[0, 1)`` reports an edge at the last key). Looping
tracks repeat their edges every period (the jump from the last key back to the first is an edge
at the first key's time of each period); the range may span several periods. Clamped tracks have
no edges outside their keys.

Accuracy (max abs error against the float64 reference ``skelsimd.reference.track``, values in
[-1, 1], every SIMD variant; tested): step exact; linear floats <= [bound:track.linear]; cubic
floats <= [bound:track.cubic]; quaternions <= [bound:track.quat] (slerp) and
<= [bound:track.quat_cubic] (cubic); edge times <= [bound:track.edges] * max(|t_k|, |t_k+1|) (the
crossing's keys; the threshold is rounded to float32 first).
"""
from __future__ import annotations

import math
from bisect import bisect_left
from typing import Any, List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _core
from .blend import slerp
from .bounds import fill_docstrings
from ._validate import finite as _finite

__all__ = ["Track", "contact_labels", "step_track"]

_INTERPOLATIONS = ("step", "linear", "cubic")
_MAX_EDGES = 1_000_000    # a triggers() range that would list more edges is refused
_PYTHON_EDGES = 256       # up to this many edges per pass, ranges are selected by bisection


class _Edges(NamedTuple):
    """One pass of a track's edges for one threshold (cached by Track.triggers)."""
    threshold: float
    rel: npt.NDArray[np.float64]     # edge time - times[0], increasing
    dirs: npt.NDArray[np.int8]
    rel_list: List[float]
    dir_list: List[int]
    first: float                     # times[0]
    period: float                    # times[-1] - times[0]




def _float32_keys(x: Any, name: str) -> npt.NDArray[np.float32]:
    try:
        a = np.asarray(x)
    except Exception as e:   # ragged lists
        raise ValueError(f"{name}: expected a numeric array, got {type(x).__name__} ({e})") from None
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a real numeric array, got dtype {a.dtype}")
    return np.array(a, dtype=np.float32, order="C")   # a private copy (stored read-only)


def _tangents(times: npt.NDArray[Any], values: npt.NDArray[Any], loop: bool,
              quaternion: bool) -> npt.NDArray[Any]:
    """Catmull-Rom tangents (K, C) in the dtype of the inputs (see the module docstring)."""
    k = len(times)
    m = np.zeros_like(values)
    if k == 1:
        return m
    if k > 2:
        m[1:-1] = (values[2:] - values[:-2]) / (times[2:] - times[:-2])[:, None]
    if loop:
        period = times[-1] - times[0]
        prev = values[-2]     # key K-2, one period earlier, before key 0
        nxt = values[1]       # key 1, one period later, after key K-1
        if quaternion:
            prev = prev if np.dot(prev, values[0]) >= 0 else -prev
            nxt = nxt if np.dot(nxt, values[-1]) >= 0 else -nxt
        m[0] = (values[1] - prev) / (times[1] - (times[-2] - period))
        m[-1] = (nxt - values[-2]) / ((times[1] + period) - times[-2])
    else:
        m[0] = (values[1] - values[0]) / (times[1] - times[0])
        m[-1] = (values[-1] - values[-2]) / (times[-1] - times[-2])
    return m


class Track:
    """A curve of 1 to 4 floats, or of quaternions, keyed at increasing times.

    Parameters
    ----------
    times : array_like, (K,)
        Key times (seconds, or any unit), strictly increasing and finite, K >= 1. Stored as
        float32.
    values : array_like, (K,) or (K, C) with 1 <= C <= 4
        The key values, finite. ``(K,)`` makes a scalar track (:meth:`sample` returns the
        shape of its times); ``(K, C)`` returns ``times.shape + (C,)``.
    interpolation : {"step", "linear", "cubic"}
        Between keys (module docstring): hold, linear (slerp for quaternions) or cubic Hermite
        with Catmull-Rom tangents.
    loop : bool, default False
        Periodic with period ``times[-1] - times[0]`` (give a last key equal to the first for a
        seamless loop); False clamps outside the keys.
    quaternion : bool, default False
        The values are rotations ``(K, 4)`` as (x, y, z, w): normalised and hemisphere-aligned
        when the track is built, interpolated by slerp (linear) or normalised cubic.

    Attributes
    ----------
    times, values : ndarray, float32, read-only
        The keys as stored (quaternions normalised and aligned).
    interpolation : str
    loop, quaternion : bool

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> tr = skelsimd.Track([0.0, 1.0, 2.0], [0.0, 1.0, 0.0])
    >>> tr.sample([0.5, 1.0, 1.75, 9.0])
    array([0.5 , 1.  , 0.25, 0.  ], dtype=float32)
    >>> tr.triggers(0.0, 2.0, threshold=0.5)
    (array([0.5, 1.5]), array([ 1, -1], dtype=int8))
    >>> q = skelsimd.Track([0, 1], [[0, 0, 0, 1], [0, 0, 1, 0]], quaternion=True)
    >>> np.round(q.sample(0.5), 4)
    array([0.    , 0.    , 0.7071, 0.7071], dtype=float32)
    """

    __slots__ = ("times", "values", "interpolation", "loop", "quaternion", "_values2d",
                 "_tangents", "_edges")

    times: npt.NDArray[np.float32]
    values: npt.NDArray[np.float32]
    interpolation: str
    loop: bool
    quaternion: bool

    def __init__(self, times: npt.ArrayLike, values: npt.ArrayLike,
                 interpolation: str = "linear", *, loop: bool = False,
                 quaternion: bool = False) -> None:
        if not isinstance(interpolation, str):
            raise TypeError(f"interpolation: expected one of {', '.join(map(repr, _INTERPOLATIONS))},"
                            f" got {type(interpolation).__name__}")
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(f"interpolation: expected one of "
                             f"{', '.join(map(repr, _INTERPOLATIONS))}, got {interpolation!r}")
        t = _float32_keys(times, "times")
        v = _float32_keys(values, "values")
        if t.ndim != 1 or t.shape[0] < 1:
            raise ValueError(f"times: expected shape (K,) with K >= 1 keys, got {t.shape}")
        k = t.shape[0]
        if v.ndim not in (1, 2) or v.shape[0] != k or (v.ndim == 2 and not 1 <= v.shape[1] <= 4):
            raise ValueError(f"values: expected shape (K,) or (K, C) with K = {k} keys (times) "
                             f"and 1 <= C <= 4, got {v.shape}")
        bad = np.flatnonzero(~np.isfinite(t))
        if bad.size:
            raise ValueError(f"times[{bad[0]}] = {t[bad[0]]}: expected finite key times")
        bad = np.flatnonzero(~(t[1:] > t[:-1]))
        if bad.size:
            i = int(bad[0]) + 1
            raise ValueError(f"times[{i}] = {t[i]!r} after times[{i - 1}] = {t[i - 1]!r}: expected "
                             f"strictly increasing key times (as float32)")
        v2 = v.reshape(k, -1)
        bad_rows = np.flatnonzero(~np.isfinite(v2).all(axis=1))
        if bad_rows.size:
            i = int(bad_rows[0])
            raise ValueError(f"values[{i}] = {v[i]}: expected finite values")
        quaternion = bool(quaternion)
        if quaternion:
            if v.ndim != 2 or v.shape[1] != 4:
                raise ValueError(f"values: expected shape (K, 4) = ({k}, 4) quaternions "
                                 f"(quaternion=True), got {v.shape}")
            n = np.sqrt((v2.astype(np.float64) ** 2).sum(-1))
            bad = np.flatnonzero(~(n > 1e-12))
            if bad.size:
                raise ValueError(f"values[{bad[0]}] = {v[bad[0]]}: expected a non-zero quaternion")
            q = v2.astype(np.float64) / n[:, None]
            for i in range(1, k):   # hemisphere of the previous key (as ozz's TrackBuilder)
                if np.dot(q[i], q[i - 1]) < 0:
                    q[i] = -q[i]
            v = q.astype(np.float32)
            v2 = v
        for a in (t, v, v2):
            a.flags.writeable = False
        self.times = t
        self.values = v
        self.interpolation = interpolation
        self.loop = bool(loop)
        self.quaternion = quaternion
        self._values2d = v2
        self._tangents = (_tangents(t, v2, self.loop, quaternion) if interpolation == "cubic"
                          else None)
        self._edges: Optional[_Edges] = None

    def __repr__(self) -> str:
        kind = "quaternion" if self.quaternion else f"float{self._values2d.shape[1]}"
        return (f"Track({len(self.times)} {kind} keys from {self.times[0]:g} to "
                f"{self.times[-1]:g}, {self.interpolation}{', loop' if self.loop else ''})")

    def __len__(self) -> int:
        return len(self.times)

    @property
    def duration(self) -> float:
        """``times[-1] - times[0]`` (the period of a looping track)."""
        return float(self.times[-1]) - float(self.times[0])

    def sample(self, times: npt.ArrayLike,
               out: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
        """The track's values at ``times`` (any shape), in one call.

        Parameters
        ----------
        times : array_like, any shape
            Sample times (converted to float32), in any order (increasing times are the fastest:
            the segment search starts from the previous sample's). NaN gives NaN values (and so
            does inf on a looping track).
        out : ndarray, float32, optional
            ``times.shape`` for a scalar track, ``times.shape + (C,)`` otherwise.

        Returns
        -------
        ndarray, float32

        Examples
        --------
        >>> import skelsimd
        >>> tr = skelsimd.Track([0, 1, 2], [[0, 0], [1, 2], [0, 0]], "step", loop=True)
        >>> tr.sample([[0.5, 1.5], [2.5, -0.5]]).tolist()
        [[[0.0, 0.0], [1.0, 2.0]], [[0.0, 0.0], [1.0, 2.0]]]
        """
        scalar_track = self.values.ndim == 1
        o = out
        if o is not None and scalar_track:
            if not isinstance(o, np.ndarray):
                raise TypeError(f"out: expected a numpy.ndarray, got {type(o).__name__}")
            if o.shape != np.shape(times):
                raise ValueError(f"out: expected shape {np.shape(times)} (that of times), got "
                                 f"{o.shape}")
            try:
                o = o[..., None]   # the kernel's (..., 1) view; dtype and layout checked there
            except IndexError:     # times (and out) already at NumPy's limit of dimensions
                raise ValueError(f"times: the result would have {o.ndim + 1} dimensions, more "
                                 f"than NumPy's limit of {o.ndim}") from None
        if self.quaternion and self.interpolation == "linear":
            q0, q1, alpha = _core.track_segments(self.times, self._values2d, times, self.loop)
            res = slerp(q0, q1, alpha, out=q0 if o is None else o)
        else:
            res = _core.track_sample(self.times, self._values2d, self._tangents, times,
                                     self.interpolation, self.loop,
                                     self.quaternion and self.interpolation == "cubic", o)
        if scalar_track:
            return out if out is not None else res[..., 0]
        return res

    __call__ = sample

    def _period_edges(self, threshold: float) -> "_Edges":
        cached = self._edges
        if cached is not None and cached.threshold == threshold:
            return cached
        et, d = _core.track_edges(self.times, self._values2d, threshold,
                                  self.interpolation == "step", self.loop)
        first = float(self.times[0])
        rel = et.astype(np.float64) - first
        small = rel.size <= _PYTHON_EDGES     # the lists serve the bisection path only
        edges = _Edges(threshold, rel, d, rel.tolist() if small else [],
                       d.tolist() if small else [], first, float(self.times[-1]) - first)
        self._edges = edges
        return edges

    def triggers(self, t0: float, t1: float,
                 threshold: float = 0.0) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int8]]:
        """The threshold crossings between ``t0`` and ``t1`` (ozz's TrackTriggeringJob).

        Parameters
        ----------
        t0, t1 : float
            The range played, from ``t0`` to ``t1``: forwards when ``t1 > t0`` (edges at
            ``t0 <= time < t1``), backwards when ``t1 < t0`` (edges at ``t1 <= time < t0``, in
            decreasing time, directions reversed); nothing when equal. On a looping track the
            range may cover several periods; times are global (not wrapped).
        threshold : float, default 0.0
            A value above it is "on".

        Returns
        -------
        times : ndarray, float64 (E,)
            The edges' times, in the order played.
        directions : ndarray, int8 (E,)
            +1 for a rising edge (the value goes above the threshold, in the direction played),
            -1 for a falling one.

        Only scalar (float1) step and linear tracks have edges (a cubic segment can cross the
        threshold between keys that do not): ValueError otherwise.

        Examples
        --------
        >>> import skelsimd
        >>> steps = skelsimd.Track([0, 0.25, 0.75, 1.0], [0, 1, 0, 0], "step", loop=True)
        >>> steps.triggers(0.0, 2.0)          # two periods
        (array([0.25, 0.75, 1.25, 1.75]), array([ 1, -1,  1, -1], dtype=int8))
        >>> steps.triggers(1.5, 0.5)          # backwards over the seam
        (array([1.25, 0.75]), array([-1,  1], dtype=int8))
        """
        if self._values2d.shape[1] != 1 or self.quaternion:
            raise ValueError(f"triggers: expected a scalar track (values of shape (K,)), this one "
                             f"has values of shape {self.values.shape}")
        if self.interpolation == "cubic":
            raise ValueError("triggers: expected a step or linear track, got a cubic one (a cubic "
                             "segment can cross the threshold between keys that do not)")
        a = _finite(t0, "t0")
        b = _finite(t1, "t1")
        thr = _finite(threshold, "threshold")
        if a == b:
            return np.zeros(0, np.float64), np.zeros(0, np.int8)
        forward = b > a
        lo, hi = (a, b) if forward else (b, a)
        e = self._period_edges(float(np.float32(thr)))
        size = e.rel.size
        if size == 0:
            return np.zeros(0, np.float64), np.zeros(0, np.int8)
        # global time of edge j in pass n: (first + n period) + rel[j]; pass n keeps the edges
        # with lo <= time and (time < hi or hi >= the pass's end)
        if not self.loop:
            first_n = last_n = 0
        else:
            f_lo, f_hi = (lo - e.first) / e.period, (hi - e.first) / e.period
            if not (f_hi - f_lo) * size <= _MAX_EDGES:   # also inf or NaN: far too many periods
                raise ValueError(f"t0, t1: the range [{lo}, {hi}) covers about {f_hi - f_lo:.3g} "
                                 f"periods of {size} edges, more than {_MAX_EDGES} edges")
            first_n = math.floor(f_lo)
            last_n = math.ceil(f_hi) - 1   # the last pass starting before hi
        passes = last_n - first_n + 1
        if passes <= 0:
            return np.zeros(0, np.float64), np.zeros(0, np.int8)
        if passes * size > _MAX_EDGES:
            raise ValueError(f"t0, t1: the range [{lo}, {hi}) covers {passes} periods of "
                             f"{size} edges, more than {_MAX_EDGES} edges")
        if passes <= 2 and size <= _PYTHON_EDGES:
            times: List[float] = []
            dirs: List[int] = []
            for n in range(first_n, last_n + 1):
                start = e.first + n * e.period
                end = start + e.period
                rel = e.rel_list
                i = bisect_left(rel, lo - start)      # then exact comparisons at the ends
                while i > 0 and start + rel[i - 1] >= lo:
                    i -= 1
                while i < size and start + rel[i] < lo:
                    i += 1
                if hi >= end:
                    j = size
                else:
                    j = bisect_left(rel, hi - start)
                    while j > i and start + rel[j - 1] >= hi:
                        j -= 1
                    while j < size and start + rel[j] < hi:
                        j += 1
                times.extend(start + r for r in rel[i:j])
                dirs.extend(e.dir_list[i:j])
            if not forward:
                times.reverse()
                dirs = [-x for x in reversed(dirs)]
            return np.array(times, np.float64), np.array(dirs, np.int8)
        n_ = np.arange(first_n, last_n + 1, dtype=np.float64)[:, None]
        start_ = e.first + n_ * e.period
        g = start_ + e.rel                                   # (passes, E) global times
        keep = (g >= lo) & ((g < hi) | (hi >= start_ + e.period))
        out_t = g[keep]
        out_d = np.broadcast_to(e.dirs, g.shape)[keep]
        if not forward:
            out_t = out_t[::-1].copy()
            out_d = -out_d[::-1]
        return out_t, np.ascontiguousarray(out_d, dtype=np.int8)


def _close_runs(mask: npt.NDArray[np.bool_], value: bool, shorter_than: int) -> None:
    """In place along the last axis: runs of `value` shorter than `shorter_than` frames that
    have the other value on both sides become the other value (each run decided on the
    input: closing one never joins two others)."""
    if shorter_than <= 1:
        return
    for row in mask.reshape(-1, mask.shape[-1]):
        n = len(row)
        cuts = np.flatnonzero(row[1:] != row[:-1]) + 1      # where a run starts, after the first
        if len(cuts) < 2:
            continue                                         # no run with a neighbour each side
        starts, ends = cuts[:-1], cuts[1:]                   # the interior runs
        short = (ends - starts < shorter_than) & (row[starts] == value)
        if not short.any():
            continue
        edges = np.zeros(n + 1, np.int8)
        edges[starts[short]] = 1
        edges[ends[short]] = -1
        row[np.cumsum(edges[:n], dtype=np.int8).view(bool)] = not value


def contact_labels(positions: npt.ArrayLike, frame_time: float, speed: float,
                   height: Optional[float] = None, *, min_gap: int = 1,
                   min_contact: int = 1, up: int = 1) -> npt.NDArray[np.bool_]:
    """Contact labels ``(J, F)`` from positions ``(F, J, 3)``: the speed (central differences,
    one-sided at the ends) under `speed`, the `up` coordinate under `height` when given; then
    gaps of fewer than `min_gap` frames between contacts are closed and contacts of fewer than
    `min_contact` frames (after that) dropped. See :meth:`skelsimd.Clip.contacts`."""
    p = np.asarray(positions, dtype=np.float64)
    if p.shape[0] >= 2:
        v = np.linalg.norm(np.gradient(p, axis=0), axis=-1) / frame_time
    else:
        v = np.zeros(p.shape[:2])
    c = v < speed
    if height is not None:
        c &= p[..., up] < height
    c = np.ascontiguousarray(c.T)
    _close_runs(c, False, min_gap)
    _close_runs(c, True, min_contact)
    return c


def step_track(labels: npt.ArrayLike, frame_time: float) -> "Track":
    """A step track of 0/1 labels per frame with a key only where the label changes (and at the
    first and last frames): frame i at ``i * frame_time``."""
    c = np.asarray(labels, dtype=bool).ravel()
    n = c.size
    keys = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    if n > 1 and keys[-1] != n - 1:
        keys = np.r_[keys, n - 1]
    times = keys * float(frame_time)
    return Track(times, c[keys].astype(np.float32), "step")


fill_docstrings(globals())
