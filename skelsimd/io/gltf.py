"""glTF 2.0 characters in: skins, skinned meshes and animations of ``.gltf`` and ``.glb`` files.

:func:`load_gltf` reads a file into a :class:`GltfAsset`: its skins as :class:`skelsimd.Skeleton`
with inverse bind matrices, its skinned mesh primitives ready for :func:`skelsimd.skin`, its
animations as keyframes and, sampled at a fixed rate, as :class:`skelsimd.Clip` (one per
animation and skin it drives).

Why a reader of its own
-----------------------
No pip-installable library gives this: trimesh loads meshes but has no animation or skeletons,
pygltflib parses the JSON schema and leaves every accessor (byte strides, normalized integers,
sparse substitution, matrix column padding) to the user, pyrender's glTF animation support is
an open request. glTF is JSON plus binary buffers, so the standard library's ``json``,
``base64`` and ``struct`` with NumPy views on the buffers are enough: NumPy stays the only
runtime dependency.

The numbers
-----------
For every frame ``f`` of a clip ``c`` of skin ``s``::

    g = skelsimd.qts_local_to_global_matrix(c.local[f], c.skeleton)

are the joints' world matrices as a glTF viewer computes them: the transforms of nodes that
are not joints of the skin (above the first joint, or between a joint and its nearest joint
ancestor), animated or not, are folded into the joint below them (a root joint's local is the
world matrix of its node parent times its own local; a joint whose nearest joint ancestor is
not its node parent gets the product of the nodes in between). Joints and nodes that the
animation does not drive keep their node's rest transform. Then::

    skelsimd.skin(m.positions, m.joint_indices, m.weights,
                  skelsimd.multiply_joints(g, asset.skins[m.skin].inverse_bind))

are the viewer's skinned vertices (the skinned mesh node's own transform is ignored, as the
specification says). ``skelsimd.reference.gltf`` evaluates the node tree independently in
float64; the tests compare both on every file, at keys and between keys.

Sampling: frame ``f`` is the pose at ``t = f / sample_rate`` seconds on the file's timeline
(``t = 0`` is the origin even when the first key comes later; a channel holds its first value
before its first key and its last value after its last key), for ``t`` up to the animation's
last key. Interpolation is glTF's: ``STEP``; ``LINEAR`` (rotations by shortest-arc slerp);
``CUBICSPLINE`` (Hermite with the tangents scaled by the key interval; rotations renormalised).
The default rate is the one the keys imply: ``1 / d`` for the smallest key interval ``d`` of
the animation, when that is within 0.1% of an integer rate from 1 to 1000 Hz (float32 key times
of a 24 Hz animation give 23.99998 Hz: 24 Hz), else 30 Hz.

Scale: QTS carries a uniform scale. Exporters leave float32 noise on scale keys (Blender's
bake, FBX2glTF and three.js write scales such as ``[1, 1.000002, 1.000016]``), so a joint's
folded local matrix is taken as a similarity when its three axis scales (column lengths)
spread by at most ``scale_tolerance`` of their mean and its axes are orthogonal within the
same tolerance (cosines; default :data:`SIMILARITY_TOLERANCE`, 1e-3, a keyword of
:func:`load_gltf`): its uniform scale is then the mean of the axis scales and its rotation the
one of the normalised axes. This moves a joint's world position by at most
``[bound:gltf.scale_snap] * scale_tolerance * sum_k |p - o_k|`` over its ancestors ``k``
(``o_k`` their world positions), to first order. Beyond the tolerance (a genuinely
non-uniform ``scale`` or a sheared ``matrix`` on the joint or on a folded node) the clip is
refused, one clip at a time: :meth:`GltfAsset.clip` raises a ValueError naming the node and
its scale, ``GltfAsset.clips`` leaves that clip out with one warning naming every refused
animation (``GltfAsset.refused`` keeps the reasons), and :meth:`GltfAsset.local_matrices`
gives the exact 3x4 local matrices ``(F, J, 3, 4)`` (never a silent approximation). A skin
whose rest pose is not a similarity stores it as matrices ``(J, 3, 4)`` in ``skeleton.rest``
(QTS ``(J, 8)`` otherwise).

Weights: each vertex's weights are divided by their sum (``skin`` uses weights as given, and
viewers normalise them too); when a row's sum differs from 1 by more than
:data:`WEIGHT_TOLERANCE` (plus half a quantum per influence for integer weights) a warning names
the mesh. A row of zero weights gets weight 1 on its first influence (as three.js does), with a
warning.

Morph targets: the meshes are the base shapes (targets are not applied); ``weights`` channels
are kept as keyframes (``animations[i].channels``) and sampled into ``clip.morph_weights``
(``{node: (F, W) float32}``).

Untrusted files: every index, count, offset and length is checked against what the file holds
before anything is read or allocated, so a bad file raises a ValueError naming the part of the
file (``accessors[12]: byteOffset + (count - 1) * byteStride + element size = 5000 exceeds
bufferViews[3].byteLength 4096``) in bounded time and memory. A buffer ``uri`` must name a file
inside the ``.gltf`` file's directory (after resolving ``..`` and symbolic links) or be a
base64 ``data:`` URI. Limits that keep hostile files bounded: accessors decode at most 32
bytes per byte of file plus 64 MB in all, an accessor without a ``bufferView`` holds at most
64 MB, the skins' folded chains hold at most 2**20 nodes in all, a clip at most 2**24
joint-frames (the frame count is checked when the file loads).

Influences: ``joint_indices`` and ``weights`` have K = 4 columns per JOINTS_n/WEIGHTS_n set;
:func:`skelsimd.skin` takes up to 8, so a mesh with three sets goes through
:meth:`GltfMesh.compact_influences` first (exact when no vertex has more than 8 non-zero
weights).

Examples
--------
>>> import skelsimd, tempfile, os
>>> from skelsimd.io.gltf import example_glb
>>> path = os.path.join(tempfile.mkdtemp(), "bend.glb")
>>> _ = open(path, "wb").write(example_glb())
>>> asset = skelsimd.load_gltf(path)
>>> asset.skins[0].skeleton.names
('root', 'tip')
>>> clip = asset.clips[0]
>>> clip.name, clip.skin, clip.frames, round(clip.fps)
('bend', 0, 11, 10)
>>> mesh = asset.meshes[0]
>>> g = skelsimd.qts_local_to_global_matrix(clip.local[10], clip.skeleton)
>>> v = skelsimd.skin(mesh.positions, mesh.joint_indices, mesh.weights,
...                   skelsimd.multiply_joints(g, asset.skins[mesh.skin].inverse_bind))
>>> v.shape
(4, 3)
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
import os
import re
import struct
import urllib.parse
import warnings
from typing import Any, Iterable, Iterator, Protocol, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from ..bounds import fill_docstrings
from ..clip import Clip
from ..skeleton import Skeleton
from ._file_errors import in_file, looks_like, preview

__all__ = ["load_gltf", "load_gltf_clip", "example_glb", "GltfAsset", "GltfSkin", "GltfMesh",
           "GltfAnimation", "GltfChannel",
           "GltfClip", "WEIGHT_TOLERANCE", "SIMILARITY_TOLERANCE", "MAX_SCALE_TOLERANCE",
           "SUPPORTED_EXTENSIONS"]

#: A vertex whose weights sum to 1 +- this (plus half a quantum per influence for integer
#: weights) is renormalised silently; beyond it, with a warning naming the mesh.
WEIGHT_TOLERANCE = 1e-3
#: The default ``scale_tolerance`` of :func:`load_gltf`: a local matrix ``A`` is taken as a
#: similarity (rotation times uniform scale) when its axis scales (column lengths ``s_i``) spread
#: by at most this fraction of their mean (``max s_i - min s_i <= tol * mean s``) and the cosine
#: of every pair of its axes is at most this (float32 exporters' noise is about 2e-5).
SIMILARITY_TOLERANCE = 1e-3
#: The largest ``scale_tolerance`` :func:`load_gltf` accepts.
MAX_SCALE_TOLERANCE = 0.1
# A tolerance of 0 still forgives float64 rounding of the folded matrices.
_TOLERANCE_FLOOR = 1e-9
#: ``extensionsRequired`` entries the reader accepts (they do not change skins, meshes'
#: positions or animations, or only widen the accessor types, which the reader decodes); every
#: ``KHR_materials_*`` extension is accepted too (materials are not read).
SUPPORTED_EXTENSIONS = frozenset({
    "KHR_mesh_quantization", "KHR_texture_transform", "KHR_texture_basisu", "EXT_texture_webp",
    "EXT_texture_avif", "KHR_lights_punctual", "KHR_materials_unlit", "KHR_xmp_json_ld"})

Arr = NDArray[Any]
F64 = NDArray[np.float64]
Json = dict[str, Any]

_MAX_RATE = 1000.0
_DEFAULT_RATE = 30.0
_MAX_JOINT_FRAMES = 1 << 24      # frames x joints of one clip (a 512 MB QTS array)
_MAX_ZERO_BYTES = 1 << 26        # an accessor without a bufferView (zeros, sparse) at most 64 MB
_MAX_CHAIN_NODES = 1 << 20      # nodes in all the skins' folded chains (bounds the work)
_DECODE_FACTOR = 32               # decoded bytes allowed per byte of file (plus _DECODE_FLOOR)
_DECODE_FLOOR = 1 << 26
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_CHUNK = 1 << 16                 # joint-frames evaluated at a time (bounds the float64 scratch)

_COMPONENTS: dict[int, np.dtype[Any]] = {
    5120: np.dtype("<i1"), 5121: np.dtype("<u1"), 5122: np.dtype("<i2"),
    5123: np.dtype("<u2"), 5125: np.dtype("<u4"), 5126: np.dtype("<f4")}
_TYPES = {"SCALAR": (1, 1), "VEC2": (1, 2), "VEC3": (1, 3), "VEC4": (1, 4),
          "MAT2": (2, 2), "MAT3": (3, 3), "MAT4": (4, 4)}       # (columns, rows)
_NORM_SCALE = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}
_GLB_MAGIC, _JSON_CHUNK, _BIN_CHUNK = 0x46546C67, 0x4E4F534A, 0x004E4942
_PATH_SIZE = {"translation": 3, "rotation": 4, "scale": 3}


# --- the result ------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class GltfSkin:
    """One skin: its joints as a skeleton (depth-first, names from the nodes made unique).

    Attributes
    ----------
    name : str
    skeleton : Skeleton
        The joints in depth-first order of the node tree; a joint's parent is its nearest
        ancestor node that is a joint of this skin. ``rest`` is the folded rest pose (QTS
        ``(J, 8)``, or matrices ``(J, 3, 4)`` where a scale is not uniform).
    nodes : ndarray of int, (J,)
        The glTF node index of each joint, in skeleton order.
    inverse_bind : ndarray, float32 (J, 3, 4)
        The inverse bind matrices, skeleton order (identity when the file has none).
    joints : ndarray of int, (J,)
        The skin's ``joints`` as listed in the file (``nodes == joints[perm]``).
    perm : ndarray of intp, (J,)
        Skeleton joint i is the file's joint ``perm[i]``.
    """
    name: str
    skeleton: Skeleton
    nodes: Arr
    inverse_bind: Arr
    joints: Arr
    perm: Arr
    chains: tuple[tuple[int, ...], ...] = dataclasses.field(repr=False, default=())
    plan: _FoldPlan | None = dataclasses.field(repr=False, default=None)


_M = TypeVar("_M", bound="_SkinnedMesh")


class _SkinnedMesh(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def joint_indices(self) -> Arr: ...
    @property
    def weights(self) -> Arr: ...


def _compact_influences(mesh: _M, max_influences: int) -> _M:
    """compact_influences of GltfMesh and UsdMesh (frozen dataclasses with name,
    joint_indices and weights)."""
    if isinstance(max_influences, bool) or not isinstance(max_influences, int) \
            or max_influences < 1:
        raise ValueError(f"max_influences: expected an int >= 1, got {max_influences!r}")
    w, ji = mesh.weights, mesh.joint_indices
    order = np.argsort(w == 0, axis=1, kind="stable")
    w = np.take_along_axis(w, order, axis=1)
    ji = np.take_along_axis(ji, order, axis=1)
    used = (w != 0).sum(axis=1)
    if used.size and int(used.max()) > max_influences:
        v = int(np.argmax(used > max_influences))
        raise ValueError(f"{mesh.name}: vertex {v} has {int(used[v])} non-zero weights, more "
                         f"than max_influences = {max_influences}")
    k = min(max_influences, w.shape[1])
    out: _M = dataclasses.replace(cast(Any, mesh), joint_indices=np.ascontiguousarray(ji[:, :k]),
                                  weights=np.ascontiguousarray(w[:, :k]))
    return out


@dataclasses.dataclass(frozen=True)
class GltfMesh:
    """A skinned mesh primitive: exactly what :func:`skelsimd.skin` takes.

    Attributes
    ----------
    name : str
        ``"<mesh name>[<primitive>]"``.
    node, mesh, primitive : int
        The skinned node, its mesh and the primitive's index in it.
    skin : int
        Index of its skin in ``GltfAsset.skins``.
    positions : ndarray, float32 (V, 3)
    normals : ndarray, float32 (V, 3) or None
    triangles : ndarray, int32 (T, 3)
        Triangle strips and fans converted to triangles.
    joint_indices : ndarray, int32 (V, K)
        Skeleton order (not the file's ``skin.joints`` order); K = 4 per JOINTS_n set (8 or
        12 with two or three sets). ``skelsimd.skin`` takes up to 8: see
        :meth:`compact_influences` for three sets.
    weights : ndarray, float32 (V, K)
        Rows renormalised to sum to 1.
    """
    name: str
    node: int
    mesh: int
    primitive: int
    skin: int
    positions: Arr
    normals: Arr | None
    triangles: Arr
    joint_indices: Arr
    weights: Arr

    def compact_influences(self, max_influences: int = 8) -> GltfMesh:
        """The mesh with at most ``max_influences`` columns of influences: each vertex's
        non-zero weights moved first (in their order), then the columns that hold only zeros
        dropped. Exact (the same skinned vertices); a ValueError naming the mesh and a vertex
        when one has more non-zero weights than that.

        Examples
        --------
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "bend.glb")
        >>> _ = open(path, "wb").write(example_glb())
        >>> load_gltf(path).meshes[0].compact_influences(1).weights.shape
        (4, 1)
        """
        return _compact_influences(self, max_influences)


@dataclasses.dataclass(frozen=True)
class GltfChannel:
    """One animation channel's keyframes, as in the file.

    Attributes
    ----------
    node : int
    path : str
        ``"translation"``, ``"rotation"``, ``"scale"`` or ``"weights"``.
    interpolation : str
        ``"STEP"``, ``"LINEAR"`` or ``"CUBICSPLINE"``.
    times : ndarray, float32 (n,)
    values : ndarray, float32 (n, C), or (n, 3, C) for CUBICSPLINE (in-tangent, value,
        out-tangent); normalized integers decoded.
    """
    node: int
    path: str
    interpolation: str
    times: Arr
    values: Arr

    def sample(self, t: Any) -> F64:
        """The channel's values at times ``t`` (seconds, any shape), float64 ``(..., C)``,
        with glTF interpolation (rotations unit length)."""
        return _sample(self, np.asarray(t, dtype=np.float64))


@dataclasses.dataclass(frozen=True)
class GltfAnimation:
    """An animation's keyframes: ``name`` (``animation<i>`` when it has none), ``channels``
    (:class:`GltfChannel`) and ``duration`` (its last key time, seconds)."""
    name: str
    channels: tuple[GltfChannel, ...]
    duration: float
    by_node: dict[int, dict[str, GltfChannel]] = dataclasses.field(repr=False, default_factory=dict)


class GltfClip(Clip):
    """A :class:`skelsimd.Clip` sampled from a glTF animation, with ``skin`` (the index of its
    skin in ``GltfAsset.skins``) and ``morph_weights`` (``{node: (F, W) float32}``, the sampled
    morph-target weights of the animation's ``weights`` channels, empty when none).

    Editing (slicing, resampling, mirroring, ...) returns GltfClips keeping ``name`` and
    ``skin``; ``morph_weights`` is dropped there (its frames no longer match)."""

    def __init__(self, skeleton: Skeleton, local: Any, frame_time: float, *,
                 skin: int | None = None, morph_weights: dict[int, Arr] | None = None, **kwargs: Any):
        super().__init__(skeleton, local, frame_time, **kwargs)
        self.skin = skin
        self.morph_weights = {} if morph_weights is None else dict(morph_weights)

    def _with(self, local: Any, frame_time: float | None = None,
              skeleton: Skeleton | None = None) -> GltfClip:
        clip = super()._with(local, frame_time, skeleton)
        clip.skin = self.skin
        return clip

    def reorder(self, order: Any = "depth-first") -> tuple[GltfClip, Arr, Arr]:
        clip, perm, inverse = super().reorder(order)
        clip.skin = self.skin
        return clip, perm, inverse


_C = TypeVar("_C", bound=Clip)
_C_co = TypeVar("_C_co", bound=Clip, covariant=True)


class _ClipSource(Protocol[_C_co]):
    """What _clips_refusing reads: an asset's animations, its clip pairs and clip()."""
    @property
    def animations(self) -> Any: ...
    def clip_pairs(self) -> list[tuple[int, int]]: ...
    def clip(self, animation: int, skin: int = 0) -> _C_co: ...


def _clips_refusing(asset: _ClipSource[_C],
                    kind: str) -> tuple[list[_C], dict[tuple[str, int], str]]:
    """(clips, refused) of every clip pair of an asset (GltfAsset, UsdAsset): a clip that
    cannot be converted is left out, with one warning naming every refused animation."""
    clips: list[_C] = []
    refused: dict[tuple[str, int], str] = {}
    for a, s in asset.clip_pairs():
        try:
            clips.append(asset.clip(a, s))
        except ValueError as e:
            refused[(asset.animations[a].name, s)] = str(e)
    if refused:
        lines = "; ".join(f"animation {name!r:.60} (skin {s}): {why}"
                          for (name, s), why in list(refused.items())[:5])
        more = f"; and {len(refused) - 5} more" if len(refused) > 5 else ""
        warnings.warn(f"{len(refused)} of {len(refused) + len(clips)} clips refused, "
                      f"{kind}.refused has the reasons: {lines}{more}", UserWarning, stacklevel=3)
    return clips, refused


@dataclasses.dataclass
class GltfAsset:
    """What :func:`load_gltf` read.

    Attributes
    ----------
    skins : list of GltfSkin
    meshes : list of GltfMesh
        Every triangle primitive of every node that has a mesh and a skin.
    animations : list of GltfAnimation
        The keyframes of every animation.
    sample_rate : float or None
        The rate passed to ``load_gltf`` (None: each animation's implied rate).
    nodes : list of dict
        The file's nodes (JSON), for reference.
    clips : list of GltfClip
        One per animation and skin it drives (its TRS channels move a joint of the skin or a
        node folded into one), animations first: built when first read. A clip that cannot
        be converted (a scale not uniform within ``scale_tolerance``: use
        :meth:`local_matrices`) is left out, with one warning naming every refused animation;
        :meth:`clip` raises for it.
    refused : dict
        ``{(animation name, skin): reason}`` of the clips ``clips`` left out (filled when
        ``clips`` is first read).
    scale_tolerance : float
        The relative tolerance under which a joint's scale counts as uniform (see
        :func:`load_gltf`).
    """
    skins: list[GltfSkin]
    meshes: list[GltfMesh]
    animations: list[GltfAnimation]
    sample_rate: float | None
    nodes: list[Json]
    _doc: Any = dataclasses.field(repr=False, default=None)
    _clips: list[GltfClip] | None = dataclasses.field(repr=False, default=None)
    scale_tolerance: float = SIMILARITY_TOLERANCE
    refused: dict[tuple[str, int], str] = dataclasses.field(default_factory=dict)

    @property
    def clips(self) -> list[GltfClip]:
        if self._clips is None:
            self._clips, self.refused = _clips_refusing(self, "GltfAsset")
        return self._clips

    def plot(self, frame: int = 0, ax: Any = None, **kwargs: Any) -> Any:
        """The skinned mesh at one frame; see :func:`skelsimd.plotting.plot_gltf`."""
        from ..plotting import plot_gltf
        return plot_gltf(self, frame, ax, **kwargs)

    def animate(self, **kwargs: Any) -> Any:
        """The skinned mesh played inline (a canvas player); see
        :func:`skelsimd.plotting.animate_gltf`."""
        from ..plotting import animate_gltf
        return animate_gltf(self, **kwargs)

    def clip_pairs(self) -> list[tuple[int, int]]:
        """``(animation, skin)`` index pairs, one per clip, in the order of ``clips``."""
        pairs = []
        for a, anim in enumerate(self.animations):
            moved = {c.node for c in anim.channels if c.path in _PATH_SIZE}
            for s, skin in enumerate(self.skins):
                if skin.plan is not None and not moved.isdisjoint(skin.plan.index):
                    pairs.append((a, s))
        return pairs

    def sample_rate_of(self, animation: int) -> float:
        """The rate clips of this animation are sampled at."""
        if self.sample_rate is not None:
            return self.sample_rate
        return _implied_rate(self.animations[animation])

    def local_matrices(self, animation: int, skin: int = 0,
                       sample_rate: float | None = None) -> Arr:
        """Folded local joint matrices ``(F, J, 3, 4)`` float32 of a skin driven by an
        animation, exact for any scale (``local_to_global`` of them gives the world matrices)."""
        a, s, rate = self._check_pair(animation, skin, sample_rate)
        frames = _frame_count(self.animations[a], rate, len(self.skins[s].nodes))
        out = np.empty((frames, len(self.skins[s].nodes), 3, 4), dtype=np.float32)
        for f0, m in _folded_locals(self, a, s, rate):
            _check_finite(m, f0, self.skins[s], self.animations[a])
            out[f0:f0 + len(m)] = m[..., :3, :]
        return out

    def clip(self, animation: int | str, skin: int = 0,
             sample_rate: float | None = None) -> GltfClip:
        """The clip of skin ``skin`` driven by animation ``animation`` (its index or its name;
        any pair, driven or not), sampled at ``sample_rate`` (default: as ``clips``).
        ValueError naming the node and its scale where a joint's folded local is not a
        similarity within ``scale_tolerance``."""
        a, s, rate = self._check_pair(animation, skin, sample_rate)
        sk, anim = self.skins[s], self.animations[a]
        frames = _frame_count(anim, rate, len(sk.nodes))
        qts = np.empty((frames, len(sk.nodes), 8), dtype=np.float32)
        for f0, m in _folded_locals(self, a, s, rate):
            qts[f0:f0 + len(m)] = _matrices_to_qts(m, f0, sk, self._doc, anim, rate,
                                                   self.scale_tolerance)
        _continuous(qts)
        morph = {}
        t = np.arange(frames) / rate
        for c in anim.channels:
            if c.path == "weights":
                morph[c.node] = c.sample(t).astype(np.float32)
        return GltfClip(sk.skeleton, qts, 1.0 / rate, name=anim.name, skin=s, morph_weights=morph)

    def _check_pair(self, animation: int | str, skin: int,
                    sample_rate: float | None) -> tuple[int, int, float]:
        if isinstance(animation, str):
            names = [anim.name for anim in self.animations]
            if animation not in names:
                raise ValueError(f"animation: no animation named {animation!r:.60} (the file "
                                 f"has {len(names)}: {', '.join(repr(n) for n in names[:8])}"
                                 f"{', ...' if len(names) > 8 else ''})")
            animation = names.index(animation)
        for value, name, n in ((animation, "animation", len(self.animations)),
                               (skin, "skin", len(self.skins))):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
            if not 0 <= value < n:
                raise ValueError(f"{name}: expected 0 <= {name} < {n}, got {value}")
        rate = (self.sample_rate_of(int(animation)) if sample_rate is None
                else _check_rate(sample_rate))
        return int(animation), int(skin), rate


# --- small JSON checks ---------------------------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _get_list(d: Json, key: str, where: str) -> list[Any]:
    v = d.get(key, [])
    if not isinstance(v, list):
        raise ValueError(f"{where}.{key}: expected a JSON array, got {type(v).__name__}")
    return v


def _get_obj(lst: list[Any], i: int, where: str) -> Json:
    if not 0 <= i < len(lst):
        raise ValueError(f"{where}[{i}]: index out of range, the file has {len(lst)}")
    v = lst[i]
    if not isinstance(v, dict):
        raise ValueError(f"{where}[{i}]: expected a JSON object, got {type(v).__name__}")
    return v


def _get_int(d: Json, key: str, where: str, low: int = 0, high: int | None = None,
             default: int | None = None) -> int:
    v = d.get(key, default)
    if v is None:
        raise ValueError(f"{where}.{key}: required, missing")
    if not _is_int(v):
        raise ValueError(f"{where}.{key}: expected an integer, got {v!r:.40}")
    if v < low or (high is not None and v > high):
        span = f"{low} <= {key}" + (f" <= {high}" if high is not None else "")
        raise ValueError(f"{where}.{key}: expected {span}, got {v}")
    return int(v)


def _get_index(d: Json, key: str, where: str, count: int, what: str) -> int | None:
    v = d.get(key)
    if v is None:
        return None
    if not _is_int(v):
        raise ValueError(f"{where}.{key}: expected an index of {what}, got {v!r:.40}")
    if not 0 <= v < count:
        raise ValueError(f"{where}.{key}: {what}[{v}] does not exist (the file has {count})")
    return int(v)


def _get_numbers(d: Json, key: str, where: str, n: int, default: list[float]) -> list[float]:
    v = d.get(key)
    if v is None:
        return default
    if (not isinstance(v, list) or len(v) != n
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
        raise ValueError(f"{where}.{key}: expected {n} numbers, got {v!r:.60}")
    try:
        a = [float(x) for x in v]
    except OverflowError:
        a = [math.inf]
    if not all(math.isfinite(x) for x in a):
        raise ValueError(f"{where}.{key}: expected finite numbers, got {v!r:.60}")
    return a


def _get_str(d: Json, key: str, where: str, default: str | None = None) -> str | None:
    v = d.get(key, default)
    if v is not None and not isinstance(v, str):
        raise ValueError(f"{where}.{key}: expected a string, got {type(v).__name__}")
    return v


# --- the document: JSON and buffers ----------------------------------------------------------------

class _Doc:
    node_objs: list[_Node]
    preorder: list[int]
    root_of: list[int]
    chain_nodes: int = 0
    spent: int = 0

    def __init__(self, path: Any) -> None:
        self.path = str(os.fsdecode(path))
        with open(self.path, "rb") as f:
            data = f.read()
        self.file_bytes = len(data)
        self.directory = os.path.dirname(os.path.abspath(self.path))
        self.bin: memoryview | None = None
        if data[:4] == b"glTF":
            text = self._glb(data)
        elif looks_like(data) != "JSON":
            raise ValueError(f"{self.path}: not a glTF/GLB file: it looks like {looks_like(data)} "
                             f"(starts with {preview(data)})")
        else:
            text = data
        try:
            j = json.loads(text.decode("utf-8-sig") if isinstance(text, bytes) else text)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{self.path}: the JSON is not UTF-8 ({exc})") from None
        except ValueError as exc:      # json.JSONDecodeError, or an integer of too many digits
            raise ValueError(f"{self.path}: malformed JSON: {exc}") from None
        except RecursionError:
            raise ValueError(f"{self.path}: malformed JSON: nested too deeply") from None
        if not isinstance(j, dict):
            raise ValueError(f"{self.path}: expected a JSON object at the top, got "
                             f"{type(j).__name__}")
        self.j = j
        asset = j.get("asset")
        version = asset.get("version") if isinstance(asset, dict) else None
        if not isinstance(version, str) or not version.startswith("2."):
            raise ValueError(f"asset.version: expected a glTF 2.x file, got {version!r:.40}")
        required = _get_list(j, "extensionsRequired", "glTF")
        for k, ext in enumerate(required):
            if not isinstance(ext, str) or (ext not in SUPPORTED_EXTENSIONS
                                            and not ext.startswith("KHR_materials_")):
                raise ValueError(f"extensionsRequired[{k}]: {ext!r:.60} is not supported "
                                 f"(supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))})")
        self.buffers_json = _get_list(j, "buffers", "glTF")
        self.views = _get_list(j, "bufferViews", "glTF")
        self.accessors = _get_list(j, "accessors", "glTF")
        self.nodes = _get_list(j, "nodes", "glTF")
        self.meshes = _get_list(j, "meshes", "glTF")
        self.skins = _get_list(j, "skins", "glTF")
        self.animations = _get_list(j, "animations", "glTF")
        self._buffers: dict[int, memoryview] = {}
        self._accessor_cache: dict[int, Arr] = {}

    def _glb(self, data: bytes) -> bytes:
        if len(data) < 20:
            raise ValueError(f"{self.path}: GLB header: {len(data)} bytes, expected at least 20")
        magic, version, length = struct.unpack_from("<III", data, 0)
        if version != 2:
            raise ValueError(f"{self.path}: GLB header: version {version}, expected 2")
        if length > len(data):
            raise ValueError(f"{self.path}: GLB header: length {length} exceeds the file's "
                             f"{len(data)} bytes")
        view = memoryview(data)[:length]
        pos = 12
        chunks: list[tuple[int, memoryview]] = []
        while pos + 8 <= length:
            clen, ctype = struct.unpack_from("<II", view, pos)
            if pos + 8 + clen > length:
                raise ValueError(f"{self.path}: GLB chunk {len(chunks)}: chunkLength {clen} at "
                                 f"byte {pos} exceeds the file's length {length}")
            chunks.append((ctype, view[pos + 8:pos + 8 + clen]))
            pos += 8 + clen
        if not chunks or chunks[0][0] != _JSON_CHUNK:
            raise ValueError(f"{self.path}: GLB chunk 0: expected the JSON chunk")
        if len(chunks) > 1 and chunks[1][0] == _BIN_CHUNK:
            self.bin = chunks[1][1]
        return bytes(chunks[0][1])

    def buffer(self, i: int) -> memoryview:
        if i in self._buffers:
            return self._buffers[i]
        where = f"buffers[{i}]"
        b = _get_obj(self.buffers_json, i, "buffers")
        length = _get_int(b, "byteLength", where, 1)
        uri = _get_str(b, "uri", where)
        data: bytes | memoryview
        if uri is None:
            if i != 0 or self.bin is None:
                raise ValueError(f"{where}: no uri and no GLB binary chunk")
            data = self.bin
        elif uri.startswith("data:"):
            head, comma, payload = uri.partition(",")
            if not comma or not head.endswith(";base64"):
                raise ValueError(f"{where}.uri: expected a base64 data URI")
            try:
                data = base64.b64decode(payload, validate=False)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"{where}.uri: bad base64 data ({exc})") from None
        else:
            data = self._external(uri, where, length)
        if len(data) < length:
            raise ValueError(f"{where}: byteLength {length} exceeds the {len(data)} bytes of its data")
        chunk = memoryview(data)[:length]
        self._buffers[i] = chunk
        return chunk

    def _external(self, uri: str, where: str, length: int) -> bytes:
        name = urllib.parse.unquote(uri)
        scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]+:", uri)
        if scheme or os.path.isabs(name) or name.startswith(("/", "\\")) \
                or (len(name) > 1 and name[1] == ":") or "\0" in name:
            raise ValueError(f"{where}.uri: {uri!r:.80} is not a relative path inside the "
                             "file's directory")
        base = os.path.realpath(self.directory)
        target = os.path.realpath(os.path.join(base, name))
        if os.path.commonpath([base, target]) != base or target == base:
            raise ValueError(f"{where}.uri: {uri!r:.80} leads outside the file's directory")
        if not os.path.isfile(target):
            raise ValueError(f"{where}.uri: {uri!r:.80}: no such file next to the glTF file")
        try:
            size = os.path.getsize(target)
            if size < length:
                raise ValueError(f"{where}: byteLength {length} exceeds the {size} bytes of "
                                 f"{uri!r:.80}")
            with open(target, "rb") as f:
                data = f.read(length)
        except OSError as exc:
            raise ValueError(f"{where}.uri: {uri!r:.80}: {exc.strerror or exc}") from None
        self.file_bytes += len(data)
        return data

    # --- accessors ---

    def view(self, v: int, where: str) -> tuple[memoryview, int | None]:
        bv = _get_obj(self.views, v, "bufferViews")
        vw = f"bufferViews[{v}]"
        b = _get_int(bv, "buffer", vw, 0, len(self.buffers_json) - 1)
        off = _get_int(bv, "byteOffset", vw, 0, default=0)
        length = _get_int(bv, "byteLength", vw, 1)
        stride = bv.get("byteStride")
        if stride is not None:
            stride = _get_int(bv, "byteStride", vw, 4, 252)
        data = self.buffer(b)
        if off + length > len(data):
            raise ValueError(f"{vw}: byteOffset + byteLength = {off + length} exceeds "
                             f"buffers[{b}].byteLength {len(data)}")
        return data[off:off + length], stride

    def accessor(self, i: int, where: str) -> Arr:
        """The accessor's elements (count, n) in its component dtype, sparse applied."""
        if i in self._accessor_cache:
            return self._accessor_cache[i]
        aw = f"accessors[{i}]"
        acc = _get_obj(self.accessors, i, "accessors")
        ct = _get_int(acc, "componentType", aw, 0)
        if ct not in _COMPONENTS:
            raise ValueError(f"{aw}.componentType: {ct} is not a glTF component type")
        typ = acc.get("type")
        if not isinstance(typ, str) or typ not in _TYPES:
            raise ValueError(f"{aw}.type: {typ!r:.40} is not a glTF accessor type")
        cols, rows = _TYPES[typ]
        dt = _COMPONENTS[ct]
        count = _get_int(acc, "count", aw, 1)
        n = cols * rows
        # matrix columns start on 4-byte boundaries
        col_bytes = rows * dt.itemsize
        col_stride = (col_bytes + 3) & ~3 if cols > 1 else col_bytes
        elem = col_stride * cols if cols > 1 else col_bytes
        v = _get_index(acc, "bufferView", aw, len(self.views), "bufferViews")
        if v is not None:
            data, stride = self.view(v, aw)
            stride = stride or elem
            off = _get_int(acc, "byteOffset", aw, 0, default=0)
            end = off + (count - 1) * stride + elem
            if end > len(data):
                raise ValueError(f"{aw}: byteOffset + (count - 1) * byteStride + element size = "
                                 f"{end} exceeds bufferViews[{v}].byteLength {len(data)}")
            if stride < elem:
                raise ValueError(f"{aw}: bufferViews[{v}].byteStride {stride} is smaller than "
                                 f"the element size {elem}")
            arr = np.ndarray((count, cols, rows), dtype=dt, buffer=data, offset=off,
                             strides=(stride, col_stride, dt.itemsize))
            arr = np.array(arr.reshape(count, n) if cols == 1 else arr, order="C")
            arr = arr.reshape(count, n)
        else:
            if count * elem > _MAX_ZERO_BYTES:
                raise ValueError(f"{aw}: count {count} without a bufferView would take "
                                 f"{count * elem} bytes, more than {_MAX_ZERO_BYTES}")
            arr = np.zeros((count, n), dtype=dt)
        sparse = acc.get("sparse")
        if sparse is not None:
            arr = self._sparse(arr, sparse, aw, dt, n)
        if dt.kind == "f" and not np.isfinite(arr).all():
            raise ValueError(f"{aw}: non-finite values (nan or inf)")
        self.spend(arr.nbytes, aw)
        self._accessor_cache[i] = arr
        return arr

    def _sparse(self, arr: Arr, sparse: Any, aw: str, dt: np.dtype[Any], n: int) -> Arr:
        sw = f"{aw}.sparse"
        if not isinstance(sparse, dict):
            raise ValueError(f"{sw}: expected a JSON object")
        count = _get_int(sparse, "count", sw, 1, len(arr))
        ind, val = sparse.get("indices"), sparse.get("values")
        if not isinstance(ind, dict) or not isinstance(val, dict):
            raise ValueError(f"{sw}: expected indices and values objects")
        ict = _get_int(ind, "componentType", f"{sw}.indices", 0)
        if ict not in (5121, 5123, 5125):
            raise ValueError(f"{sw}.indices.componentType: expected 5121, 5123 or 5125, got {ict}")
        parts = []
        for obj, name, pdt, width in ((ind, "indices", _COMPONENTS[ict], 1),
                                      (val, "values", dt, n)):
            w = f"{sw}.{name}"
            v = _get_index(obj, "bufferView", w, len(self.views), "bufferViews")
            if v is None:
                raise ValueError(f"{w}.bufferView: required, missing")
            data, _ = self.view(v, w)
            off = _get_int(obj, "byteOffset", w, 0, default=0)
            size = count * width * pdt.itemsize
            if off + size > len(data):
                raise ValueError(f"{w}: byteOffset + count * element size = {off + size} exceeds "
                                 f"bufferViews[{v}].byteLength {len(data)}")
            parts.append(np.frombuffer(data, dtype=pdt, count=count * width, offset=off)
                         .reshape(count, width))
        idx = parts[0][:, 0].astype(np.int64)
        if idx.size and int(idx.max()) >= len(arr):
            k = int(np.argmax(idx >= len(arr)))
            raise ValueError(f"{sw}.indices: index {int(idx[k])} at position {k} exceeds the "
                             f"accessor's count {len(arr)}")
        arr = arr.copy()
        arr[idx] = parts[1]
        return arr

    def release(self) -> None:
        """Drop the file's bytes and decoded accessors (kept only while loading)."""
        self._buffers.clear()
        self._accessor_cache.clear()
        self.bin = None

    def spend(self, nbytes: int, where: str) -> None:
        """Counts decoded bytes: a file whose accessors are read over and over (many meshes or
        channels on the same data) stops at a bound proportional to its size."""
        self.spent += nbytes
        budget = _DECODE_FACTOR * self.file_bytes + _DECODE_FLOOR
        if self.spent > budget:
            raise ValueError(f"{where}: decoding the file's accessors takes more than {budget} "
                             f"bytes ({_DECODE_FACTOR} x its size + {_DECODE_FLOOR})")

    def floats(self, i: int, where: str, allowed: set[int], types: tuple[str, ...]) -> F64:
        """Accessor i as float64 (count, n) with normalized integers decoded; `allowed` is the
        set of component types, `types` the accessor types accepted."""
        arr = self.accessor(i, where)
        acc = self.accessors[i]
        ct, typ = acc["componentType"], acc["type"]
        if typ not in types:
            raise ValueError(f"{where}: accessors[{i}].type {typ} is not allowed here "
                             f"(expected {' or '.join(types)})")
        if ct not in allowed:
            raise ValueError(f"{where}: accessors[{i}].componentType {ct} is not allowed here "
                             f"(expected one of {sorted(allowed)})")
        self.spend(arr.size * 8, where)
        out = arr.astype(np.float64)
        if ct != 5126 and acc.get("normalized", False) is True:
            out = np.maximum(out / _NORM_SCALE[ct], -1.0)
        return out


