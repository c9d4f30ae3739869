"""Retargeting: play a clip of one skeleton on another (motion capture onto a game character).

Method
------
:class:`Retargeter` does once, from the two rest poses, everything that does not depend on the
frames; :meth:`Retargeter.apply` then does the per-frame work in one batched remap.

1. **Rests.** A :class:`skelsimd.Skeleton` gives its ``rest`` (QTS ``(J, 8)`` or joint matrices
   ``(J, 3, 4)``), a :class:`skelsimd.Clip` its skeleton's, a glTF skin
   (:class:`skelsimd.io.gltf.GltfSkin`) its *bind pose*: the world matrices are the inverses of
   the inverse bind matrices (in the mesh's space, placed in the scene as the node tree places
   the first joint), the locals follow from the hierarchy. Matrices are split into a
   rotation, a translation and a uniform scale (a polar decomposition; a non-uniform scale is
   approximated by its mean, which is what a QTS clip can carry).
2. **Mapping.** ``"auto"`` runs :func:`skelsimd.humanoid_map` on both skeletons and pairs the
   profile bones found in both. A dict whose keys are profile bone names (``"hips"``,
   ``"leftUpperLeg"``, ...) overrides entries of those maps: each value applies to the
   skeleton(s) that have a joint of that name (a pair ``(source joint, target joint)`` names
   both). A dict whose keys are the source's joint names
   maps source joints to target joints directly (the profile, used for the frame, the T-pose,
   the scale and the feet, then comes from :func:`skelsimd.humanoid_map` where it finds one).
3. **Character frame.** From each rest's geometry: *up* from the spine bone (the hips where
   there is none) to the head, *side* from the right upper leg to the left one (made orthogonal
   to up), *forward* their cross product ``side x up``. Both paths are counted bone by bone,
   each bone a unit step along its direction, so that the frame does not depend on the
   proportions. The rotation taking the source's frame onto the target's absorbs Y-up against
   Z-up, the facing direction and a mirrored joint-frame convention.
4. **T-pose** (:func:`pose_to_tpose`): in each rest, the spine (from the spine bone up to the
   head) is turned to point up, the legs (upper leg, lower leg, foot) down and the arms (upper
   arm, lower arm, hand) along the side axis, each bone by a turn about the forward axis (its
   elevation in the frontal plane) then one about the up axis (arms) or the side axis (legs,
   spine): rests that differ by an A-pose's elevation get the same T-pose, twist included.
   While the spine turns, the arms (from the shoulders) follow it by translation only, so
   that they are turned from their rest orientation. By default
   both rests are T-posed before they are aligned, so an A-pose character takes a T-pose
   capture.
5. **Rest alignment in world space.** For each mapped target joint ``j`` driven by source joint
   ``s``: ``offset[j] = conj(A * S_tpose[s]) * T_tpose[j]`` (world rotations, ``A`` the frame
   rotation). Per frame, the target's world rotation is ``A * S[s] * offset[j]``: the target
   joint turns as the source joint turns away from its T-pose, whatever its bone axes.
6. **Translation.** The source's world positions are rotated by ``A`` and multiplied by the
   scale (``"legs"``: the ratio of the two rests' leg lengths, upper leg + lower leg + foot
   averaged over both sides; ``"height"``: the ratio of the heights from the feet to the head;
   or a number); the source's world origin (its ground point) becomes the target's, raised or
   lowered along up by the difference of the hips' heights above the feet in the two T-posed
   rests (the source's scaled), so that the target's feet meet the ground where the source's
   do even when the hips sit differently on the legs (an IK rig's body above its thighs). The topmost
   mapped target joints (the hips) take the source's position. Mapped feet that are not
   children of their lower leg (IK rigs parent them to the root) are placed at the target's
   upper leg plus the source's foot offset from its upper leg (aligned and scaled), and the leg
   is bent by two-bone IK to meet them. Every other joint keeps the target's bone lengths (its
   rest translation), and unmapped target joints keep their rest local transform.
7. **The remap** is the SIMD kernel ``_core.retarget_remap`` where the build has it, else the
   NumPy float32 formulation :func:`_remap_numpy` of the same contract.
8. **Feet** (``feet=``): the source's contacts (:meth:`skelsimd.Clip.contacts`) are detected;
   while a foot is planted, the target's foot is held at the source's position at the start of
   the contact, aligned and scaled like the root, by two-bone IK on the target's leg (the
   solver of :func:`skelsimd.plant_feet`), eased in and out over ``blend`` seconds. A placed
   foot is held at its own placed position at the contact's first frame.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._rotation64 import quat_conj, quat_mul, quat_rotate, quat_to_matrix
from ._validate import seconds_to_frames
from .clip import Clip
from .footplant import _labels, _weights, contact_intervals, plant_leg
from .ik import ik_two_bone
from .humanoid import HUMANOID_BONES, humanoid_map
from ._rotation64 import matrix_to_quat as _matrix_to_quat
from .qts import qts_local_to_global
from .quat import qts_to_matrix
from .quat import quat_multiply as _qmul_k
from .quat import quat_rotate as _rot_k
from .skeleton import Skeleton
from .track import Track

if TYPE_CHECKING:
    from ._typing import Float32Array

__all__ = ["Retargeter", "pose_to_tpose"]

_F64 = npt.NDArray[np.float64]
_Source = Any        # Skeleton, Clip or GltfSkin (duck-typed: .skeleton and .inverse_bind)

# The profile bones this module reads (VRM 1.0 humanoid names).
_SPINE = ("spine", "chest", "upperChest", "neck", "head")
_LEG = ("UpperLeg", "LowerLeg", "Foot")
_ARM = ("UpperArm", "LowerArm", "Hand")
_FRAME = ("hips", "head", "leftUpperLeg", "rightUpperLeg")
_PROFILE = frozenset(HUMANOID_BONES)

#: Default contact speed threshold of ``feet=``, in source leg lengths per second.
CONTACT_SPEED = 0.5
#: Default ease in and out of each held contact (seconds).
CONTACT_BLEND = 0.1


# --- float64 rotation helpers ------------------------------------------------------------------

def _arc(a: _F64, b: _F64) -> _F64:
    """The smallest rotation taking direction ``a`` onto direction ``b`` (unit quaternion)."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    c = float(np.dot(a, b))
    if c < -1.0 + 1e-12:                       # opposite: half a turn about any perpendicular
        axis = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(axis) < 1e-6:
            axis = np.cross(a, [0.0, 1.0, 0.0])
        axis /= np.linalg.norm(axis)
        return np.array([axis[0], axis[1], axis[2], 0.0])
    q = np.r_[np.cross(a, b), 1.0 + c]
    out: _F64 = q / np.linalg.norm(q)
    return out


def _turn(axis: _F64, angle: float) -> _F64:
    out: _F64 = np.r_[axis * math.sin(angle / 2), math.cos(angle / 2)]
    return out


def _two_turns(d: _F64, target: _F64, first: _F64, second: _F64) -> _F64:
    """The rotation taking direction ``d`` onto ``target`` as a turn about ``first`` (the
    forward axis: an arm's or a leg's elevation in the character's frontal plane), then a
    turn about ``second`` (up for the arms, side for the legs and the spine). ``target``,
    ``first`` and ``second`` are orthonormal. Two rests that differ by a turn about ``first``
    (an A-pose against a T-pose) get the same T-pose, twist included, which the smallest
    rotation does not give."""
    p = d - np.dot(d, first) * first
    if np.linalg.norm(p) < 1e-9 * np.linalg.norm(d):      # along the first axis: one arc
        return _arc(d, target)
    a1 = math.atan2(float(np.dot(np.cross(p, target), first)), float(np.dot(p, target)))
    r1 = _turn(first, a1)
    d1 = quat_rotate(r1, d)
    a2 = math.atan2(float(np.dot(np.cross(d1, target), second)), float(np.dot(d1, target)))
    out: _F64 = quat_mul(_turn(second, a2), r1)
    return out


