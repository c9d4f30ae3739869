"""One test per bad-input rule of skelsimd.Surface: the exception type, a message naming the
argument (and the expected and actual values), and the state left untouched."""
import math

import numpy as np
import pytest

import skelsimd
from skelsimd import _core

SENTINEL = np.float32(-7.25)


@pytest.fixture
def surface():
    s = skelsimd.Surface(4, 6, damping=0.9)
    s.positions[1, 2, 3] = 0.25                  # not at rest: a step would move things
    s.add_force([0.0, 1.0, 0.0])
    return s


def snapshot(s):
    return (s.positions.copy(), s.velocities.copy(), s.pinned.copy(), s.external_force.copy())


def untouched(s, snap):
    return all(np.array_equal(a, b) for a, b in zip(snapshot(s), snap))


# --- constructor ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, exc, words", [
    (dict(rows=0, cols=5), ValueError, ["rows, cols", ">= 1", "0 x 5"]),
    (dict(rows=3, cols=-1), ValueError, ["rows, cols", "3 x -1"]),
    (dict(rows=2.5, cols=3), TypeError, ["rows, cols", "integers", "float"]),
    (dict(rows=3, cols=2, topology="cylinder"), ValueError, ["cols", "cylinder", "3", "got 2"]),
    (dict(rows=3, cols=3, spacing=0.0), ValueError, ["spacing", "positive", "0.0"]),
    (dict(rows=3, cols=3, spacing=math.nan), ValueError, ["spacing", "finite", "nan"]),
    (dict(rows=3, cols=3, spacing="1"), TypeError, ["spacing", "real number", "str"]),
    (dict(rows=3, cols=3, elasticity=-1.0), ValueError, ["elasticity", ">= 0", "-1.0"]),
    (dict(rows=3, cols=3, elasticity=math.inf), ValueError, ["elasticity", "finite", "inf"]),
    (dict(rows=3, cols=3, damping=1.5), ValueError, ["damping", "0 <= damping <= 1", "1.5"]),
    (dict(rows=3, cols=3, damping=-0.1), ValueError, ["damping", "-0.1"]),
    (dict(rows=3, cols=3, damping=math.nan), ValueError, ["damping", "finite"]),
    (dict(rows=3, cols=3, mass=0.0), ValueError, ["mass", "positive", "0.0"]),
    (dict(rows=3, cols=3, mass=np.ones((3, 4))), ValueError, ["mass", "(3, 3)", "(3, 4)"]),
    (dict(rows=3, cols=3, mass=[[1, 1, 1], [1, math.nan, 1], [1, 1, 1]]), ValueError, ["mass", "finite"]),
    (dict(rows=3, cols=3, mass=1j), TypeError, ["mass", "complex"]),
    (dict(rows=3, cols=3, model="spring"), ValueError, ["model", "'offset'", "'length'", "'spring'"]),
    (dict(rows=3, cols=3, topology="sphere"), ValueError, ["topology", "'plane'", "'cylinder'", "'sphere'"]),
    (dict(rows=3, cols=3, preset="jelly"), ValueError, ["preset", "water", "cloth", "rubber", "'jelly'"]),
])
def test_bad_constructor_arguments(kw, exc, words):
    kw = dict(kw)
    rows, cols = kw.pop("rows"), kw.pop("cols")
    with pytest.raises(exc) as info:
        skelsimd.Surface(rows, cols, **kw)
    msg = str(info.value)
    assert all(w in msg for w in words), msg


@pytest.mark.parametrize("xyz, kw, exc, words", [
    (np.zeros((2, 4, 5)), {}, ValueError, ["xyz", "(3, rows, cols)", "(2, 4, 5)"]),
    (np.zeros((3, 20)), {}, ValueError, ["xyz", "(3, 20)"]),
    (np.full((3, 2, 2), np.inf), {}, ValueError, ["xyz", "finite"]),
    (np.zeros((3, 2, 2), np.complex64), {}, TypeError, ["xyz", "complex64"]),
    ("grid", {}, TypeError, ["xyz", "<U4"]),
    (np.zeros((3, 2, 2)), dict(spacing=0.5), ValueError, ["spacing", "from_positions"]),
    (np.zeros((3, 4, 2)), dict(topology="cylinder"), ValueError, ["cols", "cylinder", "got 2"]),
    (np.zeros((3, 0, 5)), {}, ValueError, ["rows, cols", "0 x 5"]),
])
def test_bad_from_positions_arguments(xyz, kw, exc, words):
    with pytest.raises(exc) as info:
        skelsimd.Surface.from_positions(xyz, **kw)
    msg = str(info.value)
    assert all(w in msg for w in words), msg


