"""Root motion: per-frame deltas of a trajectory, their weighted blend, and their accumulation.

:meth:`skelsimd.Clip.root_motion` splits a clip into a ground trajectory (per frame a QTS
transform ``(0, qy, 0, qw, x, 0, z, 1)``) and an in-place clip. A runtime that blends several
in-place clips with :func:`skelsimd.blend_layers` moves the character by blending the clips'
root-motion *deltas* with the same weights (ozz-animation's MotionBlendingJob, run beside its
BlendingJob) and accumulating the blended delta into the character's own trajectory:

1. ``d_i = motion_deltas(trajectory_i)``: frame-to-frame deltas in the character's frame;
2. per frame, ``pose = blend_layers(in_place poses, w)`` and ``delta = blend_motion(d, w)`` with
   the same weights ``w``;
3. ``trajectory = accumulate_motion(delta)``, applied to the blended pose as an extra root
   (``trajectory[f] @ pose[f]``).

Additive layers (which change the pose, not where the character goes) take no part in the motion
blend, as in ozz.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt

from . import _core
from .bounds import fill_docstrings
from .quat import quat_conjugate, quat_multiply, quat_rotate

__all__ = ["motion_deltas", "blend_motion", "accumulate_motion"]


def _qts(x: npt.ArrayLike, name: str, min_ndim: int = 1) -> npt.NDArray[np.float32]:
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a real numeric array, got dtype {a.dtype}")
    if a.ndim < min_ndim or a.shape[-1] != 8:
        raise ValueError(f"{name}: expected shape {'(..., L, 8)' if min_ndim == 2 else '(..., 8)'}"
                         f" QTS transforms, got {a.shape}")
    return np.ascontiguousarray(a, dtype=np.float32)


def motion_deltas(trajectory: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The frame-to-frame motion of a trajectory, in the moving frame.

    Parameters
    ----------
    trajectory : array_like, (..., F, 8)
        QTS transforms per frame (e.g. the first result of :meth:`skelsimd.Clip.root_motion`).

    Returns
    -------
    ndarray, float32 (..., F - 1, 8)
        ``T[f]^-1 T[f + 1]``: rotation ``q_f^-1 q_f+1``, translation ``q_f^-1 (t_f+1 - t_f)``,
        scale 1 (scales are ignored, as ozz's motion deltas have none).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> tr = np.zeros((3, 8), np.float32); tr[:, 3] = 1; tr[:, 7] = 1
    >>> tr[:, 6] = [0.0, 0.5, 1.5]           # walking along z
    >>> skelsimd.motion_deltas(tr)[:, 4:7].tolist()
    [[0.0, 0.0, 0.5], [0.0, 0.0, 1.0]]
    """
    t = _qts(trajectory, "trajectory", 2)
    if t.shape[-2] < 1:
        raise ValueError(f"trajectory: expected at least one frame, got shape {t.shape}")
    inv = quat_conjugate(t[..., :-1, :4])
    out = np.empty(t.shape[:-2] + (t.shape[-2] - 1, 8), np.float32)
    if out.size:
        out[..., :4] = quat_multiply(inv, t[..., 1:, :4])
        out[..., 4:7] = quat_rotate(inv, t[..., 1:, 4:7] - t[..., :-1, 4:7])
    out[..., 7] = 1.0
    return out


