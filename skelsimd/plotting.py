"""Pictures and notebook views: stick figures of clips and skeletons, clip animations that play
inline in Jupyter, and the compact HTML summaries notebooks show for Skeleton, Clip and Surface.

matplotlib is imported only inside the drawing methods (NumPy stays the only runtime
dependency; ``pip install "skelsimd[bench]"`` brings matplotlib). Figures are made with
``matplotlib.figure.Figure``, not pyplot: nothing is kept alive in pyplot's figure registry, a
figure lives as long as the object returned (Jupyter draws a returned figure once; a script
saves it with ``fig.savefig``).

Views: motion-capture clips are y-up. "front" draws (x, y), "side" (z, y), "top" (x, z), and
"perspective" a 3-D axes with y drawn vertical.
"""
from __future__ import annotations
import base64
import html
import io
import json
import math
import uuid
from typing import TYPE_CHECKING, Any, TypeGuard, cast, overload

import numpy as np

# The model types are read through protocols (plotting never imports them, not even for its
# annotations): the models import plotting when a picture is asked for, and only that way.
from ._figures import ClipLike, SkeletonLike, SurfaceLike
from ._figures import frame_index as _frame_index
from ._figures import new_figure as _new_figure
from ._figures import player_html
from ._mesh_pictures import (MeshAnimation, animate_gltf, animate_mesh, plot_gltf,  # skinned meshes
                              plot_mesh, skinned_vertices)
from ._names import mirror_pairs as _mirror_pairs
from .joints import local_to_global
from .qts import qts_local_to_global

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from matplotlib.animation import FuncAnimation
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike, NDArray

    from ._typing import _ColorBy, _FlatView, _View

__all__ = ["ClipPictures", "SkeletonPictures", "SurfacePictures", "ClipAnimation",
           "plot_clip", "plot_skeleton", "animate_clip", "VIEWS", "clip_html", "skeleton_html",
           "gltf_asset_html", "gltf_skin_html", "gltf_mesh_html", "gltf_clip_html",
           "surface_html", "plot_surface", "plot_mesh", "animate_mesh", "MeshAnimation",
           "skinned_vertices", "plot_gltf", "animate_gltf"]

VIEWS: dict[str, tuple[int, int]] = {"front": (0, 1), "side": (2, 1), "top": (0, 2)}
_VIEW_NAMES = tuple(VIEWS) + ("perspective",)
_LABELS = "xyz"
if TYPE_CHECKING:
    _F64 = NDArray[np.float64]


# --- helpers ---------------------------------------------------------------------------------------

def _check_view(view: object, allow_3d: bool = True) -> str:
    names = _VIEW_NAMES if allow_3d else tuple(VIEWS)
    if not isinstance(view, str):
        raise TypeError(f"view: expected one of {', '.join(map(repr, names))}, got "
                        f"{type(view).__name__}")
    if view not in names:
        raise ValueError(f"view: expected one of {', '.join(map(repr, names))}, got {view!r}")
    return view


