"""Inertialization (the ``inertialize`` kernel family): inertialize_update,
inertialize_transition and pose_velocity against the float64 references on every SIMD variant
(`isa` fixture); continuity in value and velocity at the switch, decay to the target, the
spring's semigroup (one step of 2 dt = two steps of dt), broadcasting and bad input."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import testing as T
from skelsimd.bounds import bound
from skelsimd.reference import inertialize as R
from strategies import BATCH_SHAPES, with_layout

UPDATE, TRANSITION = bound("inertialize.update"), bound("inertialize.transition")
LAYOUTS = ["contiguous", "strided", "reversed"]


def same_rotation(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.minimum(np.abs(a[..., :4] - b[..., :4]).max(-1), np.abs(a[..., :4] + b[..., :4]).max(-1))


def offsets(shape, rng, scale=1.0):
    return rng.uniform(-scale, scale, tuple(shape) + (6,)).astype(np.float32)


@given(seed=st.integers(0, 2**32 - 1), batch=st.sampled_from(BATCH_SHAPES),
       joints=st.integers(1, 40), halflife=st.sampled_from([0.01, 0.05, 0.1, 0.3, 2.0]),
       dt=st.sampled_from([0.0, 1e-4, 1 / 120, 1 / 30, 0.25, 3.0, 100.0]),
       layout=st.sampled_from(LAYOUTS))
def test_update_matches_reference(isa, seed, batch, joints, halflife, dt, layout):
    rng = np.random.default_rng(seed)
    pose = T.random_qts(batch + (joints,), rng, scale=(0.5, 2.0))
    off, offv = offsets(batch + (joints,), rng), offsets(batch + (joints,), rng)
    out, x, v = skelsimd.inertialize_update(with_layout(pose, layout), with_layout(off, layout),
                                            offv, halflife=halflife, dt=dt)
    want, wx, wv = R.update(pose, off, offv, halflife, dt)
    assert out.dtype == x.dtype == v.dtype == np.float32
    assert out.shape == pose.shape and x.shape == v.shape == off.shape
    y = 2 * math.log(2) / halflife
    scale = max(1.0, float(np.abs(offv).max() + y * np.abs(off).max()))
    assert same_rotation(out, want).max() <= UPDATE
    assert np.abs(out[..., 4:] - want[..., 4:]).max() <= UPDATE * scale
    assert np.abs(x - wx).max() <= UPDATE * scale
    assert np.abs(v - wv).max() <= UPDATE * scale


@given(seed=st.integers(0, 2**32 - 1), batch=st.sampled_from(BATCH_SHAPES),
       joints=st.integers(1, 40), carried=st.booleans(), layout=st.sampled_from(LAYOUTS))
def test_transition_matches_reference(isa, seed, batch, joints, carried, layout):
    rng = np.random.default_rng(seed)
    src, dst = T.random_qts(batch + (joints,), rng), T.random_qts(batch + (joints,), rng)
    sv, dv = offsets((joints,), rng), offsets(batch + (joints,), rng)     # broadcast
    extra = (offsets(batch + (joints,), rng), offsets(batch + (joints,), rng)) if carried else ()
    x, v = skelsimd.inertialize_transition(with_layout(src, layout), sv, dst, dv, *extra)
    wx, wv = R.transition(src, sv, dst, dv, *extra)
    assert x.dtype == v.dtype == np.float32 and x.shape == v.shape == batch + (joints, 6)
    assert np.abs(x - wx).max() <= TRANSITION
    assert np.abs(v - wv).max() <= TRANSITION


@given(seed=st.integers(0, 2**32 - 1), joints=st.integers(1, 20),
       halflife=st.sampled_from([0.05, 0.1, 0.3]))
def test_continuous_at_the_switch_and_decays(isa, seed, joints, halflife):
    """The output starts at the source pose with the source's velocity (translations exactly,
    rotations to first order in the offset angle) and ends at the target's pose."""
    rng = np.random.default_rng(seed)
    src = T.random_qts((joints,), rng)
    dst = src.copy()
    small = rng.normal(size=(joints, 3)) * 0.01                     # offsets of about a degree
    dst[:, :4] = R.qmul(R.qexp(small), src[:, :4].astype(np.float64))
    dst[:, 4:7] += rng.uniform(-1, 1, (joints, 3)).astype(np.float32)
    sv = offsets((joints,), rng)
    still = np.zeros((joints, 6), np.float32)                       # the target stream stands still
    off, offv = skelsimd.inertialize_transition(src, sv, dst, still)
    out0, _, _ = skelsimd.inertialize_update(dst, off, offv, halflife=halflife, dt=0.0)
    assert np.abs(out0[:, 4:7] - src[:, 4:7]).max() <= 4 * UPDATE
    assert same_rotation(out0, src).max() <= 4 * UPDATE
    h = 1e-3                                                        # a central difference
    a, _, _ = skelsimd.inertialize_update(dst, off, offv, halflife=halflife, dt=h)
    vel = (np.asarray(a[:, 4:7], np.float64) - out0[:, 4:7]) / h
    # forward difference: h / 2 |x''| with |x''| = |2 y v + y^2 x| <= 2 y + 2 y^2 (|v| <= 1,
    # |x| <= 2), plus float32 rounding over h
    y = 2 * math.log(2) / halflife
    tol = 0.5 * h * (2 * y + 2 * y * y) + 8 * UPDATE / h
    np.testing.assert_allclose(vel, sv[:, 3:], atol=tol)
    w = skelsimd.pose_velocity(out0, a, h)
    np.testing.assert_allclose(w[:, :3], sv[:, :3], atol=tol + 0.05)
    late, x, v = skelsimd.inertialize_update(dst, off, offv, halflife=halflife, dt=40 * halflife)
    assert np.abs(x).max() <= 1e-9 and np.abs(v).max() <= 1e-6
    assert np.abs(late[:, 4:7] - dst[:, 4:7]).max() <= UPDATE
    assert same_rotation(late, dst).max() <= UPDATE


