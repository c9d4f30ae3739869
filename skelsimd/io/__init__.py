"""File formats: BVH motion capture (:mod:`skelsimd.io.bvh`) and skelsimd's compressed clip
files (:mod:`skelsimd.io.skc`). Each format module reads into and writes from the model types
(:class:`skelsimd.Clip`, :class:`skelsimd.Skeleton`, :class:`skelsimd.CompressedClip`)."""
from .bvh import load_bvh, save_bvh
from .skc import load_skc, read_skc, save_skc

__all__ = ["load_bvh", "save_bvh", "load_skc", "read_skc", "save_skc"]
