"""How far the large rows of `python -m skelsimd bench --threads` would scale on 8 and 32 cores,
from the memory bandwidth each row needs.

    python benchmarks/thread_projection.py [--rounds 3] [--quick] [--json FILE]
        [--desktop 8 50 60] [--server 32 150 200]

For each row of the threads axis (skelsimd._bench.threads) it measures the time per unit at 1
and 2 threads (interleaved rounds, minima; every count first checked to return the same bytes)
and counts the bytes the call must move per unit between memory and the cores (inputs read plus
outputs written, each once; what stays in cache, such as a 96-joint palette or a database that
fits in the last-level cache, is not counted). It measures this machine's memory bandwidth with
large NumPy copies (256 MiB, counted as read + write) in 1 process and in 2 processes at once.

A row on C cores then takes at least max(t1 / C, bytes / bandwidth) per unit, so its projected
speedup over 1 thread is min(C, t1 x bandwidth / bytes): it stays compute bound, scaling with the
cores, until C x (bytes / t1) reaches the machine's bandwidth. Assumptions: every core runs as fast
as this machine's (t1 unchanged), the pool's cost is negligible at these sizes, and the bandwidth
is that of a typical machine of each class (--desktop and --server: cores, then the low and high
bandwidth in GB/s; defaults an 8-core desktop with 50-60 GB/s and a 32-core server with 150-200
GB/s), not a scaling of this VM's figure (a 2-CPU share of a server whose socket bandwidth is not
known from inside the VM).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from skelsimd._bench import threads as BT  # noqa: E402
from skelsimd._bench.core import load_average, machine_info  # noqa: E402

COPY_BYTES = 256 << 20

# bytes moved per unit (read + written once) and what they are, per workload name of
# skelsimd._bench.threads.workloads; sample_many's is computed from its result (see _bytes)
BYTES: dict[str, tuple[float, str]] = {
    "l2g": (48 + 48, "3x4 local in, 3x4 global out (float32)"),
    "qts": (32 + 32, "QTS local in, QTS global out (8 floats)"),
    "skin": (12 + 16 + 16 + 12, "position, 4 int32 indices, 4 weights in; position out"),
    "sample_many": (0.0, "the pose out (joints x 8 floats) and the float64 time in; "
                         "the compressed clip stays in cache"),
    "euler": (12 + 16, "3 angles in, quaternion out"),
    "search_many": (27 * 8 + 8 + 8, "query in, index and cost out; the 50,000 x 27 float32 "
                                   "database (5.4 MB, twice with its blocked copy) stays in L3"),
    "surface": (24 + 1 + 24, "position and velocity in, pinned flag, position and velocity out"),
}
ROWS = list(BYTES)


def _copy_gbps(seconds: float, repeat: int = 5) -> float:
    """The best rate of np.copyto over a COPY_BYTES buffer, in GB/s of read + write."""
    src = np.ones(COPY_BYTES // 8)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    best = float("inf")
    end = time.perf_counter() + seconds
    for _ in range(repeat):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
        if time.perf_counter() > end:
            break
    return 2 * COPY_BYTES / best / 1e9


def _copy_child(barrier: Any, queue: Any) -> None:
    barrier.wait()
    queue.put(_copy_gbps(10.0))


def bandwidth(processes: int, rounds: int) -> float:
    """This machine's copy bandwidth (GB/s, read + write) with `processes` copying at once: the
    sum of their rates, best of `rounds` runs."""
    if processes == 1:
        return max(_copy_gbps(10.0) for _ in range(rounds))
    ctx = mp.get_context("fork")
    best = 0.0
    for _ in range(rounds):
        barrier, queue = ctx.Barrier(processes), ctx.Queue()
        procs = [ctx.Process(target=_copy_child, args=(barrier, queue)) for _ in range(processes)]
        for p in procs:
            p.start()
        rates = [queue.get() for _ in procs]
        for p in procs:
            p.join()
        best = max(best, sum(rates))
    return best


def _bytes(name: str, kernel: Any, units: int) -> float:
    if name == "sample_many":
        return float(np.asarray(kernel()).nbytes) / units + 8
    return BYTES[name][0]


def projection(t1_ns: float, nbytes: float, cores: int, gbps: float) -> float:
    """min(cores, t1 x bandwidth / bytes): GB/s is bytes per ns."""
    return min(float(cores), t1_ns * gbps / nbytes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="the threads axis' small sizes")
    ap.add_argument("--desktop", type=float, nargs=3, default=[8, 50, 60],
                    metavar=("CORES", "GBPS_LOW", "GBPS_HIGH"))
    ap.add_argument("--server", type=float, nargs=3, default=[32, 150, 200],
                    metavar=("CORES", "GBPS_LOW", "GBPS_HIGH"))
    ap.add_argument("--json", help="write the results here too")
    args = ap.parse_args()

    info = machine_info()
    load_before = load_average()
    bw1 = bandwidth(1, args.rounds)
    bw2 = bandwidth(2, args.rounds)
    rows = [w for w in BT.workloads(quick=args.quick) if w.name in BYTES]
    records = BT.run_threads(rows, [1, 2], repeat=args.rounds)
    load_after = load_average()
    model = subprocess.run(["sh", "-c", "lscpu | grep 'Model name'"], capture_output=True,
                           text=True).stdout.split(":")[-1].strip()
    import skelsimd
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {model or info['cpu']}, "
          f"{info['cores']} CPUs, skelsimd target {skelsimd.isa()}")
    print(f"copy bandwidth (np.copyto of {COPY_BYTES >> 20} MiB, read + write): 1 process "
          f"{bw1:.1f} GB/s, 2 processes {bw2:.1f} GB/s")
    dc, dlo, dhi = args.desktop
    sc, slo, shi = args.server
    head = ["row", "ns/unit 1T", "2T / 1T here", "bytes/unit", "GB/s at 1T",
            f"cores to fill {bw2:.0f} GB/s (here)",
            f"{dc:.0f} cores, {dlo:.0f}-{dhi:.0f} GB/s", f"{sc:.0f} cores, {slo:.0f}-{shi:.0f} GB/s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out = []
    for w, rec in zip(rows, records):
        t1 = rec["seconds_per_call"]["1"] * 1e9 / w.units
        nbytes = _bytes(w.name, w.kernel, w.units)
        demand = nbytes / t1            # GB/s one core draws
        proj = {f"{int(c)}": [projection(t1, nbytes, int(c), g) for g in (lo, hi)]
                for c, lo, hi in ((dc, dlo, dhi), (sc, slo, shi))}

        def rng(p: list[float]) -> str:
            a, b = (f"{x:.1f}x" for x in p)
            return a if a == b else f"{a}-{b}"
        lines.append("| " + " | ".join([
            w.title, f"{t1:.3g}", f"{rec['speedup']['2']:.2f}x", f"{nbytes:.0f}",
            f"{demand:.2f}", f"{bw2 / demand:.0f}", rng(proj[f'{int(dc)}']),
            rng(proj[f'{int(sc)}'])]) + " |")
        out.append({"workload": w.name, "title": w.title, "ns_per_unit_1": t1,
                    "speedup_2": rec["speedup"]["2"], "bytes_per_unit": nbytes,
                    "bytes_what": BYTES[w.name][1], "gbps_1": demand, "projected": proj})
    print("\n".join(lines))
    print(f"minima over {args.rounds} interleaved rounds; load average before "
          f"{' '.join(map(str, load_before or []))}, after {' '.join(map(str, load_after or []))}")
    print("bytes per unit: " + "; ".join(f"{w.name}: {BYTES[w.name][1]}" for w in rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "bandwidth_gbps": {"1": bw1, "2": bw2},
                       "load_before": load_before, "load_after": load_after, "rows": out},
                      f, indent=1)


if __name__ == "__main__":
    main()
