"""Float64 NumPy references for make_additive and apply_additive (ozz-animation's
AdditiveAnimationBuilder and the additive layers of its BlendingJob)."""
from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float32Array, Float64Array
from .blend import blend_layers

__all__ = ["make_additive", "apply_additive", "apply_additive_numpy32"]


def _qmul(a: Float64Array, b: Float64Array) -> Float64Array:
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by + ay * bw + az * bx - ax * bz,
                     aw * bz + az * bw + ax * by - ay * bx,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def _conj(q: Float64Array) -> Float64Array:
    conj: Float64Array = q * np.array([-1.0, -1.0, -1.0, 1.0])
    return conj


def make_additive(local: ArrayLike, reference: ArrayLike) -> Float64Array:
    """Deltas of ``local`` (..., J, 8) against ``reference`` (broadcast, (..., J, 8)):
    ``(conj(q_ref) q, t - t_ref, s / s_ref)``."""
    x = np.asarray(local, dtype=np.float64)
    r = np.asarray(reference, dtype=np.float64)
    x, r = np.broadcast_arrays(x, r)
    return np.concatenate([_qmul(_conj(r[..., :4]), x[..., :4]), x[..., 4:7] - r[..., 4:7],
                           x[..., 7:8] / r[..., 7:8]], axis=-1)


def apply_additive(base: ArrayLike, delta: ArrayLike, weight: float = 1.0,
                   mask: ArrayLike | None = None) -> Float64Array:
    """``base`` with ``delta`` added at ``weight`` in [-1, 1] (per-joint ``mask``): rotation
    ``q_base * nlerp(identity, d, a)`` (conjugated for a negative weight; d on the w >= 0
    hemisphere, a = |weight| mask), translation ``t + weight mask t_d``, scale
    ``s (s_d a + 1 - a)`` (divided by for a negative weight)."""
    b = np.asarray(base, dtype=np.float64)
    d = np.asarray(delta, dtype=np.float64)
    b, d = np.broadcast_arrays(b, d)
    m = np.ones(b.shape[-2]) if mask is None else np.asarray(mask, dtype=np.float64)
    a = abs(weight) * m
    dq = np.where(d[..., 3:4] < 0, -d[..., :4], d[..., :4])
    r = np.concatenate([dq[..., :3] * a[:, None], ((dq[..., 3] - 1) * a + 1)[..., None]], axis=-1)
    n = np.linalg.norm(r, axis=-1, keepdims=True)
    r = np.where(n ** 2 >= 1e-30, r / np.where(n > 0, n, 1), np.array([0.0, 0, 0, 1]))
    if weight < 0:
        r = _conj(r)
    f = d[..., 7] * a + (1 - a)
    s = b[..., 7] / f if weight < 0 else b[..., 7] * f
    return np.concatenate([_qmul(b[..., :4], r), b[..., 4:7] + (weight * m)[:, None] * d[..., 4:7],
                           s[..., None]], axis=-1)


def apply_additive_numpy32(base: ArrayLike, delta: ArrayLike, weight: float = 1.0,
                           mask: ArrayLike | None = None) -> Float32Array:
    """The same in float32 NumPy (the benchmarks' NumPy formulation)."""
    b = np.asarray(base, dtype=np.float32)
    d = np.asarray(delta, dtype=np.float32)
    m = np.ones(b.shape[-2], np.float32) if mask is None else np.asarray(mask, np.float32)
    a = np.float32(abs(weight)) * m
    sign = np.where(d[..., 3:4] < 0, np.float32(-1), np.float32(1))
    dq = d[..., :4] * sign
    r = np.empty(b.shape[:-1] + (4,), np.float32)
    r[..., :3] = dq[..., :3] * a[:, None]
    r[..., 3] = (dq[..., 3] - 1) * a + 1
    r /= np.sqrt((r * r).sum(-1, keepdims=True))
    if weight < 0:
        r[..., :3] *= -1
    out = np.empty_like(b)
    bx, by, bz, bw = np.moveaxis(b[..., :4], -1, 0)
    rx, ry, rz, rw = np.moveaxis(r, -1, 0)
    out[..., 0] = bw * rx + bx * rw + by * rz - bz * ry
    out[..., 1] = bw * ry + by * rw + bz * rx - bx * rz
    out[..., 2] = bw * rz + bz * rw + bx * ry - by * rx
    out[..., 3] = bw * rw - bx * rx - by * ry - bz * rz
    out[..., 4:7] = b[..., 4:7] + (np.float32(weight) * m)[:, None] * d[..., 4:7]
    f = d[..., 7] * a + (1 - a)
    out[..., 7] = b[..., 7] / f if weight < 0 else b[..., 7] * f
    return out


def blend_layers_additive(layers: ArrayLike, weights: ArrayLike,
                          additive: Sequence[Sequence[Any]]) -> Float64Array:
    """``blend_layers(layers, weights, additive=additive)`` in float64: the weighted blend of
    the layers (reference.blend.blend_layers), then each additive layer ``(delta, weight[,
    mask])`` in order (apply_additive above)."""
    out = blend_layers(layers, weights)
    for layer in additive:
        out = apply_additive(out, *layer)
    return out
