"""Benchmarks of the skeleton family, all ratios from one run:

1. BVH import of CMU 01_01.bvh (2 MB, 2752 frames x 31 joints): skelsimd.load_bvh against the
   straightforward NumPy reader (every number through float()) and, when installed, the
   pure-Python reader bvhio from the package index (``pip install bvhio``: for this comparison
   only, never a dependency): ``readAsBvh`` (parse) and ``readAsHierarchy`` (parse + per-frame
   transforms, comparable to load_bvh + forward kinematics).
2. Per-call overhead of passing a Skeleton instead of a parents array: local_to_global on one
   96-joint humanoid, per variant.
3. Depth-first against breadth-first joint order (a comment on "Adventures in data-oriented design, part 2": siblings share their
   parent's cached matrix) for local_to_global on real skeletons, per variant and batch size.

    python benchmarks/sweep_skeleton.py [--bvh PATH] [--out DIR] [--quick]

Every result is checked before timing (the orders against each other, bit for bit, after the
inverse permutation). Writes DIR/sweep_skeleton.json and prints tables.
"""
import argparse
import atexit
import gzip
import os
import shutil
import sys
import tempfile
import time

import numpy as np

import skelsimd
from skelsimd import Skeleton
from skelsimd import testing as T
from skelsimd._bench.core import machine_info, measure, write_json
from skelsimd._bench.skeleton import _numpy_load
from skelsimd._isa import supported_isas, use_isa

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")     # the real clips the tests use (gzipped)
_UNPACKED = tempfile.mkdtemp(prefix="skelsimd-sweep-")
atexit.register(shutil.rmtree, _UNPACKED, True)


def find_clip(name):
    """The path of a bundled test clip (``cmu_01_01.bvh.gz`` for "01_01.bvh"), unpacked into a
    temporary directory removed at exit; None when the tests' data is not beside this script."""
    for stored in (name + ".gz", "cmu_" + name + ".gz"):
        path = os.path.normpath(os.path.join(DATA, stored))
        if os.path.exists(path):
            out = os.path.join(_UNPACKED, name)
            with gzip.open(path, "rb") as f, open(out, "wb") as g:
                shutil.copyfileobj(f, g)
            return out
    return None


