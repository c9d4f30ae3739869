"""skelsimd.Skeleton: cached hierarchy data, reordering, masks, and its acceptance as `parents`
by the kernels (on every SIMD variant), against the float64 references."""
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import Skeleton
from skelsimd import testing as T
from skelsimd.reference import joints as R
from skelsimd.reference import skeleton as RS
from strategies import BATCH_SHAPES, hierarchies


def shuffled(parents, rng):
    """The same forest with its joints renumbered at random (parents may point forward)."""
    n = len(parents)
    perm = rng.permutation(n)              # new index of old joint j is where[j]
    where = np.empty(n, dtype=np.intp)
    where[perm] = np.arange(n)
    p = np.asarray(parents)[perm]
    return np.where(p >= 0, where[np.maximum(p, 0)], -1)


# --- cached hierarchy data ----------------------------------------------------------------------

@given(parents=hierarchies())
def test_cached_data_matches_the_references(parents):
    skel = Skeleton(parents)
    n = len(parents)
    assert len(skel) == n and skel.parents.dtype == np.int32
    assert np.array_equal(skel.parents, parents)
    assert np.array_equal(skel.depth, T.depths(parents))
    assert skel.names == tuple(f"joint_{j}" for j in range(n))
    kids = {j: [] for j in range(-1, n)}
    for j, p in enumerate(parents):
        kids[int(p)].append(j)
    assert skel.roots.tolist() == kids[-1]
    # parents[j] < j does not imply depth-first order, e.g. [-1, 0, -1, -1, 2]
    assert skel.is_depth_first == (RS.depth_first_order(parents) == list(range(n)))
    for j in range(0, n, max(1, n // 25)):
        assert skel.children(j).tolist() == kids[j]
        members = RS.subtree(parents, j)
        if members == list(range(j, j + len(members))):
            assert skel.subtree(j) == (j, j + len(members))
        else:
            with pytest.raises(ValueError, match="not a contiguous range"):
                skel.subtree(j)
        assert np.flatnonzero(skel.subtree_mask(j)).tolist() == members
        assert skel.subtree_indices(j).tolist() == members
        anc = []
        k = int(parents[j])
        while k >= 0:
            anc.append(k)
            k = int(parents[k])
        assert skel.ancestors(j).tolist() == anc


def test_parents_are_immutable():
    skel = Skeleton(T.humanoid_skeleton()[0])
    with pytest.raises(ValueError, match="read-only"):
        skel.parents[3] = 7
    with pytest.raises(ValueError, match="WRITEABLE"):
        skel.parents.flags.writeable = True
    with pytest.raises(AttributeError):
        skel.parents = np.zeros(96, np.int32)


def test_names_lookup_and_rest():
    parents, names = T.humanoid_skeleton()
    rest = T.random_joints(96, np.random.default_rng(0))
    skel = Skeleton(parents, names, rest)
    assert skel.index("hand_l") == names.index("hand_l") and skel.index(5) == 5
    assert skel.index(np.int64(5)) == 5
    assert skel.indices(["root", "head"]).tolist() == [0, names.index("head")]
    assert skel.rest.dtype == np.float32 and np.array_equal(skel.rest, rest)
    assert np.array_equal(skel.offsets, rest[:, :, 3]) and Skeleton(parents).offsets is None
    assert not skel.rest.flags.writeable
    qts = np.zeros((96, 8), np.float32)
    assert Skeleton(parents, names, qts).rest.shape == (96, 8)
    assert "96 joints" in repr(skel)


def test_chain_and_masks():
    parents, names = T.humanoid_skeleton()
    skel = Skeleton(parents, names)
    chain = skel.chain("clavicle_l", "index_03_l")
    assert [names[j] for j in chain] == ["clavicle_l", "upperarm_l", "lowerarm_l", "hand_l",
                                        "index_metacarpal_l", "index_01_l", "index_02_l",
                                        "index_03_l"]
    assert skel.chain("head", "head").tolist() == [names.index("head")]
    m = skel.chain_mask("clavicle_l", "hand_l")
    assert m.sum() == 4 and m[names.index("upperarm_l")]
    arms = skel.mask(subtrees=["clavicle_l", "clavicle_r"])
    assert arms.sum() == 2 * skel.subtree_mask("clavicle_l").sum()
    rest = skel.mask(subtrees=["clavicle_l", "clavicle_r"], invert=True)
    assert np.array_equal(rest, ~arms)
    combo = skel.mask("head", chains=[("pelvis", "spine_02")])
    assert sorted(np.flatnonzero(combo)) == sorted([names.index(n) for n in ("head", "pelvis", "spine_01", "spine_02")])
    ranges = Skeleton.mask_ranges(arms)
    (a, _), (_, b) = skel.subtree("clavicle_l"), skel.subtree("clavicle_r")
    assert ranges == [(a, b)]    # the two arms are adjacent in depth-first order: one range
    assert Skeleton.mask_ranges(np.zeros(4, bool)) == []
    assert Skeleton.mask_ranges([True, True, False, True]) == [(0, 2), (3, 4)]


def test_pickle_array_and_equality():
    parents, names = T.humanoid_skeleton()
    skel = Skeleton(parents, names, np.zeros((96, 8), np.float32))
    again = pickle.loads(pickle.dumps(skel))
    assert again == skel and again is not skel and isinstance(again, Skeleton)
    assert np.array_equal(np.asarray(skel), parents) and np.asarray(skel).dtype == np.int32
    assert np.asarray(skel, dtype=np.int64).dtype == np.int64
    assert skel != Skeleton(parents)
    # NumPy code that takes a parents array takes a Skeleton: the float64 references do
    local = T.random_joints((2, 96), np.random.default_rng(1))
    assert np.array_equal(R.local_to_global(local, skel), R.local_to_global(local, parents))


# --- reordering ---------------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["depth-first", "breadth-first"])
@given(parents=hierarchies(max_joints=150), seed=st.integers(0, 2**32 - 1))
def test_from_parents_any_order(order, parents, seed):
    rng = np.random.default_rng(seed)
    wild = shuffled(parents, rng)
    names = [f"n{j}" for j in range(len(wild))]
    rest = rng.standard_normal((len(wild), 8)).astype(np.float32)
    skel, perm, inverse = Skeleton.from_parents_any_order(wild, names, rest, order=order)
    expected = RS.depth_first_order(wild) if order == "depth-first" else RS.breadth_first_order(wild)
    assert perm.tolist() == expected
    assert np.array_equal(perm[inverse], np.arange(len(wild)))
    assert np.array_equal(inverse[perm], np.arange(len(wild)))
    # the same edges: parent of new i is the new index of the old parent
    old = wild[perm]
    assert np.array_equal(np.where(skel.parents >= 0, perm[np.maximum(skel.parents, 0)], -1), old)
    assert skel.names == tuple(names[i] for i in perm)
    assert np.array_equal(skel.rest, rest[perm])
    if order == "depth-first":
        assert skel.is_depth_first


@given(parents=hierarchies(max_joints=200), batch=st.sampled_from(BATCH_SHAPES),
       seed=st.integers(0, 2**32 - 1))
def test_reorder_invariance_of_global_poses(isa, parents, batch, seed):
    """Global poses are bit-identical after reorder and the inverse permutation."""
    skel = Skeleton(parents)
    local = T.random_joints(batch + (len(parents),), np.random.default_rng(seed))
    glob = skelsimd.local_to_global(local, skel)
    for order in ("breadth-first", "depth-first"):
        other, perm, inverse = skel.reorder(order)
        glob2 = skelsimd.local_to_global(local[..., perm, :, :], other)
        assert np.array_equal(glob2[..., inverse, :, :], glob)
        back = skelsimd.global_to_local(glob2, other)[..., inverse, :, :]
        assert np.array_equal(back, skelsimd.global_to_local(glob, skel))


def test_reorder_round_trip_and_identity():
    parents, names = T.humanoid_skeleton()
    skel = Skeleton(parents, names)
    same, perm, inverse = skel.reorder("depth-first")
    assert same == skel and np.array_equal(perm, np.arange(96)) and np.array_equal(inverse, perm)
    bfs, perm, _ = skel.reorder("breadth-first")
    assert not bfs.is_depth_first and bfs.depth.tolist() == sorted(skel.depth.tolist())
    back, perm2, _ = bfs.reorder("depth-first")
    assert back == skel and np.array_equal(perm[perm2], np.arange(96))
    # siblings are adjacent in breadth-first order (the seed's comment: shared parent matrix)
    hand = bfs.index("hand_l")
    kids = bfs.children(hand)
    assert np.array_equal(kids, np.arange(kids[0], kids[0] + 5))


def test_subtree_in_breadth_first_order():
    parents, names = T.humanoid_skeleton()
    bfs = Skeleton(parents, names).reorder("breadth-first")[0]
    with pytest.raises(ValueError, match="not a contiguous range"):
        bfs.subtree("hand_l")
    leaf = bfs.index("index_03_l")
    assert bfs.subtree(leaf) == (leaf, leaf + 1)
    members = bfs.subtree_indices("hand_l")
    assert sorted(members.tolist()) == RS.subtree(bfs.parents, bfs.index("hand_l"))
    assert len(members) == 20


# --- Skeleton as `parents` in the kernels --------------------------------------------------------

@given(parents=hierarchies(), batch=st.sampled_from(BATCH_SHAPES), seed=st.integers(0, 2**32 - 1),
       data=st.data())
def test_kernels_accept_a_skeleton(isa, parents, batch, seed, data):
    skel = Skeleton(parents)
    n = len(parents)
    rng = np.random.default_rng(seed)
    local = T.random_joints(batch + (n,), rng)
    start = data.draw(st.integers(0, n))
    stop = data.draw(st.integers(start, n))
    for fn in (skelsimd.local_to_global, skelsimd.global_to_local):
        assert np.array_equal(fn(local, skel, start=start, stop=stop),
                              fn(local, parents, start=start, stop=stop))


def test_subtree_range_updates_one_limb(isa, rng):
    """The documented use of subtree(): change one limb's local poses, recompute only it."""
    parents, names = T.humanoid_skeleton()
    skel = Skeleton(parents, names)
    local = T.random_joints((4, 96), rng)
    glob = skelsimd.local_to_global(local, skel)
    start, stop = skel.subtree("lowerarm_l")
    local[:, start:stop] = T.random_joints((4, stop - start), rng)
    skelsimd.local_to_global(local, skel, out=glob, start=start, stop=stop)
    assert np.array_equal(glob, skelsimd.local_to_global(local, skel))


def test_skeleton_is_not_revalidated_but_its_size_is_checked(rng):
    skel = Skeleton(T.chain_parents(5))
    out = np.full((2, 6, 3, 4), -7.0, np.float32)
    with pytest.raises(ValueError) as info:
        skelsimd.local_to_global(T.random_joints((2, 6), rng), skel, out)
    msg = str(info.value)
    assert "parents" in msg and "Skeleton of 6 joints" in msg and "5 joints" in msg
    assert (out == -7.0).all()


def test_an_uninitialised_skeleton_is_refused():
    blank = Skeleton.__new__(Skeleton, [-1, 0])   # __init__ never ran: still validated by C
    assert blank.parents.tolist() == [-1, 0]
    with pytest.raises(TypeError, match="parents"):
        skelsimd._core.SkeletonBase()


@given(parents=hierarchies(), batch=st.sampled_from(BATCH_SHAPES), seed=st.integers(0, 2**32 - 1),
       how=st.sampled_from(["plain", "out", "out-kw", "range", "float64", "rigid", "in-place"]))
def test_walk_methods_are_the_functions(isa, parents, batch, seed, how):
    """Skeleton.local_to_global / global_to_local give the bits of the module functions with
    the Skeleton as parents, whatever the arguments (positional out, keywords, a range, the
    float64 walk, the rigid inverse, in place)."""
    rng = np.random.default_rng(seed)
    s = Skeleton(parents)
    J = len(parents)
    x = T.random_joints(batch + (J,), rng)
    start, stop = sorted(int(v) for v in rng.integers(0, J + 1, 2))
    for method, fn, option in ((s.local_to_global, skelsimd.local_to_global, "precision"),
                               (s.global_to_local, skelsimd.global_to_local, "rigid")):
        kw = {"plain": {}, "range": {"start": start, "stop": stop},
              "float64": {option: "float64" if option == "precision" else False},
              "rigid": {option: True if option == "rigid" else "float32"}}.get(how, {})
        want = fn(x, s, **kw)
        if how == "out":
            out = np.full_like(x, 7.0)
            assert method(x, out, **kw) is out
            got = out
        elif how == "out-kw":
            out = np.full_like(x, 7.0)
            got = method(x, out=out, **kw)
            assert got is out
        elif how == "in-place":
            got = x.copy()
            method(got, got)
        else:
            got = method(x, **kw)
        np.testing.assert_array_equal(got, want)


def test_walk_methods_errors():
    s = Skeleton([-1, 0, 1])
    x = np.zeros((3, 3, 4), np.float32)
    with pytest.raises(TypeError, match=r"local_to_global\(\) missing required argument 'local'"):
        s.local_to_global()
    with pytest.raises(TypeError, match="at most 2 positional arguments"):
        s.local_to_global(x, None, 0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'parents'"):
        s.local_to_global(x, parents=[-1, 0, 1])
    with pytest.raises(TypeError, match="multiple values for argument 'global_'"):
        s.global_to_local(x, global_=x)
    with pytest.raises(ValueError, match="precision: expected one of"):
        s.local_to_global(x, precision="half")
    with pytest.raises(ValueError, match="expected a Skeleton of 2 joints"):
        s.local_to_global(x[:2])
    out = np.full((3, 3, 4), 7.0, np.float32)
    with pytest.raises(ValueError, match="stop"):
        s.global_to_local(x, out, start=2, stop=1)
    assert (out == 7.0).all()
