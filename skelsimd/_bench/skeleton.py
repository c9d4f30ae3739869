"""Benchmark workloads of the skeleton family: the embedded real clip through import, forward
kinematics and blending (``python -m skelsimd bench``), plus the pieces of
``benchmarks/sweep_skeleton.py`` (joint orders, Skeleton vs int array per call).

Every workload checks its result against a float64 reference computed independently from the
BVH channels (Euler matrices) before anything is timed.
"""
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .._typing import Float32Array
from ..clip import Clip
from .. import data
from ..blend import blend_joints
from ..qts import qts_local_to_global_matrix
from .numpy_forms import qts_to_matrix_numpy32
from .. import joints as J
from ..io.bvh import _euler_quaternions, _make_continuous, load_bvh
from ..reference import joints as RJ
from ..reference import skeleton as RS
from .core import Workload


def _read_example() -> bytes:
    with open(data.example_path(), "rb") as f:
        return f.read()


_S = TypeVar("_S", bound=np.generic)


def _tiled(local: NDArray[_S], frames: int) -> NDArray[_S]:
    """`frames` frames of the clip, repeating it as often as needed."""
    reps = -(-frames // local.shape[0])
    return np.ascontiguousarray(np.concatenate([local] * reps)[:frames])


def _bound(depth: int, reference: NDArray[np.floating[Any]]) -> float:
    return (depth + 1) * 2.0**-23 * max(1.0, float(np.abs(reference[..., 3]).max(initial=0)))


def _numpy_load(raw: bytes) -> Float32Array:
    """The straightforward NumPy path of the same import: tokens of the whole file through
    ``float()`` (skelsimd.reference.skeleton.read_bvh), then the same vectorised Euler to
    quaternion conversion and continuity pass as load_bvh. Returns the local QTS poses (F, J, 8) float32."""
    ref = RS.read_bvh(raw.decode("latin-1"))
    counts = [len(c) for c in ref["channels"]]
    columns = np.concatenate(([0], np.cumsum(counts)))[:-1].astype(int).tolist()
    chans = [tuple(c) for c in ref["channels"]]
    q = _make_continuous(_euler_quaternions(ref["motion"], chans, columns))
    n, frames = len(chans), ref["motion"].shape[0]
    local = np.empty((frames, n, 8), np.float32)
    local[..., :4] = q
    local[..., 4:7] = ref["offsets"]
    for j, c in enumerate(chans):
        for k, name in enumerate(c):
            if name.endswith("position"):
                local[:, j, 4 + "XYZ".index(name[0])] = ref["motion"][:, columns[j] + k]
    local[..., 7] = 1
    return local


def clip_import() -> Workload:
    """load_bvh of the embedded clip (C MOTION reader + NumPy Euler conversion), against the
    straightforward reader (every number through Python's float())."""
    raw = _read_example()
    expected = load_bvh(raw).local
    frames = expected.shape[0]

    def check(result: Clip | Float32Array) -> None:
        local = result.local if isinstance(result, Clip) else result
        assert np.abs(local - expected).max() <= 1e-6

    return Workload(
        name="clip_import", title=f"load_bvh clip ({frames} frames)", family="skeleton",
        unit="frame", units=frames, kernel=lambda: load_bvh(raw), numpy=lambda: _numpy_load(raw),
        check=check, params={"frames": frames, "bytes": len(raw), "op": "load_bvh"},
    )


def clip_fk(frames: int) -> Workload:
    """Forward kinematics of `frames` frames of the real clip: QTS local poses in, global joint
    matrices out (qts_local_to_global_matrix), against NumPy (conversion + depth-level batching)."""
    raw = _read_example()
    clip = load_bvh(raw)
    skel = clip.skeleton
    local = _tiled(clip.local, frames)
    ref_all = RS.bvh_global_matrices(RS.read_bvh(raw.decode("latin-1")))
    expected = _tiled(ref_all, frames)[:64]
    tol = _bound(int(skel.depth.max()), expected)
    out = np.empty(local.shape[:-1] + (3, 4), np.float32)
    out_np = np.empty_like(out)
    plan = RJ.LevelPlan(skel.parents)

    def numpy_fk() -> Float32Array:
        return RJ.local_to_global_levels(qts_to_matrix_numpy32(local), plan, out_np)

    def check(result: object) -> None:
        err = np.abs(np.asarray(result)[:64] - expected).max()
        assert err <= tol, f"clip FK differs from the float64 Euler reference by {err:.3g} > {tol:.3g}"

    return Workload(
        name=f"clip_fk[{frames}]", title=f"clip FK {frames} x {len(skel)}", family="skeleton",
        unit="joint", units=frames * len(skel),
        kernel=lambda: qts_local_to_global_matrix(local, skel, out),
        numpy=numpy_fk, limit=lambda: np.copyto(out_np, out), check=check,
        params={"batch": frames, "joints": len(skel), "op": "clip FK"},
    )


def clip_fk_matrices(frames: int = 1000) -> Workload:
    """local_to_global alone on the clip's local matrices (the kernel part of clip FK)."""
    raw = _read_example()
    clip = load_bvh(raw)
    skel = clip.skeleton
    local = qts_to_matrix_numpy32(_tiled(clip.local, frames))
    expected = RJ.local_to_global(local[:64], skel.parents)
    tol = _bound(int(skel.depth.max()), expected)
    out = np.empty_like(local)
    out_np = np.empty_like(local)
    plan = RJ.LevelPlan(skel.parents)

    def check(result: object) -> None:
        assert np.abs(np.asarray(result)[:64] - expected).max() <= tol

    return Workload(
        name=f"clip_l2g[{frames}]", title=f"local_to_global clip {frames} x {len(skel)}",
        family="skeleton", unit="joint", units=frames * len(skel),
        kernel=lambda: J.local_to_global(local, skel, out),
        numpy=lambda: RJ.local_to_global_levels(local, plan, out_np),
        limit=lambda: np.copyto(out_np, local), check=check,
        params={"batch": frames, "joints": len(skel), "op": "local_to_global clip"},
    )


def _numpy_blend32(a: Float32Array, b: Float32Array, t: float) -> Float32Array:
    """The fastest NumPy float32 formulation of a QTS blend we wrote: shortest-arc slerp via
    arccos/sin, with an nlerp fallback for near-parallel pairs."""
    qa, qb = a[..., :4], b[..., :4]
    dot = np.einsum("...k,...k->...", qa, qb)[..., None]
    qb = np.where(dot < 0, -qb, qb)
    dot = np.abs(dot)
    theta = np.arccos(np.minimum(dot, np.float32(1)))
    s = np.sin(theta)
    near = s < 1e-4
    safe = np.where(near, np.float32(1), s)
    w0 = np.where(near, np.float32(1 - t), np.sin(np.float32(1 - t) * theta) / safe)
    w1 = np.where(near, np.float32(t), np.sin(np.float32(t) * theta) / safe)
    out = np.empty_like(a)
    q = w0 * qa + w1 * qb
    out[..., :4] = q / np.sqrt(np.einsum("...k,...k->...", q, q))[..., None]
    out[..., 4:] = (1 - t) * a[..., 4:] + t * b[..., 4:]
    return out


def clip_blend(frames: int = 1000, t: float = 0.3) -> Workload:
    """Cross-fade of the clip with itself half a clip later, `frames` frames x J joints
    with blend_joints into a preallocated ``out``, against NumPy float32 slerp; checked against
    the float64 slerp."""
    clip = load_bvh(_read_example())
    a = _tiled(clip.local, frames)
    b = _tiled(np.roll(clip.local, clip.frames // 2, axis=0), frames)
    expected_q = RS.slerp(a[:64, :, :4], b[:64, :, :4], t)
    copy_dst = np.empty_like(a)
    out = np.empty_like(a)

    def check(result: object) -> None:
        r = np.asarray(result)[:64]
        assert np.abs(r[..., :4] - expected_q).max() <= 1e-6
        assert np.abs(r[..., 4:] - ((1 - t) * a[:64, :, 4:].astype(np.float64)
                                    + t * b[:64, :, 4:].astype(np.float64))).max() <= 1e-5

    return Workload(
        name=f"clip_blend[{frames}]", title=f"clip blend {frames} x {len(clip.skeleton)}",
        family="skeleton", unit="joint", units=a.shape[0] * a.shape[1],
        kernel=lambda: blend_joints(a, b, t, out=out), numpy=lambda: _numpy_blend32(a, b, t),
        limit=lambda: np.copyto(copy_dst, a), check=check,
        params={"batch": frames, "joints": a.shape[1], "op": "clip blend"},
    )


def headline() -> list[Workload]:
    """The family's workloads for `python -m skelsimd bench`: the embedded real clip through
    import, FK (over batch sizes, for the ns-per-joint plot) and blending."""
    return ([clip_import()] + [clip_fk(f) for f in (1, 10, 100, 1000)]
            + [clip_fk_matrices(1000), clip_blend(1000)])
