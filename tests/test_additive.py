"""make_additive, apply_additive and blend_layers' additive layers against the float64
references, on every SIMD variant (`isa` fixture); round trips, exact weight 0, error rules."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import testing as T
from skelsimd.bounds import bound
from skelsimd.reference import additive as R
from strategies import BATCH_SHAPES, fresh_out, untouched, with_layout

MAKE, APPLY, TRIP = bound("additive.make"), bound("additive.apply"), bound("additive.round_trip")


def poses(shape, rng, translation=1.0):
    return T.random_qts(shape, rng, translation=translation, scale=(0.5, 2.0))


def same_rotation(a, b):
    """Quaternion components compared up to sign (q and -q): the smaller difference."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    plus = np.abs(a[..., :4] - b[..., :4]).max(-1)
    minus = np.abs(a[..., :4] + b[..., :4]).max(-1)
    return np.minimum(plus, minus)


@given(seed=st.integers(0, 2**32 - 1), batch=st.sampled_from(BATCH_SHAPES),
       frames=st.integers(1, 5), joints=st.integers(1, 40),
       ref=st.sampled_from(["first", "rest", "pose", "batch"]))
def test_make_additive_reference(isa, seed, batch, frames, joints, ref):
    rng = np.random.default_rng(seed)
    x = poses(batch + (frames, joints), rng)
    if ref == "first":
        r64 = x[..., :1, :, :]
        got = skelsimd.make_additive(x)
    elif ref == "rest":
        r64 = np.broadcast_to(skelsimd.additive.IDENTITY_QTS, (joints, 8))
        got = skelsimd.make_additive(x, "rest")
    elif ref == "pose":
        r64 = poses((joints,), rng)
        got = skelsimd.make_additive(x, r64)
    else:
        r64 = poses(batch + (1, joints), rng)
        got = skelsimd.make_additive(x, r64)
    want = R.make_additive(x, r64)
    assert got.shape == x.shape and got.dtype == np.float32
    scale = np.maximum(1.0, np.maximum(np.abs(x[..., 4:7]).max(), np.abs(want[..., 7]).max()))
    assert np.abs(got - want).max(initial=0) <= MAKE * scale


@given(seed=st.integers(0, 2**32 - 1), batch=st.sampled_from(BATCH_SHAPES),
       joints=st.integers(1, 40), weight=st.sampled_from([1.0, -1.0, 0.5, -0.25, 1e-3, 0.999]),
       masked=st.booleans(), one_delta=st.booleans())
def test_apply_additive_reference(isa, seed, batch, joints, weight, masked, one_delta):
    rng = np.random.default_rng(seed)
    base = poses(batch + (joints,), rng)
    delta = poses((joints,) if one_delta else batch + (joints,), rng)
    mask = rng.uniform(0, 1, joints).astype(np.float32) if masked else None
    if masked:
        mask[::3] = 0.0
        mask[1::4] = 1.0
    got = skelsimd.apply_additive(base, delta, weight, mask)
    want = R.apply_additive(base, delta, weight, mask)
    scale = max(1.0, np.abs(base[..., 4:7]).max() + np.abs(delta[..., 4:7]).max(),
                np.abs(want[..., 7]).max())
    assert np.isfinite(got).all()
    assert np.abs(got - want).max(initial=0) <= APPLY * scale


@pytest.mark.parametrize("ref", ["first", "rest", "pose"])
@given(seed=st.integers(0, 2**32 - 1), batch=st.sampled_from([(), (2,), (3, 2)]),
       joints=st.integers(1, 33))
def test_round_trip(isa, ref, seed, batch, joints):
    """apply_additive(reference, make_additive(x, reference)) == x within the bound."""
    rng = np.random.default_rng(seed)
    x = poses(batch + (4, joints), rng)
    if ref == "first":
        delta, base = skelsimd.make_additive(x), x[..., :1, :, :]
    elif ref == "rest":
        delta = skelsimd.make_additive(x, "rest")
        base = np.broadcast_to(skelsimd.additive.IDENTITY_QTS, (joints, 8))
    else:
        base = poses((joints,), rng)
        delta = skelsimd.make_additive(x, base)
    back = skelsimd.apply_additive(base, delta)
    scale = max(1.0, np.abs(x[..., 4:]).max())
    assert same_rotation(back, x).max() <= TRIP
    assert np.abs(back[..., 4:] - x[..., 4:]).max() <= TRIP * scale


