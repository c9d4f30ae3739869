"""One test per bad-input rule of the joint-matrix family: the exception type, a message naming
the argument, and `out` left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import SENTINEL, bad_outs, raises, untouched



@pytest.fixture
def pose(rng):
    parents = np.array([-1, 0, 1, 1, 0], dtype=np.int32)
    local = T.random_joints((2, 5), rng)
    out = np.full((2, 5, 3, 4), SENTINEL, np.float32)
    return local, parents, out


HIERARCHY_FUNCS = [skelsimd.local_to_global, skelsimd.global_to_local]


@pytest.mark.parametrize("func", HIERARCHY_FUNCS)
@pytest.mark.parametrize("bad, exc, words", [
    (np.zeros((2, 5, 3, 4), np.complex64), TypeError, ["complex64"]),
    (np.array([["a"]]), TypeError, ["<U1"]),
    ("not an array", TypeError, ["<U12", "float32"]),
    (np.zeros((2, 5, 4, 4), np.float32), ValueError, ["(..., J, 3, 4)", "(2, 5, 4, 4)"]),
    (np.zeros((3, 4), np.float32), ValueError, ["(..., J, 3, 4)", "(3, 4)"]),
    (np.zeros((2, 4, 3, 4), np.float32), ValueError, ["parents", "5", "4"]),
])
def test_bad_pose_argument(func, pose, bad, exc, words):
    _, parents, out = pose
    raises(exc, words, lambda: func(bad, parents, out), out)


@pytest.mark.parametrize("func", HIERARCHY_FUNCS)
@pytest.mark.parametrize("bad, exc, words", [
    ([-1.0, 0.0, 1.0, 1.0, 0.0], TypeError, ["parents", "float64", "integer"]),
    (np.array([True, False, False, True, False]), TypeError, ["parents", "bool"]),
    (np.array([[-1, 0, 1, 1, 0]]), ValueError, ["parents", "1-D", "(1, 5)"]),
    ([-1, 0, 1], ValueError, ["parents", "5", "3"]),
    ([-1, 0, 1, 3, 0], ValueError, ["parents[3] = 3", "-1 <= parents[j] < j"]),
    ([-1, 0, 1, 1, 7], ValueError, ["parents[4] = 7"]),
    ([-1, 0, -2, 1, 0], ValueError, ["parents[2] = -2"]),
    ([0, 0, 1, 1, 0], ValueError, ["parents[0] = 0"]),
    (np.array([2**40, 0, 1, 1, 0], np.int64), ValueError, ["parents[0]"]),
    (np.array([2**63, 0, 1, 1, 0], np.uint64), ValueError, ["parents[0]"]),
    (np.array([2**32 - 1, 0, 1, 1, 0], np.uint32), ValueError, ["parents[0]"]),
    (object(), TypeError, ["parents"]),
])
def test_bad_parents(func, pose, bad, exc, words):
    local, _, out = pose
    raises(exc, words, lambda: func(local, bad, out), out)


@pytest.mark.parametrize("func", HIERARCHY_FUNCS)
@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(start=-1), ValueError, ["start", "-1"]),
    (dict(start=6), ValueError, ["start", "6"]),
    (dict(start=3, stop=2), ValueError, ["stop", "2"]),
    (dict(stop=6), ValueError, ["stop", "6"]),
    (dict(start=1.5), TypeError, ["start", "float"]),
    (dict(stop="3"), TypeError, ["stop", "str"]),
    (dict(start=True), TypeError, ["start", "bool"]),
])
def test_bad_range(func, pose, kwargs, exc, words):
    local, parents, out = pose
    raises(exc, words, lambda: func(local, parents, out, **kwargs), out)


@pytest.mark.parametrize("func", HIERARCHY_FUNCS + ["multiply", "invert"])
@pytest.mark.parametrize("case", bad_outs((2, 5, 3, 4), (2, 4, 3, 4)), ids=lambda c: c[0])
def test_bad_out(func, pose, case):
    local, parents, _ = pose
    _, out, exc, words = case
    calls = {"multiply": lambda: skelsimd.multiply_joints(local, local, out),
             "invert": lambda: skelsimd.invert_joints(local, out)}
    raises(exc, words, calls.get(func, lambda: func(local, parents, out)), out)


def test_out_partially_overlapping_input_is_refused(rng):
    parents = T.chain_parents(5)
    buf = np.full((6, 3, 4), SENTINEL, np.float32)
    buf[:5] = T.random_joints(5, rng)
    local, out = buf[:5], buf[1:]
    snapshot = buf.copy()
    for call in (lambda: skelsimd.local_to_global(local, parents, out),
                 lambda: skelsimd.global_to_local(local, parents, out),
                 lambda: skelsimd.multiply_joints(local, local[0], out),
                 lambda: skelsimd.invert_joints(local, out)):
        with pytest.raises(ValueError, match="partially overlaps"):
            call()
    assert np.array_equal(buf, snapshot)


def test_broadcast_mismatch(rng):
    out = np.full((3, 3, 4), SENTINEL, np.float32)
    with pytest.raises(ValueError) as info:
        skelsimd.multiply_joints(T.random_joints((3,), rng), T.random_joints((4,), rng), out)
    msg = str(info.value)
    assert "a and b" in msg and "(3,)" in msg and "(4,)" in msg
    assert untouched(out)


@pytest.mark.parametrize("which", ["a", "b"])
def test_multiply_bad_operand(rng, which):
    good = T.random_joints((3,), rng)
    bad = np.zeros((3, 4, 4), np.float32)
    out = np.full((3, 3, 4), SENTINEL, np.float32)
    with pytest.raises(ValueError, match=f"{which}: expected shape \\(\\.\\.\\., 3, 4\\)"):
        skelsimd.multiply_joints(bad if which == "a" else good, good if which == "a" else bad, out)
    assert untouched(out)


def test_invert_bad_input():
    with pytest.raises(ValueError, match=r"m: expected shape \(\.\.\., 3, 4\), got \(4,\)"):
        skelsimd.invert_joints(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="m: expected"):
        skelsimd.invert_joints(np.zeros((3, 4), np.complex128))


def test_rigid_must_have_a_truth_value(pose):
    local, parents, out = pose
    with pytest.raises(TypeError, match="rigid"):
        skelsimd.global_to_local(local, parents, out, rigid=np.array([1, 0]))
    assert untouched(out)


def test_wrong_positional_count_of_the_core_is_a_type_error():
    with pytest.raises(TypeError, match="takes 6 positional arguments"):
        skelsimd._core.local_to_global(1, 2)


@pytest.mark.parametrize("precision, exc, words", [
    ("float16", ValueError, ["precision", "'float32', 'float64'", "'float16'"]),
    (64, TypeError, ["precision", "str", "int"]),
    ("float64\0", ValueError, ["precision", "'float32', 'float64'", "'float64\\x00'"]),
])
def test_local_to_global_bad_precision(precision, exc, words):
    parents = np.array([-1, 0, 1], dtype=np.int32)
    local = np.zeros((3, 3, 4), dtype=np.float32)
    out = np.full_like(local, 7.0)
    with pytest.raises(exc) as info:
        skelsimd.local_to_global(local, parents, out, precision=precision)
    for word in words:
        assert word in str(info.value)
    assert np.all(out == 7.0)
