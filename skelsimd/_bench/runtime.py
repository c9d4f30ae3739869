"""Benchmark workloads of the engine runtime: two-bone and aim IK per solve at 1, 1,000 and
100,000 chains (against the vectorised NumPy formulation of the same method,
skelsimd.reference.ik in float32), Skeleton.look_at per character, apply_additive per joint beside blend_joints, and two blended
layers plus an additive layer per joint (ozz-animation's BlendingJob with additive_layers)."""
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._typing import Float32Array, Float64Array
from .. import additive as A
from .. import blend as B
from .. import ik as I
from .. import testing as T
from ..quat import qts_to_matrix
from ..qts import qts_local_to_global_matrix
from ..skeleton import Skeleton
from ..reference import additive as RA
from ..reference import blend as RB
from ..reference import ik as RI
from ..reference import inertialize as RN
from .. import inertialize as N
from . import numpy_forms as NF
from .core import Workload

__all__ = ["headline", "chains", "two_bone_workload", "aim_workload", "look_at_workload",
           "additive_workload", "layers_additive_workload", "inertialize_workload"]


_Chains = tuple[Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array]


def _unit(v: Float64Array) -> Float64Array:
    u: Float64Array = v / np.linalg.norm(v, axis=-1, keepdims=True)
    return u


def _f32(x: Float64Array) -> Float32Array:
    return np.ascontiguousarray(x, dtype=np.float32)


def chains(n: int, seed: int = 0) -> _Chains:
    """n well-conditioned two-bone chains: model-space start, mid, end matrices (n, 3, 4), the
    mid joint's bending axis in its own space, targets within reach and poles."""
    rng = np.random.default_rng(seed)
    l1, l2 = rng.uniform(0.3, 1.0, n), rng.uniform(0.3, 1.0, n)
    frames = qts_to_matrix(T.random_qts((n, 3), rng)).astype(np.float64)
    d1 = _unit(rng.normal(size=(n, 3)))
    d2 = _unit(d1 + _unit(rng.normal(size=(n, 3))) * 1.5)
    frames[:, 1, :, 3] = frames[:, 0, :, 3] + d1 * l1[:, None]
    frames[:, 2, :, 3] = frames[:, 1, :, 3] + d2 * l2[:, None]
    axis = np.einsum("nji,nj->ni", frames[:, 1, :, :3], _unit(np.cross(d2, d1)))
    length = l1 + l2
    dist = rng.uniform(np.abs(l1 - l2) + 0.1 * length, 0.9 * length)
    target = frames[:, 0, :, 3] + _unit(rng.normal(size=(n, 3))) * dist[:, None]
    pole = _unit(np.cross(target - frames[:, 0, :, 3], rng.normal(size=(n, 3))))
    f32 = _f32
    return (f32(frames[:, 0]), f32(frames[:, 1]), f32(frames[:, 2]), f32(_unit(axis)), f32(target),
            f32(pole))


def _quat_checker(expected: Sequence[np.ndarray[Any, Any]], tol: float) -> Callable[[Sequence[object]], None]:
    def check(result: Sequence[object]) -> None:
        for res, want in zip(result, expected):
            got = np.asarray(res, np.float64)
            if got.dtype == bool or want.dtype == bool:
                continue
            err = np.minimum(np.abs(got - want).max(-1), np.abs(got + want).max(-1)).max(initial=0)
            assert err <= tol, f"correction differs from the float64 reference by {err:.3g}"
    return check


def two_bone_workload(n: int = 1000, seed: int = 0) -> Workload:
    s, m, e, axis, target, pole = chains(n, seed)
    zeros, ones = np.zeros(n, np.float32), np.ones(n, np.float32)
    expected = RI.two_bone(s, m, e, target, pole, axis, zeros, ones, ones)
    return Workload(
        name=f"ik_two_bone[{n}]", title=f"ik_two_bone {n} chains", family="runtime", unit="solve",
        units=n,
        kernel=lambda: I.ik_two_bone(s, m, e, target, pole=pole, mid_axis=axis),
        numpy=lambda: RI.two_bone(s, m, e, target, pole, axis, zeros, ones, ones,
                                  dtype=np.float32),
        check=_quat_checker(expected, 1e-4), params={"chains": n},
    )


