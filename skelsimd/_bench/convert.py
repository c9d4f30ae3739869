"""Benchmark workloads of the rotation conversions on 100,000 rotations, side by side
with SciPy's Rotation (the "numpy" column of these rows is SciPy when it is installed, timed on
float64 arrays, its native dtype, so no conversion is charged to it; without SciPy it is the
float64 NumPy reference). The 6D rows race the NumPy float32 Gram-Schmidt (SciPy has no 6D)."""
from collections.abc import Callable

import numpy as np

from .._typing import Float64Array
from .. import convert as C
from .. import testing as T
from ..reference import convert as RC
from ..reference import quat as RQ
from . import numpy_forms as NF
from .core import Workload

N = 100_000

try:
    from scipy.spatial.transform import Rotation as _Rotation  # type: ignore[import-untyped]  # SciPy ships no types (optional)
except ImportError:   # the comparison falls back to the NumPy reference
    _Rotation = None

REF_NAME = "SciPy" if _Rotation is not None else "NumPy f64"


def _close(expected: Float64Array, tol: float,
           error: Callable[[Float64Array, Float64Array], Float64Array] | None = None
           ) -> Callable[[object], None]:
    """A check: max error (default abs difference) against `expected` within tol."""
    def check(result: object) -> None:
        res = np.asarray(result, np.float64)
        err = (np.abs(res - expected) if error is None else error(res, expected)).max(initial=0.0)
        assert err <= tol, f"result differs from the float64 reference by {err:.3g} > {tol:.3g}"
    return check


def euler_to_quat_workload(seq: str = "xyz", degrees: bool = False, n: int = N,
                           seed: int = 0) -> Workload:
    rng = np.random.default_rng(seed)
    span = 180.0 if degrees else np.pi
    a = rng.uniform(-span, span, (n, 3)).astype(np.float32)
    a64 = a.astype(np.float64)
    out = np.empty((n, 4), np.float32)
    copy = np.empty_like(out)
    if _Rotation is not None:
        ref = lambda: _Rotation.from_euler(seq, a64, degrees=degrees).as_quat()   # noqa: E731
    else:
        ref = lambda: RC.euler_to_quat(a64, seq, degrees=degrees)   # noqa: E731
    unit = "deg" if degrees else "rad"
    return Workload(
        name=f"euler_to_quat[{seq},{unit},{n}]", title=f"euler_to_quat {seq} {unit} {n} ({REF_NAME})",
        family="convert", unit="rotation", units=n,
        kernel=lambda: C.euler_to_quat(a, seq, degrees=degrees, out=out), numpy=ref,
        limit=lambda: np.copyto(copy, out), check=_close(RC.euler_to_quat(a, seq, degrees=degrees), 2.5e-7),
        params={"rotations": n, "seq": seq, "degrees": degrees},
    )


def quat_to_euler_workload(seq: str = "xyz", n: int = N, seed: int = 1) -> Workload:
    rng = np.random.default_rng(seed)
    q = T.random_quaternions(n, rng).astype(np.float32)
    q64 = q.astype(np.float64)
    out = np.empty((n, 3), np.float32)
    copy = np.empty_like(q)
    if _Rotation is not None:
        ref = lambda: _Rotation.from_quat(q64).as_euler(seq)   # noqa: E731
    else:
        ref = lambda: RC.quat_to_euler(q64, seq)   # noqa: E731
    return Workload(
        name=f"quat_to_euler[{seq},{n}]", title=f"quat_to_euler {seq} {n} ({REF_NAME})",
        family="convert", unit="rotation", units=n,
        kernel=lambda: C.quat_to_euler(q, seq, suppress_warnings=True, out=out), numpy=ref,
        limit=lambda: np.copyto(copy, q), check=_close(RC.quat_to_euler(q, seq), 4e-7, RC.angle_error),
        params={"rotations": n, "seq": seq},
    )


