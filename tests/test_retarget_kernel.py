"""The retargeting remap kernel (_core.retarget_remap) against its float64 reference on every SIMD
variant, bit-identical to the scalar variant, and one test per bad-input rule (the exception, a
message naming the argument, the output left untouched)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import _core
from skelsimd import testing as T
from skelsimd._isa import use_isa
from skelsimd.bounds import bound
from skelsimd.reference import qts as RQ
from skelsimd.reference import retarget as R
from skelsimd.reference.ik import quat_mul
from strategies import (BAD_OUT_KINDS, BATCH_SHAPES, LAYOUTS, SENTINEL, bad_outs, fresh_out,
                        hierarchies, untouched, with_layout)


def remap_case(rng, parents, js, batch, mix, scaled=False, spread=1.0):
    """Random operands of a remap onto the hierarchy `parents` from `js` source joints: unit
    quaternions everywhere, source translations within `spread`; `mix` in [0, 1] is the share
    of mapped joints (and of placed joints among them)."""
    jt = len(parents)
    src = T.random_qts(batch + (js,), rng, translation=spread)
    index = rng.integers(0, js, jt).astype(np.int32)
    index[rng.random(jt) >= mix] = -1
    offsets = T.random_quaternions(jt, rng).astype(np.float32)
    rest = T.random_qts(jt, rng, scale=(0.8, 1.25) if scaled else None)
    placed = rng.random(jt) < mix
    return src, index, offsets, rest, placed


def errors(got, ref, parents, src):
    """(quaternion error / bound, translation error / bound) against the reference."""
    d = int(T.depths(parents).max(initial=0))
    world = RQ.qts_local_to_global(ref, parents)
    t = max(1.0, float(np.abs(world[..., 4:7]).max(initial=0)),
            float(np.abs(src[..., 4:7]).max(initial=0)))
    e = np.abs(np.asarray(got, np.float64) - ref)
    return (e[..., :4].max(initial=0) / (bound("retarget.remap") * (d + 1)),
            e[..., 4:7].max(initial=0) / (bound("retarget.remap.translation") * (d + 1) * t))


@given(parents=hierarchies(max_joints=100), js=st.integers(1, 100),
       batch=st.sampled_from(BATCH_SHAPES + [(9,), (17,)]), layout=st.sampled_from(LAYOUTS),
       mix=st.sampled_from([0.0, 0.3, 0.7, 1.0]), scaled=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_matches_reference_and_scalar(isa, parents, js, batch, layout, mix, scaled, seed):
    rng = np.random.default_rng(seed)
    src, index, offsets, rest, placed = remap_case(rng, parents, js, batch, mix, scaled)
    got = _core.retarget_remap(with_layout(src, layout), index, offsets, parents, rest, placed)
    assert got.shape == batch + (len(parents), 8) and got.dtype == np.float32
    eq, et = errors(got, R.remap(src, index, offsets, parents, rest, placed), parents, src)
    assert eq <= 1 and et <= 1, (eq, et)
    with use_isa("scalar"):
        want = _core.retarget_remap(src, index, offsets, parents, rest, placed)
    assert np.array_equal(got, want)


@given(parents=hierarchies(max_joints=100), js=st.integers(1, 40),
       batch=st.sampled_from([(), (5,), (3, 5)]), mix=st.sampled_from([0.3, 0.7, 1.0]),
       seed=st.integers(0, 2**32 - 1))
def test_what_the_output_keeps(isa, parents, js, batch, mix, seed):
    """Unmapped joints are their rest exactly, every scale is the rest's, unplaced translations
    are the rest's; forward kinematics of the output gives every mapped joint the source's
    world rotation times its offset (up to sign) and every placed joint the source's world
    position."""
    rng = np.random.default_rng(seed)
    src, index, offsets, rest, placed = remap_case(rng, parents, js, batch, mix)
    got = _core.retarget_remap(src, index, offsets, parents, rest, placed)
    mapped = index >= 0
    lead = batch + (len(parents), 8)
    assert np.array_equal(got[..., ~mapped, :], np.broadcast_to(rest, lead)[..., ~mapped, :])
    assert np.array_equal(got[..., 7], np.broadcast_to(rest[:, 7], lead[:-1]))
    unplaced = ~(mapped & placed)
    assert np.array_equal(got[..., unplaced, 4:7], np.broadcast_to(rest, lead)[..., unplaced, 4:7])
    world = RQ.qts_local_to_global(got, parents)
    d = int(T.depths(parents).max(initial=0))
    want_q = quat_mul(src[..., index[mapped], :4].astype(np.float64), offsets[mapped])
    wq = world[..., mapped, :4]
    err_q = np.minimum(np.abs(wq - want_q).max(-1), np.abs(wq + want_q).max(-1)).max(initial=0)
    assert err_q <= 4 * bound("retarget.remap") * (d + 1), err_q
    p = mapped & placed
    t = max(1.0, float(np.abs(world[..., 4:7]).max(initial=0)))
    err_t = np.abs(world[..., p, 4:7] - src[..., index[p], 4:7]).max(initial=0)
    assert err_t <= 4 * bound("retarget.remap.translation") * (d + 1) * t, err_t


@pytest.mark.parametrize("frames", [1, 3, 4, 7, 8, 9, 16, 17, 100])
def test_every_tail_of_frames_is_bit_identical(isa, frames):
    rng = np.random.default_rng(frames)
    parents = T.humanoid_skeleton()[0]
    src, index, offsets, rest, placed = remap_case(rng, parents, 31, (frames,), 0.6, True)
    got = _core.retarget_remap(src, index, offsets, parents, rest, placed)
    with use_isa("scalar"):
        want = np.stack([_core.retarget_remap(src[f], index, offsets, parents, rest, placed)
                         for f in range(frames)])
    assert np.array_equal(got, want)


def test_identity_mapping_gives_the_clip_back(isa, rng):
    """Source == target with identity offsets, every joint mapped and the root placed: the
    local joints come back (the rotations within a few ulps, scales exact)."""
    parents = T.humanoid_skeleton()[0]
    local = T.random_qts((20, len(parents)), rng)
    local[..., 7] = 1.0
    world = skelsimd.qts_local_to_global(local, parents)
    offsets = np.tile(np.array([0, 0, 0, 1], np.float32), (len(parents), 1))
    placed = np.zeros(len(parents), bool)
    placed[0] = True
    got = _core.retarget_remap(world, np.arange(len(parents)), offsets, parents, local[0], placed)
    same = np.minimum(np.abs(got[..., :4] - local[..., :4]).max(-1),
                      np.abs(got[..., :4] + local[..., :4]).max(-1))
    assert same.max() <= 1e-5
    assert np.array_equal(got[..., 0, 4:7], local[..., 0, 4:7])
    assert np.array_equal(got[..., 1:, 4:], np.broadcast_to(local[0, 1:, 4:], got[..., 1:, 4:].shape))


def test_out_keywords_and_skeleton(isa, rng):
    parents = T.humanoid_skeleton()[0]
    src, index, offsets, rest, placed = remap_case(rng, parents, 12, (6,), 0.5)
    want = _core.retarget_remap(src, index, offsets, parents, rest, placed)
    out = fresh_out((6, len(parents), 8))
    res = _core.retarget_remap(source_world=src, src_index=index, offsets=offsets,
                               target_parents=skelsimd.Skeleton(parents), target_rest=rest,
                               placed=placed.astype(np.uint8), out=out)
    assert res is out and np.array_equal(out, want)
    assert _core.retarget_remap(src[:0], index, offsets, parents, rest, placed).shape == (0, len(parents), 8)


# ---- bad input: one test per rule -----------------------------------------------------------

RNG = np.random.default_rng(7)
PARENTS = np.array([-1, 0, 1, 1, 0], np.int32)
SRC, INDEX, OFFSETS, REST, PLACED = remap_case(RNG, PARENTS, 3, (4,), 0.7)
INDEX[:3] = [0, 2, 1]
ARGS = dict(source_world=SRC, src_index=INDEX, offsets=OFFSETS, target_parents=PARENTS,
            target_rest=REST, placed=PLACED)
OUT_SHAPE = (4, 5, 8)


def refused(exc, words, **changes):
    """The call with `changes` raises `exc` naming every word of `words`; its out (a given one,
    or a fresh SENTINEL array) is untouched."""
    kw = dict(ARGS, **changes)
    out = kw.setdefault("out", fresh_out(OUT_SHAPE))
    snapshot = np.array(out, copy=True)
    with pytest.raises(exc) as info:
        _core.retarget_remap(**kw)
    msg = str(info.value)
    assert type(info.value) is exc and all(w in msg for w in words), msg
    assert np.array_equal(np.asarray(out), snapshot)


def test_good_call_writes():
    out = fresh_out(OUT_SHAPE)
    assert _core.retarget_remap(**ARGS, out=out) is out and not untouched(out)


@pytest.mark.parametrize("value, words", [
    ([0, 2, 3, 1, -1], ["src_index[2] = 3", "< 3", "source_world.shape[-2]"]),
    ([0, 2, -2, 1, -1], ["src_index[2] = -2", "-1"]),
])
def test_src_index_out_of_range(value, words):
    refused(ValueError, words, src_index=np.array(value))


@pytest.mark.parametrize("name, value, exc, words", [
    ("source_world", SRC[..., :7], ValueError, ["source_world", "(..., Js, 8)", "(4, 3, 7)"]),
    ("source_world", SRC[0, 0], ValueError, ["source_world", "(..., Js, 8)", "(8,)"]),
    ("source_world", SRC[:, :0], ValueError, ["source_world", "Js >= 1"]),
    ("source_world", SRC.astype(np.complex64), TypeError, ["source_world", "complex64"]),
    ("source_world", np.full(SRC.shape, "a"), TypeError, ["source_world", "<U1"]),
    ("src_index", INDEX.astype(np.float64), TypeError, ["src_index", "float64"]),
    ("src_index", INDEX[None], ValueError, ["src_index", "(Jt,)", "(1, 5)"]),
    ("src_index", INDEX[:0], ValueError, ["src_index", "Jt >= 1", "(0,)"]),
    ("offsets", OFFSETS[:4], ValueError, ["offsets", "(5, 4)", "(4, 4)"]),
    ("offsets", OFFSETS[:, :3], ValueError, ["offsets", "(5, 4)", "(5, 3)"]),
    ("offsets", OFFSETS.astype(np.complex64), TypeError, ["offsets", "complex64"]),
    ("target_rest", REST[:, :7], ValueError, ["target_rest", "(5, 8)", "(5, 7)"]),
    ("target_rest", REST[None], ValueError, ["target_rest", "(5, 8)", "(1, 5, 8)"]),
    ("placed", PLACED[:4], ValueError, ["placed", "(5,)", "(4,)"]),
    ("placed", PLACED.astype(np.float32), TypeError, ["placed", "float32"]),
])
def test_wrong_shape_or_dtype(name, value, exc, words):
    refused(exc, words, **{name: value})


@pytest.mark.parametrize("parents, exc, words", [
    ([-1, 0, 1, 3, 0], ValueError, ["target_parents[3] = 3", "-1 <= parents[j] < j"]),
    ([-1, 0, 1], ValueError, ["target_parents", "5", "3", "src_index.shape[0]"]),
    ([-1.0, 0, 1, 1, 0], TypeError, ["target_parents", "float64"]),
    (skelsimd.Skeleton([-1, 0, 1]), ValueError, ["target_parents", "Skeleton of 5 joints"]),
])
def test_bad_parents(parents, exc, words):
    refused(exc, words, target_parents=parents)


@pytest.mark.parametrize("where, shape, words", [
    ((2, 1, 5), (4, 3, 8), ["source_world[2, 1, 5] = nan", "frame 2, joint 1"]),
    ((0, 2, 0), (4, 3, 8), ["source_world[0, 2, 0] = inf", "frame 0, joint 2"]),
    ((1, 3, 2, 7), (2, 4, 3, 8), ["source_world[1, 3, 2, 7] = nan", "frame (1, 3), joint 2"]),
    ((1, 6), (3, 8), ["source_world[1, 6] = -inf", "joint 1"]),
])
def test_non_finite_source_world_names_frame_and_joint(isa, where, shape, words):
    src = T.random_qts(shape[:-1], np.random.default_rng(1))
    src[where] = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}[words[0].split(" = ")[1]]
    refused(ValueError, words, source_world=src, out=fresh_out(shape[:-2] + (5, 8)))


def test_a_frame_of_nan_is_refused(isa):
    src = T.random_qts((40, 3), np.random.default_rng(2))
    src[33] = np.nan
    refused(ValueError, ["source_world[33, 0, 0] = nan", "frame 33, joint 0"], source_world=src,
            out=fresh_out((40, 5, 8)))


@pytest.mark.parametrize("case", range(len(BAD_OUT_KINDS)), ids=BAD_OUT_KINDS)
def test_bad_out(case):
    _, out, exc, words = bad_outs(OUT_SHAPE, (4, 5, 9), BAD_OUT_KINDS)[case]
    refused(exc, words, out=out)


@pytest.mark.parametrize("operand", ["source_world", "offsets", "target_rest"])
def test_out_overlapping_an_input_is_refused(operand):
    buf = np.full(4 * 5 * 8 + 64, SENTINEL, np.float32)
    out = buf[:160].reshape(OUT_SHAPE)
    shape = {"source_world": SRC.shape, "offsets": OFFSETS.shape, "target_rest": REST.shape}[operand]
    size = int(np.prod(shape))
    view = buf[8:8 + size].reshape(shape)
    view[...] = ARGS[operand]
    refused(ValueError, ["out", operand, "overlaps"], **{operand: view, "out": out})


def test_out_aliasing_source_world_is_refused():
    src = np.array(T.random_qts((4, 5), np.random.default_rng(3)))
    refused(ValueError, ["out", "source_world"], source_world=src, out=src)