@given(seed=st.integers(0, 2**32 - 1))
def test_two_steps_equal_one(isa, seed):
    rng = np.random.default_rng(seed)
    pose = T.random_qts((7,), rng)
    off, offv = offsets((7,), rng), offsets((7,), rng)
    _, x1, v1 = skelsimd.inertialize_update(pose, off, offv, halflife=0.1, dt=1 / 60)
    _, x2, v2 = skelsimd.inertialize_update(pose, x1, v1, halflife=0.1, dt=1 / 60)
    _, x, v = skelsimd.inertialize_update(pose, off, offv, halflife=0.1, dt=2 / 60)
    scale = 1 + 2 * math.log(2) / 0.1
    assert np.abs(x2 - x).max() <= 4 * UPDATE * scale
    assert np.abs(v2 - v).max() <= 4 * UPDATE * scale


def test_exact_cases(isa):
    pose = np.array([[0, 0, 0, 2, 1, 2, 3, 1.5], [0, 0, 0, 0, 0, 0, 0, 1]], np.float32)
    zero = np.zeros((2, 6), np.float32)
    out, x, v = skelsimd.inertialize_update(pose, zero, zero, halflife=0.1, dt=0.5)
    np.testing.assert_array_equal(out[0], [0, 0, 0, 1, 1, 2, 3, 1.5])   # normalised; scale kept
    np.testing.assert_array_equal(out[1], pose[1])                       # a zero quaternion stays
    assert not x.any() and not v.any()
    big = np.full((2, 6), 1e30, np.float32)                              # fully decayed: exactly 0
    _, x, v = skelsimd.inertialize_update(pose, big * 1e-25, big * 1e-25, halflife=0.01, dt=10.0)
    assert not x.any() and not v.any()
    # rotation offsets beyond the polynomial's range (many turns) take the double path
    far = np.zeros((1, 6), np.float32)
    far[0, 1] = 20000.0
    out, _, _ = skelsimd.inertialize_update(pose[:1], far, np.zeros((1, 6)), halflife=1.0, dt=0.0)
    want, _, _ = R.update(pose[:1], far, np.zeros((1, 6)), 1.0, 0.0)
    assert same_rotation(out, want).max() <= 1e-3     # float32 angle of 2e4 rad: ulp 2e-3 rad


def test_pose_velocity_is_the_transition_offset(isa, rng):
    a, b = T.random_qts((5, 9), rng), T.random_qts((5, 9), rng)
    w = skelsimd.pose_velocity(a, b, 0.5)
    wx, _ = R.transition(b, np.zeros(6), a, np.zeros(6))
    assert w.dtype == np.float32 and w.shape == (5, 9, 6)
    assert np.abs(w - wx / 0.5).max() <= 2 * TRANSITION / 0.5


