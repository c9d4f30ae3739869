"""One test per bad-input rule of the quaternion, blending and QTS-walk functions: the exception
type, a message naming the argument (and the expected and actual), and `out` left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import SENTINEL, fresh_out, untouched

RNG = np.random.default_rng(0)
Q = T.random_quaternions(6, RNG).astype(np.float32)
QTS = T.random_qts((2, 5), RNG)
PARENTS = np.array([-1, 0, 1, 1, 0], dtype=np.int32)
MAT = skelsimd.quat_to_matrix(Q)
JM = skelsimd.qts_to_matrix(QTS)

# name -> (call(first_operand, out), a good first operand, the result shape)
CALLS = {
    "quat_multiply": (lambda x, out: skelsimd.quat_multiply(x, Q, out), Q, (6, 4)),
    "quat_conjugate": (lambda x, out: skelsimd.quat_conjugate(x, out), Q, (6, 4)),
    "quat_normalize": (lambda x, out: skelsimd.quat_normalize(x, out), Q, (6, 4)),
    "quat_rotate": (lambda x, out: skelsimd.quat_rotate(x, Q[:, :3], out), Q, (6, 3)),
    "quat_to_matrix": (lambda x, out: skelsimd.quat_to_matrix(x, out), Q, (6, 3, 3)),
    "matrix_to_quat": (lambda x, out: skelsimd.matrix_to_quat(x, out), MAT, (6, 4)),
    "qts_to_matrix": (lambda x, out: skelsimd.qts_to_matrix(x, out), QTS, (2, 5, 3, 4)),
    "matrix_to_qts": (lambda x, out: skelsimd.matrix_to_qts(x, out), JM, (2, 5, 8)),
    "slerp": (lambda x, out: skelsimd.slerp(x, Q, 0.5, out), Q, (6, 4)),
    "slerp_exact": (lambda x, out: skelsimd.slerp(x, Q, 0.5, out, method="exact"), Q, (6, 4)),
    "nlerp": (lambda x, out: skelsimd.nlerp(x, Q, 0.5, out), Q, (6, 4)),
    "blend_joints": (lambda x, out: skelsimd.blend_joints(x, QTS, 0.5, out=out), QTS, (2, 5, 8)),
    "blend_layers": (lambda x, out: skelsimd.blend_layers(x, [1.0, 2.0], out), QTS[None].repeat(2, 0), (2, 5, 8)),
    "qts_local_to_global": (lambda x, out: skelsimd.qts_local_to_global(x, PARENTS, out), QTS, (2, 5, 8)),
    "qts_local_to_global_matrix": (lambda x, out: skelsimd.qts_local_to_global_matrix(x, PARENTS, out), QTS, (2, 5, 3, 4)),
}
FIRST_ARG = {"quat_multiply": "a", "quat_rotate": "q", "matrix_to_quat": "m", "matrix_to_qts": "m",
             "qts_to_matrix": "x", "slerp": "q0", "slerp_exact": "q0", "nlerp": "q0", "blend_joints": "joints",
             "blend_layers": "layers", "qts_local_to_global": "local", "qts_local_to_global_matrix": "local"}
LAYOUT = {"matrix_to_quat": "(..., 3, 3)", "matrix_to_qts": "(..., 3, 4)", "qts_to_matrix": "(..., 8)",
          "blend_joints": "(..., J, 8)", "blend_layers": "(..., L, J, 8)", "qts_local_to_global": "(..., J, 8)",
          "qts_local_to_global_matrix": "(..., J, 8)"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_good_call_works(name):
    call, good, shape = CALLS[name]
    out = fresh_out(shape)
    assert call(good, out) is out and not untouched(out)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad, exc, words", [
    ("complex", TypeError, ["complex64"]),
    ("strings", TypeError, ["<U1"]),
    ("object", TypeError, ["expected"]),
])
def test_bad_dtype_of_the_first_operand(name, bad, exc, words):
    call, good, shape = CALLS[name]
    value = {"complex": good.astype(np.complex64), "strings": np.full(good.shape, "a"),
             "object": object()}[bad]
    out = fresh_out(shape)
    with pytest.raises(exc) as info:
        call(value, out)
    msg = str(info.value)
    assert FIRST_ARG.get(name, "q") in msg and all(w in msg for w in words), msg
    assert untouched(out)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_trailing_shape_of_the_first_operand(name):
    call, good, shape = CALLS[name]
    bad = np.zeros(good.shape[:-1] + (good.shape[-1] + 1,), np.float32)
    out = fresh_out(shape)
    with pytest.raises(ValueError) as info:
        call(bad, out)
    msg = str(info.value)
    assert FIRST_ARG.get(name, "q") in msg and LAYOUT.get(name, "(..., 4)") in msg, msg
    assert str(bad.shape).replace(",)", ",)") in msg or "parents" in msg, msg
    assert untouched(out)


def bad_outs(shape):
    base = fresh_out(shape)
    readonly = base.copy()
    readonly.flags.writeable = False
    wide = np.full(shape[:-1] + (2 * shape[-1],), SENTINEL, np.float32)
    wrong = shape[:-1] + (shape[-1] + 1,)
    return [
        ("float64", np.full(shape, SENTINEL, np.float64), TypeError, ["out", "float32", "float64"]),
        ("list", base.tolist(), TypeError, ["out", "list"]),
        ("shape", np.full(wrong, SENTINEL, np.float32), ValueError, ["out", str(shape), str(wrong)]),
        ("strided", wide[..., ::2], ValueError, ["out", "C-contiguous"]),
        ("readonly", readonly, ValueError, ["out", "read-only"]),
        ("byteswapped", base.astype(">f4"), TypeError, ["out", "float32"]),
    ]


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("case", range(6), ids=["float64", "list", "shape", "strided", "readonly", "byteswapped"])
def test_bad_out(name, case):
    call, good, shape = CALLS[name]
    _, out, exc, words = bad_outs(shape)[case]
    snapshot = np.array(out, copy=True)
    with pytest.raises(exc) as info:
        call(good, out)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert np.array_equal(np.asarray(out), snapshot)


def test_partial_overlap_is_refused():
    buf = np.full((8, 4), SENTINEL, np.float32)
    buf[:6] = Q
    snapshot = buf.copy()
    for call in (lambda: skelsimd.quat_multiply(buf[:6], Q, buf[1:7]),
                 lambda: skelsimd.quat_normalize(buf[:6], buf[2:8]),
                 lambda: skelsimd.slerp(buf[:6], Q, 0.5, buf[1:7]),
                 lambda: skelsimd.nlerp(Q, buf[:6], 0.5, buf[1:7])):
        with pytest.raises(ValueError, match="partially overlaps"):
            call()
    assert np.array_equal(buf, snapshot)
    qts = np.full((3, 5, 8), SENTINEL, np.float32)
    qts[:2] = QTS
    snap = qts.copy()
    with pytest.raises(ValueError, match="out: partially overlaps joints"):
        skelsimd.blend_joints(qts[:2], QTS, 0.5, out=qts[1:])
    with pytest.raises(ValueError, match="out: partially overlaps local"):
        skelsimd.qts_local_to_global(qts[:2], PARENTS, qts[1:])
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
    (lambda out: skelsimd.quat_multiply(Q[:4], Q[:5], out), ["a and b", "(4,)", "(5,)"]),
    (lambda out: skelsimd.quat_rotate(Q[:4], Q[:5, :3], out), ["q and v", "(4,)", "(5,)"]),
    (lambda out: skelsimd.slerp(Q[:4], Q[:4], np.zeros(3), out), ["t", "(4,)", "(3,)"]),
    (lambda out: skelsimd.nlerp(Q[:4], Q[:3], 0.5, out), ["q0 and q1", "(4,)", "(3,)"]),
    (lambda out: skelsimd.blend_joints(QTS, QTS, np.zeros(3), out=out), ["t", "(2,)", "(3,)"]),
])
def test_leading_shapes_must_broadcast(call, words):
    out = fresh_out((4, 4))
    with pytest.raises(ValueError) as info:
        call(out)
    msg = str(info.value)
    assert all(w in msg for w in words) and "broadcast" in msg, msg
    assert untouched(out)


def test_second_operand_shape():
    out = fresh_out((6, 3))
    with pytest.raises(ValueError, match=r"v: expected shape \(\.\.\., 3\), got \(6, 4\)"):
        skelsimd.quat_rotate(Q, Q, out)
    with pytest.raises(ValueError, match=r"q1: expected shape \(\.\.\., 4\), got \(6, 3\)"):
        skelsimd.slerp(Q, Q[:, :3], 0.5)
    with pytest.raises(ValueError, match=r"blend: expected shape \(\.\.\., J, 8\) with J = joints.shape\[-2\], got \(2, 4, 8\)"):
        skelsimd.blend_joints(QTS, QTS[:, :4], 0.5)
    with pytest.raises(TypeError, match="t: expected"):
        skelsimd.slerp(Q, Q, "half")
    assert untouched(out)


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


@pytest.mark.parametrize("walk", [skelsimd.qts_local_to_global, skelsimd.qts_local_to_global_matrix])
@pytest.mark.parametrize("parents, exc, words", [
    ([-1, 0, 1, 3, 0], ValueError, ["parents[3] = 3", "-1 <= parents[j] < j"]),
    ([-1, 0, 1], ValueError, ["parents", "5", "3", "local.shape[-2]"]),
    ([-1.0, 0, 1, 1, 0], TypeError, ["parents", "float64"]),
])
def test_bad_parents(walk, parents, exc, words):
    shape = (2, 5, 8) if walk is skelsimd.qts_local_to_global else (2, 5, 3, 4)
    out = fresh_out(shape)
    with pytest.raises(exc) as info:
        walk(QTS, parents, out)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(out)


@pytest.mark.parametrize("walk", [skelsimd.qts_local_to_global, skelsimd.qts_local_to_global_matrix])
@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(start=-1), ValueError, ["start", "-1"]),
    (dict(start=3, stop=2), ValueError, ["stop", "2"]),
    (dict(stop=6), ValueError, ["stop", "6"]),
    (dict(start=1.5), TypeError, ["start", "float"]),
])
def test_bad_range(walk, kwargs, exc, words):
    shape = (2, 5, 8) if walk is skelsimd.qts_local_to_global else (2, 5, 3, 4)
    out = fresh_out(shape)
    with pytest.raises(exc) as info:
        walk(QTS, PARENTS, out, **kwargs)
    assert all(w in str(info.value) for w in words), str(info.value)
    assert untouched(out)


def test_scalar_first_must_have_a_truth_value():
    out = fresh_out((6, 3, 3))
    with pytest.raises(TypeError, match="scalar_first"):
        skelsimd.quat_to_matrix(Q, out, scalar_first=np.array([1, 0]))
    assert untouched(out)


def test_wrong_positional_count_of_the_core_is_a_type_error():
    with pytest.raises(TypeError, match="takes 5 positional arguments"):
        skelsimd._core.slerp(Q, Q)
    with pytest.raises(TypeError, match="takes 6 positional arguments"):
        skelsimd._core.blend_joints(QTS, QTS, 0.5)


@pytest.mark.parametrize("walk", [skelsimd.qts_local_to_global, skelsimd.qts_local_to_global_matrix])
@pytest.mark.parametrize("precision, exc, words", [
    ("float16", ValueError, ["precision", "'float32'", "'float64'", "float16"]),
    ("Float64", ValueError, ["precision", "'float32'", "'float64'"]),
    (np.float64, TypeError, ["precision"]),
    (64, TypeError, ["precision", "int"]),
])
def test_bad_precision(walk, precision, exc, words):
    shape = (2, 5, 8) if walk is skelsimd.qts_local_to_global else (2, 5, 3, 4)
    out = fresh_out(shape)
    with pytest.raises(exc) as info:
        walk(QTS, PARENTS, out, precision=precision)
    assert all(w in str(info.value) for w in words), str(info.value)
    assert untouched(out)


def test_qts_walks_take_six_positional_arguments_in_the_core():
    for name in ("qts_local_to_global", "qts_local_to_global_matrix"):
        with pytest.raises(TypeError, match="takes 6 positional arguments"):
            getattr(skelsimd._core, name)(QTS, PARENTS, None, 0, None)
