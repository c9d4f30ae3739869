"""Animation-clip compression: the strict error bound, the decoders against the NumPy reference
decoder (bit for bit) on every variant, sampling, serialisation and threads."""
import pickle
import re
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import testing as T
from skelsimd.reference import compress as R

from strategies import examples, hierarchies


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


@st.composite
def clips(draw, max_joints=100, max_frames=500, max_size=12000):
    """(local (F, J, 8) float32, parents, sample rate, precision, shell distance): smooth random
    motion over random hierarchies (several roots, chains, stars), from a single frame to long
    clips, with root motion, spinning roots, jitter, static stretches and scales."""
    parents = draw(hierarchies(1, max_joints))
    joints = len(parents)
    frames = draw(st.integers(1, max(1, min(max_frames, max_size // joints))))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    translation = draw(st.sampled_from([0.1, 1.0, 10.0, 100.0]))
    local = T.random_motion(
        frames, parents, rng, translation=translation,
        root_travel=draw(st.sampled_from([0.0, 10.0 * translation, 1000.0])),
        noise=draw(st.sampled_from([0.0, 0.001, 0.01])),
        static=draw(st.sampled_from([0.0, 0.0, 0.5, 1.0])),
        spin=draw(st.booleans()), scales=draw(st.booleans()))
    if draw(st.booleans()):          # quaternions neither unit nor continuous
        flip = rng.random(local.shape[:2]) < 0.3
        local[..., :4] *= np.where(flip, -1.0, 1.0)[..., None] * rng.uniform(0.5, 2.0, local.shape[:2] + (1,))
    precision = draw(st.sampled_from([0.1, 0.01, 0.001])) * max(1.0, translation / 10.0)
    shell = draw(st.sampled_from([0.0, 1.0, 3.0]))
    rate = draw(st.sampled_from([24.0, 30.0, 120.0]))
    return local.astype(np.float32), parents, rate, precision, shell


def compress_or_refuse(local, parents, **kw):
    """compress(), or None when it refuses the precision: deep chains with scales can put a
    precision below float32's resolution (global translations in the thousands), which is refused
    only when the highest rates miss it."""
    try:
        return skelsimd.compress(local, parents, **kw)
    except ValueError as exc:
        best = float(re.search(r"reach an error of ([0-9.e+-]+)\)", str(exc)).group(1))
        assert best > kw["precision"], str(exc)
        return None


@examples(40)
@given(clip=clips(), segment=st.sampled_from([16, 16, 1, 5, 31]))
def test_bound_holds_and_reference_decoder_agrees(clip, segment):
    """clip_error <= precision on every clip, frame and joint (C and NumPy references); the
    measured error is the one the encoder reports; the NumPy decoder gives the same bits."""
    local, parents, rate, precision, shell = clip
    c = compress_or_refuse(local, parents, sample_rate=rate, precision=precision,
                           shell_distance=shell, segment_length=segment)
    if c is None:
        return
    decoded = c.decompress()
    err = skelsimd.clip_error(local, decoded, parents, shell_distance=shell)
    assert err <= precision
    assert err == c.stats["max_error"]
    assert R.clip_error(local, decoded, parents, shell) <= precision
    per = skelsimd.clip_error(local, decoded, parents, shell_distance=shell, per_joint=True)
    assert per.shape == (len(parents),) and per.max() == err
    assert same_bits(decoded, R.decode(c._data))
    assert c.num_frames == local.shape[0] and c.num_joints == len(parents)
    assert c.ratio == pytest.approx(local.shape[0] * len(parents) * 40 / c.nbytes)
    assert c.duration == pytest.approx((local.shape[0] - 1) / rate)


@examples(20)
@given(clip=clips(max_size=4000), seed=st.integers(0, 2**32 - 1))
def test_sampled_poses_equal_the_reference_decoder(isa, clip, seed):
    """Decompressed frames and sampled poses are the NumPy reference decoder's, bit for bit, on
    every variant (bytes, frames and poses of every variant against scalar:
    tests/test_bit_identity.py)."""
    local, parents, rate, precision, shell = clip
    rng = np.random.default_rng(seed)
    c = compress_or_refuse(local, parents, sample_rate=rate, precision=precision,
                           shell_distance=shell)
    if c is None:
        return
    times = np.concatenate([rng.uniform(-0.2, c.duration + 0.2, 50),
                            np.arange(c.num_frames) / rate, [0.0, c.duration, np.inf, -np.inf]])
    ref = R.sample(c._data, times)
    assert same_bits(c.decompress(), R.decode(c._data))
    assert same_bits(c.sample_many(times), ref)
    assert same_bits(c.sample(float(times[3])), ref[3])


@pytest.mark.parametrize("joints, segment", [(7, 16), (40, 5), (70, 1)])
def test_sample_many_in_any_order(isa, joints, segment):
    """Times out of order (grouped by segment within blocks of poses), in order, repeated, equal,
    outside the clip and on frames, across block boundaries: the reference decoder's poses, and
    the same as one pose at a time."""
    rng = np.random.default_rng(joints)
    parents = T.random_parents(joints, rng)
    local = T.random_motion(120, parents, rng, root_travel=30.0)
    c = skelsimd.compress(local, parents, sample_rate=30, segment_length=segment)
    d = c.duration
    times = rng.uniform(-0.1, d + 0.1, 9000)
    times[1000:2500] = np.sort(times[1000:2500])          # a stretch in order
    times[3000:3400] = times[2999]                        # one time repeated
    times[4000:4600:2] = times[4001:4600:2]               # pairs of equal times
    times[5000:5300] = rng.integers(0, 120, 300) / 30.0   # on frames
    times[6000:6100] = d                                  # the last frame
    ref = R.sample(c._data, times)
    assert same_bits(c.sample_many(times), ref)
    assert same_bits(c.sample_many(times[::-1]), ref[::-1])
    assert same_bits(c.sample_many(times.reshape(30, 300)), ref.reshape(30, 300, joints, 8))
    for i in rng.integers(0, len(times), 40):
        assert same_bits(c.sample(float(times[i])), ref[i])


@pytest.mark.parametrize("frames", [1, 2, 3, 17, 40])
def test_constant_and_tiny_clips(isa, frames):
    rng = np.random.default_rng(frames)
    parents = T.random_parents(12, rng)
    pose = T.random_qts(12, rng, translation=5.0)
    local = np.broadcast_to(pose, (frames, 12, 8)).copy()
    c = skelsimd.compress(local, parents, sample_rate=30)
    assert skelsimd.clip_error(local, c.decompress(), parents) <= 0.01
    s = c.stats
    assert s["rotation"]["animated"] == s["translation"]["animated"] == s["scale"]["animated"] == 0
    assert s["components"] == 0 and s["key_bits"] == 0
    # a constant clip costs its header only: far below the raw size
    assert c.nbytes < 12 * 8 * 4 + 200
    # constant tracks are stored as they are: the decoded values are the input's
    assert same_bits(c.decompress()[:, :, 4:], local[:, :, 4:])


def test_default_tracks_cost_nothing(isa):
    local = np.zeros((50, 5, 8), np.float32)
    local[..., 3] = 1.0
    local[..., 7] = 1.0
    c = skelsimd.compress(local, [-1, 0, 1, 2, 3], sample_rate=30)
    assert c.stats["rotation"]["default"] == 5 and c.stats["translation"]["default"] == 5
    assert same_bits(c.decompress(), local)
    # header, kinds (padded), one segment entry (nothing animated: one segment), tail
    assert c.nbytes == 32 + 8 + 8 + 8 and c.stats["segments"] == 1


def test_sampling_at_frame_times_and_clamping(isa):
    rng = np.random.default_rng(3)
    parents = T.random_parents(20, rng)
    local = T.random_motion(90, parents, rng, root_travel=30.0)
    c = skelsimd.compress(local, parents, sample_rate=30)
    frames = c.decompress()
    times = np.arange(90) / 30.0
    assert same_bits(c.sample_many(times), frames)
    for f in (0, 1, 45, 89):
        assert same_bits(c.sample(f / 30.0), frames[f])
        assert same_bits(c.sample(f / 30.0 + 1e-9), frames[f])   # within 2**-20 of a frame
    assert same_bits(c.sample(-5.0), frames[0]) and same_bits(c.sample(1e9), frames[-1])
    assert same_bits(c.sample(np.float32(c.duration)), frames[-1])
    many = c.sample_many(np.zeros((2, 3)))
    assert many.shape == (2, 3, 20, 8) and same_bits(many[1, 2], frames[0])
    assert c.sample_many([]).shape == (0, 20, 8)


@examples(20)
@given(clip=clips(max_size=3000), u=st.floats(0.0, 1.0))
def test_sampling_is_continuous(clip, u):
    """Between two frames the pose moves continuously (nlerp, lerp): in object space, the pose
    1e-5 frames away from a frame time differs from that frame's by a tiny fraction of what a
    whole frame step changes (quaternion signs may differ; rotations do not)."""
    local, parents, rate, precision, shell = clip
    c = compress_or_refuse(local, parents, sample_rate=rate, precision=precision)
    if c is None or c.num_frames < 3:
        return
    f = 1 + int(u * (c.num_frames - 3))
    at = c.sample(f / rate)
    noise = 1e-5 * max(1.0, float(np.abs(local[..., 4:7]).max()) * len(parents))
    for side in (-1, 1):
        step = skelsimd.clip_error(at[None], c.sample((f + side) / rate)[None], parents)
        near = skelsimd.clip_error(at[None], c.sample((f + 1e-5 * side) / rate)[None], parents)
        assert near <= 1e-3 * step + noise
    mid = c.sample((f - 0.5) / rate)
    assert np.all(np.isfinite(mid))
    np.testing.assert_allclose(np.linalg.norm(mid[:, :4], axis=1), 1.0, atol=1e-6)


def test_out_arguments(isa):
    rng = np.random.default_rng(4)
    parents = T.random_parents(8, rng)
    local = T.random_motion(30, parents, rng)
    c = skelsimd.compress(local, parents, sample_rate=30)
    out = np.empty((8, 8), np.float32)
    assert c.sample(0.5, out) is out and c.sample(t=0.5, out=out) is out
    assert same_bits(out, c.sample(0.5))
    many = np.empty((4, 8, 8), np.float32)
    assert c.sample_many([0, 0.1, 0.2, 0.3], out=many) is many
    full = np.empty((30, 8, 8), np.float32)
    assert c.decompress(out=full) is full and same_bits(full, c.decompress())
    assert c.decompress(None).shape == (30, 8, 8)


def test_clip_input_and_skeleton_forms():
    clip = skelsimd.data.load_example()
    c = skelsimd.compress(clip)
    assert c.skeleton is clip.skeleton and c.sample_rate == pytest.approx(clip.fps)
    c2 = skelsimd.compress(clip.local, clip.skeleton.parents, sample_rate=clip.fps)
    assert c2.nbytes == c.nbytes and same_bits(c2.decompress(), c.decompress())
    c3 = skelsimd.compress(clip.local.astype(np.float64).tolist(), list(clip.skeleton.parents),
                           sample_rate=clip.fps)
    assert c3.nbytes == c.nbytes
    assert isinstance(c3.skeleton, skelsimd.Skeleton)
    back = c.to_clip()
    assert isinstance(back, skelsimd.Clip) and same_bits(back.local, c.decompress())
    assert "CompressedClip(240 frames" in repr(c)


def test_to_bytes_round_trip_and_pickle():
    clip = skelsimd.load_bvh(skelsimd.data.example_path(), end_sites=True)
    c = skelsimd.compress(clip, precision=0.001)
    b = c.to_bytes()
    d = skelsimd.CompressedClip.from_bytes(b)
    assert d == c and d.to_bytes() == b
    assert d.skeleton == c.skeleton and d.skeleton.names == clip.skeleton.names
    assert np.array_equal(d.end_site, clip.end_site)
    assert d.precision == 0.001 and d.stats == c.stats
    assert same_bits(d.decompress(), c.decompress())
    e = pickle.loads(pickle.dumps(c))
    assert e == c and same_bits(e.sample(0.7), c.sample(0.7))
    assert skelsimd.CompressedClip.from_bytes(bytearray(b)) == c
    assert skelsimd.CompressedClip.from_bytes(memoryview(b)) == c


def test_compresses_in_parallel_from_threads():
    """The GIL is released while compressing: clips compress from threads to the same bytes."""
    rng = np.random.default_rng(5)
    jobs = []
    for i in range(4):
        parents = T.random_parents(30, rng)
        jobs.append((T.random_motion(200, parents, rng, root_travel=20.0, noise=0.002), parents))
    serial = [skelsimd.compress(x, p, sample_rate=60).to_bytes() for x, p in jobs]
    results = [None] * len(jobs)

    def work(i):
        x, p = jobs[i]
        results[i] = skelsimd.compress(x, p, sample_rate=60).to_bytes()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == serial


def test_clip_error_basics():
    rng = np.random.default_rng(6)
    parents = T.random_parents(10, rng)
    a = T.random_qts((5, 10), rng, translation=3.0)
    assert skelsimd.clip_error(a, a, parents) == 0.0
    b = a.copy()
    b[2, 0, 4] += 0.5                                     # move a root: every descendant moves
    per = skelsimd.clip_error(a, b, parents, per_joint=True)
    moved = np.zeros(10, bool)
    for j, p in enumerate(parents):
        moved[j] = j == 0 or (p >= 0 and moved[p])
    assert per.dtype == np.float64 and per.shape == (10,)
    np.testing.assert_allclose(per[moved], 0.5, rtol=1e-6)   # a translation moves every vertex
    assert per[~moved].max(initial=0.0) == 0.0
    np.testing.assert_allclose(skelsimd.clip_error(a, b, parents, per_joint=True),
                               R.clip_error(a, b, parents, per_joint=True), rtol=1e-12, atol=1e-15)
    c = a.copy()
    c[..., 0, :4] *= -3.0                                 # q and -3 q: the same rotation
    assert skelsimd.clip_error(a, c, parents) < 1e-6
    # a rotation error at the shell distance: an identity joint rotated by angle about z moves
    # its x and y vertices by 2 d sin(angle / 2)
    x = np.zeros((1, 1, 8))
    x[..., 3] = x[..., 7] = 1.0
    y = x.copy()
    y[..., 2], y[..., 3] = np.sin(0.05), np.cos(0.05)
    assert skelsimd.clip_error(x, y, [-1], shell_distance=2.0) == pytest.approx(4.0 * np.sin(0.05))
    n = x.copy()
    n[0, 0, 0] = np.nan
    assert np.isnan(skelsimd.clip_error(x, n, [-1]))
    assert np.isnan(skelsimd.clip_error(x, n, [-1], per_joint=True)[0])
