"""Type aliases of the public API (used by the stubs; importable by typed user code).

``Float32Array`` is what every kernel returns; ``Precision`` the ``precision=`` keyword of the
hierarchy walks. Inputs are ``numpy.typing.ArrayLike`` (a :class:`skelsimd.Skeleton` is one too,
wherever ``parents`` is taken).
"""
from collections.abc import Sequence
from typing import Any, Literal, Optional, Union

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

# Private aliases shared by the annotated modules (not part of the public API).
_View = Literal["front", "side", "top", "perspective"]
_FlatView = Literal["front", "side", "top"]
_Frames = Union[int, slice, Sequence[int], npt.NDArray[np.integer[Any]], npt.NDArray[np.bool_]]
_Joint = Union[int, np.integer[Any], str]
_Shape = Union[int, tuple[int, ...]]
_Layout = Literal["columns", "rows"]
_SurfaceModel = Literal["offset", "length"]
_Topology = Literal["plane", "cylinder"]
_Preset = Literal["water", "cloth", "rubber"]
_ColorBy = Optional[Literal["y", "speed"]]
