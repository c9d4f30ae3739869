"""The rotation conversions side by side with SciPy's Rotation on 100,000 rotations, interleaved:
each round times every skelsimd variant and SciPy once each (best of --calls single calls), and
the table gives the median over the rounds of ns per rotation and of the ratio to SciPy.

    OPENBLAS_NUM_THREADS=1 python benchmarks/compare_scipy_convert.py [--rounds 7] [--clock cpu]

--clock cpu (default) measures the process's CPU time (time.process_time), which leaves out the
time the process waits for a core on a shared, loaded machine; --clock wall uses perf_counter.
Both sides run on one thread. SciPy gets float64 arrays (its native dtype), skelsimd float32 ones
with a preallocated out.
"""
import argparse
import json
import time

import numpy as np
from skelsimd._bench import numpy_forms as NF
from scipy.spatial.transform import Rotation

import skelsimd as S
from skelsimd import testing as T
from skelsimd._isa import supported_isas, use_isa
from skelsimd.reference import convert as RC


def jobs(n, rng):
    q = T.random_quaternions(n, rng).astype(np.float32)
    a = rng.uniform(-np.pi, np.pi, (n, 3)).astype(np.float32)
    axis = rng.normal(size=(n, 3))
    v = (axis / np.linalg.norm(axis, axis=1, keepdims=True) * rng.uniform(0, np.pi, (n, 1))).astype(np.float32)
    d = S.quat_to_sixd(q)
    q64, a64, v64 = q.astype(np.float64), a.astype(np.float64), v.astype(np.float64)
    o4, o3 = np.empty((n, 4), np.float32), np.empty((n, 3), np.float32)
    return {
        "euler_to_quat xyz": (lambda: S.euler_to_quat(a, "xyz", out=o4), lambda: Rotation.from_euler("xyz", a64).as_quat()),
        "euler_to_quat ZXZ degrees": (lambda: S.euler_to_quat(a, "ZXZ", degrees=True, out=o4),
                                      lambda: Rotation.from_euler("ZXZ", a64, degrees=True).as_quat()),
        "quat_to_euler xyz": (lambda: S.quat_to_euler(q, "xyz", out=o3), lambda: Rotation.from_quat(q64).as_euler("xyz")),
        "quat_to_euler ZXZ": (lambda: S.quat_to_euler(q, "ZXZ", out=o3), lambda: Rotation.from_quat(q64).as_euler("ZXZ")),
        "rotvec_to_quat": (lambda: S.rotvec_to_quat(v, o4), lambda: Rotation.from_rotvec(v64).as_quat()),
        "quat_to_rotvec": (lambda: S.quat_to_rotvec(q, o3), lambda: Rotation.from_quat(q64).as_rotvec()),
        "quat_to_sixd (SciPy: as_matrix, sliced)": (
            lambda: S.quat_to_sixd(q), lambda: Rotation.from_quat(q64).as_matrix()[:, :, :2].swapaxes(1, 2).reshape(-1, 6)),
        "sixd_to_quat (NumPy Gram-Schmidt, SciPy from_matrix)": (
            lambda: S.sixd_to_quat(d, o4),
            lambda: Rotation.from_matrix(NF.sixd_to_matrix_numpy32(d).astype(np.float64)).as_quat()),
    }


def best(fn, calls, clock):
    fn()
    t = float("inf")
    for _ in range(calls):
        t0 = clock()
        fn()
        t = min(t, clock() - t0)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    ap.add_argument("--json", help="also write the results here")
    a = ap.parse_args()
    clock = time.process_time if a.clock == "cpu" else time.perf_counter
    work = jobs(a.n, np.random.default_rng(0))
    isas = supported_isas()
    times = {name: {k: [] for k in isas + ["scipy"]} for name in work}
    for _ in range(a.rounds):
        for name, (kernel, ref) in work.items():
            for isa in isas:
                with use_isa(isa):
                    times[name][isa].append(best(kernel, a.calls, clock))
            times[name]["scipy"].append(best(ref, max(1, a.calls // 2), clock))
    head = f"{'job (100,000 rotations), ns per rotation':<48}" + "".join(f"{k:>9}" for k in isas + ["scipy"])
    print(head + f"{'best/scipy':>12}")
    out = {}
    for name, t in times.items():
        med = {k: float(np.median(v)) * 1e9 / a.n for k, v in t.items()}
        ratio = float(np.median([s / b for s, b in zip(t["scipy"], t[isas[-1]])]))
        out[name] = {"ns_per_rotation": med, "scipy_over_best": ratio}
        print(f"{name:<48}" + "".join(f"{med[k]:9.2f}" for k in isas + ["scipy"]) + f"{ratio:11.0f}x")
    print(f"({a.clock} clock, median of {a.rounds} interleaved rounds, best of {a.calls} calls each; "
          f"ratio: SciPy over {isas[-1]}, per round)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