def _bones(parents: ArrayLike) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(parent, child) index arrays of the bones of a hierarchy."""
    p = np.asarray(parents)
    child = np.flatnonzero(p >= 0)
    return p[child], child


def _segments(positions: _F64, parents: ArrayLike, a: int, b: int) -> _F64:
    """(K, 2, 2) bone segments of one pose (J, 3) in the plane of axes a, b."""
    p, c = _bones(parents)
    return np.stack([positions[p][:, [a, b]], positions[c][:, [a, b]]], axis=1)


def _lines(segments: _F64) -> Sequence[Any]:
    """(K, 2, 2) segments as the sequence of lines a LineCollection takes (the array itself)."""
    return cast("Sequence[Any]", segments)


def _limits(points: _F64, a: int, b: int,
            pad: float = 0.08) -> tuple[tuple[float, float], tuple[float, float]]:
    lo, hi = points[..., [a, b]].reshape(-1, 2).min(0), points[..., [a, b]].reshape(-1, 2).max(0)
    half = max(float((hi - lo).max()) / 2 * (1 + 2 * pad), 1e-6)
    mid = (lo + hi) / 2
    return ((float(mid[0]) - half, float(mid[0]) + half),
            (float(mid[1]) - half, float(mid[1]) + half))


def _draw_view(ax: Any, positions: _F64, parents: ArrayLike, view: str, color: Any,
               extent: _F64 | None = None, lw: float = 2.0) -> None:
    """A stick figure of one pose (J, 3) in a 2-D axes; limits from `extent` (points) or it."""
    from matplotlib.collections import LineCollection
    a, b = VIEWS[view]
    ax.add_collection(LineCollection(_lines(_segments(positions, parents, a, b)), colors=color,
                                     linewidths=lw, capstyle="round"))
    ax.plot(positions[:, a], positions[:, b], "o", ms=2.5, color="0.15")
    xl, yl = _limits(positions if extent is None else extent, a, b)
    ax.set_xlim(*xl)
    ax.set_ylim(*yl)
    ax.set_aspect("equal")
    ax.set_xlabel(_LABELS[a])
    ax.set_ylabel(_LABELS[b] + (" (up)" if b == 1 else ""))
    ax.set_title(view, fontsize=9)
    ax.tick_params(labelsize=7)


def _draw_3d(ax: Any, positions: _F64, parents: ArrayLike, color: Any,
             extent: _F64 | None = None, lw: float = 2.0) -> None:
    """A stick figure in a 3-D axes, y drawn vertical (matplotlib's z)."""
    from mpl_toolkits.mplot3d.art3d import Line3DCollection  # type: ignore[import-untyped]  # mplot3d ships no types
    p, c = _bones(parents)
    xyz = positions[:, [0, 2, 1]]
    if len(c):      # a one-joint skeleton has no bones (matplotlib refuses an empty collection)
        ax.add_collection3d(Line3DCollection(np.stack([xyz[p], xyz[c]], axis=1), colors=color,
                                             linewidths=lw))
    ax.scatter(xyz[:, 0], xyz[:, 1], xyz[:, 2], s=4, color="0.15")
    pts = (positions if extent is None else extent).reshape(-1, 3)
    lo, hi = pts.min(0), pts.max(0)
    mid, half = (lo + hi) / 2, max(float((hi - lo).max()) / 2 * 1.05, 1e-6)
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[2] - half, mid[2] + half)
    ax.set_zlim(mid[1] - half, mid[1] + half)
    ax.set_xlabel("x")
    ax.set_ylabel("z")
    ax.set_zlabel("y (up)")
    ax.view_init(elev=15, azim=-60)
    ax.set_title("perspective", fontsize=9)
    ax.tick_params(labelsize=6)


def _draw_pose(positions: _F64, parents: ArrayLike, ax: Axes | None, view: str | None, title: str,
               color: Any, extent: _F64 | None = None) -> Figure | Axes:
    """One pose on `ax` (2-D or 3-D) or, with ax None, a new figure of the four views."""
    if ax is None:
        fig = _new_figure(12.8, 3.6)
        for k, name in enumerate(_VIEW_NAMES):
            if name == "perspective":
                _draw_3d(fig.add_subplot(1, 4, k + 1, projection="3d"), positions, parents,
                         color, extent)
            else:
                _draw_view(fig.add_subplot(1, 4, k + 1), positions, parents, name, color, extent)
        fig.suptitle(title, fontsize=10)
        return fig
    if getattr(ax, "name", "") == "3d":
        _draw_3d(ax, positions, parents, color, extent)
    else:
        _draw_view(ax, positions, parents, _check_view("front" if view is None else view,
                                                        allow_3d=False), color, extent)
    return ax


# --- clips ------------------------------------------------------------------------------------------


@overload
def plot_clip(clip: ClipLike, frame: int = 0, ax: None = None, *, view: _View | None = None,
              color: Any = "tab:blue") -> Figure: ...
@overload
def plot_clip(clip: ClipLike, frame: int, ax: Axes, *, view: _View | None = None,
              color: Any = "tab:blue") -> Axes: ...
def plot_clip(
    clip: ClipLike,
    frame: int = 0,
    ax: Axes | None = None,
    *,
    view: _View | None = None,
    color: Any = "tab:blue",
) -> Figure | Axes:
    """A stick figure of one frame of a clip (forward kinematics on the kernels).

    With ``ax=None``: a new figure (``matplotlib.figure.Figure``, not registered with pyplot)
    with the front, side, top and perspective views; returns the figure. With an axes: draws
    into it (a 3-D axes gets the perspective view, a 2-D one ``view``, default "front") and
    returns the axes. Negative frames count from the end.
    """
    f = _frame_index(frame, clip.frames)
    if view is not None:
        _check_view(view)
    pos = clip.global_positions(slice(f, f + 1))[0].astype(np.float64)
    title = (f"frame {f} of {clip.frames} ({f * clip.frame_time:.3f} s), "
             f"{len(clip.skeleton)} joints")
    return _draw_pose(pos, clip.skeleton.parents, ax, view, title, color)


if TYPE_CHECKING:
    class ClipAnimation(FuncAnimation):
        """The animation :func:`animate_clip` returns (a matplotlib ``FuncAnimation``)."""

        def to_html(self) -> str: ...
        def frame_pixels(self) -> NDArray[np.float64]: ...
        def _repr_html_(self) -> str: ...
