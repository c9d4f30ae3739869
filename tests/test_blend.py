"""slerp, nlerp, blend_joints and blend_layers against the float64 references, on every SIMD
variant (`isa` fixture)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import skelsimd
from skelsimd import testing as T
from skelsimd.reference import blend as R
from skelsimd.bounds import bound
from strategies import BATCH_SHAPES, LAYOUTS, with_layout

BOUND = {"fast": bound("slerp.fast"), "exact": bound("slerp.exact"), "nlerp": bound("nlerp")}


def interp(method, q0, q1, t, **kw):
    if method == "nlerp":
        return skelsimd.nlerp(q0, q1, t, **kw)
    return skelsimd.slerp(q0, q1, t, method=method, **kw)


def reference(method, q0, q1, t):
    return (R.nlerp if method == "nlerp" else R.slerp)(q0, q1, t)


METHODS = ["fast", "exact", "nlerp"]


# --- slerp / nlerp: the accuracy contracts ---------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_bound_over_special_pairs(isa, method):
    """Random, identical, antipodal, near-parallel (|dot| > 0.9999), near-antipodal and orthogonal
    pairs, t in [0, 1] with exact 0 and 1: the documented bound, never NaN."""
    rng = np.random.default_rng(11)
    q0, q1 = T.special_quaternion_pairs(100_000, rng)
    t = rng.random(len(q0)).astype(np.float32)
    t[:1000], t[1000:2000] = 0.0, 1.0
    got = interp(method, q0, q1, t)
    assert np.isfinite(got).all()
    err = np.abs(got - reference(method, q0, q1, t)).max()
    assert err <= BOUND[method], err


@pytest.mark.parametrize("method", METHODS)
@given(seed=st.integers(0, 2**32 - 1), eps=st.floats(1e-8, 1e-2), n=st.integers(1, 40))
def test_bound_near_parallel_property(isa, method, seed, eps, n):
    rng = np.random.default_rng(seed)
    q0 = T.random_quaternions(n, rng)
    q1 = T.perturbed_quaternions(q0, eps, rng) * rng.choice([-1.0, 1.0], size=(n, 1))
    q0, q1 = q0.astype(np.float32), q1.astype(np.float32)
    t = rng.random(n).astype(np.float32)
    err = np.abs(interp(method, q0, q1, t) - reference(method, q0, q1, t)).max()
    assert err <= BOUND[method], err


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_slerp_extrapolates_outside_unit_interval(isa, method):
    """t outside [0, 1]: the documented bound scaled by max(1, |t|, |1 - t|)."""
    rng = np.random.default_rng(12)
    q0, q1 = T.special_quaternion_pairs(50_000, rng)
    t = rng.uniform(-3, 4, len(q0)).astype(np.float32)
    t[:100] = [-1e3, 1e3] * 50
    scale = np.maximum(1, np.maximum(np.abs(t), np.abs(1 - t)))[:, None]
    got = skelsimd.slerp(q0, q1, t, method=method)
    assert np.isfinite(got).all()
    err = (np.abs(got - R.slerp(q0, q1, t)) / scale)[100:].max()
    assert err <= BOUND[method], err
    assert np.abs(got[:100]).max() <= 2.0  # huge t: finite and bounded (not meaningful)


@pytest.mark.parametrize("method", METHODS)
def test_identical_and_antipodal_give_q(isa, method):
    rng = np.random.default_rng(13)
    q = T.random_quaternions(999, rng).astype(np.float32)
    t = rng.uniform(0, 1, 999).astype(np.float32)
    for other in (q, -q):
        got = interp(method, q, other, t)
        assert np.abs(got - q).max() <= BOUND[method]


@pytest.mark.parametrize("method", METHODS)
def test_endpoints(isa, method):
    rng = np.random.default_rng(14)
    q0, q1 = T.special_quaternion_pairs(5000, rng)
    sign = np.where((q0.astype(np.float64) * q1).sum(-1) < 0, -1.0, 1.0)[:, None]
    assert np.abs(interp(method, q0, q1, 0.0) - q0).max() <= BOUND[method]
    assert np.abs(interp(method, q0, q1, 1.0) - sign * q1).max() <= BOUND[method]


@pytest.mark.parametrize("method", METHODS)
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=5),
       layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**32 - 1))
def test_broadcasting(isa, method, shapes, layout, seed):
    rng = np.random.default_rng(seed)
    (s0, s1, st_), res = shapes.input_shapes, shapes.result_shape
    q0 = T.random_quaternions(s0, rng).astype(np.float32)
    q1 = T.random_quaternions(s1, rng).astype(np.float32)
    t = rng.random(st_).astype(np.float32)
    got = interp(method, with_layout(q0, layout), q1, t if t.ndim else float(t))
    assert got.shape == res + (4,) and got.dtype == np.float32
    assert np.abs(got - reference(method, q0, q1, t)).max(initial=0) <= BOUND[method]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("which", ["q0", "q1"])
def test_in_place(isa, rng, method, which):
    q0 = T.random_quaternions((3, 37), rng).astype(np.float32)
    q1 = T.random_quaternions((3, 37), rng).astype(np.float32)
    t = rng.random((3, 37)).astype(np.float32)
    expected = interp(method, q0, q1, t)
    target = q0 if which == "q0" else q1
    assert interp(method, q0, q1, t, out=target) is target
    assert np.array_equal(target, expected)


@pytest.mark.parametrize("method", METHODS)
def test_scalar_t_of_every_kind_gives_the_same_result(isa, rng, method):
    """Python and NumPy scalars take a fast path in the glue; arrays the general one."""
    q0, q1 = T.random_quaternions((2, 9), rng).astype(np.float32)
    expected = interp(method, q0, q1, np.full(9, 0.375, np.float32))
    for t in (0.375, np.float32(0.375), np.float64(0.375), np.array(0.375), [0.375]):
        assert np.array_equal(interp(method, q0, q1, t), expected), type(t)
    for t in (1, True, np.int64(1), np.uint8(1)):
        assert np.array_equal(interp(method, q0, q1, t), interp(method, q0, q1, np.ones(9, np.float32)))
    joints, blend = T.random_qts((2, 9), rng)
    ref = skelsimd.blend_joints(joints, blend, np.float32(0.375), method=method)
    assert np.array_equal(skelsimd.blend_joints(joints, blend, 0.375, method=method), ref)
    with pytest.raises(ValueError, match="t: expected a number that fits a float"):
        skelsimd.slerp(q0, q1, 10**400)


def test_exact_and_fast_agree(isa, rng):
    q0, q1 = T.special_quaternion_pairs(20_000, rng)
    t = rng.random(len(q0)).astype(np.float32)
    diff = np.abs(skelsimd.slerp(q0, q1, t) - skelsimd.slerp(q0, q1, t, method="exact")).max()
    assert diff <= BOUND["fast"] + BOUND["exact"]


def test_slerp_has_constant_speed_and_nlerp_does_not(isa):
    """slerp's angle to q0 grows linearly in t; nlerp's does not (same arc, different speed)."""
    q0 = np.array([0, 0, 0, 1], np.float32)
    q1 = np.array([0, 0, np.sin(0.75), np.cos(0.75)], np.float32)   # 1.5 rad apart
    t = np.linspace(0, 1, 11, dtype=np.float32)
    angle = lambda q: 2 * np.arctan2(np.abs(q[:, 2]), q[:, 3])   # noqa: E731
    assert np.abs(angle(skelsimd.slerp(q0, q1, t)) - 1.5 * t).max() <= 2e-6
    assert np.abs(angle(skelsimd.nlerp(q0, q1, t)) - 1.5 * t).max() >= 1e-2


@pytest.mark.parametrize("method", METHODS)
def test_zero_and_non_unit_inputs_are_finite(isa, rng, method):
    q0 = T.random_quaternions(64, rng).astype(np.float32) * rng.uniform(0.1, 10, (64, 1)).astype(np.float32)
    q1 = T.random_quaternions(64, rng).astype(np.float32) * 3
    q0[:8] = 0.0
    q1[4:12] = 0.0
    t = rng.random(64).astype(np.float32)
    got = interp(method, q0, q1, t)
    assert np.isfinite(got).all()
    if method == "nlerp":   # always normalised; a zero sum is the identity
        assert np.abs(np.linalg.norm(got, axis=-1) - 1).max() <= 3e-7
        assert np.array_equal(got[4:8], np.tile([0, 0, 0, 1], (4, 1)).astype(np.float32))
        assert np.abs(got[8:] - R.nlerp(q0[8:], q1[8:], t[8:])).max() <= BOUND["nlerp"]
    else:                   # endpoints hold for any input
        assert np.abs(interp(method, q0, q1, 0.0) - q0).max() <= 5e-7 * 10


@pytest.mark.parametrize("method", METHODS)
def test_nan_and_inf_inputs_do_not_crash(isa, rng, method):
    q0 = T.random_quaternions(40, rng).astype(np.float32)
    q1 = T.random_quaternions(40, rng).astype(np.float32)
    t = rng.random(40).astype(np.float32)
    q0[3, 1] = np.nan
    q1[17, 0] = np.inf
    t[25] = np.nan
    got = interp(method, q0, q1, t)
    for bad in (3, 17, 25):
        assert not np.isfinite(got[bad]).all()
    good = np.setdiff1d(np.arange(40), [3, 17, 25])
    assert np.abs(got[good] - reference(method, q0[good], q1[good], t[good])).max() <= BOUND[method]


# --- blend_joints -----------------------------------------------------------------------------

def qts_error(got, expected):
    """(rotation error, translation/scale error)."""
    return (np.abs(got[..., :4] - expected[..., :4]).max(initial=0),
            np.abs(got[..., 4:] - expected[..., 4:]).max(initial=0))


@st.composite
def index_sets(draw, n):
    kind = draw(st.sampled_from(["none", "empty", "all", "subset", "reversed"]))
    if kind == "none":
        return None
    if kind == "empty":
        return np.array([], dtype=np.int64)
    if kind == "all":
        return np.arange(n)
    perm = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).permutation(n)
    if kind == "reversed":
        return np.arange(n)[::-1].copy()
    return perm[: draw(st.integers(0, n))].astype(draw(st.sampled_from([np.int32, np.int64, np.uint16])))


@given(data=st.data(), batch=st.sampled_from(BATCH_SHAPES), n=st.integers(1, 130),
       method=st.sampled_from(METHODS), seed=st.integers(0, 2**32 - 1),
       t_kind=st.sampled_from(["inside", "zero", "one", "below", "above", "per_pose"]))
def test_blend_joints_matches_reference(isa, data, batch, n, method, seed, t_kind):
    rng = np.random.default_rng(seed)
    joints = T.random_qts(batch + (n,), rng, translation=2.0, scale=(0.5, 2.0))
    blend = T.random_qts(batch + (n,), rng, translation=2.0, scale=(0.5, 2.0))
    index = data.draw(index_sets(n))
    t = {"inside": rng.random(), "zero": 0.0, "one": 1.0, "below": -0.5, "above": 1.5,
         "per_pose": rng.uniform(-0.3, 1.3, batch).astype(np.float32)}[t_kind]
    got = skelsimd.blend_joints(joints, blend, t, index=index, method=method)
    expected = R.blend_joints(joints, blend, t, index=index, method=method)
    assert got.shape == joints.shape and got.dtype == np.float32
    rot, lin = qts_error(got, expected)
    big = max(np.abs(joints[..., 4:]).max(initial=1), np.abs(blend[..., 4:]).max(initial=1))
    assert rot <= BOUND[method] and lin <= bound("blend.linear") * big, (rot, lin)
    # joints that are not selected, and t <= 0, are exact copies; t >= 1 copies blend exactly
    sel = np.zeros(n, bool)
    sel[np.arange(n) if index is None else index] = True
    assert np.array_equal(got[..., ~sel, :], joints[..., ~sel, :])
    tt = np.broadcast_to(np.asarray(t, np.float32), batch)
    assert np.array_equal(got[tt <= 0], joints[tt <= 0])
    assert np.array_equal(got[tt >= 1][..., sel, :], blend[tt >= 1][..., sel, :])


@pytest.mark.parametrize("method", METHODS)
def test_blend_joints_in_place_with_index(isa, rng, method):
    joints = T.random_qts((4, 96), rng)
    blend = T.random_qts((4, 96), rng)
    index = rng.permutation(96)[:50]
    expected = skelsimd.blend_joints(joints, blend, 0.4, index=index, method=method)
    work = joints.copy()
    assert skelsimd.blend_joints(work, blend, 0.4, index=index, method=method, out=work) is work
    assert np.array_equal(work, expected)


def test_blend_joints_broadcasts_one_pose_against_a_clip(isa, rng):
    clip = T.random_qts((7, 30), rng)
    pose = T.random_qts(30, rng)
    t = np.linspace(0, 1, 7, dtype=np.float32)
    got = skelsimd.blend_joints(clip, pose, t)
    assert got.shape == (7, 30, 8)
    rot, lin = qts_error(got, R.blend_joints(clip, pose, t))
    assert rot <= BOUND["fast"] and lin <= 2e-7
    assert skelsimd.blend_joints(pose, clip, t[:, None][:, 0]).shape == (7, 30, 8)


def test_blend_joints_unit_scales_stay_exact(isa, rng):
    joints, blend = T.random_qts((5, 40), rng), T.random_qts((5, 40), rng)
    got = skelsimd.blend_joints(joints, blend, rng.random(5).astype(np.float32))
    assert (got[..., 7] == 1.0).all()


def test_blend_joints_special_pairs(isa, rng):
    """The rotation bounds hold through blend_joints on identical, antipodal and near-parallel
    quaternions, and NaN in one joint stays in that joint."""
    q0, q1 = T.special_quaternion_pairs(4000, rng)
    joints = skelsimd.qts_pack(q0)
    blend = skelsimd.qts_pack(q1)
    t = np.float32(rng.random())
    for method in METHODS:
        got = skelsimd.blend_joints(joints, blend, t, method=method)
        assert np.abs(got[:, :4] - reference(method, q0, q1, np.full(4000, t))).max() <= BOUND[method]
    joints[10, 2] = np.nan
    got = skelsimd.blend_joints(joints, blend, t)
    assert np.isnan(got[10, :4]).any() and np.isfinite(np.delete(got, 10, axis=0)).all()


# --- blend_layers -----------------------------------------------------------------------------

@given(batch=st.sampled_from(BATCH_SHAPES), layers=st.integers(1, 5), n=st.integers(1, 40),
       per_joint=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_blend_layers_matches_reference(isa, batch, layers, n, per_joint, seed):
    rng = np.random.default_rng(seed)
    x = T.random_qts(batch + (layers, n), rng, translation=2.0, scale=(0.5, 2.0))
    w = rng.uniform(0, 1, (layers, n) if per_joint else layers).astype(np.float32)
    w[rng.random(w.shape) < 0.3] = 0.0
    w[0] = np.maximum(w[0], 0.1)   # every joint keeps a positive weight
    got = skelsimd.blend_layers(x, w)
    expected = R.blend_layers(x, w)
    assert got.shape == batch + (n, 8)
    rot, lin = qts_error(got, expected)
    assert rot <= bound("blend_layers.quat") * (layers + 1) and lin <= bound("blend_layers.linear") * (layers + 1) * 2, (rot, lin)


def test_blend_layers_aligns_hemispheres(isa, rng):
    """A layer holding -q (the same rotation) must not cancel q."""
    q = T.random_qts(50, rng)
    flipped = q.copy()
    flipped[:, :4] *= -1
    got = skelsimd.blend_layers(np.stack([q, flipped]), [0.5, 0.5])
    assert np.abs(got - q).max() <= 2e-7


def test_blend_layers_two_layers_match_nlerp(isa, rng):
    a, b = T.random_qts(64, rng), T.random_qts(64, rng)
    got = skelsimd.blend_layers(np.stack([a, b]), [0.7, 0.3])
    assert np.abs(got[:, :4] - R.nlerp(a[:, :4], b[:, :4], np.full(64, 0.3))).max() <= 4e-7
    assert np.abs(got[:, 4:] - (0.7 * a[:, 4:].astype(np.float64) + 0.3 * b[:, 4:])).max() <= 4e-7


def test_blend_layers_masks(isa, rng):
    """Per-joint weights as a blend mask: joints with weight only in layer 1 are layer 1's."""
    x = T.random_qts((2, 20), rng)
    w = np.zeros((2, 20), np.float32)
    w[0, :10] = 1.0
    w[1, 10:] = 2.0
    got = skelsimd.blend_layers(x, w)
    assert np.abs(got[:10] - x[0, :10]).max() <= 2e-7 and np.abs(got[10:] - x[1, 10:]).max() <= 2e-7


