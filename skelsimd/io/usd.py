"""OpenUSD characters in and out: UsdSkel skeletons, animations and skinned meshes.

:func:`load_usd` reads a ``.usd``, ``.usda``, ``.usdc`` or ``.usdz`` file into a
:class:`UsdAsset`, the same model as :func:`skelsimd.load_gltf` gives: ``skins`` (a
:class:`skelsimd.Skeleton` with inverse bind matrices per UsdSkel ``Skeleton``), ``meshes``
(skinned ``Mesh`` prims ready for :func:`skelsimd.skin`) and ``clips`` (one
:class:`skelsimd.Clip` per ``SkelAnimation`` bound to a skeleton). :func:`save_usd` writes a
clip, and optionally a skinned mesh, as a ``SkelRoot`` that UsdSkel (usdview, Omniverse,
Houdini, Maya, Blender, Apple's Quick Look for ``.usdz``) plays.

Both go through Pixar's own library, ``usd-core`` on the package index (``import pxr``), the
optional extra ``pip install "skelsimd[usd]"``: ``import skelsimd`` never imports it, and a
call that needs it without it raises an ImportError saying so. UsdSkel's ``UsdSkel.Cache``
and its queries (``SkeletonQuery``, ``AnimQuery``, ``SkinningQuery``) decide what is bound to
what (``skel:skeleton`` and ``skel:animationSource`` inherited down the namespace, instancing,
a mesh's own ``skel:joints`` order): skelsimd reads the arrays they resolve and converts them
once, in NumPy.

The numbers
-----------
For every frame ``f`` of a clip ``c`` of skin ``s``::

    g = skelsimd.qts_local_to_global_matrix(c.local[f], c.skeleton)

are the joints' skeleton-space matrices, UsdSkel's ``ComputeJointSkelTransforms`` at time
code ``asset.times[f]``: joints the animation does not drive keep the Skeleton's
``restTransforms`` (or, when those are not authored, the local transforms implied by its
``bindTransforms``). Then::

    skelsimd.skin(m.positions, m.joint_indices, m.weights,
                  skelsimd.multiply_joints(g, asset.skins[m.skin].inverse_bind))

are UsdSkel's skinned points (``SkinningQuery.ComputeSkinnedPoints`` with the skeleton's
``ComputeSkinningTransforms``), in the Skeleton's space as UsdSkel computes them (the
Skeleton's and the mesh's own prim transforms are not applied). The tests compare both with
UsdSkel's own evaluation on every file, at keys and between keys.

Conventions: USD matrices are row vectors (``Gf.Matrix4d`` keeps the translation in its last
row, a point maps to ``p * M``); skelsimd's joint matrices are column vectors ``[R | t]``
(3x4), so every matrix is transposed on the way in and out. USD quaternions are
``(real, i, j, k)`` in ``Gf.Quatf`` and ``(i, j, k, real)`` in memory, skelsimd's
``(x, y, z, w)``.

Sampling: frame ``f`` is time code ``start + f`` for the stage's ``startTimeCode`` to
``endTimeCode`` (when the stage has no time range, the span of the animations' time samples),
``clip.fps`` is the stage's ``timeCodesPerSecond``. Values between time samples are USD's
own (read through ``Usd.AttributeQuery``: linear, quaternions by shortest-arc slerp, or held
when the stage says so).

Meshes: ``points`` at the earliest time code, ``primvars:skel:geomBindTransform`` folded into
the positions (and its inverse transpose into the normals), joint influences of any
``elementSize`` K (``(V, K)`` columns; :func:`skelsimd.skin` takes up to 8, see
:meth:`UsdMesh.compact_influences`), constant (rigid) influences expanded to every vertex by
UsdSkel, indices in skeleton order whatever the mesh's ``skel:joints`` order, weights
renormalised as :func:`skelsimd.load_gltf` does (a warning past
:data:`skelsimd.io.gltf.WEIGHT_TOLERANCE`). Polygons are triangulated as fans (holes left out,
``leftHanded`` meshes turned counter-clockwise), face ``GeomSubset`` children are kept as
``face_sets`` (their triangles), per-vertex normals are kept (``faceVarying`` ones are not
per-vertex: ``normals`` is None). Prims that are not ``Mesh`` (curves, points, implicit
shapes) are skipped with a warning, and so is a mesh bound for dual-quaternion skinning
(read as linear-blend skinning, with a warning). Blend shapes are not applied.

Scale: QTS carries a uniform scale, and the rules are :mod:`skelsimd.io.gltf`'s. A joint's
local transform counts as a rotation with a uniform scale when its three axis scales spread by
at most ``UsdAsset.scale_tolerance`` of their mean and its axes are orthogonal within it
(default :data:`skelsimd.io.gltf.SIMILARITY_TOLERANCE`, exporters' float noise; the uniform
scale is then the mean). Beyond it (a joint's ``scales`` or a rest transform with unequal axes
or shear) the clip is refused: :meth:`UsdAsset.clip` raises a ValueError naming the
attribute, the joint and the frame, ``UsdAsset.clips`` leaves that clip out with one warning
(``UsdAsset.refused`` keeps the reasons), and :meth:`UsdAsset.local_matrices` gives the exact
3x4 local matrices ``(F, J, 3, 4)``.

Bad input: a missing file, a layer that does not parse, a Skeleton without joints, joint
indices past the joint count, weights of the wrong length, animation arrays of the wrong
length at some time code, non-finite transforms or points: a ValueError naming the prim
path and the attribute (``/Root/Skel/Anim.rotations: 2 values at time code 7, expected 3``).
The file is only read.

Examples
--------
>>> import os, tempfile, skelsimd
>>> clip = skelsimd.data.load_example()[:20]
>>> path = skelsimd.save_usd(os.path.join(tempfile.mkdtemp(), "walk.usda"), clip)
>>> asset = skelsimd.load_usd(path)
>>> asset.skins[0].skeleton.names[:3]
('Hips', 'LHipJoint', 'LeftHip')
>>> back = asset.clips[0]
>>> back.frames, round(back.fps)
(20, 120)
"""
from __future__ import annotations

import dataclasses
import math
import os
import tempfile
import types
import warnings
from typing import Any, Optional, Union

import numpy as np
from numpy.typing import NDArray

from ..clip import Clip
from ..skeleton import Skeleton
from ._gltf_animations import _continuous
from ._gltf_skins import (_compact_influences, _normalize, _similar, _to_qts, _trs_matrix,
                          _unique_names)
from .gltf import SIMILARITY_TOLERANCE, WEIGHT_TOLERANCE, GltfClip, _clips_refusing
from .gltf_write import _compose, _finite, _mesh_arrays, _qts_matrices, _unit_quats
from ._writing import output_path

__all__ = ["load_usd", "save_usd", "UsdAsset", "UsdSkin", "UsdMesh", "UsdAnimation", "UsdClip",
           "USD_SUFFIXES"]

Arr = NDArray[Any]
F64 = NDArray[np.float64]
_Path = Union[str, "os.PathLike[str]"]

