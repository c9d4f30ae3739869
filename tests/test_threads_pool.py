"""The thread pool inside the extension: a large call divided over 2, 3 or 7 threads returns the
same bytes as on 1 thread, for every threaded family, at odd sizes (chunks ending in a partial
SIMD block, broadcast operands, partial joint ranges), on every SIMD variant (Surface.step: 1, 2, 3
and 5 threads, every group of substeps one pool run); small calls stay on
the calling thread; the thread count's API and its errors; a child forked while the pool exists
computes correctly. (Many Python threads calling the kernels at once: tests/test_threads.py.)"""
import os
import subprocess
import sys

import numpy as np
import pytest

import skelsimd
from skelsimd import _core, testing

COUNTS = (2, 3, 7)


def _arrays(result):
    if isinstance(result, tuple):
        return [np.asarray(r) for r in result]
    return [np.asarray(result)]


def _unit_quats(rng, shape):
    q = rng.standard_normal(shape + (4,)).astype(np.float32)
    return (q / np.linalg.norm(q, axis=-1, keepdims=True)).astype(np.float32)


def _joints(rng, shape):
    m = np.zeros(shape + (3, 4), np.float32)
    m[..., :3] = skelsimd.quat_to_matrix(_unit_quats(rng, shape))
    m[..., 3] = rng.uniform(-1, 1, shape + (3,))
    return m


def _qts(rng, shape):
    x = np.empty(shape + (8,), np.float32)
    x[..., :4] = _unit_quats(rng, shape)
    x[..., 4:7] = rng.uniform(-1, 1, shape + (3,))
    x[..., 7] = rng.uniform(0.8, 1.2, shape)
    return x


def _parents(rng, joints):
    return np.array([-1] + [int(rng.integers(-1, j)) for j in range(1, joints)], np.int32)


