"""Benchmark workloads of the skinning family: the matrix palette of an army, and linear-blend
skinning of a 10,000-vertex mesh by one and by 100 palettes."""
from collections.abc import Callable

import numpy as np

from .._typing import Float32Array, Float64Array
from ..reference.joints import LevelPlan
from .. import joints as J
from .. import skinning as S
from .. import testing as T
from ..reference import joints as RJ
from ..reference import skinning as R
from . import numpy_forms as NF
from .core import Workload


def _checker(expected: Float64Array, tol: float,
             rows: int | None = None) -> Callable[[object], None]:
    def check(result: object) -> None:
        res = np.asarray(result if rows is None else np.asarray(result)[:rows], np.float64)
        err = np.abs(res - expected).max(initial=0.0)
        assert err <= tol, f"result differs from the float64 reference by {err:.3g} > {tol:.3g}"
    return check


def _numpy_palette(local: Float32Array, plan: LevelPlan, inverse_bind: Float32Array,
                   glob: Float32Array) -> Float32Array:
    """The fastest NumPy palette: depth-level batched local_to_global, then one batched matmul."""
    RJ.local_to_global_levels(local, plan, glob)
    pal: Float32Array = np.matmul(glob[..., :3], inverse_bind)
    pal[..., 3] += glob[..., 3]
    return pal


def palette_workloads(batch: int = 1000, joints: int = 96, seed: int = 0) -> list[Workload]:
    """skinning_palette on an army, and the two joint-family calls it replaces (both timed on
    every variant), against NumPy; limit: a memcpy of the local poses. Also
    skinning_palette(precision="float64") on the same data."""
    rng = np.random.default_rng(seed)
    parents = T.humanoid_skeleton()[0]
    local = T.random_joints((batch, joints), rng)
    inverse_bind = J.invert_joints(J.local_to_global(T.random_joints(joints, rng), parents), rigid=True)
    out, glob = np.empty_like(local), np.empty_like(local)
    glob_np = np.empty_like(local)
    copy_dst = np.empty_like(local)
    plan = RJ.LevelPlan(parents)
    check = _checker(R.skinning_palette(local[:16], parents, inverse_bind), 4e-5, rows=16)
    def common(name: str, title: str, kernel: Callable[[], object],
               check: Callable[[object], None]) -> Workload:
        return Workload(name=name, title=title, family="skinning", unit="joint",
                        units=batch * joints, kernel=kernel,
                        numpy=lambda: _numpy_palette(local, plan, inverse_bind, glob_np),
                        limit=lambda: np.copyto(copy_dst, local), check=check,
                        params={"batch": batch, "joints": joints})

    fused = common("palette", f"skinning_palette {batch} x {joints}",
                   lambda: S.skinning_palette(local, parents, inverse_bind, out), check)
    two_calls = common("palette-2calls", f"l2g + multiply_joints {batch} x {joints}",
                       lambda: J.multiply_joints(J.local_to_global(local, parents, glob),
                                                 inverse_bind, out), check)
    # the float64-accumulating palette on the same data, checked with the 2e-6 bound it meets
    check_f64 = _checker(R.skinning_palette(local[:16], parents, inverse_bind), 2e-6, rows=16)
    fused_f64 = common("palette-f64", f"skinning_palette {batch} x {joints} precision=float64",
                       lambda: S.skinning_palette(local, parents, inverse_bind, out,
                                                  precision="float64"), check_f64)
    return [fused, two_calls, fused_f64]


def skin_workload(palettes: int = 1, vertices: int = 10_000, influences: int = 4, joints: int = 96,
                  seed: int = 1) -> Workload:
    """skin of one mesh by `palettes` palettes, against the vectorised NumPy skinning (one GEMM
    of the dense (V, J) weight matrix with the palettes; the weight matrix is built once,
    untimed)."""
    rng = np.random.default_rng(seed)
    positions, _, idx, w = T.random_mesh(vertices, influences, joints, rng, zero_weights=0.1)
    palette = T.random_joints((palettes, joints), rng)
    out = np.empty((palettes, vertices, 3), np.float32)
    dense = R.dense_weights(idx, w, joints)
    positions_h = np.concatenate([positions, np.ones((vertices, 1), np.float32)], axis=1)
    rows = min(palettes, 2)     # the float64 reference of 100 palettes would take 1.9 GB
    return Workload(
        name=f"skin[{palettes}]", title=f"skin {vertices} x {influences}, {palettes} palette(s)",
        family="skinning", unit="vertex", units=palettes * vertices,
        kernel=lambda: S.skin(positions, idx, w, palette, out),
        numpy=lambda: NF.skin_numpy(positions_h, dense, palette),
        check=_checker(R.skin(positions, idx, w, palette[:rows]), 2e-6, rows=rows),
        params={"palettes": palettes, "vertices": vertices, "influences": influences},
    )


def skin_normals_workload(vertices: int = 10_000, influences: int = 4, joints: int = 96,
                          seed: int = 1, renormalize: bool = True) -> Workload:
    """skin of one mesh by one palette with its normals, against the same NumPy skinning with
    the normals moved by the blended rotations and renormalised (renormalize=False: left as
    they are, the job of ozz's SkinningJob)."""
    rng = np.random.default_rng(seed)
    positions, normals, idx, w = T.random_mesh(vertices, influences, joints, rng, zero_weights=0.1)
    palette = T.random_joints((1, joints), rng)
    out = np.empty((1, vertices, 3), np.float32)
    out_n = np.empty((1, vertices, 3), np.float32)
    dense = R.dense_weights(idx, w, joints)
    positions_h = np.concatenate([positions, np.ones((vertices, 1), np.float32)], axis=1)
    expected = R.skin(positions, idx, w, palette, normals=normals, renormalize=renormalize)

    def numpy_skin() -> tuple[np.ndarray, np.ndarray]:
        m = (dense @ palette[0].reshape(joints, 12)).reshape(vertices, 3, 4)
        n = np.einsum("vij,vj->vi", m[:, :, :3], normals)
        if renormalize:
            n /= np.linalg.norm(n, axis=1, keepdims=True)
        return np.einsum("vij,vj->vi", m, positions_h)[None], n[None]

    def check(res: object) -> None:
        assert isinstance(res, tuple)
        for got, want in zip(res, expected):
            np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)

    raw = "" if renormalize else " unnormalised"
    return Workload(
        name="skin_normals[1]" if renormalize else "skin_normals_raw[1]",
        title=f"skin {vertices} x {influences} + normals{raw}, 1 palette",
        family="skinning", unit="vertex", units=vertices,
        kernel=lambda: S.skin(positions, idx, w, palette, out, normals=normals, normals_out=out_n,
                              renormalize=renormalize),
        numpy=numpy_skin, check=check,
        params={"palettes": 1, "vertices": vertices, "influences": influences, "normals": True,
                "renormalize": renormalize},
    )


def headline() -> list[Workload]:
    """The family's workloads for `python -m skelsimd bench`."""
    return palette_workloads() + [skin_workload(1), skin_workload(100), skin_normals_workload(),
                                  skin_normals_workload(renormalize=False)]
