"""skelsimd: SIMD kernels on NumPy float32 buffers for real-time character animation.

Kernels are chosen at import for the best SIMD variant the CPU supports (``skelsimd.isa()``);
``SKELSIMD_ISA=scalar|sse41|avx2|avx512`` forces one, and ``skelsimd.dispatch_table()`` names
the variant each kernel family runs. The documentation (``docs/``) describes the
conventions, the accuracy of every kernel and the benchmarks.
"""
from ._isa import dispatch_table, isa  # noqa: F401  (applies SKELSIMD_ISA on import)
from .parallel import available_cpus, get_num_threads, set_num_threads, threads  # noqa: F401
from .alignment import empty_aligned, is_aligned, zeros_aligned  # noqa: F401
from .blend import blend_joints, blend_layers, nlerp, slerp  # noqa: F401
from .joints import global_to_local, invert_joints, local_to_global, multiply_joints  # noqa: F401
from .mat4 import mat4_local_to_global, matmul4, transform_points  # noqa: F401
from .skinning import normalize_weights, skin, skinning_palette  # noqa: F401
from .skeleton import Skeleton  # noqa: F401
from .clip import Clip  # noqa: F401
from .io.bvh import load_bvh, save_bvh  # noqa: F401
from .io.skc import load_skc, save_skc  # noqa: F401
from .io.gltf import load_gltf  # noqa: F401
from .io.gltf_write import save_gltf  # noqa: F401
from .io.usd import load_usd, save_usd  # noqa: F401  (usd-core imported when called)
from .convert import (euler_to_quat, matrix_to_sixd, quat_to_euler, quat_to_rotvec,  # noqa: F401
                      quat_to_sixd, rotvec_to_quat, sixd_to_matrix, sixd_to_quat)
from . import data  # noqa: F401  (the embedded example clip)
from .qts import qts_local_to_global, qts_local_to_global_matrix  # noqa: F401
from .quat import (matrix_to_qts, matrix_to_quat, qts_pack, qts_to_matrix,  # noqa: F401
                   qts_unpack, quat_conjugate, quat_multiply, quat_normalize, quat_rotate,
                   quat_to_matrix)
from .surface import Surface, plot_surface  # noqa: F401
from .compress import CompressedClip, clip_error, compress  # noqa: F401
from .additive import apply_additive, make_additive  # noqa: F401  (engine runtime)
from .ik import bend_axis, ik_aim, ik_two_bone  # noqa: F401

from .track import Track  # noqa: F401
from .motion import accumulate_motion, blend_motion, motion_deltas  # noqa: F401
from .footplant import foot_sliding, plant_feet  # noqa: F401
from .humanoid import HUMANOID_BONES, HUMANOID_REQUIRED, humanoid_map  # noqa: F401
from .motion_matching import (Inertializer, MotionDatabase, inertialize_transition,  # noqa: F401
                              inertialize_update, pose_velocity)
from .retarget import Retargeter, pose_to_tpose  # noqa: F401

__version__ = "0.1.0"

__all__ = [
    "__version__", "isa", "dispatch_table",
    "set_num_threads", "get_num_threads", "threads", "available_cpus",
    "empty_aligned", "is_aligned", "zeros_aligned",
    "slerp", "nlerp", "blend_joints", "blend_layers",
    "local_to_global", "global_to_local", "multiply_joints", "invert_joints",
    "matmul4", "mat4_local_to_global", "transform_points",
    "skinning_palette", "skin", "normalize_weights",
    "Skeleton", "Clip", "load_bvh", "save_bvh", "load_skc", "save_skc", "load_gltf", "save_gltf",
    "load_usd", "save_usd",
    "data",
    "euler_to_quat", "quat_to_euler", "rotvec_to_quat", "quat_to_rotvec",
    "matrix_to_sixd", "sixd_to_matrix", "quat_to_sixd", "sixd_to_quat",
    "qts_local_to_global", "qts_local_to_global_matrix",
    "quat_multiply", "quat_conjugate", "quat_normalize", "quat_rotate", "quat_to_matrix",
    "matrix_to_quat", "qts_to_matrix", "matrix_to_qts", "qts_pack", "qts_unpack",
    "Surface", "plot_surface",
    "CompressedClip", "compress", "clip_error",
    "make_additive", "apply_additive", "ik_two_bone", "bend_axis", "ik_aim",
    "Track", "blend_motion", "motion_deltas", "accumulate_motion",
    "plant_feet", "foot_sliding",
    "humanoid_map", "HUMANOID_BONES", "HUMANOID_REQUIRED",
    "MotionDatabase", "Inertializer", "inertialize_transition", "inertialize_update",
    "pose_velocity",
    "Retargeter", "pose_to_tpose",
]
