"""NumPy references for animation-clip compression: the object-space error in float64
(``clip_error``) and a decoder of the compressed format written from its specification
(``decode``, ``sample``), independent of the C code.

The decoder evaluates the format's float32 arithmetic in the documented order with NumPy float32
operations (IEEE, correctly rounded), so its poses equal the C decoders' bit for bit; the tests
check that, which pins the format down. It is also the NumPy formulation the benchmarks race.
"""
import struct
from typing import Literal, TypedDict, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._typing import Float32Array, Float64Array

_I64 = NDArray[np.int64]

__all__ = ["clip_error", "parse", "decode", "sample", "positions"]

_F = np.float32
_INV255 = _F(1.0 / 255.0)
_INV65535 = _F(1.0 / 65535.0)
_INV_LEVELS = np.array([0.0] + [1.0 / ((1 << r) - 1) for r in range(1, 25)], dtype=np.float32)


# --- the error --------------------------------------------------------------------------------

def _affine(local: ArrayLike) -> tuple[Float64Array, Float64Array]:
    """(..., J, 8) QTS -> (m (..., J, 3, 3) = s R(q / |q|), t (..., J, 3)) in float64."""
    x8 = np.asarray(local, dtype=np.float64)
    q = x8[..., :4]
    n2 = np.sum(q * q, axis=-1, keepdims=True)
    zero = n2 == 0   # the identity; NaN propagates
    q = np.where(zero, np.array([0.0, 0.0, 0.0, 1.0]), q / np.sqrt(np.where(zero, 1.0, n2)))
    x, y, z, w = np.moveaxis(q, -1, 0)
    r = np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)
    m: Float64Array = x8[..., 7, None, None] * r
    return m, x8[..., 4:7]


def _globals(local: ArrayLike, parents: ArrayLike) -> tuple[Float64Array, Float64Array]:
    m, t = _affine(local)
    gm, gt = m.copy(), t.copy()
    for j, p in enumerate(np.asarray(parents)):
        if p < 0:
            continue
        gm[..., j, :, :] = gm[..., p, :, :] @ m[..., j, :, :]
        gt[..., j, :] = gt[..., p, :] + np.einsum("...ik,...k->...i", gm[..., p, :, :], t[..., j, :])
    return gm, gt


@overload
def clip_error(raw: ArrayLike, decoded: ArrayLike, parents: ArrayLike, shell_distance: float = ...,
               per_joint: Literal[False] = ...) -> float: ...
@overload
def clip_error(raw: ArrayLike, decoded: ArrayLike, parents: ArrayLike, shell_distance: float = ...,
               *, per_joint: Literal[True]) -> Float64Array: ...
def clip_error(raw: ArrayLike, decoded: ArrayLike, parents: ArrayLike, shell_distance: float = 3.0,
               per_joint: bool = False) -> float | Float64Array:
    """Largest distance between the raw and the decoded virtual vertices (three per joint, at
    ``shell_distance`` along the joint's local axes) after the QTS walk, in float64: overall, or
    per joint ``(J,)``."""
    rm, rt = _globals(raw, parents)
    dm, dt = _globals(decoded, parents)
    # vertex k of joint j: t + d * m[:, k]
    diff = (dt - rt)[..., :, None] + shell_distance * (dm - rm)       # (..., J, 3 rows, 3 k)
    err = np.sqrt(np.max(np.sum(diff * diff, axis=-2), axis=-1))       # (..., J)
    err = err.reshape(-1, err.shape[-1])
    per: Float64Array = err.max(axis=0) if err.shape[0] else np.zeros(err.shape[-1])
    return per if per_joint else float(per.max(initial=0.0))


# --- the format -------------------------------------------------------------------------------

class Header(TypedDict):
    """The parsed header of a compressed clip blob (see :func:`parse`)."""
    bytes: NDArray[np.uint8]
    frames: int
    joints: int
    segment_length: int
    segments: int
    components: int
    sample_rate: float
    kinds: NDArray[np.uint8]
    template: Float32Array
    tracks: list[tuple[int, int, int, Float32Array]]
    table: _I64


