"""Quaternion algebra and conversions against the float64 references, on every SIMD variant."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import skelsimd
from skelsimd import testing as T
from skelsimd.reference import quat as R
from skelsimd.bounds import bound
from strategies import BATCH_SHAPES, LAYOUTS, unit_quaternions as unit, with_layout


# --- quat_multiply, quat_conjugate --------------------------------------------------------------

@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=6),
       layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**32 - 1))
def test_multiply_broadcasting(isa, shapes, layout, seed):
    rng = np.random.default_rng(seed)
    a, b = unit(shapes.input_shapes[0], rng), unit(shapes.input_shapes[1], rng)
    got = skelsimd.quat_multiply(with_layout(a, layout), b)
    assert got.shape == shapes.result_shape + (4,) and got.dtype == np.float32
    assert np.abs(got - R.quat_multiply(a, b)).max(initial=0) <= bound("quat_multiply")


def test_multiply_bound_and_algebra(isa, rng):
    a, b = unit(100_000, rng), unit(100_000, rng)
    assert np.abs(skelsimd.quat_multiply(a, b) - R.quat_multiply(a, b)).max() <= bound("quat_multiply")
    # composition of rotations: R(a * b) = R(a) R(b); q * conj(q) = identity
    ab = skelsimd.quat_multiply(a[:1000], b[:1000])
    assert np.abs(R.quat_to_matrix(ab) - R.quat_to_matrix(a[:1000]) @ R.quat_to_matrix(b[:1000])).max() <= 1e-6
    ident = skelsimd.quat_multiply(a, skelsimd.quat_conjugate(a))
    assert np.abs(ident - [0, 0, 0, 1]).max() <= 3e-7
    # exact algebra on non-unit quaternions (relative to the product of the norms)
    c = a[:100] * 7.0
    assert np.abs(skelsimd.quat_multiply(c, b[:100]) - R.quat_multiply(c, b[:100])).max() <= 7 * bound("quat_multiply")


@pytest.mark.parametrize("which", ["a", "b"])
def test_multiply_in_place(isa, rng, which):
    a, b = unit((3, 21), rng), unit((3, 21), rng)
    expected = skelsimd.quat_multiply(a, b)
    target = a if which == "a" else b
    assert skelsimd.quat_multiply(a, b, out=target) is target
    assert np.array_equal(target, expected)


def test_conjugate(isa, rng):
    q = unit((5, 19), rng) * 3
    got = skelsimd.quat_conjugate(q)
    assert np.array_equal(got, R.quat_conjugate(q).astype(np.float32))
    assert skelsimd.quat_conjugate(q, out=q) is q and np.array_equal(q, got)


# --- quat_normalize -----------------------------------------------------------------------------

@given(batch=st.sampled_from(BATCH_SHAPES + [(37,)]), seed=st.integers(0, 2**32 - 1),
       log_scale=st.floats(-30, 30))
def test_normalize_any_magnitude(isa, batch, seed, log_scale):
    """Tiny and huge quaternions normalise without underflow or overflow."""
    rng = np.random.default_rng(seed)
    q = (T.random_quaternions(batch, rng) * 10.0 ** log_scale).astype(np.float32)
    got = skelsimd.quat_normalize(q)
    assert np.abs(got - R.quat_normalize(q)).max(initial=0) <= bound("quat_normalize")


def test_normalize_special_values(isa, rng):
    q = unit(40, rng) * 5
    q[3] = 0.0
    q[11] = [1e-30, 0, 0, 0]                  # dot underflows to 0 in float32
    q[12] = [3e38, 3e38, 0, 0]                # dot overflows to inf
    q[20, 2] = np.nan
    q[30, 0] = np.inf
    got = skelsimd.quat_normalize(q)
    assert np.array_equal(got[3], [0, 0, 0, 1])
    assert np.array_equal(got[11], [1, 0, 0, 0])
    assert np.abs(got[12] - [0.70710678, 0.70710678, 0, 0]).max() <= 1e-7
    assert np.isnan(got[20]).all() and np.isnan(got[30]).all()
    ok = np.setdiff1d(np.arange(40), [3, 11, 12, 20, 30])
    assert np.abs(got[ok] - R.quat_normalize(q[ok])).max() <= bound("quat_normalize")
    assert skelsimd.quat_normalize(q, out=q) is q and np.array_equal(q, got, equal_nan=True)


# --- quat_rotate --------------------------------------------------------------------------------

@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=6),
       seed=st.integers(0, 2**32 - 1))
def test_rotate_broadcasting(isa, shapes, seed):
    rng = np.random.default_rng(seed)
    q = unit(shapes.input_shapes[0], rng)
    v = rng.uniform(-3, 3, shapes.input_shapes[1] + (3,)).astype(np.float32)
    got = skelsimd.quat_rotate(q, v)
    assert got.shape == shapes.result_shape + (3,)
    norm = np.linalg.norm(np.broadcast_to(v, got.shape).astype(np.float64), axis=-1, keepdims=True)
    assert (np.abs(got - R.quat_rotate(q, v)) <= bound("quat_rotate") * norm + 1e-30).all()


def test_rotate_non_unit_and_zero(isa, rng):
    q = unit(64, rng) * rng.uniform(0.01, 100, (64, 1)).astype(np.float32)
    q[:4] = 0
    v = rng.uniform(-1, 1, (64, 3)).astype(np.float32)
    got = skelsimd.quat_rotate(q, v)
    assert np.array_equal(got[:4], v[:4])                    # zero q: identity
    assert np.abs(got - R.quat_rotate(q, v)).max() <= bound("quat_rotate") * np.sqrt(3)
    assert skelsimd.quat_rotate(q, v, out=v) is v and np.array_equal(v, got)


# --- quat_to_matrix / matrix_to_quat ---------------------------------------------------------------

def test_to_matrix_bound(isa, rng):
    q = unit(100_000, rng)
    m = skelsimd.quat_to_matrix(q)
    assert m.shape == (100_000, 3, 3)
    assert np.abs(m - R.quat_to_matrix(q)).max() <= bound("quat_to_matrix")
    # a rotation for any non-zero scale of q; zero q is the identity
    s = q[:1000] * rng.uniform(1e-3, 1e3, (1000, 1)).astype(np.float32)
    assert np.abs(skelsimd.quat_to_matrix(s) - R.quat_to_matrix(s)).max() <= bound("quat_to_matrix")
    assert np.array_equal(skelsimd.quat_to_matrix(np.zeros(4)), np.eye(3, dtype=np.float32))


def special_rotations(rng):
    """Unit quaternions of the rotations a conversion finds hard: identity, 180 degrees about the
    axes and random axes, near-180, tiny angles, and each component dominant."""
    axes = np.concatenate([np.eye(3), T.random_quaternions(20, rng)[:, :3]])
    axes /= np.linalg.norm(axes, axis=-1, keepdims=True)
    qs = [[0, 0, 0, 1]]
    for angle in (np.pi, np.pi - 1e-4, np.pi - 1e-7, 1e-7, 1e-3, np.pi / 2, 2.0):
        for a in axes:
            qs.append(list(a * np.sin(angle / 2)) + [np.cos(angle / 2)])
    return np.array(qs, dtype=np.float32)


@pytest.mark.parametrize("scalar_first", [False, True])
def test_matrix_to_quat_round_trip(isa, rng, scalar_first):
    q = np.concatenate([unit(50_000, rng), special_rotations(rng)])
    qin = q[:, [3, 0, 1, 2]] if scalar_first else q
    m = skelsimd.quat_to_matrix(qin, scalar_first=scalar_first)
    back = skelsimd.matrix_to_quat(m, scalar_first=scalar_first)
    if scalar_first:
        back = back[:, [1, 2, 3, 0]]
    assert (back[:, 3] >= 0).all()
    assert R.same_rotation_error(back, q).max() <= bound("matrix_to_quat.round_trip")


def test_matrix_to_quat_matches_reference_on_exact_and_noisy_rotations(isa, rng):
    q = np.concatenate([T.random_quaternions(3000, rng), special_rotations(rng).astype(np.float64)])
    m = R.quat_to_matrix(q)
    assert R.same_rotation_error(skelsimd.matrix_to_quat(m), q).max() <= bound("matrix_to_quat.round_trip")
    noisy = (m + rng.uniform(-1e-5, 1e-5, m.shape)).astype(np.float32)
    got = skelsimd.matrix_to_quat(noisy)
    assert np.abs(np.linalg.norm(got, axis=-1) - 1).max() <= 3e-7      # always a unit quaternion
    assert R.same_rotation_error(got, R.matrix_to_quat(noisy)).max() <= 1e-4


def test_to_matrix_scalar_first(isa, rng):
    q = unit(33, rng)
    wxyz = q[:, [3, 0, 1, 2]]
    assert np.array_equal(skelsimd.quat_to_matrix(wxyz, scalar_first=True), skelsimd.quat_to_matrix(q))


# --- QTS conversions ----------------------------------------------------------------------------

@given(batch=st.sampled_from(BATCH_SHAPES + [(41,)]), seed=st.integers(0, 2**32 - 1),
       negative=st.booleans())
def test_qts_matrix_round_trip(isa, batch, seed, negative):
    rng = np.random.default_rng(seed)
    x = T.random_qts(batch, rng, translation=5.0, scale=(0.25, 4.0))
    if negative:
        x[..., 7] *= -1
    m = skelsimd.qts_to_matrix(x)
    assert m.shape == batch + (3, 4)
    s = np.abs(x[..., 7, None, None]).astype(np.float64)
    assert (np.abs(m[..., :3] - R.qts_to_matrix(x)[..., :3]) <= bound("qts_to_matrix") * np.maximum(1, s)).all()
    assert np.array_equal(m[..., 3], x[..., 4:7])
    back = skelsimd.matrix_to_qts(m)
    assert np.array_equal(back[..., 4:7], x[..., 4:7])
    assert (np.abs(back[..., 7] - x[..., 7]) <= bound("matrix_to_qts.round_trip") * np.abs(x[..., 7])).all()
    assert R.same_rotation_error(back[..., :4], x[..., :4]).max(initial=0) <= bound("matrix_to_qts.round_trip")


def test_qts_to_matrix_unit_scale_is_quat_to_matrix(isa, rng):
    x = T.random_qts(100, rng)
    assert np.array_equal(skelsimd.qts_to_matrix(x)[..., :3], skelsimd.quat_to_matrix(x[:, :4]))
    zero = np.zeros(8, np.float32)
    zero[7] = 2.0
    assert np.array_equal(skelsimd.qts_to_matrix(zero)[:, :3], 2 * np.eye(3, dtype=np.float32))


def test_matrix_to_qts_zero_and_reference(isa, rng):
    m = T.random_joints(200, rng, translation=3.0)
    m[:, :3] *= rng.uniform(0.5, 2, (200, 1, 1)).astype(np.float32)
    m[0] = 0.0
    got = skelsimd.matrix_to_qts(m)
    assert np.array_equal(got[0], [0, 0, 0, 1, 0, 0, 0, 0])
    ref = R.matrix_to_qts(m)
    assert np.abs(got[:, 4:] - ref[:, 4:]).max() <= 5e-7 * 2
    assert R.same_rotation_error(got[1:, :4], ref[1:, :4]).max() <= 5e-7


def test_qts_pack_unpack(rng):
    q, t, s = unit((4, 6), rng), rng.random((4, 6, 3)), rng.random((4, 6))
    x = skelsimd.qts_pack(q, t, s)
    assert x.dtype == np.float32 and x.shape == (4, 6, 8)
    q2, t2, s2 = skelsimd.qts_unpack(x)
    assert np.array_equal(q2, q) and np.allclose(t2, t) and np.allclose(s2, s)
    assert np.shares_memory(q2, x) and np.shares_memory(s2, x)
    d = skelsimd.qts_pack(q)
    assert (d[..., 4:7] == 0).all() and (d[..., 7] == 1).all()
    w = skelsimd.qts_pack(q[..., [3, 0, 1, 2]], t, 2.0, scalar_first=True)
    assert np.array_equal(w[..., :4], q) and (w[..., 7] == 2).all()
    assert np.array_equal(skelsimd.qts_unpack(w, scalar_first=True)[0], q[..., [3, 0, 1, 2]])
    one = skelsimd.qts_pack(q[0, 0], t, s)                           # broadcasting
    assert one.shape == (4, 6, 8)
    with pytest.raises(ValueError, match=r"x: expected shape \(\.\.\., 8\)"):
        skelsimd.qts_unpack(np.zeros((3, 7)))
    out = np.zeros((4, 6, 8), np.float32)
    assert skelsimd.qts_pack(q, t, s, out=out) is out and np.array_equal(out, x)
    with pytest.raises(TypeError, match="out: expected a float32 ndarray, got float64"):
        skelsimd.qts_pack(q, out=np.zeros((4, 6, 8)))
    with pytest.raises(ValueError, match=r"out: expected shape \(4, 6, 8\), got \(4, 8\)"):
        skelsimd.qts_pack(q, out=np.zeros((4, 8), np.float32))
