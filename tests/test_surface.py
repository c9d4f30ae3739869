"""Spring-grid surface against the float64 references and its invariants, on every
SIMD variant (`isa` fixture)."""
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import _core
from skelsimd import testing as T
from skelsimd.reference import surface as R
from skelsimd.surface import PRESETS, aliased_plane_stride, padded_plane_stride
from skelsimd.bounds import bound


@st.composite
def grids(draw, max_rows=12, max_cols=21, models=("offset", "length")):
    """(rows, cols, model, topology, spacing): sizes that exercise the SIMD loops and tails."""
    topology = draw(st.sampled_from(["plane", "cylinder"]))
    rows = draw(st.integers(1, max_rows))
    cols = draw(st.integers(3 if topology == "cylinder" else 1, max_cols))
    model = draw(st.sampled_from(list(models)))
    spacing = draw(st.sampled_from([1.0, 0.5, 0.1, 0.37]))
    return rows, cols, model, topology, spacing


def make_surface(rows, cols, model, topology, spacing, rng, *, noise=0.0, **kw):
    if noise:
        xyz = T.perturbed_grid(rows, cols, rng, spacing=spacing, noise=noise, topology=topology)
        return skelsimd.Surface.from_positions(xyz, model=model, topology=topology, **kw)
    return skelsimd.Surface(rows, cols, spacing=spacing, model=model, topology=topology, **kw)


# --- construction ------------------------------------------------------------------------------

@pytest.mark.parametrize("rows, cols, topology", [(1, 1, "plane"), (1, 9, "plane"), (7, 1, "plane"),
                                                  (5, 7, "plane"), (100, 100, "plane"),
                                                  (2, 3, "cylinder"), (6, 10, "cylinder")])
def test_spring_count(rows, cols, topology):
    s = skelsimd.Surface(rows, cols, topology=topology)
    expected = 3 * rows * cols - 2 * cols if topology == "cylinder" else 3 * rows * cols - 2 * rows - 2 * cols + 1
    assert s.spring_count == expected == len(R.springs(rows, cols, topology == "cylinder")[0])


def test_flat_grid_layout_and_views():
    s = skelsimd.Surface(4, 6, spacing=0.5)
    P = s.positions
    assert P.shape == (3, 4, 6) and P.dtype == np.float32 and s.velocities.shape == (3, 4, 6)
    assert s.pinned.shape == (4, 6) and s.pinned.dtype == np.bool_ and not s.pinned.any()
    assert np.array_equal(P[0], np.tile(np.arange(6) * 0.5, (4, 1)))          # x along columns
    assert np.array_equal(P[2], np.tile(np.arange(4)[:, None] * 0.5, (1, 6)))  # z along rows
    assert not P[1].any()                                                      # y = 0, y up
    assert P.flags.writeable and s.velocities.flags.writeable and s.pinned.flags.writeable
    # all views share one buffer
    assert np.shares_memory(P, s.velocities) or P.base is s.velocities.base


def test_cylinder_layout():
    s = skelsimd.Surface(5, 12, spacing=0.3, topology="cylinder")
    P = s.positions.astype(np.float64)
    radius = np.hypot(P[0], P[2])
    assert np.allclose(radius, radius[0, 0], rtol=1e-6)
    assert np.allclose(P[1], np.arange(5)[:, None] * 0.3)       # rows go up the y axis
    chord = np.sqrt(((P[:, :, 1:] - P[:, :, :-1]) ** 2).sum(axis=0))
    assert np.allclose(chord, 0.3, rtol=1e-5)
    wrap = np.sqrt(((P[:, :, 0] - P[:, :, -1]) ** 2).sum(axis=0))
    assert np.allclose(wrap, 0.3, rtol=1e-5)


def test_presets_and_overrides():
    for name, (E, d) in PRESETS.items():
        s = skelsimd.Surface(3, 3, preset=name)
        assert (s.elasticity, s.damping, s.preset) == (E, d, name)
    assert PRESETS["water"] == (1.0, 0.995) and PRESETS["cloth"] == (0.9, 0.9)
    assert PRESETS["rubber"][0] > 1 and PRESETS["rubber"][1] < 1
    s = skelsimd.Surface(3, 3, preset="cloth", damping=0.5)
    assert (s.elasticity, s.damping) == (0.9, 0.5)
    s = skelsimd.Surface(3, 3, preset="water", elasticity=3.0)
    assert (s.elasticity, s.damping) == (3.0, 0.995)
    s = skelsimd.Surface(3, 3)
    assert (s.elasticity, s.damping, s.mass) == (1.0, 1.0, 1.0)


