"""Sweep of the spring-grid surface: grid size x model x SIMD variant, and the state layout.

Every configuration is checked against the float64 reference before it is timed (each variant
on a fresh surface, the NumPy formulation when it is built), then timed on every variant this
CPU supports, against the fastest NumPy step, the memory-traffic limit (a copy of positions and
velocities per substep) and the same job with the planes 4 KiB apart (like separate NumPy
arrays), all in one run. Writes JSON and CSV (and a PNG plot when matplotlib is installed).

    python benchmarks/sweep_surface.py [--out DIR] [--sizes 32 100 316 1000] [--models offset length]
"""
import argparse
import csv
import os
import sys

from skelsimd._bench.core import (format_table, plot_scaling, run_workload, series_by_variant,
                                  write_json)
from skelsimd._bench.surface import step_workload


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="benchmarks/results", help="output directory (default benchmarks/results)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[32, 100, 316, 1000], help="rows = cols")
    ap.add_argument("--models", nargs="+", default=["offset", "length"])
    ap.add_argument("--steps", type=int, default=8, help="substeps per timed call")
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    records = []
    for model in args.models:
        for n in args.sizes:
            w = step_workload(n, n, model, steps=args.steps)
            print(f"... {w.title}", file=sys.stderr, flush=True)
            records.extend(run_workload(w, min_time=args.min_time, repeat=args.repeat))
    print(format_table(records))

    os.makedirs(args.out, exist_ok=True)
    write_json(os.path.join(args.out, "sweep_surface.json"), records, command="sweep_surface")
    with open(os.path.join(args.out, "sweep_surface.csv"), "w", newline="") as f:
        keys = ["title", "variant", "seconds_per_call", "ns_per_unit", "speedup_vs_numpy",
                "speedup_vs_scalar", "time_vs_traffic"]
        wr = csv.writer(f)
        wr.writerow(["rows", "cols", "model"] + keys)
        for r in records:
            p = r["params"]
            wr.writerow([p["rows"], p["cols"], p["model"]] + [r.get(k, "") for k in keys])
    panels = [(f"Surface.step, {model} model", "vertices", "ns per vertex per substep",
               series_by_variant([r for r in records if r["params"]["model"] == model],
                                 lambda r: r["params"]["rows"] * r["params"]["cols"]))
              for model in args.models]
    if not plot_scaling(os.path.join(args.out, "sweep_surface.png"), panels, panel_width=5.5):
        print("matplotlib not installed: no plot", file=sys.stderr)
    print(f"wrote {args.out}/sweep_surface.{{json,csv,png}}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
