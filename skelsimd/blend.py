"""Quaternion interpolation and joint blending ("Slerping Clock Cycles").

Quaternions are float32 ``(..., 4)`` as ``(x, y, z, w)``; QTS joints ``(..., 8)`` as
``(qx, qy, qz, qw, tx, ty, tz, s)``. Every interpolation takes the shortest arc (``q1`` is negated
when ``dot(q0, q1) < 0``: ``q`` and ``-q`` are the same rotation). Inputs are array_like, converted
once to C-contiguous float32; leading dimensions broadcast; ``out`` rules as everywhere in
skelsimd; everything is validated before anything is written; the GIL is released.

Accuracy (max abs component error against float64, unit quaternions, every SIMD variant; tested)
-----------------------------------------------------------------------------------------------
* ``slerp(method="fast")`` (van Waveren's optimised slerp: sqrt/atan2 identities and polynomial
  sine/arctangent, SIMD across lanes): <= [bound:slerp.fast] for every pair, including identical,
  near-parallel (|dot| > 0.9999) and antipodal ones, t in [0, 1] (2.74e-7 measured over 8M
  pairs). Outside [0, 1] the sine arguments are range-reduced (extrapolation along the great
  circle): <= [bound:slerp.fast] * max(1, |t|, |1 - t|).
* ``slerp(method="exact")`` (careful trigonometric slerp, omega = 2 atan2(|q0 - q1|, |q0 + q1|),
  evaluated in double with libm from the float32 inputs and rounded once): <= [bound:slerp.exact].
* ``nlerp``: <= [bound:nlerp].
* ``blend_joints``: the rotation bound of its method; translation and scale
  ``a + t (b - a)``, <= [bound:blend.linear] * max(|a|, |b|) per component.
* ``blend_layers``: <= [bound:blend_layers.quat] * (L + 1) per quaternion component for unit inputs; translation and
  scale <= [bound:blend_layers.linear] * (L + 1) * max|t| (weighted sums in layer order).

Every SIMD variant evaluates the same operations in the same order: results are bit-identical
across variants (slerp "exact" runs the same scalar code everywhere).
"""
from __future__ import annotations
import numpy as np

from . import _core
from ._validate import number as _number
from .additive import _check_layer, _unit_range
from .bounds import fill_docstrings
from typing import TYPE_CHECKING

_F32 = np.dtype(np.float32)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from numpy.typing import ArrayLike
    from ._typing import BlendMethod, Float32Array, SlerpMethod

if TYPE_CHECKING:
    from collections.abc import Sequence
    from numpy.typing import ArrayLike
    from ._typing import BlendMethod, Float32Array, SlerpMethod

__all__ = ["slerp", "nlerp", "blend_joints", "blend_layers"]


def slerp(
    q0: ArrayLike,
    q1: ArrayLike,
    t: ArrayLike,
    out: Float32Array | None = None,
    *,
    method: SlerpMethod = "fast",
) -> Float32Array:
    """Spherical linear interpolation along the shortest arc.

    Parameters
    ----------
    q0, q1 : array_like, (..., 4)
        Unit quaternions (x, y, z, w); leading dimensions broadcast (one key against many).
    t : array_like, scalar or (...)
        Interpolation parameter, broadcast with the batch: 0 gives q0, 1 gives q1 (or -q1 when
        the shortest arc needs it). Values outside [0, 1] extrapolate along the great circle.
    out : ndarray, float32 (broadcast(...), 4), optional
        May be exactly ``q0`` or ``q1``.
    method : {"fast", "exact"}
        "fast": van Waveren's optimised slerp, SIMD across 4 (SSE4.1) or 8 (AVX2) pairs;
        <= [bound:slerp.fast]. "exact": a scalar float32 trigonometric slerp; <= [bound:slerp.exact].

    Returns
    -------
    ndarray, float32 (..., 4)

    Identical, near-parallel and antipodal pairs give finite results (``slerp(q, q, t) == q``
    and ``slerp(q, -q, t) == q`` within the bound; never NaN). The inputs are assumed unit: the
    dot product is used as the cosine (clamped to [-1, 1]), so a non-unit input gives a finite
    but not a meaningful result. NaN inputs give NaN in that output.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> s = np.sqrt(0.5)
    >>> q = skelsimd.slerp([0, 0, 0, 1], [0, 0, s, s], 0.5)       # halfway to 90 degrees about z
    >>> np.round(q, 4)
    array([0.    , 0.    , 0.3827, 0.9239], dtype=float32)
    """
    return _core.slerp(q0, q1, t, out, method)


def nlerp(
    q0: ArrayLike, q1: ArrayLike, t: ArrayLike, out: Float32Array | None = None
) -> Float32Array:
    """Normalised linear interpolation (van Waveren's Lerp with renormalisation), shortest arc:
    ``normalize((1 - t) q0 + t q1')``.

    Same shapes and broadcasting as :func:`slerp`. The result is always normalised (non-unit
    inputs are fine; a zero sum gives ``(0, 0, 0, 1)``). Traces the same great arc as slerp but
    not at constant speed. Error <= [bound:nlerp].

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> q = skelsimd.nlerp([0, 0, 0, 1], [0, 0, 1, 0], 0.5)
    >>> np.round(q, 4)
    array([0.    , 0.    , 0.7071, 0.7071], dtype=float32)
    """
    return _core.nlerp(q0, q1, t, out)


