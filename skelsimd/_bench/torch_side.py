"""PyTorch on CPU beside the threads axis (`python -m skelsimd bench --threads 1 2 ...`): the
operations machine-learning users write in torch, at the same thread counts
(`torch.set_num_threads` and `skelsimd.threads`), timed in the same interleaved rounds.

- forward kinematics as a loop over depth: every joint of one depth level at once, its parent's
  4x4 global matrix times its local one (one batched matmul per level), against
  `local_to_global` on the same 3x4 matrices;
- quaternion to rotation matrix (the textbook formula on (N, 4) tensors) against
  `quat_to_matrix`;
- extrinsic "xyz" Euler angles to quaternions (half-angle sines and cosines, three products)
  against `euler_to_quat`.

Each row is checked first (torch's result against skelsimd's within float32 rounding). torch is
optional: without it the column is skipped and the reason printed.
"""
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import convert, joints, parallel, quat, testing
from .core import measure
from .threads import format_call, layout_table

__all__ = ["torch_unavailable", "run_torch", "format_torch_table"]


def torch_unavailable() -> str | None:
    """None when torch imports, else why the column is skipped."""
    try:
        import torch  # noqa: F401
    except ImportError as e:
        return f"PyTorch is not installed ({e}); pip install torch (its CPU wheel) to compare"
    return None


def _depth_levels(parents: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    depth = np.zeros(len(parents), int)
    for j, p in enumerate(parents):
        depth[j] = 0 if p < 0 else depth[p] + 1
    levels = []
    for d in range(1, int(depth.max()) + 1):
        idx = np.flatnonzero(depth == d)
        levels.append((idx, parents[idx].astype(np.int64)))
    return levels


def _rows(quick: bool) -> list[tuple[str, str, Callable[[], Any], Callable[[], Any], float]]:
    """(name, title, skelsimd call, torch call, tolerance); results compared as float arrays."""
    import torch

    rng = np.random.default_rng(0)
    scale = 10 if quick else 1
    rows = []

    parents = np.asarray(testing.humanoid_skeleton()[0], np.int32)
    batch, J = 10_000 // scale, len(parents)
    local = testing.random_joints((batch, J), rng)
    out = np.empty_like(local)
    homogeneous = np.zeros((batch, J, 4, 4), np.float32)
    homogeneous[..., :3, :] = local
    homogeneous[..., 3, 3] = 1
    tl = torch.from_numpy(homogeneous)
    levels = [(torch.from_numpy(i), torch.from_numpy(p)) for i, p in _depth_levels(parents)]
    roots = torch.from_numpy(np.flatnonzero(parents < 0))

    def torch_fk() -> Any:
        g = torch.empty_like(tl)
        g[:, roots] = tl[:, roots]
        for idx, par in levels:
            g[:, idx] = torch.matmul(g[:, par], tl[:, idx])
        return g[..., :3, :]
    rows.append(("fk", f"FK {batch:,} x {J} (torch: loop over depth)",
                 lambda: joints.local_to_global(local, parents, out=out), torch_fk, 1e-4))

    n = 1_000_000 // scale
    q = rng.standard_normal((n, 4)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    mout = np.empty((n, 3, 3), np.float32)
    tq = torch.from_numpy(q)

    def torch_q2m() -> Any:
        x, y, z, w = tq.unbind(-1)
        xx, yy, zz = x * x, y * y, z * z
        xy, xz, yz, wx, wy, wz = x * y, x * z, y * z, w * x, w * y, w * z
        return torch.stack([1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy),
                            2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx),
                            2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)], -1).reshape(-1, 3, 3)
    rows.append(("q2m", f"quat_to_matrix {n:,}", lambda: quat.quat_to_matrix(q, out=mout),
                 torch_q2m, 1e-5))

    angles = rng.uniform(-3, 3, (n, 3)).astype(np.float32)
    qe = np.empty((n, 4), np.float32)
    ta = torch.from_numpy(angles)

    def torch_e2q() -> Any:
        half = ta * 0.5
        c, s = torch.cos(half), torch.sin(half)
        cx, cy, cz = c.unbind(-1)
        sx, sy, sz = s.unbind(-1)
        # extrinsic x, then y, then z: q = qz qy qx
        return torch.stack([sx * cy * cz - cx * sy * sz, cx * sy * cz + sx * cy * sz,
                            cx * cy * sz - sx * sy * cz, cx * cy * cz + sx * sy * sz], -1)
    rows.append(("e2q", f"euler_to_quat {n:,}", lambda: convert.euler_to_quat(angles, "xyz", out=qe),
                 torch_e2q, 1e-5))
    return rows


def _check(title: str, ours: Any, theirs: Any, tol: float) -> None:
    a = np.asarray(ours, np.float64)
    b = theirs.numpy().astype(np.float64)
    if a.shape[-1] == 4 and a.ndim == 2:            # quaternions: either sign
        b = np.where((a * b).sum(-1, keepdims=True) < 0, -b, b)
    err = float(np.abs(a - b).max(initial=0.0))
    if not err <= tol:
        raise AssertionError(f"{title}: torch and skelsimd differ by {err:.3g} > {tol:.0e}")


def run_torch(counts: Sequence[int], *, quick: bool = False, min_time: float = 0.05,
              repeat: int = 5) -> list[dict[str, Any]]:
    """Each row checked, then `repeat` rounds, each one sample of skelsimd and of torch at every
    count in turn; the best sample of each."""
    import torch

    previous = torch.get_num_threads()
    records = []
    try:
        for name, title, ours, theirs, tol in _rows(quick):
            with torch.inference_mode():
                _check(title, ours(), theirs(), tol)
                best: dict[str, dict[int, float]] = {"skelsimd": {}, "torch": {}}
                for _ in range(repeat):
                    for n in counts:
                        torch.set_num_threads(n)
                        with parallel.threads(n):
                            for side, fn in (("skelsimd", ours), ("torch", theirs)):
                                t = measure(fn, min_time=min_time, repeat=1)
                                best[side][n] = min(best[side].get(n, float("inf")), t)
            records.append({"workload": name, "title": title,
                            "seconds_per_call": {s: {str(n): t for n, t in b.items()}
                                                 for s, b in best.items()}})
    finally:
        torch.set_num_threads(previous)
    return records


def format_torch_table(records: Sequence[dict[str, Any]], counts: Sequence[int]) -> str:
    """One line per row: skelsimd and torch per call at each count, and torch / skelsimd."""
    head = ["row"]
    for n in counts:
        head += [f"skelsimd {n}t", f"torch {n}t", f"torch/skelsimd {n}t"]
    lines = [head]
    for r in records:
        s = r["seconds_per_call"]
        line = [r["title"]]
        for n in counts:
            a, b = s["skelsimd"][str(n)], s["torch"][str(n)]
            line += [format_call(a), format_call(b), f"{b / a:.2f}x"]
        lines.append(line)
    return layout_table(lines)
