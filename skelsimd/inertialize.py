"""Inertialization: switching from one stream of poses to another without a pop.

At the switch, the offsets between the source's pose and velocity and the target's are kept and
decay towards zero as critically damped springs with a half-life (Bollo, "Inertialization:
High-Performance Animation Transitions in Gears of War", GDC 2018; Holden, "Spring-It-On: The
Game Developer's Spring-Roll-Call", 2021): the motion is continuous in value and velocity and
reaches the target's own poses after a few half-lives. Rotation offsets decay as angle-axis
vectors (continuous in angular velocity to first order in the offset angle), translation
offsets exactly. Poses are QTS ``(..., J, 8)``; velocities ``(..., J, 6)`` (angular, then
linear, per second). :meth:`skelsimd.Clip.transition` switches clips with these functions.
"""
from __future__ import annotations

import math
from typing import Optional, Tuple

import numpy as np
import numpy.typing as npt

from ._rotation64 import quat_conj, quat_mul
from ._validate import positive_number as _positive
from ._validate import real as _real

__all__ = ["pose_velocity", "inertialize_transition", "inertialize_update", "Inertializer"]

ArrayLike = npt.ArrayLike
_MAX_NDIM = 32      # NumPy's limit of several functions used here (einsum, moveaxis, ...)


def _qlog2(q: np.ndarray) -> np.ndarray:
    """The scaled angle-axis (angle * axis) of unit quaternions, on the short arc."""
    q = np.where(q[..., 3:4] < 0, -q, q)
    v = q[..., :3]
    s = np.linalg.norm(v, axis=-1)
    angle = 2.0 * np.arctan2(s, q[..., 3])
    factor = np.where(s > 1e-12, angle / np.where(s > 1e-12, s, 1.0), 2.0)
    return v * factor[..., None]


def _qexp2(w: np.ndarray) -> np.ndarray:
    """The unit quaternion of a scaled angle-axis vector."""
    angle = np.linalg.norm(w, axis=-1)
    half = 0.5 * angle
    factor = np.where(angle > 1e-12, np.sin(half) / np.where(angle > 1e-12, angle, 1.0), 0.5)
    return np.concatenate([w * factor[..., None], np.cos(half)[..., None]], axis=-1)


def _normalized(q: np.ndarray) -> np.ndarray:
    return q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-300)


def _poses(x: ArrayLike, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected numbers, got dtype {a.dtype}")
    if a.ndim < 2 or a.ndim > _MAX_NDIM or a.shape[-1] != 8:
        raise ValueError(f"{name}: expected QTS poses (..., J, 8) of at most {_MAX_NDIM} "
                         f"dimensions, got shape {a.shape}")
    return a.astype(np.float64)


def _vels(x: ArrayLike, name: str, shape: Tuple[int, ...]) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected numbers, got dtype {a.dtype}")
    if a.ndim < 2 or a.ndim > _MAX_NDIM or a.shape[-2] != shape[-2] or a.shape[-1] != 6:
        raise ValueError(f"{name}: expected shape (..., {shape[-2]}, 6), got {a.shape}")
    return a.astype(np.float64)


def pose_velocity(previous: ArrayLike, current: ArrayLike, dt: float) -> np.ndarray:
    """Joint velocities ``(..., J, 6)`` float32 between two local QTS poses ``dt`` seconds apart:
    the angular velocity (rad/s, the scaled angle-axis of ``current * inverse(previous)`` over
    ``dt``, on the short arc, in the parent's frame) and the linear velocity of the translation.

    >>> import numpy as np, skelsimd
    >>> a = np.array([[0, 0, 0, 1, 0, 0, 0, 1]], np.float32)
    >>> b = np.array([[0, np.sin(0.05), 0, np.cos(0.05), 0.2, 0, 0, 1]], np.float32)
    >>> skelsimd.pose_velocity(a, b, 0.1).round(4)
    array([[0., 1., 0., 2., 0., 0.]], dtype=float32)
    """
    a = _poses(previous, "previous")
    b = _poses(current, "current")
    dt = _positive(dt, "dt")
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape[:-1] + (6,))
    out[..., :3] = _qlog2(quat_mul(_normalized(b[..., :4]), quat_conj(_normalized(a[..., :4])))) / dt
    out[..., 3:] = (b[..., 4:7] - a[..., 4:7]) / dt
    return out.astype(np.float32)