# --- determinism and threads ------------------------------------------------------------------

def test_nlerp_fallback_lanes_give_the_documented_results(isa):
    """nlerp blocks with a zero, a tiny and a huge quaternion in the middle of a long run
    (those pairs are normalised element by element): the fallback lanes are the documented
    results, not garbage (every variant against scalar: tests/test_bit_identity.py)."""
    rng = np.random.default_rng(22)
    n = 8 * 8 * 3 + 13
    q0, q1 = T.special_quaternion_pairs(n, rng)
    t = rng.random(n).astype(np.float32)
    z0, z1 = q0.copy(), q1.copy()
    z0[70] = 0.0
    z1[70] = 0.0
    z0[141] *= 1e-20
    z1[141] *= 1e-20
    z0[150] *= 1e18
    got = skelsimd.nlerp(z0, z1, t)
    assert np.array_equal(got[70], np.array([0, 0, 0, 1], np.float32))
    assert np.abs(np.linalg.norm(got[[141, 150]], axis=-1) - 1).max() <= 2e-7


def test_negative_zero_t_beside_extrapolation_keeps_its_sign(isa):
    """A block holding a t outside [0, 1] takes the sine's range reduction for all its lanes; a
    lane with t = -0.0 must still get sin(-0) = -0 (the per-element result), so an output
    component that is exactly zero keeps its sign on every variant."""
    q0 = np.tile(np.array([-0.0, 0.6, 0.0, 0.8], np.float32), (16, 1))
    q1 = np.tile(np.array([0.6, 0.0, 0.0, 0.8], np.float32), (16, 1))
    t = np.full(16, 0.5, np.float32)
    t[0], t[1] = -0.0, 2.0
    got = skelsimd.slerp(q0, q1, t)
    assert np.signbit(got[0, 0]) and got[0, 0] == 0.0
    assert np.array_equal(got[0], q0[0])


