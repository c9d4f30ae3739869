"""Clip editing (skelsimd.clip_edit, attached to Clip): slicing, sample, resample, concatenate,
crossfade, mirror, root_motion; against float64 references (skelsimd.reference) on the embedded
real clip and on random clips of the 96-joint humanoid, on every SIMD variant; and the argument
rules. Also save_bvh keeping each joint's rotation order."""
import io
import pathlib

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import skelsimd as S
from skelsimd import testing as T
from skelsimd.skeleton import mirror_pairs
from skelsimd.reference import blend as RB
from skelsimd.reference import joints as RJ
from skelsimd.reference import quat as RQ
from skelsimd.bounds import bound
from strategies import position_bound

DATA = pathlib.Path(__file__).parent / "data"
FAST_SLERP = bound("slerp.fast")   # blend_joints "fast": rotation bound of slerp (module docstring)


@pytest.fixture(scope="module")
def cmu():
    return S.data.load_example()          # 240 frames, 31 joints, LeftHip / LHipJoint / lhand


def random_clip(seed, frames=12, frame_time=0.25, translation=1.0):
    """A clip of the 96-joint humanoid (names with _l / _r) with random continuous poses."""
    rng = np.random.default_rng(seed)
    parents, names = T.humanoid_skeleton()
    rest = T.random_qts(len(parents), rng, translation=translation)
    skel = S.Skeleton(parents, names, rest)
    local = T.random_qts((frames, len(parents)), rng, translation=translation)
    q = local[..., :4].astype(np.float64)
    for f in range(1, frames):           # continuous quaternions, as load_bvh gives
        flip = (q[f] * q[f - 1]).sum(-1) < 0
        q[f, flip] *= -1
    local[..., :4] = q
    return S.Clip(skel, local, frame_time)


def reference_globals(local, parents):
    """Float64 global matrices (..., J, 3, 4) of QTS locals."""
    return RJ.local_to_global(RQ.qts_to_matrix(np.asarray(local, np.float64)), np.asarray(parents))


def blend_bound(a, b):
    """blend_joints "fast": the slerp bound on rotations, 2**-22 max(|a|, |b|) on the rest."""
    lin = bound("blend.linear") * np.maximum(np.abs(a[..., 4:]), np.abs(b[..., 4:])).astype(np.float64)
    return FAST_SLERP, lin


def assert_blend_close(got, a, b, w):
    """got == blend_joints(a, b, w) within the bounds, against the float64 reference."""
    ref = RB.blend_joints(a, b, w)
    qb, lb = blend_bound(a, b)
    dq = np.minimum(np.abs(got[..., :4] - ref[..., :4]).max(-1),
                    np.abs(got[..., :4] + ref[..., :4]).max(-1))
    assert dq.max(initial=0) <= qb
    assert (np.abs(got[..., 4:] - ref[..., 4:]) <= lb + 1e-30).all()


def equal_up_to_sign(a, b):
    """QTS arrays equal bit for bit, each joint's quaternion possibly negated as a whole."""
    same = np.array_equal(a[..., 4:], b[..., 4:])
    plus = (a[..., :4] == b[..., :4]).all(-1)
    minus = (a[..., :4] == -b[..., :4]).all(-1)
    return same and bool((plus | minus).all())


# --- slicing -------------------------------------------------------------------------------------

def test_slicing_copies(cmu):
    part = cmu[100:200]
    assert part.frames == 100 and part.frame_time == cmu.frame_time
    assert np.array_equal(part.local, cmu.local[100:200])
    assert not np.shares_memory(part.local, cmu.local) and part.local.flags.c_contiguous
    before = cmu.local.copy()
    part.local[...] = 0.0
    assert np.array_equal(cmu.local, before)
    assert part.skeleton is cmu.skeleton
    assert part.channels == cmu.channels


