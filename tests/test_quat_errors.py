"""One test per bad-input rule of the quaternion functions (skelsimd.quat): the exception type, a
message naming the argument (and the expected and actual), and `out` left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import SENTINEL, fresh_out, operand_rule_tests, raises, untouched

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
}
FIRST_ARG = {"quat_multiply": "a", "quat_rotate": "q", "matrix_to_quat": "m", "matrix_to_qts": "m",
             "qts_to_matrix": "x"}
LAYOUT = {"matrix_to_quat": "(..., 3, 3)", "matrix_to_qts": "(..., 3, 4)", "qts_to_matrix": "(..., 8)"}

# test_good_call_works, test_bad_dtype_of_the_first_operand,
# test_bad_trailing_shape_of_the_first_operand and test_bad_out over CALLS:
globals().update(operand_rule_tests(CALLS, FIRST_ARG, LAYOUT))


def test_partial_overlap_is_refused():
    buf = np.full((8, 4), SENTINEL, np.float32)
    buf[:6] = Q
    raises(ValueError, ["partially overlaps"], lambda: skelsimd.quat_multiply(buf[:6], Q, buf[1:7]), buf)
    raises(ValueError, ["partially overlaps"], lambda: skelsimd.quat_normalize(buf[:6], buf[2:8]), buf)


@pytest.mark.parametrize("call, words", [
    (lambda out: skelsimd.quat_multiply(Q[:4], Q[:5], out), ["a and b", "(4,)", "(5,)"]),
    (lambda out: skelsimd.quat_rotate(Q[:4], Q[:5, :3], out), ["q and v", "(4,)", "(5,)"]),
])
def test_leading_shapes_must_broadcast(call, words):
    out = fresh_out((4, 4))
    raises(ValueError, words + ["broadcast"], lambda: call(out), out)


def test_second_operand_shape():
    out = fresh_out((6, 3))
    with pytest.raises(ValueError, match=r"v: expected shape \(\.\.\., 3\), got \(6, 4\)"):
        skelsimd.quat_rotate(Q, Q, out)
    assert untouched(out)


def test_scalar_first_must_have_a_truth_value():
    out = fresh_out((6, 3, 3))
    with pytest.raises(TypeError, match="scalar_first"):
        skelsimd.quat_to_matrix(Q, out, scalar_first=np.array([1, 0]))
    assert untouched(out)
