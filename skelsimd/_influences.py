"""A mesh's influences cut to the most :func:`skelsimd.skin` takes, shared by the glTF meshes
(``GltfMesh.compact_influences``) and the mesh pictures.

Each vertex keeps its ``k`` largest weights (ties: the first columns), in their column order,
moved to the first columns; a vertex that loses a non-zero weight has its kept weights divided
by their sum (in float64, rounded once to float32), so every row still sums to 1. A vertex with
at most ``k`` non-zero weights keeps exactly its weights (only the zero ones move out), so the
skinned vertices are those of the full rows.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["SKIN_MAX_INFLUENCES", "largest_influences"]

#: The most influences per vertex :func:`skelsimd.skin` takes (K of ``joint_indices`` (V, K)).
SKIN_MAX_INFLUENCES = 12


def largest_influences(
        joint_indices: Any, weights: Any, k: int = SKIN_MAX_INFLUENCES,
) -> tuple[NDArray[Any], NDArray[np.float32], int]:
    """``(joint_indices, weights, renormalised)``: the (V, min(k, K)) influences of each vertex
    as the module docstring says, C-contiguous, and how many vertices lost a non-zero weight
    (and were renormalised).

    Examples
    --------
    >>> ji, w, cut = largest_influences([[3, 1, 2]], [[0.25, 0.0, 0.75]], 1)
    >>> ji.tolist(), w.tolist(), cut
    ([[2]], [[1.0]], 1)
    """
    ji = np.asarray(joint_indices)
    w = np.asarray(weights, dtype=np.float32)
    v, columns = w.shape
    keep = min(k, columns)
    # each vertex's columns by descending weight (stable: ties keep the first columns)
    rank_order = np.argsort(-w, axis=1, kind="stable")
    kept = np.zeros(w.shape, dtype=bool)
    np.put_along_axis(kept, rank_order[:, :keep], True, axis=1)
    kept &= w != 0
    # the kept non-zero weights first, in their column order
    order = np.argsort(~kept, axis=1, kind="stable")[:, :keep]
    ji_out = np.ascontiguousarray(np.take_along_axis(ji, order, axis=1))
    w_kept = np.take_along_axis(np.where(kept, w, np.float32(0)), order, axis=1)
    lost = ((w != 0) & ~kept).any(axis=1)
    cut = int(np.count_nonzero(lost))
    if cut:
        rows = w_kept[lost].astype(np.float64)
        w_kept[lost] = (rows / rows.sum(axis=1, keepdims=True)).astype(np.float32)
    return ji_out, np.ascontiguousarray(w_kept), cut