@given(seed=st.integers(0, 2**32 - 1), joints=st.integers(1, 40),
       weight=st.floats(-1, 1), masked=st.booleans())
def test_add_then_subtract(isa, seed, joints, weight, masked):
    rng = np.random.default_rng(seed)
    base, delta = poses((3, joints), rng), poses((3, joints), rng)
    mask = rng.uniform(0, 1, joints) if masked else None
    added = skelsimd.apply_additive(base, delta, weight, mask)
    back = skelsimd.apply_additive(added, delta, -weight, mask)
    assert same_rotation(back, base).max() <= 2 * APPLY
    assert np.abs(back[..., 4:] - base[..., 4:]).max() <= 4 * APPLY * 2


def test_weight_zero_is_base_exactly(isa):
    rng = np.random.default_rng(5)
    base, delta = poses((7, 19), rng), poses((7, 19), rng)
    for w in (0.0, -0.0, 0):
        assert np.array_equal(skelsimd.apply_additive(base, delta, w), base)
        assert np.array_equal(skelsimd.apply_additive(base, delta, 1.0, np.zeros(19)), base)


def test_in_place_and_layouts(isa):
    rng = np.random.default_rng(6)
    base, delta = poses((5, 13), rng), poses((5, 13), rng)
    want = skelsimd.apply_additive(base, delta, 0.7)
    for layout in ("strided", "reversed", "float64", "list"):
        assert np.array_equal(skelsimd.apply_additive(with_layout(base, layout),
                                                      with_layout(delta, layout), 0.7), want)
    out = base.copy()
    assert skelsimd.apply_additive(out, delta, 0.7, out=out) is out
    assert np.array_equal(out, want)
    x = poses((4, 9), rng)
    want = skelsimd.make_additive(x)
    y = x.copy()
    assert skelsimd.make_additive(y, out=y) is y and np.array_equal(y, want)


def test_single_pose_first_is_identity(isa):
    x = poses((11,), np.random.default_rng(1))
    d = skelsimd.make_additive(x)
    assert np.allclose(d, np.tile(skelsimd.additive.IDENTITY_QTS, (11, 1)), atol=MAKE * 2)


@given(seed=st.integers(0, 2**32 - 1), joints=st.integers(1, 30), layers=st.integers(1, 3))
def test_blend_layers_additive(isa, seed, joints, layers):
    """blend_layers(..., additive=...) is the blend followed by each additive layer in order."""
    rng = np.random.default_rng(seed)
    lay = poses((2, layers, joints), rng)
    w = rng.uniform(0.1, 1, layers)
    d1, d2 = poses((joints,), rng), poses((2, joints), rng)
    m = rng.uniform(0, 1, joints)
    got = skelsimd.blend_layers(lay, w, additive=[(d1, 0.5), (d2, -0.75, m)])
    want = skelsimd.apply_additive(skelsimd.apply_additive(skelsimd.blend_layers(lay, w), d1, 0.5),
                                   d2, -0.75, m)
    assert np.array_equal(got, want)
    assert np.array_equal(skelsimd.blend_layers(lay, w, additive=[]), skelsimd.blend_layers(lay, w))


@given(seed=st.integers(0, 2**32 - 1), batch=st.sampled_from([(), (1,), (3,), (2, 3)]),
       joints=st.integers(1, 70), layers=st.integers(1, 4), per_joint=st.booleans(),
       nadd=st.integers(1, 2), one_delta=st.booleans())
