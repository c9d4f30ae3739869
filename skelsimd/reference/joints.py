"""Float64 NumPy references for the joint-matrix family, written for clarity, not speed.

Joint matrices are (..., 3, 4) row-major [R | t] with an implied last row (0 0 0 1); a @ b is
the 4x4 product of the completed matrices with the last row dropped.
"""
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float32Array, Float64Array

__all__ = [
    "to_homogeneous",
    "compose",
    "invert",
    "walk",
    "local_to_global",
    "global_to_local",
    "multiply_joints",
    "invert_joints",
    "LevelPlan",
    "local_to_global_levels",
]


def to_homogeneous(m: ArrayLike) -> Float64Array:
    """(..., 3, 4) -> (..., 4, 4) float64 with last row (0, 0, 0, 1)."""
    m = np.asarray(m, dtype=np.float64)
    h = np.zeros(m.shape[:-2] + (4, 4))
    h[..., :3, :] = m
    h[..., 3, 3] = 1.0
    return h


def compose(a: ArrayLike, b: ArrayLike) -> Float64Array:
    """a @ b for joint matrices, in float64."""
    return (to_homogeneous(a) @ to_homogeneous(b))[..., :3, :]


def invert(m: ArrayLike, rigid: bool = False) -> Float64Array:
    """Affine inverse [R^-1 | -R^-1 t] in float64; rigid uses R^T for R^-1."""
    m = np.asarray(m, dtype=np.float64)
    r = m[..., :3, :3]
    rinv = np.swapaxes(r, -1, -2) if rigid else np.linalg.inv(r)
    out = np.empty(m.shape)
    out[..., :3, :3] = rinv
    out[..., :3, 3] = -(rinv @ m[..., :3, 3:4])[..., 0]
    return out


def walk(local: ArrayLike, parents: ArrayLike,
         product: Callable[[Float64Array, Float64Array], Float64Array],
         out: ArrayLike | None = None, start: int = 0, stop: int | None = None) -> Float64Array:
    """global[j] = product(global[parents[j]], local[j]) for start <= j < stop (roots copy
    local), in float64; parents before `start` are read from `out` (default: a copy of `local`).
    The hierarchy walk of every family (product: compose for joints, matmul for 4x4)."""
    local = np.asarray(local, dtype=np.float64)
    parents = np.asarray(parents)
    g = np.array(local if out is None else out, dtype=np.float64)
    stop = local.shape[-3] if stop is None else stop
    for j in range(start, stop):
        p = parents[j]
        g[..., j, :, :] = local[..., j, :, :] if p < 0 else product(g[..., p, :, :], local[..., j, :, :])
    return g


def local_to_global(local: ArrayLike, parents: ArrayLike, out: ArrayLike | None = None,
                    start: int = 0, stop: int | None = None) -> Float64Array:
    """global[j] = global[parents[j]] @ local[j] for start <= j < stop (roots copy local).

    Parents before `start` are read from `out` (default: a copy of `local`), as the kernel does.
    Returns float64.
    """
    return walk(local, parents, compose, out, start, stop)


def global_to_local(global_: ArrayLike, parents: ArrayLike, out: ArrayLike | None = None,
                    start: int = 0, stop: int | None = None, rigid: bool = False) -> Float64Array:
    """local[j] = inverse(global[parents[j]]) @ global[j] for start <= j < stop. Returns float64."""
    global_ = np.asarray(global_, dtype=np.float64)
    parents = np.asarray(parents)
    res = np.array(global_ if out is None else out, dtype=np.float64)
    stop = global_.shape[-3] if stop is None else stop
    for j in range(start, stop):
        p = parents[j]
        if p < 0:
            res[..., j, :, :] = global_[..., j, :, :]
        else:
            res[..., j, :, :] = compose(invert(global_[..., p, :, :], rigid), global_[..., j, :, :])
    return res


def multiply_joints(a: ArrayLike, b: ArrayLike) -> Float64Array:
    """a @ b per joint with NumPy broadcasting of the leading dims. Returns float64."""
    return compose(a, b)


def invert_joints(m: ArrayLike, rigid: bool = False) -> Float64Array:
    """Affine inverse per joint. Returns float64."""
    return invert(m, rigid)


class LevelPlan:
    """Joints grouped by depth, for the fastest NumPy formulation of local_to_global: all
    joints of one depth are independent, so each level is one batched matmul."""

    def __init__(self, parents: ArrayLike) -> None:
        parents = np.asarray(parents, dtype=np.intp)
        depth = np.zeros(len(parents), dtype=np.intp)
        for j, p in enumerate(parents):
            depth[j] = 0 if p < 0 else depth[p] + 1
        self.roots = np.flatnonzero(parents < 0)
        self.levels = [
            (idx, parents[idx]) for idx in (np.flatnonzero(depth == d) for d in range(1, depth.max(initial=0) + 1))
        ]


def local_to_global_levels(local: Float32Array, plan: LevelPlan,
                           out: Float32Array | None = None) -> Float32Array:
    """The NumPy float32 formulation the benchmarks compare against (depth-level batching):
    per level, rotation G_p[:3,:3] @ L[:3,:3] and translation G_p[:3,:3] @ L[:3,3] + G_p[:3,3]."""
    if out is None:
        out = np.empty_like(local)
    out[..., plan.roots, :, :] = local[..., plan.roots, :, :]
    for idx, par in plan.levels:
        gp = out[..., par, :, :]
        li = local[..., idx, :, :]
        res = gp[..., :3] @ li
        res[..., 3] += gp[..., 3]
        out[..., idx, :, :] = res
    return out
