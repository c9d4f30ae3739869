"""Benchmark workloads of the quaternion families ("Slerping Clock Cycles"): slerp and nlerp
on 1024 pairs, blend_joints and blend_layers on an army, and the QTS hierarchy walks."""
from collections.abc import Callable

import numpy as np

from .._typing import BlendMethod, Float32Array, Float64Array, Precision
from .. import blend as B
from .. import joints as J
from .. import qts as Q
from .. import quat as U
from .. import testing as T
from ..reference import blend as RB
from ..reference import joints as RJ
from ..reference import qts as RQ
from . import numpy_forms as NF
from .core import Workload


def _checker(expected: Float64Array, tol: float,
             part: slice = slice(None)) -> Callable[[object], None]:
    def check(result: object) -> None:
        err = np.abs(np.asarray(result, np.float64)[part] - expected).max(initial=0.0)
        assert err <= tol, f"result differs from the float64 reference by {err:.3g} > {tol:.3g}"
    return check


def _pairs(n: int, seed: int) -> tuple[Float32Array, Float32Array, Float32Array]:
    rng = np.random.default_rng(seed)
    q0, q1 = T.special_quaternion_pairs(n, rng)
    return q0, q1, rng.random(n).astype(np.float32)


def slerp_workload(n: int = 1024, seed: int = 0) -> Workload:
    """slerp "fast" on n pairs (per-pair t) against the NumPy float32 slerp, with the scalar
    "exact" method as an extra row (every variant runs the same scalar code for it)."""
    q0, q1, t = _pairs(n, seed)
    out = np.empty_like(q0)
    out_exact = np.empty_like(q0)
    return Workload(
        name=f"slerp[{n}]", title=f"slerp fast {n} pairs", family="quat", unit="pair", units=n,
        kernel=lambda: B.slerp(q0, q1, t, out),
        numpy=lambda: NF.slerp_numpy32(q0, q1, t),
        limit=lambda: np.copyto(out_exact, q0),
        check=_checker(RB.slerp(q0, q1, t), 5e-7),
        extra={"exact": lambda: B.slerp(q0, q1, t, out_exact, method="exact")},
        params={"pairs": n},
    )


def nlerp_workload(n: int = 1024, seed: int = 1) -> Workload:
    q0, q1, t = _pairs(n, seed)
    out = np.empty_like(q0)
    copy = np.empty_like(q0)
    return Workload(
        name=f"nlerp[{n}]", title=f"nlerp {n} pairs", family="quat", unit="pair", units=n,
        kernel=lambda: B.nlerp(q0, q1, t, out), numpy=lambda: NF.nlerp_numpy32(q0, q1, t),
        limit=lambda: np.copyto(copy, q0), check=_checker(RB.nlerp(q0, q1, t), 2e-7),
        params={"pairs": n},
    )


def blend_joints_workload(batch: int = 1000, joints: int = 96, method: BlendMethod = "fast",
                          seed: int = 2) -> Workload:
    """blend_joints of two armies of QTS poses (ozz-animation's two-layer BlendingJob)."""
    rng = np.random.default_rng(seed)
    a = T.random_qts((batch, joints), rng)
    b = T.random_qts((batch, joints), rng)
    out = np.empty_like(a)
    copy = np.empty_like(a)
    k = min(batch, 16)
    expected = RB.blend_joints(a[:k], b[:k], 0.3, method=method)
    check = _checker(expected, 5e-7)
    return Workload(
        name=f"blend_joints_{method}[{batch}x{joints}]", title=f"blend_joints {method} {batch} x {joints}",
        family="quat", unit="joint", units=batch * joints,
        kernel=lambda: B.blend_joints(a, b, 0.3, method=method, out=out),
        numpy=lambda: NF.blend_joints_numpy32(a, b, 0.3, method),
        limit=lambda: np.copyto(copy, a),
        check=lambda res: check(np.asarray(res)[:k]),
        params={"batch": batch, "joints": joints, "method": method},
    )


