"""Rotation conversions: Euler angles with SciPy's sequence conventions, rotation
vectors (the exponential and logarithm maps) and the 6D representation of neural-network
pipelines, to and from quaternions, as C kernels on every SIMD variant.

Conventions
-----------
* Quaternions are float32 ``(..., 4)`` as ``(x, y, z, w)``, or ``(w, x, y, z)`` with
  ``scalar_first=True`` (as ``quat_to_matrix``). Functions that read quaternions accept any
  non-zero scale (every result is a ratio of components); a zero quaternion is the identity
  rotation and a quaternion with an inf or NaN component gives NaN.
* Euler angles and rotation vectors are ``(..., 3)``, in radians, or degrees with
  ``degrees=True``. 6D vectors are ``(..., 6)``.
* ``seq`` is SciPy's: three axes, lowercase ``"xyz"`` for extrinsic rotations (about the fixed
  axes), uppercase ``"XYZ"`` for intrinsic ones (about the rotating axes), any of the twelve
  orders, Tait-Bryan (``"xyz"``, ``"ZYX"``, ...) and proper Euler (``"ZXZ"``, ``"yxy"``, ...).
* Inputs are array_like (any real dtype, any strides; arrays of other libraries through
  ``__dlpack__`` / ``__array__``), converted once to C-contiguous float32. ``out`` must be a
  float32, C-contiguous, writeable ndarray of the result's shape (no overlap with the input).
  Everything is validated before anything is written; the GIL is released while the kernel runs.
* Every SIMD variant evaluates the same float32 operations in the same order, so results are
  bit-identical whichever variant runs (the trigonometry is polynomials on the vector
  vocabulary, src/kernels/vec_math.h, not libm).

The 6D layout
-------------
``matrix_to_sixd(m)`` is ``(..., 6)``: the first column of ``m`` then the second,
``(m00, m10, m20, m01, m11, m21)`` -- Zhou et al.'s definition ("On the Continuity of Rotation
Representations in Neural Networks", CVPR 2019), and the flat vector networks emit and losses
consume. ``sixd_to_matrix`` splits it as ``sixd[..., :3]``, ``sixd[..., 3:]`` and orthonormalises
by Gram-Schmidt, exactly as PyTorch3D's ``rotation_6d_to_matrix`` does -- but PyTorch3D puts the
two vectors in *rows* (``matrix_to_rotation_6d`` drops the last row of the matrix), so
``layout="rows"`` is PyTorch3D's convention: ``matrix_to_sixd(m, layout="rows")`` is
``m[..., :2, :].reshape(..., 6)`` and ``pytorch3d.transforms.rotation_6d_to_matrix`` of ``d``
equals ``sixd_to_matrix(d, layout="rows")`` up to rounding. Feeding the default columns to PyTorch3D gives the
transposed (inverse) rotation. The SPIN / HMR family of human-mesh-recovery code reshapes its 6D
as ``(..., 3, 2)`` (columns interleaved, ``m[..., :, :2].reshape(..., 6)``); convert with
``d.reshape(..., 3, 2).swapaxes(-1, -2).reshape(..., 6)`` (and back with
``d.reshape(..., 2, 3).swapaxes(-1, -2).reshape(..., 6)``).

Accuracy (max abs error against float64, tested on every variant)
------------------------------------------------------------------
euler_to_quat <= [bound:euler_to_quat] per component; quat_to_euler <= [bound:quat_to_euler] rad (a float32 ulp of pi is
2.4e-7) or [bound:quat_to_euler.degrees] degrees, gimbal lock included; rotvec_to_quat <= [bound:rotvec_to_quat]; quat_to_rotvec
<= [bound:quat_to_rotvec] * max(1, angle) rad per component; matrix_to_sixd exact; sixd_to_matrix <= [bound:sixd_to_matrix] for the
6D of a rotation (3e-7 / sin(angle between the halves) in general); quat_to_sixd as quat_to_matrix (4e-7), bit-identical to
``matrix_to_sixd(quat_to_matrix(q))``; sixd_to_quat as matrix_to_quat, bit-identical to
``matrix_to_quat(sixd_to_matrix(d))``.
"""
from __future__ import annotations
import warnings

from . import _core
from .bounds import fill_docstrings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._typing import _Layout
    from numpy.typing import ArrayLike
    from ._typing import Float32Array

__all__ = ["euler_to_quat", "quat_to_euler", "rotvec_to_quat", "quat_to_rotvec",
           "matrix_to_sixd", "sixd_to_matrix", "quat_to_sixd", "sixd_to_quat"]

_GIMBAL_MESSAGE = ("Gimbal lock detected. Setting third angle to zero since it is not possible "
                   "to uniquely determine all angles.")


