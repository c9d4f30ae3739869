"""Benchmark workloads of the joint-matrix family."""
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float32Array, Float64Array, Precision
from .. import joints as J
from ..skeleton import Skeleton
from .. import testing as T
from ..reference import joints as R
from .core import Workload


def _checker(expected: Float64Array, tol: float) -> Callable[[object], None]:
    def check(result: object) -> None:
        err = np.abs(np.asarray(result, np.float64) - expected).max(initial=0.0)
        assert err <= tol, f"result differs from the float64 reference by {err:.3g} > {tol:.3g}"
    return check


def local_to_global_workload(batch: int, joints: int, *, seed: int = 0, name: str | None = None,
                             parents: ArrayLike | None = None,
                             precision: Precision = "float32",
                             skeleton_method: bool = False) -> Workload:
    """local_to_global on `batch` skeletons of `joints` joints (the humanoid for 96, a random tree
    otherwise), against NumPy's depth-level batching and a memcpy of the same bytes;
    `skeleton_method` adds the same walk through ``Skeleton.local_to_global`` as an extra row."""
    rng = np.random.default_rng(seed)
    if parents is None:
        parents = T.humanoid_skeleton()[0] if joints == 96 else T.random_parents(joints, rng)

    local = T.random_joints((batch, joints), rng)
    out = np.empty_like(local)
    out_np = np.empty_like(local)
    copy_dst = np.empty_like(local)
    plan = R.LevelPlan(parents)
    k = min(batch, 16)   # check the first characters against float64 (exactly what the call computed)
    expected = R.local_to_global(local[:k], parents)
    check_all = _checker(expected, 4e-5 if precision == "float32" else 2e-6)
    suffix = "" if precision == "float32" else f" ({precision})"
    w = Workload(
        name=name or f"local_to_global[{batch}x{joints}]",
        title=f"local_to_global {batch} x {joints}{suffix}",
        family="joints", unit="joint", units=batch * joints,
        kernel=lambda: J.local_to_global(local, parents, out, precision=precision),
        numpy=lambda: R.local_to_global_levels(local, plan, out_np),
        limit=lambda: np.copyto(copy_dst, local),
        check=lambda res: check_all(np.asarray(res)[:k]),
        params={"batch": batch, "joints": joints, "precision": precision},
    )
    if skeleton_method:
        skeleton = Skeleton(parents)
        w.extra["Skeleton method"] = lambda: skeleton.local_to_global(local, out, precision=precision)
    return w


def army() -> Workload:
    """The army of "Adventures in data-oriented design, part 2": 1000 characters x 96 joints."""
    return local_to_global_workload(1000, 96, name="army")


def army_float64() -> Workload:
    """The army with the global poses carried in float64 (precision="float64")."""
    return local_to_global_workload(1000, 96, name="army_float64", precision="float64")


def single_call() -> Workload:
    """One 96-joint skeleton from Python: the per-call overhead users pay per frame."""
    w = local_to_global_workload(1, 96, name="single", skeleton_method=True)
    w.title = "local_to_global 1 x 96 (per call)"
    return w


def palette(batch: int = 1000, joints: int = 96, seed: int = 1) -> Workload:
    """Matrix palette global @ inverse_bind for an army (multiply_joints with broadcasting)."""
    rng = np.random.default_rng(seed)
    glob = T.random_joints((batch, joints), rng)
    inv_bind = T.random_joints(joints, rng)
    out = np.empty_like(glob)
    out_np = np.empty_like(glob)
    expected = R.multiply_joints(glob[:16], inv_bind)

    def numpy_palette() -> Float32Array:
        np.matmul(glob[..., :3], inv_bind, out=out_np)
        out_np[..., 3] += glob[..., 3]
        return out_np

    check = _checker(expected, 1e-6)
    return Workload(
        name="palette", title=f"multiply_joints {batch} x {joints}", family="joints", unit="joint",
        units=batch * joints, kernel=lambda: J.multiply_joints(glob, inv_bind, out),
        numpy=numpy_palette, limit=lambda: np.copyto(out_np, glob),
        check=lambda res: check(np.asarray(res)[:16]), params={"batch": batch, "joints": joints},
    )


def untransform(batch: int = 1000, joints: int = 96, seed: int = 2) -> Workload:
    """global_to_local (general affine inverse) on an army."""
    rng = np.random.default_rng(seed)
    parents = T.humanoid_skeleton()[0]
    glob = J.local_to_global(T.random_joints((batch, joints), rng), parents)
    out = np.empty_like(glob)
    out_np = np.empty_like(glob)
    expected = R.global_to_local(glob[:8], parents)

    par = np.maximum(parents, 0)

    def numpy_untransform() -> Float32Array:
        gp = glob[..., par, :, :]
        inv = np.linalg.inv(gp[..., :3])
        out_np[..., :3] = inv @ glob[..., :3]
        out_np[..., 3] = (inv @ (glob[..., 3] - gp[..., 3])[..., None])[..., 0]
        out_np[..., parents < 0, :, :] = glob[..., parents < 0, :, :]
        return out_np

    check = _checker(expected, 2e-6)
    return Workload(
        name="untransform", title=f"global_to_local {batch} x {joints}", family="joints",
        unit="joint", units=batch * joints, kernel=lambda: J.global_to_local(glob, parents, out),
        numpy=numpy_untransform, limit=lambda: np.copyto(out_np, glob),
        check=lambda res: check(np.asarray(res)[:8]), params={"batch": batch, "joints": joints},
    )


def headline() -> list[Workload]:
    """The family's workloads for `python -m skelsimd bench`."""
    return [army(), army_float64(), single_call(), palette(), untransform()]