@given(start=st.one_of(st.none(), st.integers(-300, 300)),
       stop=st.one_of(st.none(), st.integers(-300, 300)),
       step=st.one_of(st.none(), st.integers(-7, 7).filter(lambda k: k != 0)))
def test_slicing_any_slice(cmu, start, stop, step):
    key = slice(start, stop, step)
    part = cmu[key]
    assert np.array_equal(part.local, cmu.local[key])
    assert part.frame_time == cmu.frame_time * abs(step or 1)
    assert not np.shares_memory(part.local, cmu.local)


def test_slicing_bad_keys(cmu):
    with pytest.raises(TypeError, match=r"clip\[\.\.\.\]: expected a slice.*clip.local\[i\]"):
        cmu[3]
    with pytest.raises(TypeError, match="expected a slice"):
        cmu[[1, 2]]
    with pytest.raises(TypeError, match="slice start"):
        cmu[1.5:3]
    with pytest.raises(ValueError, match="non-zero slice step, got 0"):
        cmu[::0]


# --- sample and resample ---------------------------------------------------------------------------

def test_sample_at_frame_times_is_exact(cmu, isa):
    f = np.arange(cmu.frames)
    assert np.array_equal(cmu.sample(f * cmu.frame_time), cmu.local)
    assert np.array_equal(cmu.sample(17 * cmu.frame_time), cmu.local[17])


@given(seed=st.integers(0, 2**31), n=st.integers(1, 30), method=st.sampled_from(["fast", "exact"]))
def test_sample_against_reference(isa, seed, n, method):
    clip = random_clip(seed % 1000)
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, (clip.frames - 1) * clip.frame_time, n)
    got = clip.sample(t, method=method)
    u = t / clip.frame_time
    i0 = np.floor(u).astype(int)
    i1 = np.minimum(i0 + 1, clip.frames - 1)
    assert got.shape == (n, 96, 8)
    assert_blend_close(got, clip.local[i0], clip.local[i1], (u - i0).astype(np.float32))


def test_sample_shapes_clamp_and_loop(isa):
    clip = random_clip(3, frames=5, frame_time=0.5)
    assert clip.sample(0.25).shape == (96, 8)
    assert clip.sample(np.zeros((2, 3))).shape == (2, 3, 96, 8)
    assert np.array_equal(clip.sample(-10.0), clip.local[0])
    assert np.array_equal(clip.sample(99.0), clip.local[-1])
    # loop: period frames * frame_time; between the last frame and the first, a blend of them
    assert np.array_equal(clip.sample(2.5, loop=True), clip.local[0])
    assert np.array_equal(clip.sample(-0.5, loop=True), clip.local[4])
    assert np.array_equal(clip.sample(2.25, loop=True),
                          S.blend_joints(clip.local[4], clip.local[0], 0.5))
    assert np.array_equal(clip.sample(1.25, method="nlerp"),
                          S.blend_joints(clip.local[2], clip.local[3], 0.5, method="nlerp"))


_TIMES = st.one_of(
    st.floats(-20, 20, allow_nan=False), st.integers(-40, 40),
    st.integers(-40, 40).map(lambda k: k * 0.25),                 # on frame times
    st.tuples(st.integers(-40, 40), st.sampled_from([1e-12, -1e-12, 5e-10, 1e-6])).map(
        lambda p: p[0] * 0.25 + p[1]),                            # at the frame snap
    st.sampled_from([-0.0, 0.0, 1.125, 1.0 - 2**-40, 2.0**52, -(2.0**52), 1e300]))


@given(t=_TIMES, loop=st.booleans(), method=st.sampled_from(["fast", "exact", "nlerp"]),
       kind=st.sampled_from([float, np.float64, np.float32, "int"]))
