"""Writing glTF 2.0 (``.gltf`` and ``.glb``): a skeleton with its clips and skinned meshes, or a
whole character loaded by :func:`skelsimd.load_gltf`.

:func:`save_gltf` writes what :func:`skelsimd.load_gltf` reads back, and what Blender and
three.js open. From a clip (or a list of clips of one skeleton) it writes:

* the skeleton as nodes (one per joint, in the skeleton's order, named after the joints, their
  rest transform as ``translation`` / ``rotation`` / ``scale``), under one extra unanimated
  node when the skeleton has several roots (the skin's joints need a common root);
* a skin naming every joint, with inverse bind matrices (given, or the inverse of the rest
  pose's global matrices: the mesh was bound in the rest pose);
* each clip as one animation named after it: per joint a ``translation``, ``rotation`` (unit quaternions) and
  ``scale`` (the QTS uniform scale on the three axes) channel, LINEAR, frame f at time
  ``f / fps`` (a rate within 10 ppm of a whole number of Hz is taken as that number: a BVH
  file's frame time 0.0083333 s is 1/120 s, and the reader infers whole rates); a channel equal to the node's rest value on every frame is left out (the joint
  keeps its rest transform, which is the same thing);
* optionally a skinned mesh (or several, as primitives of one mesh): ``POSITION``, ``NORMAL``,
  ``TEXCOORD_0``, ``JOINTS_n`` / ``WEIGHTS_n`` (one set per four influences) and triangle
  ``indices``, in a node that references the skin.

From a :class:`~skelsimd.io.gltf.GltfAsset` it writes the whole character: the file's node tree
(every node, same indices, names, children and ``matrix`` or T/R/S, so the nodes above and
between the joints too), every skin (joints in skeleton order, its inverse bind matrices),
every skinned node's mesh with its primitives (positions, normals, UVs, triangles, joints and
weights), and every animation's keyframes as loaded (times, values and STEP / LINEAR /
CUBICSPLINE interpolation of its translation, rotation and scale channels), so that the clips,
node world matrices and skinned vertices read back are those of the source. What skelsimd does
not read is not written, with one warning naming how many of each: materials, textures,
images, cameras, meshes of nodes without a skin, morph targets' ``weights`` channels.

The file layout: one buffer, one buffer view per accessor, every view's offset a multiple of 4.
A ``.gltf`` is a single JSON file with the buffer embedded as a base64 ``data:`` URI (one file
to move around, a third larger than the binary); a ``.glb`` is the binary container (JSON
chunk padded with spaces, BIN chunk padded with zeros, both to 4 bytes).
"""
from __future__ import annotations

import base64
import json
import os
import struct
import warnings
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

from .._validate import number as _number
from ..clip import Clip
from ..skeleton import Skeleton
from ._writing import output_path as _output_path
from ._writing import write_file
from .gltf import GltfAsset

__all__ = ["save_gltf"]

_Path = Union[str, "os.PathLike[str]"]

_FLOAT, _UBYTE, _USHORT, _UINT = 5126, 5121, 5123, 5125
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963
_NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
_GLB_MAGIC, _GLB_JSON, _GLB_BIN = 0x46546C67, 0x4E4F534A, 0x004E4942


class _Buffer:
    """The one binary buffer and its buffer views and accessors."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.views: list[dict[str, Any]] = []
        self.accessors: list[dict[str, Any]] = []

    def add(self, data: np.ndarray, kind: str, component: int, *, target: Optional[int] = None,
            minmax: bool = False, what: str = "") -> int:
        """Append ``data`` (rows of ``kind``) as a new view and accessor; returns its index."""
        if component == _FLOAT:
            _float32_range(data, what)
        raw = np.ascontiguousarray(data).tobytes()
        pad = -self.size % 4                     # every view starts on a 4-byte boundary
        if pad:
            self.parts.append(b"\0" * pad)
            self.size += pad
        view: dict[str, Any] = {"buffer": 0, "byteOffset": self.size, "byteLength": len(raw)}
        if target is not None:
            view["target"] = target
        self.parts.append(raw)
        self.size += len(raw)
        self.views.append(view)
        count = data.shape[0]
        acc: dict[str, Any] = {"bufferView": len(self.views) - 1, "componentType": component,
                               "count": int(count), "type": kind}
        if minmax:
            rows = data.reshape(count, _NCOMP[kind])
            conv = float if component == _FLOAT else int
            acc["min"] = [conv(v) for v in rows.min(axis=0)]
            acc["max"] = [conv(v) for v in rows.max(axis=0)]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def data(self) -> bytes:
        blob = b"".join(self.parts)
        return blob + b"\0" * (-len(blob) % 4)


def _f32(a: np.ndarray) -> np.ndarray:
    """float32 of a float64 array; values beyond float32's range become inf (checked later)."""
    with np.errstate(over="ignore"):
        return a.astype(np.float32)


