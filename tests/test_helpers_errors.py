"""The design's error rule for the Python-level helpers and the surface's parameters: a
TypeError or ValueError naming the argument, and nothing written (outputs and inputs keep their
bits). Each case here used to raise OverflowError, IndexError, ZeroDivisionError or
RuntimeError, write into `out` before failing, return a silently wrong result, or fill a
surface with inf/NaN on the next step."""
import gc
import weakref

import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import raises_naming


# --- Clip.global_matrices / global_positions -----------------------------------------------

@pytest.fixture(scope="module")
def clip():
    return skelsimd.data.load_example()


@pytest.mark.parametrize("frames, exc", [
    (5000, ValueError), (-241, ValueError), (2**70, ValueError), (2.5, TypeError),
    (True, TypeError), ("3", TypeError), (None, TypeError), (np.array([1.5]), TypeError),
    (np.array([0, 240]), ValueError), (np.array([-300]), ValueError),
    (np.array([2**63], np.uint64), ValueError), ([True, False], ValueError),
    (np.ones((240, 1), bool), ValueError), (slice(0.5, 3), TypeError), (slice(0, 3, 0), ValueError),
    ([[0, 1], [2, "a"]], TypeError), ([object()], TypeError)])
def test_clip_frames(clip, frames, exc):
    local = clip.local.copy()
    out = np.full((2, 31, 3, 4), 7.0, np.float32)
    raises_naming(exc, "frames:", lambda: clip.global_matrices(frames, out))
    raises_naming(exc, "frames:", lambda: clip.global_positions(frames))
    assert (out == 7.0).all()
    np.testing.assert_array_equal(clip.local, local)


@pytest.mark.parametrize("frames, shape", [
    (-1, (31, 3)), (np.int64(239), (31, 3)), (np.array(5), (31, 3)), (slice(10, 20, 3), (4, 31, 3)),
    ([0, -1], (2, 31, 3)), (np.zeros(240, bool), (0, 31, 3)), ([], (0, 31, 3)),
    (..., (240, 31, 3)), ([[1, 2], [3, 4]], (2, 2, 31, 3))])
def test_clip_frames_that_work(clip, frames, shape):
    assert clip.global_positions(frames).shape == shape


# --- empty_aligned / zeros_aligned / is_aligned ---------------------------------------------

@pytest.mark.parametrize("make", [skelsimd.empty_aligned, skelsimd.zeros_aligned])
@pytest.mark.parametrize("args, kwargs, exc, name", [
    (((-1,),), {}, ValueError, "shape[0]:"),
    ((-5,), {}, ValueError, "shape[0]:"),
    (((2**40, 2**40),), {}, ValueError, "shape:"),
    (((2**62, 2**62, 2**62),), {}, ValueError, "shape:"),
    ((3.5,), {}, TypeError, "shape:"),
    (((3, "a"),), {}, TypeError, "shape[1]:"),
    (((3, 2.0),), {}, TypeError, "shape[1]:"),
    ((None,), {}, TypeError, "shape:"),
    (((1,) * 65,), {}, ValueError, "shape:"),
    ((4,), {"align": 0}, ValueError, "align:"),
    ((4,), {"align": -64}, ValueError, "align:"),
    ((4,), {"align": 48}, ValueError, "align:"),
    ((4,), {"align": 2**100}, ValueError, "align:"),
    ((4,), {"align": 64.0}, TypeError, "align:"),
    ((4, "no such dtype"), {}, TypeError, "dtype:"),
    ((4, object), {}, TypeError, "dtype:"),
])
def test_aligned_allocation_errors(make, args, kwargs, exc, name):
    raises_naming(exc, name, lambda: make(*args, **kwargs))


def test_aligned_allocation_works():
    for shape in [(0,), 7, (3, 5), np.int64(4), (2, np.int32(3))]:
        a = skelsimd.zeros_aligned(shape, np.float64, align=128)
        assert a.shape == ((shape,) if np.ndim(shape) == 0 else tuple(shape))
        assert (a == 0).all() and a.flags.c_contiguous
        if a.size:
            assert skelsimd.is_aligned(a, 128)


@pytest.mark.parametrize("align, exc", [(0, ValueError), (-8, ValueError), (8.0, TypeError),
                                        ("8", TypeError), (True, TypeError)])
def test_is_aligned_errors(align, exc):
    raises_naming(exc, "align:", lambda: skelsimd.is_aligned(np.zeros(4), align))


# --- qts_pack / qts_unpack ------------------------------------------------------------------

Q = np.tile(np.array([0, 0, 0, 1], np.float32), (5, 1))
TR = np.arange(15, dtype=np.float32).reshape(5, 3)
SC = np.full(5, 2.0, np.float32)


