"""Threads: the kernels release the GIL and keep no global state, so many threads calling them
at once, on shared inputs or on inputs of their own, give exactly the serial results (bit for
bit), on every SIMD variant. Threads writing into one shared `out` get an undefined mix of
results but never a crash. (Index arrays changed by another thread during a call:
tests/test_races.py.)"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T

import catalog

THREADS = 8
ROUNDS = 4          # calls per thread and job


def _jobs(rng):
    """name -> (function of the inputs, inputs): each a self-contained call, one per valid call
    of the registry of the public API (tests/catalog.py), "name-k" for its k-th call."""
    jobs = {}
    for name, entry in catalog.CATALOG.items():
        if len(entry) > 2:
            for k, (fn, args, kwargs) in enumerate(entry[2](rng)):
                jobs[f"{name}-{k}"] = ((lambda fn, kwargs: lambda *a: fn(*a, **kwargs))(fn, kwargs),
                                       args)
    return jobs


def _assert_same(a, b):
    a, b = catalog.result_arrays(a), catalog.result_arrays(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.tobytes() == y.tobytes()


@pytest.fixture(scope="module")
def jobs():
    return _jobs(np.random.default_rng(2024))


def test_every_thread_job_of_the_former_list_is_in_the_registry(jobs):
    """The jobs these tests ran before they read the registry are all still run."""
    former = {"local_to_global", "global_to_local", "multiply_joints", "invert_joints",
              "mat4_local_to_global", "matmul4", "transform_points", "skinning_palette", "skin",
              "slerp", "nlerp", "blend_joints", "blend_layers", "qts_local_to_global",
              "qts_local_to_global_matrix", "quat_rotate", "quat_to_matrix", "matrix_to_qts",
              "load_bvh"}
    assert former <= {name.rsplit("-", 1)[0] for name in jobs}
    assert {"local_to_global-1", "slerp-1"} <= set(jobs)     # float64 walk, exact slerp


def test_many_threads_on_shared_inputs(isa, jobs):
    serial = {name: fn(*args) for name, (fn, args) in jobs.items()}
    before = {name: [a.tobytes() for a in args if isinstance(a, np.ndarray)]
              for name, (_, args) in jobs.items()}
    work = [name for name in jobs for _ in range(ROUNDS)] * THREADS
    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(lambda name: (name, jobs[name][0](*jobs[name][1])), work))
    for name, result in results:
        _assert_same(result, serial[name])
    for name, (_, args) in jobs.items():       # shared inputs are never written
        assert [a.tobytes() for a in args if isinstance(a, np.ndarray)] == before[name]


def test_many_threads_on_inputs_of_their_own(isa):
    """Each thread builds its own inputs (its own seed), in place where a function allows it,
    and gets what the same calls give serially."""
    def run(seed):
        rng = np.random.default_rng(seed)
        parents = T.random_parents(50, rng)
        local = T.random_joints((30, 50), rng)
        glob = skelsimd.local_to_global(local, parents)
        back = local.copy()
        skelsimd.global_to_local(glob, parents, out=glob)        # in place
        qts = T.random_qts((30, 50), rng)
        skelsimd.qts_local_to_global(qts, parents, out=qts)       # in place
        s = skelsimd.Surface(20, 23, preset="cloth")
        s.velocities[1] = rng.uniform(-0.1, 0.1, (20, 23))
        s.apply_effector([5.0, 0.0, 5.0], 3.0, -1.0)
        s.step(0.3, n=12, gravity=(0, -0.5, 0))
        return glob, back, qts, s.positions.copy(), s.normals()

    seeds = list(range(3 * THREADS))
    serial = [run(seed) for seed in seeds]
    with ThreadPoolExecutor(THREADS) as pool:
        threaded = list(pool.map(run, seeds))
    for a, b in zip(serial, threaded):
        for x, y in zip(a, b):
            assert x.tobytes() == y.tobytes()
    # global_to_local undid local_to_global (the in-place round trip ran in every thread)
    for glob, back, *_ in threaded:
        assert np.abs(glob - back).max() < 1e-4


def test_threads_sharing_one_output_do_not_crash(isa, jobs):
    """Undefined values (a mix of the writers'), but no crash and every value one of theirs
    for elementwise kernels."""
    q0, q1 = jobs["nlerp-0"][1][:2]
    out = np.empty_like(q0)
    results = [skelsimd.nlerp(q0, q1, t) for t in (0.1, 0.9)]
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(lambda k: skelsimd.nlerp(q0, q1, (0.1, 0.9)[k % 2], out=out),
                      range(8 * THREADS)))
    one_of = (out == results[0]) | (out == results[1])
    assert one_of.all()
    local, parents = jobs["local_to_global-0"][1]
    shared = np.empty_like(local)
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(lambda k: skelsimd.local_to_global(local, parents, out=shared),
                      range(4 * THREADS)))
    np.testing.assert_array_equal(shared, skelsimd.local_to_global(local, parents))
