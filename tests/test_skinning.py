"""The matrix palette and linear-blend skinning against the float64 references, on every SIMD
variant (`isa` fixture)."""
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import skelsimd
from skelsimd import testing as T
from skelsimd.reference import joints as RJ
from skelsimd.reference import skinning as R
from skelsimd._isa import use_isa
from skelsimd.bounds import bound
from strategies import BATCH_SHAPES, LAYOUTS, hierarchies, rounded_once_bound, with_layout

U = 2.0**-24


def bind_pose(parents, rng, translation=1.0):
    """A bind pose and its inverse bind matrices (rigid), as an exporter would give them."""
    bind_local = T.random_joints(len(parents), rng, translation=translation)
    inverse_bind = skelsimd.invert_joints(skelsimd.local_to_global(bind_local, parents), rigid=True)
    return bind_local, inverse_bind


def palette_bound(parents, local, inverse_bind):
    """That of local_to_global followed by one product: (d + 3) * 2**-23 * (max(1, T) + |t_ib|)."""
    d = int(T.depths(parents).max(initial=0))
    g = RJ.local_to_global(local, parents)
    t = max(1.0, float(np.abs(g[..., 3]).max(initial=0)))
    tib = float(np.abs(np.asarray(inverse_bind)[..., 3]).max(initial=0))
    return (d + 3) * bound("walk.depth") * (t + tib)


# --- skinning_palette -------------------------------------------------------------------------

@given(parents=hierarchies(max_joints=150), batch=st.sampled_from(BATCH_SHAPES),
       layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**32 - 1))
def test_skinning_palette_matches_reference(isa, parents, batch, layout, seed):
    rng = np.random.default_rng(seed)
    local = T.random_joints(batch + (len(parents),), rng)
    _, inverse_bind = bind_pose(parents, rng)
    got = skelsimd.skinning_palette(with_layout(local, layout), parents, inverse_bind)
    assert got.dtype == np.float32 and got.shape == local.shape
    expected = R.skinning_palette(local, parents, inverse_bind)
    assert np.abs(got - expected).max(initial=0) <= palette_bound(parents, local, inverse_bind)


@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=5),
       parents=hierarchies(max_joints=60), seed=st.integers(0, 2**32 - 1))
def test_skinning_palette_is_bit_identical_to_local_to_global_then_multiply(isa, shapes, parents, seed):
    """The fused pass computes exactly what the two joint-family calls compute, for any
    broadcast of poses against inverse bind matrices (shared, per character, or a mix)."""
    rng = np.random.default_rng(seed)
    (sl, sb) = shapes.input_shapes
    local = T.random_joints(sl + (len(parents),), rng, scale=(0.5, 2.0))
    inverse_bind = T.random_joints(sb + (len(parents),), rng)
    got = skelsimd.skinning_palette(local, parents, inverse_bind)
    expected = skelsimd.multiply_joints(skelsimd.local_to_global(local, parents), inverse_bind)
    assert got.shape == expected.shape
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("skeleton", ["humanoid", "tree", "chain"])
def test_skinning_palette_unit_magnitude_meets_2e6(isa, skeleton):
    """<= 2e-6 when the global translations stay of unit magnitude: 96-joint skeletons with
    local translations in [-0.25, 0.25] (the humanoid and random trees: globals up to ~2.4) and
    in [-0.1, 0.1] for the 96-deep chain (globals up to ~2)."""
    rng = np.random.default_rng(2_000_000)
    parents = {"humanoid": T.humanoid_skeleton()[0], "chain": T.chain_parents(96),
               "tree": np.array([-1] + [rng.integers(0, j) for j in range(1, 96)])}[skeleton]
    t = 0.1 if skeleton == "chain" else 0.25
    local = T.random_joints((1000, 96), rng, translation=t)
    _, inverse_bind = bind_pose(parents, rng, translation=t)
    err = np.abs(skelsimd.skinning_palette(local, parents, inverse_bind)
                 - R.skinning_palette(local, parents, inverse_bind)).max()
    assert err <= bound("skinning_palette"), err


@pytest.mark.parametrize("target", ["local", "inverse_bind"])
def test_skinning_palette_in_place(isa, rng, target):
    parents = T.humanoid_skeleton()[0]
    local = T.random_joints((9, 96), rng)
    inverse_bind = T.random_joints((9, 96), rng)
    expected = skelsimd.skinning_palette(local, parents, inverse_bind)
    out = local if target == "local" else inverse_bind
    assert skelsimd.skinning_palette(local, parents, inverse_bind, out=out) is out
    assert np.array_equal(out, expected)


