"""Float64 NumPy references for the rotation conversion family (Euler angles, rotation vectors,
6D), written for clarity, not speed, plus the NumPy float32 formulations of the 6D conversions
that the benchmarks race. Quaternions are (..., 4) as (x, y, z, w) unless scalar_first.

Euler angles follow SciPy's Rotation conventions exactly (``seq``: three of 'xyz' for extrinsic
rotations or 'XYZ' for intrinsic ones; gimbal lock resolved as Rotation.as_euler does); the
tests check these references against SciPy itself.
"""
from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._typing import BoolArray, Float64Array, _Layout
from . import quat as _quat

__all__ = ["parse_seq", "euler_to_quat", "quat_to_euler", "rotvec_to_quat", "quat_to_rotvec",
           "matrix_to_sixd", "sixd_to_matrix", "quat_to_sixd", "sixd_to_quat", "angle_error"]

GIMBAL_EPS = 1e-7


def _f64(x: ArrayLike) -> Float64Array:
    return np.asarray(x, dtype=np.float64)


def _from_scalar_first(q: ArrayLike, scalar_first: bool) -> Float64Array:
    q = _f64(q)
    return np.roll(q, -1, axis=-1) if scalar_first else q


def _to_scalar_first(q: Float64Array, scalar_first: bool) -> Float64Array:
    return np.roll(q, 1, axis=-1) if scalar_first else q


def parse_seq(seq: str) -> tuple[list[int], bool]:
    """(axes as 0/1/2, extrinsic) of SciPy's seq string."""
    if not (isinstance(seq, str) and len(seq) == 3 and (set(seq) <= set("xyz") or set(seq) <= set("XYZ"))
            and seq[0] != seq[1] and seq[1] != seq[2]):
        raise ValueError(f"invalid Euler sequence {seq!r}")
    return ["xyz".index(c) for c in seq.lower()], seq.islower()


def _multiply(a: Float64Array, b: Float64Array) -> Float64Array:
    return _quat.quat_multiply(a, b)


def euler_to_quat(angles: ArrayLike, seq: str, degrees: bool = False,
                  scalar_first: bool = False) -> Float64Array:
    """The product of the elementary rotations: intrinsic e0 e1 e2, extrinsic e2 e1 e0 (the
    quaternion Rotation.from_euler(seq, angles).as_quat() gives, sign included)."""
    axes, extrinsic = parse_seq(seq)
    a = _f64(angles)
    if degrees:
        a = np.deg2rad(a)
    q: Float64Array | None = None
    for i, axis in enumerate(axes):
        e = np.zeros(a.shape[:-1] + (4,))
        e[..., axis] = np.sin(a[..., i] / 2)
        e[..., 3] = np.cos(a[..., i] / 2)
        q = e if q is None else (_multiply(e, q) if extrinsic else _multiply(q, e))
    assert q is not None                       # three axes
    return _to_scalar_first(q, scalar_first)


@overload
def quat_to_euler(q: ArrayLike, seq: str, degrees: bool = ..., scalar_first: bool = ...,
                  return_locked: Literal[False] = ...) -> Float64Array: ...
@overload
def quat_to_euler(q: ArrayLike, seq: str, degrees: bool, scalar_first: bool,
                  return_locked: Literal[True]) -> tuple[Float64Array, BoolArray]: ...
@overload
def quat_to_euler(q: ArrayLike, seq: str, degrees: bool = ..., scalar_first: bool = ..., *,
                  return_locked: Literal[True]) -> tuple[Float64Array, BoolArray]: ...