else:
    class ClipAnimation:
        """Marker base replaced by the matplotlib subclass built in :func:`animate_clip`."""


# The clip player's part of the inline player's script (skelsimd._figures.player_html): the
# joints' pixel positions (int16) over the figure drawn once as a background.
_PLAYER_DRAW_JS = """
  var bytes = atob(d.xy), view = new DataView(new ArrayBuffer(bytes.length));
  for (var i = 0; i < bytes.length; i++) view.setUint8(i, bytes.charCodeAt(i));
  var per = d.joints * 2 * d.views.length, bg = new Image(), frame = 0, timer = null;
  function xy(f, v, j, k) { return view.getInt16(2 * (((f * d.views.length + v) * d.joints + j) * 2 + k), true) / d.scale; }
  function draw(f) {
    frame = f; slider.value = f;
    label.textContent = "frame " + (d.first + f * d.step) + "  " + (f / d.fps).toFixed(3) + " s";
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(bg, 0, 0);
    d.views.forEach(function (box, v) {
      ctx.save(); ctx.beginPath(); ctx.rect(box[0], box[1], box[2], box[3]); ctx.clip();
      ctx.strokeStyle = d.color; ctx.lineWidth = d.lw; ctx.lineCap = "round"; ctx.beginPath();
      for (var b = 0; b < d.parent.length; b++) {
        ctx.moveTo(xy(f, v, d.parent[b], 0), xy(f, v, d.parent[b], 1));
        ctx.lineTo(xy(f, v, d.child[b], 0), xy(f, v, d.child[b], 1));
      }
      ctx.stroke(); ctx.fillStyle = d.dot;
      for (var j = 0; j < d.joints; j++) {
        ctx.beginPath(); ctx.arc(xy(f, v, j, 0), xy(f, v, j, 1), d.r, 0, 2 * Math.PI); ctx.fill();
      }
      ctx.restore();
    });
  }
"""

_PLAYER_START_JS = """
  bg.onload = function () { draw(0); };
  bg.src = "data:image/png;base64," + d.background;
"""


def _animation_class() -> Callable[..., ClipAnimation]:
    """The FuncAnimation subclass (defined on first use: matplotlib is imported only then)."""
    global _ClipAnimation
    if _ClipAnimation is not None:
        return _ClipAnimation
    from matplotlib import rcParams
    from matplotlib.animation import FuncAnimation

    if TYPE_CHECKING:
        class _Base(ClipAnimation):      # (ClipAnimation is a FuncAnimation to the type checker)
            pass
    else:
        class _Base(FuncAnimation, ClipAnimation):
            pass

    class ClipAnimationImpl(_Base):
        """A matplotlib ``FuncAnimation`` of a clip's stick figure (see :func:`animate_clip`).

        ``save(...)``, ``to_jshtml()`` and ``to_html5_video()`` work as for any matplotlib
        animation (each frame fully drawn). In Jupyter it plays inline through
        :meth:`to_html`, which ships the joint positions instead of pictures; set
        ``matplotlib.rcParams["animation.html"]`` to "jshtml" or "html5" for matplotlib's own
        players instead.
        """

        def __init__(self, fig: Figure, update: Any, frames: int, interval: float,
                     data: dict[str, Any]) -> None:
            self._sks = data
            FuncAnimation.__init__(self, fig, update, frames=frames, interval=interval,
                                   blit=True, repeat=True)

        def _repr_html_(self) -> str:
            if rcParams["animation.html"] in ("html5", "jshtml"):
                return FuncAnimation._repr_html_(self)
            return self.to_html()

        def to_html(self) -> str:
            """A self-contained HTML player (a canvas and a few lines of JavaScript): the
            figure drawn once by matplotlib without the moving artists (axes, ticks, labels,
            as a PNG), and the joints' pixel positions of every frame (int16 at 1/8 pixel),
            drawn as the same bones and joints by the browser. Rendering costs one figure
            draw plus a NumPy transform of all frames: a 1000-frame clip takes tens of
            milliseconds, where a picture per frame takes seconds."""
            return _player_html(self)

        def frame_pixels(self) -> NDArray[np.float64]:
            """(frames, views, J, 2) pixel positions (origin top left) of every frame, as
            :meth:`to_html` ships them."""
            return _frame_pixels(self)

    _ClipAnimation = ClipAnimationImpl
    return ClipAnimationImpl


_ClipAnimation: Callable[..., ClipAnimation] | None = None