def interleaved(fns, min_time, repeat, rounds=3):
    """Best time of each callable, measured in alternation over several rounds, so that a
    change in machine load hits all of them alike (ratios between them are what we quote)."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], measure(fn, min_time=min_time, repeat=repeat))
    return best


def once(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench_import(path, min_time, repeat):
    raw = open(path, "rb").read()
    clip = skelsimd.load_bvh(raw)
    rows = []
    t_load = measure(lambda: skelsimd.load_bvh(path), min_time=min_time, repeat=repeat)
    rows.append(("skelsimd.load_bvh (path)", t_load))
    rows.append(("skelsimd.load_bvh + global_matrices",
                 measure(lambda: skelsimd.load_bvh(path).global_matrices(), min_time=min_time, repeat=repeat)))
    expected = clip.local
    got = _numpy_load(raw)
    assert np.abs(got - expected).max() <= 1e-6
    rows.append(("NumPy reader (float() per number)", measure(lambda: _numpy_load(raw), min_time=min_time, repeat=2)))
    try:
        import bvhio
    except ImportError:
        print("bvhio not installed (pip install bvhio): pure-Python reader not measured", file=sys.stderr)
    else:
        parsed = bvhio.readAsBvh(path)
        assert parsed.FrameCount == clip.frames
        rows.append(("bvhio.readAsBvh (pure Python)", once(lambda: bvhio.readAsBvh(path))))
        rows.append(("bvhio.readAsHierarchy (pure Python)", once(lambda: bvhio.readAsHierarchy(path))))
    print(f"\nBVH import: {os.path.basename(path)}, {len(raw) / 1e6:.2f} MB, {clip.frames} frames x "
          f"{len(clip.skeleton)} joints")
    print(f"{'reader':<40} {'time':>10} {'vs load_bvh':>12}")
    for name, t in rows:
        print(f"{name:<40} {t * 1e3:8.2f} ms {t / t_load:11.1f}x")
    return [{"bench": "import", "reader": n, "seconds": t, "vs_load_bvh": t / t_load,
             "frames": clip.frames, "joints": len(clip.skeleton), "bytes": len(raw)} for n, t in rows]


def bench_overhead(min_time, repeat):
    parents, names = T.humanoid_skeleton()
    skel = Skeleton(parents, names)
    local = T.random_joints((1, 96), np.random.default_rng(0))
    out = np.empty_like(local)
    forms = [("Skeleton", skel), ("int32 ndarray", parents), ("int64 ndarray", parents.astype(np.int64)),
             ("list", parents.tolist())]
    records = []
    print("\nPer-call cost of local_to_global(local (1, 96, 3, 4), parents, out), by form of parents")
    print(f"{'variant':<8} " + " ".join(f"{f:>15}" for f, _ in forms))
    for isa in supported_isas():
        with use_isa(isa):
            expected = skelsimd.local_to_global(local, parents)
            for _, p in forms:
                assert np.array_equal(skelsimd.local_to_global(local, p, out), expected)
            times = interleaved([lambda p=p: skelsimd.local_to_global(local, p, out) for _, p in forms],
                                min_time, repeat)
            for (form, _), t in zip(forms, times):
                records.append({"bench": "overhead", "variant": isa, "parents": form, "seconds": t})
        print(f"{isa:<8} " + " ".join(f"{t * 1e9:12.0f} ns" for t in times))
    return records


def skeletons():
    found = []
    for name, label, end_sites in (("01_01.bvh", "CMU 31 joints", False),
                                   ("20tab_freebvh.bvh", "Mixamo 70 joints (fingers, End Sites)", True)):
        path = find_clip(name)
        if path:
            clip = skelsimd.load_bvh(path, end_sites=end_sites)
            found.append((label, clip.skeleton))
    parents, names = T.humanoid_skeleton()
    found.append(("humanoid 96 joints (testing)", Skeleton(parents, names)))
    return found


def bench_orders(batches, min_time, repeat):
    records = []
    print("\nlocal_to_global, depth-first vs breadth-first joint order (ns per joint)")
    print(f"{'skeleton':<40} {'batch':>6} {'variant':<7} {'depth-first':>12} {'breadth-first':>14} {'bfs/dfs':>8}")
    for label, skel in skeletons():
        bfs, perm, inverse = skel.reorder("breadth-first")
        for batch in batches:
            local = T.random_joints((batch, len(skel)), np.random.default_rng(batch))
            local_bfs = np.ascontiguousarray(local[:, perm])
            out_d, out_b = np.empty_like(local), np.empty_like(local)
            for isa in supported_isas():
                with use_isa(isa):
                    g = skelsimd.local_to_global(local, skel, out_d)
                    gb = skelsimd.local_to_global(local_bfs, bfs, out_b)
                    assert np.array_equal(gb[:, inverse], g)
                    td, tb = interleaved([lambda: skelsimd.local_to_global(local, skel, out_d),
                                          lambda: skelsimd.local_to_global(local_bfs, bfs, out_b)],
                                         min_time, repeat)
                units = batch * len(skel)
                print(f"{label:<40} {batch:>6} {isa:<7} {td * 1e9 / units:12.2f} {tb * 1e9 / units:14.2f} {tb / td:8.3f}")
                records.append({"bench": "order", "skeleton": label, "joints": len(skel), "batch": batch,
                                "variant": isa, "depth_first_s": td, "breadth_first_s": tb, "bfs_over_dfs": tb / td})
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bvh", default=find_clip("01_01.bvh"), help="BVH file to import (default: CMU 01_01.bvh)")
    ap.add_argument("--out", default="benchmarks/results", help="output directory (default benchmarks/results)")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 1000], help="batch sizes for the order comparison")
    ap.add_argument("--quick", action="store_true", help="short timings (noisy)")
    args = ap.parse_args(argv)
    min_time, repeat = (0.01, 2) if args.quick else (0.05, 5)
    info = machine_info()
    print(f"skelsimd {skelsimd.__version__} on {info['cpu']} ({info['cores']} cores), NumPy {info['numpy']}")
    records = []
    if args.bvh:
        records += bench_import(args.bvh, min_time, repeat)
    else:
        print("no BVH file found (pass --bvh PATH): import not measured", file=sys.stderr)
    records += bench_overhead(min_time, repeat)
    records += bench_orders(args.batch, min_time, repeat)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "sweep_skeleton.json")
    write_json(path, records, command="sweep_skeleton")
    print(f"\nwrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
