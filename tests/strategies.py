"""Hypothesis strategies and the helpers shared by the kernel and error tests: array layouts,
the documented depth bound of the walks (and of a skeleton's global positions), unit
quaternions, the bad `out` arguments and the `raises` and `raises_naming` checks of the
error-rule tests."""
import numpy as np
import pytest
from hypothesis import strategies as st

from skelsimd import testing as T
from skelsimd.bounds import FLOAT32_UNIT_ROUNDOFF, bound
from skelsimd.bounds import depth_bound as documented_depth_bound

BATCH_SHAPES = [(), (1,), (3, 5), (2,), (4,), (2, 1, 3)]

# The error-rule tests fill outputs with SENTINEL and check, after a refused call, that nothing
# was written.
SENTINEL = np.float32(-7.25)


def fresh_out(shape):
    """A float32 output of `shape` filled with SENTINEL."""
    return np.full(shape, SENTINEL, np.float32)


def untouched(out):
    """True when every element of `out` still holds SENTINEL."""
    return bool((np.asarray(out) == SENTINEL).all())


def raises(exc, words, call, *outs):
    """call() raises `exc` whose message holds every one of `words`, and every array of `outs`
    keeps its values."""
    snapshots = [np.array(o, copy=True) for o in outs]
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    for o, snap in zip(outs, snapshots):
        assert np.array_equal(np.asarray(o), snap)


BAD_OUT_KINDS = ("float64", "list", "shape", "strided", "readonly", "byteswapped")


def bad_outs(shape, wrong, kinds=BAD_OUT_KINDS + ("flat", "fortran")):
    """[(id, bad out, exception type, words of the message)] for an output of `shape`: one entry
    per kind of `kinds` ("shape" is an array of shape `wrong`), every entry filled with
    SENTINEL."""
    shape, wrong = tuple(shape), tuple(wrong)
    base = fresh_out(shape)
    readonly = base.copy()
    readonly.flags.writeable = False
    wide = np.full(shape[:-1] + (2 * shape[-1],), SENTINEL, np.float32)
    n = int(np.prod(shape))
    cases = {
        "float64": (np.full(shape, SENTINEL, np.float64), TypeError, ["out", "float32", "float64"]),
        "list": (base.tolist(), TypeError, ["out", "list"]),
        "shape": (np.full(wrong, SENTINEL, np.float32), ValueError, ["out", str(shape), str(wrong)]),
        "flat": (np.full(n, SENTINEL, np.float32), ValueError, ["out", f"({n},)"]),
        "strided": (wide[..., ::2], ValueError, ["out", "C-contiguous"]),
        "fortran": (np.asfortranarray(base), ValueError, ["out", "C-contiguous"]),
        "readonly": (readonly, ValueError, ["out", "read-only"]),
        "byteswapped": (base.astype(">f4"), TypeError, ["out", "float32"]),
    }
    return [(k,) + cases[k] for k in kinds]


def depth_bound(parents, translations):
    """The documented bound of the float32 walks for any hierarchy: (d + 1) * 2**-23 * max(1, T)
    with d the depth of `parents` and T the largest |component| of `translations` (the global
    translations of the reference)."""
    d = int(T.depths(parents).max(initial=0))
    return documented_depth_bound(d, float(np.abs(translations).max(initial=0.0)))


def position_bound(skeleton, reference):
    """The documented bound of a clip's global positions: depth_bound of its Skeleton with the
    translations of the float64 reference global matrices `reference` (..., J, 3, 4) (the
    joint family's local_to_global bound; rounding the quaternions and offsets to float32 adds
    less than one level)."""
    return depth_bound(skeleton.parents, reference[..., 3])


def unit_quaternions(shape, rng):
    """Random unit quaternions (shape + (4,)) as float32."""
    return T.random_quaternions(shape, rng).astype(np.float32)


def raises_naming(exc_type, name, call):
    """call() raises exactly exc_type (not a subclass such as OverflowError or IndexError
    would be for ValueError/LookupError) with a message that starts with `name`; returns the
    message."""
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value) is exc_type, f"{type(info.value).__name__}: {info.value}"
    assert str(info.value).startswith(name), str(info.value)
    return str(info.value)
LAYOUTS = ["contiguous", "strided", "reversed", "float64", "list"]


