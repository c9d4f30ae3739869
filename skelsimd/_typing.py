"""Type aliases of the public API (used by the stubs; importable by typed user code).

``Float32Array`` is what every kernel returns; ``Precision`` the ``precision=`` keyword of the
hierarchy walks. Inputs are ``numpy.typing.ArrayLike`` (a :class:`skelsimd.Skeleton` is one too,
wherever ``parents`` is taken).
"""
from typing import Literal, Optional

import numpy as np
import numpy.typing as npt

__all__ = ["Float32Array", "Float64Array", "Int32Array", "BoolArray", "Precision", "SlerpMethod",
           "BlendMethod", "Order", "Axis"]

Float32Array = npt.NDArray[np.float32]
Float64Array = npt.NDArray[np.float64]
Int32Array = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]
Precision = Optional[Literal["float32", "float64"]]
SlerpMethod = Literal["fast", "exact"]
BlendMethod = Literal["fast", "exact", "nlerp"]
Order = Literal["depth-first", "breadth-first"]
Axis = Literal["x", "y", "z"]