def _cases():
    """name -> function of a Generator returning a zero-argument call; every call is large
    enough to be divided at 2 threads and its sizes are odd (no multiple of 8 units)."""
    cases = {}
    J = 23
    B = 1001

    def walk(fn, make, **kw):
        def build(rng):
            x, p = make(rng, (B, J)), _parents(rng, J)
            return lambda: fn(x, p, **kw)
        return build

    cases["local_to_global"] = walk(skelsimd.local_to_global, _joints)
    cases["local_to_global-float64"] = walk(skelsimd.local_to_global, _joints, precision="float64")
    cases["local_to_global-range"] = walk(skelsimd.local_to_global, _joints, start=3, stop=20)
    cases["global_to_local"] = walk(skelsimd.global_to_local, _joints)
    cases["global_to_local-rigid"] = walk(skelsimd.global_to_local, _joints, rigid=True)
    cases["qts_local_to_global"] = walk(skelsimd.qts_local_to_global, _qts)
    cases["qts_local_to_global-float64"] = walk(skelsimd.qts_local_to_global, _qts,
                                                precision="float64")
    cases["qts_local_to_global_matrix"] = walk(skelsimd.qts_local_to_global_matrix, _qts)
    cases["qts_local_to_global_matrix-range"] = walk(skelsimd.qts_local_to_global_matrix, _qts,
                                                     start=2, stop=17)

    def mat4_walk(rng):
        m = np.zeros((B, J, 4, 4), np.float32)
        m[..., :3, :] = _joints(rng, (B, J))
        m[..., 3, 3] = 1
        p = _parents(rng, J)
        return lambda: (skelsimd.mat4_local_to_global(m, p),
                        skelsimd.mat4_local_to_global(m, p, precision="float64"))
    cases["mat4_local_to_global"] = mat4_walk

    def multiply(rng):
        a, b = _joints(rng, (3, 20001)), _joints(rng, (20001,))
        return lambda: skelsimd.multiply_joints(a, b)
    cases["multiply_joints-broadcast"] = multiply

    def invert(rng):
        m = _joints(rng, (40001,))
        return lambda: (skelsimd.invert_joints(m), skelsimd.invert_joints(m, rigid=True))
    cases["invert_joints"] = invert

    def palette(rng):
        local, inv = _joints(rng, (701, J)), _joints(rng, (J,))
        p = _parents(rng, J)
        return lambda: (skelsimd.skinning_palette(local, p, inv),
                        skelsimd.skinning_palette(local, p, inv, precision="float64"))
    cases["skinning_palette"] = palette

    def skin(rng):
        V, K = 30001, 3
        pos = rng.uniform(-1, 1, (V, 3)).astype(np.float32)
        nrm = rng.uniform(-1, 1, (V, 3)).astype(np.float32)
        idx = rng.integers(0, J, (V, K)).astype(np.int32)
        w = skelsimd.normalize_weights(rng.uniform(0, 1, (V, K)).astype(np.float32))
        pal = _joints(rng, (3, J))
        raw = rng.uniform(0, 1, (V * 3, 5)).astype(np.float32)
        return lambda: (skelsimd.skin(pos, idx, w, pal), skelsimd.skin(pos, idx, w, pal[0], normals=nrm),
                        skelsimd.skin(pos, idx, w, pal[1:], normals=nrm, renormalize=False),
                        skelsimd.normalize_weights(raw))
    cases["skin"] = skin

    N = 40003

    def conversions(rng):
        e = rng.uniform(-3, 3, (N, 3)).astype(np.float32)
        q = _unit_quats(rng, (N,))
        q[::97] = [0.5, 0.5, 0.5, 0.5]   # gimbal-locked for some sequences: counted per slot
        r = rng.uniform(-2, 2, (N, 3)).astype(np.float32)
        m = skelsimd.quat_to_matrix(q)
        six = skelsimd.matrix_to_sixd(m)
        return lambda: (skelsimd.euler_to_quat(e, "xyz"), skelsimd.euler_to_quat(e, "ZXZ"),
                        *skelsimd.quat_to_euler(q, "XYZ"), skelsimd.rotvec_to_quat(r),
                        skelsimd.quat_to_rotvec(q), six, skelsimd.sixd_to_matrix(six),
                        skelsimd.quat_to_sixd(q), skelsimd.sixd_to_quat(six))
    cases["rotation-conversions"] = conversions

    def quat_family(rng):
        q, q2 = _unit_quats(rng, (N,)), _unit_quats(rng, (N,))
        v = rng.uniform(-1, 1, (N, 3)).astype(np.float32)
        x = _qts(rng, (N,))
        return lambda: (skelsimd.quat_to_matrix(q), skelsimd.matrix_to_quat(skelsimd.quat_to_matrix(q)),
                        skelsimd.quat_normalize(q * 3), skelsimd.quat_conjugate(q),
                        skelsimd.qts_to_matrix(x), skelsimd.matrix_to_qts(skelsimd.qts_to_matrix(x)),
                        skelsimd.quat_multiply(q, q2), skelsimd.quat_rotate(q, v),
                        skelsimd.transform_points(skelsimd.qts_to_matrix(x), v))
    cases["quaternions"] = quat_family

    def interpolation(rng):
        q0, q1 = _unit_quats(rng, (N,)), _unit_quats(rng, (N,))
        t = rng.uniform(0, 1, N).astype(np.float32)
        q1b = _unit_quats(rng, (3, 1, 4001))
        return lambda: (skelsimd.slerp(q0, q1, 0.3), skelsimd.slerp(q0, q1, t, method="exact"),
                        skelsimd.nlerp(q0, q1, t), skelsimd.nlerp(q0, q1, 0.7),
                        skelsimd.slerp(q0[:4001], q1b, 0.4), skelsimd.nlerp(q1b, q0[:4001], t[:4001]))
    cases["slerp-nlerp"] = interpolation

    def blending(rng):
        a, b = _qts(rng, (1201, J)), _qts(rng, (1201, J))
        t = rng.uniform(0, 1, 1201).astype(np.float32)
        return lambda: (skelsimd.blend_joints(a, b, 0.25), skelsimd.blend_joints(a, b, t),
                        skelsimd.blend_joints(a, b, 0.6, index=[0, 3, 5, 22]),
                        skelsimd.blend_joints(a, b, 0.5, method="nlerp"),
                        skelsimd.blend_joints(a, b[0], 0.3, method="exact"))
    cases["blend_joints"] = blending

    def layers(rng):
        x = _qts(rng, (701, 3, J))
        w = rng.uniform(0.1, 1, (3, J)).astype(np.float32)
        delta = _qts(rng, (701, J))
        mask = rng.uniform(0, 1, J).astype(np.float32)
        return lambda: (skelsimd.blend_layers(x, [1.0, 0.5, 0.25]), skelsimd.blend_layers(x, w),
                        skelsimd.blend_layers(x, w, additive=[(delta, 0.5, mask), (delta[0], -0.3, None)]))
    cases["blend_layers"] = layers

    def additive(rng):
        local = _qts(rng, (3, 501, J))
        base = _qts(rng, (1501, J))
        mask = rng.uniform(0, 1, J).astype(np.float32)
        return lambda: (skelsimd.make_additive(local), skelsimd.make_additive(local, local[0, 7]),
                        skelsimd.apply_additive(base, base[::-1], 0.6, mask),
                        skelsimd.apply_additive(base, base[3], -0.4))
    cases["make_apply_additive"] = additive

    def tracks(rng):
        times = np.sort(rng.uniform(0, 10, 41)).astype(np.float32)
        lin = skelsimd.Track(times, rng.standard_normal((41, 3)).astype(np.float32))
        cub = skelsimd.Track(times, rng.standard_normal((41, 2)).astype(np.float32), "cubic", loop=True)
        rot = skelsimd.Track(times, _unit_quats(rng, (41,)), quaternion=True)
        at = rng.uniform(-1, 12, 30001).astype(np.float32)
        return lambda: (lin.sample(at), cub.sample(at), rot.sample(at[::-1]))
    cases["Track.sample"] = tracks

    def inertialization(rng):
        n = 20001
        src, tgt = _qts(rng, (n,)), _qts(rng, (n,))
        vs, vt = [rng.uniform(-1, 1, (n, 6)).astype(np.float32) for _ in range(2)]
        off, voff = [rng.uniform(-0.3, 0.3, (n, 6)).astype(np.float32) for _ in range(2)]
        return lambda: (*skelsimd.inertialize_transition(src, vs, tgt, vt),
                        *skelsimd.inertialize_transition(src, vs, tgt, vt, off, voff),
                        *skelsimd.inertialize_update(tgt, off, voff, halflife=0.2, dt=1 / 60))
    cases["inertialize"] = inertialization

    def sample_many(rng):
        local = _qts(rng, (2001, J))
        local[..., 7] = 1
        clip = skelsimd.compress(local, _parents(rng, J), sample_rate=30)
        times = rng.uniform(-0.1, 3.4, 8001)
        return lambda: (clip.sample_many(times), clip.decompress())
    cases["CompressedClip.sample_many"] = sample_many

    def search_many(rng):
        db = skelsimd.MotionDatabase.from_features(rng.standard_normal((3001, 11)))
        queries = rng.standard_normal((203, 11))
        exclude = [[(int(i), int(i) + 50)] for i in rng.integers(0, 2900, 203)]
        return lambda: (*db.search_many(queries), *db.search_many(queries, exclude=exclude),
                        *db.search_many(queries, prune=False))
    cases["MotionDatabase.search_many"] = search_many

    def clip_error(rng):
        """The maxima of every chunk folded in order: with NaN poses in two chunks (the later
        NaN wins) and without."""
        raw = _qts(rng, (1001, J)).astype(np.float64)
        decoded = raw + rng.normal(0, 1e-3, raw.shape)
        with_nan = decoded.copy()
        with_nan[37, 5, 4] = np.nan
        with_nan[900, 5, 0] = -np.nan
        p = _parents(rng, J)
        return lambda: (skelsimd.clip_error(raw, decoded, p, per_joint=True),
                        np.float64(skelsimd.clip_error(raw, decoded, p)),
                        skelsimd.clip_error(raw, with_nan, p, per_joint=True))
    cases["clip_error"] = clip_error

    def compression(rng):
        """The encoder divided over segments (its search and verification) and tracks (clip
        ranges): 1001 frames, a last segment of 25."""
        parents = _parents(rng, J)
        local = testing.random_motion(1001, parents, rng, noise=0.001, scales=True)
        return lambda: _core._compress(local, parents, 30.0, 0.01, 1.0, 16)
    cases["compress"] = compression

    def ik(rng):
        """Two-bone chains and aimed joints, per-chain and shared operands mixed; look-at chains
        of 3 joints (the kernel entry: the wrapper's forward kinematics is divided on its own)."""
        n2, na, nl, c = 10001, 20003, 5003, 3
        start, mid, end = (_joints(rng, (n2,)) for _ in range(3))
        mid[:, :, 3] += start[:, :, 3]
        end[:, :, 3] += mid[:, :, 3]
        target = rng.uniform(-2, 2, (n2, 3)).astype(np.float32)
        twist = rng.uniform(-1, 1, n2).astype(np.float32)
        joint = _joints(rng, (na,))
        aim_target = rng.uniform(-2, 2, (na, 3)).astype(np.float32)
        chain = _joints(rng, (nl, c))
        lt = rng.uniform(-2, 2, (nl, 3)).astype(np.float32)
        ls, lc = (rng.uniform(-1, 1, nl).astype(np.float32) for _ in range(2))
        weights = np.array([1.0, 0.5, 0.25], np.float32)
        v = np.array([0, 1, 0], np.float32)
        f = np.array([1, 0, 0], np.float32)
        return lambda: (*skelsimd.ik_two_bone(start, mid, end, target, pole=(0, 1, 0), twist=twist,
                                              soften=0.9, weight=0.8),
                        *skelsimd.ik_aim(joint, aim_target, forward=(0, 0, 1), offset=(0.1, 0, 0)),
                        _core.ik_look_at(nl, chain, lt, v, f, v, np.zeros(3, np.float32), ls, lc,
                                         weights))
    cases["ik"] = ik
    return cases


