"""ik_two_bone, ik_aim and the Skeleton's two_bone, look_at and solve_chain: geometric properties
after re-walking the corrected poses, the float64 references, degenerate inputs on every SIMD
variant (`isa` fixture; every variant against scalar, bit for bit: tests/test_bit_identity.py)
and error rules."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import testing as T
from skelsimd._isa import supported_isas, use_isa
from skelsimd.bounds import bound
from skelsimd.reference import ik as R

from catalog import IK_LEG as LEG, degenerate_chains, ik_legs as legs, random_dirs, unit_vectors as unit

REACH, ANGLE, CORR = bound("ik.two_bone.reach"), bound("ik.aim.angle"), bound("ik.correction")
IDENTITY = np.array([0, 0, 0, 1], np.float32)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40))
def test_two_bone_reaches_target(isa, seed, n):
    """Reached, the end joint re-walked is at the target; bone lengths kept; the knee on the
    pole side of the start-target line."""
    rng = np.random.default_rng(seed)
    local, glob, axis, target, pole, length = legs(n, rng)
    fixed, reached = LEG.two_bone(local, ("hip", "knee", "ankle"), target, pole=pole,
                                  mid_axis=axis, return_reached=True)
    assert reached.all()
    g = skelsimd.qts_local_to_global_matrix(fixed, LEG).astype(np.float64)
    err = np.linalg.norm(g[:, 2, :, 3] - target, axis=-1) / length
    assert err.max() <= REACH, err.max()
    for a, b in ((0, 1), (1, 2)):
        before = np.linalg.norm(glob[:, b, :, 3] - glob[:, a, :, 3].astype(np.float64), axis=-1)
        after = np.linalg.norm(g[:, b, :, 3] - g[:, a, :, 3], axis=-1)
        assert np.abs(after - before).max() <= 1e-5 * length.max()
    hip, knee = g[:, 0, :, 3], g[:, 1, :, 3]
    line = unit(target - hip)
    off = (knee - hip) - line * ((knee - hip) * line).sum(-1, keepdims=True)
    pole_perp = pole - line * (pole * line).sum(-1, keepdims=True)
    assert ((off * pole_perp).sum(-1) > 0).all()


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 20))
def test_two_bone_unreachable_is_straight(isa, seed, n):
    rng = np.random.default_rng(seed)
    local, glob, axis, _, pole, length = legs(n, rng)
    target = glob[:, 0, :, 3] + random_dirs(n, rng) * (length * rng.uniform(1.1, 3, n))[:, None]
    fixed, reached = LEG.two_bone(local, (0, 1, 2), target, pole=pole, mid_axis=axis,
                                  return_reached=True)
    assert not reached.any()
    g = skelsimd.qts_local_to_global_matrix(fixed, LEG).astype(np.float64)
    to_end = unit(g[:, 2, :, 3] - g[:, 0, :, 3])
    to_target = unit(target - g[:, 0, :, 3])
    assert np.abs(to_end - to_target).max() <= 1e-4
    assert np.abs(np.linalg.norm(g[:, 2, :, 3] - g[:, 0, :, 3], axis=-1) - length).max() \
        <= 1e-4 * length.max()


def bent_legs(n, rng, bend, distance):
    """n legs whose chain is bent by `bend` (n,) radians away from straight (0: straight, pi:
    folded back), the target at `distance` (n,) in [0, 1] of the reachable range from the
    folded length |l1 - l2| (0) to full extension l1 + l2 (1): (local, globals, mid_axis,
    target, pole, chain length)."""
    l1, l2 = rng.uniform(0.3, 1.0, n), rng.uniform(0.3, 1.0, n)
    d1 = random_dirs(n, rng)
    k = unit(np.cross(d1, random_dirs(n, rng)))          # the bending axis, model space
    d2 = d1 * np.cos(bend)[:, None] + np.cross(k, d1) * np.sin(bend)[:, None]
    local = T.random_qts((n, 3), rng, translation=1.0).astype(np.float64)
    glob = skelsimd.qts_local_to_global_matrix(local.astype(np.float32), LEG).astype(np.float64)
    local[:, 1, 4:7] = np.einsum("nji,nj->ni", glob[:, 0, :, :3], d1 * l1[:, None])
    glob = skelsimd.qts_local_to_global_matrix(local.astype(np.float32), LEG).astype(np.float64)
    local[:, 2, 4:7] = np.einsum("nji,nj->ni", glob[:, 1, :, :3], d2 * l2[:, None])
    local = local.astype(np.float32)
    glob = skelsimd.qts_local_to_global_matrix(local, LEG)
    mid_axis = np.einsum("nji,nj->ni", glob[:, 1, :, :3].astype(np.float64), -k)
    # the bone lengths as stored (float32), so that the range's ends are the chain's own
    g = glob.astype(np.float64)
    b1 = np.linalg.norm(g[:, 1, :, 3] - g[:, 0, :, 3], axis=-1)
    b2 = np.linalg.norm(g[:, 2, :, 3] - g[:, 1, :, 3], axis=-1)
    lo, hi = np.abs(b1 - b2), b1 + b2
    dist = lo + distance * (hi - lo)
    target = g[:, 0, :, 3] + random_dirs(n, rng) * dist[:, None]
    pole = random_dirs(n, rng)
    return local, glob, mid_axis.astype(np.float32), target.astype(np.float32), \
        pole.astype(np.float32), hi


# 10^-e from an end of a range: the ill-conditioned ends (full extension, folding, a straight
# or folded chain) drawn as densely as the middle
_NEAR_END = st.floats(1.0, 7.0)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), bend_e=_NEAR_END,
       folded=st.booleans(), dist_e=_NEAR_END, end=st.sampled_from(["extension", "folding",
                                                                      "anywhere"]))
def test_two_bone_reach_over_the_whole_range(isa, seed, n, bend_e, folded, dist_e, end):
    """The reach bound near full extension and near folding (targets within 1e-7 of the
    chain length of either end), on chains that start nearly straight or nearly folded (the
    law of cosines on squared lengths lost the half angles there: 3.8e-5 at 99.7% extension on
    a straight chain)."""
    rng = np.random.default_rng(seed)
    eps = 10.0 ** -rng.uniform(bend_e - 0.5, bend_e + 0.5, n)
    bend = np.pi - eps if folded else eps
    near = 10.0 ** -rng.uniform(dist_e - 0.5, dist_e + 0.5, n)
    distance = {"extension": 1 - near, "folding": near, "anywhere": rng.uniform(0, 1, n)}[end]
    local, glob, axis, target, pole, length = bent_legs(n, rng, bend, distance)
    fixed, reached = LEG.two_bone(local, (0, 1, 2), target, pole=pole, mid_axis=axis,
                                  return_reached=True)
    g = skelsimd.qts_local_to_global_matrix(fixed, LEG).astype(np.float64)
    err = np.linalg.norm(g[:, 2, :, 3] - target, axis=-1) / length
    assert np.isfinite(fixed).all()
    assert reached.mean() >= 0.5    # the ends themselves: reached or not by rounding
    assert err[reached].max(initial=0) <= REACH, err[reached].max()


def test_two_bone_soften_and_weight(isa):
    rng = np.random.default_rng(3)
    local, glob, axis, target, pole, length = legs(64, rng)
    m = [glob[:, k] for k in range(3)]
    qs, qm, reached = skelsimd.ik_two_bone(*m, target, pole=pole, mid_axis=axis, weight=0.0)
    assert np.array_equal(qs, np.broadcast_to(IDENTITY, qs.shape))
    assert np.array_equal(qm, np.broadcast_to(IDENTITY, qm.shape)) and not reached.any()
    _, _, reached = skelsimd.ik_two_bone(*m, target, pole=pole, mid_axis=axis, weight=0.5)
    assert not reached.any()
    full = skelsimd.ik_two_bone(*m, target, pole=pole, mid_axis=axis)
    half = skelsimd.ik_two_bone(*m, target, pole=pole, mid_axis=axis, weight=0.5)
    for f, h in zip(full[:2], half[:2]):   # the half-weighted rotation: about half the angle
        assert np.allclose(2 * np.arccos(np.clip(h[:, 3], -1, 1)),
                           np.arccos(np.clip(f[:, 3], -1, 1)) * 2 / 2 * 2 / 2 * 1, atol=0.2)
        assert (h[:, 3] >= f[:, 3] - 1e-6).all()
    # soften < 1: a target near full extension is not reached, the chain falls short
    near = glob[:, 0, :, 3] + unit(target - glob[:, 0, :, 3]) * (0.99 * length)[:, None]
    _, _, reached = skelsimd.ik_two_bone(*m, near, pole=pole, mid_axis=axis, soften=0.8)
    assert not reached.any()
    fixed = LEG.two_bone(local, (0, 1, 2), near, pole=pole, mid_axis=axis, soften=0.8)
    g = skelsimd.qts_local_to_global_matrix(fixed, LEG).astype(np.float64)
    short = np.linalg.norm(g[:, 2, :, 3] - g[:, 0, :, 3], axis=-1)
    assert (short < 0.99 * length).all() and (short > 0.8 * length).all()


def test_two_bone_matches_reference(isa):
    rng = np.random.default_rng(4)
    _, glob, axis, target, pole, _ = legs(500, rng, margin=0.1)
    twist = rng.uniform(-1, 1, 500).astype(np.float32)
    weight = rng.uniform(0.2, 1.2, 500).astype(np.float32)
    soften = rng.uniform(0.7, 1, 500).astype(np.float32)
    got = skelsimd.ik_two_bone(glob[:, 0], glob[:, 1], glob[:, 2], target, pole=pole,
                               mid_axis=axis, twist=twist, soften=soften, weight=weight)
    want = R.two_bone(glob[:, 0], glob[:, 1], glob[:, 2], target, pole, unit(axis.astype(float)),
                      twist, soften, weight)
    assert np.abs(got[0] - want[0]).max() <= CORR
    assert np.abs(got[1] - want[1]).max() <= CORR
    assert np.array_equal(got[2], want[2])


def test_two_bone_degenerate_inputs(isa):
    glob, axis, target, pole = degenerate_chains(np.random.default_rng(6))
    qs, qm, reached = skelsimd.ik_two_bone(glob[:, 0], glob[:, 1], glob[:, 2], target, pole=pole,
                                           mid_axis=axis)
    assert np.isfinite(qs).all() and np.isfinite(qm).all()
    assert np.allclose(np.linalg.norm(qs, axis=-1), 1, atol=1e-6)
    for k in (0, 3, 4, 5, 6):
        assert np.array_equal(qs[k], IDENTITY) and np.array_equal(qm[k], IDENTITY)
        assert not reached[k]
    assert not reached[1] and reached[9:].all()


def aim_joints(n, rng):
    q = T.random_qts((n,), rng, translation=1.0, scale=(0.5, 2.0))
    return skelsimd.qts_to_matrix(q)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), with_offset=st.booleans())
def test_aim_points_at_target(isa, seed, n, with_offset):
    """The corrected forward line (from the offset point) passes through the target; the up
    axis on the pole's side."""
    rng = np.random.default_rng(seed)
    j = aim_joints(n, rng)
    target = (j[:, :, 3] + random_dirs(n, rng) * rng.uniform(1, 3, (n, 1))).astype(np.float32)
    forward = random_dirs(n, rng).astype(np.float32)
    up = random_dirs(n, rng).astype(np.float32)
    offset = (random_dirs(n, rng) * 0.1).astype(np.float32) if with_offset else np.zeros(3)
    pole = random_dirs(n, rng).astype(np.float32)
    q, reached = skelsimd.ik_aim(j, target, forward=forward, up=up, offset=offset, pole=pole)
    assert reached.all()
    rot = j[:, :, :3].astype(np.float64) @ skelsimd.quat_to_matrix(q).astype(np.float64)
    f = unit(np.einsum("nij,nj->ni", rot, forward))
    origin = j[:, :, 3] + np.einsum("nij,nj->ni", rot, np.broadcast_to(offset, (n, 3)))
    to_target = unit(target - origin)
    angle = np.arctan2(np.linalg.norm(np.cross(f, to_target), axis=-1), (f * to_target).sum(-1))
    assert angle.max() <= ANGLE * (20 if with_offset else 1), angle.max()
    u = np.einsum("nij,nj->ni", rot, up)
    line = unit(target - j[:, :, 3])
    u_perp = u - line * (u * line).sum(-1, keepdims=True)
    p_perp = pole - line * (pole * line).sum(-1, keepdims=True)
    ok = (np.linalg.norm(u_perp, axis=-1) > 1e-2) & (np.linalg.norm(p_perp, axis=-1) > 1e-2)
    assert ((u_perp * p_perp).sum(-1)[ok] > 0).all()