#: The file names :func:`load_usd` and :func:`save_usd` take.
USD_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")
_INSTALL = 'pip install "skelsimd[usd]"'
_MAX_JOINT_FRAMES = 1 << 24      # frames x joints of the stage's range (a 512 MB QTS array)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _pxr() -> Any:
    """Pixar's modules (usd-core), imported when first needed."""
    try:
        from pxr import Gf, Sdf, Tf, Usd, UsdGeom, UsdSkel, UsdUtils, Vt
    except ImportError as exc:
        raise ImportError(f"skelsimd's OpenUSD support needs usd-core: {_INSTALL}") from exc
    return types.SimpleNamespace(Gf=Gf, Sdf=Sdf, Tf=Tf, Usd=Usd, UsdGeom=UsdGeom,
                                 UsdSkel=UsdSkel, UsdUtils=UsdUtils, Vt=Vt)


class UsdFileNotFoundError(FileNotFoundError, ValueError):
    """A USD path that names no file: both a FileNotFoundError and a ValueError."""


# --- the result ------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class UsdSkin:
    """One UsdSkel ``Skeleton``: its joints as a :class:`skelsimd.Skeleton`.

    Attributes
    ----------
    name : str
        The prim's name.
    path : str
        The prim's path (``/Root/Skel``).
    skeleton : Skeleton
        The joints in the Skeleton's ``joints`` order (UsdSkel requires parents first), names
        from ``jointNames`` when authored, else the last element of each joint path (made
        unique as :func:`skelsimd.load_gltf` does). ``rest`` is the rest pose: QTS ``(J, 8)``,
        or matrices ``(J, 3, 4)`` where a rest transform is not a rotation with a uniform scale.
    inverse_bind : ndarray, float32 (J, 3, 4)
        The inverses of ``bindTransforms`` (skeleton space), column-vector convention.
    joints : tuple of str
        The ``joints`` attribute: each joint's path.
    """
    name: str
    path: str
    skeleton: Skeleton
    inverse_bind: Arr
    joints: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class UsdMesh:
    """A skinned ``Mesh`` prim: exactly what :func:`skelsimd.skin` takes.

    Attributes
    ----------
    name : str
        The prim's path.
    path : str
        The prim's path.
    skin : int
        Index of its skeleton in ``UsdAsset.skins``.
    positions : ndarray, float32 (V, 3)
        ``points`` with ``geomBindTransform`` applied: where the bind pose puts them.
    normals : ndarray, float32 (V, 3) or None
        Per-vertex normals (``vertex`` or ``varying``), unit length, ``geomBindTransform``'s
        inverse transpose applied; None when the mesh has none per vertex.
    triangles : ndarray, int32 (T, 3)
        Polygons as fans, counter-clockwise, holes left out.
    joint_indices : ndarray, int32 (V, K)
        Skeleton order; K is the influences' ``elementSize``.
    weights : ndarray, float32 (V, K)
        Rows renormalised to sum to 1.
    face_sets : dict of str to ndarray of int32
        Each face ``GeomSubset`` child by name: the rows of ``triangles`` its faces became.
    """
    name: str
    path: str
    skin: int
    positions: Arr
    normals: Arr | None
    triangles: Arr
    joint_indices: Arr
    weights: Arr
    face_sets: dict[str, Arr] = dataclasses.field(default_factory=dict)

    def compact_influences(self, max_influences: int = 8) -> UsdMesh:
        """The mesh with at most ``max_influences`` columns of influences (each vertex's
        non-zero weights first, then the all-zero columns dropped): the same skinned vertices,
        or a ValueError naming the mesh and a vertex with more non-zero weights than that."""
        return _compact_influences(self, max_influences)


@dataclasses.dataclass(frozen=True)
class UsdAnimation:
    """A ``SkelAnimation`` sampled at the stage's frames (time codes ``UsdAsset.times``).

    Attributes
    ----------
    name : str
        The prim's ``displayName`` when authored, else its name.
    path : str
    joints : tuple of str
        The joint paths it drives, in its own order.
    translations, rotations, scales : ndarray, float32 (F, Ja, 3), (F, Ja, 4), (F, Ja, 3)
        Per frame and joint; rotations unit quaternions ``(x, y, z, w)``. ``Ja == 0`` when the
        animation has no transforms (it drives no joint).
    """
    name: str
    path: str
    joints: tuple[str, ...]
    translations: Arr
    rotations: Arr
    scales: Arr


class UsdClip(GltfClip):
    """A :class:`skelsimd.Clip` of a ``SkelAnimation`` driving a skeleton: ``skin`` is the
    index of its skeleton in ``UsdAsset.skins``, ``name`` the animation's (``morph_weights``
    stays empty: blend shapes are not read). Editing returns UsdClips keeping ``name`` and
    ``skin``."""


