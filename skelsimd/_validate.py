"""Argument validators of the pure-Python layers, in one place: each returns the converted
value or raises a TypeError (wrong type) or ValueError (wrong value) whose message names the
argument, what was expected and what was given (the C glue has its own, in src/_skelsimd)."""
from __future__ import annotations

import math
import operator
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["as_int", "integer", "positive_int", "positive_number", "real", "finite", "choice",
           "number", "seconds_to_frames", "broadcast_shapes", "MAXDIMS"]

MAXDIMS = 64
"""NumPy's limit on the number of dimensions of an array (the C glue's NPY_MAXDIMS)."""


def as_int(x: Any) -> int | None:
    """``operator.index(x)`` for ints (NumPy integers and 0-d integer arrays too), else None
    (bools are not ints here)."""
    if isinstance(x, (bool, np.bool_)):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def integer(value: Any, name: str, low: int, high: int, high_from: str) -> int:
    """An int ``low <= value <= high`` (``high_from`` says where ``high`` comes from)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected an int, got bool")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}") from None
    if not low <= n <= high:
        raise ValueError(f"{name}: expected {low} <= {name} <= {high} ({high_from}), got {n}")
    return n


def positive_int(value: Any, name: str) -> int:
    """An int > 0."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected an int, got bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}") from None
    if v <= 0:
        raise ValueError(f"{name}: expected a positive int, got {v}")
    return v


def positive_number(value: Any, name: str) -> float:
    """A finite real number > 0 (Python or NumPy int or float; not bool)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"{name}: expected a positive number, got {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:   # an int beyond the float range
        v = math.inf
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{name}: expected a positive finite number, got {value!r}")
    return v


def real(x: Any, name: str, accept: Callable[[float], bool], expected: str) -> float:
    """``float(x)``, finite and ``accept``-ed (``expected`` describes what is accepted)."""
    if isinstance(x, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__}")
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__}") from None
    except OverflowError:
        raise ValueError(f"{name}: expected {expected}, got an int beyond the float range") \
            from None
    if not (math.isfinite(v) and accept(v)):
        raise ValueError(f"{name}: expected {expected}, got {v!r}")
    return v


def finite(x: Any, name: str) -> float:
    """``float(x)``, finite (bools are accepted as 0 and 1, like NumPy)."""
    try:
        if isinstance(x, (str, bytes)):
            raise TypeError
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__}") from None
    except OverflowError:   # an int beyond the float range
        raise ValueError(f"{name}: expected a finite number, got an int of "
                         f"{x.bit_length()} bits") from None
    if not math.isfinite(v):
        raise ValueError(f"{name}: expected a finite number, got {v}")
    return v


def choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of the strings ``choices``."""
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a str, got {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name}: expected one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def number(value: Any, name: str, accept: Callable[[float], bool] = lambda v: True,
           expected: str = "a finite number", kind: str = "") -> float:
    """A Python or NumPy int or float (not bool, not an array) as a finite float that ``accept``
    accepts (``expected`` says what is accepted; ``kind`` what type, in the TypeError, default
    ``expected``): an int beyond the float range is a ValueError, not float()'s
    OverflowError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"{name}: expected {kind or expected}, got {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:   # an int beyond the float range
        raise ValueError(f"{name}: expected {expected}, got an int of "
                         f"{int(value).bit_length()} bits") from None
    if not (math.isfinite(v) and accept(v)):
        raise ValueError(f"{name}: expected {expected}, got {v!r}")
    return v


def seconds_to_frames(seconds: float, frame_time: float, most: int) -> int:
    """``round(seconds / frame_time)`` frames for finite ``seconds >= 0``, at most ``most`` (a
    duration longer than the clip, up to 1e308 s, counts as the whole clip; no OverflowError
    from rounding an infinite quotient)."""
    f = seconds / frame_time
    return int(round(f)) if f < most else int(most)


def broadcast_shapes(shapes: Sequence[Sequence[int]], names: str,
                     trailing: int = 0) -> tuple[int, ...]:
    """NumPy's broadcasting of ``shapes`` without its limit of 32 dimensions (the kernels take
    up to :data:`MAXDIMS`). ValueError naming the operands (``names``) when the shapes do not
    broadcast, or when the result plus ``trailing`` dimensions would exceed NumPy's limit."""
    nd = max((len(s) for s in shapes), default=0)
    result = [1] * nd
    for s in shapes:
        for i, n in enumerate(s, nd - len(s)):
            if n != 1:
                if result[i] not in (1, n):
                    got = ", ".join(str(tuple(x)) for x in shapes)
                    raise ValueError(f"{names}: leading (batch) shapes {got} do not broadcast")
                result[i] = n
    if nd + trailing > MAXDIMS:
        raise ValueError(f"{names}: the result would have {nd + trailing} dimensions, more than "
                         f"NumPy's limit of {MAXDIMS}")
    return tuple(result)