@pytest.mark.parametrize("args, kwargs, exc, name", [
    ((Q[:, :3],), {}, ValueError, "q:"),
    ((np.float32(1),), {}, ValueError, "q:"),
    ((Q, TR[:, :2]), {}, ValueError, "t:"),
    ((Q, np.zeros(3)), {"s": np.ones(4)}, ValueError, "q, t, s:"),
    ((Q, TR[:3]), {}, ValueError, "q, t:"),
    ((Q, None, np.ones(3)), {}, ValueError, "q, s:"),
    ((Q.astype(complex),), {}, TypeError, "q:"),
    ((Q, TR.astype(str)), {}, TypeError, "t:"),
    ((Q, TR, np.array(["a"] * 5)), {}, TypeError, "s:"),
    ((object(),), {}, TypeError, "q:"),
    ((Q, TR, SC), {"out": np.zeros((5, 8))}, TypeError, "out:"),
    ((Q, TR, SC), {"out": [[0.0] * 8] * 5}, TypeError, "out:"),
    ((Q, TR, SC), {"out": np.zeros((4, 8), np.float32)}, ValueError, "out:"),
    ((Q, TR, SC), {"out": np.zeros((5, 7), np.float32)}, ValueError, "out:"),
])
def test_qts_pack_errors_write_nothing(args, kwargs, exc, name):
    inputs = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    out = kwargs.get("out")
    before = out.copy() if isinstance(out, np.ndarray) else None
    raises_naming(exc, name, lambda: skelsimd.qts_pack(*args, **kwargs))
    if before is not None:
        np.testing.assert_array_equal(out, before)
    for a, b in zip(args, inputs):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


def test_qts_pack_refuses_read_only_and_overlapping_out():
    out = np.zeros((5, 8), np.float32)
    out.flags.writeable = False
    raises_naming(ValueError, "out:", lambda: skelsimd.qts_pack(Q, TR, SC, out=out))
    buf = np.zeros((5, 8), np.float32)
    buf[:, :4] = Q
    buf[:, 4:7] = TR
    keep = buf.copy()
    for args in [(buf[:, :4],), (Q, buf[:, 4:7]), (Q, TR, buf[:, 7])]:
        raises_naming(ValueError, "out:", lambda: skelsimd.qts_pack(*args, out=buf))
        np.testing.assert_array_equal(buf, keep)


def test_qts_pack_broadcasts_and_round_trips():
    x = skelsimd.qts_pack(Q[:1], TR, SC[:, None][0])
    assert x.shape == (5, 8)
    q, t, s = skelsimd.qts_unpack(x)
    np.testing.assert_array_equal(t, TR)
    assert (s == 2).all() and (q == Q).all()
    assert skelsimd.qts_pack(np.ones((1,) * 63 + (4,)), np.ones((1,) * 63 + (3,))).ndim == 64
    wx = skelsimd.qts_pack([[1, 0, 0, 0]], scalar_first=True)
    np.testing.assert_array_equal(wx[0, :4], [0, 0, 0, 1])


@pytest.mark.parametrize("x, exc", [(np.zeros((5, 7)), ValueError), (np.zeros(()), ValueError),
                                    (np.zeros((2, 8), complex), TypeError), ("abc", TypeError)])
def test_qts_unpack_errors(x, exc):
    raises_naming(exc, "x:", lambda: skelsimd.qts_unpack(x))


# --- skin: two outputs in one buffer ----------------------------------------------------------

def test_skin_refuses_both_outputs_in_one_buffer():
    rng = np.random.default_rng(5)
    positions, normals, idx, w = T.random_mesh(50, 4, 10, rng)
    palette = T.random_joints(10, rng)
    P = positions.copy()
    keep = P.copy()
    msg = raises_naming(ValueError, "normals_out:", lambda: skelsimd.skin(
        P, idx, w, palette, out=P, normals=P, normals_out=P))
    assert "out" in msg[len("normals_out:"):]
    np.testing.assert_array_equal(P, keep)
    out = np.zeros_like(P)
    raises_naming(ValueError, "normals_out:", lambda: skelsimd.skin(
        positions, idx, w, palette, out=out, normals=normals, normals_out=out))
    assert (out == 0).all()
    # one array as positions and normals, each output in place of... its own input: fine
    both = positions.copy()
    n_out = np.empty_like(both)
    p, n = skelsimd.skin(both, idx, w, palette, out=both, normals=both, normals_out=n_out)
    p_ref, n_ref = skelsimd.skin(positions, idx, w, palette, normals=positions)
    np.testing.assert_array_equal(p, p_ref)
    np.testing.assert_array_equal(n, n_ref)


# --- Surface --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, exc, name", [
    ({"spacing": 10**400}, ValueError, "spacing:"),
    ({"spacing": 1e39}, ValueError, "spacing:"),
    ({"spacing": 1e-300}, ValueError, "spacing:"),
    ({"spacing": 3e38}, ValueError, "spacing:"),          # the grid's far corner overflows
    ({"mass": 1e-45}, ValueError, "mass:"),
    ({"mass": 1e300}, ValueError, "mass:"),
    ({"mass": 1e38}, ValueError, "mass:"),                 # 1 / m below float32's normals
    ({"mass": np.full((4, 4), 1e-39)}, ValueError, "mass:"),
    ({"elasticity": 1e39}, ValueError, "elasticity:"),
    ({"elasticity": 1e-300}, ValueError, "elasticity:"),
    ({"elasticity": 10**400}, ValueError, "elasticity:"),
    ({"damping": 10**400}, ValueError, "damping:"),
    ({"model": ["offset"]}, ValueError, "model:"),
    ({"topology": {}}, ValueError, "topology:"),
    ({"preset": ["water"]}, ValueError, "preset:"),
])
def test_surface_parameters_beyond_float32(kwargs, exc, name):
    raises_naming(exc, name, lambda: skelsimd.Surface(4, 4, **kwargs))


