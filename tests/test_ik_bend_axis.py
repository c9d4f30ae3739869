"""mid_axis=None: the mid joint's bend axis from the chain's current pose (skelsimd.bend_axis),
on real motion capture (the CMU walks' knees and elbows) and on the straight and degenerate
chains of its fallback rule."""
import os

import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from skelsimd.bounds import bound

REACH = bound("ik.two_bone.reach")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
WALK_CHAINS = [("LeftHip", "LeftKnee", "LeftAnkle"), ("RightHip", "RightKnee", "RightAnkle"),
               ("LeftShoulder", "LeftElbow", "LeftWrist"),
               ("RightShoulder", "RightElbow", "RightWrist")]
# cmu_01_01 names the same joints as the CMU site's own exports
CMU_01_CHAINS = [("LeftUpLeg", "LeftLeg", "LeftFoot"), ("RightUpLeg", "RightLeg", "RightFoot"),
                 ("LeftArm", "LeftForeArm", "LeftHand"), ("RightArm", "RightForeArm", "RightHand")]


def _walks():
    yield "131_01", skelsimd.data.load_example(), WALK_CHAINS
    yield "131_02", skelsimd.load_bvh(os.path.join(DATA, "cmu_131_02.bvh.gz"))[::4], WALK_CHAINS
    yield "01_01", skelsimd.load_bvh(os.path.join(DATA, "cmu_01_01.bvh.gz"))[::8], CMU_01_CHAINS


WALKS = list(_walks())


def _targets_within_reach(clip, chain, rng):
    """Each frame's target: the end joint's offset from the start joint on another frame, put
    at this frame's start joint (the bones keep their lengths, so it is within reach); the pole:
    the mid joint's offset from the start-end line (where the knee points now)."""
    s, m, e = (clip.skeleton.names.index(n) for n in chain)
    g = clip.global_matrices().astype(np.float64)
    other = rng.permutation(clip.frames)
    target = g[:, s, :, 3] + g[other, e, :, 3] - g[other, s, :, 3]
    ps, pm, pe = g[:, s, :, 3], g[:, m, :, 3], g[:, e, :, 3]
    line = (pe - ps) / np.linalg.norm(pe - ps, axis=-1, keepdims=True)
    pole = (pm - ps) - np.sum((pm - ps) * line, axis=-1, keepdims=True) * line
    length = np.linalg.norm(pm - ps, axis=-1) + np.linalg.norm(pe - pm, axis=-1)
    return target.astype(np.float32), pole.astype(np.float32), length, e


@pytest.mark.parametrize("name, clip, chains", WALKS, ids=[w[0] for w in WALKS])
def test_mid_axis_none_reaches_targets_on_the_cmu_walks(isa, name, clip, chains):
    rng = np.random.default_rng(len(name))
    for chain in chains:
        target, pole, length, e = _targets_within_reach(clip, chain, rng)
        fixed, reached = clip.skeleton.two_bone(clip.local, chain, target, pole=pole,
                                                mid_axis=None, return_reached=True)
        end = skelsimd.qts_local_to_global_matrix(fixed, clip.skeleton)[:, e, :, 3]
        err = np.linalg.norm(end.astype(np.float64) - target, axis=-1) / length
        assert reached.mean() > 0.95, (chain, reached.mean())
        assert err[reached].max() <= REACH, (chain, err[reached].max())


def test_ik_two_bone_none_is_bend_axis(isa):
    clip = skelsimd.data.load_example()[::6]
    g = clip.global_matrices()
    s, m, e = (clip.skeleton.names.index(n) for n in WALK_CHAINS[0])
    target, pole, _, _ = _targets_within_reach(clip, WALK_CHAINS[0], np.random.default_rng(1))
    axis = skelsimd.bend_axis(g[:, s], g[:, m], g[:, e], pole)
    got = skelsimd.ik_two_bone(g[:, s], g[:, m], g[:, e], target, pole=pole, mid_axis=None)
    want = skelsimd.ik_two_bone(g[:, s], g[:, m], g[:, e], target, pole=pole, mid_axis=axis)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    # the axis is the bone plane's normal in the mid joint's space, and keeps the bend's side
    a, b = g[:, m, :, 3] - g[:, s, :, 3], g[:, e, :, 3] - g[:, m, :, 3]
    n = np.cross(a.astype(np.float64), b)
    model = np.einsum("fij,fj->fi", g[:, m, :, :3].astype(np.float64), axis)
    assert np.allclose(model, n / np.linalg.norm(n, axis=-1, keepdims=True), atol=1e-5)


def _at(p, r=np.eye(3)):
    m = np.zeros((3, 4), np.float32)
    m[:, :3], m[:, 3] = r, p
    return m