def test_aim_weight_reference_degenerate(isa):
    rng = np.random.default_rng(9)
    n = 300
    j = aim_joints(n, rng)
    target = (j[:, :, 3] + random_dirs(n, rng) * 2).astype(np.float32)
    fwd, up, pole = (random_dirs(n, rng).astype(np.float32) for _ in range(3))
    q0, r0 = skelsimd.ik_aim(j, target, forward=fwd, up=up, pole=pole, weight=0.0)
    assert np.array_equal(q0, np.broadcast_to(IDENTITY, q0.shape))
    tw = rng.uniform(-2, 2, n)
    w = rng.uniform(0.2, 1.2, n)
    offset = (random_dirs(n, rng) * 0.2).astype(np.float32)
    got = skelsimd.ik_aim(j, target, forward=fwd, up=up, offset=offset, pole=pole, twist=tw,
                          weight=w)
    want = R.aim(j, target, pole, fwd, up, offset, tw, w)
    good = np.abs((unit(np.cross(up, fwd)) * 0).sum(-1)) == 0
    assert np.abs(got[0] - want[0])[good].max() <= CORR and np.array_equal(got[1], want[1])
    # unreachable offset (further from the forward line than the target): identity, not reached
    far = np.float32([0, 5, 0])
    q, r = skelsimd.ik_aim(j[:4], j[:4, :, 3] + 0.1, forward=[1, 0, 0], offset=far)
    assert not r.any() and np.array_equal(q, np.broadcast_to(IDENTITY, q.shape))
    # NaN target, target at the joint, up parallel to the target, singular joint
    t2 = target[:4].copy()
    t2[0] = np.nan
    t2[1] = j[1, :, 3]
    j2 = j[:4].copy()
    j2[3, :, :3] = 0
    q, r = skelsimd.ik_aim(j2, t2, forward=fwd[:4], up=up[:4], pole=pole[:4])
    assert np.isfinite(q).all() and np.array_equal(q[[0, 1, 3]], np.broadcast_to(IDENTITY, (3, 4)))
    assert not r[0] and not r[3]


