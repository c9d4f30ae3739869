"""skelsimd.dask: the batched kernels on dask arrays, bit for bit against the in-memory calls.

Skipped when the [dask] extra (dask[array]) is not installed.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import skelsimd  # noqa: E402
import skelsimd.dask as sd  # noqa: E402
from skelsimd import testing  # noqa: E402

PARENTS, _ = testing.humanoid_skeleton()
J = len(PARENTS)


def _unit_quats(shape, rng):
    return testing.random_quaternions(shape, rng).astype(np.float32)


def _cases(rng):
    """name -> (dask function, in-memory function, args (arrays to chunk marked by a tuple
    ("chunk", array, core_ndim)), kwargs)."""
    local = testing.random_joints((24, J), rng)
    qts = testing.random_qts((24, J), rng, scale=(0.5, 2.0))
    inverse_bind = skelsimd.invert_joints(
        skelsimd.local_to_global(testing.random_joints(J, rng), PARENTS), rigid=True)
    palette = skelsimd.skinning_palette(local, PARENTS, inverse_bind)
    positions, normals, idx, w = testing.random_mesh(50, 4, J, rng)
    q0, q1 = _unit_quats((24, 5), rng), _unit_quats((24, 5), rng)
    t = rng.random((24, 5)).astype(np.float32)
    m4 = testing.random_mat4((24, 6), rng, projective=0.3)
    pts = rng.uniform(-1, 1, (24, 6, 3)).astype(np.float32)
    qts_b = testing.random_qts((24, J), rng)
    layers = testing.random_qts((24, 3, J), rng)
    C = "chunk"
    return {
        "local_to_global": ("local_to_global", [(C, local, 3), PARENTS], {}),
        "local_to_global_range": ("local_to_global", [(C, local, 3), PARENTS],
                                  dict(start=5, stop=60, precision="float64")),
        "global_to_local": ("global_to_local", [(C, skelsimd.local_to_global(local, PARENTS), 3),
                                                PARENTS], dict(rigid=True)),
        "multiply_joints": ("multiply_joints", [(C, local, 2), inverse_bind], {}),
        "invert_joints": ("invert_joints", [(C, local, 2)], {}),
        "qts_local_to_global": ("qts_local_to_global", [(C, qts, 2), PARENTS], {}),
        "qts_local_to_global_matrix": ("qts_local_to_global_matrix", [(C, qts, 2), PARENTS],
                                       dict(precision="float64")),
        "mat4_local_to_global": ("mat4_local_to_global",
                                 [(C, testing.random_mat4((24, J), rng), 3), PARENTS], {}),
        "matmul4": ("matmul4", [(C, m4, 2), m4[0, 0]], {}),
        "transform_points": ("transform_points", [(C, m4, 2), (C, pts, 1)], {}),
        "transform_points_3x4": ("transform_points", [local[0, :6], (C, pts, 1)], {}),
        "skinning_palette": ("skinning_palette", [(C, local, 3), PARENTS, inverse_bind], {}),
        "skin": ("skin", [positions, idx, w, (C, palette, 3)], {}),
        "skin_normals": ("skin", [positions, idx, w, (C, palette, 3)], dict(normals=normals)),
        "slerp": ("slerp", [(C, q0, 1), (C, q1, 1), (C, t, 0)], {}),
        "slerp_scalar_t": ("slerp", [(C, q0, 1), q1[0], 0.3], dict(method="exact")),
        "nlerp": ("nlerp", [(C, q0, 1), (C, q1, 1), (C, t, 0)], {}),
        "blend_joints": ("blend_joints", [(C, qts, 2), (C, qts_b, 2), (C, t[:, 0], 0)],
                         dict(index=[3, 1, 7])),
        "blend_joints_scalar_t": ("blend_joints", [(C, qts, 2), qts_b[0], 0.25],
                                  dict(method="nlerp")),
        "blend_layers": ("blend_layers", [(C, layers, 3), np.array([0.2, 0.5, 0.3])], {}),
    }


CASES = sorted(_cases(np.random.default_rng(0)))


def _chunked(args, chunks):
    """Replace ("chunk", array, core) by a dask array chunked by `chunks` along axis 0."""
    out = []
    for a in args:
        if isinstance(a, tuple) and a and isinstance(a[0], str) and a[0] == "chunk":
            x = a[1]
            out.append(da.from_array(x, chunks=(chunks,) + tuple(-1 for _ in x.shape[1:])))
        else:
            out.append(a)
    return out


def _plain(args):
    return [a[1] if isinstance(a, tuple) and a and isinstance(a[0], str) and a[0] == "chunk"
            else a for a in args]


def _compute(result):
    if isinstance(result, tuple):
        return dask.compute(*result, scheduler="threads")
    return result.compute(scheduler="threads")


def _assert_bits(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_bits(x, y)
        return
    assert a.dtype == np.float32 and a.shape == b.shape
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("chunks", [24, 1, (5, 11, 8), (23, 1)])
def test_bit_identical_to_in_memory(case, chunks, isa):
    name, args, kwargs = _cases(np.random.default_rng(1))[case]
    expected = getattr(skelsimd, name)(*_plain(args), **kwargs)
    lazy = getattr(sd, name)(*_chunked(args, chunks), **kwargs)
    first = lazy[0] if isinstance(lazy, tuple) else lazy
    assert isinstance(first, da.Array) and first.dtype == np.float32
    _assert_bits(_compute(lazy), expected)


@settings(max_examples=25)
@given(st.data())
def test_any_batch_chunking_two_batch_axes(data):
    """Two batch axes, each chunked at random; the joint axis whole."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a, b = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 6))
    local = testing.random_joints((a, b, J), rng)
    ca = data.draw(st.integers(1, a))
    cb = data.draw(st.integers(1, b))
    x = da.from_array(local, chunks=(ca, cb, J, 3, 4))
    _assert_bits(sd.local_to_global(x, PARENTS).compute(scheduler="sync"),
                 skelsimd.local_to_global(local, PARENTS))
    qts = testing.random_qts((a, b, J), rng)
    y = da.from_array(qts, chunks=(ca, cb, J, 8))
    _assert_bits(sd.qts_local_to_global_matrix(y, PARENTS).compute(scheduler="sync"),
                 skelsimd.qts_local_to_global_matrix(qts, PARENTS))