CASES = _cases()


@pytest.mark.filterwarnings("ignore:Gimbal lock detected")
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bytes_at_every_thread_count(isa, name):
    call = CASES[name](np.random.default_rng(sorted(CASES).index(name)))
    with skelsimd.threads(1):
        before = _core._pool_divided_calls()
        reference = [a.tobytes() for a in _arrays(call())]
        assert _core._pool_divided_calls() == before   # one thread: never divided
    for count in COUNTS:
        with skelsimd.threads(count):
            before = _core._pool_divided_calls()
            got = [a.tobytes() for a in _arrays(call())]
            assert _core._pool_divided_calls() > before, f"{name} was not divided at {count}"
        assert got == reference, f"{name}: {count} threads differ from 1"


def _surface_cases():
    """name -> (rows, cols, substeps, options, divided): Surface.step divided by bands of rows
    (one pool run per group of up to 8 substeps), at sizes that are no multiple of 8, narrow grids,
    9 rows (a band of 8 and one of 1 row that recomputes all 8 others), one column and one row
    (never divided: one row is one unit), 1, 8, 9, 13, 17 and 24
    substeps; plane and cylinder, both spring models, uniform and per-vertex rest and mass,
    pinned vertices, external forces, effectors and gravity."""
    return {
        "plane-offset-9": (211, 45, 9, {}, True),
        "plane-offset-1-forces": (401, 211, 1, {"forces": True, "pins": True}, True),
        "plane-length-rest-13": (203, 77, 13, {"model": "length", "rest": True}, True),
        "cylinder-offset-rest-17": (157, 101, 17, {"topology": "cylinder", "rest": True,
                                                    "mass": True, "pins": True}, True),
        "cylinder-length-24": (91, 203, 24, {"topology": "cylinder", "model": "length",
                                             "forces": True}, True),
        "narrow-3-8": (4001, 3, 8, {"pins": True, "forces": True}, True),
        "short-wide-cylinder-8": (9, 10007, 8, {"topology": "cylinder", "rest": True}, True),
        "one-column-11": (9001, 1, 11, {"rest": True, "mass": True}, True),
        "one-row-5": (1, 20011, 5, {"forces": True}, False),
    }


