"""glTF files that ask for a lot of work, and the cost of building clips per joint-frame.

    python benchmarks/gltf_hostile.py [--timeout 120] [--case NAME ...] [--json OUT.json]
    python benchmarks/gltf_hostile.py --clips DIR [--repeat 3]

Hostile shapes (built by ``tests/gltf_files.py``): each is written to a temporary folder and
read in a child process, ``load_gltf(path)`` then every clip (``asset.clips``), with its wall
time, CPU time and peak resident memory (the child's ``ru_maxrss``) measured; the child is
killed after --timeout seconds. The outcome is the clips' count or the exception's first line.

--clips: for each ``.glb``/``.gltf`` in DIR, the time of building every clip of an already
loaded asset (``asset.clips`` read afresh; the minimum over --repeat rounds), divided by the
joint-frames built (frames x joints summed over the clips).
"""
import argparse
import glob
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(os.path.dirname(HERE), "tests"))

CHILD = r"""
import sys, time, resource, warnings
warnings.simplefilter("ignore")
import skelsimd
t0, c0 = time.perf_counter(), time.process_time()
try:
    asset = skelsimd.load_gltf(sys.argv[1])
    out = f"{len(asset.clips)} clips"
except (ValueError, OSError) as exc:
    out = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
print(repr((out, time.perf_counter() - t0, time.process_time() - c0)))
"""


def cases():
    import gltf_files as G
    return {
        "long_duration": lambda: G.long_duration(2 ** 24, 1),
        "long_chain": lambda: G.long_chain(100_000, 200, 1),
        "many_long_animations": lambda: G.many_long_animations(12, 2 ** 15, 64),
        "many_channels": lambda: G.many_channels(50_000),
        "many_mesh_nodes": lambda: G.many_mesh_nodes(20_000, 2_000),
    }


def run_case(name, build, directory, timeout):
    path = build().write(directory, "glb", name)
    size = os.path.getsize(path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True,
                              text=True, timeout=timeout, cwd=directory)   # not the checkout's
        lines = proc.stdout.strip().splitlines()
        outcome, wall, cpu = eval(lines[-1]) if lines else (proc.stderr[-300:], None, None)
    except subprocess.TimeoutExpired:
        outcome, wall, cpu = f"killed after {timeout} s", time.perf_counter() - t0, None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss = after.ru_maxrss * 1024          # the largest child so far (kilobytes on Linux)
    return {"case": name, "file_bytes": size, "outcome": outcome, "wall_s": wall,
            "cpu_s": cpu, "peak_rss_bytes": rss if after.ru_maxrss > before.ru_maxrss else None}


def clip_cost(directory, repeat):
    import skelsimd
    rows = []
    for path in sorted(glob.glob(os.path.join(directory, "*.glb"))
                       + glob.glob(os.path.join(directory, "*.gltf"))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            asset = skelsimd.load_gltf(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clips = asset.clips
        if not clips:
            continue
        jf = sum(c.local.shape[0] * c.local.shape[1] for c in clips)
        best = float("inf")
        for _ in range(repeat):
            asset._clips = None
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                asset.clips
            best = min(best, time.perf_counter() - t0)
        pairs = clips
        rows.append({"file": os.path.basename(path), "clips": len(pairs),
                     "refused": len(asset.refused), "joint_frames": jf,
                     "seconds": best, "us_per_joint_frame": best / jf * 1e6})
        print(f"{rows[-1]['file']:28s} {len(pairs):3d} clips ({rows[-1]['refused']} refused) "
              f"{jf:9d} joint-frames {best * 1e3:9.2f} ms  "
              f"{rows[-1]['us_per_joint_frame']:.3f} us/joint-frame", flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--case", action="append")
    ap.add_argument("--clips", help="a folder of glTF files: clip building per joint-frame")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    if args.clips:
        rows = clip_cost(args.clips, args.repeat)
    else:
        rows = []
        all_cases = cases()
        with tempfile.TemporaryDirectory() as directory:
            for name in args.case or list(all_cases):
                # a fresh interpreter per case, so that ru_maxrss is this case's own
                out = subprocess.run([sys.executable, __file__, "--one", name, directory,
                                      str(args.timeout)], capture_output=True, text=True)
                row = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append(row)
                rss = row["peak_rss_bytes"]
                print(f"{name:22s} {row['file_bytes']:>10d} B  "
                      f"wall {row['wall_s'] or float('nan'):7.2f} s  "
                      f"cpu {row['cpu_s'] or float('nan'):7.2f} s  "
                      f"peak {rss / 2 ** 20 if rss else float('nan'):8.1f} MiB  "
                      f"{row['outcome']}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        name, directory, timeout = sys.argv[2], sys.argv[3], float(sys.argv[4])
        print(json.dumps(run_case(name, cases()[name], directory, timeout)))
    else:
        main()
