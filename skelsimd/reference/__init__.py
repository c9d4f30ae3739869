"""Float64 NumPy reference implementations of every kernel (used by the tests and benchmarks),
one module per kernel family, plus the NumPy formulations the benchmarks race against."""
from . import joints  # noqa: F401
from . import mat4  # noqa: F401
from . import skinning  # noqa: F401
from . import skeleton  # noqa: F401
