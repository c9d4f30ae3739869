"""Foot planting: keep a clip's feet still on the ground while they are in contact, with two-bone
IK on the legs (the foot-IK step of an animation runtime, applied offline to a whole clip).

Method
------
For each leg ``(hip, knee, ankle)``:

1. The contacts come from :meth:`skelsimd.Clip.contacts` (or are given as step tracks), sampled
   at the frame times: runs of contact frames are the *intervals*.
2. Each interval gets a *lock*: the ankle's global position at the interval's first frame
   (``lock="start"``: no jump when the foot lands) or its mean over the interval
   (``lock="mean"``: the smallest total correction).
3. A weight per frame is 1 inside the interval and ramps down to 0 over ``blend`` seconds on each
   side (a smoothstep), so the foot eases onto its lock and off it instead of popping. The ankle's
   target is ``p + w (lock - p)`` (``p`` its position in the clip). A ramp is at most half the
   gap to the neighbouring contact, so ramps never overlap.
4. Frames with a positive weight are solved in one batched :meth:`skelsimd.Skeleton.two_bone`
   call. The pole vector is the knee's offset from the hip-ankle line in the clip itself (the knee
   keeps pointing where it pointed), the knee's hinge axis (``mid_axis``) the clip's own: the
   normal of the thigh-shin plane on that frame in the knee's space (the mean over the frames
   where the leg is nearly straight). A fixed axis would miss the target where the knee's
   plane turns about it (a BVH knee has three rotation channels).
5. With ``keep_orientation`` (the default) the ankle's local rotation is then recomputed so that
   the foot keeps its global orientation from the clip (heel and toe roll are kept; only the
   leg's hip and knee rotations and the ankle's compensation change).

Frames outside every interval and ramp are returned unchanged, bit for bit; only the rotations of
the hip, knee and ankle joints change, so bone lengths are those of the clip. A lock out of the
leg's reach gives the straight leg pointing at it (``reached`` false; :func:`plant_feet` with
``return_reached=True`` reports it per frame).

:func:`foot_sliding` measures what this fixes: the horizontal displacement of a joint between
consecutive frames of the same contact interval.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Protocol, Sequence, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

from ._validate import number as _number
from ._validate import seconds_to_frames as _seconds_to_frames
from .ik import two_bone
from .qts import qts_local_to_global, qts_local_to_global_matrix
from .quat import quat_conjugate, quat_multiply
from .skeleton import Skeleton
from .track import Track

if TYPE_CHECKING:
    from ._typing import Float32Array, Precision


class PlantableClip(Protocol):
    """What foot planting reads of a clip (a :class:`skelsimd.Clip` is one). The clips are taken
    by what they have, so that :meth:`skelsimd.Clip.transition` can plant feet with this module
    while this module imports no clip type."""

    @property
    def skeleton(self) -> Skeleton: ...

    @property
    def local(self) -> Float32Array: ...

    @property
    def frame_time(self) -> float: ...

    @property
    def frames(self) -> int: ...

    def contacts(self, joints: Any, speed: float, height: Optional[float] = None) -> Any: ...

    def global_matrices(self) -> Float32Array: ...

    def global_positions(self, *, precision: Precision = ...) -> Float32Array: ...

    def _with(self: ClipT, local: npt.ArrayLike) -> ClipT: ...


ClipT = TypeVar("ClipT", bound=PlantableClip)

__all__ = ["plant_feet", "foot_sliding", "contact_intervals", "plant_leg"]

JointRef = Union[int, str]


def _is_clip(obj: object) -> bool:
    """A :class:`skelsimd.Clip`, by the members plant_feet uses (this module does not import
    the model type)."""
    return all(hasattr(obj, name) for name in ("skeleton", "local", "frame_time", "contacts",
                                                "global_matrices", "_with"))


def _labels(clip: PlantableClip, contact: Union[Track, npt.ArrayLike], name: str) -> np.ndarray:
    """Per-frame bool labels from a step track (sampled at the frame times) or an array (F,)."""
    if isinstance(contact, Track):
        times = np.arange(clip.frames) * float(clip.frame_time)
        values = np.asarray(contact.sample(times))
        if values.shape != (clip.frames,):
            raise ValueError(f"{name}: expected a scalar track, got samples of shape {values.shape}")
        return values > 0.5
    a = np.asarray(contact)
    if a.shape != (clip.frames,):
        raise ValueError(f"{name}: expected a Track or labels of shape ({clip.frames},), "
                         f"got shape {a.shape}")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected numeric or bool labels, got dtype {a.dtype}")
    return a > 0.5 if a.dtype.kind == "f" else a.astype(bool)


def contact_intervals(labels: npt.ArrayLike) -> List[Tuple[int, int]]:
    """The runs of True in per-frame contact labels, as ``[(start, stop), ...]`` frame ranges.

    Examples
    --------
    >>> from skelsimd.footplant import contact_intervals
    >>> contact_intervals([0, 1, 1, 0, 0, 1])
    [(1, 3), (5, 6)]
    """
    c = np.asarray(labels).astype(bool).ravel()
    edges = np.flatnonzero(np.diff(np.r_[0, c.astype(np.int8), 0]))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


def _weights(frames: int, intervals: Sequence[Tuple[int, int]], ramp: int
             ) -> Tuple[np.ndarray, np.ndarray]:
    """Per-frame weight (F,) and the index of the interval it belongs to (-1 for none). Each
    side's ramp is at most ``ramp`` frames and at most half the gap to the neighbouring
    interval, so ramps never overlap (a frame between two contacts eases off one lock and onto
    the next instead of jumping between them)."""
    w = np.zeros(frames)
    owner = np.full(frames, -1)
    if not len(intervals):
        return w, owner
    iv = np.asarray(intervals, dtype=np.intp).reshape(-1, 2)
    a, b = iv[:, 0], iv[:, 1]
    half = np.minimum(ramp, (a[1:] - b[:-1]) // 2)
    before, after = np.r_[ramp, half], np.r_[half, ramp]    # each side's ramp, in frames
    f = np.arange(frames)
    k = np.searchsorted(a, f, side="right") - 1              # the last interval started by f
    kk = np.maximum(k, 0)
    inside = (k >= 0) & (f < b[kk])
    d_after = f - b[kk] + 1                                  # frames after its last frame
    on_after = ~inside & (k >= 0) & (d_after <= after[kk])
    nxt = np.minimum(k + 1, len(a) - 1)
    d_before = a[nxt] - f                                    # frames before the next one
    on_before = ~inside & ~on_after & (k + 1 < len(a)) & (d_before <= before[nxt])

    def shape(d: np.ndarray, n: np.ndarray) -> np.ndarray:
        u = 1.0 - d / (n + 1.0)
        return u * u * (3.0 - 2.0 * u)                # smoothstep, 0 < w < 1, decreasing in d

    w[inside] = 1.0
    owner[inside] = k[inside]
    w[on_after] = shape(d_after[on_after], after[kk[on_after]])
    owner[on_after] = k[on_after]
    w[on_before] = shape(d_before[on_before], before[nxt[on_before]])
    owner[on_before] = nxt[on_before]
    return w, owner


def _hinge_axis(g: np.ndarray, hip: int, knee: int, ankle: int) -> np.ndarray:
    """The knee's bending axis in its own space per frame (F, 3): the normal of the thigh-shin
    plane rotated into the knee's frame; where the leg is nearly straight (the normal's sine
    under 0.05), the mean over the frames (straight-leg frames weigh little)."""
    thigh = (g[:, knee, :, 3] - g[:, hip, :, 3]).astype(np.float64)
    shin = (g[:, ankle, :, 3] - g[:, knee, :, 3]).astype(np.float64)
    n = np.cross(thigh, shin)
    local = np.einsum("fji,fj->fi", g[:, knee, :, :3].astype(np.float64), n)   # R^T n
    mean = local.sum(axis=0)
    norm = np.linalg.norm(mean)
    mean = mean / norm if norm > 0 else np.array([1.0, 0.0, 0.0])
    size = np.linalg.norm(local, axis=-1, keepdims=True)
    sine = size / np.maximum(np.linalg.norm(thigh, axis=-1, keepdims=True)
                             * np.linalg.norm(shin, axis=-1, keepdims=True), 1e-30)
    return np.where(sine > 0.05, local / np.maximum(size, 1e-30), mean)


def _non_negative(v: float) -> bool:
    return v >= 0


def plant_feet(clip: ClipT, feet: Sequence[Tuple[JointRef, JointRef, JointRef]],
               contacts: Optional[Sequence[Union[Track, npt.ArrayLike]]] = None, *,
               speed: Optional[float] = None, height: Optional[float] = None, lock: str = "start",
               blend: float = 0.1, soften: float = 1.0, keep_orientation: bool = True,
               return_reached: bool = False) -> Union[ClipT, Tuple[ClipT, np.ndarray]]:
    """Keep the feet of a clip still during their ground contacts with two-bone IK on the legs.

    Parameters
    ----------
    clip : Clip
    feet : sequence of (hip, knee, ankle)
        One joint triple per leg (names or indices), each an ancestor of the next.
    contacts : sequence of Track or of (F,) labels, optional
        One per leg (step tracks from :meth:`Clip.contacts`, or per-frame labels). Default:
        ``clip.contacts(ankles, speed, height)``.
    speed, height : float, optional
        Thresholds of :meth:`Clip.contacts` when ``contacts`` is None (clip units per second,
        clip units); ``speed`` is then required.
    lock : {"start", "mean"}
        The ankle position held during a contact: at its first frame, or the interval's mean.
    blend : float >= 0, default 0.1
        Seconds of the weight ramp on each side of a contact (rounded to whole frames; at most
        half the gap to the neighbouring contact).
    soften : float in (0, 1]
        As :func:`skelsimd.ik_two_bone` (1: no softening).
    keep_orientation : bool
        Keep each ankle's global rotation from the clip (the foot's roll), default True.
    return_reached : bool
        Also return ``reached`` (bool, (F, len(feet))): False where a leg could not reach its
        target; True on frames that were not solved.

    Returns
    -------
    Clip (and the reached flags)
        A new clip; frames outside the contacts and their ramps are unchanged.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> legs = [("LeftHip", "LeftKnee", "LeftAnkle"), ("RightHip", "RightKnee", "RightAnkle")]
    >>> tracks = clip.contacts(["LeftAnkle", "RightAnkle"], speed=8.0)
    >>> planted = skelsimd.plant_feet(clip, legs, tracks)
    >>> before = skelsimd.foot_sliding(clip, "LeftAnkle", tracks[0])
    >>> after = skelsimd.foot_sliding(planted, "LeftAnkle", tracks[0])
    >>> bool(after.max() < 0.02 * before.max())
    True
    """
    if not _is_clip(clip):
        raise TypeError(f"clip: expected a skelsimd.Clip, got {type(clip).__name__}")
    if lock not in ("start", "mean"):
        raise ValueError(f"lock: expected 'start' or 'mean', got {lock!r}")
    blend = _number(blend, "blend", _non_negative, "a non-negative number of seconds",
                    "a number of seconds")
    skel = clip.skeleton
    legs: List[Tuple[int, int, int]] = []
    for i, leg in enumerate(feet):
        if isinstance(leg, (str, bytes)) or len(leg) != 3:
            raise ValueError(f"feet[{i}]: expected a (hip, knee, ankle) triple, got {leg!r}")
        hip, knee, ankle = (int(skel.index(j)) for j in leg)
        legs.append((hip, knee, ankle))
    if contacts is None:
        if speed is None:
            raise ValueError("speed: expected a number (clip units per second) to detect the "
                             "contacts when contacts is None, got None")
        tracks = clip.contacts([chain[2] for chain in legs], speed=speed, height=height)
        labels = [_labels(clip, t, f"contacts[{i}]") for i, t in enumerate(tracks)]
    else:
        contacts = list(contacts)
        if len(contacts) != len(legs):
            raise ValueError(f"contacts: expected one per leg ({len(legs)}), got {len(contacts)}")
        labels = [_labels(clip, t, f"contacts[{i}]") for i, t in enumerate(contacts)]
    ramp = _seconds_to_frames(blend, clip.frame_time, clip.frames + 1)

    local = np.array(clip.local, dtype=np.float32, copy=True)
    reached = np.ones((clip.frames, len(legs)), dtype=bool)
    g = clip.global_matrices()
    for leg_i, (chain, c) in enumerate(zip(legs, labels)):
        intervals = contact_intervals(c)
        if not intervals:
            continue
        p = g[:, chain[2], :, 3].astype(np.float64)
        if lock == "start":
            locks = np.array([p[a] for a, _ in intervals])
        else:
            locks = np.array([p[a:b].mean(axis=0) for a, b in intervals])
        local, reached[:, leg_i] = plant_leg(skel, local, chain, intervals, locks, ramp,
                                             soften=soften, keep_orientation=keep_orientation,
                                             global_matrices=g)
    out = clip._with(local)
    return (out, reached) if return_reached else out


def plant_leg(skel: Skeleton, local: np.ndarray, leg: Tuple[int, int, int],
              intervals: Sequence[Tuple[int, int]], locks: np.ndarray, ramp: int, *,
              soften: float = 1.0, keep_orientation: bool = True,
              global_matrices: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    """Steps 3 to 5 of the method for one leg ``(hip, knee, ankle)`` (joint indices): the ankle
    held at ``locks[i]`` (global positions, one per contact interval) during each interval of
    ``local`` (F, J, 8), eased in and out over ``ramp`` frames. Returns the poses (``local``,
    changed in place) and the reached flags (F,) (True on frames not solved).
    ``global_matrices`` are ``local``'s (computed when not given)."""
    hip, knee, ankle = leg
    g = qts_local_to_global_matrix(local, skel) if global_matrices is None else global_matrices
    reached = np.ones(len(local), dtype=bool)
    p = g[:, ankle, :, 3].astype(np.float64)
    w, owner = _weights(len(local), intervals, ramp)
    frames = np.flatnonzero(w > 0)
    if frames.size == 0:
        return local, reached
    wf = w[frames, None]
    target = p[frames] + wf * (np.asarray(locks, dtype=np.float64)[owner[frames]] - p[frames])
    # pole: the knee's offset from the hip-ankle line, in the clip
    h, k = g[frames, hip, :, 3].astype(np.float64), g[frames, knee, :, 3].astype(np.float64)
    line = p[frames] - h
    line /= np.maximum(np.linalg.norm(line, axis=-1, keepdims=True), 1e-12)
    pole = (k - h) - np.sum((k - h) * line, axis=-1, keepdims=True) * line
    axis = _hinge_axis(g, hip, knee, ankle)[frames]
    solved, ok = two_bone(skel, local[frames], (hip, knee, ankle), target.astype(np.float32),
                          pole=pole.astype(np.float32), mid_axis=axis.astype(np.float32),
                          soften=soften, return_reached=True)
    if keep_orientation:
        parent = int(skel.parents[ankle])
        new_parent = qts_local_to_global(solved, skel, stop=parent + 1)[:, parent, :4]
        old_ankle = qts_local_to_global(local[frames], skel, stop=ankle + 1)[:, ankle, :4]
        solved[:, ankle, :4] = quat_multiply(quat_conjugate(new_parent), old_ankle)
    local[frames] = solved
    reached[frames] = ok
    return local, reached


