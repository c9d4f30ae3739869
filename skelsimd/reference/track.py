"""Float64 NumPy references for skelsimd.Track (sampling and edges) and skelsimd.blend_motion,
written for clarity: one sample, one edge at a time where that is clearer."""
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._typing import Float32Array, Float64Array

__all__ = ["wrap_time", "tangents", "sample", "edges", "triggers", "blend_motion",
           "blend_motion_numpy32"]


def _f64(x: ArrayLike) -> Float64Array:
    return np.asarray(x, dtype=np.float64)


def wrap_time(key_times: ArrayLike, t: ArrayLike, loop: bool) -> Float64Array:
    """The sample time the kernels interpolate at: wrapped into one period when `loop` (the
    remainder exact, the result rounded once to float32, as the kernel specifies) and clamped
    to the keys. NaN stays NaN."""
    kt = _f64(key_times)
    t = _f64(np.asarray(t, dtype=np.float32))
    if loop and len(kt) > 1:
        period = kt[-1] - kt[0]
        with np.errstate(invalid="ignore"):
            d = np.fmod(t - kt[0], period)
        d = np.where(d < 0, d + period, d)
        t = (kt[0] + d).astype(np.float32).astype(np.float64)
    clipped: Float64Array = np.clip(t, kt[0], kt[-1])
    return clipped


def tangents(key_times: ArrayLike, values: ArrayLike, loop: bool,
             quaternion: bool = False) -> Float64Array:
    """Catmull-Rom tangents (K, C) in float64 (see skelsimd.track)."""
    from ..track import _tangents
    kt = _f64(key_times)
    return _tangents(kt, _f64(values).reshape(len(kt), -1), bool(loop), quaternion)


def _slerp(q0: Float64Array, q1: Float64Array, a: float) -> Float64Array:
    if np.dot(q0, q1) < 0:
        q1 = -q1
    u0, u1 = q0 / np.linalg.norm(q0), q1 / np.linalg.norm(q1)
    omega = 2 * np.arctan2(np.linalg.norm(u0 - u1), np.linalg.norm(u0 + u1))
    if omega < 1e-12:
        return (1 - a) * q0 + a * q1
    q: Float64Array = (np.sin((1 - a) * omega) * q0 + np.sin(a * omega) * q1) / np.sin(omega)
    return q


def sample(key_times: ArrayLike, values: ArrayLike, times: ArrayLike, interpolation: str = "linear",
           loop: bool = False, quaternion: bool = False) -> Float64Array:
    """The track's values at `times` in float64: shape times.shape + (C,) (values given as
    (K, C)); NaN times give NaN."""
    kt = _f64(key_times)
    v = _f64(values).reshape(len(kt), -1)
    c = v.shape[1]
    ts = wrap_time(kt, times, loop).ravel()
    out = np.empty((ts.size, c))
    m = tangents(kt, v, loop, quaternion) if interpolation == "cubic" else None
    for i, t in enumerate(ts):
        if np.isnan(t):
            out[i] = np.nan
            continue
        if len(kt) == 1:
            out[i] = v[0]
            continue
        k = int(np.clip(np.searchsorted(kt, t, side="right") - 1, 0, len(kt) - 2))
        h = kt[k + 1] - kt[k]
        a = (t - kt[k]) / h
        if interpolation == "step":
            r = v[k + 1] if a >= 1 else v[k]
        elif interpolation == "linear":
            r = _slerp(v[k], v[k + 1], a) if quaternion else v[k] + a * (v[k + 1] - v[k])
        else:
            assert m is not None                   # interpolation == "cubic"
            h00, h01 = 2 * a**3 - 3 * a**2 + 1, 3 * a**2 - 2 * a**3
            h10, h11 = a**3 - 2 * a**2 + a, a**3 - a**2
            r = h00 * v[k] + h01 * v[k + 1] + h * (h10 * m[k] + h11 * m[k + 1])
            if quaternion:
                r = r / np.linalg.norm(r)
        out[i] = r
    return out.reshape(np.shape(times) + (c,))


def edges(key_times: ArrayLike, values: ArrayLike, threshold: float, step: bool,
          wrap: bool) -> tuple[Float64Array, NDArray[np.int8]]:
    """One pass of the keys' threshold crossings in float64: (times (E,), directions (E,) +-1)."""
    kt, v = _f64(key_times), _f64(values).ravel()
    thr = float(np.float32(threshold))
    segs = ([(len(kt) - 1, 0)] if wrap and len(kt) > 1 else []) + [(i - 1, i) for i in
                                                                   range(1, len(kt))]
    times, dirs = [], []
    for i0, i1 in segs:
        if v[i0] <= thr < v[i1]:
            d = 1
        elif v[i1] <= thr < v[i0]:
            d = -1
        else:
            continue
        if step or i1 == 0:
            e = kt[i1]
        else:
            e = kt[i0] + (kt[i1] - kt[i0]) * (thr - v[i0]) / (v[i1] - v[i0])
        times.append(e)
        dirs.append(d)
    return np.array(times, np.float64), np.array(dirs, np.int8)


