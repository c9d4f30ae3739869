"""QTS pose helpers in NumPy: quaternion to rotation, QTS to joint matrices, and the blend of
two QTS poses (slerp of the rotations, lerp of translation and scale).

Integration point. These are the interim NumPy path of the skeleton family (BVH clips, the
demo, the real-clip benchmark) until the quaternion kernel family (issue 3: ``qts_to_matrix``,
``qts_local_to_global_matrix``, ``blend_joints``) is merged; ``skelsimd/bvh.py``,
``skelsimd/_demo.py`` and ``skelsimd/_bench/skeleton.py`` use the kernels when they exist
(``HAVE_QUAT_KERNELS``) and these functions otherwise.
"""
import numpy as np

from . import joints as _joints

__all__ = ["HAVE_QUAT_KERNELS", "quat_to_rotation", "qts_to_matrices", "blend_qts",
           "qts_local_to_global_matrix", "blend"]

try:  # the quaternion families (issue 3): skelsimd/blend.py and skelsimd/qts.py
    from .blend import blend_joints as _blend_joints
    from .qts import qts_local_to_global_matrix as _qts_l2g_matrix
    HAVE_QUAT_KERNELS = True
except ImportError:
    HAVE_QUAT_KERNELS = False


def quat_to_rotation(q):
    """(..., 4) unit quaternions (x, y, z, w) -> (..., 3, 3) rotation matrices, in q's dtype."""
    x, y, z, w = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz, wx, wy, wz = x * y, x * z, y * z, w * x, w * y, w * z
    one = np.ones_like(x)
    return np.stack([
        np.stack([one - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)], -1),
        np.stack([2 * (xy + wz), one - 2 * (xx + zz), 2 * (yz - wx)], -1),
        np.stack([2 * (xz - wy), 2 * (yz + wx), one - 2 * (xx + yy)], -1),
    ], -2)


def qts_to_matrices(qts, out=None):
    """QTS joints ``(..., 8)`` to joint matrices ``(..., 3, 4)`` float32 ``[s R(q) | t]``, in
    NumPy float32 arithmetic (quaternions assumed unit length), element by element into
    ``out`` (5x faster than stacking the rows)."""
    qts = np.asarray(qts, dtype=np.float32)
    if out is None:
        out = np.empty(qts.shape[:-1] + (3, 4), dtype=np.float32)
    x, y, z, w, s = (qts[..., i] for i in (0, 1, 2, 3, 7))
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
    out[..., :, 3] = qts[..., 4:7]
    return out


def qts_local_to_global_matrix(local, parents, out=None):
    """Global joint matrices ``(..., J, 3, 4)`` of QTS local poses ``(..., J, 8)``: the
    quaternion family's kernel when present, else NumPy conversion + ``local_to_global``."""
    if HAVE_QUAT_KERNELS:
        return _qts_l2g_matrix(local, parents, out)
    return _joints.local_to_global(qts_to_matrices(local), parents, out)


def blend_qts(a, b, t):
    """Blend of QTS poses ``(..., 8)``: shortest-arc slerp of the rotations (float64 inside),
    linear interpolation of translation and scale; float32 result."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    dot = np.sum(a[..., :4] * b[..., :4], axis=-1, keepdims=True)
    qb = np.where(dot < 0, -b[..., :4], b[..., :4])
    theta = np.arccos(np.clip(np.abs(dot), 0.0, 1.0))
    sin_theta = np.sin(theta)
    near = sin_theta < 1e-6
    safe = np.where(near, 1.0, sin_theta)
    w0 = np.where(near, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    w1 = np.where(near, t, np.sin(t * theta) / safe)
    q = w0 * a[..., :4] + w1 * qb
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=np.float32)
    out[..., :4] = q
    out[..., 4:] = (1.0 - t) * a[..., 4:] + t * b[..., 4:]
    return out


def blend(a, b, t):
    """``blend_joints(a, b, t)`` of the quaternion family when present, else :func:`blend_qts`."""
    if HAVE_QUAT_KERNELS:
        return _blend_joints(a, b, t)
    return blend_qts(a, b, t)
