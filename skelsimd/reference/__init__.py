"""Float64 NumPy reference implementations of every kernel (used by the tests and benchmarks),
one module per kernel family, plus the NumPy formulations the benchmarks race against."""
from . import blend, compress, convert, joints, mat4, qts, quat, skeleton, skinning, surface  # noqa: F401
from . import additive, ik  # noqa: F401  (the engine runtime)
