"""Benchmark workloads of the spring-grid surface ("2D Surface Deformation").

Every workload is checked before it is timed: the NumPy formulation against the float64
reference when the workload is built, and each SIMD variant (the `check` hook, run under every
variant) by running the same job on a fresh surface against the float64 reference. A timed
call advances a persistent simulation (water stays bounded: it is damped and kept inside the
stability bound).

Units are vertex-steps: ns/unit is nanoseconds per vertex per substep (per frame for the
"frame" workloads, which include the Python calls a per-frame loop pays).
"""
from collections.abc import Callable

import numpy as np

from .._typing import Float32Array, Float64Array, _SurfaceModel
from .. import testing as T
from ..reference import surface as R
from ..surface import Surface, aliased_plane_stride
from .core import Workload

STEPS = 10           # substeps per timed call of the step workloads
_CHECK_TOL = 4e-6   # relative to max(1, |x|): float32 coordinates of a 64 x 64 grid


def _scene(rows: int, cols: int, model: _SurfaceModel, *, plane: int | None = None,
           seed: int = 0) -> tuple[Surface, Float32Array, Float32Array, float]:
    """Water (preset) at rest with the top row pinned, a wind field for the next step, and the
    float32 arrays a NumPy formulation needs."""
    rng = np.random.default_rng(seed)
    rest = T.perturbed_grid(rows, cols, rng, noise=0.02)
    s = Surface.__new__(Surface)
    s._init_state(rest, elasticity=None, damping=None, mass=1.0, model=model, topology="plane",
                  preset="water", plane=plane)
    s.pinned[0, :] = True
    wind = rng.normal(0.0, 0.05, (3, rows, cols)).astype(np.float32)
    dt = 0.8 * s.max_stable_dt
    return s, rest, wind, dt


GRAVITY = (0.0, -0.01, 0.0)


def _check_variant(rows: int, cols: int, model: _SurfaceModel, steps: int) -> None:
    """Runs one call of the job on a fresh surface under the active variant and compares it with
    the float64 reference (raises AssertionError)."""
    check_rows, check_cols = min(rows, 64), min(cols, 64)
    s, rest, wind, dt = _scene(check_rows, check_cols, model, seed=1)
    ref = R.ReferenceSurface.like(s, rest)
    s.add_force(wind)
    s.step(dt, steps, gravity=GRAVITY)
    ref.step(float(np.float32(dt)), steps, gravity=GRAVITY, ext=wind)
    err = np.abs(s.positions - ref.pos).max()
    tol = _CHECK_TOL * max(1.0, np.abs(ref.pos).max())
    assert err <= tol, f"surface step differs from the float64 reference by {err:.3g} > {tol:.3g}"


def _numpy_step(rows: int, cols: int, model: _SurfaceModel, rest: Float32Array,
                wind: Float32Array, dt: float) -> R.NumpyStep:
    """The NumPy formulation of the same job, verified against the float64 reference first."""
    def build(xyz: Float32Array) -> R.NumpyStep:
        n = R.NumpyStep(xyz, E=1.0, damping=0.995, mass=1.0, model=model)
        n.free[0, :] = 0
        return n

    small = build(rest[:, :min(rows, 32), :min(cols, 32)])
    ref = R.ReferenceSurface(small.P, model=model, E=1.0, damping=0.995)
    ref.pinned[0, :] = True
    w = wind[:, :small.P.shape[1], :small.P.shape[2]]
    small.ext[...] = w
    small.step(dt, STEPS, gravity=GRAVITY)
    ref.step(float(np.float32(dt)), STEPS, gravity=GRAVITY, ext=w)
    err = np.abs(small.P - ref.pos).max()
    tol = _CHECK_TOL * max(1.0, np.abs(ref.pos).max())
    assert err <= tol, f"NumPy formulation differs from the reference by {err:.3g} > {tol:.3g}"
    return build(rest)


def step_workload(rows: int, cols: int, model: _SurfaceModel = "offset", *, steps: int = STEPS,
                  name: str | None = None, layouts: bool = True) -> Workload:
    """`steps` substeps per call of water with pins and a wind field (external force, first
    substep), gravity; against NumPy, the memory-traffic limit and (layouts) the same job with
    the planes 4 KiB apart like separate NumPy arrays."""
    s, rest, wind, dt = _scene(rows, cols, model)
    fast = _numpy_step(rows, cols, model, rest, wind, dt)
    # memory-traffic limit: one pass that reads and writes positions and velocities (24 bytes
    # per vertex each way, the least a substep must move) per substep
    state = s._buffer[: 6 * s.plane_stride]
    copy_dst = np.empty_like(state)

    def kernel() -> Float32Array:
        s.add_force(wind)
        return s.step(dt, steps, gravity=GRAVITY)

    def numpy_job() -> Float32Array:
        fast.ext += wind
        return fast.step(dt, steps, gravity=GRAVITY)

    def limit() -> None:
        for _ in range(steps):
            np.copyto(copy_dst, state)

    extra: dict[str, Callable[[], object]] = {}
    if layouts:
        aliased, _, _, _ = _scene(rows, cols, model, plane=aliased_plane_stride(rows * cols))

        def aliased_job() -> Float32Array:
            aliased.add_force(wind)
            return aliased.step(dt, steps, gravity=GRAVITY)

        extra["aliased"] = aliased_job

    return Workload(
        name=name or f"surface[{rows}x{cols},{model}]",
        title=f"surface {model} {rows} x {cols}",
        family="surface", unit="vertex-step", units=rows * cols * steps,
        kernel=kernel, numpy=numpy_job, limit=limit, limit_name="traffic",
        check=lambda res: _check_variant(rows, cols, model, steps), extra=extra,
        params={"rows": rows, "cols": cols, "model": model, "steps": steps, "plane": s.plane_stride},
    )


