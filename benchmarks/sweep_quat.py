"""Sweep of the quaternion families: slerp / nlerp over the number of pairs, blend_joints and the
QTS walks over the batch size (96-joint humanoid), every SIMD variant.

Every configuration is checked against the float64 reference before it is timed, then timed on
every variant this CPU supports, against the fastest NumPy formulation and a memcpy of the same
bytes, all in one run. Writes JSON and CSV (and a PNG plot when matplotlib is installed) and
prints a table.

    python benchmarks/sweep_quat.py [--out DIR] [--pairs 64 1024 16384] [--batch 1 100 1000]
"""
import argparse
import csv
import os
import sys

from skelsimd._bench import quat as Q
from skelsimd._bench.core import (format_table, plot_scaling, run_workload, series_by_variant,
                                  write_json)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="benchmarks/results", help="output directory (default benchmarks/results)")
    ap.add_argument("--pairs", type=int, nargs="+", default=[64, 1024, 16384, 262144])
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 100, 1000, 10000])
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    sweeps = []   # (operation, size, workload)
    for n in args.pairs:
        sweeps.append(("slerp fast", n, Q.slerp_workload(n)))
        sweeps.append(("nlerp", n, Q.nlerp_workload(n)))
    for b in args.batch:
        sweeps.append(("blend_joints fast", b, Q.blend_joints_workload(b)))
        sweeps.append(("blend_joints nlerp", b, Q.blend_joints_workload(b, method="nlerp")))
        sweeps.append(("qts_local_to_global", b, Q.qts_walk_workload(b)))
        sweeps.append(("qts_local_to_global_matrix", b, Q.qts_walk_workload(b, matrix=True)))
    records = []
    for op, size, w in sweeps:
        print(f"... {w.title}", file=sys.stderr, flush=True)
        for r in run_workload(w, min_time=args.min_time, repeat=args.repeat):
            r["operation"], r["size"] = op, size
            records.append(r)
    print(format_table(records))

    os.makedirs(args.out, exist_ok=True)
    write_json(os.path.join(args.out, "sweep_quat.json"), records, command="sweep_quat")
    with open(os.path.join(args.out, "sweep_quat.csv"), "w", newline="") as f:
        keys = ["operation", "size", "variant", "seconds_per_call", "ns_per_unit", "speedup_vs_numpy",
                "speedup_vs_scalar"]
        wr = csv.writer(f)
        wr.writerow(keys)
        for r in records:
            wr.writerow([r.get(k, "") for k in keys])
    pairs = ("slerp fast", "nlerp")
    panels = [(op, "pairs" if op in pairs else "batch (96-joint skeletons)",
               "ns per pair" if op in pairs else "ns per joint",
               series_by_variant([r for r in records if r["operation"] == op], lambda r: r["size"]))
              for op in dict.fromkeys(r["operation"] for r in records)]
    if not plot_scaling(os.path.join(args.out, "sweep_quat.png"), panels, panel_width=4.2):
        print("matplotlib not installed: no plot", file=sys.stderr)
    print(f"wrote {args.out}/sweep_quat.{{json,csv,png}}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