def test_skinning_palette_every_batch_size(isa, rng):
    """Batches walked four side by side and their remainders agree with one-at-a-time calls."""
    parents = T.random_parents(50, rng)
    local = T.random_joints((11, 50), rng)
    inverse_bind = T.random_joints(50, rng)
    whole = skelsimd.skinning_palette(local, parents, inverse_bind)
    for b in range(11):
        assert np.array_equal(skelsimd.skinning_palette(local[b], parents, inverse_bind), whole[b])


def test_skinning_palette_empty(isa):
    assert skelsimd.skinning_palette(np.zeros((0, 3, 4)), [], np.zeros((0, 3, 4))).shape == (0, 3, 4)
    assert skelsimd.skinning_palette(np.zeros((0, 2, 3, 4)), [-1, 0], np.zeros((2, 3, 4))).shape == (0, 2, 3, 4)


# --- skin -------------------------------------------------------------------------------------

def skin_bounds(positions, normals, joint_indices, weights, palette):
    """Per-coordinate bounds: the blend of K matrices (K roundings of sum |w_k| |P_k|) and the
    4-term transform; for normals, relative to the length of R(M) n (renormalisation divides
    the error by it)."""
    k = np.asarray(weights).shape[-1]
    blend_abs = R.blend_palette(joint_indices, np.abs(weights), np.abs(palette))   # (..., V, 3, 4)
    p = np.abs(np.asarray(positions, np.float64))
    gamma = (k + 4) * U / (1 - (k + 4) * U)
    pos = gamma * ((blend_abs[..., :3] @ p[..., None])[..., 0] + blend_abs[..., 3])
    m = R.blend_palette(joint_indices, weights, palette)
    q = np.linalg.norm((m[..., :3] @ np.asarray(normals, np.float64)[..., None])[..., 0], axis=-1, keepdims=True)
    nrm_abs = (blend_abs[..., :3] @ np.abs(np.asarray(normals, np.float64))[..., None])[..., 0]
    with np.errstate(divide="ignore"):
        nrm = 2 * gamma * np.linalg.norm(nrm_abs, axis=-1, keepdims=True) / q + 8 * U
    return pos, nrm


@given(influences=st.integers(1, 12), palettes=st.sampled_from([(), (1,), (3,), (2, 3)]),
       shared_mesh=st.booleans(), layout=st.sampled_from(LAYOUTS), zero=st.sampled_from([0.0, 0.4]),
       repeat=st.sampled_from([0.0, 0.4]), seed=st.integers(0, 2**32 - 1))
def test_skin_matches_reference(isa, influences, palettes, shared_mesh, layout, zero, repeat, seed):
    rng = np.random.default_rng(seed)
    v = int(rng.integers(1, 200))
    positions, normals, idx, w = T.random_mesh(v, influences, 40, rng, zero_weights=zero,
                                               repeat_indices=repeat)
    if not shared_mesh and palettes:
        positions = rng.uniform(-1, 1, palettes + (v, 3)).astype(np.float32)
        normals = np.broadcast_to(normals, positions.shape).copy()
    palette = T.random_joints(palettes + (40,), rng)
    got_p, got_n = skelsimd.skin(with_layout(positions, layout), idx, w, palette, normals=normals)
    exp_p, exp_n = R.skin(positions, idx, w, palette, normals=normals)
    assert got_p.shape == got_n.shape == palettes + (v, 3)
    bound_p, bound_n = skin_bounds(positions, normals, idx, w, palette)
    assert (np.abs(got_p - exp_p) <= bound_p).all()
    assert (np.abs(got_n - exp_n) <= bound_n).all()
    assert np.array_equal(skelsimd.skin(positions, idx, w, palette), got_p)


def raw_normal_bounds(normals, joint_indices, weights, palette):
    """Per-coordinate bound of the unnormalised normals R(M) n: the blend of K matrices and a
    3-term product (no division: an absolute bound like the positions')."""
    k = np.asarray(weights).shape[-1]
    blend_abs = R.blend_palette(joint_indices, np.abs(weights), np.abs(palette))
    gamma = (k + 3) * U / (1 - (k + 3) * U)
    return gamma * (blend_abs[..., :3] @ np.abs(np.asarray(normals, np.float64))[..., None])[..., 0]


