"""The threads axis of `python -m skelsimd bench --threads 1 2 ...`: large calls timed at each
thread count (skelsimd.threads), interleaved, and the per-frame calls that must not slow down.

Every round times every row once at every count in turn (round-robin), and a row's figure at a
count is its best sample: on a shared machine the other jobs slow some samples down, and the
minima of interleaved samples see the same machine. Before timing, each row's result at every
count is compared byte for byte with its result at the first count.
"""
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import blend, convert, data, motion_matching, parallel, skinning, surface
from .. import joints, qts, testing
from ..compress import compress as _compress
from .._typing import Float32Array
from .core import Workload, measure

__all__ = ["workloads", "run_threads", "format_threads_table", "format_call", "layout_table"]


def _unit_quats(rng: np.random.Generator, n: int) -> Float32Array:
    q = rng.standard_normal((n, 4)).astype(np.float32)
    unit: Float32Array = (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)
    return unit


def workloads(quick: bool = False) -> list[Workload]:
    """The rows of the threads axis (smaller sizes with quick)."""
    rng = np.random.default_rng(0)
    scale = 10 if quick else 1
    rows: list[Workload] = []

    parents = np.asarray(testing.humanoid_skeleton()[0], np.int32)   # 96 joints
    J = len(parents)
    batch = 10_000 // scale
    local = testing.random_joints((batch, J), rng)
    out = np.empty_like(local)
    rows.append(Workload("l2g", f"local_to_global {batch:,} x {J}", "joints", "joint", batch * J,
                         lambda: joints.local_to_global(local, parents, out=out)))
    pose = np.empty((batch, J, 8), np.float32)
    pose[..., :4] = _unit_quats(rng, batch * J).reshape(batch, J, 4)
    pose[..., 4:7] = rng.uniform(-1, 1, (batch, J, 3))
    pose[..., 7] = 1
    qout = np.empty_like(pose)
    rows.append(Workload("qts", f"qts_local_to_global {batch:,} x {J}", "qts", "joint", batch * J,
                         lambda: qts.qts_local_to_global(pose, parents, out=qout)))

    V = 1_000_000 // scale
    pos = rng.uniform(-1, 1, (V, 3)).astype(np.float32)
    idx = rng.integers(0, J, (V, 4)).astype(np.int32)
    w = skinning.normalize_weights(rng.uniform(0, 1, (V, 4)).astype(np.float32))
    palette = testing.random_joints((J,), rng)
    sout = np.empty_like(pos)
    rows.append(Workload("skin", f"skin {V:,} vertices x 4", "skinning", "vertex", V,
                         lambda: skinning.skin(pos, idx, w, palette, out=sout)))

    compressed = _compress(data.load_example())
    n_times = 100_000 // scale
    times = np.linspace(0, compressed.duration, n_times)
    rows.append(Workload("sample_many", f"CompressedClip.sample_many {n_times:,} times", "compress",
                         "time", n_times, lambda: compressed.sample_many(times)))

    n_euler = 1_000_000 // scale
    angles = rng.uniform(-3, 3, (n_euler, 3)).astype(np.float32)
    qe = np.empty((n_euler, 4), np.float32)
    rows.append(Workload("euler", f"euler_to_quat {n_euler:,}", "convert", "rotation", n_euler,
                         lambda: convert.euler_to_quat(angles, "xyz", out=qe)))

    frames, queries = 50_000 // scale, 1_000 // scale
    db = motion_matching.MotionDatabase.from_features(rng.standard_normal((frames, 27)))
    qs = rng.standard_normal((queries, 27))
    rows.append(Workload("search_many", f"MotionDatabase.search_many {queries:,} on {frames:,}",
                         "mm", "query", queries, lambda: db.search_many(qs)))

    side = 1000 // (3 if quick else 1)
    grid = surface.Surface(side, side)
    rows.append(Workload("surface", f"Surface.step {side} x {side}", "surface",
                         "vertex", side * side, lambda: grid.step(1.0 / 60.0)))

    one = testing.random_joints((1, J), rng)
    one_out = np.empty_like(one)
    rows.append(Workload("l2g_1", f"local_to_global 1 x {J} (stays on the caller)", "joints",
                         "joint", J, lambda: joints.local_to_global(one, parents, out=one_out)))
    q0, q1 = _unit_quats(rng, 1024), _unit_quats(rng, 1024)
    nout = np.empty_like(q0)
    rows.append(Workload("nlerp_1024", "nlerp 1,024 pairs (stays on the caller)", "blend", "pair",
                         1024, lambda: blend.nlerp(q0, q1, 0.3, out=nout)))
    return rows


def _bytes(result: object) -> list[bytes]:
    items = result if isinstance(result, tuple) else (result,)
    return [np.asarray(r).tobytes() for r in items]


def run_threads(rows: Sequence[Workload], counts: Sequence[int], *, min_time: float = 0.05,
                repeat: int = 5, progress: Callable[[Workload], object] | None = None
                ) -> list[dict[str, Any]]:
    """Check each row at every count (same bytes as at counts[0]; the surface's state moves on,
    so it is not compared), then time it: `repeat` rounds, each one sample per count in turn."""
    records = []
    for w in rows:
        if progress is not None:
            progress(w)
        if w.name != "surface":
            with parallel.threads(counts[0]):
                reference = _bytes(w.kernel())
            for n in counts[1:]:
                with parallel.threads(n):
                    if _bytes(w.kernel()) != reference:
                        raise AssertionError(f"{w.title}: {n} threads differ from {counts[0]}")
        best = {n: float("inf") for n in counts}
        for _ in range(repeat):
            for n in counts:
                with parallel.threads(n):
                    best[n] = min(best[n], measure(w.kernel, min_time=min_time, repeat=1))
        rec: dict[str, Any] = {"workload": w.name, "title": w.title, "family": w.family,
                               "unit": w.unit, "units_per_call": w.units,
                               "seconds_per_call": {str(n): t for n, t in best.items()}}
        rec["speedup"] = {str(n): best[counts[0]] / best[n] for n in counts}
        records.append(rec)
    return records


def format_threads_table(records: Sequence[dict[str, Any]], counts: Sequence[int]) -> str:
    """One line per row: the time per call at each count and the speedup over the first."""
    head = ["workload"] + [f"{n} thread{'s' if n > 1 else ''}" for n in counts] + \
        [f"{n}/{counts[0]}" for n in counts[1:]]
    lines = [head]
    for r in records:
        secs = r["seconds_per_call"]
        lines.append([r["title"]] + [format_call(secs[str(n)]) for n in counts] +
                     [f"{r['speedup'][str(n)]:.2f}x" for n in counts[1:]])
    return layout_table(lines)


def format_call(t: float) -> str:
    """Seconds per call as ms or us."""
    return f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.2f} us"


def layout_table(lines: Sequence[Sequence[str]]) -> str:
    """The first line a header, the first column left-aligned, the others right-aligned."""
    head = lines[0]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for k, line in enumerate(lines):
        out.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])
                             for i, c in enumerate(line)))
        if k == 0:
            out.append("  ".join("-" * wd for wd in widths))
    return "\n".join(out)
