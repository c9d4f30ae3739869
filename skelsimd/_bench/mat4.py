"""Benchmark workloads of the 4x4 matrix family (the three test cases of "Optimizing 4x4 matrix multiplication", at the article's 64
matrices and at 100,000)."""
from collections.abc import Callable

import numpy as np

from .._typing import Float64Array, Precision
from .. import mat4 as M
from .. import testing as T
from ..reference import joints as RJ
from ..reference import mat4 as R
from .core import Workload


def _checker(expected: Float64Array, tol: float) -> Callable[[object], None]:
    def check(result: object) -> None:
        err = np.abs(np.asarray(result, np.float64) - expected).max(initial=0.0)
        assert err <= tol, f"result differs from the float64 reference by {err:.3g} > {tol:.3g}"
    return check


def matmul4_workload(n: int, case: str, *, seed: int = 0, name: str | None = None) -> Workload:
    """matmul4 on n products: 'array x constant' (Frechette's case 1), 'constant x array' or
    'pairs'. NumPy: for array x constant the single GEMM on the reshaped (4n, 4) array (the
    issue's yardstick), with np.matmul's broadcasting as "numpy-batched" (OpenBLAS's threaded GEMM
    varies a lot on this shared 2-core machine: either can be the faster); otherwise np.matmul
    with broadcasting. Limit: a memcpy of one (n, 4, 4) array."""
    rng = np.random.default_rng(seed)
    arr = T.random_mat4(n, rng)
    const = T.random_mat4((), rng)
    a, b = {"array x constant": (arr, const), "constant x array": (const, arr),
            "pairs": (arr, T.random_mat4(n, rng))}[case]
    out = np.empty((n, 4, 4), np.float32)
    out_np = np.empty_like(out)
    copy_dst = np.empty_like(out)
    numpy: Callable[[], object] = lambda: R.matmul4_batched(a, b, out_np)  # noqa: E731
    extra: dict[str, Callable[[], object]] = {}
    if case == "array x constant":
        out_batched = np.empty_like(out)
        numpy = lambda: R.matmul4_gemm(a, b, out_np)  # noqa: E731
        extra["numpy-batched"] = lambda: R.matmul4_batched(a, b, out_batched)
    return Workload(
        name=name or f"matmul4[{case}, {n}]", title=f"matmul4 {n} {case}", family="mat4",
        unit="matrix", units=n, kernel=lambda: M.matmul4(a, b, out),
        numpy=numpy, limit=lambda: np.copyto(copy_dst, arr),
        check=_checker(R.matmul4(a, b), 2e-6), extra=extra, params={"n": n, "case": case},
    )


def chain_workload(n: int = 64, seed: int = 1) -> Workload:
    """Frechette's case 2: n matrices, each parented to the previous one."""
    rng = np.random.default_rng(seed)
    local = T.random_mat4(n, rng, translation=0.1)
    parents = T.chain_parents(n)
    out = np.empty_like(local)
    out_np = np.empty_like(local)
    return Workload(
        name=f"chain[{n}]", title=f"mat4_local_to_global chain {n}", family="mat4", unit="matrix",
        units=n, kernel=lambda: M.mat4_local_to_global(local, parents, out),
        numpy=lambda: R.mat4_chain_numpy(local, out_np),
        check=_checker(R.mat4_local_to_global(local, parents), 2e-6), params={"n": n},
    )


def one_off_workload(seed: int = 2) -> Workload:
    """Frechette's case 3: one product of two constant matrices per call (per-call overhead)."""
    rng = np.random.default_rng(seed)
    a, b = T.random_mat4((), rng), T.random_mat4((), rng)
    out = np.empty((4, 4), np.float32)
    out_np = np.empty_like(out)
    return Workload(
        name="one-off", title="matmul4 one-off (per call)", family="mat4", unit="product", units=1,
        kernel=lambda: M.matmul4(a, b, out), numpy=lambda: np.matmul(a, b, out=out_np),
        check=_checker(R.matmul4(a, b), 2e-6), extra={"numpy-@": lambda: a @ b},
    )


def skeletons_workload(batch: int = 1000, joints: int = 96, seed: int = 3,
                       precision: Precision = "float32") -> Workload:
    """mat4_local_to_global on an army of humanoids, against NumPy's depth-level batching.
    precision="float64" times the float64-accumulating walk on the same data (checked against
    the float64 reference with the 2e-6 bound it meets, where the float32 walk gets 4e-5)."""
    rng = np.random.default_rng(seed)
    parents = T.humanoid_skeleton()[0]
    local = T.random_mat4((batch, joints), rng)
    out = np.empty_like(local)
    out_np = np.empty_like(local)
    copy_dst = np.empty_like(local)
    plan = RJ.LevelPlan(parents)
    f64 = precision == "float64"
    return Workload(
        name="army4-f64" if f64 else "army4",
        title=f"mat4_local_to_global {batch} x {joints}" + (" precision=float64" if f64 else ""),
        family="mat4", unit="joint", units=batch * joints,
        kernel=lambda: M.mat4_local_to_global(local, parents, out, precision=precision),
        numpy=lambda: R.mat4_local_to_global_levels(local, plan, out_np),
        limit=lambda: np.copyto(copy_dst, local),
        check=lambda res: _checker(R.mat4_local_to_global(local[:16], parents),
                                   2e-6 if f64 else 4e-5)(np.asarray(res)[:16]),
        params={"batch": batch, "joints": joints, "precision": precision},
    )


def headline() -> list[Workload]:
    """The family's workloads for `python -m skelsimd bench`."""
    return [
        matmul4_workload(64, "array x constant", name="case1"),
        chain_workload(64),
        one_off_workload(),
        matmul4_workload(100_000, "array x constant", name="case1-100k"),
        matmul4_workload(100_000, "constant x array", name="constant-100k"),
        matmul4_workload(100_000, "pairs", name="pairs-100k"),
        skeletons_workload(),
        skeletons_workload(precision="float64"),
    ]
