"""Float64 NumPy reference of the retargeting remap (the kernel in src/kernels/retarget.c): the
source's world QTS joints, already in the target's world frame and units, onto the target's
local QTS joints. Rest alignment in world space: a mapped target joint takes the source joint's
world rotation times its rest-alignment offset, a placed one also the source joint's world
position, every other joint its rest local transform. Written joint by joint as the formula
reads, vectorised over the frames; ``dtype=np.float32`` runs the same formulation in float32.
"""
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .ik import quat_mul, quat_rotate

__all__ = ["remap"]

_Real = NDArray[np.floating[Any]]


def _conj(q: _Real) -> _Real:
    c: _Real = q * np.array([-1, -1, -1, 1], q.dtype)
    return c


def remap(source_world: ArrayLike, src_index: ArrayLike, offsets: ArrayLike,
          target_parents: Any, target_rest: ArrayLike, placed: ArrayLike,
          out: NDArray[Any] | None = None, *, dtype: DTypeLike = np.float64) -> _Real:
    """The target's local QTS joints (..., Jt, 8) from the source's world joints (..., Js, 8).

    Per frame, for j = 0 .. Jt - 1 with p = parents[j] and s = src_index[j] (mapped when
    s >= 0), S the source's world joints and W the target's world joints::

        Wq[j] = mapped ? Sq[s] * offsets[j] : (root ? rest_q[j] : Wq[p] * rest_q[j])
        out_q[j] = root ? Wq[j] : conj(Wq[p]) * Wq[j]
        out_t[j] = mapped and placed[j] ? (root ? St[s] : rotate(conj(Wq[p]), St[s] - Wt[p]) / Ws[p])
                                        : rest_t[j]
        out_s[j] = rest_s[j]
        Wt[j] = root ? out_t[j] : Wt[p] + Ws[p] rotate(Wq[p], out_t[j])
        Ws[j] = root ? out_s[j] : Ws[p] out_s[j]

    (Hamilton products, rotate(q, v) = q v q* for unit q.) ``target_parents`` may be a
    Skeleton. ``out``, when given, receives the result (cast to its dtype) and is returned.
    """
    S = np.asarray(source_world, dtype)
    index = np.asarray(src_index)
    off = np.asarray(offsets, dtype)
    parents = np.asarray(getattr(target_parents, "parents", target_parents))
    rest = np.asarray(target_rest, dtype)
    flags = np.asarray(placed, bool)
    lead, jt = S.shape[:-2], len(index)
    res: _Real = np.empty(lead + (jt, 8), S.dtype)
    wq: list[_Real] = []
    wt: list[_Real] = []
    ws: list[_Real] = []
    for j in range(jt):
        p, s = int(parents[j]), int(index[j])
        r = rest[j]
        if s >= 0:
            q = quat_mul(S[..., s, :4], np.broadcast_to(off[j], lead + (4,)))
        elif p < 0:
            q = np.broadcast_to(r[:4], lead + (4,))
        else:
            q = quat_mul(wq[p], np.broadcast_to(r[:4], lead + (4,)))
        if s >= 0 and flags[j]:
            t = S[..., s, 4:7] if p < 0 else \
                quat_rotate(_conj(wq[p]), S[..., s, 4:7] - wt[p]) / ws[p][..., None]
        else:
            t = np.broadcast_to(r[4:7], lead + (3,))
        scale = np.broadcast_to(r[7], lead)
        res[..., j, :4] = q if p < 0 else quat_mul(_conj(wq[p]), q)
        res[..., j, 4:7] = t
        res[..., j, 7] = scale
        wq.append(q)
        wt.append(t if p < 0 else wt[p] + ws[p][..., None] * quat_rotate(wq[p], t))
        ws.append(scale if p < 0 else ws[p] * scale)
    if out is not None:
        out[...] = res
        return out
    return res
