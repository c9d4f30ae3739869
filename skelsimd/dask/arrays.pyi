# Dask is an optional extra: its arrays are typed Any here, so these stubs type-check without it.
from typing import Any

from numpy.typing import ArrayLike

from .._typing import BlendMethod, Precision, SlerpMethod

__all__ = ["RechunkWarning", "local_to_global", "global_to_local", "multiply_joints",
           "invert_joints", "qts_local_to_global", "qts_local_to_global_matrix",
           "mat4_local_to_global", "matmul4", "transform_points", "skinning_palette", "skin",
           "slerp", "nlerp", "blend_joints", "blend_layers"]

_DaskArray = Any
_Out = Any

class RechunkWarning(UserWarning): ...

def local_to_global(local: ArrayLike | _DaskArray, parents: ArrayLike, out: _Out = None, *,
                    start: int = 0, stop: int | None = None,
                    precision: Precision = "float32") -> _DaskArray: ...
def global_to_local(global_: ArrayLike | _DaskArray, parents: ArrayLike, out: _Out = None, *,
                    start: int = 0, stop: int | None = None, rigid: bool = False) -> _DaskArray: ...
def multiply_joints(a: ArrayLike | _DaskArray, b: ArrayLike | _DaskArray,
                    out: _Out = None) -> _DaskArray: ...
def invert_joints(m: ArrayLike | _DaskArray, out: _Out = None, *,
                  rigid: bool = False) -> _DaskArray: ...
def qts_local_to_global(local: ArrayLike | _DaskArray, parents: ArrayLike, out: _Out = None, *,
                        start: int = 0, stop: int | None = None,
                        precision: Precision = "float32") -> _DaskArray: ...
def qts_local_to_global_matrix(local: ArrayLike | _DaskArray, parents: ArrayLike,
                               out: _Out = None, *, start: int = 0, stop: int | None = None,
                               precision: Precision = "float32") -> _DaskArray: ...
def mat4_local_to_global(local: ArrayLike | _DaskArray, parents: ArrayLike, out: _Out = None,
                         *, start: int = 0, stop: int | None = None,
                         precision: Precision = "float32") -> _DaskArray: ...
def matmul4(a: ArrayLike | _DaskArray, b: ArrayLike | _DaskArray,
            out: _Out = None) -> _DaskArray: ...
def transform_points(m: ArrayLike | _DaskArray, points: ArrayLike | _DaskArray,
                     out: _Out = None) -> _DaskArray: ...
def skinning_palette(local: ArrayLike | _DaskArray, parents: ArrayLike,
                     inverse_bind: ArrayLike | _DaskArray, out: _Out = None, *,
                     precision: Precision = "float32") -> _DaskArray: ...
def skin(positions: ArrayLike | _DaskArray, joint_indices: ArrayLike, weights: ArrayLike,
         palette: ArrayLike | _DaskArray, out: _Out = None, *,
         normals: ArrayLike | _DaskArray | None = None, normals_out: _Out = None) -> Any: ...
def slerp(q0: ArrayLike | _DaskArray, q1: ArrayLike | _DaskArray, t: ArrayLike | _DaskArray,
          out: _Out = None, *, method: SlerpMethod = "fast") -> _DaskArray: ...
def nlerp(q0: ArrayLike | _DaskArray, q1: ArrayLike | _DaskArray, t: ArrayLike | _DaskArray,
          out: _Out = None) -> _DaskArray: ...
def blend_joints(joints: ArrayLike | _DaskArray, blend: ArrayLike | _DaskArray,
                 t: ArrayLike | _DaskArray, *, index: ArrayLike | None = None,
                 method: BlendMethod = "fast", out: _Out = None) -> _DaskArray: ...
def blend_layers(layers: ArrayLike | _DaskArray, weights: ArrayLike | _DaskArray,
                 out: _Out = None) -> _DaskArray: ...