def quat_to_euler(q: ArrayLike, seq: str, degrees: bool = False, scalar_first: bool = False,
                  return_locked: bool = False) -> Float64Array | tuple[Float64Array, BoolArray]:
    """Euler angles (..., 3) of q (any non-zero scale) by SciPy's quaternion algorithm (Bernardes
    and Viollet 2022): angles in [-pi, pi) (the middle one in [0, pi] for proper Euler sequences,
    [-pi/2, pi/2] otherwise). Gimbal lock (middle angle within 1e-7 of its ends): third angle 0.
    A zero quaternion gives (0, 0, 0), a non-finite one NaN. With return_locked, also the boolean
    mask of locked rotations."""
    axes, extrinsic = parse_seq(seq)
    q = _from_scalar_first(q, scalar_first)
    zero = ~(q != 0).any(axis=-1)
    bad = ~np.isfinite(q).all(axis=-1)
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    w, qi, qj, qk = q[..., 3], q[..., i], q[..., j], q[..., k] * sign
    if symmetric:
        a, b, c, d = w, qi, qj, qk
    else:
        a, b, c, d = w - qj, qi + qk, qj + w, qk - qi
    half_sum = np.arctan2(b, a)
    half_diff = np.arctan2(d, c)
    theta = 2 * np.arctan2(np.hypot(c, d), np.hypot(a, b))
    lock0 = np.abs(theta) <= GIMBAL_EPS
    lock_pi = np.abs(theta - np.pi) <= GIMBAL_EPS
    lock = lock0 | lock_pi
    a0 = np.where(lock0, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    s = 1 if symmetric else sign
    if not symmetric:
        theta = theta - np.pi / 2
    if extrinsic:
        first, third = np.where(lock, a0, half_sum - half_diff), np.where(lock, 0.0, (half_sum + half_diff) * s)
    else:
        first, third = np.where(lock, a0, half_sum + half_diff) * s, np.where(lock, 0.0, half_sum - half_diff)
    out: Float64Array = np.stack([first, theta, third], axis=-1)
    out[..., 0] = (out[..., 0] + np.pi) % (2 * np.pi) - np.pi
    out[..., 2] = (out[..., 2] + np.pi) % (2 * np.pi) - np.pi
    out[zero] = 0.0
    out[bad] = np.nan
    if degrees:
        out = np.rad2deg(out)
    if return_locked:
        return out, lock & ~zero & ~bad
    return out


def rotvec_to_quat(rotvec: ArrayLike, degrees: bool = False,
                   scalar_first: bool = False) -> Float64Array:
    """exp: (sin(theta / 2) v / theta, cos(theta / 2)), theta = |v| (series near 0)."""
    v = _f64(rotvec)
    if degrees:
        v = np.deg2rad(v)
    theta = np.linalg.norm(v, axis=-1, keepdims=True)
    small = theta < 1e-4
    safe = np.where(small, 1.0, theta)
    s = np.where(small, 0.5 - theta ** 2 / 48, np.sin(safe / 2) / safe)
    q = np.concatenate([v * s, np.cos(theta / 2)], axis=-1)
    return _to_scalar_first(q, scalar_first)


def canonical(q: ArrayLike) -> Float64Array:
    """q on SciPy's canonical hemisphere: w > 0, or w == 0 and the first non-zero of x, y, z > 0."""
    q = _f64(q)
    x, y, z, w = np.moveaxis(q, -1, 0)
    flip = (w < 0) | ((w == 0) & ((x < 0) | ((x == 0) & ((y < 0) | ((y == 0) & (z < 0))))))
    res: Float64Array = np.where(flip[..., None], -q, q)
    return res


def quat_to_rotvec(q: ArrayLike, degrees: bool = False, scalar_first: bool = False) -> Float64Array:
    """log: angle * axis, angle = 2 atan2(|xyz|, w) in [0, pi] on the canonical hemisphere, of q
    of any non-zero scale. Zero gives 0, non-finite NaN."""
    qc = canonical(_from_scalar_first(q, scalar_first))
    v, w = qc[..., :3], qc[..., 3:]
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    angle = 2 * np.arctan2(n, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        # angle / n -> 2 / w as n -> 0
        scale = np.where(n > 1e-6 * np.abs(w), angle / np.where(n > 0, n, 1.0), 2 / w * (1 - (n / w) ** 2 / 3))
    out: Float64Array = v * scale
    out[~(qc != 0).any(axis=-1)] = 0.0
    out[~np.isfinite(qc).all(axis=-1)] = np.nan
    return np.rad2deg(out) if degrees else out


def matrix_to_sixd(m: ArrayLike, layout: _Layout = "columns") -> Float64Array:
    """(..., 6): the first two columns one after the other (layout="rows": the first two rows,
    PyTorch3D's matrix_to_rotation_6d)."""
    a = _f64(m)
    if layout == "rows":
        return a[..., :2, :].reshape(a.shape[:-2] + (6,))
    return np.swapaxes(a[..., :, :2], -1, -2).reshape(a.shape[:-2] + (6,))


def sixd_to_matrix(sixd: ArrayLike, layout: _Layout = "columns") -> Float64Array:
    """Gram-Schmidt (PyTorch3D's rotation_6d_to_matrix): b1 = a / |a|, b2 = the part of b
    orthogonal to b1, normalised, b3 = b1 x b2; the columns (layout="rows": rows) of the result."""
    d = _f64(sixd)
    a, b = d[..., :3], d[..., 3:]
    with np.errstate(invalid="ignore", divide="ignore"):
        b1 = a / np.linalg.norm(a, axis=-1, keepdims=True)
        u = b - (b1 * b).sum(-1, keepdims=True) * b1
        b2 = u / np.linalg.norm(u, axis=-1, keepdims=True)
    b3 = np.cross(b1, b2)
    return np.stack([b1, b2, b3], axis=-2 if layout == "rows" else -1)


def quat_to_sixd(q: ArrayLike, layout: _Layout = "columns", scalar_first: bool = False) -> Float64Array:
    return matrix_to_sixd(_quat.quat_to_matrix(q, scalar_first=scalar_first), layout)


def sixd_to_quat(sixd: ArrayLike, layout: _Layout = "columns",
                 scalar_first: bool = False) -> Float64Array:
    """The quaternion (w >= 0) of sixd_to_matrix(sixd)."""
    return _quat.matrix_to_quat(sixd_to_matrix(sixd, layout), scalar_first=scalar_first)


def angle_error(a: ArrayLike, b: ArrayLike, degrees: bool = False) -> Float64Array:
    """|a - b| modulo a full turn (angles near +-pi may come out at either end)."""
    turn = 360.0 if degrees else 2 * np.pi
    d = np.abs(_f64(a) - _f64(b)) % turn
    err: Float64Array = np.minimum(d, turn - d)
    return err