def blend_layers_workload(batch: int = 1000, joints: int = 96, layers: int = 3,
                          seed: int = 3) -> Workload:
    rng = np.random.default_rng(seed)
    x = T.random_qts((batch, layers, joints), rng)
    w = np.array([0.5, 0.3, 0.2][:layers] + [0.1] * max(0, layers - 3), np.float32)
    out = np.empty((batch, joints, 8), np.float32)
    copy = np.empty_like(out)
    expected = RB.blend_layers(x[:8], w)
    check = _checker(expected, 2e-7 * (layers + 1))
    return Workload(
        name=f"blend_layers[{layers}x{batch}x{joints}]", title=f"blend_layers {layers} x {batch} x {joints}",
        family="quat", unit="joint", units=batch * joints,
        kernel=lambda: B.blend_layers(x, w, out), numpy=lambda: NF.blend_layers_numpy32(x, w),
        limit=lambda: np.copyto(copy, x[:, 0]), check=lambda res: check(np.asarray(res)[:8]),
        params={"batch": batch, "joints": joints, "layers": layers},
    )


def qts_walk_workload(batch: int = 1000, joints: int = 96, matrix: bool = False, seed: int = 4,
                      name: str | None = None, precision: Precision = "float32") -> Workload:
    """qts_local_to_global(_matrix) on `batch` skeletons (the humanoid for 96 joints, a random
    tree otherwise), against NumPy's depth-level batching; the matrix form also times
    local_to_global on the equivalent local matrices (an extra row). precision="float64" times
    the float64-accumulating walk on the same data (checked to 2e-6 instead of 4e-5) with the
    float32 walk as an extra row, so the table shows its cost."""
    rng = np.random.default_rng(seed)
    parents = T.humanoid_skeleton()[0] if joints == 96 else T.random_parents(joints, rng)
    local = T.random_qts((batch, joints), rng)
    plan = RJ.LevelPlan(parents)
    k = min(batch, 16)
    copy = np.empty_like(local)
    out: Float32Array
    numpy_walk: Callable[[], Float32Array]
    walk: Callable[..., Float32Array]
    extra: dict[str, Callable[[], object]]
    if matrix:
        out = np.empty((batch, joints, 3, 4), np.float32)
        mats = U.qts_to_matrix(local)
        out_m = np.empty_like(mats)
        np_out = np.empty_like(local)
        expected = RQ.qts_local_to_global_matrix(local[:k], parents)

        def numpy_walk() -> Float32Array:
            return U.qts_to_matrix(NF.qts_local_to_global_numpy32(local, plan, np_out))

        walk = Q.qts_local_to_global_matrix
        extra = {"l2g mats": lambda: J.local_to_global(mats, parents, out_m)}
        title = f"qts_local_to_global_matrix {batch} x {joints}"
    else:
        out = np.empty_like(local)
        np_out = np.empty_like(local)
        expected = RQ.qts_local_to_global(local[:k], parents)

        def numpy_walk() -> Float32Array:
            return NF.qts_local_to_global_numpy32(local, plan, np_out)

        walk = Q.qts_local_to_global
        extra = {}
        title = f"qts_local_to_global {batch} x {joints}"
    kernel = lambda: walk(local, parents, out, precision=precision)   # noqa: E731
    tag = ""
    if precision == "float64":
        f32_out = np.empty_like(out)
        extra = {"f32 walk": lambda: walk(local, parents, f32_out)}
        title += " f64"
        tag = "_f64"
    loose = _checker(expected, 4e-5)
    # the float64 walk (it returns `out`) is held to its own bound, NumPy to the float32 one
    tight = _checker(expected, 2e-6) if precision == "float64" else loose

    def check(res: object) -> None:
        (tight if res is out else loose)(np.asarray(res)[:k])

    return Workload(
        name=name or (("qts_matrix" if matrix else "qts") + f"{tag}[{batch}x{joints}]"), title=title,
        family="quat", unit="joint", units=batch * joints, kernel=kernel, numpy=numpy_walk,
        limit=lambda: np.copyto(copy, local), check=check, extra=extra,
        params={"batch": batch, "joints": joints, "matrix": matrix, "precision": precision},
    )


def headline() -> list[Workload]:
    """The family's workloads for `python -m skelsimd bench`."""
    return [slerp_workload(), nlerp_workload(), blend_joints_workload(),
            blend_joints_workload(method="nlerp"), blend_layers_workload(),
            qts_walk_workload(), qts_walk_workload(precision="float64"),
            qts_walk_workload(batch=1),
            qts_walk_workload(matrix=True), qts_walk_workload(matrix=True, precision="float64")]
