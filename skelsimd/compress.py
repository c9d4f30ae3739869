"""Animation-clip compression with variable bit rates, and the object-space error it bounds.

``compress(clip)`` turns a clip of QTS local poses into a :class:`CompressedClip` whose
decompressed poses are within ``precision`` of the raw ones in object space, on every frame
and joint; ``clip_error(raw, decoded, skeleton)`` measures that error.

The error (ACL's metric, measured in float64)
---------------------------------------------
For every frame and joint, the raw and the decoded local poses are carried to object space by
the QTS walk (``qts_local_to_global``: ``q = q_P q_L``, ``t = t_P + s_P R(q_P) t_L``,
``s = s_P s_L``, rotations as ``q / |q|``), and three virtual vertices at ``shell_distance``
along the joint's local x, y and z axes are placed by both: the error is the largest distance
between a raw vertex and its decoded twin. A local error therefore counts with its whole lever
arm: a small rotation error at the hips moves every vertex of the body.

The bound is strict: ``clip_error(raw, c.decompress(), skeleton) <= precision`` on every frame
and joint. The compressor measures every candidate with exactly the decoder's float32
arithmetic and this float64 error, aims at ``precision * (1 - 2**-20)``, and finally decodes the
whole compressed clip with the decoder and measures it frame by frame (raising the bit rates of
any segment over the target, which the search never leaves; ``stats["max_error"]`` is that
final measurement, equal to what ``clip_error`` reports).

The method (see README "Animation-clip compression" for the format and the figures)
----------------------------------------------------------------------------------------
* Tracks (rotation, translation, scale of each joint) equal to the identity / zero / one on
  every frame are *default* (nothing stored); tracks equal on every frame, or that one value
  can stand for within half the error budget, are *constant* (one float32 value each); the
  others are *animated*.
* Range reduction per clip (float32 min and extent per component) and per segment of
  ``segment_length`` frames (8-bit min and extent within the clip range).
* A rotation stores three quaternion components per segment: the fourth, the one farthest from
  zero in that segment, is rebuilt from them (no precision loss near 180 degrees).
* Variable bit rate per component per segment (0 to 24 bits), searched in C with the GIL
  released: all non-root tracks lowered in lock step (roots at 24 bits), then each track alone
  from the leaves up, then each component alone; every trial re-walks only the subtree it
  changes.
* Sampling: the two keys around ``t`` are decoded and interpolated (nlerp on the shortest arc
  for rotations, linear for translation and scale); at a raw frame time the key itself.
"""
from __future__ import annotations
import struct
import zlib

import numpy as np

from . import _core
from ._validate import real as _real
from .clip import Clip
from .skeleton import Skeleton
from .clip import Clip
from .skeleton import Skeleton
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from typing import Any, Literal
    from numpy.typing import ArrayLike
    from typing_extensions import Self
    from ._typing import BoolArray, Float64Array

__all__ = ["compress", "clip_error", "CompressedClip"]

_MAGIC = b"SKSCLIP\x00"
_VERSION = 1


def _as_skeleton(skeleton: Skeleton | ArrayLike | None, joints: int | None) -> Skeleton:
    """A Skeleton for `skeleton` (a Skeleton or a parents array)."""
    if skeleton is None:
        raise TypeError("skeleton: expected a Skeleton or a parents array (required with QTS "
                        "poses; a Clip carries its own)")
    if not isinstance(skeleton, Skeleton):
        skeleton = Skeleton(skeleton)
    if joints is not None and len(skeleton) != joints:
        raise ValueError(f"skeleton: expected {joints} joints (local.shape[1]), got "
                         f"{len(skeleton)}")
    return skeleton