def _frame_pixels(anim: Any) -> NDArray[np.float64]:
    d = anim._sks
    fig = anim._fig
    fig.canvas.draw()
    height = fig.bbox.height
    out = np.empty((d["pos"].shape[0], len(d["axes"]), d["pos"].shape[1], 2))
    for v, (ax, (a, b)) in enumerate(zip(d["axes"], d["planes"])):
        xy = d["pos"][..., [a, b]].reshape(-1, 2)
        px = ax.transData.transform(xy).reshape(out.shape[0], out.shape[2], 2)
        out[:, v, :, 0] = px[..., 0]
        out[:, v, :, 1] = height - px[..., 1]
    return out


def _player_html(anim: Any) -> str:
    d = anim._sks
    fig = anim._fig
    for artist in d["artists"]:
        artist.set_visible(False)
    try:
        px = _frame_pixels(anim)           # draws the figure: the background, no moving artists
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=fig.dpi)
    finally:
        for artist in d["artists"]:
            artist.set_visible(True)
    anim._draw_was_started = True          # rendered (matplotlib warns about unrendered ones)
    scale = 8
    q = np.clip(np.round(px * scale), -32768, 32767).astype("<i2")
    boxes = []
    height = fig.bbox.height
    for ax in d["axes"]:
        x0, y0, w, h = ax.bbox.bounds
        boxes.append([round(x0, 2), round(height - y0 - h, 2), round(w, 2), round(h, 2)])
    parent, child = _bones(d["parents"])
    from matplotlib.colors import to_hex
    data = {
        "xy": base64.b64encode(q.tobytes()).decode("ascii"),
        "background": base64.b64encode(buf.getvalue()).decode("ascii"),
        "frames": int(px.shape[0]), "joints": int(px.shape[2]), "views": boxes,
        "parent": parent.tolist(), "child": child.tolist(), "scale": scale,
        "fps": float(d["fps"]), "first": int(d["first"]), "step": int(d["step"]),
        "color": to_hex(d["color"]), "dot": "#262626", "lw": d["lw"] * fig.dpi / 72.0,
        "r": 1.25 * fig.dpi / 72.0,
    }
    uid = "sks-anim-" + uuid.uuid4().hex[:12]
    w, h = fig.canvas.get_width_height()
    canvas = f'<canvas width="{w:d}" height="{h:d}" style="width: {w:d}px; max-width: 100%"></canvas>'
    return player_html(uid, "sks-animation", canvas, _PLAYER_DRAW_JS, _PLAYER_START_JS,
                       json.dumps(data), int(px.shape[0]))


def animate_clip(
    clip: ClipLike,
    *,
    views: _FlatView | Sequence[_FlatView] = ("front", "side"),
    frames: slice | None = None,
    fps: float | None = None,
    color: Any = "tab:blue",
    dpi: float = 80,
    size: float = 3.2,
) -> ClipAnimation:
    """A matplotlib animation of a clip's stick figure that plays inline in Jupyter.

    Parameters
    ----------
    views : sequence of {"front", "side", "top"}
        One 2-D axes per view, side by side, with fixed limits covering the whole motion.
    frames : slice, optional
        The frames to play (default all), e.g. ``slice(0, 500)`` or ``slice(None, None, 2)``.
    fps : float, optional
        Playback rate (default: the clip's own rate, divided by the slice step).
    color, dpi, size
        Bone colour; figure resolution and the size of one view in inches.

    Returns
    -------
    ClipAnimation
        A ``matplotlib.animation.FuncAnimation`` (blitting the bones, a ``LineCollection``
        per view, and the joints): ``anim.save("walk.gif")`` and ``to_jshtml()`` work as
        usual; in a notebook it displays as :meth:`ClipAnimation.to_html`, a player that
        draws the bones from the joint positions in the browser (see there). The figure is
        not registered with pyplot.
    """
    from matplotlib.collections import LineCollection
    if isinstance(views, str):
        views = (views,)
    views = tuple(views)
    if not views:
        raise ValueError("views: expected at least one of 'front', 'side', 'top', got none")
    for v in views:
        _check_view(v, allow_3d=False)
    if frames is None:
        frames = slice(None)
    if not isinstance(frames, slice):
        raise TypeError(f"frames: expected a slice such as slice(0, 500), got "
                        f"{type(frames).__name__}")
    part = clip[frames]
    if part.frames == 0:
        raise ValueError(f"frames: expected a non-empty selection, got {frames!r} of "
                         f"{clip.frames} frames")
    first = frames.indices(clip.frames)[0]
    step = frames.indices(clip.frames)[2]
    if fps is None:
        fps = part.fps
    elif isinstance(fps, (bool, np.bool_)) or not isinstance(fps, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"fps: expected a positive number, got {type(fps).__name__}")
    elif not (fps > 0 and math.isfinite(fps)):
        raise ValueError(f"fps: expected a positive finite number, got {fps!r}")
    pos = part.global_positions().astype(np.float64)            # (F, J, 3) on the kernels
    parents = clip.skeleton.parents
    lw = 2.0
    fig = _new_figure(size * len(views), size + 0.3, dpi=dpi)
    axes: list[Any] = []
    planes: list[tuple[int, int]] = []
    artists: list[Any] = []
    for k, v in enumerate(views):
        ax = fig.add_subplot(1, len(views), k + 1)
        a, b = VIEWS[v]
        xl, yl = _limits(pos, a, b)
        ax.set_xlim(*xl)
        ax.set_ylim(*yl)
        ax.set_aspect("equal")
        ax.set_xlabel(_LABELS[a])
        ax.set_ylabel(_LABELS[b] + (" (up)" if b == 1 else ""))
        ax.set_title(v, fontsize=9)
        ax.tick_params(labelsize=7)
        bones = LineCollection(_lines(_segments(pos[0], parents, a, b)), colors=color, linewidths=lw,
                               capstyle="round", animated=True)
        ax.add_collection(bones)
        dots, = ax.plot(pos[0, :, a], pos[0, :, b], "o", ms=2.5, color="0.15", animated=True)
        axes.append(ax)
        planes.append((a, b))
        artists += [bones, dots]
    caption = axes[0].text(0.0, 1.0, f"frame {first}", transform=axes[0].transAxes, fontsize=8,
                           va="bottom", animated=True)
    artists.append(caption)
    fig.canvas.draw()                  # lay the figure out once, then keep it: the player ships
    fig.set_layout_engine("none")      # pixel positions that must stay valid

    def update(f: int) -> list[Any]:
        for k, (a, b) in enumerate(planes):      # artists: bones and dots per view, caption
            artists[2 * k].set_segments(_segments(pos[f], parents, a, b))
            artists[2 * k + 1].set_data(pos[f, :, a], pos[f, :, b])
        caption.set_text(f"frame {first + f * step}  ({f / fps:.3f} s)")
        return artists

    data = dict(pos=pos, parents=parents, axes=axes, planes=planes, artists=artists,
                fps=fps, first=first, step=step, color=color, lw=lw)
    cls = _animation_class()
    return cls(fig, update, part.frames, 1000.0 / fps, data)


