"""Threads: the kernels release the GIL and keep no global state, so many threads calling them
at once, on shared inputs or on inputs of their own, give exactly the serial results (bit for
bit), on every SIMD variant. Threads writing into one shared `out` get an undefined mix of
results but never a crash. (Index arrays changed by another thread during a call:
tests/test_races.py.)"""
import io
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T

THREADS = 8
ROUNDS = 4          # calls per thread and job


def _jobs(rng):
    """name -> (function of the inputs, inputs): each a self-contained call."""
    parents, _ = T.humanoid_skeleton()
    skel = skelsimd.Skeleton(parents)
    local = T.random_joints((40, 96), rng)
    qts = T.random_qts((40, 96), rng)
    qts_b = T.random_qts((40, 96), rng)
    ib = T.random_joints(96, rng)
    mesh = T.random_mesh(3000, 4, 96, rng)
    q0 = T.random_quaternions(2000, rng).astype(np.float32)
    q1 = T.random_quaternions(2000, rng).astype(np.float32)
    t = rng.uniform(0, 1, 2000).astype(np.float32)
    m4 = T.random_mat4((500, 96), rng)
    pts = rng.uniform(-1, 1, (5000, 3)).astype(np.float32)
    layers = T.random_qts((3, 30, 96), rng).transpose(1, 0, 2, 3).copy()
    buf = io.StringIO()
    skelsimd.save_bvh(skelsimd.data.load_example()[:60], buf)
    bvh_text = buf.getvalue()
    return {
        "local_to_global": (lambda a, p: skelsimd.local_to_global(a, p), (local, parents)),
        "local_to_global_skeleton_f64": (
            lambda a, p: skelsimd.local_to_global(a, p, precision="float64"), (local, skel)),
        "global_to_local": (lambda a, p: skelsimd.global_to_local(a, p), (local, skel)),
        "multiply_joints": (lambda a, b: skelsimd.multiply_joints(a, b), (local, ib)),
        "invert_joints": (lambda a: skelsimd.invert_joints(a), (local,)),
        "mat4_local_to_global": (lambda a, p: skelsimd.mat4_local_to_global(a, p), (m4, parents)),
        "matmul4": (lambda a, b: skelsimd.matmul4(a, b), (m4, m4[0])),
        "transform_points": (lambda m, p: skelsimd.transform_points(m, p), (m4[0, 5], pts)),
        "skinning_palette": (lambda a, p, b: skelsimd.skinning_palette(a, p, b), (local, skel, ib)),
        "skin": (lambda p, i, w, pal, n: skelsimd.skin(p, i, w, pal, normals=n),
                 (mesh[0], mesh[2], mesh[3], local[:3], mesh[1])),
        "slerp": (lambda a, b, t: skelsimd.slerp(a, b, t), (q0, q1, t)),
        "slerp_exact": (lambda a, b: skelsimd.slerp(a, b, 0.3, method="exact"), (q0, q1)),
        "nlerp": (lambda a, b, t: skelsimd.nlerp(a, b, t), (q0, q1, t)),
        "blend_joints": (lambda a, b: skelsimd.blend_joints(a, b, 0.4, index=np.arange(0, 96, 3)),
                         (qts, qts_b)),
        "blend_layers": (lambda x: skelsimd.blend_layers(x, [0.2, 0.5, 0.3]), (layers,)),
        "qts_local_to_global": (lambda a, p: skelsimd.qts_local_to_global(a, p), (qts, parents)),
        "qts_local_to_global_matrix": (
            lambda a, p: skelsimd.qts_local_to_global_matrix(a, p, precision="float64"), (qts, skel)),
        "quat_rotate": (lambda q, v: skelsimd.quat_rotate(q, v), (q0, pts[:2000])),
        "quat_to_matrix": (lambda q: skelsimd.quat_to_matrix(q), (q0,)),
        "matrix_to_qts": (lambda m: skelsimd.matrix_to_qts(m), (local,)),
        "load_bvh": (lambda text: skelsimd.load_bvh(text=text).local, (bvh_text,)),
    }


def _results(value):
    return value if isinstance(value, tuple) else (value,)


def _assert_same(a, b):
    for x, y in zip(_results(a), _results(b)):
        assert x.tobytes() == y.tobytes()


@pytest.fixture(scope="module")
def jobs():
    return _jobs(np.random.default_rng(2024))


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
    q0, q1 = jobs["nlerp"][1][:2]
    out = np.empty_like(q0)
    results = [skelsimd.nlerp(q0, q1, t) for t in (0.1, 0.9)]
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(lambda k: skelsimd.nlerp(q0, q1, (0.1, 0.9)[k % 2], out=out),
                      range(8 * THREADS)))
    one_of = (out == results[0]) | (out == results[1])
    assert one_of.all()
    local, parents = jobs["local_to_global"][1]
    shared = np.empty_like(local)
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(lambda k: skelsimd.local_to_global(local, parents, out=shared),
                      range(4 * THREADS)))
    np.testing.assert_array_equal(shared, skelsimd.local_to_global(local, parents))
