"""Float64 NumPy references for slerp, nlerp, blend_joints and blend_layers, plus the NumPy
float32 formulations the benchmarks race against."""
import numpy as np
from numpy.typing import ArrayLike

from .._typing import BlendMethod, Float64Array
from .quat import quat_normalize

__all__ = ["slerp", "nlerp", "blend_joints", "blend_layers"]


def _f64(x: ArrayLike) -> Float64Array:
    return np.asarray(x, dtype=np.float64)


def _shortest(q0: ArrayLike, q1: ArrayLike) -> tuple[Float64Array, Float64Array]:
    q0, q1 = np.broadcast_arrays(_f64(q0), _f64(q1))
    dot = (q0 * q1).sum(-1)
    return q0, np.where((dot < 0)[..., None], -q1, q1)


def slerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike) -> Float64Array:
    """Shortest-arc slerp in float64: omega = 2 atan2(|u0 - u1|, |u0 + u1|) of the normalised
    inputs (accurate at every angle), weights sin((1 - t) omega) / sin(omega) and
    sin(t omega) / sin(omega) applied to the inputs (linear weights for omega < 1e-12)."""
    q0, q1 = _shortest(q0, q1)
    t = _f64(t)
    u0 = q0 / np.linalg.norm(q0, axis=-1, keepdims=True)
    u1 = q1 / np.linalg.norm(q1, axis=-1, keepdims=True)
    omega = 2 * np.arctan2(np.linalg.norm(u0 - u1, axis=-1), np.linalg.norm(u0 + u1, axis=-1))
    small = omega < 1e-12
    so = np.where(small, 1.0, np.sin(omega))
    w0 = np.where(small, 1 - t, np.sin((1 - t) * omega) / so)
    w1 = np.where(small, t, np.sin(t * omega) / so)
    return w0[..., None] * q0 + w1[..., None] * q1


def nlerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike) -> Float64Array:
    """normalize((1 - t) q0 + t q1') with q1' on q0's hemisphere."""
    q0, q1 = _shortest(q0, q1)
    t = _f64(t)[..., None]
    return quat_normalize((1 - t) * q0 + t * q1)


def blend_joints(joints: ArrayLike, blend: ArrayLike, t: ArrayLike, index: ArrayLike | None = None,
                 method: BlendMethod = "fast") -> Float64Array:
    """van Waveren's SlerpJoints / LerpJoints on QTS poses (..., J, 8) in float64: t <= 0 gives
    joints, t >= 1 gives blend on the selected joints, otherwise rotations by slerp (methods
    "fast"/"exact") or nlerp and translation/scale by linear interpolation. `t` broadcasts with
    the leading dims."""
    joints, blend = np.broadcast_arrays(_f64(joints), _f64(blend))
    t = _f64(t)
    shape = np.broadcast_shapes(joints.shape[:-2], t.shape)
    joints = np.broadcast_to(joints, shape + joints.shape[-2:])
    blend = np.broadcast_to(blend, shape + blend.shape[-2:])
    t = np.broadcast_to(t, shape)[..., None]
    sel = np.arange(joints.shape[-2]) if index is None else np.asarray(index, dtype=np.intp)
    out = joints.copy()
    a, b = joints[..., sel, :], blend[..., sel, :]
    rot = nlerp if method == "nlerp" else slerp
    tt = np.broadcast_to(t, a.shape[:-1])
    mixed = np.concatenate([rot(a[..., :4], b[..., :4], tt), a[..., 4:] + tt[..., None] * (b[..., 4:] - a[..., 4:])], -1)
    res = np.where((t <= 0)[..., None], a, np.where((t >= 1)[..., None], b, mixed))
    out[..., sel, :] = res
    return out


def blend_layers(layers: ArrayLike, weights: ArrayLike) -> Float64Array:
    """N-way weighted blend of QTS poses (..., L, J, 8) with weights (L,) or (L, J): running
    hemisphere alignment, normalised weighted quaternion sum, weighted mean of translation and
    scale."""
    layers = _f64(layers)
    w = _f64(weights)
    nl, nj = layers.shape[-3], layers.shape[-2]
    w = np.broadcast_to(w[:, None] if w.ndim == 1 else w, (nl, nj))
    acc = np.zeros(layers.shape[:-3] + (nj, 4))
    for l in range(nl):
        q = layers[..., l, :, :4]
        flip = ((acc * q).sum(-1) < 0)[..., None]
        acc = acc + w[l][:, None] * np.where(flip, -q, q)
    ts = (w[..., None] * layers[..., 4:]).sum(-3) / w.sum(0)[:, None]
    return np.concatenate([quat_normalize(acc), ts], -1)