@dataclasses.dataclass
class UsdAsset:
    """What :func:`load_usd` read.

    Attributes
    ----------
    skins : list of UsdSkin
        Every Skeleton of the stage (depth-first order of the prims).
    meshes : list of UsdMesh
        Every skinned Mesh of every SkelRoot.
    animations : list of UsdAnimation
        Every SkelAnimation, sampled.
    clips : list of UsdClip
        One per Skeleton bound to an animation (``clip_pairs()``), built when first read; a
        ValueError when one needs a non-uniform scale (use :meth:`local_matrices`).
    times : ndarray, float64 (F,)
        The time codes of the frames.
    time_codes_per_second : float
    up_axis : str
        ``"Y"`` or ``"Z"``.
    meters_per_unit : float
        The stage's ``metersPerUnit`` (USD's default 0.01 when not authored).
    scale_tolerance : float
        The relative tolerance under which a joint's scale counts as uniform (see the module
        documentation); set it before reading ``clips`` or calling :meth:`clip`.
    refused : dict
        ``{(animation name, skin): reason}`` of the clips ``clips`` left out (filled when
        ``clips`` is first read).
    """
    skins: list[UsdSkin]
    meshes: list[UsdMesh]
    animations: list[UsdAnimation]
    times: Arr
    time_codes_per_second: float
    up_axis: str
    meters_per_unit: float
    _bound: list[tuple[int, int]] = dataclasses.field(repr=False, default_factory=list)
    _maps: dict[tuple[int, int], Arr] = dataclasses.field(repr=False, default_factory=dict)
    _rest: list[F64] = dataclasses.field(repr=False, default_factory=list)
    _clips: list[UsdClip] | None = dataclasses.field(repr=False, default=None)
    scale_tolerance: float = SIMILARITY_TOLERANCE
    refused: dict[tuple[str, int], str] = dataclasses.field(default_factory=dict)

    @property
    def clips(self) -> list[UsdClip]:
        if self._clips is None:
            self._clips, self.refused = _clips_refusing(self, "UsdAsset")
        return self._clips

    def clip_pairs(self) -> list[tuple[int, int]]:
        """``(animation, skin)`` index pairs, one per clip, in the order of ``clips``: each
        Skeleton with the animation UsdSkel binds to it."""
        return list(self._bound)

    def plot(self, frame: int = 0, ax: Any = None, **kwargs: Any) -> Any:
        """The skinned mesh at one frame; see :func:`skelsimd.plotting.plot_gltf`."""
        from ..plotting import plot_gltf
        return plot_gltf(self, frame, ax, **kwargs)

    def animate(self, **kwargs: Any) -> Any:
        """The skinned mesh played inline; see :func:`skelsimd.plotting.animate_gltf`."""
        from ..plotting import animate_gltf
        return animate_gltf(self, **kwargs)

    def _check_pair(self, animation: int | str, skin: int) -> tuple[int, int]:
        if isinstance(animation, str):
            found = [i for i, anim in enumerate(self.animations)
                     if animation in (anim.name, anim.path)]
            if not found:
                raise ValueError(f"animation: no SkelAnimation named {animation!r:.60} (the "
                                 f"file has {', '.join(a.path for a in self.animations[:8])}"
                                 f"{', ...' if len(self.animations) > 8 else ''})")
            animation = found[0]
        for value, name, n in ((animation, "animation", len(self.animations)),
                               (skin, "skin", len(self.skins))):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
            if not 0 <= value < n:
                raise ValueError(f"{name}: expected 0 <= {name} < {n}, got {value}")
        a, s = int(animation), int(skin)
        if (a, s) not in self._maps:        # an animation UsdSkel does not bind to this skeleton
            px = _pxr()
            anim, sk = self.animations[a], self.skins[s]
            mapper = px.UsdSkel.AnimMapper(px.Vt.TokenArray(anim.joints),
                                           px.Vt.TokenArray(sk.joints))
            self._maps[a, s] = _anim_index(px, mapper, len(anim.joints), len(sk.joints))
        return a, s

    def local_matrices(self, animation: int | str, skin: int = 0) -> Arr:
        """Local joint matrices ``(F, J, 3, 4)`` float32 of skin ``skin`` driven by animation
        ``animation``, exact for any scale (UsdSkel's ``ComputeJointLocalTransforms``)."""
        a, s = self._check_pair(animation, skin)
        return _local_matrices(self, a, s)[..., :3, :].astype(np.float32)

    def clip(self, animation: int | str, skin: int = 0) -> UsdClip:
        """The clip of skin ``skin`` driven by animation ``animation`` (its index, name or
        prim path; any pair: joints are matched by path as UsdSkel does). ValueError naming the attribute, the joint and the
        frame where a joint's local transform is not a rotation with a uniform scale."""
        a, s = self._check_pair(animation, skin)
        anim, sk = self.animations[a], self.skins[s]
        index = self._maps[a, s]
        frames, n = len(self.times), len(sk.joints)
        rest = self._rest[s]
        qts = np.empty((frames, n, 8), dtype=np.float32)
        driven = index >= 0
        if not driven.all():
            still = ~driven
            ok = _similar(rest[still, :3, :3], self.scale_tolerance)
            if not ok.all():
                j = int(np.flatnonzero(still)[np.argmin(ok)])
                raise ValueError(
                    f"{sk.path}.restTransforms: joint {sk.skeleton.names[j]!r} has a non-uniform "
                    f"scale or shear and {anim.path} does not drive it; QTS clips carry a "
                    "uniform scale: use UsdAsset.local_matrices() for the exact (F, J, 3, 4) "
                    "matrices")
            qts[:, still] = _to_qts(rest[still])
        if driven.any():
            cols = index[driven]
            sc = anim.scales[:, cols]
            part = np.empty(sc.shape[:-1] + (8,), dtype=np.float32)
            part[..., :4] = anim.rotations[:, cols]
            part[..., 4:7] = anim.translations[:, cols]
            part[..., 7] = sc[..., 0]
            uniform = (sc == sc[..., :1]).all(axis=-1)  # exact: QTS straight from the file
            if not uniform.all():
                bad = ~uniform
                t = anim.translations[:, cols][bad].astype(np.float64)
                q = anim.rotations[:, cols][bad].astype(np.float64)
                m = _trs_matrix(t, q, sc[bad].astype(np.float64))
                ok = _similar(m[..., :3, :3], self.scale_tolerance)
                if not ok.all():
                    f, jc = (int(x) for x in np.argwhere(bad)[np.argmin(ok)])
                    j = int(np.flatnonzero(driven)[jc])
                    raise ValueError(
                        f"{anim.path}.scales: non-uniform scale "
                        f"{np.array2string(sc[f, jc].astype(np.float64), precision=6)} at frame "
                        f"{f} (time code {self.times[f]:g}, joint {sk.skeleton.names[j]!r}); QTS "
                        "clips carry a uniform scale: use UsdAsset.local_matrices() for the "
                        "exact (F, J, 3, 4) matrices")
                part[bad] = _to_qts(m)
            qts[:, driven] = part
        _continuous(qts)
        rate = self.time_codes_per_second
        return UsdClip(sk.skeleton, qts, 1.0 / rate, name=anim.name, skin=s)


def _local_matrices(asset: UsdAsset, a: int, s: int) -> F64:
    """Local matrices (F, J, 4, 4) float64, column vectors."""
    anim, index = asset.animations[a], asset._maps[a, s]
    out = np.repeat(asset._rest[s][None], len(asset.times), axis=0)
    driven = index >= 0
    if driven.any():
        cols = index[driven]
        out[:, driven] = _trs_matrix(anim.translations[:, cols].astype(np.float64),
                                     anim.rotations[:, cols].astype(np.float64),
                                     anim.scales[:, cols].astype(np.float64))
    return out


def _anim_index(px: Any, mapper: Any, anim_joints: int, skel_joints: int) -> Arr:
    """For each skeleton joint the animation's joint that drives it, or -1 (UsdSkel's mapper
    from the animation's order to the skeleton's)."""
    if mapper is None or mapper.IsNull():
        return np.full(skel_joints, -1, dtype=np.intp)
    if mapper.IsIdentity():
        return np.arange(skel_joints, dtype=np.intp)
    out = mapper.Remap(px.Vt.IntArray(list(range(anim_joints))),
                       px.Vt.IntArray([-1] * skel_joints))
    return np.array(out, dtype=np.intp).reshape(skel_joints)


# --- reading ---------------------------------------------------------------------------------------

def _matrices(value: Any, n: int, where: str, names: Any = None) -> F64:
    """A matrix4d[] value as float64 column-vector matrices (n, 4, 4), checked."""
    m = np.array(value, dtype=np.float64).reshape(-1, 4, 4)
    if len(m) != n:
        raise ValueError(f"{where}: {len(m)} matrices, expected {n} (one per joint)")
    m = np.swapaxes(m, -1, -2).copy()
    bad = ~np.isfinite(m).all(axis=(-1, -2))
    if bad.any():
        j = int(np.argmax(bad))
        label = f" ({names[j]!r})" if names is not None else ""
        raise ValueError(f"{where}: non-finite matrix at joint {j}{label}")
    off = np.abs(m[:, 3] - [0, 0, 0, 1]).max(axis=-1)
    if (off > 1e-6).any():
        j = int(np.argmax(off > 1e-6))
        raise ValueError(f"{where}: matrix {j} is not affine (last column "
                         f"{m[j, 3].tolist()}, expected 0 0 0 1)")
    m[:, 3] = [0, 0, 0, 1]
    return m


def _invert(m: F64, where: str) -> F64:
    det = np.linalg.det(m[:, :3, :3])
    if (np.abs(det) < 1e-30).any():
        j = int(np.argmax(np.abs(det) < 1e-30))
        raise ValueError(f"{where}: matrix {j} is singular (determinant {det[j]:.3g})")
    out: F64 = np.linalg.inv(m).astype(np.float64)
    return out