# --- nodes -----------------------------------------------------------------------------------------

def _trs_matrix(t: Any, q: Any, s: Any) -> F64:
    """4x4 float64 T R S of (..., 3), (..., 4) unit quaternion, (..., 3)."""
    x, y, z, w = np.moveaxis(q, -1, 0)
    m = np.zeros(q.shape[:-1] + (4, 4))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    m[..., :3, :3] *= s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


def _unit(q: list[float], where: str) -> list[float]:
    n = math.sqrt(math.fsum(x * x for x in q))
    if n == 0 or not math.isfinite(n):
        raise ValueError(f"{where}: expected a unit quaternion, got {q!r:.60}")
    return [x / n for x in q]


class _Node:
    __slots__ = ("index", "name", "children", "matrix", "t", "r", "s", "mesh", "skin", "parent")
    index: int
    name: str
    children: list[int]
    matrix: F64 | None
    t: list[float]
    r: list[float]
    s: list[float]
    mesh: int | None
    skin: int | None
    parent: int


def _read_nodes(doc: _Doc) -> list[_Node]:
    nodes = []
    for i in range(len(doc.nodes)):
        w = f"nodes[{i}]"
        d = _get_obj(doc.nodes, i, "nodes")
        n = _Node()
        n.index, n.parent = i, -1
        name = d.get("name")
        n.name = name if isinstance(name, str) and name else f"node{i}"
        kids = _get_list(d, "children", w)
        for k, c in enumerate(kids):
            if not _is_int(c) or not 0 <= c < len(doc.nodes):
                raise ValueError(f"{w}.children[{k}]: {c!r:.40} is not a node index "
                                 f"(the file has {len(doc.nodes)} nodes)")
        n.children = kids
        if "matrix" in d:
            m = np.array(_get_numbers(d, "matrix", w, 16, []))
            n.matrix = m.reshape(4, 4).T.copy()         # column-major in the file
            if np.abs(n.matrix[3] - [0, 0, 0, 1]).max() > 1e-6:
                raise ValueError(f"{w}.matrix: expected an affine matrix (last row 0 0 0 1), "
                                 f"got last row {n.matrix[3].tolist()}")
            if "translation" in d or "rotation" in d or "scale" in d:
                raise ValueError(f"{w}: has both matrix and translation/rotation/scale")
            n.t, n.r, n.s = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0]
        else:
            n.matrix = None
            n.t = _get_numbers(d, "translation", w, 3, [0.0, 0.0, 0.0])
            n.r = _unit(_get_numbers(d, "rotation", w, 4, [0.0, 0.0, 0.0, 1.0]), f"{w}.rotation")
            n.s = _get_numbers(d, "scale", w, 3, [1.0, 1.0, 1.0])
        n.mesh = _get_index(d, "mesh", w, len(doc.meshes), "meshes")
        n.skin = _get_index(d, "skin", w, len(doc.skins), "skins")
        nodes.append(n)
    for n in nodes:
        for c in n.children:
            if nodes[c].parent >= 0:
                raise ValueError(f"nodes[{c}]: a child of nodes[{nodes[c].parent}] and of "
                                 f"nodes[{n.index}] (a node has at most one parent)")
            nodes[c].parent = n.index
    state = [0] * len(nodes)          # 0 unseen, 1 on this walk, 2 done
    for i in range(len(nodes)):
        walk, j = [], i
        while j >= 0 and state[j] == 0:
            state[j] = 1
            walk.append(j)
            j = nodes[j].parent
        if j >= 0 and state[j] == 1:
            cyc = walk[walk.index(j):]
            raise ValueError("nodes: a cycle of children: " +
                             " -> ".join(f"nodes[{k}]" for k in reversed(cyc + [j])))
        for k in walk:
            state[k] = 2
    # depth-first pre-order position and root of every node (scene roots in index order)
    doc.preorder = [0] * len(nodes)
    doc.root_of = [0] * len(nodes)
    position = 0
    for r in range(len(nodes)):
        if nodes[r].parent >= 0:
            continue
        stack = [r]
        while stack:
            k = stack.pop()
            doc.preorder[k] = position
            doc.root_of[k] = r
            position += 1
            stack.extend(reversed(nodes[k].children))
    return nodes


