from numpy.typing import ArrayLike

from ._typing import Float32Array, Precision

__all__ = ["local_to_global", "global_to_local", "multiply_joints", "invert_joints"]

def local_to_global(local: ArrayLike, parents: ArrayLike, out: Float32Array | None = None, *,
                    start: int = 0, stop: int | None = None,
                    precision: Precision = "float32") -> Float32Array: ...
def global_to_local(global_: ArrayLike, parents: ArrayLike, out: Float32Array | None = None, *,
                    start: int = 0, stop: int | None = None, rigid: bool = False) -> Float32Array: ...
def multiply_joints(a: ArrayLike, b: ArrayLike, out: Float32Array | None = None) -> Float32Array: ...
def invert_joints(m: ArrayLike, out: Float32Array | None = None, *,
                  rigid: bool = False) -> Float32Array: ...
