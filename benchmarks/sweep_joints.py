"""Sweep of the joint-matrix kernels: local_to_global over J x batch x SIMD variant.

Every configuration is checked against the float64 reference before it is timed, then timed on
every variant this CPU supports, against the fastest NumPy formulation (depth-level batching)
and a memcpy of the same bytes, all in one run. Writes JSON and CSV (and a PNG plot when
matplotlib is installed) and prints a table.

    python benchmarks/sweep_joints.py [--out DIR] [--joints 16 96 256] [--batch 1 100 1000 10000]
"""
import argparse
import csv
import os
import sys

from skelsimd._bench.core import (format_table, plot_scaling, run_workload, series_by_variant,
                                  write_json)
from skelsimd._bench.joints import local_to_global_workload


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="benchmarks/results", help="output directory (default benchmarks/results)")
    ap.add_argument("--joints", type=int, nargs="+", default=[16, 96, 256])
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 100, 1000, 10000])
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    records = []
    for j in args.joints:
        for b in args.batch:
            w = local_to_global_workload(b, j)
            print(f"... {w.title}", file=sys.stderr, flush=True)
            records.extend(run_workload(w, min_time=args.min_time, repeat=args.repeat))
    print(format_table(records))

    os.makedirs(args.out, exist_ok=True)
    write_json(os.path.join(args.out, "sweep_joints.json"), records, command="sweep_joints")
    with open(os.path.join(args.out, "sweep_joints.csv"), "w", newline="") as f:
        keys = ["title", "variant", "seconds_per_call", "ns_per_unit", "speedup_vs_numpy",
                "speedup_vs_scalar", "time_vs_memcpy"]
        wr = csv.writer(f)
        wr.writerow(["joints", "batch"] + keys)
        for r in records:
            wr.writerow([r["params"]["joints"], r["params"]["batch"]] + [r.get(k, "") for k in keys])
    panels = [(f"local_to_global, J = {j}", "batch (skeletons)", "ns per joint",
               series_by_variant([r for r in records if r["params"]["joints"] == j],
                                 lambda r: r["params"]["batch"]))
              for j in args.joints]
    if not plot_scaling(os.path.join(args.out, "sweep_joints.png"), panels):
        print("matplotlib not installed: no plot", file=sys.stderr)
    print(f"wrote {args.out}/sweep_joints.{{json,csv,png}}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
