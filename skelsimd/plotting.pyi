from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import NDArray

from .clip import Clip
from .skeleton import Skeleton
from .surface import Surface, plot_surface as plot_surface
from ._mesh_pictures import (MeshAnimation as MeshAnimation, animate_gltf as animate_gltf,
                             animate_mesh as animate_mesh, plot_gltf as plot_gltf,
                             plot_mesh as plot_mesh, skinned_vertices as skinned_vertices)

__all__ = ["ClipPictures", "SkeletonPictures", "SurfacePictures", "ClipAnimation",
           "plot_clip", "plot_skeleton", "animate_clip", "VIEWS", "clip_html", "skeleton_html",
           "surface_html", "plot_surface", "plot_mesh", "animate_mesh", "MeshAnimation",
           "skinned_vertices", "plot_gltf", "animate_gltf"]

VIEWS: dict[str, tuple[int, int]]

_View = Literal["front", "side", "top", "perspective"]
_FlatView = Literal["front", "side", "top"]

class ClipAnimation(FuncAnimation):
    """The animation :func:`animate_clip` returns (a matplotlib ``FuncAnimation``)."""
    def to_html(self) -> str: ...
    def frame_pixels(self) -> NDArray[np.int16]: ...
    def _repr_html_(self) -> str: ...

@overload
def plot_clip(clip: Clip, frame: int = 0, ax: None = None, *, view: _View | None = None,
              color: Any = "tab:blue") -> Figure: ...
@overload
def plot_clip(clip: Clip, frame: int, ax: Axes, *, view: _View | None = None,
              color: Any = "tab:blue") -> Axes: ...
def animate_clip(clip: Clip, *, views: _FlatView | Sequence[_FlatView] = ("front", "side"),
                 frames: slice | None = None, fps: float | None = None, color: Any = "tab:blue",
                 dpi: float = 80, size: float = 3.2) -> ClipAnimation: ...
@overload
def plot_skeleton(skeleton: Skeleton, ax: None = None, *, labels: bool | None = None,
                  view: _View | None = None, color: Any = "tab:blue") -> Figure: ...
@overload
def plot_skeleton(skeleton: Skeleton, ax: Axes, *, labels: bool | None = None,
                  view: _View | None = None, color: Any = "tab:blue") -> Axes: ...

class ClipPictures:
    @overload
    def plot(self, frame: int = 0, ax: None = None, *, view: _View | None = None,
             color: Any = "tab:blue") -> Figure: ...
    @overload
    def plot(self, frame: int, ax: Axes, *, view: _View | None = None,
             color: Any = "tab:blue") -> Axes: ...
    def animate(self, *, views: _FlatView | Sequence[_FlatView] = ("front", "side"),
                frames: slice | None = None, fps: float | None = None, color: Any = "tab:blue",
                dpi: float = 80, size: float = 3.2) -> ClipAnimation: ...
    def _repr_html_(self) -> str: ...

class SkeletonPictures:
    @overload
    def plot(self, ax: None = None, *, labels: bool | None = None, view: _View | None = None,
             color: Any = "tab:blue") -> Figure: ...
    @overload
    def plot(self, ax: Axes, *, labels: bool | None = None, view: _View | None = None,
             color: Any = "tab:blue") -> Axes: ...
    def _repr_html_(self) -> str: ...

class SurfacePictures:
    def _repr_html_(self) -> str: ...

def clip_html(clip: Clip) -> str: ...
def skeleton_html(skeleton: Skeleton) -> str: ...
def surface_html(surface: Surface) -> str: ...
