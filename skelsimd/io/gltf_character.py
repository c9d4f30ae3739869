"""A glTF character file written again with a new animation: the character's whole scene (every
mesh, skinned or attached to a bone node, materials, textures, morph targets) kept, its
animations replaced by one clip of one of its skins (e.g. a :class:`skelsimd.Retargeter` result).

:func:`save_character` reads the character with the reader of :mod:`skelsimd.io.gltf` (the same
checks), gathers its buffers into one (the ``.glb`` binary chunk, or one base64 ``data:`` URI
for ``.gltf``), and appends one animation: a LINEAR translation, rotation and scale channel for
every joint node of the skin, frame ``f`` at time ``f / clip.fps``.

The numbers: the clip's local poses are the skin's folded locals (see :mod:`skelsimd.io.gltf`:
nodes above the first joint and between joints are folded into the joint below them). Each
joint node's own local transform is ``inverse(world of its node parent) @ world of the joint``
per frame, the worlds from the clip by forward kinematics and, for nodes that are not joints,
from their rest transforms under their parent's world. So ``load_gltf`` of the written file
gives back the clip (joints' world matrices within float32 rounding), and every mesh attached
to a joint node follows it as the viewers play it.
"""
from __future__ import annotations

import base64
import json
import os
import struct
from typing import Any

import numpy as np

from ..clip import Clip
from ..qts import qts_local_to_global_matrix
from .._rotation64 import matrix_to_quat as _matrix_to_quat
from ._gltf_document import _Doc
from ._gltf_skins import _read_nodes, _rest_matrix
from .gltf import GltfSkin, load_gltf
from .gltf_write import output_path

__all__ = ["save_character"]

_FLOAT, _ARRAY_BUFFER = 5126, 34962


def _full(m: np.ndarray) -> np.ndarray:
    out = np.zeros(m.shape[:-2] + (4, 4))
    out[..., :3, :] = m[..., :3, :]
    out[..., 3, 3] = 1.0
    return out


