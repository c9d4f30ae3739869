from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

__all__ = ["empty_aligned", "zeros_aligned", "is_aligned"]

def empty_aligned(shape: int | tuple[int, ...], dtype: DTypeLike = ..., *,
                  align: int = 64) -> NDArray[Any]: ...
def zeros_aligned(shape: int | tuple[int, ...], dtype: DTypeLike = ..., *,
                  align: int = 64) -> NDArray[Any]: ...
def is_aligned(a: np.ndarray[Any, Any], align: int = 64) -> bool: ...
