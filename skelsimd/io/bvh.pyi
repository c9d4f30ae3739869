import os
from typing import IO

from numpy.typing import ArrayLike

from .._typing import Float64Array
from ..clip import Clip

__all__ = ["load_bvh", "save_bvh", "rotation_to_euler", "file_frame_rate", "COMMON_RATES"]

COMMON_RATES: tuple[int, ...]

def load_bvh(path: str | bytes | os.PathLike[str] | IO[str] | IO[bytes] | None = None, *,
             text: str | None = None, end_sites: bool = False,
             max_bytes: int | None = None) -> Clip: ...
def file_frame_rate(token: str) -> int | None: ...
def save_bvh(clip: Clip, path: str | os.PathLike[str] | IO[str],
             order: str | None = None) -> None: ...
def rotation_to_euler(r: ArrayLike, order: str) -> Float64Array: ...