def euler_to_quat(
    angles: ArrayLike,
    seq: str,
    *,
    degrees: bool = False,
    scalar_first: bool = False,
    out: Float32Array | None = None,
) -> Float32Array:
    """Quaternions ``(..., 4)`` of Euler angles ``(..., 3)``: SciPy's
    ``Rotation.from_euler(seq, angles, degrees=degrees).as_quat()``, sign included.

    Parameters
    ----------
    angles : array_like, (..., 3)
        The three angles, in the order of ``seq``; any magnitude (reduced exactly for degrees).
    seq : str
        Three axes: ``"xyz"``-style lowercase for extrinsic rotations (the quaternion is
        ``e2 * e1 * e0``), uppercase for intrinsic ones (``e0 * e1 * e2``), ``e_i`` the rotation
        by ``angles[..., i]`` about axis ``seq[i]``. Proper Euler sequences (``"ZXZ"``) too.
    degrees : bool
    scalar_first : bool
        Write ``(w, x, y, z)``.
    out : ndarray, float32 (..., 4), optional

    Error <= [bound:euler_to_quat] per component.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> np.round(skelsimd.euler_to_quat([90, 0, 0], "ZXY", degrees=True), 4)
    array([0.    , 0.    , 0.7071, 0.7071], dtype=float32)
    """
    return _core.euler_to_quat(angles, seq, out, degrees, scalar_first)


def quat_to_euler(
    q: ArrayLike,
    seq: str,
    *,
    degrees: bool = False,
    scalar_first: bool = False,
    suppress_warnings: bool = False,
    out: Float32Array | None = None,
) -> Float32Array:
    """Euler angles ``(..., 3)`` of quaternions ``(..., 4)``: SciPy's
    ``Rotation.from_quat(q).as_euler(seq, degrees=degrees)``.

    The first and third angles are in ``[-pi, pi]``, the middle one in ``[-pi/2, pi/2]`` for
    Tait-Bryan sequences (``"xyz"``) and ``[0, pi]`` for proper Euler ones (``"zxz"``). SciPy's
    range is ``[-pi, pi)``: an angle within the error bound of +-pi may come out at the other
    end (the same rotation).

    Gimbal lock: when the middle angle is within 1e-7 of its ends (0 or pi for proper Euler,
    +-pi/2 for Tait-Bryan), only the sum or the difference of the first and third angles is
    determined; as SciPy does, the third angle is set to 0 and the first carries the rotation,
    and a ``UserWarning`` ("Gimbal lock detected. Setting third angle to zero ...") is issued
    once per call unless ``suppress_warnings=True``. The lock is decided as SciPy decides it
    (on ``atan2(hypot(c, d), hypot(a, b))`` against 5e-8), so both agree except within float32
    rounding (a relative 1e-6) of the threshold itself.

    ``q`` may have any non-zero scale (no normalisation is needed); a zero quaternion gives
    ``(0, 0, 0)`` (SciPy raises), an inf or NaN component gives NaN. Error <= [bound:quat_to_euler] rad
    ([bound:quat_to_euler.degrees] degrees) per angle, near the lock included.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> q = skelsimd.euler_to_quat([10, 20, 30], "ZXY", degrees=True)
    >>> np.round(skelsimd.quat_to_euler(q, "ZXY", degrees=True), 3)
    array([10., 20., 30.], dtype=float32)
    """
    try:        # decided before the kernel runs, so that a bad value leaves out untouched
        suppress_warnings = bool(suppress_warnings)
    except Exception:
        raise TypeError("suppress_warnings: expected a bool") from None
    result, locked = _core.quat_to_euler(q, seq, out, degrees, scalar_first)
    if locked and not suppress_warnings:
        warnings.warn(_GIMBAL_MESSAGE, UserWarning, stacklevel=2)
    return result


def rotvec_to_quat(
    rotvec: ArrayLike,
    out: Float32Array | None = None,
    *,
    degrees: bool = False,
    scalar_first: bool = False,
) -> Float32Array:
    """The exponential map: quaternions ``(..., 4)`` of rotation vectors ``(..., 3)`` (axis times
    angle), ``(sin(theta/2) v/theta, cos(theta/2))`` with ``theta = |v|``: SciPy's
    ``Rotation.from_rotvec(rotvec, degrees=degrees).as_quat()``.

    Accurate at every angle: near 0 the ratio ``sin(theta/2) / theta`` comes from the sine
    polynomial without a division (exactly 1/2 at 0); near pi the cosine comes from the reduced
    argument; vectors longer than 3.2 rad (183 degrees) go through double precision. Error
    <= [bound:rotvec_to_quat] per component at any length.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> np.round(skelsimd.rotvec_to_quat([0, 0, np.pi]), 4) + 0
    array([0., 0., 1., 0.], dtype=float32)
    """
    return _core.rotvec_to_quat(rotvec, out, degrees, scalar_first)


