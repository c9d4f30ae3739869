"""Float64 NumPy reference implementations of every kernel (the oracles the tests and the
benchmarks check results against), one module per kernel family."""
from . import (blend, compress, convert, gltf, joints, mat4, qts, quat, skeleton,  # noqa: F401
               skinning, surface)
from . import additive, ik, track  # noqa: F401  (the engine runtime)
from . import retarget  # noqa: F401  (retargeting between skeletons)
