"""File formats: BVH motion capture (:mod:`skelsimd.io.bvh`) and skelsimd's compressed clip
files (:mod:`skelsimd.io.skc`), glTF 2.0 writing (:mod:`skelsimd.io.gltf_write`). Each format module reads into and writes from the model types
(:class:`skelsimd.Clip`, :class:`skelsimd.Skeleton`, :class:`skelsimd.CompressedClip`)."""
from .bvh import load_bvh, save_bvh
from .skc import load_skc, read_skc, save_skc
from .gltf_write import save_gltf

__all__ = ["load_bvh", "save_bvh", "load_skc", "read_skc", "save_skc", "save_gltf"]
