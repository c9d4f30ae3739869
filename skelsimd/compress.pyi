from typing import Any, Literal, overload

from numpy.typing import ArrayLike
from typing_extensions import Self

from . import _core
from ._typing import BoolArray, Float64Array
from .clip import Clip
from .skeleton import Skeleton

__all__ = ["compress", "clip_error", "CompressedClip"]

def compress(clip_or_local: Clip | ArrayLike, skeleton: Skeleton | ArrayLike | None = None, *,
             sample_rate: float | None = None, precision: float = 0.01,
             shell_distance: float = 3.0, segment_length: int = 16) -> CompressedClip: ...
@overload
def clip_error(raw_local: ArrayLike, decoded_local: ArrayLike, skeleton: Skeleton | ArrayLike, *,
               shell_distance: float = 3.0, per_joint: Literal[False] = False) -> float: ...
@overload
def clip_error(raw_local: ArrayLike, decoded_local: ArrayLike, skeleton: Skeleton | ArrayLike, *,
               shell_distance: float = 3.0, per_joint: Literal[True]) -> Float64Array: ...

class CompressedClip(_core.CompressedClipBase):
    skeleton: Skeleton
    precision: float
    shell_distance: float
    end_site: BoolArray
    def __init__(self, data: bytes, skeleton: Skeleton, *, precision: float,
                 shell_distance: float, max_error: float, repaired_segments: int = 0,
                 end_site: ArrayLike | None = None) -> None: ...
    @property
    def ratio(self) -> float: ...
    @property
    def duration(self) -> float: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    def to_clip(self) -> Clip: ...
    def to_bytes(self) -> bytes: ...
    @classmethod
    def from_bytes(cls, b: bytes | bytearray | memoryview) -> Self: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    def __eq__(self, other: object) -> bool: ...
    __hash__: None  # type: ignore[assignment]