def test_broadcasting_shapes(isa):
    rng = np.random.default_rng(11)
    _, glob, axis, target, pole, _ = legs(6, rng)
    g = glob.reshape(2, 3, 3, 3, 4)
    qs, qm, r = skelsimd.ik_two_bone(g[..., 0, :, :], g[..., 1, :, :], g[..., 2, :, :],
                                     target[0], pole=pole[0], mid_axis=axis[0])
    assert qs.shape == (2, 3, 4) and qm.shape == (2, 3, 4) and r.shape == (2, 3)
    one = skelsimd.ik_two_bone(g[1, 2, 0], g[1, 2, 1], g[1, 2, 2], target[0], pole=pole[0],
                               mid_axis=axis[0])
    assert np.array_equal(one[0], qs[1, 2]) and np.array_equal(one[1], qm[1, 2])
    q, r = skelsimd.ik_aim(glob[0, 0], target.reshape(2, 3, 3))
    assert q.shape == (2, 3, 4) and r.shape == (2, 3)
    # frames x characters on a Skeleton: one target per character
    local, *_ = legs(4, rng)
    poses = np.broadcast_to(local, (5, 4, 3, 8))
    fixed = LEG.two_bone(poses, ("hip", "knee", "ankle"), target[:4], pole=[0, 0, 1],
                         mid_axis=[1, 0, 0])
    assert fixed.shape == (5, 4, 3, 8)


