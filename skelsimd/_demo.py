"""``python -m skelsimd demo --out DIR``: pictures a person can look at.

* ``clip_views.png``: frames of the embedded motion-capture clip as stick figures, seen from
  the front, the side, above and in perspective (forward kinematics on the kernels).
* ``blend.png``: two frames of the clip and the blends between them (slerp of the local
  rotations, then forward kinematics).
* ``surface.png``: a cloth surface hanging from two pinned corners, hit by an effector
  (skelsimd.Surface), before, during and after the hit.

Needs matplotlib (``pip install "skelsimd[bench]"``); imported lazily.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from . import data
from .blend import blend_joints
from .qts import qts_local_to_global_matrix
from .surface import Surface

if TYPE_CHECKING:
    from types import ModuleType

    from matplotlib.axes import Axes
    from mpl_toolkits.mplot3d.axes3d import Axes3D as _Axes3D  # type: ignore[import-untyped]  # mplot3d ships no types

    from ._typing import BoolArray, Float32Array, Float64Array, Int32Array
    from .clip import Clip

    _Color = str | tuple[float, float, float, float]
    _Snapshot = tuple[str, Float32Array, Float64Array | None]

__all__ = ["run"]

# BVH clips are y-up; matplotlib's 3-D axes are z-up: plot (x, z, y).
VIEWS = [("front", 0, 1), ("side", 2, 1), ("top", 0, 2)]


def _segments(positions: Float32Array, parents: Int32Array) -> Float32Array:
    """(K, 2, 3) bone segments of one pose."""
    child = np.flatnonzero(parents >= 0)
    return np.stack([positions[parents[child]], positions[child]], axis=1)


def _draw_2d(ax: Axes, positions: Float32Array, parents: Int32Array, a: int, b: int, color: _Color,
             alpha: float = 1.0, lw: float = 2.0) -> None:
    for seg in _segments(positions, parents):
        ax.plot(seg[:, a], seg[:, b], color=color, alpha=alpha, lw=lw, solid_capstyle="round")
    ax.scatter(positions[:, a], positions[:, b], s=6, color=color, alpha=alpha, zorder=3)


def _draw_3d(ax: _Axes3D, positions: Float32Array, parents: Int32Array, color: _Color,
             alpha: float = 1.0, lw: float = 2.0) -> None:
    for seg in _segments(positions, parents):
        ax.plot(seg[:, 0], seg[:, 2], seg[:, 1], color=color, alpha=alpha, lw=lw)


def _frame_3d_axes(ax: _Axes3D, points: Float32Array) -> None:
    lo, hi = points.min(axis=0), points.max(axis=0)
    mid, half = (lo + hi) / 2, (hi - lo).max() / 2 * 1.05 + 1e-6
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[2] - half, mid[2] + half)
    ax.set_zlim(mid[1] - half, mid[1] + half)
    ax.set_xlabel("x")
    ax.set_ylabel("z")
    ax.set_zlabel("y (up)")


def clip_views(plt: ModuleType, clip: Clip, path: str, n_frames: int = 5) -> None:
    skel = clip.skeleton
    frames = np.linspace(0, clip.frames - 1, n_frames).astype(int)
    pos = clip.global_positions(frames)                       # (n, J, 3), on the kernels
    fig = plt.figure(figsize=(3.2 * n_frames, 12.5))
    pad = 0.08 * np.ptp(pos.reshape(-1, 3), axis=0).max()
    for row, (view, a, b) in enumerate(VIEWS):
        for col, f in enumerate(frames):
            ax = fig.add_subplot(4, n_frames, row * n_frames + col + 1)
            _draw_2d(ax, pos[col], skel.parents, a, b, "tab:blue")
            ax.set_xlim(pos[..., a].min() - pad, pos[..., a].max() + pad)
            ax.set_ylim(pos[..., b].min() - pad, pos[..., b].max() + pad)
            ax.set_aspect("equal")
            ax.tick_params(labelsize=6)
            ax.set_title(f"{view}, frame {f} ({f * clip.frame_time:.2f} s)", fontsize=8)
    for col, f in enumerate(frames):
        ax = fig.add_subplot(4, n_frames, 3 * n_frames + col + 1, projection="3d")
        _draw_3d(ax, pos[col], skel.parents, "tab:blue")
        _frame_3d_axes(ax, pos.reshape(-1, 3))
        ax.view_init(elev=15, azim=-60)
        ax.tick_params(labelsize=5)
        ax.set_title(f"perspective, frame {f}", fontsize=8)
    fig.suptitle(f"Embedded clip: {len(skel)} joints, {clip.frames} frames at {clip.fps:.0f} fps "
                 "(CMU mocap 131_01, excerpt)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def blend_picture(plt: ModuleType, clip: Clip, path: str, frame_a: int = 20,
                  frame_b: int | None = None,
                  steps: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0)) -> None:
    skel = clip.skeleton
    frame_b = clip.frames - 40 if frame_b is None else frame_b
    a, b = clip.local[frame_a], clip.local[frame_b]
    poses = np.stack([blend_joints(a, b, t) for t in steps])        # (S, J, 8)
    pos = qts_local_to_global_matrix(poses, skel)[..., 3]
    cmap = plt.get_cmap("coolwarm")
    fig = plt.figure(figsize=(13, 4.8))
    for k, (view, i, j) in enumerate(VIEWS[:2]):
        ax = fig.add_subplot(1, 3, k + 1)
        for s, t in enumerate(steps):
            end = t in (0.0, 1.0)
            _draw_2d(ax, pos[s], skel.parents, i, j, cmap(t), alpha=1.0 if end else 0.75,
                     lw=2.6 if end else 1.4)
        ax.set_aspect("equal")
        ax.set_title(f"{view} view", fontsize=9)
    ax = fig.add_subplot(1, 3, 3, projection="3d")
    for s, t in enumerate(steps):
        _draw_3d(ax, pos[s], skel.parents, cmap(t), lw=2.4 if t in (0.0, 1.0) else 1.2)
    _frame_3d_axes(ax, pos.reshape(-1, 3))
    ax.set_title("perspective", fontsize=9)
    fig.suptitle(f"Blend of frame {frame_a} (blue) and frame {frame_b} (red) at t = "
                 f"{', '.join(f'{t:g}' for t in steps)}: local rotations by blend_joints, then FK",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def hanging_cloth(rows: int = 24, cols: int = 24) -> tuple[Surface, list[_Snapshot]]:
    """The demo's cloth scene: a rows x cols cloth (length springs) hanging from its two top
    corners, hit by an effector, then swinging. Returns (cloth, [(title, positions, effector
    centre or None), ...]).

    Parameters in the grid's own units: with only two corners pinned, the springs at those
    corners carry the weight of the whole cloth, so gravity is scaled to the stiffness (the
    article's cloth, E = 0.9 under g = 9.81, would stretch those springs by hundreds of units).
    E = 10, g = 0.005 sags the 24 x 24 cloth by about 22 units with springs stretched by at most
    12% (tests/test_main_job.py checks it); light damping (0.99) lets it settle in a few
    thousand cheap substeps."""
    cloth = Surface(rows, cols, spacing=1.0, elasticity=10.0, damping=0.99, model="length")
    cloth.pinned[0, 0] = True
    cloth.pinned[0, cols - 1] = True
    dt = 0.5 * cloth.max_stable_dt
    gravity = (0.0, -0.005, 0.0)
    snapshots: list[_Snapshot] = []
    cloth.step(dt, 8000, gravity=gravity)                    # settle: hanging from the corners
    snapshots.append(("hanging from two pinned corners", cloth.positions.copy(), None))
    pos = cloth.positions
    center = np.array([pos[0].mean(), pos[1].mean(), pos[2].mean() - 4.0])
    for _ in range(60):                                       # the hit: a pull towards the effector
        cloth.apply_effector(center, 8.0, 0.3)
        cloth.step(dt, 1, gravity=gravity)
    snapshots.append(("hit by an effector", cloth.positions.copy(), center))
    cloth.step(dt, 150, gravity=gravity)
    snapshots.append(("swinging after the hit", cloth.positions.copy(), None))
    return cloth, snapshots


def surface_picture(plt: ModuleType, path: str, rows: int = 24, cols: int = 24) -> None:
    """A cloth hanging from two pinned corners, hit by an effector (see hanging_cloth)."""
    cloth, snapshots = hanging_cloth(rows, cols)
    fig = plt.figure(figsize=(15, 5))
    allp = np.concatenate([s[1].reshape(3, -1) for s in snapshots], axis=1).T
    for k, (title, p, eff) in enumerate(snapshots):
        ax = fig.add_subplot(1, 3, k + 1, projection="3d")
        ax.plot_surface(p[0], p[2], p[1], cmap="viridis", edgecolor="k", linewidth=0.2, alpha=0.9)
        ax.scatter(p[0][cloth.pinned], p[2][cloth.pinned], p[1][cloth.pinned], color="red", s=30)
        if eff is not None:
            ax.scatter([eff[0]], [eff[2]], [eff[1]], color="orange", s=80, marker="*")
        _frame_3d_axes(ax, allp)
        ax.view_init(elev=15, azim=-35)
        ax.set_title(title, fontsize=9)
    fig.suptitle(f"skelsimd.Surface: {rows} x {cols} cloth (length springs), pinned corners in red",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def run(out_dir: str, log: Callable[[str], object] = print) -> list[str]:
    """Render every picture into out_dir; returns the list of files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    clip = data.load_example()
    written = []
    path = os.path.join(out_dir, "clip_views.png")
    clip_views(plt, clip, path)
    written.append(path)
    path = os.path.join(out_dir, "blend.png")
    blend_picture(plt, clip, path)
    written.append(path)
    path = os.path.join(out_dir, "surface.png")
    surface_picture(plt, path)
    written.append(path)
    return written
