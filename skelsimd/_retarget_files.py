"""Files in, files out for ``python -m skelsimd retarget``: motion files (BVH or glTF) onto a
skinned glTF character, written as the character playing them (``.glb``/``.gltf``, see
:mod:`skelsimd.io.gltf_character`) or as BVH."""
from __future__ import annotations

import json
import os
from typing import Any, Sequence

import numpy as np

from .clip import Clip
from .io.bvh import load_bvh, save_bvh
from .io.gltf import load_gltf
from .io.gltf_character import save_character
from .retarget import Retargeter
from .skeleton import Skeleton

__all__ = ["MOTION_SUFFIXES", "OUTPUT_SUFFIXES", "retarget_files"]

MOTION_SUFFIXES = (".bvh", ".bvh.gz", ".gltf", ".glb")
OUTPUT_SUFFIXES = (".glb", ".gltf", ".bvh")


def _suffix(path: str, choices: Sequence[str]) -> str | None:
    low = path.lower()
    return next((c for c in choices if low.endswith(c)), None)


def _load_motion(path: str, clip_name: str | None) -> Clip:
    if _suffix(path, (".gltf", ".glb")):
        clips = load_gltf(path).clips
        if not clips:
            raise ValueError(f"{path}: the file has no animation of a skin")
        if clip_name is None:
            return clips[0]
        for c in clips:
            if c.name == clip_name:
                return c
        raise ValueError(f"--clip: {path} has no animation {clip_name!r} (it has "
                         f"{', '.join(repr(c.name) for c in clips)})")
    return load_bvh(path)


def _character(path: str) -> tuple[Any, int]:
    """The character's asset and the skin of its largest skinned mesh (most vertices)."""
    asset = load_gltf(path)
    if not asset.skins:
        raise ValueError(f"{path}: the character has no skin")
    sizes = np.zeros(len(asset.skins))
    for m in asset.meshes:
        sizes[m.skin] += len(m.positions)
    return asset, int(np.argmax(sizes))


def load_mapping(path: str | None) -> Any:
    """The ``--map`` JSON file: an object of profile bone -> joint name (a [source, target]
    pair also), or of source joint -> target joint; "auto" without a file."""
    if path is None:
        return "auto"
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError as exc:
        raise ValueError(f"--map: {path} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"--map: expected a JSON object in {path}, got {type(data).__name__}")
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}


def _unit_scales(local: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """Local QTS with every scale lane 1 and the same world positions (BVH has no scale):
    each translation multiplied by its parent's world scale."""
    out = np.array(local, dtype=np.float64)
    world = np.ones(out.shape[:-1])
    for j, p in enumerate(parents):
        world[..., j] = out[..., j, 7] * (world[..., p] if p >= 0 else 1.0)
        if p >= 0:
            out[..., j, 4:7] *= world[..., p, None]
    out[..., 7] = 1.0
    return out.astype(np.float32)


def _bvh_clip(clip: Clip, rest: np.ndarray) -> Clip:
    """The clip on a skeleton whose rest (the BVH OFFSETs) is the character's bind pose, with
    the scales baked into the translations."""
    parents = np.asarray(clip.skeleton.parents)
    skel = Skeleton(parents, clip.skeleton.names, _unit_scales(rest, parents))
    return Clip(skel, _unit_scales(clip.local, parents), clip.frame_time, name=clip.name)


def retarget_files(motion: str, character: str, out: str, *, mapping: Any = "auto",
                   feet: str | Sequence[str] | None = None, clip_name: str | None = None,
                   scale: str | float = "legs", fmt: str = ".glb"
                   ) -> list[tuple[str, str, int, int]]:
    """Retarget ``motion`` (a file, or a directory of them) onto ``character``; returns
    ``(input, output, frames, joints)`` per file written. Everything is read and checked
    before the first file is written."""
    if os.path.isdir(motion):
        names = sorted(n for n in os.listdir(motion) if _suffix(n, MOTION_SUFFIXES)
                       and os.path.isfile(os.path.join(motion, n)))
        if not names:
            raise ValueError(f"MOTION: the directory {motion} holds no .bvh, .bvh.gz, .gltf or "
                             ".glb file")
        if _suffix(out, OUTPUT_SUFFIXES) and not os.path.isdir(out):
            raise ValueError(f"OUT: expected a directory for the directory {motion}, got {out!r}")
        if fmt not in OUTPUT_SUFFIXES:
            raise ValueError(f"--format: expected one of glb, gltf, bvh, got {fmt!r}")
        pairs = []
        for n in names:
            stem = n[:-len(_suffix(n, MOTION_SUFFIXES) or "")]
            pairs.append((os.path.join(motion, n), os.path.join(out, stem + fmt)))
    else:
        if not os.path.exists(motion):
            raise ValueError(f"MOTION: {motion} does not exist")
        if _suffix(motion, MOTION_SUFFIXES) is None:
            raise ValueError(f"MOTION: expected a .bvh, .bvh.gz, .gltf or .glb file or a "
                             f"directory, got {motion!r}")
        if _suffix(out, OUTPUT_SUFFIXES) is None:
            raise ValueError(f"OUT: expected a name ending in .glb, .gltf or .bvh, got {out!r}")
        pairs = [(motion, out)]
    if _suffix(character, (".gltf", ".glb")) is None:
        raise ValueError(f"CHARACTER: expected a skinned .gltf or .glb file, got {character!r}")
    asset, skin = _character(character)
    target = asset.skins[skin]

    results = []
    retargeters: dict[tuple[Any, ...], Retargeter] = {}
    for src, dst in pairs:
        clip = _load_motion(src, clip_name)
        key = (clip.skeleton.names, tuple(np.asarray(clip.skeleton.parents).tolist()),
               None if clip.skeleton.rest is None else clip.skeleton.rest.tobytes())
        if key not in retargeters:
            retargeters[key] = Retargeter(clip, target, mapping, scale=scale, feet=feet)
        rt = retargeters[key]
        out_clip = rt.apply(clip)
        results.append((src, dst, out_clip, rt))
    if os.path.isdir(motion):
        os.makedirs(out, exist_ok=True)
    written = []
    for src, dst, out_clip, rt in results:
        if _suffix(dst, (".bvh",)):
            save_bvh(_bvh_clip(out_clip, rt._rest), dst)
        else:
            save_character(dst, character, out_clip, skin)
        written.append((src, dst, out_clip.frames, len(out_clip.skeleton)))
    return written
