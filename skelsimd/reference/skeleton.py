"""Float64 references of the skeleton family, written for clarity, not speed: hierarchy orders,
subtrees, and BVH forward kinematics computed straight from the channels with Euler matrices.

These are independent of skelsimd.skeleton / skelsimd.bvh (no shared code): the tests compare
the two. The BVH reader here is token based, so it handles every file whose joint names have
no spaces (all files in tests/data), but it has none of the error reporting of load_bvh.
"""
from typing import TypedDict

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float64Array
from .quat import quat_to_matrix

__all__ = [
    "depth_first_order",
    "breadth_first_order",
    "subtree",
    "read_bvh",
    "euler_matrix",
    "bvh_global_matrices",
    "slerp",
    "qts_to_matrix",
]


class BvhData(TypedDict):
    """A BVH text as :func:`read_bvh` reads it."""
    names: list[str]
    parents: list[int]
    offsets: Float64Array
    channels: list[list[str]]
    motion: Float64Array
    frame_time: float


def _children(parents: ArrayLike) -> dict[int, list[int]]:
    parents = np.asarray(parents)
    kids: dict[int, list[int]] = {j: [] for j in range(-1, len(parents))}
    for j, p in enumerate(parents):
        kids[int(p)].append(j)
    return kids


def depth_first_order(parents: ArrayLike) -> list[int]:
    """Joints in depth-first pre-order (recursive), roots and siblings in index order."""
    kids = _children(parents)
    order: list[int] = []

    def visit(j: int) -> None:
        order.append(j)
        for c in kids[j]:
            visit(c)

    for r in kids[-1]:
        visit(r)
    return order


def breadth_first_order(parents: ArrayLike) -> list[int]:
    """Joints level by level, each level in the order of its parents, siblings in index order."""
    kids = _children(parents)
    order: list[int] = []
    level = kids[-1]
    while level:
        order.extend(level)
        level = [c for j in level for c in kids[j]]
    return order


def subtree(parents: ArrayLike, joint: int) -> list[int]:
    """Sorted list of the joint and all its descendants (walking every joint's ancestry)."""
    parents = np.asarray(parents)
    members = []
    for j in range(len(parents)):
        k = j
        while k >= 0 and k != joint:
            k = int(parents[k])
        if k == joint:
            members.append(j)
    return members


def read_bvh(text: str, end_sites: bool = False) -> BvhData:
    """A BVH text as a dict: names, parents, offsets (J, 3), channels (list of lists of channel
    names), motion (F, C) float64 and frame_time. End Sites are joints when end_sites=True."""
    tokens = text.split()
    pos = 0

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    names: list[str] = []
    parents: list[int] = []
    offsets: list[list[float] | None] = []
    channels: list[list[str]] = []
    assert take() == "HIERARCHY"

    def block(parent: int, name: str, is_end: bool) -> None:
        index = None
        if not is_end or end_sites:
            index = len(names)
            names.append(name)
            parents.append(parent)
            offsets.append(None)
            channels.append([])
        assert take() == "{"
        while True:
            t = take()
            if t == "}":
                return
            if t == "OFFSET":
                values = [float(take()) for _ in range(3)]
                if index is not None:
                    offsets[index] = values
            elif t == "CHANNELS":
                assert index is not None               # no channels in an End Site
                channels[index] = [take() for _ in range(int(take()))]
            elif t == "JOINT":
                assert index is not None               # no joint in an End Site
                block(index, take(), False)
            elif t == "End":
                assert index is not None
                take()  # "Site"
                block(index, names[index] + "_end", True)
            else:
                raise ValueError(f"unexpected token {t!r}")

    while tokens[pos] == "ROOT":
        take()
        block(-1, take(), False)
    assert take() == "MOTION"
    assert take() == "Frames:"
    frames = int(take())
    assert take() == "Frame" and take() == "Time:"
    frame_time = float(take())
    width = sum(len(c) for c in channels)
    motion = np.array([float(t) for t in tokens[pos:]], dtype=np.float64).reshape(frames, width)
    return {"names": names, "parents": parents, "offsets": np.array(offsets, dtype=np.float64),
            "channels": channels, "motion": motion, "frame_time": frame_time}


def euler_matrix(axis: str, degrees: ArrayLike) -> Float64Array:
    """Rotation matrices (..., 3, 3) about the X, Y or Z axis by angles in degrees."""
    a = np.radians(np.asarray(degrees, dtype=np.float64))
    c, s = np.cos(a), np.sin(a)
    one, zero = np.ones_like(a), np.zeros_like(a)
    rows = {
        "X": [[one, zero, zero], [zero, c, -s], [zero, s, c]],
        "Y": [[c, zero, s], [zero, one, zero], [-s, zero, c]],
        "Z": [[c, -s, zero], [s, c, zero], [zero, zero, one]],
    }[axis]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def bvh_global_matrices(bvh: BvhData) -> Float64Array:
    """Global joint matrices (F, J, 3, 4) float64 of a read_bvh() dict: each joint's local
    transform is [R | t] with R the product of its rotation channels' matrices in the listed
    order and t its OFFSET with position channels replacing the matching components."""
    motion = bvh["motion"]
    frames = motion.shape[0]
    n = len(bvh["names"])
    glob = np.zeros((frames, n, 4, 4))
    column = 0
    for j in range(n):
        rot = np.broadcast_to(np.eye(3), (frames, 3, 3))
        trans = np.broadcast_to(bvh["offsets"][j], (frames, 3)).copy()
        for name in bvh["channels"][j]:
            values = motion[:, column]
            column += 1
            axis, kind = name[0].upper(), name[1:].lower()
            if kind == "rotation":
                rot = rot @ euler_matrix(axis, values)
            elif kind == "position":
                trans[:, "XYZ".index(axis)] = values
            else:
                raise ValueError(f"unknown channel {name!r}")
        local = np.zeros((frames, 4, 4))
        local[:, :3, :3] = rot
        local[:, :3, 3] = trans
        local[:, 3, 3] = 1.0
        p = bvh["parents"][j]
        glob[:, j] = local if p < 0 else glob[:, p] @ local
    return glob[:, :, :3, :]


def slerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike) -> Float64Array:
    """Shortest-arc spherical interpolation of unit quaternions (..., 4) (x, y, z, w), float64."""
    a = np.asarray(q0, dtype=np.float64)
    b = np.asarray(q1, dtype=np.float64)
    u = np.asarray(t, dtype=np.float64)[..., None]
    dot = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(dot < 0, -b, b)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin_theta = np.sin(theta)
    small = sin_theta < 1e-12
    w0 = np.where(small, 1.0 - u, np.sin((1.0 - u) * theta) / np.where(small, 1.0, sin_theta))
    w1 = np.where(small, u, np.sin(u * theta) / np.where(small, 1.0, sin_theta))
    q: Float64Array = w0 * a + w1 * b
    return q


def qts_to_matrix(qts: ArrayLike) -> Float64Array:
    """QTS joints (..., 8) to joint matrices (..., 3, 4), float64: [s R(q) | t]."""
    qts = np.asarray(qts, dtype=np.float64)
    out = np.empty(qts.shape[:-1] + (3, 4))
    out[..., :3] = quat_to_matrix(qts[..., :4]) * qts[..., 7, None, None]
    out[..., 3] = qts[..., 4:7]
    return out