def aim_workload(n: int = 1000, seed: int = 1) -> Workload:
    s, _, _, axis, target, pole = chains(n, seed)
    forward = np.array([1, 0, 0], np.float32)
    up = np.array([0, 1, 0], np.float32)
    zeros3 = np.zeros((n, 3))
    zeros, ones = np.zeros(n), np.ones(n)
    fwd_n, up_n = np.broadcast_to(forward, (n, 3)), np.broadcast_to(up, (n, 3))
    expected = RI.aim(s, target, pole, fwd_n, up_n, zeros3, zeros, ones)
    return Workload(
        name=f"ik_aim[{n}]", title=f"ik_aim {n} joints", family="runtime", unit="solve", units=n,
        kernel=lambda: I.ik_aim(s, target, forward=forward, up=up, pole=pole),
        numpy=lambda: RI.aim(s, target, pole, fwd_n, up_n, zeros3, zeros, ones,
                             dtype=np.float32),
        check=_quat_checker(expected, 1e-4), params={"joints": n},
    )


def additive_workload(batch: int = 1000, joints: int = 96, seed: int = 2) -> Workload:
    """apply_additive on an army (weight 0.7, one delta pose per character), with blend_joints
    (nlerp) of the same poses as an extra row: its cost per joint is the comparison."""
    rng = np.random.default_rng(seed)
    base = T.random_qts((batch, joints), rng)
    delta = T.random_qts((batch, joints), rng)
    out = np.empty_like(base)
    out2 = np.empty_like(base)
    copy = np.empty_like(base)
    expected = RA.apply_additive(base[:8], delta[:8], 0.7)

    def check(res: object) -> None:
        err = np.abs(np.asarray(res)[:8] - expected).max()
        assert err <= 1e-6, err
    return Workload(
        name=f"apply_additive[{batch}x{joints}]", title=f"apply_additive {batch} x {joints}",
        family="runtime", unit="joint", units=batch * joints,
        kernel=lambda: A.apply_additive(base, delta, 0.7, out=out),
        numpy=lambda: RA.apply_additive_numpy32(base, delta, 0.7),
        limit=lambda: np.copyto(copy, base), check=check,
        extra={"blend_joints nlerp": lambda: B.blend_joints(base, delta, 0.3, method="nlerp", out=out2),
               "blend_joints fast": lambda: B.blend_joints(base, delta, 0.3, out=out2)},
        params={"batch": batch, "joints": joints},
    )


def layers_additive_workload(batch: int = 1000, joints: int = 96, seed: int = 3) -> Workload:
    """Two blended layers plus one additive layer (ozz's BlendingJob: 4.7 ns per joint), one
    fused pass; beside it blend_joints of the same poses and the same job as two passes
    (blend_layers, then apply_additive in place); the limit copies the bytes the pass reads (the
    two layers and the delta, 96 bytes per joint)."""
    rng = np.random.default_rng(seed)
    x = T.random_qts((batch, 2, joints), rng)
    d = T.random_qts((batch, joints), rng)
    w = np.array([0.6, 0.4], np.float32)
    out = np.empty((batch, joints, 8), np.float32)
    out2 = np.empty_like(out)
    read = np.concatenate([x.reshape(batch, -1), d.reshape(batch, -1)], axis=1)
    copy = np.empty_like(read)
    expected = RA.apply_additive(RB.blend_layers(x[:8], w), d[:8], 0.5)

    def check(res: object) -> None:
        err = np.abs(np.asarray(res)[:8] - expected).max()
        assert err <= 2e-6, err

    def two_passes() -> object:
        B.blend_layers(x, w, out2)
        return A.apply_additive(out2, d, 0.5, out=out2)
    layer = [(d, 0.5)]
    return Workload(
        name=f"layers_additive[2+1x{batch}x{joints}]",
        title=f"2 layers + additive {batch} x {joints}", family="runtime", unit="joint",
        units=batch * joints,
        kernel=lambda: B.blend_layers(x, w, out, additive=layer),
        numpy=lambda: RA.apply_additive_numpy32(NF.blend_layers_numpy32(x, w), d, 0.5),
        limit=lambda: np.copyto(copy, read), check=check,
        extra={"blend_joints fast": lambda: B.blend_joints(x[:, 0], x[:, 1], 0.4, out=out2),
               "two passes": two_passes},
        params={"batch": batch, "joints": joints, "layers": 2, "additive": 1},
    )