def foot_sliding(clip: PlantableClip, joint: JointRef, contact: Union[Track, npt.ArrayLike], *,
                 up: int = 1) -> np.ndarray:
    """The horizontal displacement of a joint between consecutive frames of the same contact.

    Parameters
    ----------
    clip : Clip
    joint : str or int
        A joint name or index.
    contact : Track or (F,) labels
        The contacts (a step track from :meth:`Clip.contacts`, or per-frame labels).
    up : int
        The vertical axis (the other two are horizontal), default 1 (y).

    Returns
    -------
    ndarray, float64 (N,)
        One distance (clip units) per pair of consecutive frames both in the same contact;
        ``mean()`` and ``max()`` are the usual sliding figures.

    Examples
    --------
    >>> import numpy as np, skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> slide = skelsimd.foot_sliding(clip, "LeftAnkle", clip.contacts("LeftAnkle", 15.0))
    >>> bool(slide.mean() > 0)
    True
    """
    j = int(clip.skeleton.index(joint))
    c = _labels(clip, contact, "contact")
    p = clip.global_positions(precision="float64")[:, j].astype(np.float64)
    horizontal = [i for i in range(3) if i != up]
    d = np.linalg.norm(np.diff(p[:, horizontal], axis=0), axis=-1)
    out: np.ndarray = d[c[1:] & c[:-1]]
    return out


