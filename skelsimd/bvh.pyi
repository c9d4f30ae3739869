import os
from collections.abc import Iterable, Sequence
from typing import IO, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from typing_extensions import Self

from ._typing import BoolArray, Float32Array, Float64Array, Order, Precision
from .clip_edit import ClipEditing
from .plotting import ClipPictures
from .skeleton import Skeleton

__all__ = ["Clip", "load_bvh", "save_bvh"]

_Frames = int | slice | Sequence[int] | NDArray[np.integer[Any]] | NDArray[np.bool_]

class Clip(ClipEditing, ClipPictures):
    skeleton: Skeleton
    local: Float32Array
    frame_time: float
    channels: tuple[tuple[str, ...], ...]
    end_site: BoolArray
    def __init__(self, skeleton: Skeleton, local: ArrayLike, frame_time: float, *,
                 channels: Iterable[Iterable[str]] | None = None,
                 end_site: ArrayLike | None = None) -> None: ...
    @property
    def frames(self) -> int: ...
    @property
    def fps(self) -> float: ...
    @property
    def duration(self) -> float: ...
    def __len__(self) -> int: ...
    def local_matrices(self) -> Float32Array: ...
    def global_matrices(self, frames: _Frames = ..., out: Float32Array | None = None, *,
                        precision: Precision = "float32") -> Float32Array: ...
    def global_positions(self, frames: _Frames = ..., *,
                         precision: Precision = "float32") -> Float32Array: ...
    def reorder(self, order: Order = "depth-first"
                ) -> tuple[Self, NDArray[np.intp], NDArray[np.intp]]: ...

def load_bvh(path_or_text: str | bytes | os.PathLike[str] | IO[str] | IO[bytes], *,
             end_sites: bool = False, max_bytes: int | None = None) -> Clip: ...
def save_bvh(clip: Clip, path: str | os.PathLike[str] | IO[str],
             order: str | None = None) -> None: ...
def rotation_to_euler(r: ArrayLike, order: str) -> Float64Array: ...