def test_blend_layers_additive_reference(isa, seed, batch, joints, layers, per_joint, nadd,
                                         one_delta):
    """The fused pass against the float64 reference (blend, then each additive layer), within
    [bound:blend_layers.additive]; and bit for bit the blend followed by apply_additive."""
    rng = np.random.default_rng(seed)
    lay = poses(batch + (layers, joints), rng)
    w = rng.uniform(0.05, 1, (layers, joints) if per_joint else layers)
    adds = []
    for _ in range(nadd):
        d = poses((joints,) if one_delta else batch + (joints,), rng)
        m = rng.uniform(0, 1, joints) if rng.random() < 0.5 else None
        adds.append((d, float(rng.uniform(-1, 1)), m))
    got = skelsimd.blend_layers(lay, w, additive=adds)
    want = R.blend_layers_additive(lay, w, adds)
    scale = np.maximum(1, np.abs(want[..., 4:]))
    assert same_rotation(got[..., :4], want[..., :4]).max() <= bound("blend_layers.additive")
    assert (np.abs(got[..., 4:] - want[..., 4:]) / scale).max() <= bound("blend_layers.additive")
    two_pass = skelsimd.blend_layers(lay, w)
    for d, wt, m in adds:
        two_pass = skelsimd.apply_additive(two_pass, d, wt, m)
    assert np.array_equal(got.view(np.uint32), two_pass.view(np.uint32))


def test_blend_layers_additive_out_of_range_sums(isa):
    """Blocks whose quaternion sum is outside the fast normalisation range (opposite layers
    cancelling, tiny layers) take the scalar fix-up, then their additive layers: the same bits
    as the two passes, finite."""
    rng = np.random.default_rng(11)
    lay = poses((2, 2, 40), rng)
    lay[:, 1, :, :4] = -lay[:, 0, :, :4]                 # opposite: the sums cancel to zero
    lay[0, :, 5:9, :4] *= 1e-20                          # tiny: |sum|^2 under 1e-30
    lay[1, 1, 17:21, :4] = lay[1, 0, 17:21, :4]          # some ordinary joints among them
    d = poses((40,), rng)
    got = skelsimd.blend_layers(lay, [0.5, 0.5], additive=[(d, 0.7)])
    want = skelsimd.apply_additive(skelsimd.blend_layers(lay, [0.5, 0.5]), d, 0.7)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.isfinite(got).all()


def test_blend_layers_additive_rejects_overlaps():
    rng = np.random.default_rng(12)
    lay, d = poses((2, 5), rng), poses((5,), rng)
    out = fresh_out((5, 8))
    with pytest.raises(ValueError, match="additive delta"):
        skelsimd.blend_layers(lay, [0.5, 0.5], out=out, additive=[(out, 0.5)])
    assert untouched(out)


# --- errors: nothing written -----------------------------------------------------------------

def test_errors_apply():
    rng = np.random.default_rng(2)
    base, delta = poses((3, 5), rng), poses((3, 5), rng)
    out = fresh_out((3, 5, 8))
    cases = [
        (ValueError, "weight", dict(weight=1.5)),
        (ValueError, "weight", dict(weight=float("nan"))),
        (TypeError, "weight", dict(weight="1")),
        (ValueError, "weight", dict(weight=2**1024)),     # beyond the float range
        (ValueError, "weight", dict(weight=-10**400)),
        (ValueError, "mask", dict(mask=np.ones(4))),
        (ValueError, "mask", dict(mask=np.full(5, 2.0))),
        (ValueError, "mask", dict(mask=np.full(5, np.nan))),
        (ValueError, "delta", dict(delta=poses((3, 4), rng))),
        (ValueError, "delta", dict(delta=poses((2, 5), rng))),
        (TypeError, "base", dict(base=np.array([["a"] * 8] * 5))),
        (ValueError, "out", dict(out=fresh_out((3, 5, 7)))),
        (TypeError, "out", dict(out=np.zeros((3, 5, 8)))),
    ]
    for exc, word, kw in cases:
        args = dict(base=base, delta=delta, weight=0.5, mask=None, out=out)
        args.update(kw)
        with pytest.raises(exc, match=word):
            skelsimd.apply_additive(args["base"], args["delta"], args["weight"], args["mask"],
                                    out=args["out"])
        assert untouched(out)
    with pytest.raises(ValueError, match="out: must not be the same memory as delta"):
        skelsimd.apply_additive(base, delta, 0.5, out=delta)