def quat_to_rotvec(
    q: ArrayLike,
    out: Float32Array | None = None,
    *,
    degrees: bool = False,
    scalar_first: bool = False,
) -> Float32Array:
    """The logarithm map: rotation vectors ``(..., 3)`` of quaternions ``(..., 4)``, with the
    angle ``|v|`` in ``[0, pi]``: SciPy's ``Rotation.from_quat(q).as_rotvec(degrees=degrees)``.

    The quaternion is first put on SciPy's canonical hemisphere (``w > 0``, or for ``w = 0`` the
    first non-zero of x, y, z positive), so a 180-degree rotation gives the same vector as SciPy.
    Accurate near 0 (the scale ``2 atan(n/|w|) / n`` is evaluated as ``2 (atan(t)/t) / |w|``, no
    division by a small ``n``) and near pi (the angle is ``pi - 2 atan(|w|/n)``). ``q`` may have
    any non-zero scale; zero gives ``(0, 0, 0)``, inf/NaN gives NaN. Error <= [bound:quat_to_rotvec] * ``max(1, angle)``
    rad per component.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> np.round(skelsimd.quat_to_rotvec([0, 0, 1, 0]), 4) + 0
    array([0.    , 0.    , 3.1416], dtype=float32)
    """
    return _core.quat_to_rotvec(q, out, degrees, scalar_first)


def matrix_to_sixd(
    m: ArrayLike, out: Float32Array | None = None, *, layout: _Layout = "columns"
) -> Float32Array:
    """The 6D representation ``(..., 6)`` of rotation matrices ``(..., 3, 3)``: the first two
    columns one after the other (``layout="rows"``: the first two rows, PyTorch3D's
    ``matrix_to_rotation_6d``). An exact copy; see the module documentation for the layouts.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> skelsimd.matrix_to_sixd(np.eye(3))          # the first two columns
    array([1., 0., 0., 0., 1., 0.], dtype=float32)
    """
    return _core.matrix_to_sixd(m, out, layout)


def sixd_to_matrix(
    sixd: ArrayLike, out: Float32Array | None = None, *, layout: _Layout = "columns"
) -> Float32Array:
    """Rotation matrices ``(..., 3, 3)`` of 6D vectors ``(..., 6)`` by Gram-Schmidt:
    ``b1 = a / |a|``, ``b2`` = the part of ``b`` orthogonal to ``b1``, normalised,
    ``b3 = b1 x b2``, for ``a = sixd[..., :3]``, ``b = sixd[..., 3:]``; they are the columns of
    the result (``layout="rows"``: its rows, as PyTorch3D's ``rotation_6d_to_matrix``).

    The second vector is orthogonalised twice, so the result is orthonormal to rounding level
    (1e-6) for any input that has a rotation. Any 6D vector whose halves are non-zero and not
    parallel gives one (network outputs need no normalisation; the result does not depend on
    the scale of either half). A zero half, or halves within 2^-20 (1e-6 rad) of parallel,
    where float32 rounding leaves no direction, has no rotation: NaN. Error <= 3e-7 per entry for the 6D vector of a rotation;
    for general inputs 3e-7 / sin(angle between the halves) (the conditioning of the problem).

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.sixd_to_matrix([2, 0, 0, 1, 1, 0])  # Gram-Schmidt of the two columns
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    return _core.sixd_to_matrix(sixd, out, layout)


def quat_to_sixd(
    q: ArrayLike,
    out: Float32Array | None = None,
    *,
    layout: _Layout = "columns",
    scalar_first: bool = False,
) -> Float32Array:
    """``matrix_to_sixd(quat_to_matrix(q))`` in one pass (bit for bit the same).

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.quat_to_sixd([0, 0, 0, 1])
    array([1., 0., 0., 0., 1., 0.], dtype=float32)
    """
    return _core.quat_to_sixd(q, out, layout, scalar_first)


def sixd_to_quat(
    sixd: ArrayLike,
    out: Float32Array | None = None,
    *,
    layout: _Layout = "columns",
    scalar_first: bool = False,
) -> Float32Array:
    """``matrix_to_quat(sixd_to_matrix(sixd))`` in one pass (bit for bit the same; ``w >= 0``).

    Examples
    --------
    >>> import skelsimd
    >>> skelsimd.sixd_to_quat([1, 0, 0, 0, 1, 0])
    array([0., 0., 0., 1.], dtype=float32)
    """
    return _core.sixd_to_quat(sixd, out, layout, scalar_first)


fill_docstrings(globals())