def inertialize_transition(source: ArrayLike, source_velocity: ArrayLike, target: ArrayLike,
                           target_velocity: ArrayLike, offset: Optional[ArrayLike] = None,
                           offset_velocity: Optional[ArrayLike] = None
                           ) -> Tuple[np.ndarray, np.ndarray]:
    """The offsets that make a switch from ``source`` to ``target`` poses seamless.

    At a switch the character shows ``source`` (QTS ``(..., J, 8)``, the pose it would have
    shown, including any offset still decaying) moving at ``source_velocity`` (``(..., J, 6)``,
    see :func:`pose_velocity`); the new stream starts at ``target`` with ``target_velocity``.
    The offsets are what :func:`inertialize_update` adds to the new stream so that the output
    starts exactly at the source, in value and velocity (Holden's inertialization; offsets
    given are carried over, as when a switch happens during a transition):

    * rotation: ``offset_q = source_q * inverse(target_q)`` on the short arc, as a scaled
      angle-axis vector (angle * axis, in the parent's frame), in ``offset[..., :3]``;
    * translation: ``offset[..., 3:] = source_t - target_t``;
    * velocity: ``offset_velocity = source_velocity - target_velocity``.

    Scale (lane 7 of the QTS joints) is not inertialized: the output takes the target's. The
    rotation offset decays as a vector (its scaled angle-axis), as in the reference
    implementation, so the output's angular velocity at the switch equals the source's to
    first order in the offset's angle (exactly for translations).
    Returns ``(offset, offset_velocity)``, float64 ``(..., J, 6)`` each.
    """
    src = _poses(source, "source")
    dst = _poses(target, "target")
    sv = _vels(source_velocity, "source_velocity", src.shape)
    dv = _vels(target_velocity, "target_velocity", dst.shape)
    q_off = quat_mul(_normalized(src[..., :4]), quat_conj(_normalized(dst[..., :4])))
    if offset is not None:
        off = _vels(offset, "offset", src.shape)
        q_off = quat_mul(_qexp2(off[..., :3]), q_off)
        t_off = off[..., 3:] + src[..., 4:7] - dst[..., 4:7]
    else:
        t_off = src[..., 4:7] - dst[..., 4:7]
    v_off = sv - dv
    if offset_velocity is not None:
        v_off = v_off + _vels(offset_velocity, "offset_velocity", src.shape)
    out = np.concatenate(np.broadcast_arrays(_qlog2(q_off), t_off), axis=-1)
    return out, np.broadcast_to(v_off, out.shape).copy()


def _decay(x: np.ndarray, v: np.ndarray, halflife: float, dt):
    y = 2.0 * math.log(2.0) / halflife          # half the damping 4 ln 2 / halflife
    j1 = v + x * y
    e = np.exp(-y * dt)
    return e * (x + j1 * dt), e * (v - j1 * y * dt)


