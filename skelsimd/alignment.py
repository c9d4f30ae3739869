"""Aligned allocation: a speed hint, never a requirement.

Every kernel accepts any C-contiguous float32 array (unaligned loads throughout). Arrays that
start on a 64-byte boundary (a cache line) let 3x4 joint matrices and SIMD rows avoid straddling
lines, which saves the last few percent on large batches.
"""
from __future__ import annotations
import math
import operator
import sys

import numpy as np

from ._validate import positive_int as _positive_int
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    import numpy
    from numpy.typing import DTypeLike, NDArray

__all__ = ["empty_aligned", "zeros_aligned", "is_aligned"]


def _shape(shape: Any) -> tuple[int, ...]:
    """shape as a tuple of non-negative ints (an int is a 1-D shape)."""
    dims: tuple[Any, ...]
    try:
        dims = (operator.index(shape),)
    except TypeError:
        try:
            dims = tuple(shape)
        except TypeError:
            raise TypeError(f"shape: expected an int or a sequence of ints, got "
                            f"{type(shape).__name__}") from None
    out = []
    for i, d in enumerate(dims):
        try:
            if isinstance(d, (bool, np.bool_)):
                raise TypeError
            d = operator.index(d)
        except TypeError:
            raise TypeError(f"shape[{i}]: expected an int, got {type(d).__name__}") from None
        if d < 0:
            raise ValueError(f"shape[{i}]: expected a non-negative size, got {d}")
        out.append(d)
    if len(out) > 64:
        raise ValueError(f"shape: expected at most 64 dimensions (NumPy's limit), got {len(out)}")
    return tuple(out)


def empty_aligned(
    shape: int | tuple[int, ...], dtype: DTypeLike = np.float32, *, align: int = 64
) -> NDArray[Any]:
    """An uninitialised C-contiguous array whose data starts on an ``align``-byte boundary.

    ``shape`` an int or a sequence of non-negative ints, ``align`` a power of two; TypeError /
    ValueError naming the argument otherwise (sizes beyond what an array can hold included).

    Examples
    --------
    >>> import skelsimd
    >>> a = skelsimd.empty_aligned((1000, 96, 3, 4))
    >>> a.dtype, skelsimd.is_aligned(a)
    (dtype('float32'), True)
    """
    align = _positive_int(align, "align")
    if align & (align - 1) or align > 1 << 30:
        raise ValueError(f"align: expected a power of two up to 2**30, got {align}")
    try:
        dtype = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype: expected a NumPy dtype, got {dtype!r} ({exc})") from None
    shape = _shape(shape)
    if dtype.hasobject or dtype.itemsize == 0:
        raise TypeError(f"dtype: expected a fixed-size dtype without Python objects, got {dtype}")
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes + align > sys.maxsize:
        raise ValueError(f"shape: {shape} of {dtype} is {nbytes} bytes, more than an array can "
                         "hold")
    raw = np.empty(nbytes + align, dtype=np.uint8)
    offset = (-raw.ctypes.data) % align
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


def zeros_aligned(
    shape: int | tuple[int, ...], dtype: DTypeLike = np.float32, *, align: int = 64
) -> NDArray[Any]:
    """Like ``empty_aligned``, filled with zeros.

    Examples
    --------
    >>> import skelsimd
    >>> a = skelsimd.zeros_aligned(16, align=32)
    >>> float(a.sum()), skelsimd.is_aligned(a, 32)
    (0.0, True)
    """
    a = empty_aligned(shape, dtype, align=align)
    a[...] = 0
    return a


def is_aligned(a: np.ndarray[Any, Any], align: int = 64) -> bool:
    """True when the data of ``a`` starts on an ``align``-byte boundary (``align`` a positive
    int).

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> a = skelsimd.empty_aligned(64)
    >>> skelsimd.is_aligned(a), skelsimd.is_aligned(a[1:])
    (True, False)
    """
    return np.asarray(a).ctypes.data % _positive_int(align, "align") == 0
