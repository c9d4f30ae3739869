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

from skelsimd._bench.core import (format_table, plot_scaling, run_workload, series_by_variant,
                                  write_json)
from skelsimd._bench.mat4 import matmul4_workload
from skelsimd._bench.skinning import skin_workload

CASES = ["array x constant", "constant x array", "pairs"]


def plot(records, path):
    """ns per unit against size, one panel per operation, one line per variant."""
    panels = [(panel, "size", f"ns per {mine[0]['unit']}", series_by_variant(mine, lambda r: r["size"]))
              for panel in dict.fromkeys(r["panel"] for r in records)
              for mine in [[r for r in records if r["panel"] == panel]]]
    return plot_scaling(path, panels, panel_width=4.5)


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
