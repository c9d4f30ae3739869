"""Per-call overhead of input conversion on a tiny call: ``local_to_global`` of one 96-joint
skeleton, with a float32 ndarray (the common case), a Skeleton and an int32 parents array, and
with objects that go through the DLPack / ``__array__`` path (a minimal DLPack wrapper of a
NumPy array; a torch CPU tensor when torch is installed).

    python benchmarks/overhead_inputs.py [--repeat 7] [--number 20000]

Compare two builds interleaved (the machine is noisy):
    for i in 1 2 3; do PYTHONPATH=/tmp/before python benchmarks/overhead_inputs.py; python benchmarks/overhead_inputs.py; done
"""
import argparse
import timeit

import numpy as np

import skelsimd as S
from skelsimd import testing as T


class DLPackOnly:
    """The smallest DLPack producer: delegates to a NumPy array (no __array__)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=20000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    parents, names = T.humanoid_skeleton()
    skel = S.Skeleton(parents, names)
    p32 = np.asarray(parents, np.int32)
    local = T.random_joints(96, rng)
    out = np.empty_like(local)
    cases = {
        "ndarray, Skeleton, out": lambda: S.local_to_global(local, skel, out),
        "ndarray, int32 parents, out": lambda: S.local_to_global(local, p32, out),
        "ndarray, Skeleton": lambda: S.local_to_global(local, skel),
    }
    try:
        from skelsimd import _core
        _core.local_to_global(DLPackOnly(local), skel, out, 0, None, None)
        wrapped = DLPackOnly(local)
        cases["DLPack wrapper, Skeleton, out"] = lambda: S.local_to_global(wrapped, skel, out)
    except TypeError:
        pass
    try:
        import torch
        t = torch.from_numpy(local)
        cases["torch tensor, Skeleton, out"] = lambda: S.local_to_global(t, skel, out)
    except ImportError:
        pass
    for name, f in cases.items():
        best = min(timeit.repeat(f, number=args.number, repeat=args.repeat)) / args.number
        print(f"{name:34s} {best * 1e9:8.1f} ns")


if __name__ == "__main__":
    main()