def _rest_matrix(node: _Node) -> F64:
    if node.matrix is not None:
        return node.matrix
    return _trs_matrix(np.array(node.t), np.array(node.r), np.array(node.s))


# --- skins -----------------------------------------------------------------------------------------

def _unique_names(names: Iterable[str]) -> list[str]:
    seen, out = set(), []
    for name in names:
        new, k = name, 1
        while new in seen:
            new = f"{name}.{k}"
            k += 1
        seen.add(new)
        out.append(new)
    return out


def _read_skin(doc: _Doc, nodes: list[_Node], s: int, tol: float) -> GltfSkin:
    w = f"skins[{s}]"
    d = _get_obj(doc.skins, s, "skins")
    joints = _get_list(d, "joints", w)
    if not joints:
        raise ValueError(f"{w}.joints: expected at least one joint")
    seen: dict[int, int] = {}
    for k, j in enumerate(joints):
        if not _is_int(j) or not 0 <= j < len(nodes):
            raise ValueError(f"{w}.joints[{k}]: {j!r:.40} is not a node index")
        if j in seen:
            raise ValueError(f"{w}.joints[{k}]: nodes[{j}] is already joints[{seen[j]}]")
        seen[j] = k
    roots: dict[int, int] = {}
    for j in joints:
        roots.setdefault(doc.root_of[j], j)
    if len(roots) > 1:
        (ra, ja), (rb, jb) = list(roots.items())[:2]
        raise ValueError(f"{w}.joints: nodes[{ja}] and nodes[{jb}] have no common root "
                         f"(their roots are nodes[{ra}] and nodes[{rb}])")
    # depth-first order of the node tree; a joint's parent is its nearest joint ancestor and
    # its chain the nodes from there (exclusive; from the root for root joints) down to it
    order = sorted(joints, key=doc.preorder.__getitem__)
    index_of = {n: k for k, n in enumerate(order)}
    parents: list[int] = []
    chains: list[tuple[int, ...]] = []
    for n in order:
        walk = [n]
        p = nodes[n].parent
        while p >= 0 and p not in index_of:
            walk.append(p)
            p = nodes[p].parent
        doc.chain_nodes += len(walk)
        if doc.chain_nodes > _MAX_CHAIN_NODES:
            raise ValueError(f"{w}: the joints' folded node chains exceed {_MAX_CHAIN_NODES} "
                             "nodes in all (a node tree too deep)")
        parents.append(index_of[p] if p >= 0 else -1)
        chains.append(tuple(reversed(walk)))
    perm = np.array([seen[n] for n in order], dtype=np.intp)
    names = _unique_names([nodes[n].name for n in order])
    ibm_index = _get_index(d, "inverseBindMatrices", w, len(doc.accessors), "accessors")
    if ibm_index is None:
        ibm = np.tile(np.eye(4)[:3], (len(joints), 1, 1))
    else:
        a = doc.floats(ibm_index, f"{w}.inverseBindMatrices", {5126}, ("MAT4",))
        if len(a) < len(joints):
            raise ValueError(f"{w}.inverseBindMatrices: accessors[{ibm_index}] has {len(a)} "
                             f"matrices for {len(joints)} joints")
        full = a[:len(joints)].reshape(-1, 4, 4).transpose(0, 2, 1)
        off = np.abs(full[:, 3] - [0, 0, 0, 1]).max(axis=1)
        if (off > 1e-5).any():
            k = int(np.argmax(off > 1e-5))
            raise ValueError(f"{w}.inverseBindMatrices: accessors[{ibm_index}] matrix {k} is "
                             f"not affine (last row {full[k, 3].tolist()})")
        ibm = full[:, :3]
    ibm = ibm[perm].astype(np.float32)
    plan = _FoldPlan(nodes, chains)
    rest = plan.rest
    if not (np.abs(rest) <= _FLOAT32_MAX).all():
        raise ValueError(f"{w}: the joints' rest matrices go beyond the float32 range")
    ok = _similar(rest[:, :3, :3], tol)
    rest_arg = (_to_qts(rest) if ok.all() else rest[:, :3, :].astype(np.float32))
    name = d.get("name")
    skeleton = Skeleton(np.array(parents, dtype=np.int32), names, rest=rest_arg)
    return GltfSkin(name=name if isinstance(name, str) else f"skin{s}", skeleton=skeleton,
                    nodes=np.array(order, dtype=np.intp), inverse_bind=ibm,
                    joints=np.array(joints, dtype=np.intp), perm=perm, chains=tuple(chains),
                    plan=plan)


