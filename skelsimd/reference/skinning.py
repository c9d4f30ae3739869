"""Float64 NumPy references for the skinning family, written for clarity, not speed, plus the
vectorised float32 NumPy skinning the benchmarks race against."""
from typing import overload

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float32Array, Float64Array
from .joints import compose, local_to_global

__all__ = [
    "skinning_palette",
    "blend_palette",
    "skin",
    "normalize_weights",
    "dense_weights"]


def skinning_palette(local: ArrayLike, parents: ArrayLike, inverse_bind: ArrayLike) -> Float64Array:
    """local_to_global(local, parents) @ inverse_bind per joint, in float64."""
    return compose(local_to_global(local, parents), inverse_bind)


def blend_palette(joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike) -> Float64Array:
    """M[..., v] = sum_k weights[v, k] * palette[..., joint_indices[v, k]], float64 (..., V, 3, 4)."""
    palette = np.asarray(palette, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    gathered = palette[..., np.asarray(joint_indices), :, :]          # (..., V, K, 3, 4)
    blended: Float64Array = np.einsum("vk,...vkij->...vij", weights, gathered)
    return blended


@overload
def skin(positions: ArrayLike, joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike,
         normals: None = None, renormalize: bool = True) -> Float64Array: ...
@overload
def skin(positions: ArrayLike, joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike,
         normals: ArrayLike, renormalize: bool = True) -> tuple[Float64Array, Float64Array]: ...
def skin(positions: ArrayLike, joint_indices: ArrayLike, weights: ArrayLike, palette: ArrayLike,
         normals: ArrayLike | None = None,
         renormalize: bool = True) -> Float64Array | tuple[Float64Array, Float64Array]:
    """Linear-blend skinning in float64: the blended matrix applied to every position, and (when
    normals are given) its rotation part applied to every normal, renormalised (zero stays zero)
    unless renormalize is False. Returns positions, or (positions, normals)."""
    m = blend_palette(joint_indices, weights, palette)
    p = np.asarray(positions, dtype=np.float64)
    pos = (m[..., :3] @ p[..., :, None])[..., 0] + m[..., 3]
    if normals is None:
        return pos
    n = (m[..., :3] @ np.asarray(normals, dtype=np.float64)[..., :, None])[..., 0]
    if not renormalize:
        return pos, n
    length = np.linalg.norm(n, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.where(length == 0, 0.0, n / length)
    return pos, n


def normalize_weights(weights: ArrayLike) -> Float64Array:
    """weights / row sums in float64; rows summing to 0 unchanged."""
    w = np.asarray(weights, dtype=np.float64)
    s = w.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s == 0, w, w / s)


# --- the fastest NumPy formulation (benchmarks) ------------------------------------------------

def dense_weights(joint_indices: ArrayLike, weights: ArrayLike, joints: int) -> Float32Array:
    """The (V, J) float32 weight matrix W with W[v, j] = sum of v's weights on joint j: the setup
    step of skin_numpy (done once per mesh, not timed)."""
    joint_indices = np.asarray(joint_indices)
    v, k = joint_indices.shape
    w = np.zeros((v, joints), np.float32)
    np.add.at(w, (np.repeat(np.arange(v), k), joint_indices.ravel()), np.asarray(weights, np.float32).ravel())
    return w
