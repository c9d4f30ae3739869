"""The NumPy formulations the benchmarks race: vectorised float32 NumPy code as a NumPy user
would write it for the same job (the fastest we found), timed beside the kernels by
``python -m skelsimd bench``. Not references: the float64 oracles are :mod:`skelsimd.reference`."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._typing import BlendMethod, Float32Array
from ..reference.joints import LevelPlan


def slerp_numpy32(q0: Float32Array, q1: Float32Array, t: Float32Array) -> Float32Array:
    """A vectorised float32 NumPy slerp (arccos form with a linear fallback), as a NumPy user
    would write it."""
    dot = np.einsum("...i,...i->...", q0, q1)
    q1 = np.where(dot[..., None] < 0, -q1, q1)
    dot = np.minimum(np.abs(dot), np.float32(1))
    omega = np.arccos(dot)
    so = np.sin(omega)
    small = so < np.float32(1e-6)
    safe = np.where(small, np.float32(1), so)
    w0: Float32Array = np.where(small, 1 - t, np.sin((1 - t) * omega) / safe)
    w1: Float32Array = np.where(small, t, np.sin(t * omega) / safe)
    return w0[..., None] * q0 + w1[..., None] * q1


def nlerp_numpy32(q0: Float32Array, q1: Float32Array, t: Float32Array) -> Float32Array:
    dot = np.einsum("...i,...i->...", q0, q1)
    w1 = np.where(dot < 0, -t, t)
    v = (1 - t)[..., None] * q0 + w1[..., None] * q1
    q: Float32Array = v / np.sqrt(np.einsum("...i,...i->...", v, v))[..., None]
    return q


def blend_joints_numpy32(joints: Float32Array, blend: Float32Array, t: float,
                         method: BlendMethod = "fast") -> Float32Array:
    """blend_joints on every joint in NumPy float32 (slerp_numpy32, or nlerp_numpy32 for
    method "nlerp", on the rotations)."""
    out = np.empty_like(joints)
    tt = np.full(joints.shape[:-1], t, np.float32)
    rot = nlerp_numpy32 if method == "nlerp" else slerp_numpy32
    out[..., :4] = rot(joints[..., :4], blend[..., :4], tt)
    out[..., 4:] = joints[..., 4:] + np.float32(t) * (blend[..., 4:] - joints[..., 4:])
    return out


def blend_layers_numpy32(layers: Float32Array, weights: ArrayLike) -> Float32Array:
    """blend_layers in NumPy float32: one vectorised step per layer."""
    w = np.asarray(weights, np.float32)
    nl, nj = layers.shape[-3], layers.shape[-2]
    w = np.broadcast_to(w[:, None] if w.ndim == 1 else w, (nl, nj))
    acc = np.zeros(layers.shape[:-3] + (nj, 4), np.float32)
    ts = np.zeros(layers.shape[:-3] + (nj, 4), np.float32)
    for l in range(nl):
        q = layers[..., l, :, :4]
        sign = np.where(np.einsum("...i,...i->...", acc, q) < 0, -w[l], w[l])
        acc += sign[..., None] * q
        ts += w[l][:, None] * layers[..., l, :, 4:]
    out = np.empty(layers.shape[:-3] + (nj, 8), np.float32)
    out[..., :4] = acc / np.sqrt(np.einsum("...i,...i->...", acc, acc))[..., None]
    out[..., 4:] = ts / w.sum(0)[:, None]
    return out


def sixd_to_matrix_numpy32(sixd: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """The NumPy formulation the benchmarks race (not a reference): Gram-Schmidt in float32,
    columns layout."""
    d = np.asarray(sixd, dtype=np.float32)
    if out is None:
        out = np.empty(d.shape[:-1] + (3, 3), np.float32)
    a, b = d[..., :3], d[..., 3:]
    b1 = a / np.sqrt(np.einsum("...i,...i->...", a, a))[..., None]
    u = b - np.einsum("...i,...i->...", b1, b)[..., None] * b1
    b2 = u / np.sqrt(np.einsum("...i,...i->...", u, u))[..., None]
    out[..., :, 0] = b1
    out[..., :, 1] = b2
    out[..., :, 2] = np.cross(b1, b2)
    return out


def matrix_to_sixd_numpy32(m: ArrayLike) -> Float32Array:
    """The NumPy formulation the benchmarks race: the first two columns, (..., 6) float32."""
    a = np.asarray(m, dtype=np.float32)
    return np.ascontiguousarray(np.swapaxes(a[..., :, :2], -1, -2)).reshape(a.shape[:-2] + (6,))


def qts_local_to_global_numpy32(local: Float32Array, plan: LevelPlan,
                                out: Float32Array | None = None) -> Float32Array:
    """The NumPy float32 formulation the benchmarks race (depth-level batching, see
    reference.joints.LevelPlan): per level, batched quaternion products and rotations."""
    if out is None:
        out = np.empty_like(local)
    out[..., plan.roots, :] = local[..., plan.roots, :]
    for idx, par in plan.levels:
        P = out[..., par, :]
        L = local[..., idx, :]
        px, py, pz, pw = np.moveaxis(P[..., :4], -1, 0)
        lx, ly, lz, lw = np.moveaxis(L[..., :4], -1, 0)
        res = np.empty_like(L)
        res[..., 0] = pw * lx + px * lw + py * lz - pz * ly
        res[..., 1] = pw * ly - px * lz + py * lw + pz * lx
        res[..., 2] = pw * lz + px * ly - py * lx + pz * lw
        res[..., 3] = pw * lw - px * lx - py * ly - pz * lz
        u = P[..., :3]
        v = L[..., 4:7]
        c = np.cross(u, v)
        rot = v + 2 * (pw[..., None] * c + np.cross(u, c))
        res[..., 4:7] = P[..., 4:7] + P[..., 7, None] * rot
        res[..., 7] = P[..., 7] * L[..., 7]
        out[..., idx, :] = res
    return out


def qts_to_matrix_numpy32(qts: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """The NumPy formulation the benchmarks race (not a reference): QTS joints ``(..., 8)`` to
    joint matrices ``(..., 3, 4)`` float32 ``[s R(q) | t]``, in NumPy float32 arithmetic (quaternions assumed unit length), element by element into
    ``out`` (5x faster than stacking the rows)."""
    x8 = np.asarray(qts, dtype=np.float32)
    if out is None:
        out = np.empty(x8.shape[:-1] + (3, 4), dtype=np.float32)
    x, y, z, w, s = (x8[..., i] for i in (0, 1, 2, 3, 7))
    s2 = s + s
    xs, ys, zs = x * s2, y * s2, z * s2
    xx, yy, zz = x * xs, y * ys, z * zs
    xy, xz, yz = x * ys, x * zs, y * zs
    wx, wy, wz = w * xs, w * ys, w * zs
    out[..., 0, 0] = s - (yy + zz)
    out[..., 0, 1] = xy - wz
    out[..., 0, 2] = xz + wy
    out[..., 1, 0] = xy + wz
    out[..., 1, 1] = s - (xx + zz)
    out[..., 1, 2] = yz - wx
    out[..., 2, 0] = xz - wy
    out[..., 2, 1] = yz + wx
    out[..., 2, 2] = s - (xx + yy)
    out[..., :, 3] = x8[..., 4:7]
    return out


def skin_numpy(positions_h: Float32Array, w_dense: Float32Array,
               palette: Float32Array) -> Float32Array:
    """Vectorised float32 NumPy skinning of one mesh by N palettes (N, J, 3, 4): the blended
    matrices of every vertex and character come out of one GEMM, W (V, J) @ palette (J, 12 N)
    (the fastest NumPy formulation we found: 0.5 ms for 10,000 x 4 and one palette here, against
    0.8 ms for gather + einsum), then each is applied to (x, y, z, 1). Returns (N, V, 3)."""
    n, j = palette.shape[:2]
    m = (w_dense @ palette.transpose(1, 0, 2, 3).reshape(j, n * 12)).reshape(-1, n, 3, 4)
    skinned: Float32Array = np.einsum("vnij,vj->nvi", m, positions_h)
    return skinned


def inertialize_update_numpy32(pose: Float32Array, offset: Float32Array,
                               offset_velocity: Float32Array, halflife: float,
                               dt: float) -> tuple[Float32Array, Float32Array, Float32Array]:
    """skelsimd.inertialize_update in float32 NumPy (the package's NumPy form before the
    kernel): the spring's decay, then the offsets applied to the poses."""
    f = np.float32
    y = f(2.0 * np.log(2.0) / halflife)
    j1 = offset_velocity + offset * y
    e = f(np.exp(-float(y) * dt))
    x: Float32Array = (e * (offset + j1 * f(dt))).astype(f, copy=False)
    v: Float32Array = (e * (offset_velocity - j1 * f(float(y) * dt))).astype(f, copy=False)
    n = np.sqrt(np.einsum("...i,...i->...", pose[..., :4], pose[..., :4]))[..., None]
    q = pose[..., :4] / np.where(n > 0, n, f(1))
    angle = np.sqrt(np.einsum("...i,...i->...", x[..., :3], x[..., :3]))
    safe = np.where(angle > 0, angle, f(1))
    factor = np.where(angle > 0, np.sin(f(0.5) * angle) / safe, f(0.5))
    rx, ry, rz = (x[..., k] * factor for k in range(3))
    rw = np.cos(f(0.5) * angle)
    qx, qy, qz, qw = (q[..., k] for k in range(4))
    out: Float32Array = np.empty(pose.shape, f)
    out[..., 0] = rw * qx + rx * qw + ry * qz - rz * qy
    out[..., 1] = rw * qy - rx * qz + ry * qw + rz * qx
    out[..., 2] = rw * qz + rx * qy - ry * qx + rz * qw
    out[..., 3] = rw * qw - rx * qx - ry * qy - rz * qz
    out[..., 4:7] = pose[..., 4:7] + x[..., 3:]
    out[..., 7] = pose[..., 7]
    return out, x, v
