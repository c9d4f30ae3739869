"""A/B of two builds of skelsimd: every headline row of `python -m skelsimd bench`, both builds
in one session, in alternating rounds, minima per row.

    python benchmarks/ab_builds.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 3] [--variants avx2 sse41]
                                   [--family joints ...] [--out ab.json]

Each checkout must hold a built extension (``python setup.py build_ext --inplace``). A round runs
the bench once per build, in a child process whose working directory and import path are that
checkout (so each imports its own ``skelsimd``), alternating which build goes first; shared machines
are noisy, so a row's figure is its minimum over the rounds, and the ratio new / old of those minima
is what to quote (above 1.03 is a regression worth a look). Rows are matched by title and variant;
rows that exist in one build only are listed apart.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run_bench(checkout, args, out_dir):
    cmd = [sys.executable, "-m", "skelsimd", "bench", "--out", out_dir,
           "--min-time", str(args.min_time), "--repeat", str(args.repeat)]
    if args.variants:
        cmd += ["--variants", *args.variants]
    for family in args.family or ():
        cmd += ["--family", family]
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout), MPLBACKEND="Agg")
    done = subprocess.run(cmd, cwd=checkout, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"bench failed in {checkout}:\n{done.stderr}")
    with open(os.path.join(out_dir, "bench.json")) as f:
        data = json.load(f)
    return {(r["title"], r["variant"]): r["ns_per_unit"] for r in data["results"]}, data["machine"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--variants", nargs="+", help="SIMD variants to time (default: every one supported)")
    ap.add_argument("--family", action="append", help="only this kernel family (repeatable)")
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", help="write the table as JSON here")
    args = ap.parse_args(argv)

    best = {"old": {}, "new": {}}
    machines = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for which in order:
                rows, machine = run_bench(getattr(args, which), args, tmp)
                machines.append(machine)
                for key, ns in rows.items():
                    best[which][key] = min(ns, best[which].get(key, float("inf")))
            print(f"round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)

    common = [k for k in best["new"] if k in best["old"]]
    table = []
    print(f"{'workload':<52} {'variant':<8} {'old ns':>9} {'new ns':>9} {'new/old':>8}")
    for key in common:
        old, new = best["old"][key], best["new"][key]
        table.append({"title": key[0], "variant": key[1], "old_ns": old, "new_ns": new, "ratio": new / old})
        flag = "  slower" if new / old > 1.03 else ""
        print(f"{key[0][:52]:<52} {key[1]:<8} {old:9.3f} {new:9.3f} {new / old:8.3f}{flag}")
    only_new = sorted({k[0] for k in best["new"] if k not in best["old"]})
    only_old = sorted({k[0] for k in best["old"] if k not in best["new"]})
    if only_new:
        print("rows only in the new build:", "; ".join(only_new))
    if only_old:
        print("rows only in the old build:", "; ".join(only_old))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"old": os.path.abspath(args.old), "new": os.path.abspath(args.new),
                       "rounds": args.rounds, "machines": machines, "rows": table,
                       "only_new": only_new, "only_old": only_old}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
