from .clip import Clip as Clip
from .io.bvh import load_bvh as load_bvh, rotation_to_euler as rotation_to_euler, save_bvh as save_bvh

__all__ = ["Clip", "load_bvh", "save_bvh", "rotation_to_euler"]