def _read_skeleton(px: Any, cache: Any, prim: Any) -> tuple[UsdSkin, F64]:
    path = str(prim.GetPath())
    skel = px.UsdSkel.Skeleton(prim)
    joints = skel.GetJointsAttr().Get()
    if joints is None or len(joints) == 0:
        raise ValueError(f"{path}.joints: the Skeleton has no joints")
    joints = tuple(str(j) for j in joints)
    n = len(joints)
    topo = px.UsdSkel.Topology(px.Vt.TokenArray(joints))
    ok, why = topo.Validate()
    if not ok:
        raise ValueError(f"{path}.joints: {why}")
    query = cache.GetSkelQuery(skel)
    if not query:
        raise ValueError(f"{path}: UsdSkel cannot evaluate this Skeleton")
    parents = np.array(query.GetTopology().GetParentIndices(), dtype=np.int32)
    names_attr = skel.GetJointNamesAttr().Get()
    names: list[str]
    if names_attr is not None and len(names_attr) == n and len(set(names_attr)) == n \
            and all(str(x) for x in names_attr):
        names = [str(x) for x in names_attr]
    else:
        names = _unique_names(j.rsplit("/", 1)[-1] for j in joints)
    bind_value = skel.GetBindTransformsAttr().Get()
    bind = (np.tile(np.eye(4), (n, 1, 1)) if bind_value is None
            else _matrices(bind_value, n, f"{path}.bindTransforms", names))
    rest_value = skel.GetRestTransformsAttr().Get()
    if rest_value is not None:
        rest = _matrices(rest_value, n, f"{path}.restTransforms", names)
    else:                                   # the locals the bind pose implies
        inv = _invert(bind, f"{path}.bindTransforms")
        rest = bind.copy()
        for j in range(n):
            if parents[j] >= 0:
                rest[j] = inv[parents[j]] @ bind[j]
    if not (np.abs(rest) <= _FLOAT32_MAX).all():
        raise ValueError(f"{path}.restTransforms: values beyond the float32 range")
    ok_rest = _similar(rest[:, :3, :3], SIMILARITY_TOLERANCE)
    rest_arg = _to_qts(rest) if ok_rest.all() else rest[:, :3, :].astype(np.float32)
    inverse_bind = _invert(bind, f"{path}.bindTransforms")[:, :3, :].astype(np.float32)
    skin = UsdSkin(name=prim.GetName(), path=path,
                   skeleton=Skeleton(parents, names, rest=rest_arg),
                   inverse_bind=inverse_bind, joints=joints)
    return skin, rest


def _frame_times(px: Any, stage: Any, anims: list[Any], joints: int, label: str) -> F64:
    if stage.HasAuthoredTimeCodeRange():
        start, end = stage.GetStartTimeCode(), stage.GetEndTimeCode()
        where = f"{label}: startTimeCode {start:g}, endTimeCode {end:g}"
    else:
        samples: list[float] = []
        for prim in anims:
            a = px.UsdSkel.Animation(prim)
            for attr in (a.GetTranslationsAttr(), a.GetRotationsAttr(), a.GetScalesAttr()):
                samples.extend(attr.GetTimeSamples())
        start, end = (min(samples), max(samples)) if samples else (0.0, 0.0)
        where = f"the animations' time samples {start:g} to {end:g}"
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ValueError(f"{where}: not finite")
    span = max(end - start, 0.0)
    frames = math.floor(span + 1e-6) + 1
    if frames * max(joints, 1) > _MAX_JOINT_FRAMES:
        raise ValueError(f"{where}: {frames} frames x {joints} joints exceed "
                         f"{_MAX_JOINT_FRAMES} joint-frames")
    times: F64 = start + np.arange(frames, dtype=np.float64)
    return times


_COMPONENTS = (("translations", 3), ("rotations", 4), ("scales", 3))


def _read_animation(px: Any, prim: Any, times: F64) -> UsdAnimation:
    path = str(prim.GetPath())
    anim = px.UsdSkel.Animation(prim)
    joints_value = anim.GetJointsAttr().Get()
    joints = tuple(str(j) for j in joints_value) if joints_value is not None else ()
    attrs = {"translations": anim.GetTranslationsAttr(), "rotations": anim.GetRotationsAttr(),
             "scales": anim.GetScalesAttr()}
    has = {k: bool(a) and a.HasValue() for k, a in attrs.items()}
    display = prim.GetDisplayName() if hasattr(prim, "GetDisplayName") else ""
    name = display or prim.GetName()
    frames = len(times)
    if not any(has.values()):
        empty = np.zeros((frames, 0, 3), np.float32)
        return UsdAnimation(name=name, path=path, joints=(), translations=empty,
                            rotations=np.zeros((frames, 0, 4), np.float32), scales=empty.copy())
    missing = [k for k, v in has.items() if not v]
    if missing:
        raise ValueError(f"{path}.{missing[0]}: not authored (UsdSkel needs translations, "
                         "rotations and scales together)")
    n = len(joints)
    if n == 0:
        raise ValueError(f"{path}.joints: the SkelAnimation has transforms but no joints")
    lo, hi = float(times[0]), float(times[-1])
    out: dict[str, Arr] = {}
    for key, width in _COMPONENTS:
        attr = attrs[key]
        where = f"{path}.{key}"
        query = px.Usd.AttributeQuery(attr)
        samples = [t for t in attr.GetTimeSamples() if lo <= t <= hi]
        if query.ValueMightBeTimeVarying():
            at = sorted(set(times.tolist()) | set(samples))
            authored = _authored_samples(px, attr)
            if authored is not None:    # the keys as stored; USD interpolates the others
                values = [authored[t] if t in authored else query.Get(t) for t in at]
            else:
                values = [query.Get(t) for t in at]
        else:
            at = [lo]
            values = [query.Get(px.Usd.TimeCode.EarliestTime())]
        views = [None if v is None else memoryview(v) for v in values]
        for t, v in zip(at, views):
            size = 0 if v is None or not v.shape else v.shape[0]
            if size != n:
                raise ValueError(f"{where}: {size} values at time code {t:g}, expected {n} "
                                 f"(one per joint of {path}.joints)")
        arr = _stack(views, (len(at), n, width), where)
        bad = ~np.isfinite(arr).all(axis=-1)
        if bad.any():               # name an authored time sample before interpolated frames
            hits = np.argwhere(bad)
            keyed = [i for i, (kk, _) in enumerate(hits) if at[kk] in samples]
            k, j = (int(x) for x in hits[keyed[0] if keyed else 0])
            raise ValueError(f"{where}: non-finite value at time code {at[k]:g} (joint "
                             f"{joints[j]!r})")
        if key == "rotations":
            norm = np.sqrt(np.einsum("...k,...k->...", arr, arr, dtype=np.float64))
            if (norm == 0).any():
                k, j = (int(x) for x in np.argwhere(norm == 0)[0])
                raise ValueError(f"{where}: a zero quaternion at time code {at[k]:g} (joint "
                                 f"{joints[j]!r})")
            off = np.abs(norm - 1) > 1e-7
            if off.any():
                arr[off] = (arr[off] / norm[off][:, None]).astype(np.float32)
        if len(at) == 1:
            arr = np.repeat(arr, frames, axis=0)
        elif len(at) != frames or at[0] != times[0] or at[-1] != times[-1]:
            arr = arr[np.searchsorted(np.array(at), times)]
        out[key] = arr
    return UsdAnimation(name=name, path=path, joints=joints, translations=out["translations"],
                        rotations=out["rotations"], scales=out["scales"])


