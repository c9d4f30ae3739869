"""Benchmark workloads of the compression family (``python -m skelsimd bench --family compress``):
decompression per pose at random times (sample_many) and one sample(t) call from Python on a
31-joint clip, on every variant against the NumPy reference decoder (skelsimd.reference.compress,
checked bit for bit first), decompression of every frame, and compression speed. ``report()``
adds the size table beside ACL 2.1.0's figures for the same clips and, with --out, the
plots of the bit-rate histogram and of the error along the hierarchy.

The five clips are tests/data/*.bvh.gz of a source checkout; an installed package without the
tests benchmarks the embedded example clip (CMU 131_01, 240 frames) and prints no size table.
"""
import os
import time
from typing import Any

import numpy as np

from .. import data
from ..clip import Clip
from ..compress import CompressedClip
from ..io.bvh import load_bvh
from ..compress import clip_error, compress
from ..reference import compress as R
from .core import Workload

ACL_VERSION = "ACL 2.1.0 (issue figures)"
# name: (file in tests/data, ACL bytes at 0.01, ACL max error, ACL bytes at 0.001, max error,
# ACL decompression ns per pose as measured there)
ACL = {
    "01_01": ("cmu_01_01.bvh.gz", 208905, 0.0178, 298663, 0.00175, "471-480"),
    "131_01": ("cmu_131_01.bvh.gz", 68585, 0.0193, 100177, 0.00191, "431-531"),
    "131_02": ("cmu_131_02.bvh.gz", 82013, 0.0162, 121037, 0.00158, "431-721"),
    "20tab_freebvh": ("20tab_freebvh.bvh.gz", 8727, 0.0121, 10767, 0.00100, "471-641"),
    "20tab_mocapbank": ("20tab_mocapbank.bvh.gz", 30163, 0.0137, 40279, 0.00158, "350-471"),
}

_CLIPS: dict[str, Clip | None] = {}
_Row = dict[str, Any]


def _data_dir() -> str | None:
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(here, "tests", "data")
    return path if os.path.isdir(path) else None


def _clip(name: str) -> Clip | None:
    """A clip by ACL name (None when the checkout's test data is not there)."""
    if name not in _CLIPS:
        d = _data_dir()
        path = os.path.join(d, ACL[name][0]) if d else None
        _CLIPS[name] = load_bvh(path) if path and os.path.exists(path) else None
    return _CLIPS[name]


def _decode_clip() -> tuple[str, Clip]:
    """(label, clip): CMU 01_01 (31 joints) or, without the test data, the embedded clip."""
    clip = _clip("01_01")
    return ("01_01", clip) if clip is not None else ("example", data.load_example())


def sample_many_workload(poses: int = 10000) -> Workload:
    label, clip = _decode_clip()
    c = compress(clip)
    times = np.random.default_rng(0).uniform(0.0, c.duration, poses)
    out = np.empty((poses, c.num_joints, 8), np.float32)
    expected = R.sample(c._data, times)

    def check(result: object) -> None:
        assert np.array_equal(np.asarray(result).view(np.uint32), expected.view(np.uint32)), \
            "decoder differs from the NumPy reference decoder"

    return Workload(
        name="sample_many", title=f"sample_many {label} {poses} random t", family="compress",
        unit="pose", units=poses, kernel=lambda: c.sample_many(times, out=out),
        numpy=lambda: R.sample(c._data, times), check=check,
        params={"joints": c.num_joints, "poses": poses, "op": "sample_many", "clip": label,
                "bytes": c.nbytes},
    )


def sample_one_workload() -> Workload:
    label, clip = _decode_clip()
    c = compress(clip)
    t = 0.37 * c.duration
    expected = R.sample(c._data, [t])[0]

    def check(result: object) -> None:
        assert np.array_equal(np.asarray(result).view(np.uint32), expected.view(np.uint32))

    return Workload(
        name="sample_one", title=f"sample(t) {label} one pose", family="compress",
        unit="call", units=1, kernel=lambda: c.sample(t),
        numpy=lambda: R.sample(c._data, [t])[0], check=check,
        params={"joints": c.num_joints, "op": "sample"},
    )


def decompress_workload() -> Workload:
    label, clip = _decode_clip()
    c = compress(clip)
    out = np.empty((c.num_frames, c.num_joints, 8), np.float32)
    expected = R.decode(c._data)

    def check(result: object) -> None:
        assert np.array_equal(np.asarray(result).view(np.uint32), expected.view(np.uint32))

    return Workload(
        name="decompress", title=f"decompress {label} all frames", family="compress",
        unit="frame", units=c.num_frames, kernel=lambda: c.decompress(out=out),
        numpy=lambda: R.decode(c._data), check=check,
        params={"joints": c.num_joints, "frames": c.num_frames, "op": "decompress"},
    )


def compress_workload(precision: float = 0.01) -> Workload:
    """Compression of 01_01 (the issue's speed target); units are bytes of raw data in ACL's
    convention (10 floats per joint per frame), so MB/s = 1000 / (ns per unit)."""
    label, clip = _decode_clip()
    raw = clip.frames * len(clip.skeleton) * 40

    def check(result: CompressedClip) -> None:
        assert clip_error(clip.local, result.decompress(), clip.skeleton) <= precision

    return Workload(
        name=f"compress[{precision}]", title=f"compress {label} at {precision}", family="compress",
        unit="byte", units=raw, kernel=lambda: compress(clip, precision=precision), check=check,
        params={"joints": len(clip.skeleton), "frames": clip.frames, "op": "compress",
                "raw_bytes": raw},
    )


