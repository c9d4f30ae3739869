"""Arrays of other libraries: objects exposing ``__dlpack__`` or ``__array__`` (PyTorch, JAX CPU
tensors) are accepted wherever arrays are, without a copy when they are float32 and contiguous;
a tensor that requires grad is a TypeError telling to detach it. The conversion lives in one
place (``sks_any_array`` in src/_skelsimd/interop.c, reached from Python as ``_core._as_array`` /
``_core._as_float32``); these tests go through every kernel family and the Python wrappers.

A minimal DLPack producer delegating to a NumPy array stands in for a tensor library; the
torch tests run when torch is installed and skip otherwise.
"""
import numpy as np
import pytest

import skelsimd as S
from skelsimd import _core
from skelsimd import testing as T


class DLPackOnly:
    """Exposes only the DLPack protocol (no __array__), by delegating to a NumPy array."""

    def __init__(self, a, requires_grad=None):
        self._a = np.asarray(a)
        if requires_grad is not None:
            self.requires_grad = requires_grad

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class ArrayOnly:
    """Exposes only __array__ (no DLPack), optionally with a requires_grad flag."""

    def __init__(self, a, requires_grad=None):
        self._a = np.asarray(a)
        if requires_grad is not None:
            self.requires_grad = requires_grad

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


class BrokenDLPack:
    """A DLPack producer on a device NumPy cannot read."""

    def __dlpack__(self, **kwargs):
        raise BufferError("this tensor lives on device 2 (CUDA)")

    def __dlpack_device__(self):
        return (2, 0)


WRAPPERS = [DLPackOnly, ArrayOnly]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    parents, names = T.humanoid_skeleton()
    J = len(parents)
    d = dict(
        parents=np.asarray(parents, np.int32),
        local=T.random_joints((2, J), rng),
        q0=T.random_quaternions(16, rng).astype(np.float32),
        q1=T.random_quaternions(16, rng).astype(np.float32),
        t=rng.random(16).astype(np.float32),
        qts0=T.random_qts((2, J), rng),
        qts1=T.random_qts((2, J), rng),
        m4=T.random_mat4((4,), rng),
        points=rng.normal(size=(4, 3)).astype(np.float32),
    )
    d["inverse_bind"] = S.invert_joints(S.local_to_global(T.random_joints(J, rng), parents), rigid=True)
    pos, normals, idx, w = T.random_mesh(50, 4, J, rng)
    d.update(positions=pos, joint_indices=idx, weights=w)
    d["index"] = np.array([3, 1, 7], np.int64)
    return d


# Every kernel family, each argument listed so that any one of them can be wrapped.
CALLS = {
    "local_to_global": (S.local_to_global, ["local", "parents"]),
    "global_to_local": (S.global_to_local, ["local", "parents"]),
    "multiply_joints": (lambda a, b: S.multiply_joints(a, b), ["local", "local"]),
    "invert_joints": (S.invert_joints, ["local"]),
    "matmul4": (S.matmul4, ["m4", "m4"]),
    "transform_points": (S.transform_points, ["m4", "points"]),
    "slerp": (S.slerp, ["q0", "q1", "t"]),
    "nlerp": (S.nlerp, ["q0", "q1", "t"]),
    "quat_multiply": (S.quat_multiply, ["q0", "q1"]),
    "quat_to_matrix": (S.quat_to_matrix, ["q0"]),
    "blend_joints": (lambda a, b, i: S.blend_joints(a, b, 0.3, index=i), ["qts0", "qts1", "index"]),
    "qts_local_to_global": (S.qts_local_to_global, ["qts0", "parents"]),
    "skinning_palette": (S.skinning_palette, ["local", "parents", "inverse_bind"]),
    "skin": (lambda p, i, w, pal: S.skin(p, i, w, pal),
             ["positions", "joint_indices", "weights", "local"]),
    "qts_pack": (lambda q, t: S.qts_pack(q, t), ["q0", "points"]),
}