def test_errors_make():
    rng = np.random.default_rng(3)
    x = poses((4, 5), rng)
    out = fresh_out((4, 5, 8))
    bad_ref = poses((5,), rng)
    bad_ref[2, 7] = 0
    for exc, word, ref in [(ValueError, "reference", "middle"), (ValueError, "reference", bad_ref),
                           (ValueError, "reference", poses((4,), rng)),
                           (ValueError, "reference", poses((3, 5), rng)),
                           (TypeError, "reference", np.array([["x"] * 8] * 5))]:
        with pytest.raises(exc, match=word):
            skelsimd.make_additive(x, ref, out=out)
        assert untouched(out)
    with pytest.raises(ValueError, match="local"):
        skelsimd.make_additive(np.zeros((4, 7)))
    # no frames: no first frame to take, an empty result
    assert skelsimd.make_additive(np.zeros((2, 0, 5, 8))).shape == (2, 0, 5, 8)


def test_errors_blend_layers_additive():
    rng = np.random.default_rng(4)
    lay, w = poses((2, 5), rng), [0.5, 0.5]
    out = fresh_out((5, 8))
    for exc, word, add in [(ValueError, "weight", [(poses((5,), rng), 2.0)]),
                           (ValueError, "weight", [(poses((5,), rng), 2**1024)]),
                           (ValueError, "delta", [(poses((4,), rng), 0.5)]),
                           (ValueError, "mask", [(poses((5,), rng), 0.5, np.ones(3))]),
                           (TypeError, "additive", [(poses((5,), rng),)]),
                           (TypeError, "additive", 3)]:
        with pytest.raises(exc, match=word):
            skelsimd.blend_layers(lay, w, out=out, additive=add)
        assert untouched(out)


@given(data=st.data(), seed=st.integers(0, 2**32 - 1),
       batch=st.sampled_from([(), (1,), (3,), (2, 3)]), joints=st.integers(1, 20),
       nadd=st.integers(1, 3))
def test_blend_layers_additive_direct_path(isa, data, seed, batch, joints, nadd):
    """The wrapper's one-call path (a list or tuple of layers already in the checked form) gives
    the general path's bits (layers passed as an iterator take the general path); the glue takes
    exactly the checked forms and declines (None, nothing written) anything else."""
    rng = np.random.default_rng(seed)
    lay = poses(batch + (2, joints), rng)
    w = np.float32([0.6, 0.4])
    adds, simple = [], True
    for _ in range(nadd):
        kind = data.draw(st.sampled_from(["one", "all", "lead1", "f64"]))
        d = poses({"one": (joints,), "all": batch + (joints,), "lead1": (1, 1, joints),
                   "f64": (joints,)}[kind], rng)
        if kind == "f64":
            d = d.astype(np.float64)
        weight = data.draw(st.sampled_from([0.5, -0.75, 1, np.float32(0.25)]))
        mask = data.draw(st.sampled_from([None, "f32", "f64"]))
        m = None if mask is None else rng.uniform(0, 1, joints).astype(
            np.float32 if mask == "f32" else np.float64)
        layer = (d, weight) if m is None and data.draw(st.booleans()) else (d, weight, m)
        if data.draw(st.booleans()):
            layer = list(layer)
        adds.append(layer)
        simple &= kind in ("one", "all") and type(weight) is float and mask != "f64"
    direct = skelsimd._core.blend_layers(lay, w, None, adds, True)
    assert (direct is not None) == simple
    got = skelsimd.blend_layers(lay, w, additive=tuple(adds))
    want = skelsimd.blend_layers(lay, w, additive=iter(adds))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    if direct is not None:
        assert np.array_equal(direct.view(np.uint32), want.view(np.uint32))