def test_bend_axis_in_a_scaled_and_mirrored_mid_frame():
    """R^-1 n, not R^T n: a mid frame with a scale, or a mirror, still gives the plane's
    normal, of unit length, in that frame."""
    rng = np.random.default_rng(3)
    q = T.random_quaternions((50,), rng).astype(np.float32)
    r = skelsimd.quat_to_matrix(q).astype(np.float64)
    scale = rng.uniform(0.5, 2.0, (50, 1, 3))
    scale[::2, :, 0] *= -1                                   # every other frame mirrored
    rm = r * scale
    s, mid, e = rng.normal(size=(3, 50, 3))
    start = np.stack([_at(p) for p in s])
    midm = np.stack([_at(p, x) for p, x in zip(mid, rm)])
    end = np.stack([_at(p) for p in e])
    axis = skelsimd.bend_axis(start, midm, end, [0, 1, 0]).astype(np.float64)
    n = np.cross(mid - s, e - mid)
    back = np.einsum("fij,fj->fi", rm, axis)                 # the local axis in model space
    back /= np.linalg.norm(back, axis=-1, keepdims=True)
    assert np.allclose(np.linalg.norm(axis, axis=-1), 1, atol=1e-6)
    assert np.allclose(back, n / np.linalg.norm(n, axis=-1, keepdims=True), atol=1e-5)


def test_a_straight_chain_bends_towards_the_pole(isa):
    hip, knee, ankle = _at((0, 1, 0)), _at((0, 0.5, 0)), _at((0, 0, 0))   # straight along -y
    for pole in ([0, 0, 1], [1, 0, 0], [1, 0, 1]):
        axis = skelsimd.bend_axis(hip, knee, ankle, pole)
        want = np.cross(pole, [0, -1, 0])
        assert np.allclose(axis, want / np.linalg.norm(want), atol=1e-7)
        target = np.float32([0, 0.4, 0])                      # closer: the knee must bend
        qs, qm, ok = skelsimd.ik_two_bone(hip, knee, ankle, target, pole=pole, mid_axis=None)
        assert ok
        knee_new = np.array([0, 1, 0]) + skelsimd.quat_to_matrix(qs) @ np.array([0, -0.5, 0])
        assert np.dot(knee_new - [0, 1, 0], pole) > 0.1      # towards the pole


def test_a_straight_chain_along_its_pole_is_degenerate(isa):
    hip, knee, ankle = _at((0, 1, 0)), _at((0, 0.5, 0)), _at((0, 0, 0))
    assert np.array_equal(skelsimd.bend_axis(hip, knee, ankle, [0, 1, 0]), [0, 0, 0])
    qs, qm, ok = skelsimd.ik_two_bone(hip, knee, ankle, [0, 0.4, 0], pole=[0, 1, 0],
                                      mid_axis=None)
    assert not ok and np.array_equal(qs, [0, 0, 0, 1]) and np.array_equal(qm, [0, 0, 0, 1])


def test_bad_operands_with_mid_axis_none_name_the_argument():
    hip, knee, ankle = _at((0, 1, 0)), _at((0, 0.5, 0.01)), _at((0, 0, 0))
    with pytest.raises(ValueError, match=r"^mid: "):
        skelsimd.ik_two_bone(hip, knee[:2], ankle, [0, 0.4, 0], pole=[0, 0, 1], mid_axis=None)
    with pytest.raises(TypeError, match=r"^pole: "):
        skelsimd.ik_two_bone(hip, knee, ankle, [0, 0.4, 0], pole="up", mid_axis=None)


@pytest.mark.parametrize("args, error, match", [
    ((np.zeros(3), np.zeros((3, 4)), np.zeros((3, 4)), [0, 0, 1]), ValueError,
     r"start: expected shape \(\.\.\., 3, 4\), got \(3,\)"),
    ((np.zeros((3, 4)), np.zeros((3, 0)), np.zeros((3, 4)), [0, 0, 1]), ValueError,
     r"mid: expected shape \(\.\.\., 3, 4\), got \(3, 0\)"),
    ((np.zeros((3, 4)), np.zeros((3, 4)), 1.0, [0, 0, 1]), ValueError, "end: expected shape"),
    ((np.zeros((3, 4)), np.zeros((3, 4)), np.zeros((3, 4)), [0, 1]), ValueError,
     r"pole: expected shape \(\.\.\., 3\), got \(2,\)"),
    ((np.zeros((2, 3, 4)), np.zeros((3, 3, 4)), np.zeros((3, 4)), [0, 0, 1]), ValueError,
     r"leading dimensions \(2,\), \(3,\), \(\), \(\) do not broadcast"),
    (("abc", np.zeros((3, 4)), np.zeros((3, 4)), [0, 0, 1]), TypeError,
     "start: expected real numbers"),
    ((np.zeros((1,) * 40 + (3, 4)), np.zeros((3, 4)), np.zeros((3, 4)), [0, 0, 1]), ValueError,
     "start: expected at most 30 leading dimensions, got 40"),
])
def test_bend_axis_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        skelsimd.bend_axis(*args)