@given(influences=st.integers(1, 12), palettes=st.sampled_from([(), (1,), (3,), (2, 3)]),
       layout=st.sampled_from(LAYOUTS), zero=st.sampled_from([0.0, 0.4]),
       scale=st.sampled_from([1.0, 3.0]), seed=st.integers(0, 2**32 - 1))
def test_skin_raw_normals_match_reference(isa, influences, palettes, layout, zero, scale, seed):
    """renormalize=False: R(M) n against the float64 reference without normalisation (scaled
    palettes too, whose normals are far from unit length); the positions are the same bytes as
    with renormalisation, and every variant the same bytes as scalar."""
    rng = np.random.default_rng(seed)
    v = int(rng.integers(1, 200))
    positions, normals, idx, w = T.random_mesh(v, influences, 40, rng, zero_weights=zero,
                                               repeat_indices=0.2)
    palette = T.random_joints(palettes + (40,), rng)
    palette[..., :3] *= np.float32(scale)
    got_p, got_n = skelsimd.skin(positions, idx, w, palette, normals=with_layout(normals, layout),
                                 renormalize=False)
    exp_p, exp_n = R.skin(positions, idx, w, palette, normals=normals, renormalize=False)
    assert got_n.shape == palettes + (v, 3)
    assert (np.abs(got_n - exp_n) <= raw_normal_bounds(normals, idx, w, palette)).all()
    assert np.array_equal(got_p, skelsimd.skin(positions, idx, w, palette, normals=normals)[0])
    with use_isa("scalar"):
        scalar = skelsimd.skin(positions, idx, w, palette, normals=normals, renormalize=False)
    assert got_n.tobytes() == scalar[1].tobytes()


def test_skin_raw_normals_in_place_and_zero(isa):
    rng = np.random.default_rng(7)
    positions, normals, idx, w = T.random_mesh(333, 4, 30, rng)
    palette = T.random_joints(30, rng)
    exp_p, exp_n = skelsimd.skin(positions, idx, w, palette, normals=normals, renormalize=False)
    res = skelsimd.skin(positions, idx, w, palette, out=positions, normals=normals,
                        normals_out=normals, renormalize=False)
    assert res[0] is positions and res[1] is normals
    assert np.array_equal(positions, exp_p) and np.array_equal(normals, exp_n)
    zero = np.zeros_like(normals)
    assert not skelsimd.skin(positions, idx, w, palette, normals=zero, renormalize=False)[1].any()


@pytest.mark.parametrize("influences", [1, 4, 8, 12])
def test_skin_raw_normals_unit_magnitude(isa, influences):
    """Unit normals and palettes of rotations with translations in [-1, 1]: the documented
    bound."""
    rng = np.random.default_rng(100 + influences)
    positions, normals, idx, w = T.random_mesh(20_000, influences, 96, rng, zero_weights=0.2,
                                               repeat_indices=0.1)
    palette = T.random_joints((5, 96), rng)
    got = skelsimd.skin(positions, idx, w, palette, normals=normals, renormalize=False)[1]
    exp = R.skin(positions, idx, w, palette, normals=normals, renormalize=False)[1]
    assert np.abs(got - exp).max() <= bound("skin.normals_raw")


@pytest.mark.parametrize("influences", [1, 4, 8, 10, 12])
def test_skin_unit_magnitude_meets_2e6(isa, influences):
    """<= 2e-6 for unit-magnitude data: positions in [-1, 1], palettes of rotations with
    translations in [-1, 1], weights summing to 1; 20,000 vertices by 5 palettes. Normals of a
    realistic palette (the influences of a vertex rotate alike: neighbouring joints of a posed
    skeleton) meet it too."""
    rng = np.random.default_rng(influences)
    positions, normals, idx, w = T.random_mesh(20_000, influences, 96, rng, zero_weights=0.2,
                                               repeat_indices=0.1)
    palette = T.random_joints((5, 96), rng)
    err = np.abs(skelsimd.skin(positions, idx, w, palette) - R.skin(positions, idx, w, palette)).max()
    assert err <= bound("skin.positions"), err
    parents = T.humanoid_skeleton()[0]
    bind_local, inverse_bind = bind_pose(parents, rng, translation=0.25)
    q = rng.standard_normal((5, 96, 4)) * [0.1, 0.1, 0.1, 0.0] + [0.0, 0.0, 0.0, 1.0]
    bend = np.zeros((5, 96, 3, 4), np.float32)                     # small rotations per joint
    bend[..., :3] = T.quaternions_to_matrices(q / np.linalg.norm(q, axis=-1, keepdims=True))
    pose = skelsimd.multiply_joints(bind_local, bend)
    real = skelsimd.skinning_palette(pose, parents, inverse_bind)
    got_p, got_n = skelsimd.skin(positions, idx, w, real, normals=normals)
    exp_p, exp_n = R.skin(positions, idx, w, real, normals=normals)
    assert np.abs(got_p - exp_p).max() <= bound("skin.positions")
    assert np.abs(got_n - exp_n).max() <= bound("skin.normals")