def _call(data, name, wrap_at=None, wrapper=None):
    func, keys = CALLS[name]
    args = [data[k] for k in keys]
    if name == "skin":
        args[3] = S.skinning_palette(data["local"], data["parents"], data["inverse_bind"])[0]
    if name == "qts_pack":
        args[1] = np.resize(data["points"], (16, 3))
    if wrap_at is not None:
        args[wrap_at] = wrapper(args[wrap_at])
    return func(*args)


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: w.__name__)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_family_accepts_foreign_arrays(data, name, wrapper, isa):
    expected = _call(data, name)
    for k in range(len(CALLS[name][1])):
        got = _call(data, name, k, wrapper)
        assert np.array_equal(got, expected), (name, k)


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: w.__name__)
def test_no_copy_when_float32_contiguous(data, wrapper):
    a = data["local"]
    assert np.shares_memory(_core._as_float32(wrapper(a), "local"), a)
    assert np.shares_memory(_core._as_array(wrapper(a), "local"), a)
    # in place through the wrapper: out is exactly the input's memory
    x = a.copy()
    expected = S.local_to_global(x, data["parents"])
    got = S.local_to_global(wrapper(x), data["parents"], out=x)
    assert got is x and np.array_equal(x, expected)


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: w.__name__)
def test_other_dtypes_and_strides_are_converted(data, wrapper):
    a = data["local"]
    expected = S.local_to_global(a, data["parents"])
    wide = a.astype(np.float64)
    assert np.array_equal(S.local_to_global(wrapper(wide), data["parents"]), expected)
    holey = np.empty(a.shape[:-1] + (8,), np.float32)[..., ::2]     # every other column
    holey[...] = a
    assert not holey.flags.c_contiguous
    assert np.array_equal(S.local_to_global(wrapper(holey), data["parents"]), expected)
    p64 = data["parents"].astype(np.int64)
    assert np.array_equal(S.local_to_global(a, wrapper(p64)), expected)


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: w.__name__)
def test_requires_grad_is_refused_and_nothing_written(data, wrapper):
    a = data["local"]
    out = np.full_like(a, 7.0)
    with pytest.raises(TypeError) as info:
        S.local_to_global(wrapper(a, requires_grad=True), data["parents"], out=out)
    msg = str(info.value)
    assert msg.startswith("local:") and "requires grad" in msg and "detach()" in msg, msg
    assert (out == 7.0).all()
    with pytest.raises(TypeError, match=r"^parents: .*requires grad.*detach\(\)"):
        S.local_to_global(a, wrapper(data["parents"], requires_grad=True))
    with pytest.raises(TypeError, match=r"^t: .*requires grad"):
        S.slerp(data["q0"], data["q1"], wrapper(data["t"], requires_grad=True))
    # requires_grad False is an ordinary array
    assert np.array_equal(S.local_to_global(wrapper(a, requires_grad=False), data["parents"]),
                          S.local_to_global(a, data["parents"]))


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: w.__name__)
def test_python_wrappers_use_the_same_conversion(data, wrapper):
    a = data["qts0"][0]
    p = data["parents"]
    skel = S.Skeleton(wrapper(p), rest=wrapper(a))
    assert np.array_equal(skel.parents, p) and np.array_equal(skel.rest, a)
    clip = S.Clip(skel, wrapper(data["qts0"]), 1 / 30)
    assert np.array_equal(clip.local, data["qts0"])
    q, t, s = S.qts_unpack(wrapper(a))
    assert np.array_equal(q, a[:, :4]) and np.array_equal(s, a[:, 7])
    skel2, perm, _ = S.Skeleton.from_parents_any_order(wrapper(p))
    assert np.array_equal(skel2.parents, p)
    surf = S.Surface(4, 5, mass=wrapper(np.full((4, 5), 2.0)))
    assert surf.mass.shape == (4, 5)
    for call, name in [(lambda: S.Clip(skel, wrapper(data["qts0"], requires_grad=True), 0.1), "local"),
                       (lambda: S.qts_pack(wrapper(data["q0"], requires_grad=True)), "q"),
                       (lambda: S.qts_unpack(wrapper(a, requires_grad=True)), "x"),
                       (lambda: S.Skeleton(p, rest=wrapper(a, requires_grad=True)), "rest"),
                       (lambda: S.Surface(4, 5, mass=wrapper(np.ones((4, 5)), requires_grad=True)),
                        "mass")]:
        with pytest.raises(TypeError, match=rf"^{name}: .*requires grad.*detach"):
            call()


def test_unreadable_dlpack_is_a_type_error_naming_the_argument(data):
    with pytest.raises(TypeError) as info:
        S.local_to_global(BrokenDLPack(), data["parents"])
    msg = str(info.value)
    assert msg.startswith("local: expected") and "BrokenDLPack" in msg and "device 2" in msg, msg
    with pytest.raises(TypeError, match=r"^weights: expected .*BrokenDLPack"):
        S.normalize_weights(BrokenDLPack())


def test_out_must_still_be_an_ndarray(data):
    with pytest.raises(TypeError, match=r"^out: expected a numpy.ndarray"):
        S.local_to_global(data["local"], data["parents"], out=DLPackOnly(data["local"].copy()))


def test_plain_inputs_unchanged(data):
    """Lists, scalars and NumPy scalars still take NumPy's path (no requires_grad probing)."""
    q = data["q0"][0]
    assert np.array_equal(S.slerp(q.tolist(), tuple(q), np.float32(0.0)), q)
    assert np.array_equal(S.slerp(q, q, 0), q)
    with pytest.raises(TypeError, match=r"^q0: expected"):
        S.slerp(object(), q, 0.5)


# --- torch, when installed --------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="torch is optional: these tests run when it is "
                               "installed (.ci/run installs its CPU wheel)")


def test_torch_tensors(torch, data):
    a = data["local"]
    p = data["parents"]
    expected = S.local_to_global(a, p)
    ta = torch.from_numpy(a.copy())
    assert np.shares_memory(_core._as_float32(ta, "local"), ta.numpy())     # no copy
    assert np.array_equal(S.local_to_global(ta, torch.from_numpy(p.astype(np.int64))), expected)
    assert np.array_equal(S.local_to_global(ta.double(), p), expected)
    assert np.array_equal(S.local_to_global(ta.transpose(0, 1).contiguous().transpose(0, 1), p),
                          expected)
    out = ta.numpy()
    assert S.local_to_global(ta, p, out=out) is out                        # in place in the tensor
    assert torch.equal(ta, torch.from_numpy(expected))
    q = S.slerp(torch.tensor(data["q0"]), torch.tensor(data["q1"]), torch.tensor(0.25))
    assert np.array_equal(q, S.slerp(data["q0"], data["q1"], 0.25))


def test_torch_requires_grad(torch, data):
    t = torch.tensor(data["q0"], requires_grad=True)
    with pytest.raises(TypeError) as info:
        S.quat_normalize(t)
    assert "requires grad" in str(info.value) and "detach()" in str(info.value)
    assert np.array_equal(S.quat_normalize(t.detach()), S.quat_normalize(data["q0"]))
    with pytest.raises(TypeError, match="requires grad"):
        S.Clip(S.Skeleton(data["parents"]), torch.tensor(data["qts0"], requires_grad=True), 0.1)


def test_torch_unsupported_dtype(torch, data):
    with pytest.raises(TypeError, match=r"^local: expected .*Tensor.*float\(\)\.cpu\(\)"):
        S.local_to_global(torch.zeros((2, 96, 3, 4), dtype=torch.bfloat16), data["parents"])
