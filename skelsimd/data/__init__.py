"""Embedded example data: a short real motion-capture clip and a skinned humanoid character (see
README.md beside this file for their origins and terms).

    clip = skelsimd.data.load_example()       # 240 frames at 120 fps, 31 joints
    mesh = skelsimd.data.example_mesh()       # a skinned body of tubes for its skeleton
    clips = skelsimd.data.load_walks()        # two whole takes at 30 fps (motion matching)
    man = skelsimd.data.load_character()      # CesiumMan: a GltfAsset, 19 joints, 3273 vertices
"""
from __future__ import annotations
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from ..clip import Clip
    from ..skeleton import Skeleton

__all__ = ["EXAMPLE_BVH", "WALK_BVH", "example_path", "load_example", "load_walks",
           "example_mesh", "ORIGIN", "CHARACTER_GLB", "CHARACTER_ORIGIN", "character_path",
           "load_character"]

EXAMPLE_BVH: str = "cmu_131_01_excerpt.bvh"
#: CMU 131_01 and 131_02 whole, every 4th frame (30 fps), gzip-compressed.
WALK_BVH: tuple[str, ...] = ("cmu_131_01_30fps.bvh.gz", "cmu_131_02_30fps.bvh.gz")

ORIGIN: str = (
    "CMU Graphics Lab Motion Capture Database, subject 131 trial 01, frames 200-439. "
    "The data used in this project was obtained from mocap.cs.cmu.edu. The database was "
    "created with funding from NSF EIA-0196217. Free for research and commercial use; the "
    "data itself may not be resold."
)


def example_path(name: str = EXAMPLE_BVH) -> str:
    """The path of an embedded file (default: the example clip, :data:`EXAMPLE_BVH`; the
    others are :data:`WALK_BVH`)."""
    if name not in (EXAMPLE_BVH,) + WALK_BVH:
        raise ValueError(f"name: expected one of {(EXAMPLE_BVH,) + WALK_BVH}, got {name!r:.60}")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), name)


def load_walks() -> list[Clip]:
    """The two embedded whole takes (CMU 131_01 and 131_02: 249 and 312 frames at 30 fps, 31
    joints; every 4th frame of the 120 fps originals, see README.md), as the motion-matching
    example's database uses them.

    Examples
    --------
    >>> import skelsimd
    >>> [c.frames for c in skelsimd.data.load_walks()]
    [249, 312]
    """
    from ..io.bvh import load_bvh

    return [load_bvh(example_path(name)) for name in WALK_BVH]


CHARACTER_GLB: str = "cesium_man.glb"

CHARACTER_ORIGIN: str = (
    "CesiumMan, (c) 2017 Cesium, CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/). "
    "Donated by Cesium for glTF testing; taken from the Khronos glTF-Sample-Models repository. "
    "Changed: only the skin and the skinned mesh are kept (no texture, material or animation)."
)


