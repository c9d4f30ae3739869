"""glTF animations: channels read and checked, sampled as the specification says (vectorized
over channels and frames by :class:`_FrameSampler`), and the clips of an animation built for
the skins it drives (:class:`_AnimationJob`) within the file's budget of joint-frames (see
:mod:`skelsimd.io.gltf`)."""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Iterator, Protocol

import numpy as np
from numpy.typing import NDArray

from ._gltf_document import (
    Arr, F64, MAX_SCALE_TOLERANCE, _CHANNEL_COST, _CHUNK, _DEFAULT_RATE, _Doc, _FLOAT32_MAX,
    _MAX_RATE, _MIN_CLIP_COST, _PATH_SIZE, _TOLERANCE_FLOOR, _get_index, _get_list, _get_obj)
from ._gltf_skins import GltfSkin, _Node, _axis_scales, _rest_matrix, _similar, _to_qts, _trs_matrix


@dataclasses.dataclass(frozen=True)
class GltfChannel:
    """One animation channel's keyframes, as in the file.

    Attributes
    ----------
    node : int
    path : str
        ``"translation"``, ``"rotation"``, ``"scale"`` or ``"weights"``.
    interpolation : str
        ``"STEP"``, ``"LINEAR"`` or ``"CUBICSPLINE"``.
    times : ndarray, float32 (n,)
    values : ndarray, float32 (n, C), or (n, 3, C) for CUBICSPLINE (in-tangent, value,
        out-tangent); normalized integers decoded.
    """
    node: int
    path: str
    interpolation: str
    times: Arr
    values: Arr

    def __repr__(self) -> str:
        return (f"GltfChannel(nodes[{self.node}].{self.path}, {self.interpolation}, "
                f"{len(self.times)} keys)")

    def sample(self, t: Any) -> F64:
        """The channel's values at times ``t`` (seconds, any shape), float64 ``(..., C)``,
        with glTF interpolation (rotations unit length)."""
        return _sample(self, np.asarray(t, dtype=np.float64))


@dataclasses.dataclass(frozen=True)
class GltfAnimation:
    """An animation's keyframes: ``name`` (``animation<i>`` when it has none), ``channels``
    (:class:`GltfChannel`) and ``duration`` (its last key time, seconds)."""
    name: str
    channels: tuple[GltfChannel, ...]
    duration: float
    by_node: dict[int, dict[str, GltfChannel]] = dataclasses.field(repr=False, default_factory=dict)

    def __repr__(self) -> str:
        return (f"GltfAnimation({self.name!r:.40}, {len(self.channels)} channels, "
                f"{self.duration:.4g} s)")


# --- animations ------------------------------------------------------------------------------------

