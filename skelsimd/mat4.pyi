from numpy.typing import ArrayLike

from ._typing import Float32Array, Precision

__all__ = ["matmul4", "mat4_local_to_global", "transform_points"]

def matmul4(a: ArrayLike, b: ArrayLike, out: Float32Array | None = None) -> Float32Array: ...
def mat4_local_to_global(local: ArrayLike, parents: ArrayLike, out: Float32Array | None = None, *,
                         start: int = 0, stop: int | None = None,
                         precision: Precision = "float32") -> Float32Array: ...
def transform_points(m: ArrayLike, points: ArrayLike,
                     out: Float32Array | None = None) -> Float32Array: ...