def _trs(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Translation, rotation (x, y, z, w) and scale of affine matrices (..., 4, 4) without
    shear (the columns' lengths are the scale)."""
    lin = m[..., :3, :3]
    scale = np.linalg.norm(lin, axis=-2)
    rot = lin / np.maximum(scale[..., None, :], 1e-300)
    flip = np.linalg.det(rot) < 0                      # a mirror: carried by one negative scale
    scale[flip, 0] *= -1
    rot[flip, :, 0] *= -1
    q = _matrix_to_quat(rot)
    if len(q) > 1:                       # continuous signs over the frames (for LINEAR)
        flips = np.sum(q[1:] * q[:-1], axis=-1, keepdims=True) < 0
        q[1:] *= np.where(flips, -1.0, 1.0).cumprod(axis=0)
    return m[..., :3, 3], q, scale


def save_character(path: str | os.PathLike[str], character: str | os.PathLike[str], clip: Clip,
                   skin: int = 0, *, name: str | None = None) -> str:
    """Write ``character`` (a ``.gltf``/``.glb`` file) to ``path`` with ``clip`` as its only
    animation.

    Parameters
    ----------
    path : str or os.PathLike
        ``.glb`` or ``.gltf`` (the buffers then embedded as one base64 data URI). Written only
        once everything was checked.
    character : str or os.PathLike
        The character file. Images it names by a relative URI are embedded (so the output
        needs no file beside it).
    clip : Clip
        Local poses of the skin's skeleton (its joint names in its order), e.g. the result of
        ``Retargeter(motion, load_gltf(character).skins[skin]).apply(motion)``.
    skin : int
        The skin whose joints the clip drives.
    name : str, optional
        The animation's name (default ``clip.name``, else "retargeted").

    Returns
    -------
    str
        ``path``.

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> from skelsimd.io.gltf import example_glb
    >>> from skelsimd.io.gltf_character import save_character
    >>> d = tempfile.mkdtemp()
    >>> src = os.path.join(d, "bend.glb")
    >>> _ = open(src, "wb").write(example_glb())
    >>> clip = skelsimd.load_gltf(src).clips[0]
    >>> out = save_character(os.path.join(d, "again.glb"), src, clip[::2], name="half")
    >>> again = skelsimd.load_gltf(out)
    >>> again.animations[0].name, again.clips[0].frames
    ('half', 6)
    """
    fspath, suffix = output_path(path)
    if not isinstance(clip, Clip):
        raise TypeError(f"clip: expected a skelsimd.Clip, got {type(clip).__name__}")
    if not np.isfinite(clip.local).all():
        raise ValueError("clip: expected finite poses")
    doc = _Doc(character)
    nodes = _read_nodes(doc)
    if isinstance(skin, bool) or not isinstance(skin, int) or not 0 <= skin < len(doc.skins):
        raise ValueError(f"skin: expected 0 <= skin < {len(doc.skins)}, got {skin!r}")
    sk: GltfSkin = load_gltf(character).skins[skin]
    if clip.skeleton.names != sk.skeleton.names or not np.array_equal(
            clip.skeleton.parents, sk.skeleton.parents):
        raise ValueError(f"clip: expected a clip of skin {skin}'s skeleton "
                         f"({len(sk.skeleton)} joints: {', '.join(sk.skeleton.names[:3])}, ...)")
    if name is None:
        name = clip.name if clip.name else "retargeted"

    # worlds of every node per frame: joints from the clip, other nodes from their rest
    world_j = _full(qts_local_to_global_matrix(clip.local, clip.skeleton).astype(np.float64))
    frames = clip.frames
    joint_of = {int(n): j for j, n in enumerate(sk.nodes)}
    world: dict[int, np.ndarray] = {}

    def node_world(n: int) -> np.ndarray:
        if n in world:
            return world[n]
        if n in joint_of:
            w = world_j[:, joint_of[n]]
        else:
            p = nodes[n].parent
            parent = np.broadcast_to(np.eye(4), (frames, 4, 4)) if p < 0 else node_world(p)
            w = parent @ _rest_matrix(nodes[n])
        world[n] = w
        return w

    channels = []
    for j, n in enumerate(sk.nodes):
        p = nodes[int(n)].parent
        parent = np.broadcast_to(np.eye(4), (frames, 4, 4)) if p < 0 else node_world(p)
        local = np.linalg.solve(parent, world_j[:, j])
        channels.append((int(n), _trs(local)))

    # one buffer: the file's buffers, then the animation's data
    j = json.loads(json.dumps(doc.j))
    blob = bytearray()
    starts = []
    for i in range(len(doc.buffers_json)):
        while len(blob) % 8:
            blob.append(0)
        starts.append(len(blob))
        blob += bytes(doc.buffer(i))
    for v in j.get("bufferViews", []):
        v["byteOffset"] = v.get("byteOffset", 0) + starts[v["buffer"]]
        v["buffer"] = 0
    for img in j.get("images", []):
        uri = img.get("uri")
        if isinstance(uri, str) and not uri.startswith("data:"):
            data = bytes(doc._external(uri, "images.uri", 0))
            while len(blob) % 8:
                blob.append(0)
            j.setdefault("bufferViews", []).append({"buffer": 0, "byteOffset": len(blob),
                                                    "byteLength": len(data)})
            blob += data
            del img["uri"]
            img["bufferView"] = len(j["bufferViews"]) - 1
            img.setdefault("mimeType", "image/png" if uri.lower().endswith(".png")
                           else "image/jpeg")
    views, accessors = j.setdefault("bufferViews", []), j.setdefault("accessors", [])

    def add(a: np.ndarray, kind: str, minmax: bool = False) -> int:
        data = np.ascontiguousarray(a, dtype="<f4").tobytes()
        while len(blob) % 4:
            blob.append(0)
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)})
        blob.extend(data)
        acc: dict[str, Any] = {"bufferView": len(views) - 1, "componentType": _FLOAT,
                               "count": int(a.shape[0]), "type": kind}
        if minmax:
            acc["min"], acc["max"] = [float(a.min())], [float(a.max())]
        accessors.append(acc)
        return len(accessors) - 1

    times = add((np.arange(frames) * clip.frame_time).astype(np.float32), "SCALAR", True)
    samplers, anim_channels = [], []
    for n, (t, q, s) in channels:
        for target, values, kind in (("translation", t, "VEC3"), ("rotation", q, "VEC4"),
                                     ("scale", s, "VEC3")):
            samplers.append({"input": times, "output": add(values, kind),
                             "interpolation": "LINEAR"})
            anim_channels.append({"sampler": len(samplers) - 1,
                                  "target": {"node": n, "path": target}})
    j["animations"] = [{"name": name, "samplers": samplers, "channels": anim_channels}]
    while len(blob) % 4:
        blob.append(0)
    j["buffers"] = [{"byteLength": len(blob)}]
    if suffix == ".gltf":
        j["buffers"][0]["uri"] = ("data:application/octet-stream;base64,"
                                  + base64.b64encode(bytes(blob)).decode("ascii"))
        with open(fspath, "w", encoding="utf-8") as text_file:
            json.dump(j, text_file, separators=(",", ":"))
        return fspath
    text = json.dumps(j, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    out = struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(blob))
    out += struct.pack("<II", len(text), 0x4E4F534A) + text
    out += struct.pack("<II", len(blob), 0x004E4942) + bytes(blob)
    with open(fspath, "wb") as binary_file:
        binary_file.write(out)
    return fspath
