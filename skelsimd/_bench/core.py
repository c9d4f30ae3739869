"""Benchmark machinery shared by `python -m skelsimd bench` and the scripts in benchmarks/.

A Workload is one job at one size: the skelsimd call (timed once per SIMD variant), the fastest
NumPy formulation of the same job, optionally a physical limit (e.g. a memcpy of the same bytes),
and a check that every result matches the float64 reference *before* anything is timed. Ratios
are computed from timings taken in the same run (these machines are shared and noisy).
"""
import json
import os
import platform
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _isa

__all__ = ["Workload", "measure", "run_workloads", "format_table", "machine_info", "format_machine",
           "load_average", "write_json"]


@dataclass
class Workload:
    name: str                 # short id, e.g. "army"
    title: str                # what it does, e.g. "local_to_global 1000 x 96"
    family: str               # kernel family, e.g. "joints"
    unit: str                 # what ns/unit counts, e.g. "joint"
    units: int                # units per call
    kernel: Callable[[], object]                # the skelsimd call (run under every variant)
    numpy: Callable[[], object] | None = None   # fastest NumPy formulation of the same job
    limit: Callable[[], object] | None = None   # physical limit (memcpy of the same bytes)
    limit_name: str = "memcpy"
    check: Callable[[Any], None] | None = None  # (result) -> None, raises AssertionError on mismatch
    extra: dict[str, Callable[[], object]] = field(default_factory=dict)   # other timed callables
    params: dict[str, Any] = field(default_factory=dict)  # sizes, for the JSON


Record = dict[str, Any]
Series = dict[str, list[tuple[float, float]]]


