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
64 MB (a skin counts as 16 KiB of it, a skinned primitive read for a node 1 KiB, an animation
channel 256 bytes), the skins' folded chains hold at most 2**18 nodes in all, matrices,
translations and scales (of nodes, inverse bind matrices and animation keys) stay within
+-:data:`MAX_MAGNITUDE` (1e18; beyond it, or not finite, a ValueError names the accessor or
node and the element), and all the clips of a file
take at most ``max_joint_frames`` joint-frames together (a keyword of :func:`load_gltf`,
default :data:`MAX_JOINT_FRAMES` = 2**22; checked when the file loads, with a ValueError naming
the animation that goes over, its duration and its sample rate). Within them the cost is
proportional: a skin's node chains are folded once (a segment tree of their rest matrices,
so an animation costs in proportion to the nodes it moves, not to the chains' lengths),
channels are sampled together (vectorized over channels and frames), and no pass is
quadratic in nodes, channels, skins or primitives.

Influences: ``joint_indices`` and ``weights`` have K = 4 columns per JOINTS_n/WEIGHTS_n set;
:func:`skelsimd.skin` takes up to 12 (three sets), so a mesh with more sets goes through
:meth:`GltfMesh.compact_influences` first (exact when no vertex has more than 12 non-zero
weights; otherwise each such vertex keeps its 12 largest, renormalised).

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

import dataclasses
import json
import os
import struct
import warnings
from typing import Any, Protocol, TypeVar

import numpy as np

from ..bounds import fill_docstrings
from ..clip import Clip
from ..skeleton import Skeleton
from .gltf_nodes import (NodeClip, animated_nodes, animation_index, node_indices,
                         world_matrices)
from ._file_errors import in_file
from ._gltf_animations import (
    GltfAnimation, GltfChannel, _AnimationJob, _check_budget, _check_rate, _check_tolerance,
    _frame_count, _implied_rate, _node_matrices, _plan_clips, _read_animations)
from ._gltf_document import (
    Arr, Json, MAX_JOINT_FRAMES, MAX_MAGNITUDE, MAX_SCALE_TOLERANCE, SIMILARITY_TOLERANCE,
    SUPPORTED_EXTENSIONS, WEIGHT_TOLERANCE, _BIN_CHUNK, _Doc, _GLB_MAGIC, _JSON_CHUNK)
from ._gltf_skins import GltfMesh, GltfSkin, _names, _read_meshes, _read_nodes, _read_skin


__all__ = ["load_gltf", "load_gltf_clip", "example_glb", "GltfAsset", "GltfSkin", "GltfMesh",
           "GltfAnimation", "GltfChannel", "NodeClip",
           "GltfClip", "WEIGHT_TOLERANCE", "SIMILARITY_TOLERANCE", "MAX_SCALE_TOLERANCE",
           "MAX_JOINT_FRAMES", "MAX_MAGNITUDE",
           "SUPPORTED_EXTENSIONS"]

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

    def __repr__(self) -> str:
        base = super().__repr__()
        return f"GltfClip({self.name!r:.40}, skin {self.skin}, {base[base.index('(') + 1:]}"

    def _repr_html_(self) -> str:
        from ..plotting import gltf_clip_html
        return gltf_clip_html(self)


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
    _warn_refused(refused, len(clips), kind, stacklevel=4)
    return clips, refused