def test_batch_axes_broadcast_between_operands(rng):
    """(1, N) against (M, 1) batch axes, as NumPy broadcasting does."""
    q0 = _unit_quats((1, 40), rng)
    q1 = _unit_quats((6, 1), rng)
    t = rng.random((6, 40)).astype(np.float32)
    lazy = sd.slerp(da.from_array(q0, chunks=(1, 13, 4)), da.from_array(q1, chunks=(4, 1, 4)),
                    da.from_array(t, chunks=(3, 20)))
    assert lazy.shape == (6, 40, 4)
    _assert_bits(lazy.compute(), skelsimd.slerp(q0, q1, t))
    local = testing.random_joints((5, 1, J), rng)
    ib = testing.random_joints((3, J), rng)
    lazy = sd.skinning_palette(da.from_array(local, chunks=(2, 1, J, 3, 4)), PARENTS, ib)
    _assert_bits(lazy.compute(), skelsimd.skinning_palette(local, PARENTS, ib))


def test_skin_chunks_the_vertex_axis(rng):
    local = testing.random_joints((4, J), rng)
    palette = skelsimd.skinning_palette(local, PARENTS, testing.random_joints(J, rng))
    positions, normals, idx, w = testing.random_mesh(200, 4, J, rng)
    p, n = sd.skin(da.from_array(positions, chunks=(64, 3)), da.from_array(idx, chunks=(50, 4)),
                   da.from_array(w, chunks=(100, 4)), da.from_array(palette, chunks=(3, J, 3, 4)),
                   normals=da.from_array(normals, chunks=(128, 3)))
    assert len(p.chunks[1]) > 1          # vertex axis stays chunked
    _assert_bits(dask.compute(p, n), skelsimd.skin(positions, idx, w, palette, normals=normals))