class ClipPictures:
    """``plot``, ``animate`` and the notebook summary of :class:`skelsimd.Clip` as a mixin (kept
    for code that used it; the methods are :class:`~skelsimd.Clip`'s own)."""

    def plot(self, frame: int = 0, ax: Axes | None = None, *, view: _View | None = None,
             color: Any = "tab:blue") -> Figure | Axes:
        """See :func:`plot_clip`."""
        return plot_clip(cast("ClipLike", self), frame, ax, view=view, color=color)

    def animate(self, **kwargs: Any) -> ClipAnimation:
        """See :func:`animate_clip`."""
        return animate_clip(cast("ClipLike", self), **kwargs)

    def _repr_html_(self) -> str:
        return clip_html(cast("ClipLike", self))


def clip_html(clip: ClipLike) -> str:
    """The HTML summary table notebooks show for a :class:`skelsimd.Clip`."""
    skel = clip.skeleton
    orders: dict[str, int] = {}
    for chans in clip.channels:
        o = "".join(c[0] for c in chans if c.endswith("rotation"))
        if o:
            orders[o] = orders.get(o, 0) + 1
    rows: list[tuple[str, str]] = [("frames", f"{clip.frames} at {clip.fps:.6g} fps ({clip.duration:.3f} s)"),
            ("joints", _names_preview(skel)),
            ("local", f"QTS {clip.local.shape} float32, {clip.local.nbytes / 1e6:.2f} MB")]
    if orders:
        rows.append(("rotation orders", ", ".join(f"{o} \u00d7 {n}" for o, n in
                                                  sorted(orders.items(), key=lambda x: -x[1]))))
    if clip.frames:
        r = clip.local[:, skel.roots[0], 4:7].astype(np.float64)
        travel = float(np.linalg.norm(np.diff(r[:, [0, 2]], axis=0), axis=1).sum())
        rows.append(("root", f"{skel.names[skel.roots[0]]!s}: travels {travel:.4g} on the "
                             f"ground, height {r[:, 1].min():.4g} to {r[:, 1].max():.4g}"))
    return _table("Clip", rows)


# --- skeletons ------------------------------------------------------------------------------------------

def _rest_positions(skeleton: SkeletonLike) -> _F64 | None:
    rest = skeleton.rest
    if rest is None:
        return None
    if rest.ndim == 2:
        return qts_local_to_global(rest, skeleton)[:, 4:7].astype(np.float64)
    return local_to_global(rest, skeleton)[..., 3].astype(np.float64)