def test_surface_grid_too_large():
    raises_naming(ValueError, "rows, cols:", lambda: skelsimd.Surface(10**10, 10**10))


def test_surface_from_positions_whose_springs_overflow():
    xyz = np.zeros((3, 2, 2))
    xyz[0, :, 0], xyz[0, :, 1] = -3e38, 3e38
    raises_naming(ValueError, "positions:", lambda: skelsimd.Surface.from_positions(xyz))


def surface_with_motion():
    s = skelsimd.Surface(6, 7, preset="cloth")
    s.velocities[1] = np.linspace(-0.1, 0.1, 42, dtype=np.float32).reshape(6, 7)
    return s


def state(s):
    return (s.positions.copy(), s.velocities.copy(), s.external_force.copy())


def assert_state(s, before):
    for a, b in zip(state(s), before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("args, kwargs, exc, name", [
    ((0.1,), {"n": 10**30}, ValueError, "n:"),
    ((0.1,), {"n": 2.0}, TypeError, "n:"),
    ((1e-300,), {}, ValueError, "dt:"),
    ((1e39,), {}, ValueError, "dt:"),
    ((10**400,), {}, ValueError, "dt:"),
    ((0.1,), {"gravity": (0, -1e39, 0)}, ValueError, "gravity:"),
    ((0.1,), {"gravity": (0, 10**400, 0)}, ValueError, "gravity:"),
    ((0.1,), {"gravity": np.array([0, -1e39, 0])}, ValueError, "gravity:"),
])
def test_surface_step_errors_leave_the_state(args, kwargs, exc, name):
    s = surface_with_motion()
    before = state(s)
    raises_naming(exc, name, lambda: s.step(*args, **kwargs))
    assert_state(s, before)


def test_surface_step_that_would_leave_float32():
    """With zero elasticity there is no stability bound: a dt that lets gravity or the pending
    external force carry a vertex beyond float32 in this call is refused (it filled the grid
    with inf and NaN); smaller ones stay finite."""
    s = skelsimd.Surface(4, 4, elasticity=0)
    before = state(s)
    raises_naming(ValueError, "dt:", lambda: s.step(1e30, gravity=(0, -9.8, 0)))
    raises_naming(ValueError, "dt:", lambda: s.step(1e17, n=100, gravity=(0, -9.8, 0)))
    assert_state(s, before)
    s.add_force([0, 1, 0])
    before = state(s)
    raises_naming(ValueError, "dt:", lambda: s.step(1e30))
    assert_state(s, before)
    s.clear_forces()
    s.apply_effector([1.0, 0.5, 1.0], 3.0, 1e10)
    raises_naming(ValueError, "dt:", lambda: s.step(1e15))
    s.step(1e10)
    assert np.isfinite(s.positions).all() and np.isfinite(s.velocities).all()
    s.step(1e15, gravity=(0, -9.8, 0))       # the force was used up: gravity alone fits
    assert np.isfinite(s.positions).all() and np.isfinite(s.velocities).all()


@pytest.mark.parametrize("args, name", [
    (([1, 0.5, 1], 3.0, 1e39), "strength:"),
    (([1, 0.5, 1], 1e39, 1.0), "radius:"),
    (([1e39, 0.5, 1], 3.0, 1.0), "center:"),
])
def test_surface_effectors_beyond_float32(args, name):
    s = surface_with_motion()
    before = state(s)
    raises_naming(ValueError, name, lambda: s.apply_effector(*args))
    assert_state(s, before)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_surface_add_force_names_the_value():
    s = surface_with_motion()
    before = state(s)
    msg = raises_naming(ValueError, "f:", lambda: s.add_force([0, 1e39, 0]))
    assert msg == "f: expected finite values, got inf at flat index 1"
    assert_state(s, before)


def test_surface_parameters_at_the_float32_limits_work():
    s = skelsimd.Surface(4, 4, mass=1e-38, elasticity=2e-38)
    s.step(1e-3)
    s = skelsimd.Surface(4, 4, mass=np.full((4, 4), 8e37), elasticity=3e38, spacing=1e-30)
    s.step(1e-3)
    assert np.isfinite(s.positions).all()
    s = skelsimd.Surface(4, 4, elasticity=0)
    s.step(1e15, gravity=(0, -1.0, 0))
    assert np.isfinite(s.positions).all()


def test_plot_surface_keeps_no_figure_alive():
    pytest.importorskip("matplotlib")
    s = skelsimd.Surface(6, 6)
    ax = s.plot()
    fig = weakref.ref(ax.figure)
    ax2 = skelsimd.plot_surface(s.positions, color_by=None)
    fig2 = weakref.ref(ax2.figure)
    del ax, ax2
    gc.collect()
    assert fig() is None and fig2() is None
