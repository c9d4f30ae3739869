"""Float64 NumPy references for two-bone and aim inverse kinematics (ozz-animation's
IKTwoBoneJob and IKAimJob, batched over N chains), the same method as the kernels in
src/kernels/ik.c, written with NumPy's vectorised operations. ``dtype=np.float32`` runs the same
formulation in float32: the NumPy implementation the benchmarks race against."""
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .._typing import BoolArray

__all__ = ["two_bone", "aim", "look_at", "quat_rotate", "quat_mul"]

_Real = NDArray[np.floating[Any]]       # float64 (the reference) or float32 (the NumPy race)


def _dot(a: _Real, b: _Real) -> _Real:
    d: _Real = (a * b).sum(-1)
    return d


def quat_mul(a: _Real, b: _Real) -> _Real:
    """Hamilton product of (..., 4) quaternions (x, y, z, w)."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by + ay * bw + az * bx - ax * bz,
                     aw * bz + az * bw + ax * by - ay * bx,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def quat_rotate(q: _Real, v: _Real) -> _Real:
    """v rotated by the unit quaternion q."""
    u, w = q[..., :3], q[..., 3:]
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def _identity(shape: tuple[int, ...], dtype: DTypeLike) -> _Real:
    q: _Real = np.zeros(shape + (4,), dtype)
    q[..., 3] = 1
    return q


def _select(mask: BoolArray, a: _Real, b: _Real) -> _Real:
    s: _Real = np.where(mask[..., None], a, b)
    return s


def _rotation_about(d: _Real, a: _Real, b: _Real) -> _Real:
    """The rotation about the unit axis d taking a's direction onto b's (both orthogonal to d):
    normalize(d (d . (u x v)), |u + v|^2 / 2); identity when a or b is zero, a half turn about d
    when opposite."""
    la2, lb2 = _dot(a, a), _dot(b, b)
    none = ~((la2 > 0) & (lb2 > 0))
    u, v = a / np.sqrt(la2)[..., None], b / np.sqrt(lb2)[..., None]
    h = u + v
    sn = _dot(d, np.cross(u, v))
    w = _dot(h, h) * 0.5
    n2 = sn * sn + w * w
    opposite = n2 < 1e-12
    f = 1 / np.sqrt(np.where(opposite, 1, n2))
    k = np.where(opposite, 1, sn * f)
    q = np.concatenate([d * k[..., None], np.where(opposite, 0, w * f)[..., None]], -1)
    return _select(none, _identity(w.shape, a.dtype), q)


def _orthogonal(a: _Real) -> _Real:
    xa = np.abs(a[..., 0]) > np.abs(a[..., 2])
    zero = np.zeros_like(a[..., 0])
    o = np.stack([np.where(xa, -a[..., 1], zero), np.where(xa, a[..., 0], -a[..., 2]),
                  np.where(xa, zero, a[..., 1])], axis=-1)
    n = np.sqrt(_dot(o, o))[..., None]
    unit: _Real = np.where(n > 0, o / np.where(n > 0, n, 1), 0)
    return unit


def _rotation_between(a: _Real, b: _Real, min_nn: float, half_axis: _Real) -> _Real:
    """The shortest rotation taking a's direction onto b's: normalize(u x v, |u + v|^2 / 2) of
    the unit vectors; identity when |a| |b| <= min_nn, a half turn about half_axis when
    opposite."""
    la2, lb2 = _dot(a, a), _dot(b, b)
    none = ~(np.sqrt(la2 * lb2) > min_nn)
    u, v = a / np.sqrt(la2)[..., None], b / np.sqrt(lb2)[..., None]
    c, h = np.cross(u, v), u + v
    w = _dot(h, h) * 0.5
    n2 = _dot(c, c) + w * w
    opposite = n2 < 1e-12
    q: _Real = np.concatenate([c, w[..., None]], -1) / np.sqrt(np.where(opposite, 1, n2))[..., None]
    q = _select(opposite, np.concatenate([half_axis, np.zeros_like(w)[..., None]], -1), q)
    return _select(none, _identity(w.shape, a.dtype), q)


def _weighted(q: _Real, weight: _Real) -> _Real:
    q = np.where(q[..., 3:] < 0, -q, q)
    w = np.maximum(weight, 0)[..., None]
    ident = _identity(q.shape[:-1], q.dtype)
    lerp = ident + (q - ident) * w
    lerp = lerp / np.sqrt(_dot(lerp, lerp))[..., None]
    out = _select(weight < 1, lerp, q)
    return _select(weight > 0, out, ident)


def _finite(*arrays: ArrayLike) -> BoolArray:
    ok: Any = True
    for x in arrays:
        a = np.asarray(x)
        ok = ok & np.isfinite(a.reshape(a.shape[:1] + (-1,))).all(-1)
    finite: BoolArray = ok
    return finite


def _apply(m: _Real, v: _Real) -> _Real:
    """m @ v per chain: (N, 3, 3) matrices times (N, 3) vectors."""
    mv: _Real = np.einsum("nij,nj->ni", m, v)
    return mv


def two_bone(start: ArrayLike, mid: ArrayLike, end: ArrayLike, target: ArrayLike, pole: ArrayLike,
             mid_axis: ArrayLike, twist: ArrayLike, soften: ArrayLike, weight: ArrayLike,
             dtype: DTypeLike = np.float64) -> tuple[_Real, _Real, BoolArray]:
    """(start_correction (N, 4), mid_correction (N, 4), reached (N,)) for N chains: matrices
    (N, 3, 4), vectors (N, 3), twist/soften/weight (N,) (all already broadcast). mid_axis unit.
    Degenerate chains (non-finite input, singular matrix, zero-length bone) give identities and
    reached False."""
    c: list[_Real] = [np.asarray(x, dtype) for x in (start, mid, end, target, pole, mid_axis,
                                                     twist, soften, weight)]
    start_, mid_, end_, target_, pole_, axis, twist_, soften_, weight_ = c
    n = start_.shape[0]
    rs, ps = start_[:, :, :3], start_[:, :, 3]
    rm, pm = mid_[:, :, :3], mid_[:, :, 3]
    pe = end_[:, :, 3]
    with np.errstate(all="ignore"):
        det_s, det_m = np.linalg.det(rs), np.linalg.det(rm)
        ok = _finite(start_, mid_, end_, target_, pole_, axis, twist_, soften_, weight_)
        ok &= (det_s != 0) & (det_m != 0)
        safe = np.eye(3, dtype=dtype)
        is_ = np.linalg.inv(np.where((ok & (det_s != 0))[:, None, None], rs, safe))
        im = np.linalg.inv(np.where((ok & (det_m != 0))[:, None, None], rm, safe))
        app = _apply
        start_mid_ms = -app(im, ps - pm)
        mid_end_ms = app(im, pe - pm)
        mid_ss = app(is_, pm - ps)
        end_ss = app(is_, pe - ps)
        mid_end_ss = end_ss - mid_ss
        l1s, l2s = _dot(mid_ss, mid_ss), _dot(mid_end_ss, mid_end_ss)
        ok &= (l1s > 0) & (l2s > 0)
        tgt = app(is_, target_ - ps)
        lts = _dot(tgt, tgt)
        l1, l2, lt = np.sqrt(l1s), np.sqrt(l2s), np.sqrt(lts)
        chain = l1 + l2
        da = chain * np.clip(soften_, 0, 1)
        ds = chain - da
        beyond = lt > da
        soft = beyond & (lt > 0) & (ds > 0)
        alpha = (lt - da) / ds
        soft_len = da + ds - ds * 3.0 ** 4 / (alpha + 3) ** 4
        tgt = np.where(soft[:, None], tgt * (soft_len / lt)[:, None], tgt)
        lts = np.where(soft, soft_len ** 2, lts)
        reached = ~beyond & (lt > np.abs(l1 - l2)) & (weight_ >= 1)
        # the interior angle for the target by the law of cosines (half-angle form, clamped to
        # the reachable range), for the current end from the bone directions (sign: the side
        # of mid_axis the chain bends to)
        lte = np.sqrt(lts)
        cos2 = np.clip((chain - lte) * (chain + lte) / (4 * l1 * l2), 0, 1)
        sin2 = np.clip((lte - l1 + l2) * (lte + l1 - l2) / (4 * l1 * l2), 0, 1)
        theta = 2 * np.arctan2(np.sqrt(sin2), np.sqrt(cos2))
        back, fore = -mid_ss, mid_end_ss
        theta0 = np.arctan2(np.linalg.norm(np.cross(back, fore), axis=-1), _dot(back, fore))
        theta0 = theta0 * np.where(_dot(np.cross(start_mid_ms, axis), mid_end_ms) < 0, -1, 1)
        half = (theta - theta0) / 2
        mid_q = np.concatenate([axis * np.sin(half)[:, None], np.cos(half)[:, None]], axis=-1)
        pole_ss = app(is_, pole_)
        me_final = app(is_, app(rm, quat_rotate(mid_q, mid_end_ms)))
        se_final = mid_ss + me_final
        e2t = _rotation_between(se_final, tgt, chain * chain * 2.0 ** -40, _orthogonal(se_final))
        ref_n = np.cross(tgt, pole_ss)
        jpn = quat_rotate(e2t, app(is_, app(rm, axis)))
        direction = tgt / np.sqrt(lts)[:, None]
        jpn = jpn - direction * _dot(jpn, direction)[:, None]
        ref_n2, jpn2 = _dot(ref_n, ref_n), _dot(jpn, jpn)
        has_dir = lts > 0
        plane_ok = has_dir & (ref_n2 > 0) & (jpn2 > 0)
        plane_q = _select(plane_ok, _rotation_about(direction, jpn, ref_n),
                          _identity((n,), dtype))
        twist_q = np.concatenate([direction * np.sin(twist_ / 2)[:, None], np.cos(twist_ / 2)[:, None]], -1)
        twist_q = _select(has_dir, twist_q, _identity((n,), dtype))
        start_q = quat_mul(quat_mul(twist_q, plane_q), e2t)
        start_q, mid_q = _weighted(start_q, weight_), _weighted(mid_q, weight_)
        ok &= np.isfinite(start_q).all(-1) & np.isfinite(mid_q).all(-1)
    ident = _identity((n,), dtype)
    return _select(ok, start_q, ident), _select(ok, mid_q, ident), reached & ok


def aim(joint: ArrayLike, target: ArrayLike, pole: ArrayLike, forward: ArrayLike, up: ArrayLike,
        offset: ArrayLike, twist: ArrayLike, weight: ArrayLike,
        dtype: DTypeLike = np.float64) -> tuple[_Real, BoolArray]:
    """(correction (N, 4), reached (N,)) for N joints (N, 3, 4); vectors (N, 3), twist and weight
    (N,), forward unit. Unreachable or degenerate: identity (reached False when unreachable or
    degenerate)."""
    c: list[_Real] = [np.asarray(x, dtype) for x in (joint, target, pole, forward, up, offset,
                                                     twist, weight)]
    joint_, target_, pole_, forward_, up_, offset_, twist_, weight_ = c
    n = joint_.shape[0]
    r, p = joint_[:, :, :3], joint_[:, :, 3]
    with np.errstate(all="ignore"):
        det = np.linalg.det(r)
        ok = _finite(joint_, target_, pole_, forward_, up_, offset_, twist_, weight_) & (det != 0)
        ij = np.linalg.inv(np.where(ok[:, None, None], r, np.eye(3, dtype=dtype)))
        app = _apply
        tjs = app(ij, target_ - p)
        r2 = _dot(tjs, tjs)
        aol = _dot(forward_, offset_)
        acl2 = _dot(offset_, offset_) - aol * aol
        reached = ~(acl2 > r2)
        ail = np.sqrt(np.maximum(r2 - acl2, 0))
        off_fwd = offset_ + forward_ * (ail - aol)[:, None]
        e2t = _rotation_between(off_fwd, tjs, 1e-6, _orthogonal(off_fwd))
        cup = quat_rotate(e2t, up_)
        pole_js = app(ij, pole_)
        ref_n, jn = np.cross(pole_js, tjs), np.cross(cup, tjs)
        ref_n2, jn2 = _dot(ref_n, ref_n), _dot(jn, jn)
        has_dir = r2 > 0
        plane_ok = has_dir & (jn2 > 0) & (ref_n2 > 0)
        direction = tjs / np.sqrt(r2)[:, None]
        plane_q = _select(plane_ok, _rotation_about(direction, jn, ref_n),
                          _identity((n,), dtype))
        twist_q = np.concatenate([direction * np.sin(twist_ / 2)[:, None], np.cos(twist_ / 2)[:, None]], -1)
        twist_q = _select(has_dir, twist_q, _identity((n,), dtype))
        q = _weighted(quat_mul(quat_mul(twist_q, plane_q), e2t), weight_)
        ok &= np.isfinite(q).all(-1)
    reached = reached & ok
    return _select(reached & ok & has_dir, q, _identity((n,), dtype)), reached


def look_at(chain: ArrayLike, target: ArrayLike, pole: ArrayLike, forward: ArrayLike,
            up: ArrayLike, offset: ArrayLike, twist: ArrayLike, weights: ArrayLike,
            dtype: DTypeLike = np.float64) -> _Real:
    """Corrections (N, c, 4) of the aim spread over a chain (ozz-animation's look-at sample):
    chain (N, c, 3, 4) model matrices, the aiming joint first, then its ancestors; vectors
    (N, 3); twist (N,); weights (c,). Joint k aims the first joint's forward axis and offset
    point as corrected by the joints before it, expressed in its own space:
    o' = R'^-1 ((R rot(q) o + t) - t'), f' = R'^-1 (R rot(q) f) for joint k's matrix [R | t], its
    correction q and the next joint's matrix [R' | t']. A joint whose solve is degenerate
    (non-finite operands, a singular matrix, a zero forward axis) gets the identity; a singular
    matrix after the first joint also leaves the offset and axis carried past it non-finite, so
    every later joint of that chain gets the identity too."""
    m = np.asarray(chain, dtype)
    n, c = m.shape[:2]
    w = np.asarray(weights, dtype)
    fwd = np.asarray(forward, dtype)
    off = np.asarray(offset, dtype)
    out = np.empty((n, c, 4), dtype)
    with np.errstate(all="ignore"):
        for k in range(c):
            unit = fwd / np.sqrt(_dot(fwd, fwd))[:, None]
            q, _ = aim(m[:, k], target, pole, unit, up, off, twist,
                       np.full(n, w[k], dtype), dtype)
            out[:, k] = q
            if k + 1 < c:
                r, t = m[:, k, :, :3], m[:, k, :, 3]
                rn, tn = m[:, k + 1, :, :3], m[:, k + 1, :, 3]
                ok = np.isfinite(rn).all((1, 2)) & (np.linalg.det(np.where(
                    np.isfinite(rn), rn, 0)) != 0)
                inv = np.linalg.inv(np.where(ok[:, None, None], rn, np.eye(3, dtype=dtype)))
                point = _apply(r, quat_rotate(q, off)) + t
                off = _apply(inv, point - tn)
                fwd = _apply(inv, _apply(r, quat_rotate(q, unit)))
                off = np.where(ok[:, None], off, np.nan)
                fwd = np.where(ok[:, None], fwd, np.nan)
    return out