def _plant_transition(first: PlantableClip, second: PlantableClip, joined: ClipT,
                      feet: Sequence[Tuple[JointRef, JointRef, JointRef]], speed: float,
                      height: Optional[float], halflife: float, blend: float = 0.1) -> ClipT:
    """``joined`` (``first`` then ``second`` switched to by inertialization, see
    :meth:`Clip.transition`) with the feet kept planted during the contacts around the switch.

    The contacts are labelled on ``first`` and on ``second`` (as aligned) separately, where
    their motion is their own, and joined. The offsets of the switch slide the feet during the
    contacts of the next few half-lives; :func:`plant_feet` holds each foot at its position at
    the start of each of its contacts that overlap the frames from the switch to ten half-lives
    after it. Other contacts are left alone, so frames outside those contacts and their weight
    ramps are unchanged."""
    span = (first.frames - 1, first.frames + int(np.ceil(10 * halflife / joined.frame_time)))
    out = joined
    for i, leg in enumerate(feet):
        j = int(joined.skeleton.index(leg[2]))
        c = np.concatenate([_labels(first, first.contacts(j, speed=speed, height=height),
                                    f"contacts[{i}]"),
                            _labels(second, second.contacts(j, speed=speed, height=height),
                                    f"contacts[{i}]")])
        keep = np.zeros_like(c)
        for a, b in contact_intervals(c):
            if a < span[1] and b > span[0]:
                keep[a:b] = True
        if keep.any():
            planted = plant_feet(out, [leg], [keep], blend=blend)
            assert not isinstance(planted, tuple)
            out = planted
    return out
