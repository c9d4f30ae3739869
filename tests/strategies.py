"""Hypothesis strategies and array-layout helpers shared by the kernel tests."""
import numpy as np
from hypothesis import strategies as st

from skelsimd import testing as T
from skelsimd.bounds import FLOAT32_UNIT_ROUNDOFF, bound

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