def test_sample_one_time_is_the_array_path(isa, t, loop, method, kind):
    """One time (a Python or NumPy number: the per-frame call's own path on Python floats) gives
    the bits of the same time sampled as an array."""
    clip = random_clip(3, frames=5, frame_time=0.25)
    assume(abs(t) <= 2.0**52 or kind is float)   # finite as float32, int64 as an int
    one = int(t) if kind == "int" else kind(t)
    got = clip.sample(one, loop=loop, method=method)
    want = clip.sample(np.array([one]), loop=loop, method=method)[0]
    assert got.shape == (96, 8) and got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_sample_one_time_out_of_the_exact_range():
    """Ints and floats beyond 2**53 take the array path: the same results or errors as an
    array of them (a huge int is an object array there: TypeError, never OverflowError)."""
    clip = random_clip(3, frames=5, frame_time=0.25)
    for t in (2**53, -(2**53), 2**63, 2**70, -(2**70), 10**400):
        try:
            want = clip.sample(np.array([t]))[0]
        except TypeError:
            with pytest.raises(TypeError, match="t: expected times in seconds"):
                clip.sample(t)
        else:
            assert np.array_equal(clip.sample(t), want)
    assert np.array_equal(clip.sample(2.0**60), clip.local[-1])


def test_sample_bad_arguments(cmu):
    with pytest.raises(ValueError, match="t: expected finite times"):
        cmu.sample([0.0, np.nan])
    with pytest.raises(TypeError, match="t: expected times in seconds"):
        cmu.sample("0.5")
    with pytest.raises(ValueError, match="method: expected one of"):
        cmu.sample(0.1, method="cubic")
    with pytest.raises(ValueError, match="clip: expected at least one frame"):
        cmu[0:0].sample(0.0)


def test_resample_own_rate_is_identity(cmu, isa):
    again = cmu.resample(cmu.fps)
    assert np.array_equal(again.local, cmu.local)
    assert again.frame_time == pytest.approx(cmu.frame_time, rel=1e-15)
    for ft in (1 / 30, 1 / 120, 0.0083333, 1 / 24, 0.1):
        clip = random_clip(5, frames=9, frame_time=ft)
        assert np.array_equal(clip.resample(clip.fps).local, clip.local)
        assert np.array_equal(clip.resample(1.0 / ft).local, clip.local)


def test_resample_integer_ratio_picks_frames(isa):
    clip = random_clip(6, frames=13, frame_time=0.25)     # 4 fps
    half = clip.resample(2)
    assert half.frame_time == 0.5 and np.array_equal(half.local, clip.local[::2])
    double = clip.resample(8)
    assert double.frames == 25 and np.array_equal(double.local[::2], clip.local)
    assert np.array_equal(double.local[1::2],
                          S.blend_joints(clip.local[:-1], clip.local[1:], 0.5))


@given(seed=st.integers(0, 2**31), fps=st.floats(0.3, 40.0))
def test_resample_against_reference(isa, seed, fps):
    clip = random_clip(seed % 1000, frames=10, frame_time=0.1)
    r = clip.resample(fps)
    span = 0.9
    assert r.frame_time == 1.0 / fps
    assert r.frames == int(np.floor(span * fps + 1e-9 * max(1, span * fps))) + 1
    u = np.arange(r.frames) * (1.0 / fps) / 0.1
    u = np.where(np.abs(u - np.round(u)) <= 1e-9 * np.maximum(1, u), np.round(u), u)
    i0 = np.minimum(np.floor(u).astype(int), clip.frames - 1)
    i1 = np.minimum(i0 + 1, clip.frames - 1)
    assert_blend_close(r.local, clip.local[i0], clip.local[i1], (u - np.floor(u)).astype(np.float32))


def test_resample_bad_fps(cmu):
    for bad in (0, -30, np.nan, np.inf):
        with pytest.raises(ValueError, match="fps: expected a positive finite number"):
            cmu.resample(bad)
    for bad in ("30", None, True):
        with pytest.raises(TypeError, match="fps: expected a positive number"):
            cmu.resample(bad)
    assert cmu[0:0].resample(30).frames == 0


# --- concatenate and crossfade -----------------------------------------------------------------------