def _tree_layout(parents: NDArray[np.integer[Any]]) -> _F64:
    """(J, 2) positions of a tree diagram: leaves spread on x in depth-first order, parents
    above the mean of their children, depth downwards."""
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        if parents[j] >= 0:
            children[parents[j]].append(j)
    x = np.zeros(n)
    depth = np.zeros(n)
    nxt = 0
    for j in range(n):
        depth[j] = depth[parents[j]] + 1 if parents[j] >= 0 else 0
    order: list[int] = []
    stack = [j for j in range(n) if parents[j] < 0][::-1]
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(children[j][::-1])
    for j in order:
        if not children[j]:
            x[j] = nxt
            nxt += 1
    for j in reversed(order):
        if children[j]:
            x[j] = np.mean([x[c] for c in children[j]])
    return np.stack([x, -depth], axis=1)


@overload
def plot_skeleton(skeleton: SkeletonLike, ax: None = None, *, labels: bool | None = None,
                  view: _View | None = None, color: Any = "tab:blue") -> Figure: ...
@overload
def plot_skeleton(skeleton: SkeletonLike, ax: Axes, *, labels: bool | None = None,
                  view: _View | None = None, color: Any = "tab:blue") -> Axes: ...
def plot_skeleton(
    skeleton: SkeletonLike,
    ax: Axes | None = None,
    *,
    labels: bool | None = None,
    view: _View | None = None,
    color: Any = "tab:blue",
) -> Figure | Axes:
    """A picture of a skeleton: its rest pose as a stick figure (front, side, top and
    perspective views with ``ax=None``; one view into ``ax``), or, without a rest pose, its
    hierarchy as a tree diagram. ``labels``: write the joint names (default: when there are
    at most 40 joints). Returns the new figure, or ``ax``."""
    n = len(skeleton)
    labels = n <= 40 if labels is None else bool(labels)
    pos = _rest_positions(skeleton)
    parents = np.asarray(skeleton.parents)
    if pos is None:
        if ax is None:
            fig = _new_figure(max(4.0, 0.28 * n), 4.0)
            target = fig.add_subplot()
        else:
            target = ax
        xy = _tree_layout(parents)
        from matplotlib.collections import LineCollection
        p, c = _bones(parents)
        target.add_collection(LineCollection(_lines(np.stack([xy[p], xy[c]], axis=1)), colors=color,
                                             linewidths=1.5))
        target.plot(xy[:, 0], xy[:, 1], "o", ms=3, color="0.15")
        if labels:
            for j, name in enumerate(skeleton.names):
                target.annotate(name, xy[j], xytext=(3, 3), textcoords="offset points",
                                fontsize=6, rotation=45, parse_math=False)
        target.set_xlim(xy[:, 0].min() - 1, xy[:, 0].max() + 1)
        target.set_ylim(xy[:, 1].min() - 0.7, 0.9)
        target.set_axis_off()
        target.set_title(f"{n} joints, no rest pose: the hierarchy", fontsize=9)
        return cast("Figure", target.figure) if ax is None else ax
    title = f"rest pose, {n} joints"
    result = _draw_pose(pos, parents, ax, view, title, color)
    if labels:
        target = cast("Figure", result).axes[0] if ax is None else ax
        if getattr(target, "name", "") != "3d":
            a, b = VIEWS["front" if (ax is None or view is None) else view]
            for j, name in enumerate(skeleton.names):
                target.annotate(name, (pos[j, a], pos[j, b]), xytext=(2, 2),
                                textcoords="offset points", fontsize=5, alpha=0.8,
                                parse_math=False)     # names are plain text, never mathtext
    return result


class SkeletonPictures:
    """``plot`` and the notebook summary of :class:`skelsimd.Skeleton` as a mixin (kept for
    code that used it; the methods are :class:`~skelsimd.Skeleton`'s own)."""

    def plot(self, ax: Axes | None = None, *, labels: bool | None = None,
             view: _View | None = None, color: Any = "tab:blue") -> Figure | Axes:
        """See :func:`plot_skeleton`."""
        return plot_skeleton(cast("SkeletonLike", self), ax, labels=labels, view=view, color=color)

    def _repr_html_(self) -> str:
        return skeleton_html(cast("SkeletonLike", self))


def skeleton_html(skeleton: SkeletonLike) -> str:
    """The HTML summary table notebooks show for a :class:`skelsimd.Skeleton`."""
    depth = int(skeleton.depth.max(initial=0))
    roots = ", ".join(skeleton.names[r] for r in skeleton.roots[:4]) + (
        ", ..." if len(skeleton.roots) > 4 else "")
    rest = skeleton.rest
    rows = [("joints", _names_preview(skeleton)),
            ("roots", f"{len(skeleton.roots)}: {roots}"),
            ("depth", f"{depth} ({'depth-first' if skeleton.is_depth_first else 'not depth-first'}"
                      " order)"),
            ("rest pose", "none" if rest is None else
             ("QTS (J, 8)" if rest.ndim == 2 else "joint matrices (J, 3, 4)")),
            ("left/right pairs", str(len(_mirror_pairs(skeleton.names))))]
    return _table("Skeleton", rows)


