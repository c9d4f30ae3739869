"""Benchmark workloads of the track family: Track.sample (ozz's TrackSamplingJob, batched over
sample times) and edge detection (TrackTriggeringJob) against NumPy formulations."""
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from .._typing import Float32Array
from .. import _core
from ..reference import track as RT
from ..track import Track
from .core import Workload


def _keys(nkeys: int, ncomp: int, seed: int) -> tuple[Float32Array, Float32Array]:
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.uniform(0.5, 1.5, nkeys)).astype(np.float32)
    values = rng.uniform(-1, 1, (nkeys, ncomp)).astype(np.float32)
    return times, values


def _numpy_linear(kt: Float32Array, v: Float32Array, t: Float32Array) -> Float32Array:
    """The NumPy float32 formulation: searchsorted, gather, lerp (clamped)."""
    tc = np.clip(t, kt[0], kt[-1])
    k = np.clip(np.searchsorted(kt, tc, side="right") - 1, 0, len(kt) - 2)
    a = ((tc - kt[k]) / (kt[k + 1] - kt[k]))[:, None]
    res: Float32Array = v[k] + a * (v[k + 1] - v[k])
    return res


def sample_workload(nkeys: int = 64, n: int = 100_000, ncomp: int = 3,
                    interpolation: str = "linear", order: str = "sorted",
                    seed: int = 0) -> Workload:
    """Track.sample of n times on a track of nkeys keys of ncomp floats."""
    kt, v = _keys(nkeys, ncomp, seed)
    tr = Track(kt, v, interpolation)
    rng = np.random.default_rng(seed + 1)
    t = rng.uniform(kt[0] - 1, kt[-1] + 1, n).astype(np.float32)
    if order == "sorted":
        t.sort()
    out = np.empty((n, ncomp), np.float32)
    copy = np.empty_like(out)
    sub = t[:500]
    expected = RT.sample(kt, v, sub, interpolation)

    def check(res: object) -> None:
        err = np.abs(np.asarray(res, np.float64)[:500] - expected).max()
        assert err <= 5e-6, f"track sample differs from the float64 reference by {err:.3g}"
    def _linear() -> Float32Array:
        return _numpy_linear(kt, v, t)

    return Workload(
        name=f"track_sample_{interpolation}_{order}[{nkeys}k x {n}]",
        title=f"Track.sample {interpolation} float{ncomp}, {nkeys} keys, {n} {order} times",
        family="track", unit="sample", units=n,
        kernel=lambda: tr.sample(t, out=out),
        numpy=_linear if interpolation == "linear" else None,
        limit=lambda: np.copyto(copy, out), check=check,
        params={"keys": nkeys, "samples": n, "components": ncomp, "order": order},
    )


def quat_sample_workload(nkeys: int = 64, n: int = 100_000, seed: int = 2) -> Workload:
    rng = np.random.default_rng(seed)
    kt = np.cumsum(rng.uniform(0.5, 1.5, nkeys)).astype(np.float32)
    q = rng.normal(size=(nkeys, 4))
    tr = Track(kt, q, "linear", quaternion=True)
    t = np.sort(rng.uniform(kt[0], kt[-1], n)).astype(np.float32)
    out = np.empty((n, 4), np.float32)
    copy = np.empty_like(out)
    expected = RT.sample(tr.times, tr.values, t[:300], "linear", quaternion=True)

    def check(res: object) -> None:
        r = np.asarray(res, np.float64)[:300]
        err = np.minimum(np.abs(r - expected), np.abs(r + expected)).max()
        assert err <= 1e-6, f"quaternion track differs from the float64 reference by {err:.3g}"
    return Workload(
        name=f"track_sample_quat[{nkeys}k x {n}]",
        title=f"Track.sample quaternion slerp, {nkeys} keys, {n} sorted times",
        family="track", unit="sample", units=n, kernel=lambda: tr.sample(t, out=out),
        limit=lambda: np.copyto(copy, out), check=check,
        params={"keys": nkeys, "samples": n, "components": 4},
    )