# --- the entries' fast path ------------------------------------------------------------------

def _bits(x):
    return np.ascontiguousarray(x).view(np.uint32)


class _Sub(np.ndarray):
    """An ndarray subclass: the entries' fast path takes exact ndarrays only, so views of this
    class (the same memory, the same values) run the general path."""


def _general(x):
    return x.view(_Sub) if type(x) is np.ndarray else x


@given(data=st.data(), seed=st.integers(0, 2**32 - 1),
       batch=st.sampled_from([(0,), (1,), (7,), (9,), (2, 3), (17,), (40,)]))
def test_interp_fast_path_matches_the_general_path(isa, data, seed, batch):
    """slerp and nlerp take a fast path first for float32 C-contiguous q0, q1 of one shape, t a
    number or a float32 C-contiguous array of the batch shape, out None or such an array that
    is an input or overlaps none: it gives the general path's bits, and every other form gives
    the general path's result or error (nothing written)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(batch))
    q0, q1 = (np.ascontiguousarray(x[:n].reshape(batch + (4,)))
              for x in T.special_quaternion_pairs(max(n, 1), rng))
    t = rng.uniform(-0.5, 1.5, batch).astype(np.float32)
    kind = data.draw(st.sampled_from(["plain", "float", "np_float", "f64 t", "t one", "q1 one",
                                      "q0 f64", "strided", "list t", "out", "out q0", "out q1",
                                      "out t", "out overlap", "out readonly", "out shape"]))
    method = data.draw(st.sampled_from(["fast", "exact", "nlerp"]))
    a, b, tt, out = q0, q1, t, None
    if kind == "float":
        tt = float(rng.uniform(-0.5, 1.5))
    elif kind == "np_float":
        tt = np.float32(0.25)
    elif kind == "f64 t":
        tt = t.astype(np.float64)
    elif kind == "t one":
        tt = t.reshape(-1)[:1].copy()
    elif kind == "q1 one":
        if n == 0:
            return
        b = np.ascontiguousarray(q1.reshape(-1, 4)[:1])
    elif kind == "q0 f64":
        a = q0.astype(np.float64)
    elif kind == "strided":
        a = np.concatenate([q0, q0], axis=-1)[..., :4]
    elif kind == "list t":
        tt = t.tolist()
    elif kind == "out":
        out = np.full(batch + (4,), 7.0, np.float32)
    elif kind == "out q0":
        a = out = q0.copy()
    elif kind == "out q1":
        b = out = q1.copy()
    elif kind == "out t":   # t aliasing the start of out: the general path raises
        buf = np.zeros(max(n, 1) * 4, np.float32)
        out = buf[:n * 4].reshape(batch + (4,))
        tt = buf[:n].reshape(batch)
        tt[...] = t
    elif kind == "out overlap":
        buf = np.concatenate([q0.reshape(-1), np.zeros(4, np.float32)])
        a = buf[:n * 4].reshape(batch + (4,))
        out = buf[2:2 + n * 4].reshape(batch + (4,))
    elif kind == "out readonly":
        out = np.zeros(batch + (4,), np.float32)
        out.flags.writeable = False
    elif kind == "out shape":
        out = np.zeros((n + 1, 4), np.float32)

    def entry(a, b, tt, out):
        if method == "nlerp":
            return skelsimd._core.nlerp(a, b, tt, out)
        return skelsimd._core.slerp(a, b, tt, out, method)

    def copies():   # fresh operands for each call where one is written
        if kind == "out q0":
            c = a.copy()
            return c, b, tt, c
        if kind == "out q1":
            c = b.copy()
            return a, c, tt, c
        if kind == "out":
            return a, b, tt, out.copy()
        return a, b, tt, out   # out None, or refused before anything is written

    try:
        want = entry(*[_general(x) for x in copies()])
        err = None
    except (TypeError, ValueError) as e:
        want, err = None, e
    ops = copies()
    before = [x.copy() for x in ops if isinstance(x, np.ndarray)]
    if err is not None:
        with pytest.raises(type(err)) as info:
            entry(*ops)
        assert str(info.value) == str(err)
        assert all(np.array_equal(_bits(x), _bits(y)) for x, y in
                   zip([x for x in ops if isinstance(x, np.ndarray)], before))
    else:
        got = entry(*ops)
        assert type(got) is np.ndarray
        assert got.shape == want.shape and np.array_equal(_bits(got), _bits(want))
        if ops[3] is not None:
            assert got is ops[3]
    ops = copies()
    if err is not None:
        with pytest.raises(type(err)) as info:
            interp(method, *ops[:3], out=ops[3])
        assert str(info.value) == str(err)
    else:
        res = interp(method, *ops[:3], out=ops[3])
        assert np.array_equal(_bits(res), _bits(want))


@given(data=st.data(), seed=st.integers(0, 2**32 - 1),
       batch=st.sampled_from([(), (1,), (3,), (2, 2)]), joints=st.integers(0, 20))
def test_blend_joints_fast_path_matches_the_general_path(isa, data, seed, batch, joints):
    """blend_joints takes a fast path first for float32 C-contiguous poses of one shape, t a
    number, no index, a method name and out None or such an array (joints itself allowed, blend
    not): it gives the general path's bits, and every other form its result or error."""
    rng = np.random.default_rng(seed)
    a = T.random_qts(batch + (joints,), rng)
    b = T.random_qts(batch + (joints,), rng)
    method = data.draw(st.sampled_from(["fast", "exact", "nlerp", "bogus"]))
    t = data.draw(st.sampled_from([0.3, -0.5, 0.0, 1.0, 1.5, float("nan"), np.float32(0.3), 1]))
    kind = data.draw(st.sampled_from(["plain", "out", "out joints", "out blend", "b one",
                                      "f64"]))
    out = None
    if kind == "out":
        out = np.full(a.shape, 3.0, np.float32)
    elif kind == "out joints":
        out = a
    elif kind == "out blend":
        out = b
    elif kind == "b one":
        b = np.ascontiguousarray(b[(slice(0, 1),) * len(batch)])
    elif kind == "f64":
        a = a.astype(np.float64)

    def fresh():
        aa, bb = a.copy(), b.copy()
        oo = aa if out is a else bb if out is b else None if out is None else out.copy()
        return aa, bb, oo

    try:
        aa, bb, oo = (_general(x) for x in fresh())
        want, err = skelsimd._core.blend_joints(aa, bb, t, None, method, oo), None
    except (TypeError, ValueError) as e:
        want, err = None, e
    aa, bb, oo = fresh()
    keep = (aa.copy(), bb.copy())
    if err is not None:
        with pytest.raises(type(err)) as info:
            skelsimd._core.blend_joints(aa, bb, t, None, method, oo)
        assert str(info.value) == str(err)
        assert np.array_equal(_bits(aa), _bits(keep[0])) and np.array_equal(_bits(bb), _bits(keep[1]))
    else:
        got = skelsimd._core.blend_joints(aa, bb, t, None, method, oo)
        assert type(got) is np.ndarray and np.array_equal(_bits(got), _bits(want))
        if oo is not None:
            assert got is oo
    aa, bb, oo = fresh()
    if err is not None:
        with pytest.raises(type(err)) as info:
            skelsimd.blend_joints(aa, bb, t, method=method, out=oo)
        assert str(info.value) == str(err)
    else:
        assert np.array_equal(_bits(skelsimd.blend_joints(aa, bb, t, method=method, out=oo)),
                              _bits(want))


def test_fast_path_single_quaternions_with_a_0d_t():
    """One quaternion each and t a 0-d float32 array (the shapes compared have no dimensions:
    the sanitizer build checks that no NULL shape reaches memcmp)."""
    q0 = np.float32([0, 0, 0, 1])
    q1 = np.float32([0, 0, 1, 0])
    t = np.array(0.5, np.float32)
    for method in ("fast", "exact", "nlerp"):
        args = [(q0, q1, t, None)] + [tuple(_general(x) for x in (q0, q1, t, None))]
        fast, general = ((skelsimd._core.nlerp(*x) if method == "nlerp"
                          else skelsimd._core.slerp(*x, method)) for x in args)
        assert fast.shape == (4,)
        assert np.array_equal(_bits(fast), _bits(general))