def test_inertializer_follows_the_functions(isa, rng):
    a, b = T.random_qts((4, 6), rng), T.random_qts((3, 6), rng)
    inert = skelsimd.Inertializer(halflife=0.2)
    va = skelsimd.pose_velocity(a[-2], a[-1], 1 / 30)
    vb = skelsimd.pose_velocity(b[0], b[1], 1 / 30)
    inert.transition(a[-1], va, b[0], vb)
    off, offv = skelsimd.inertialize_transition(a[-1], va, b[0], vb)
    for f in range(3):
        got = inert.update(b[f], 1 / 30)
        want, off, offv = skelsimd.inertialize_update(b[f], off, offv, halflife=0.2, dt=1 / 30)
        np.testing.assert_array_equal(got, want)


def test_empty_and_broadcast(isa, rng):
    out, x, v = skelsimd.inertialize_update(np.zeros((0, 3, 8)), np.zeros((3, 6)), np.zeros((3, 6)),
                                            halflife=0.1, dt=0.1)
    assert out.shape == (0, 3, 8) and x.shape == v.shape == (0, 3, 6)
    pose = T.random_qts((4, 5), rng)
    off = offsets((5,), rng)
    out, x, v = skelsimd.inertialize_update(pose, off, np.zeros((1, 5, 6)), halflife=0.1, dt=0.1)
    assert out.shape == (4, 5, 8) and x.shape == (4, 5, 6)
    one, _, _ = skelsimd.inertialize_update(pose[2], off, np.zeros((5, 6)), halflife=0.1, dt=0.1)
    np.testing.assert_array_equal(out[2], one)


@pytest.mark.parametrize("call, exc, words", [
    (lambda z: skelsimd.inertialize_update(np.zeros((3, 7)), z, z, halflife=0.1, dt=0.1),
     ValueError, ["pose", "(..., J, 8)"]),
    (lambda z: skelsimd.inertialize_update(np.zeros((3, 8)), np.zeros((4, 6)), z, halflife=0.1,
                                           dt=0.1), ValueError, ["offset", "(..., 3, 6)"]),
    (lambda z: skelsimd.inertialize_update(np.zeros((3, 8)), z, z, halflife=0, dt=0.1),
     ValueError, ["halflife"]),
    (lambda z: skelsimd.inertialize_update(np.zeros((3, 8)), z, z, halflife=0.1, dt=-1),
     ValueError, ["dt"]),
    (lambda z: skelsimd.inertialize_update(np.zeros((3, 8)), z, z, halflife=0.1, dt=math.nan),
     ValueError, ["dt"]),
    (lambda z: skelsimd.inertialize_update(np.zeros((2, 3, 8)), np.zeros((4, 3, 6)), z,
                                           halflife=0.1, dt=0.1), ValueError, ["broadcast"]),
    (lambda z: skelsimd.inertialize_update(np.array([["a"] * 8] * 3), z, z, halflife=0.1, dt=0.1),
     TypeError, ["pose", "dtype"]),
    (lambda z: skelsimd.inertialize_transition(np.zeros((3, 8)), z, np.zeros((3, 8)),
                                               np.zeros((3, 5))), ValueError, ["target_velocity"]),
    (lambda z: skelsimd.inertialize_transition(np.zeros((3, 8)), z, np.zeros((2, 8)), z),
     ValueError, ["target", "(..., 3, 8)"]),
    (lambda z: skelsimd.pose_velocity(np.zeros((3, 8)), np.zeros((3, 8)), 0), ValueError, ["dt"]),
])
def test_bad_input(call, exc, words):
    with pytest.raises(exc) as info:
        call(np.zeros((3, 6)))
    for w in words:
        assert w in str(info.value)


def test_glue_refuses_mismatched_operands():
    from skelsimd import _core
    z = np.zeros((3, 6), np.float32)
    with pytest.raises(ValueError, match="offset"):
        _core.inertialize_update(np.zeros((3, 8), np.float32), np.zeros((2, 6), np.float32), z,
                                 0.1, 0.1)
    with pytest.raises(ValueError, match="halflife"):
        _core.inertialize_update(np.zeros((3, 8), np.float32), z, z, -1.0, 0.1)
    with pytest.raises(ValueError, match="offset_velocity"):
        _core.inertialize_transition(np.zeros((3, 8), np.float32), z, np.zeros((3, 8), np.float32),
                                     z, None, np.zeros((1, 3, 6), np.float32))
