import os
from typing import IO

from numpy.typing import ArrayLike

from .._typing import Float64Array
from ..clip import Clip

__all__ = ["load_bvh", "save_bvh", "rotation_to_euler"]

def load_bvh(path_or_text: str | bytes | os.PathLike[str] | IO[str] | IO[bytes], *,
             end_sites: bool = False, max_bytes: int | None = None) -> Clip: ...
def save_bvh(clip: Clip, path: str | os.PathLike[str] | IO[str],
             order: str | None = None) -> None: ...
def rotation_to_euler(r: ArrayLike, order: str) -> Float64Array: ...