def test_numpy_inputs_give_a_dask_array(rng):
    local = testing.random_joints((10, J), rng)
    lazy = sd.local_to_global(local, PARENTS)
    assert isinstance(lazy, da.Array)
    _assert_bits(lazy.compute(), skelsimd.local_to_global(local, PARENTS))


def test_lazy_until_computed(rng):
    """Calling the function computes nothing: a chunk that fails fails at compute time."""
    calls = []

    def chunk(block):
        calls.append(1)
        return block

    x = da.from_array(testing.random_joints((8, J), rng), chunks=(4, J, 3, 4)).map_blocks(
        chunk, meta=np.empty((0, 0, 0, 0), np.float32))
    assert calls == []
    lazy = sd.local_to_global(x, PARENTS)
    assert calls == []
    lazy.compute(scheduler="sync")
    assert len(calls) == 2


@pytest.mark.parametrize("split", [{1: 48}, {2: 2}, {1: 30, 3: 2}])
def test_split_joint_or_trailing_axis_is_rechunked_with_a_warning(rng, split):
    local = testing.random_joints((6, J), rng)
    chunks = [3, J, 3, 4]
    for axis, size in split.items():
        chunks[axis] = size
    x = da.from_array(local, chunks=tuple(chunks))
    with pytest.warns(sd.RechunkWarning) as record:
        lazy = sd.local_to_global(x, PARENTS)
    message = str(record[0].message)
    assert "local" in message and "rechunk" in message
    for axis in split:
        assert f"axis {axis - 4}" in message
    if 1 in split:
        assert "joint axis" in message
    assert lazy.chunks[1:] == ((J,), (3,), (4,)) and lazy.chunks[0] == (3, 3)
    _assert_bits(lazy.compute(), skelsimd.local_to_global(local, PARENTS))