def rotvec_to_quat_workload(n: int = N, seed: int = 2) -> Workload:
    rng = np.random.default_rng(seed)
    axis = rng.normal(size=(n, 3))
    v = (axis / np.linalg.norm(axis, axis=1, keepdims=True) * rng.uniform(0, np.pi, (n, 1))).astype(np.float32)
    v64 = v.astype(np.float64)
    out = np.empty((n, 4), np.float32)
    copy = np.empty_like(out)
    ref = (lambda: _Rotation.from_rotvec(v64).as_quat()) if _Rotation is not None else (lambda: RC.rotvec_to_quat(v64))
    return Workload(
        name=f"rotvec_to_quat[{n}]", title=f"rotvec_to_quat {n} ({REF_NAME})",
        family="convert", unit="rotation", units=n,
        kernel=lambda: C.rotvec_to_quat(v, out), numpy=ref,
        limit=lambda: np.copyto(copy, out), check=_close(RC.rotvec_to_quat(v), 2.5e-7),
        params={"rotations": n},
    )


def quat_to_rotvec_workload(n: int = N, seed: int = 3) -> Workload:
    rng = np.random.default_rng(seed)
    q = T.random_quaternions(n, rng).astype(np.float32)
    q64 = q.astype(np.float64)
    out = np.empty((n, 3), np.float32)
    copy = np.empty_like(q)
    ref = (lambda: _Rotation.from_quat(q64).as_rotvec()) if _Rotation is not None else (lambda: RC.quat_to_rotvec(q64))
    return Workload(
        name=f"quat_to_rotvec[{n}]", title=f"quat_to_rotvec {n} ({REF_NAME})",
        family="convert", unit="rotation", units=n,
        kernel=lambda: C.quat_to_rotvec(q, out), numpy=ref,
        limit=lambda: np.copyto(copy, q), check=_close(RC.quat_to_rotvec(q), 3e-7 * np.pi),
        params={"rotations": n},
    )


def sixd_to_matrix_workload(n: int = N, seed: int = 4) -> Workload:
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, 6)).astype(np.float32)
    out = np.empty((n, 3, 3), np.float32)
    np_out = np.empty_like(out)
    copy = np.empty_like(out)
    expected = RC.sixd_to_matrix(d[:1000])
    a, b = d[:1000, :3].astype(np.float64), d[:1000, 3:].astype(np.float64)
    sin = np.linalg.norm(np.cross(a, b), axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    tol = 3e-7 / sin.min()
    check = _close(expected, tol)
    return Workload(
        name=f"sixd_to_matrix[{n}]", title=f"sixd_to_matrix {n} (NumPy f32)",
        family="convert", unit="rotation", units=n,
        kernel=lambda: C.sixd_to_matrix(d, out), numpy=lambda: NF.sixd_to_matrix_numpy32(d, np_out),
        limit=lambda: np.copyto(copy, out), check=lambda res: check(np.asarray(res)[:1000]),
        params={"rotations": n},
    )


def sixd_to_quat_workload(n: int = N, seed: int = 5) -> Workload:
    """6D vectors to quaternions: Gram-Schmidt then Shepperd in one pass, against NumPy's
    Gram-Schmidt followed by SciPy's from_matrix (no comparison without SciPy)."""
    rng = np.random.default_rng(seed)
    q = T.random_quaternions(n, rng).astype(np.float32)
    d = C.quat_to_sixd(q)
    out = np.empty((n, 4), np.float32)
    copy = np.empty_like(out)
    ref: Callable[[], object] | None = None   # the reference's matrix_to_quat (an eigensolver per matrix) is no contender
    if _Rotation is not None:
        ref = lambda: _Rotation.from_matrix(NF.sixd_to_matrix_numpy32(d).astype(np.float64)).as_quat()   # noqa: E731
    expected = RC.sixd_to_quat(d[:1000])

    def check(res: object) -> None:
        err = RQ.same_rotation_error(np.asarray(res)[:1000], expected).max()
        assert err <= 4e-7, f"result differs from the float64 reference by {err:.3g} > 4e-07"

    return Workload(
        name=f"sixd_to_quat[{n}]", title=f"sixd_to_quat {n} (NumPy + SciPy)",
        family="convert", unit="rotation", units=n,
        kernel=lambda: C.sixd_to_quat(d, out), numpy=ref,
        limit=lambda: np.copyto(copy, out), check=check,
        params={"rotations": n},
    )


def headline() -> list[Workload]:
    """The family's workloads for `python -m skelsimd bench`."""
    return [euler_to_quat_workload(), euler_to_quat_workload("ZXZ", degrees=True),
            quat_to_euler_workload(), quat_to_euler_workload("ZXZ"),
            rotvec_to_quat_workload(), quat_to_rotvec_workload(),
            sixd_to_matrix_workload(), sixd_to_quat_workload()]
