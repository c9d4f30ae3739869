"""File formats: BVH motion capture (:mod:`skelsimd.io.bvh`), skelsimd's compressed clip
files (:mod:`skelsimd.io.skc`), glTF 2.0 characters (:mod:`skelsimd.io.gltf` reads,
:mod:`skelsimd.io.gltf_write` writes), OpenUSD UsdSkel characters (:mod:`skelsimd.io.usd`,
through the optional usd-core). Each format module reads into and writes from the model
types (:class:`skelsimd.Clip`, :class:`skelsimd.Skeleton`, :class:`skelsimd.CompressedClip`)."""
from .bvh import load_bvh, save_bvh
from .skc import load_skc, read_skc, save_skc
from .gltf import load_gltf
from .gltf_write import save_gltf
from .usd import load_usd, save_usd

__all__ = ["load_bvh", "save_bvh", "load_skc", "read_skc", "save_skc", "load_gltf", "save_gltf",
           "load_usd", "save_usd"]
