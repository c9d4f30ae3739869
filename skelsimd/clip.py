"""The animation clip: :class:`Clip`, a skeleton and its local QTS poses over time, with its
editing (slicing, sampling and resampling, concatenation and crossfades, mirroring and root
motion) on the kernels (``blend_joints`` for every interpolation, the QTS walks for global
poses).


Every method returns a new clip (or new arrays) and leaves its inputs untouched; the skeleton
is shared when it does not change (skeletons are immutable). Clips hold QTS poses ``(F, J, 8)``
``(qx, qy, qz, qw, tx, ty, tz, s)``; frame ``i`` is at time ``i * frame_time`` seconds.

Interpolation between frames: rotations by ``blend_joints`` (slerp, ``method="fast"`` within
[bound:slerp.fast], or ``"exact"`` / ``"nlerp"``), translation and scale by ``a + w (b - a)``. A time that
falls within 1e-9 frames of a frame (relative to the frame number, at least 1e-9) takes that
frame exactly, so resampling at the clip's own rate and sampling at frame times give the
frames bit for bit.

Quaternions stay continuous across frames, as ``load_bvh`` makes them: where clips are joined
(``concatenate``, ``crossfade``), the appended clip's quaternions of a joint are negated as a
whole when they start on the other hemisphere (``q`` and ``-q`` are the same rotation).
"""
from __future__ import annotations
import math
import operator
import sys

import numpy as np

from . import _core
from ._validate import as_int as _as_int
from ._validate import choice as _choice
from ._validate import integer as _count
from ._validate import positive_number as _positive_number
from ._validate import number as _number
from ._validate import seconds_to_frames as _seconds_to_frames
from ._rotation64 import quat_conj, quat_mul, quat_rotate
from .footplant import _plant_transition
from .inertialize import _inertialize_stream
from .blend import blend_joints
from .bounds import fill_docstrings
from .qts import qts_local_to_global, qts_local_to_global_matrix
from .quat import qts_to_matrix
from .skeleton import Skeleton, mirror_pairs
from .track import contact_labels, step_track
from typing import TYPE_CHECKING, cast, overload

if TYPE_CHECKING:
    from ._typing import _View, _FlatView, _Frames
    from collections.abc import Iterable, Sequence
    from typing import Any, Literal
    import numpy
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self
    from ._typing import Axis, BlendMethod, BoolArray, Float32Array, Int32Array, Order, Precision
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from .plotting import ClipAnimation
    from .track import Track

__all__ = ["Clip"]

if TYPE_CHECKING:
    _F64 = NDArray[np.float64]

_SNAP = 1e-9           # frames: a frame position this close to an integer takes that frame
_ONE_TIME = (float, int, np.float64, np.float32)   # Clip.sample's one-time path takes these
_SAMPLE_METHODS = ("fast", "exact", "nlerp")
_EXACT_INT = 2**53     # the one-time path's range: ints and floats exact in float64
_AXES = {"x": 0, "y": 1, "z": 2}


# --- argument checks ------------------------------------------------------------------------------

def _non_negative(v: float) -> bool:
    return v >= 0


def _check_clip(other: object, name: str) -> Clip:
    if not isinstance(other, Clip):
        raise TypeError(f"{name}: expected a skelsimd.Clip, got {type(other).__name__}")
    return other


def _check_compatible(clip: Clip, other: Clip, name: str) -> None:
    """Same joints (names and parents) and the same frame time."""
    a, b = clip.skeleton, other.skeleton
    if len(a) != len(b) or not np.array_equal(a.parents, b.parents) or a.names != b.names:
        diff = next((j for j in range(min(len(a), len(b)))
                     if a.names[j] != b.names[j] or a.parents[j] != b.parents[j]), None)
        where = (f"joint {diff}: {a.names[diff]!r} (parent {a.parents[diff]}) against "
                 f"{b.names[diff]!r} (parent {b.parents[diff]})" if diff is not None
                 else f"{len(a)} against {len(b)} joints")
        raise ValueError(f"{name}: expected a clip of the same skeleton (names and parents), "
                         f"got another one ({where})")
    if abs(other.frame_time - clip.frame_time) > 1e-9 * clip.frame_time:
        raise ValueError(f"{name}.frame_time: expected {clip.frame_time:.9g} s like this clip, got "
                         f"{other.frame_time:.9g} s; resample it first: "
                         f"{name}.resample({clip.fps:.6g})")


def _align_hemisphere(reference: Float32Array, local: Float32Array) -> Float32Array:
    """local (F, J, 8) with each joint's quaternions negated over all frames when they start on
    the other hemisphere than `reference` (J, 8) (dot < 0); a copy when anything changes."""
    dots = np.einsum("jk,jk->j", reference[:, :4].astype(np.float64), local[0, :, :4])
    flip = dots < 0
    if not flip.any():
        return local
    local = local.copy()
    local[:, flip, :4] = -local[:, flip, :4]
    return local


# --- left/right pairs ----------------------------------------------------------------------------