def test_concatenate(cmu):
    a, b = cmu[:100], cmu[150:]
    both = a.concatenate(b)
    assert both.frames == 190
    assert np.array_equal(both.local[:100], a.local)
    assert equal_up_to_sign(both.local[100:], b.local)
    # continuous at the seam: each joint's quaternion on the hemisphere of the frame before
    assert ((both.local[100, :, :4] * both.local[99, :, :4]).sum(-1) >= 0).all()
    three = a.concatenate(b, a)
    assert three.frames == 290
    assert equal_up_to_sign(three.local[190:], a.local)
    assert np.array_equal(a.concatenate().local, a.local)
    assert not np.shares_memory(a.concatenate().local, a.local)


def test_concatenate_flips_opposite_hemispheres():
    clip = random_clip(8, frames=6)
    backwards = clip[::-1]
    other = S.Clip(clip.skeleton, backwards.local.copy(), clip.frame_time)
    other.local[:, :, :4] *= -1.0          # starts with clip's last rotations, other hemisphere
    both = clip.concatenate(other)
    assert np.array_equal(both.local[6:], backwards.local)


def test_concatenate_and_crossfade_refuse_other_clips(cmu):
    other = random_clip(1)
    for call in (lambda o: cmu.concatenate(o), lambda o: cmu.crossfade(o, 2)):
        with pytest.raises(ValueError, match="expected a clip of the same skeleton"):
            call(other)
        with pytest.raises(ValueError, match=r"frame_time: expected .*resample"):
            call(cmu[::2])
        with pytest.raises(TypeError, match="expected a skelsimd.Clip, got ndarray"):
            call(cmu.local)


@pytest.mark.parametrize("curve", ["smooth", "linear"])
@pytest.mark.parametrize("n", [0, 1, 2, 30, 100])
def test_crossfade(cmu, isa, n, curve):
    a, b = cmu[:140], cmu[100:]
    x = a.crossfade(b, n, curve=curve)
    assert x.frames == a.frames + b.frames - n
    k = a.frames - n
    assert np.array_equal(x.local[:k], a.local[:k])                    # before: a itself
    assert equal_up_to_sign(x.local[a.frames:], b.local[n:])            # after: b itself
    assert equal_up_to_sign(x.local[-1:], b.local[-1:])                 # the endpoints
    assert np.array_equal(x.local[0], a.local[0])
    if n >= 2:
        assert np.array_equal(x.local[k], a.local[k])                   # w = 0
        assert equal_up_to_sign(x.local[k + n - 1], b.local[n - 1])     # w = 1
        w = np.arange(n) / (n - 1)
        if curve == "smooth":
            w = w * w * (3 - 2 * w)
        assert_blend_close(x.local[k:k + n], a.local[k:], b.local[:n], w.astype(np.float32))
    if n == 0:
        assert np.array_equal(x.local, a.concatenate(b).local)
    if n == 1:
        assert_blend_close(x.local[k:k + 1], a.local[k:], b.local[:1], np.float32([0.5]))


def ground(traj):
    """(yaw quaternions, ground positions) float64 of a trajectory (F, 8)."""
    return traj[:, :4].astype(np.float64), traj[:, 4:7].astype(np.float64)


def qmul(a, b):
    return RQ.quat_multiply(a, b)


def rotate(q, v):
    return RQ.quat_rotate(q, v)