# --- surfaces ----------------------------------------------------------------------------------------

class SurfacePictures:
    """The notebook summary of :class:`skelsimd.Surface` as a mixin (kept for code that used
    it; the method is :class:`~skelsimd.Surface`'s own)."""

    def _repr_html_(self) -> str:
        return surface_html(cast("SurfaceLike", self))


def surface_html(surface: SurfaceLike) -> str:
    """The HTML summary table notebooks show for a :class:`skelsimd.Surface`."""
    p = surface.positions
    pinned = int(np.count_nonzero(surface.pinned))
    mass = surface.mass
    one_mass = bool(np.isscalar(mass))
    rows = [("grid", f"{surface.rows} \u00d7 {surface.cols} ({surface.topology}), "
                     f"{surface.spring_count} springs"),
            ("model", f"{surface.model}, elasticity {surface.elasticity:.4g}, damping "
                      f"{surface.damping:.4g}"),
            ("mass", f"{mass:.4g}" if one_mass else
             f"per vertex, {float(np.min(mass)):.4g} to {float(np.max(mass)):.4g}"),
            ("max stable dt", f"{surface.max_stable_dt:.4g}"),
            ("pinned", f"{pinned} of {surface.rows * surface.cols} vertices"),
            ("extent", ", ".join(f"{_LABELS[k]} {float(p[k].min()):.4g} to "
                                 f"{float(p[k].max()):.4g}" for k in range(3)))]
    return _table("Surface", rows)


# --- surfaces: the 3-D mesh ------------------------------------------------------------------------

def _is_surface(obj: object) -> TypeGuard[SurfaceLike]:
    """A :class:`skelsimd.Surface` (by what it has: plotting does not import the model types)."""
    return all(hasattr(obj, name) for name in ("positions", "velocities", "topology"))


def plot_surface(surface: SurfaceLike | ArrayLike, ax: Axes | None = None, *,
                 color_by: _ColorBy = "y", cmap: str = "viridis", **kwargs: Any) -> Axes:
    """Draw a :class:`Surface` (or positions (3, rows, cols)) as a 3-D shaded mesh.

    matplotlib is imported only when this is called (NumPy stays the only runtime dependency;
    install the ``bench`` extra). ``color_by``: ``"y"`` (height), ``"speed"`` or None. Extra
    keywords go to ``plot_surface``. The axes' y axis is drawn vertical (y is up). Returns the
    axes. With ``ax=None`` they are on a new ``matplotlib.figure.Figure`` (``ax.figure``), not
    registered with pyplot, so nothing stays alive after the caller drops it (save it with
    ``ax.figure.savefig``; it shows itself in Jupyter).
    """
    import matplotlib
    from matplotlib import colors

    if _is_surface(surface):
        P = np.asarray(surface.positions, np.float64)
        V = np.asarray(surface.velocities, np.float64)
        wrap = surface.topology == "cylinder"
    else:
        P = np.asarray(surface, np.float64)
        V = np.zeros_like(P)
        wrap = False
    if P.ndim != 3 or P.shape[0] != 3:
        raise ValueError(f"surface: expected a Surface or positions (3, rows, cols), got {P.shape}")
    if wrap:   # close the cylinder
        P = np.concatenate([P, P[:, :, :1]], axis=2)
        V = np.concatenate([V, V[:, :, :1]], axis=2)
    target: Any = ax
    if target is None:
        fig = _new_figure(6, 5)   # not registered with pyplot, like every skelsimd figure
        target = fig.add_subplot(projection="3d")
    facecolors = None
    if color_by is not None:
        if color_by == "y":
            value = P[1]
        elif color_by == "speed":
            value = np.sqrt((V * V).sum(axis=0))
        else:
            raise ValueError(f"color_by: expected 'y', 'speed' or None, got {color_by!r}")
        norm = colors.Normalize(vmin=value.min(), vmax=value.max() if value.max() > value.min() else value.min() + 1)
        facecolors = matplotlib.colormaps[cmap](norm(value))
    # matplotlib's 3-D axes have z vertical: draw (x, z, y).
    edges = P.shape[1] * P.shape[2] <= 2500          # draw the grid lines of small grids only
    options = dict(rstride=1, cstride=1, linewidth=0.2 if edges else 0.0,
                   edgecolor="k" if edges else "none", shade=facecolors is None)
    options.update(kwargs)
    target.plot_surface(P[0], P[2], P[1], facecolors=facecolors, **options)
    target.set_xlabel("x")
    target.set_ylabel("z")
    target.set_zlabel("y (up)")
    return cast("Axes", target)


