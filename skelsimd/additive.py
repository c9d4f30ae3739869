"""Additive animation: deltas of poses against a reference pose and their weighted application
on top of other poses (ozz-animation's AdditiveAnimationBuilder and the additive layers of its
BlendingJob).

Convention (ozz-animation's): the delta of a QTS joint ``(q, t, s)`` against the reference
``(q_ref, t_ref, s_ref)`` is

* rotation ``conj(q_ref) * q`` (``q_ref^-1 q``: the delta is in the joint's local frame, applied
  on the right: ``q = q_base * delta``),
* translation ``t - t_ref``,
* scale ``s / s_ref``.

Other runtimes differ in the side of the rotation and in the scale. ACL
(``convert_to_additive0`` / ``convert_to_additive1``) takes the rotation and translation deltas
as ozz does; its ``additive0`` scale is ``s / s_ref`` applied as ``s_base * ds`` (ozz's), its
``additive1`` scale ``s / s_ref - 1`` applied as ``s_base * (1 + ds)`` (so deltas blend linearly
from 0). Unreal Engine (``FAnimationRuntime::ConvertTransformToAdditive``) takes the rotation
delta on the other side, ``q * q_ref^-1`` (applied as ``delta * q_base``), the translation
``t - t_ref`` and the scale ``s / s_ref - 1`` (applied as ``s_base * (1 + ds)``, ACL's
``additive1``). Deltas made here are meant for
:func:`apply_additive` (and ``blend_layers(..., additive=...)``); deltas from another runtime
must be converted to this convention first.

Accuracy (unit quaternions, translations and scales of unit magnitude, every SIMD variant,
bit-identical across variants; tested): ``make_additive`` within [bound:additive.make] of the
float64 reference per component; ``apply_additive`` within [bound:additive.apply];
``apply_additive(reference, make_additive(x, reference))`` gives ``x`` back within
[bound:additive.round_trip] (rotations up to sign: ``q`` and ``-q`` are the same rotation).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._typing import Float32Array
from ._validate import broadcast_shapes as _broadcast_shapes
from ._validate import number as _number
from .bounds import fill_docstrings

__all__ = ["make_additive", "apply_additive", "IDENTITY_QTS"]

IDENTITY_QTS = np.array([0, 0, 0, 1, 0, 0, 0, 1], dtype=np.float32)
"""The identity QTS joint ``(0, 0, 0, 1, 0, 0, 0, 1)``: the rest pose of ``reference="rest"``."""
IDENTITY_QTS.flags.writeable = False


def _unit_range(v: float) -> bool:
    return -1.0 <= v <= 1.0


def _as_f32(x: npt.ArrayLike, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a real numeric array, got dtype {a.dtype}")
    return np.asarray(a, dtype=np.float32, order="C")


def make_additive(local: npt.ArrayLike,
                  reference: Union[str, npt.ArrayLike] = "first",
                  *, out: Optional[np.ndarray] = None) -> Float32Array:
    """Additive deltas of local QTS poses against a reference pose (ozz-animation's
    AdditiveAnimationBuilder).

    Parameters
    ----------
    local : array_like, (..., F, J, 8) or (J, 8)
        Local QTS poses (qx, qy, qz, qw, tx, ty, tz, s): F frames of J joints, with any leading
        batch dimensions (clips, characters).
    reference : {"first", "rest"} or array_like (J, 8) or (..., J, 8)
        ``"first"``: the first frame of each clip, ``local[..., 0, :, :]`` (axis -3 is the
        frame axis; every leading batch item uses its own first frame, as ozz takes the first
        key of each track). A single pose ``(J, 8)`` is its own first frame, so its deltas are
        identities. ``"rest"``: the identity pose (then the deltas are the poses themselves).
        An array: a reference pose ``(J, 8)``, or poses whose leading dimensions broadcast with
        ``local``'s. Reference scales must not be 0.
    out : ndarray, float32 (..., F, J, 8), optional
        May be exactly ``local`` (in place).

    Returns
    -------
    ndarray, float32, the shape of ``local``
        Rotation ``conj(q_ref) * q``, translation ``t - t_ref``, scale ``s / s_ref``.

    Raises
    ------
    TypeError
        A non-numeric input or ``reference`` an unknown string type.
    ValueError
        Shapes (naming the argument), an unknown reference name, a zero reference scale.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> clip = np.tile(skelsimd.additive.IDENTITY_QTS, (3, 2, 1))   # 3 frames, 2 joints
    >>> clip[:, 0, 4] = [0.0, 1.0, 2.0]                              # joint 0 moves along x
    >>> delta = skelsimd.make_additive(clip)                          # against frame 0
    >>> delta[2, 0, 4:].tolist()
    [2.0, 0.0, 0.0, 1.0]
    >>> back = skelsimd.apply_additive(clip[0], delta)                # frame 0 + deltas
    >>> bool(np.allclose(back, clip))
    True
    """
    x = _as_f32(local, "local")
    if x.ndim < 2 or x.shape[-1] != 8:
        raise ValueError(f"local: expected shape (..., F, J, 8), got {x.shape}")
    J = x.shape[-2]
    if isinstance(reference, str):
        if reference == "first":
            if x.ndim == 2:
                ref = x[None].copy()   # a copy: out may be local (in place)
                frames = 1
            elif x.shape[-3] == 0:     # no frames: no first frame, nothing to compute
                ref = np.empty((0, J, 8), np.float32)
                frames = 0
            else:
                ref = x[..., 0, :, :].copy().reshape(-1, J, 8)
                frames = x.shape[-3]
        elif reference == "rest":
            ref = np.ascontiguousarray(np.broadcast_to(IDENTITY_QTS, (1, J, 8)))
            frames = int(np.prod(x.shape[:-2], dtype=np.int64))
        else:
            raise ValueError(f"reference: expected 'first', 'rest' or a pose (J, 8), "
                             f"got {reference!r}")
    else:
        r = _as_f32(reference, "reference")
        if r.ndim < 2 or r.shape[-2:] != (J, 8):
            raise ValueError(f"reference: expected a pose ({J}, 8) or poses (..., {J}, 8) "
                             f"(J = local.shape[-2]), got {r.shape}")
        lead = x.shape[:-2]
        full = _broadcast_shapes([r.shape[:-2], lead], "reference and local", 2)
        if full != lead:
            raise ValueError(f"reference: leading dimensions {r.shape[:-2]} would broadcast "
                             f"local {lead} to {full}")
        if int(np.prod(r.shape[:-2], dtype=np.int64)) == 1:
            ref = r.reshape(1, J, 8)
            frames = int(np.prod(lead, dtype=np.int64))
        else:
            ref = np.ascontiguousarray(np.broadcast_to(r, lead + (J, 8))).reshape(-1, J, 8)
            frames = 1
    if ref.size and not np.all(ref[..., 7] != 0):
        bad = np.argwhere(ref[..., 7] == 0)[0]
        raise ValueError(f"reference: scale 0 at joint {bad[-1]}: expected non-zero reference "
                         f"scales (the delta scale is s / s_ref)")
    if x.size == 0:
        frames = 0 if ref.shape[0] else frames
        ref = ref[:0] if frames == 0 else ref
    return _core.make_additive(x, ref, frames, out)


def apply_additive(base: npt.ArrayLike, delta: npt.ArrayLike, weight: float = 1.0,
                   mask: Optional[npt.ArrayLike] = None,
                   out: Optional[np.ndarray] = None) -> Float32Array:
    """Add (or, with a negative weight, subtract) additive deltas on top of base poses: the
    additive layers of ozz-animation's BlendingJob.

    Parameters
    ----------
    base : array_like, (..., J, 8)
        QTS poses.
    delta : array_like, (..., J, 8)
        Deltas from :func:`make_additive`; leading dimensions broadcast with ``base``'s (one
        delta pose on every base pose, or one base pose under every delta pose).
    weight : float in [-1, 1]
        0 gives ``base`` exactly; 1 adds the whole delta; -1 subtracts it (applies its inverse),
        so adding then subtracting gives the base back (within rounding).
    mask : array_like, (J,), optional
        Per-joint weights in [0, 1], multiplied with ``weight`` (ozz's ``joint_weights``).
    out : ndarray, float32 (..., J, 8), optional
        Of the broadcast shape; may be exactly ``base`` (in place) when ``base`` has that shape;
        must not overlap ``delta``.

    Returns
    -------
    ndarray, float32 (..., J, 8)
        With ``a = |weight| mask[j]`` and the delta rotation ``d`` taken with ``d.w >= 0``:
        rotation ``q_base * nlerp(identity, d, a)`` (its conjugate for ``weight < 0``),
        translation ``t_base + weight mask[j] t_d``, scale ``s_base (s_d a + 1 - a)`` (divided by
        that factor for ``weight < 0``; a delta scale of 0 cannot be subtracted at a = 1: inf).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> base = np.tile(skelsimd.additive.IDENTITY_QTS, (4, 1))
    >>> nod = base.copy(); nod[1, :4] = [np.sin(0.25), 0, 0, np.cos(0.25)]   # 0.5 rad about x
    >>> delta = skelsimd.make_additive(nod, "rest")
    >>> half = skelsimd.apply_additive(base, delta, 0.5)
    >>> round(float(2 * np.arctan2(half[1, 0], half[1, 3])), 4)   # nlerp: about half the angle
    0.25
    >>> np.array_equal(skelsimd.apply_additive(base, delta, 0.0), base)
    True
    """
    if type(weight) is not float:   # floats: checked by the glue
        weight = _number(weight, "weight", _unit_range, "a number in [-1, 1]")
    b = base if isinstance(base, np.ndarray) and base.dtype == np.float32 and \
        base.flags.c_contiguous else _as_f32(base, "base")
    d = delta if isinstance(delta, np.ndarray) and delta.dtype == np.float32 and \
        delta.flags.c_contiguous else _as_f32(delta, "delta")
    if b.ndim >= 2 and d.ndim >= 2 and d.shape[:-2] != b.shape[:-2] and \
            d.shape[-2:] == b.shape[-2:]:
        full = _broadcast_shapes([d.shape[:-2], b.shape[:-2]], "delta and base", 2)
        if full != b.shape[:-2]:
            b = np.ascontiguousarray(np.broadcast_to(b, full + b.shape[-2:]))
        if d.shape[:-2] != full and int(np.prod(d.shape[:-2], dtype=np.int64)) != 1:
            d = np.ascontiguousarray(np.broadcast_to(d, full + d.shape[-2:]))
    return _core.apply_additive(b, d, weight, mask, out)


def _check_layer(name: str, pose_shape: Any, delta: npt.ArrayLike, weight: float,
                 mask: Optional[npt.ArrayLike] = None) -> Tuple[np.ndarray, float, Any]:
    """An additive layer of blend_layers checked against the blended poses' shape before
    anything is written: (delta float32 of one pose or of pose_shape, weight, mask float32)."""
    weight = _number(weight, f"{name}: weight", _unit_range, "a number in [-1, 1]")
    d = _as_f32(delta, f"{name}: delta")
    if pose_shape is not None:
        J = pose_shape[-2]
        if d.ndim < 2 or d.shape[-2:] != (J, 8):
            raise ValueError(f"{name}: delta: expected shape (..., {J}, 8), got {d.shape}")
        if int(np.prod(d.shape[:-2], dtype=np.int64)) != 1 and d.shape != pose_shape:
            try:
                ok = _broadcast_shapes([d.shape, pose_shape], "delta") == pose_shape
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"{name}: delta: expected one pose ({J}, 8) or poses "
                                 f"broadcasting to {pose_shape}, got {d.shape}")
            d = np.ascontiguousarray(np.broadcast_to(d, pose_shape))
        if mask is not None:
            m = _as_f32(mask, f"{name}: mask")
            if m.shape != (J,):
                raise ValueError(f"{name}: mask: expected shape ({J},), got {m.shape}")
            if not np.all((m >= 0) & (m <= 1)):
                raise ValueError(f"{name}: mask: expected per-joint weights in [0, 1]")
            mask = m
    return d, float(weight), mask


fill_docstrings(globals())