def test_skin_bind_pose_returns_the_input(isa, rng):
    """A mesh skinned by the palette of its own bind pose (global @ inverse(global), the identity
    up to rounding) comes back where it was; normals too."""
    parents = T.humanoid_skeleton()[0]
    bind_local, inverse_bind = bind_pose(parents, rng, translation=0.25)
    palette = skelsimd.skinning_palette(bind_local, parents, inverse_bind)
    assert np.abs(palette - np.eye(3, 4)).max() <= 2e-6
    for k in (1, 4, 8, 12):
        positions, normals, idx, w = T.random_mesh(5000, k, 96, rng, zero_weights=0.3, repeat_indices=0.2)
        got_p, got_n = skelsimd.skin(positions, idx, w, palette, normals=normals)
        assert np.abs(got_p - positions).max() <= 2e-6
        assert np.abs(got_n - normals).max() <= 2e-6
    # an exact identity palette and weights whose sum is exact: bit-for-bit the input
    positions, normals, idx, _ = T.random_mesh(1000, 4, 96, rng)
    w = np.tile(np.float32([0.5, 0.25, 0.125, 0.125]), (1000, 1))
    identity = np.broadcast_to(np.eye(3, 4, dtype=np.float32), (96, 3, 4))
    got_p, got_n = skelsimd.skin(positions, idx, w, identity, normals=normals)
    assert np.array_equal(got_p, positions)
    assert np.abs(got_n - normals).max() <= 2.5e-7   # renormalised: float32 unit vectors move by an ulp


def test_skin_uses_weights_as_given(isa, rng):
    """Weights are not renormalised: doubling them doubles the blended matrix."""
    positions, _, idx, w = T.random_mesh(300, 4, 20, rng)
    palette = T.random_joints(20, rng)
    once = skelsimd.skin(positions, idx, w, palette)
    twice = skelsimd.skin(positions, idx, 2 * w, palette)
    assert np.array_equal(twice, 2 * once)     # exact: scaling by 2 commutes with rounding
    assert np.abs(twice - R.skin(positions, idx, 2 * w, palette)).max() <= 4e-6
    raw = rng.random((300, 4)).astype(np.float32)
    assert np.abs(skelsimd.skin(positions, idx, raw, palette) - R.skin(positions, idx, raw, palette)).max() <= 8e-6


def test_skin_zero_weights_and_repeated_indices(isa, rng):
    positions, normals, idx, w = T.random_mesh(400, 8, 29, rng)
    palette = T.random_joints(30, rng)
    # influences 4..7 have zero weight on joint 29, whose (finite) matrix is huge: no effect
    idx[:, 4:] = 29
    w[:, 4:] = 0
    w[:, :4] /= w[:, :4].sum(axis=1, keepdims=True)
    poisoned = palette.copy()
    poisoned[29] = 1e6
    a = skelsimd.skin(positions, idx, w, poisoned)
    b = skelsimd.skin(positions, idx[:, :4].copy(), w[:, :4].copy(), palette)
    assert np.array_equal(a, b)
    # repeated indices are plain repeated terms: (w1 + w2) P == w1 P + w2 P within rounding
    idx2 = np.repeat(idx[:, :1], 2, axis=1)
    w2 = np.column_stack([w[:, 0] * 0.5, w[:, 0] * 0.5]).astype(np.float32)
    got = skelsimd.skin(positions, idx2, w2, palette)
    assert np.abs(got - R.skin(positions, idx2, w2, palette)).max() <= 1e-6
    # all-zero weights: the vertex collapses to the origin, its normal to zero (no nan)
    w0 = np.zeros_like(w)
    p0, n0 = skelsimd.skin(positions, idx, w0, palette, normals=normals)
    assert not p0.any() and not n0.any() and np.isfinite(n0).all()


