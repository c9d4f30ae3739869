"""4x4 matrix kernels ("Optimizing 4x4 matrix multiplication"): products with
broadcasting, the local-to-object chain on 4x4 matrices, and points transformed by 3x4 or 4x4
matrices.

Conventions
-----------
* A 4x4 matrix is float32 ``(..., 4, 4)``, row-major, acting on column vectors: ``(a @ b) @ v``
  applies ``b`` first. A joint matrix ``(..., 3, 4)`` is its first three rows (implied last row
  ``0 0 0 1``).
* Inputs are array_like, converted once to C-contiguous float32 (no copy when they already
  are). ``out`` must be a float32, C-contiguous, writeable array of the result's shape; it may
  be exactly an input where a function says so, never a partial overlap. Everything is
  validated before anything is written; the GIL is released while the kernel runs.

Determinism
-----------
``matmul4`` and ``mat4_local_to_global`` (and ``transform_points``) give bit-identical results
on every SIMD variant (scalar, sse41, avx2) for finite inputs, like Frechette's binary-exact
versions (with NaN or infinities the values agree, NaN in the same places; only a NaN's sign and
payload bits may differ): every variant
evaluates element ``(i, c)`` of ``a @ b`` as
``((a[i,0] b[0,c] + a[i,1] b[1,c]) + a[i,2] b[2,c]) + a[i,3] b[3,c]`` in float32, with no FMA.
For affine matrices that order adds the parent's translation last, exactly as the joint family
does, so an affine 4x4 chain rounds like the 3x4 ``local_to_global``. (Frechette's reference,
DirectX Math, sums ``(x B0 + z B2) + (y B1 + w B3)``; that order measured 1.4x the max error of
this one on a 96-joint chain, so Frechette's order is not reproduced.)

Accuracy (max abs error against float64; every variant; tested)
----------------------------------------------------------------
* ``matmul4``: each element within ``4u / (1 - 4u) * (|a| @ |b|)`` of the exact product of the
  float32 inputs (u = 2**-24), the classical bound of a 4-term float32 dot product, which a
  float32 NumPy matmul obeys too (measured: at most 0.93 of the bound on data spread over seven
  orders of magnitude; 2.7e-7 max abs for rotations with translations in [-1, 1], NumPy 2.6e-7).
* ``mat4_local_to_global``: as accurate as the same chain of float32 NumPy matmuls, within a
  margin: on 1000-skeleton batches its max error is 1.0x to 1.6x NumPy's and its RMS error
  1.15x to 1.2x (tested: <= 1.6x and <= 1.35x). NumPy's float32 matmul on this machine evaluates
  every element as a chain of FMAs (checked bit for bit), 4 roundings against 7 here; FMA is not
  used because every variant must round alike and SSE4.1 and the scalar code have no FMA.
  The error grows with the depth d and the size T of the global translations,
  ``<= (d + 1) * 2**-23 * max(1, T)`` as for the joint family. A 96-joint chain meets 2e-6 only
  with unit-magnitude data: local translations in [-0.1, 0.1] keep the global ones below ~2.3
  and give 1.5e-6 (NumPy 1.2e-6); with local translations in [-1, 1] the global ones reach ~24
  and the error 1.3e-5 (NumPy 9.3e-6), each float32 rounding of a translation of 24 being up to
  9.5e-7 by itself. On the 96-joint humanoid (depth 14) with translations in [-1, 1]: 2.1e-6
  (NumPy 1.8e-6); random 96-joint trees: 1.2e-6 (NumPy 9.1e-7).
* ``transform_points``: affine, ``4u / (1 - 4u) * (|R| |p| + |t|)`` per coordinate (2.5e-7 max
  for rotations, points and translations in [-1, 1]); projective, that bound for the numerator
  and w, then one rounded division.
"""
from __future__ import annotations
from . import _core
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from ._typing import Float32Array, Precision

__all__ = ["matmul4", "mat4_local_to_global", "transform_points"]