@pytest.mark.parametrize("n", [0, 20])
def test_crossfade_align(cmu, n):
    """align=True moves `other` by D = T_a[k] T_b[0]^-1 on the ground (k the first overlapping
    frame, or a's last frame for n = 0): the frames after the overlap are D applied to b's."""
    a, b = cmu[:120], cmu[60:]
    x = a.crossfade(b, n, align=True)
    k = a.frames - max(n, 1)
    qa, ta = ground(a.root_motion()[0][k:k + 1])
    qb, tb = ground(b.root_motion()[0])
    qb0i = RQ.quat_conjugate(qb[:1])
    dq = qmul(qa, qb0i)
    dt = ta - rotate(dq, tb[:1])
    expected_q = qmul(np.broadcast_to(dq, qb.shape), qb)[n:]
    expected_t = rotate(np.broadcast_to(dq, qb.shape), tb)[n:] + dt
    qx, tx = ground(x.root_motion()[0][a.frames:])
    assert np.abs(tx - expected_t).max() < 1e-4
    dots = np.abs((qx * expected_q).sum(-1))
    assert (dots > 1 - 1e-6).all()
    # heights and the joints below the roots are b's own
    assert np.allclose(x.local[a.frames:, 0, 5], b.local[n:, 0, 5], atol=1e-4)
    assert equal_up_to_sign(x.local[a.frames:, 1:], b.local[n:, 1:])
    if n == 0:
        assert np.abs(tx[0] - ta[0]).max() < 1e-4        # b starts where a ended


def test_crossfade_bad_arguments(cmu):
    for bad in (-1, 241, 1000):
        with pytest.raises(ValueError, match=r"frames: expected 0 <= frames <= 240"):
            cmu.crossfade(cmu, bad)
    for bad in (2.5, True, "3"):
        with pytest.raises(TypeError, match="frames: expected an int"):
            cmu.crossfade(cmu, bad)
    with pytest.raises(ValueError, match="curve: expected one of 'smooth', 'linear'"):
        cmu.crossfade(cmu, 3, curve="cubic")


# --- mirror --------------------------------------------------------------------------------------------

def test_mirror_pairs_from_names(cmu):
    names = cmu.skeleton.names
    pairs = {(names[a], names[b]) for a, b in mirror_pairs(cmu.skeleton)}
    assert {("LHipJoint", "RHipJoint"), ("LeftHip", "RightHip"), ("LeftToe", "RightToe"),
            ("lhand", "rhand"), ("LFingers", "RFingers"), ("LThumb", "RThumb")} <= pairs
    assert len(pairs) == 12
    for names, expected in [
        (["Hips", "LeftUpLeg", "RightUpLeg", "Spine"], [(1, 2)]),
        (["pelvis", "L_Hip", "R_Hip", "l_knee", "r_knee"], [(1, 2), (3, 4)]),
        (["root", "thigh.R", "thigh.L", "upper_arm_l", "upper_arm_r"], [(2, 1), (3, 4)]),
        (["Bip01", "Bip01 L Thigh", "Bip01 R Thigh"], [(1, 2)]),
        (["mixamorig:Hips", "mixamorig:RightArm", "mixamorig:LeftArm"], [(2, 1)]),
        (["ThighL", "ThighR", "Lip", "Rip", "LEFT_EYE", "RIGHT_EYE"], [(0, 1), (4, 5)]),
        (["rfoot", "lfoot", "lowerback"], [(1, 0)]),
    ]:
        assert sorted(mirror_pairs(names)) == sorted(expected), names


def test_mirror_twice_is_identity(cmu, isa):
    for clip in (cmu, random_clip(4)):
        for axis in ("x", "y", "z"):
            m = clip.mirror(axis)
            assert not np.array_equal(m.local, clip.local)
            twice = m.mirror(axis)
            assert np.array_equal(twice.local, clip.local)
            assert twice.skeleton == clip.skeleton