def blend_motion(deltas: npt.ArrayLike, weights: npt.ArrayLike,
                 out: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
    """Blend the root-motion deltas of several clips (ozz's MotionBlendingJob).

    Parameters
    ----------
    deltas : array_like, (..., L, 8)
        One QTS delta per layer (clip), e.g. a frame of :func:`motion_deltas`; leading
        dimensions (frames, characters) are a batch.
    weights : array_like, (..., L)
        Layer weights, broadcast against ``deltas.shape[:-1]``; weights <= 0 (and NaN) are
        ignored and the others normalised, as in ozz.
    out : ndarray, float32 (..., 8), optional
        Must not overlap the inputs.

    Returns
    -------
    ndarray, float32 (..., 8)
        Translation: the weighted mean of the layers' lengths along the normalised weighted sum
        of their directions (ozz's method: blending a forward and a sideways step of the same
        length gives a diagonal step of that length, where a plain weighted average would be
        shorter). Rotation: the normalised weighted sum of the quaternions, each on the running
        sum's hemisphere (taken as the other one when their dot product is < 0: nlerp; the
        identity when every weight is ignored). Scale 1. Within [bound:blend_motion] * L per
        component of the float64 reference for unit quaternions and translations in [-1, 1]
        (a C kernel, SIMD across outputs, bit-identical on every target; the GIL released).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> fwd = [0, 0, 0, 1, 0, 0, 1, 1]; side = [0, 0, 0, 1, 1, 0, 0, 1]
    >>> skelsimd.blend_motion([fwd, side], [0.5, 0.5]).astype(float).round(4).tolist()
    [0.0, 0.0, 0.0, 1.0, 0.7071, 0.0, 0.7071, 1.0]
    """
    x = deltas if isinstance(deltas, np.ndarray) else np.asarray(deltas)
    w = weights if isinstance(weights, np.ndarray) else np.asarray(weights)
    if x.ndim >= 2 and w.shape != x.shape[:-1] and w.shape != x.shape[-2:-1]:
        try:
            w = np.broadcast_to(w, x.shape[:-1])
        except ValueError:
            raise ValueError(f"weights: expected a shape that broadcasts to deltas.shape[:-1] = "
                             f"{x.shape[:-1]}, got {w.shape}") from None
    return _core.motion_blend(x, w, out)


def accumulate_motion(deltas: npt.ArrayLike,
                      start: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.float32]:
    """The trajectory that the frame-to-frame deltas describe (the inverse of
    :func:`motion_deltas`).

    Parameters
    ----------
    deltas : array_like, (F - 1, 8)
        QTS deltas in the moving frame (e.g. :func:`blend_motion` of every frame).
    start : array_like, (8,), optional
        The first frame's transform (default: the identity at the origin).

    Returns
    -------
    ndarray, float32 (F, 8)
        ``T[0] = start``, ``T[f + 1] = T[f] D[f]`` (rotation renormalised every frame; the
        translation summed in float64 so that long clips do not drift by rounding).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> d = np.tile(np.float32([0, 0, 0, 1, 0, 0, 0.5, 1]), (3, 1))
    >>> skelsimd.accumulate_motion(d)[:, 6].tolist()
    [0.0, 0.5, 1.0, 1.5]
    """
    d = _qts(deltas, "deltas", 2)
    if d.ndim != 2:
        raise ValueError(f"deltas: expected shape (F - 1, 8), got {d.shape}")
    s = (np.array([0, 0, 0, 1, 0, 0, 0, 1], np.float32) if start is None
         else _qts(start, "start"))
    if s.shape != (8,):
        raise ValueError(f"start: expected shape (8,), got {s.shape}")
    n = d.shape[0] + 1
    out = np.zeros((n, 8), np.float32)
    q = s[:4].astype(np.float64)
    q = q / np.linalg.norm(q) if np.linalg.norm(q) > 0 else np.array([0, 0, 0, 1.0])
    t = s[4:7].astype(np.float64)
    out[0, :4], out[0, 4:7] = q, t
    dq = d[:, :4].astype(np.float64)
    dt = d[:, 4:7].astype(np.float64)
    for f in range(n - 1):
        t = t + _rotate64(q, dt[f])
        q = _mul64(q, dq[f])
        q = q / np.linalg.norm(q)
        out[f + 1, :4], out[f + 1, 4:7] = q, t
    out[:, 7] = 1.0
    return out


def _mul64(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def _rotate64(q: npt.NDArray[np.float64], v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    u, w = q[:3], q[3]
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


fill_docstrings(globals())
