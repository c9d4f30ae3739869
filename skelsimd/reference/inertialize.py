"""Float64 NumPy references for inertialization (Holden's "Spring-It-On" critically damped
offset decay with a half-life): the offsets at a switch and one decay step applied to a pose,
written for clarity. Quaternions are ``(x, y, z, w)``; rotation offsets scaled angle-axis
vectors (angle * axis)."""
import numpy as np

__all__ = ["qmul", "qexp", "qlog", "normalized", "decay", "transition", "update"]


def qmul(a, b):
    """The Hamilton product of (x, y, z, w) quaternions."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def normalized(q):
    """q / |q|; a zero quaternion stays zero."""
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    return q / np.where(n > 0, n, 1.0)


def qexp(w):
    """The unit quaternion of a scaled angle-axis vector."""
    angle = np.linalg.norm(w, axis=-1)
    half = 0.5 * angle
    safe = np.where(angle > 0, angle, 1.0)
    factor = np.where(angle > 0, np.sin(half) / safe, 0.5)
    return np.concatenate([w * factor[..., None], np.cos(half)[..., None]], axis=-1)


def qlog(q):
    """The scaled angle-axis of a unit quaternion on the short arc (w >= 0)."""
    q = np.where(q[..., 3:4] < 0, -q, q)
    s = np.linalg.norm(q[..., :3], axis=-1)
    angle = 2.0 * np.arctan2(s, q[..., 3])
    factor = np.where(s > 0, angle / np.where(s > 0, s, 1.0), 2.0)
    return q[..., :3] * factor[..., None]


def decay(x, v, halflife, t):
    """The critically damped spring's offset and velocity after t seconds, damping
    4 ln 2 / halflife."""
    y = 2.0 * np.log(2.0) / halflife
    j1 = v + x * y
    e = np.exp(-y * t)
    return e * (x + j1 * t), e * (v - j1 * y * t)


def transition(source, source_velocity, target, target_velocity, offset=None,
               offset_velocity=None):
    """(offset, offset_velocity) of a switch from source to target poses (QTS (..., J, 8))."""
    src, dst = np.asarray(source, np.float64), np.asarray(target, np.float64)
    q = qmul(normalized(src[..., :4]), normalized(dst[..., :4]) * [-1, -1, -1, 1])
    t = src[..., 4:7] - dst[..., 4:7]
    if offset is not None:
        off = np.asarray(offset, np.float64)
        q = qmul(qexp(off[..., :3]), q)
        t = off[..., 3:] + t
    v = np.asarray(source_velocity, np.float64) - np.asarray(target_velocity, np.float64)
    if offset_velocity is not None:
        v = v + np.asarray(offset_velocity, np.float64)
    x = np.concatenate(np.broadcast_arrays(qlog(q), t), axis=-1)
    return x, np.broadcast_to(v, x.shape).copy()


def update(pose, offset, offset_velocity, halflife, dt):
    """(out, offset, offset_velocity): the offsets decayed by dt seconds, applied to pose."""
    p = np.asarray(pose, np.float64)
    x, v = decay(np.asarray(offset, np.float64), np.asarray(offset_velocity, np.float64),
                 halflife, dt)
    lead = np.broadcast_shapes(p.shape[:-1], x.shape[:-1])
    p, x, v = (np.broadcast_to(a, lead + a.shape[-1:]) for a in (p, x, v))
    out = p.copy()
    out[..., :4] = qmul(qexp(x[..., :3]), normalized(p[..., :4]))
    out[..., 4:7] = p[..., 4:7] + x[..., 3:]
    return out, x.copy(), v.copy()


def update_numpy32(pose, offset, offset_velocity, halflife, dt):
    """The same as :func:`update` in float32 NumPy (the benchmarks' NumPy formulation: the
    package's own NumPy inertialization before the kernel)."""
    f = np.float32
    p = np.asarray(pose, f)
    x, v = np.asarray(offset, f), np.asarray(offset_velocity, f)
    y = f(2.0 * np.log(2.0) / halflife)
    j1 = v + x * y
    e = f(np.exp(-float(y) * dt))
    x, v = e * (x + j1 * f(dt)), e * (v - j1 * f(y * dt))
    n = np.sqrt(np.einsum("...i,...i->...", p[..., :4], p[..., :4]))[..., None]
    q = p[..., :4] / np.where(n > 0, n, f(1))
    angle = np.sqrt(np.einsum("...i,...i->...", x[..., :3], x[..., :3]))
    safe = np.where(angle > 0, angle, f(1))
    factor = np.where(angle > 0, np.sin(f(0.5) * angle) / safe, f(0.5))
    r = np.concatenate([x[..., :3] * factor[..., None], np.cos(f(0.5) * angle)[..., None]], -1)
    out = np.empty(np.broadcast_shapes(p.shape, x.shape[:-1] + (8,)), f)
    out[..., :4] = qmul(r, q)
    out[..., 4:7] = p[..., 4:7] + x[..., 3:]
    out[..., 7] = p[..., 7]
    return out, x, v