class _FoldPlan:
    """How a skin's folded local matrices are evaluated, vectorized over joints and frames.

    ``index`` maps the nodes of all the joints' chains to columns. For an animation, each chain
    splits into segments: an animated node, or a run of nodes the animation does not move
    (multiplied once into a constant). The segments are aligned at the chain's end (the joint
    itself): step 0 sets every joint's last segment, step k multiplies the k-th segment from
    the end on the left of the joints that have more than k. A deep chain of nodes that are
    not animated therefore costs one constant, computed once per animation."""

    def __init__(self, nodes: list[_Node], chains: list[tuple[int, ...]]) -> None:
        used = sorted({n for c in chains for n in c})
        self.index = {n: k for k, n in enumerate(used)}
        self.t = np.array([nodes[n].t for n in used], dtype=np.float64).reshape(len(used), 3)
        self.r = np.array([nodes[n].r for n in used], dtype=np.float64).reshape(len(used), 4)
        self.s = np.array([nodes[n].s for n in used], dtype=np.float64).reshape(len(used), 3)
        self.rest_local = _trs_matrix(self.t, self.r, self.s)
        for k, n in enumerate(used):
            m = nodes[n].matrix
            if m is not None:
                self.rest_local[k] = m
        self.chains = [tuple(self.index[n] for n in c) for c in chains]
        self._segments: dict[frozenset[int], tuple[list[tuple[Arr, Arr, Arr, Arr]], F64]] = {}
        self.rest = self.fold(None, np.zeros(1))[0]

    def segments(self, animated: frozenset[int]) -> tuple[list[tuple[Arr, Arr, Arr, Arr]], F64]:
        """(steps, constants): step k is (joints, animated columns, joints, constant indices)."""
        if animated in self._segments:
            return self._segments[animated]
        consts: list[F64] = []
        steps: list[tuple[list[int], list[int], list[int], list[int]]] = []
        for j, chain in enumerate(self.chains):
            segs: list[tuple[bool, int]] = []
            acc: F64 | None = None
            for col in chain:
                if col in animated:
                    if acc is not None:
                        consts.append(acc)
                        segs.append((False, len(consts) - 1))
                        acc = None
                    segs.append((True, col))
                else:
                    m = self.rest_local[col]
                    acc = m if acc is None else acc @ m
            if acc is not None:
                consts.append(acc)
                segs.append((False, len(consts) - 1))
            for k, (is_animated, x) in enumerate(reversed(segs)):
                if k == len(steps):
                    steps.append(([], [], [], []))
                if is_animated:
                    steps[k][0].append(j)
                    steps[k][1].append(x)
                else:
                    steps[k][2].append(j)
                    steps[k][3].append(x)
        arrays = [tuple(np.array(v, dtype=np.intp) for v in st) for st in steps]
        out = ([(a[0], a[1], a[2], a[3]) for a in arrays],
               np.array(consts, dtype=np.float64).reshape(len(consts), 4, 4))
        self._segments[animated] = out
        return out

    def fold(self, anim: GltfAnimation | None, t: F64) -> F64:
        """Folded local matrices (n, J, 4, 4) of the joints at times t (n,)."""
        cols = {} if anim is None else {self.index[n]: chans for n, chans in anim.by_node.items()
                                          if n in self.index}
        steps, consts = self.segments(frozenset(cols))
        n = len(t)
        order = sorted(cols)
        pos = np.zeros(len(self.rest_local), dtype=np.intp)
        pos[order] = np.arange(len(order))
        tr = np.repeat(self.t[order][None], n, axis=0)
        ro = np.repeat(self.r[order][None], n, axis=0)
        sc = np.repeat(self.s[order][None], n, axis=0)
        for k, col in enumerate(order):
            for path, ch in cols[col].items():
                target = tr if path == "translation" else ro if path == "rotation" else sc
                target[:, k] = ch.sample(t)
        local = _trs_matrix(tr, ro, sc)
        out = np.empty((n, len(self.chains), 4, 4))
        for k, (a_sel, a_col, c_sel, c_idx) in enumerate(steps):
            if k == 0:
                out[:, a_sel] = local[:, pos[a_col]]
                out[:, c_sel] = consts[c_idx]
            else:
                out[:, a_sel] = local[:, pos[a_col]] @ out[:, a_sel]
                out[:, c_sel] = consts[c_idx] @ out[:, c_sel]
        return out


