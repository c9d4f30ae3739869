"""Concurrent mutation of index arrays while a kernel runs with the GIL released.

The kernels validate `parents`, `index` and `joint_indices` and then release the GIL, so another
Python thread can change those arrays while the kernel runs. `parents` and `index` are copied
(privately, then validated) before the GIL is released; `skin` reads `joint_indices` in place
through a private per-block copy checked as read (an entry that became invalid selects joint 0).
Before these fixes each of the three cases below ended in a segfault within a second.

Each test toggles one entry between a valid and an invalid value from a second thread while the
main thread calls the kernel for a bounded time, and checks every result against what the
documented semantics allow: exactly the serial result of one of the values the entry held, or a
ValueError when the validation saw the invalid value.
"""
import threading
import time

import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T

DURATION = 0.25  # seconds of racing per test and variant


def race(call, mutate, duration=DURATION):
    """Run `call()` repeatedly for `duration` seconds while another thread runs `mutate()` in a
    loop; returns the results of the calls that did not raise ValueError and the count of those
    that did."""
    stop = threading.Event()

    def mutator():
        while not stop.is_set():
            mutate()

    thread = threading.Thread(target=mutator)
    thread.start()
    results, refused = [], 0
    try:
        deadline = time.perf_counter() + duration
        while time.perf_counter() < deadline:
            try:
                results.append(call())
            except ValueError:
                refused += 1
    finally:
        stop.set()
        thread.join()
    return results, refused


@pytest.mark.parametrize("function", ["local_to_global", "global_to_local", "mat4",
                                      "qts_local_to_global", "qts_local_to_global_matrix",
                                      "skinning_palette"])
def test_parents_changed_during_a_walk(isa, function):
    rng = np.random.default_rng(1)
    parents = np.array(T.humanoid_skeleton()[0], dtype=np.int32)
    good = int(parents[50])
    if function in ("local_to_global", "global_to_local"):
        pose = T.random_joints((64, 96), rng)
        fn = getattr(skelsimd, function)
        call = lambda: fn(pose, parents)  # noqa: E731
    elif function == "mat4":
        pose = T.random_mat4((64, 96), rng)
        call = lambda: skelsimd.mat4_local_to_global(pose, parents)  # noqa: E731
    elif function == "skinning_palette":
        pose = T.random_joints((64, 96), rng)
        ib = T.random_joints(96, rng)
        call = lambda: skelsimd.skinning_palette(pose, parents, ib)  # noqa: E731
    else:
        pose = T.random_qts((64, 96), rng)
        fn = getattr(skelsimd, function)
        call = lambda: fn(pose, parents)  # noqa: E731
    expected = call()

    def mutate():
        parents[50] = 2**30
        parents[50] = good

    results, refused = race(call, mutate)
    assert results, "every call was refused: the race did not exercise the kernel"
    for r in results:
        np.testing.assert_array_equal(r, expected)


def test_index_changed_during_blend_joints(isa):
    rng = np.random.default_rng(2)
    a = T.random_qts((64, 96), rng)
    b = T.random_qts((64, 96), rng)
    index = np.arange(0, 96, 2, dtype=np.int32)
    expected = skelsimd.blend_joints(a, b, 0.3, index=index)

    def mutate():
        index[10] = 2**30
        index[10] = 20

    results, refused = race(lambda: skelsimd.blend_joints(a, b, 0.3, index=index), mutate)
    assert results
    for r in results:
        np.testing.assert_array_equal(r, expected)


@pytest.mark.parametrize("bad", [2**30, -1])
def test_joint_indices_changed_during_skin(isa, bad):
    """Vertex 5000's influence 1 toggles between joint 7 and an invalid value: every result is
    the serial one everywhere else, and at vertex 5000 the result with joint 7 or with joint 0
    (the documented reading of an index that became invalid mid-call)."""
    rng = np.random.default_rng(3)
    positions, normals, idx, w = T.random_mesh(20000, 4, 96, rng)
    idx = np.ascontiguousarray(idx, dtype=np.int32)
    palette = T.random_joints(96, rng)
    idx[5000, 1] = 7
    expected = skelsimd.skin(positions, idx, w, palette, normals=normals)
    idx[5000, 1] = 0
    as_zero = skelsimd.skin(positions, idx, w, palette, normals=normals)
    idx[5000, 1] = 7
    others = np.ones(20000, dtype=bool)
    others[5000] = False

    def mutate():
        idx[5000, 1] = bad
        idx[5000, 1] = 7

    results, refused = race(
        lambda: skelsimd.skin(positions, idx, w, palette, normals=normals), mutate)
    assert results
    zero_seen = 0
    for pos, nrm in results:
        np.testing.assert_array_equal(pos[others], expected[0][others])
        np.testing.assert_array_equal(nrm[others], expected[1][others])
        if np.array_equal(pos[5000], as_zero[0][5000]) and \
                np.array_equal(nrm[5000], as_zero[1][5000]):
            zero_seen += 1
        else:
            np.testing.assert_array_equal(pos[5000], expected[0][5000])
            np.testing.assert_array_equal(nrm[5000], expected[1][5000])


def test_skeleton_parents_cannot_be_changed():
    """A Skeleton's parents are used without a copy: they must stay immutable."""
    s = skelsimd.Skeleton(T.humanoid_skeleton()[0])
    p = s.parents
    with pytest.raises(ValueError):
        p[3] = 5
    with pytest.raises(ValueError):
        p.setflags(write=True)
    with pytest.raises((ValueError, TypeError)):
        np.frombuffer(p.base, dtype=np.int32)[3] = 5
    with pytest.raises(AttributeError):
        s.parents = np.zeros(96, np.int32)
    # reshaping the (shared) array object in place does not change what the kernels read
    view = np.asarray(s)
    assert view.shape == (96,)


def test_skin_index_check_is_bit_identical_across_blocks(isa):
    """skin copies and checks the indices in blocks of 64 vertices: meshes of every size around
    the block boundaries give the same result as each vertex skinned alone."""
    rng = np.random.default_rng(4)
    palette = T.random_joints(40, rng)
    for vertices in (1, 63, 64, 65, 127, 128, 129, 200):
        for k in (1, 3, 8):
            positions, normals, idx, w = T.random_mesh(vertices, k, 40, rng)
            whole = skelsimd.skin(positions, idx, w, palette, normals=normals)
            for v in (0, vertices // 2, vertices - 1):
                one = skelsimd.skin(positions[v:v + 1], idx[v:v + 1], w[v:v + 1], palette,
                                    normals=normals[v:v + 1])
                np.testing.assert_array_equal(whole[0][v], one[0][0])
                np.testing.assert_array_equal(whole[1][v], one[1][0])
