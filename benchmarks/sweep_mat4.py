"""Sweep of the 4x4 matrix and skinning kernels: matmul4 over size x case, skin over mesh size x
influences x palettes, every SIMD variant.

Every configuration is checked against the float64 reference before it is timed, then timed on
every variant this CPU supports against the fastest NumPy formulation (and a memcpy of the same
bytes where one applies), all in one run. Writes JSON and CSV (and a PNG plot when matplotlib is
installed) and prints a table.

    python benchmarks/sweep_mat4.py [--out DIR] [--n 64 1000 100000 1000000]
                                    [--vertices 1000 10000 100000] [--influences 1 4 8]
                                    [--palettes 1 100]
"""
import argparse
import csv
import os
import sys

from skelsimd._bench.core import format_table, run_workload, write_json
from skelsimd._bench.mat4 import matmul4_workload
from skelsimd._bench.skinning import skin_workload

CASES = ["array x constant", "constant x array", "pairs"]


def plot(records, path):
    """ns per unit against size, one panel per operation, one line per variant."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    panels = list(dict.fromkeys(r["panel"] for r in records))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        mine = [r for r in records if r["panel"] == panel]
        for variant in dict.fromkeys(r["variant"] for r in mine):
            pts = sorted((r["size"], r["ns_per_unit"]) for r in mine if r["variant"] == variant)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=variant)
        ax.set(xscale="log", yscale="log", title=panel, xlabel="size", ylabel=f"ns per {mine[0]['unit']}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="benchmarks/results", help="output directory (default benchmarks/results)")
    ap.add_argument("--n", type=int, nargs="+", default=[64, 1000, 100_000, 1_000_000])
    ap.add_argument("--vertices", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--influences", type=int, nargs="+", default=[1, 4, 8])
    ap.add_argument("--palettes", type=int, nargs="+", default=[1, 100])
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    jobs = [(f"matmul4 {case}", n, matmul4_workload(n, case)) for case in CASES for n in args.n]
    jobs += [(f"skin K={k}, {p} palette(s)", v, skin_workload(p, v, k))
             for k in args.influences for p in args.palettes for v in args.vertices]
    records = []
    for panel, size, w in jobs:
        print(f"... {w.title}", file=sys.stderr, flush=True)
        for r in run_workload(w, min_time=args.min_time, repeat=args.repeat):
            records.append(dict(r, panel=panel, size=size))
    print(format_table(records))

    os.makedirs(args.out, exist_ok=True)
    write_json(os.path.join(args.out, "sweep_mat4.json"), records, command="sweep_mat4")
    keys = ["panel", "size", "variant", "seconds_per_call", "ns_per_unit", "unit", "speedup_vs_numpy",
            "speedup_vs_scalar", "time_vs_memcpy"]
    with open(os.path.join(args.out, "sweep_mat4.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, keys, extrasaction="ignore")
        wr.writeheader()
        wr.writerows(records)
    if plot(records, os.path.join(args.out, "sweep_mat4.png")):
        print(f"wrote {args.out}/sweep_mat4.{{json,csv,png}}", file=sys.stderr)
    else:
        print("matplotlib not installed: no plot", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
