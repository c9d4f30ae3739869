from typing import overload

from numpy.typing import ArrayLike

from ._typing import Float32Array, Precision

__all__ = ["skinning_palette", "skin", "normalize_weights"]

def skinning_palette(local: ArrayLike, parents: ArrayLike, inverse_bind: ArrayLike,
                     out: Float32Array | None = None, *,
                     precision: Precision = "float32") -> Float32Array: ...
@overload
def skin(positions: ArrayLike, joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike,
         out: Float32Array | None = None, *, normals: None = None,
         normals_out: None = None) -> Float32Array: ...
@overload
def skin(positions: ArrayLike, joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike,
         out: Float32Array | None = None, *, normals: ArrayLike,
         normals_out: Float32Array | None = None) -> tuple[Float32Array, Float32Array]: ...
def normalize_weights(weights: ArrayLike, out: Float32Array | None = None) -> Float32Array: ...
