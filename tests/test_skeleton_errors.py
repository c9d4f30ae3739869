"""One test per bad-input rule of skelsimd.Skeleton: the exception type and a message naming the
argument, the expected and the actual (and the joints involved)."""
import numpy as np
import pytest

from skelsimd import Skeleton
from skelsimd import testing as T


@pytest.mark.parametrize("parents, exc, words", [
    ([-1, 0, 3, 1], ValueError, ["parents[2] = 3", "-1 <= parents[j] < j", "reorder"]),
    ([0, 0], ValueError, ["parents[0] = 0"]),
    ([-1, -2], ValueError, ["parents[1] = -2"]),
    ([-1.0, 0.0], TypeError, ["parents", "float64", "integer"]),
    ([[-1, 0]], ValueError, ["parents", "1-D", "(1, 2)"]),
    ("abc", TypeError, ["parents"]),
])
def test_bad_parents(parents, exc, words):
    with pytest.raises(exc) as info:
        Skeleton(parents)
    assert all(w in str(info.value) for w in words), str(info.value)


def test_missing_parents():
    with pytest.raises(TypeError, match="missing required argument 'parents'"):
        Skeleton()


@pytest.mark.parametrize("names, exc, words", [
    (["a", "b"], ValueError, ["names", "3 names", "got 2"]),
    (["a", "b", 3], TypeError, ["names[2]", "str", "int"]),
    (["a", "b", "a"], ValueError, ["names[2] = 'a'", "unique", "joint 0"]),
    ("abc", TypeError, ["names", "sequence", "str"]),
])
def test_bad_names(names, exc, words):
    with pytest.raises(exc) as info:
        Skeleton([-1, 0, 1], names)
    assert all(w in str(info.value) for w in words), str(info.value)


@pytest.mark.parametrize("rest", [np.zeros((3, 7)), np.zeros((2, 8)), np.zeros((3, 4, 4)), np.zeros(8)])
def test_bad_rest(rest):
    with pytest.raises(ValueError) as info:
        Skeleton([-1, 0, 1], rest=rest)
    msg = str(info.value)
    assert "rest" in msg and "(3, 8)" in msg and "(3, 3, 4)" in msg and str(rest.shape) in msg


@pytest.mark.parametrize("parents, names, words", [
    ([1, 2, 0, -1], list("abcd"), ["joints 0 ('a') -> 1 ('b') -> 2 ('c') -> 0 ('a')", "cycle"]),
    ([-1, 2, 3, 1], None, ["joints 1 -> 2 -> 3 -> 1", "cycle"]),
    ([-1, 1, 0], list("xyz"), ["parents[1] = 1", "'y'", "its own parent"]),
    ([-1, 0, 5], None, ["parents[2] = 5", "[0, 3)"]),
    ([-1, -3, 0], list("abc"), ["parents[1] = -3", "'b'"]),
])
def test_from_parents_any_order_refuses_cycles_and_bad_indices(parents, names, words):
    with pytest.raises(ValueError) as info:
        Skeleton.from_parents_any_order(parents, names)
    assert all(w in str(info.value) for w in words), str(info.value)


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(parents=[[0, -1]]), ValueError, ["parents", "1-D", "(1, 2)"]),
    (dict(parents=[0.0, -1.0]), TypeError, ["parents", "integer", "float64"]),
    (dict(parents=[1, -1], names=["a"]), ValueError, ["names", "2 names", "got 1"]),
    (dict(parents=[1, -1], order="random"), ValueError, ["order", "depth-first", "'random'"]),
])
def test_from_parents_any_order_bad_arguments(kwargs, exc, words):
    with pytest.raises(exc) as info:
        Skeleton.from_parents_any_order(**kwargs)
    assert all(w in str(info.value) for w in words), str(info.value)


def test_reorder_bad_order():
    with pytest.raises(ValueError, match="order: expected one of 'depth-first', 'breadth-first', got 'dfs'"):
        Skeleton([-1, 0]).reorder("dfs")


@pytest.fixture
def humanoid():
    parents, names = T.humanoid_skeleton()
    return Skeleton(parents, names)


@pytest.mark.parametrize("joint, exc, words", [
    ("hand", ValueError, ["no joint named 'hand'", "96 joints", "similar", "hand_l"]),
    (96, ValueError, ["joint", "[0, 96)", "96"]),
    (-1, ValueError, ["joint", "[0, 96)", "-1"]),
    (1.0, TypeError, ["joint", "name", "index", "float"]),
    (True, TypeError, ["joint", "bool"]),
])
def test_bad_joint(humanoid, joint, exc, words):
    for call in (humanoid.index, humanoid.children, humanoid.subtree, humanoid.subtree_mask,
                 humanoid.ancestors):
        with pytest.raises(exc) as info:
            call(joint)
        assert all(w in str(info.value) for w in words), str(info.value)


def test_chain_end_must_descend_from_start(humanoid):
    with pytest.raises(ValueError) as info:
        humanoid.chain("hand_l", "head")
    msg = str(info.value)
    assert "'head'" in msg and "not a descendant" in msg and "'hand_l'" in msg


def test_bad_mask_arguments(humanoid):
    with pytest.raises(TypeError, match=r"chains: expected \(start, end\) pairs"):
        humanoid.mask(chains=["head"])
    with pytest.raises(ValueError, match=r"mask: expected a 1-D boolean array, got shape \(2, 2\)"):
        Skeleton.mask_ranges(np.zeros((2, 2), bool))