def _float32_range(a: np.ndarray, name: str) -> None:
    if not np.isfinite(a).all():
        raise ValueError(f"{name}: expected values within float32's range (times scale), got "
                         f"some beyond it")


def _finite(a: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(a)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}: expected finite values, got {a[idx]} at index {idx}")


def _unit_quats(q: np.ndarray, name: str) -> np.ndarray:
    """float64 quaternions (..., 4) normalised; a zero one is a ValueError."""
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    if (n == 0).any():
        idx = tuple(int(i) for i in np.argwhere(n[..., 0] == 0)[0])
        raise ValueError(f"{name}: expected non-zero quaternions, got a zero one at {idx}")
    return np.asarray(q / n)


def _qts_matrices(x: np.ndarray) -> np.ndarray:
    """float64 (..., 3, 4) matrices of float64 QTS (..., 8) (unit quaternions)."""
    qx, qy, qz, qw = x[..., 0], x[..., 1], x[..., 2], x[..., 3]
    s = x[..., 7]
    r = np.empty(x.shape[:-1] + (3, 4))
    r[..., 0, 0] = 1 - 2 * (qy * qy + qz * qz)
    r[..., 0, 1] = 2 * (qx * qy - qz * qw)
    r[..., 0, 2] = 2 * (qx * qz + qy * qw)
    r[..., 1, 0] = 2 * (qx * qy + qz * qw)
    r[..., 1, 1] = 1 - 2 * (qx * qx + qz * qz)
    r[..., 1, 2] = 2 * (qy * qz - qx * qw)
    r[..., 2, 0] = 2 * (qx * qz - qy * qw)
    r[..., 2, 1] = 2 * (qy * qz + qx * qw)
    r[..., 2, 2] = 1 - 2 * (qx * qx + qy * qy)
    r[..., :3] *= s[..., None, None]
    r[..., 3] = x[..., 4:7]
    return r


def _compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., :3] = a[..., :3] @ b[..., :3]
    out[..., 3] = (a[..., :3] @ b[..., 3:4])[..., 0] + a[..., 3]
    return out


def _invert(m: np.ndarray, name: str) -> np.ndarray:
    a = m[..., :3]
    det = np.linalg.det(a)
    if (np.abs(det) < 1e-30).any():
        j = int(np.argmax(np.abs(det) < 1e-30))
        raise ValueError(f"{name}: the rest pose's global matrix of joint {j} is singular "
                         f"(determinant {det[j]:.3g}); pass inverse_bind")
    inv = np.linalg.inv(a)
    out = np.empty_like(m)
    out[..., :3] = inv
    out[..., 3] = -(inv @ m[..., 3:4])[..., 0]
    return out


def _rest_qts(skeleton: Skeleton, first: Optional[np.ndarray]) -> np.ndarray:
    """The nodes' rest transforms as float64 QTS (J, 8), quaternions unit."""
    n = len(skeleton)
    rest = skeleton.rest
    if rest is None:
        if first is not None:
            return first.copy()
        r = np.zeros((n, 8))
        r[:, 3] = r[:, 7] = 1
        return r
    if rest.ndim == 2:
        r = rest.astype(np.float64)
        _finite(r, "clip.skeleton.rest")
        r[:, :4] = _unit_quats(r[:, :4], "clip.skeleton.rest")
        return r
    # joint matrices: a node's TRS carries a uniform scale here; anything else is refused
    from ..quat import matrix_to_qts
    m = rest.astype(np.float64)
    _finite(m, "clip.skeleton.rest")
    r = matrix_to_qts(rest).astype(np.float64)
    r[:, :4] = _unit_quats(r[:, :4], "clip.skeleton.rest")
    back = _qts_matrices(r)
    err = np.abs(back[..., :3] - m[..., :3]).max(axis=(-1, -2))
    tol = 1e-5 * np.maximum(np.abs(m[..., :3]).max(axis=(-1, -2)), 1e-30)
    if (err > tol).any():
        j = int(np.argmax(err > tol))
        raise ValueError(f"clip.skeleton.rest[{j}] ({skeleton.names[j]!r}): expected a rotation "
                         f"with a uniform scale (glTF TRS), got a 3x3 part that is not "
                         f"(error {err[j]:.3g} of its nearest rotation times uniform scale)")
    r[:, 4:7] = m[..., 3]
    return r