def edges_workload(nkeys: int = 100_000, seed: int = 3) -> Workload:
    """Edge detection over one pass of a long float track (a crossing every other key or so):
    the kernel behind Track.triggers, per edge found, against NumPy's comparisons."""
    rng = np.random.default_rng(seed)
    kt = np.cumsum(rng.uniform(0.5, 1.5, nkeys)).astype(np.float32)
    v = rng.uniform(-1, 1, nkeys).astype(np.float32)
    et, _ = _core.track_edges(kt, v, 0.0, False, False)
    nedges = len(et)
    want_t, want_d = RT.edges(kt[:2000], v[:2000], 0.0, False, False)

    def numpy_edges() -> tuple[Float32Array, NDArray[np.int8]]:
        v0, v1 = v[:-1], v[1:]
        up = (v0 <= 0) & (v1 > 0)
        down = (v0 > 0) & (v1 <= 0)
        i = np.flatnonzero(up | down)
        a = (0 - v0[i]) / (v1[i] - v0[i])
        t: Float32Array = kt[i] + (kt[i + 1] - kt[i]) * a
        return t, np.where(up[i], 1, -1).astype(np.int8)

    def check(res: tuple[Float32Array, NDArray[np.int8]]) -> None:
        t, d = res
        m = len(want_t)
        assert np.array_equal(d[:m], want_d)
        err = np.abs(t[:m] - want_t).max()
        assert err <= 1e-6 * kt[2000], f"edge times differ from the float64 reference by {err:.3g}"
    tr = Track(kt, v, "linear")

    def triggers_uncached() -> tuple[NDArray[np.float64], NDArray[np.int8]]:
        tr._edges = None          # the edge scan of the first call for a threshold
        return tr.triggers(float(kt[0]), float(kt[-1]))
    return Workload(
        name=f"track_edges[{nkeys}]", title=f"track edges, {nkeys} keys, {nedges} edges",
        family="track", unit="edge", units=nedges,
        kernel=lambda: _core.track_edges(kt, v, 0.0, False, False),
        numpy=numpy_edges, check=check,
        extra={"Track.triggers": triggers_uncached},
        params={"keys": nkeys, "edges": nedges},
    )


def triggers_per_frame_workload(seed: int = 4) -> Workload:
    """One frame's Track.triggers on a looping 64-key contact track (cached edges): the per-call
    cost a game loop pays."""
    rng = np.random.default_rng(seed)
    kt = np.linspace(0, 2, 64).astype(np.float32)
    v = (rng.random(64) > 0.5).astype(np.float32)
    tr = Track(kt, v, "step", loop=True)
    return Workload(
        name="track_triggers_frame", title="Track.triggers one 1/60 s frame, 64-key loop",
        family="track", unit="call", units=1,
        kernel=lambda: tr.triggers(1.0, 1.0 + 1 / 60, 0.5),
        params={"keys": 64},
    )


def motion_workload(batch: int = 1000, layers: int = 3, seed: int = 5) -> Workload:
    """blend_motion of `batch` outputs of `layers` root-motion deltas (ozz's MotionBlendingJob,
    one character per output)."""
    from .. import motion
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(batch, layers, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    d = np.concatenate([q, rng.uniform(-1, 1, (batch, layers, 3)), np.ones((batch, layers, 1))],
                       -1).astype(np.float32)
    w = rng.uniform(0, 1, (batch, layers)).astype(np.float32)
    out = np.empty((batch, 8), np.float32)
    copy = np.empty_like(out)
    expected = RT.blend_motion(d[:200], w[:200])

    def check(res: object) -> None:
        err = np.abs(np.asarray(res, np.float64)[:200] - expected).max()
        assert err <= 1e-6 * layers, f"blend_motion differs from the float64 reference by {err:.3g}"
    return Workload(
        name=f"blend_motion[{batch}x{layers}]", title=f"blend_motion {batch} x {layers} layers",
        family="track", unit="blend", units=batch,
        kernel=lambda: motion.blend_motion(d, w, out=out),
        numpy=lambda: RT.blend_motion_numpy32(d, w), limit=lambda: np.copyto(copy, out),
        check=check, params={"batch": batch, "layers": layers},
    )


def headline() -> list[Workload]:
    return [
        sample_workload(64, 100_000, 3, "linear", "sorted"),
        sample_workload(64, 100_000, 3, "linear", "random"),
        sample_workload(4096, 100_000, 3, "linear", "random"),
        sample_workload(64, 100_000, 1, "step", "sorted"),
        sample_workload(64, 100_000, 3, "cubic", "sorted"),
        quat_sample_workload(),
        edges_workload(),
        triggers_per_frame_workload(),
        motion_workload(1, 3),
        motion_workload(1000, 3),
    ]
