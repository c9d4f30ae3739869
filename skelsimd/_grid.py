"""The geometry of a surface grid at rest, shared by :class:`skelsimd.Surface` and the test
data of :mod:`skelsimd.testing` (a leaf module: NumPy only)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ._typing import Float32Array

__all__ = ["grid_positions"]


def grid_positions(rows: int, cols: int, spacing: float, topology: str) -> Float32Array:
    """The rest positions float32 (3, rows, cols) of a surface grid: a plane in x-z at y = 0
    (``spacing`` apart; the torus's layout too), or a cylinder around the y axis whose ``cols`` columns close the
    circle with chords of length ``spacing`` (rows ``spacing`` apart in y)."""
    xyz = np.zeros((3, rows, cols), np.float64)
    r = np.arange(rows, dtype=np.float64)[:, None]
    c = np.arange(cols, dtype=np.float64)[None, :]
    if topology == "cylinder":
        radius = spacing / (2.0 * math.sin(math.pi / cols))
        angle = 2.0 * math.pi * c / cols
        xyz[0] = radius * np.cos(angle)
        xyz[1] = r * spacing
        xyz[2] = radius * np.sin(angle)
    else:
        xyz[0] = c * spacing
        xyz[2] = r * spacing
    return xyz.astype(np.float32)