def _mirror_permutation(skeleton: Skeleton, pairs: Any) -> NDArray[np.intp]:
    """The involution sigma (J,) of joint indices swapping the pairs, checked against the
    hierarchy: parent(sigma(j)) == sigma(parent(j)) for every joint."""
    n = len(skeleton)
    sigma = np.arange(n)
    detected = pairs is None
    if detected:
        pairs = mirror_pairs(skeleton)
    else:
        if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
            raise TypeError(f"pairs: expected a sequence of (left, right) joint pairs, got "
                            f"{type(pairs).__name__}")
        pairs = list(pairs.items()) if isinstance(pairs, dict) else list(pairs)
    seen: dict[int, int] = {}
    for k, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or len(pair) != 2:
            raise TypeError(f"pairs[{k}]: expected a (left, right) pair of joint names or indices, "
                            f"got {pair!r}")
        a, b = (skeleton.index(x) for x in pair)
        if a == b:
            raise ValueError(f"pairs[{k}]: expected two different joints, got {pair!r}")
        for j in (a, b):
            if j in seen:
                raise ValueError(f"pairs[{k}]: joint {j} ({skeleton.names[j]!r}) is already in "
                                 f"pairs[{seen[j]}]")
            seen[j] = k
        sigma[a], sigma[b] = b, a
    p = skeleton.parents.astype(np.intp)
    mapped_parent = np.where(p >= 0, sigma[np.maximum(p, 0)], -1)
    bad = np.flatnonzero(p[sigma] != mapped_parent)
    if bad.size:
        j = int(bad[0])
        s = int(sigma[j])
        names = skeleton.names

        def label(i: int) -> str:
            return "a root" if i < 0 else f"{names[i]!r}"
        how = "found from the names" if detected else "given"
        raise ValueError(
            f"pairs: the pairs {how} do not mirror the hierarchy: joint {names[j]!r} (parent "
            f"{label(int(p[j]))}) mirrors to {names[s]!r} (parent {label(int(p[s]))}), but "
            f"{label(int(p[j]))} mirrors to {label(int(mapped_parent[j]))}; pass pairs=[(left, "
            "right), ...] explicitly")
    return sigma


def _mirror_qts(x: Float32Array, axis: int) -> Float32Array:
    """QTS joints reflected through the plane normal to `axis`: M R M and M t with
    M = diag(+-1) (-1 on the axis), i.e. the quaternion's other two components and the
    translation's axis component negated (exact sign flips)."""
    out = x.copy()
    others = [k for k in range(3) if k != axis]
    out[..., others] = -out[..., others]
    out[..., 4 + axis] = -out[..., 4 + axis]
    return out


def _mirror_matrices(m: Float32Array, axis: int) -> Float32Array:
    out = m.copy()
    out[..., axis, :] = -out[..., axis, :]        # M [R | t]
    out[..., :, axis] = -out[..., :, axis]        # ... M (the translation column is not touched)
    return out


# --- root motion ---------------------------------------------------------------------------------

def _ground_trajectory(global_q: _F64, global_t: _F64, heading: bool) -> tuple[_F64, _F64]:
    """(F, 4) yaw quaternions (twist about y, continuous) and (F, 3) ground positions (y = 0),
    float64, from a joint's global rotation and translation."""
    frames = global_q.shape[0]
    q = np.zeros((frames, 4))
    q[:, 3] = 1.0
    if heading and frames:
        twist = np.zeros((frames, 4))
        twist[:, 1] = global_q[:, 1]
        twist[:, 3] = global_q[:, 3]
        norm = np.linalg.norm(twist, axis=1)
        ok = norm > 1e-6           # no yaw when the rotation is a half turn about a level axis
        q[ok] = twist[ok] / norm[ok, None]
        for f in np.flatnonzero(~ok):          # keep the previous frame's heading there
            q[f] = q[f - 1] if f else q[f]
        sign = np.ones(frames)
        sign[1:] = np.where(np.einsum("fk,fk->f", q[1:], q[:-1]) < 0, -1.0, 1.0)
        sign[0] = -1.0 if q[0, 3] < 0 else 1.0
        q *= np.cumprod(sign)[:, None]
    t = np.array(global_t, dtype=np.float64)
    t[:, 1] = 0.0
    return q, t


def _apply_ground(local: Float32Array, roots: Int32Array, q: _F64, t: _F64) -> Float32Array:
    """local (F, J, 8) with every root joint moved by the rigid transform (q, t) of its frame
    (global' = T global): q_r' = q q_r, t_r' = R(q) t_r + t; float64, rounded once."""
    out = local.copy()
    r = local[:, roots].astype(np.float64)
    qf, tf = q[:, None, :], t[:, None, :]
    out[:, roots, :4] = quat_mul(np.broadcast_to(qf, r[..., :4].shape), r[..., :4])
    out[:, roots, 4:7] = quat_rotate(np.broadcast_to(qf, r[..., :4].shape), r[..., 4:7]) + tf
    return out


def _inverse_ground(q: _F64, t: _F64) -> tuple[_F64, _F64]:
    qi = quat_conj(q)
    return qi, -quat_rotate(qi, t)


def _remove_ground(local: Float32Array, roots: Int32Array, q: _F64, t: _F64) -> Float32Array:
    """local (F, J, 8) with every root joint mapped by the inverse of (q, t) (global' =
    T^-1 global): q_r' = q^-1 q_r, t_r' = R(q^-1) (t_r - t); float64, rounded once (a root that
    is the trajectory's joint gets x = z = 0 exactly)."""
    out = local.copy()
    r = local[:, roots].astype(np.float64)
    qi = np.broadcast_to(quat_conj(q)[:, None, :], r[..., :4].shape)
    out[:, roots, :4] = quat_mul(qi, r[..., :4])
    out[:, roots, 4:7] = quat_rotate(qi, r[..., 4:7] - t[:, None, :])
    return out


# --- the methods -----------------------------------------------------------------------------------

