"""Benchmark workloads of the engine runtime: two-bone and aim IK per solve at 1, 1,000 and
100,000 chains (against the vectorised NumPy formulation of the same method,
skelsimd.reference.ik in float32), apply_additive per joint beside blend_joints, and two blended
layers plus an additive layer per joint (ozz-animation's BlendingJob with additive_layers)."""
import numpy as np

from .. import additive as A
from .. import blend as B
from .. import ik as I
from .. import testing as T
from ..quat import qts_to_matrix
from ..reference import additive as RA
from ..reference import blend as RB
from ..reference import ik as RI
from .core import Workload
from .numpy_forms import blend_layers_numpy32

__all__ = ["headline", "chains", "two_bone_workload", "aim_workload", "additive_workload",
           "layers_additive_workload"]


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def chains(n, seed=0):
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
    f32 = lambda x: np.ascontiguousarray(x, dtype=np.float32)  # noqa: E731
    return (f32(frames[:, 0]), f32(frames[:, 1]), f32(frames[:, 2]), f32(_unit(axis)), f32(target),
            f32(pole))


def _quat_checker(expected, tol):
    def check(result):
        for got, want in zip(result, expected):
            got = np.asarray(got, np.float64)
            if got.dtype == bool or want.dtype == bool:
                continue
            err = np.minimum(np.abs(got - want).max(-1), np.abs(got + want).max(-1)).max(initial=0)
            assert err <= tol, f"correction differs from the float64 reference by {err:.3g}"
    return check


def two_bone_workload(n=1000, seed=0):
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


def aim_workload(n=1000, seed=1):
    s, _, _, axis, target, pole = chains(n, seed)
    forward = np.float32([1, 0, 0])
    up = np.float32([0, 1, 0])
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


def additive_workload(batch=1000, joints=96, seed=2):
    """apply_additive on an army (weight 0.7, one delta pose per character), with blend_joints
    (nlerp) of the same poses as an extra row: its cost per joint is the comparison."""
    rng = np.random.default_rng(seed)
    base = T.random_qts((batch, joints), rng)
    delta = T.random_qts((batch, joints), rng)
    out = np.empty_like(base)
    out2 = np.empty_like(base)
    copy = np.empty_like(base)
    expected = RA.apply_additive(base[:8], delta[:8], 0.7)

    def check(res):
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


def layers_additive_workload(batch=1000, joints=96, seed=3):
    """Two blended layers plus one additive layer (ozz's BlendingJob: 4.7 ns per joint), one
    fused pass; beside it blend_joints of the same poses and the same job as two passes
    (blend_layers, then apply_additive in place); the limit copies the bytes the pass reads (the
    two layers and the delta, 96 bytes per joint)."""
    rng = np.random.default_rng(seed)
    x = T.random_qts((batch, 2, joints), rng)
    d = T.random_qts((batch, joints), rng)
    w = np.float32([0.6, 0.4])
    out = np.empty((batch, joints, 8), np.float32)
    out2 = np.empty_like(out)
    read = np.concatenate([x.reshape(batch, -1), d.reshape(batch, -1)], axis=1)
    copy = np.empty_like(read)
    expected = RA.apply_additive(RB.blend_layers(x[:8], w), d[:8], 0.5)

    def check(res):
        err = np.abs(np.asarray(res)[:8] - expected).max()
        assert err <= 2e-6, err

    def two_passes():
        B.blend_layers(x, w, out2)
        return A.apply_additive(out2, d, 0.5, out=out2)
    layer = [(d, 0.5)]
    return Workload(
        name=f"layers_additive[2+1x{batch}x{joints}]",
        title=f"2 layers + additive {batch} x {joints}", family="runtime", unit="joint",
        units=batch * joints,
        kernel=lambda: B.blend_layers(x, w, out, additive=layer),
        numpy=lambda: RA.apply_additive_numpy32(blend_layers_numpy32(x, w), d, 0.5),
        limit=lambda: np.copyto(copy, read), check=check,
        extra={"blend_joints fast": lambda: B.blend_joints(x[:, 0], x[:, 1], 0.4, out=out2),
               "two passes": two_passes},
        params={"batch": batch, "joints": joints, "layers": 2, "additive": 1},
    )


def headline():
    return ([two_bone_workload(n) for n in (1, 1000, 100_000)]
            + [aim_workload(n) for n in (1, 1000, 100_000)]
            + [additive_workload(), layers_additive_workload()])
