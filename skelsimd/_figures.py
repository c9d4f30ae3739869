"""What the pictures of :mod:`skelsimd.plotting` and of the skinned meshes share: figures made
without pyplot, frame numbers checked the same way, the inline canvas player's scaffolding (its
controls and their script), and the shape of a clip as the pictures read it.

The pictures take the model types by what they have (the protocols :class:`SkeletonLike`,
:class:`ClipLike` and :class:`SurfaceLike`, which :class:`skelsimd.Skeleton`, :class:`skelsimd.Clip`
and :class:`skelsimd.Surface` satisfy): this module and the picture modules import no model type,
not even for their annotations, so the models' one-line ``plot`` / ``animate`` / ``_repr_html_``
methods import :mod:`skelsimd.plotting` (and matplotlib, an optional dependency) when called and
the imports go one way.
"""
from __future__ import annotations

import io
import operator
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from numpy.typing import DTypeLike, NDArray

    from ._typing import BoolArray, Float32Array, Int32Array

__all__ = ["SkeletonLike", "ClipLike", "SurfaceLike", "new_figure", "frame_index", "player_html"]


class SkeletonLike(Protocol):
    """What the pictures read of a skeleton (a :class:`skelsimd.Skeleton` is one): its parents,
    names, depths, roots and rest pose."""

    @property
    def parents(self) -> Int32Array: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def depth(self) -> Int32Array: ...

    @property
    def roots(self) -> Int32Array: ...

    @property
    def is_depth_first(self) -> bool: ...

    @property
    def rest(self) -> Float32Array | None: ...

    def __len__(self) -> int: ...

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> NDArray[Any]:
        """The parents (so a skeleton is taken wherever the kernels take ``parents``)."""
        ...


@runtime_checkable
class ClipLike(Protocol):
    """What the pictures read of a clip (a :class:`skelsimd.Clip` is one): its skeleton, its
    QTS frames ``local`` ``(F, J, 8)``, the frame time, rate and channels, the local matrices
    and global positions, and a slice of its frames."""

    @property
    def skeleton(self) -> SkeletonLike: ...

    @property
    def local(self) -> Float32Array: ...

    @property
    def frame_time(self) -> float: ...

    @property
    def frames(self) -> int: ...

    @property
    def fps(self) -> float: ...

    @property
    def duration(self) -> float: ...

    @property
    def channels(self) -> tuple[tuple[str, ...], ...]: ...

    def local_matrices(self) -> Float32Array: ...

    def global_positions(self, frames: slice = ...) -> Float32Array: ...

    def __getitem__(self, key: slice) -> ClipLike: ...


class SurfaceLike(Protocol):
    """What the pictures read of a surface (a :class:`skelsimd.Surface` is one): its grid,
    state, pins and parameters."""

    @property
    def rows(self) -> int: ...

    @property
    def cols(self) -> int: ...

    @property
    def topology(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def spring_count(self) -> int: ...

    @property
    def positions(self) -> Float32Array: ...

    @property
    def velocities(self) -> Float32Array: ...

    @property
    def pinned(self) -> BoolArray: ...

    @property
    def mass(self) -> Any: ...

    @property
    def elasticity(self) -> float: ...

    @property
    def damping(self) -> float: ...

    @property
    def max_stable_dt(self) -> float: ...


_Figure: Any = None


def new_figure(width: float, height: float, dpi: float = 100) -> Figure:
    """A matplotlib Figure with an Agg canvas, not registered with pyplot. It shows itself in
    Jupyter (``_repr_png_``) even when no matplotlib backend was set up there (pyplot never
    imported); with the inline backend active, IPython's own Figure formatter draws it."""
    global _Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    if _Figure is None:
        from matplotlib.figure import Figure

        class _NotebookFigure(Figure):
            def _repr_png_(self) -> bytes:
                buf = io.BytesIO()
                self.savefig(buf, format="png")
                return buf.getvalue()

        _Figure = _NotebookFigure
    fig: Figure = _Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def frame_index(frame: Any, frames: int) -> int:
    """The frame number in ``[0, frames)`` (negative counts from the end); TypeError for a
    non-integer, ValueError out of range.

    Examples
    --------
    >>> from skelsimd._figures import frame_index
    >>> frame_index(-1, 240), frame_index(3, 240)
    (239, 3)
    """
    if isinstance(frame, (bool, np.bool_)):
        raise TypeError("frame: expected an int, got bool")
    try:
        f = operator.index(frame)
    except TypeError:
        raise TypeError(f"frame: expected an int, got {type(frame).__name__}") from None
    if not -frames <= f < frames:
        raise ValueError(f"frame: expected -{frames} <= frame < {frames} (the clip has {frames} "
                         f"frames), got {f}")
    return f % frames


# --- the inline player --------------------------------------------------------------------------
# One player for the clip animations and the skinned meshes: a canvas, previous / play / next
# buttons, a frame slider and a loop box. Each picture supplies its own ``draw(f)`` (and what it
# needs), the code that starts it, and the data (``d``: at least frames, fps, first, step).

_PLAYER_JS = """
(function () {
  var root = document.getElementById("%(id)s");
  var d = %(data)s;
  var canvas = root.querySelector("canvas"), ctx = canvas.getContext("2d");
  var slider = root.querySelector("input[type=range]"), label = root.querySelector(".sks-frame");
  var play = root.querySelector(".sks-play"), loop = root.querySelector(".sks-loop");
%(draw)s
  function step() {
    var next = frame + 1;
    if (next >= d.frames) { if (!loop.checked) { stop(); return; } next = 0; }
    draw(next);
  }
  function stop() { if (timer) clearInterval(timer); timer = null; play.textContent = "\\u25B6"; }
  play.onclick = function () {
    if (timer) { stop(); return; }
    if (frame >= d.frames - 1) draw(0);
    timer = setInterval(step, 1000 / d.fps); play.textContent = "\\u275A\\u275A";
  };
  slider.oninput = function () { stop(); draw(parseInt(slider.value)); };
  root.querySelector(".sks-prev").onclick = function () { stop(); draw(Math.max(frame - 1, 0)); };
  root.querySelector(".sks-next").onclick = function () { stop(); draw(Math.min(frame + 1, d.frames - 1)); };
%(start)s
})();
"""

_PLAYER_HTML = """<div id="%(id)s" class="%(css_class)s" style="font-family: sans-serif; font-size: 12px">
%(canvas)s<br>
<button class="sks-prev" title="previous frame">&#9664;&#9664;</button>
<button class="sks-play" title="play / pause">&#9654;</button>
<button class="sks-next" title="next frame">&#9654;&#9654;</button>
<input type="range" min="0" max="%(last)d" value="0" style="width: 50%%; vertical-align: middle">
<label><input type="checkbox" class="sks-loop" checked> loop</label>
<span class="sks-frame"></span>
</div>
<script>%(script)s</script>"""


def player_html(uid: str, css_class: str, canvas: str, draw: str, start: str,
                data: str, frames: int) -> str:
    """The self-contained HTML of a player: the element ``uid`` of class ``css_class``, the
    ``canvas`` tag, the script's ``draw`` part (it defines ``frame``, ``timer`` and
    ``draw(f)``, which sets ``frame`` and the slider and label) and ``start`` part (it draws
    the first frame), and ``data`` (JSON, the script's ``d``) of ``frames`` frames."""
    script = _PLAYER_JS % dict(id=uid, data=data, draw=draw.strip("\n"),
                               start=start.strip("\n"))
    return _PLAYER_HTML % dict(id=uid, css_class=css_class, canvas=canvas,
                               last=max(frames - 1, 0), script=script)