def compress(
    clip_or_local: Clip | ArrayLike,
    skeleton: Skeleton | ArrayLike | None = None,
    *,
    sample_rate: float | None = None,
    precision: float = 0.01,
    shell_distance: float = 3.0,
    segment_length: int = 16,
) -> "CompressedClip":
    """Compress a clip; every decompressed frame is within ``precision`` of the raw clip.

    Parameters
    ----------
    clip_or_local : Clip or array_like (F, J, 8)
        A :class:`~skelsimd.Clip` (its skeleton and frame rate are used), or QTS local poses
        ``(qx, qy, qz, qw, tx, ty, tz, s)`` with ``skeleton`` and ``sample_rate``. Quaternions
        need not be unit (they are normalised: ``q / |q|``, zero as the identity) nor
        continuous; every value must be finite.
    skeleton : Skeleton or array_like of int (J,), optional
        Required with poses; with a Clip it must be None or the clip's own skeleton.
    sample_rate : float, optional
        Frames per second (required with poses; with a Clip, overrides ``clip.fps``).
    precision : float, default 0.01
        The largest object-space error allowed, in the clip's units (see ``clip_error``).
    shell_distance : float, default 3.0
        Distance of the virtual vertices from each joint, in the clip's units (>= 0).
    segment_length : int, default 16
        Frames per segment (1 to 1024); the last segment takes the remainder (up to
        ``2 * segment_length - 1`` frames).

    Returns
    -------
    CompressedClip

    Raises
    ------
    TypeError, ValueError
        Bad arguments (naming the argument); a precision below what float32 can reproduce for
        this clip (the message gives the error the highest bit rates reach).

    Examples
    --------
    >>> import skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> packed = skelsimd.compress(clip, precision=0.01)
    >>> packed.num_frames, packed.num_joints, packed.ratio > 5
    (240, 31, True)
    """
    local: ArrayLike
    if isinstance(clip_or_local, Clip):
        clip = clip_or_local
        if skeleton is not None and skeleton is not clip.skeleton:
            raise ValueError("skeleton: a Clip carries its own skeleton; pass skeleton=None")
        skeleton = clip.skeleton
        local = clip.local
        if sample_rate is None:
            sample_rate = clip.fps
    else:
        local = clip_or_local
        if sample_rate is None:
            raise TypeError("sample_rate: expected the frames per second (required with QTS "
                            "poses; a Clip carries its own)")
        shape = np.shape(local)
        skeleton = _as_skeleton(skeleton, shape[1] if len(shape) == 3 else None)
    if isinstance(segment_length, (bool, np.bool_)) or not isinstance(segment_length,
                                                                       (int, np.integer)):
        raise TypeError(f"segment_length: expected an int, got {type(segment_length).__name__}")
    data, max_error, repaired = _core._compress(local, skeleton, sample_rate, precision,
                                                shell_distance, int(segment_length))
    return CompressedClip(data, skeleton, precision=float(precision),
                          shell_distance=float(shell_distance), max_error=max_error,
                          repaired_segments=repaired,
                          end_site=clip_or_local.end_site if isinstance(clip_or_local, Clip) else None)


@overload
def clip_error(raw_local: ArrayLike, decoded_local: ArrayLike, skeleton: Skeleton | ArrayLike, *,
               shell_distance: float = 3.0, per_joint: Literal[False] = False) -> float: ...
@overload
def clip_error(raw_local: ArrayLike, decoded_local: ArrayLike, skeleton: Skeleton | ArrayLike, *,
               shell_distance: float = 3.0, per_joint: Literal[True]) -> Float64Array: ...
def clip_error(
    raw_local: ArrayLike,
    decoded_local: ArrayLike,
    skeleton: Skeleton | ArrayLike,
    *,
    shell_distance: float = 3.0,
    per_joint: bool = False,
) -> float | Float64Array:
    """The object-space error between two clips of QTS local poses (float64 arithmetic).

    For every pose and joint: the raw and the decoded poses through the QTS walk, the three
    virtual vertices at ``shell_distance`` along the joint's local x, y and z axes, and the
    largest distance between a raw vertex and its decoded twin (see the module docstring).

    Parameters
    ----------
    raw_local, decoded_local : array_like (..., J, 8)
        QTS local poses of the same shape (any real dtype; used in float64 as given).
    skeleton : Skeleton or array_like of int (J,)
    shell_distance : float, default 3.0
    per_joint : bool, default False
        Return the largest error of each joint, ``(J,)`` float64, instead of the overall one.

    Returns
    -------
    float, or ndarray of float64 (J,)
        NaN when a NaN took part.

    Examples
    --------
    >>> import skelsimd
    >>> clip = skelsimd.data.load_example()
    >>> packed = skelsimd.compress(clip, precision=0.01)
    >>> skelsimd.clip_error(clip.local, packed.decompress(), clip.skeleton) <= 0.01
    True
    """
    error: float | Float64Array = _core.clip_error(raw_local, decoded_local, skeleton,
                                                   shell_distance, per_joint)
    return error


