"""Inertialization: switching from one stream of poses to another without a pop.

At the switch, the offsets between the source's pose and velocity and the target's are kept and
decay towards zero as critically damped springs with a half-life (Bollo, "Inertialization:
High-Performance Animation Transitions in Gears of War", GDC 2018; Holden, "Spring-It-On: The
Game Developer's Spring-Roll-Call", 2021): the motion is continuous in value and velocity and
reaches the target's own poses after a few half-lives. Rotation offsets decay as angle-axis
vectors (continuous in angular velocity to first order in the offset angle), translation
offsets exactly. Poses are QTS ``(..., J, 8)``; velocities ``(..., J, 6)`` (angular, then
linear, per second). :meth:`skelsimd.Clip.transition` switches clips with these functions.

The work is done by the ``inertialize`` kernel family (written once against the vector
vocabulary, bit-identical on every SIMD variant) on float32 buffers: offsets and velocities are
float32 ``(..., J, 6)``; the leading dimensions of the operands broadcast.
"""
from __future__ import annotations

import math
from typing import List, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _core
from ._typing import Float32Array, Float64Array
from .bounds import fill_docstrings
from ._validate import positive_number as _positive
from ._validate import real as _real

__all__ = ["pose_velocity", "inertialize_transition", "inertialize_update", "Inertializer"]

ArrayLike = npt.ArrayLike
_MAX_NDIM = 32      # NumPy's limit of several functions used here (einsum, moveaxis, ...)


def _decay(x: Float64Array, v: Float64Array, halflife: float, dt: Float64Array
           ) -> Tuple[Float64Array, Float64Array]:
    """The spring's closed form after ``dt`` seconds (float64; ``dt`` broadcasts)."""
    y = 2.0 * math.log(2.0) / halflife          # half the damping 4 ln 2 / halflife
    j1 = v + x * y
    e = np.exp(-y * dt)
    return e * (x + j1 * dt), e * (v - j1 * y * dt)


