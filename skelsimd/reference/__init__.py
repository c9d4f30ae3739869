"""Float64 NumPy reference implementations of every kernel (used by the tests and benchmarks),
one module per kernel family, plus the NumPy formulations the benchmarks race against."""
from . import (blend, compress, convert, gltf, joints, mat4, qts, quat, skeleton,  # noqa: F401
               skinning, surface)