@st.composite
def hierarchies(draw, min_joints=1, max_joints=300):
    """parents arrays: random forests (several roots), chains as deep as J, stars, mixes."""
    n = draw(st.integers(min_joints, max_joints))
    kind = draw(st.sampled_from(["random", "chain", "star", "forest", "humanoid"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "chain":
        return T.chain_parents(n)
    if kind == "star":
        p = np.zeros(n, dtype=np.int32)
        p[0] = -1
        return p
    if kind == "forest":
        return T.random_parents(n, rng, root_probability=0.3, chain_probability=0.3)
    if kind == "humanoid":
        return T.humanoid_skeleton()[0]
    return T.random_parents(n, rng)


def with_layout(x, layout):
    """The same values as the float32 array x, presented in another memory layout."""
    x = np.asarray(x)
    if layout == "contiguous":
        return np.ascontiguousarray(x)
    if layout == "strided":
        wide = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), dtype=x.dtype)
        wide[..., ::2] = x
        return wide[..., ::2]
    if layout == "reversed":
        axis = 0
        return np.flip(np.flip(x, axis).copy(), axis)
    if layout == "float64":
        return x.astype(np.float64)
    if layout == "list":
        return x.tolist()
    raise ValueError(layout)


def global_translation_scale(reference):
    """max(1, largest |global translation| component) of a float64 pose array."""
    return max(1.0, float(np.abs(reference[..., 3]).max(initial=0.0)))


def rounded_once_bound(reference, additive=bound("walk.float64")):
    """The float64 walks' element-wise bound (precision="float64"): each element is its exact
    value rounded to float32, 2**-24 of it, up to float64 noise (`additive`)."""
    return FLOAT32_UNIT_ROUNDOFF * np.abs(reference) + additive


def examples(n):
    """hypothesis settings for a test that runs n examples under the default profiles (60
    examples per property): the count scales with the active profile, so `thorough` (1000)
    runs such a test 1000 / 60 times as long."""
    from hypothesis import settings
    return settings(max_examples=max(1, round(n * settings.default.max_examples / 60)))


def operand_rule_tests(calls, first_arg, layout):
    """The four table-driven error tests of a family's functions by name, for its test module
    to bind: ``globals().update(operand_rule_tests(CALLS, FIRST_ARG, LAYOUT))``.

    `calls`: name -> (call(first operand, out), a good first operand, the result shape);
    `first_arg`: name -> the first operand's name in messages (default "q"); `layout`: name ->
    its documented shape (default "(..., 4)")."""
    names = sorted(calls)

    @pytest.mark.parametrize("name", names)
    def test_good_call_works(name):
        call, good, shape = calls[name]
        out = fresh_out(shape)
        assert call(good, out) is out and not untouched(out)

    @pytest.mark.parametrize("name", names)
    @pytest.mark.parametrize("bad, exc, words", [
        ("complex", TypeError, ["complex64"]),
        ("strings", TypeError, ["<U1"]),
        ("object", TypeError, ["expected"]),
    ])
    def test_bad_dtype_of_the_first_operand(name, bad, exc, words):
        call, good, shape = calls[name]
        value = {"complex": good.astype(np.complex64), "strings": np.full(good.shape, "a"),
                 "object": object()}[bad]
        out = fresh_out(shape)
        with pytest.raises(exc) as info:
            call(value, out)
        msg = str(info.value)
        assert first_arg.get(name, "q") in msg and all(w in msg for w in words), msg
        assert untouched(out)

    @pytest.mark.parametrize("name", names)
    def test_bad_trailing_shape_of_the_first_operand(name):
        call, good, shape = calls[name]
        bad = np.zeros(good.shape[:-1] + (good.shape[-1] + 1,), np.float32)
        out = fresh_out(shape)
        with pytest.raises(ValueError) as info:
            call(bad, out)
        msg = str(info.value)
        assert first_arg.get(name, "q") in msg and layout.get(name, "(..., 4)") in msg, msg
        assert str(bad.shape) in msg or "parents" in msg, msg
        assert untouched(out)

    @pytest.mark.parametrize("name", names)
    @pytest.mark.parametrize("case", range(len(BAD_OUT_KINDS)), ids=BAD_OUT_KINDS)
    def test_bad_out(name, case):
        call, good, shape = calls[name]
        _, out, exc, words = bad_outs(shape, shape[:-1] + (shape[-1] + 1,), BAD_OUT_KINDS)[case]
        snapshot = np.array(out, copy=True)
        with pytest.raises(exc) as info:
            call(good, out)
        msg = str(info.value)
        assert all(w in msg for w in words), msg
        assert np.array_equal(np.asarray(out), snapshot)

    return {f.__name__: f for f in (test_good_call_works, test_bad_dtype_of_the_first_operand,
                                    test_bad_trailing_shape_of_the_first_operand, test_bad_out)}
