"""Pictures of skinned meshes (exported by :mod:`skelsimd.plotting`): one frame drawn with
matplotlib, and an inline player that ships the skinned vertices of every frame to a canvas.

Both draw the same way: an orthographic camera turned by ``azimuth`` about the up axis (y) and
raised by ``elevation`` (0, 0 looks at the character's front from +z), the triangles sorted
back to front (the painter's algorithm) and filled with Lambert shading (two-sided, ambient
plus diffuse from one light over the viewer's left shoulder).

A mesh is anything with ``positions``, ``normals``, ``triangles``, ``joint_indices`` and
``weights`` (an entry of ``load_gltf(...).meshes``, or the dict of
:func:`skelsimd.data.example_mesh`); the skin is an object with ``inverse_bind`` (a
``load_gltf(...).skins`` entry), a ``(J, 3, 4)`` array, or None (the inverse of the clip
skeleton's rest pose: the mesh was bound in the rest pose).
"""
from __future__ import annotations

import base64
import json
import math
import uuid
from typing import Any, Mapping, Optional, Union

import numpy as np

from ._influences import SKIN_MAX_INFLUENCES, largest_influences
from ._figures import ClipLike, frame_index, new_figure, player_html
from .joints import invert_joints, local_to_global
from .qts import qts_local_to_global_matrix
from .skinning import skin as _skin, skinning_palette

__all__ = ["skinned_vertices", "plot_mesh", "animate_mesh", "MeshAnimation", "plot_gltf",
           "animate_gltf"]

_LIGHT = np.array([-0.4, 0.6, 1.0]) / np.linalg.norm([-0.4, 0.6, 1.0])
_AMBIENT = 0.25
#: The most vertex data (float32 bytes, frames x vertices x 12) animate_mesh skins and ships.
_MAX_PLAYER_BYTES = 256 << 20


def _get(mesh: Any, key: str) -> Any:
    if isinstance(mesh, Mapping):
        return mesh.get(key)
    return getattr(mesh, key, None)


def _inverse_bind(skin: Any, clip: ClipLike) -> np.ndarray:
    skeleton = clip.skeleton
    n = len(skeleton)
    if skin is None:
        rest = skeleton.rest
        if rest is None:
            raise ValueError("skin: expected the skin (its inverse_bind) when the clip's skeleton "
                             "has no rest pose, got None")
        if rest.ndim == 2:
            g = qts_local_to_global_matrix(rest[None], skeleton)[0]
        else:
            g = local_to_global(rest, skeleton)
        return invert_joints(g)
    ib = getattr(skin, "inverse_bind", skin)
    ib = np.ascontiguousarray(ib, dtype=np.float32)
    if ib.shape != (n, 3, 4):
        raise ValueError(f"skin: expected inverse bind matrices of shape ({n}, 3, 4) (the clip's "
                         f"{n} joints), got {ib.shape}")
    return ib


def skinned_vertices(mesh: Any, skin: Any, clip: ClipLike,
                     frames: Union[int, slice] = slice(None)) -> np.ndarray:
    """The mesh's vertices ``(F, V, 3)`` float32 posed by the clip's frames (an int gives
    ``(V, 3)``): ``skin(positions, joint_indices, weights, skinning_palette(local, skeleton,
    inverse_bind))`` on the kernels.

    Examples
    --------
    >>> import skelsimd
    >>> from skelsimd._mesh_pictures import skinned_vertices  # exported by the plotting module
    >>> clip = skelsimd.data.load_example()
    >>> skinned_vertices(skelsimd.data.example_mesh(), None, clip, slice(0, 10)).shape
    (10, 800, 3)
    """
    if not isinstance(clip, ClipLike):
        raise TypeError(f"clip: expected a skelsimd.Clip, got {type(clip).__name__}")
    for key in ("positions", "joint_indices", "weights"):
        if _get(mesh, key) is None:
            raise TypeError(f"mesh: expected positions, joint_indices and weights, got "
                            f"{type(mesh).__name__} without {key}")
    ib = _inverse_bind(skin, clip)
    one = not isinstance(frames, slice)
    if one:
        f = frame_index(frames, clip.frames)
        frames = slice(f, f + 1)
    pal = skinning_palette(clip.local_matrices()[frames], clip.skeleton, ib)
    ji, w = _influences(mesh)
    out: np.ndarray = _skin(_get(mesh, "positions"), ji, w, pal)
    return out[0] if one else out