def character_path() -> str:
    """The path of the embedded character (a ``.glb`` file)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), CHARACTER_GLB)


def load_character() -> Any:
    """The embedded character, CesiumMan, as a :class:`skelsimd.io.gltf.GltfAsset` (one skin of
    19 joints and one skinned mesh of 3273 vertices, Y-up, metres).

    Examples
    --------
    >>> import skelsimd
    >>> man = skelsimd.data.load_character()
    >>> len(man.skins[0].skeleton), man.meshes[0].positions.shape
    (19, (3273, 3))
    """
    from ..io.gltf import load_gltf

    return load_gltf(character_path())


def load_example(*, end_sites: bool = False) -> Clip:
    """The embedded clip as a :class:`skelsimd.Clip` (``load_bvh(example_path())``)."""
    from ..io.bvh import load_bvh

    return load_bvh(example_path(), end_sites=end_sites)


def example_mesh(
    skeleton: Skeleton | None = None, *, sides: int = 8, rings: int = 5, radius: float | None = None
) -> dict[str, Any]:
    """A skinned mesh for a skeleton: one tube around every bone of its rest pose.

    Each tube (``rings`` rings of ``sides`` vertices from the parent joint to the child,
    triangulated, open at both ends) follows the parent joint; its first rings blend towards
    the joint above, so bent joints stay joined. Made for pictures, tests and examples where
    a real character file is not at hand.

    Parameters
    ----------
    skeleton : Skeleton, optional
        Needs a rest pose (default: the example clip's skeleton).
    sides, rings : int
        Vertices around a tube (>= 3) and rings along it (>= 2).
    radius : float, optional
        Tube radius (default 3.5% of the rest pose's height).

    Returns
    -------
    dict
        ``positions`` (V, 3) and ``normals`` (V, 3) float32 in the rest pose (bind pose),
        ``triangles`` (T, 3) int32, ``joint_indices`` (V, 2) int32 and ``weights`` (V, 2)
        float32 summing to 1: what :func:`skelsimd.skin` and :func:`skelsimd.save_gltf` take.

    Examples
    --------
    >>> import skelsimd
    >>> mesh = skelsimd.data.example_mesh()
    >>> mesh["positions"].shape, mesh["triangles"].shape
    ((800, 3), (1280, 3))
    """
    import numpy as np

    from ..qts import qts_local_to_global
    from ..joints import local_to_global

    if skeleton is None:
        skeleton = load_example().skeleton
    if skeleton.rest is None:
        raise ValueError("skeleton: expected a skeleton with a rest pose, got rest None")
    for value, name, low in ((sides, "sides", 3), (rings, "rings", 2)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
        if not low <= value <= 256:
            raise ValueError(f"{name}: expected {low} <= {name} <= 256, got {value}")
    rest = skeleton.rest
    if rest.ndim == 2:
        pos = qts_local_to_global(rest, skeleton)[:, 4:7].astype(np.float64)
    else:
        pos = local_to_global(rest, skeleton)[..., 3].astype(np.float64)
    parents = np.asarray(skeleton.parents)
    if radius is None:
        radius = 0.035 * max(float(np.ptp(pos[:, 1])), float(np.ptp(pos, axis=0).max()), 1e-6)
    angles = 2 * np.pi * np.arange(sides) / sides
    u = np.linspace(0.0, 1.0, rings)
    verts, normals, tris, ji, w = [], [], [], [], []
    count = 0
    for c in range(len(parents)):
        p = int(parents[c])
        if p < 0:
            continue
        axis = pos[c] - pos[p]
        length = float(np.linalg.norm(axis))
        if length < 1e-9:
            continue
        axis /= length
        helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        e1 = np.cross(axis, helper)
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(axis, e1)
        r = min(radius, 0.45 * length)
        radial = np.cos(angles)[:, None] * e1 + np.sin(angles)[:, None] * e2      # (S, 3)
        ring_pos = pos[p] + u[:, None, None] * length * axis + r * radial[None]   # (R, S, 3)
        verts.append(ring_pos.reshape(-1, 3))
        normals.append(np.broadcast_to(radial, (rings, sides, 3)).reshape(-1, 3))
        above = int(parents[p]) if parents[p] >= 0 else p
        share = np.clip(0.5 - u, 0.0, 0.5) * (above != p)    # half the first ring's weight above
        wr = np.repeat(np.stack([1 - share, share], axis=1), sides, axis=0)
        w.append(wr)
        ji.append(np.tile([p, above], (rings * sides, 1)))
        i = np.arange(rings - 1)[:, None] * sides
        k = np.arange(sides)[None, :]
        a, b = i + k, i + (k + 1) % sides
        quads = np.stack([a, b, b + sides, a, b + sides, a + sides], axis=-1).reshape(-1, 3)
        tris.append(quads + count)
        count += rings * sides
    if not verts:
        raise ValueError("skeleton: expected at least one bone of non-zero length in the rest "
                         "pose, got none")
    return {"positions": np.concatenate(verts).astype(np.float32),
            "normals": np.concatenate(normals).astype(np.float32),
            "triangles": np.concatenate(tris).astype(np.int32),
            "joint_indices": np.concatenate(ji).astype(np.int32),
            "weights": np.concatenate(w).astype(np.float32)}