def inertialize_update(pose: ArrayLike, offset: ArrayLike, offset_velocity: ArrayLike, *,
                       halflife: float, dt: float) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advance the offsets by ``dt`` seconds and apply them to a pose of the new stream.

    The offsets (rotation as scaled angle-axis, translation, and their velocities) decay as a
    critically damped spring towards 0 with the given half-life (seconds: the time to halve an
    offset at rest): ``x(t) = e^(-y t) (x0 + (v0 + x0 y) t)`` with ``y = 2 ln 2 / halflife``.
    Then ``out_q = exp(offset_q) * pose_q``, ``out_t = pose_t + offset_t``, scale unchanged.

    Returns ``(out, offset, offset_velocity)``: the pose ``(..., J, 8)`` float32 and the decayed
    offsets (float64), to pass to the next call.

    >>> import numpy as np, skelsimd
    >>> src = np.array([[0, 0, 0, 1, 1, 0, 0, 1]], np.float32)
    >>> dst = np.array([[0, 0, 0, 1, 0, 0, 0, 1]], np.float32)
    >>> off, offv = skelsimd.inertialize_transition(src, np.zeros((1, 6)), dst, np.zeros((1, 6)))
    >>> out, off, offv = skelsimd.inertialize_update(dst, off, offv, halflife=0.1, dt=0.0)
    >>> float(out[0, 4])      # starts at the source
    1.0
    >>> out, off, offv = skelsimd.inertialize_update(dst, off, offv, halflife=0.1, dt=2.0)
    >>> bool(abs(out[0, 4]) < 1e-3)     # and decays to the target
    True
    """
    p = _poses(pose, "pose")
    off = _vels(offset, "offset", p.shape)
    offv = _vels(offset_velocity, "offset_velocity", p.shape)
    halflife = _positive(halflife, "halflife")
    dt = _real(dt, "dt", lambda v: v >= 0, "a finite number >= 0")
    off, offv = _decay(off, offv, halflife, dt)
    lead = np.broadcast_shapes(p.shape[:-1], off.shape[:-1], offv.shape[:-1])
    p = np.broadcast_to(p, lead + (8,))
    off = np.broadcast_to(off, lead + (6,))
    offv = np.broadcast_to(offv, lead + (6,))
    out = p.copy()
    out[..., :4] = quat_mul(_qexp2(off[..., :3]), _normalized(p[..., :4]))
    out[..., 4:7] = p[..., 4:7] + off[..., 3:]
    return out.astype(np.float32), off.copy(), offv.copy()


class Inertializer:
    """Inertialized switches between streams of poses: the offsets of
    :func:`inertialize_transition` kept across calls.

    >>> import numpy as np, skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> a, b = clip.local[:50], clip.local[100:]
    >>> inert = skelsimd.Inertializer(halflife=0.1)
    >>> dt = clip.frame_time
    >>> va = skelsimd.pose_velocity(a[-2], a[-1], dt)
    >>> vb = skelsimd.pose_velocity(b[0], b[1], dt)
    >>> inert.transition(a[-1], va, b[0], vb)
    >>> first = inert.update(b[0], 0.0)         # exactly the source pose (translations)
    >>> bool(np.allclose(first[:, 4:7], a[-1][:, 4:7], atol=1e-4))
    True
    """

    def __init__(self, halflife: float = 0.1) -> None:
        self.halflife = _positive(halflife, "halflife")
        self.offset: Optional[np.ndarray] = None
        self.offset_velocity: Optional[np.ndarray] = None

    def transition(self, source: ArrayLike, source_velocity: ArrayLike, target: ArrayLike,
                   target_velocity: ArrayLike) -> None:
        """Switch from ``source`` (the pose shown now) to a stream starting at ``target``;
        offsets still decaying are carried over (see :func:`inertialize_transition`)."""
        self.offset, self.offset_velocity = inertialize_transition(
            source, source_velocity, target, target_velocity, None, None)

    def update(self, pose: ArrayLike, dt: float) -> np.ndarray:
        """The pose of the new stream with the offsets decayed by ``dt`` seconds applied."""
        p = _poses(pose, "pose")
        if self.offset is None:
            self.offset = np.zeros(p.shape[:-1] + (6,))
            self.offset_velocity = np.zeros(p.shape[:-1] + (6,))
        out, self.offset, self.offset_velocity = inertialize_update(
            p, self.offset, self.offset_velocity, halflife=self.halflife, dt=dt)
        return out