def frame_workload(rows: int = 100, cols: int = 100, *, normals: bool = True,
                   name: str | None = None) -> Workload:
    """One frame per call from Python: add_force, step(dt) and (normals) normals(out)."""
    s, rest, wind, dt = _scene(rows, cols, "offset")
    fast = _numpy_step(rows, cols, "offset", rest, wind, dt)
    out = np.empty((3, rows, cols), np.float32)
    out_np = np.empty((3, rows, cols), np.float32)
    expected = R.normals(s.positions)

    def kernel() -> Float32Array:
        s.add_force(wind)
        s.step(dt, gravity=GRAVITY)
        return s.normals(out) if normals else s.positions

    def numpy_normals(P: Float32Array) -> Float32Array:
        c, e, so, se = P[:, :-1, :-1], P[:, :-1, 1:], P[:, 1:, :-1], P[:, 1:, 1:]
        a = se - c
        upper = np.cross(a, e - c, axis=0)
        lower = np.cross(so - c, a, axis=0)
        N = out_np
        N[...] = 0
        N[:, :-1, :-1] += upper
        N[:, :-1, 1:] += upper
        N[:, 1:, 1:] += upper
        N[:, :-1, :-1] += lower
        N[:, 1:, 1:] += lower
        N[:, 1:, :-1] += lower
        N /= np.sqrt((N * N).sum(axis=0))
        return N

    def numpy_job() -> Float32Array:
        fast.ext += wind
        P = fast.step(dt, gravity=GRAVITY)
        return numpy_normals(P) if normals else P

    def check(res: object) -> None:
        if normals:   # the normals of the state the frame produced, against float64
            err = np.abs(np.asarray(res) - R.normals(s.positions if res is out else fast.P)).max()
            assert err <= 1e-5, f"normals differ from the float64 reference by {err:.3g}"
        else:
            _check_variant(rows, cols, "offset", 1)

    assert np.abs(s.normals() - expected).max() <= 1e-6
    what = "step + normals" if normals else "step"
    return Workload(
        name=name or f"frame[{rows}x{cols}]", title=f"surface frame {what} {rows} x {cols}",
        family="surface", unit="vertex-frame", units=rows * cols, kernel=kernel, numpy=numpy_job,
        check=check, params={"rows": rows, "cols": cols, "normals": normals},
    )


def effectors_workload(rows: int = 100, cols: int = 100, k: int = 64, *,
                       name: str = "wind") -> Workload:
    """Wind as a stream of k particle effectors over a 100 x 100 water grid."""
    s, rest, _, _ = _scene(rows, cols, "offset")
    rng = np.random.default_rng(3)
    centers = np.column_stack([rng.uniform(0, cols, k), rng.uniform(-0.5, 0.5, k),
                               rng.uniform(0, rows, k)]).astype(np.float32)

    def kernel() -> Float64Array:
        s.clear_forces()
        return s.apply_effector(centers, 3.0, -0.1)

    def numpy_job() -> Float64Array:
        return R.effectors(rest, centers, 3.0, -0.1)[1]

    expected = R.effectors(s.positions, centers, np.float32(3.0), np.float32(-0.1))[1]

    def check(res: object) -> None:
        err = np.abs(np.asarray(res, np.float64) - expected).max()
        assert err <= 1e-4, f"effector reactions differ from the float64 reference by {err:.3g}"

    return Workload(
        name=name, title=f"apply_effector {k} x {rows} x {cols}", family="surface",
        unit="vertex-effector", units=rows * cols * k, kernel=kernel, numpy=numpy_job,
        check=check, params={"rows": rows, "cols": cols, "effectors": k},
    )


def headline() -> list[Workload]:
    """The family's workloads for `python -m skelsimd bench`: the article's 10,000-vertex grid."""
    return [
        step_workload(100, 100, "offset", name="water"),
        step_workload(100, 100, "length", name="water-length", layouts=False),
        frame_workload(100, 100, normals=True, name="frame"),
        frame_workload(100, 100, normals=False, name="frame-step"),
        step_workload(1000, 1000, "offset", steps=8, name="water-1M"),
        step_workload(1000, 1000, "length", steps=8, name="water-1M-length", layouts=False),
        effectors_workload(),
    ]