def parse(data: bytes) -> Header:
    """The header of a compressed clip blob as a dict of NumPy arrays (see compress.h)."""
    b = np.frombuffer(data, dtype=np.uint8)
    magic, frames, joints, seglen, segments, comps = struct.unpack_from("<6I", data, 0)
    if magic != 0x44434B53:
        raise ValueError("not a compressed clip blob")
    (rate,) = struct.unpack_from("<d", data, 24)
    kinds_byte = b[32:32 + joints]
    kinds = np.stack([kinds_byte & 3, (kinds_byte >> 2) & 3, (kinds_byte >> 4) & 3], 1)
    pos = (32 + joints + 3) & ~3
    template = np.zeros((joints, 8), dtype=np.float32)
    template[:, 3] = 1.0
    template[:, 7] = 1.0
    ncomp = (3, 3, 1)
    nrange = (4, 3, 1)
    first = (0, 4, 7)
    nconst = (4, 3, 1)
    for j in range(joints):
        for k in range(3):
            if kinds[j, k] == 1:
                template[j, first[k]:first[k] + nconst[k]] = np.frombuffer(data, "<f4", nconst[k], pos)
                pos += 4 * nconst[k]
    tracks: list[tuple[int, int, int, Float32Array]] = []   # (joint, type, first component, clip ranges (n, 2))
    comp = 0
    for j in range(joints):
        for k in range(3):
            if kinds[j, k] == 2:
                ranges = np.frombuffer(data, "<f4", 2 * nrange[k], pos).reshape(nrange[k], 2)
                pos += 8 * nrange[k]
                tracks.append((j, k, comp, ranges))
                comp += ncomp[k]
    table = np.frombuffer(data, "<u4", 2 * segments, pos).reshape(segments, 2).astype(np.int64)
    return Header(bytes=b, frames=frames, joints=joints, segment_length=seglen, segments=segments,
                components=comps, sample_rate=rate, kinds=kinds, template=template,
                tracks=tracks, table=table)