def _read_animations(doc: _Doc, nodes: list[_Node]) -> list[GltfAnimation]:
    out = []
    decoded: dict[tuple[int, int, str, str], tuple[Arr, Arr]] = {}   # samplers' keys, once
    for a in range(len(doc.animations)):
        w = f"animations[{a}]"
        d = _get_obj(doc.animations, a, "animations")
        name = d.get("name")
        name = name if isinstance(name, str) and name else f"animation{a}"
        samplers = _get_list(d, "samplers", w)
        channels: list[GltfChannel] = []
        targeted: dict[tuple[int, str], int] = {}
        for c, ch in enumerate(_get_list(d, "channels", w)):
            cw = f"{w}.channels[{c}]"
            doc.spend(_CHANNEL_COST, cw)
            if not isinstance(ch, dict):
                raise ValueError(f"{cw}: expected a JSON object")
            target = ch.get("target")
            if not isinstance(target, dict):
                raise ValueError(f"{cw}.target: expected a JSON object")
            node = _get_index(target, "node", f"{cw}.target", len(nodes), "nodes")
            path = target.get("path")
            if path not in ("translation", "rotation", "scale", "weights"):
                if isinstance(path, str):     # an extension's path (KHR_animation_pointer)
                    continue
                raise ValueError(f"{cw}.target.path: {path!r:.40} is not a glTF path")
            if node is None:
                continue
            if path != "weights" and nodes[node].matrix is not None:
                raise ValueError(f"{cw}: animates nodes[{node}].{path} but that node has a "
                                 "matrix (animated nodes must use translation/rotation/scale)")
            if (node, path) in targeted:
                raise ValueError(f"{cw}: nodes[{node}].{path} is already animated by "
                                 f"channels[{targeted[node, path]}]")
            targeted[node, path] = c
            si = _get_index(ch, "sampler", cw, len(samplers), "samplers")
            if si is None:
                raise ValueError(f"{cw}.sampler: required, missing")
            sw = f"{w}.samplers[{si}]"
            smp = _get_obj(samplers, si, f"{w}.samplers")
            interp = smp.get("interpolation", "LINEAR")
            if interp not in ("STEP", "LINEAR", "CUBICSPLINE"):
                raise ValueError(f"{sw}.interpolation: {interp!r:.40} is not STEP, LINEAR or "
                                 "CUBICSPLINE")
            ii = _get_index(smp, "input", sw, len(doc.accessors), "accessors")
            oi = _get_index(smp, "output", sw, len(doc.accessors), "accessors")
            if ii is None or oi is None:
                raise ValueError(f"{sw}: input and output are required")
            if (ii, oi, interp, path) in decoded:
                times32, vals32 = decoded[ii, oi, interp, path]
                channels.append(GltfChannel(node=node, path=path, interpolation=interp,
                                            times=times32, values=vals32))
                continue
            times = doc.floats(ii, f"{sw}.input", {5126}, ("SCALAR",))[:, 0]
            if len(times) > 1 and (np.diff(times) < 0).any():
                k = int(np.argmax(np.diff(times) < 0)) + 1
                raise ValueError(f"{sw}.input: accessors[{ii}]: key times decrease at key {k} "
                                 f"({times[k]} after {times[k - 1]})")
            if times[0] < 0:
                raise ValueError(f"{sw}.input: accessors[{ii}]: negative key time {times[0]}")
            if path == "rotation":
                allowed, types = {5120, 5121, 5122, 5123, 5126}, ("VEC4",)
            elif path == "weights":
                allowed, types = {5120, 5121, 5122, 5123, 5126}, ("SCALAR",)
            else:
                allowed, types = {5126}, ("VEC3",)
            vals = doc.floats(oi, f"{sw}.output", allowed, types, bounded=True)
            per = 3 if interp == "CUBICSPLINE" else 1
            n = len(times)
            if len(vals) % (n * per):
                raise ValueError(f"{sw}.output: accessors[{oi}] has {len(vals)} elements, "
                                 f"expected a multiple of {n * per} ({n} keys)")
            width = len(vals) // (n * per) * vals.shape[1]
            if path != "weights" and width != _PATH_SIZE[path]:
                raise ValueError(f"{sw}.output: accessors[{oi}] has {len(vals)} elements, "
                                 f"expected {n * per} ({n} keys)")
            vals = vals.reshape(n, per, width) if per == 3 else vals.reshape(n, width)
            if path == "rotation":
                core = vals[:, 1] if per == 3 else vals
                if (np.abs(core).sum(axis=-1) == 0).any():
                    raise ValueError(f"{sw}.output: accessors[{oi}]: a zero rotation key")
            decoded[ii, oi, interp, path] = times.astype(np.float32), vals.astype(np.float32)
            channels.append(GltfChannel(node=node, path=path, interpolation=interp,
                                        times=decoded[ii, oi, interp, path][0],
                                        values=decoded[ii, oi, interp, path][1]))
        duration = max((float(c.times[-1]) for c in channels), default=0.0)
        by_node: dict[int, dict[str, GltfChannel]] = {}
        for ch in channels:
            if ch.path in _PATH_SIZE:
                by_node.setdefault(ch.node, {})[ch.path] = ch
        out.append(GltfAnimation(name=name, channels=tuple(channels), duration=duration,
                                 by_node=by_node))
    return out