def _get(mesh: Any, key: str) -> Any:
    if isinstance(mesh, Mapping):
        return mesh.get(key)
    return getattr(mesh, key, None)


def _vertex_attribute(mesh: Any, key: str, v: int, width: int, what: str) -> Optional[np.ndarray]:
    """The mesh's optional per-vertex array `key` as float64 (v, width), checked, or None."""
    a = _get(mesh, key)
    if a is None:
        return None
    a = np.asarray(a)
    if a.shape != (v, width) or a.dtype.kind not in "fiu":
        raise ValueError(f"{what}.{key}: expected a real array of shape ({v}, {width}), got "
                         f"{a.dtype} {a.shape}")
    a = a.astype(np.float64)
    _finite(a, f"{what}.{key}")
    return a


def _mesh_arrays(mesh: Any, joints: int, what: str = "mesh") -> dict[str, Any]:
    """The mesh's arrays checked and converted for the file (see save_gltf); errors name
    the mesh as `what`."""
    out: dict[str, Any] = {}
    for key in ("positions", "triangles", "joint_indices", "weights"):
        if _get(mesh, key) is None:
            raise TypeError(f"{what}: expected an object or mapping with positions, normals, "
                            f"triangles, joint_indices and weights, got {type(mesh).__name__} "
                            f"without {key}")
    pos = np.asarray(_get(mesh, "positions"))
    if pos.ndim != 2 or pos.shape[1] != 3 or pos.shape[0] < 1 or pos.dtype.kind not in "fiu":
        raise ValueError(f"{what}.positions: expected a real array of shape (V, 3) with V >= 1, "
                         f"got {pos.dtype} {pos.shape}")
    v = pos.shape[0]
    pos = pos.astype(np.float64)
    _finite(pos, f"{what}.positions")
    out["positions"] = pos
    nrm = _vertex_attribute(mesh, "normals", v, 3, what)
    if nrm is not None:
        length = np.linalg.norm(nrm, axis=1)
        if (length == 0).any():
            raise ValueError(f"{what}.normals: expected non-zero normals (glTF normals are unit "
                             f"vectors), got a zero one at vertex {int(np.argmin(length))}")
        nrm = nrm / length[:, None]
    out["normals"] = nrm
    out["uvs"] = _vertex_attribute(mesh, "uvs", v, 2, what)
    tri = np.asarray(_get(mesh, "triangles"))
    if tri.ndim != 2 or tri.shape[1] != 3 or tri.shape[0] < 1 or tri.dtype.kind not in "iu":
        raise ValueError(f"{what}.triangles: expected an integer array of shape (T, 3) with "
                         f"T >= 1, got {tri.dtype} {tri.shape}")
    bad = (tri < 0) | (tri >= v)
    if bad.any():
        t, c = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{what}.triangles[{t}, {c}]: expected a vertex index in [0, {v}), got "
                         f"{int(tri[t, c])}")
    out["triangles"] = tri
    ji = np.asarray(_get(mesh, "joint_indices"))
    w = np.asarray(_get(mesh, "weights"))
    if ji.ndim != 2 or ji.shape[0] != v or ji.shape[1] < 1 or ji.dtype.kind not in "iu":
        raise ValueError(f"{what}.joint_indices: expected an integer array of shape ({v}, K), "
                         f"got {ji.dtype} {ji.shape}")
    if w.shape != ji.shape or w.dtype.kind not in "fiu":
        raise ValueError(f"{what}.weights: expected a real array of shape {ji.shape} (as "
                         f"joint_indices), got {w.dtype} {w.shape}")
    bad = (ji < 0) | (ji >= joints)
    if bad.any():
        i, k = (int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"{what}.joint_indices[{i}, {k}]: expected a joint index in "
                         f"[0, {joints}), got {int(ji[i, k])}")
    w = w.astype(np.float64)
    _finite(w, f"{what}.weights")
    if (w < 0).any():
        i, k = (int(x) for x in np.argwhere(w < 0)[0])
        raise ValueError(f"{what}.weights[{i}, {k}]: expected weights >= 0, got {w[i, k]}")
    ji = ji.astype(np.int64)
    kk = ji.shape[1]
    for k in range(1, kk):                      # one non-zero weight per joint and vertex
        for m in range(k):
            same = (ji[:, m] == ji[:, k]) & (w[:, k] > 0)
            w[same, m] += w[same, k]
            w[same, k] = 0
    total = w.sum(axis=1)
    if (total == 0).any():
        raise ValueError(f"{what}.weights[{int(np.argmin(total))}]: expected a vertex with a "
                         f"non-zero weight, got all zero")
    w /= total[:, None]
    ji[w == 0] = 0                               # unused influences point at joint 0
    sets = -(-kk // 4)
    wp = np.zeros((v, 4 * sets), dtype=np.float32)
    jp = np.zeros((v, 4 * sets), dtype=np.uint8 if joints <= 256 else np.uint16)
    wp[:, :kk] = w
    jp[:, :kk] = ji
    out["weights"] = wp
    out["joint_indices"] = jp
    return out


def _primitive(buf: _Buffer, m: dict[str, Any], what: str) -> dict[str, Any]:
    """One triangle primitive of checked mesh arrays (_mesh_arrays): POSITION, NORMAL,
    TEXCOORD_0, JOINTS_n / WEIGHTS_n and indices."""
    attrs: dict[str, int] = {
        "POSITION": buf.add(_f32(m["positions"]), "VEC3", _FLOAT,
                            target=_ARRAY_BUFFER, minmax=True, what=f"{what}.positions")}
    if m["normals"] is not None:
        attrs["NORMAL"] = buf.add(_f32(m["normals"]), "VEC3", _FLOAT, target=_ARRAY_BUFFER)
    if m["uvs"] is not None:
        attrs["TEXCOORD_0"] = buf.add(_f32(m["uvs"]), "VEC2", _FLOAT, target=_ARRAY_BUFFER,
                                      what=f"{what}.uvs")
    jp, wp = m["joint_indices"], m["weights"]
    for k in range(jp.shape[1] // 4):
        attrs[f"JOINTS_{k}"] = buf.add(np.ascontiguousarray(jp[:, 4 * k:4 * k + 4]), "VEC4",
                                       _UBYTE if jp.dtype == np.uint8 else _USHORT,
                                       target=_ARRAY_BUFFER)
        attrs[f"WEIGHTS_{k}"] = buf.add(np.ascontiguousarray(wp[:, 4 * k:4 * k + 4]), "VEC4",
                                        _FLOAT, target=_ARRAY_BUFFER)
    v = m["positions"].shape[0]
    if v <= 65535:                 # the largest value of the type is the restart index
        idx, ctype = m["triangles"].astype(np.uint16).reshape(-1), _USHORT
    else:
        idx, ctype = m["triangles"].astype(np.uint32).reshape(-1), _UINT
    ind = buf.add(idx, "SCALAR", ctype, target=_ELEMENT_ARRAY_BUFFER)
    return {"attributes": attrs, "indices": ind, "mode": 4}


def _clip_animation(buf: _Buffer, local: np.ndarray, fps: float, rest32: np.ndarray,
                    name: Optional[str]) -> dict[str, Any]:
    """One animation of QTS frames `local` (F, J, 8) float64 (scaled, unit quaternions):
    LINEAR channels, frame f at f / fps, channels equal to the rest value left out."""
    n = local.shape[1]
    if abs(fps - round(fps)) <= 1e-5 * fps:   # 0.0083333 s in a BVH file is 1/120 s
        fps = float(round(fps))
    times = (np.arange(local.shape[0], dtype=np.float64) / fps).astype(np.float32)
    t_acc = buf.add(times, "SCALAR", _FLOAT, minmax=True)
    samplers: list[dict[str, Any]] = []
    channels: list[dict[str, Any]] = []
    l32 = _f32(local)
    for j in range(n):
        for path_, lanes, kind in (("translation", slice(4, 7), "VEC3"),
                                   ("rotation", slice(0, 4), "VEC4"),
                                   ("scale", slice(7, 8), "VEC3")):
            values = l32[:, j, lanes]
            if (values == rest32[j, lanes]).all() and not (j == n - 1 and not channels
                                                            and path_ == "scale"):
                continue                     # the rest value throughout: left out
            # (an animation needs a channel: the last joint's scale when all are constant)
            if path_ == "scale":
                values = np.repeat(values, 3, axis=1)
            samplers.append({"input": t_acc, "output": buf.add(np.ascontiguousarray(values),
                                                                 kind, _FLOAT,
                                                                 what="clip.local"),
                             "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1,
                             "target": {"node": j, "path": path_}})
    animation: dict[str, Any] = {"channels": channels, "samplers": samplers}
    if name is not None:
        animation = {"name": name, **animation}
    return animation


def _positive(v: float) -> bool:
    return v > 0


def output_path(path: Any) -> tuple[str, str]:
    """``(path, suffix)`` of a glTF file to write: a str or os.PathLike ending in ``.gltf`` or
    ``.glb`` (TypeError or ValueError naming ``path`` otherwise)."""
    return _output_path(path, (".gltf", ".glb"))


def save_gltf(path: _Path, clip: Union[Clip, Skeleton, Sequence[Clip], GltfAsset], *,
              mesh: Any = None,
              inverse_bind: Any = None, name: Optional[str] = None, mesh_name: str = "mesh",
              scale: float = 1.0) -> str:
    """Write a skeleton, its clip and optionally a skinned mesh as glTF 2.0.

    Parameters
    ----------
    path : str or os.PathLike
        Ending in ``.gltf`` (one JSON file, the binary data embedded as a base64 ``data:``
        URI) or ``.glb`` (the binary container). Written only once everything was checked,
        and whole or not at all: under a temporary name in its directory, renamed over
        ``path`` once complete, so a failed write leaves an existing file as it was.
    clip : Clip, Skeleton, list of Clip or GltfAsset
        The animation (one glTF animation, frame f at time ``f / clip.fps``, LINEAR; a clip of
        0 frames is a ValueError), or a
        skeleton alone (no animation), or several clips of one skeleton (the same joint names
        and parents: one animation each, named after the clip). The nodes' rest transforms are
        the skeleton's rest pose (QTS, or joint matrices that are rotations with a uniform
        scale), else the first clip's first frame, else identities. A ``GltfAsset`` (from
        ``load_gltf``) writes the whole character (module docstring); ``mesh``,
        ``inverse_bind`` and ``name`` must then be None, ``mesh_name`` is not used.
    mesh : object, mapping or list of them, optional
        A skinned mesh with ``positions`` (V, 3), ``normals`` (V, 3) or None, ``triangles``
        (T, 3) integers in [0, V), ``joint_indices`` (V, K) integers in [0, J) and
        ``weights`` (V, K) >= 0 (e.g. an entry of ``load_gltf(...).meshes``, or a dict).
        Normals are written normalised, weights normalised to sum 1 per vertex (the glTF
        rule; repeated joints of a vertex merged into one influence), K padded to a multiple
        of 4 with zero weights (``JOINTS_0``/``WEIGHTS_0``, ``JOINTS_1``/``WEIGHTS_1``, ...);
        ``uvs`` (V, 2), when present, as ``TEXCOORD_0``. A list writes each mesh as a
        primitive of one mesh.
    inverse_bind : array_like (J, 3, 4), optional
        The skin's inverse bind matrices in skeleton order (e.g. ``load_gltf(...).skins[i]
        .inverse_bind``). Default: the inverse of the rest pose's global matrices, i.e. the
        mesh's positions are where the rest pose puts it.
    name : str, optional
        The animation's name (default: ``clip.name`` when the clip has one); one clip only.
    mesh_name : str
        The mesh's and its node's name (the node's prefixed with "_" while a joint has it:
        viewers such as three.js bind animation channels by node name).
    scale : float
        A factor on every length written (translations, positions, inverse bind
        translations): 0.01 turns a centimetre BVH into glTF's metres. Rotations and scales
        are unchanged.

    Returns
    -------
    str
        ``path``, so that ``skelsimd.load_gltf(skelsimd.save_gltf(path, clip))`` reads it back:
        the same joint names, parents and rest pose, the same poses (quaternions up to
        sign) and the same mesh, to float32 precision (float32 is what the file stores).

    Raises
    ------
    TypeError, ValueError
        Naming the argument: a wrong suffix, shapes that do not match the skeleton, values
        that are not finite, a zero quaternion or normal, an index out of range, a vertex
        whose weights are all zero, a rest matrix that is not a rotation with a uniform scale.

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> clip = skelsimd.data.load_example()[:10]
    >>> path = skelsimd.save_gltf(os.path.join(tempfile.mkdtemp(), "walk.glb"), clip, scale=0.01)
    >>> open(path, "rb").read(4)
    b'glTF'
    """
    fspath, suffix = output_path(path)
    scale = _number(scale, "scale", _positive, "a positive finite number",
                    "a positive number")
    if isinstance(clip, GltfAsset):
        for value, what in ((mesh, "mesh"), (inverse_bind, "inverse_bind"), (name, "name")):
            if value is not None:
                raise TypeError(f"{what}: expected None with a GltfAsset (its meshes, skins and "
                                f"animations are written), got {type(value).__name__}")
        _emit(fspath, suffix, *_asset_gltf(clip, scale))
        return fspath
    clips: list[Clip]
    if isinstance(clip, Clip):
        skeleton, clips = clip.skeleton, [clip]
    elif isinstance(clip, Skeleton):
        skeleton, clips = clip, []
    elif isinstance(clip, (list, tuple)) and clip:
        for i, c in enumerate(clip):
            if not isinstance(c, Clip):
                raise TypeError(f"clip[{i}]: expected a skelsimd.Clip, got {type(c).__name__}")
        skeleton, clips = clip[0].skeleton, list(clip)
        for i, c in enumerate(clips[1:], 1):
            if c.skeleton.names != skeleton.names or not np.array_equal(
                    np.asarray(c.skeleton.parents), np.asarray(skeleton.parents)):
                raise ValueError(f"clip[{i}]: expected the skeleton of clip[0] (the same joint "
                                 "names and parents: one skin), got another; write several "
                                 "skins from a GltfAsset")
        if len(clips) > 1 and name is not None:
            raise ValueError("name: expected None with several clips (each animation is named "
                             "after its clip)")
    else:
        raise TypeError(f"clip: expected a skelsimd.Clip or Skeleton, a non-empty list of Clips or "
                        f"a GltfAsset, got {type(clip).__name__}")
    for i, c in enumerate(clips):
        if not c.frames:
            raise ValueError(f"clip{'' if len(clips) == 1 and isinstance(clip, Clip) else f'[{i}]'}"
                             ": expected at least one frame, got 0 (the animation would be "
                             "lost: pass clip.skeleton to write the skeleton alone)")
    if name is None and len(clips) == 1:
        name = getattr(clips[0], "name", None)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name: expected a str, got {type(name).__name__}")
    if not isinstance(mesh_name, str):
        raise TypeError(f"mesh_name: expected a str, got {type(mesh_name).__name__}")
    n = len(skeleton)
    parents = np.asarray(skeleton.parents)
    names = list(skeleton.names)

    locals_: list[tuple[Clip, np.ndarray]] = []
    for i, c in enumerate(clips):
        if not c.frames:
            continue
        where = "clip.local" if len(clips) == 1 else f"clip[{i}].local"
        local = c.local.astype(np.float64)
        _finite(local, where)
        local[..., :4] = _unit_quats(local[..., :4], where)
        local[..., 4:7] *= scale
        locals_.append((c, local))
    rest = _rest_qts(skeleton, locals_[0][1][0] if locals_ else None)
    if skeleton.rest is not None:
        rest[:, 4:7] *= scale

    if inverse_bind is None:
        g = _qts_matrices(rest)
        for j in range(n):
            if parents[j] >= 0:
                g[j] = _compose(g[parents[j]], g[j])
        ib = _invert(g, "inverse_bind")
    else:
        ib = np.asarray(inverse_bind)
        if ib.shape != (n, 3, 4) or ib.dtype.kind not in "fiu":
            raise ValueError(f"inverse_bind: expected a real array of shape ({n}, 3, 4), got "
                             f"{ib.dtype} {ib.shape}")
        ib = ib.astype(np.float64)
        _finite(ib, "inverse_bind")
        ib[..., 3] *= scale
    several = isinstance(mesh, (list, tuple))
    meshes = list(mesh) if several else [] if mesh is None else [mesh]
    arrays = [_mesh_arrays(m, n, f"mesh[{i}]" if several else "mesh")
              for i, m in enumerate(meshes)]
    for m in arrays:
        m["positions"] *= scale

    buf = _Buffer()
    gltf: dict[str, Any] = {"asset": {"version": "2.0", "generator": "skelsimd save_gltf"}}
    nodes: list[dict[str, Any]] = []
    children: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        if parents[j] >= 0:
            children[parents[j]].append(j)
    rest32 = _f32(rest)
    _float32_range(rest32, "clip.skeleton.rest")
    for j in range(n):
        node: dict[str, Any] = {"name": names[j]}
        node.update(_trs_fields(rest32[j, 4:7], rest32[j, :4], rest32[j, 7:8].repeat(3)))
        if children[j]:
            node["children"] = children[j]
        nodes.append(node)
    roots = [j for j in range(n) if parents[j] < 0]
    if len(roots) > 1:                           # a common, unanimated root for the skin
        top = "skeleton"
        while top in names:
            top = "_" + top
        nodes.append({"name": top, "children": roots})
        scene_nodes = [n]
    else:
        scene_nodes = [roots[0]]
    skin_root = scene_nodes[0]

    gltf["skins"] = [{"joints": list(range(n)),
                      "inverseBindMatrices": _inverse_binds(buf, ib, "inverse_bind"),
                      "skeleton": skin_root}]

    if arrays:
        prims = [_primitive(buf, m, f"mesh[{i}]" if several else "mesh")
                 for i, m in enumerate(arrays)]
        gltf["meshes"] = [{"name": mesh_name, "primitives": prims}]
        node_name = mesh_name                     # animation bindings go by node name
        used = {node["name"] for node in nodes}
        while node_name in used:
            node_name = "_" + node_name
        nodes.append({"name": node_name, "mesh": 0, "skin": 0})
        scene_nodes.append(len(nodes) - 1)

    if locals_:
        gltf["animations"] = [
            _clip_animation(buf, local, c.fps, rest32,
                            name if len(clips) == 1 else getattr(c, "name", None))
            for c, local in locals_]

    gltf["scene"] = 0
    gltf["scenes"] = [{"nodes": scene_nodes}]
    gltf["nodes"] = nodes
    _emit(fspath, suffix, gltf, buf)
    return fspath


def _trs_fields(t: np.ndarray, q: np.ndarray, s: np.ndarray) -> dict[str, Any]:
    """A node's translation / rotation / scale, the defaults left out."""
    out: dict[str, Any] = {}
    if (t != 0).any():
        out["translation"] = [float(x) for x in t]
    if not (q[0] == 0 and q[1] == 0 and q[2] == 0 and q[3] == 1):
        out["rotation"] = [float(x) for x in q]
    if (s != 1).any():
        out["scale"] = [float(x) for x in s]
    return out


def _inverse_binds(buf: _Buffer, ib: np.ndarray, what: str) -> int:
    """The accessor of (J, 3, 4) float64 inverse bind matrices as column-major MAT4."""
    j = len(ib)
    ib4 = np.zeros((j, 4, 4), dtype=np.float32)   # glTF matrices are column-major 4x4
    ib4[:, :3, :] = _f32(ib)
    ib4[:, 3, 3] = 1
    return buf.add(np.ascontiguousarray(ib4.transpose(0, 2, 1)).reshape(j, 16), "MAT4", _FLOAT,
                   what=what)


def _emit(fspath: str, suffix: str, gltf: dict[str, Any], buf: _Buffer) -> None:
    """Write the JSON and the buffer as .gltf (base64 data URI) or .glb."""
    gltf["accessors"] = buf.accessors
    gltf["bufferViews"] = buf.views
    blob = buf.data()
    if suffix == ".gltf":
        gltf["buffers"] = [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64,"
                            + base64.b64encode(blob).decode("ascii")}]
        payload = json.dumps(gltf, separators=(",", ":"), allow_nan=False).encode("utf-8")
    else:
        gltf["buffers"] = [{"byteLength": len(blob)}]
        text = json.dumps(gltf, separators=(",", ":"), allow_nan=False).encode("utf-8")
        text += b" " * (-len(text) % 4)
        total = 12 + 8 + len(text) + 8 + len(blob)
        payload = b"".join([struct.pack("<III", _GLB_MAGIC, 2, total),
                            struct.pack("<II", len(text), _GLB_JSON), text,
                            struct.pack("<II", len(blob), _GLB_BIN), blob])
    write_file(fspath, payload)


# --- a whole character: a GltfAsset ------------------------------------------------------------

_NOT_WRITTEN = (("materials", "material"), ("textures", "texture"), ("images", "image"),
                ("cameras", "camera"))


def _asset_gltf(asset: GltfAsset, scale: float) -> tuple[dict[str, Any], _Buffer]:
    """The file of a loaded asset: its node tree (node indices kept), skins, skinned meshes
    (one mesh per skinned node, its primitives in order) and animations (their keyframes as
    loaded: times, values, interpolation). Warns once about what is not written."""
    doc = asset._doc
    if doc is None or not hasattr(doc, "node_objs"):
        raise ValueError("clip: expected a GltfAsset from load_gltf (it keeps the node tree), "
                         "got one without it")
    node_objs = doc.node_objs
    buf = _Buffer()
    gltf: dict[str, Any] = {"asset": {"version": "2.0", "generator": "skelsimd save_gltf"}}
    nodes: list[dict[str, Any]] = []
    for k, nd in enumerate(node_objs):
        raw = asset.nodes[k] if k < len(asset.nodes) else {}
        node: dict[str, Any] = {}
        if isinstance(raw.get("name"), str):
            node["name"] = raw["name"]
        # the file's numbers as read (float64: JSON numbers are not float32), within
        # float32's range
        if nd.matrix is not None:
            m = nd.matrix.copy()
            m[:3, 3] *= scale
            _float32_range(_f32(m), f"nodes[{k}].matrix")
            node["matrix"] = [float(x) for x in m.T.reshape(-1)]
        else:
            trs = [np.array(nd.t) * scale, np.array(nd.r), np.array(nd.s, dtype=np.float64)]
            for part, what in zip(trs, ("translation", "rotation", "scale")):
                _float32_range(_f32(part), f"nodes[{k}].{what}")
            node.update(_trs_fields(*trs))
        if nd.children:
            node["children"] = list(nd.children)
        nodes.append(node)

    skins = []
    for s, sk in enumerate(asset.skins):
        ib = sk.inverse_bind.astype(np.float64)
        ib[..., 3] *= scale
        skin: dict[str, Any] = {"name": sk.name, "joints": [int(x) for x in sk.nodes],
                                "inverseBindMatrices": _inverse_binds(
                                    buf, ib, f"skins[{s}].inverse_bind")}
        skins.append(skin)

    by_node: dict[int, list[int]] = {}
    for i, m in enumerate(asset.meshes):
        by_node.setdefault(m.node, []).append(i)
    meshes = []
    for node_index, members in by_node.items():
        prims = []
        for i in members:
            m = asset.meshes[i]
            arrays = _mesh_arrays(m, len(asset.skins[m.skin].nodes), f"asset.meshes[{i}]")
            arrays["positions"] *= scale
            prims.append(_primitive(buf, arrays, f"asset.meshes[{i}]"))
        first = asset.meshes[members[0]]
        source = doc.j["meshes"][first.mesh] if first.mesh < len(doc.j.get("meshes", [])) else {}
        mesh: dict[str, Any] = {"primitives": prims}
        if isinstance(source, dict) and isinstance(source.get("name"), str):
            mesh = {"name": source["name"], **mesh}
        meshes.append(mesh)
        nodes[node_index]["mesh"] = len(meshes) - 1
        nodes[node_index]["skin"] = first.skin

    animations = []
    morph_channels = empty_animations = 0
    for anim in asset.animations:
        samplers: list[dict[str, Any]] = []
        channels: list[dict[str, Any]] = []
        inputs: dict[bytes, int] = {}
        for c in anim.channels:
            if c.path == "weights":
                morph_channels += 1
                continue
            key = c.times.tobytes()
            if key not in inputs:
                inputs[key] = buf.add(np.ascontiguousarray(c.times, dtype=np.float32), "SCALAR",
                                      _FLOAT, minmax=True, what=f"{anim.name}.times")
            values = c.values.reshape(-1, c.values.shape[-1]).astype(np.float64)
            if c.path == "translation":
                values = values * scale
            samplers.append({"input": inputs[key],
                             "output": buf.add(_f32(values), "VEC4" if c.path == "rotation"
                                               else "VEC3", _FLOAT,
                                               what=f"animation {anim.name!r:.40} values"),
                             "interpolation": c.interpolation})
            channels.append({"sampler": len(samplers) - 1,
                             "target": {"node": c.node, "path": c.path}})
        if not channels:
            empty_animations += 1
            continue
        animations.append({"name": anim.name, "channels": channels, "samplers": samplers})

    roots = [nd.index for nd in node_objs if nd.parent < 0]
    gltf["scene"] = 0
    gltf["scenes"] = [{"nodes": roots}]
    gltf["nodes"] = nodes
    if meshes:
        gltf["meshes"] = meshes
    if skins:
        gltf["skins"] = skins
    if animations:
        gltf["animations"] = animations

    dropped = [f"{len(doc.j[key])} {one if len(doc.j[key]) == 1 else key}"
               for key, one in _NOT_WRITTEN if isinstance(doc.j.get(key), list) and doc.j[key]]
    static = sum(1 for k, nd in enumerate(node_objs) if nd.mesh is not None and k not in by_node)
    if static:
        dropped.append(f"{static} mesh node{'s' if static > 1 else ''} without a skin")
    if morph_channels:
        dropped.append(f"{morph_channels} morph-weight channel{'s' if morph_channels > 1 else ''}")
    if empty_animations:
        dropped.append(f"{empty_animations} animation{'s' if empty_animations > 1 else ''} "
                       "with no node transform channel")
    if dropped:
        warnings.warn("save_gltf: not written (skelsimd reads skins, skinned meshes and node "
                      "animations only): " + ", ".join(dropped), UserWarning, stacklevel=3)
    return gltf, buf
