"""Float64 NumPy references for inertialization (Holden's "Spring-It-On" critically damped
offset decay with a half-life): the offsets at a switch and one decay step applied to a pose,
written for clarity. Quaternions are ``(x, y, z, w)``; rotation offsets scaled angle-axis
vectors (angle * axis)."""
from typing import Optional

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float64Array

__all__ = ["qmul", "qexp", "qlog", "normalized", "decay", "transition", "update"]


def _f64(x: ArrayLike) -> Float64Array:
    return np.asarray(x, dtype=np.float64)


def qmul(a: ArrayLike, b: ArrayLike) -> Float64Array:
    """The Hamilton product of (x, y, z, w) quaternions."""
    ax, ay, az, aw = np.moveaxis(_f64(a), -1, 0)
    bx, by, bz, bw = np.moveaxis(_f64(b), -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def normalized(q: ArrayLike) -> Float64Array:
    """q / |q|; a zero quaternion stays zero."""
    a = _f64(q)
    n = np.linalg.norm(a, axis=-1, keepdims=True)
    out: Float64Array = a / np.where(n > 0, n, 1.0)
    return out


def qexp(w: ArrayLike) -> Float64Array:
    """The unit quaternion of a scaled angle-axis vector."""
    v = _f64(w)
    angle = np.linalg.norm(v, axis=-1)
    half = 0.5 * angle
    safe = np.where(angle > 0, angle, 1.0)
    factor = np.where(angle > 0, np.sin(half) / safe, 0.5)
    return np.concatenate([v * factor[..., None], np.cos(half)[..., None]], axis=-1)


def qlog(q: ArrayLike) -> Float64Array:
    """The scaled angle-axis of a unit quaternion on the short arc (w >= 0)."""
    a = _f64(q)
    a = np.where(a[..., 3:4] < 0, -a, a)
    s = np.linalg.norm(a[..., :3], axis=-1)
    angle = 2.0 * np.arctan2(s, a[..., 3])
    factor = np.where(s > 0, angle / np.where(s > 0, s, 1.0), 2.0)
    out: Float64Array = a[..., :3] * factor[..., None]
    return out


def decay(x: ArrayLike, v: ArrayLike, halflife: float,
          t: ArrayLike) -> tuple[Float64Array, Float64Array]:
    """The critically damped spring's offset and velocity after t seconds, damping
    4 ln 2 / halflife."""
    xa, va, ta = _f64(x), _f64(v), _f64(t)
    y = 2.0 * np.log(2.0) / halflife
    j1 = va + xa * y
    e = np.exp(-y * ta)
    return e * (xa + j1 * ta), e * (va - j1 * y * ta)


def transition(source: ArrayLike, source_velocity: ArrayLike, target: ArrayLike,
               target_velocity: ArrayLike, offset: Optional[ArrayLike] = None,
               offset_velocity: Optional[ArrayLike] = None
               ) -> tuple[Float64Array, Float64Array]:
    """(offset, offset_velocity) of a switch from source to target poses (QTS (..., J, 8))."""
    src, dst = _f64(source), _f64(target)
    q = qmul(normalized(src[..., :4]), normalized(dst[..., :4]) * np.array([-1.0, -1.0, -1.0, 1.0]))
    t = src[..., 4:7] - dst[..., 4:7]
    if offset is not None:
        off = _f64(offset)
        q = qmul(qexp(off[..., :3]), q)
        t = off[..., 3:] + t
    v = _f64(source_velocity) - _f64(target_velocity)
    if offset_velocity is not None:
        v = v + _f64(offset_velocity)
    x = np.concatenate(np.broadcast_arrays(qlog(q), t), axis=-1)
    return x, np.broadcast_to(v, x.shape).copy()


def update(pose: ArrayLike, offset: ArrayLike, offset_velocity: ArrayLike, halflife: float,
           dt: float) -> tuple[Float64Array, Float64Array, Float64Array]:
    """(out, offset, offset_velocity): the offsets decayed by dt seconds, applied to pose."""
    p = _f64(pose)
    x, v = decay(offset, offset_velocity, halflife, dt)
    lead = np.broadcast_shapes(p.shape[:-1], x.shape[:-1], v.shape[:-1])
    p = np.broadcast_to(p, lead + p.shape[-1:])
    x = np.broadcast_to(x, lead + x.shape[-1:])
    v = np.broadcast_to(v, lead + v.shape[-1:])
    out = p.copy()
    out[..., :4] = qmul(qexp(x[..., :3]), normalized(p[..., :4]))
    out[..., 4:7] = p[..., 4:7] + x[..., 3:]
    return out, x.copy(), v.copy()