class CompressedClip(_core.CompressedClipBase):
    """A compressed animation clip: the bytes and a decoder for any time.

    Made by :func:`compress` or :meth:`from_bytes`; pickles (through ``to_bytes``).

    Attributes
    ----------
    skeleton : Skeleton
    nbytes : int
        Size of the compressed animation data: everything needed to sample a local pose
        except joint names and hierarchy (the header with the track kinds, constants and
        ranges, the segment table and the segments).
    ratio : float
        ``num_frames * num_joints * 40 / nbytes`` (ACL's convention: 10 floats per joint per
        frame raw).
    num_frames, num_joints : int
    sample_rate : float
        Frames per second.
    duration : float
        Time of the last frame, ``(num_frames - 1) / sample_rate`` seconds (0 for a single
        frame); ``sample`` clamps ``t`` to ``[0, duration]``. (``Clip.duration`` counts the
        frames' whole extent, ``frames * frame_time``.)
    precision, shell_distance : float
        The bound it was compressed to and its virtual-vertex distance.
    stats : dict
        ``max_error`` (measured at compression on the decoded clip), ``bit_rates`` (number of
        (segment, component) pairs per bit rate), ``bit_rates_keys`` (the same weighted by the
        segments' frames), track kinds per type (``rotation``, ``translation``, ``scale``:
        default / constant / animated counts), ``segments``, ``segment_length``,
        ``components`` (animated components per key), ``key_bits``, ``repaired_segments``.

    Sampling
    --------
    sample(t, out=None) -> (J, 8) float32
        The local pose at time ``t`` seconds, clamped to ``[0, duration]``: the two keys around
        ``t`` interpolated (nlerp on the shortest arc for rotations, linear for translation and
        scale). Within ``2**-20`` of a frame's time it is that frame's decoded pose exactly.
        Releases nothing: one pose costs well under a microsecond.
    sample_many(times, out=None) -> ``(*times.shape, J, 8)`` float32
        ``sample`` at every time (any shape, float64 seconds; NaN is a ValueError), GIL
        released.
    decompress(out=None) -> (F, J, 8) float32
        Every raw frame (the poses the bound is about), GIL released.

    Examples
    --------
    >>> import skelsimd
    >>> packed = skelsimd.compress(skelsimd.data.load_example(), precision=0.01)
    >>> packed.sample(0.5).shape                  # the local QTS pose at t = 0.5 s
    (31, 8)
    >>> back = skelsimd.CompressedClip.from_bytes(packed.to_bytes())
    >>> back.num_frames == packed.num_frames
    True
    """

    skeleton: Skeleton
    precision: float
    shell_distance: float
    end_site: BoolArray

    def __init__(
        self,
        data: bytes,
        skeleton: Skeleton,
        *,
        precision: float,
        shell_distance: float,
        max_error: float,
        repaired_segments: int = 0,
        end_site: ArrayLike | None = None,
    ) -> None:
        # CompressedClipBase.__new__ has validated `data` completely.
        if not isinstance(skeleton, Skeleton):
            raise TypeError(f"skeleton: expected a Skeleton, got {type(skeleton).__name__}")
        if len(skeleton) != self.num_joints:
            raise ValueError(f"skeleton: expected {self.num_joints} joints (the compressed "
                             f"data's), got {len(skeleton)}")
        precision = _real(precision, "precision", lambda v: v > 0, "a positive number")
        shell_distance = _real(shell_distance, "shell_distance", lambda v: v >= 0,
                               "a number >= 0")
        max_error = _real(max_error, "max_error", lambda v: v >= 0, "a number >= 0")
        if isinstance(repaired_segments, (bool, np.bool_)) or not isinstance(
                repaired_segments, (int, np.integer)):
            raise TypeError(f"repaired_segments: expected an int, got "
                            f"{type(repaired_segments).__name__}")
        if not 0 <= repaired_segments <= self.num_segments:
            raise ValueError(f"repaired_segments: expected 0 to {self.num_segments} (the "
                             f"segments), got {repaired_segments}")
        if end_site is None:
            end_site = np.zeros(len(skeleton), dtype=bool)
        else:
            end_site = np.asarray(end_site)
            if end_site.shape != (len(skeleton),) or end_site.dtype.kind not in "biu" or \
                    np.any((end_site != 0) & (end_site != 1)):
                raise ValueError(f"end_site: expected {len(skeleton)} flags (bool), got "
                                 f"{end_site.dtype} {end_site.shape}")
            end_site = end_site.astype(bool)
        self.skeleton = skeleton
        self.precision = precision
        self.shell_distance = shell_distance
        self._max_error = max_error
        self._repaired = int(repaired_segments)
        self.end_site = end_site

    @property
    def ratio(self) -> float:
        return self.num_frames * self.num_joints * 40 / self.nbytes

    @property
    def duration(self) -> float:
        return (self.num_frames - 1) / self.sample_rate

    @property
    def stats(self) -> dict[str, Any]:
        s = self._stats()
        s["max_error"] = self._max_error
        s["repaired_segments"] = self._repaired
        return s

    def __repr__(self) -> str:
        return (f"CompressedClip({self.num_frames} frames at {self.sample_rate:.6g} Hz, "
                f"{self.num_joints} joints, {self.nbytes} bytes (ratio {self.ratio:.1f}), "
                f"precision {self.precision:g}, max error {self._max_error:.3g})")

    def to_clip(self) -> Clip:
        """The decompressed clip as a :class:`~skelsimd.Clip` (for ``save_bvh`` and friends; BVH
        End Sites of a clip loaded with ``end_sites=True`` are kept)."""
        return Clip(self.skeleton, self.decompress(), 1.0 / self.sample_rate,
                    end_site=self.end_site)

    # --- serialisation ----------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """Self-contained bytes: magic ``SKSCLIP\\0``, format version, precision, shell distance and
        measured error, hierarchy, names, End Site flags, rest pose, the compressed data and a
        CRC-32 of everything before it (little-endian throughout)."""
        skel = self.skeleton
        parts = [_MAGIC, struct.pack("<I", _VERSION),
                 struct.pack("<3d", self.precision, self.shell_distance, self._max_error),
                 struct.pack("<II", self._repaired, len(skel)),
                 np.ascontiguousarray(skel.parents, dtype="<i4").tobytes()]
        for name in skel.names:
            b = name.encode("utf-8")
            parts.append(struct.pack("<I", len(b)))
            parts.append(b)
        parts.append(self.end_site.astype(np.uint8).tobytes())
        rest = skel.rest
        if rest is None:
            parts.append(struct.pack("<B", 0))
        else:
            parts.append(struct.pack("<B", 1 if rest.shape[-1] == 8 else 2))
            parts.append(np.ascontiguousarray(rest, dtype="<f4").tobytes())
        data = self._data
        parts.append(struct.pack("<Q", len(data)))
        parts.append(data)
        body = b"".join(parts)
        return body + struct.pack("<I", zlib.crc32(body))

    @classmethod
    def from_bytes(cls, b: bytes | bytearray | memoryview) -> Self:
        """A CompressedClip from ``to_bytes()`` output. Anything else (truncated, altered or
        corrupt bytes) is a ValueError; nothing is allocated beyond the size of ``b``."""
        if not isinstance(b, (bytes, bytearray, memoryview)):
            raise TypeError(f"b: expected bytes, got {type(b).__name__}")
        b = bytes(b)
        if len(b) < len(_MAGIC) + 8 or b[:len(_MAGIC)] != _MAGIC:
            raise ValueError("b: not a skelsimd compressed clip (bad magic)")
        (crc,) = struct.unpack_from("<I", b, len(b) - 4)
        if zlib.crc32(b[:-4]) != crc:
            raise ValueError("b: checksum mismatch (truncated or altered data)")
        try:
            return cls._parse(b[:-4])
        except ValueError as exc:
            raise ValueError(f"b: {exc}") from None
        except (struct.error, UnicodeDecodeError, IndexError, TypeError) as exc:
            raise ValueError(f"b: malformed compressed clip ({exc})") from None

    @classmethod
    def _parse(cls, body: bytes) -> Self:
        pos = len(_MAGIC)

        def take(n: int) -> bytes:
            nonlocal pos
            if n < 0 or pos + n > len(body):
                raise ValueError(f"truncated at byte {pos} (needs {n} more)")
            chunk = body[pos:pos + n]
            pos += n
            return chunk

        (version,) = struct.unpack("<I", take(4))
        if version != _VERSION:
            raise ValueError(f"format version {version} (this skelsimd reads {_VERSION})")
        precision, shell, max_error = struct.unpack("<3d", take(24))
        repaired, joints = struct.unpack("<II", take(8))
        if not 1 <= joints <= 65535:
            raise ValueError(f"joint count {joints}")
        parents = np.frombuffer(take(4 * joints), dtype="<i4").astype(np.int32)
        names: list[str] = []
        for _ in range(joints):
            (n,) = struct.unpack("<I", take(4))
            names.append(take(n).decode("utf-8"))
        flags = np.frombuffer(take(joints), dtype=np.uint8)
        if np.any(flags > 1):
            raise ValueError("bad joint flags")
        (rest_kind,) = struct.unpack("<B", take(1))
        rest: np.ndarray[Any, Any] | None
        if rest_kind == 0:
            rest = None
        elif rest_kind in (1, 2):
            shape = (joints, 8) if rest_kind == 1 else (joints, 3, 4)
            rest = np.frombuffer(take(4 * int(np.prod(shape))), dtype="<f4").reshape(shape)
        else:
            raise ValueError(f"rest pose kind {rest_kind}")
        (size,) = struct.unpack("<Q", take(8))
        data = take(size)
        if pos != len(body):
            raise ValueError(f"{len(body) - pos} unexpected bytes after the data")
        if not (np.isfinite(precision) and precision > 0 and np.isfinite(shell) and shell >= 0):
            raise ValueError("bad precision or shell distance")
        skeleton = Skeleton(parents, names, rest)
        return cls(data, skeleton, precision=precision, shell_distance=shell,
                   max_error=max_error, repaired_segments=repaired, end_site=flags.astype(bool))

    def __reduce__(self) -> tuple[Any, ...]:
        return (CompressedClip.from_bytes, (self.to_bytes(),))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompressedClip):
            return NotImplemented
        return self.to_bytes() == other.to_bytes()

    __hash__ = None  # type: ignore[assignment]  # unhashable, as its __eq__ compares contents