# --- step ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kw, exc, words", [
    ((0.0,), {}, ValueError, ["dt", "positive", "0.0"]),
    ((-0.1,), {}, ValueError, ["dt", "-0.1"]),
    ((math.nan,), {}, ValueError, ["dt", "finite", "nan"]),
    ((math.inf,), {}, ValueError, ["dt", "finite", "inf"]),
    (("0.1",), {}, TypeError, ["dt", "real number", "str"]),
    ((None,), {}, TypeError, ["dt", "real number", "NoneType"]),
    ((0.1, -1), {}, ValueError, ["n", ">= 0", "-1"]),
    ((0.1, 2.0), {}, TypeError, ["n", "integer", "float"]),
    ((0.1,), dict(gravity=(0, -9.8)), ValueError, ["gravity", "(3,)", "(2,)"]),
    ((0.1,), dict(gravity=(0, math.nan, 0)), ValueError, ["gravity", "finite"]),
    ((0.1,), dict(gravity="down"), TypeError, ["gravity", "<U4"]),
])
def test_bad_step_arguments(surface, args, kw, exc, words):
    snap = snapshot(surface)
    with pytest.raises(exc) as info:
        surface.step(*args, **kw)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(surface, snap)


@pytest.mark.parametrize("preset, mass", [("water", 1.0), ("cloth", 0.5), ("rubber", 2.0), (None, 1.0)])
def test_unstable_dt_names_the_largest_stable_dt(preset, mass):
    s = skelsimd.Surface(6, 6, preset=preset, mass=mass)
    s.positions[1, 3, 3] = 0.1
    snap = snapshot(s)
    dt_max = s.max_stable_dt
    assert dt_max == pytest.approx(math.sqrt(2 * (1 + s.damping) * mass / (9 * s.elasticity)))
    with pytest.raises(ValueError) as info:
        s.step(dt_max * 1.0001)
    msg = str(info.value)
    assert "dt" in msg and "largest stable dt" in msg and f"{dt_max:.9g}" in msg, msg
    assert untouched(s, snap)
    s.step(dt_max)          # the bound itself is accepted


def test_the_seeds_water_time_step_is_refused():
    """The seed's water (E 1, m 1) with dt = 1 is unstable on the 6-neighbour grid."""
    with pytest.raises(ValueError, match="largest stable dt is 0.66"):
        skelsimd.Surface(10, 10, preset="water").step(1.0)


# --- forces and effectors ------------------------------------------------------------------------

@pytest.mark.parametrize("f, exc, words", [
    (np.ones((3, 5, 6)), ValueError, ["f", "(3,)", "(3, 4, 6)", "(3, 5, 6)"]),
    (np.ones(4), ValueError, ["f", "(4,)"]),
    (np.ones((2, 4, 6)), ValueError, ["f", "(2, 4, 6)"]),
    ([0.0, math.inf, 0.0], ValueError, ["f", "finite"]),
    (np.ones(3, np.complex128), TypeError, ["f", "complex128"]),
])
def test_bad_add_force(surface, f, exc, words):
    snap = snapshot(surface)
    with pytest.raises(exc) as info:
        surface.add_force(f)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(surface, snap)


@pytest.mark.parametrize("center, radius, strength, exc, words", [
    ([1.0, 0.0, 1.0], 0.0, 1.0, ValueError, ["radius", "positive", "0.0"]),
    ([1.0, 0.0, 1.0], -2.0, 1.0, ValueError, ["radius", "-2.0"]),
    ([1.0, 0.0, 1.0], math.nan, 1.0, ValueError, ["radius", "finite"]),
    ([1.0, 0.0, 1.0], math.inf, 1.0, ValueError, ["radius", "finite"]),
    ([[1.0, 0.0, 1.0]] * 2, [1.0, 0.5, 2.0], 1.0, ValueError, ["radius", "(2,)", "(3,)"]),
    ([[1.0, 0.0, 1.0]] * 2, 1.0, [1.0, 2.0, 3.0], ValueError, ["strength", "(2,)", "(3,)"]),
    ([1.0, 0.0, 1.0], 1.0, math.nan, ValueError, ["strength", "finite"]),
    ([1.0, 0.0], 1.0, 1.0, ValueError, ["center", "(3,) or (K, 3)", "(2,)"]),
    (np.zeros((2, 2, 3)), 1.0, 1.0, ValueError, ["center", "(2, 2, 3)"]),
    ([1.0, math.nan, 1.0], 1.0, 1.0, ValueError, ["center", "finite"]),
    ("origin", 1.0, 1.0, TypeError, ["center", "<U6"]),
])
def test_bad_effectors(surface, center, radius, strength, exc, words):
    snap = snapshot(surface)
    with pytest.raises(exc) as info:
        surface.apply_effector(center, radius, strength)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(surface, snap)


