"""One test per bad-input rule of the QTS walks (skelsimd.qts): the exception type, a message
naming the argument (and the expected and actual), and `out` left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import SENTINEL, fresh_out, operand_rule_tests, untouched

RNG = np.random.default_rng(0)
T.random_quaternions(6, RNG)     # the same draws as the quaternion and blend error tests
QTS = T.random_qts((2, 5), RNG)
PARENTS = np.array([-1, 0, 1, 1, 0], dtype=np.int32)

# name -> (call(first_operand, out), a good first operand, the result shape)
CALLS = {
    "qts_local_to_global": (lambda x, out: skelsimd.qts_local_to_global(x, PARENTS, out), QTS, (2, 5, 8)),
    "qts_local_to_global_matrix": (lambda x, out: skelsimd.qts_local_to_global_matrix(x, PARENTS, out), QTS, (2, 5, 3, 4)),
}
FIRST_ARG = {"qts_local_to_global": "local", "qts_local_to_global_matrix": "local"}
LAYOUT = {"qts_local_to_global": "(..., J, 8)", "qts_local_to_global_matrix": "(..., J, 8)"}

# test_good_call_works, test_bad_dtype_of_the_first_operand,
# test_bad_trailing_shape_of_the_first_operand and test_bad_out over CALLS:
globals().update(operand_rule_tests(CALLS, FIRST_ARG, LAYOUT))


def test_partial_overlap_is_refused():
    qts = np.full((3, 5, 8), SENTINEL, np.float32)
    qts[:2] = QTS
    snap = qts.copy()
    with pytest.raises(ValueError, match="out: partially overlaps local"):
        skelsimd.qts_local_to_global(qts[:2], PARENTS, qts[1:])
    assert np.array_equal(qts, snap)


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