def _authored_samples(px: Any, attr: Any) -> dict[float, Any] | None:
    """The attribute's time samples as one layer stores them, read in one call, when the
    value USD resolves is exactly those (time samples, no value clips, the strongest opinion,
    no layer offset or time-code rescaling on the way to the stage); else None (then every
    value is asked of USD at its time code)."""
    if attr.GetResolveInfo().GetSource() != px.Usd.ResolveInfoSourceTimeSamples:
        return None
    for spec, offset in attr.GetPropertyStackWithLayerOffsets():
        if spec.HasInfo("timeSamples"):
            if not offset.IsIdentity():
                return None
            samples = spec.GetInfo("timeSamples")
            return samples if isinstance(samples, dict) else None
        if spec.HasInfo("default"):
            return None
    return None


def _stack(views: list[Any], shape: tuple[int, int, int], where: str) -> NDArray[np.float32]:
    """The buffers of VtArrays of equal length (float, half or double elements) as one float32
    array: joined and read once (NumPy's per-element path is slow, for half especially)."""
    raw = b"".join([v.cast("B") for v in views])
    arr = np.frombuffer(raw, dtype=np.dtype(views[0].format)).reshape(shape)
    with np.errstate(over="ignore"):
        out = arr.astype(np.float32)
    if not np.isfinite(out[np.isfinite(arr)]).all():
        raise ValueError(f"{where}: values beyond the float32 range")
    return out


def _triangulate(counts: Arr, indices: Arr, holes: Arr, left_handed: bool,
                 where: str) -> tuple[Arr, Arr]:
    """Fan triangles (T, 3) and the face of each (T,)."""
    if (counts < 0).any():
        f = int(np.argmax(counts < 0))
        raise ValueError(f"{where}.faceVertexCounts: negative count {int(counts[f])} at face {f}")
    if int(counts.sum()) != len(indices):
        raise ValueError(f"{where}.faceVertexIndices: {len(indices)} indices, the "
                         f"faceVertexCounts add up to {int(counts.sum())}")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    keep = counts >= 3
    if len(holes):
        ok = (holes >= 0) & (holes < len(counts))
        keep[holes[ok]] = False
    faces = np.flatnonzero(keep)
    per = counts[faces] - 2
    face_of = np.repeat(faces, per)
    first = np.repeat(starts[faces], per)
    k = np.arange(len(face_of)) - np.repeat(np.cumsum(per) - per, per)
    tri = np.stack([indices[first], indices[first + k + 1], indices[first + k + 2]], axis=1)
    if left_handed:
        tri = tri[:, [0, 2, 1]]
    return tri.astype(np.int32), face_of


def _read_mesh(px: Any, query: Any, skin_index: int, skin: UsdSkin) -> UsdMesh | None:
    prim = query.GetPrim()
    path = str(prim.GetPath())
    if not prim.IsA(px.UsdGeom.Mesh):
        warnings.warn(f"{path}: a {prim.GetTypeName() or 'typeless prim'} bound to "
                      f"{skin.path}, not a Mesh: skipped (only meshes are read)", stacklevel=4)
        return None
    mesh = px.UsdGeom.Mesh(prim)
    early = px.Usd.TimeCode.EarliestTime()
    ip, wp = query.GetJointIndicesPrimvar(), query.GetJointWeightsPrimvar()
    if not query.HasJointInfluences():
        if query.HasBlendShapes() and not (ip and ip.HasValue()) and not (wp and wp.HasValue()):
            warnings.warn(f"{path}: blend shapes only, no joint influences: skipped",
                          stacklevel=4)
            return None
        desc = []
        for label, pv in (("jointIndices", ip), ("jointWeights", wp)):
            if not pv or not pv.HasValue():
                raise ValueError(f"{path}.primvars:skel:{label}: missing (the mesh is bound to "
                                 f"{skin.path})")
            desc.append(f"{label} {pv.GetInterpolation()!s} elementSize {pv.GetElementSize()}")
        raise ValueError(f"{path}.primvars:skel:jointIndices: joint influences UsdSkel cannot "
                         f"use ({', '.join(desc)}; expected the same interpolation, 'vertex' or "
                         "'constant', and the same elementSize >= 1)")
    points = mesh.GetPointsAttr().Get(early)
    if points is None or len(points) == 0:
        raise ValueError(f"{path}.points: no points")
    pos = np.array(points, dtype=np.float64).reshape(-1, 3)
    if not np.isfinite(pos).all():
        raise ValueError(f"{path}.points: non-finite value at point "
                         f"{int(np.argmax(~np.isfinite(pos).all(axis=1)))}")
    v = len(pos)
    k = int(query.GetNumInfluencesPerComponent())
    constant = str(query.GetInterpolation()) == "constant"
    expected = k if constant else v * k
    raw: dict[str, Arr] = {}
    for label, pv in (("jointIndices", ip), ("jointWeights", wp)):
        value = pv.Get(early)
        a = np.array(value if value is not None else [],
                     dtype=np.int64 if label == "jointIndices" else np.float64)
        if len(a) != expected:
            how = (f"elementSize {k}, constant" if constant
                   else f"{v} points x elementSize {k}")
            raise ValueError(f"{path}.primvars:skel:{label}: {len(a)} values, expected "
                             f"{expected} ({how})")
        raw[label] = a
    order = query.GetJointOrder()
    local_n = len(order) if order is not None else len(skin.joints)
    ji_raw, w_raw = raw["jointIndices"], raw["jointWeights"]
    bad = (ji_raw < 0) | (ji_raw >= local_n)
    if bad.any():
        i = int(np.argmax(bad))
        whose = f"{path}.skel:joints" if order is not None else f"the Skeleton {skin.path}"
        raise ValueError(f"{path}.primvars:skel:jointIndices: value {int(ji_raw[i])} at "
                         f"position {i} is not a joint index ({whose} has {local_n} joints)")
    if not np.isfinite(w_raw).all() or (w_raw < 0).any():
        i = int(np.argmax(~np.isfinite(w_raw) | (w_raw < 0)))
        raise ValueError(f"{path}.primvars:skel:jointWeights: value {w_raw[i]} at position {i}: "
                         "expected finite weights >= 0")
    res = query.ComputeVaryingJointInfluences(v, early)
    if res is None:
        raise ValueError(f"{path}.primvars:skel:jointIndices: UsdSkel cannot expand the joint "
                         "influences")
    ji = np.array(res[0], dtype=np.int64).reshape(v, k)
    w = np.array(res[1], dtype=np.float64).reshape(v, k)
    if order is not None:                    # the mesh's own joint order -> the skeleton's
        mapper = query.GetJointMapper()
        to_skel = np.array(mapper.Remap(px.Vt.IntArray(list(range(len(skin.joints)))),
                                        px.Vt.IntArray([-1] * local_n)),
                           dtype=np.int64).reshape(local_n) if mapper is not None \
            else np.arange(local_n)
        used = np.unique(ji[w != 0])
        lost = used[to_skel[used] < 0]
        if len(lost):
            raise ValueError(f"{path}.skel:joints: joint {str(order[int(lost[0])])!r} is not a "
                             f"joint of the Skeleton {skin.path}")
        ji = np.maximum(to_skel[ji], 0)
    w, off = _normalize(w, WEIGHT_TOLERANCE)
    if off:
        warnings.warn(f"{path}: {off} of {v} vertices have weights whose sum differs from 1 by "
                      "more than the tolerance; renormalised", stacklevel=4)
    method = str(query.GetSkinningMethod())
    if method not in ("", "classicLinear"):
        warnings.warn(f"{path}.primvars:skel:skinningMethod: {method!r}; skelsimd skins with "
                      "linear blend skinning", stacklevel=4)
    g = np.array(query.GetGeomBindTransform(early), dtype=np.float64).reshape(4, 4)
    if not np.isfinite(g).all():
        raise ValueError(f"{path}.primvars:skel:geomBindTransform: non-finite values")
    positions = pos @ g[:3, :3] + g[3, :3]
    normals = _normals(px, mesh, v, g[:3, :3], path)
    counts = np.array(mesh.GetFaceVertexCountsAttr().Get(early) or [], dtype=np.int64)
    indices = np.array(mesh.GetFaceVertexIndicesAttr().Get(early) or [], dtype=np.int64)
    if len(indices) and ((indices < 0) | (indices >= v)).any():
        i = int(np.argmax((indices < 0) | (indices >= v)))
        raise ValueError(f"{path}.faceVertexIndices: value {int(indices[i])} at position {i} is "
                         f"not a point index ({v} points)")
    holes = np.array(mesh.GetHoleIndicesAttr().Get(early) or [], dtype=np.int64)
    left = str(mesh.GetOrientationAttr().Get()) == "leftHanded"
    tri, face_of = _triangulate(counts, indices, holes, left, path)
    face_sets: dict[str, Arr] = {}
    for subset in px.UsdGeom.Subset.GetAllGeomSubsets(mesh):
        if str(subset.GetElementTypeAttr().Get()) != "face":
            continue
        idx = np.array(subset.GetIndicesAttr().Get(early) or [], dtype=np.int64)
        face_sets[subset.GetPrim().GetName()] = np.flatnonzero(np.isin(face_of, idx)).astype(
            np.int32)
    return UsdMesh(name=path, path=path, skin=skin_index,
                   positions=positions.astype(np.float32),
                   normals=normals, triangles=np.ascontiguousarray(tri),
                   joint_indices=np.ascontiguousarray(ji, dtype=np.int32),
                   weights=np.ascontiguousarray(w, dtype=np.float32), face_sets=face_sets)


