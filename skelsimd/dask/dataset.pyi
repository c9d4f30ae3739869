# Dask and Zarr are optional extras: bags and stores are typed Any here.
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..clip import Clip

__all__ = ["ClipItem", "ClipFailure", "ClipSummary", "DatasetReport", "Resample",
           "GlobalPositions", "RootFeatures", "Compress", "default_steps", "load_compressed",
           "COMPRESSED_SUFFIX", "DEFAULT_READERS",
           "find_motion_files", "clip_name", "group_name", "check_group_name", "MAX_NAME_BYTES", "read_clip", "apply_steps", "process_clip",
           "read_clips", "write_clips", "write_clip", "build_dataset"]

_Path = str | os.PathLike[str]
_Source = _Path | Iterable[_Path]
_Readers = Mapping[str, Callable[[str], Clip]]
_Bag = Any

DEFAULT_READERS: dict[str, Callable[..., Clip]]
COMPRESSED_SUFFIX: str

def load_compressed(path: _Path, *, max_bytes: int | None = None) -> Clip: ...

@dataclass
class ClipItem:
    name: str
    path: str
    clip: Clip
    arrays: dict[str, np.ndarray[Any, Any]] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)

@dataclass(frozen=True)
class ClipFailure:
    path: str
    name: str
    stage: str
    error: str

@dataclass(frozen=True)
class ClipSummary:
    name: str
    path: str
    frames: int
    joints: int
    fps: float

@dataclass
class DatasetReport:
    store: str
    written: list[ClipSummary]
    failed: list[ClipFailure]
    seconds: float
    skipped: list[str]
    interrupted: bool
    def __init__(self, store: str, written: list[ClipSummary], failed: list[ClipFailure],
                 seconds: float, skipped: list[str] = ..., interrupted: bool = False) -> None: ...
    @property
    def ok(self) -> bool: ...
    def summary(self) -> str: ...

_Step = Callable[[ClipItem], ClipItem]

class Resample:
    name: str
    fps: float
    method: str
    def __init__(self, fps: float, method: Literal["fast", "exact", "nlerp"] = "fast") -> None: ...
    def __call__(self, item: ClipItem) -> ClipItem: ...

class GlobalPositions:
    name: str
    precision: str
    def __init__(self, precision: Literal["float32", "float64"] = "float32") -> None: ...
    def __call__(self, item: ClipItem) -> ClipItem: ...

class RootFeatures:
    name: str
    root: int
    up: str
    forward: str
    def __init__(self, root: int = 0, up: Literal["x", "y", "z"] = "y",
                 forward: Literal["x", "y", "z"] = "z") -> None: ...
    def __call__(self, item: ClipItem) -> ClipItem: ...

class Compress:
    name: str
    precision: float
    shell_distance: float
    segment_length: int
    decoded: bool
    def __init__(self, precision: float = 0.01, shell_distance: float = 3.0,
                 segment_length: int = 16, decoded: bool = False) -> None: ...
    def __call__(self, item: ClipItem) -> ClipItem: ...

def default_steps() -> list[_Step]: ...
MAX_NAME_BYTES: int
def group_name(relative: _Path) -> str: ...
def check_group_name(name: str) -> str: ...
def clip_name(path: _Path, readers: _Readers | None = None, root: _Path | None = None) -> str: ...
def find_motion_files(source: _Source, readers: _Readers | None = None) -> list[str]: ...
def read_clip(path: _Path, name: str | None = None,
              readers: _Readers | None = None) -> ClipItem | ClipFailure: ...
def apply_steps(item: ClipItem | ClipFailure,
                steps: Sequence[_Step]) -> ClipItem | ClipFailure: ...
def process_clip(path: _Path, steps: Sequence[_Step] = (), *, name: str | None = None,
                 readers: _Readers | None = None) -> ClipItem | ClipFailure: ...
def default_partition_size(count: int) -> int: ...
def read_clips(source: _Source, *, readers: _Readers | None = None,
               partition_size: int | None = None) -> _Bag: ...
def write_clip(store: Any, item: ClipItem,
               chunk_frames: int = 4096) -> ClipSummary | ClipFailure: ...
def write_clips(clips: _Bag, store: Any, *, chunk_frames: int = 4096) -> _Bag: ...
def build_dataset(source: _Source, store: Any, *, steps: Sequence[_Step] | None = None,
                  scheduler: str = "processes", workers: int | None = None,
                  progress: bool = True, overwrite: bool = False,
                  readers: _Readers | None = None, partition_size: int | None = None,
                  chunk_frames: int = 4096, resume: bool = False) -> DatasetReport: ...