# --- meshes ----------------------------------------------------------------------------------------

def _triangles(idx: Arr, mode: int, where: str) -> Arr:
    n = len(idx)
    if mode == 4:
        if n % 3:
            raise ValueError(f"{where}: {n} indices for triangles, not a multiple of 3")
        return idx.reshape(-1, 3)
    if n < 3:
        return np.zeros((0, 3), dtype=idx.dtype)
    i = np.arange(n - 2)
    if mode == 5:       # strip: (i, i + 1 + i%2, i + 2 - i%2)
        return np.stack([idx[i], idx[i + 1 + i % 2], idx[i + 2 - i % 2]], axis=1)
    return np.stack([idx[i + 1], idx[i + 2], np.broadcast_to(idx[0], i.shape)], axis=1)  # fan


def _read_meshes(doc: _Doc, nodes: list[_Node], skins: list[GltfSkin]) -> list[GltfMesh]:
    out = []
    for node in nodes:
        if node.mesh is None or node.skin is None:
            continue
        m = node.mesh
        mesh = _get_obj(doc.meshes, m, "meshes")
        mname = mesh.get("name") if isinstance(mesh.get("name"), str) else f"mesh{m}"
        sk = skins[node.skin]
        inverse_perm = np.empty(len(sk.perm), dtype=np.int32)
        inverse_perm[sk.perm] = np.arange(len(sk.perm), dtype=np.int32)
        for p, prim in enumerate(_get_list(mesh, "primitives", f"meshes[{m}]")):
            w = f"meshes[{m}].primitives[{p}]"
            if not isinstance(prim, dict):
                raise ValueError(f"{w}: expected a JSON object")
            mode = _get_int(prim, "mode", w, 0, 6, default=4)
            if mode < 4:
                warnings.warn(f"{w} ({mname!r}): mode {mode} (points or lines) skipped, only "
                              "triangles are read", stacklevel=3)
                continue
            attrs = prim.get("attributes")
            if not isinstance(attrs, dict):
                raise ValueError(f"{w}.attributes: expected a JSON object")

            def attr(key: str, allowed: set[int], types: tuple[str, ...]) -> F64 | None:
                i = _get_index(attrs, key, f"{w}.attributes", len(doc.accessors), "accessors")
                if i is None:
                    return None
                return doc.floats(i, f"{w}.attributes.{key}", allowed, types)

            def need(key: str, allowed: set[int], types: tuple[str, ...]) -> F64:
                a = attr(key, allowed, types)
                if a is None:
                    raise ValueError(f"{w}.attributes.{key}: required, missing")
                return a

            pos = need("POSITION", set(_COMPONENTS), ("VEC3",))
            V = len(pos)
            normals = attr("NORMAL", {5120, 5122, 5126}, ("VEC3",))
            sets_j: list[F64] = []
            sets_w: list[F64] = []
            k = 0
            while f"JOINTS_{k}" in attrs or f"WEIGHTS_{k}" in attrs:
                jn = need(f"JOINTS_{k}", {5121, 5123}, ("VEC4",))
                wt = need(f"WEIGHTS_{k}", {5121, 5123, 5126}, ("VEC4",))
                sets_j.append(jn)
                sets_w.append(wt)
                k += 1
            if not sets_j:
                warnings.warn(f"{w} ({mname!r}): on a skinned node but without JOINTS_0/"
                              "WEIGHTS_0; skipped", stacklevel=3)
                continue
            for key, a in [("NORMAL", normals)] + [(f"JOINTS_{i}", a) for i, a in
                                                    enumerate(sets_j)] + \
                    [(f"WEIGHTS_{i}", a) for i, a in enumerate(sets_w)]:
                if a is not None and len(a) != V:
                    raise ValueError(f"{w}.attributes.{key}: {len(a)} elements, POSITION has {V}")
            ji = np.concatenate(sets_j, axis=1)
            wts = np.concatenate(sets_w, axis=1)
            for i in range(len(sets_j)):
                if doc.accessors[attrs[f"JOINTS_{i}"]].get("normalized", False) is True:
                    raise ValueError(f"{w}.attributes.JOINTS_{i}: joint indices must not be "
                                     "normalized")
            if ji.size and ji.max() >= len(sk.perm):
                v, c = np.argwhere(ji >= len(sk.perm))[0]
                raise ValueError(f"{w}.attributes.JOINTS_{c // 4}: vertex {v} has joint "
                                 f"{int(ji[v, c])}, the skin has {len(sk.perm)} joints")
            if (wts < 0).any():
                v, c = np.argwhere(wts < 0)[0]
                raise ValueError(f"{w}.attributes.WEIGHTS_{c // 4}: vertex {v} has a negative "
                                 f"weight {wts[v, c]}")
            quantum = 0.0
            for i in range(len(sets_w)):
                ct = doc.accessors[attrs[f"WEIGHTS_{i}"]]["componentType"]
                if ct != 5126:
                    quantum = max(quantum, 0.5 / _NORM_SCALE[ct])
            wts, bad = _normalize(wts, WEIGHT_TOLERANCE + quantum * wts.shape[1])
            if bad:
                warnings.warn(f"{w} ({mname!r}): {bad} of {V} vertices have weights whose sum "
                              f"differs from 1 by more than the tolerance; renormalised",
                              stacklevel=3)
            jidx: Arr = inverse_perm[ji.astype(np.intp)]
            idx_i = _get_index(prim, "indices", w, len(doc.accessors), "accessors")
            if idx_i is None:
                idx = np.arange(V, dtype=np.int64)
            else:
                a = doc.accessor(idx_i, f"{w}.indices")
                acc = doc.accessors[idx_i]
                if acc["type"] != "SCALAR" or acc["componentType"] not in (5121, 5123, 5125):
                    raise ValueError(f"{w}.indices: accessors[{idx_i}] must be SCALAR unsigned "
                                     "integers")
                idx = a[:, 0].astype(np.int64)
                if idx.size and int(idx.max()) >= V:
                    k = int(np.argmax(idx >= V))
                    raise ValueError(f"{w}.indices: index {int(idx[k])} at position {k} exceeds "
                                     f"the vertex count {V}")
            tri = _triangles(idx, mode, f"{w}.indices").astype(np.int32)
            out.append(GltfMesh(
                name=f"{mname}[{p}]", node=node.index, mesh=m, primitive=p, skin=node.skin,
                positions=pos.astype(np.float32),
                normals=None if normals is None else normals.astype(np.float32),
                triangles=np.ascontiguousarray(tri), joint_indices=np.ascontiguousarray(jidx),
                weights=np.ascontiguousarray(wts, dtype=np.float32)))
    return out


