"""One test per bad-input rule of the blending functions (skelsimd.blend: slerp, nlerp,
blend_joints, blend_layers): the exception type, a message naming the argument (and the expected
and actual), and `out` left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import SENTINEL, fresh_out, operand_rule_tests, raises, untouched

RNG = np.random.default_rng(0)
Q = T.random_quaternions(6, RNG).astype(np.float32)
QTS = T.random_qts((2, 5), RNG)

# name -> (call(first_operand, out), a good first operand, the result shape)
CALLS = {
    "slerp": (lambda x, out: skelsimd.slerp(x, Q, 0.5, out), Q, (6, 4)),
    "slerp_exact": (lambda x, out: skelsimd.slerp(x, Q, 0.5, out, method="exact"), Q, (6, 4)),
    "nlerp": (lambda x, out: skelsimd.nlerp(x, Q, 0.5, out), Q, (6, 4)),
    "blend_joints": (lambda x, out: skelsimd.blend_joints(x, QTS, 0.5, out=out), QTS, (2, 5, 8)),
    "blend_layers": (lambda x, out: skelsimd.blend_layers(x, [1.0, 2.0], out), QTS[None].repeat(2, 0), (2, 5, 8)),
}
FIRST_ARG = {"slerp": "q0", "slerp_exact": "q0", "nlerp": "q0", "blend_joints": "joints",
             "blend_layers": "layers"}
LAYOUT = {"blend_joints": "(..., J, 8)", "blend_layers": "(..., L, J, 8)"}

# test_good_call_works, test_bad_dtype_of_the_first_operand,
# test_bad_trailing_shape_of_the_first_operand and test_bad_out over CALLS:
globals().update(operand_rule_tests(CALLS, FIRST_ARG, LAYOUT))


def test_partial_overlap_is_refused():
    buf = np.full((8, 4), SENTINEL, np.float32)
    buf[:6] = Q
    raises(ValueError, ["partially overlaps"], lambda: skelsimd.slerp(buf[:6], Q, 0.5, buf[1:7]), buf)
    raises(ValueError, ["partially overlaps"], lambda: skelsimd.nlerp(Q, buf[:6], 0.5, buf[1:7]), buf)
    qts = np.full((3, 5, 8), SENTINEL, np.float32)
    qts[:2] = QTS
    snap = qts.copy()
    with pytest.raises(ValueError, match="out: partially overlaps joints"):
        skelsimd.blend_joints(qts[:2], QTS, 0.5, out=qts[1:])
    assert np.array_equal(qts, snap)


def test_out_must_not_be_an_input_where_not_in_place():
    blend = QTS.copy()
    with pytest.raises(ValueError, match="out: must not be the same memory as blend"):
        skelsimd.blend_joints(QTS, blend, 0.5, out=blend)
    assert np.array_equal(blend, QTS)
    layers = np.stack([QTS[0], QTS[1]])
    with pytest.raises(ValueError, match="out: partially overlaps layers"):
        skelsimd.blend_layers(layers, [1, 1], layers[0])


@pytest.mark.parametrize("call, words", [
    (lambda out: skelsimd.slerp(Q[:4], Q[:4], np.zeros(3), out), ["t", "(4,)", "(3,)"]),
    (lambda out: skelsimd.nlerp(Q[:4], Q[:3], 0.5, out), ["q0 and q1", "(4,)", "(3,)"]),
    (lambda out: skelsimd.blend_joints(QTS, QTS, np.zeros(3), out=out), ["t", "(2,)", "(3,)"]),
])
def test_leading_shapes_must_broadcast(call, words):
    out = fresh_out((4, 4))
    raises(ValueError, words + ["broadcast"], lambda: call(out), out)


def test_second_operand_shape():
    with pytest.raises(ValueError, match=r"q1: expected shape \(\.\.\., 4\), got \(6, 3\)"):
        skelsimd.slerp(Q, Q[:, :3], 0.5)
    with pytest.raises(ValueError, match=r"blend: expected shape \(\.\.\., J, 8\) with J = joints.shape\[-2\], got \(2, 4, 8\)"):
        skelsimd.blend_joints(QTS, QTS[:, :4], 0.5)
    with pytest.raises(TypeError, match="t: expected"):
        skelsimd.slerp(Q, Q, "half")


@pytest.mark.parametrize("method, exc, words", [
    ("slow", ValueError, ["method", "'fast', 'exact'", "'slow'"]),
    (3, TypeError, ["method", "str", "int"]),
])
def test_bad_method(method, exc, words):
    out = fresh_out((6, 4))
    with pytest.raises(exc) as info:
        skelsimd.slerp(Q, Q, 0.5, out, method=method)
    assert all(w in str(info.value) for w in words), str(info.value)
    with pytest.raises(exc) as info:
        skelsimd.blend_joints(QTS, QTS, 0.5, method=method)
    assert "method" in str(info.value)
    assert untouched(out)
    with pytest.raises(ValueError, match="'nlerp'"):
        skelsimd.blend_joints(QTS, QTS, 0.5, method="lerp")


@pytest.mark.parametrize("index, exc, words", [
    ([0, 2, 2], ValueError, ["index[2] = 2", "repeated"]),
    ([0, 5], ValueError, ["index[1] = 5", "0 <= index < 5"]),
    ([-1, 0], ValueError, ["index[0] = -1", "0 <= index < 5"]),
    ([0.0, 1.0], TypeError, ["index", "float64", "integer"]),
    ([True, False], TypeError, ["index", "bool"]),
    ([[0, 1]], ValueError, ["index", "1-D", "(1, 2)"]),
    (object(), TypeError, ["index"]),
])
def test_bad_index(index, exc, words):
    out = fresh_out((2, 5, 8))
    with pytest.raises(exc) as info:
        skelsimd.blend_joints(QTS, QTS, 0.5, index=index, out=out)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(out)


@pytest.mark.parametrize("weights, words", [
    ([1.0], ["weights", "(L,) = (2,)", "(2, 5)", "got (1,)"]),
    (np.ones((2, 4)), ["weights", "(2, 5)", "got (2, 4)"]),
    (np.ones((1, 2, 5)), ["weights", "got (1, 2, 5)"]),
    ([1.0, -0.5], ["weights[1] = -0.5", ">= 0"]),
    ([1.0, np.nan], ["weights[1] = nan", "finite"]),
    ([np.inf, 1.0], ["weights[0] = inf", "finite"]),
    ([0.0, 0.0], ["at least one positive weight", "all 2 weights are 0"]),
    (np.array([[1, 1, 0, 1, 1], [1, 0, 0, 1, 1]], float), ["weights[:, 2]", "joint 2 has none"]),
    (np.array([[1, 1, 1, 1, 1], [1, 1, -1, 1, 1]], float), ["weights[1, 2] = -1"]),
])
def test_bad_layer_weights(weights, words):
    layers = np.stack([QTS[0], QTS[1]])
    out = fresh_out((5, 8))
    with pytest.raises(ValueError) as info:
        skelsimd.blend_layers(layers, weights, out)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(out)


def test_bad_layers_shape_and_weights_dtype():
    out = fresh_out((5, 8))
    with pytest.raises(ValueError, match=r"layers: expected shape \(\.\.\., L, J, 8\), got \(5, 8\)"):
        skelsimd.blend_layers(QTS[0], [1.0], out)
    with pytest.raises(TypeError, match="weights: expected"):
        skelsimd.blend_layers(np.stack([QTS[0]]), np.array([1j]), out)
    assert untouched(out)


def test_wrong_positional_count_of_the_core_is_a_type_error():
    with pytest.raises(TypeError, match="takes 5 positional arguments"):
        skelsimd._core.slerp(Q, Q)
    with pytest.raises(TypeError, match="takes 6 positional arguments"):
        skelsimd._core.blend_joints(QTS, QTS, 0.5)
