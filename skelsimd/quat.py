"""Quaternion algebra and conversions.

Conventions
-----------
* A quaternion is float32 ``(..., 4)`` as ``(x, y, z, w)`` (SciPy's default order; the conversion
  functions take ``scalar_first=True`` for ``(w, x, y, z)``).
* A QTS joint is float32 ``(..., 8)`` as ``(qx, qy, qz, qw, tx, ty, tz, s)``: the JointQuat of "Slerping Clock Cycles"
  (quaternion + vec4) with the 8th lane a uniform scale (1 = unscaled). ``qts_pack`` /
  ``qts_unpack`` build and split them.
* A joint matrix is float32 ``(..., 3, 4)`` row-major ``[R | t]`` (see ``skelsimd.joints``).
* Inputs are array_like, converted once to C-contiguous float32; leading dimensions broadcast by
  NumPy rules where a function takes two operands; ``out`` must be a float32, C-contiguous,
  writeable array of the result's shape (in place where a function says so); everything is
  validated before anything is written; the GIL is released while the kernel runs.

Non-unit quaternions
--------------------
``quat_multiply`` and ``quat_conjugate`` are exact algebra on any quaternion. ``quat_to_matrix``,
``quat_rotate``, ``qts_to_matrix`` and the QTS walks use the rotation of ``q / |q|`` (a zero
quaternion is the identity rotation), so their results are rotations whatever the input's norm.
``quat_normalize`` of a zero quaternion is ``(0, 0, 0, 1)``; inf/NaN components give NaN.

Determinism and accuracy
------------------------
Every SIMD variant evaluates the same float32 operations in the same order, so results are
bit-identical whichever variant runs. Max abs error against float64 for unit inputs (tested on
every variant): quat_multiply <= [bound:quat_multiply], quat_normalize <= [bound:quat_normalize],
quat_rotate <= [bound:quat_rotate] * |v|, quat_to_matrix <= [bound:quat_to_matrix], matrix_to_quat
<= [bound:matrix_to_quat.round_trip] (up to sign), qts_to_matrix <= [bound:qts_to_matrix] * max(1, |s|)
plus t exact, matrix_to_qts <= [bound:matrix_to_qts.round_trip] relative.
"""
from __future__ import annotations
import numpy as np

from . import _core
from .bounds import fill_docstrings
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from typing import Literal
    from numpy.typing import ArrayLike
    from ._typing import Float32Array

__all__ = ["quat_multiply", "quat_conjugate", "quat_normalize", "quat_rotate", "quat_to_matrix",
           "matrix_to_quat", "qts_to_matrix", "matrix_to_qts", "qts_pack", "qts_unpack"]


