"""Benchmark workloads of retargeting: the remap kernel (_core.retarget_remap) on a 1,000-frame
clip of the 31-joint CMU skeleton onto a 43-joint game rig (a UE-style subset of the testing
humanoid: root, pelvis, spine, neck, head, jaw, arms with twist joints and two fingers and a
thumb, legs with balls; 27 joints mapped, the pelvis placed, the rest unmapped), per target
joint-frame, against the float32 NumPy formulation of the same remap (the whole remap as array
operations over frames and joints at once, only the hierarchy's dependencies joint by joint)
and the reference's formulation in float32 (joint by joint, vectorised over the frames)."""
from typing import Any

import numpy as np

from .._typing import Float32Array
from .. import _core
from .. import data
from .. import testing as T
from ..qts import qts_local_to_global
from ..bounds import bound
from ..reference import retarget as RR
from ..reference.ik import quat_mul, quat_rotate
from .core import Workload

__all__ = ["headline", "game_rig", "remap_workload", "remap_numpy32"]

# The target: joints of skelsimd.testing.humanoid_skeleton() (closed under parents, in its
# order), and the CMU joint driving each mapped one.
_RIG = ("root pelvis spine_01 spine_02 spine_03 spine_04 spine_05 neck_01 neck_02 head jaw "
        + " ".join(f"clavicle_{s} upperarm_{s} lowerarm_{s} hand_{s} thumb_01_{s} thumb_02_{s} "
                   f"index_metacarpal_{s} index_01_{s} middle_metacarpal_{s} middle_01_{s} "
                   f"lowerarm_twist_{s} upperarm_twist_{s} thigh_{s} calf_{s} foot_{s} ball_{s}"
                   for s in "lr")).split()
_MAP = {"pelvis": "Hips", "spine_01": "lowerback", "spine_03": "Chest", "spine_05": "Chest2",
        "neck_01": "lowerneck", "neck_02": "Neck", "head": "Head"}
for _s, _side in (("l", "Left"), ("r", "Right")):
    _MAP.update({f"clavicle_{_s}": f"{_side}Collar", f"upperarm_{_s}": f"{_side}Shoulder",
                 f"lowerarm_{_s}": f"{_side}Elbow", f"hand_{_s}": f"{_side}Wrist",
                 f"thumb_01_{_s}": f"{_side[0]}Thumb", f"index_01_{_s}": f"{_side[0]}Fingers",
                 f"thigh_{_s}": f"{_side}Hip", f"calf_{_s}": f"{_side}Knee",
                 f"foot_{_s}": f"{_side}Ankle", f"ball_{_s}": f"{_side}Toe"})

_Remap = tuple[Float32Array, np.ndarray[Any, Any], Float32Array, np.ndarray[Any, Any], Float32Array,
               np.ndarray[Any, Any]]


def game_rig(frames: int = 1000, seed: int = 0) -> _Remap:
    """The operands of the headline remap: (source_world, src_index, offsets, target_parents,
    target_rest, placed); the source's world joints are the example CMU clip's, repeated to
    `frames` frames."""
    parents, names = T.humanoid_skeleton()
    keep = [names.index(n) for n in _RIG]
    new = {old: k for k, old in enumerate(keep)}
    target_parents = np.array([new[int(parents[j])] if parents[j] >= 0 else -1 for j in keep],
                              np.int32)
    clip = data.load_example()
    world = qts_local_to_global(clip.local, clip.skeleton)
    source_world = np.ascontiguousarray(np.resize(world, (frames,) + world.shape[1:]))
    src_names = list(clip.skeleton.names)
    src_index = np.array([src_names.index(_MAP[n]) if n in _MAP else -1 for n in _RIG], np.int32)
    rng = np.random.default_rng(seed)
    offsets = T.random_quaternions(len(_RIG), rng).astype(np.float32)
    target_rest = T.random_qts(len(_RIG), rng, translation=10.0)
    placed = np.array([n == "pelvis" for n in _RIG])
    return source_world, src_index, offsets, target_parents, target_rest, placed


