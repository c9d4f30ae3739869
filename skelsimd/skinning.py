"""The matrix palette and linear-blend skinning ("The Skeleton Assembly Line",
section 5).

The palette of a posed character is ``global @ inverse_bind`` per joint: the animated global
pose times the inverse of the bind (rest) pose, so a vertex stored in the bind pose is carried
by each joint's motion relative to the bind pose. Skinning blends the palette matrices of a
vertex's influences with its weights and applies the blend to the vertex (linear-blend
skinning).

Conventions
-----------
* Joint matrices, pose batches and ``parents`` as in ``skelsimd.joints``: float32
  ``(..., J, 3, 4)`` ``[R | t]`` row-major, ``parents[j] < j`` or -1.
* A mesh is V vertices: positions (and normals) ``(..., V, 3)``, ``joint_indices`` ``(V, K)``
  integers in ``[0, J)`` and ``weights`` ``(V, K)``, 1 <= K <= 12 influences per vertex.
* Inputs are array_like, converted once to C-contiguous float32 (indices to int32); ``out``
  arrays must be float32, C-contiguous, writeable and of the result's shape, and may be exactly
  an input only where a function says so. Everything is validated before anything is written;
  the GIL is released while the kernel runs.

Determinism
-----------
Every SIMD variant evaluates the same float32 operations in the same order (no FMA; sqrt and
division correctly rounded), so results are bit-identical on every variant for finite inputs. ``skinning_palette``
is moreover bit-identical to ``multiply_joints(local_to_global(local, parents), inverse_bind)``.

Accuracy (max abs error against float64, every variant; tested)
---------------------------------------------------------------
* ``skinning_palette``: that of ``local_to_global`` followed by one ``multiply_joints`` (it is
  bit-identical to them). <= [bound:skinning_palette] when the global translations are of unit magnitude: measured
  7.4e-7 on the 96-joint humanoid and 4.1e-7 on random 96-joint trees with local translations in
  [-0.25, 0.25] (global ones up to ~2.5), 1.7e-6 on a 96-deep chain with [-0.1, 0.1]. Larger
  global translations T cost accuracy as in ``local_to_global``: 3.3e-6 on the humanoid with
  translations in [-1, 1] (T ~ 9), 1.2e-5 on the chain (T ~ 24); in general
  ``(d + 3) * 2**-23 * (max(1, T) + max |t(inverse_bind)|)`` for depth d.
* ``skin``: positions <= [bound:skin.positions] for unit-magnitude data (palette rotations with translations in
  [-1, 1], positions in [-1, 1], weights summing to 1): measured 2.6e-7 for K = 1, 4 and 8, 2.3e-7 for K = 10 and 12.
  Normals: 1.7e-7 (2.2e-7 for K = 12) when a vertex's influences rotate alike (a posed skeleton's palette); blending
  unrelated rotations shortens R(M) n, and renormalising divides the error by its length
  (measured 2.3e-6 with random rotations; bound ``~ 2 (K + 4) u |R(M)| |n| / |R(M) n|``).
"""
from __future__ import annotations
import numpy as np

from . import _core
from .bounds import fill_docstrings
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from ._typing import Float32Array, Precision

__all__ = ["skinning_palette", "skin", "normalize_weights"]