def _influences(mesh: Any) -> tuple[Any, Any]:
    """The mesh's joint indices and weights with at most 12 columns (what ``skin`` takes): with
    more, each vertex keeps its 12 largest weights (``largest_influences``: exact for a vertex
    with at most 12 non-zero weights, renormalised otherwise)."""
    ji, w = _get(mesh, "joint_indices"), _get(mesh, "weights")
    if np.ndim(w) != 2 or np.shape(w)[1] <= SKIN_MAX_INFLUENCES or np.shape(ji) != np.shape(w):
        return ji, w                              # skin checks these itself
    ji, w, _ = largest_influences(ji, w)
    return ji, w


def _camera(azimuth: float, elevation: float) -> np.ndarray:
    """The 3x3 rotation from world to camera coordinates (x right, y up, z to the viewer)."""
    a, e = math.radians(azimuth), math.radians(elevation)
    ry = np.array([[math.cos(a), 0, -math.sin(a)], [0, 1, 0], [math.sin(a), 0, math.cos(a)]])
    rx = np.array([[1, 0, 0], [0, math.cos(e), -math.sin(e)], [0, math.sin(e), math.cos(e)]])
    return np.asarray(rx @ ry)


def _angle(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                       np.floating)):
        raise TypeError(f"{name}: expected a number of degrees, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite number of degrees, got {value!r}")
    return float(value)


def _triangles(mesh: Any, vertices: int) -> np.ndarray:
    tri = np.asarray(_get(mesh, "triangles"))
    if tri.ndim != 2 or tri.shape[1] != 3 or tri.dtype.kind not in "iu":
        raise ValueError(f"mesh.triangles: expected an integer array (T, 3), got {tri.dtype} "
                         f"{tri.shape}")
    if tri.size and (tri.min() < 0 or tri.max() >= vertices):
        raise ValueError(f"mesh.triangles: expected vertex indices in [0, {vertices}), got "
                         f"{int(tri.min())} to {int(tri.max())}")
    return tri.astype(np.int32)