def remap_numpy32(source_world: Float32Array, src_index: np.ndarray[Any, Any],
                  offsets: Float32Array, parents: np.ndarray[Any, Any], rest: Float32Array,
                  placed: np.ndarray[Any, Any]) -> Float32Array:
    """The remap in float32 NumPy, as array operations over frames and joints at once: every
    mapped joint's world rotation in one product, the output rotations of all mapped joints in
    one product with their parents' conjugates, the rests copied in one assignment; only the
    world rotations of unmapped ancestors and the translations of placed joints (and their
    ancestors) go joint by joint, as the hierarchy requires. The kernel's formula and plan."""
    S = np.asarray(source_world, np.float32)
    lead, jt = S.shape[:-2], len(src_index)
    mapped = src_index >= 0
    out: Float32Array = np.empty(lead + (jt, 8), np.float32)
    out[...] = rest
    wq = np.empty(lead + (jt, 4), np.float32)
    mi = np.flatnonzero(mapped)
    wq[..., mi, :] = quat_mul(S[..., src_index[mi], :4], offsets[mi])
    need_w, need_t = np.zeros(jt, bool), np.zeros(jt, bool)
    pm = mapped & np.asarray(placed, bool)
    for j in range(jt - 1, 0, -1):
        p = parents[j]
        if p >= 0:
            need_t[p] |= pm[j] | need_t[j]
            need_w[p] |= mapped[j] | need_w[j] | need_t[p]
    for k in np.flatnonzero(~mapped & need_w):
        p = parents[k]
        wq[..., k, :] = rest[k, :4] if p < 0 else quat_mul(wq[..., p, :], rest[k, :4])
    ci = np.flatnonzero(mapped & (parents >= 0))
    ri = np.flatnonzero(mapped & (parents < 0))
    conj = wq[..., parents[ci], :] * np.array([-1, -1, -1, 1], np.float32)
    out[..., ci, :4] = quat_mul(conj, wq[..., ci, :])
    out[..., ri, :4] = wq[..., ri, :]
    wt: dict[int, Any] = {}
    ws: dict[int, Any] = {}
    for i in np.flatnonzero(need_t | pm):
        j, p = int(i), int(parents[i])
        if pm[j]:
            st = S[..., src_index[j], 4:7]
            if p >= 0:
                d = st - wt[p]
                out[..., j, 4:7] = quat_rotate(wq[..., p, :] * np.array([-1, -1, -1, 1], np.float32),
                                               d) / ws[p][..., None]
            else:
                out[..., j, 4:7] = st
            wt[j] = st
        else:
            wt[j] = rest[j, 4:7] if p < 0 else wt[p] + ws[p][..., None] * quat_rotate(wq[..., p, :], rest[j, 4:7])
        ws[j] = rest[j, 7] if p < 0 else ws[p] * rest[j, 7]
    return out


def remap_workload(frames: int = 1000) -> Workload:
    """retarget_remap of `frames` frames, 31 source joints onto 43 target joints."""
    args = game_rig(frames)
    src, index, offsets, parents, rest, placed = args
    jt, js = len(index), src.shape[1]
    out = np.empty((frames, jt, 8), np.float32)
    few = min(frames, 8)
    expected = RR.remap(src[:few], index, offsets, parents, rest, placed)
    depth = int(T.depths(parents).max())
    scale = max(1.0, float(np.abs(src[..., 4:7]).max()), float(np.abs(rest[..., 4:7]).max()) * depth)
    tol = bound("retarget.remap.translation") * (depth + 1) * scale

    def check(res: Any) -> None:
        err = np.abs(np.asarray(res)[:few] - expected).max()
        assert err <= tol, f"retarget_remap differs from the float64 reference by {err:.3g}"
    return Workload(
        name=f"retarget_remap[{frames}x{js}->{jt}]",
        title=f"retarget_remap {frames} x ({js} -> {jt})", family="retarget",
        unit="joint-frame", units=frames * jt,
        kernel=lambda: _core.retarget_remap(src, index, offsets, parents, rest, placed, out),
        numpy=lambda: remap_numpy32(src, index, offsets, parents, rest, placed),
        check=check,
        extra={"numpy per joint": lambda: RR.remap(src, index, offsets, parents, rest, placed,
                                                   dtype=np.float32)},
        params={"frames": frames, "source_joints": js, "target_joints": jt},
    )


def headline() -> list[Workload]:
    return [remap_workload(1000), remap_workload(1)]
