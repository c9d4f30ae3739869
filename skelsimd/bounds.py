"""The documented error bounds of every kernel, written once.

Every bound skelsimd documents lives in :data:`BOUNDS`, one entry per key. The tests assert these
values (``tests/`` reads them with :func:`bound`), the docstrings quote them (placeholders of the
form ``[bound:KEY]`` in a docstring are replaced by the value when the module is imported, see
:func:`fill_docstrings`) and the documentation's accuracy page is generated from this table, so
the three cannot disagree.

Errors are max abs errors against float64 NumPy references (``skelsimd.reference``), for
unit-magnitude inputs (rotations from unit quaternions, translations in [-1, 1]) unless the entry
says otherwise, on every SIMD variant (all variants are bit-identical on finite inputs).

Bounds that depend on the data are formulas: :func:`depth_bound` (hierarchy walks in float32),
:func:`rounded_once_bound` (the float64 walks), :func:`gamma` (a float32 dot product), each
with its constants in the table too.

>>> from skelsimd.bounds import bound, depth_bound
>>> bound("slerp.fast")
5e-07
>>> depth_bound(depth=13, translation=1.0) == 14 * 2.0**-23
True
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterator, NamedTuple, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

__all__ = ["Bound", "BOUNDS", "bound", "depth_bound", "rounded_once_bound", "gamma",
           "FLOAT32_UNIT_ROUNDOFF", "fill_docstrings", "by_kernel"]

FLOAT32_UNIT_ROUNDOFF = 2.0 ** -24
"""u = 2**-24: half the spacing of float32 numbers in [1, 2) (the unit roundoff)."""


class Bound(NamedTuple):
    """One documented bound.

    Attributes
    ----------
    key : str
        The bound's name, ``"<kernel>"`` or ``"<kernel>.<case>"``.
    kernel : str
        What it applies to, as the documentation writes it (a function, method or round trip).
    text : str
        The bound as written in the docs and docstrings (``"5e-7"``, ``"2**-22"``). ``value`` is
        this number; a formula's constant when ``scale`` is not empty.
    scale : str
        What ``value`` multiplies (e.g. ``"max(|a|, |b|)"``), or ``""`` for an absolute bound.
    condition : str
        The inputs for which the bound holds.
    measured : str
        What was measured against it (free text, may be empty).
    """

    key: str
    kernel: str
    text: str
    scale: str
    condition: str
    measured: str

    @property
    def value(self) -> float:
        """The bound (or the formula's constant) as a float."""
        return _parse(self.text)

    def formula(self) -> str:
        """The bound as one line of text: ``text * scale`` (or ``text``)."""
        return f"{self.text} * {self.scale}" if self.scale else self.text


def _parse(text: str) -> float:
    m = re.fullmatch(r"\s*2\s*\*\*\s*(-?\d+)\s*", text)
    if m:
        return 2.0 ** int(m.group(1))
    m = re.fullmatch(r"\s*(\d+)u / \(1 - (\d+)u\)\s*", text)
    if m and m.group(1) == m.group(2):
        return gamma(int(m.group(1)))
    return float(text)


_UNIT = "unit-magnitude inputs"
_ROWS: Tuple[Tuple[str, str, str, str, str, str], ...] = (
    # key, kernel, text, scale, condition, measured
    ("multiply_joints", "multiply_joints", "5e-7", "", "per product, " + _UNIT, ""),
    ("local_to_global", "local_to_global", "2e-6", "",
     "random 96-joint trees (each parent uniform among the earlier joints, depth about 10); "
     "any hierarchy: depth_bound(d, T)", "1.2e-6 on random trees over 192,000 joints"),
    ("walk.depth", "hierarchy walks in float32 (local_to_global, global_to_local, "
     "mat4_local_to_global, qts_local_to_global, qts_local_to_global_matrix, Clip FK)",
     "2**-23", "(d + 1) * max(1, T)",
     "any hierarchy of depth d whose global translations stay within T (uniform scales "
     "included for the QTS walks)",
     "1.7e-6 to 2.6e-6 on the 96-joint humanoid (depth 14, T about 10); 1e-5 on a 96-deep chain"),
    ("walk.float64", "hierarchy walks with precision=\"float64\"", "1e-12", "max(1, T)",
     "element-wise |out - exact| <= 2**-24 * |exact| + 1e-12 * max(1, T) (correctly rounded up "
     "to float64 noise: the docstrings' (d + 2) * 2**-52 * max(1, T), which stays below "
     "1e-12 * max(1, T) up to depth 4,500)", "96-deep chain 9.5e-7, humanoid 4.8e-7"),
    ("walk.float64.96", "hierarchy walks with precision=\"float64\" on 96-joint skeletons",
     "2e-6", "", "every 96-joint skeleton at any depth, translations in [-1, 1]",
     "96-deep chain 5.9e-7 (QTS) to 1.9e-6 (palette)"),
    ("global_to_local.round_trip", "global_to_local(local_to_global(x)) - x", "2e-6", "",
     "random 96-joint trees and the 96-joint humanoid, general and rigid inverse", ""),
    ("invert_joints", "invert_joints(m) @ m - I", "1e-6", "",
     "rotations; in general about 16 * 2**-24 * cond(R) relative", ""),
    ("matmul4", "matmul4 (each element)", "4u / (1 - 4u)", "(|a| @ |b|)",
     "any float32 inputs, u = 2**-24 (the bound of a float32 NumPy matmul)", "2.7e-7"),
    ("mat4_local_to_global.chain", "mat4_local_to_global", "2e-6", "",
     "96-joint chain with unit-magnitude data (local translations in [-0.1, 0.1]); "
     "any hierarchy: depth_bound(d, T)", "1.5e-6"),
    ("transform_points", "transform_points (affine)", "4u / (1 - 4u)", "(|R| |p| + |t|)",
     "per coordinate; projective matrices add one rounded division", "2.5e-7"),
    ("skinning_palette", "skinning_palette", "2e-6", "",
     "unit-magnitude global translations (96-joint skeletons)",
     "7.4e-7 humanoid, 1.7e-6 96-deep chain"),
    ("skin.positions", "skin (positions)", "2e-6", "",
     "positions in [-1, 1], palettes of rotations with translations in [-1, 1], K = 1 to 12",
     "2.6e-7"),
    ("skin.normals", "skin (normals)", "2e-6", "", "a posed skeleton's palette, K = 1 to 12",
     "1.7e-7 (K <= 8), 2.2e-7 (K = 12)"),
    ("skin.normals_raw", "skin (normals, renormalize=False)", "2e-6", "",
     "unit normals, palettes of rotations with translations in [-1, 1], K = 1 to 12",
     "1.0e-7 (K = 1), 1.6e-7 (K = 12)"),
    ("slerp.fast", "slerp(method=\"fast\")", "5e-7", "",
     "every pair (identical, near-parallel, antipodal, orthogonal), t in [0, 1]; "
     "outside [0, 1]: 5e-7 * max(1, |t|, |1 - t|)", "2.74e-7 over 8M such pairs"),
    ("slerp.exact", "slerp(method=\"exact\")", "3e-7", "", "every pair, t in [0, 1]",
     "3e-8 (the final float32 rounding)"),
    ("nlerp", "nlerp", "2e-7", "", "every pair, t in [0, 1]", "1.43e-7 over 8M special pairs"),
    ("blend.linear", "blend_joints (translation and scale)", "2**-22", "max(|a|, |b|)",
     "per component; the rotation bound is that of the method", ""),
    ("blend_layers.quat", "blend_layers (quaternions)", "2e-7", "(L + 1)",
     "per component, unit inputs, L layers", ""),
    ("blend_layers.linear", "blend_layers (translation and scale)", "2**-23", "(L + 1) * max|t|",
     "per component, L layers", ""),
    ("quat_multiply", "quat_multiply", "2.5e-7", "", "per component, unit inputs", ""),
    ("quat_normalize", "quat_normalize", "2e-7", "", "per component", ""),
    ("quat_rotate", "quat_rotate", "4e-7", "|v|", "per component", "2.8e-7 over 4M"),
    ("quat_to_matrix", "quat_to_matrix", "4e-7", "", "per entry, any non-zero scale of q",
     "2.1e-7 over 4M"),
    ("qts_to_matrix", "qts_to_matrix", "4e-7", "max(1, |s|)", "rotation part; t exact", ""),
    ("matrix_to_quat.round_trip", "matrix_to_quat(quat_to_matrix(q))", "4e-7", "",
     "up to sign (+-q), 180-degree rotations included", ""),
    ("matrix_to_qts.round_trip", "matrix_to_qts(qts_to_matrix(x))", "5e-7", "",
     "relative error of s and q; t exact", ""),
    ("euler_to_quat", "euler_to_quat", "2.5e-7", "", "per component, every sequence, any angle "
     "(radians or degrees)", "1.94e-7 over 24M rotations, 1.91e-7 in degrees up to 720"),
    ("quat_to_euler", "quat_to_euler (radians)", "4e-7", "", "per angle, modulo 2 pi, gimbal lock "
     "included (a float32 ulp of pi is 2.4e-7)", "3.06e-7 over 24M, 2.62e-7 in and near the lock"),
    ("quat_to_euler.degrees", "quat_to_euler(degrees=True)", "2.5e-5", "", "per angle, in degrees",
     "1.97e-5"),
    ("rotvec_to_quat", "rotvec_to_quat", "2.5e-7", "", "per component at any length; the vector "
     "part of tiny rotations within 2e-7 relative", "1.66e-7 (1.54e-7 in degrees)"),
    ("quat_to_rotvec", "quat_to_rotvec", "3e-7", "max(1, angle)", "per component, near 0 within "
     "3e-7 relative, near pi included", "2.06e-7"),
    ("sixd_to_matrix", "sixd_to_matrix", "3e-7", "", "per entry for the 6D vector of a rotation; "
     "3e-7 / sin(angle between the halves) in general", "2.17e-7"),
    ("quat_to_sixd", "quat_to_sixd, sixd_to_quat", "4e-7", "", "those of quat_to_matrix and "
     "matrix_to_quat (bit-identical to the two-step forms)", "2.09e-7 / 1.31e-7"),
    ("qts_local_to_global", "qts_local_to_global, qts_local_to_global_matrix", "2e-6", "",
     "random 96-joint trees with unit scale; any hierarchy: depth_bound(d, T)",
     "1.56e-6 worst over 12,000 skeletons on 30 trees, median 1.2e-6"),
    ("qts_local_to_global.quat", "qts_local_to_global (quaternions)", "1e-6", "(d + 1)",
     "hierarchy of depth d", ""),
    ("surface.step", "Surface.step, offset model", "1e-5", "",
     "after 100 steps while coordinates and velocities stay within 2.5; "
     "beyond: 4e-6 * max(|x|, |v|)", ""),
    ("surface.step.relative", "Surface.step, large coordinates", "4e-6", "max(|x|, |v|)",
     "float32 positions and velocities of any size", ""),
    ("surface.normals", "Surface.normals", "1e-6", "", "per component, well-shaped triangles", ""),
    ("surface.energy_drift", "Surface energy H (d = 1)", "1e-5", "",
     "relative drift over 10,000 steps", "1.2e-6 to 6.9e-6; 1.05e-5 with coordinates 100x the "
     "displacements"),
    ("surface.sag", "Surface static sag under gravity", "1e-4", "",
     "against the linear solve E L u = m g", "1.3e-6"),
    ("bvh.rotations", "load_bvh (global rotations)", "1e-6", "",
     "every frame of the test clips, against float64 Euler forward kinematics", "5.5e-7"),
    ("bvh.unit_quaternions", "load_bvh (quaternion norms)", "2e-7", "", "| |q| - 1 |", ""),
    ("bvh.round_trip", "load_bvh(save_bvh(clip)) global positions", "1e-4", "",
     "clip units with global translations up to a few hundred",
     "3.8e-6 to 7.6e-6 on the CMU clips, 3.1e-5 on a 20tab clip"),
    ("gltf.scale_snap", "load_gltf clips of joints whose scale is uniform within "
     "scale_tolerance (joint positions against the exact local_matrices)", "2",
     "scale_tolerance * sum_k |p - o_k|",
     "p a joint's world position, o_k the world positions of the joints and folded nodes above "
     "it whose axis scales spread (or axes shear) within scale_tolerance <= 0.01; to first order "
     "in scale_tolerance, plus the float32 walk's depth bound",
     "1.08 * scale_tolerance * sum_k |p - o_k| at worst over 3,000 random chains at the "
     "tolerance's edge (spread and shear both); RobotExpressive.glb (noise 1.6e-5) within "
     "5e-5 of the float64 node tree"),
    ("mm.features.position", "MotionDatabase.raw (positions, trajectory)", "2**-22", "max|p|",
     "per feature, against skelsimd.reference.mm.raw_features; p the clip's global positions "
     "(float64 forward kinematics rounded once to float32)",
     "5.5e-8 on the CMU 131 clips and their mirrored copies"),
    ("mm.features.velocity", "MotionDatabase.raw (velocities)", "2**-22", "max|p| / frame_time",
     "per feature: backward differences of those positions", "1.06e-7 on the same clips"),
)

# The engine runtime: additive animation and inverse kinematics.
_ROWS += (
    ("additive.make", "make_additive", "4e-7", "max(1, |t|, |s / s_ref|)",
     "per component; unit rotations, scales in [0.5, 2]", "1.2e-7 over 62,000 joints"),
    ("additive.apply", "apply_additive", "6e-7", "max(1, |t_base| + |t_delta|, |s_out|)",
     "per component, unit quaternions, weight in [-1, 1], masks in [0, 1]",
     "3.4e-7 over 250,000 joints"),
    ("additive.round_trip", "apply_additive(ref, make_additive(x, ref)) - x", "1e-6",
     "max(1, |t|, |s|)", "per component, rotations up to sign", "1.8e-7"),
    ("ik.two_bone.reach", "ik_two_bone, Skeleton.two_bone: end joint to target when reached",
     "1e-5", "chain length", "soften = 1, weight = 1, reached; bones of 0.3 to 1 each, the "
     "chain bent any amount (straight and folded back included), the target anywhere in the "
     "reachable range (full extension and folding included)",
     "4.1e-6 over 400,000 legs drawn densely near full extension, folding, straight and "
     "folded chains"),
    ("ik.aim.angle", "ik_aim: angle between the corrected forward axis and the target", "4e-6",
     "", "radians; offset 0 (with an offset of 0.1 of the target distance: 20 times this)",
     "2.0e-6 over 100,000 joints (forward nearly opposite the target)"),
    ("ik.correction", "ik_two_bone, ik_aim corrections against the float64 reference", "2e-5",
     "", "per component, up to sign; the legs of ik.two_bone.reach with twist, soften >= 0.7 and "
     "a 10% margin from full extension; aim joints with the target 1 to 3 away",
     "2.2e-6 (two-bone) and 1.5e-5 (aim, near-half-turn corrections) over 100,000"),
    ("ik.look_at", "Skeleton.look_at corrections against the float64 reference of the chain",
     "1e-4", "", "per component; chains of 1 to 5 joints whose matrices have any rotation, a "
     "scale of 0.5 to 2 and translations in [-1, 1], the target 1 to 3 from the aiming joint, "
     "any weights in [0, 1]",
     "5.9e-5 over 200,000 chains (the error of one aim grows along the chain through the "
     "joints' inverses)"),
)

# Tracks (skelsimd.track): values in [-1, 1], key spacing within a factor 100 of its neighbours'.
_ROWS += (
    ("track.linear", "Track.sample (linear floats)", "1e-6", "", "values in [-1, 1]",
     "1.9e-7 over 720,000 samples"),
    ("track.cubic", "Track.sample (cubic floats)", "2e-6", "",
     "values in [-1, 1], neighbouring key spacings within a factor 100", "4.2e-7"),
    ("track.quat", "Track.sample (linear quaternions: slerp)", "1e-6", "",
     "per component, unit keys (up to sign)", "2.7e-7"),
    ("track.quat_cubic", "Track.sample (cubic quaternions)", "4e-6", "",
     "per component, unit keys, neighbouring key spacings within a factor 100", "2.5e-7"),
    ("track.edges", "Track.triggers (edge times of linear tracks)", "1e-6", "max(|t_k|, |t_k+1|)",
     "the times of the crossing's keys; the threshold rounded to float32 first; step tracks "
     "exact", "5.5e-8"),
    ("blend_motion", "blend_motion", "1e-6", "L",
     "per component, L layers of unit quaternions and translations in [-1, 1] (translation "
     "lengths not tiny: the direction of a near-zero translation is ill-conditioned)",
     "2.1e-7 * L over 20,000 blends of 1 to 8 layers"),
)

# Inertialization (skelsimd.inertialize): unit quaternions, offsets, velocities and
# translations of magnitude up to 1.
_ROWS += (
    ("inertialize.update", "inertialize_update", "1e-6", "max(1, |t|, |v| + y |x|)",
     "per component of the pose (quaternions up to sign, unscaled) and of the decayed offsets "
     "and velocities; x, v the offsets and velocities given, y = 2 ln 2 / halflife; any "
     "half-life and dt >= 0",
     "2.5e-7 over 20,000 joints and 48 (half-life, dt) pairs from (0.01 s, 0) to (2 s, 3 s)"),
    ("inertialize.transition", "inertialize_transition, pose_velocity (times dt)", "1e-6", "",
     "per component of the offsets and velocities", "5.1e-7 over 20,000 joints"),
)

_ROWS += (
    ("blend_layers.additive", "blend_layers with additive layers (one fused pass)", "1e-6",
     "max(1, |t|, |s|) of the result", "per component, rotations up to sign; 1 to 4 layers of "
     "unit quaternions, weights in [0.05, 1]; 1 or 2 additive layers, weights in [-1, 1], masks "
     "in [0, 1]; translations in [-1, 1], scales in [0.5, 2]",
     "3.9e-7 over 210,000 joints"),
)

# Retargeting: the remap of the source's world joints onto the target's local joints.
_ROWS += (
    ("retarget.remap", "retarget_remap (quaternions)", "2**-22", "(d + 1)",
     "per component against the float64 reference; unit quaternions (source, offsets, rests), "
     "d the depth of the target hierarchy (a chain of unmapped joints multiplies rest rotations "
     "down it)",
     "0.69 * 2**-23 * (d + 1) over 6,000 remaps of 1 to 99 target and source joints "
     "(chains and random trees, any mix of mapped, unmapped and placed joints)"),
    ("retarget.remap.translation", "retarget_remap (placed translations)", "2**-21",
     "(d + 1) * max(1, T)",
     "per component; T the largest world translation of the source and of the target, rest "
     "scales in [0.8, 1.25] (a placed joint's translation is divided by its parent's world "
     "scale); other translations and every scale are copied from the rest exactly",
     "1.7 * 2**-23 * (d + 1) * max(1, T) over the same remaps"),
)

BOUNDS: Dict[str, Bound] = {row[0]: Bound(*row) for row in _ROWS}
"""Every documented bound, by key."""


def bound(key: str) -> float:
    """The value of the bound ``key`` (a formula's constant where the bound is a formula).

    Raises KeyError naming the key when there is no such bound.
    """
    try:
        return BOUNDS[key].value
    except KeyError:
        raise KeyError(f"no documented bound {key!r}; known: {', '.join(sorted(BOUNDS))}") \
            from None


def depth_bound(depth: int, translation: float) -> float:
    """``(d + 1) * 2**-23 * max(1, T)``: the float32 hierarchy walks' bound for depth ``d`` and
    global translations up to ``T`` (key ``"walk.depth"``)."""
    return (depth + 1) * bound("walk.depth") * max(1.0, float(translation))


def rounded_once_bound(exact: npt.ArrayLike, translation: float = 1.0) -> npt.NDArray[np.float64]:
    """Element-wise ``2**-24 * |exact| + 1e-12 * max(1, T)``: the float64 walks' bound, every
    element its exact value rounded to float32 up to float64 noise (key ``"walk.float64"``)."""
    return (FLOAT32_UNIT_ROUNDOFF * np.abs(np.asarray(exact, dtype=np.float64))
            + bound("walk.float64") * max(1.0, float(translation)))


def gamma(n: int = 4) -> float:
    """``n u / (1 - n u)``, u = 2**-24: the classical bound of an n-term float32 dot product,
    relative to the dot product of the absolute values (keys ``"matmul4"``,
    ``"transform_points"``)."""
    nu = n * FLOAT32_UNIT_ROUNDOFF
    return nu / (1.0 - nu)


def by_kernel() -> Iterator[Bound]:
    """The bounds in the table's order."""
    return iter(BOUNDS.values())


_F = TypeVar("_F", bound=Callable[..., Any])
_MARK = re.compile(r"\[bound:([\w.]+)\]")


def _fill(doc: str) -> str:
    return _MARK.sub(lambda m: BOUNDS[m.group(1)].text, doc)


def fill_docstrings(namespace: Union[Dict[str, Any], Any]) -> None:
    """Replace every ``[bound:KEY]`` in the docstrings of a module namespace (its globals(), or
    a class or function) by the bound's text. An unknown key is a KeyError at import, so a
    docstring cannot quote a bound that does not exist."""
    if isinstance(namespace, dict):
        name = namespace.get("__name__")
        objects = [v for k, v in namespace.items()
                   if not k.startswith("__") and getattr(v, "__module__", None) == name]
        module_doc = namespace.get("__doc__")
        if module_doc and "[bound:" in module_doc:
            namespace["__doc__"] = _fill(module_doc)
    else:
        objects = [namespace]
    for obj in objects:
        _fill_object(obj)


def _fill_object(obj: Any) -> None:
    doc = getattr(obj, "__doc__", None)
    if isinstance(doc, str) and "[bound:" in doc:
        try:
            obj.__doc__ = _fill(doc)
        except (AttributeError, TypeError):
            pass
    if isinstance(obj, type):
        for member in vars(obj).values():
            target = getattr(member, "fget", None) or getattr(member, "__func__", None) or member
            if callable(target) or isinstance(member, property):
                _fill_object(target)