# --- HTML tables ---------------------------------------------------------------------------------------

# --- glTF assets ------------------------------------------------------------------------------------

def _listed(names: Sequence[str], shown: int = 4) -> str:
    """"N: a, b, c, d, ..." with each name cut at 24 characters."""
    cut = [n if len(n) <= 24 else n[:23] + "\u2026" for n in list(names)[:shown]]
    return f"{len(names)}: " + ", ".join(cut) + (", ..." if len(names) > shown else "")


def gltf_asset_html(asset: Any) -> str:
    """The HTML summary table notebooks show for a :class:`skelsimd.io.gltf.GltfAsset`."""
    pairs = asset.clip_pairs()
    rate = asset.sample_rate
    rows = [("skins", _listed([f"{s.name} ({len(s.nodes)} joints)" for s in asset.skins])),
            ("meshes", _listed([f"{m.name} ({len(m.positions)} vertices)"
                                for m in asset.meshes])),
            ("animations", _listed([f"{a.name} ({a.duration:.3g} s)" for a in asset.animations])),
            ("clips", f"{len(pairs)} (animation, skin) pairs at "
                      f"{'each animation implied rate' if rate is None else f'{rate:g} Hz'}"
                      + (f", {len(asset.refused)} refused" if asset.refused else "")),
            ("nodes", str(len(asset.nodes)))]
    return _table("GltfAsset", rows)


def gltf_skin_html(skin: Any) -> str:
    """The HTML summary table notebooks show for a :class:`skelsimd.io.gltf.GltfSkin`."""
    rows = [("name", skin.name), ("joints", _names_preview(skin.skeleton)),
            ("nodes", _listed([str(int(n)) for n in skin.nodes], 8)),
            ("inverse_bind", f"{skin.inverse_bind.shape} float32"),
            ("rest pose", "QTS (J, 8)" if skin.skeleton.rest is not None
             and skin.skeleton.rest.ndim == 2 else "joint matrices (J, 3, 4)")]
    return _table("GltfSkin", rows)


def gltf_mesh_html(mesh: Any) -> str:
    """The HTML summary table notebooks show for a :class:`skelsimd.io.gltf.GltfMesh`."""
    p = np.asarray(mesh.positions, dtype=np.float64)
    extent = (np.ptp(p, axis=0) if len(p) else np.zeros(3))
    rows = [("name", mesh.name),
            ("node, mesh, primitive", f"{mesh.node}, {mesh.mesh}, {mesh.primitive}"),
            ("skin", str(mesh.skin)),
            ("vertices", f"{len(p)} (extent {' x '.join(f'{e:.4g}' for e in extent)})"),
            ("normals", "none" if mesh.normals is None else f"{mesh.normals.shape}"),
            ("triangles", str(len(mesh.triangles))),
            ("influences", f"{mesh.weights.shape[1]} per vertex, "
                           f"at most {int((mesh.weights != 0).sum(axis=1).max(initial=0))} "
                           "non-zero")]
    return _table("GltfMesh", rows)


def gltf_clip_html(clip: Any) -> str:
    """The HTML summary table notebooks show for a :class:`skelsimd.io.gltf.GltfClip`: the
    clip's table with its animation, skin and morph weights first."""
    morph = clip.morph_weights
    head = [("animation", str(clip.name)), ("skin", str(clip.skin)),
            ("morph weights", "none" if not morph else
             _listed([f"node {n} ({w.shape[1]})" for n, w in morph.items()]))]
    table = clip_html(clip).replace("skelsimd.Clip", "skelsimd.GltfClip", 1)
    rows = "".join(f"<tr><th style=\"text-align: left; padding-right: 1em\">{html.escape(k)}"
                   f"</th><td style=\"text-align: left\">{html.escape(v)}</td></tr>"
                   for k, v in head)
    at = table.index("</caption>") + len("</caption>")
    return table[:at] + rows + table[at:]


def _names_preview(skeleton: SkeletonLike, shown: int = 6) -> str:
    names = skeleton.names
    text = ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")
    return f"{len(names)}: {text}"


def _table(title: str, rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th style=\"text-align: left; padding-right: 1em\">{html.escape(k)}</th>"
                   f"<td style=\"text-align: left\">{html.escape(str(v))}</td></tr>"
                   for k, v in rows)
    return (f"<table class=\"skelsimd-summary\"><caption style=\"text-align: left\">"
            f"<b>skelsimd.{html.escape(title)}</b></caption>{body}</table>")
