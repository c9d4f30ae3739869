"""Inverse kinematics, batched: two-bone IK and aim IK as SIMD kernels over any number of chains
(ozz-animation's IKTwoBoneJob and IKAimJob solve one chain per call), and the whole step on local
QTS poses of a :class:`~skelsimd.Skeleton`: :func:`two_bone`, :func:`look_at` (aim spread over a
chain of ancestors, as ozz's look-at sample does) and :func:`solve_chain` (cyclic coordinate
descent for chains of any length), available as the Skeleton methods of the same names.

Conventions
-----------
Joint matrices are model-space float32 ``(..., 3, 4)`` ``[R | t]`` (``qts_local_to_global_matrix``
gives them). Targets and pole vectors are in model space; ``mid_axis``, ``forward``, ``up`` and
``offset`` are in the joint's own space. The kernels return *local rotation corrections*
(quaternions x, y, z, w): a joint's local rotation ``q`` becomes ``q * correction``. Every
operand broadcasts over the leading dimensions (one target for many characters, or one per
frame and character); the kernels run SKS_W chains side by side per SIMD vector, bit-identical on
every target.

Degenerate inputs never give NaN: a chain with a non-finite input, a singular joint matrix, a
zero-length bone or a zero ``mid_axis`` / ``forward`` gets identity corrections and
``reached = False``; a pole vector parallel to the
start-target line (or an aim's up vector parallel to the target direction) skips the plane
rotation (the chain turns onto the target and keeps its plane as far as possible); a target at
the start joint (two-bone: the target and the start-to-end vector both within about 1e-6 of the
chain length) gives no rotation onto it (the mid joint still folds to the reachable length).

Accuracy (tested): with ``reached`` true and ``soften=1``, re-walking the corrected pose puts the
end joint at the target within [bound:ik.two_bone.reach] times the chain length; an aim joint's
forward axis points at the target within [bound:ik.aim.angle] radians; corrections match the
float64 reference of the same method within [bound:ik.correction] per component on
well-conditioned chains (the bend away from full extension and the target away from the pole).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._typing import BoolArray, Float32Array
from ._validate import MAXDIMS as _MAXDIMS
from ._validate import broadcast_shapes as _broadcast_shapes
from ._validate import number as _number
from .bounds import fill_docstrings
from .quat import quat_multiply

__all__ = ["ik_two_bone", "bend_axis", "ik_aim", "two_bone", "look_at", "solve_chain"]

_F32 = np.float32


_CONSTANTS: Dict[Any, np.ndarray] = {}


_F32D = np.dtype(np.float32)


def _as_f32(x: npt.ArrayLike, name: str) -> np.ndarray:
    if type(x) is np.ndarray and x.dtype is _F32D:   # the glue makes it contiguous if needed
        return x
    if type(x) in (float, int, tuple):   # per-frame callers: defaults and literals, converted once
        try:
            return _CONSTANTS[x]
        except (KeyError, TypeError):
            pass
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a real numeric array, got dtype {a.dtype}")
    a = np.asarray(a, dtype=_F32, order="C")
    if type(x) in (float, int, tuple) and a.ndim <= 1 and len(_CONSTANTS) < 256:
        try:
            a = a.copy()
            a.flags.writeable = False
            _CONSTANTS[x] = a
        except TypeError:
            pass
    return a


_TRAILING = {12: (3, 4), 3: (3,), 1: ()}
_LAYOUT = {12: "(..., 3, 4)", 3: "(..., 3)", 1: "a number or (...)"}


def _trailing(width: Union[int, Tuple[int, ...]]) -> Tuple[int, ...]:
    return _TRAILING[width] if isinstance(width, int) else width


def _batch(func: str, specs: Sequence[Tuple[str, Any, Union[int, Tuple[int, ...]]]]
           ) -> Tuple[Tuple[int, ...], int, List[np.ndarray]]:
    """Converts the operands (name, value, floats per item or the item's shape), checks their
    trailing shapes and broadcasts their leading dimensions: (shape, n, [arrays of 1 or n
    items])."""
    arrays, leads = [], []
    for name, value, width in specs:
        a = _as_f32(value, name)
        tr = _trailing(width)
        k = len(tr)
        if a.ndim < k or (k and a.shape[a.ndim - k:] != tr):
            layout = _LAYOUT[width] if isinstance(width, int) else f"(..., {', '.join(map(str, tr))})"
            raise ValueError(f"{name}: expected shape {layout}, got {a.shape}")
        arrays.append(a)
        leads.append(a.shape[:a.ndim - k])
    shape = max(leads, key=len)
    if not all(lead == shape or not lead for lead in leads) or len(shape) >= _MAXDIMS:
        try:   # NumPy's rules, without its limit of 32 dimensions; the results get one more
            shape = _broadcast_shapes(leads, func, 1)
        except ValueError as e:
            got = ", ".join(f"{s[0]} {a.shape}" for s, a in zip(specs, arrays))
            raise ValueError(f"{e}: {got}") from None
    n = 1
    for d in shape:
        n *= d
    out = []
    for (name, _, width), a, lead in zip(specs, arrays, leads):
        tr = _trailing(width)
        if lead != shape and a.size != math.prod(tr):
            a = np.ascontiguousarray(np.broadcast_to(a, shape + tr))
        out.append(a)
    return shape, n, out


_ZERO, _ONE = np.zeros((), _F32), np.ones((), _F32)


def _twist(twist: npt.ArrayLike) -> Tuple[np.ndarray, np.ndarray]:
    if isinstance(twist, (int, float)) and twist == 0:
        return _ZERO, _ONE
    t = np.asarray(twist)
    if t.dtype.kind not in "biuf":
        raise TypeError(f"twist: expected a real number or array, got dtype {t.dtype}")
    half = 0.5 * t.astype(np.float64)
    return np.sin(half).astype(_F32), np.cos(half).astype(_F32)


# mid_axis=None on a chain whose bones make an angle with a sine below this (in float64, from
# the float32 positions): the chain is straight, the fallback rule of bend_axis applies.
STRAIGHT_SINE = 1e-4


def _bend_operand(x: npt.ArrayLike, name: str, block: Tuple[int, ...]) -> np.ndarray:
    """An operand of bend_axis as float64, its trailing shape and rank checked."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got dtype {a.dtype}")
    if a.shape[a.ndim - len(block):] != block or a.ndim < len(block):
        layout = "(..., " + ", ".join(map(str, block)) + ")"
        raise ValueError(f"{name}: expected shape {layout}, got {a.shape}")
    if a.ndim - len(block) > _MAX_LEAD:
        raise ValueError(f"{name}: expected at most {_MAX_LEAD} leading dimensions, got "
                         f"{a.ndim - len(block)}")
    return a.astype(np.float64, copy=False)


