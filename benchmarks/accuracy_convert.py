"""Measured accuracy of the rotation conversions on every SIMD variant: max abs error against the
float64 references (themselves checked against SciPy in tests/test_convert.py) over large random
samples, every Euler sequence, next to the documented bounds.

    python benchmarks/accuracy_convert.py [--n 200000]

Samples: uniform random rotations; Euler angles uniform in [-pi, pi] (and [-720, 720] degrees);
quaternions in and near gimbal lock for every sequence (middle angle at its ends plus offsets
from 0 to 1e-3); rotation vectors with angles uniform in [0, pi], log-uniform near 0 and within
1e-3 of pi; 6D vectors of rotations.
"""
import argparse
import warnings

import numpy as np

import skelsimd as S
from skelsimd import testing as T
from skelsimd._isa import supported_isas, use_isa
from skelsimd.reference import convert as RC
from skelsimd.reference import quat as RQ

SEQS = [a + b + c for a in "xyz" for b in "xyz" for c in "xyz" if a != b and b != c]
SEQS += [s.upper() for s in SEQS]

BOUNDS = {
    "euler_to_quat": 2.5e-7,
    "euler_to_quat degrees (|a| <= 720)": 2.5e-7,
    "quat_to_euler (rad)": 4e-7,
    "quat_to_euler near gimbal lock (rad)": 4e-7,
    "quat_to_euler (degrees)": 2.5e-5,
    "rotvec_to_quat": 2.5e-7,
    "rotvec_to_quat degrees": 2.5e-7,
    "quat_to_rotvec / max(1, angle)": 3e-7,
    "quat_to_rotvec degrees / max(1, angle in rad)": 3e-7 * 57.29577951308232,
    "sixd_to_matrix (6D of rotations)": 3e-7,
    "sixd_to_quat (6D of rotations, +-q)": 4e-7,
    "quat_to_sixd": 4e-7,
}


def lock_quaternions(seq, n, rng):
    """Float32 quaternions whose middle angle in `seq` is at a lock value plus an offset."""
    sym = seq[0].lower() == seq[2].lower()
    ends = [0.0, np.pi] if sym else [np.pi / 2, -np.pi / 2]
    a = rng.uniform(-np.pi, np.pi, (n, 3))
    end = np.array(ends)[rng.integers(0, 2, n)]
    off = 10.0 ** rng.uniform(-10, -3, n) * (rng.random(n) < 0.9)
    toward = -np.sign(end - np.pi / 4) if sym else -np.sign(end)   # into the valid range
    a[:, 1] = end + toward * off
    return RC.euler_to_quat(a, seq).astype(np.float32)


def rotvecs(n, rng):
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    k = n // 3
    angle = np.concatenate([rng.uniform(0, np.pi, n - 2 * k), 10.0 ** rng.uniform(-12, 0, k),
                            np.pi - 10.0 ** rng.uniform(-7, -3, k)])
    return (axis * angle[:, None]).astype(np.float32)


def measure(n, rng):
    q = T.random_quaternions(n, rng).astype(np.float32)
    r = {}

    def put(key, err):
        r[key] = max(r.get(key, 0.0), float(err))

    for seq in SEQS:
        a = rng.uniform(-np.pi, np.pi, (n, 3)).astype(np.float32)
        put("euler_to_quat", np.abs(S.euler_to_quat(a, seq) - RC.euler_to_quat(a, seq)).max())
        ad = rng.uniform(-720, 720, (n // 4, 3)).astype(np.float32)
        put("euler_to_quat degrees (|a| <= 720)",
            np.abs(S.euler_to_quat(ad, seq, degrees=True) - RC.euler_to_quat(ad, seq, degrees=True)).max())
        put("quat_to_euler (rad)", RC.angle_error(S.quat_to_euler(q, seq, suppress_warnings=True),
                                                  RC.quat_to_euler(q, seq)).max())
        put("quat_to_euler (degrees)",
            RC.angle_error(S.quat_to_euler(q[: n // 4], seq, degrees=True, suppress_warnings=True),
                           RC.quat_to_euler(q[: n // 4], seq, degrees=True), degrees=True).max())
        ql = lock_quaternions(seq, n // 4, rng)
        put("quat_to_euler near gimbal lock (rad)",
            RC.angle_error(S.quat_to_euler(ql, seq, suppress_warnings=True), RC.quat_to_euler(ql, seq)).max())
    v = rotvecs(n, rng)
    put("rotvec_to_quat", np.abs(S.rotvec_to_quat(v) - RC.rotvec_to_quat(v)).max())
    vd = (v.astype(np.float64) * (180 / np.pi)).astype(np.float32)
    put("rotvec_to_quat degrees", np.abs(S.rotvec_to_quat(vd, degrees=True) - RC.rotvec_to_quat(vd, degrees=True)).max())
    qv = RC.rotvec_to_quat(v).astype(np.float32)
    for qq in (q, qv):
        ref = RC.quat_to_rotvec(qq)
        grow = np.maximum(1.0, np.linalg.norm(ref, axis=-1, keepdims=True))
        put("quat_to_rotvec / max(1, angle)", (np.abs(S.quat_to_rotvec(qq) - ref) / grow).max())
        put("quat_to_rotvec degrees / max(1, angle in rad)",
            (np.abs(S.quat_to_rotvec(qq, degrees=True) - np.rad2deg(ref)) / grow).max())
    d = RC.quat_to_sixd(q).astype(np.float32)
    put("sixd_to_matrix (6D of rotations)", np.abs(S.sixd_to_matrix(d) - RC.sixd_to_matrix(d)).max())
    put("sixd_to_quat (6D of rotations, +-q)", RQ.same_rotation_error(S.sixd_to_quat(d), RC.sixd_to_quat(d)).max())
    put("quat_to_sixd", np.abs(S.quat_to_sixd(q) - RC.quat_to_sixd(q)).max())
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    results = {}
    for isa in supported_isas():
        with use_isa(isa):
            results[isa] = measure(a.n, np.random.default_rng(a.seed))
    isas = list(results)
    print(f"{'kernel':<48} " + " ".join(f"{i:>9}" for i in isas) + f" {'bound':>9}")
    bad = False
    for key, bound in BOUNDS.items():
        vals = [results[i][key] for i in isas]
        bad |= max(vals) > bound
        print(f"{key:<48} " + " ".join(f"{v:9.3g}" for v in vals) + f" {bound:9.3g}")
    if bad:
        raise SystemExit("a measured error exceeds its documented bound")


if __name__ == "__main__":
    main()
