"""One test per bad-input rule of the 4x4 family: the exception type, a message naming the
argument, the expected and the actual, and `out` left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import BAD_OUT_KINDS, SENTINEL, bad_outs, raises, untouched



@pytest.fixture
def mats(rng):
    return T.random_mat4((2, 5), rng), np.full((2, 5, 4, 4), SENTINEL, np.float32)


# --- matmul4 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["a", "b"])
@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((2, 5, 4, 4), np.complex64), TypeError, ["complex64", "real"]),
    ("text", TypeError, ["<U4"]),
    (object(), TypeError, ["object"]),
    (np.zeros((2, 5, 3, 4), np.float32), ValueError, ["(..., 4, 4)", "(2, 5, 3, 4)"]),
    (np.zeros((2, 5, 4, 3), np.float32), ValueError, ["(..., 4, 4)", "(2, 5, 4, 3)"]),
    (np.zeros(16, np.float32), ValueError, ["(..., 4, 4)", "(16,)"]),
])
def test_matmul4_bad_operand(mats, which, bad, exc, words):
    a, out = mats
    args = (bad, a) if which == "a" else (a, bad)
    raises(exc, [which + ":"] + words, lambda: skelsimd.matmul4(*args, out), out)


def test_matmul4_broadcast_mismatch(rng):
    out = np.full((3, 4, 4), SENTINEL, np.float32)
    raises(ValueError, ["a and b", "(3,)", "(4,)", "do not broadcast"],
           lambda: skelsimd.matmul4(T.random_mat4(3, rng), T.random_mat4(4, rng), out), out)


@pytest.mark.parametrize("case", bad_outs((2, 5, 4, 4), (2, 6, 4, 4), BAD_OUT_KINDS), ids=lambda c: c[0])
@pytest.mark.parametrize("func", ["matmul4", "mat4_local_to_global"])
def test_bad_out(rng, case, func):
    _, out, exc, words = case
    a = T.random_mat4((2, 5), rng)
    call = {"matmul4": lambda: skelsimd.matmul4(a, a, out),
            "mat4_local_to_global": lambda: skelsimd.mat4_local_to_global(a, [-1, 0, 1, 1, 0], out)}[func]
    raises(exc, words, call, out)


@pytest.mark.parametrize("case", bad_outs((5, 3), (6, 3), BAD_OUT_KINDS), ids=lambda c: c[0])
def test_transform_points_bad_out(rng, case):
    _, out, exc, words = case
    raises(exc, words, lambda: skelsimd.transform_points(T.random_mat4((), rng), np.zeros((5, 3)), out), out)


def test_out_partially_overlapping_an_input_is_refused(rng):
    buf = np.full((6, 4, 4), SENTINEL, np.float32)
    buf[:5] = T.random_mat4(5, rng)
    a, out = buf[:5], buf[1:]
    snapshot = buf.copy()
    for call in (lambda: skelsimd.matmul4(a, a[0].copy(), out),
                 lambda: skelsimd.matmul4(a[0].copy(), a, out),
                 lambda: skelsimd.mat4_local_to_global(a, T.chain_parents(5), out)):
        with pytest.raises(ValueError, match="out: partially overlaps"):
            call()
    assert np.array_equal(buf, snapshot)
    # the constant operand living inside out is a partial overlap too
    c = T.random_mat4(5, rng)
    with pytest.raises(ValueError, match="partially overlaps b"):
        skelsimd.matmul4(c, c[2], out=c)


# --- mat4_local_to_global ---------------------------------------------------------------------

@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((2, 5, 3, 4), np.float32), ValueError, ["local", "(..., J, 4, 4)", "(2, 5, 3, 4)"]),
    (np.zeros((4, 4), np.float32), ValueError, ["local", "(..., J, 4, 4)", "(4, 4)"]),
    (np.zeros((2, 5, 4, 4), bool).astype(np.complex128), TypeError, ["local", "complex128"]),
    (np.zeros((2, 4, 4, 4), np.float32), ValueError, ["parents", "expected 4 entries", "local.shape[-3]", "got 5"]),
])
def test_mat4_local_to_global_bad_local(mats, bad, exc, words):
    _, out = mats
    raises(exc, words, lambda: skelsimd.mat4_local_to_global(bad, [-1, 0, 1, 1, 0], out), out)


@pytest.mark.parametrize("bad, exc, words", [
    ([-1, 0, 1, 4, 0], ValueError, ["parents[3] = 4", "-1 <= parents[j] < j"]),
    ([-1.0, 0, 1, 1, 0], TypeError, ["parents", "float64"]),
    ([[-1, 0, 1, 1, 0]], ValueError, ["parents", "1-D"]),
])
def test_mat4_local_to_global_bad_parents(mats, bad, exc, words):
    a, out = mats
    raises(exc, words, lambda: skelsimd.mat4_local_to_global(a, bad, out), out)


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(start=-1), ValueError, ["start", "-1"]),
    (dict(start=2, stop=1), ValueError, ["stop", "1"]),
    (dict(stop=9), ValueError, ["stop", "9"]),
    (dict(start=0.5), TypeError, ["start", "float"]),
])
def test_mat4_local_to_global_bad_range(mats, kwargs, exc, words):
    a, out = mats
    raises(exc, words, lambda: skelsimd.mat4_local_to_global(a, [-1, 0, 1, 1, 0], out, **kwargs), out)


# --- transform_points -------------------------------------------------------------------------

@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((5, 2, 4), np.float32), ValueError, ["m", "(..., 3, 4) or (..., 4, 4)", "(5, 2, 4)"]),
    (np.zeros((5, 4, 3), np.float32), ValueError, ["m", "(..., 3, 4) or (..., 4, 4)", "(5, 4, 3)"]),
    (np.zeros(12, np.float32), ValueError, ["m", "(12,)"]),
    (np.zeros((3, 4), np.complex64), TypeError, ["m", "complex64"]),
])
def test_transform_points_bad_matrix(bad, exc, words):
    out = np.full((5, 3), SENTINEL, np.float32)
    raises(exc, words, lambda: skelsimd.transform_points(bad, np.zeros((5, 3)), out), out)


@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((5, 4), np.float32), ValueError, ["points", "(..., 3)", "(5, 4)"]),
    (np.zeros((), np.float32), ValueError, ["points", "(..., 3)", "()"]),
    (np.zeros((5, 3), np.complex64), TypeError, ["points", "complex64"]),
])
def test_transform_points_bad_points(bad, exc, words):
    out = np.full((5, 3), SENTINEL, np.float32)
    raises(exc, words, lambda: skelsimd.transform_points(np.eye(4), bad, out), out)


def test_transform_points_broadcast_mismatch_and_aliasing(rng):
    out = np.full((3, 3), SENTINEL, np.float32)
    raises(ValueError, ["m and points", "(4,)", "(3,)"],
           lambda: skelsimd.transform_points(T.random_mat4(4, rng), np.zeros((3, 3)), out), out)
    # out may be the points (in place) but never the matrix's memory
    m = T.random_mat4((), rng)[:3].copy()            # (3, 4): 12 floats
    alias = m.reshape(4, 3)                           # the result shape of 4 points, same bytes
    snapshot = m.copy()
    with pytest.raises(ValueError, match="out: must not be the same memory as m"):
        skelsimd.transform_points(m, np.zeros((4, 3)), out=alias)
    assert np.array_equal(m, snapshot)


def test_wrong_positional_count_of_the_core_is_a_type_error():
    with pytest.raises(TypeError, match="takes 3 positional arguments"):
        skelsimd._core.matmul4(np.eye(4))
    with pytest.raises(TypeError, match="takes 6 positional arguments"):
        skelsimd._core.mat4_local_to_global(1, 2)


@pytest.mark.parametrize("bad, exc, words", [
    ("float16", ValueError, ["precision", "'float32', 'float64'", "'float16'"]),
    ("Float64", ValueError, ["precision", "'float32', 'float64'", "'Float64'"]),
    (64, TypeError, ["precision", "str", "int"]),
    (b"float64", TypeError, ["precision", "str", "bytes"]),
])
def test_mat4_local_to_global_bad_precision(mats, bad, exc, words):
    local, out = mats
    raises(exc, words, lambda: skelsimd.mat4_local_to_global(local, [-1, 0, 1, 1, 0], out, precision=bad), out)
    assert untouched(out)