# --- views ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("mask, exc, words", [
    (np.zeros((6, 4), bool), ValueError, ["pinned", "(4, 6)", "(6, 4)"]),
    (np.zeros((4, 6), np.int8), TypeError, ["pinned", "bool", "int8"]),
    (np.zeros((2, 4, 6), bool), ValueError, ["pinned", "(4, 6)", "(2, 4, 6)"]),
])
def test_bad_pinned_mask(surface, mask, exc, words):
    snap = snapshot(surface)
    with pytest.raises(exc) as info:
        surface.pinned = mask
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(surface, snap)


@pytest.mark.parametrize("name", ["positions", "velocities"])
@pytest.mark.parametrize("value, exc, words", [
    (np.zeros((3, 6, 4)), ValueError, ["(3, 4, 6)", "(3, 6, 4)"]),
    (np.full((3, 4, 6), np.nan), ValueError, ["finite"]),
    (np.zeros((3, 4, 6), np.complex64), TypeError, ["complex64"]),
])
def test_bad_state_assignment(surface, name, value, exc, words):
    snap = snapshot(surface)
    with pytest.raises(exc) as info:
        setattr(surface, name, value)
    msg = str(info.value)
    assert name in msg and all(w in msg for w in words), msg
    assert untouched(surface, snap)


# --- normals out ---------------------------------------------------------------------------------

@pytest.mark.parametrize("make_out, exc, words", [
    (lambda: np.full((3, 4, 6), SENTINEL, np.float64), TypeError, ["out", "float32", "float64"]),
    (lambda: np.full((3, 6, 4), SENTINEL, np.float32), ValueError, ["out", "(3, 4, 6)", "(3, 6, 4)"]),
    (lambda: np.full((3, 4, 12), SENTINEL, np.float32)[:, :, ::2], ValueError, ["out", "contiguous"]),
    (lambda: [[0.0]], TypeError, ["out", "list"]),
])
def test_bad_normals_out(surface, make_out, exc, words):
    out = make_out()
    with pytest.raises(exc) as info:
        surface.normals(out=out)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    if isinstance(out, np.ndarray):
        assert (out == SENTINEL).all()


def test_normals_out_read_only(surface):
    out = np.full((3, 4, 6), SENTINEL, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out.*writeable"):
        surface.normals(out=out)
    assert (out == SENTINEL).all()


def test_normals_out_must_not_overlap_the_state(surface):
    snap = snapshot(surface)
    alias = np.ndarray((3, 4, 6), np.float32, buffer=surface._buffer, offset=0)
    with pytest.raises(ValueError, match="out.*overlap"):
        surface.normals(out=alias)
    assert untouched(surface, snap)


# --- the private kernels check their buffer ------------------------------------------------------

@pytest.mark.parametrize("buf, rows, cols, plane, exc, words", [
    (np.zeros(100, np.float32), 4, 6, 32, ValueError, ["buffer", "20 planes"]),
    (np.zeros(20 * 32, np.float64), 4, 6, 32, TypeError, ["buffer", "float32"]),
    (np.zeros(20 * 32, np.float32), 4, 6, 16, ValueError, ["buffer"]),
    (np.zeros(20 * 32, np.float32), 0, 6, 32, ValueError, ["rows", ">= 1"]),
    ([0.0] * 640, 4, 6, 32, TypeError, ["buffer", "ndarray"]),
])
def test_core_step_refuses_a_wrong_buffer(buf, rows, cols, plane, exc, words):
    with pytest.raises(exc) as info:
        _core.surface_step(buf, rows, cols, plane, 0, 0, 1, 1, 1.0, 1.0, 0.1, 1, 0.0, 0.0, 0.0, 0)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