def measure(fn: Callable[[], object], *, min_time: float = 0.05, repeat: int = 5) -> float:
    """Best time per call in seconds: calls are batched so each sample lasts >= min_time."""
    fn()  # warm up (allocations, caches)
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time or number >= 1 << 20:
            break
        number *= max(2, int(min_time / max(dt, 1e-9)) // 2 or 2)
    best = dt / number
    for _ in range(repeat - 1):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def run_workload(w: Workload, *, variants: Sequence[str] | None = None, min_time: float = 0.05,
                 repeat: int = 5) -> list[Record]:
    """Check then time one workload. Returns a list of result records (one per timed candidate)."""
    variants = variants or _isa.supported_isas()
    times: dict[str, float] = {}
    for name in variants:
        with _isa.use_isa(name):
            if w.check is not None:
                w.check(w.kernel())
            times[name] = measure(w.kernel, min_time=min_time, repeat=repeat)
    if w.numpy is not None:
        if w.check is not None:
            w.check(w.numpy())
        times["numpy"] = measure(w.numpy, min_time=min_time, repeat=repeat)
    if w.limit is not None:
        times[w.limit_name] = measure(w.limit, min_time=min_time, repeat=repeat)
    for label, fn in w.extra.items():
        times[label] = measure(fn, min_time=min_time, repeat=repeat)
    records = []
    for label, t in times.items():
        rec: Record = {
            "workload": w.name, "title": w.title, "family": w.family, "variant": label,
            "seconds_per_call": t, "unit": w.unit, "units_per_call": w.units,
            "ns_per_unit": t * 1e9 / w.units, "params": w.params,
        }
        if "numpy" in times:
            rec["speedup_vs_numpy"] = times["numpy"] / t
        if "scalar" in times:
            rec["speedup_vs_scalar"] = times["scalar"] / t
        if w.limit is not None:
            rec[f"time_vs_{w.limit_name}"] = t / times[w.limit_name]
        records.append(rec)
    return records


def run_workloads(workloads: Iterable[Workload], *, variants: Sequence[str] | None = None,
                  min_time: float = 0.05, repeat: int = 5,
                  progress: Callable[[Workload], object] | None = None) -> list[Record]:
    records = []
    for w in workloads:
        if progress is not None:
            progress(w)
        records.extend(run_workload(w, variants=variants, min_time=min_time, repeat=repeat))
    return records


def _fmt_time(t: float) -> str:
    if t < 1e-6:
        return f"{t * 1e9:7.1f} ns"
    if t < 1e-3:
        return f"{t * 1e6:7.2f} us"
    return f"{t * 1e3:7.2f} ms"


def format_table(records: Sequence[Record]) -> str:
    """The table of times and ratios: workload names and units in full (the columns widen to
    them); a ratio without its reference (no NumPy formulation, or SciPy not installed for the
    rotation conversions' reference) is written as a word, never ``nanx``."""
    def ratio(value: float | None, digits: int, missing: str) -> str:
        return f"{value:.{digits}f}x" if value is not None and value == value else missing

    rows = []
    last = None
    for r in records:
        title = r["title"] if r["title"] != last else ""
        last = r["title"]
        limit = next((v for k, v in r.items() if k.startswith("time_vs_")), None)
        rows.append((title, r["variant"], _fmt_time(r["seconds_per_call"]),
                     f"{r['ns_per_unit']:.2f} ns/{r['unit']}",
                     ratio(r.get("speedup_vs_numpy"), 1, "no ref"),
                     ratio(r.get("speedup_vs_scalar"), 2, "-"),
                     ratio(limit, 2, "")))
    names = ("workload", "variant", "per call", "time per unit", "vs numpy", "vs scalar",
             "vs limit")
    widths = [max([len(n)] + [len(row[k]) for row in rows]) for k, n in enumerate(names)]

    def line(cells: Sequence[str]) -> str:
        return " ".join(c.ljust(w) if k < 2 else c.rjust(w)
                        for k, (c, w) in enumerate(zip(cells, widths))).rstrip()

    head = line(names)
    lines = [head, "-" * len(head)] + [line(row) for row in rows]
    lines.append("vs numpy / vs scalar: how many times faster; vs limit: time relative to the "
                 "physical limit (memcpy); no ref: no NumPy reference here (the rotation "
                 "conversions' is SciPy's: pip install scipy).")
    return "\n".join(lines)


def load_average() -> list[float] | None:
    """The 1, 5 and 15-minute load averages, or None where the OS has none (Windows)."""
    import os

    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine_info() -> dict[str, Any]:
    """The machine a benchmark ran on: CPU model, cores, the SIMD variants built and supported,
    the variant each kernel family runs (dispatch), the load average now."""
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import os

    return {
        "cpu": cpu, "cores": os.cpu_count(), "machine": platform.machine(),
        "python": platform.python_version(), "numpy": np.__version__,
        "isa_best": _isa.best_isa(), "isa_supported": _isa.supported_isas(),
        "isa_compiled": _isa.compiled_isas(), "isa_active": _isa.isa(),
        "dispatch": _isa.dispatch_table(), "load_average": load_average(),
    }


def format_machine(info: dict[str, Any], load_after: Sequence[float] | None = None) -> str:
    """The lines naming the machine of a run: CPU, targets built, supported and dispatched per
    family, the load average before (from `info`) and after."""
    def load(x: Sequence[float] | None) -> str:
        return "n/a" if x is None else " ".join(f"{v:.2f}" for v in x)

    by_isa: dict[str, list[str]] = {}
    for family, isa in info["dispatch"].items():
        by_isa.setdefault(isa, []).append(family)
    lines = [
        f"machine: {info['cpu']} ({info['cores']} cores, {info['machine']}), Python {info['python']}, "
        f"NumPy {info['numpy']}",
        f"SIMD targets built: {', '.join(info['isa_compiled'])}; supported here: "
        f"{', '.join(info['isa_supported'])}; active: {info['isa_active']}",
        "dispatch (family -> target): " + "; ".join(
            f"{isa}: {', '.join(fams)}" for isa, fams in by_isa.items()),
        f"load average (1, 5, 15 min): before {load(info['load_average'])}"
        + (f", after {load(load_after)}" if load_after is not None else ""),
    ]
    return "\n".join(lines)


def write_json(path: str | os.PathLike[str], records: Sequence[Record], *, machine: dict[str, Any] | None = None,
               **meta: Any) -> None:
    """bench.json: `machine` (machine_info() taken before the run, with "load_average_after"
    added by the caller; taken now when not given), `meta`, the records."""
    with open(path, "w") as f:
        json.dump({"machine": machine or machine_info(), **meta, "results": records}, f, indent=1)


def series_by_variant(records: Iterable[Record], x: Callable[[Record], float]) -> Series:
    """{variant: [(x(record), ns_per_unit), ...] sorted by x} for the records, variants in order
    of first appearance: the lines of one scaling panel."""
    series: Series = {}
    for r in records:
        series.setdefault(r["variant"], []).append((x(r), r["ns_per_unit"]))
    return {v: sorted(pts) for v, pts in series.items()}


def plot_scaling(path: str | os.PathLike[str], panels: Sequence[tuple[str, str, str, Series]], *,
                 panel_width: float = 5.0) -> bool:
    """Log-log panels of ns per unit over size, one line per variant, side by side in one PNG.
    `panels` is a list of (title, xlabel, ylabel, series) with series as from series_by_variant.
    Returns False and writes nothing when matplotlib (the [bench] extra) is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    panels = [p for p in panels if any(p[3].values())]
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(panel_width * len(panels), 4), squeeze=False)
    for ax, (title, xlabel, ylabel, series) in zip(axes[0], panels):
        for variant, pts in series.items():
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=variant)
        ax.set(xscale="log", yscale="log", xlabel=xlabel, ylabel=ylabel)
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True