def test_rechunk_warning_can_be_an_error(rng):
    x = da.from_array(testing.random_qts((4, J), rng), chunks=(2, 40, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("error", sd.RechunkWarning)
        with pytest.raises(sd.RechunkWarning, match="joint axis"):
            sd.qts_local_to_global(x, PARENTS)


def test_split_trailing_axis_of_a_second_operand(rng):
    q0 = _unit_quats((10,), rng)
    x = da.from_array(q0, chunks=(5, 2))
    with pytest.warns(sd.RechunkWarning, match="q1 must be one chunk"):
        lazy = sd.slerp(q0, x, 0.5)
    _assert_bits(lazy.compute(), skelsimd.slerp(q0, q0, 0.5))


# --- validation at call time, with the in-memory messages ----------------------------------------

def _message(fn, *args, **kwargs):
    with pytest.raises((TypeError, ValueError)) as info:
        fn(*args, **kwargs)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("bad", ["parents", "shape", "dtype", "precision", "range"])
def test_bad_input_raises_like_in_memory_at_call_time(rng, bad):
    local = testing.random_joints((4, J), rng)
    args, kwargs = [local, PARENTS], {}
    if bad == "parents":
        args[1] = np.r_[PARENTS[:10], 50, PARENTS[11:]]
    elif bad == "shape":
        args[0] = local[..., :3]
    elif bad == "dtype":
        args[0] = local.astype(np.complex64)
    elif bad == "precision":
        kwargs["precision"] = "float16"
    elif bad == "range":
        kwargs.update(start=50, stop=10)
    expected = _message(skelsimd.local_to_global, *args, **kwargs)
    lazy_args = [da.from_array(args[0], chunks=(2,) + args[0].shape[1:])] + args[1:]
    assert _message(sd.local_to_global, *lazy_args, **kwargs) == expected


def test_non_broadcasting_batches_name_the_operands(rng):
    q0 = da.from_array(_unit_quats((6,), rng), chunks=(3, 4))
    q1 = _unit_quats((5,), rng)
    with pytest.raises(ValueError, match=r"do not broadcast: q0 \(6,\), q1 \(5,\)"):
        sd.slerp(q0, q1, 0.5)


def test_skin_index_out_of_range(rng):
    local = testing.random_joints((2, J), rng)
    palette = da.from_array(skelsimd.local_to_global(local, PARENTS), chunks=(1, J, 3, 4))
    positions, _, idx, w = testing.random_mesh(20, 2, J, rng)
    idx[7, 1] = J
    expected = _message(skelsimd.skin, positions, idx, w, palette.compute())
    assert _message(sd.skin, positions, idx, w, palette) == expected      # NumPy indices: now
    lazy = sd.skin(positions, da.from_array(idx, chunks=(10, 2)), w, palette)   # dask: computed
    with pytest.raises(ValueError, match="vertex 7"):
        lazy.compute()


def test_blend_joints_bad_index(rng):
    qts = da.from_array(testing.random_qts((4, J), rng), chunks=(2, J, 8))
    with pytest.raises(ValueError, match="index"):
        sd.blend_joints(qts, qts, 0.5, index=[1, 1])
    with pytest.raises(ValueError, match="method"):
        sd.blend_joints(qts, qts, 0.5, method="cubic")


# --- out= ------------------------------------------------------------------------------------------

def test_out_numpy_is_filled_and_returned(rng):
    local = testing.random_joints((9, J), rng)
    out = np.full((9, J, 3, 4), np.nan, np.float32)
    res = sd.local_to_global(da.from_array(local, chunks=(4, J, 3, 4)), PARENTS, out=out)
    assert res is out
    _assert_bits(out, skelsimd.local_to_global(local, PARENTS))


@pytest.mark.parametrize("chunks", [(2, 5), (5, 2), (1, 1), (6, 5)])
def test_out_numpy_two_batch_axes_any_chunking(rng, chunks):
    """Chunks along the first axis write into contiguous views of out; along a later axis they
    are computed and copied: the same bits either way."""
    local = testing.random_qts((6, 5, J), rng)
    out = np.full((6, 5, J, 3, 4), np.nan, np.float32)
    x = da.from_array(local, chunks=chunks + (J, 8))
    assert sd.qts_local_to_global_matrix(x, PARENTS, out=out) is out
    _assert_bits(out, skelsimd.qts_local_to_global_matrix(local, PARENTS))


def test_out_in_place_on_the_array_behind_a_dask_operand(rng):
    local = testing.random_joints((9, J), rng)
    expected = skelsimd.local_to_global(local, PARENTS)
    sd.local_to_global(da.from_array(local, chunks=(4, J, 3, 4)), PARENTS, out=local)
    _assert_bits(local, expected)


def test_out_in_place_on_a_numpy_input(rng):
    local = testing.random_joints((9, J), rng)
    expected = skelsimd.local_to_global(local, PARENTS)
    res = sd.local_to_global(local, PARENTS, out=local)
    assert res is local
    _assert_bits(local, expected)


def test_skin_out_pair(rng):
    palette = skelsimd.local_to_global(testing.random_joints((3, J), rng), PARENTS)
    positions, normals, idx, w = testing.random_mesh(30, 4, J, rng)
    out, nout = np.empty((3, 30, 3), np.float32), np.empty((3, 30, 3), np.float32)
    for vchunk in (30, 7):
        out[...] = np.nan
        nout[...] = np.nan
        res = sd.skin(da.from_array(positions, chunks=(vchunk, 3)), idx, w,
                      da.from_array(palette, chunks=(2, J, 3, 4)), out=out,
                      normals=normals, normals_out=nout)
        assert res[0] is out and res[1] is nout
        _assert_bits((out, nout), skelsimd.skin(positions, idx, w, palette, normals=normals))
    with pytest.raises(ValueError, match="both out and normals_out"):
        sd.skin(positions, idx, w, palette, out=out, normals=normals)
    with pytest.raises(ValueError, match="normals_out"):
        sd.skin(positions, idx, w, palette, normals_out=nout)


def test_skin_out_pair_must_not_overlap_and_nothing_is_written(rng):
    """As in memory, out and normals_out must not share bytes: a ValueError with the in-memory
    message, raised before any chunk is computed (a release fuzz run found the error coming from
    one chunk's kernel after other chunks had written)."""
    palette = skelsimd.local_to_global(testing.random_joints((3, J), rng), PARENTS)
    positions, normals, idx, w = testing.random_mesh(30, 4, J, rng)
    pos = da.from_array(positions, chunks=(7, 3))
    same = np.full((3, 30, 3), np.nan, np.float32)
    big = np.full((3, 31, 3), np.nan, np.float32)       # out and normals_out one vertex apart
    for o, n, message in [(same, same, "normals_out: must not be the same memory as out"),
                          (big[:, :30], big[:, 1:], "normals_out: partially overlaps out")]:
        with pytest.raises(ValueError, match=message):
            with dask.config.set(scheduler="threads"):
                sd.skin(pos, idx, w, palette, out=o, normals=normals, normals_out=n)
        assert np.isnan(same).all() and np.isnan(big).all()
    with pytest.raises(ValueError, match="normals_out: must not be the same memory as out"):
        skelsimd.skin(positions, idx, w, palette, out=same, normals=normals, normals_out=same)


def test_out_zarr_array(rng, tmp_path):
    zarr = pytest.importorskip("zarr")
    local = testing.random_joints((9, J), rng)
    z = zarr.create_array(str(tmp_path / "g.zarr"), shape=(9, J, 3, 4), dtype="float32",
                          chunks=(3, J, 3, 4))
    res = sd.local_to_global(da.from_array(local, chunks=(3, J, 3, 4)), PARENTS, out=z)
    assert res is z
    _assert_bits(z[...], skelsimd.local_to_global(local, PARENTS))


def test_out_rules(rng):
    local = testing.random_joints((4, J), rng)
    x = da.from_array(local, chunks=(2, J, 3, 4))
    untouched = np.zeros((4, J, 3, 4), np.float32)
    with pytest.raises(ValueError, match=r"out: expected shape \(4, 96, 3, 4\), got \(3, 96, 3, 4\)"):
        sd.local_to_global(x, PARENTS, out=np.zeros((3, J, 3, 4), np.float32))
    with pytest.raises(TypeError, match="out: expected dtype float32, got float64"):
        sd.local_to_global(x, PARENTS, out=np.zeros((4, J, 3, 4)))
    with pytest.raises(TypeError, match="immutable"):
        sd.local_to_global(x, PARENTS, out=x)
    with pytest.raises(TypeError, match="out: expected a NumPy or Zarr array"):
        sd.local_to_global(x, PARENTS, out=[1, 2])
    ro = untouched.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        sd.local_to_global(x, PARENTS, out=ro)
    with pytest.raises(ValueError, match="overlaps"):
        sd.local_to_global(local, PARENTS, out=np.lib.stride_tricks.as_strided(
            local.reshape(-1)[12:], shape=local.shape, strides=local.strides))
    with dask.config.set(scheduler="processes"):
        with pytest.raises(ValueError, match="threaded or the synchronous scheduler"):
            sd.local_to_global(x, PARENTS, out=untouched)
    assert not untouched.any()


def test_empty_numpy_operands():
    """A NumPy operand with a zero-length axis (no joints) gives the in-memory result; dask's
    automatic chunking used to divide by zero (ZeroDivisionError) on it."""
    a = np.zeros((4, 0, 8), np.float32)
    b = da.from_array(np.zeros((4, 0, 8), np.float32), chunks=(1, 0, 8))
    got = sd.blend_joints(a, b, np.float32(0.5))
    assert got.shape == (4, 0, 8) and got.compute().shape == (4, 0, 8)
    layers = np.zeros((2, 1, 0, 8), np.float32)
    assert sd.blend_layers(layers, np.ones((1, 0), np.float32)).compute().shape == (2, 0, 8)


def test_more_than_32_dimensions_is_a_value_error():
    """The kernels take up to 64 dimensions; dask's rechunk and broadcasting stop at 32: a
    ValueError naming the operand (it was a RuntimeError from inside dask)."""
    q = np.ones((1,) * 40 + (4,), np.float32)
    with pytest.raises(ValueError, match=r"q0: skelsimd.dask takes operands of up to 32 "
                                         r"dimensions \(dask's limit\), got 41"):
        sd.nlerp(da.from_array(q), q, 0.5)
    a = np.ones((1,) * 31 + (3, 4), np.float32)
    with pytest.raises(ValueError, match="a: skelsimd.dask takes operands of up to 32"):
        sd.multiply_joints(da.from_array(a), a)
    ok = np.ones((1,) * 28 + (3, 4), np.float32)
    np.testing.assert_array_equal(sd.multiply_joints(ok, ok).compute(),
                                  skelsimd.multiply_joints(ok, ok))


def test_fuzz_catalog_covers_the_dask_kernels():
    """The registry (tests/catalog.py) fuzzes every batched kernel of skelsimd.dask."""
    import catalog
    public = {n for n in sd.arrays.__all__ if callable(getattr(sd, n)) and n[0].islower()}
    missing = public - {n[len("dask."):] for n in catalog.CATALOG if n.startswith("dask.")}
    assert not missing, f"not in the fuzz catalog: {sorted(missing)}"


def test_misaligned_numpy_out_is_filled():
    """A NumPy out whose data is not 4-byte aligned (a view at an odd byte offset): chunks whose
    region is C-contiguous went straight to the kernel, which refuses misaligned outs, after
    other chunks had been copied in (ValueError with out partly written). Now every region of
    such an out is computed and copied."""
    rng = np.random.default_rng(3)
    parents = testing.random_parents(8, rng)
    local = rng.standard_normal((4, 3, 8, 4, 4)).astype(np.float32)
    raw = np.zeros(local.nbytes + 1, np.uint8)
    out = raw[1:].view(np.float32).reshape(local.shape)
    assert not out.flags.aligned
    got = sd.mat4_local_to_global(da.from_array(local, chunks=(3, 1, 8, 4, 4)), parents, out=out)
    assert got is out
    np.testing.assert_array_equal(out, skelsimd.mat4_local_to_global(local, parents))


def test_graph_names_are_tokens_of_the_inputs():
    """Equal calls name equal graphs (dask's convention: a token of the inputs), different
    inputs different ones; a fresh uuid per call grew dask's key_split cache without bound."""
    from dask.utils import key_split
    rng = np.random.default_rng(5)
    parents = testing.chain_parents(6)
    x = da.from_array(testing.random_joints((40, 6), rng), chunks=(10, 6, 3, 4))
    a = sd.local_to_global(x, parents)
    b = sd.local_to_global(x, parents)
    assert a.name == b.name
    assert sd.local_to_global(x + 1, parents).name != a.name
    assert sd.local_to_global(x, testing.chain_parents(6)).name == a.name
    y = testing.random_joints((40, 6), rng)
    assert sd.local_to_global(y, parents).name == sd.local_to_global(y.copy(), parents).name
    y2 = y.copy()
    y2[3, 2, 0, 0] += 1
    assert sd.local_to_global(y2, parents).name != sd.local_to_global(y, parents).name
    np.testing.assert_array_equal(a.compute(), b.compute())
    before = key_split.cache_info().currsize if hasattr(key_split, "cache_info") else None
    for _ in range(200):
        sd.local_to_global(x, parents).compute(scheduler="sync")
    if before is not None:
        assert key_split.cache_info().currsize - before < 50


def test_skin_checks_a_numpy_palette_at_the_call():
    """A non-finite palette entry in any batch element of a NumPy palette raises when skin is
    called, with the in-memory message; in a dask palette, when its chunk is computed."""
    pal = np.tile(np.eye(3, 4, dtype=np.float32), (5, 4, 1, 1))
    pal[3, 2, 0, 1] = -np.inf
    pos, idx = np.zeros((10, 3), np.float32), np.zeros((10, 2), np.int32)
    w = np.full((10, 2), 0.5, np.float32)
    message = "palette: expected finite matrices, got -inf in joint 2 of palette[3]"
    with pytest.raises(ValueError) as memory:
        skelsimd.skin(pos, idx, w, pal)
    assert str(memory.value) == message
    with pytest.raises(ValueError) as call:
        sd.skin(pos, idx, w, pal)
    assert str(call.value) == message
    lazy = sd.skin(pos, idx, w, da.from_array(pal, chunks=(2, 4, 3, 4)))
    with pytest.raises(ValueError, match="palette: expected finite matrices, got -inf in joint 2"):
        lazy.compute()