@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_mirror_reflects_global_positions(cmu, isa, axis):
    """The mirrored clip's global positions are the reflected float64 global positions of the
    original with the pairs swapped."""
    a = "xyz".index(axis)
    reflect = np.ones(3)
    reflect[a] = -1
    for clip in (cmu, random_clip(11), random_clip(12, translation=3.0)):
        m = clip.mirror(axis)
        sigma = np.arange(len(clip.skeleton))
        for i, j in mirror_pairs(clip.skeleton):
            sigma[i], sigma[j] = j, i
        ref = reference_globals(clip.local, clip.skeleton.parents)
        expected = ref[:, sigma][..., 3] * reflect
        got = m.global_positions()
        assert np.abs(got - expected).max() <= position_bound(clip.skeleton, ref)
        # rotations: M R M of the counterpart
        M = np.diag(reflect)
        expected_r = M @ ref[:, sigma][..., :3] @ M
        assert np.abs(m.global_matrices()[..., :3] - expected_r).max() <= 2e-6
        # the rest pose is mirrored the same way
        rest_ref = reference_globals(clip.skeleton.rest, clip.skeleton.parents)
        rest_m = reference_globals(m.skeleton.rest, m.skeleton.parents)
        assert np.allclose(rest_m[sigma][..., 3] * reflect, rest_ref[..., 3], atol=1e-5)


def test_mirror_with_given_pairs(cmu):
    names = cmu.skeleton.names
    pairs = [(names[a], names[b]) for a, b in mirror_pairs(cmu.skeleton)]
    assert np.array_equal(cmu.mirror(pairs=pairs).local, cmu.mirror().local)
    idx = mirror_pairs(cmu.skeleton)
    assert np.array_equal(cmu.mirror(pairs=idx).local, cmu.mirror().local)
    assert np.array_equal(cmu.mirror(pairs=dict(pairs)).local, cmu.mirror().local)
    # no pairs at all: a reflection of every joint in place
    flat = cmu.mirror(pairs=[])
    ref = reference_globals(cmu.local[:3], cmu.skeleton.parents)[..., 3] * [-1, 1, 1]
    assert np.abs(flat.global_positions(slice(0, 3)) - ref).max() < 1e-4


def test_mirror_bad_arguments(cmu):
    with pytest.raises(ValueError, match="axis: expected 'x', 'y' or 'z', got 'w'"):
        cmu.mirror("w")
    with pytest.raises(TypeError, match="axis: expected"):
        cmu.mirror(0)
    with pytest.raises(ValueError, match=r"pairs: the pairs given do not mirror the hierarchy: "
                                         r"joint 'LeftKnee'.*pass pairs="):
        cmu.mirror(pairs=[("LeftKnee", "RightElbow")])
    with pytest.raises(ValueError, match=r"pairs\[1\]: joint 2 \('LeftHip'\) is already in pairs\[0\]"):
        cmu.mirror(pairs=[("LeftHip", "RightHip"), ("LeftHip", "RightKnee")])
    with pytest.raises(ValueError, match=r"pairs\[0\]: expected two different joints"):
        cmu.mirror(pairs=[("LeftHip", "LeftHip")])
    with pytest.raises(ValueError, match="no joint named 'LeftUpLeg'.*similar"):
        cmu.mirror(pairs=[("LeftUpLeg", "RightUpLeg")])
    with pytest.raises(TypeError, match=r"pairs\[0\]: expected a \(left, right\) pair"):
        cmu.mirror(pairs=["LeftHip"])
    with pytest.raises(TypeError, match="pairs: expected a sequence"):
        cmu.mirror(pairs=3)


def test_mirror_detected_pairs_that_break_the_hierarchy():
    skel = S.Skeleton([-1, 0, 1, 0], ["root", "LeftArm", "RightArm", "spine"])   # Right under Left
    clip = S.Clip(skel, np.tile(np.float32([0, 0, 0, 1, 1, 2, 3, 1]), (2, 4, 1)), 0.1)
    with pytest.raises(ValueError, match="pairs found from the names do not mirror"):
        clip.mirror()


# --- root motion -------------------------------------------------------------------------------------