SURFACE_CASES = _surface_cases()


def _surface_call(rows, cols, n, options, seed):
    """A zero-argument call building the same surface each time, stepping it and returning its
    whole state buffer (positions, velocities, the cleared external forces, ...)."""
    rng = np.random.default_rng(seed)
    topology = options.get("topology", "plane")
    model = options.get("model", "offset")
    base = skelsimd.Surface(rows, cols, topology=topology, preset="cloth")
    xyz = base.positions.copy()
    if options.get("rest"):   # a relaxed state that is not a uniform grid: per-vertex rest
        xyz += rng.uniform(-0.05, 0.05, xyz.shape).astype(np.float32)
    mass = rng.uniform(0.5, 2.0, (rows, cols)) if options.get("mass") else 1.0
    moved = xyz + rng.uniform(-0.2, 0.2, xyz.shape).astype(np.float32)
    velocities = rng.uniform(-0.5, 0.5, xyz.shape).astype(np.float32)
    pins = rng.uniform(size=(rows, cols)) < 0.05 if options.get("pins") else None
    forces = rng.uniform(-2, 2, (3, rows, cols)).astype(np.float32)
    center = xyz[:, rows // 2, cols // 2] + np.float32(0.3)

    def call():
        s = skelsimd.Surface.from_positions(xyz, topology=topology, model=model, preset="cloth",
                                            mass=mass)
        s.positions[...] = moved
        s.velocities[...] = velocities
        if pins is not None:
            s.pinned[...] = pins
        if options.get("forces"):
            s.add_force(forces)
            s.apply_effector(center, 3.0, 0.5)
        s.step(0.01, n=n, gravity=(0.0, -9.81, 0.0))
        return s._buffer.copy()
    return call


@pytest.mark.parametrize("name", sorted(SURFACE_CASES))
def test_surface_step_same_bytes_at_every_thread_count(isa, name):
    rows, cols, n, options, divided = SURFACE_CASES[name]
    call = _surface_call(rows, cols, n, options, sorted(SURFACE_CASES).index(name))
    with skelsimd.threads(1):
        before = _core._pool_divided_calls()
        reference = call().tobytes()
        assert _core._pool_divided_calls() == before   # one thread: never divided
    for count in (2, 3, 5):
        with skelsimd.threads(count):
            before = _core._pool_divided_calls()
            got = call().tobytes()
            runs = _core._pool_divided_calls() - before
        # one pool run per group of up to 8 substeps
        assert runs == (-(-n // 8) if divided else 0), f"{name}: {runs} divided runs at {count}"
        assert got == reference, f"{name}: {count} threads differ from 1"


def test_small_surface_steps_stay_on_the_calling_thread():
    s = skelsimd.Surface(100, 100, preset="water")
    with skelsimd.threads(7):
        before = _core._pool_divided_calls()
        s.step(0.01)
        s.step(0.01, n=3)
        assert _core._pool_divided_calls() == before


def test_small_calls_stay_on_the_calling_thread():
    rng = np.random.default_rng(1)
    local, parents = _joints(rng, (1, 96)), _parents(rng, 96)
    q0, q1 = _unit_quats(rng, (1024,)), _unit_quats(rng, (1024,))
    with skelsimd.threads(7):
        before = _core._pool_divided_calls()
        skelsimd.local_to_global(local, parents)
        skelsimd.nlerp(q0, q1, 0.5)
        skelsimd.euler_to_quat(np.zeros((1000, 3), np.float32), "xyz")
        skelsimd.compress(testing.random_motion(30, parents[:5], rng), parents[:5],
                          sample_rate=30)
        assert _core._pool_divided_calls() == before


def _motion(frames, joints, seed, near_static=False, **kw):
    """A smooth clip; near_static: joints 5 to 11 jitter about their first pose (candidates of
    the encoder's near-constant tracks, some of which fail in some segments)."""
    rng = np.random.default_rng(seed)
    parents = _parents(rng, joints)
    local = testing.random_motion(frames, parents, rng, **kw)
    if near_static:
        local[:, 5:12, :4] = local[:1, 5:12, :4] + rng.normal(0, 2e-4, (frames, 7, 4))
        local[:, 5:12, 4:7] = local[:1, 5:12, 4:7] + rng.normal(0, 2e-3, (frames, 7, 3))
    return local, parents


# (frames, joints, segment_length, precision, motion): segment counts that are no multiple of a
# chunk, a last segment longer than the others, a single segment (frames < segment_length), two.
COMPRESS_CLIPS = [
    (1001, 23, 16, 0.01, dict(noise=0.001, scales=True)),
    (333, 31, 7, 0.001, dict(root_travel=50.0, spin=True)),
    (97, 40, 32, 0.1, dict(static=0.5)),
    (61, 19, 30, 0.01, dict(noise=0.01)),
    (45, 60, 64, 0.01, dict()),
    (517, 11, 1, 0.01, dict(translation=1.0)),
    (801, 40, 16, 0.01, dict(near_static=True)),
    (403, 23, 8, 0.01, dict(near_static=True, noise=0.001)),
]


@pytest.mark.parametrize("frames, joints, segment, precision, motion", COMPRESS_CLIPS)
def test_compress_same_bytes_at_every_thread_count(isa, frames, joints, segment, precision,
                                                   motion):
    """compress at 1, 2, 3 and 5 threads: the same bytes, max_error and repaired_segments (the
    search of each segment is independent of the others once the clip ranges are set; every
    reduction is folded in segment order; near-constant tracks checked in windows of segments)."""
    local, parents = _motion(frames, joints, frames, **motion)
    args = (local, parents, 30.0, precision, 1.0, segment)
    with skelsimd.threads(1):
        reference = _core._compress(*args)
    assert reference[1] <= precision
    segments = max(1, frames // segment)
    for count in (2, 3, 5):
        with skelsimd.threads(count):
            before = _core._pool_divided_calls()
            got = _core._compress(*args)
            divided = _core._pool_divided_calls() - before
        assert got[0] == reference[0], f"{count} threads: other bytes"
        assert np.float64(got[1]).tobytes() == np.float64(reference[1]).tobytes()
        assert got[2] == reference[2]
        if segments > 1:   # at least the search (short passes stay on the caller)
            assert divided >= 1, f"{count} threads: the search was not divided"
        else:
            assert divided <= 1   # one segment: at most the clip ranges, over tracks


@pytest.mark.parametrize("segment", [16, 5])
def test_compress_unreachable_precision_at_every_thread_count(isa, segment):
    """The refusal of a precision below float32's reach, with its measured figure, is the same at
    every thread count, and the call returns nothing."""
    local, parents = _motion(403, 23, 3, root_travel=1000.0)
    messages = []
    for count in (1, 2, 3, 5):
        with skelsimd.threads(count):
            before = _core._pool_divided_calls()
            with pytest.raises(ValueError, match="below what float32 poses can reproduce") as exc:
                skelsimd.compress(local, parents, sample_rate=30, precision=1e-9,
                                  segment_length=segment)
            assert (_core._pool_divided_calls() > before) == (count > 1)
        messages.append(str(exc.value))
    assert messages == [messages[0]] * 4


def test_set_get_and_context_manager():
    before = skelsimd.get_num_threads()
    skelsimd.set_num_threads(5)
    assert skelsimd.get_num_threads() == 5
    with skelsimd.threads(3) as n:
        assert n == 3 and skelsimd.get_num_threads() == 3
        with skelsimd.threads(1):
            assert skelsimd.get_num_threads() == 1
        assert skelsimd.get_num_threads() == 3
    assert skelsimd.get_num_threads() == 5
    skelsimd.set_num_threads(np.int64(2))
    assert skelsimd.get_num_threads() == 2
    skelsimd.set_num_threads(before)


def test_more_threads_than_cpus_is_allowed():
    with skelsimd.threads(skelsimd.available_cpus() + 5):
        assert skelsimd.get_num_threads() == skelsimd.available_cpus() + 5


@pytest.mark.parametrize("bad", [0, -1, -100, 1.5, 2.0, "2", None, True, 257])
def test_bad_counts_are_value_errors_naming_the_argument(bad):
    before = skelsimd.get_num_threads()
    with pytest.raises(ValueError, match="^n: "):
        skelsimd.set_num_threads(bad)
    with pytest.raises(ValueError, match="^n: "):
        with skelsimd.threads(bad):
            pass
    assert skelsimd.get_num_threads() == before


def test_context_manager_restores_after_an_exception():
    before = skelsimd.get_num_threads()
    with pytest.raises(RuntimeError):
        with skelsimd.threads(4):
            raise RuntimeError("inside")
    assert skelsimd.get_num_threads() == before


def _run(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                          timeout=120)


def test_environment_variable_sets_the_start_value():
    r = _run("import skelsimd; print(skelsimd.get_num_threads())", SKELSIMD_NUM_THREADS="3")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "3"


def test_default_is_the_affinity_mask():
    env = {k: v for k, v in os.environ.items() if k != "SKELSIMD_NUM_THREADS"}
    r = subprocess.run([sys.executable, "-c", "import skelsimd; print(skelsimd.get_num_threads())"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert int(r.stdout) == expected


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no affinity masks here")
def test_default_follows_a_narrowed_affinity_mask():
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "import skelsimd; print(skelsimd.get_num_threads(), skelsimd._core._available_cpus())")
    env = {k: v for k, v in os.environ.items() if k != "SKELSIMD_NUM_THREADS"}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["1", "1"]


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", " "])
def test_bad_environment_value_is_a_value_error_naming_it(value):
    r = _run("import skelsimd", SKELSIMD_NUM_THREADS=value)
    if value.strip() == "":
        assert r.returncode == 0, r.stderr   # empty: the default
        return
    assert r.returncode != 0
    assert "ValueError: SKELSIMD_NUM_THREADS: expected a positive integer" in r.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_child_forked_while_the_pool_exists_computes_correctly():
    rng = np.random.default_rng(2)
    local, parents = _joints(rng, (2001, 23)), _parents(rng, 23)
    with skelsimd.threads(3):
        expected = skelsimd.local_to_global(local, parents)
        assert _core._pool_workers() >= 2
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:   # the child: no workers until its first divided call, then the same bytes
            status = 1
            try:
                fresh = _core._pool_workers() == 0
                got = skelsimd.local_to_global(local, parents)
                ok = fresh and got.tobytes() == expected.tobytes() and _core._pool_workers() >= 1
                os.write(write, b"ok" if ok else b"bad")
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        answer = os.read(read, 16)
        os.close(read)
        _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert answer == b"ok"


def test_validation_comes_before_the_split():
    """A bad argument of a large call raises before anything runs, and the pool stays usable."""
    rng = np.random.default_rng(3)
    local = _joints(rng, (2001, 23))
    bad_parents = np.arange(23, dtype=np.int32)   # parents[j] == j
    out = np.full_like(local, 7.0)
    with skelsimd.threads(3):
        with pytest.raises(ValueError, match="parents"):
            skelsimd.local_to_global(local, bad_parents, out=out)
        assert np.all(out == 7.0)
        good = skelsimd.local_to_global(local, _parents(rng, 23))
    assert np.isfinite(good).all()


def test_a_call_from_another_thread_while_the_pool_is_busy():
    """Python threads dividing large calls at once: each gets its own result bit for bit."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(4)
    inputs = [(_joints(rng, (1001, 23)), _parents(rng, 23)) for _ in range(4)]
    with skelsimd.threads(1):
        expected = [skelsimd.local_to_global(x, p).tobytes() for x, p in inputs]
    with skelsimd.threads(3), ThreadPoolExecutor(4) as ex:
        for _ in range(3):
            got = list(ex.map(lambda a: skelsimd.local_to_global(*a).tobytes(), inputs))
            assert got == expected



def test_calling_thread_only_limits_this_thread_alone():
    from concurrent.futures import ThreadPoolExecutor
    from skelsimd.parallel import calling_thread_only
    rng = np.random.default_rng(5)
    local, parents = _joints(rng, (2001, 23)), _parents(rng, 23)
    with skelsimd.threads(3):
        expected = skelsimd.local_to_global(local, parents).tobytes()
        with calling_thread_only():
            before = _core._pool_divided_calls()
            assert skelsimd.local_to_global(local, parents).tobytes() == expected
            assert _core._pool_divided_calls() == before
            # another thread keeps the process-wide count
            with ThreadPoolExecutor(1) as ex:
                assert ex.submit(lambda: skelsimd.local_to_global(local, parents).tobytes()).result() == expected
            assert _core._pool_divided_calls() == before + 1
        assert _core._get_thread_limit() == 0