def test_skin_index_dtypes(isa, rng):
    positions, _, idx, w = T.random_mesh(100, 4, 50, rng)
    palette = T.random_joints(50, rng)
    expected = skelsimd.skin(positions, idx, w, palette)
    for dtype in (np.uint8, np.int16, np.uint16, np.int64, np.uint32, np.uint64, ">i4"):
        assert np.array_equal(skelsimd.skin(positions, idx.astype(dtype), w, palette), expected)
    assert np.array_equal(skelsimd.skin(positions, idx.tolist(), w.astype(np.float64), palette), expected)
    assert np.array_equal(skelsimd.skin(positions, np.asfortranarray(idx), w, palette), expected)


def test_skin_in_place(isa, rng):
    positions, normals, idx, w = T.random_mesh(500, 4, 30, rng)
    palette = T.random_joints(30, rng)
    exp_p, exp_n = skelsimd.skin(positions, idx, w, palette, normals=normals)
    res = skelsimd.skin(positions, idx, w, palette, out=positions, normals=normals, normals_out=normals)
    assert res[0] is positions and res[1] is normals
    assert np.array_equal(positions, exp_p) and np.array_equal(normals, exp_n)


def test_skin_batch_of_palettes_equals_one_call_each(isa, rng):
    positions, normals, idx, w = T.random_mesh(2000, 4, 96, rng)
    palettes = T.random_joints((100, 96), rng)
    out = np.empty((100, 2000, 3), np.float32)
    nout = np.empty((100, 2000, 3), np.float32)
    res = skelsimd.skin(positions, idx, w, palettes, out, normals=normals, normals_out=nout)
    assert res[0] is out and res[1] is nout
    for b in (0, 37, 99):
        p, n = skelsimd.skin(positions, idx, w, palettes[b], normals=normals)
        assert np.array_equal(out[b], p) and np.array_equal(nout[b], n)


def test_skin_empty(isa, rng):
    assert skelsimd.skin(np.zeros((0, 3)), np.zeros((0, 4), np.int32), np.zeros((0, 4)), np.zeros((5, 3, 4))).shape == (0, 3)
    assert skelsimd.skin(np.zeros((2, 3)), [[0], [0]], [[1], [1]], np.zeros((0, 1, 3, 4))).shape == (0, 2, 3)


# --- normalize_weights ------------------------------------------------------------------------

@given(shape=st.sampled_from([(1,), (7, 1), (7, 4), (3, 5, 8), (0, 4)]), layout=st.sampled_from(LAYOUTS),
       seed=st.integers(0, 2**32 - 1))
def test_normalize_weights(isa, shape, layout, seed):
    assume(not (layout == "list" and 0 in shape))   # an empty list has no K
    rng = np.random.default_rng(seed)
    w = (rng.random(shape) * rng.integers(0, 2, shape)).astype(np.float32)   # zero rows happen
    got = skelsimd.normalize_weights(with_layout(w, layout))
    expected = R.normalize_weights(w)
    k = shape[-1]
    assert got.shape == shape
    assert np.abs(got - expected).max(initial=0) <= (k + 1) * U
    zero = (w.sum(axis=-1) == 0)
    assert np.array_equal(got[zero], w[zero])
    rows = got[~zero].astype(np.float64).sum(axis=-1)
    assert np.abs(rows - 1).max(initial=0) <= 2 * (k + 1) * U


def test_normalize_weights_in_place(isa, rng):
    w = rng.random((50, 4)).astype(np.float32)
    expected = skelsimd.normalize_weights(w)
    assert skelsimd.normalize_weights(w, out=w) is w
    assert np.array_equal(w, expected)


# --- determinism across variants --------------------------------------------------------------