# --- rests --------------------------------------------------------------------------------------

@dataclass
class _Pose:
    """A pose in float64: world rotations (J, 4), positions (J, 3), scales (J,)."""
    q: _F64
    t: _F64
    s: _F64


def _fk(parents: npt.NDArray[np.intp], local: _F64) -> _Pose:
    n = len(parents)
    q, t, s = np.empty((n, 4)), np.empty((n, 3)), np.empty(n)
    for j in range(n):
        p = parents[j]
        if p < 0:
            q[j], t[j], s[j] = local[j, :4], local[j, 4:7], local[j, 7]
        else:
            q[j] = quat_mul(q[p], local[j, :4])
            t[j] = t[p] + s[p] * quat_rotate(q[p], local[j, 4:7])
            s[j] = s[p] * local[j, 7]
    return _Pose(q, t, s)


def _locals(parents: npt.NDArray[np.intp], pose: _Pose) -> _F64:
    """Local QTS (J, 8) float64 of world rotations, positions and scales."""
    out = np.empty((len(parents), 8))
    for j, p in enumerate(parents):
        if p < 0:
            out[j, :4], out[j, 4:7], out[j, 7] = pose.q[j], pose.t[j], pose.s[j]
        else:
            inv = quat_conj(pose.q[p])
            out[j, :4] = quat_mul(inv, pose.q[j])
            out[j, 4:7] = quat_rotate(inv, pose.t[j] - pose.t[p]) / pose.s[p]
            out[j, 7] = pose.s[j] / pose.s[p]
    out[:, :4] /= np.linalg.norm(out[:, :4], axis=-1, keepdims=True)
    return out


def _similarities(m: _F64, name: str) -> tuple[_F64, _F64, _F64]:
    """Rotation (J, 4), translation (J, 3), uniform scale (J,) of affine matrices (J, 3, 4):
    the polar decomposition's rotation and the mean singular value."""
    lin = m[:, :, :3]
    u, sv, vt = np.linalg.svd(lin)
    if not np.all(np.isfinite(sv)) or np.any(np.linalg.det(lin) <= 0):
        bad = int(np.flatnonzero(~(np.linalg.det(lin) > 0))[0])
        raise ValueError(f"{name}: expected rotations with a positive scale, joint {bad} has a "
                         f"matrix of determinant {np.linalg.det(lin[bad]):.3g}")
    return _matrix_to_quat(u @ vt), m[:, :, 3].copy(), sv.mean(axis=-1)


def _local_qts(rest: Any, parents: npt.NDArray[np.intp], name: str) -> _F64:
    """A rest pose, QTS (J, 8) or joint matrices (J, 3, 4), as local QTS float64."""
    r = np.asarray(rest, dtype=np.float64)
    n = len(parents)
    if r.shape == (n, 8):
        if not np.all(np.isfinite(r)):
            raise ValueError(f"{name}: expected finite values")
        r = r.copy()
        norm = np.linalg.norm(r[:, :4], axis=-1, keepdims=True)
        if np.any(norm == 0) or np.any(r[:, 7] <= 0):
            raise ValueError(f"{name}: expected unit quaternions and positive scales")
        r[:, :4] /= norm
        return r
    if r.shape == (n, 3, 4):
        if not np.all(np.isfinite(r)):
            raise ValueError(f"{name}: expected finite values")
        m = np.zeros((n, 3, 4))
        for j, p in enumerate(parents):      # world matrices, then split into similarities
            m[j] = r[j] if p < 0 else np.c_[m[p, :, :3] @ r[j, :, :3],
                                            m[p, :, :3] @ r[j, :, 3] + m[p, :, 3]]
        q, t, s = _similarities(m, name)
        return _locals(parents, _Pose(q, t, s))
    raise ValueError(f"{name}: expected shape ({n}, 8) (QTS) or ({n}, 3, 4) (joint matrices), "
                     f"got {r.shape}")


def _skeleton_of(obj: Any, name: str) -> Skeleton:
    if isinstance(obj, Skeleton):
        return obj
    sk = getattr(obj, "skeleton", None)
    if isinstance(sk, Skeleton):
        return sk
    raise TypeError(f"{name}: expected a skelsimd.Skeleton, Clip or GltfSkin, got "
                    f"{type(obj).__name__}")


def _rest_of(obj: Any, name: str) -> _F64:
    """The rest pose (local QTS float64) of a Skeleton, a Clip or a GltfSkin (its bind pose)."""
    sk = _skeleton_of(obj, name)
    parents = np.asarray(sk.parents, dtype=np.intp)
    ib = getattr(obj, "inverse_bind", None)
    if ib is not None and not isinstance(obj, (Skeleton, Clip)):
        ib = np.asarray(ib, dtype=np.float64)
        if ib.shape != (len(sk), 3, 4):
            raise ValueError(f"{name}.inverse_bind: expected shape ({len(sk)}, 3, 4), got "
                             f"{ib.shape}")
        full = np.zeros((len(sk), 4, 4))
        full[:, :3], full[:, 3, 3] = ib, 1.0
        try:
            world = np.linalg.inv(full)
        except np.linalg.LinAlgError:
            raise ValueError(f"{name}.inverse_bind: a matrix is singular") from None
        if sk.rest is not None:
            # the inverse binds give the joints in the mesh's space; the node tree places the
            # first joint in the scene: the same placement for the whole bind pose
            root = _local_qts(sk.rest, parents, f"{name}.rest")[0]
            place = np.eye(4)
            place[:3, :3] = root[7] * quat_to_matrix(root[:4])
            place[:3, 3] = root[4:7]
            world = place @ full[0] @ world
        q, t, s = _similarities(np.asarray(world[:, :3], dtype=np.float64),
                                f"{name}.inverse_bind")
        return _locals(parents, _Pose(q, t, s))
    if sk.rest is None:
        raise ValueError(f"{name}: the skeleton has no rest pose; give one as "
                         f"{name}_rest=")
    return _local_qts(sk.rest, parents, f"{name}.rest")


# --- the humanoid profile -------------------------------------------------------------------------

