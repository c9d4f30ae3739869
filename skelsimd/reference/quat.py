"""Float64 NumPy references for the quaternion family (algebra and conversions), written for
clarity, not speed. Quaternions are (..., 4) as (x, y, z, w); QTS joints (..., 8) as
(qx, qy, qz, qw, tx, ty, tz, s); joint matrices (..., 3, 4) row-major [R | t].

Rotations of non-unit quaternions are the rotations of q / |q| (a zero quaternion is the
identity), as in the kernels.
"""
import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float64Array

__all__ = [
    "quat_multiply", "quat_conjugate", "quat_normalize", "quat_rotate", "quat_to_matrix",
    "matrix_to_quat", "qts_to_matrix", "matrix_to_qts", "same_rotation_error"]


def _f64(x: ArrayLike) -> Float64Array:
    return np.asarray(x, dtype=np.float64)


def quat_multiply(a: ArrayLike, b: ArrayLike) -> Float64Array:
    """Hamilton product a * b with broadcasting."""
    a, b = np.broadcast_arrays(_f64(a), _f64(b))
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ], axis=-1)


def quat_conjugate(q: ArrayLike) -> Float64Array:
    q = _f64(q).copy()
    q[..., :3] *= -1
    return q


def quat_normalize(q: ArrayLike) -> Float64Array:
    """q / |q|; zero -> (0, 0, 0, 1)."""
    q = _f64(q)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    ident = np.zeros_like(q)
    ident[..., 3] = 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, q / np.where(n > 0, n, 1.0), ident)


def quat_to_matrix(q: ArrayLike, scalar_first: bool = False) -> Float64Array:
    """Rotation matrices (..., 3, 3) of q / |q| (zero q -> identity)."""
    q = _f64(q)
    if scalar_first:
        q = np.roll(q, -1, axis=-1)
    x, y, z, w = np.moveaxis(quat_normalize(q), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def quat_rotate(q: ArrayLike, v: ArrayLike) -> Float64Array:
    """R(q / |q|) v with broadcasting."""
    return (quat_to_matrix(q) @ _f64(v)[..., None])[..., 0]


def matrix_to_quat(m: ArrayLike, scalar_first: bool = False) -> Float64Array:
    """Unit quaternion of each rotation matrix (..., 3, 3), w >= 0: the eigenvector of Bar-Itzhack's
    symmetric 4x4 matrix K with the largest eigenvalue (valid for every rotation, and the nearest
    rotation's quaternion for a slightly non-orthogonal m)."""
    m = _f64(m)
    shape = m.shape[:-2]
    m = m.reshape(-1, 3, 3)
    out = np.empty((len(m), 4))
    for i, a in enumerate(m):
        (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = a
        k = np.array([
            [m00 - m11 - m22, m10 + m01, m20 + m02, m21 - m12],
            [m10 + m01, m11 - m00 - m22, m21 + m12, m02 - m20],
            [m20 + m02, m21 + m12, m22 - m00 - m11, m10 - m01],
            [m21 - m12, m02 - m20, m10 - m01, m00 + m11 + m22],
        ]) / 3.0
        vals, vecs = np.linalg.eigh(k)
        q = vecs[:, np.argmax(vals)]
        out[i] = q if q[3] >= 0 else -q
    res = out.reshape(shape + (4,))
    return np.roll(res, 1, axis=-1) if scalar_first else res


def qts_to_matrix(x: ArrayLike) -> Float64Array:
    """[s R(q / |q|) | t] (..., 3, 4) of QTS joints (..., 8)."""
    x = _f64(x)
    m = np.empty(x.shape[:-1] + (3, 4))
    m[..., :3] = quat_to_matrix(x[..., :4]) * x[..., 7, None, None]
    m[..., 3] = x[..., 4:7]
    return m


def matrix_to_qts(m: ArrayLike) -> Float64Array:
    """QTS (..., 8) of joint matrices: s = sign(det A) (|A|_F^2 / 3)^(1/2), q of A / s."""
    m = _f64(m)
    a = m[..., :3]
    s = np.sqrt((a * a).sum(axis=(-2, -1)) / 3.0)
    s = np.where(np.linalg.det(a) < 0, -s, s)
    safe = np.where(s == 0, 1.0, s)
    q = matrix_to_quat(a / safe[..., None, None])
    q = np.where((s == 0)[..., None], np.array([0.0, 0.0, 0.0, 1.0]), q)
    return np.concatenate([q, m[..., 3], s[..., None]], axis=-1)


def same_rotation_error(q: ArrayLike, ref: ArrayLike) -> Float64Array:
    """max abs component error between q and the nearer of +ref / -ref (q and -q are the same
    rotation), per quaternion."""
    q, ref = _f64(q), _f64(ref)
    err: Float64Array = np.minimum(np.abs(q - ref).max(axis=-1), np.abs(q + ref).max(axis=-1))
    return err
