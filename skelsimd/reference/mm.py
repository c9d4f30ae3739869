"""Float64 NumPy references for motion matching: the raw features of a frame computed from the
global poses, written frame by frame for clarity, and the brute-force search."""
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float64Array
from .qts import qts_local_to_global_matrix

__all__ = ["raw_features", "brute_force", "decay"]


def _root(m: Float64Array, up: Float64Array,
          forward: Float64Array) -> tuple[Float64Array, Float64Array]:
    """Root position and (side, up, facing) basis of a hip matrix (3, 4)."""
    f = m[:, :3] @ forward
    f = f - np.dot(f, up) * up
    f = f / np.linalg.norm(f)
    side = np.cross(up, f)
    pos = m[:, 3] - np.dot(m[:, 3], up) * up
    return pos, np.array([side, up, f])


def raw_features(local: ArrayLike, parents: ArrayLike, frame_time: float, joints: Sequence[int],
                 hip: int, offsets: Sequence[float], up: ArrayLike = (0, 1, 0),
                 forward: ArrayLike = (0, 0, 1)) -> Float64Array:
    """Raw features (rows, D) of every candidate frame of one clip (local QTS (F, J, 8)), in
    the group order foot_position, foot_velocity, hip_velocity, trajectory_position,
    trajectory_direction (see skelsimd.motion_matching)."""
    up_ = np.asarray(up, np.float64)
    forward_ = np.asarray(forward, np.float64)
    g = qts_local_to_global_matrix(np.asarray(local, np.float64), parents)
    frames = len(g)
    ks = [int(round(o / frame_time)) for o in offsets]
    rows = max(0, frames - max(ks))

    def pos(f: int, j: int) -> Float64Array:
        return g[f, j, :, 3]

    def vel(f: int, j: int) -> Float64Array:
        a, b = (f - 1, f) if f > 0 else (0, 1)
        return (pos(b, j) - pos(a, j)) / frame_time

    out = []
    for f in range(rows):
        rp, basis = _root(g[f, hip], up_, forward_)
        row: list[float] = []
        for j in joints:
            row += list(basis @ (pos(f, j) - rp))
        for j in joints:
            row += list(basis @ vel(f, j))
        row += list(basis @ vel(f, hip))
        for k in ks:
            p, _ = _root(g[f + k, hip], up_, forward_)
            row += [basis[0] @ (p - rp), basis[2] @ (p - rp)]
        for k in ks:
            _, b = _root(g[f + k, hip], up_, forward_)
            row += [basis[0] @ b[2], basis[2] @ b[2]]
        out.append(row)
    return np.array(out, dtype=np.float64).reshape(rows, -1)


def brute_force(features: ArrayLike, query: ArrayLike,
                exclude: Sequence[tuple[int, int]] = ()) -> tuple[int, float]:
    """(row, cost): the least float64 sum of squared differences, added in column order, the
    least row on ties, outside the excluded (start, stop) row ranges (-1, inf when none)."""
    f = np.asarray(features, np.float64)
    q = np.asarray(query, np.float32).astype(np.float64)
    cost = np.zeros(len(f))
    for d in range(f.shape[1]):
        cost += (f[:, d] - q[d]) ** 2
    for a, b in exclude:
        cost[a:b] = np.inf
    if not np.isfinite(cost).any():
        return -1, np.inf
    i = int(np.argmin(cost))
    return i, float(cost[i])


def decay(x: Float64Array, v: Float64Array, halflife: float,
          t: float) -> tuple[Float64Array, Float64Array]:
    """The critically damped spring's offset and velocity after t seconds (Holden,
    "Spring-It-On"): damping 4 ln 2 / halflife."""
    y = 2.0 * np.log(2.0) / halflife
    j1 = v + x * y
    e = np.exp(-y * t)
    return e * (x + j1 * t), e * (v - j1 * y * t)