def matmul4(a: ArrayLike, b: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """``a @ b`` for 4x4 matrices, with NumPy broadcasting of the leading dimensions.

    Covers Frechette's three test cases with one function: an array times a constant matrix
    (shapes ``(N, 4, 4)`` and ``(4, 4)``), a constant times an array (``(4, 4)`` and
    ``(N, 4, 4)``), and one-off products (``(4, 4)`` and ``(4, 4)``).

    Parameters
    ----------
    a, b : array_like, (..., 4, 4)
        Leading dimensions broadcast by NumPy rules.
    out : ndarray, float32 (broadcast(...), 4, 4), optional
        May be exactly ``a`` or ``b`` (in place).

    Returns
    -------
    ndarray, float32

    Accuracy: every element within ``4u / (1 - 4u) * (|a| @ |b|)`` (u = 2**-24) of the exact
    product of the float32 inputs; bit-identical on every SIMD variant (fixed order, no FMA).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> a = np.eye(4, dtype=np.float32); a[0, 3] = 1                 # translate x by 1
    >>> skelsimd.matmul4(a, a)[0, 3]
    np.float32(2.0)
    """
    return _core.matmul4(a, b, out)


def mat4_local_to_global(
    local: ArrayLike,
    parents: ArrayLike,
    out: Float32Array | None = None,
    *,
    start: int = 0,
    stop: int | None = None,
    precision: Precision = "float32",
) -> Float32Array:
    """Local 4x4 matrices to global (object-space) ones: Frechette's second test case.

    ``global[..., j] = global[..., parents[j]] @ local[..., j]`` for ``start <= j < stop`` in
    ascending order; a root (``parents[j] == -1``) copies its local matrix. The full 4x4
    product is used, so projective matrices chain too.

    Parameters
    ----------
    local : array_like, (..., J, 4, 4)
        Local matrices; the leading dimensions are a batch sharing ``parents``.
    parents : array_like of int, (J,)
        ``-1`` for a root, otherwise ``parents[j] < j`` (depth-first order).
    out : ndarray, float32 (..., J, 4, 4), optional
        ``out=local`` transforms in place.
    start, stop : int, optional
        Restrict the pass to joints ``start <= j < stop``; parents before ``start`` are read
        from ``out`` as already-global matrices (with ``out=None`` the result starts as a copy
        of ``local``), exactly as ``skelsimd.local_to_global``.
    precision : {"float32", "float64"}, default "float32" (None means the default)
        The precision of the global matrices carried down the hierarchy; the result is float32
        either way. ``"float32"`` (default) rounds every global matrix and the children build
        on the rounded value, so the error grows with depth. ``"float64"`` keeps the global
        matrices in float64 (all 16 elements, each row evaluated as ``(p0 L0 + p1 L1) + (p2 L2
        + p3 L3)``, no FMA) and rounds only what it writes: every element is its exact value
        rounded to float32 up to float64 noise, ``|out - exact| <= 2**-24 * |exact| + (d + 2)
        * 2**-52 * max(1, T)`` for affine data (96-deep chain with local translations in
        [-1, 1]: within 2e-6 where float32 gives 1.3e-5). It costs about twice the float32
        walk. Parents before ``start`` are read from ``out`` (float32) and taken as exact, so a
        walk in sections equals one pass only up to that rounding. Bit-identical on every SIMD
        variant too.

    Returns
    -------
    ndarray, float32 (..., J, 4, 4)

    Accuracy: as accurate as the same chain of float32 NumPy matmuls; ``(d + 1) * 2**-23 * max(1, T)``
    for depth d and global translations up to T (see the module docstring for the
    96-joint chain figures). Bit-identical on every SIMD variant.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> local = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1)); local[:, 1, 3] = 1
    >>> skelsimd.mat4_local_to_global(local, [-1, 0, 1])[:, 1, 3]
    array([1., 2., 3.], dtype=float32)
    """
    return _core.mat4_local_to_global(local, parents, out, start, stop, precision)


def transform_points(
    m: ArrayLike, points: ArrayLike, out: Float32Array | None = None
) -> Float32Array:
    """Points transformed by 3x4 joint matrices or 4x4 matrices, with broadcasting.

    A 3x4 matrix ``[R | t]``, and a 4x4 whose last row is exactly ``(0, 0, 0, 1)``, map ``p``
    to ``R @ p + t``. A 4x4 with any other last row is a projective transform: the point is
    taken as ``(x, y, z, 1)``, multiplied, and divided by the resulting w,
    ``(R @ p + t) / (m[3, :3] @ p + m[3, 3])`` (the homogeneous divide of a projection matrix;
    w = 0 gives inf/nan by IEEE rules, no exception).

    Parameters
    ----------
    m : array_like, (..., 3, 4) or (..., 4, 4)
    points : array_like, (..., 3)
        Leading dimensions of ``m`` and ``points`` broadcast: one matrix for many points
        (``(3, 4)`` with ``(N, 3)``), one matrix per point, or any mix.
    out : ndarray, float32 (broadcast(...), 3), optional
        May be exactly ``points`` (in place).

    Returns
    -------
    ndarray, float32 (broadcast(...), 3)

    Accuracy: ``4u / (1 - 4u) * (|R| |p| + |t|)`` per coordinate for affine matrices (u =
    2**-24), plus one rounded division for projective ones. Bit-identical on every variant.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> m = np.eye(4, dtype=np.float32); m[:3, 3] = [1, 2, 3]
    >>> skelsimd.transform_points(m, [[0, 0, 0], [1, 1, 1]])
    array([[1., 2., 3.],
           [2., 3., 4.]], dtype=float32)
    """
    return _core.transform_points(m, points, out)