def _normals(px: Any, mesh: Any, v: int, g3: F64, path: str) -> Arr | None:
    primvar = px.UsdGeom.PrimvarsAPI(mesh).GetPrimvar("normals")
    early = px.Usd.TimeCode.EarliestTime()
    if primvar and primvar.HasValue():
        value, interp = primvar.ComputeFlattened(early), str(primvar.GetInterpolation())
    else:
        value, interp = mesh.GetNormalsAttr().Get(early), str(mesh.GetNormalsInterpolation())
    if value is None or interp not in ("vertex", "varying") or len(value) != v:
        return None
    n = np.array(value, dtype=np.float64).reshape(v, 3)
    if not np.isfinite(n).all():
        raise ValueError(f"{path}.normals: non-finite values")
    n = n @ np.linalg.inv(g3).T if abs(np.linalg.det(g3)) > 1e-30 else n
    length = np.linalg.norm(n, axis=1, keepdims=True)
    return (n / np.where(length > 0, length, 1.0)).astype(np.float32)


def _open(px: Any, path: Any) -> Any:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    fspath = os.fspath(path)
    if not isinstance(fspath, str):
        raise TypeError("path: expected a str path, got bytes")
    if not os.path.isfile(fspath):
        raise UsdFileNotFoundError(f"{fspath}: no such file")
    # USD shares open layers process-wide: a layer another stage still holds would be read as it
    # was when first opened, not as the file is now (a save_usd over it since, say)
    stale = px.Sdf.Layer.Find(fspath) is not None
    try:
        stage = px.Usd.Stage.Open(fspath, px.Usd.Stage.LoadAll)
        if stage is not None and stale:
            stage.Reload()
    except px.Tf.ErrorException as exc:
        try:
            detail = " ".join(str(exc).split())[:300]
        except UnicodeDecodeError:      # USD's message quotes bytes of the file that are not text
            detail = "bytes that are not UTF-8 text where text is expected"
        raise ValueError(f"{fspath}: not a USD layer USD can open ({detail})") from None
    if stage is None:
        raise ValueError(f"{fspath}: not a USD layer USD can open")
    return stage


def load_usd(path: _Path) -> UsdAsset:
    """Read UsdSkel skeletons, animations and skinned meshes of a USD file.

    Parameters
    ----------
    path : str or os.PathLike
        ``.usd``, ``.usda``, ``.usdc`` or ``.usdz`` (any layer USD opens, with its
        sublayers, references and payloads).

    Returns
    -------
    UsdAsset
        ``skins``, ``meshes``, ``animations`` and ``clips`` (one :class:`UsdClip` per
        Skeleton bound to a SkelAnimation): the model :func:`skelsimd.load_gltf` gives.

    Raises
    ------
    ImportError
        usd-core is not installed (``pip install "skelsimd[usd]"``).
    ValueError
        A missing or unreadable file, or bad UsdSkel data; the message names the prim path and
        the attribute.

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> clip = skelsimd.data.load_example()[:5]
    >>> path = skelsimd.save_usd(os.path.join(tempfile.mkdtemp(), "walk.usdc"), clip)
    >>> asset = skelsimd.load_usd(path)
    >>> [(c.name, c.frames, len(c.skeleton)) for c in asset.clips]
    [('Animation', 5, 31)]
    """
    px = _pxr()
    stage = _open(px, path)
    predicate = px.Usd.TraverseInstanceProxies(px.Usd.PrimDefaultPredicate)
    skel_prims, anim_prims, roots = [], [], []
    for prim in stage.Traverse(predicate):
        if prim.IsA(px.UsdSkel.Skeleton):
            skel_prims.append(prim)
        elif prim.IsA(px.UsdSkel.Animation):
            anim_prims.append(prim)
        elif prim.IsA(px.UsdSkel.Root):
            roots.append(prim)
    cache = px.UsdSkel.Cache()
    skins, rests = [], []
    for prim in skel_prims:
        skin, rest = _read_skeleton(px, cache, prim)
        skins.append(skin)
        rests.append(rest)
    most = max((len(s.joints) for s in skins), default=1)
    times = _frame_times(px, stage, anim_prims, most, os.fspath(path))
    animations = [_read_animation(px, prim, times) for prim in anim_prims]
    anim_index = {a.path: i for i, a in enumerate(animations)}
    skin_index = {s.path: i for i, s in enumerate(skins)}
    bound: list[tuple[int, int]] = []
    maps: dict[tuple[int, int], Arr] = {}
    for s, prim in enumerate(skel_prims):
        query = cache.GetSkelQuery(px.UsdSkel.Skeleton(prim))
        anim_query = query.GetAnimQuery()
        if not anim_query:
            continue
        a = anim_index.get(str(anim_query.GetPrim().GetPath()))
        if a is None:
            continue
        maps[a, s] = _anim_index(px, query.GetMapper(), len(animations[a].joints),
                                 len(skins[s].joints))
        bound.append((a, s))
    bound.sort()
    meshes: list[UsdMesh] = []
    for root in roots:
        cache.Populate(px.UsdSkel.Root(root), predicate)
        for binding in cache.ComputeSkelBindings(px.UsdSkel.Root(root), predicate):
            found = skin_index.get(str(binding.GetSkeleton().GetPrim().GetPath()))
            if found is None:
                continue
            for target in binding.GetSkinningTargets():
                m = _read_mesh(px, target, found, skins[found])
                if m is not None:
                    meshes.append(m)
    up = str(px.UsdGeom.GetStageUpAxis(stage))
    mpu = float(px.UsdGeom.GetStageMetersPerUnit(stage))
    tcps = float(stage.GetTimeCodesPerSecond())
    if not (tcps > 0 and math.isfinite(tcps)):
        raise ValueError(f"{os.fspath(path)}: timeCodesPerSecond {tcps}, expected > 0")
    del stage
    return UsdAsset(skins=skins, meshes=meshes, animations=animations, times=times,
                    time_codes_per_second=tcps, up_axis=up, meters_per_unit=mpu,
                    _bound=bound, _maps=maps, _rest=rests)


