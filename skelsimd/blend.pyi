from collections.abc import Sequence
from numpy.typing import ArrayLike

from ._typing import BlendMethod, Float32Array, SlerpMethod

__all__ = ["slerp", "nlerp", "blend_joints", "blend_layers"]

def slerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike, out: Float32Array | None = None, *,
          method: SlerpMethod = "fast") -> Float32Array: ...
def nlerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike,
          out: Float32Array | None = None) -> Float32Array: ...
def blend_joints(joints: ArrayLike, blend: ArrayLike, t: ArrayLike, *,
                 index: ArrayLike | None = None, method: BlendMethod = "fast",
                 out: Float32Array | None = None) -> Float32Array: ...
def blend_layers(layers: ArrayLike, weights: ArrayLike,
                 out: Float32Array | None = None, *,
                 additive: Sequence[tuple[ArrayLike, float] | tuple[ArrayLike, float, ArrayLike | None]]
                 | None = None) -> Float32Array: ...
