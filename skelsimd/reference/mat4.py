"""Float64 NumPy references for the 4x4 matrix family, written for clarity, not speed, plus the
float32 NumPy formulations the tests and benchmarks compare against.

4x4 matrices are (..., 4, 4) row-major acting on column vectors; 3x4 joint matrices are their
first three rows with an implied last row (0, 0, 0, 1).
"""
import numpy as np
from numpy.typing import ArrayLike

from .._typing import BoolArray, Float32Array, Float64Array
from .joints import LevelPlan, walk

__all__ = [
    "matmul4",
    "mat4_local_to_global",
    "transform_points",
    "is_projective",
    "mat4_local_to_global_float32",
    "matmul4_gemm",
    "matmul4_batched",
    "mat4_chain_numpy",
    "mat4_local_to_global_levels",
]


def matmul4(a: ArrayLike, b: ArrayLike) -> Float64Array:
    """a @ b with broadcasting, in float64."""
    return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)


def _matmul64(a: Float64Array, b: Float64Array) -> Float64Array:
    return a @ b


def mat4_local_to_global(local: ArrayLike, parents: ArrayLike, out: ArrayLike | None = None,
                         start: int = 0, stop: int | None = None) -> Float64Array:
    """global[j] = global[parents[j]] @ local[j] for start <= j < stop (roots copy local).

    Parents before `start` are read from `out` (default: a copy of `local`). Returns float64.
    """
    return walk(local, parents, _matmul64, out, start, stop)


def is_projective(m: ArrayLike) -> BoolArray:
    """(...,) bool: a 4x4 whose last row is not exactly (0, 0, 0, 1); False for 3x4."""
    m = np.asarray(m)
    if m.shape[-2] == 3:
        return np.zeros(m.shape[:-2], dtype=bool)
    last = m[..., 3, :]
    projective: BoolArray = ~((last[..., :3] == 0).all(axis=-1) & (last[..., 3] == 1))
    return projective


def transform_points(m: ArrayLike, points: ArrayLike) -> Float64Array:
    """Points (..., 3) by matrices (..., 3|4, 4) with broadcasting, in float64: R p + t, divided
    by w = m[3, :3] . p + m[3, 3] where the matrix is projective."""
    m = np.asarray(m, dtype=np.float64)
    p = np.asarray(points, dtype=np.float64)
    r: Float64Array = (m[..., :3, :3] @ p[..., :, None])[..., 0] + m[..., :3, 3]
    if m.shape[-2] == 4:
        w = (m[..., 3, :3] * p).sum(axis=-1) + m[..., 3, 3]
        proj = is_projective(m)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(proj[..., None], r / w[..., None], r)
    return r


def mat4_local_to_global_float32(local: ArrayLike, parents: ArrayLike) -> Float32Array:
    """The same walk as a chain of float32 NumPy matmuls (one per joint, batched over the leading
    dimensions): the accuracy yardstick of "as accurate as a float32 NumPy matmul"."""
    local = np.asarray(local, dtype=np.float32)
    g = local.copy()
    for j, p in enumerate(np.asarray(parents)):
        if p >= 0:
            np.matmul(g[..., p, :, :], local[..., j, :, :], out=g[..., j, :, :])
    return g


# --- the fastest NumPy formulations (benchmarks) -----------------------------------------------

def matmul4_gemm(a: Float32Array, b: Float32Array, out: Float32Array) -> Float32Array:
    """Array (N, 4, 4) times one constant (4, 4): a single GEMM on the reshaped array,
    (4N, 4) @ (4, 4) -- the fastest NumPy way for the first test case of "Optimizing 4x4 matrix multiplication"."""
    np.matmul(a.reshape(-1, 4), b, out=out.reshape(-1, 4))
    return out


def matmul4_batched(a: Float32Array, b: Float32Array, out: Float32Array) -> Float32Array:
    """np.matmul with broadcasting (one batched call): the fastest NumPy way for a constant times
    an array and for pairwise products."""
    return np.matmul(a, b, out=out)


def mat4_chain_numpy(local: Float32Array, out: Float32Array) -> Float32Array:
    """The second test case of "Optimizing 4x4 matrix multiplication" in NumPy: out[j] = out[j - 1] @ local[j] (a chain admits no
    batching in NumPy: one matmul per joint)."""
    out[0] = local[0]
    for j in range(1, len(local)):
        np.matmul(out[j - 1], local[j], out=out[j])
    return out


def mat4_local_to_global_levels(local: Float32Array, plan: LevelPlan,
                                out: Float32Array) -> Float32Array:
    """local_to_global on 4x4 matrices by depth levels (see reference.joints.LevelPlan): every
    joint of one depth in one batched float32 matmul -- the fastest NumPy formulation for
    whole skeletons."""
    out[..., plan.roots, :, :] = local[..., plan.roots, :, :]
    for idx, par in plan.levels:
        out[..., idx, :, :] = np.matmul(out[..., par, :, :], local[..., idx, :, :])
    return out
