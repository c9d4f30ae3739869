from typing import Literal

from numpy.typing import ArrayLike

from ._typing import Float32Array

__all__ = ["euler_to_quat", "quat_to_euler", "rotvec_to_quat", "quat_to_rotvec", "matrix_to_sixd",
           "sixd_to_matrix", "quat_to_sixd", "sixd_to_quat"]

_Layout = Literal["columns", "rows"]

def euler_to_quat(angles: ArrayLike, seq: str, *, degrees: bool = False,
                  scalar_first: bool = False, out: Float32Array | None = None) -> Float32Array: ...
def quat_to_euler(q: ArrayLike, seq: str, *, degrees: bool = False, scalar_first: bool = False,
                  suppress_warnings: bool = False,
                  out: Float32Array | None = None) -> Float32Array: ...
def rotvec_to_quat(rotvec: ArrayLike, out: Float32Array | None = None, *, degrees: bool = False,
                   scalar_first: bool = False) -> Float32Array: ...
def quat_to_rotvec(q: ArrayLike, out: Float32Array | None = None, *, degrees: bool = False,
                   scalar_first: bool = False) -> Float32Array: ...
def matrix_to_sixd(m: ArrayLike, out: Float32Array | None = None, *,
                   layout: _Layout = "columns") -> Float32Array: ...
def sixd_to_matrix(sixd: ArrayLike, out: Float32Array | None = None, *,
                   layout: _Layout = "columns") -> Float32Array: ...
def quat_to_sixd(q: ArrayLike, out: Float32Array | None = None, *, layout: _Layout = "columns",
                 scalar_first: bool = False) -> Float32Array: ...
def sixd_to_quat(sixd: ArrayLike, out: Float32Array | None = None, *,
                 layout: _Layout = "columns", scalar_first: bool = False) -> Float32Array: ...