def _operand(x: ArrayLike, name: str, last: int, joints: Optional[int] = None) -> np.ndarray:
    """``x`` as float32 of shape ``(..., J, last)`` (J = ``joints`` when given)."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected numbers, got dtype {a.dtype}")
    what = "QTS poses" if last == 8 else "offsets or velocities"
    if a.ndim < 2 or a.ndim > _MAX_NDIM or a.shape[-1] != last:
        raise ValueError(f"{name}: expected {what} (..., J, {last}) of at most {_MAX_NDIM} "
                         f"dimensions, got shape {a.shape}")
    if joints is not None and a.shape[-2] != joints:
        raise ValueError(f"{name}: expected shape (..., {joints}, {last}), got {a.shape}")
    return a.astype(np.float32, copy=False)


def _broadcast(arrays: List[Optional[np.ndarray]]) -> List[Optional[np.ndarray]]:
    """The operands broadcast to one leading shape (a C-contiguous copy of those that change)."""
    present = [a for a in arrays if a is not None]
    lead = present[0].shape[:-1]
    if [a.shape[:-1] for a in present] == [lead] * len(present):
        return arrays           # the common case: the glue makes them contiguous if need be
    try:
        lead = np.broadcast_shapes(*(a.shape[:-1] for a in present))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in present)
        raise ValueError(f"offset: the leading dimensions of the operands do not broadcast "
                         f"together: {shapes}") from None
    return [None if a is None else
            np.ascontiguousarray(np.broadcast_to(a, lead + a.shape[-1:])) for a in arrays]


def pose_velocity(previous: ArrayLike, current: ArrayLike, dt: float) -> Float32Array:
    """Joint velocities ``(..., J, 6)`` float32 between two local QTS poses ``dt`` seconds apart:
    the angular velocity (rad/s, the scaled angle-axis of ``current * inverse(previous)`` over
    ``dt``, on the short arc, in the parent's frame) and the linear velocity of the translation.
    Computed by the transition kernel of :func:`inertialize_transition` (the offset of
    ``current`` against ``previous``), then divided by ``dt``.

    >>> import numpy as np, skelsimd
    >>> a = np.array([[0, 0, 0, 1, 0, 0, 0, 1]], np.float32)
    >>> b = np.array([[0, np.sin(0.05), 0, np.cos(0.05), 0.2, 0, 0, 1]], np.float32)
    >>> skelsimd.pose_velocity(a, b, 0.1).round(4)
    array([[0., 1., 0., 2., 0., 0.]], dtype=float32)
    """
    a = _operand(previous, "previous", 8)
    b = _operand(current, "current", 8, a.shape[-2])
    step = _positive(dt, "dt")
    pa, pb = _broadcast([a, b])
    assert pa is not None and pb is not None
    zero = np.zeros(pa.shape[:-1] + (6,), np.float32)
    off, _ = _core.inertialize_transition(pb, zero, pa, zero, None, None)
    return np.divide(off, np.float32(step), out=off)


def inertialize_transition(source: ArrayLike, source_velocity: ArrayLike, target: ArrayLike,
                           target_velocity: ArrayLike, offset: Optional[ArrayLike] = None,
                           offset_velocity: Optional[ArrayLike] = None
                           ) -> Tuple[Float32Array, Float32Array]:
    """The offsets that make a switch from ``source`` to ``target`` poses seamless.

    At a switch the character shows ``source`` (QTS ``(..., J, 8)``, the pose it would have
    shown, including any offset still decaying) moving at ``source_velocity`` (``(..., J, 6)``,
    see :func:`pose_velocity`); the new stream starts at ``target`` with ``target_velocity``.
    The offsets are what :func:`inertialize_update` adds to the new stream so that the output
    starts exactly at the source, in value and velocity (Holden's inertialization; offsets
    given are carried over, as when a switch happens during a transition):

    * rotation: ``offset_q = exp(offset) * source_q * inverse(target_q)`` (quaternions
      normalised first) on the short arc, as a scaled angle-axis vector (angle * axis, in the
      parent's frame), in ``offset[..., :3]``;
    * translation: ``offset[..., 3:] = (offset_t + source_t) - target_t``;
    * velocity: ``offset_velocity = (source_velocity - target_velocity) + offset_velocity``.

    Scale (lane 7 of the QTS joints) is not inertialized: the output takes the target's. The
    rotation offset decays as a vector (its scaled angle-axis), as in the reference
    implementation, so the output's angular velocity at the switch equals the source's to
    first order in the offset's angle (exactly for translations).

    The leading dimensions of the operands broadcast. A C kernel (the ``inertialize`` family,
    bit-identical on every SIMD variant) in float32; error against the float64 reference
    :mod:`skelsimd.reference.inertialize`: at most [bound:inertialize.transition] per
    component for unit quaternions and translations and velocities of magnitude up to 1.
    Returns ``(offset, offset_velocity)``, float32 ``(..., J, 6)`` each.

    >>> import numpy as np, skelsimd
    >>> src = np.array([[0, 0, 0, 1, 1, 0, 0, 1]], np.float32)
    >>> dst = np.array([[0, 0, 0, 1, 0, 0, 0, 1]], np.float32)
    >>> off, offv = skelsimd.inertialize_transition(src, np.zeros((1, 6)), dst, np.zeros((1, 6)))
    >>> off
    array([[0., 0., 0., 1., 0., 0.]], dtype=float32)
    """
    src = _operand(source, "source", 8)
    j = src.shape[-2]
    sv = _operand(source_velocity, "source_velocity", 6, j)
    dst = _operand(target, "target", 8, j)
    dv = _operand(target_velocity, "target_velocity", 6, j)
    off = None if offset is None else _operand(offset, "offset", 6, j)
    offv = None if offset_velocity is None else _operand(offset_velocity, "offset_velocity", 6, j)
    b = _broadcast([src, sv, dst, dv, off, offv])
    assert b[0] is not None and b[1] is not None and b[2] is not None and b[3] is not None
    return _core.inertialize_transition(b[0], b[1], b[2], b[3], b[4], b[5])


def inertialize_update(pose: ArrayLike, offset: ArrayLike, offset_velocity: ArrayLike, *,
                       halflife: float, dt: float
                       ) -> Tuple[Float32Array, Float32Array, Float32Array]:
    """Advance the offsets by ``dt`` seconds and apply them to a pose of the new stream.

    The offsets (rotation as scaled angle-axis, translation, and their velocities) decay as a
    critically damped spring towards 0 with the given half-life (seconds: the time to halve an
    offset at rest): ``x(t) = e^(-y t) (x0 + (v0 + x0 y) t)`` with ``y = 2 ln 2 / halflife``.
    Then ``out_q = exp(offset_q) * pose_q / |pose_q|``, ``out_t = pose_t + offset_t``, scale
    unchanged.

    The leading dimensions of the operands broadcast. A C kernel (the ``inertialize`` family,
    bit-identical on every SIMD variant) in float32; error against the float64 reference
    :mod:`skelsimd.reference.inertialize`: at most [bound:inertialize.update] per component
    for unit quaternions and offsets, velocities and translations of magnitude up to 1.

    Returns ``(out, offset, offset_velocity)``: the pose ``(..., J, 8)`` and the decayed
    offsets ``(..., J, 6)``, float32, to pass to the next call.

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
    p = _operand(pose, "pose", 8)
    off = _operand(offset, "offset", 6, p.shape[-2])
    offv = _operand(offset_velocity, "offset_velocity", 6, p.shape[-2])
    h = _positive(halflife, "halflife")
    step = _real(dt, "dt", lambda v: v >= 0, "a finite number >= 0")
    b = _broadcast([p, off, offv])
    assert b[0] is not None and b[1] is not None and b[2] is not None
    return _core.inertialize_update(b[0], b[1], b[2], h, step)


def _inertialize_stream(previous: np.ndarray, last: np.ndarray, stream: np.ndarray, dt: float,
                        stream_dt: float, halflife: float) -> Float32Array:
    """The frames of ``stream`` (F >= 2, J, 8) switched to from a stream whose last two poses
    are ``previous`` and ``last`` (``dt`` apart): the source at the switch is ``last`` moved on
    by one frame at its velocity, and the offsets at frame f are the spring's closed form at
    ``f * stream_dt`` (float64), applied by the kernel in one batched call."""
    va = pose_velocity(previous, last, dt)
    vb = pose_velocity(stream[0], stream[1], stream_dt)
    zero = np.zeros_like(va)
    src, _, _ = inertialize_update(last, va * np.float32(dt), zero, halflife=1.0, dt=0.0)
    off, offv = inertialize_transition(src, va, stream[0], vb)
    times = (np.arange(stream.shape[0], dtype=np.float64) * np.float64(stream_dt))[:, None, None]
    x, _ = _decay(off.astype(np.float64), offv.astype(np.float64), halflife, times)
    out, _, _ = inertialize_update(stream, x.astype(np.float32), np.zeros_like(x, np.float32),
                                   halflife=1.0, dt=0.0)
    return out


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
        self.offset: Optional[Float32Array] = None
        self.offset_velocity: Optional[Float32Array] = None

    def transition(self, source: ArrayLike, source_velocity: ArrayLike, target: ArrayLike,
                   target_velocity: ArrayLike) -> None:
        """Switch from ``source`` (the pose shown now) to a stream starting at ``target``;
        offsets still decaying are carried over (see :func:`inertialize_transition`)."""
        self.offset, self.offset_velocity = inertialize_transition(
            source, source_velocity, target, target_velocity, None, None)

    def update(self, pose: ArrayLike, dt: float) -> Float32Array:
        """The pose of the new stream with the offsets decayed by ``dt`` seconds applied."""
        p = _operand(pose, "pose", 8)
        if self.offset is None or self.offset_velocity is None:
            self.offset = np.zeros(p.shape[:-1] + (6,), np.float32)
            self.offset_velocity = np.zeros(p.shape[:-1] + (6,), np.float32)
        out, self.offset, self.offset_velocity = inertialize_update(
            p, self.offset, self.offset_velocity, halflife=self.halflife, dt=dt)
        return out


fill_docstrings(globals())