def _normalize(w: F64, tol: float) -> tuple[F64, int]:
    """Rows divided by their sums (float64, rounded once); zero rows get 1 on the first
    influence. Returns (weights, number of rows off by more than tol)."""
    s = w.sum(axis=1)
    bad = int(np.count_nonzero(np.abs(s - 1.0) > tol))
    zero = s == 0
    w = w.copy()
    w[zero, 0] = 1.0
    s[zero] = 1.0
    return w / s[:, None], bad


# --- animations ------------------------------------------------------------------------------------

def _read_animations(doc: _Doc, nodes: list[_Node]) -> list[GltfAnimation]:
    out = []
    for a in range(len(doc.animations)):
        w = f"animations[{a}]"
        d = _get_obj(doc.animations, a, "animations")
        name = d.get("name")
        name = name if isinstance(name, str) and name else f"animation{a}"
        samplers = _get_list(d, "samplers", w)
        channels: list[GltfChannel] = []
        targeted: dict[tuple[int, str], int] = {}
        for c, ch in enumerate(_get_list(d, "channels", w)):
            cw = f"{w}.channels[{c}]"
            if not isinstance(ch, dict):
                raise ValueError(f"{cw}: expected a JSON object")
            target = ch.get("target")
            if not isinstance(target, dict):
                raise ValueError(f"{cw}.target: expected a JSON object")
            node = _get_index(target, "node", f"{cw}.target", len(nodes), "nodes")
            path = target.get("path")
            if path not in ("translation", "rotation", "scale", "weights"):
                if isinstance(path, str):     # an extension's path (KHR_animation_pointer)
                    continue
                raise ValueError(f"{cw}.target.path: {path!r:.40} is not a glTF path")
            if node is None:
                continue
            if path != "weights" and nodes[node].matrix is not None:
                raise ValueError(f"{cw}: animates nodes[{node}].{path} but that node has a "
                                 "matrix (animated nodes must use translation/rotation/scale)")
            if (node, path) in targeted:
                raise ValueError(f"{cw}: nodes[{node}].{path} is already animated by "
                                 f"channels[{targeted[node, path]}]")
            targeted[node, path] = c
            si = _get_index(ch, "sampler", cw, len(samplers), "samplers")
            if si is None:
                raise ValueError(f"{cw}.sampler: required, missing")
            sw = f"{w}.samplers[{si}]"
            smp = _get_obj(samplers, si, f"{w}.samplers")
            interp = smp.get("interpolation", "LINEAR")
            if interp not in ("STEP", "LINEAR", "CUBICSPLINE"):
                raise ValueError(f"{sw}.interpolation: {interp!r:.40} is not STEP, LINEAR or "
                                 "CUBICSPLINE")
            ii = _get_index(smp, "input", sw, len(doc.accessors), "accessors")
            oi = _get_index(smp, "output", sw, len(doc.accessors), "accessors")
            if ii is None or oi is None:
                raise ValueError(f"{sw}: input and output are required")
            times = doc.floats(ii, f"{sw}.input", {5126}, ("SCALAR",))[:, 0]
            if len(times) > 1 and (np.diff(times) < 0).any():
                k = int(np.argmax(np.diff(times) < 0)) + 1
                raise ValueError(f"{sw}.input: accessors[{ii}]: key times decrease at key {k} "
                                 f"({times[k]} after {times[k - 1]})")
            if times[0] < 0:
                raise ValueError(f"{sw}.input: accessors[{ii}]: negative key time {times[0]}")
            if path == "rotation":
                allowed, types = {5120, 5121, 5122, 5123, 5126}, ("VEC4",)
            elif path == "weights":
                allowed, types = {5120, 5121, 5122, 5123, 5126}, ("SCALAR",)
            else:
                allowed, types = {5126}, ("VEC3",)
            vals = doc.floats(oi, f"{sw}.output", allowed, types)
            per = 3 if interp == "CUBICSPLINE" else 1
            n = len(times)
            if len(vals) % (n * per):
                raise ValueError(f"{sw}.output: accessors[{oi}] has {len(vals)} elements, "
                                 f"expected a multiple of {n * per} ({n} keys)")
            width = len(vals) // (n * per) * vals.shape[1]
            if path != "weights" and width != _PATH_SIZE[path]:
                raise ValueError(f"{sw}.output: accessors[{oi}] has {len(vals)} elements, "
                                 f"expected {n * per} ({n} keys)")
            vals = vals.reshape(n, per, width) if per == 3 else vals.reshape(n, width)
            if path == "rotation":
                core = vals[:, 1] if per == 3 else vals
                if (np.abs(core).sum(axis=-1) == 0).any():
                    raise ValueError(f"{sw}.output: accessors[{oi}]: a zero rotation key")
            channels.append(GltfChannel(node=node, path=path, interpolation=interp,
                                        times=times.astype(np.float32),
                                        values=vals.astype(np.float32)))
        duration = max((float(c.times[-1]) for c in channels), default=0.0)
        by_node: dict[int, dict[str, GltfChannel]] = {}
        for ch in channels:
            if ch.path in _PATH_SIZE:
                by_node.setdefault(ch.node, {})[ch.path] = ch
        out.append(GltfAnimation(name=name, channels=tuple(channels), duration=duration,
                                 by_node=by_node))
    return out