def test_root_motion(cmu, isa):
    traj, still = cmu.root_motion()
    assert traj.shape == (cmu.frames, 8) and traj.dtype == np.float32
    assert (traj[:, [0, 2, 5]] == 0).all() and (traj[:, 7] == 1).all()          # yaw, on the ground
    assert np.abs(np.linalg.norm(traj[:, :4].astype(np.float64), axis=1) - 1).max() < 1e-6
    assert ((traj[1:, :4] * traj[:-1, :4]).sum(-1) >= 0).all()                   # continuous
    hips = cmu.local[:, 0].astype(np.float64)
    assert np.array_equal(traj[:, [4, 6]], hips[:, [4, 6]].astype(np.float32))
    # the in-place root stands above the origin at its own height, exactly
    assert (still.local[:, 0, [4, 6]] == 0).all()
    assert np.array_equal(still.local[:, 0, 5], cmu.local[:, 0, 5])
    assert np.array_equal(still.local[:, 1:], cmu.local[:, 1:])
    # heading taken out: the root's rotation has no twist about y left
    assert np.abs(still.local[:, 0, 1]).max() < 1e-6
    # trajectory @ in-place == the original (float64 reference)
    with_root = np.concatenate([traj[:, None], still.local], axis=1)
    parents = np.concatenate([[-1], np.asarray(cmu.skeleton.parents) + 1])
    parents[1:][cmu.skeleton.parents < 0] = 0
    ref = reference_globals(cmu.local, cmu.skeleton.parents)
    composed = reference_globals(with_root, parents)[:, 1:]
    assert np.abs(composed - ref).max() <= 1e-5 * max(1, np.abs(ref[..., 3]).max())
    # and on the kernels
    glob = S.qts_local_to_global_matrix(with_root, parents)[:, 1:]
    assert np.abs(glob - ref).max() <= 2 * position_bound(cmu.skeleton, ref) + 1e-5


def test_root_motion_translation_only_and_other_joint(cmu):
    traj, still = cmu.root_motion(heading=False)
    assert (traj[:, :3] == 0).all() and (traj[:, 3] == 1).all()
    assert np.array_equal(still.local[:, 0, :4], cmu.local[:, 0, :4])
    # a static reference root above the hips: root_motion("Hips") moves that root instead
    parents = np.concatenate([[-1], np.asarray(cmu.skeleton.parents) + 1]).astype(np.int32)
    parents[1:][cmu.skeleton.parents < 0] = 0
    skel = S.Skeleton(parents, ("Reference",) + cmu.skeleton.names)
    ref_pose = np.tile(np.float32([0, 0, 0, 1, 0, 0, 0, 1]), (cmu.frames, 1, 1))
    clip = S.Clip(skel, np.concatenate([ref_pose, cmu.local], axis=1), cmu.frame_time)
    traj2, still2 = clip.root_motion("Hips")
    assert np.allclose(traj2, cmu.root_motion()[0], atol=1e-6)
    hips = still2.global_positions()[:, 1]
    assert np.abs(hips[:, [0, 2]]).max() < 1e-4
    assert np.allclose(hips[:, 1], cmu.local[:, 0, 5], atol=1e-4)
    with pytest.raises(ValueError, match="no joint named 'hips'.*Hips"):
        clip.root_motion("hips")


# --- save_bvh keeps each joint's rotation order ------------------------------------------------------