_MAX_LEAD = 30


def bend_axis(start: npt.ArrayLike, mid: npt.ArrayLike, end: npt.ArrayLike,
              pole: npt.ArrayLike) -> Float32Array:
    """The mid joint's bend axis in its own space, from the chain's current pose: what
    ``ik_two_bone(..., mid_axis=None)`` uses, batched like it.

    The unit normal of the plane of the two bones, ``cross(mid - start, end - mid)`` (joint
    positions), carried into the mid joint's space (``R^-1 n``, ``R`` the mid matrix's 3x3
    part): the chain keeps bending the way it bends now (a knee stays a knee, it does not fold
    backwards). A straight chain (the sine of the angle between the bones below
    ``STRAIGHT_SINE``) takes ``cross(pole, end - start)`` instead, the axis that bends it
    towards the pole. A chain that is straight and parallel to the pole, or a singular mid
    matrix, gets a zero axis (identity corrections, not reached).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> def at(x, y, z):
    ...     m = np.zeros((3, 4), np.float32); m[:, :3] = np.eye(3); m[:, 3] = (x, y, z)
    ...     return m
    >>> skelsimd.bend_axis(at(0, 1, 0), at(0, 0.5, 0.01), at(0, 0, 0), [0, 0, 1])
    array([1., 0., 0.], dtype=float32)
    """
    s, m, e = (_bend_operand(x, name, (3, 4))
               for x, name in ((start, "start"), (mid, "mid"), (end, "end")))
    p = _bend_operand(pole, "pole", (3,))
    try:
        np.broadcast_shapes(s.shape[:-2], m.shape[:-2], e.shape[:-2], p.shape[:-1])
    except ValueError:
        raise ValueError(f"start, mid, end, pole: leading dimensions {s.shape[:-2]}, "
                         f"{m.shape[:-2]}, {e.shape[:-2]}, {p.shape[:-1]} do not broadcast "
                         "together") from None
    a, b = m[..., :, 3] - s[..., :, 3], e[..., :, 3] - m[..., :, 3]
    n = np.cross(a, b)
    straight = (np.linalg.norm(n, axis=-1)
                <= STRAIGHT_SINE * np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
    n = np.where(straight[..., None], np.cross(p, a + b), n)
    c0, c1, c2 = m[..., :, 0], m[..., :, 1], m[..., :, 2]
    rows = np.cross(c1, c2), np.cross(c2, c0), np.cross(c0, c1)     # det(R) R^-1, by rows
    det = np.sum(c0 * rows[0], axis=-1)
    local = np.stack([np.sum(r * n, axis=-1) for r in rows], axis=-1) * np.sign(det)[..., None]
    size = np.linalg.norm(local, axis=-1, keepdims=True)
    ok = np.isfinite(size) & (size > 0)
    result: Float32Array = np.where(ok, local / np.where(ok, size, 1.0), 0.0).astype(_F32)
    return result


def ik_two_bone(start: npt.ArrayLike, mid: npt.ArrayLike, end: npt.ArrayLike,
                target: npt.ArrayLike, *, pole: npt.ArrayLike,
                mid_axis: Optional[npt.ArrayLike] = (0, 0, 1), twist: npt.ArrayLike = 0.0,
                soften: npt.ArrayLike = 1.0, weight: npt.ArrayLike = 1.0
                ) -> Tuple[Float32Array, Float32Array, BoolArray]:
    """Two-bone IK (ozz-animation's IKTwoBoneJob), batched over any leading dimensions.

    Parameters
    ----------
    start, mid, end : array_like, (..., 3, 4)
        Model-space matrices of the chain's three joints (a hip, knee and ankle; they need not
        be parent and child: only their positions and the start and mid joints' frames count).
    target : array_like, (..., 3)
        Where the end joint should go, in model space.
    pole : array_like, (..., 3)
        Model-space direction the chain's plane should contain (where the knee points).
    mid_axis : array_like, (..., 3), or None; default (0, 0, 1)
        The mid joint's bending axis in its own space (normalised by the kernel; the chain bends
        positively about it). A zero axis is degenerate: identity corrections, not reached.
        None (the choice for motion-capture clips, whose knees and elbows rarely bend about a
        fixed local axis) takes it from the chain's current pose: :func:`bend_axis`, the
        normal of the plane of the two bones in the mid joint's space, and for a straight
        chain the axis that bends it towards the pole. The default (0, 0, 1) suits rigs whose
        hinge is the mid joint's local z (ozz-animation's convention).
    twist : float or array_like (...), default 0
        Rotation of the chain's plane about the start-to-target line, in radians.
    soften : float or array_like (...), default 1
        In [0, 1] (clamped): the chain starts falling behind the target when it is further than
        ``soften`` times the chain length, so it never snaps straight (1: no softening).
    weight : float or array_like (...), default 1
        Blends the corrections from the identity (nlerp); <= 0 gives identities, >= 1 the full
        correction.

    Returns
    -------
    start_correction, mid_correction : ndarray, float32 (..., 4)
        Local rotation corrections (x, y, z, w, ``w >= 0``): the start and mid joints' local
        rotations ``q`` become ``q * correction``.
    reached : ndarray, bool (...)
        The target is within the (softened) reach and further than the two bones' length
        difference from the start joint, and ``weight >= 1``. An unreachable target gives the
        straight chain pointing at it.

    Degenerate chains (a non-finite input, a singular matrix, a zero-length bone) give
    identity corrections and ``reached`` False; see the module documentation.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> def at(x, y, z):
    ...     m = np.zeros((3, 4), np.float32); m[:, :3] = np.eye(3); m[:, 3] = (x, y, z)
    ...     return m
    >>> hip, knee, ankle = at(0, 1, 0), at(0, 0.5, 0.01), at(0, 0, 0)   # a leg along -y
    >>> qs, qm, ok = skelsimd.ik_two_bone(hip, knee, ankle, [0.3, 0.3, 0.0], pole=[0, 0, 1],
    ...                                   mid_axis=[1, 0, 0])
    >>> bool(ok), qs.shape, qm.shape
    (True, (4,), (4,))
    """
    ts, tc = _twist(twist)
    if mid_axis is None:
        try:
            mid_axis = bend_axis(start, mid, end, pole)
        except (TypeError, ValueError, IndexError):
            # operands the kernel refuses: its error names the argument
            ik_two_bone(start, mid, end, target, pole=pole, twist=twist, soften=soften,
                        weight=weight)
            raise
    return _core.ik_two_bone(start, mid, end, target, pole, mid_axis, ts, tc, soften, weight)


def ik_aim(joint: npt.ArrayLike, target: npt.ArrayLike, *, forward: npt.ArrayLike = (1, 0, 0),
           up: npt.ArrayLike = (0, 1, 0), offset: npt.ArrayLike = (0, 0, 0),
           pole: npt.ArrayLike = (0, 1, 0), twist: npt.ArrayLike = 0.0,
           weight: npt.ArrayLike = 1.0) -> Tuple[Float32Array, BoolArray]:
    """Aim IK (ozz-animation's IKAimJob): the local rotation correction that makes a joint's
    forward axis (from an offset point) point at a target, its up axis turned towards a pole,
    batched over any leading dimensions.

    Parameters
    ----------
    joint : array_like, (..., 3, 4)
        Model-space matrix of the aiming joint.
    target : array_like, (..., 3)
        Model-space point to aim at.
    forward : array_like, (..., 3), default (1, 0, 0)
        The aiming axis in joint space (normalised by the kernel; a zero axis gives the
        identity, not reached).
    up : array_like, (..., 3), default (0, 1, 0)
        Joint-space axis to turn towards the pole (any length; parallel to the target direction:
        no plane rotation).
    offset : array_like, (..., 3), default (0, 0, 0)
        Joint-space position the aim starts from (the eyes of a head joint): the forward line
        through it is made to pass through the target.
    pole : array_like, (..., 3), default (0, 1, 0)
        Model-space direction the up axis is turned towards (about the target direction).
    twist : float or array_like (...), default 0
        Rotation about the target direction, radians.
    weight : float or array_like (...), default 1
        Blends the correction from the identity (nlerp); <= 0 gives the identity.

    Returns
    -------
    correction : ndarray, float32 (..., 4)
        The joint's local rotation ``q`` becomes ``q * correction`` (``w >= 0``).
    reached : ndarray, bool (...)
        False when the offset point is further from the forward line than the target is from
        the joint (the target cannot be aimed at: identity correction), and for degenerate
        inputs (non-finite, singular matrix).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> head = np.hstack([np.eye(3), [[0], [1.7], [0]]]).astype(np.float32)
    >>> q, ok = skelsimd.ik_aim(head, [[0, 1.7, 2.0], [2.0, 1.7, 0.0]])   # two targets
    >>> v = skelsimd.quat_rotate(q, np.float32([1, 0, 0]))               # the new forward axis
    >>> np.round(v, 5).tolist(), ok.tolist()
    ([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], [True, True])
    """
    ts, tc = _twist(twist)
    return _core.ik_aim(joint, target, pole, forward, up, offset, ts, tc, weight)


# --- on local poses of a skeleton ------------------------------------------------------------

MAX_CHAIN_ITERATIONS = 10_000
"""The most iterations :func:`solve_chain` accepts (more is a ValueError). It also stops early,
before ``iterations``, once every pose is within the tolerance or the chain has stopped moving
(no pose's error improved by more than a few float32 roundings of the chain length in
``_STALL`` iterations in a row: an unreachable target, or a chain stuck at a singularity)."""
_STALL = 8
_STILL = 4 * float(np.finfo(np.float32).eps)


def _non_negative(v: float) -> bool:
    return v >= 0


def _qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return quat_multiply(a, b)


def _local_pose(local: npt.ArrayLike, skeleton: Any) -> np.ndarray:
    x = _as_f32(local, "local")
    if x.ndim < 2 or x.shape[-2:] != (len(skeleton), 8):
        raise ValueError(f"local: expected shape (..., {len(skeleton)}, 8) for this skeleton of "
                         f"{len(skeleton)} joints, got {x.shape}")
    return x


def _check_descending(skeleton: Any, joints: Sequence[int], name: str) -> None:
    """Each joint an ancestor of the next (joints[0] the top)."""
    p = skeleton.parents
    for a, b in zip(joints[:-1], joints[1:]):
        j = int(p[b])
        while j >= 0 and j != a:
            j = int(p[j])
        if j != a:
            raise ValueError(f"{name}: joint {int(a)} is not an ancestor of joint {int(b)}; "
                             f"expected each joint an ancestor of the next")


def _descending(skeleton: Any, joints: Sequence[Any], name: str) -> Tuple[int, ...]:
    """The indices of ``joints``, each an ancestor of the next."""
    idx = tuple(int(j) for j in skeleton.indices(list(joints)))
    _check_descending(skeleton, idx, name)
    return idx


def _aim_chain(skeleton: Any, joints: Sequence[Any]) -> Tuple[int, ...]:
    """The indices of a look-at chain: at least one joint, each a descendant of the next."""
    idx = tuple(int(j) for j in skeleton.indices(list(joints)))
    if not idx:
        raise ValueError("chain: expected at least one joint")
    _check_descending(skeleton, idx[::-1], "chain")
    return idx


def _ccd_chain(skeleton: Any, joints: Sequence[Any]) -> Tuple[int, ...]:
    """The indices of a CCD chain: at least two joints, each an ancestor of the next."""
    idx = tuple(int(j) for j in skeleton.indices(list(joints)))
    if len(idx) < 2:
        raise ValueError(f"chain: expected at least two joints (root to end effector), got {len(idx)}")
    _check_descending(skeleton, idx, "chain")
    return idx


_X_AXIS = np.array([1.0, 0.0, 0.0])
_X_AXIS.flags.writeable = False


def _corrected_copy(x: np.ndarray, lead: Tuple[int, ...]) -> np.ndarray:
    """A new C-contiguous float32 copy of the poses ``x`` broadcast with the corrections'
    leading shape ``lead`` (the IK steps write the corrected rotations into it)."""
    if lead == x.shape[:-2] and len(lead) + 3 <= _MAXDIMS:
        return x.copy()
    shape = _broadcast_shapes([x.shape[:-2], lead], "local and target", 3)
    return np.array(np.broadcast_to(x, shape + x.shape[-2:]), dtype=_F32)


_CHAINS_KEPT = 64


def _chain(skeleton: Any, joints: Sequence[Any], kind: str,
           resolve: Callable[[Sequence[Any]], Tuple[int, ...]]) -> Tuple[int, ...]:
    """The joint indices of ``joints`` by ``resolve`` (names looked up, the chain validated),
    remembered per skeleton: a Skeleton is immutable, so a chain given again with the same
    names or indices (of the same types) resolves to the same indices without the look-ups and
    ancestor walks. Chains that do not resolve raise in ``resolve`` and are not remembered."""
    cache = getattr(skeleton, "_ik_chains", None)
    joints = tuple(joints)
    if cache is None:
        return resolve(joints)
    try:
        key = (kind, joints, tuple(map(type, joints)))
        hit: Optional[Tuple[int, ...]] = cache.get(key)
    except TypeError:   # an unhashable joint: resolve raises the usual error
        return resolve(joints)
    if hit is None:
        hit = resolve(joints)
        if len(cache) >= _CHAINS_KEPT:
            cache.clear()
        cache[key] = hit
    return hit


def two_bone(skeleton: Any, local: npt.ArrayLike, joints: Sequence[Union[int, np.integer[Any], str]],
             target: npt.ArrayLike, *, pole: npt.ArrayLike,
             mid_axis: Optional[npt.ArrayLike] = (0, 0, 1),
             twist: npt.ArrayLike = 0.0, soften: npt.ArrayLike = 1.0,
             weight: npt.ArrayLike = 1.0, return_reached: bool = False) -> Any:
    """Two-bone IK on local QTS poses: ``Skeleton.two_bone``. See that method."""
    x = _local_pose(local, skeleton)
    if isinstance(joints, (str, int, np.integer)) or len(joints) != 3:
        raise ValueError("joints: expected three joints (start, mid, end), e.g. "
                         "('LeftUpLeg', 'LeftLeg', 'LeftFoot')")
    s, m, e = _chain(skeleton, joints, "two_bone", lambda js: _descending(skeleton, js, "joints"))
    g = _core.qts_local_to_global_matrix(x, skeleton, None, 0, e + 1, None)
    qs, qm, reached = ik_two_bone(g[..., s, :, :], g[..., m, :, :], g[..., e, :, :], target,
                                  pole=pole, mid_axis=mid_axis, twist=twist, soften=soften,
                                  weight=weight)
    out = _corrected_copy(x, qs.shape[:-1])
    out[..., s, :4] = _qmul(out[..., s, :4], qs)
    out[..., m, :4] = _qmul(out[..., m, :4], qm)
    return (out, reached) if return_reached else out


def look_at(skeleton: Any, local: npt.ArrayLike, chain: Sequence[Union[int, np.integer[Any], str]],
            target: npt.ArrayLike, weights: Optional[npt.ArrayLike] = None, *,
            forward: npt.ArrayLike = (1, 0, 0), up: npt.ArrayLike = (0, 1, 0),
            offset: npt.ArrayLike = (0, 0, 0), pole: npt.ArrayLike = (0, 1, 0),
            twist: npt.ArrayLike = 0.0) -> Float32Array:
    """Aim spread over a chain of ancestors on local QTS poses: ``Skeleton.look_at``. See that
    method. The chain's model matrices come from one forward-kinematics call; the whole chain is
    solved by one kernel call (SKS_W characters side by side, the chain joint by joint)."""
    x = _local_pose(local, skeleton)
    idx = _chain(skeleton, [chain] if isinstance(chain, str) else chain, "look_at",
                 lambda js: _aim_chain(skeleton, js))
    c = len(idx)
    if weights is None:
        w = np.ones(c, _F32)
    else:
        wa = np.asarray(weights)
        if wa.dtype.kind not in "biuf":
            raise TypeError(f"weights: expected real numbers, got dtype {wa.dtype}")
        if wa.shape != (c,):
            raise ValueError(f"weights: expected shape ({c},) (one per chain joint), got {wa.shape}")
        w = wa.astype(_F32)
        if not np.all(np.isfinite(w)):
            raise ValueError("weights: expected finite weights")
    g = _core.qts_local_to_global_matrix(x, skeleton, None, 0, max(idx) + 1, None)
    ts, tc = _twist(twist)
    shape, n, ops = _batch("look_at", [
        ("local", g[..., list(idx), :, :], (c, 3, 4)), ("target", target, 3), ("pole", pole, 3),
        ("forward", forward, 3), ("up", up, 3), ("offset", offset, 3),
        ("twist", ts, 1), ("twist", tc, 1)])
    m, t, p, f, u, o, s, co = ops
    q = _core.ik_look_at(n, m, t, p, f, u, o, s, co, w).reshape(shape + (c, 4))
    out = _corrected_copy(x, shape)
    rows = list(idx)
    out[..., rows, :4] = _qmul(out[..., rows, :4], q)
    result: Float32Array = out
    return result


def solve_chain(skeleton: Any, local: npt.ArrayLike, chain: Sequence[Union[int, np.integer[Any], str]],
                target: npt.ArrayLike, *, iterations: int = 16, tolerance: float = 1e-3,
                return_error: bool = False) -> Any:
    """Cyclic coordinate descent on local QTS poses: ``Skeleton.solve_chain``. See that
    method."""
    x = _local_pose(local, skeleton)
    if isinstance(iterations, (bool, np.bool_)) or not isinstance(iterations, (int, np.integer)) \
            or not 0 <= iterations <= MAX_CHAIN_ITERATIONS:
        raise ValueError(f"iterations: expected an int in [0, {MAX_CHAIN_ITERATIONS}] "
                         f"(MAX_CHAIN_ITERATIONS), got {iterations!r}")
    tol = _number(tolerance, "tolerance", _non_negative, "a finite number >= 0")
    idx = list(_chain(skeleton, chain, "solve_chain", lambda js: _ccd_chain(skeleton, js)))
    t = _as_f32(target, "target")
    if t.ndim < 1 or t.shape[-1] != 3:
        raise ValueError(f"target: expected shape (..., 3), got {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError("target: expected finite coordinates, got NaN or inf")
    shape = _broadcast_shapes([x.shape[:-2], t.shape[:-1]], "local and target", 3)
    out = np.array(np.broadcast_to(x, shape + x.shape[-2:]), dtype=_F32)
    t = np.broadcast_to(t, shape + (3,))
    stop = idx[-1] + 1
    g = _core.qts_local_to_global_matrix(out, skeleton, None, 0, stop, None)
    pos = g[..., 3][..., idx, :].astype(np.float64)
    length = np.linalg.norm(np.diff(pos, axis=-2), axis=-1).sum(-1)
    limit = tol * np.maximum(length, np.finfo(np.float32).tiny)
    # the chain has stopped moving when no pose's error improved on its best by more than a few
    # float32 roundings of the chain's extent for _STALL iterations in a row
    still = _STILL * np.maximum(length, np.finfo(np.float32).tiny)
    err = np.linalg.norm(g[..., idx[-1], :, 3] - t, axis=-1)
    best = err
    stalled = 0
    zero = np.zeros(3, _F32)
    for _ in range(iterations):
        if np.all(err <= limit) or stalled >= _STALL:
            break
        for j in idx[-2::-1]:
            gj = g[..., j, :, :]
            end = g[..., idx[-1], :, 3]
            # the end effector's direction in j's space is the forward axis to turn onto the target
            inv = np.linalg.inv(gj[..., :3].astype(np.float64))
            fwd = np.einsum("...ij,...j->...i", inv, (end - gj[..., 3]).astype(np.float64))
            n = np.sqrt(np.add.reduce(fwd * fwd, axis=-1, keepdims=True))   # as np.linalg.norm
            ok = n[..., 0] > 0
            fwd = np.where(ok[..., None], fwd / np.where(n > 0, n, 1), _X_AXIS)
            q, _ = ik_aim(gj, t, forward=fwd.astype(_F32), up=zero, weight=np.asarray(ok, _F32))
            out[..., j, :4] = _qmul(out[..., j, :4], q)
            g = _core.qts_local_to_global_matrix(out, skeleton, None, 0, stop, None)
        err = np.linalg.norm(g[..., idx[-1], :, 3] - t, axis=-1)
        if np.any(best - err > still):
            stalled = 0
        else:
            stalled += 1
        best = np.minimum(best, err)
    return (out, err) if return_error else out


fill_docstrings(globals())