def inertialize_workload(batch: int = 1000, joints: int = 96, seed: int = 4) -> Workload:
    """inertialize_update on an army (each character's offsets decayed one frame and applied to
    its pose), against the float32 NumPy formulation (the package's NumPy form before the
    kernel); the limit copies the pose and the two offset arrays."""
    rng = np.random.default_rng(seed)
    pose = T.random_qts((batch, joints), rng)
    off = rng.uniform(-0.5, 0.5, (batch, joints, 6)).astype(np.float32)
    offv = rng.uniform(-2, 2, (batch, joints, 6)).astype(np.float32)
    copies = [np.empty_like(pose), np.empty_like(off), np.empty_like(offv)]
    expected = RN.update(pose[:8], off[:8], offv[:8], 0.1, 1 / 60)

    def check(res: Any) -> None:
        out, x, v = res
        err = max(np.abs(np.asarray(out)[:8, :, 4:] - expected[0][..., 4:]).max(),
                  np.abs(np.asarray(x)[:8] - expected[1]).max())
        assert err <= 1e-5, err

    def limit() -> None:
        np.copyto(copies[0], pose)
        np.copyto(copies[1], off)
        np.copyto(copies[2], offv)
    return Workload(
        name=f"inertialize_update[{batch}x{joints}]", title=f"inertialize_update {batch} x {joints}",
        family="runtime", unit="joint", units=batch * joints,
        kernel=lambda: N.inertialize_update(pose, off, offv, halflife=0.1, dt=1 / 60),
        numpy=lambda: NF.inertialize_update_numpy32(pose, off, offv, 0.1, 1 / 60),
        limit=limit, check=check, params={"batch": batch, "joints": joints},
    )


def look_at_workload(n: int = 1000, seed: int = 5) -> Workload:
    """Skeleton.look_at on n characters of a five-joint spine (hips, spine, chest, neck, head),
    the aim spread over head, neck and chest (ozz-animation's look-at sample: IKAimJob per chain
    joint), per character: forward kinematics, the chain kernel and the corrections multiplied
    in. NumPy: the float32 NumPy formulation of the chain's solve (skelsimd.reference.ik's
    look_at) and the multiplication (its forward kinematics not counted)."""
    rng = np.random.default_rng(seed)
    spine = Skeleton([-1, 0, 1, 2, 3], names=["hips", "spine", "chest", "neck", "head"])
    local = T.random_qts((n, 5), rng, translation=0.3)
    target = (rng.uniform(-3, 3, (n, 3)) + [0, 0, 3]).astype(np.float32)
    chain, w = ["head", "neck", "chest"], np.array([0.5, 0.5, 1.0], np.float32)
    m = qts_local_to_global_matrix(local, spine)[:, [4, 3, 2]]
    vec = {k: np.broadcast_to(np.array(v, np.float32), (n, 3)) for k, v in
           (("pole", (0, 1, 0)), ("forward", (1, 0, 0)), ("up", (0, 1, 0)), ("offset", (0, 0, 0)))}
    zeros = np.zeros(n)
    q_ref = RI.look_at(m[:8], target[:8], vec["pole"][:8], vec["forward"][:8], vec["up"][:8],
                       vec["offset"][:8], zeros[:8], w)
    expected = local[:8].astype(np.float64)
    expected[:, [4, 3, 2], :4] = RI.quat_mul(expected[:, [4, 3, 2], :4], q_ref)

    def check(res: Any) -> None:
        err = np.abs(np.asarray(res)[:8] - expected).max()
        assert err <= 2e-4, f"look_at differs from the float64 reference by {err:.3g}"
    def numpy_form() -> Any:
        q = RI.look_at(m, target, vec["pole"], vec["forward"], vec["up"], vec["offset"], zeros, w,
                       dtype=np.float32)
        out = local.copy()
        out[:, [4, 3, 2], :4] = RI.quat_mul(out[:, [4, 3, 2], :4], q)
        return out
    return Workload(
        name=f"look_at[{n}]", title=f"Skeleton.look_at {n} x 3-joint chain", family="runtime",
        unit="character", units=n,
        kernel=lambda: spine.look_at(local, chain, target, w),
        numpy=numpy_form,
        check=check, params={"characters": n, "chain": 3},
    )


def headline() -> list[Workload]:
    return ([two_bone_workload(n) for n in (1, 1000, 100_000)]
            + [aim_workload(n) for n in (1, 1000, 100_000)]
            + [look_at_workload(n) for n in (1, 1000)]
            + [additive_workload(), layers_additive_workload(),
               # one small army, in cache (ozz's figure is one character's 96 joints)
               layers_additive_workload(batch=10), inertialize_workload()])
