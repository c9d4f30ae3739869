"""Measured accuracy of the quaternion families on every SIMD variant: max abs error against the
float64 references over large random samples (special pairs for the interpolations: random,
identical, antipodal, near-parallel, near-antipodal, orthogonal), next to the documented bounds.

    python benchmarks/accuracy_quat.py [--pairs 400000] [--skeletons 500]
"""
import argparse
import sys

import numpy as np

import skelsimd as S
from skelsimd import testing as T
from skelsimd._isa import supported_isas, use_isa
from skelsimd.bounds import bound as B
from skelsimd.reference import blend as RB
from skelsimd.reference import qts as RT
from skelsimd.reference import quat as RQ


def measure(n, skeletons, rng):
    q0, q1 = T.special_quaternion_pairs(n, rng)
    t = rng.random(n).astype(np.float32)
    t[: n // 100] = 0.0
    t[n // 100: n // 50] = 1.0
    te = rng.uniform(-1, 2, n).astype(np.float32)
    grow = np.maximum(1, np.maximum(np.abs(te), np.abs(1 - te)))[:, None]
    u0 = T.random_quaternions(n, rng).astype(np.float32)
    v = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    x = T.random_qts(n, rng, translation=2.0, scale=(0.5, 2.0))
    r = {}
    ref = RB.slerp(q0, q1, t)
    r["slerp fast (t in [0, 1])"] = (np.abs(S.slerp(q0, q1, t) - ref).max(), B("slerp.fast"))
    r["slerp exact (t in [0, 1])"] = (np.abs(S.slerp(q0, q1, t, method="exact") - ref).max(), B("slerp.exact"))
    r["slerp fast / max(1,|t|,|1-t|), t in [-1, 2]"] = (
        (np.abs(S.slerp(q0, q1, te) - RB.slerp(q0, q1, te)) / grow).max(), B("slerp.fast"))
    r["nlerp"] = (np.abs(S.nlerp(q0, q1, t) - RB.nlerp(q0, q1, t)).max(), B("nlerp"))
    r["quat_multiply"] = (np.abs(S.quat_multiply(u0, q1) - RQ.quat_multiply(u0, q1)).max(), B("quat_multiply"))
    r["quat_normalize (|q| in 1e-3..1e3)"] = (
        np.abs(S.quat_normalize(u0 * 10.0 ** rng.uniform(-3, 3, (n, 1))) - RQ.quat_normalize(u0)).max(), B("quat_normalize"))
    r["quat_rotate / |v|"] = ((np.abs(S.quat_rotate(u0, v) - RQ.quat_rotate(u0, v)).max(-1)
                               / np.linalg.norm(v, axis=-1)).max(), B("quat_rotate"))
    r["quat_to_matrix"] = (np.abs(S.quat_to_matrix(u0) - RQ.quat_to_matrix(u0)).max(), B("quat_to_matrix"))
    r["matrix_to_quat round trip (+-q)"] = (
        RQ.same_rotation_error(S.matrix_to_quat(S.quat_to_matrix(u0)), RQ.quat_normalize(u0)).max(), B("matrix_to_quat.round_trip"))
    m = S.qts_to_matrix(x)
    r["qts_to_matrix / max(1, |s|)"] = ((np.abs(m - RQ.qts_to_matrix(x)).max(axis=(-2, -1))
                                         / np.maximum(1, np.abs(x[:, 7]))).max(), B("qts_to_matrix"))
    back = S.matrix_to_qts(m)
    r["matrix_to_qts round trip: q (+-q)"] = (RQ.same_rotation_error(back[:, :4], x[:, :4]).max(), B("matrix_to_qts.round_trip"))
    r["matrix_to_qts round trip: s relative"] = ((np.abs(back[:, 7] - x[:, 7]) / x[:, 7]).max(), B("matrix_to_qts.round_trip"))
    joints, blend = T.random_qts((skeletons, 96), rng), T.random_qts((skeletons, 96), rng)
    tb = np.float32(0.3)
    for method, bound in (("fast", B("slerp.fast")), ("nlerp", B("nlerp"))):
        got = S.blend_joints(joints, blend, tb, method=method)
        exp = RB.blend_joints(joints, blend, tb, method=method)
        r[f"blend_joints {method}: rotation"] = (np.abs(got[..., :4] - exp[..., :4]).max(), bound)
    layers = T.random_qts((skeletons, 3, 96), rng)
    w = np.array([0.5, 0.3, 0.2], np.float32)
    got, exp = S.blend_layers(layers, w), RB.blend_layers(layers, w)
    r["blend_layers (3 layers): rotation"] = (np.abs(got[..., :4] - exp[..., :4]).max(), B("blend_layers.quat") * 4)
    errs = {"qts": [], "matrix": []}
    for _ in range(4):
        parents = np.array([-1] + [rng.integers(0, j) for j in range(1, 96)], dtype=np.int32)
        local = T.random_qts((skeletons, 96), rng)
        errs["qts"].append(np.abs(S.qts_local_to_global(local, parents) - RT.qts_local_to_global(local, parents)).max())
        errs["matrix"].append(np.abs(S.qts_local_to_global_matrix(local, parents)
                                     - RT.qts_local_to_global_matrix(local, parents)).max())
    r["qts_local_to_global, random 96-joint trees"] = (max(errs["qts"]), B("qts_local_to_global"))
    r["qts_local_to_global_matrix, random 96-joint trees"] = (max(errs["matrix"]), B("qts_local_to_global"))
    parents = T.humanoid_skeleton()[0]
    local = T.random_qts((skeletons, 96), rng)
    exp = RT.qts_local_to_global(local, parents)
    bound = (T.depths(parents).max() + 1) * 2.0**-23 * max(1.0, np.abs(exp[..., 4:7]).max())
    r["qts_local_to_global, humanoid (depth bound)"] = (
        np.abs(S.qts_local_to_global(local, parents) - exp)[..., 4:7].max(), bound)
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=400_000)
    ap.add_argument("--skeletons", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    results = {}
    for isa in supported_isas():
        with use_isa(isa):
            results[isa] = measure(args.pairs, args.skeletons, np.random.default_rng(args.seed))
    names = list(results[supported_isas()[0]])
    print(f"{'max abs error (same data on every variant)':<52} " + " ".join(f"{i:>9}" for i in results) + "     bound")
    ok = True
    for k in names:
        errs = [results[i][k][0] for i in results]
        bound = results[supported_isas()[0]][k][1]
        ok &= max(errs) <= bound
        print(f"{k:<52} " + " ".join(f"{e:9.2e}" for e in errs) + f"  {bound:8.1e}")
    print("all within their bounds" if ok else "SOME ERRORS EXCEED THEIR BOUNDS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