def _frame_selection(frames: Any, count: int) -> Any:
    """`frames` checked as an index into `count` frames (an int, a slice, an integer array or a
    boolean mask of `count`): TypeError / ValueError naming `frames`, never IndexError."""
    if isinstance(frames, slice):
        for part in (frames.start, frames.stop, frames.step):
            if part is not None and _as_int(part) is None:
                raise TypeError(f"frames: expected a slice of ints, got {frames!r}")
        if frames.step is not None and operator.index(frames.step) == 0:
            raise ValueError("frames: expected a non-zero slice step, got 0")
        return frames
    if frames is Ellipsis:
        return frames
    if isinstance(frames, (bool, np.bool_)):
        raise TypeError("frames: expected an int, a slice or an array of frame indices, got bool")
    f = _as_int(frames)
    if f is not None:
        if not -count <= f < count:
            raise ValueError(f"frames: expected -{count} <= frame < {count} (the clip has "
                             f"{count} frames), got {f}")
        return f
    a = _core._as_array(frames, "frames")
    if a.dtype == np.bool_:
        if a.shape != (count,):
            raise ValueError(f"frames: expected a boolean mask of shape ({count},), got shape "
                             f"{a.shape}")
        return a
    if a.size == 0 and a.dtype.kind in "iuf":
        return np.zeros(a.shape, np.intp)
    if a.dtype.kind not in "iu":
        raise TypeError(f"frames: expected an int, a slice, an integer array or a boolean mask, "
                        f"got {type(frames).__name__} of dtype {a.dtype}")
    bad = np.flatnonzero((a < -count) | (a >= count))
    if bad.size:
        raise ValueError(f"frames: expected frame indices -{count} <= frame < {count} (the clip "
                         f"has {count} frames), got {a.flat[bad[0]]}")
    return a


# --- reading ---------------------------------------------------------------------------------------


# --- the clip ------------------------------------------------------------------------------------