def blend_joints(
    joints: ArrayLike,
    blend: ArrayLike,
    t: ArrayLike,
    *,
    index: ArrayLike | None = None,
    method: BlendMethod = "fast",
    out: Float32Array | None = None,
) -> Float32Array:
    """Blend two QTS poses: van Waveren's SlerpJoints / LerpJoints.

    Parameters
    ----------
    joints, blend : array_like, (..., J, 8)
        QTS poses (qx, qy, qz, qw, tx, ty, tz, s); leading dimensions broadcast.
    t : array_like, scalar or (...)
        Blend factor per pose, broadcast with the leading dimensions. Van Waveren's shortcuts:
        ``t <= 0`` gives ``joints``, ``t >= 1`` copies ``blend`` into the selected joints (so t
        is effectively clamped to [0, 1]); otherwise rotations are interpolated by ``method``
        and translation and scale by ``a + t (b - a)`` (equal inputs, e.g. unit scales, stay
        exact).
    index : array_like of int, (K,), optional
        The joints to blend (distinct, 0 <= index < J, any order; empty is allowed); the others
        are copies of ``joints``. Default: all joints. Repeated or out-of-range indices are a
        ValueError.
    method : {"fast", "exact", "nlerp"}
        Rotation interpolation: slerp "fast" (SIMD) or "exact" (scalar), or "nlerp" (SIMD).
    out : ndarray, float32 (..., J, 8), optional
        ``out=joints`` blends in place (van Waveren's usage); it must not be ``blend``.

    Returns
    -------
    ndarray, float32 (..., J, 8)

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> a = np.array([[0, 0, 0, 1, 0, 0, 0, 1]], np.float32)     # one joint: identity, at the origin
    >>> b = np.array([[0, 0, 0, 1, 2, 0, 0, 1]], np.float32)     # identity, at x = 2
    >>> skelsimd.blend_joints(a, b, 0.25)
    array([[0. , 0. , 0. , 1. , 0.5, 0. , 0. , 1. ]], dtype=float32)
    """
    return _core.blend_joints(joints, blend, t, index, method, out)


def blend_layers(
    layers: ArrayLike,
    weights: ArrayLike,
    out: Float32Array | None = None,
    *,
    additive: (
        Sequence[tuple[ArrayLike, float] | tuple[ArrayLike, float, ArrayLike | None]] | None
    ) = None,
) -> Float32Array:
    """N-way weighted blend of QTS poses, as game runtimes blend more than two animations.

    Parameters
    ----------
    layers : array_like, (..., L, J, 8)
        L poses of J QTS joints (the leading dimensions are a batch).
    weights : array_like, (L,) or (L, J)
        One weight per layer, or per layer and joint (blend masks). Weights must be finite and
        >= 0, and every joint needs at least one positive weight (a joint whose weights are all
        0 is a ValueError naming it; no silent fallback). They are normalised per joint.
    out : ndarray, float32 (..., J, 8), optional
    additive : sequence of (delta, weight) or (delta, weight, mask), optional
        Additive layers applied after the blend, in order, as ozz-animation's BlendingJob
        applies its ``additive_layers`` after its normal layers: the result is bit for bit
        that of ``apply_additive(result, delta, weight, mask, out=result)`` for each (see
        :func:`skelsimd.apply_additive`: weight in [-1, 1], a negative weight subtracts the
        delta, mask (J,) per-joint weights in [0, 1]). ``delta`` must broadcast to the blended
        pose's shape (one delta pose, or one per pose). The blend and the additive layers run
        in one pass over the joints (one C kernel), not one pass per layer.

    Returns
    -------
    ndarray, float32 (..., J, 8)

    Rotation: the weighted sum of the layers' quaternions, each flipped to the hemisphere of the
    running sum (ozz-animation's rule; a zero-weight layer does not count), then normalised.
    Translation and scale: weighted means.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> layers = np.zeros((2, 1, 8), np.float32); layers[..., 3] = layers[..., 7] = 1
    >>> layers[1, 0, 4] = 4.0                                    # layer 1 moves the joint to x = 4
    >>> skelsimd.blend_layers(layers, [1.0, 3.0])[0, 4]          # weights 1 : 3
    np.float32(3.0)
    """
    if additive is None:
        return _core.blend_layers(layers, weights, out)
    if type(additive) in (list, tuple):   # layers already in the checked form: one C call
        result = _core.blend_layers(layers, weights, out, additive, True)
        if result is not None:
            return result
    if isinstance(additive, (str, bytes)) or not hasattr(additive, "__iter__"):
        raise TypeError(f"additive: expected a sequence of (delta, weight[, mask]) tuples, got "
                        f"{type(additive).__name__}")
    additive = list(additive)
    for i, layer in enumerate(additive):
        if not isinstance(layer, (tuple, list)) or len(layer) not in (2, 3):
            raise TypeError(f"additive[{i}]: expected a (delta, weight) or (delta, weight, mask) "
                            f"tuple, got {layer!r:.60}")
    lay = layers if isinstance(layers, np.ndarray) else np.asarray(layers)
    pose_shape = lay.shape[:-3] + lay.shape[-2:] if lay.ndim >= 3 else None
    checked = []
    for i, layer in enumerate(additive):
        delta, weight = layer[0], layer[1]
        mask = layer[2] if len(layer) == 3 else None
        if type(weight) is not float:   # floats: range checked by the glue
            weight = _number(weight, f"additive[{i}]: weight", _unit_range, "a number in [-1, 1]")
        if not (type(delta) is np.ndarray and delta.dtype == _F32 and delta.flags.c_contiguous
                and pose_shape is not None and delta.shape in (pose_shape, pose_shape[-2:])):
            # anything else converted and broadcast here (the glue checks shapes, masks, ranges)
            delta, weight, mask = _check_layer(f"additive[{i}]", pose_shape, delta, weight, mask)
        checked.append((delta, weight, mask))
    # one fused pass: each block of joints is blended and gets its additive layers in registers
    # (the same bits as blend_layers followed by apply_additive per layer)
    return _core.blend_layers(layers, weights, out, checked)


fill_docstrings(globals())