class _Keys:
    """The keyframes of channels that share a path kind, an interpolation and a width, laid end
    to end (float64; rotation keys normalised)."""

    def __init__(self, chans: list[GltfChannel]) -> None:
        self.interpolation = chans[0].interpolation
        self.rotation = chans[0].path == "rotation"
        self.lens = np.array([len(c.times) for c in chans], dtype=np.intp)
        self.off = (np.cumsum(self.lens) - self.lens).astype(np.intp)
        self.times = np.concatenate([c.times for c in chans]).astype(np.float64)
        vals = np.concatenate([c.values for c in chans]).astype(np.float64)
        cubic = self.interpolation == "CUBICSPLINE"
        self.points = vals[:, 1] if cubic else vals
        self.tangents = vals if cubic else None
        if self.rotation:
            self.points = self.points / np.linalg.norm(self.points, axis=-1, keepdims=True)

    def values(self, key: Arr, inside: NDArray[np.bool_], t: F64) -> F64:
        """Values (..., W) at times t (...): key is the global index of the channel's last key
        at or before t (its first key before it), inside says that the next key is the
        channel's too and t is past its first key (so that the pair interpolates)."""
        out: F64 = self.points[key]
        if self.interpolation == "STEP" or not inside.any():
            return out
        ki = key[inside]
        t0, t1 = self.times[ki], self.times[ki + 1]
        dt = t1 - t0
        u = ((t[inside] - t0) / dt)[:, None]
        a, b = self.points[ki], self.points[ki + 1]
        if self.tangents is not None:
            u2, u3 = u * u, u * u * u
            out_tan = self.tangents[ki, 2] * dt[:, None]
            in_tan = self.tangents[ki + 1, 0] * dt[:, None]
            v = ((2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * out_tan
                 + (-2 * u3 + 3 * u2) * b + (u3 - u2) * in_tan)
            if self.rotation:
                norm = np.linalg.norm(v, axis=-1, keepdims=True)
                v = np.where(norm > 0, v / np.where(norm > 0, norm, 1), a)
        elif self.rotation:
            v = _slerp(a, b, u)
        else:
            v = a + u * (b - a)
        out[inside] = v
        return out


def _sample(ch: GltfChannel, t: F64) -> F64:
    """Values of a channel at times t (float64, any shape) -> (..., C) float64."""
    keys = _Keys([ch])
    n = len(keys.times)
    flat = t.reshape(-1)
    k = np.clip(np.searchsorted(keys.times, flat, side="right") - 1, 0, n - 1)
    inside = (flat > keys.times[0]) & (flat < keys.times[-1]) & (k < n - 1)
    out = keys.values(k, inside, flat)
    return out.reshape(t.shape + (out.shape[-1],))


def _slerp(a: F64, b: F64, u: F64) -> F64:
    d = (a * b).sum(axis=-1, keepdims=True)
    b = np.where(d < 0, -b, b)
    d = np.abs(d)
    theta = np.arccos(np.minimum(d, 1.0))
    sin = np.sin(theta)
    small = sin < 1e-9
    safe = np.where(small, 1.0, sin)
    wa = np.where(small, 1 - u, np.sin((1 - u) * theta) / safe)
    wb = np.where(small, u, np.sin(u * theta) / safe)
    q = wa * a + wb * b
    out: F64 = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return out


class _FrameSampler:
    """Channels sampled at the frame times ``f / rate``, chunk after chunk of increasing
    frames, vectorized over channels: each key's first frame at or after it is computed once,
    and a chunk counts the keys at or before each of its frames with one ``bincount``, so a
    chunk costs in proportion to its channels x frames plus the keys it passes."""

    def __init__(self, chans: list[GltfChannel], rate: float, frames: int) -> None:
        self.rate = rate
        by_kind: dict[tuple[bool, str, int], list[int]] = {}
        for i, c in enumerate(chans):
            by_kind.setdefault((c.path == "rotation", c.interpolation, c.values.shape[-1]),
                               []).append(i)
        self.groups = []
        for idx in by_kind.values():
            keys = _Keys([chans[i] for i in idx])
            first = _first_frames(keys.times, rate, frames)
            owner = np.repeat(np.arange(len(idx), dtype=np.intp), keys.lens)
            order = np.argsort(first, kind="stable")
            self.groups.append((np.array(idx, dtype=np.intp), keys, first[order], owner[order],
                                np.zeros(len(idx), dtype=np.intp), [0]))

    def chunk(self, f0: int, f1: int) -> list[tuple[Arr, F64]]:
        """[(channel indices (C,), values (C, f1 - f0, W))] for frames f0..f1 (chunks must
        come in increasing order)."""
        n = f1 - f0
        t = np.arange(f0, f1) / self.rate
        out = []
        for idx, keys, first, owner, base, ptr in self.groups:
            c = len(idx)
            done = int(np.searchsorted(first, f0, side="right"))
            base += np.bincount(owner[ptr[0]:done], minlength=c)
            ptr[0] = done
            upto = int(np.searchsorted(first, f1 - 1, side="right"))
            inc = np.bincount(owner[done:upto] * n + (first[done:upto] - f0),
                              minlength=c * n).reshape(c, n)
            count = base[:, None] + np.cumsum(inc, axis=1)
            key = keys.off[:, None] + np.maximum(count - 1, 0)
            tt = np.broadcast_to(t, (c, n))
            inside = ((count >= 1) & (count < keys.lens[:, None])
                      & (tt > keys.times[keys.off][:, None]))
            out.append((idx, keys.values(key, inside, tt)))
        return out


def _first_frames(times: F64, rate: float, frames: int) -> Arr:
    """For each key time, the first frame f (0..frames) whose time f / rate is at or after it,
    with the same float64 comparison as the frame times themselves."""
    with np.errstate(over="ignore", invalid="ignore"):
        g = np.ceil(np.minimum(times * rate, float(frames)))
    for _ in range(2):
        g = np.where((g > 0) & ((g - 1) / rate >= times), g - 1, g)
        g = np.where((g < frames) & (g / rate < times), g + 1, g)
    return g.astype(np.int64)


def _check_tolerance(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise TypeError(f"scale_tolerance: expected a number, got {type(tol).__name__}")
    if not 0 <= float(tol) <= MAX_SCALE_TOLERANCE:
        raise ValueError(f"scale_tolerance: expected 0 <= scale_tolerance <= "
                         f"{MAX_SCALE_TOLERANCE}, got {tol!r}")
    return float(tol)


def _check_budget(budget: Any) -> int:
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)):
        raise TypeError(f"max_joint_frames: expected an int, got {type(budget).__name__}")
    if budget < 1:
        raise ValueError(f"max_joint_frames: expected an int >= 1, got {budget}")
    return int(budget)