# --- writing ---------------------------------------------------------------------------------------

def _identifiers(px: Any, names: Any) -> list[str]:
    """Valid, unique prim-name identifiers for joint names (``mixamorig:Hips`` ->
    ``mixamorig_Hips``)."""
    seen: set[str] = set()
    out = []
    for n in names:
        base = px.Tf.MakeValidIdentifier(str(n)) or "joint"
        new, k = base, 1
        while new in seen:
            new = f"{base}_{k}"
            k += 1
        seen.add(new)
        out.append(new)
    return out


def _write_atomically(px: Any, stage: Any, fspath: str, suffix: str) -> None:
    """Export the stage to a temporary file beside ``fspath``, then rename it."""
    directory = os.path.dirname(os.path.abspath(fspath))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(fspath) + ".", suffix=suffix,
                               dir=directory)
    os.close(fd)
    inner = None
    try:
        if suffix == ".usdz":
            fd, inner = tempfile.mkstemp(suffix=".usdc", dir=directory)
            os.close(fd)
            if not stage.Export(inner, False):
                raise OSError(f"{fspath}: USD could not write the layer")
            os.remove(tmp)
            if not px.UsdUtils.CreateNewUsdzPackage(px.Sdf.AssetPath(inner), tmp):
                raise OSError(f"{fspath}: USD could not write the package")
        else:
            args = {"format": "usda" if suffix == ".usda" else "usdc"}
            if not stage.Export(tmp, False, args):
                raise OSError(f"{fspath}: USD could not write the layer")
        os.replace(tmp, fspath)
    finally:
        for p in (tmp, inner):
            if p is not None and os.path.exists(p):
                os.remove(p)