def triggers(key_times: ArrayLike, values: ArrayLike, threshold: float, step: bool, loop: bool,
             t0: float, t1: float) -> tuple[Float64Array, NDArray[np.int8]]:
    """Track.triggers in float64, one period at a time as ozz's TrackTriggeringJob iterates:
    the edges of the passes of the keys that start before the range's upper end, kept when
    lo <= time and (time < hi or hi reaches the end of their pass)."""
    kt = _f64(key_times)
    et, d = edges(kt, values, threshold, step, loop)
    if t0 == t1 or len(et) == 0:
        return np.zeros(0), np.zeros(0, np.int8)
    lo, hi = min(t0, t1), max(t0, t1)
    times, dirs = [], []
    period = kt[-1] - kt[0]
    if not loop:
        passes = [(kt[0], kt[-1])]
    else:
        n = int(np.floor((lo - kt[0]) / period))
        passes = []
        while kt[0] + n * period < hi:
            passes.append((kt[0] + n * period, kt[0] + n * period + period))
            n += 1
    for start, end in passes:
        for e, s in zip(et, d):
            g = start + (e - kt[0])
            if g >= lo and (g < hi or hi >= end):
                times.append(g)
                dirs.append(s)
    t_arr, d_arr = np.array(times, np.float64), np.array(dirs, np.int8)
    if t1 < t0:
        return t_arr[::-1], -d_arr[::-1]
    return t_arr, d_arr


def blend_motion(deltas: ArrayLike, weights: ArrayLike) -> Float64Array:
    """ozz's MotionBlendingJob in float64 over (..., L, 8) deltas and (..., L) weights: weights
    <= 0 ignored; translation = (sum w |t|) / (sum w) times the direction of sum w t / |t|;
    rotation = the normalised sum of w q with each q on the running sum's hemisphere (the
    identity when it is zero); scale 1."""
    x = _f64(deltas)
    w = np.broadcast_to(_f64(weights), x.shape[:-1])
    lead = x.shape[:-2]
    xs, ws = x.reshape(-1, x.shape[-2], 8), w.reshape(-1, x.shape[-2])
    out = np.zeros((xs.shape[0], 8))
    for p in range(xs.shape[0]):
        acc, dl, dt, dr = 0.0, 0.0, np.zeros(3), np.zeros(4)
        for layer, wl in zip(xs[p], ws[p]):
            if not wl > 0:
                continue
            acc += wl
            t = layer[4:7]
            length = np.linalg.norm(t)
            dl += length * wl
            if length > 0:
                dt += t * (wl / length)
            dr += layer[:4] * (wl if np.dot(dr, layer[:4]) >= 0 else -wl)
        denom = np.linalg.norm(dt) * acc
        out[p, 4:7] = dt * (dl / denom if denom > 0 else 0.0)
        n = np.linalg.norm(dr)
        out[p, :4] = dr / n if n > 0 else (0, 0, 0, 1)
        out[p, 7] = 1.0
    return out.reshape(lead + (8,))


def blend_motion_numpy32(deltas: ArrayLike, weights: ArrayLike) -> Float32Array:
    """The NumPy float32 formulation of blend_motion the benchmarks race against (vectorised over
    the outputs, one step per layer)."""
    x = np.asarray(deltas, np.float32)
    w = np.broadcast_to(np.asarray(weights, np.float32), x.shape[:-1])
    w = np.where(w > 0, w, np.float32(0))
    lead = x.shape[:-2]
    acc, dl = np.zeros(lead, np.float32), np.zeros(lead, np.float32)
    dt, dr = np.zeros(lead + (3,), np.float32), np.zeros(lead + (4,), np.float32)
    for layer in range(x.shape[-2]):
        wl, q, t = w[..., layer], x[..., layer, :4], x[..., layer, 4:7]
        acc += wl
        length = np.sqrt((t * t).sum(-1))
        dl += length * wl
        with np.errstate(divide="ignore", invalid="ignore"):
            dt += t * np.where(length > 0, wl / length, np.float32(0))[..., None]
        dr += q * np.where((dr * q).sum(-1) < 0, -wl, wl)[..., None]
    out = np.empty(lead + (8,), np.float32)
    denom = np.sqrt((dt * dt).sum(-1)) * acc
    with np.errstate(divide="ignore", invalid="ignore"):
        out[..., 4:7] = dt * np.where(denom > 0, dl / denom, np.float32(0))[..., None]
        n = np.sqrt((dr * dr).sum(-1, keepdims=True))
        out[..., :4] = np.where(n > 0, dr / n, np.array([0, 0, 0, 1], np.float32))
    out[..., 7] = 1.0
    return out
