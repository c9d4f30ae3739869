"""Float64 rotation helpers shared by the pure-Python layers (clip editing, the BVH reader and
writer, the dataset steps, the test-data generators): quaternion products, conjugates, vector
rotation and rotation matrices, vectorised over leading dimensions.

Quaternions are ``(..., 4)`` as ``(x, y, z, w)`` (unit length where a function says so), vectors
``(..., 3)``. Everything is float64 and written for clarity; the float32 kernels live in C.
:mod:`skelsimd.reference` keeps its own independent formulas: it is the oracle the tests compare
these layers with, so it shares no code with them.
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["quat_mul", "quat_conj", "quat_rotate", "quat_to_matrix", "matrix_to_quat"]

_F64 = npt.NDArray[np.float64]
_CONJ = np.array([-1.0, -1.0, -1.0, 1.0])


def quat_mul(a: npt.ArrayLike, b: npt.ArrayLike) -> _F64:
    """The Hamilton product ``a * b`` (rotation by ``b``, then by ``a``), broadcast.

    Examples
    --------
    >>> quat_mul([0, 0, 0, 1], [1, 0, 0, 0]).tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def quat_conj(q: npt.ArrayLike) -> _F64:
    """The conjugate ``(-x, -y, -z, w)``: the inverse rotation of a unit quaternion."""
    conj: _F64 = np.asarray(q, dtype=np.float64) * _CONJ
    return conj


def quat_rotate(q: npt.ArrayLike, v: npt.ArrayLike) -> _F64:
    """``R(q) v`` for unit quaternions ``q`` (..., 4) and vectors ``v`` (..., 3), broadcast:
    ``v + 2 w (u x v) + 2 u x (u x v)`` with ``u = (x, y, z)``.

    Examples
    --------
    >>> s = np.sqrt(0.5)
    >>> np.round(quat_rotate([0, 0, s, s], [1, 0, 0]), 12) + 0.0   # 90 degrees about z
    array([0., 1., 0.])
    """
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    u, w = q[..., :3], q[..., 3:]
    c = _cross(u, v)
    return v + 2.0 * (w * c + _cross(u, c))


def _cross(a: _F64, b: _F64) -> _F64:
    """``a x b`` over the last axis, broadcast: np.cross's formula without its axis handling
    (which costs more than the arithmetic on the one-joint arrays of the per-joint loops)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def quat_to_matrix(q: npt.ArrayLike) -> _F64:
    """Rotation matrices ``(..., 3, 3)`` of unit quaternions ``(..., 4)`` (column vectors:
    ``R @ v`` rotates ``v``)."""
    q = np.asarray(q, dtype=np.float64)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def matrix_to_quat(r: _F64) -> _F64:
    """Unit quaternions (x, y, z, w) of rotation matrices (..., 3, 3), float64 (Shepperd's
    method: the largest of 4w^2, 4x^2, 4y^2, 4z^2 picks the stable formula)."""
    m00, m01, m02 = r[..., 0, 0], r[..., 0, 1], r[..., 0, 2]
    m10, m11, m12 = r[..., 1, 0], r[..., 1, 1], r[..., 1, 2]
    m20, m21, m22 = r[..., 2, 0], r[..., 2, 1], r[..., 2, 2]
    cands = np.stack([
        np.stack([m21 - m12, m02 - m20, m10 - m01, 1 + m00 + m11 + m22], -1),
        np.stack([1 + m00 - m11 - m22, m01 + m10, m02 + m20, m21 - m12], -1),
        np.stack([m01 + m10, 1 - m00 + m11 - m22, m12 + m21, m02 - m20], -1),
        np.stack([m02 + m20, m12 + m21, 1 - m00 - m11 + m22, m10 - m01], -1)], -2)
    diag = np.stack([m00 + m11 + m22, m00, m11, m22], -1)
    pick = np.argmax(diag, axis=-1)
    q = np.take_along_axis(cands, pick[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    out: _F64 = np.where(q[..., 3:] < 0, -q, q)
    return out