def test_look_at_chain(isa):
    rng = np.random.default_rng(12)
    spine = skelsimd.Skeleton([-1, 0, 1, 2], names=["hips", "spine", "neck", "head"])
    local = T.random_qts((7, 4), rng, translation=0.3)
    target = rng.uniform(-3, 3, (7, 3)).astype(np.float32) + [0, 0, 3]
    offset, forward = np.float32([0.05, 0.1, 0]), np.float32([0, 0, 1])
    posed = spine.look_at(local, ["head", "neck", "spine"], target, [0.5, 0.5, 1.0],
                          forward=forward, offset=offset)
    g = skelsimd.qts_local_to_global_matrix(posed, spine).astype(np.float64)
    eye = g[:, 3, :, 3] + np.einsum("nij,j->ni", g[:, 3, :, :3], offset)
    f = unit(np.einsum("nij,j->ni", g[:, 3, :, :3], forward))
    t = unit(target - eye)
    angle = np.arctan2(np.linalg.norm(np.cross(f, t), axis=-1), (f * t).sum(-1))
    assert angle.max() <= 20 * ANGLE, angle.max()
    assert np.array_equal(posed[:, 0], local[:, 0])      # not in the chain: untouched
    # spread: the neck and spine turned too
    assert not np.allclose(posed[:, 1:3, :4], local[:, 1:3, :4])


@given(seed=st.integers(0, 2**32 - 1), joints=st.integers(2, 8))
def test_solve_chain(isa, seed, joints):
    rng = np.random.default_rng(seed)
    arm = skelsimd.Skeleton(np.arange(joints) - 1)
    local = T.random_qts((3, joints), rng, translation=0.5)
    g0 = skelsimd.qts_local_to_global_matrix(local, arm).astype(np.float64)
    bones = np.linalg.norm(np.diff(g0[..., :, :, 3], axis=-2), axis=-1)
    length = bones.sum(-1)
    target = g0[:, 0, :, 3] + random_dirs(3, rng) * (rng.uniform(0.3, 0.8, 3) * length)[:, None]
    posed, err = arm.solve_chain(local, range(joints), target, iterations=200, tolerance=1e-4,
                                 return_error=True)
    g = skelsimd.qts_local_to_global_matrix(posed, arm).astype(np.float64)
    assert np.allclose(np.linalg.norm(np.diff(g[..., :, :, 3], axis=-2), axis=-1), bones,
                       atol=1e-5)
    assert np.isfinite(posed).all()
    if joints > 2:   # a two-joint chain is a single bone: only its direction can match
        assert (err <= 1e-3 * length).mean() >= 2 / 3


def test_solve_chain_stops_when_the_chain_stops_moving(monkeypatch):
    """The most iterations on an unreachable target (and on a target along a straight chain,
    which CCD cannot bend towards) end once the chain stops moving, not after 10,000
    iterations: every call is bounded."""
    arm = skelsimd.Skeleton([-1, 0, 1, 2])
    local = np.tile(np.float32([0, 0, 0, 1, 1, 0, 0, 1]), (4, 1))
    calls = []
    real = skelsimd.ik.ik_aim

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(skelsimd.ik, "ik_aim", counting)
    for target in ([10.0, 5.0, 3.0], [0.1, 0.0, 0.0]):
        calls.clear()
        posed, err = arm.solve_chain(local, [0, 1, 2, 3], target, tolerance=0.0,
                                     iterations=skelsimd.ik.MAX_CHAIN_ITERATIONS,
                                     return_error=True)
        assert np.isfinite(posed).all()
        assert len(calls) <= 3 * 200, len(calls)       # 3 joints turned per iteration
    # stretched towards the unreachable target
    g = skelsimd.qts_local_to_global_matrix(posed, arm)
    assert np.isfinite(g).all()


# --- errors --------------------------------------------------------------------------------

