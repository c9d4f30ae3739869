"""skelsimd: SIMD kernels on NumPy float32 buffers for real-time character animation.

Kernels are chosen at import for the best SIMD variant the CPU supports (``skelsimd.isa()``);
``SKELSIMD_ISA=scalar|sse41|avx2`` forces one. See README.md for conventions and accuracy.
"""
from ._isa import isa  # noqa: F401  (applies SKELSIMD_ISA on import)
from .alignment import empty_aligned, is_aligned, zeros_aligned  # noqa: F401
from .joints import global_to_local, invert_joints, local_to_global, multiply_joints  # noqa: F401
from .surface import Surface, plot_surface  # noqa: F401

__version__ = "0.1.0"