class Clip:
    """An animation clip: a skeleton and its local poses over time.

    Attributes
    ----------
    skeleton : Skeleton
        Names, parents and the rest pose (QTS ``(J, 8)``: identity rotations, the OFFSETs).
    local : ndarray, float32 (F, J, 8)
        Local QTS poses ``(qx, qy, qz, qw, tx, ty, tz, s)`` per frame, in the skeleton's order.
    frame_time : float
        Seconds per frame.
    frame_time_raw : float
        The frame time as the file printed it (``load_bvh`` reads a rounded common rate such
        as ``0.033333`` as ``1 / 30``; see :func:`skelsimd.io.bvh.file_frame_rate`); the same
        as ``frame_time`` otherwise, and for clips made at another rate.
    channels : tuple of tuple of str
        The BVH channels of each joint as read (``()`` for End Sites), for reference.
    end_site : ndarray of bool (J,)
        Joints that were BVH End Sites (only present with ``load_bvh(..., end_sites=True)``).
    name : str or None
        The clip's name where the file gives one (a glTF animation's name); kept by editing.

    Notes
    -----
    Editing (this module): ``clip[a:b:k]`` (a copy), ``sample(t)``,
    ``resample(fps)``, ``concatenate(*others)``, ``crossfade(other, frames)``,
    ``blend(other, weight)``,
    ``mirror(axis, pairs)``, ``root_motion()``. Pictures (see :mod:`skelsimd.plotting`):
    ``plot(frame)``, ``animate()``; notebooks show a summary table.

    Examples
    --------
    >>> import skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> clip.frames, len(clip.skeleton), round(clip.fps)
    (240, 31, 120)
    >>> half = clip.resample(clip.fps / 2)                       # every other frame
    >>> half.frames, clip[10:20].frames
    (120, 10)
    """

    skeleton: Skeleton
    local: Float32Array
    frame_time: float
    frame_time_raw: float
    channels: tuple[tuple[str, ...], ...]
    end_site: BoolArray
    name: str | None

    def __init__(
        self,
        skeleton: Skeleton,
        local: ArrayLike,
        frame_time: float,
        *,
        channels: Iterable[Iterable[str]] | None = None,
        end_site: ArrayLike | None = None,
        frame_time_raw: float | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(skeleton, Skeleton):
            raise TypeError(f"skeleton: expected a skelsimd.Skeleton, got {type(skeleton).__name__}")
        local = _core._as_float32(local, "local")   # DLPack / __array__ too, see interop.c
        n = len(skeleton)
        if local.ndim != 3 or local.shape[1:] != (n, 8):
            raise ValueError(f"local: expected shape (F, {n}, 8), got {local.shape}")
        try:
            frame_time = float(frame_time)
        except (TypeError, ValueError):
            raise TypeError(f"frame_time: expected a number of seconds, got "
                            f"{type(frame_time).__name__}") from None
        except OverflowError:
            raise ValueError("frame_time: expected a positive number of seconds, got an int "
                             "beyond the float range") from None
        if not (frame_time > 0 and np.isfinite(frame_time)):
            raise ValueError(f"frame_time: expected a positive number of seconds, got {frame_time}")
        self.skeleton = skeleton
        self.local = local
        self.frame_time = frame_time
        self.frame_time_raw = frame_time if frame_time_raw is None else float(frame_time_raw)
        self.channels = tuple(tuple(c) for c in channels) if channels is not None else ((),) * n
        self.end_site = (np.zeros(n, dtype=bool) if end_site is None
                         else np.asarray(end_site, dtype=bool).reshape(n))
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name: expected a str or None, got {type(name).__name__}")
        self.name = name

    @property
    def frames(self) -> int:
        return int(self.local.shape[0])

    @property
    def fps(self) -> float:
        """Frames per second, ``1 / frame_time``; exactly the integer ``n`` when the frame time
        is the float nearest ``1 / n`` (``1 / (1 / 49)`` is 49.00000000000001 otherwise)."""
        n = round(1.0 / self.frame_time)
        return float(n) if n >= 1 and 1.0 / n == self.frame_time else 1.0 / self.frame_time

    @property
    def duration(self) -> float:
        """Seconds covered by the frames (frames * frame_time)."""
        return self.frames * self.frame_time

    def __len__(self) -> int:
        return self.frames

    def __repr__(self) -> str:
        return (f"Clip({self.frames} frames at {self.fps:.4g} fps, {len(self.skeleton)} joints: "
                f"{', '.join(self.skeleton.names[:3])}{', ...' if len(self.skeleton) > 3 else ''})")

    def local_matrices(self) -> Float32Array:
        """Local joint matrices ``(F, J, 3, 4)`` float32."""
        return qts_to_matrix(self.local)

    def global_matrices(
        self,
        frames: _Frames = slice(None),
        out: Float32Array | None = None,
        *,
        precision: Precision = "float32",
    ) -> Float32Array:
        """Global joint matrices ``(F, J, 3, 4)`` float32 of the selected frames (forward
        kinematics on the kernels, with the skeleton as ``parents``; ``precision="float64"``
        carries the global poses in float64, see :func:`skelsimd.qts_local_to_global_matrix`)."""
        return qts_local_to_global_matrix(self.local[_frame_selection(frames, self.frames)],
                                          self.skeleton, out, precision=precision)

    def global_positions(
        self, frames: _Frames = slice(None), *, precision: Precision = "float32"
    ) -> Float32Array:
        """Global joint positions ``(F, J, 3)`` float32, in the file's units."""
        return self.global_matrices(frames, precision=precision)[..., 3]

    def reorder(self, order: Order = "depth-first") -> tuple[Self, NDArray[np.intp], NDArray[np.intp]]:
        """The clip with its joints in another order (see :meth:`Skeleton.reorder`); returns
        ``(clip, perm, inverse)``."""
        skel, perm, inverse = self.skeleton.reorder(order)
        clip = type(self)(skel, self.local[:, perm], self.frame_time,
                          channels=[self.channels[i] for i in perm], end_site=self.end_site[perm],
                          frame_time_raw=self.frame_time_raw, name=self.name)
        return clip, perm, inverse

    def _with(
        self, local: ArrayLike, frame_time: float | None = None, skeleton: Skeleton | None = None
    ) -> Self:
        return type(self)(self.skeleton if skeleton is None else skeleton, local,
                          self.frame_time if frame_time is None else frame_time,
                          channels=self.channels, end_site=self.end_site, name=self.name,
                          frame_time_raw=(self.frame_time_raw if frame_time in (None, self.frame_time)
                                          else None))

    def __getitem__(self, key: slice) -> Self:
        """``clip[start:stop:step]``: a new clip of the selected frames, **always a copy** (its
        ``local`` is a new C-contiguous array, so editing it never changes this clip; the
        skeleton is shared, it is immutable). A step of k multiplies the frame time by |k|;
        ``clip[::-1]`` plays the clip backwards. Only slices are accepted: ``clip.local[i]`` is
        the pose of one frame, ``clip[i:i + 1]`` a one-frame clip."""
        if not isinstance(key, slice):
            raise TypeError(f"clip[...]: expected a slice of frames such as clip[100:200] or "
                            f"clip[::2], got {type(key).__name__}; use clip.local[i] for the pose "
                            "of one frame")
        for part in ("start", "stop", "step"):
            v = getattr(key, part)
            if v is not None and (isinstance(v, (bool, np.bool_))
                                  or not isinstance(v, (int, np.integer))):
                raise TypeError(f"clip[...]: expected int or None slice {part}, got "
                                f"{type(v).__name__}")
        if key.step == 0:
            raise ValueError("clip[...]: expected a non-zero slice step, got 0")
        step = 1 if key.step is None else int(key.step)
        return self._with(np.array(self.local[key], copy=True, order="C"),
                          self.frame_time * abs(step))

    def _sample_frames(self, positions: ArrayLike, loop: bool, method: BlendMethod) -> Float32Array:
        """Poses at fractional frame positions (any shape; float64), by blend_joints."""
        frames = self.frames
        u = np.asarray(positions, dtype=np.float64)
        if loop:
            u = np.mod(u, frames)
        else:
            u = np.clip(u, 0.0, frames - 1)
        r = np.round(u)
        u = np.where(np.abs(u - r) <= _SNAP * np.maximum(1.0, np.abs(u)), r, u)
        i0 = np.floor(u).astype(np.intp)
        if loop:
            i0 %= frames
            i1 = (i0 + 1) % frames
        else:
            i0 = np.minimum(i0, frames - 1)
            i1 = np.minimum(i0 + 1, frames - 1)
        w = (u - np.floor(u)).astype(np.float32).ravel()
        a = self.local[i0.ravel()]
        b = self.local[i1.ravel()]
        return blend_joints(a, b, w, method=method).reshape(u.shape + self.local.shape[1:])

    def _sample_one(self, u: float, loop: bool, method: BlendMethod) -> Float32Array:
        """_sample_frames for one finite frame position, with Python floats: the same IEEE
        float64 operations (mod, clip, rint, snap, floor) and the same blend_joints call, so the
        same bits (tested against the array path); a pose (J, 8)."""
        frames = self.frames
        if loop:
            u = u % frames                              # np.mod's result: the divisor's sign
        else:
            u = min(max(u, 0.0), float(frames - 1))     # np.clip
        r = float(round(u))                             # np.round: ties to even
        if abs(u - r) <= _SNAP * max(1.0, abs(u)):
            u = r
        fl = math.copysign(float(math.floor(u)), u)     # np.floor keeps -0.0
        i0 = int(fl)
        if loop:
            i0 %= frames
            i1 = (i0 + 1) % frames
        else:
            i0 = min(i0, frames - 1)
            i1 = min(i0 + 1, frames - 1)
        w = np.float32(u - fl)
        return blend_joints(self.local[i0], self.local[i1], w, method=method)

    def sample(
        self, t: ArrayLike, *, loop: bool = False, method: BlendMethod = "fast"
    ) -> Float32Array:
        """The pose at time ``t`` (seconds; frame i is at ``i * frame_time``), interpolated
        between the two nearest frames: slerp of the rotations (``method`` as in
        :func:`blend_joints`), lerp of translation and scale.

        ``t`` is a number or an array of times: returns QTS poses ``t.shape + (J, 8)`` float32.
        Times before the first frame or after the last one are clamped to them; with
        ``loop=True`` the clip repeats with period ``frames * frame_time`` (the last frame
        blends into the first). A time within 1e-9 frames of a frame time gives that frame
        exactly.
        """
        if (type(t) in _ONE_TIME and self.frames and method in _SAMPLE_METHODS
                and (type(t) is not int or -_EXACT_INT < cast(int, t) < _EXACT_INT)):
            u = float(cast(float, t))   # one time (the per-frame call): the same steps on floats
            if math.isfinite(u) and abs(u) < _EXACT_INT:
                return self._sample_one(u / self.frame_time, bool(loop), method)
        t = _core._as_array(t, "t")
        if t.dtype.kind not in "biuf":
            raise TypeError(f"t: expected times in seconds (real numbers), got dtype {t.dtype}")
        t = t.astype(np.float64)
        if not np.isfinite(t).all():
            raise ValueError("t: expected finite times in seconds, got non-finite values")
        if self.frames == 0:
            raise ValueError("clip: expected at least one frame to sample, got an empty clip")
        _choice(method, "method", ("fast", "exact", "nlerp"))
        return self._sample_frames(t / self.frame_time, bool(loop), method)

    def resample(self, fps: float, *, method: BlendMethod = "fast") -> Self:
        """The clip at another frame rate, covering the same span: frames ``k = 0, 1, ...`` at
        ``k / fps`` seconds up to the time of the last frame, each sampled as :meth:`sample`
        does (slerp for rotations, lerp for translation and scale). Resampling at the clip's
        own rate gives its frames exactly. Returns a new clip (frame_time ``1 / fps``)."""
        fps = _positive_number(fps, "fps")
        _choice(method, "method", ("fast", "exact", "nlerp"))
        frame_time = 1.0 / fps
        if self.frames == 0:
            return self._with(self.local.copy(), frame_time)
        ratio = frame_time / self.frame_time            # old frames per new frame
        span = (self.frames - 1) / ratio
        if not span * len(self.skeleton) * 32 < sys.maxsize:
            raise ValueError(f"fps: {fps!r} makes about {span:.3g} frames of the clip's "
                             f"{self.duration:.6g} s, more than an array can hold")
        count = int(math.floor(span + _SNAP * max(1.0, span))) + 1
        u = np.arange(count, dtype=np.float64) * ratio
        return self._with(self._sample_frames(u, False, method), frame_time)

    def concatenate(self, *others: Self) -> Self:
        """This clip followed by ``others`` (clips of the same skeleton and frame time; resample
        first when the rates differ). Each appended clip's quaternions are put on the
        hemisphere of the frame before it (per joint, the whole clip negated where needed), so
        the result stays continuous. Root translations are kept as they are: use
        :meth:`root_motion` or ``crossfade(..., align=True)`` to join clips without a jump.
        Returns a new clip (a copy)."""
        for k, other in enumerate(others):
            _check_clip(other, f"others[{k}]")
            _check_compatible(self, other, f"others[{k}]")
        return self._with(self._joined([o.local for o in others]))

    def _joined(self, parts: Iterable[Float32Array]) -> Float32Array:
        """This clip's frames followed by those of `parts` (local arrays), each put on the
        hemisphere of the frame before it; a new array."""
        out = [self.local]
        last = self.local[-1] if self.frames else None
        for local in parts:
            if not len(local):
                continue
            if last is not None:
                local = _align_hemisphere(last, local)
            out.append(local)
            last = local[-1]
        return np.concatenate(out, axis=0)

    def crossfade(
        self,
        other: Self,
        frames: int,
        *,
        curve: Literal["smooth", "linear"] = "smooth",
        align: bool = False,
        method: BlendMethod = "fast",
    ) -> Self:
        """This clip blending into ``other`` over ``frames`` overlapping frames.

        The result has ``self.frames + other.frames - frames`` frames: this clip's frames up to
        the overlap, then ``blend_joints(self[-frames + k], other[k], w_k)`` for
        ``k = 0 .. frames - 1`` with ``w_k = k / (frames - 1)`` (``frames == 1``: 0.5),
        eased by ``curve`` (``"smooth"``: ``3 w^2 - 2 w^3``; ``"linear"``), then the rest of
        ``other``. The weights run from exactly 0 to exactly 1, so the result starts with this
        clip's frames and ends with ``other``'s (its quaternions negated per joint where they
        were on the other hemisphere; see the module docstring). ``frames=0`` concatenates.

        ``align=True`` first moves ``other`` on the ground (a turn about y and a shift in x and
        z, see :meth:`root_motion`) so that its root at its first frame stands where this
        clip's root stands at the start of the overlap; otherwise root translations blend as
        they are.
        """
        _check_clip(other, "other")
        _check_compatible(self, other, "other")
        n = _count(frames, "frames", 0, min(self.frames, other.frames),
                   f"the shorter clip has {min(self.frames, other.frames)} frames")
        _choice(curve, "curve", ("smooth", "linear"))
        _choice(method, "method", ("fast", "exact", "nlerp"))
        b = other.local
        if align and other.frames and self.frames:
            f = self.frames - max(n, 1)
            qa, ta = self._root_trajectory(slice(f, f + 1))
            qb, tb = other._root_trajectory(slice(0, 1))
            qi, ti = _inverse_ground(qb, tb)
            q = quat_mul(qa, qi)                            # T_a T_b^-1
            t = quat_rotate(qa, ti) + ta
            b = _apply_ground(b, other.skeleton.roots, np.repeat(q, other.frames, axis=0),
                              np.repeat(t, other.frames, axis=0))
        if n == 0:
            return self._with(self._joined([b]))
        b = _align_hemisphere(self.local[self.frames - n], b)
        w = np.array([0.5]) if n == 1 else np.arange(n) / (n - 1)
        if curve == "smooth":
            w = w * w * (3.0 - 2.0 * w)
        mixed = blend_joints(self.local[self.frames - n:], b[:n], w.astype(np.float32),
                             method=method)
        return self._with(np.concatenate([self.local[:self.frames - n], mixed, b[n:]], axis=0))

    def blend(self, other: Self, weight: ArrayLike, *, method: BlendMethod = "fast") -> Self:
        """This clip blended with ``other`` frame by frame: ``blend_joints(self.local,
        other.local, weight)`` (rotations by ``method``, see :func:`blend_joints`; translation
        and scale ``a + w (b - a)``). ``weight`` is a number in [0, 1] or one per frame
        ``(F,)``: 0 gives this clip's frames exactly, 1 ``other``'s. ``other`` has the same
        skeleton, frame time and frame count (resample or slice it first). Returns a new clip.

        Examples
        --------
        >>> import skelsimd
        >>> clip = skelsimd.data.load_example()
        >>> half = clip.blend(clip.mirror(), 0.5)
        >>> half.frames == clip.frames
        True
        """
        _check_clip(other, "other")
        _check_compatible(self, other, "other")
        if other.frames != self.frames:
            raise ValueError(f"other: expected a clip of {self.frames} frames like this clip, "
                             f"got {other.frames}; slice or resample it first")
        _choice(method, "method", ("fast", "exact", "nlerp"))
        w = _core._as_array(weight, "weight")
        if w.dtype.kind not in "biuf":
            raise TypeError(f"weight: expected a real number or one per frame, got dtype "
                            f"{w.dtype}")
        if w.ndim > 1 or (w.ndim == 1 and w.shape[0] != self.frames):
            raise ValueError(f"weight: expected a number or shape ({self.frames},) (one per "
                             f"frame), got shape {w.shape}")
        w = w.astype(np.float32)
        return self._with(blend_joints(self.local, other.local, w, method=method))

    def mirror(
        self, axis: Axis = "x", pairs: Iterable[tuple[int | str, int | str]] | None = None
    ) -> Self:
        """The clip mirrored through the plane normal to ``axis`` ("x", "y" or "z"; "x" is the
        side-to-side axis of most y-up captures), left and right swapped.

        ``pairs``: the left/right joint pairs, as ``(left, right)`` names or indices; by default
        they are found from the names (:func:`skelsimd.skeleton.mirror_pairs`: Left/Right,
        L/R, _l/_r, l/r prefixes, any case). The pairs must mirror the hierarchy (the parents
        of a pair are a pair or the same joint); ValueError otherwise.

        Every joint j takes the reflected local pose of its counterpart: ``M R M`` and ``M t``
        with ``M`` the reflection (exact sign flips of two quaternion components and one
        translation component); the skeleton's rest pose is mirrored the same way. So the
        global positions of the result are the reflected global positions of this clip with
        the pairs swapped, and mirroring twice gives this clip back bit for bit. Returns a new
        clip with a new skeleton (same names and parents, mirrored rest pose).
        """
        if not isinstance(axis, str):
            raise TypeError(f"axis: expected 'x', 'y' or 'z', got {type(axis).__name__}")
        if axis.lower() not in _AXES:
            raise ValueError(f"axis: expected 'x', 'y' or 'z', got {axis!r}")
        a = _AXES[axis.lower()]
        skel = self.skeleton
        sigma = _mirror_permutation(skel, pairs)
        local = _mirror_qts(self.local[:, sigma], a)
        rest = skel.rest
        if rest is not None:
            rest = _mirror_qts(rest[sigma], a) if rest.ndim == 2 else _mirror_matrices(rest[sigma], a)
        mirrored = Skeleton(skel.parents, skel.names, rest)
        return self._with(local, skeleton=mirrored)

    def transition(
        self,
        other: Self,
        *,
        halflife: float = 0.1,
        align: bool = True,
        feet: Sequence[tuple[int | str, int | str, int | str]] | None = None,
        contact_speed: float | None = None,
        contact_height: float | None = None,
        keep_contacts: bool | None = None,
    ) -> Self:
        """This clip, then ``other`` switched to without a pop by inertialization.

        The result has ``self.frames + other.frames`` frames. At the switch the offsets
        between this clip's pose one frame after its last (extrapolated at its last velocity)
        and ``other``'s first pose, and between their velocities, are added to ``other``'s
        frames and decay as critically damped springs with the given half-life (seconds; see
        :func:`skelsimd.inertialize_update`): the motion is continuous in value and velocity
        and reaches ``other``'s own poses after a few half-lives. ``align=True`` first moves
        ``other`` on the ground (a turn about y and a shift, see :meth:`root_motion`) so that it
        starts where this clip's root would be one frame after its end. Scale is not blended.

        Foot contacts: the offsets move the whole body for a few half-lives, so a foot planted
        across the switch slides. With ``feet`` (one ``(hip, knee, ankle)`` triple per leg, as
        :func:`skelsimd.plant_feet` takes) and ``keep_contacts`` (default: True when ``feet``
        are given), the contacts are labelled on both clips (:meth:`contacts` with
        ``contact_speed`` and ``contact_height``, required speed) and the feet are held planted
        during the contacts around the switch by two-bone IK on the legs; frames away from the
        switch are unchanged.
        """
        _check_clip(other, "other")
        _check_compatible(self, other, "other")
        halflife = _positive_number(halflife, "halflife")
        if self.frames < 2 or other.frames < 2:
            raise ValueError(f"other: expected both clips to have at least 2 frames, got "
                             f"{self.frames} and {other.frames}")
        local = other.local
        if align:
            qa, ta = self._root_trajectory(slice(self.frames - 2, self.frames))
            qb, tb = other._root_trajectory(slice(0, 1))
            qs, ts = _inverse_ground(qa[:1], ta[:1])       # one step of this clip's root motion
            dq = quat_mul(qs, qa[1:])
            dtr = quat_rotate(qs, ta[1:]) + ts
            q_next = quat_mul(qa[1:], dq)
            t_next = quat_rotate(qa[1:], dtr) + ta[1:]
            qi, ti = _inverse_ground(qb, tb)
            q = quat_mul(q_next, qi)
            t = quat_rotate(q_next, ti) + t_next
            local = _apply_ground(local, other.skeleton.roots, np.repeat(q, other.frames, axis=0),
                                  np.repeat(t, other.frames, axis=0))
        if keep_contacts is None:
            keep_contacts = feet is not None
        if keep_contacts and (feet is None or contact_speed is None):
            raise ValueError("contact_speed: expected feet and a contact speed (clip units per "
                             "second) to keep the contacts, got "
                             f"feet={feet!r}, contact_speed={contact_speed!r}")
        out = _inertialize_stream(self.local[-2], self.local[-1], local, self.frame_time,
                                  other.frame_time, halflife)
        joined = self._with(np.concatenate([self.local, out], axis=0))
        if keep_contacts:
            assert feet is not None and contact_speed is not None
            return _plant_transition(self, self._with(local), joined, feet, contact_speed,
                                     contact_height, halflife)
        return joined

    def _root_trajectory(self, frames: slice = slice(None), joint: int | str | None = None,
                         heading: bool = True) -> tuple[_F64, _F64]:
        j = self.skeleton.roots[0] if joint is None else self.skeleton.index(joint)
        local = self.local[frames]
        if self.skeleton.parents[j] < 0:
            g = local[:, j].astype(np.float64)
        else:
            chain = np.concatenate([self.skeleton.ancestors(j)[::-1], [j]])
            sub_parents = np.arange(-1, len(chain) - 1)
            g = qts_local_to_global(local[:, chain], sub_parents,
                                    precision="float64")[:, -1].astype(np.float64)
        gq = g[:, :4] / np.maximum(np.linalg.norm(g[:, :4], axis=1, keepdims=True), 1e-300)
        return _ground_trajectory(gq, g[:, 4:7], heading)

    def root_motion(
        self, joint: int | str | None = None, *, heading: bool = True
    ) -> tuple[Float32Array, Self]:
        """Split the clip into its root motion on the ground and an in-place clip (y up).

        Parameters
        ----------
        joint : str or int, optional
            The joint whose motion is the character's (default: the first root, the hips of a
            BVH file; give the hips when the file has a static reference root above them).
        heading : bool, default True
            Also take out the turning: the yaw of the joint's global rotation, its twist about
            y (swing-twist decomposition; where the rotation is a half turn about a level axis
            the previous frame's heading is kept). False: translation only.

        Returns
        -------
        trajectory : ndarray, float32 (F, 8)
            Per frame, the ground transform as a QTS joint ``(0, qy, 0, qw, x, 0, z, 1)``: the
            joint's global position with y set to 0, and its heading (a rotation about y,
            continuous across frames; the identity with ``heading=False``).
        in_place : Clip
            The clip with every root joint's local pose mapped by the inverse trajectory
            (``T^-1 @ root``), so every global pose is ``T[f]^-1 @ global[f]``: the joint stays
            above the origin (x = z = 0 at its height) facing its rest heading. The original
            global poses are ``trajectory[f] @ in_place`` (e.g.
            ``qts_local_to_global`` with the trajectory as an extra root above the roots).
        """
        q, t = self._root_trajectory(slice(None), joint, bool(heading))
        in_place = _remove_ground(self.local, self.skeleton.roots, q, t)
        trajectory = np.zeros((self.frames, 8), np.float32)
        trajectory[:, :4] = q
        trajectory[:, 4:7] = t
        trajectory[:, 7] = 1.0
        return trajectory, self._with(in_place)

    @overload
    def contacts(self, joints: int | str, speed: float, height: float | None = None, *,
                 min_gap: float = 0.05, min_contact: float = 0.05) -> Track: ...
    @overload
    def contacts(self, joints: list[int | str] | tuple[int | str, ...] | NDArray[np.integer[Any]],
                 speed: float,
                 height: float | None = None, *, min_gap: float = 0.05,
                 min_contact: float = 0.05) -> list[Track]: ...
    def contacts(
        self,
        joints: int | str | list[int | str] | tuple[int | str, ...] | NDArray[np.integer[Any]],
        speed: float,
        height: float | None = None,
        *,
        min_gap: float = 0.05,
        min_contact: float = 0.05,
    ) -> Track | list[Track]:
        """Label the contacts of joints with the ground (feet) as step tracks.

        A joint is in contact on a frame when the speed of its global position (central
        differences over the neighbouring frames, in the clip's units per second) is below
        ``speed`` and, when ``height`` is given, its height (y, as root_motion) is below
        ``height``. The labels are then filtered: gaps shorter than ``min_gap`` seconds between
        two contacts are closed (a foot that slows for a frame, a marker's jitter), then
        contacts shorter than ``min_contact`` seconds are dropped (a swinging foot passing
        through zero speed).

        Parameters
        ----------
        joints : str, int or sequence of them
            The joints (by name or index), e.g. ``["LeftToeBase", "RightToeBase"]``.
        speed : float
            Speed threshold in the clip's units per second (the CMU clips: 15 to 20 for the
            toes and ankles).
        height : float, optional
            Height threshold in the clip's units.
        min_gap, min_contact : float, default 0.05
            Seconds (rounded to whole frames).

        Returns
        -------
        Track or list of Track
            One step :class:`skelsimd.Track` per joint (a list when ``joints`` is a sequence):
            1.0 in contact and 0.0 otherwise, keyed where the label changes, from time 0 to the
            last frame's. ``track.triggers(t0, t1, 0.5)`` gives the footsteps (rising edges:
            the foot lands) and lift-offs (falling edges) between ``t0`` and ``t1``.

        Examples
        --------
        >>> import skelsimd
        >>> clip = skelsimd.data.load_example()
        >>> left = clip.contacts("LeftToe", speed=15.0)
        >>> times, directions = left.triggers(0.0, clip.duration, 0.5)
        """
        single = isinstance(joints, (str, int, np.integer))
        chosen = [joints] if isinstance(joints, (str, int, np.integer)) else list(joints)
        idx = [self.skeleton.index(j) for j in chosen]
        if self.frames == 0:
            raise ValueError("contacts: expected a clip of at least one frame (a track has at "
                             "least one key), got an empty clip")
        speed_ = _number(speed, "speed", kind="a number")
        height_ = None if height is None else _number(height, "height", kind="a number")
        frames = {}
        for name, value in (("min_gap", min_gap), ("min_contact", min_contact)):
            seconds = _number(value, name, _non_negative, "a non-negative number of seconds",
                              "a number of seconds")
            frames[name] = _seconds_to_frames(seconds, self.frame_time, self.frames + 1)
        stop = max(idx) + 1         # the joints up to the last chosen: their parents come first
        positions = qts_local_to_global_matrix(self.local[:, :stop], self.skeleton.parents[:stop]
                                               )[:, idx][..., 3]
        labels = contact_labels(positions, self.frame_time, speed_, height_,
                                min_gap=frames["min_gap"], min_contact=frames["min_contact"])
        tracks = [step_track(row, self.frame_time) for row in labels]
        return tracks[0] if single else tracks

    # --- pictures (skelsimd.plotting, imported when called: it needs matplotlib) ---------------

    @overload
    def plot(self, frame: int = 0, ax: None = None, *, view: _View | None = None,
             color: Any = "tab:blue") -> Figure: ...
    @overload
    def plot(self, frame: int, ax: Axes, *, view: _View | None = None,
             color: Any = "tab:blue") -> Axes: ...
    def plot(
        self, frame: int = 0, ax: Axes | None = None, *, view: _View | None = None,
        color: Any = "tab:blue"
    ) -> Figure | Axes:
        """A stick figure of one frame; see :func:`skelsimd.plotting.plot_clip`."""
        from .plotting import plot_clip
        return plot_clip(self, frame, ax, view=view, color=color)

    def animate(
        self,
        *,
        views: _FlatView | Sequence[_FlatView] = ("front", "side"),
        frames: slice | None = None,
        fps: float | None = None,
        color: Any = "tab:blue",
        dpi: float = 80,
        size: float = 3.2,
    ) -> ClipAnimation:
        """A matplotlib animation that plays inline in Jupyter; see
        :func:`skelsimd.plotting.animate_clip`."""
        from .plotting import animate_clip
        return animate_clip(self, views=views, frames=frames, fps=fps, color=color, dpi=dpi,
                            size=size)

    def _repr_html_(self) -> str:
        from .plotting import clip_html
        return clip_html(self)


fill_docstrings(globals())