def test_errors():
    m = np.tile(np.hstack([np.eye(3), np.zeros((3, 1))]).astype(np.float32), (4, 1, 1))
    t = np.zeros((4, 3), np.float32)
    qs, qm, r = skelsimd.ik_two_bone(m, m, m, t, pole=t, mid_axis=(0, 0, 0))   # degenerate
    assert np.array_equal(qs, np.broadcast_to(IDENTITY, qs.shape)) and not r.any()
    q, r = skelsimd.ik_aim(m, t + 1, forward=(0, 0, 0))
    assert np.array_equal(q, np.broadcast_to(IDENTITY, q.shape)) and not r.any()
    with pytest.raises(ValueError, match="start"):
        skelsimd.ik_two_bone(m[:, :2], m, m, t, pole=t)
    with pytest.raises(ValueError, match="target"):
        skelsimd.ik_two_bone(m, m, m, t[:, :2], pole=t)
    with pytest.raises(ValueError, match="broadcast"):
        skelsimd.ik_two_bone(m, m, m, np.zeros((3, 3)), pole=t)
    with pytest.raises(TypeError, match="pole"):
        skelsimd.ik_aim(m, t, pole=np.array(["a", "b", "c"]))
    with pytest.raises(TypeError):
        skelsimd.ik_two_bone(m, m, m, t)   # pole is required
    local = np.tile(np.float32([0, 0, 0, 1, 0, 1, 0, 1]), (3, 1))
    with pytest.raises(ValueError, match="joints"):
        LEG.two_bone(local, ("ankle", "knee", "hip"), [0, 0, 0], pole=[0, 0, 1])
    with pytest.raises(ValueError, match="joints"):
        LEG.two_bone(local, ("hip", "knee"), [0, 0, 0], pole=[0, 0, 1])
    with pytest.raises(ValueError, match="local"):
        LEG.two_bone(local[:2], ("hip", "knee", "ankle"), [0, 0, 0], pole=[0, 0, 1])
    with pytest.raises(ValueError, match="chain"):
        LEG.look_at(local, ["hip", "ankle"], [0, 0, 1])
    with pytest.raises(ValueError, match="weights"):
        LEG.look_at(local, ["ankle", "knee"], [0, 0, 1], [1.0])
    with pytest.raises(ValueError, match="target"):
        LEG.solve_chain(local, [0, 1, 2], [np.nan, 0, 0])
    with pytest.raises(ValueError, match="iterations"):
        LEG.solve_chain(local, [0, 1, 2], [0, 0, 0], iterations=-1)
    for big in (skelsimd.ik.MAX_CHAIN_ITERATIONS + 1, 2**64 - 1, np.uint64(2**64 - 1)):
        with pytest.raises(ValueError, match="iterations"):
            LEG.solve_chain(local, [0, 1, 2], [0, 0, 0], iterations=big)
    for bad in (2**1024, -1e-3, float("nan")):
        with pytest.raises(ValueError, match="tolerance"):
            LEG.solve_chain(local, [0, 1, 2], [0, 0, 0], tolerance=bad)
    with pytest.raises(ValueError, match="joint"):
        LEG.solve_chain(local, ["hip", "toe"], [0, 0, 0])



def test_chains_remembered_per_skeleton():
    """A chain given again resolves from the skeleton's cache: names and indices give the same
    poses, joints equal as values but of another type (True for 1, 1.0 for 1) still raise,
    chains that raise are not remembered, and the cache stays bounded."""
    skel = skelsimd.Skeleton([-1, 0, 1, 2], names=["hip", "knee", "ankle", "toe"])
    local = np.tile(np.float32([0, 0, 0, 1, 0, -0.5, 0.01, 1]), (4, 1))
    t = np.float32([0.2, -0.7, 0.1])
    by_name = skel.two_bone(local, ("hip", "knee", "ankle"), t, pole=[0, 0, 1])
    for _ in range(2):
        assert np.array_equal(skel.two_bone(local, [0, 1, 2], t, pole=[0, 0, 1]), by_name)
        assert np.array_equal(skel.two_bone(local, ("hip", "knee", "ankle"), t, pole=[0, 0, 1]),
                              by_name)
        assert np.array_equal(skel.two_bone(local, np.array([0, 1, 2]), t, pole=[0, 0, 1]),
                              by_name)
        with pytest.raises(TypeError, match="joint"):
            skel.two_bone(local, [0, True, 2], t, pole=[0, 0, 1])
        with pytest.raises(TypeError, match="joint"):
            skel.two_bone(local, [0, 1.0, 2], t, pole=[0, 0, 1])
        with pytest.raises(ValueError, match="joints"):
            skel.two_bone(local, ("ankle", "knee", "hip"), t, pole=[0, 0, 1])
        with pytest.raises(ValueError, match="chain"):
            skel.look_at(local, ["hip", "ankle"], t)
        with pytest.raises(ValueError, match="chain"):
            skel.look_at(local, [], t)
        with pytest.raises(ValueError, match="chain"):
            skel.solve_chain(local, ["toe"], t)
        with pytest.raises(TypeError, match="joint"):
            skel.solve_chain(local, [0, [1], 2], t)
        assert np.array_equal(skel.look_at(local, "ankle", t), skel.look_at(local, [2], t))
        assert np.array_equal(skel.solve_chain(local, ["hip", "knee", "toe"], t),
                              skel.solve_chain(local, [0, 1, 3], t))
    line = skelsimd.Skeleton(np.arange(-1, 199))   # many distinct chains: the cache is bounded
    poses = np.tile(np.float32([0, 0, 0, 1, 0.1, 0, 0, 1]), (200, 1))
    for end in range(1, 200):
        posed = line.solve_chain(poses, [0, end], t, iterations=1)
        assert np.array_equal(posed, line.solve_chain(poses, [0, end], t, iterations=1))
        assert len(line._ik_chains) <= skelsimd.ik._CHAINS_KEPT