def quat_multiply(a: ArrayLike, b: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """Hamilton product ``a * b`` (apply ``b`` first, then ``a``), with broadcasting.

    Parameters
    ----------
    a, b : array_like, (..., 4)
        Quaternions (x, y, z, w); leading dimensions broadcast.
    out : ndarray, float32 (broadcast(...), 4), optional
        May be exactly ``a`` or ``b`` (in place).

    Returns
    -------
    ndarray, float32 (..., 4)

    Exact algebra on any quaternions; error <= [bound:quat_multiply] per component for unit inputs.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> s = np.sqrt(0.5)
    >>> np.round(skelsimd.quat_multiply([0, 0, s, s], [0, 0, s, s]), 4)   # 90 + 90 degrees about z
    array([0., 0., 1., 0.], dtype=float32)
    """
    return _core.quat_multiply(a, b, out)


def quat_conjugate(q: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """``(-x, -y, -z, w)``: the inverse rotation of a unit quaternion. Exact; ``out=q`` works in
    place.

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.quat_conjugate([1, 2, 3, 4])
    array([-1., -2., -3.,  4.], dtype=float32)
    """
    return _core.quat_conjugate(q, out)


def quat_normalize(q: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """``q / |q|`` per quaternion.

    A zero quaternion gives the identity ``(0, 0, 0, 1)`` (a defined result, not NaN); tiny and
    huge quaternions are rescaled first, so they normalise without underflow or overflow; a
    quaternion with an inf or NaN component gives all-NaN. ``out=q`` works in place.
    Error <= [bound:quat_normalize] per component.

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.quat_normalize([0, 0, 0, 2])
    array([0., 0., 0., 1.], dtype=float32)
    """
    return _core.quat_normalize(q, out)


def quat_rotate(q: ArrayLike, v: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """Rotate 3-vectors: ``R(q / |q|) @ v``, with broadcasting.

    Parameters
    ----------
    q : array_like, (..., 4)
    v : array_like, (..., 3)
        Leading dimensions broadcast with those of ``q`` (one rotation for many vectors, or the
        reverse).
    out : ndarray, float32 (broadcast(...), 3), optional
        May be exactly ``v``.

    Returns
    -------
    ndarray, float32 (..., 3)

    Equals ``quat_to_matrix(q) @ v`` evaluated as ``((r0 v0 + r1 v1) + r2 v2)``; a zero q leaves v
    unchanged. Error <= [bound:quat_rotate] * |v|.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> s = np.sqrt(0.5)
    >>> np.round(skelsimd.quat_rotate([0, 0, s, s], [1, 0, 0]), 4) + 0   # x axis turned 90 degrees about z
    array([0., 1., 0.], dtype=float32)
    """
    return _core.quat_rotate(q, v, out)


def quat_to_matrix(
    q: ArrayLike, out: Float32Array | None = None, *, scalar_first: bool = False
) -> Float32Array:
    """Rotation matrices ``(..., 3, 3)`` of quaternions ``(..., 4)``.

    The matrix of ``q / |q|`` (computed with ``2 / |q|^2``, no square root), so it is a rotation
    for any non-zero q; a zero quaternion gives the identity. ``scalar_first=True`` reads
    ``(w, x, y, z)``. Error <= [bound:quat_to_matrix] per entry.

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.quat_to_matrix([0, 0, 1, 0])         # 180 degrees about z
    array([[-1.,  0.,  0.],
           [ 0., -1.,  0.],
           [ 0.,  0.,  1.]], dtype=float32)
    """
    return _core.quat_to_matrix(q, out, scalar_first)


def matrix_to_quat(
    m: ArrayLike, out: Float32Array | None = None, *, scalar_first: bool = False
) -> Float32Array:
    """Unit quaternions ``(..., 4)`` of rotation matrices ``(..., 3, 3)``, with ``w >= 0``.

    Robust for every rotation, including 180-degree ones: Shepperd's method picks the largest of
    4w^2, 4x^2, 4y^2, 4z^2 (at least 1 for a rotation, so nothing small is ever divided by) and
    normalises the resulting row, so a slightly non-orthogonal matrix still gives a unit
    quaternion. ``scalar_first=True`` writes ``(w, x, y, z)``. The round trip
    ``matrix_to_quat(quat_to_matrix(q))`` gives ``q`` or ``-q`` (the same rotation) within 4e-7.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> skelsimd.matrix_to_quat(np.diag([-1.0, -1.0, 1.0]))
    array([0., 0., 1., 0.], dtype=float32)
    """
    return _core.matrix_to_quat(m, out, scalar_first)


def qts_to_matrix(x: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """Joint matrices ``[s R(q / |q|) | t]`` ``(..., 3, 4)`` of QTS joints ``(..., 8)``.

    With ``s = 1`` the rotation part is exactly ``quat_to_matrix(q)``. Error <= [bound:qts_to_matrix] * ``max(1, |s|)``
    on the rotation part; t is copied.

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.qts_to_matrix([0, 0, 0, 1, 1, 2, 3, 2])     # identity rotation, scale 2, at (1, 2, 3)
    array([[2., 0., 0., 1.],
           [0., 2., 0., 2.],
           [0., 0., 2., 3.]], dtype=float32)
    """
    return _core.qts_to_matrix(x, out)


def matrix_to_qts(m: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """QTS joints ``(..., 8)`` of joint matrices ``(..., 3, 4)`` (similarity transforms).

    ``s = sign(det A) * sqrt(|A|_F^2 / 3)`` for the 3x3 part A (a negative determinant becomes a
    negative uniform scale, so ``A / s`` is a proper rotation), ``q = matrix_to_quat(A / s)``
    (``w >= 0``), ``t`` = the translation column. A zero A gives ``s = 0``, ``q = (0, 0, 0, 1)``.
    For ``A = s R`` the round trip ``matrix_to_qts(qts_to_matrix(x))`` returns x (q up to sign)
    within 5e-7 relative; for other matrices s is the RMS column scale and q the normalised
    Shepperd quaternion of ``A / s`` (not the polar decomposition).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> m = np.hstack([2 * np.eye(3), [[1], [2], [3]]])
    >>> skelsimd.matrix_to_qts(m)
    array([0., 0., 0., 1., 1., 2., 3., 2.], dtype=float32)
    """
    return _core.matrix_to_qts(m, out)


def qts_pack(
    q: ArrayLike,
    t: ArrayLike | None = None,
    s: ArrayLike | None = None,
    *,
    scalar_first: bool = False,
    out: Float32Array | None = None,
) -> Float32Array:
    """Build QTS joints ``(..., 8)`` from rotations, translations and uniform scales.

    Parameters
    ----------
    q : array_like, (..., 4)
        Quaternions, (x, y, z, w) or with ``scalar_first=True`` (w, x, y, z).
    t : array_like, (..., 3), optional
        Translations (default 0).
    s : array_like, (...), optional
        Uniform scales (default 1).
    out : ndarray, float32 (..., 8), optional

    Leading dimensions broadcast. Returns a float32 array (``out`` when given).

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.qts_pack([0, 0, 0, 1], [1, 2, 3])
    array([0., 0., 0., 1., 1., 2., 3., 1.], dtype=float32)
    """
    qa = _real_float32(q, "q", 1, (4,), "(..., 4)")
    parts = [("q", qa.shape[:-1])]
    ta = sa = None
    if t is not None:
        ta = _real_float32(t, "t", 1, (3,), "(..., 3)")
        parts.append(("t", ta.shape[:-1]))
    if s is not None:
        sa = _real_float32(s, "s", 0, (), "(...)")
        parts.append(("s", sa.shape))
    shape = _broadcast_shapes(parts)
    if len(shape) + 1 > 64:
        raise ValueError(f"{', '.join(n for n, _ in parts)}: the result would have "
                         f"{len(shape) + 1} dimensions, more than NumPy's limit of 64")
    if out is None:
        out = np.empty(shape + (8,), np.float32)
    elif not isinstance(out, np.ndarray) or out.dtype != np.float32:
        raise TypeError(f"out: expected a float32 ndarray, got {getattr(out, 'dtype', type(out).__name__)}")
    elif out.shape != shape + (8,):
        raise ValueError(f"out: expected shape {shape + (8,)}, got {out.shape}")
    elif not out.flags.writeable:
        raise ValueError("out: expected a writeable array, got a read-only one")
    else:
        for name, x in (("q", qa), ("t", ta), ("s", sa)):
            if x is not None and _overlaps(out, x):
                raise ValueError(f"out: overlaps {name}; pass a separate array")
    if scalar_first:
        qa = qa[..., [1, 2, 3, 0]]
    out[..., :4] = qa
    out[..., 4:7] = 0.0 if ta is None else ta
    out[..., 7] = 1.0 if sa is None else sa
    return out


def _real_float32(x: ArrayLike, name: str, min_ndim: int, trailing: tuple[int, ...],
                  layout: str) -> Float32Array:
    """x as a float32 array (a view when it already is one) after checking its dtype (bool,
    integer or real floating) and its trailing shape; values beyond float32 become inf, as in
    the kernels' conversion."""
    a = _core._as_array(x, name)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers (converted to float32), got dtype {a.dtype}")
    if a.ndim < min_ndim or a.shape[a.ndim - len(trailing):] != trailing:
        raise ValueError(f"{name}: expected shape {layout}, got {a.shape}")
    with np.errstate(over="ignore"):
        return a.astype(np.float32, copy=False)


def _broadcast_shapes(parts: list[tuple[str, tuple[int, ...]]]) -> tuple[int, ...]:
    """NumPy's broadcasting of the shapes of [(name, shape), ...] (without its limit on the
    number of dimensions); ValueError naming the operands when they do not broadcast."""
    ndim = max(len(p) for _, p in parts)
    shape = [1] * ndim
    for _, p in parts:
        for i, d in enumerate(p, ndim - len(p)):
            if shape[i] == 1:
                shape[i] = d
            elif d != 1 and d != shape[i]:
                raise ValueError(f"{', '.join(n for n, _ in parts)}: leading (batch) shapes "
                                 f"{', '.join(str(p) for _, p in parts)} do not broadcast")
    return tuple(shape)


def _overlaps(a: ArrayLike, b: ArrayLike) -> bool:
    """True when a and b may share memory (conservatively True when that is too hard to tell)."""
    try:
        # NumPy's stubs type max_work as -1 or 0 only; any bound is valid at run time
        return bool(np.shares_memory(a, b, max_work=cast("Literal[0]", 100_000)))
    except np.exceptions.TooHardError:
        return True


def qts_unpack(
    x: ArrayLike, *, scalar_first: bool = False
) -> tuple[Float32Array, Float32Array, Float32Array]:
    """Split QTS joints ``(..., 8)`` into ``(q (..., 4), t (..., 3), s (...))``.

    Views into ``x`` when it is a float32 array (no copy); q is a copy with ``scalar_first=True``
    (reordered to (w, x, y, z)).

    Examples
    --------
    >>> import skelsimd
    >>> q, t, s = skelsimd.qts_unpack([0, 0, 0, 1, 1, 2, 3, 1])
    >>> q, t, s
    (array([0., 0., 0., 1.], dtype=float32), array([1., 2., 3.], dtype=float32), array(1., dtype=float32))
    """
    x = _real_float32(x, "x", 1, (8,), "(..., 8)")
    q = x[..., [3, 0, 1, 2]] if scalar_first else x[..., :4]
    return q, x[..., 4:7], x[..., 7]


fill_docstrings(globals())
