"""Joint-matrix kernels: skeleton transforms over a flattened parent hierarchy
("The Skeleton Assembly Line"; "Adventures in data-oriented design, part 2").

Conventions
-----------
* A joint matrix is float32 ``(..., 3, 4)``, row-major ``[R | t]``: it maps a point ``p`` to
  ``R @ p + t`` and has an implied last row ``(0, 0, 0, 1)``.
* A pose batch is ``(..., J, 3, 4)``: the leading dimensions are characters or frames that share
  one ``parents`` array of J integers, ``parents[j] == -1`` for a root (several roots are
  allowed) and ``parents[j] < j`` otherwise (depth-first flattening).
* Multiplication order: ``global[j] = global[parents[j]] @ local[j]`` (column vectors, parent on
  the left).
* Inputs are array_like, converted once to C-contiguous float32 (no copy when they already
  are). ``out`` must be a float32, C-contiguous, writeable array of the result's shape; it may
  be exactly an input (in place) but must not partially overlap one. Everything is validated
  before anything is written. The GIL is released while the kernel runs.

Determinism
-----------
Every SIMD variant (scalar, sse41, avx2) evaluates the same float32 operations in the same
order, so results are bit-identical whichever variant the CPU selects (finite inputs).

Accuracy (max abs error against float64, rotations from unit quaternions, translations in
[-1, 1], every variant; tested)
------------------------------------------------------------------------------------------
* ``multiply_joints``: <= [bound:multiply_joints] per product.
* ``local_to_global``: <= [bound:local_to_global] on random 96-joint trees (parents drawn uniformly among the
  earlier joints, depth about 10). The error grows with the hierarchy depth d and the size T of
  the global translations, because every level rounds a translation of size up to T to float32:
  it stays below ``(d + 1) * [bound:walk.depth] * max(1, T)`` for any hierarchy. Measured on 192,000 joints:
  1.2e-6 on random trees, 1.7e-6 to 2.6e-6 on the 96-joint humanoid of ``skelsimd.testing``
  (depth 14, T about 10), 1e-5 on a 96-joint chain (T about 17), where even a correctly rounded
  float32 walk measures 8e-6.
* ``local_to_global(..., precision="float64")`` carries the global poses in float64 and rounds
  each output element once: ``|out - exact| <= 2**-24 * |exact| + [bound:walk.float64] * max(1, T)``, so
  <= [bound:walk.float64.96] on every 96-joint skeleton whatever its depth (measured 9.5e-7 on the 96-joint
  chain, 2.4e-7 on random trees), for about twice the time of the float32 walk.
* ``global_to_local`` round trip ``global_to_local(local_to_global(x)) - x``: <= [bound:global_to_local.round_trip] on 96-joint
  trees and the humanoid (general and rigid inverse); ``(d + 1) * 2**-23 * max(1, T)`` in general.
* ``invert_joints``: ``invert_joints(m) @ m`` is the identity within [bound:invert_joints] for rotations, and in
  general within ``4e-7 * cond(R)``.
"""
from __future__ import annotations
from . import _core
from .bounds import fill_docstrings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from ._typing import Float32Array, Precision

__all__ = ["local_to_global", "global_to_local", "multiply_joints", "invert_joints"]


def local_to_global(
    local: ArrayLike,
    parents: ArrayLike,
    out: Float32Array | None = None,
    *,
    start: int = 0,
    stop: int | None = None,
    precision: Precision = "float32",
) -> Float32Array:
    """Local joint matrices to global (model-space) ones: van Waveren's TransformSkeleton.

    ``global[..., j] = global[..., parents[j]] @ local[..., j]`` for ``start <= j < stop`` in
    ascending order; a root (``parents[j] == -1``) copies its local matrix.

    Parameters
    ----------
    local : array_like, (..., J, 3, 4)
        Local joint matrices; the leading dimensions are a batch sharing ``parents``.
    parents : array_like of int, (J,)
        ``-1`` for a root, otherwise ``parents[j] < j``.
    out : ndarray, float32 (..., J, 3, 4), optional
        Result array. ``out=local`` transforms in place (van Waveren's usage).
    start, stop : int, optional
        Restrict the pass to joints ``start <= j < stop`` (van Waveren's first/last joint, with
        ``stop`` exclusive), e.g. to transform a skeleton in sections and modify joints in
        between. Parents that lie before ``start`` are read from ``out`` as already-global
        matrices. Joints outside the range are not written when ``out`` is given; when ``out``
        is None the result starts as a copy of ``local``, so those joints hold their local
        matrices (and parents before ``start`` are taken from ``local`` as if global).
    precision : {"float32", "float64"}, default "float32" (None means the default)
        The precision of the global poses carried from parent to child (the output is float32
        either way). "float32": each global is rounded to float32 and its children build on it,
        so the error grows with depth (the game-runtime way, fastest). "float64": the globals
        are kept in float64 scratch memory and rounded once when written, so every element is
        its exact value rounded to float32, at any depth, for about 2x the time (AVX2 at
        1000 x 96: 3.7 against 1.8 ns per joint). Parents before ``start`` are read from ``out``
        (float32) either way.

    Returns
    -------
    ndarray, float32 (..., J, 3, 4)
        ``out``, or a new array.

    Accuracy (max abs error against float64, unit-quaternion rotations, translations in
    [-1, 1]):

    - "float32": ``(d + 1) * 2**-23 * max(1, T)`` for a hierarchy of depth d and global
      translations up to T (see the module docstring); <= 2e-6 on random 96-joint trees
      (depth about 8), but 2.1e-6 to 2.6e-6 at depth 12-20 (the humanoid has 14) and 1e-5 on a
      96-deep chain.
    - "float64": ``|out - exact| <= 2**-24 * |exact| + 1e-12 * max(1, T)`` element-wise
      (correctly rounded up to float64 noise), so <= 2e-6 on every 96-joint skeleton
      (96-deep chain: 9.5e-7).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> local = np.zeros((3, 3, 4), np.float32); local[:, :, :3] = np.eye(3)
    >>> local[:, :, 3] = [1, 0, 0]                  # every bone 1 unit along x
    >>> skelsimd.local_to_global(local, [-1, 0, 1])[:, :, 3]
    array([[1., 0., 0.],
           [2., 0., 0.],
           [3., 0., 0.]], dtype=float32)
    """
    return _core.local_to_global(local, parents, out, start, stop, precision)