def test_look_at_forward_literals():
    """A forward axis given as a tuple (converted once and remembered) gives the same poses as
    the same axis as a list or array, on every call; bad or zero axes behave the same too."""
    skel = skelsimd.Skeleton([-1, 0, 1], names=["spine", "neck", "head"])
    local = np.tile(np.float32([0, 0, 0, 1, 0, 0.3, 0, 1]), (3, 1))
    t = [1.0, 2.0, 1.0]
    want = skel.look_at(local, ["head", "neck"], t, forward=np.float32([0, 1, 0.5]))
    for _ in range(2):
        for fwd in ((0, 1, 0.5), (0.0, 1.0, 0.5), [0, 1, 0.5]):
            assert np.array_equal(skel.look_at(local, ["head", "neck"], t, forward=fwd), want)
        assert np.array_equal(skel.look_at(local, ["head", "neck"], t, forward=(0, 0, 0)), local)
        with pytest.raises(ValueError, match="forward"):
            skel.look_at(local, ["head"], t, forward=(1, 0))
        with pytest.raises(TypeError, match="forward"):
            skel.look_at(local, ["head"], t, forward=("a", "b", "c"))

class _Sub(np.ndarray):
    """An ndarray subclass: the entries' fast path takes exact ndarrays, numbers and 3-tuples
    only, so operands viewed as this class (the same values) take the general path."""


def _general_path(func, specs):
    """The entry's general conversion and broadcasting, bypassing its fast path."""
    ops = [np.asarray(v).view(_Sub) for _, v, _ in specs]
    return getattr(skelsimd._core, func)(*ops)


def _operand(draw, rng, lead, width):
    """One operand of `width` floats in a form the fast path takes: a float32 array with the
    batch's leading dimensions or none, a Python number, or a tuple / list of three numbers
    (ints included)."""
    trail = {12: (3, 4), 3: (3,), 1: ()}[width]
    kind = draw(st.sampled_from(["batch", "one", "python"]))
    a = rng.uniform(-2, 2, lead + trail).astype(np.float32)
    if width == 12:
        a[..., :3] += np.eye(3, dtype=np.float32)
    if kind == "batch":
        return a
    one = np.array(rng.uniform(-2, 2, trail), np.float32)
    if kind == "one" or width == 12:
        return one
    vals = [float(v) for v in one.reshape(-1)]
    if draw(st.booleans()):
        vals = [int(round(v)) for v in vals]
    if width == 1:
        return vals[0]
    return tuple(vals) if draw(st.booleans()) else vals


@given(data=st.data(), seed=st.integers(0, 2**32 - 1),
       lead=st.sampled_from([(), (1,), (5,), (2, 3), (0,), (17,)]))
def test_fast_path_equals_general_path(isa, data, seed, lead):
    """The per-call fast path (float32 arrays of one batch shape, numbers, 3-tuples and
    lists) gives the general path's results, bit for bit, and the same shapes."""
    rng = np.random.default_rng(seed)
    ops2 = [("start", 12), ("mid", 12), ("end", 12), ("target", 3), ("pole", 3),
            ("mid_axis", 3), ("twist", 1), ("twist", 1), ("soften", 1), ("weight", 1)]
    opsa = [("joint", 12), ("target", 3), ("pole", 3), ("forward", 3), ("up", 3),
            ("offset", 3), ("twist", 1), ("twist", 1), ("weight", 1)]
    for func, spec in (("ik_two_bone", ops2), ("ik_aim", opsa)):
        vals = [_operand(data.draw, rng, lead, w) for _, w in spec]
        fast = getattr(skelsimd._core, func)(*vals)
        general = _general_path(func, [(name, v, w) for (name, w), v in zip(spec, vals)])
        assert len(fast) == len(general)
        for d, g in zip(fast, general):
            assert d.dtype == g.dtype and d.shape == g.shape
            assert np.array_equal(d.view(np.uint8), g.view(np.uint8))


