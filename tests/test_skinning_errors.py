"""One test per bad-input rule of the skinning family: the exception type, a message naming the
argument (and, for joint indices, the vertex and the influence), the expected and the actual,
and every output left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T

from strategies import SENTINEL, bad_outs, raises


@pytest.fixture
def mesh(rng):
    positions, normals, idx, w = T.random_mesh(6, 4, 10, rng)
    palette = T.random_joints((2, 10), rng)
    out = np.full((2, 6, 3), SENTINEL, np.float32)
    nout = np.full((2, 6, 3), SENTINEL, np.float32)
    return positions, normals, idx, w, palette, out, nout


# --- skin -------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, vertex, influence", [(10, 3, 2), (-1, 0, 1), (2**31 - 1, 5, 3)])
def test_skin_index_out_of_range_names_the_vertex_and_influence(mesh, value, vertex, influence):
    positions, normals, idx, w, palette, out, nout = mesh
    idx[vertex, influence] = value
    raises(ValueError, [f"joint_indices[{vertex}, {influence}] = {value}", f"vertex {vertex}",
                        f"influence {influence}", "0 <= value < 10", "palette.shape[-3]"],
           lambda: skelsimd.skin(positions, idx, w, palette, out, normals=normals, normals_out=nout),
           out, nout)


def test_skin_first_bad_index_is_named(mesh):
    positions, _, idx, w, palette, out, _ = mesh
    idx[4, 0] = 99
    idx[2, 3] = 50
    raises(ValueError, ["joint_indices[2, 3] = 50"], lambda: skelsimd.skin(positions, idx, w, palette, out), out)


@pytest.mark.parametrize("bad, exc, words", [
    (np.array([[2**40, 0, 0, 0]] * 6, np.int64), ValueError, ["joint_indices[0, 0] = 1099511627776", "int32"]),
    (np.array([[2**63, 0, 0, 0]] * 6, np.uint64), ValueError, ["joint_indices[0, 0] = 9223372036854775808", "int32"]),
    (np.array([[0, 0, 0, -(2**40)]] * 6, np.int64), ValueError, ["joint_indices[0, 3]", "int32"]),
    (np.zeros((6, 4), np.float32), TypeError, ["joint_indices", "integer", "float32"]),
    (np.zeros((6, 4), bool), TypeError, ["joint_indices", "integer", "bool"]),
    ("0123", TypeError, ["joint_indices", "integer", "<U4"]),
    (np.zeros((6, 4, 1), np.int32), ValueError, ["joint_indices", "(V, K)", "V = 6", "(6, 4, 1)"]),
    (np.zeros((5, 4), np.int32), ValueError, ["joint_indices", "V = 6", "(5, 4)"]),
    (np.zeros(6, np.int32), ValueError, ["joint_indices", "(V, K)", "(6,)"]),
    (np.zeros((6, 0), np.int32), ValueError, ["joint_indices", "1 <= K <= 12", "K = 0"]),
    (np.zeros((6, 13), np.int32), ValueError, ["joint_indices", "1 <= K <= 12", "K = 13"]),
])
def test_skin_bad_joint_indices(mesh, bad, exc, words):
    positions, _, _, w, palette, out, _ = mesh
    weights = w if np.shape(bad)[-1:] == (4,) or np.ndim(bad) != 2 else np.zeros(np.shape(bad), np.float32)
    raises(exc, words, lambda: skelsimd.skin(positions, bad, weights, palette, out), out)


@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((6, 3), np.float32), ValueError, ["weights", "(6, 4)", "joint_indices", "(6, 3)"]),
    (np.zeros((1, 6, 4), np.float32), ValueError, ["weights", "(6, 4)", "(1, 6, 4)"]),
    (np.zeros((6, 4), np.complex64), TypeError, ["weights", "complex64"]),
    (None, TypeError, ["weights"]),
])
def test_skin_bad_weights(mesh, bad, exc, words):
    positions, _, idx, _, palette, out, _ = mesh
    raises(exc, words, lambda: skelsimd.skin(positions, idx, bad, palette, out), out)


@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((6, 4), np.float32), ValueError, ["positions", "(..., V, 3)", "(6, 4)"]),
    (np.zeros(3, np.float32), ValueError, ["positions", "(..., V, 3)", "(3,)"]),
    (np.zeros((6, 3), np.complex64), TypeError, ["positions", "complex64"]),
])
def test_skin_bad_positions(mesh, bad, exc, words):
    _, _, idx, w, palette, out, _ = mesh
    raises(exc, words, lambda: skelsimd.skin(bad, idx, w, palette, out), out)


def test_skin_vertex_count_mismatch(mesh):
    positions, _, idx, w, palette, out, _ = mesh
    raises(ValueError, ["joint_indices", "V = 7", "positions.shape[-2]", "(6, 4)"],
           lambda: skelsimd.skin(np.zeros((7, 3)), idx, w, palette, out), out)


@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((2, 10, 4, 4), np.float32), ValueError, ["palette", "(..., J, 3, 4)", "(2, 10, 4, 4)"]),
    (np.zeros((3, 4), np.float32), ValueError, ["palette", "(..., J, 3, 4)", "(3, 4)"]),
    (np.zeros((2, 10, 3, 4), np.complex64), TypeError, ["palette", "complex64"]),
])
def test_skin_bad_palette(mesh, bad, exc, words):
    positions, _, idx, w, _, out, _ = mesh
    raises(exc, words, lambda: skelsimd.skin(positions, idx, w, bad, out), out)


def test_skin_palette_batch_does_not_broadcast_with_positions(mesh, rng):
    _, _, idx, w, _, out, _ = mesh
    raises(ValueError, ["positions and palette", "(3,)", "(2,)", "do not broadcast"],
           lambda: skelsimd.skin(np.zeros((3, 6, 3)), idx, w, T.random_joints((2, 10), rng), out), out)


def test_skin_bad_normals(mesh):
    positions, normals, idx, w, palette, out, nout = mesh
    raises(ValueError, ["normals", "(6, 3)", "the shape of positions", "(5, 3)"],
           lambda: skelsimd.skin(positions, idx, w, palette, out, normals=normals[:5], normals_out=nout),
           out, nout)
    raises(TypeError, ["normals", "complex64"],
           lambda: skelsimd.skin(positions, idx, w, palette, out, normals=normals.astype(np.complex64)), out)
    raises(ValueError, ["normals_out", "None when normals is None"],
           lambda: skelsimd.skin(positions, idx, w, palette, out, normals_out=nout), out, nout)


@pytest.mark.parametrize("bad", [0, 1, "no", None, 1.0])
def test_skin_renormalize_must_be_a_bool(mesh, bad):
    positions, normals, idx, w, palette, out, nout = mesh
    raises(TypeError, ["renormalize", "bool", type(bad).__name__],
           lambda: skelsimd.skin(positions, idx, w, palette, out, normals=normals, normals_out=nout,
                                 renormalize=bad), out, nout)


@pytest.mark.parametrize("case", bad_outs((2, 6, 3), (6, 3), ("float64", "shape", "strided", "readonly")), ids=lambda c: c[0])
@pytest.mark.parametrize("which", ["out", "normals_out"])
def test_skin_bad_out(mesh, case, which):
    positions, normals, idx, w, palette, out, nout = mesh
    _, bad, exc, words = case
    kwargs = {"out": out, "normals_out": nout}
    kwargs[which] = bad
    raises(exc, [which + ":"] + words,
           lambda: skelsimd.skin(positions, idx, w, palette, normals=normals, **kwargs), out, nout, bad)


def test_skin_outputs_must_not_overlap_other_operands(mesh, rng):
    positions, normals, idx, w, palette, out, nout = mesh
    pos2 = np.broadcast_to(positions, (2, 6, 3)).copy()
    nrm2 = np.broadcast_to(normals, (2, 6, 3)).copy()
    snap_p, snap_n = pos2.copy(), nrm2.copy()
    for kwargs, words in [
        (dict(out=nrm2, normals=nrm2), "out: must not be the same memory as normals"),
        (dict(out=out, normals=nrm2, normals_out=pos2), "normals_out: must not be the same memory as positions"),
        (dict(out=out, normals=nrm2, normals_out=out), "normals_out: must not be the same memory as out"),
    ]:
        with pytest.raises(ValueError, match=words):
            skelsimd.skin(pos2, idx, w, palette, **kwargs)
        assert np.array_equal(pos2, snap_p) and np.array_equal(nrm2, snap_n)
    # the palette living inside out: a partial overlap
    buf = np.full(2 * 6 * 3 + 2 * 10 * 12, SENTINEL, np.float32)
    pal_view = buf[-240:].reshape(2, 10, 3, 4)
    pal_view[...] = palette
    with pytest.raises(ValueError, match="out: partially overlaps palette"):
        skelsimd.skin(positions, idx, w, pal_view, out=buf[-240 + 6:-240 + 6 + 36].reshape(2, 6, 3))


# --- skinning_palette -------------------------------------------------------------------------

@pytest.fixture
def pose(rng):
    parents = np.array([-1, 0, 1, 1, 0], np.int32)
    return (T.random_joints((2, 5), rng), parents, T.random_joints(5, rng),
            np.full((2, 5, 3, 4), SENTINEL, np.float32))


@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((2, 5, 4, 4), np.float32), ValueError, ["local", "(..., J, 3, 4)", "(2, 5, 4, 4)"]),
    (np.zeros((2, 5, 3, 4), np.complex64), TypeError, ["local", "complex64"]),
    (np.zeros((2, 4, 3, 4), np.float32), ValueError, ["parents", "expected 4 entries", "got 5"]),
])
def test_skinning_palette_bad_local(pose, bad, exc, words):
    _, parents, ib, out = pose
    raises(exc, words, lambda: skelsimd.skinning_palette(bad, parents, ib, out), out)


@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((4, 3, 4), np.float32), ValueError, ["inverse_bind", "(..., 5, 3, 4)", "J = local.shape[-3]", "(4, 3, 4)"]),
    (np.zeros((5, 4, 4), np.float32), ValueError, ["inverse_bind", "(..., 5, 3, 4)", "(5, 4, 4)"]),
    (np.zeros((3, 5, 3, 4), np.float32), ValueError, ["local and inverse_bind", "(2,)", "(3,)"]),
    (np.zeros((5, 3, 4), np.complex64), TypeError, ["inverse_bind", "complex64"]),
])
def test_skinning_palette_bad_inverse_bind(pose, bad, exc, words):
    local, parents, _, out = pose
    raises(exc, words, lambda: skelsimd.skinning_palette(local, parents, bad, out), out)


@pytest.mark.parametrize("bad, exc, words", [
    ([-1, 0, 2, 1, 0], ValueError, ["parents[2] = 2"]),
    ([-1, 0, 1, 1], ValueError, ["parents", "5", "4"]),
    (np.array([-1, 0, 1, 1, 0], np.float64), TypeError, ["parents", "float64"]),
])
def test_skinning_palette_bad_parents(pose, bad, exc, words):
    local, _, ib, out = pose
    raises(exc, words, lambda: skelsimd.skinning_palette(local, bad, ib, out), out)


def test_skinning_palette_bad_out_and_overlap(pose):
    local, parents, ib, _ = pose
    for bad, exc, words in [(np.full((2, 5, 3, 4), SENTINEL, np.float64), TypeError, ["out", "float32", "float64"]),
                            (np.full((5, 3, 4), SENTINEL, np.float32), ValueError, ["out", "(2, 5, 3, 4)", "(5, 3, 4)"])]:
        raises(exc, words, lambda: skelsimd.skinning_palette(local, parents, ib, bad), bad)
    buf = np.full((3, 5, 3, 4), SENTINEL, np.float32)
    buf[:2] = local
    snapshot = buf.copy()
    with pytest.raises(ValueError, match="out: partially overlaps local"):
        skelsimd.skinning_palette(buf[:2], parents, ib, buf[1:])
    assert np.array_equal(buf, snapshot)


# --- normalize_weights ------------------------------------------------------------------------

def test_normalize_weights_bad_input():
    out = np.full((3, 4), SENTINEL, np.float32)
    raises(ValueError, ["weights", "(..., K)", "()"], lambda: skelsimd.normalize_weights(np.float32(1), out), out)
    raises(TypeError, ["weights", "complex"], lambda: skelsimd.normalize_weights(np.zeros((3, 4), complex), out), out)
    raises(ValueError, ["out", "(3, 4)", "(4, 3)"],
           lambda: skelsimd.normalize_weights(np.ones((3, 4)), np.full((4, 3), SENTINEL, np.float32)), out)


def test_wrong_positional_count_of_the_core_is_a_type_error():
    with pytest.raises(TypeError, match="takes 8 positional arguments"):
        skelsimd._core.skin(1, 2, 3, 4)
    with pytest.raises(TypeError, match="takes 5 positional arguments"):
        skelsimd._core.skinning_palette(1, 2, 3)


@pytest.mark.parametrize("bad, exc, words", [
    ("float16", ValueError, ["precision", "'float32', 'float64'", "'float16'"]),
    (64, TypeError, ["precision", "str", "int"]),
    (b"float64", TypeError, ["precision", "str", "bytes"]),
])
def test_skinning_palette_bad_precision(pose, bad, exc, words):
    local, parents, ib, out = pose
    raises(exc, words, lambda: skelsimd.skinning_palette(local, parents, ib, out, precision=bad), out)
    assert (out == SENTINEL).all()