def test_plane_stride_is_padded_off_the_4k_period():
    for n in (100, 1000, 1024, 4096, 10_000, 65_536, 1_000_000):
        p = padded_plane_stride(n)
        assert p >= n and p % 16 == 0
        if n * 4 >= 4096:
            sets = {(k * p * 4 // 64) % 64 for k in range(20)}
            assert len(sets) == 20, (n, p)           # 20 planes, 20 different L1 sets
        assert aliased_plane_stride(n) * 4 % 4096 == 0
    s = skelsimd.Surface(100, 100)
    assert s.plane_stride == padded_plane_stride(10_000)
    assert skelsimd.is_aligned(s.positions)


# --- invariants ----------------------------------------------------------------------------------

@given(grid=grids(), noise=st.sampled_from([0.0, 0.1]), n=st.integers(1, 40),
       seed=st.integers(0, 2**32 - 1), damping=st.sampled_from([1.0, 0.9]))
def test_relaxed_grid_stays_exactly_at_rest(isa, grid, noise, n, seed, damping):
    """Rest vectors/lengths are captured in float32 with the kernels' operations: zero force."""
    rng = np.random.default_rng(seed)
    s = make_surface(*grid, rng, noise=noise, damping=damping)
    before = s.positions.copy()
    s.step(0.9 * s.max_stable_dt, n)
    assert np.array_equal(s.positions, before)
    assert not s.velocities.any()


@given(grid=grids(), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60))
def test_pinned_vertices_are_bitwise_unchanged(isa, grid, seed, n):
    rng = np.random.default_rng(seed)
    rows, cols = grid[:2]
    s = make_surface(*grid, rng, noise=0.1, mass=rng.uniform(0.5, 2.0, (rows, cols)))
    s.velocities[...] = rng.normal(0, 0.3, s.velocities.shape)
    s.pinned[...] = rng.random((rows, cols)) < 0.3
    s.add_force(rng.normal(0, 1.0, (3, rows, cols)))
    s.apply_effector(s.positions[:, rows // 2, cols // 2] + 0.01, 2.0 * grid[4], 0.5)
    pins = s.pinned.copy()
    p0, v0 = s.positions.copy(), s.velocities.copy()
    s.step(0.8 * s.max_stable_dt, n, gravity=(0.3, -9.81, 0.1))
    assert np.array_equal(s.positions[:, pins].view(np.uint32), p0[:, pins].view(np.uint32))
    assert np.array_equal(s.velocities[:, pins].view(np.uint32), v0[:, pins].view(np.uint32))
    if (~pins).any():
        assert not np.array_equal(s.positions[:, ~pins], p0[:, ~pins])


@given(grid=grids(), seed=st.integers(0, 2**32 - 1))
def test_internal_forces_sum_to_zero(isa, grid, seed):
    """No pins, no external force, damping 1: momentum is conserved (it starts at zero)."""
    rng = np.random.default_rng(seed)
    s = make_surface(*grid, rng, noise=0.0)
    s.positions[...] += rng.normal(0, 0.1 * grid[4], s.positions.shape).astype(np.float32)
    dt = 0.9 * s.max_stable_dt
    s.step(dt, 200)
    momentum = s.velocities.astype(np.float64).sum(axis=(1, 2))
    scale = np.abs(s.velocities).sum() + 1e-30
    assert np.abs(momentum).max() <= 1e-5 * scale, (momentum, scale)


def run_against_reference(grid, seed, pins, ext, per_vertex_mass, damping, *, unit, noise, fraction,
                          load=0.2, sensitivity=False):
    """100 steps of a random scene on the active variant and in float64. unit: grid extent 2.
    Returns (max error, max(1, |x|, |v|), sensitivity): with sensitivity=True, how far the
    float64 reference moves from itself when float32-sized rounding noise (a relative 2**-24)
    is injected into its state after every step, i.e. how much this motion amplifies roundings."""
    rng = np.random.default_rng(seed)
    rows, cols, model, topology, spacing = grid
    if unit:
        spacing = 2.0 / max(rows, cols)
    rest = T.perturbed_grid(rows, cols, rng, spacing=spacing, noise=0.05, topology=topology)
    mass = rng.uniform(0.5, 2.0, (rows, cols)) if per_vertex_mass else 1.3
    s = skelsimd.Surface.from_positions(rest, model=model, topology=topology, damping=damping,
                                        elasticity=rng.uniform(0.2, 3.0), mass=mass)
    s.positions[...] += rng.normal(0, noise * spacing, s.positions.shape).astype(np.float32)
    s.velocities[...] = rng.normal(0, noise * spacing, s.velocities.shape)
    if pins:
        s.pinned[0, :] = True
    ref = R.ReferenceSurface.like(s, rest)
    shaken = R.ReferenceSurface.like(s, rest)
    force = rng.normal(0, load * spacing, (3, rows, cols)).astype(np.float32) if ext else None
    if ext:
        s.add_force(force)
    g = (0.0, -load * spacing, 0.25 * load * spacing) if pins else (0.0, 0.0, 0.0)
    dt = fraction * s.max_stable_dt
    s.step(dt, 100, gravity=g)
    ref.step(np.float32(dt), 100, gravity=g, ext=force)
    err = max(np.abs(s.positions - ref.pos).max(), np.abs(s.velocities - ref.vel).max())
    scale = max(1.0, np.abs(rest).max(), np.abs(ref.pos).max(), np.abs(ref.vel).max())
    amplified = 0.0
    if sensitivity:
        for k in range(100):
            shaken.step(np.float32(dt), 1, gravity=g, ext=force if k == 0 else None)
            for x in (shaken.pos, shaken.vel):
                x *= 1 + rng.choice([-1.0, 1.0], x.shape) * 2.0**-24
        amplified = max(np.abs(shaken.pos - ref.pos).max(), np.abs(shaken.vel - ref.vel).max())
    return err, scale, amplified


SCENES = dict(seed=st.integers(0, 2**32 - 1), pins=st.booleans(), ext=st.booleans(),
              per_vertex_mass=st.booleans(), damping=st.sampled_from([1.0, 0.995, 0.9]))


@given(grid=grids(models=["offset"]), unit=st.booleans(), **SCENES)
def test_offset_model_matches_float64_reference_after_100_steps(isa, grid, unit, seed, pins, ext,
                                                                per_vertex_mass, damping):
    """Every variant within 1e-5 of the float64 reference after 100 steps while coordinates and
    velocities stay within 2.5 (unit-scale grids), and within 4e-6 * max(|x|, |v|) beyond
    (float32 positions carry a relative rounding; |x| the larger of the initial and final
    coordinates), at dt = 0.7 dt_max."""
    err, scale, _ = run_against_reference(grid, seed, pins, ext, per_vertex_mass, damping,
                                          unit=unit, noise=0.05, fraction=0.7)
    assert err <= max(bound("surface.step"), bound("surface.step.relative") * scale), (err, scale)


@given(grid=grids(models=["length"]), **SCENES)
def test_length_model_matches_float64_reference_after_100_steps(isa, grid, seed, pins, ext,
                                                                per_vertex_mass, damping):
    """The length model is nonlinear, and a grid of length springs has no bending stiffness: under
    a load it can fold (a 4-column cylinder under gravity buckles, its springs at 0.45 to 1.5 of
    their rest length), and such motion amplifies every rounding exponentially, in float64 too
    (a float32 NumPy emulation of the same step follows the kernels there, not the float64
    reference). Near rest (no loads: springs within a few percent of their rest length;
    unit-scale grids; dt = 0.25 dt_max) every variant stays within 1e-5 of the float64
    reference plus three times the spread that float32-sized rounding noise alone produces in
    the float64 reference."""
    err, scale, sensitivity = run_against_reference(grid, seed, pins, ext, per_vertex_mass, damping,
                                                    unit=True, noise=0.01, fraction=0.25,
                                                    load=0.0, sensitivity=True)
    assert err <= 1e-5 + 3 * sensitivity, (err, sensitivity)


def test_uniform_and_per_vertex_rest_paths_agree(isa, rng):
    """spacing 1 stores one rest vector per spring direction; spacing 0.1 (not exact in float32)
    one per vertex. Both give the reference motion."""
    for spacing in (1.0, 0.1):
        s = skelsimd.Surface(9, 30, spacing=spacing)
        assert s._rest_step == (0 if spacing == 1.0 else 1)
        rest = s.positions.copy()
        s.positions[1, 4, 11] += 0.3 * spacing
        ref = R.ReferenceSurface.like(s, rest)
        s.step(0.5, 50)
        ref.step(np.float32(0.5), 50)
        assert np.abs(s.positions - ref.pos).max() <= 1e-5 * max(1.0, 30 * spacing)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shadow_energy_conserved_over_10000_steps(isa, seed):
    """Offset model, damping 1: H = 1/2 sum m|v|^2 + E(S) + dt/2 sum v.F(S) drifts <= 1e-5 (a
    16 x 20 grid centred at the origin, displacements 0.2 of the spacing; the float32 rounding
    of positions, about 6e-8 of their magnitude, drives the drift)."""
    rng = np.random.default_rng(seed)
    rest = T.perturbed_grid(16, 20, rng, spacing=1.0, noise=0.05)
    rest -= rest.mean(axis=(1, 2), keepdims=True)
    s = skelsimd.Surface.from_positions(rest, elasticity=1.5, mass=0.8)
    s.positions[...] += rng.normal(0, 0.2, s.positions.shape).astype(np.float32)
    s.pinned[0, 0] = s.pinned[-1, -1] = True
    ref = R.ReferenceSurface.like(s, rest)
    dt = float(np.float32(0.9 * s.max_stable_dt))

    def H():
        return ref.shadow(s.positions, s.velocities, s.pinned, dt)

    h0 = H()
    drift = 0.0
    for _ in range(10):
        s.step(dt, 1000)
        drift = max(drift, abs(H() - h0) / h0)
    assert drift <= bound("surface.energy_drift"), drift
    # the plain energy is not conserved by symplectic Euler (it oscillates)
    plain = ref.shadow(s.positions, s.velocities, s.pinned, 0.0)
    assert abs(plain - h0) / h0 > 1e-3


@pytest.mark.parametrize("damping, fraction", [(0.995, 0.9), (0.9, 0.5), (0.5, 0.99), (0.0, 0.7)])
def test_damped_shadow_energy_never_increases(isa, rng, damping, fraction):
    """H_d = 1/2 sum m|v|^2 + (1 + d)/2 E(S) + dt/2 sum v.F(S) never increases with d < 1."""
    rest = T.perturbed_grid(9, 12, rng, noise=0.05)
    s = skelsimd.Surface.from_positions(rest, damping=damping, elasticity=2.0)
    s.positions[...] += rng.normal(0, 0.3, s.positions.shape).astype(np.float32)
    s.velocities[...] = rng.normal(0, 0.3, s.velocities.shape)
    s.pinned[0, :3] = True
    ref = R.ReferenceSurface.like(s, rest)
    dt = float(np.float32(fraction * s.max_stable_dt))
    h = [ref.shadow(s.positions, s.velocities, s.pinned, dt, damping)]
    for _ in range(300):
        s.step(dt)
        h.append(ref.shadow(s.positions, s.velocities, s.pinned, dt, damping))
    h = np.array(h)
    assert (np.diff(h) <= 1e-6 * h[0]).all(), np.diff(h).max() / h[0]
    assert h[-1] < h[0]


def test_issue_shadow_energy_can_increase_under_damping(isa):
    """Why the damped test uses H_d: the issue's H rises at a turning point (v small and
    v.F > 0: damping scales away a negative dt/2 v.F)."""
    s = skelsimd.Surface(1, 2, damping=0.9)
    s.pinned[0, 0] = True
    ref = R.ReferenceSurface.like(s, s.positions.copy())
    dt = 0.5
    s.positions[0, 0, 1] += 1.0           # stretched, moving outwards slowly: a turning point
    s.velocities[0, 0, 1] = dt * 1.0 * 1.0 + 0.05    # one step from now v' = 0.05 > 0, F < 0
    H = lambda: ref.shadow(s.positions, s.velocities, s.pinned, dt, 1.0)      # noqa: E731
    Hd = lambda: ref.shadow(s.positions, s.velocities, s.pinned, dt, 0.9)     # noqa: E731
    h0, hd0 = H(), Hd()
    s.step(dt)
    assert H() > h0            # the issue's claim fails here ...
    assert Hd() <= hd0         # ... the damped shadow energy does not


def test_static_equilibrium_under_gravity(isa):
    """Top row pinned, offset model, damped to rest: matches E L u = m g to 1e-4."""
    rows, cols, E, m = 8, 10, 1.0, 0.5
    g = np.array([0.0, -0.02, 0.005])
    s = skelsimd.Surface(rows, cols, elasticity=E, mass=m, damping=0.9)
    s.pinned[0, :] = True
    expected = R.static_equilibrium(s.positions, s.pinned, E=E, mass=m, gravity=g)
    s.step(0.95 * s.max_stable_dt, 4000, gravity=g)
    assert np.abs(s.positions - expected).max() <= bound("surface.sag")
    assert np.abs(expected - skelsimd.Surface(rows, cols).positions).max() > 0.1   # it did sag


# --- stability bound -----------------------------------------------------------------------------

def test_laplacian_largest_eigenvalue_is_below_9():
    """The bound's constant: lambda_max < 9 on every grid, approaching 9 on large ones."""
    for rows, cols, wrap in [(2, 2, False), (5, 7, False), (20, 20, False), (6, 9, True),
                             (24, 24, True)]:
        lam = np.linalg.eigvalsh(R.laplacian(rows, cols, wrap)).max()
        assert lam < 9.0
    assert np.linalg.eigvalsh(R.laplacian(24, 24, True)).max() > 8.95


@pytest.mark.parametrize("damping", [1.0, 0.9])
def test_max_stable_dt_formula(damping):
    s = skelsimd.Surface(4, 4, elasticity=2.5, mass=np.full((4, 4), 0.7), damping=damping)
    assert s.max_stable_dt == pytest.approx(math.sqrt(2 * (1 + damping) * 0.7 / (9 * 2.5)))
    assert skelsimd.Surface(3, 3, elasticity=0.0).max_stable_dt == math.inf


@pytest.mark.parametrize("damping", [1.0, 0.995, 0.9])
def test_dt_just_inside_the_bound_stays_bounded(isa, rng, damping):
    s = skelsimd.Surface(24, 24, topology="cylinder", damping=damping, elasticity=1.7)
    rest = s.positions.copy()
    s.positions[...] += rng.normal(0, 0.01, s.positions.shape).astype(np.float32)
    s.step(0.999 * s.max_stable_dt, 3000)
    assert np.abs(s.positions - rest).max() < 1.0


@pytest.mark.parametrize("damping", [1.0, 0.9])
def test_dt_just_outside_the_bound_is_refused(damping):
    s = skelsimd.Surface(5, 5, damping=damping, elasticity=1.7, mass=0.9)
    dt = s.max_stable_dt * 1.001
    before = s.positions.copy()
    with pytest.raises(ValueError) as info:
        s.step(dt)
    assert f"{s.max_stable_dt:.9g}" in str(info.value) and "largest stable dt" in str(info.value)
    assert np.array_equal(s.positions, before)


def test_dt_outside_the_bound_really_diverges(isa, rng):
    """The bound is tight: bypassing the check, 2% over it blows up on a large cylinder."""
    s = skelsimd.Surface(30, 30, topology="cylinder", damping=1.0)
    s.positions[...] += rng.normal(0, 1e-3, s.positions.shape).astype(np.float32)
    dt = 1.02 * s.max_stable_dt
    _core.surface_step(s._buffer, s.rows, s.cols, s.plane_stride, 1, 0, s._rest_step, 0,
                       s.elasticity, s.damping, dt, 2000, 0.0, 0.0, 0.0, 0)
    assert not (np.abs(s.positions) < 1e3).all()


# --- forces, effectors, normals ------------------------------------------------------------------

@pytest.mark.parametrize("shape", ["uniform", "per-vertex", "broadcast"])
def test_add_force_acts_during_the_next_substep_only(isa, rng, shape):
    rows, cols = 6, 11
    s = skelsimd.Surface(rows, cols)
    ref = R.ReferenceSurface.like(s, s.positions.copy())
    f = {"uniform": rng.normal(size=3), "per-vertex": rng.normal(size=(3, rows, cols)),
         "broadcast": rng.normal(size=(3, rows, 1))}[shape]
    pending = s.add_force(f)
    full = np.broadcast_to(f[:, None, None] if shape == "uniform" else f, (3, rows, cols))
    assert np.allclose(pending, full, atol=1e-7) and not pending.flags.writeable
    s.step(0.3, 5)
    ref.step(np.float32(0.3), 5, ext=full.astype(np.float32))
    assert np.abs(s.positions - ref.pos).max() <= 1e-6
    assert not s.external_force.any()
    s2 = skelsimd.Surface(rows, cols)
    s2.add_force(f)
    s2.step(0.3)
    s2.step(0.3, 4)               # the force is gone after the first substep
    assert np.array_equal(s2.positions, s.positions)


def test_clear_forces(isa):
    s = skelsimd.Surface(3, 4)
    s.add_force([1.0, 0, 0])
    s.clear_forces()
    s.step(0.1, 3)
    assert np.array_equal(s.positions, skelsimd.Surface(3, 4).positions)


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 9), rows=st.integers(1, 9),
       cols=st.integers(1, 23))
def test_effectors_match_reference(isa, seed, k, rows, cols):
    rng = np.random.default_rng(seed)
    s = skelsimd.Surface.from_positions(T.perturbed_grid(rows, cols, rng, noise=0.1))
    centers = rng.uniform([-1, -1, -1], [cols, 1, rows], (k, 3))
    centers[0] = s.positions[:, 0, 0]              # exactly on a vertex: no force on it
    radius = rng.uniform(0.5, 3.0, k)
    strength = rng.normal(0, 2.0, k)
    s.add_force([0.25, 0.0, -0.5])
    reaction = s.apply_effector(centers, radius, strength)
    force, expected = R.effectors(s.positions, centers.astype(np.float32),
                                  radius.astype(np.float32), strength.astype(np.float32))
    assert reaction.shape == (k, 3) and reaction.dtype == np.float32
    assert np.abs(s.external_force - force - np.array([0.25, 0, -0.5])[:, None, None]).max() <= 4e-6 * k
    assert np.abs(reaction - expected).max() <= 1e-5 * max(1.0, np.abs(strength).sum())


def test_single_effector_and_radius(isa):
    s = skelsimd.Surface(5, 5)
    c = np.array([2.0, 0.5, 2.0])
    r = s.apply_effector(c, 1.2, 3.0)
    assert r.shape == (3,)
    f = s.external_force
    d = np.sqrt(((s.positions - c[:, None, None]) ** 2).sum(axis=0))
    inside = d < 1.2
    assert inside.sum() == 5                       # the centre vertex and its 4 axis neighbours
    assert np.allclose(np.sqrt((f ** 2).sum(axis=0))[inside], 3.0, rtol=1e-6)
    assert not f[:, ~inside].any()
    assert np.allclose(r, -f.sum(axis=(1, 2)), atol=1e-5)
    assert f[1, inside].min() > 0                  # pulled up towards the centre above the grid


def test_effector_moves_the_surface(isa):
    """A negative-strength effector pressed into water sends a wave outwards."""
    s = skelsimd.Surface(40, 40, preset="water")
    s.apply_effector([20.0, 0.2, 20.0], 2.0, -1.0)
    s.step(0.5, 1)
    moved = s.positions[1] != 0
    assert s.positions[1, 20, 20] < 0 and moved.sum() == 9   # the 3 x 3 vertices within 2 of C
    s.step(0.5, 40)
    assert np.abs(s.positions[1, 20, 30]) > 1e-4


def test_normals_of_flat_and_cylinder(isa):
    n = skelsimd.Surface(7, 13).normals()
    assert n.shape == (3, 7, 13) and n.dtype == np.float32
    assert np.array_equal(n, np.broadcast_to(np.array([0, 1, 0], np.float32)[:, None, None], n.shape))
    s = skelsimd.Surface(6, 16, topology="cylinder")
    n = s.normals()
    radial = s.positions.astype(np.float64).copy()
    radial[1] = 0
    radial /= np.sqrt((radial ** 2).sum(axis=0))
    assert np.abs(n[:, 1:-1] - radial[:, 1:-1]).max() <= 1e-6      # outwards


@given(grid=grids(), seed=st.integers(0, 2**32 - 1))
def test_normals_match_reference(isa, grid, seed):
    rng = np.random.default_rng(seed)
    rows, cols, _, topology, spacing = grid
    xyz = T.perturbed_grid(rows, cols, rng, spacing=spacing, noise=0.15, topology=topology)
    s = skelsimd.Surface.from_positions(xyz, topology=topology)
    out = np.full((3, rows, cols), -7.0, np.float32)
    got = s.normals(out=out)
    assert got is out
    expected = R.normals(xyz, wrap=topology == "cylinder")
    assert np.abs(got - expected).max() <= bound("surface.normals")
    length = np.sqrt((got.astype(np.float64) ** 2).sum(axis=0))
    assert np.all((np.abs(length - 1) <= 1e-6) | ((length == 0) & (rows == 1 or (cols == 1 and topology == "plane"))))


def test_degenerate_normals_are_zero(isa):
    s = skelsimd.Surface(4, 9)
    s.positions[...] = 0.0                          # every triangle has zero area
    assert not s.normals().any()
    assert not skelsimd.Surface(1, 10).normals().any()   # one row: no triangles


# --- the class and its views ---------------------------------------------------------------------

def test_writing_views_changes_the_state(isa):
    s = skelsimd.Surface(5, 9)
    s.positions[1, 2, 4] = 0.5                      # lift one vertex
    s.step(0.2)
    assert s.positions[1, 2, 4] < 0.5 and s.positions[1, 2, 5] > 0      # neighbour pulled up
    s.velocities[...] = 0
    s.velocities[0, 0, 0] = 1.0
    s.pinned[...] = True
    before = s.positions.copy()
    s.step(0.2, 3)
    assert np.array_equal(s.positions, before)
    s.pinned = np.zeros((5, 9), bool)
    s.positions = skelsimd.Surface(5, 9).positions
    s.velocities = np.zeros((3, 5, 9))
    s.step(0.2, 3)
    assert np.array_equal(s.positions, skelsimd.Surface(5, 9).positions)


def test_capture_rest_makes_the_current_shape_relaxed(isa, rng):
    s = skelsimd.Surface(6, 8, model="length")
    s.positions[...] += rng.normal(0, 0.1, s.positions.shape).astype(np.float32)
    s.capture_rest()
    before = s.positions.copy()
    s.step(0.3, 20)
    assert np.array_equal(s.positions, before)


def test_cloth_drapes_with_the_length_model(isa):
    """A cloth pinned at two corners falls and keeps its springs near their rest length."""
    s = skelsimd.Surface(12, 12, spacing=0.1, model="length", preset="cloth", elasticity=50.0,
                         mass=0.01)
    s.pinned[0, 0] = s.pinned[0, -1] = True
    dt = 0.5 * s.max_stable_dt
    s.step(dt, 3000, gravity=(0, -9.81, 0))
    P = s.positions.astype(np.float64)
    assert P[1].min() < -0.3                                   # it fell
    stretch = np.sqrt(((P[:, :, 1:] - P[:, :, :-1]) ** 2).sum(axis=0)) / 0.1
    assert 0.5 < stretch.min() and stretch.max() < 2.0
    assert np.isfinite(P).all()


def test_step_returns_positions_and_n_zero_is_a_no_op(isa):
    s = skelsimd.Surface(3, 3)
    s.positions[1, 1, 1] = 1.0
    before = s.positions.copy()
    assert s.step(0.1, 0) is s.positions
    assert np.array_equal(s.positions, before)


def test_step_releases_the_gil(isa):
    """Other Python threads run while a long step runs in C."""
    import threading

    s = skelsimd.Surface(200, 200)
    s.positions[1, 100, 100] = 1.0
    count = [0]
    done = threading.Event()

    def run():
        s.step(0.5, 400)
        done.set()

    t = threading.Thread(target=run)
    t.start()
    while not done.is_set():
        count[0] += 1
    t.join()
    assert count[0] > 100


def test_repr_and_plot_helper(tmp_path):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    s = skelsimd.Surface(6, 8, topology="cylinder")
    assert "cylinder" in repr(s)
    ax = s.plot()
    ax.figure.savefig(tmp_path / "surface.png")
    ax = skelsimd.plot_surface(skelsimd.Surface(5, 5).positions, color_by=None)
    assert (tmp_path / "surface.png").stat().st_size > 0
    # like every skelsimd figure, not registered with pyplot (nothing left open in a script)
    import matplotlib.pyplot as plt
    assert plt.get_fignums() == []
    with pytest.raises(ValueError, match="color_by"):
        s.plot(color_by="colour")


def test_import_does_not_import_matplotlib():
    code = "import sys, skelsimd; skelsimd.Surface(3, 3).step(0.1); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_length_model_zero_length_spring_exerts_no_force(isa):
    """Two vertices on top of each other: that spring gives no force (no NaN), the others act."""
    s = skelsimd.Surface(3, 12, model="length")
    s.positions[:, 1, 5] = s.positions[:, 1, 6]
    ref = R.ReferenceSurface.like(s, skelsimd.Surface(3, 12).positions)
    s.step(0.2, 10)
    ref.step(np.float32(0.2), 10)
    assert np.isfinite(s.positions).all()
    assert np.abs(s.positions - ref.pos).max() <= 1e-5


@pytest.mark.parametrize("model", ["offset", "length"])
def test_numpy_benchmark_formulation_matches_reference(model, rng):
    """The NumPy step the benchmarks race does the same job (checked here, and before timing)."""
    rest = T.perturbed_grid(9, 14, rng, noise=0.05)
    fast = R.NumpyStep(rest, E=1.2, damping=0.99, mass=0.8, model=model)
    ref = R.ReferenceSurface(rest, model=model, E=1.2, damping=0.99, mass=0.8)
    ref.pinned[0] = True
    fast.free[0] = 0
    force = rng.normal(0, 0.1, rest.shape).astype(np.float32)
    fast.ext[...] = force
    fast.step(0.3, 50, gravity=(0, -0.1, 0))
    ref.step(np.float32(0.3), 50, gravity=(0, -0.1, 0), ext=force)
    assert np.abs(fast.P - ref.pos).max() <= 1e-5


@pytest.mark.parametrize("model, topology", [("offset", "plane"), ("length", "cylinder")])
def test_wavefront_substeps_equal_one_at_a_time(isa, model, topology):
    """step(dt, n) runs up to 8 substeps as a wavefront over the rows: bit for bit the same as
    one substep per call (here on a grid larger than L2), and close to the float64 reference."""
    rng = np.random.default_rng(11)
    rest = T.perturbed_grid(131, 127, rng, spacing=0.05, noise=0.05, topology=topology)
    kick = rng.normal(0, 0.01, rest.shape).astype(np.float32)
    force = rng.normal(0, 0.1, rest.shape).astype(np.float32)
    pair = []
    for _ in range(2):
        s = skelsimd.Surface.from_positions(rest, model=model, topology=topology, damping=0.99)
        s.positions[...] += kick
        s.pinned[0, ::7] = True
        s.add_force(force)
        pair.append(s)
    a, b = pair
    ref = R.ReferenceSurface.like(a, rest)
    dt = 0.5 * a.max_stable_dt
    a.step(dt, 19, gravity=(0, -0.1, 0))            # 8 + 8 + 3 substeps in flight
    for _ in range(19):
        b.step(dt, gravity=(0, -0.1, 0))
    assert np.array_equal(a.positions.view(np.uint32), b.positions.view(np.uint32))
    assert np.array_equal(a.velocities.view(np.uint32), b.velocities.view(np.uint32))
    ref.step(np.float32(dt), 19, gravity=(0, -0.1, 0), ext=force)
    assert np.abs(a.positions - ref.pos).max() <= 4e-6 * np.abs(ref.pos).max()