def skinning_palette(
    local: ArrayLike,
    parents: ArrayLike,
    inverse_bind: ArrayLike,
    out: Float32Array | None = None,
    *,
    precision: Precision = "float32",
) -> Float32Array:
    """The matrix palette ``local_to_global(local, parents) @ inverse_bind`` in one pass.

    Each joint's global pose is computed (as ``skelsimd.local_to_global`` does), multiplied by
    its inverse bind matrix, and only the product is written: the global poses never reach the
    output (they live in registers and a small per-call scratch buffer, as the comments on
    "Adventures in data-oriented design, part 2" suggest: "build global pose -> matrix palette into temporary memory").

    Parameters
    ----------
    local : array_like, (..., J, 3, 4)
        Local joint matrices; the leading dimensions are characters or frames.
    parents : array_like of int, (J,)
        ``-1`` for a root, otherwise ``parents[j] < j``.
    inverse_bind : array_like, (..., J, 3, 4)
        The inverse bind-pose matrices, usually ``(J, 3, 4)`` shared by every character (e.g.
        ``skelsimd.invert_joints(local_to_global(bind_local, parents))``); leading dimensions
        broadcast against ``local``'s.
    out : ndarray, float32 (broadcast(...), J, 3, 4), optional
        May be exactly ``local`` or ``inverse_bind`` (in place).
    precision : {"float32", "float64"}, default "float32" (None means the default)
        The precision of the global poses and of their product with ``inverse_bind``; the
        palette is float32 either way. ``"float32"`` (default) is bit-identical to
        ``multiply_joints(local_to_global(local, parents), inverse_bind)``. ``"float64"``
        carries the global poses in float64, multiplies them by ``inverse_bind`` in float64
        (each element ``(a0 b0 + a1 b1) + (a2 b2 + tau)``, no FMA) and rounds the palette once:
        every element is its exact value rounded to float32 up to float64 noise,
        ``|out - exact| <= 2**-24 * |exact| + (d + 3) * 2**-52 * max(1, T) * max(1, |ib|)``
        for depth d, global translations up to T and inverse-bind entries up to ``|ib|`` (96-joint
        chain and humanoid with translations in [-1, 1]: within 2e-6). It costs about twice the
        float32 palette. Bit-identical on every SIMD variant too.

    Returns
    -------
    ndarray, float32 (broadcast(...), J, 3, 4)

    Accuracy: that of ``local_to_global`` then ``multiply_joints`` (it is bit-identical to
    them): <= [bound:skinning_palette] when the global translations are of unit magnitude; see the module
    docstring for deeper hierarchies.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> from skelsimd import testing
    >>> parents, _ = testing.humanoid_skeleton()
    >>> local = testing.random_joints((10, 96), np.random.default_rng(0))
    >>> bind = skelsimd.invert_joints(skelsimd.local_to_global(local[0], parents))
    >>> skelsimd.skinning_palette(local, parents, bind).shape        # 10 frames x 96 joints
    (10, 96, 3, 4)
    """
    return _core.skinning_palette(local, parents, inverse_bind, out, precision)


@overload
def skin(positions: ArrayLike, joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike,
         out: Float32Array | None = None, *, normals: None = None,
         normals_out: None = None, renormalize: bool = True) -> Float32Array: ...
@overload
def skin(positions: ArrayLike, joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike,
         out: Float32Array | None = None, *, normals: ArrayLike,
         normals_out: Float32Array | None = None,
         renormalize: bool = True) -> tuple[Float32Array, Float32Array]: ...