def _keys(p: Header, frames: ArrayLike) -> tuple[Float32Array, _I64]:
    """Decoded component values (N, C) float32 and drop index per component's track (N, C) of
    the keys at `frames` (N,)."""
    b, C, L = p["bytes"], p["components"], p["segment_length"]
    fr = np.asarray(frames, dtype=np.int64)
    g = np.minimum(fr // L, p["segments"] - 1)
    i = fr - g * L
    off, K = p["table"][g, 0], p["table"][g, 1]
    c = np.arange(C)
    hb = off[:, None] + 3 * c[None, :]
    head = (b[hb].astype(np.int64) | (b[hb + 1].astype(np.int64) << 8)
            | (b[hb + 2].astype(np.int64) << 16))
    rate = head & 31
    code = (head >> 8).astype(np.int64)
    bitpos = (i * K)[:, None] + np.cumsum(rate, axis=1) - rate
    byte = off[:, None] + 3 * C + (bitpos >> 3)
    word = (b[byte].astype(np.int64) | (b[byte + 1].astype(np.int64) << 8)
            | (b[byte + 2].astype(np.int64) << 16) | (b[byte + 3].astype(np.int64) << 24))
    q = (word >> (bitpos & 7)) & ((np.int64(1) << rate) - 1)
    # clip range of each component
    m = np.zeros(head.shape, np.float32)
    e = np.zeros(head.shape, np.float32)
    drop = np.zeros(head.shape, np.int64)
    for (j, k, c0, ranges) in p["tracks"]:
        if k == 0:
            d = (head[:, c0] >> 5) & 3
            for s in range(3):
                qc = s + (s >= d)
                m[:, c0 + s] = ranges[qc, 0]
                e[:, c0 + s] = ranges[qc, 1]
                drop[:, c0 + s] = d
        else:
            for s in range(3 if k == 1 else 1):
                m[:, c0 + s] = ranges[s, 0]
                e[:, c0 + s] = ranges[s, 1]
    r0 = rate == 0
    fmin = np.where(r0, code.astype(np.float32) * _INV65535,
                    (code & 255).astype(np.float32) * _INV255)
    lo = m + e * fmin
    sc = np.where(r0, _F(0), (e * ((code >> 8).astype(np.float32) * _INV255)) * _INV_LEVELS[rate])
    return (lo + sc * q.astype(np.float32)).astype(np.float32), drop


def _rebuild(a: Float32Array, b: Float32Array, c: Float32Array, d: _I64) -> Float32Array:
    s = (a * a + b * b) + c * c
    dd = _F(1) - s
    m = np.sqrt(np.where(dd > 0, dd, _F(0)))
    x = np.where(d == 0, m, a)
    y = np.where(d == 0, a, np.where(d == 1, m, b))
    z = np.where(d <= 1, b, np.where(d == 2, m, c))
    w = np.where(d == 3, m, c)
    return np.stack([x, y, z, w], -1).astype(np.float32)


def _normalize(x: Float32Array) -> Float32Array:
    n2 = ((x[..., 0] * x[..., 0] + x[..., 1] * x[..., 1]) + x[..., 2] * x[..., 2]) + x[..., 3] * x[..., 3]
    inv: Float32Array = _F(1) / np.sqrt(n2)
    return (x * inv[..., None]).astype(np.float32)


def positions(p: Header, times: ArrayLike) -> tuple[_I64, Float32Array]:
    """(frame, alpha float32) of every time (seconds): clamped to [0, F - 1], positions within
    2**-20 of a frame snap to it."""
    t = np.asarray(times, dtype=np.float64)
    pos = t * p["sample_rate"]
    last = p["frames"] - 1
    f = np.floor(pos)
    with np.errstate(invalid="ignore"):   # infinite times: clamped below
        a = pos - f
    snap_up = a > 1.0 - 2.0**-20
    f = np.where(snap_up, f + 1, f)
    a = np.where(snap_up | (a < 2.0**-20), 0.0, a)
    low, high = ~(pos > 0), pos >= last
    return (np.where(low, 0, np.where(high, last, f)).astype(np.int64),
            np.where(low | high, 0.0, a).astype(np.float32))


def _poses(p: Header, frame: ArrayLike, alpha: ArrayLike) -> Float32Array:
    fr = np.asarray(frame, np.int64)
    alpha = np.asarray(alpha, np.float32)
    two = alpha != 0
    v0, d0 = _keys(p, fr)
    v1, d1 = _keys(p, np.minimum(fr + 1, p["frames"] - 1))
    out = np.broadcast_to(p["template"], fr.shape + p["template"].shape).copy()
    for (j, k, c0, _) in p["tracks"]:
        if k == 0:
            qa = _rebuild(v0[:, c0], v0[:, c0 + 1], v0[:, c0 + 2], d0[:, c0])
            qb = _rebuild(v1[:, c0], v1[:, c0 + 1], v1[:, c0 + 2], d1[:, c0])
            dot = ((qa[:, 0] * qb[:, 0] + qa[:, 1] * qb[:, 1]) + qa[:, 2] * qb[:, 2]) + qa[:, 3] * qb[:, 3]
            sign = np.where(dot < 0, _F(-1), _F(1))
            x = qa + alpha[:, None] * (sign[:, None] * qb - qa)
            out[:, j, :4] = _normalize(np.where(two[:, None], x, qa))
        else:
            n, o = (3, 4) if k == 1 else (1, 7)
            a, b = v0[:, c0:c0 + n], v1[:, c0:c0 + n]
            out[:, j, o:o + n] = np.where(two[:, None], a + alpha[:, None] * (b - a), a)
    return out


def decode(data: bytes) -> Float32Array:
    """Every raw frame of a compressed clip blob, (F, J, 8) float32."""
    p = parse(data)
    frames = np.arange(p["frames"])
    return _poses(p, frames, np.zeros(p["frames"], np.float32))


def sample(data: bytes, times: ArrayLike) -> Float32Array:
    """Poses at `times` (seconds, any shape) of a compressed clip blob, (*shape, J, 8)."""
    p = parse(data)
    t = np.asarray(times, dtype=np.float64)
    f, a = positions(p, t.reshape(-1))
    return _poses(p, f, a).reshape(t.shape + (p["joints"], 8))
