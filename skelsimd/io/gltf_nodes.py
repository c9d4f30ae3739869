"""World matrices of a glTF file's animated nodes, skinned or not: :meth:`GltfAsset.node_clip`.

Props, cameras, lights and mechanical rigs are animated as plain nodes (no skin). A
:class:`NodeClip` holds, for one animation sampled at a fixed rate, the world matrices of every
node one of its ``translation`` / ``rotation`` / ``scale`` channels targets: the product of the
local matrices from the node's scene root down to it (its ancestors' ``matrix`` or rest T/R/S,
or their animated values when the animation moves them too), as a glTF viewer places them.

Which nodes: the animated nodes only (ascending node index), as their world matrices are what
moves. A node below an animated node moves with it: its world matrix is its animated
ancestor's times the rest matrices of the nodes in between, or ask for it with the ``nodes``
keyword (any node indices: descendants, the camera on a boom, the skinned mesh's node).

Sampling is that of the clips (see :mod:`skelsimd.io.gltf`): frame ``f`` is the pose at
``t = f / sample_rate`` seconds from the timeline origin, up to the animation's last key; each
channel holds its first value before its first key and its last after its last key; ``STEP``,
``LINEAR`` (rotations by shortest-arc slerp) and ``CUBICSPLINE`` (Hermite, tangents scaled by
the key interval, rotations renormalised) as the specification says (the channels'
:meth:`GltfChannel.sample`). The products are evaluated in float64 and rounded once to
float32: within float32 rounding of the float64 node tree (``skelsimd.reference.gltf``,
checked by the tests at keys and between keys, with ``matrix`` parents and deep trees).

Cost is bounded as the clips' is: frames times the nodes evaluated (those asked for and their
ancestors) at most ``max_joint_frames`` (the keyword of :func:`skelsimd.load_gltf`), checked
before anything is evaluated, and the float64 scratch evaluated a chunk of frames at a time.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["NodeClip", "animation_index", "animated_nodes", "node_indices", "world_matrices"]

Arr = NDArray[Any]
F64 = NDArray[np.float64]

#: node-frames evaluated at a time (bounds the float64 scratch)
_CHUNK = 1 << 16
_FLOAT32_MAX = float(np.finfo(np.float32).max)


class NodeClip:
    """One animation's node world matrices, sampled at a fixed rate.

    Attributes
    ----------
    name : str
        The animation's name.
    world : ndarray, float32 (F, N, 3, 4)
        ``world[f, i]`` is node ``nodes[i]``'s world matrix ``[R | t]`` at
        ``t = f / sample_rate`` seconds (the implied last row is ``0 0 0 1``).
    nodes : ndarray of intp, (N,)
        The glTF node indices (by default the animated nodes, ascending).
    names : tuple of str
        Their names (``node<i>`` for a node without one; not made unique).
    sample_rate : float
        Frames per second.
    """

    __slots__ = ("name", "world", "nodes", "names", "sample_rate")

    def __init__(self, name: str, world: Arr, nodes: Arr, names: Sequence[str],
                 sample_rate: float) -> None:
        self.name = name
        self.world = world
        self.nodes = nodes
        self.names = tuple(names)
        self.sample_rate = float(sample_rate)

    @property
    def frames(self) -> int:
        """The number of frames F."""
        return int(self.world.shape[0])

    @property
    def duration(self) -> float:
        """``(frames - 1) / sample_rate`` seconds."""
        return max(self.frames - 1, 0) / self.sample_rate

    def __getitem__(self, node: int | str) -> Arr:
        """The world matrices ``(F, 3, 4)`` of one node, by node index or name."""
        if isinstance(node, str):
            if node not in self.names:
                raise KeyError(f"node: no node named {node!r:.60} in this clip")
            return self.world[:, self.names.index(node)]
        hits = np.flatnonzero(self.nodes == node)
        if not hits.size:
            raise KeyError(f"node: nodes[{node}] is not in this clip "
                           f"(its nodes: {self.nodes.tolist()[:10]})")
        return self.world[:, int(hits[0])]

    def __repr__(self) -> str:
        return (f"NodeClip({self.name!r}, {len(self.nodes)} nodes, {self.frames} frames at "
                f"{self.sample_rate:g} Hz)")


def animation_index(names: Sequence[str], animation: Any) -> int:
    """The index of an animation given by index or name (TypeError / ValueError naming
    ``animation``)."""
    if isinstance(animation, str):
        if animation not in names:
            raise ValueError(f"animation: no animation named {animation!r:.60} (the file has "
                             f"{len(names)}: {', '.join(repr(n) for n in names[:8])}"
                             f"{', ...' if len(names) > 8 else ''})")
        return list(names).index(animation)
    if isinstance(animation, bool) or not isinstance(animation, (int, np.integer)):
        raise TypeError(f"animation: expected an int or a str, got {type(animation).__name__}")
    if not 0 <= animation < len(names):
        raise ValueError(f"animation: expected 0 <= animation < {len(names)}, got {animation}")
    return int(animation)


def node_indices(nodes: Any, count: int) -> Arr:
    """``nodes`` as distinct node indices in [0, count) (TypeError / ValueError naming
    ``nodes``)."""
    a = np.asarray(nodes)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise TypeError(f"nodes: expected a 1-D sequence of node indices, got {a.dtype} "
                        f"{a.shape}")
    a = a.astype(np.intp)
    bad = (a < 0) | (a >= count)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"nodes[{k}]: expected a node index in [0, {count}), got {int(a[k])}")
    if len(np.unique(a)) != len(a):
        raise ValueError("nodes: expected distinct node indices, got a repeated one")
    return a


def animated_nodes(by_node: dict[int, dict[str, Any]]) -> Arr:
    """The nodes a translation, rotation or scale channel targets, ascending."""
    return np.array(sorted(n for n, chans in by_node.items() if chans), dtype=np.intp)


def world_matrices(nodes: Arr, parent: Sequence[int], preorder: Sequence[int], animated: set[int],
                   local: Callable[[int, F64], F64], frames: int, rate: float, budget: int,
                   where: str) -> NDArray[np.float32]:
    """float32 (frames, len(nodes), 3, 4) world matrices of `nodes` at t = f / rate.

    `parent[n]` is node n's parent (-1: a scene root), `preorder[n]` its position in a
    depth-first walk, `animated` the nodes whose local matrix changes over time and
    `local(n, t)` node n's local matrices (len(t), 4, 4) float64 (any n; a node not animated
    is asked once, with one time). Every node on the way from a root is evaluated once per
    chunk of frames, parents first; a path of nodes not animated is one constant. A
    ValueError naming `where` when frames times the nodes evaluated exceed `budget`, before
    anything is evaluated."""
    needed: set[int] = set()
    for n in nodes.tolist():
        while n >= 0 and n not in needed:
            needed.add(n)
            n = parent[n]
    order = sorted(needed, key=preorder.__getitem__)
    if frames * max(1, len(order)) > budget:
        raise ValueError(f"{where}: {frames} frames at {rate:.6g} Hz x {len(order)} nodes (the "
                         f"nodes asked for and their ancestors) are {frames * len(order)} "
                         f"node-frames, more than max_joint_frames = {budget} (a keyword of "
                         "load_gltf)")
    moving = set()                     # nodes whose world matrix changes: animated ancestry
    for n in order:
        if n in animated or (parent[n] >= 0 and parent[n] in moving):
            moving.add(n)
    constant: dict[int, F64] = {}
    zero = np.zeros(1)
    for n in order:
        if n not in moving:
            m = local(n, zero)[0]
            constant[n] = m if parent[n] < 0 else constant[parent[n]] @ m
    out = np.empty((frames, len(nodes), 3, 4), dtype=np.float32)
    step = max(1, _CHUNK // max(1, len(order)))
    for f0 in range(0, frames, step):
        tc = np.arange(f0, min(frames, f0 + step)) / rate
        world: dict[int, F64] = {}
        for n in order:
            if n not in moving:
                continue
            m = local(n, tc) if n in animated else local(n, zero)[0]
            p = parent[n]
            if p < 0:
                world[n] = np.broadcast_to(m, (len(tc), 4, 4))
            else:
                world[n] = (world[p] if p in moving else constant[p]) @ m
        for i, n in enumerate(nodes.tolist()):
            w = world[n] if n in moving else np.broadcast_to(constant[n], (len(tc), 4, 4))
            bad = ~(np.abs(w) <= _FLOAT32_MAX).all(axis=(-2, -1))
            if bad.any():
                f = f0 + int(np.argmax(bad))
                raise ValueError(f"{where}: nodes[{n}] has a world matrix beyond the float32 "
                                 f"range (or not finite) at frame {f}")
            out[f0:f0 + len(tc), i] = w[:, :3, :]
    return out