def test_forms_the_fast_path_leaves_take_the_general_rules(isa):
    """Anything else (other dtypes, leading dimensions to broadcast, big ints, other types) is
    converted and broadcast by the general rules: the wrappers' results are those of the
    general path."""
    rng = np.random.default_rng(5)
    _, glob, axis, target, pole, _ = legs(6, rng)
    s, m, e = glob[:, 0], glob[:, 1], glob[:, 2]
    wide = np.repeat(target, 2, axis=0)[::2]   # a non-contiguous float32 batch
    assert not wide.flags.c_contiguous
    cases = [dict(target=target.astype(np.float64)), dict(target=target[:1]),
             dict(target=target[None]), dict(mid_axis=(0, 0, 2**30)),
             dict(mid_axis=(0.0, 0.0, np.float32(1))), dict(pole=pole.astype(">f4")),
             dict(soften=np.float64(0.9)), dict(weight=True), dict(target=[[0, 1, 0]] * 6),
             dict(target=wide)]
    base = dict(target=target, pole=pole, mid_axis=axis)
    for change in cases:
        kw = {**base, **change}
        got = skelsimd.ik_two_bone(s, m, e, kw["target"], pole=kw["pole"], mid_axis=kw["mid_axis"],
                                   soften=kw.get("soften", 1.0), weight=kw.get("weight", 1.0))
        want = _general_path("ik_two_bone", [
            ("start", s, 12), ("mid", m, 12), ("end", e, 12), ("target", kw["target"], 3),
            ("pole", kw["pole"], 3), ("mid_axis", kw["mid_axis"], 3), ("twist", 0.0, 1),
            ("twist", 1.0, 1), ("soften", kw.get("soften", 1.0), 1),
            ("weight", kw.get("weight", 1.0), 1)])
        assert len(got) == len(want) == 3
        for a, b in zip(got, want):
            assert a.shape == b.shape and np.array_equal(a, b), change


def test_general_path_errors_name_the_operands():
    """The general path's refusals: a trailing shape names its operand, leading shapes that do
    not broadcast name every operand with its shape, and a broadcast copy that would pass
    NumPy's limit of dimensions is refused before anything runs."""
    rng = np.random.default_rng(3)
    _, glob, axis, target, pole, _ = legs(4, rng)
    s = glob[:, 0]
    with pytest.raises(ValueError, match=r"^target: expected shape \(\.\.\., 3\), got \(4, 2\)$"):
        skelsimd.ik_two_bone(s, s, s, target[:, :2], pole=pole)
    with pytest.raises(ValueError, match=r"^ik_aim: leading \(batch\) shapes \(4,\), \(3,\), "
                                         r"\(\), .* do not broadcast: joint \(4, 3, 4\), "
                                         r"target \(3, 3\), pole \(3,\),"):
        skelsimd.ik_aim(s, target[:3])
    with pytest.raises(TypeError, match="^weight: expected a real numeric array, got dtype complex128$"):
        skelsimd.ik_aim(s, target, weight=1j)
    with pytest.raises(ValueError, match="maximum supported dimension"):
        skelsimd.ik_aim(s[:2], np.zeros((1,) * 62 + (2, 3), np.float32))


# --- look_at: the chain kernel ----------------------------------------------------------------

LOOK = bound("ik.look_at")


def look_chains(n, c, rng):
    """n chains of c joints as the ik.look_at bound states them: model matrices (n, c, 3, 4)
    with any rotation, a scale in [0.5, 2] and translations in [-1, 1]; the target 1 to 3 from
    the aiming joint; pole, forward, up any; offsets around 0.1; twists in [-1, 1] radians."""
    q = unit(rng.standard_normal((n * c, 4)))
    m = np.empty((n, c, 3, 4))
    rot = skelsimd.quat_to_matrix(q.astype(np.float32)).astype(np.float64)
    m[..., :3] = (rot * rng.uniform(0.5, 2, (n * c, 1, 1))).reshape(n, c, 3, 3)
    m[..., 3] = rng.uniform(-1, 1, (n, c, 3))
    m = m.astype(np.float32)
    target = (m[:, 0, :, 3] + random_dirs(n, rng) * rng.uniform(1, 3, (n, 1))).astype(np.float32)
    pole, forward, up = (rng.standard_normal((n, 3)).astype(np.float32) for _ in range(3))
    offset = (0.1 * rng.standard_normal((n, 3))).astype(np.float32)
    return m, target, pole, forward, up, offset, rng.uniform(-1, 1, n)


def kernel_look_at(m, target, pole, forward, up, offset, twist, weights):
    n = len(m)
    half = 0.5 * np.asarray(twist, np.float64)
    return skelsimd._core.ik_look_at(n, m, target, pole, forward, up, offset,
                                     np.sin(half).astype(np.float32),
                                     np.cos(half).astype(np.float32), np.float32(weights))


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), c=st.integers(1, 5))
def test_look_at_kernel_matches_reference(isa, seed, n, c):
    rng = np.random.default_rng(seed)
    ops = look_chains(n, c, rng)
    w = rng.uniform(0, 1, c)
    got = kernel_look_at(*ops, w)
    want = R.look_at(*ops, w)
    assert got.shape == (n, c, 4)
    assert np.abs(got - want).max() <= LOOK, np.abs(got - want).max()


