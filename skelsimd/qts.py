"""QTS hierarchy walks: quaternion + translation + uniform scale poses to global poses (the
quaternion walk of the comments on "Adventures in data-oriented design, part 2"; ozz-animation's LocalToModelJob for matrices out).

A QTS joint is float32 ``(..., 8)`` as ``(qx, qy, qz, qw, tx, ty, tz, s)``; a pose batch
``(..., J, 8)`` shares one ``parents`` array (``-1`` for a root, ``parents[j] < j``), as in
``skelsimd.joints``.

Accuracy (max abs error against float64, unit quaternions, translations in [-1, 1]; tested on
every variant)
---------------------------------------------------------------------------------------------
* unit scale: <= [bound:qts_local_to_global] on random 96-joint trees (parents uniform among earlier joints);
* any hierarchy: ``(d + 1) * 2**-23 * max(1, T)`` for depth d and global translations up to T,
  also with uniform scales (T then includes the scaled translations); quaternions <= [bound:qts_local_to_global.quat] * (d + 1).

``precision="float64"`` (both walks) carries the global poses in float64 and rounds only what
it writes, so the error no longer grows with depth: every output element is its exact value
rounded to float32 up to float64 noise,
``|out - exact| <= 2**-24 * |exact| + (d + 2) * 2**-52 * max(1, T)`` (tested on every variant;
96-deep chain and the 96-joint humanoid <= 2e-6), at about twice the cost of the float32 walk.
"""
from __future__ import annotations
from . import _core
from .bounds import fill_docstrings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from ._typing import Float32Array, Precision

__all__ = ["qts_local_to_global", "qts_local_to_global_matrix"]


def qts_local_to_global(
    local: ArrayLike,
    parents: ArrayLike,
    out: Float32Array | None = None,
    *,
    start: int = 0,
    stop: int | None = None,
    precision: Precision = "float32",
) -> Float32Array:
    """Local QTS joints to global ones: the quaternion hierarchy walk.

    For ``start <= j < stop`` ascending, with ``P = global[parents[j]]`` and ``L = local[j]``:
    ``q = q_P * q_L``, ``t = t_P + s_P R(q_P) t_L``, ``s = s_P s_L``; roots copy their local joint.

    Parameters
    ----------
    local : array_like, (..., J, 8)
    parents : array_like of int, (J,)
    out : ndarray, float32 (..., J, 8), optional
        ``out=local`` works in place.
    start, stop : int, optional
        Restrict the pass to ``start <= j < stop``, as in ``local_to_global``: parents before
        ``start`` are read from ``out`` as global joints; with ``out=None`` the result starts as
        a copy of ``local``.
    precision : {"float32", "float64"}, default "float32" (None means the default)
        The precision of the global poses carried down the hierarchy (the output is float32
        either way). "float64" evaluates the same formula and order in float64 and rounds q, t
        and s once when writing: ``|out - exact| <= 2**-24 * |exact| + (d + 2) * 2**-52 *
        max(1, T)`` element-wise (d the depth, T the largest global translation), whatever the
        depth; about 2x the time. Parents before ``start`` are read from ``out`` (float32) and
        taken as exact. Every SIMD variant gives bit-identical results on finite inputs.

    Returns
    -------
    ndarray, float32 (..., J, 8)

    ``R(q_P)`` is the rotation of ``q_P / |q_P|`` and the parent's translation is added last;
    ``t`` equals the translation of ``qts_to_matrix(P) @ qts_to_matrix(L)`` in float32. See the
    module docstring for the error bounds.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> local = np.zeros((3, 8), np.float32); local[:, 3] = local[:, 7] = 1
    >>> local[:, 4] = 1                                          # every bone 1 unit along x
    >>> skelsimd.qts_local_to_global(local, [-1, 0, 1])[:, 4:7]
    array([[1., 0., 0.],
           [2., 0., 0.],
           [3., 0., 0.]], dtype=float32)
    """
    return _core.qts_local_to_global(local, parents, out, start, stop, precision)


def qts_local_to_global_matrix(
    local: ArrayLike,
    parents: ArrayLike,
    out: Float32Array | None = None,
    *,
    start: int = 0,
    stop: int | None = None,
    precision: Precision = "float32",
) -> Float32Array:
    """QTS local joints in, 3x4 global joint matrices out, in one pass (ozz-animation's
    LocalToModelJob).

    ``global[j] = global[parents[j]] @ qts_to_matrix(local[j])``; equal bit for bit to
    ``local_to_global(qts_to_matrix(local), parents)`` without materialising the local matrices
    (chunks of skeletons are converted in a cache-resident scratch and walked).

    Parameters
    ----------
    local : array_like, (..., J, 8)
    parents : array_like of int, (J,)
    out : ndarray, float32 (..., J, 3, 4), optional
    start, stop : int, optional
        As in ``local_to_global``: parents before ``start`` are read from ``out`` as global
        matrices; with ``out=None`` the result starts as ``qts_to_matrix(local)``.
    precision : {"float32", "float64"}, default "float32" (None means the default)
        "float64" carries the global 3x4 matrices in float64,
        ``G_j = G_P @ [s_L R(q_L) | t_L]`` with the local matrix built in float64, and rounds
        each output element once: ``|out - exact| <= 2**-24 * |exact| + (d + 2) * 2**-52 *
        max(1, T)`` element-wise against the float64 ``local_to_global(qts_to_matrix(local))``;
        about 2x the time. Parents before ``start`` are read from ``out`` as float32 matrices
        taken as exact (no matrix_to_qts round trip). The result is not bit-equal to
        ``qts_to_matrix(qts_local_to_global(..., precision="float64"))`` (both are within the
        bound). Every SIMD variant gives bit-identical results on finite inputs.

    Returns
    -------
    ndarray, float32 (..., J, 3, 4)

    Accuracy: that of ``local_to_global`` (<= [bound:qts_local_to_global] on random 96-joint trees with unit scale).

    Examples
    --------
    >>> import skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> skelsimd.qts_local_to_global_matrix(clip.local, clip.skeleton).shape
    (240, 31, 3, 4)
    """
    return _core.qts_local_to_global_matrix(local, parents, out, start, stop, precision)


fill_docstrings(globals())
