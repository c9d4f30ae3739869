"""Float64 NumPy references for the QTS hierarchy walks."""
import numpy as np
from numpy.typing import ArrayLike

from .._typing import Float64Array
from .joints import local_to_global as _matrix_local_to_global
from .quat import qts_to_matrix, quat_multiply, quat_rotate

__all__ = ["qts_local_to_global", "qts_local_to_global_matrix"]


def qts_local_to_global(local: ArrayLike, parents: ArrayLike, out: ArrayLike | None = None,
                        start: int = 0, stop: int | None = None) -> Float64Array:
    """q = q_p * q_l, t = t_p + s_p R(q_p) t_l, s = s_p s_l for start <= j < stop (roots copy);
    parents before `start` are read from `out` (default: a copy of `local`). Returns float64."""
    local = np.asarray(local, dtype=np.float64)
    parents = np.asarray(parents)
    g = np.array(local if out is None else out, dtype=np.float64)
    stop = local.shape[-2] if stop is None else stop
    for j in range(start, stop):
        p = parents[j]
        if p < 0:
            g[..., j, :] = local[..., j, :]
            continue
        P, L = g[..., p, :], local[..., j, :]
        g[..., j, :4] = quat_multiply(P[..., :4], L[..., :4])
        g[..., j, 4:7] = P[..., 4:7] + P[..., 7, None] * quat_rotate(P[..., :4], L[..., 4:7])
        g[..., j, 7] = P[..., 7] * L[..., 7]
    return g


def qts_local_to_global_matrix(local: ArrayLike, parents: ArrayLike, out: ArrayLike | None = None,
                               start: int = 0, stop: int | None = None) -> Float64Array:
    """Global joint matrices (..., J, 3, 4) of QTS locals: local_to_global(qts_to_matrix(local));
    parents before `start` are read from `out` (default: qts_to_matrix(local)). Returns float64."""
    m = qts_to_matrix(local)
    return _matrix_local_to_global(m, parents, out=m if out is None else out, start=start, stop=stop)
