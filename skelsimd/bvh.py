"""The former home of the BVH reader and of :class:`~skelsimd.Clip`, kept so that old imports
work: the clip is :mod:`skelsimd.clip`, the BVH format :mod:`skelsimd.io.bvh`."""
from .clip import Clip
from .io.bvh import load_bvh, rotation_to_euler, save_bvh

__all__ = ["Clip", "load_bvh", "save_bvh", "rotation_to_euler"]