def test_look_at_kernel_degenerate_chains(isa):
    """A singular chain joint gets the identity, and so does every joint after it; a
    non-finite target or a zero forward axis leaves the whole chain as it is; never NaN."""
    rng = np.random.default_rng(3)
    m, target, pole, forward, up, offset, twist = look_chains(24, 4, rng)
    m[0:8, 2, :, :3] = 0            # joint 2 singular
    target[8:12, 1] = np.nan
    forward[12:16] = 0
    m[16:20, 0, 0, 3] = np.inf      # the aiming joint not finite
    got = kernel_look_at(m, target, pole, forward, up, offset, twist, [1.0, 0.5, 0.5, 1.0])
    assert np.isfinite(got).all()
    assert not np.array_equal(got[0:8, :2], np.broadcast_to(IDENTITY, (8, 2, 4)))
    assert np.array_equal(got[0:8, 2:], np.broadcast_to(IDENTITY, (8, 2, 4)))
    assert np.array_equal(got[8:20], np.broadcast_to(IDENTITY, (12, 4, 4)))
    want = R.look_at(m, target, pole, forward, up, offset, twist, [1.0, 0.5, 0.5, 1.0])
    assert np.abs(got - want)[20:].max() <= LOOK
    assert np.array_equal(want[0:8, 2:], got[0:8, 2:])


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), c=st.integers(1, 4),
       shared=st.lists(st.booleans(), min_size=8, max_size=8))
def test_look_at_kernel_every_isa_bit_identical(seed, n, c, shared):
    """One operand per chain or one for all (step 0), every tail of 4- and 8-lane blocks,
    with degenerate lanes: every SIMD variant gives scalar's bits."""
    rng = np.random.default_rng(seed)
    ops = list(look_chains(max(n, 1), c, rng))
    ops[0][: max(n, 1) // 3, -1, :, :3] = 0
    ops[1][: max(n, 1) // 5, 0] = np.nan
    ops = [o[:1] if s else o[:n] for o, s in zip(ops, shared)]
    m, target, pole, forward, up, offset, twist = ops
    half = 0.5 * twist
    args = (n, m, target, pole, forward, up, offset, np.sin(half).astype(np.float32),
            np.cos(half).astype(np.float32), rng.uniform(0, 1, c).astype(np.float32))
    results = {}
    for variant in supported_isas():
        with use_isa(variant):
            results[variant] = skelsimd._core.ik_look_at(*args)
    for variant, got in results.items():
        assert got.shape == (n, c, 4)
        assert np.array_equal(got.view(np.uint32), results["scalar"].view(np.uint32)), variant


def test_look_at_against_reference_on_poses(isa):
    """Skeleton.look_at: the chain's matrices by forward kinematics, the reference's
    corrections multiplied into the chain joints' local rotations; other joints untouched."""
    rng = np.random.default_rng(21)
    spine = skelsimd.Skeleton([-1, 0, 1, 2, 3], names=["hips", "spine", "chest", "neck", "head"])
    local = T.random_qts((6, 5), rng, translation=0.3)
    target = rng.uniform(-3, 3, (6, 3)).astype(np.float32) + [0, 0, 3]
    chain, w = [4, 3, 1], [0.3, 0.6, 1.0]
    posed = spine.look_at(local, ["head", "neck", "spine"], target, w, forward=[0, 0, 1],
                          up=[0, 1, 0], offset=[0, 0.1, 0.05], pole=[0, 1, 0], twist=0.2)
    g = skelsimd.qts_local_to_global_matrix(local, spine)
    q = R.look_at(g[:, chain], target, np.broadcast_to([0, 1, 0], (6, 3)),
                  np.broadcast_to([0, 0, 1], (6, 3)), np.broadcast_to([0, 1, 0], (6, 3)),
                  np.broadcast_to([0, 0.1, 0.05], (6, 3)), np.full(6, 0.2), w)
    want = local.astype(np.float64).copy()
    want[:, chain, :4] = R.quat_mul(want[:, chain, :4], q)
    assert np.abs(posed - want).max() <= 2 * LOOK
    assert np.array_equal(posed[:, [0, 2]], local[:, [0, 2]])


def test_look_at_kernel_errors():
    z3, one = np.zeros(3, np.float32), np.ones(1, np.float32)
    chain = np.zeros((2, 12), np.float32)
    look = skelsimd._core.ik_look_at
    with pytest.raises(ValueError, match="weights: expected one weight per chain joint"):
        look(1, chain, z3, z3, z3, z3, z3, one, one, np.zeros(0, np.float32))
    with pytest.raises(ValueError, match=r"chain: expected 24 or 3 \* 24 floats"):
        look(3, np.zeros(36, np.float32), z3, z3, z3, z3, z3, one, one, np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"target: expected 3 or 2 \* 3 floats, got 9"):
        look(2, chain, np.zeros(9, np.float32), z3, z3, z3, z3, one, one, np.ones(2, np.float32))
    with pytest.raises(TypeError, match="weights"):
        LEG.look_at(T.random_qts((3,), np.random.default_rng(0)), ["ankle", "knee"], [0, 0, 1],
                    ["a", "b"])
    assert look(0, np.zeros(0, np.float32), z3, z3, z3, z3, z3, one, one,
                np.ones(2, np.float32)).shape == (0, 2, 4)