def test_kernels_are_reentrant_across_threads(rng):
    """Each call has its own scratch memory: concurrent calls agree."""
    from concurrent.futures import ThreadPoolExecutor

    parents = T.humanoid_skeleton()[0]
    inverse_bind = T.random_joints(96, rng)
    positions, normals, idx, w = T.random_mesh(3000, 4, 96, rng)
    poses = [T.random_joints((40, 96), np.random.default_rng(i)) for i in range(6)]

    def job(pose):
        palette = skelsimd.skinning_palette(pose, parents, inverse_bind)
        return palette, skelsimd.skin(positions, idx, w, palette[:8], normals=normals)

    expected = [job(p) for p in poses]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(job, poses * 3))
    for i, (pal, (p, n)) in enumerate(got):
        e_pal, (e_p, e_n) = expected[i % 6]
        assert np.array_equal(pal, e_pal) and np.array_equal(p, e_p) and np.array_equal(n, e_n)


# --- skinning_palette(..., precision="float64") -----------------------------------------------

@given(parents=hierarchies(max_joints=150), batch=st.sampled_from(BATCH_SHAPES),
       layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**32 - 1))
def test_skinning_palette_float64_is_rounded_once(isa, parents, batch, layout, seed):
    rng = np.random.default_rng(seed)
    local = T.random_joints(batch + (len(parents),), rng)
    _, inverse_bind = bind_pose(parents, rng)
    got = skelsimd.skinning_palette(with_layout(local, layout), parents, inverse_bind, precision="float64")
    assert got.dtype == np.float32 and got.shape == local.shape
    expected = R.skinning_palette(local, parents, inverse_bind)
    assert (np.abs(got - expected) <= rounded_once_bound(expected)).all()


@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=5),
       parents=hierarchies(max_joints=60), seed=st.integers(0, 2**32 - 1))
def test_skinning_palette_float64_broadcasting(isa, shapes, parents, seed):
    rng = np.random.default_rng(seed)
    (sl, sb) = shapes.input_shapes
    local = T.random_joints(sl + (len(parents),), rng, scale=(0.5, 2.0))
    inverse_bind = T.random_joints(sb + (len(parents),), rng)
    got = skelsimd.skinning_palette(local, parents, inverse_bind, precision="float64")
    expected = R.skinning_palette(local, parents, inverse_bind)
    assert got.shape == expected.shape
    assert (np.abs(got - expected) <= rounded_once_bound(expected)).all()


@pytest.mark.parametrize("skeleton", ["chain", "humanoid"])
def test_skinning_palette_float64_meets_2e6_with_unit_translations(isa, skeleton):
    """The issue's figure with local translations in [-1, 1], where the float32 palette gives
    ~1e-5 on the 96-deep chain and ~2.2e-6 on the humanoid."""
    rng = np.random.default_rng(9697)
    parents = T.chain_parents(96) if skeleton == "chain" else T.humanoid_skeleton()[0]
    local = T.random_joints((1000, 96), rng, translation=1.0)
    _, inverse_bind = bind_pose(parents, rng, translation=1.0)
    expected = R.skinning_palette(local, parents, inverse_bind)
    err = np.abs(skelsimd.skinning_palette(local, parents, inverse_bind, precision="float64") - expected)
    assert err.max() <= bound("walk.float64.96"), err.max()
    assert (err <= rounded_once_bound(expected)).all()


@pytest.mark.parametrize("target", ["local", "inverse_bind"])
def test_skinning_palette_float64_in_place(isa, rng, target):
    parents = T.humanoid_skeleton()[0]
    local = T.random_joints((9, 96), rng)
    inverse_bind = T.random_joints((9, 96), rng)
    expected = skelsimd.skinning_palette(local, parents, inverse_bind, precision="float64")
    out = local if target == "local" else inverse_bind
    assert skelsimd.skinning_palette(local, parents, inverse_bind, out=out, precision="float64") is out
    assert np.array_equal(out, expected)


def test_skinning_palette_float64_every_batch_size(isa, rng):
    parents = T.random_parents(50, rng)
    local = T.random_joints((11, 50), rng)
    inverse_bind = T.random_joints(50, rng)
    whole = skelsimd.skinning_palette(local, parents, inverse_bind, precision="float64")
    for b in range(11):
        one = skelsimd.skinning_palette(local[b], parents, inverse_bind, precision="float64")
        assert np.array_equal(one, whole[b])


def test_skinning_palette_float64_empty(isa):
    assert skelsimd.skinning_palette(np.zeros((0, 3, 4)), [], np.zeros((0, 3, 4)), precision="float64").shape == (0, 3, 4)
    assert skelsimd.skinning_palette(np.zeros((0, 2, 3, 4)), [-1, 0], np.zeros((2, 3, 4)), precision="float64").shape == (0, 2, 3, 4)