def _shaded(cam: np.ndarray, tri: np.ndarray, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Back-to-front order and (T, 3) shaded colours of the triangles of camera-space vertices."""
    a, b, c = cam[tri[:, 0]], cam[tri[:, 1]], cam[tri[:, 2]]
    n = np.cross(b - a, c - a)
    length = np.linalg.norm(n, axis=1)
    lam = np.abs(n @ _LIGHT) / np.where(length > 0, length, 1)
    shade = _AMBIENT + (1 - _AMBIENT) * lam
    order = np.argsort(a[:, 2] + b[:, 2] + c[:, 2], kind="stable")
    return order, np.clip(shade[:, None] * rgb[None], 0, 1)


def plot_mesh(mesh: Any, skin: Any, clip: ClipLike, frame: int = 0, ax: Any = None, *,
              azimuth: float = 30.0, elevation: float = 10.0, color: Any = "#6f9bd1") -> Any:
    """One frame of a skinned mesh, shaded (needs matplotlib).

    The vertices are skinned on the kernels (:func:`skinned_vertices`), seen through an
    orthographic camera (``azimuth`` degrees about the up axis y, ``elevation`` degrees up;
    0, 0 looks at +z's side), and the triangles filled back to front with Lambert shading.
    With ``ax=None`` returns a new figure (not registered with pyplot), else draws into the
    2-D axes and returns it. Negative frames count from the end.

    Examples
    --------
    >>> import skelsimd
    >>> from skelsimd._mesh_pictures import plot_mesh  # exported by the plotting module
    >>> fig = plot_mesh(skelsimd.data.example_mesh(), None, skelsimd.data.load_example(), 100)
    """
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgb

    f = frame_index(frame, clip.frames) if isinstance(clip, ClipLike) else frame
    az, el = _angle(azimuth, "azimuth"), _angle(elevation, "elevation")
    verts = skinned_vertices(mesh, skin, clip, f).astype(np.float64)
    tri = _triangles(mesh, len(verts))
    cam = verts @ _camera(az, el).T
    order, colors = _shaded(cam, tri, np.array(to_rgb(color)))
    polys = cam[tri[order]][..., :2]
    fig = None
    if ax is None:
        fig = new_figure(4.8, 4.8)
        ax = fig.add_subplot(1, 1, 1)
    ax.add_collection(PolyCollection(polys, facecolors=colors[order], edgecolors=colors[order],
                                     linewidths=0.3))
    lo, hi = cam[:, :2].min(0), cam[:, :2].max(0)
    mid, half = (lo + hi) / 2, max(float((hi - lo).max()) / 2 * 1.08, 1e-6)
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(f"frame {f} of {clip.frames} ({f * clip.frame_time:.3f} s), {len(verts)} "
                 f"vertices, {len(tri)} triangles", fontsize=9)
    return ax if fig is None else fig


# The mesh player's part of the inline player's script (skelsimd._figures.player_html): the
# vertices of every frame (int16) turned, sorted back to front and shaded in the browser;
# dragging on the canvas turns the camera.
_MESH_DRAW_JS = """
  function bytes(b64) {
    var s = atob(b64), u = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return u.buffer;
  }
  var P = new Int16Array(bytes(d.vertices)), T = new Int32Array(bytes(d.triangles));
  var V = d.vertex_count, NT = T.length / 3, q = 1 / d.quant, k = d.pixels;
  var X = new Float32Array(V), Y = new Float32Array(V), Z = new Float32Array(V);
  var depth = new Float32Array(NT), order = [], frame = 0, timer = null;
  var az = d.azimuth * Math.PI / 180, el = d.elevation * Math.PI / 180;
  var L = d.light, cx = canvas.width / 2, cy = canvas.height / 2;
  for (var t = 0; t < NT; t++) order.push(t);
  function draw(f) {
    frame = f; slider.value = f;
    label.textContent = "frame " + (d.first + f * d.step) + "  " + (f / d.fps).toFixed(3) + " s";
    var ca = Math.cos(az), sa = Math.sin(az), ce = Math.cos(el), se = Math.sin(el), b = f * V * 3;
    for (var v = 0; v < V; v++) {
      var x = P[b + 3 * v] * q, y = P[b + 3 * v + 1] * q, z = P[b + 3 * v + 2] * q;
      var x1 = ca * x - sa * z, z1 = sa * x + ca * z;
      X[v] = x1; Y[v] = ce * y - se * z1; Z[v] = se * y + ce * z1;
    }
    for (var t = 0; t < NT; t++) depth[t] = Z[T[3 * t]] + Z[T[3 * t + 1]] + Z[T[3 * t + 2]];
    order.sort(function (i, j) { return depth[i] - depth[j]; });   // back to front
    ctx.fillStyle = d.background; ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.lineWidth = 0.6; ctx.lineJoin = "round";
    for (var n = 0; n < NT; n++) {
      var t = order[n], i0 = T[3 * t], i1 = T[3 * t + 1], i2 = T[3 * t + 2];
      var ux = X[i1] - X[i0], uy = Y[i1] - Y[i0], uz = Z[i1] - Z[i0];
      var wx = X[i2] - X[i0], wy = Y[i2] - Y[i0], wz = Z[i2] - Z[i0];
      var nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
      var len = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
      var s = d.ambient + (1 - d.ambient) * Math.abs(nx * L[0] + ny * L[1] + nz * L[2]) / len;
      var c = "rgb(" + Math.round(s * d.color[0]) + "," + Math.round(s * d.color[1]) + "," +
              Math.round(s * d.color[2]) + ")";
      ctx.fillStyle = c; ctx.strokeStyle = c; ctx.beginPath();
      ctx.moveTo(cx + k * X[i0], cy - k * Y[i0]); ctx.lineTo(cx + k * X[i1], cy - k * Y[i1]);
      ctx.lineTo(cx + k * X[i2], cy - k * Y[i2]); ctx.closePath(); ctx.fill(); ctx.stroke();
    }
  }
"""

_MESH_START_JS = """
  var drag = null;                                  // drag to turn the camera
  canvas.onmousedown = function (e) { drag = [e.clientX, e.clientY, az, el]; };
  window.addEventListener("mouseup", function () { drag = null; });
  canvas.onmousemove = function (e) {
    if (!drag) return;
    az = drag[2] - (e.clientX - drag[0]) * 0.01;
    el = Math.max(-1.5, Math.min(1.5, drag[3] + (e.clientY - drag[1]) * 0.01));
    if (!timer) draw(frame);
  };
  draw(0);
"""


class MeshAnimation:
    """A skinned mesh played inline in Jupyter (see :func:`animate_mesh`).

    Attributes
    ----------
    vertices : ndarray, float32 (F, V, 3)
        The skinned vertices of every frame played.
    triangles : ndarray, int32 (T, 3)
    """

    def __init__(self, vertices: np.ndarray, triangles: np.ndarray, *, fps: float, first: int,
                 step: int, azimuth: float, elevation: float, color: Any, size: int) -> None:
        self.vertices = vertices
        self.triangles = triangles
        self.fps, self.first, self.step = fps, first, step
        self.azimuth, self.elevation, self.color, self.size = azimuth, elevation, color, size

    def __repr__(self) -> str:
        return (f"MeshAnimation({self.vertices.shape[0]} frames, {self.vertices.shape[1]} "
                f"vertices, {len(self.triangles)} triangles at {self.fps:.4g} fps)")

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_html(self) -> str:
        """A self-contained HTML player: a canvas and a few lines of JavaScript, with the
        vertices of every frame (int16, 1/32767 of the motion's bounding radius) and the
        triangles (int32) embedded as base64. The browser turns, sorts (back to front) and
        shades the triangles of each frame; dragging on the canvas turns the camera."""
        v = self.vertices.astype(np.float64)
        lo, hi = v.reshape(-1, 3).min(0), v.reshape(-1, 3).max(0)
        centre = (lo + hi) / 2
        radius = max(float(np.linalg.norm(v - centre, axis=-1).max()), 1e-12)
        quant = 32767 / radius
        q = np.clip(np.round((v - centre) * quant), -32767, 32767).astype("<i2")
        rgb = _rgb(self.color)
        data = {
            "vertices": base64.b64encode(q.tobytes()).decode("ascii"),
            "triangles": base64.b64encode(self.triangles.astype("<i4").tobytes()).decode("ascii"),
            "vertex_count": int(v.shape[1]), "frames": int(v.shape[0]), "quant": quant,
            "pixels": 0.48 * self.size / radius, "azimuth": self.azimuth,
            "elevation": self.elevation, "light": _LIGHT.tolist(), "ambient": _AMBIENT,
            "color": [round(255 * c) for c in rgb], "background": "#ffffff",
            "fps": float(self.fps), "first": int(self.first), "step": int(self.step),
        }
        uid = "sks-mesh-" + uuid.uuid4().hex[:12]
        canvas = (f'<canvas width="{self.size:d}" height="{self.size:d}" style="max-width: 100%; '
                  f'cursor: grab" title="drag to turn"></canvas>')
        return player_html(uid, "sks-mesh-animation", canvas, _MESH_DRAW_JS, _MESH_START_JS,
                           json.dumps(data), int(v.shape[0]))


def _rgb(color: Any) -> tuple[float, float, float]:
    if isinstance(color, str) and len(color) == 7 and color[0] == "#":
        try:
            return tuple(int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore
        except ValueError:
            pass
    try:
        from matplotlib.colors import to_rgb
    except ImportError:
        raise ValueError(f"color: expected '#rrggbb' (other colour names need matplotlib), "
                         f"got {color!r}") from None
    return to_rgb(color)


def animate_mesh(mesh: Any, skin: Any, clip: ClipLike, *, frames: Optional[slice] = None,
                 fps: Optional[float] = None, azimuth: float = 30.0, elevation: float = 10.0,
                 color: Any = "#6f9bd1", size: int = 400) -> MeshAnimation:
    """A skinned mesh that plays inline in Jupyter: the vertices of every frame are skinned on
    the kernels and shipped to a canvas player that draws the triangles shaded, back to front.

    Parameters
    ----------
    mesh, skin, clip
        See :mod:`skelsimd.plotting` (a mesh object or dict, the skin or its inverse bind
        matrices or None for the rest pose, the clip driving the skin's joints).
    frames : slice, optional
        The frames to play (default all), e.g. ``slice(0, 200, 2)``.
    fps : float, optional
        Playback rate (default: the clip's, divided by the slice step).
    azimuth, elevation : float
        The camera's starting direction in degrees (drag on the canvas to turn it).
    color : str
        The mesh's colour ('#rrggbb'; other matplotlib colours when matplotlib is there).
    size : int
        The canvas's width and height in pixels.

    Returns
    -------
    MeshAnimation
        Shown by Jupyter as the player (``to_html()``); needs no matplotlib.

    Examples
    --------
    >>> import skelsimd
    >>> from skelsimd._mesh_pictures import animate_mesh  # exported by the plotting module
    >>> anim = animate_mesh(skelsimd.data.example_mesh(), None, skelsimd.data.load_example(),
    ...                     frames=slice(0, 240, 4))
    >>> anim
    MeshAnimation(60 frames, 800 vertices, 1280 triangles at 30 fps)
    """
    if not isinstance(clip, ClipLike):
        raise TypeError(f"clip: expected a skelsimd.Clip, got {type(clip).__name__}")
    if frames is None:
        frames = slice(None)
    if not isinstance(frames, slice):
        raise TypeError(f"frames: expected a slice such as slice(0, 500), got "
                        f"{type(frames).__name__}")
    first, stop, step = frames.indices(clip.frames)
    count = len(range(first, stop, step))
    if count == 0:
        raise ValueError(f"frames: expected a non-empty selection, got {frames!r} of "
                         f"{clip.frames} frames")
    if fps is None:
        fps = clip.fps / abs(step)
    elif isinstance(fps, (bool, np.bool_)) or not isinstance(fps, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"fps: expected a positive number, got {type(fps).__name__}")
    elif not (fps > 0 and math.isfinite(fps)):
        raise ValueError(f"fps: expected a positive finite number, got {fps!r}")
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"size: expected an int number of pixels, got {type(size).__name__}")
    if not 16 <= size <= 4096:
        raise ValueError(f"size: expected 16 <= size <= 4096 pixels, got {size}")
    az, el = _angle(azimuth, "azimuth"), _angle(elevation, "elevation")
    _rgb(color)
    positions = _get(mesh, "positions")
    vertices = int(np.shape(positions)[0]) if positions is not None and np.ndim(positions) else 0
    size_bytes = count * vertices * 12
    if size_bytes > _MAX_PLAYER_BYTES:
        raise ValueError(f"frames: {count} frames of {vertices} vertices are "
                         f"{size_bytes / 2**20:.0f} MiB of vertices, more than the player ships "
                         f"({_MAX_PLAYER_BYTES >> 20} MiB); pass fewer frames, e.g. "
                         f"frames=slice(0, None, {-(-size_bytes // _MAX_PLAYER_BYTES)})")
    verts = skinned_vertices(mesh, skin, clip, frames)
    tri = _triangles(mesh, verts.shape[1])
    return MeshAnimation(verts, tri, fps=float(fps), first=first, step=step, azimuth=az,
                         elevation=el, color=color, size=int(size))


def _asset_parts(asset: Any, mesh: int, clip: Any) -> tuple[Any, Any, ClipLike]:
    """The mesh, its skin and the clip of a loaded glTF asset (see plot_gltf)."""
    meshes = getattr(asset, "meshes", None)
    if meshes is None or not hasattr(asset, "skins") or not hasattr(asset, "clips"):
        raise TypeError(f"asset: expected what skelsimd.load_gltf returns, got "
                        f"{type(asset).__name__}")
    if isinstance(mesh, bool) or not isinstance(mesh, (int, np.integer)):
        raise TypeError(f"mesh: expected an int index into asset.meshes, got {type(mesh).__name__}")
    if not 0 <= mesh < len(meshes):
        raise ValueError(f"mesh: expected 0 <= mesh < {len(meshes)} (the file's skinned "
                         f"meshes), got {mesh}")
    m = meshes[mesh]
    skin = asset.skins[m.skin]
    if clip is None:
        found = [c for c in asset.clips if getattr(c, "skin", None) == m.skin]
        if not found:
            raise ValueError(f"asset: no clip animates skin {m.skin} of mesh {mesh}; pass "
                             f"clip= (a Clip of the skin's skeleton)")
        return m, skin, found[0]
    if isinstance(clip, ClipLike):
        return m, skin, clip
    if isinstance(clip, bool) or not isinstance(clip, (int, np.integer)):
        raise TypeError(f"clip: expected None, an int index into asset.clips or a Clip, got "
                        f"{type(clip).__name__}")
    clips = asset.clips
    if not 0 <= clip < len(clips):
        raise ValueError(f"clip: expected 0 <= clip < {len(clips)}, got {clip}")
    if getattr(clips[clip], "skin", m.skin) != m.skin:
        raise ValueError(f"clip: asset.clips[{clip}] animates skin {clips[clip].skin}, mesh "
                         f"{mesh} is bound to skin {m.skin}")
    return m, skin, clips[clip]


def plot_gltf(asset: Any, frame: int = 0, ax: Any = None, *, mesh: int = 0, clip: Any = None,
              azimuth: float = 30.0, elevation: float = 10.0, color: Any = "#6f9bd1") -> Any:
    """:func:`plot_mesh` of a loaded glTF asset: mesh ``mesh`` (an index into
    ``asset.meshes``), its skin, and ``clip`` (None: the first clip animating that skin; an
    index into ``asset.clips``; or a Clip of the skin's skeleton)."""
    m, skin, c = _asset_parts(asset, mesh, clip)
    return plot_mesh(m, skin, c, frame, ax, azimuth=azimuth, elevation=elevation, color=color)


def animate_gltf(asset: Any, *, mesh: int = 0, clip: Any = None, frames: Optional[slice] = None,
                 fps: Optional[float] = None, azimuth: float = 30.0, elevation: float = 10.0,
                 color: Any = "#6f9bd1", size: int = 400) -> MeshAnimation:
    """:func:`animate_mesh` of a loaded glTF asset (``mesh`` and ``clip`` as in
    :func:`plot_gltf`).

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> from skelsimd._mesh_pictures import animate_gltf  # exported by the plotting module
    >>> clip = skelsimd.data.load_example()[:30]
    >>> path = skelsimd.save_gltf(os.path.join(tempfile.mkdtemp(), "walk.glb"), clip,
    ...                           mesh=skelsimd.data.example_mesh(clip.skeleton))
    >>> animate_gltf(skelsimd.load_gltf(path))
    MeshAnimation(30 frames, 800 vertices, 1280 triangles at 120 fps)
    """
    m, skin, c = _asset_parts(asset, mesh, clip)
    return animate_mesh(m, skin, c, frames=frames, fps=fps, azimuth=azimuth,
                        elevation=elevation, color=color, size=size)
