from numpy.typing import ArrayLike

from ._typing import Float32Array, Precision

__all__ = ["qts_local_to_global", "qts_local_to_global_matrix"]

def qts_local_to_global(local: ArrayLike, parents: ArrayLike, out: Float32Array | None = None, *,
                        start: int = 0, stop: int | None = None,
                        precision: Precision = "float32") -> Float32Array: ...
def qts_local_to_global_matrix(local: ArrayLike, parents: ArrayLike,
                               out: Float32Array | None = None, *, start: int = 0,
                               stop: int | None = None,
                               precision: Precision = "float32") -> Float32Array: ...