def _check_rate(rate: Any) -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)):
        raise TypeError(f"sample_rate: expected a positive number (Hz), got {type(rate).__name__}")
    try:
        r = float(rate)
    except OverflowError:   # an int beyond the float range
        r = math.inf
    if not (r > 0 and math.isfinite(r) and math.isfinite(1.0 / r)):
        raise ValueError(f"sample_rate: expected a positive finite number (Hz) whose frame time "
                         f"is finite, got {rate!r}")
    return r


def _implied_rate(anim: GltfAnimation) -> float:
    times = np.unique(np.concatenate([c.times.astype(np.float64) for c in anim.channels]
                                     or [np.zeros(1)]))
    if len(times) < 2:
        return _DEFAULT_RATE
    d = float(np.diff(times).min())
    rate = round(1.0 / d) if d > 0 else 0
    if not 1 <= rate <= _MAX_RATE or abs(1.0 / d - rate) > 1e-3 * rate:
        return _DEFAULT_RATE
    return float(rate)


# --- clips -----------------------------------------------------------------------------------------

def _frame_count(anim: GltfAnimation, rate: float) -> int:
    """Frames of an animation's clips at a rate: t = 0 up to its last key."""
    return math.floor(anim.duration * rate + 1e-4) + 1


def _clip_cost(frames: int, joints: int, occurrences: int, morph_width: int) -> int:
    """What building a clip costs, in joint-frames (see the module docstring)."""
    return max(_MIN_CLIP_COST, frames * (joints + occurrences + -(-morph_width // 8)))


def _morph_width(anim: GltfAnimation) -> int:
    return sum(c.values.shape[-1] for c in anim.channels if c.path == "weights")


def _over_budget(a: int, anim: GltfAnimation, rate: float, frames: int, joints: int,
                 moved: int, s: int, total: int, budget: int, what: str) -> ValueError:
    return ValueError(
        f"animations[{a}] ({anim.name!r:.40}): {frames} frames ({anim.duration:.6g} s at "
        f"{rate:.6g} Hz) x ({joints} joints + {moved} moved nodes) of skins[{s}] bring {what} "
        f"to {total} joint-frames, more than max_joint_frames = {budget} (a keyword of "
        "load_gltf)")


def _plan_clips(skins: list[GltfSkin], animations: list[GltfAnimation], rate: float | None,
                budget: int) -> list[tuple[int, int]]:
    """The (animation, skin) pairs of the clips, their joint-frames summed and checked against
    the budget as they are found (so that this costs at most about the budget too)."""
    moved = np.array(sorted({n for anim in animations for n in anim.by_node}), dtype=np.intp)
    where: dict[int, list[tuple[int, int]]] = {}
    for s, sk in enumerate(skins):
        assert sk.plan is not None
        plan = sk.plan
        counts = np.diff(plan.occ_start)
        for col in np.flatnonzero(np.isin(plan.nodes, moved)).tolist():
            where.setdefault(int(plan.nodes[col]), []).append((s, int(counts[col])))
    pairs, total = [], 0
    for a, anim in enumerate(animations):
        occ: dict[int, int] = {}
        for node in anim.by_node:
            for s, count in where.get(node, ()):
                occ[s] = occ.get(s, 0) + count
        if not occ:
            continue
        r = rate if rate is not None else _implied_rate(anim)
        frames = _frame_count(anim, r)
        width = _morph_width(anim)
        for s in sorted(occ):
            joints = len(skins[s].nodes)
            total += _clip_cost(frames, joints, occ[s], width)
            if total > budget:
                raise _over_budget(a, anim, r, frames, joints, occ[s], s, total, budget,
                                   "the file's clips")
            pairs.append((a, s))
    return pairs


def _node_matrices(doc: _Doc, node: int, anim: GltfAnimation, t: F64) -> F64:
    """Local matrices (n, 4, 4) of a node at times t (n,), float64."""
    n = doc.node_objs[node]
    chans = anim.by_node.get(node, {})
    if not chans:
        return np.broadcast_to(_rest_matrix(n), (len(t), 4, 4))
    tr = (chans["translation"].sample(t) if "translation" in chans
          else np.broadcast_to(np.array(n.t), (len(t), 3)))
    ro = (chans["rotation"].sample(t) if "rotation" in chans
          else np.broadcast_to(np.array(n.r), (len(t), 4)))
    sc = (chans["scale"].sample(t) if "scale" in chans
          else np.broadcast_to(np.array(n.s), (len(t), 3)))
    return _trs_matrix(tr, ro, sc)


class _AssetLike(Protocol):
    """What an :class:`_AnimationJob` reads of a ``GltfAsset``."""
    animations: list[GltfAnimation]
    skins: list[GltfSkin]
    scale_tolerance: float
    max_joint_frames: int
    _doc: Any


class _AnimationJob:
    """The clips of one animation for one or more skins, chunk by chunk of frames: the moved
    nodes' T, R, S sampled once for all the skins (vectorized over channels), then folded per
    skin (:class:`_Folding`)."""

    def __init__(self, asset: _AssetLike, a: int, skins: list[int], rate: float,
                 what: str) -> None:
        self.anim, self.doc, self.rate = asset.animations[a], asset._doc, rate
        self.tol = asset.scale_tolerance
        self.skins = [asset.skins[s] for s in skins]
        self.frames = _frame_count(self.anim, rate)
        width = _morph_width(self.anim) if what == "this clip" else 0
        self.folds, widest = [], 0
        moved: set[int] = set()
        for s, sk in zip(skins, self.skins):
            assert sk.plan is not None
            fold = sk.plan.folding(self.anim.by_node)
            joints = len(sk.nodes)
            cost = _clip_cost(self.frames, joints, fold.occurrences, width)
            if cost > asset.max_joint_frames:
                raise _over_budget(a, self.anim, rate, self.frames, joints, fold.occurrences, s,
                                   cost, asset.max_joint_frames, what)
            self.folds.append(fold)
            widest = max(widest, joints + fold.occurrences)
            moved.update(sk.plan.nodes[fold.cols].tolist())
        nodes = sorted(moved)
        self.column = {n: k for k, n in enumerate(nodes)}
        chans, path_of, col_of = [], [], []
        for k, node in enumerate(nodes):
            for path, ch in self.anim.by_node[node].items():
                chans.append(ch)
                path_of.append(("translation", "rotation", "scale").index(path))
                col_of.append(k)
        self.path_of, self.col_of = np.array(path_of, np.intp), np.array(col_of, np.intp)
        self.sampler = _FrameSampler(chans, rate, self.frames)
        self.step = max(1, _CHUNK // (widest + len(nodes)))

    def chunks(self) -> Iterator[tuple[int, list[tuple[F64, F64, F64]]]]:
        """(f0, per skin: the translations, rotations and scales (n, A, 3 / 4 / 3) of its
        fold's animated columns)."""
        path_of, col_of = self.path_of, self.col_of
        for f0 in range(0, self.frames, self.step):
            n = min(self.frames, f0 + self.step) - f0
            sampled = [np.empty((n, len(self.column), w)) for w in (3, 4, 3)]
            done = np.zeros((3, len(self.column)), dtype=bool)
            for idx, vals in self.sampler.chunk(f0, f0 + n):
                for p in np.unique(path_of[idx]).tolist():
                    sel = path_of[idx] == p
                    sampled[p][:, col_of[idx[sel]]] = vals[sel].transpose(1, 0, 2)
                    done[p, col_of[idx[sel]]] = True
            per_skin = []
            for sk, fold in zip(self.skins, self.folds):
                plan = sk.plan
                assert plan is not None
                mine = np.array([self.column[n] for n in plan.nodes[fold.cols].tolist()],
                                dtype=np.intp)
                trs = []
                for p, rest in enumerate((plan.t, plan.r, plan.s)):
                    x = sampled[p][:, mine]
                    keep = ~done[p, mine]
                    x[:, keep] = rest[fold.cols[keep]]
                    trs.append(x)
                per_skin.append((trs[0], trs[1], trs[2]))
            yield f0, per_skin

    def qts(self) -> list[NDArray[np.float32] | ValueError]:
        """Each skin's QTS (F, J, 8), or the ValueError that refuses its clip."""
        outs: list[NDArray[np.float32] | ValueError] = []
        for k, (sk, fold) in enumerate(zip(self.skins, self.folds)):
            out = np.empty((self.frames, len(sk.nodes), 8), dtype=np.float32)
            try:
                if len(fold.static):
                    out[:, fold.static] = self.rest_qts(k)
            except ValueError as exc:
                outs.append(exc)
                continue
            outs.append(out)
        for f0, per_skin in self.chunks():
            for k, (tr, ro, sc) in enumerate(per_skin):
                done = outs[k]
                if isinstance(done, ValueError):
                    continue
                try:
                    self.qts_chunk(k, done, f0, tr, ro, sc)
                except ValueError as exc:
                    outs[k] = exc
        for done in outs:
            if not isinstance(done, ValueError):
                _continuous(done)
        return outs

    def rest_qts(self, k: int) -> NDArray[np.float32]:
        sk, fold = self.skins[k], self.folds[k]
        plan = sk.plan
        assert plan is not None
        if self.tol not in plan.rest_similar:
            plan.rest_similar[self.tol] = bool(_similar(plan.rest[:, :3, :3], self.tol).all())
        if sk.skeleton.rest is not None and sk.skeleton.rest.shape[-1] == 8 \
                and plan.rest_similar[self.tol]:
            return np.asarray(sk.skeleton.rest)[fold.static]
        return self.to_qts(k, plan.rest[None, fold.static], 0, fold.static)

    def qts_chunk(self, k: int, out: NDArray[np.float32], f0: int, tr: F64, ro: F64,
                  sc: F64) -> None:
        fold = self.folds[k]
        f1 = f0 + len(tr)
        direct, col = fold.direct, fold.direct_col
        if len(direct):
            q, ok = _direct_qts(tr[:, col], ro[:, col], sc[:, col], self.tol)
            out[f0:f1, direct[ok]] = q[:, ok]
            direct, col = direct[~ok], col[~ok]       # through the matrices (or refused)
        if len(direct) or len(fold.folded):
            local = _trs_matrix(tr, ro, sc)
            if len(direct):
                out[f0:f1, direct] = self.to_qts(k, local[:, col], f0, direct)
            if len(fold.folded):
                out[f0:f1, fold.folded] = self.to_qts(k, fold.fold(local), f0, fold.folded)

    def matrices(self) -> NDArray[np.float32]:
        """The first skin's folded local matrices (F, J, 3, 4)."""
        sk, fold = self.skins[0], self.folds[0]
        plan = sk.plan
        assert plan is not None
        out = np.empty((self.frames, len(sk.nodes), 3, 4), dtype=np.float32)
        if len(fold.static):
            self.check_range(0, plan.rest[None, fold.static], 0, fold.static)
            out[:, fold.static] = plan.rest[None, fold.static, :3]
        for f0, per_skin in self.chunks():
            tr, ro, sc = per_skin[0]
            local = _trs_matrix(tr, ro, sc)
            for joints, m in ((fold.direct, local[:, fold.direct_col]),
                              (fold.folded, fold.fold(local))):
                if len(joints):
                    self.check_range(0, m, f0, joints)
                    out[f0:f0 + len(tr), joints] = m[..., :3, :]
        return out

    def morph_weights(self) -> dict[int, Arr]:
        chans = [c for c in self.anim.channels if c.path == "weights"]
        if not chans:
            return {}
        out = {}
        for idx, vals in _FrameSampler(chans, self.rate, self.frames).chunk(0, self.frames):
            for i, v in zip(idx.tolist(), vals):
                out[chans[i].node] = v.astype(np.float32)
        return out

    def check_range(self, k: int, m: F64, f0: int, joints: Arr) -> None:
        bad = ~(np.abs(m) <= _FLOAT32_MAX).all(axis=(-2, -1))
        if bad.any():
            f, j = (int(x) for x in np.argwhere(bad)[0])
            raise ValueError(f"animation {self.anim.name!r:.40}: joint "
                             f"{self.skins[k].skeleton.names[joints[j]]!r:.40} has a local "
                             f"matrix beyond the float32 range at frame {f0 + f}")

    def to_qts(self, k: int, m: F64, f0: int, joints: Arr) -> NDArray[np.float32]:
        """QTS of skin k's folded local matrices (n, len(joints), 4, 4) of frames f0..;
        ValueError naming the node and its scale where one is not a similarity within the
        tolerance."""
        self.check_range(k, m, f0, joints)
        ok = _similar(m[..., :3, :3], self.tol)
        if not ok.all():
            fc, j = (int(x) for x in np.argwhere(~ok)[0])
            self.refuse(k, f0 + fc, int(joints[j]), m[fc, j])
        return _to_qts(m)

    def refuse(self, k: int, f: int, j: int, folded: F64) -> None:
        sk, doc = self.skins[k], self.doc
        plan = sk.plan
        assert plan is not None
        chain = sk.chains[j]
        mats = plan.rest_local[plan.flat[plan.start[j]:plan.start[j + 1]]].copy()
        t = np.array([f / self.rate])
        for i, node in enumerate(chain):
            if node in self.anim.by_node:
                mats[i] = _node_matrices(doc, node, self.anim, t)[0]
        bad = np.flatnonzero(~_similar(mats[:, :3, :3], self.tol))
        if len(bad):
            node, scale = chain[int(bad[0])], _axis_scales(mats[int(bad[0]), :3, :3])
        else:
            node, scale = int(sk.nodes[j]), _axis_scales(folded[:3, :3])
        raise ValueError(
            f"nodes[{node}] ({doc.node_objs[node].name!r}): non-uniform scale "
            f"{np.array2string(scale, precision=6)} at frame {f} (joint "
            f"{sk.skeleton.names[j]!r}); QTS clips carry a uniform scale (within "
            f"scale_tolerance={self.tol:g}): use GltfAsset.local_matrices() for the exact "
            "(F, J, 3, 4) matrices")


def _direct_qts(tr: F64, ro: F64, sc: F64, tol: float) -> tuple[NDArray[np.float32],
                                                                NDArray[np.bool_]]:
    """QTS (n, D, 8) of joints whose folded local is their own T R S (n, D, 3 / 4 / 3), as
    :func:`_to_qts` gives for its matrix, and whether each joint's every frame qualifies: its
    axis scales of one sign, spread within tol of their mean, and the matrix within the
    float32 range (the others go through the matrices)."""
    a = np.abs(sc)
    mean = a.mean(axis=-1)
    same_sign = (sc > 0).all(axis=-1) | (sc < 0).all(axis=-1)
    with np.errstate(invalid="ignore"):
        fine = (same_sign & (a.max(axis=-1) - a.min(axis=-1) <= max(tol, _TOLERANCE_FLOOR) * mean)
                & (a <= _FLOAT32_MAX).all(axis=-1) & (np.abs(tr) <= _FLOAT32_MAX).all(axis=-1))
    s = np.where(sc[..., 0] < 0, -mean, mean)
    q = np.where(ro[..., 3:] < 0, -ro, ro)
    qts = np.concatenate([q, tr, s[..., None]], axis=-1).astype(np.float32)
    ok: NDArray[np.bool_] = fine.all(axis=0)
    return qts, ok


def _continuous(qts: NDArray[np.float32]) -> None:
    """Quaternions (F, J, 8) made continuous over frames in place: q and -q are the same
    rotation, so a joint's quaternion is negated where it would jump to the other hemisphere."""
    q = qts[..., :4]
    if len(q) > 1:
        dots = (q[1:].astype(np.float64) * q[:-1]).sum(axis=-1)
        flips = np.cumsum(dots < 0, axis=0) % 2 == 1
        q[1:][flips] = -q[1:][flips]