def _sample(ch: GltfChannel, t: F64) -> F64:
    """Values of a channel at times t (float64, any shape) -> (..., C) float64."""
    times = ch.times.astype(np.float64)
    vals = ch.values.astype(np.float64)
    cubic = ch.interpolation == "CUBICSPLINE"
    points = vals[:, 1] if cubic else vals
    if ch.path == "rotation":
        points = points / np.linalg.norm(points, axis=-1, keepdims=True)
    n = len(times)
    flat = t.reshape(-1)
    k = np.clip(np.searchsorted(times, flat, side="right") - 1, 0, n - 1)
    out = points[k].copy()
    if n > 1 and ch.interpolation != "STEP":
        inside = (flat > times[0]) & (flat < times[-1]) & (k < n - 1)
        ki = k[inside]
        t0, t1 = times[ki], times[ki + 1]
        dt = t1 - t0
        u = ((flat[inside] - t0) / dt)[:, None]
        a, b = points[ki], points[ki + 1]
        if cubic:
            u2, u3 = u * u, u * u * u
            out_tan = vals[ki, 2] * dt[:, None]
            in_tan = vals[ki + 1, 0] * dt[:, None]
            v = ((2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * out_tan
                 + (-2 * u3 + 3 * u2) * b + (u3 - u2) * in_tan)
            if ch.path == "rotation":
                norm = np.linalg.norm(v, axis=-1, keepdims=True)
                v = np.where(norm > 0, v / np.where(norm > 0, norm, 1), a)
        elif ch.path == "rotation":
            v = _slerp(a, b, u)
        else:
            v = a + u * (b - a)
        out[inside] = v
    return out.reshape(t.shape + (out.shape[-1],))


def _slerp(a: F64, b: F64, u: F64) -> F64:
    d = (a * b).sum(axis=-1, keepdims=True)
    b = np.where(d < 0, -b, b)
    d = np.abs(d)
    theta = np.arccos(np.minimum(d, 1.0))
    sin = np.sin(theta)
    small = sin < 1e-9
    safe = np.where(small, 1.0, sin)
    wa = np.where(small, 1 - u, np.sin((1 - u) * theta) / safe)
    wb = np.where(small, u, np.sin(u * theta) / safe)
    q = wa * a + wb * b
    out: F64 = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return out


def _check_tolerance(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise TypeError(f"scale_tolerance: expected a number, got {type(tol).__name__}")
    if not 0 <= float(tol) <= MAX_SCALE_TOLERANCE:
        raise ValueError(f"scale_tolerance: expected 0 <= scale_tolerance <= "
                         f"{MAX_SCALE_TOLERANCE}, got {tol!r}")
    return float(tol)


def _check_rate(rate: Any) -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)):
        raise TypeError(f"sample_rate: expected a positive number (Hz), got {type(rate).__name__}")
    try:
        r = float(rate)
    except OverflowError:   # an int beyond the float range
        r = math.inf
    if not (r > 0 and math.isfinite(r) and math.isfinite(1.0 / r)):
        raise ValueError(f"sample_rate: expected a positive finite number (Hz) whose frame time "
                         f"is finite, got {rate!r}")
    return r


def _implied_rate(anim: GltfAnimation) -> float:
    times = np.unique(np.concatenate([c.times.astype(np.float64) for c in anim.channels]
                                     or [np.zeros(1)]))
    if len(times) < 2:
        return _DEFAULT_RATE
    d = float(np.diff(times).min())
    rate = round(1.0 / d) if d > 0 else 0
    if not 1 <= rate <= _MAX_RATE or abs(1.0 / d - rate) > 1e-3 * rate:
        return _DEFAULT_RATE
    return float(rate)


def _frame_count(anim: GltfAnimation, rate: float, joints: int) -> int:
    f = math.floor(anim.duration * rate + 1e-4) + 1
    if f * max(joints, 1) > _MAX_JOINT_FRAMES:
        raise ValueError(f"animations {anim.name!r:.40}: {f} frames ({anim.duration:.6g} s at "
                         f"{rate:.6g} Hz) x {joints} joints exceed {_MAX_JOINT_FRAMES} joint-frames")
    return f


# --- clips -----------------------------------------------------------------------------------------

def _node_matrices(doc: _Doc, node: int, anim: GltfAnimation, t: F64) -> F64:
    """Local matrices (n, 4, 4) of a node at times t (n,), float64."""
    n = doc.node_objs[node]
    chans = anim.by_node.get(node, {})
    if not chans:
        return np.broadcast_to(_rest_matrix(n), (len(t), 4, 4))
    tr = (chans["translation"].sample(t) if "translation" in chans
          else np.broadcast_to(np.array(n.t), (len(t), 3)))
    ro = (chans["rotation"].sample(t) if "rotation" in chans
          else np.broadcast_to(np.array(n.r), (len(t), 4)))
    sc = (chans["scale"].sample(t) if "scale" in chans
          else np.broadcast_to(np.array(n.s), (len(t), 3)))
    return _trs_matrix(tr, ro, sc)