def save_usd(path: _Path, clip: Clip, *, mesh: Any = None, skin: Any = None,
             up_axis: str = "Y", meters_per_unit: Optional[float] = None) -> str:
    """Write a clip, and optionally a skinned mesh, as an OpenUSD UsdSkel character.

    The stage has one ``SkelRoot`` (``/Root``, the default prim) holding a ``Skeleton``
    (``/Root/Skeleton``: the joints as paths, ``jointNames`` the skeleton's names,
    ``bindTransforms`` and ``restTransforms``), the clip as a ``SkelAnimation``
    (``/Root/Skeleton/Animation``, bound by ``skel:animationSource``: ``translations``,
    ``rotations`` (quatf) and ``scales`` (half3, USD's type: 3 significant digits, exact for 1
    and powers of 2) at time codes ``0 .. F-1``, ``timeCodesPerSecond`` the clip's rate, a
    rate within 10 ppm of a whole number taken as that number) and, with a mesh, a skinned
    ``Mesh`` (``/Root/Mesh``, ``SkelBindingAPI``: ``primvars:skel:jointIndices`` and
    ``jointWeights`` with ``elementSize`` K, ``geomBindTransform`` the identity, normals per
    vertex, ``face_sets`` as face ``GeomSubset`` children).

    Parameters
    ----------
    path : str or os.PathLike
        ``.usda`` (text), ``.usdc`` or ``.usd`` (binary crate) or ``.usdz`` (a package). The
        file appears whole or not at all: written beside it under a temporary name, then
        renamed.
    clip : Clip
        At least one frame, finite values.
    mesh : object or mapping, optional
        ``positions`` (V, 3), ``normals`` (V, 3) or None, ``triangles`` (T, 3),
        ``joint_indices`` and ``weights`` (V, K) in skeleton order (e.g. an entry of
        ``load_gltf(...).meshes`` or ``load_usd(...).meshes``, or a dict); optional
        ``face_sets`` (name -> triangle rows). Checked as :func:`skelsimd.save_gltf` checks it.
    skin : object, optional
        Its ``inverse_bind`` ``(J, 3, 4)`` gives ``bindTransforms`` (e.g.
        ``load_gltf(...).skins[i]``); default: the rest pose's global matrices (the mesh is
        where the rest pose puts it).
    up_axis : {"Y", "Z"}
    meters_per_unit : float, optional
        The stage's ``metersPerUnit`` (not authored by default: USD then reads 0.01).

    Returns
    -------
    str
        ``path``: :func:`load_usd` reads back the same names, parents, rest pose, poses
        (float32; scales as half) and mesh.

    Raises
    ------
    ImportError
        usd-core is not installed (``pip install "skelsimd[usd]"``).
    TypeError, ValueError
        Naming the argument: a wrong suffix, a clip without frames, non-finite values, a zero
        quaternion, shapes that do not match the skeleton, indices out of range.

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> clip = skelsimd.data.load_example()[:10]
    >>> path = skelsimd.save_usd(os.path.join(tempfile.mkdtemp(), "walk.usda"), clip,
    ...                          up_axis="Y", meters_per_unit=0.01)
    >>> open(path).readline().strip()
    '#usda 1.0'
    """
    fspath, suffix = output_path(path, USD_SUFFIXES)
    if not isinstance(clip, Clip):
        raise TypeError(f"clip: expected a skelsimd.Clip, got {type(clip).__name__}")
    if clip.frames < 1:
        raise ValueError("clip: expected at least one frame, got 0 frames")
    if up_axis not in ("Y", "Z"):
        raise ValueError(f"up_axis: expected 'Y' or 'Z', got {up_axis!r}")
    if meters_per_unit is not None:
        if isinstance(meters_per_unit, bool) or not isinstance(meters_per_unit, (int, float)):
            raise TypeError(f"meters_per_unit: expected a positive number, got "
                            f"{type(meters_per_unit).__name__}")
        if not (meters_per_unit > 0 and math.isfinite(meters_per_unit)):
            raise ValueError(f"meters_per_unit: expected a positive finite number, got "
                             f"{meters_per_unit!r}")
    skeleton = clip.skeleton
    n = len(skeleton)
    parents = np.asarray(skeleton.parents)
    local = clip.local.astype(np.float64)
    _finite(local, "clip.local")
    local[..., :4] = _unit_quats(local[..., :4], "clip.local")
    rest: F64
    if skeleton.rest is None:
        rest = _qts_matrices(local[0])
    elif skeleton.rest.ndim == 2:
        r = skeleton.rest.astype(np.float64)
        _finite(r, "clip.skeleton.rest")
        r[:, :4] = _unit_quats(r[:, :4], "clip.skeleton.rest")
        rest = _qts_matrices(r)
    else:
        rest = skeleton.rest.astype(np.float64)
        _finite(rest, "clip.skeleton.rest")
    if skin is None:
        bind = rest.copy()
        for j in range(n):
            if parents[j] >= 0:
                bind[j] = _compose(bind[parents[j]], bind[j])
    else:
        ib = np.asarray(getattr(skin, "inverse_bind", None) if not isinstance(skin, dict)
                        else skin.get("inverse_bind"))
        if ib.shape != (n, 3, 4) or ib.dtype.kind not in "fiu":
            raise ValueError(f"skin.inverse_bind: expected a real array of shape ({n}, 3, 4), "
                             f"got {ib.dtype} {ib.shape}")
        ib = ib.astype(np.float64)
        _finite(ib, "skin.inverse_bind")
        full = np.tile(np.eye(4), (n, 1, 1))
        full[:, :3] = ib
        det = np.linalg.det(full[:, :3, :3])
        if (np.abs(det) < 1e-30).any():
            j = int(np.argmax(np.abs(det) < 1e-30))
            raise ValueError(f"skin.inverse_bind[{j}]: a singular matrix")
        bind = np.linalg.inv(full)[:, :3].astype(np.float64)
    m = _mesh_arrays(mesh, n) if mesh is not None else None
    face_sets: dict[str, Arr] = {}
    if m is not None:
        k = np.asarray(mesh["joint_indices"] if isinstance(mesh, dict)
                       else mesh.joint_indices).shape[1]
        m["joint_indices"] = m["joint_indices"][:, :k].astype(np.int32)
        m["weights"] = m["weights"][:, :k]
        raw_sets = (mesh.get("face_sets") if isinstance(mesh, dict)
                    else getattr(mesh, "face_sets", None)) or {}
        t_count = len(m["triangles"])
        for key, given in dict(raw_sets).items():
            r = np.asarray(given)
            if r.ndim != 1 or r.dtype.kind not in "iu" or ((r < 0) | (r >= t_count)).any():
                raise ValueError(f"mesh.face_sets[{key!r}]: expected triangle rows in "
                                 f"[0, {t_count}), got {r.dtype} {r.shape}")
            face_sets[str(key)] = r.astype(np.int32)

    px = _pxr()
    Gf, Sdf, Usd, UsdGeom, UsdSkel, Vt = px.Gf, px.Sdf, px.Usd, px.UsdGeom, px.UsdSkel, px.Vt
    fps = clip.fps
    if abs(fps - round(fps)) <= 1e-5 * fps:
        fps = float(round(fps))
    frames = clip.frames
    stage = Usd.Stage.CreateInMemory("skelsimd" + (".usda" if suffix == ".usda" else ".usdc"))
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(frames - 1)
    stage.SetTimeCodesPerSecond(fps)
    stage.SetFramesPerSecond(fps)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y if up_axis == "Y" else UsdGeom.Tokens.z)
    if meters_per_unit is not None:
        UsdGeom.SetStageMetersPerUnit(stage, float(meters_per_unit))
    root = UsdSkel.Root.Define(stage, "/Root")
    stage.SetDefaultPrim(root.GetPrim())
    skel = UsdSkel.Skeleton.Define(stage, "/Root/Skeleton")
    ids = _identifiers(px, skeleton.names)
    paths: list[str] = []
    for j in range(n):
        paths.append(ids[j] if parents[j] < 0 else paths[parents[j]] + "/" + ids[j])
    tokens = Vt.TokenArray(paths)
    skel.CreateJointsAttr(tokens)
    skel.CreateJointNamesAttr(Vt.TokenArray(list(skeleton.names)))

    def rows(a: F64) -> Any:                # column-vector (n, 3, 4) -> USD row vectors
        full = np.tile(np.eye(4), (len(a), 1, 1))
        full[:, :3] = a
        return Vt.Matrix4dArray.FromNumpy(np.ascontiguousarray(np.swapaxes(full, -1, -2)))

    skel.CreateBindTransformsAttr(rows(bind))
    skel.CreateRestTransformsAttr(rows(rest))
    anim = UsdSkel.Animation.Define(stage, "/Root/Skeleton/Animation")
    name = getattr(clip, "name", None)
    if isinstance(name, str) and name and hasattr(anim.GetPrim(), "SetDisplayName"):
        anim.GetPrim().SetDisplayName(name)
    anim.CreateJointsAttr(tokens)
    t_attr = anim.CreateTranslationsAttr()
    r_attr = anim.CreateRotationsAttr()
    s_attr = anim.CreateScalesAttr()
    with np.errstate(over="ignore"):
        t32 = local[..., 4:7].astype(np.float32)
        q32 = local[..., :4].astype(np.float32)
        s16 = np.repeat(local[..., 7:8], 3, axis=-1).astype(np.float16)
    if not (np.isfinite(t32).all() and np.isfinite(s16).all()):
        raise ValueError("clip.local: translations beyond float32's range or scales beyond "
                         "half's (USD stores scales as half)")
    for f in range(frames):
        tc = Usd.TimeCode(f)
        t_attr.Set(Vt.Vec3fArray.FromNumpy(t32[f]), tc)
        r_attr.Set(Vt.QuatfArray.FromNumpy(q32[f]), tc)
        s_attr.Set(Vt.Vec3hArray.FromNumpy(s16[f]), tc)
    UsdSkel.BindingAPI.Apply(skel.GetPrim()).CreateAnimationSourceRel().SetTargets(
        [anim.GetPath()])
    if m is not None:
        geom = UsdGeom.Mesh.Define(stage, "/Root/Mesh")
        pos = m["positions"].astype(np.float32)
        geom.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(pos))
        tri = np.asarray(m["triangles"], dtype=np.int32)
        geom.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(tri), 3, np.int32)))
        geom.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(tri.reshape(-1)))
        geom.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
        geom.CreateExtentAttr(Vt.Vec3fArray([Gf.Vec3f(*map(float, pos.min(axis=0))),
                                             Gf.Vec3f(*map(float, pos.max(axis=0)))]))
        if m["normals"] is not None:
            geom.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(m["normals"].astype(np.float32)))
            geom.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
        binding = UsdSkel.BindingAPI.Apply(geom.GetPrim())
        binding.CreateSkeletonRel().SetTargets([skel.GetPath()])
        k = m["weights"].shape[1]
        binding.CreateJointIndicesPrimvar(False, k).Set(
            Vt.IntArray.FromNumpy(m["joint_indices"].reshape(-1)))
        binding.CreateJointWeightsPrimvar(False, k).Set(
            Vt.FloatArray.FromNumpy(m["weights"].astype(np.float32).reshape(-1)))
        binding.CreateGeomBindTransformAttr(Gf.Matrix4d(1.0))
        for key, rows_ in face_sets.items():
            UsdGeom.Subset.CreateGeomSubset(geom, _identifiers(px, [key])[0],
                                            UsdGeom.Tokens.face, Vt.IntArray.FromNumpy(rows_))
    _write_atomically(px, stage, fspath, suffix)
    return fspath