def skin(
    positions: ArrayLike,
    joint_indices: ArrayLike,
    weights: ArrayLike,
    palette: ArrayLike,
    out: Float32Array | None = None,
    *,
    normals: ArrayLike | None = None,
    normals_out: Float32Array | None = None,
    renormalize: bool = True,
) -> Float32Array | tuple[Float32Array, Float32Array]:
    """Linear-blend skinning of a mesh by one palette or a batch of palettes.

    For every vertex v, ``M = sum_k weights[v, k] * palette[..., joint_indices[v, k]]`` (k
    ascending), then ``out[..., v] = R(M) @ positions[..., v] + t(M)``; with ``normals``, also
    ``normals_out[..., v] = normalize(R(M) @ normals[..., v])`` (the same blended matrix, as the
    issue asks; exact for rotations and uniform scale, the usual approximation of linear-blend
    skinning otherwise). A blended normal of zero length stays zero. With ``renormalize=False``
    the normals are ``R(M) @ normals[..., v]`` as they are, not renormalised: the job of ozz's
    ``SkinningJob``, which leaves renormalisation to the shader (cheaper: no square root or
    division per vertex; the length drifts from 1 where the influences disagree or scale).

    Weights are used exactly as given: they are not renormalised, so rows that do not sum to 1
    scale the result (use ``normalize_weights`` once when loading a mesh). Zero weights and
    repeated joint indices in a row are fine.

    Parameters
    ----------
    positions : array_like, (..., V, 3)
        Bind-pose vertex positions (usually ``(V, 3)``: one mesh for every palette).
    joint_indices : array_like of int, (V, K)
        1 <= K <= 12. Every index must lie in ``[0, J)``: otherwise ValueError naming the vertex
        and the influence. int32 input avoids a conversion.
    weights : array_like, (V, K)
    palette : array_like, (..., J, 3, 4)
        From ``skinning_palette``. Leading dimensions broadcast against ``positions``'s: a
        ``(N, J, 3, 4)`` batch skins N characters into ``(N, V, 3)``. Every entry must be
        finite (a nan or inf is a ValueError naming the joint).
    out : ndarray, float32 (broadcast(...), V, 3), optional
        May be exactly ``positions`` (in place).
    normals : array_like, (..., V, 3), optional
        Same shape as ``positions``.
    normals_out : ndarray, float32 (broadcast(...), V, 3), optional
        Only with ``normals``; may be exactly ``normals``.
    renormalize : bool, default True
        False: the skinned normals are left unnormalised (see above). Without ``normals`` it
        changes nothing.

    Returns
    -------
    ndarray, float32 (broadcast(...), V, 3)
        ``out``; or the tuple ``(out, normals_out)`` when ``normals`` is given.

    Accuracy: positions <= [bound:skin.positions] max abs error for unit-magnitude data (rotations, translations
    and positions in [-1, 1], weights summing to 1; measured 2.6e-7); normals likewise when the
    influences of a vertex rotate alike (see the module docstring). Bit-identical on every SIMD
    variant. Unnormalised normals (``renormalize=False``): <= [bound:skin.normals_raw] max abs
    error for the same data.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> palette = np.zeros((2, 3, 4), np.float32); palette[:, :, :3] = np.eye(3)
    >>> palette[1, :, 3] = [0, 2, 0]                             # joint 1 lifts by 2
    >>> skelsimd.skin([[1, 0, 0]], [[0, 1]], [[0.5, 0.5]], palette)   # half on each joint
    array([[1., 1., 0.]], dtype=float32)
    >>> palette[1, :, :3] *= 2                                   # joint 1 also scales by 2
    >>> _, n = skelsimd.skin([[1, 0, 0]], [[0, 1]], [[0.5, 0.5]], palette,
    ...                      normals=[[0, 0, 1]], renormalize=False)
    >>> n                                                        # 0.5 * 1 + 0.5 * 2
    array([[0. , 0. , 1.5]], dtype=float32)
    """
    if type(renormalize) is not bool and not isinstance(renormalize, np.bool_):
        raise TypeError(f"renormalize: expected a bool, got {type(renormalize).__name__}")
    _check_finite_palette(palette)
    skinned: Float32Array | tuple[Float32Array, Float32Array] = _core.skin(
        positions, joint_indices, weights, palette, out, normals, normals_out,
        bool(renormalize))
    return skinned


def _check_finite_palette(palette: ArrayLike) -> None:
    """The ValueError of :func:`skin` for a palette with a non-finite element, naming the first
    one's joint (and batch index); shapes and dtypes are left to the kernel's checks."""
    pal = palette if type(palette) is np.ndarray else np.asarray(palette)
    if pal.dtype.kind == "f" and pal.ndim >= 3 and not np.isfinite(pal).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(pal))[0])
        raise ValueError(f"palette: expected finite matrices, got {float(pal[bad])} in joint "
                         f"{bad[-3]}" + (f" of palette{list(bad[:-3])}" if len(bad) > 3 else ""))


def normalize_weights(weights: ArrayLike, out: Float32Array | None = None) -> Float32Array:
    """``weights / weights.sum(axis=-1, keepdims=True)``, leaving rows that sum to exactly 0
    unchanged (no nan).

    Parameters
    ----------
    weights : array_like, (..., K)
    out : ndarray, float32 (..., K), optional
        May be exactly ``weights`` (in place).

    Returns
    -------
    ndarray, float32 (..., K)
        Each row's sum is 1 within a few float32 roundings (a K-term sum, then one division per
        weight).

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.normalize_weights([[1, 3, 0, 0]])
    array([[0.25, 0.75, 0.  , 0.  ]], dtype=float32)
    """
    return _core.normalize_weights(weights, out)


fill_docstrings(globals())