def _humanoid(obj: Any, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    result: dict[str, str] = humanoid_map(obj, dict(overrides) if overrides else None)
    return result


def _indices(sk: Skeleton, profile: Mapping[str, str]) -> dict[str, int]:
    return {k: int(sk.index(v)) for k, v in profile.items()}


def _steps(parents: npt.NDArray[np.intp], pose: _Pose, a: int, b: int) -> _F64:
    """The path from joint ``a`` to joint ``b`` through the tree counted bone by bone, each
    bone a unit step along its direction (zero-length bones skipped): a direction that does not
    change when bones change length."""
    def up_path(j: int) -> list[int]:
        out = []
        while j >= 0:
            out.append(j)
            j = int(parents[j])
        return out

    pa, pb = up_path(a), up_path(b)
    common = set(pa) & set(pb)

    def steps(path: list[int]) -> _F64:
        v = np.zeros(3)
        for j in path:
            if j in common:
                break
            bone = pose.t[j] - pose.t[parents[j]]
            n = np.linalg.norm(bone)
            if n > 0:
                v += bone / n
        return v

    return steps(pb) - steps(pa)


def _frame(parents: npt.NDArray[np.intp], pose: _Pose, prof: Mapping[str, int]) -> _F64 | None:
    """The character frame (3, 3): columns side (towards the left), up, forward; None when the
    profile lacks the hips, the head or the upper legs, or they are degenerate. Directions are
    taken bone by bone (:func:`_steps`), so that they do not depend on the proportions."""
    if not all(k in prof for k in _FRAME):
        return None
    base = prof["hips"]                # from the spine bone where there is one: the hips'
    if "spine" in prof:                # offset to it is often short and of any direction
        j = prof["head"]
        while j >= 0 and j != prof["spine"]:
            j = int(parents[j])
        base = prof["spine"] if j >= 0 and prof["spine"] != prof["head"] else base
    up = _steps(parents, pose, base, prof["head"])
    side = _steps(parents, pose, prof["rightUpperLeg"], prof["leftUpperLeg"])
    if np.linalg.norm(up) < 1e-9:
        return None
    up = up / np.linalg.norm(up)
    side = side - np.dot(side, up) * up
    if np.linalg.norm(side) < 1e-9:
        return None
    side = side / np.linalg.norm(side)
    return np.stack([side, up, np.cross(side, up)], axis=-1)


def _tpose_pose(parents: npt.NDArray[np.intp], pose: _Pose, prof: Mapping[str, int],
                frame: _F64) -> _Pose:
    """``pose`` with the spine up, the legs down and the arms sideways (world space)."""
    q, t = pose.q.copy(), pose.t.copy()
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        if parents[j] >= 0:
            children[parents[j]].append(j)

    def subtree(j: int) -> list[int]:
        out, stack = [], [j]
        while stack:
            k = stack.pop()
            out.append(k)
            stack.extend(children[k])
        return out

    def is_ancestor(a: int, b: int) -> bool:
        while b >= 0:
            if b == a:
                return True
            b = int(parents[b])
        return False

    side, up, forward = frame[:, 0], frame[:, 1], frame[:, 2]
    chains = [([prof[k] for k in _SPINE if k in prof], up, side)]
    for lr, sign in (("left", 1.0), ("right", -1.0)):
        chains.append(([prof[lr + k] for k in _LEG if lr + k in prof], -up, side))
        chains.append(([prof[lr + k] for k in _ARM if lr + k in prof], sign * side, up))
    # the arms (from the shoulders) follow the spine's turns by translation only: their
    # orientation is then still the rest's when they are turned themselves
    arm_roots = [prof[lr + k] for lr in ("left", "right") for k in ("Shoulder", "UpperArm")
                 if lr + k in prof]
    arm_roots = [r for r in arm_roots if not any(is_ancestor(o, r) and o != r for o in arm_roots)]
    for i, (chain, direction, second) in enumerate(chains):
        for a, b in zip(chain[:-1], chain[1:]):
            if not is_ancestor(a, b) or a == b:
                continue
            bone = t[b] - t[a]
            if np.linalg.norm(bone) == 0:
                continue
            r = _two_turns(bone, direction, forward, second)
            moved = subtree(a)
            carried: list[int] = []
            if i == 0:
                for root in arm_roots:
                    if is_ancestor(a, root):
                        arm = subtree(root)
                        t[arm] += t[a] + quat_rotate(r, t[root] - t[a]) - t[root]
                        carried += arm
            rigid = np.setdiff1d(moved, carried)
            t[rigid] = t[a] + quat_rotate(r, t[rigid] - t[a])
            q[rigid] = quat_mul(r, q[rigid])
    return _Pose(q, t, pose.s.copy())


def pose_to_tpose(skeleton: Any, rest: npt.ArrayLike | None = None, *,
                  mapping: Mapping[str, str] | None = None) -> Float32Array:
    """A rest pose brought to the humanoid profile's T-pose.

    The character's frame comes from the pose itself (up: spine to head; side: right upper leg
    to left upper leg; both counted bone by bone). Then each bone of the spine (spine, chest, upper chest, neck to the
    head) is turned to point up, each bone of the legs (upper leg, lower leg to the foot) down
    and each bone of the arms (upper arm, lower arm to the hand) along the side axis (the left
    arm towards the left), each by a turn about the forward axis then one about the up axis
    (arms) or the side axis (legs, spine), its subtree following (the arms follow the spine's
    turns by translation only, keeping their rest orientation until they are turned). Only the
    local rotations of those joints change; bone lengths, fingers, feet and the hips' offsets
    are kept.

    Parameters
    ----------
    skeleton : Skeleton, Clip or GltfSkin
    rest : array_like, optional
        QTS ``(J, 8)`` or joint matrices ``(J, 3, 4)``; default the skeleton's rest pose (a
        glTF skin's bind pose).
    mapping : dict, optional
        Profile bone name -> joint name (default :func:`skelsimd.humanoid_map` of the
        skeleton). Bones absent from it are left as they are.

    Returns
    -------
    ndarray, float32 (J, 8)
        The T-posed rest as local QTS.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> skeleton = skelsimd.data.load_example().skeleton
    >>> legs = {"hips": "Hips", "head": "Head", "leftUpperLeg": "LeftHip",
    ...         "rightUpperLeg": "RightHip", "leftLowerLeg": "LeftKnee",
    ...         "rightLowerLeg": "RightKnee", "leftFoot": "LeftAnkle", "rightFoot": "RightAnkle"}
    >>> t = skelsimd.pose_to_tpose(skeleton, mapping=legs)
    >>> p = skelsimd.qts_local_to_global(t, skeleton)[:, 4:7]
    >>> hip, knee, ankle = (p[skeleton.index(n)] for n in ("LeftHip", "LeftKnee", "LeftAnkle"))
    >>> thigh, shin = (v / np.linalg.norm(v) for v in (knee - hip, ankle - knee))
    >>> bool(np.linalg.norm(np.cross(thigh, shin)) < 1e-5)              # a straight leg
    True
    """
    sk = _skeleton_of(skeleton, "skeleton")
    parents = np.asarray(sk.parents, dtype=np.intp)
    local = _rest_of(skeleton, "skeleton") if rest is None else _local_qts(rest, parents, "rest")
    prof = _indices(sk, _humanoid(skeleton) if mapping is None else _check_profile(sk, mapping))
    pose = _fk(parents, local)
    frame = _frame(parents, pose, prof)
    if frame is None:
        raise ValueError(f"mapping: expected the profile bones {', '.join(_FRAME)} at distinct "
                         "positions (the character's frame comes from them)")
    out = _locals(parents, _tpose_pose(parents, pose, prof, frame))
    out[:, 4:] = local[:, 4:]                 # only rotations change: keep the rest's bits
    return out.astype(np.float32)


def _check_profile(sk: Skeleton, mapping: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(mapping, Mapping):
        raise TypeError(f"mapping: expected a dict of profile bone -> joint name, got "
                        f"{type(mapping).__name__}")
    out = {}
    for k, v in mapping.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(f"mapping: expected str keys and values, got {k!r}: {v!r}")
        if v not in sk.names:
            raise ValueError(f"mapping[{k!r}]: {v!r} is not a joint of the skeleton")
        out[k] = v
    return out


# --- the remap (NumPy float32 formulation of the kernel's contract) ------------------------------

def _qmul32(a: Float32Array, b: Float32Array) -> Float32Array:
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def _rot32(q: Float32Array, v: Float32Array) -> Float32Array:
    """rotate(q, v) = v + 2 w (u x v) + 2 u x (u x v), u = q.xyz."""
    u, w = q[..., :3], q[..., 3:]
    c = 2.0 * np.cross(u, v)
    out: Float32Array = (v + w * c + np.cross(u, c)).astype(np.float32, copy=False)
    return out


_CONJ32 = np.array([-1, -1, -1, 1], dtype=np.float32)
_IDENTITY_QTS32 = np.array([0, 0, 0, 1, 0, 0, 0, 1], dtype=np.float32)


def _to_local(parent_world: Float32Array, position: Any) -> Float32Array:
    """The local translations (..., 3) that put joints at world ``position`` (..., 3) under
    their parents' world joints ``parent_world`` (..., 8)."""
    g = parent_world
    out: Float32Array = _rot_k(g[..., :4] * _CONJ32, (np.asarray(position) - g[..., 4:7]).astype(
        np.float32)) / g[..., 7:8]
    return out


def _check_remap_args(source_world: Any, src_index: Any, offsets: Any, target_parents: Any,
                      target_rest: Any, placed: Any, out: Any) -> tuple[Any, ...]:
    sw = np.asarray(source_world)
    if sw.dtype.kind not in "fiu":
        raise TypeError(f"source_world: expected real numbers, got dtype {sw.dtype}")
    sw = np.ascontiguousarray(sw, dtype=np.float32)
    if sw.ndim < 2 or sw.shape[-1] != 8 or sw.shape[-2] < 1:
        raise ValueError(f"source_world: expected shape (..., Js, 8) with Js >= 1, got {sw.shape}")
    js = sw.shape[-2]
    parents = np.asarray(target_parents.parents if isinstance(target_parents, Skeleton)
                         else target_parents)
    if parents.ndim != 1 or parents.size < 1 or parents.dtype.kind not in "iu":
        raise ValueError(f"target_parents: expected a 1-D integer array (Jt,), Jt >= 1, got "
                         f"shape {parents.shape} dtype {parents.dtype}")
    parents = parents.astype(np.intp)
    jt = len(parents)
    bad = np.flatnonzero((parents < -1) | (parents >= np.arange(jt)))
    if bad.size:
        j = int(bad[0])
        raise ValueError(f"target_parents: expected -1 <= parents[j] < j, joint {j} has parent "
                         f"{int(parents[j])}")
    idx = np.asarray(src_index)
    if idx.shape != (jt,) or idx.dtype.kind not in "iu":
        raise ValueError(f"src_index: expected integers of shape ({jt},), got shape {idx.shape} "
                         f"dtype {idx.dtype}")
    idx = idx.astype(np.intp)
    bad = np.flatnonzero((idx < -1) | (idx >= js))
    if bad.size:
        raise ValueError(f"src_index: expected values in [-1, {js}), got {int(idx[bad[0]])} at "
                         f"joint {int(bad[0])}")
    off = np.ascontiguousarray(offsets, dtype=np.float32)
    if off.shape != (jt, 4):
        raise ValueError(f"offsets: expected shape ({jt}, 4), got {off.shape}")
    rest = np.ascontiguousarray(target_rest, dtype=np.float32)
    if rest.shape != (jt, 8):
        raise ValueError(f"target_rest: expected shape ({jt}, 8), got {rest.shape}")
    pl = np.asarray(placed)
    if pl.shape != (jt,) or pl.dtype.kind not in "biu":
        raise ValueError(f"placed: expected bools of shape ({jt},), got shape {pl.shape} "
                         f"dtype {pl.dtype}")
    finite = np.isfinite(sw).all(axis=-1)
    if not finite.all():
        where = np.unravel_index(int(np.flatnonzero(~finite.ravel())[0]), finite.shape)
        frame, joint = where[:-1], int(where[-1])
        raise ValueError(f"source_world: expected finite values, frame {tuple(map(int, frame))} "
                         f"joint {joint} is not")
    shape = sw.shape[:-2] + (jt, 8)
    if out is not None:
        if not isinstance(out, np.ndarray) or out.dtype != np.float32:
            raise TypeError("out: expected a float32 ndarray")
        if out.shape != shape or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError(f"out: expected a writeable C-contiguous array of shape {shape}, "
                             f"got {out.shape}")
    return sw, idx, off, parents, rest, pl.astype(bool), shape


def _remap_numpy(source_world: npt.ArrayLike, src_index: npt.ArrayLike, offsets: npt.ArrayLike,
                 target_parents: Any, target_rest: npt.ArrayLike, placed: npt.ArrayLike,
                 out: Float32Array | None = None) -> Float32Array:
    """The remap of :class:`Retargeter` in NumPy float32 (the contract of
    ``_core.retarget_remap``): target local QTS ``(..., Jt, 8)`` from the source's world QTS
    ``(..., Js, 8)`` (already in the target's frame and units). Per target joint ``j`` (parent
    ``p``, source ``s = src_index[j]``), vectorised over the frames::

        Wq[j] = s >= 0 ? Sq[s] * offsets[j] : (root ? rest_q[j] : Wq[p] * rest_q[j])
        q[j]  = root ? Wq[j] : conj(Wq[p]) * Wq[j]
        t[j]  = s >= 0 and placed[j] ? (root ? St[s] : rotate(conj(Wq[p]), St[s] - Wt[p]) / Ws[p])
                                     : rest_t[j]
        s[j]  = rest_s[j]

    Examples
    --------
    >>> import numpy as np
    >>> world = np.array([[0, 0, 0, 1, 1, 2, 3, 1]], dtype=np.float32)
    >>> out = _remap_numpy(world, [0, -1], [[0, 0, 0, 1], [0, 0, 0, 1]], [-1, 0],
    ...                    [[0, 0, 0, 1, 0, 0, 0, 1], [0, 0, 0, 1, 0, 1, 0, 1]], [True, False])
    >>> out[:, 4:7].tolist()
    [[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]
    """
    sw, idx, off, parents, rest, pl, shape = _check_remap_args(
        source_world, src_index, offsets, target_parents, target_rest, placed, out)
    lead = sw.shape[:-2]
    res = np.empty(shape, dtype=np.float32)
    jt = len(parents)
    wq = np.empty(lead + (jt, 4), dtype=np.float32)
    wt = np.empty(lead + (jt, 3), dtype=np.float32)
    ws = np.empty(lead + (jt,), dtype=np.float32)
    for j in range(jt):
        p, s = int(parents[j]), int(idx[j])
        if s >= 0:
            wq[..., j, :] = _qmul32(sw[..., s, :4], off[j])
        elif p < 0:
            wq[..., j, :] = rest[j, :4]
        else:
            wq[..., j, :] = _qmul32(wq[..., p, :], rest[j, :4])
        if p < 0:
            res[..., j, :4] = wq[..., j, :]
            res[..., j, 4:7] = sw[..., s, 4:7] if (s >= 0 and pl[j]) else rest[j, 4:7]
            res[..., j, 7] = rest[j, 7]
            wt[..., j, :] = res[..., j, 4:7]
            ws[..., j] = rest[j, 7]
            continue
        inv = wq[..., p, :] * _CONJ32
        res[..., j, :4] = _qmul32(inv, wq[..., j, :])
        if s >= 0 and pl[j]:
            res[..., j, 4:7] = _rot32(inv, sw[..., s, 4:7] - wt[..., p, :]) / ws[..., p, None]
        else:
            res[..., j, 4:7] = rest[j, 4:7]
        res[..., j, 7] = rest[j, 7]
        wt[..., j, :] = wt[..., p, :] + ws[..., p, None] * _rot32(wq[..., p, :], res[..., j, 4:7])
        ws[..., j] = ws[..., p] * rest[j, 7]
    if out is None:
        return res
    out[...] = res
    return out


def _remap(source_world: Float32Array, src_index: npt.ArrayLike, offsets: npt.ArrayLike,
           target_parents: Any, target_rest: npt.ArrayLike, placed: npt.ArrayLike,
           out: Float32Array | None = None) -> Float32Array:
    """``_core.retarget_remap`` where the build has it, else :func:`_remap_numpy`."""
    kernel = getattr(_core, "retarget_remap", None)
    if kernel is not None:
        result: Float32Array = kernel(source_world, src_index, offsets, target_parents,
                                      target_rest, placed, out)
        return result
    return _remap_numpy(source_world, src_index, offsets, target_parents, target_rest, placed,
                        out)


# --- the retargeter -------------------------------------------------------------------------------

def _leg_length(pose: _Pose, prof: Mapping[str, int], name: str) -> float:
    sides = []
    for lr in ("left", "right"):
        keys = [lr + k for k in _LEG]
        if not all(k in prof for k in keys):
            raise ValueError(f"scale: 'legs' needs the {name}'s upper leg, lower leg and foot "
                             f"on both sides; the profile lacks {[k for k in keys if k not in prof]}")
        p = pose.t[[prof[k] for k in keys]]
        sides.append(float(np.linalg.norm(np.diff(p, axis=0), axis=-1).sum()))
    length = sum(sides) / 2
    if not length > 0:
        raise ValueError(f"scale: the {name}'s legs have zero length in its rest pose")
    return length


def _height(pose: _Pose, prof: Mapping[str, int], frame: _F64 | None, name: str) -> float:
    if frame is None or not all(k in prof for k in ("head", "leftFoot", "rightFoot")):
        raise ValueError(f"scale: 'height' needs the {name}'s head, feet, hips and upper legs")
    up = frame[:, 1]
    feet = (pose.t[prof["leftFoot"]] + pose.t[prof["rightFoot"]]) / 2
    h = float(np.dot(pose.t[prof["head"]] - feet, up))
    if not h > 0:
        raise ValueError(f"scale: the {name}'s head is not above its feet in its rest pose")
    return h


_MappingArg = Union[str, Mapping[str, Union[str, tuple[str, str]]]]


class Retargeter:
    """Retarget clips of one skeleton onto another (see :mod:`skelsimd.retarget` for the method).

    Parameters
    ----------
    source, target : Skeleton, Clip or GltfSkin
        The skeletons (a Clip: its skeleton; a GltfSkin: its bind pose from the inverse bind
        matrices; a Skeleton: its ``rest``).
    mapping : "auto" or dict
        ``"auto"``: :func:`skelsimd.humanoid_map` of both, the profile bones found in both
        paired. A dict from profile bone names to joint names: entries overriding those maps,
        each applied to the skeleton(s) having that joint (a value may also be a pair
        ``(source joint, target joint)``). A dict from source joint names to target joint
        names: used as given.
    source_rest, target_rest : array_like, optional
        The poses to align, QTS ``(J, 8)`` or matrices ``(J, 3, 4)``, used as given. Default:
        the rest pose brought to the T-pose with :func:`pose_to_tpose` (the rest as is when no
        profile is known).
    scale : "legs", "height" or float
        Factor from source lengths to target lengths applied to the root's path (and placed
        feet): the ratio of the rests' leg lengths (default), of their heights, or a number.
    feet : "auto", sequence of str, or None
        Keep the source's foot contacts (see :meth:`apply`): the source's foot joints, or
        ``"auto"`` for the profile's left and right foot.

    Attributes
    ----------
    mapping : dict
        Source joint name -> target joint name.
    unmapped : tuple of str
        Target joints not driven by the source (they keep their rest local transform).
    scale : float
        The factor from source units to target units.
    frame : ndarray, float64 (3, 3)
        The rotation taking source world vectors to target world vectors.
    lift : ndarray, float64 (3,)
        The constant added to the source's aligned and scaled positions (along the target's
        up axis): the target's hips stand as high above its feet as in its T-posed rest.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> names = clip.skeleton.names
    >>> big = skelsimd.Skeleton(clip.skeleton.parents, names,
    ...                         clip.skeleton.rest * [1, 1, 1, 1, 2, 2, 2, 1])
    >>> rt = skelsimd.Retargeter(clip, big, {n: n for n in names}, scale=2.0)
    >>> out = rt.apply(clip)
    >>> bool(np.allclose(out.global_positions(), 2 * clip.global_positions(), atol=1e-3))
    True
    """

    mapping: dict[str, str]
    unmapped: tuple[str, ...]
    scale: float
    frame: _F64
    lift: _F64

    def __init__(self, source: _Source, target: _Source, mapping: _MappingArg = "auto", *,
                 source_rest: npt.ArrayLike | None = None,
                 target_rest: npt.ArrayLike | None = None,
                 scale: str | float = "legs", feet: str | Sequence[str] | None = None) -> None:
        self._source = _skeleton_of(source, "source")
        self._target = _skeleton_of(target, "target")
        sp = np.asarray(self._source.parents, dtype=np.intp)
        tp = np.asarray(self._target.parents, dtype=np.intp)
        src_local = _rest_of(source, "source")
        tgt_local = _rest_of(target, "target")
        pairs, prof_s, prof_t = self._resolve(source, target, mapping)
        self.mapping = dict(pairs)
        self._prof_s, self._prof_t = prof_s, prof_t
        si, ti = _indices(self._source, prof_s), _indices(self._target, prof_t)

        src_pose = _fk(sp, src_local if source_rest is None
                       else _local_qts(source_rest, sp, "source_rest"))
        tgt_pose = _fk(tp, tgt_local if target_rest is None
                       else _local_qts(target_rest, tp, "target_rest"))
        fs, ft = _frame(sp, src_pose, si), _frame(tp, tgt_pose, ti)
        if fs is not None and ft is not None:
            self.frame = ft @ fs.T
        else:
            self.frame = np.eye(3)
        if source_rest is None and fs is not None:
            src_pose = _tpose_pose(sp, src_pose, si, fs)
        if target_rest is None and ft is not None:
            tgt_pose = _tpose_pose(tp, tgt_pose, ti, ft)
        self.scale = self._scale(scale, src_pose, tgt_pose, si, ti, fs, ft)
        self.lift = np.zeros(3)
        if fs is not None and ft is not None and all(
                k in si and k in ti for k in ("hips", "leftFoot", "rightFoot")):
            def hips_height(pose: _Pose, prof: Mapping[str, int], frame: _F64) -> float:
                feet = (pose.t[prof["leftFoot"]] + pose.t[prof["rightFoot"]]) / 2
                return float(np.dot(pose.t[prof["hips"]] - feet, frame[:, 1]))
            self.lift = ft[:, 1] * (hips_height(tgt_pose, ti, ft)
                                    - self.scale * hips_height(src_pose, si, fs))
        self._lift32 = self.lift.astype(np.float32)

        # the kernel's arguments
        jt = len(tp)
        index = np.full(jt, -1, dtype=np.int32)
        for s_name, t_name in self.mapping.items():
            index[self._target.index(t_name)] = self._source.index(s_name)
        align = _matrix_to_quat(self.frame)
        offsets = np.tile(np.array([0, 0, 0, 1], dtype=np.float32), (jt, 1))
        m = index >= 0
        offsets[m] = quat_mul(quat_conj(quat_mul(align, src_pose.q[index[m]])), tgt_pose.q[m])
        placed = np.zeros(jt, dtype=bool)
        for j in np.flatnonzero(m):
            a = tp[j]
            while a >= 0 and index[a] < 0:
                a = tp[a]
            placed[j] = a < 0                  # the topmost mapped joints (the hips)
        for lr in ("left", "right"):           # feet not parented to their lower leg
            foot, knee = ti.get(lr + "Foot"), ti.get(lr + "LowerLeg")
            if foot is not None and index[foot] >= 0 and (knee is None or tp[foot] != knee):
                placed[foot] = True
        self._index, self._offsets, self._placed = index, offsets.astype(np.float32), placed
        self._remap_fn = _remap           # the kernel where built (benchmarks swap in NumPy's)
        self._align = align
        self._align32 = align.astype(np.float32)
        self._source_roots = np.flatnonzero(sp < 0)
        self._rest = tgt_local.astype(np.float32)
        self._leg = _leg_length(src_pose, si, "source") if all(
            lr + k in si for lr in ("left", "right") for k in _LEG) else None
        self.unmapped = tuple(n for n, i in zip(self._target.names, index) if i < 0)
        self._feet = self._check_feet(feet)
        # feet that hang elsewhere than their lower leg: placed from the upper leg
        self._hip_relative = []
        for lr in ("left", "right"):
            foot, upper = ti.get(lr + "Foot"), ti.get(lr + "UpperLeg")
            s_foot, s_upper = si.get(lr + "Foot"), si.get(lr + "UpperLeg")
            if (foot is not None and placed[foot] and upper is not None and s_foot is not None
                    and s_upper is not None and index[foot] == s_foot):
                self._hip_relative.append((foot, upper, s_foot, s_upper))
        # and their legs: the bind offset of the foot from the knee
        self._reach: list[tuple[int, int, int, Float32Array]] = []
        bind = _fk(tp, tgt_local)
        for lr in ("left", "right"):
            hip, knee, foot = (ti.get(lr + k) for k in _LEG)
            if (hip is None or knee is None or foot is None or not placed[foot]
                    or tp[foot] == knee or index[hip] < 0 or index[knee] < 0):
                continue
            off = quat_rotate(quat_conj(bind.q[knee]), bind.t[foot] - bind.t[knee]) / bind.s[knee]
            self._reach.append((hip, knee, foot, off.astype(np.float32)))
        # the joints the feet's placement and the legs' reach read: up to the upper legs, the
        # knees and the feet's parents
        needed: set[int] = {int(j) for f, u, _, _ in self._hip_relative for j in (u, tp[f])} | {
            int(j) for h, k, f, _ in self._reach for j in (h, k, tp[f])}
        closed: set[int] = set()         # with their ancestors: a small skeleton of its own
        for start in needed:
            walk = start
            while walk >= 0 and walk not in closed:
                closed.add(walk)
                walk = int(tp[walk])
        self._legs = np.array(sorted(closed), dtype=np.intp)
        self._leg_at = np.full(jt, -1, dtype=np.intp)
        self._leg_at[self._legs] = np.arange(len(self._legs))
        self._leg_parents = np.array([self._leg_at[tp[j]] if tp[j] >= 0 else -1
                                      for j in self._legs], dtype=np.int32)
        reach = self._reach
        offs = np.array([o for _, _, _, o in reach], np.float32).reshape(len(reach), 3)
        pars = np.array([self._leg_at[tp[f]] if tp[f] >= 0 else -1 for _, _, f, _ in reach],
                        np.intp)
        self._reach_arrays = (
            np.array([h for h, _, _, _ in reach] + [k for _, k, _, _ in reach], np.intp),
            np.array([f for _, _, f, _ in reach], np.intp), offs,
            np.float32(0.05 ** 2) * np.vecdot(offs, offs),
            np.maximum(pars, 0))
        self._reach_root_feet = pars < 0 if (pars < 0).any() else None
        # the placed foot of each leg's reach (an index in self._hip_relative), when all are
        hung = [f for f, _, _, _ in self._hip_relative]
        self._reach_placed = ([hung.index(f) for _, _, f, _ in reach]
                              if reach and all(f in hung for _, _, f, _ in reach) else None)
        self._reach_world = self._leg_at[self._reach_arrays[0]]
    # --- construction helpers ---

    def _resolve(self, source: Any, target: Any, mapping: _MappingArg
                 ) -> tuple[list[tuple[str, str]], dict[str, str], dict[str, str]]:
        """(source joint, target joint) pairs and the two profile maps (possibly partial)."""
        sn, tn = set(self._source.names), set(self._target.names)
        if isinstance(mapping, str):
            if mapping != "auto":
                raise ValueError(f"mapping: expected 'auto' or a dict, got {mapping!r}")
            prof_s = self._profile(source, "source", None)
            prof_t = self._profile(target, "target", None)
            pairs = [(prof_s[k], prof_t[k]) for k in prof_s if k in prof_t]
            if not pairs:
                raise ValueError("mapping: the source and the target have no humanoid bone in "
                                 "common")
            return pairs, prof_s, prof_t
        if not isinstance(mapping, Mapping):
            raise TypeError(f"mapping: expected 'auto' or a dict, got {type(mapping).__name__}")
        items = [(k, tuple(v) if isinstance(v, (tuple, list)) else v)
                 for k, v in mapping.items()]
        for k, v in items:
            if not isinstance(k, str) or not (isinstance(v, str) or (
                    isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, str) for x in v))):
                raise TypeError(f"mapping: expected str keys and values (or, for profile bones, "
                                f"(source joint, target joint) pairs), got {k!r}: {v!r}")
        if not items:
            raise ValueError("mapping: expected at least one entry, got an empty dict")
        if all(k in sn and isinstance(v, str) for k, v in items):    # source -> target joint
            seen: dict[str, str] = {}
            for k, v in items:
                assert isinstance(v, str)
                if v not in tn:
                    raise ValueError(f"mapping[{k!r}]: {v!r} is not a joint of the target")
                if v in seen:
                    raise ValueError(f"mapping: target joint {v!r} is driven by both "
                                     f"{seen[v]!r} and {k!r}")
                seen[v] = k
            prof_s = self._optional_profile(source, None)
            pairs = [(k, str(v)) for k, v in items]
            direct = dict(pairs)
            prof_t = {p: direct[j] for p, j in prof_s.items() if j in direct}
            if not prof_s:
                prof_t = self._optional_profile(target, None)
            return pairs, prof_s, prof_t
        unknown = [k for k, _ in items if k not in _PROFILE]
        if unknown:
            raise ValueError(f"mapping: {unknown[0]!r} is neither a joint of the source nor a "
                             "humanoid profile bone name")
        over_s: dict[str, str] = {}
        over_t: dict[str, str] = {}
        for k, v in items:
            if isinstance(v, tuple):                      # (source joint, target joint)
                for joint, names, side, over in ((v[0], sn, "source", over_s),
                                                 (v[1], tn, "target", over_t)):
                    if joint not in names:
                        raise ValueError(f"mapping[{k!r}]: {joint!r} is not a joint of the "
                                         f"{side}")
                    over[k] = joint
                continue
            if v not in sn and v not in tn:
                raise ValueError(f"mapping[{k!r}]: {v!r} is not a joint of the source or the "
                                 "target")
            if v in sn:
                over_s[k] = v
            if v in tn:
                over_t[k] = v
        prof_s = self._optional_profile(source, over_s) if over_s else \
            self._profile(source, "source", None)
        prof_t = self._optional_profile(target, over_t) if over_t else \
            self._profile(target, "target", None)
        pairs = [(prof_s[k], prof_t[k]) for k in prof_s if k in prof_t]
        if not pairs:
            raise ValueError("mapping: the source and the target have no humanoid bone in "
                             "common")
        return pairs, prof_s, prof_t

    @staticmethod
    def _profile(obj: Any, name: str, overrides: dict[str, str] | None) -> dict[str, str]:
        try:
            return _humanoid(obj, overrides)
        except ValueError as exc:
            raise ValueError(f"mapping: no humanoid found in the {name}: {exc}") from None

    @staticmethod
    def _optional_profile(obj: Any, overrides: dict[str, str] | None) -> dict[str, str]:
        """humanoid_map with the overrides, or the overrides alone where it finds none."""
        try:
            return _humanoid(obj, overrides)
        except ValueError:
            return dict(overrides or {})

    def _scale(self, scale: str | float, src: _Pose, tgt: _Pose, si: Mapping[str, int],
               ti: Mapping[str, int], fs: _F64 | None, ft: _F64 | None) -> float:
        if isinstance(scale, str):
            if scale == "legs":
                return _leg_length(tgt, ti, "target") / _leg_length(src, si, "source")
            if scale == "height":
                return _height(tgt, ti, ft, "target") / _height(src, si, fs, "source")
            raise ValueError(f"scale: expected 'legs', 'height' or a number, got {scale!r}")
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating, np.integer)):
            raise TypeError(f"scale: expected 'legs', 'height' or a number, got "
                            f"{type(scale).__name__}")
        value = float(scale)
        if not (value > 0 and math.isfinite(value)):
            raise ValueError(f"scale: expected a positive finite number, got {value}")
        return value

    def _check_feet(self, feet: str | Sequence[str] | None) -> list[tuple[int, int]]:
        """(source foot, target foot) joint indices."""
        if feet is None:
            return []
        if isinstance(feet, str):
            if feet != "auto":
                feet = [feet]
            else:
                missing = [k for k in ("leftFoot", "rightFoot") if k not in self._prof_s]
                if missing:
                    raise ValueError(f"feet: 'auto' needs the source's feet in the humanoid "
                                     f"profile, missing {missing}")
                feet = [self._prof_s["leftFoot"], self._prof_s["rightFoot"]]
        out = []
        for f in feet:
            if not isinstance(f, str):
                raise TypeError(f"feet: expected joint names, got {type(f).__name__}")
            if f not in self.mapping:
                raise ValueError(f"feet: {f!r} is not a mapped joint of the source")
            out.append((int(self._source.index(f)), int(self._target.index(self.mapping[f]))))
        if out and self._leg is None:
            raise ValueError("feet: the contact threshold needs the source's legs in the "
                             "humanoid profile")
        return out

    # --- per frame ---

    def _source_world(self, local: Float32Array) -> Float32Array:
        """The source's world joints in the target's frame and units: forward kinematics of
        the poses with every translation scaled and the roots turned by the frame rotation and
        lifted (the same as turning, scaling and lifting the world joints afterwards)."""
        # The scale rides on the roots' uniform scale lane, which the walk carries to every
        # translation below them (products over the strided translations of every joint cost
        # ten times a copy); the world scales it leaves are not read.
        x = np.array(local, dtype=np.float32, copy=True)
        roots = self._source_roots
        x[..., roots, :4] = _qmul_k(self._align32, x[..., roots, :4])
        x[..., roots, 4:7] = (_rot_k(self._align32, x[..., roots, 4:7]) * np.float32(self.scale)
                              + self._lift32)
        x[..., roots, 7] *= np.float32(self.scale)
        world: Float32Array = qts_local_to_global(x, self._source, x)
        return world

    def apply_local(self, local: npt.ArrayLike, out: Float32Array | None = None) -> Float32Array:
        """Target local QTS ``(..., Jt, 8)`` float32 of source local poses ``(..., Js, 8)``
        (no feet: see :meth:`apply`).

        Examples
        --------
        >>> import skelsimd
        >>> clip = skelsimd.data.load_example()
        >>> same = {n: n for n in clip.skeleton.names}
        >>> skelsimd.Retargeter(clip, clip, same, scale=1.0).apply_local(clip.local[:5]).shape
        (5, 31, 8)
        """
        result, world = self._remap_local(local, out=out)
        if not self._hip_relative and not self._reach:
            return result
        target = self._legs_world(result.reshape((-1,) + result.shape[-2:]))
        feet_at = (np.empty((len(target), len(self._reach), 3), np.float32)
                   if self._reach_placed is not None else None)
        self._place_feet(result, world, target, feet_at)   # the feet only: the legs' worlds
        return self._reach_feet(result, target, feet_at)   # hold in place

    def _reach_feet(self, local: Float32Array, world: Float32Array | None = None,
                    feet_at: Float32Array | None = None) -> Float32Array:
        """Legs whose foot is placed (not a child of the lower leg) bent with two-bone IK so
        that the lower leg's end (the foot's bind offset from the knee) meets the foot (the
        knee's pole and hinge from the pose itself, as :func:`skelsimd.plant_feet`); ``local``
        (C-contiguous) is changed in place and returned. ``world``: the target's world joints
        of ``local`` up to the legs (computed when not given; the feet's own are not read);
        ``feet_at``: the feet's world positions (F, L, 3) when known (computed otherwise)."""
        if not self._reach:
            return local
        flat = local.reshape((-1,) + local.shape[-2:])
        parents = self._target.parents
        if world is None:
            world = self._legs_world(flat)
        # Both legs in one pass, every array (F, L, ...) over the frames and the L legs, in
        # float32 by the quaternion kernels (the knee's frame, not its matrix, carries the
        # shin and the hinge).
        joints, feet, offs, off2, pars = self._reach_arrays
        hk = world[:, self._reach_world]                        # (F, 2L, 8): hips, knees
        n, legs = len(flat), len(feet)
        m = qts_to_matrix(hk).reshape(n, 2, legs, 3, 4)
        wk = hk[:, legs:]
        k, s = wk[..., 4:7], wk[..., 7:8]
        shin = s * _rot_k(wk[..., :4], offs)
        end = m[:, 1].copy()
        end[..., 3] += shin                                     # the shin's end
        if feet_at is None:
            pw = world[:, pars]
            if self._reach_root_feet is not None:  # a foot at the root: its local translation
                pw[:, self._reach_root_feet] = _IDENTITY_QTS32  # is its world
            feet_at = pw[..., 4:7] + pw[..., 7:8] * _rot_k(pw[..., :4], flat[:, feet, 4:7])
        # the hinge: the thigh-shin plane's normal in the knee's frame, R^T (thigh x shin)
        # with R = s Q and the shin s Q offset, i.e. s^2 (Q^T thigh x offset); the IK kernel
        # normalises it. Where the leg is nearly straight (the plane's sine s |Q^T thigh x
        # offset| / (|thigh| |offset|) under 0.05): the leg's mean over the frames.
        thigh = k - hk[:, :legs, 4:7]
        a = _rot_k(wk[..., :4] * _CONJ32, thigh)
        hinge = np.cross(a, offs)
        ss = s[..., 0] * s[..., 0]
        bent = ss * np.vecdot(hinge, hinge) > np.vecdot(a, a) * off2
        mean = (ss[..., None].astype(np.float64) * hinge).sum(axis=0)   # sum of s^2 hinge
        norm = np.sqrt(np.vecdot(mean, mean))[:, None]
        mean = np.where(norm > 0, mean / np.where(norm > 0, norm, 1.0), (1.0, 0.0, 0.0))
        axis = np.where(bent[..., None], hinge, mean.astype(np.float32))
        # the pole: the knee's offset from the hip-to-shin's-end line
        line = thigh + shin
        ll = np.maximum(np.vecdot(line, line), np.float32(1e-24))[..., None]
        pole = thigh - (np.vecdot(thigh, line)[..., None] / ll) * line
        qs, qm, _ = ik_two_bone(m[:, 0], m[:, 1], end, feet_at, pole=pole, mid_axis=axis)
        flat[:, joints, :4] = _qmul_k(flat[:, joints, :4], np.concatenate((qs, qm), axis=1))
        return local

    def _remap_local(self, local: npt.ArrayLike, out: Float32Array | None = None
                     ) -> tuple[Float32Array, Float32Array]:
        x = np.asarray(local)
        if x.dtype.kind not in "fiu":
            raise TypeError(f"local: expected real numbers, got dtype {x.dtype}")
        x = np.ascontiguousarray(x, dtype=np.float32)
        js = len(self._source)
        if x.ndim < 2 or x.shape[-2:] != (js, 8):
            raise ValueError(f"local: expected shape (..., {js}, 8) (the source's joints), got "
                             f"{x.shape}")
        if not np.isfinite(x).all():           # the joint named only when one is not
            finite = np.isfinite(x).all(axis=-1)
            where = np.unravel_index(int(np.flatnonzero(~finite.ravel())[0]), finite.shape)
            raise ValueError(f"local: expected finite values, frame "
                             f"{tuple(int(i) for i in where[:-1])} joint "
                             f"{self._source.names[int(where[-1])]!r} is not")
        world = self._source_world(x)
        return self._remap_fn(world, self._index, self._offsets, self._target, self._rest, self._placed,
                      out=out), world

    def _set_position(self, local: Float32Array, joint: int, position: Any,
                      parent_world: Float32Array | None = None) -> None:
        """Set the world position of ``joint`` (frames ``local`` (N, J, 8), in place) by its
        local translation (``parent_world``: its parent's world joints (N, 8), when known)."""
        par = int(self._target.parents[joint])
        if par < 0:
            local[:, joint, 4:7] = position
            return
        g = (qts_local_to_global(local, self._target, stop=par + 1)[:, par]
             if parent_world is None else parent_world)
        local[:, joint, 4:7] = _to_local(g, position)

    def _legs_world(self, flat: Float32Array) -> Float32Array:
        """World joints (N, L, 8) of the joints the feet's placement and the legs' reach read
        (``self._legs``, with their ancestors; ``self._leg_at`` maps a target joint there)."""
        sub = np.take(flat, self._legs, axis=1)
        world: Float32Array = qts_local_to_global(sub, self._leg_parents, sub)
        return world

    def _place_feet(self, local: Float32Array, world: Float32Array,
                    target_world: Float32Array | None = None,
                    feet_at: Float32Array | None = None) -> Float32Array:
        """Feet that hang elsewhere than their lower leg (placed): at the target's upper leg
        plus the source's foot offset from its upper leg (aligned and scaled); ``local`` is
        changed in place and returned. ``feet_at`` (F, L, 3), when given, receives the
        positions of the feet of the legs' reach (all placed here)."""
        if not self._hip_relative:
            return local
        flat = local.reshape((-1,) + local.shape[-2:])
        sw = world.reshape((-1,) + world.shape[-2:])
        g = self._legs_world(flat) if target_world is None else target_world
        at, parents = self._leg_at, self._target.parents
        for i, (foot, upper, s_foot, s_upper) in enumerate(self._hip_relative):
            par = int(parents[foot])
            position = g[:, at[upper], 4:7] + sw[:, s_foot, 4:7] - sw[:, s_upper, 4:7]
            self._set_position(flat, foot, position, g[:, at[par]] if par >= 0 else None)
            if feet_at is not None and self._reach_placed is not None and i in self._reach_placed:
                feet_at[:, self._reach_placed.index(i)] = position
        return local

    def apply(self, clip: Clip, out: Float32Array | None = None, *,
              speed: float | None = None, blend: float = CONTACT_BLEND) -> Clip:
        """The clip retargeted: a :class:`skelsimd.Clip` of the target skeleton (its names and
        joint order), at the clip's frame rate and with its name.

        With ``feet=``, the source's contacts are labelled by :meth:`skelsimd.Clip.contacts`
        (``speed``: source units per second, default :data:`CONTACT_SPEED` source leg lengths
        per second) and each target foot is held, during each contact, at the source foot's
        position at the contact's first frame (aligned and scaled), eased in and out over
        ``blend`` seconds.

        Parameters
        ----------
        clip : Clip
            A clip of the source skeleton (the same joint names in the same order).
        out : ndarray, float32 (F, Jt, 8), optional
            Where to write the target's local poses (the result's ``local``).

        Examples
        --------
        >>> import numpy as np, skelsimd
        >>> clip = skelsimd.data.load_example()
        >>> same = {n: n for n in clip.skeleton.names}
        >>> back = skelsimd.Retargeter(clip, clip, same, scale=1.0).apply(clip)
        >>> bool(np.abs(back.global_positions() - clip.global_positions()).max() < 1e-3)
        True
        """
        if not isinstance(clip, Clip):
            raise TypeError(f"clip: expected a skelsimd.Clip, got {type(clip).__name__}")
        if clip.skeleton.names != self._source.names or not np.array_equal(
                clip.skeleton.parents, self._source.parents):
            raise ValueError(f"clip: expected a clip of the source skeleton ({len(self._source)} "
                             f"joints: {', '.join(self._source.names[:3])}, ...), got one of "
                             f"{len(clip.skeleton)} joints: "
                             f"{', '.join(clip.skeleton.names[:3])}, ...")
        if out is not None:
            shape = (clip.frames, len(self._target), 8)
            if not isinstance(out, np.ndarray) or out.dtype != np.float32:
                raise TypeError("out: expected a float32 ndarray")
            if out.shape != shape or not out.flags.c_contiguous or not out.flags.writeable:
                raise ValueError(f"out: expected a writeable C-contiguous array of shape {shape},"
                                 f" got {out.shape}")
        if self._feet:
            labels = self._contacts(clip, speed)        # before anything is written
            blend_ = float(blend)
            if not (blend_ >= 0 and math.isfinite(blend_)):
                raise ValueError(f"blend: expected a non-negative number of seconds, got {blend}")
            local, world = self._remap_local(clip.local)
            local = self._place_feet(local, world)
            local = self._reach_feet(self._hold_feet(clip, local, world, labels, blend_))
            if out is not None:
                out[...] = local
                local = out
        else:
            local = self.apply_local(clip.local, out=out)
        return Clip(self._target, local, clip.frame_time, name=clip.name,
                    frame_time_raw=clip.frame_time_raw)

    # --- feet ---

    def contacts(self, clip: Clip, speed: float | None = None) -> list[Track]:
        """The source's foot contacts that ``apply`` keeps: one step track per foot of
        ``feet=`` (:meth:`skelsimd.Clip.contacts` with ``speed`` in source units per second,
        default :data:`CONTACT_SPEED` source leg lengths per second).

        Examples
        --------
        >>> import skelsimd
        >>> walk = skelsimd.data.load_example()
        >>> rt = skelsimd.Retargeter(walk, skelsimd.data.load_character().skins[0], feet="auto")
        >>> left, right = rt.contacts(walk)
        >>> sliding = skelsimd.foot_sliding(walk, "LeftAnkle", left)   # per contact frame
        """
        if not self._feet:
            raise ValueError("feet: the retargeter was made without feet=")
        if speed is None:
            assert self._leg is not None
            speed = CONTACT_SPEED * self._leg
        tracks: list[Track] = clip.contacts([s for s, _ in self._feet], speed=speed)
        return tracks

    def _contacts(self, clip: Clip, speed: float | None) -> list[npt.NDArray[np.bool_]]:
        return [_labels(clip, t, f"feet[{i}]") for i, t in enumerate(self.contacts(clip, speed))]

    def _hold_feet(self, clip: Clip, local: Float32Array, world: Float32Array,
                   labels: list[npt.NDArray[np.bool_]], blend: float) -> Float32Array:
        """Each target foot held during the source's contacts: a foot of the leg's chain at
        the source's position at the contact's first frame (aligned and scaled) by two-bone
        IK; a placed foot at its own placed position then."""
        ramp = seconds_to_frames(blend, clip.frame_time, clip.frames + 1)
        tp = self._target.parents
        for (s, t), c in zip(self._feet, labels):
            intervals = contact_intervals(c)
            if not intervals:
                continue
            if self._placed[t]:
                w, owner = _weights(clip.frames, intervals, ramp)
                frames = np.flatnonzero(w > 0)
                par = int(tp[t])              # the foot's parent's world: the legs' when there
                pw = (None if par < 0 else self._legs_world(local)[:, self._leg_at[par]]
                      if self._leg_at[par] >= 0 else
                      qts_local_to_global(local, self._target, stop=par + 1)[:, par])
                p = (local[:, t, 4:7] if pw is None else pw[:, 4:7] + pw[:, 7:8] * _rot_k(
                    pw[:, :4], local[:, t, 4:7])).astype(np.float64)
                locks = p[[a for a, _ in intervals]]
                target = p[frames] + w[frames, None] * (locks[owner[frames]] - p[frames])
                local[frames, t, 4:7] = target if pw is None else _to_local(pw[frames], target)
                continue
            locks = world[[a for a, _ in intervals], s, 4:7].astype(np.float64)
            knee = int(tp[t])
            hip = int(tp[knee]) if knee >= 0 else -1
            if hip < 0:
                continue
            local, _ = plant_leg(self._target, local, (hip, knee, t), intervals, locks, ramp)
        return local

    def __repr__(self) -> str:
        return (f"Retargeter({len(self._source)} -> {len(self._target)} joints, "
                f"{len(self.mapping)} mapped, scale {self.scale:.4g})")