MIXED = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Yrotation Xrotation Zrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    JOINT Head
    {
      OFFSET 0 10 0
      CHANNELS 2 Zrotation Xrotation
      End Site
      {
        OFFSET 0 5 0
      }
    }
  }
  JOINT Leg
  {
    OFFSET 3 -10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 -10 0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.033333
1 90 2 10 20 30 40 50 60 70 80 10 20 30
2 91 3 -170 80 170 -40 89 60 10 -20 -120 20 50
3 92 4 100 -89 -100 40 -50 160 0 0 0 0 0
"""


def test_save_bvh_keeps_rotation_orders(cmu):
    clip = S.load_bvh(text=MIXED)
    buf = io.StringIO()
    S.save_bvh(clip, buf)
    text = buf.getvalue()
    assert "CHANNELS 6 Xposition Yposition Zposition Yrotation Xrotation Zrotation" in text
    assert "CHANNELS 3 Xrotation Yrotation Zrotation" in text
    assert "CHANNELS 3 Zrotation Xrotation Yrotation" in text     # Head: ZX completed with Y
    again = S.load_bvh(text=text)
    rot = [tuple(c for c in ch if c.endswith("rotation")) for ch in again.channels]
    assert rot[:2] == [("Yrotation", "Xrotation", "Zrotation"), ("Xrotation", "Yrotation", "Zrotation")]
    assert np.abs(again.global_positions() - clip.global_positions()).max() <= 1e-4
    # an explicit order still applies to every joint
    buf = io.StringIO()
    S.save_bvh(clip, buf, order="ZYX")
    assert buf.getvalue().count("Zrotation Yrotation Xrotation") == 4
    # the embedded clip (ZYX) and the 20tab clip (ZXY) keep theirs
    for clip in (cmu, S.load_bvh(DATA / "20tab_mocapbank_excerpt.bvh")):
        buf = io.StringIO()
        S.save_bvh(clip, buf)
        assert S.load_bvh(text=buf.getvalue()).channels == clip.channels
    assert "Zrotation Xrotation Yrotation" in buf.getvalue()


def test_save_bvh_bad_channels():
    clip = S.load_bvh(text=MIXED)
    bad = S.Clip(clip.skeleton, clip.local, clip.frame_time,
                 channels=[("Xrotation", "Xrotation")] + list(clip.channels[1:]))
    with pytest.raises(ValueError, match=r"clip.channels\[0\]: expected at most one Xrotation"):
        S.save_bvh(bad, io.StringIO())


def test_mirror_rest_as_matrices(isa):
    """A skeleton whose rest pose is joint matrices is mirrored like a QTS one."""
    clip = random_clip(21, frames=3)
    skel = clip.skeleton
    as_matrices = S.Skeleton(skel.parents, skel.names, S.qts_to_matrix(skel.rest))
    m1 = clip.mirror("z")
    m2 = S.Clip(as_matrices, clip.local, clip.frame_time).mirror("z")
    assert np.array_equal(m2.local, m1.local)
    assert np.allclose(m2.skeleton.rest, S.qts_to_matrix(m1.skeleton.rest), atol=1e-6)
    assert np.array_equal(S.Clip(m2.skeleton, m2.local, 0.1).mirror("z").skeleton.rest,
                          as_matrices.rest)


def test_blend_clips_frame_by_frame():
    """Clip.blend: blend_joints of the two clips' frames, a weight or one per frame; the other
    clip's skeleton, frame time and frame count are checked like crossfade's."""
    clip = S.data.load_example()[:50]
    other = clip.mirror()
    w = np.linspace(0, 1, clip.frames)
    mixed = clip.blend(other, w)
    assert np.array_equal(mixed.local, S.blend_joints(clip.local, other.local, w.astype(np.float32)))
    assert np.array_equal(mixed.local[0], clip.local[0]) and np.array_equal(mixed.local[-1], other.local[-1])
    assert np.array_equal(clip.blend(other, 0).local, clip.local)
    assert np.array_equal(clip.blend(other, 1.0, method="exact").local, other.local)
    assert mixed.frame_time == clip.frame_time and mixed.skeleton is clip.skeleton
    with pytest.raises(ValueError, match="other: expected a clip of 50 frames like this clip, got 49"):
        clip.blend(other[:49], 0.5)
    with pytest.raises(ValueError, match="other.frame_time"):
        clip.blend(other.resample(60), 0.5)
    with pytest.raises(TypeError, match="other: expected a skelsimd.Clip"):
        clip.blend(other.local, 0.5)
    with pytest.raises(ValueError, match=r"weight: expected a number or shape \(50,\)"):
        clip.blend(other, np.zeros(3))
    with pytest.raises(TypeError, match="weight"):
        clip.blend(other, "half")