def global_to_local(
    global_: ArrayLike,
    parents: ArrayLike,
    out: Float32Array | None = None,
    *,
    start: int = 0,
    stop: int | None = None,
    rigid: bool = False,
) -> Float32Array:
    """Global joint matrices back to local ones: van Waveren's UntransformSkeleton.

    ``local[..., j] = inverse(global[..., parents[j]]) @ global[..., j]`` for
    ``start <= j < stop``, processed in descending order so that ``out=global_`` works in place;
    roots copy their matrix. Parents are always read from ``global_``. The exact inverse of
    ``local_to_global``.

    Parameters
    ----------
    global_ : array_like, (..., J, 3, 4)
    parents : array_like of int, (J,)
    out : ndarray, float32 (..., J, 3, 4), optional
        ``out=global_`` works in place. With ``out=None`` and a partial range, joints outside
        the range are copies of ``global_``.
    start, stop : int, optional
        The joint range, as in ``local_to_global``.
    rigid : bool, default False
        False: the general affine inverse (adjugate / determinant), so scaled and sheared
        joints work; a singular parent rotation gives inf/nan (IEEE division by zero).
        True: van Waveren's transpose shortcut ``R^-1 = R^T``, valid only for orthonormal R.

    Returns
    -------
    ndarray, float32 (..., J, 3, 4)

    Accuracy: the round trip ``global_to_local(local_to_global(x), ...)`` is within 2e-6 of x
    on 96-joint skeletons with unit-quaternion rotations and translations in [-1, 1].
    Each joint is ``inverse(R_p) @ (G_j - [0 | t_p])``: translations are subtracted first.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> from skelsimd import testing
    >>> local = testing.random_joints((5,), np.random.default_rng(0))
    >>> glob = skelsimd.local_to_global(local, [-1, 0, 1, 1, 3])
    >>> bool(np.allclose(skelsimd.global_to_local(glob, [-1, 0, 1, 1, 3]), local, atol=1e-5))
    True
    """
    return _core.global_to_local(global_, parents, out, start, stop, rigid)


def multiply_joints(a: ArrayLike, b: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """``a @ b`` per joint matrix, with NumPy broadcasting over the leading dimensions: the
    van Waveren's TransformJoints/MultiplyJoints (e.g. the matrix palette ``global @ inverse_bind``,
    shapes ``(N, J, 3, 4)`` and ``(J, 3, 4)``).

    Parameters
    ----------
    a, b : array_like, (..., 3, 4)
        Leading dimensions broadcast by NumPy rules.
    out : ndarray, float32 (broadcast(...), 3, 4), optional
        May be exactly ``a`` or ``b`` (in place).

    Returns
    -------
    ndarray, float32

    Accuracy: <= [bound:multiply_joints] max abs error per product for unit-magnitude inputs; each element is
    ``((a_i0 b_0c + a_i1 b_1c) + a_i2 b_2c) + a_i3 [c == 3]`` in float32.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> a = np.zeros((3, 4), np.float32); a[:, :3] = np.eye(3); a[:, 3] = [0, 1, 0]
    >>> skelsimd.multiply_joints(a, a)[:, 3]        # two translations by (0, 1, 0)
    array([0., 2., 0.], dtype=float32)
    """
    return _core.multiply_joints(a, b, out)


def invert_joints(
    m: ArrayLike, out: Float32Array | None = None, *, rigid: bool = False
) -> Float32Array:
    """Affine inverse ``[R^-1 | -R^-1 t]`` of every joint matrix.

    Parameters
    ----------
    m : array_like, (..., 3, 4)
    out : ndarray, float32 (..., 3, 4), optional
        May be exactly ``m`` (in place).
    rigid : bool, default False
        False: general inverse via adjugate and determinant (a singular R gives inf/nan).
        True: ``R^-1 = R^T``, for orthonormal rotations only.

    Returns
    -------
    ndarray, float32 (..., 3, 4)

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> from skelsimd import testing
    >>> m = testing.random_joints((4,), np.random.default_rng(1))
    >>> eye = skelsimd.multiply_joints(m, skelsimd.invert_joints(m))
    >>> bool(np.allclose(eye[..., :3], np.eye(3), atol=1e-5))
    True
    """
    return _core.invert_joints(m, out, rigid)


fill_docstrings(globals())