def headline() -> list[Workload]:
    return [sample_many_workload(), sample_one_workload(), decompress_workload(),
            compress_workload(0.01), compress_workload(0.001)]


# --- the size table and the pictures ------------------------------------------------------------

def _measure(quick: bool) -> list[_Row]:
    rows = []
    for name in ACL:
        clip = _clip(name)
        if clip is None:
            continue
        for precision in (0.01, 0.001):
            best = np.inf
            for _ in range(1 if quick else 3):
                t0 = time.perf_counter()
                c = compress(clip, precision=precision)
                best = min(best, time.perf_counter() - t0)
            per = clip_error(clip.local, c.decompress(), clip.skeleton, per_joint=True)
            raw = clip.frames * len(clip.skeleton) * 40
            col = 1 if precision == 0.01 else 3
            rows.append(dict(clip=name, joints=len(clip.skeleton), frames=clip.frames,
                             precision=precision, bytes=c.nbytes, max_error=float(per.max()),
                             ratio=c.ratio, acl_bytes=ACL[name][col], acl_max_error=ACL[name][col + 1],
                             compress_ms=best * 1e3, mb_per_s=raw / best / 1e6,
                             per_joint_error=per.tolist(), depth=clip.skeleton.depth.tolist(),
                             bit_rates_keys={int(k): int(v) for k, v in c.stats["bit_rates_keys"].items()},
                             stats={k: v for k, v in c.stats.items() if k not in ("bit_rates", "bit_rates_keys")}))
    return rows


def _table(rows: list[_Row]) -> str:
    lines = [f"compression: skelsimd beside {ACL_VERSION} (same files; shell distance 3, file units)",
             f"{'clip':<16} {'J':>3} {'F':>5} {'prec':>6} {'bytes':>8} {'max error':>10} {'ratio':>6} "
             f"| {'ACL bytes':>9} {'ACL error':>9} | {'vs ACL':>6} | {'ms':>7} {'MB/s':>6}"]
    for precision in (0.01, 0.001):
        sel = [r for r in rows if r["precision"] == precision]
        for r in sel:
            lines.append(f"{r['clip']:<16} {r['joints']:>3} {r['frames']:>5} {precision:>6} "
                         f"{r['bytes']:>8} {r['max_error']:>10.7f} {r['ratio']:>6.1f} | "
                         f"{r['acl_bytes']:>9} {r['acl_max_error']:>9.5f} | "
                         f"{r['bytes'] / r['acl_bytes']:>6.3f} | {r['compress_ms']:>7.1f} "
                         f"{r['mb_per_s']:>6.1f}")
        if sel:
            ours, acl = sum(r["bytes"] for r in sel), sum(r["acl_bytes"] for r in sel)
            lines.append(f"{'total':<16} {'':>3} {'':>5} {precision:>6} {ours:>8} {'':>10} {'':>6} | "
                         f"{acl:>9} {'':>9} | {ours / acl:>6.3f} |")
    lines.append("max error: clip_error of the decompressed clip (strict: <= precision); ACL's "
                 "error exceeds its precision (ACL v2.1.0 figures measured on the same clips "
                 "on this class of machine).")
    return "\n".join(lines)


def _plots(rows: list[_Row], out: str) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    paths = []
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, precision in zip(axes, (0.01, 0.001)):
        total: dict[int, int] = {}
        for r in rows:
            if r["precision"] == precision:
                for k, v in r["bit_rates_keys"].items():
                    total[k] = total.get(k, 0) + v
        ks = sorted(total)
        n = sum(total.values()) or 1
        ax.bar(ks, [100.0 * total[k] / n for k in ks])
        ax.set(xlabel="bits per component", title=f"bit rates at precision {precision} (all clips)")
        ax.set_xticks(range(0, 25, 2))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("% of component keys")
    fig.tight_layout()
    path = os.path.join(out, "compress_bit_rates.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    paths.append(path)

    sel = [r for r in rows if r["clip"] == "01_01"] or rows[:2]
    if sel:
        fig, axes = plt.subplots(len(sel), 1, figsize=(11, 3.2 * len(sel)), squeeze=False)
        for ax, r in zip(axes[:, 0], sel):
            per, depth = np.array(r["per_joint_error"]), np.array(r["depth"])
            ax.bar(np.arange(len(per)), per, color=plt.cm.viridis(depth / max(1, depth.max())))
            ax.axhline(r["precision"], color="r", lw=1, label=f"precision {r['precision']}")
            ax.set(ylabel="max error", title=f"{r['clip']}: largest error per joint (colour: depth "
                   f"in the hierarchy, 0 dark)")
            ax.legend(loc="lower right", fontsize=8)
        axes[-1, 0].set_xlabel("joint (file order: depth-first)")
        fig.tight_layout()
        path = os.path.join(out, "compress_error_by_joint.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        paths.append(path)
    return paths


def report(out: str | None = None, quick: bool = False) -> tuple[str, dict[str, Any]]:
    """(text, data): the size table beside ACL's figures, and with `out` the plots written there.
    Without the test data, a note instead."""
    rows = _measure(quick)
    if not rows:
        return ("compression sizes: the five clips of tests/data are not available (run from a "
                "source checkout)"), {}
    text = _table(rows)
    if out:
        for path in _plots(rows, out):
            text += f"\nwrote {path}"
    return text, {"acl_version": ACL_VERSION, "rows": rows}