def _folded_locals(asset: GltfAsset, a: int, s: int,
                   rate: float) -> Iterator[tuple[int, F64]]:
    """(first frame, folded local matrices (n, J, 4, 4) float64) in chunks of frames, so
    that the float64 scratch stays within _CHUNK joint-frames."""
    anim, sk = asset.animations[a], asset.skins[s]
    plan = sk.plan
    assert plan is not None
    frames = _frame_count(anim, rate, len(sk.nodes))
    step = max(1, _CHUNK // max(1, len(sk.nodes)))
    for f0 in range(0, frames, step):
        t = np.arange(f0, min(frames, f0 + step)) / rate
        yield f0, plan.fold(anim, t)


def _axis_scales(a: F64) -> F64:
    """The axis scales (column lengths) (..., 3) of 3x3 matrices a."""
    out: F64 = np.sqrt((a * a).sum(axis=-2))
    return out


def _similar(a: F64, tol: float) -> NDArray[np.bool_]:
    """Whether 3x3 matrices a (...) are similarities within the relative tolerance tol: axis
    scales spread by at most tol times their mean, every pair of axes orthogonal within tol
    (|cos| <= tol); a zero matrix is one (scale 0)."""
    tol = max(tol, _TOLERANCE_FLOOR)
    s = _axis_scales(a)
    mean = s.mean(axis=-1)
    spread = s.max(axis=-1) - s.min(axis=-1)
    unit = a / np.where(s == 0, 1.0, s)[..., None, :]
    g = np.swapaxes(unit, -1, -2) @ unit
    cos = np.abs(g - np.eye(3) * np.diagonal(g, axis1=-2, axis2=-1)[..., None, :])
    shear = cos.max(axis=(-2, -1))
    zero = (s == 0).all(axis=-1)
    ok: NDArray[np.bool_] = zero | ((spread <= tol * mean) & (shear <= tol) & (s > 0).all(axis=-1))
    return ok


def _to_qts(m: F64) -> NDArray[np.float32]:
    """QTS float32 (..., 8) of similarity matrices (..., 4, 4) float64 (within a tolerance:
    the scale is the mean of the axis scales, the rotation that of the normalised axes, by
    Shepperd's method, which projects a near-rotation onto a unit quaternion)."""
    a = m[..., :3, :3]
    axes = _axis_scales(a)
    sign = np.where(np.linalg.det(a) < 0, -1.0, 1.0)
    s = sign * axes.mean(axis=-1)
    r = a / np.where(axes == 0, 1.0, sign[..., None] * axes)[..., None, :]
    r = np.where((axes == 0).any(axis=-1)[..., None, None], np.eye(3), r)
    q = _matrix_to_quat(r)
    return np.concatenate([q, m[..., :3, 3], s[..., None]], axis=-1).astype(np.float32)


def _matrix_to_quat(r: F64) -> F64:
    """Unit quaternions (x, y, z, w) of rotation matrices (..., 3, 3), float64 (Shepperd's
    method: the largest of 4w^2, 4x^2, 4y^2, 4z^2 picks the stable formula)."""
    m00, m01, m02 = r[..., 0, 0], r[..., 0, 1], r[..., 0, 2]
    m10, m11, m12 = r[..., 1, 0], r[..., 1, 1], r[..., 1, 2]
    m20, m21, m22 = r[..., 2, 0], r[..., 2, 1], r[..., 2, 2]
    cands = np.stack([
        np.stack([m21 - m12, m02 - m20, m10 - m01, 1 + m00 + m11 + m22], -1),
        np.stack([1 + m00 - m11 - m22, m01 + m10, m02 + m20, m21 - m12], -1),
        np.stack([m01 + m10, 1 - m00 + m11 - m22, m12 + m21, m02 - m20], -1),
        np.stack([m02 + m20, m12 + m21, 1 - m00 - m11 + m22, m10 - m01], -1)], -2)
    diag = np.stack([m00 + m11 + m22, m00, m11, m22], -1)
    pick = np.argmax(diag, axis=-1)
    q = np.take_along_axis(cands, pick[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    out: F64 = np.where(q[..., 3:] < 0, -q, q)
    return out


def _matrices_to_qts(m: F64, f0: int, sk: GltfSkin, doc: _Doc, anim: GltfAnimation,
                     rate: float, tol: float) -> NDArray[np.float32]:
    """QTS of folded local matrices (n, J, 4, 4) of frames f0..; ValueError naming the node
    and its scale where one is not a similarity within tol."""
    _check_finite(m, f0, sk, anim)
    ok = _similar(m[..., :3, :3], tol)
    if not ok.all():
        fc, j = (int(x) for x in np.argwhere(~ok)[0])
        f = f0 + fc
        t = np.array([f / rate])
        culprit = None
        for node in sk.chains[j]:
            x = _node_matrices(doc, node, anim, t)[0]
            if not _similar(x[:3, :3], tol):
                culprit = (node, _axis_scales(x[:3, :3]))
                break
        joint = sk.skeleton.names[j]
        if culprit is None:
            culprit = (sk.nodes[j], _axis_scales(m[fc, j, :3, :3]))
        node, scale = culprit
        raise ValueError(
            f"nodes[{node}] ({doc.node_objs[node].name!r}): non-uniform scale "
            f"{np.array2string(scale, precision=6)} at frame {f} (joint {joint!r}); QTS clips carry "
            f"a uniform scale (within scale_tolerance={tol:g}): use GltfAsset.local_matrices() "
            "for the exact (F, J, 3, 4) matrices")
    return _to_qts(m)


def _check_finite(m: F64, f0: int, sk: GltfSkin, anim: GltfAnimation) -> None:
    bad = ~(np.abs(m) <= _FLOAT32_MAX).all(axis=(-2, -1))
    if bad.any():
        f, j = (int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"animation {anim.name!r:.40}: joint {sk.skeleton.names[j]!r:.40} has a "
                         f"local matrix beyond the float32 range at frame {f0 + f}")


def _continuous(qts: NDArray[np.float32]) -> None:
    """Quaternions (F, J, 8) made continuous over frames in place: q and -q are the same
    rotation, so a joint's quaternion is negated where it would jump to the other hemisphere."""
    q = qts[..., :4]
    if len(q) > 1:
        dots = (q[1:].astype(np.float64) * q[:-1]).sum(axis=-1)
        flips = np.cumsum(dots < 0, axis=0) % 2 == 1
        q[1:][flips] = -q[1:][flips]


# --- the entry point ------------------------------------------------------------------------------

def load_gltf(path: str | os.PathLike[str], *, sample_rate: float | None = None,
              scale_tolerance: float = SIMILARITY_TOLERANCE) -> GltfAsset:
    """Read a glTF 2.0 file (``.gltf`` with embedded or neighbouring buffers, or ``.glb``).

    Parameters
    ----------
    path : str or os.PathLike
    sample_rate : float, optional
        Frames per second of the clips (default: the rate each animation's keys imply, else
        30 Hz; see the module docstring).
    scale_tolerance : float, optional
        How far a joint's axis scales may spread (relative to their mean) and its axes depart
        from orthogonal (cosine) for its scale to count as uniform (the mean of the axis
        scales): default :data:`SIMILARITY_TOLERANCE` (1e-3), from 0 (exact, up to 1e-9 of
        float64 rounding) to :data:`MAX_SCALE_TOLERANCE`. Joint positions move by at most
        ``[bound:gltf.scale_snap] * scale_tolerance * sum_k |p - o_k|`` (module docstring).

    Returns
    -------
    GltfAsset
        ``skins``, ``meshes``, ``animations`` (keyframes), ``clips`` (one
        :class:`GltfClip` per animation and skin it drives; built when first read).

    Raises
    ------
    ValueError
        A malformed or unsupported file; the message names the part of the file.

    Examples
    --------
    >>> import skelsimd, tempfile, os
    >>> from skelsimd.io.gltf import example_glb
    >>> path = os.path.join(tempfile.mkdtemp(), "bend.glb")
    >>> _ = open(path, "wb").write(example_glb())
    >>> asset = skelsimd.load_gltf(path, sample_rate=20)
    >>> [(c.name, c.frames) for c in asset.clips]
    [('bend', 21)]
    """
    if sample_rate is not None:
        _check_rate(sample_rate)          # the arguments' errors are not the file's
    _check_tolerance(scale_tolerance)
    try:
        return _load_gltf(path, sample_rate, scale_tolerance)
    except ValueError as exc:
        raise in_file(path, exc) from None


def _load_gltf(path: str | os.PathLike[str], sample_rate: float | None,
               scale_tolerance: float) -> GltfAsset:
    """load_gltf, its errors not yet starting with the path."""
    rate = None if sample_rate is None else _check_rate(sample_rate)
    tol = _check_tolerance(scale_tolerance)
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    doc = _Doc(path)
    nodes = _read_nodes(doc)
    doc.node_objs = nodes
    skins = [_read_skin(doc, nodes, s, tol) for s in range(len(doc.skins))]
    meshes = _read_meshes(doc, nodes, skins)
    animations = _read_animations(doc, nodes)
    for anim in animations:       # frame counts checked now, not when a clip is first built
        r = rate if rate is not None else _implied_rate(anim)
        _frame_count(anim, r, max((len(s.nodes) for s in skins), default=1))
    raw = [dict(n) if isinstance(n, dict) else {} for n in doc.nodes]
    doc.release()             # clips need the nodes and the keyframes only, not the buffers
    return GltfAsset(skins=skins, meshes=meshes, animations=animations, sample_rate=rate,
                     nodes=raw, _doc=doc, scale_tolerance=tol)


def load_gltf_clip(path: str | os.PathLike[str], *, sample_rate: float | None = None) -> GltfClip:
    """The first clip of a glTF file (the first animation, with the first skin it drives): the
    reader of ``.gltf`` and ``.glb`` files in the dataset pipeline.

    Raises
    ------
    ValueError
        A bad file, or a file without an animation that drives a skin.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "bend.glb")
    >>> _ = open(path, "wb").write(example_glb())
    >>> load_gltf_clip(path).name
    'bend'
    """
    asset = load_gltf(path, sample_rate=sample_rate)
    pairs = asset.clip_pairs()
    if not pairs:
        raise ValueError(f"{os.fspath(path)!s}: no animation drives a skin "
                         f"({len(asset.animations)} animations, {len(asset.skins)} skins)")
    return asset.clip(*pairs[0])


# --- a tiny example file ----------------------------------------------------------------------------

def example_glb(*, stretch: bool = False) -> bytes:
    """A two-joint bending strip (4 vertices, 2 triangles, one LINEAR rotation over 1 s with
    keys at 10 Hz) as GLB bytes, for examples and tests. With ``stretch=True`` the tip joint
    also squashes and stretches (a non-uniform scale ``(1/sqrt(k), k, 1/sqrt(k))``, k from 1
    to 1.5 and back, keyed with the rotation), as cartoon rigs do.

    Examples
    --------
    >>> example_glb()[:4]
    b'glTF'
    """
    pos = np.array([[-0.1, 0, 0], [0.1, 0, 0], [-0.1, 2, 0], [0.1, 2, 0]], np.float32)
    idx = np.array([0, 1, 2, 2, 1, 3], np.uint16)
    joints = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]], np.uint8)
    weights = np.array([[1, 0, 0, 0]] * 4, np.float32)
    ibm = np.array([np.eye(4), np.eye(4)], np.float32)
    ibm[1, 3, 1] = -1.0                          # column-major: translation (0, -1, 0)
    times = (np.arange(11) / 10).astype(np.float32)
    angle = np.linspace(0, np.pi / 2, 11)
    rot = np.stack([np.zeros(11), np.zeros(11), np.sin(angle / 2), np.cos(angle / 2)],
                   1).astype(np.float32)
    k = 1.0 + 0.5 * np.sin(np.pi * np.arange(11) / 10)
    scale = np.stack([1 / np.sqrt(k), k, 1 / np.sqrt(k)], 1).astype(np.float32)
    blobs: list[Arr] = [pos, idx, joints, weights, ibm, times, rot, scale]
    binary = b""
    views: list[Json] = []
    for b in blobs:
        views.append({"buffer": 0, "byteOffset": len(binary), "byteLength": b.nbytes})
        binary += b.tobytes() + b"\0" * (-b.nbytes % 4)
    acc = [
        {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
         "min": [-0.1, 0, 0], "max": [0.1, 2, 0]},
        {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
        {"bufferView": 2, "componentType": 5121, "count": 4, "type": "VEC4"},
        {"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC4"},
        {"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"},
        {"bufferView": 5, "componentType": 5126, "count": 11, "type": "SCALAR",
         "min": [0.0], "max": [1.0]},
        {"bufferView": 6, "componentType": 5126, "count": 11, "type": "VEC4"},
        {"bufferView": 7, "componentType": 5126, "count": 11, "type": "VEC3"},
    ]
    samplers: list[Json] = [{"input": 5, "output": 6}]
    channels: list[Json] = [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]
    if stretch:
        samplers.append({"input": 5, "output": 7})
        channels.append({"sampler": 1, "target": {"node": 2, "path": "scale"}})
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
           "nodes": [{"name": "root", "children": [2]}, {"name": "strip", "mesh": 0, "skin": 0},
                     {"name": "tip", "translation": [0, 1, 0]}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 2,
                                                      "WEIGHTS_0": 3}, "indices": 1}]}],
           "skins": [{"joints": [0, 2], "inverseBindMatrices": 4}],
           "animations": [{"name": "stretch" if stretch else "bend", "samplers": samplers,
                           "channels": channels}],
           "buffers": [{"byteLength": len(binary)}], "bufferViews": views, "accessors": acc}
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    body = (struct.pack("<II", len(text), _JSON_CHUNK) + text
            + struct.pack("<II", len(binary), _BIN_CHUNK) + binary)
    return struct.pack("<III", _GLB_MAGIC, 2, 12 + len(body)) + body


fill_docstrings(globals())