def _warn_refused(refused: dict[tuple[str, int], str], converted: int, kind: str,
                  stacklevel: int = 3) -> None:
    """The one warning of an asset's clips: the refused animations and why (the first five)."""
    if refused:
        lines = "; ".join(f"animation {name!r:.60} (skin {s}): {why}"
                          for (name, s), why in list(refused.items())[:5])
        more = f"; and {len(refused) - 5} more" if len(refused) > 5 else ""
        warnings.warn(f"{len(refused)} of {len(refused) + converted} clips refused, "
                      f"{kind}.refused has the reasons: {lines}{more}", UserWarning,
                      stacklevel=stacklevel)


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
    max_joint_frames : int
        The budget of joint-frames the clips may take (see :func:`load_gltf`).
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
    max_joint_frames: int = MAX_JOINT_FRAMES
    _pairs: list[tuple[int, int]] | None = dataclasses.field(repr=False, default=None)

    def __repr__(self) -> str:
        rate = "implied rates" if self.sample_rate is None else f"{self.sample_rate:g} Hz"
        return (f"GltfAsset({_names([s.name for s in self.skins], 'skins', 3)}; "
                f"{_names([m.name for m in self.meshes], 'meshes', 3)}; "
                f"{_names([a.name for a in self.animations], 'animations', 3)}; "
                f"{len(self.clip_pairs())} clips at {rate})")

    def _repr_html_(self) -> str:
        from ..plotting import gltf_asset_html
        return gltf_asset_html(self)

    @property
    def clips(self) -> list[GltfClip]:
        if self._clips is None:
            clips, refused = [], {}
            by_animation: dict[int, list[int]] = {}
            for a, s in self.clip_pairs():
                by_animation.setdefault(a, []).append(s)
            for a, skins in by_animation.items():      # each animation's nodes sampled once
                rate = self.sample_rate_of(a)
                job = _AnimationJob(self, a, skins, rate, "this clip")
                morph = job.morph_weights()
                for s, out in zip(skins, job.qts()):
                    if isinstance(out, ValueError):
                        refused[(self.animations[a].name, s)] = str(out)
                    else:
                        clips.append(GltfClip(self.skins[s].skeleton, out, 1.0 / rate,
                                              name=self.animations[a].name, skin=s,
                                              morph_weights=morph))
            _warn_refused(refused, len(clips), "GltfAsset")
            self.refused = refused
            self._clips = clips
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
        if self._pairs is None:
            self._pairs = _plan_clips(self.skins, self.animations, self.sample_rate,
                                      self.max_joint_frames)
        return list(self._pairs)

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
        return _AnimationJob(self, a, [s], rate, "these matrices").matrices()

    def clip(self, animation: int | str, skin: int = 0,
             sample_rate: float | None = None) -> GltfClip:
        """The clip of skin ``skin`` driven by animation ``animation`` (its index or its name;
        any pair, driven or not), sampled at ``sample_rate`` (default: as ``clips``).
        ValueError naming the node and its scale where a joint's folded local is not a
        similarity within ``scale_tolerance``."""
        a, s, rate = self._check_pair(animation, skin, sample_rate)
        job = _AnimationJob(self, a, [s], rate, "this clip")
        out = job.qts()[0]
        if isinstance(out, ValueError):
            raise out
        return GltfClip(self.skins[s].skeleton, out, 1.0 / rate,
                        name=self.animations[a].name, skin=s, morph_weights=job.morph_weights())

    def node_clip(self, animation: int | str, *, sample_rate: float | None = None,
                  nodes: Any = None) -> NodeClip:
        """The world matrices of the nodes animation ``animation`` (its index or name) moves,
        skinned or not, sampled at ``sample_rate`` (default: as ``clips``): a
        :class:`NodeClip` with ``world`` ``(F, N, 3, 4)`` float32, ``nodes``, ``names`` and
        ``sample_rate`` (see :mod:`skelsimd.io.gltf_nodes`). ``nodes``: the node indices to
        evaluate instead of the animated ones (any nodes, e.g. their descendants).

        Examples
        --------
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "bend.glb")
        >>> _ = open(path, "wb").write(example_glb())
        >>> nc = load_gltf(path).node_clip("bend")
        >>> nc.names, nc.world.shape, nc.sample_rate
        (('tip',), (11, 1, 3, 4), 10.0)
        """
        a = animation_index([anim.name for anim in self.animations], animation)
        anim = self.animations[a]
        rate = self.sample_rate_of(a) if sample_rate is None else _check_rate(sample_rate)
        doc = self._doc
        chosen = (animated_nodes(anim.by_node) if nodes is None
                  else node_indices(nodes, len(doc.node_objs)))
        world = world_matrices(chosen, [n.parent for n in doc.node_objs], doc.preorder,
                               set(anim.by_node), lambda n, tt: _node_matrices(doc, n, anim, tt),
                               _frame_count(anim, rate), rate, self.max_joint_frames,
                               f"animations[{a}] ({anim.name!r:.40})")
        return NodeClip(anim.name, world, chosen, [doc.node_objs[n].name for n in chosen], rate)

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


# --- the entry point ------------------------------------------------------------------------------

def load_gltf(path: str | os.PathLike[str], *, sample_rate: float | None = None,
              scale_tolerance: float = SIMILARITY_TOLERANCE,
              max_joint_frames: int = MAX_JOINT_FRAMES) -> GltfAsset:
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
    max_joint_frames : int, optional
        The joint-frames all the file's clips may take together (default
        :data:`MAX_JOINT_FRAMES`, 2**22): a clip of F frames of a skin of J joints takes
        ``F * (J + A + ceil(W / 8))``, at least 256, where A counts the occurrences of the nodes
        the animation moves in the skin's folded chains and W the morph weights it animates.
        Checked when the file loads: a ValueError names the animation that goes over, its
        duration and its sample rate. A clip built later at another ``sample_rate`` (or
        :meth:`GltfAsset.local_matrices`) must fit the budget alone.

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
    _check_budget(max_joint_frames)
    try:
        return _load_gltf(path, sample_rate, scale_tolerance, max_joint_frames)
    except ValueError as exc:
        raise in_file(path, exc) from None


def _load_gltf(path: str | os.PathLike[str], sample_rate: float | None,
               scale_tolerance: float, max_joint_frames: int) -> GltfAsset:
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
    budget = _check_budget(max_joint_frames)
    pairs = _plan_clips(skins, animations, rate, budget)    # checked now, not when first built
    raw = [dict(n) if isinstance(n, dict) else {} for n in doc.nodes]
    doc.release()             # clips need the nodes and the keyframes only, not the buffers
    return GltfAsset(skins=skins, meshes=meshes, animations=animations, sample_rate=rate,
                     nodes=raw, _doc=doc, scale_tolerance=tol, max_joint_frames=budget,
                     _pairs=pairs)


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

