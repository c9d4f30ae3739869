"""Motion matching: one query against a 50,000 x 27 database (pruned search, brute-force SIMD
scan, the scalar variant, NumPy's brute force, scipy.spatial.cKDTree), 1,000 queries batched,
and building a database from 100 clips (per frame).

Data: the features of the CMU clips in tests/data (01_01, 131_01, 131_02 and their mirrored
copies: 9,266 real rows) tiled to 50,000 rows with Gaussian noise of 0.05 (normalised units)
so no two rows are equal. Queries: random rows plus noise of 0.1. Every answer is checked
against the float64 brute force before timing. Times are minima over interleaved rounds.

    python benchmarks/motion_matching.py [--rows 50000] [--rounds 7]
"""
import argparse
import os
import time

import numpy as np

import skelsimd
from skelsimd import MotionDatabase
from skelsimd._isa import supported_isas, use_isa
from skelsimd.reference import mm as ref

DATA = os.path.join(os.path.dirname(__file__), "..", "tests", "data")


def clips():
    a = [skelsimd.load_bvh(os.path.join(DATA, f"cmu_131_0{k}.bvh.gz")) for k in (1, 2)]
    b = [skelsimd.load_bvh(os.path.join(DATA, "cmu_01_01.bvh.gz"))]
    return a, b


def best(fn, rounds, inner):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t) / inner)
    return min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    a, b = clips()
    real = np.concatenate([MotionDatabase(a, mirror=True).features,
                           MotionDatabase(b, mirror=True).features])
    rng = np.random.default_rng(0)
    reps = -(-args.rows // len(real))
    feats = (np.tile(real, (reps, 1))[:args.rows]
             + rng.normal(size=(args.rows, real.shape[1])) * 0.05).astype(np.float32)
    db = MotionDatabase.from_features(feats)
    queries = (feats[rng.integers(0, len(feats), 1000)]
               + rng.normal(size=(1000, feats.shape[1])) * 0.1).astype(np.float32)
    for q in queries[:20]:
        assert db.search(q) == db.search(q, prune=False) == ref.brute_force(feats, q)
    q1 = queries[:64]
    print(f"database {feats.shape[0]} x {feats.shape[1]} float32; variant {skelsimd.isa()}; "
          f"real rows {len(real)}")

    def numpy_brute():
        for q in q1:
            int(np.argmin(((feats - q) ** 2).sum(axis=1)))

    results = {}
    from scipy.spatial import cKDTree
    t = time.perf_counter()
    tree = cKDTree(feats)
    build_kd = time.perf_counter() - t
    for q in q1[:10]:
        assert tree.query(q)[1] == db.search(q)[0] or np.isclose(tree.query(q)[0] ** 2,
                                                                  db.search(q)[1], rtol=1e-5)
    for name, fn in [
        ("pruned", lambda: [db.search(q) for q in q1]),
        ("scan", lambda: [db.search(q, prune=False) for q in q1]),
        ("numpy", numpy_brute),
        ("ckdtree", lambda: [tree.query(q) for q in q1]),
        ("batched", lambda: db.search_many(queries)),
    ]:
        results[name] = []
    order = list(results)
    fns = dict(zip(order, [lambda: [db.search(q) for q in queries],
                           lambda: [db.search(q, prune=False) for q in q1],
                           numpy_brute, lambda: [tree.query(q) for q in q1],
                           lambda: db.search_many(queries)]))
    for _ in range(args.rounds):                     # interleaved rounds
        for name in order:
            results[name].append(best(fns[name], 1, 1))
    per = {k: min(v) / (len(queries) if k in ("batched", "pruned") else len(q1))
           for k, v in results.items()}
    if "scalar" in supported_isas():
        with use_isa("scalar"):
            per["pruned scalar"] = best(lambda: [db.search(q) for q in queries], args.rounds,
                                        1) / len(queries)
            per["scan scalar"] = best(lambda: [db.search(q, prune=False) for q in q1],
                                      args.rounds, 1) / len(q1)
    membytes = feats.nbytes
    buf = np.empty_like(feats)
    memcpy = best(lambda: np.copyto(buf, feats), args.rounds, 3)
    print("  (pruned, pruned scalar and batched: the 1,000 queries; the others: the first 64)")
    for k, v in per.items():
        print(f"  {k:24s} {v * 1e6:10.1f} us per query" + (
            f"   NumPy / this = {per['numpy'] / v:7.1f}x" if k != "numpy" else ""))
    print(f"  cKDTree build            {build_kd * 1e3:10.1f} ms (once)")
    print(f"  memcpy of the features ({membytes / 1e6:.1f} MB): {memcpy * 1e6:.1f} us; "
          f"scan / memcpy = {per['scan'] / memcpy:.1f}")

    # building the database from 100 clips
    parts = []
    for c in a:                                     # 50 overlapping 140-frame cuts of each
        parts += [c[k * (c.frames - 140) // 49:][:140] for k in range(50)]
    frames = sum(p.frames for p in parts)
    t = min(best(lambda: MotionDatabase(parts), 1, 1) for _ in range(3))
    print(f"  build from {len(parts)} clips ({frames} frames): {t * 1e3:.1f} ms, "
          f"{t / frames * 1e6:.2f} us per frame")
    os.system("uptime")


if __name__ == "__main__":
    main()
