"""BVH motion capture import and export: ``load_bvh`` and ``save_bvh``.

BVH (Biovision Hierarchy) files hold a joint hierarchy (OFFSETs and per-joint CHANNELS) and one
line of channel values per frame. ``load_bvh`` turns a file into a :class:`Clip`: a
:class:`~skelsimd.Skeleton` with names and offsets, the frame time, and the local poses as QTS
joints ``(F, J, 8)`` float32 ``(qx, qy, qz, qw, tx, ty, tz, s)`` ready for the kernels.

Conventions (as in the files: units are the file's units, angles in degrees)
-------------------------------------------------------------------------
* Joints keep the file's order, which is depth-first (parents before children, every subtree
  contiguous); End Sites become leaf joints only with ``end_sites=True``.
* Rotation channels compose in the order they are listed: ``Zrotation Xrotation Yrotation``
  means ``R = Rz @ Rx @ Ry`` applied to column vectors (``q = qz * qx * qy``). Every joint has
  its own order, and orders may differ within one file.
* Translation: a joint's position channels replace the matching OFFSET components (root
  joints, and the six-channel non-root joints some exporters write); the other components come
  from the OFFSET. Scale is 1.
* The local transform of a joint is ``[R | t]``, so ``global[j] = global[parent] @ local[j]``
  gives joint positions in the file's units.
* Quaternions are continuous across frames: each frame's quaternion is on the hemisphere of
  the previous frame's (dot product >= 0); the first frame has ``qw >= 0``. Angles beyond
  +-180 degrees and jumps between frames are therefore harmless.

Real-world quirks handled (see tests/data): CRLF, LF and lone-CR line endings mixed in one file,
tabs, trailing spaces, e-notation, ``-0.0``, ``Frame Time: .0083333``, ``Frames:<tab>455``,
names with colons or spaces, End Sites with zero offsets, blank lines, several ROOTs,
case-insensitive keywords, ``{`` on the keyword's line. Malformed files raise ValueError naming
the line; nothing half-built is returned.

Speed: the header is parsed in Python, the MOTION numbers by a C reader
(``skelsimd._core._parse_motion``) and the Euler angles become quaternions in vectorised NumPy
(float64, rounded once to float32): CMU 01_01.bvh (2 MB, 2752 frames x 31 joints) loads in
about 15 ms here (``benchmarks/sweep_skeleton.py``).
"""
from __future__ import annotations
import gzip
import operator
import os
import re
import sys
import warnings
from decimal import ROUND_CEILING, Decimal, InvalidOperation, localcontext

import numpy as np

from .. import _core
from ..bounds import fill_docstrings
from ..qts import qts_local_to_global_matrix
from ..clip import Clip
from ..quat import qts_to_matrix
from ..skeleton import Skeleton
from ._file_errors import in_file, looks_like, preview
from ._writing import path_and_clip, write_file
from typing import TYPE_CHECKING, NoReturn, overload

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import IO, TypeVar
    from numpy.typing import ArrayLike
    from .._typing import Float64Array

    _T = TypeVar("_T")
    _Header = tuple[list[str], list[int], list[list[float] | None], list[tuple[str, ...]],
                    list[bool], int, tuple[str, float]]

__all__ = ["load_bvh", "save_bvh", "rotation_to_euler", "file_frame_rate", "COMMON_RATES"]

_AXES = "XYZ"
_CHANNEL_RE = re.compile(r"^([xyz])(position|rotation)$", re.IGNORECASE)
_LINE_END_RE = re.compile(rb"\r\n|\r|\n")
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_WARNED_RENAMES = 10      # repeated names warned about one by one; the rest in one summary


def _text_bound(path: str, max_bytes: int | None) -> int:
    """The most bytes the decompressed text of the .gz file `path` may hold: max_bytes, or by
    default the clip bound of a file of the compressed file's size (_CLIP_BYTES_PER_FILE_BYTE
    times it, at least _CLIP_BYTES_FLOOR)."""
    if max_bytes is not None:
        return max_bytes
    return max(_CLIP_BYTES_FLOOR, _CLIP_BYTES_PER_FILE_BYTE * os.path.getsize(path))


def _read_gzip(path: str, limit: int) -> bytes:
    """The decompressed bytes of the .gz file `path`, read in pieces and refused (ValueError)
    as soon as they exceed `limit` bytes: a small file expanding to gigabytes is never held
    whole."""
    pieces: list[bytes] = []
    size = 0
    with gzip.open(path, "rb") as f:
        while True:
            piece = f.read(min(_GZIP_PIECE, limit - size + 1))
            if not piece:
                break
            size += len(piece)
            if size > limit:
                raise ValueError(f"{path}: the decompressed text is more than max_bytes = "
                                 f"{limit} bytes (pass a larger max_bytes to load it)")
            pieces.append(piece)
    return b"".join(pieces)


_GZIP_PIECE = 1 << 20


def _read_source(source: object, text: object, max_bytes: int | None) -> tuple[bytes, str]:
    """(bytes, label) from a path, bytes or a binary/text file object, or from ``text``."""
    if text is not None:
        if source is not None:
            raise TypeError("load_bvh: expected a path, bytes or a file object, or text=, not both")
        if not isinstance(text, str):
            raise TypeError(f"text: expected the text of a BVH file (str), got "
                            f"{type(text).__name__}")
        return text.encode("utf-8"), "<text>"
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "<bytes>"
    if hasattr(source, "read"):
        data = getattr(source, "read")()
        if isinstance(data, str):
            return data.encode("utf-8"), "<file>"
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"path: the file object's read() returned {type(data).__name__}, "
                            "expected bytes or str")
        return bytes(data), "<file>"
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if path.endswith(".gz"):
            return _read_gzip(path, _text_bound(path, max_bytes)), path
        with open(path, "rb") as f:
            return f.read(), path
    raise TypeError(f"path: expected a path (str or os.PathLike), bytes or a file object, "
                    f"got {type(source).__name__} (BVH text goes through load_bvh(text=...))")


class _Lines:
    """The lines of the header, one at a time, with their numbers and end offsets."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.number = 0
        self.frames_line = 0        # the line of 'Frames:', once the header is read

    def next(self) -> tuple[int, list[str] | None, str]:
        """The next non-blank line as (number, tokens, text), or (number, None, '') at the end."""
        data = self.data
        while self.pos < len(data):
            m = _LINE_END_RE.search(data, self.pos)
            end = m.start() if m else len(data)
            raw = data[self.pos:end]
            self.pos = m.end() if m else len(data)
            self.number += 1
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
            text = text.strip()
            if text:
                return self.number, text.split(), text
        return self.number + 1, None, ""


def _fail(line: int, message: str) -> NoReturn:
    raise ValueError(f"line {line}: {message}")


def _numbers(line: int, tokens: list[str], count: int, what: str) -> list[float]:
    if len(tokens) != count:
        _fail(line, f"expected {what} with {count} numbers, got {len(tokens)}: {' '.join(tokens)!r}")
    try:
        values = [float(t) for t in tokens]
    except ValueError:
        _fail(line, f"expected {what} with {count} numbers, got {' '.join(tokens)!r}")
    if not all(np.isfinite(values)):
        _fail(line, f"expected finite numbers in {what}, got {' '.join(tokens)!r}")
    for token, v in zip(tokens, values):
        if abs(v) > _FLOAT32_MAX:
            _fail(line, f"{token!r} in {what} is beyond the float32 range")
    return values


class _Block:
    """An open ROOT / JOINT / End Site block while the hierarchy is parsed."""
    __slots__ = ("joint", "line", "end_site", "has_offset", "has_channels")

    def __init__(self, joint: int | None, line: int, end_site: bool) -> None:
        self.joint = joint          # index in the joint table, or None (an End Site not kept)
        self.line = line
        self.end_site = end_site
        self.has_offset = False
        self.has_channels = False


def _statement_block(stack: list[_Block], line: int, keyword: str, flag: str, scope: str) -> _Block:
    """The open block an OFFSET / CHANNELS line belongs to, marked as having it (once)."""
    if not stack:
        _fail(line, f"'{keyword}' outside a joint")
    block = stack[-1]
    if getattr(block, flag):
        _fail(line, f"a second '{keyword}' in one {scope}")
    setattr(block, flag, True)
    return block


def _motion_header(lines: _Lines, key: str, form: str, convert: Callable[[str], _T],
                   valid: Callable[[_T], bool], what: str) -> _T:
    """The value of the next line, which must read `key` (a regex) and a value."""
    line, _, text = lines.next()
    m = re.match(rf"^{key}\s*(\S+)$", text, re.IGNORECASE)
    if not m:
        _fail(line, f"expected {form}, got " + (repr(text) if text else "the end of the file"))
    try:
        value = convert(m.group(1))
    except ValueError:
        value = None
    if value is None or not valid(value):
        _fail(line, f"expected {what}, got {m.group(1)!r}")
    return value


def _unused_name(used: dict[str, int], next_k: dict[tuple[str, str], int], name: str,
                 sep: str) -> str:
    """The first of name<sep>2, name<sep>3, ... not in `used`. next_k remembers where the
    previous search for this name stopped: names are never removed from `used`, so the
    numbers before it are still taken, and n repeats of one name cost O(n), not O(n^2)."""
    k = next_k.get((name, sep), 2)
    while f"{name}{sep}{k}" in used:
        k += 1
    next_k[(name, sep)] = k + 1
    return f"{name}{sep}{k}"


def _parse_hierarchy(lines: _Lines, end_sites: bool) -> _Header:
    """Parses HIERARCHY ... up to and including 'Frame Time:'. Returns the joint table (names,
    parents, offsets, channels, is_end) and the frame count and frame time."""
    names: list[str] = []
    parents: list[int] = []
    offsets: list[list[float] | None] = []
    channels: list[tuple[str, ...]] = []
    is_end: list[bool] = []
    line, tokens, _ = lines.next()
    if tokens is None or tokens[0].upper() != "HIERARCHY":
        kind = looks_like(lines.data)
        if kind not in ("text", "an empty file"):
            raise ValueError(f"not a BVH file: it looks like {kind} (starts with "
                             f"{preview(lines.data)})")
        _fail(line, "expected 'HIERARCHY' at the start of a BVH file, got "
                    + (f"{' '.join(tokens)!r:.60}" if tokens else "the end of the file"))
    stack: list[_Block] = []                    # open blocks
    pending: _Block | None = None               # a block whose '{' is still to come
    used: dict[str, int] = {}                   # name -> joint index
    next_k: dict[tuple[str, str], int] = {}     # (name, suffix form) -> the smallest k not yet tried for it
    renamed: list[int] = []                     # the lines of repeated names
    while True:
        line, tokens, text = lines.next()
        if tokens is None:
            if pending or stack:
                opened = (pending or stack[-1]).line
                _fail(line, f"unexpected end of file: the block opened at line {opened} is not closed")
            _fail(line, "unexpected end of file: expected 'MOTION'")
        key = tokens[0].upper()
        if pending is not None:
            if tokens != ["{"]:
                _fail(line, f"expected '{{' to open the block of line {pending.line}, got {text!r}")
            stack.append(pending)
            pending = None
            continue
        is_site = key == "END" and len(tokens) >= 2 and tokens[1].upper().rstrip("{") == "SITE"
        if key in ("ROOT", "JOINT") or is_site:
            opens = text.endswith("{")
            body = text[:-1].rstrip() if opens else text
            if stack and stack[-1].end_site:
                _fail(line, f"{tokens[0]!r} inside the End Site opened at line {stack[-1].line}")
            if is_site:
                if not stack:
                    _fail(line, "'End Site' outside a joint")
                parent = stack[-1].joint
                joint: int | None = None
                if end_sites:
                    assert parent is not None   # an End Site's parent block is a kept joint
                    name = f"{names[parent]}_end"
                    if name in used:
                        name = _unused_name(used, next_k, name, "")
                    joint = len(names)
            else:
                if key == "ROOT" and stack:
                    _fail(line, "'ROOT' inside another joint (expected 'JOINT')")
                if key == "JOINT" and not stack:
                    _fail(line, "'JOINT' outside a ROOT")
                parts = body.split(None, 1)
                name = parts[1].strip() if len(parts) == 2 else ""
                if not name:
                    _fail(line, f"expected a joint name after {tokens[0]!r}")
                if name in used:
                    new = _unused_name(used, next_k, name, "#")
                    if len(renamed) < _WARNED_RENAMES:
                        warnings.warn(f"line {line}: joint name {name!r} repeats the name of joint "
                                      f"{used[name]}; renamed {new}", stacklevel=4)
                    renamed.append(line)
                    name = new
                parent = stack[-1].joint if stack else -1
                joint = len(names)
            if joint is not None:
                assert parent is not None   # End Sites refuse nested blocks: the parent is a joint
                used[name] = joint
                names.append(name)
                parents.append(parent)
                offsets.append(None)
                channels.append(())
                is_end.append(is_site)
            block = _Block(joint, line, is_site)
            if opens:
                stack.append(block)
            else:
                pending = block
            continue
        if key == "OFFSET":
            block = _statement_block(stack, line, "OFFSET", "has_offset", "block")
            values = _numbers(line, tokens[1:], 3, "OFFSET")
            if block.joint is not None:
                offsets[block.joint] = values
            continue
        if key == "CHANNELS":
            block = _statement_block(stack, line, "CHANNELS", "has_channels", "joint")
            if block.end_site:
                _fail(line, "'CHANNELS' inside an End Site")
            try:
                count = int(tokens[1])
            except (IndexError, ValueError):
                _fail(line, f"expected 'CHANNELS <count> <names>', got {text!r}")
            listed = tokens[2:]
            assert block.joint is not None      # CHANNELS are refused in an End Site
            if count != len(listed):
                _fail(line, f"joint {names[block.joint]!r}: CHANNELS says {count} channels but "
                            f"lists {len(listed)}")
            seen: list[str] = []
            for c in listed:
                m = _CHANNEL_RE.match(c)
                if not m:
                    _fail(line, f"unknown channel {c!r}: expected Xposition, Yposition, Zposition, "
                                "Xrotation, Yrotation or Zrotation")
                norm = m.group(1).upper() + m.group(2).lower()
                if norm in seen:
                    _fail(line, f"channel {c!r} listed twice")
                seen.append(norm)
            channels[block.joint] = tuple(seen)
            continue
        if key.startswith("}"):
            if tokens != ["}"]:
                _fail(line, f"expected '}}' alone on its line, got {text!r}")
            if not stack:
                _fail(line, "'}' without an open block")
            block = stack.pop()
            if not block.has_offset:
                _fail(line, f"the block opened at line {block.line} has no OFFSET")
            continue
        if key == "MOTION":
            if stack:
                _fail(line, f"'MOTION' inside the block opened at line {stack[-1].line} (missing '}}')")
            if not names:
                _fail(line, "'MOTION' before any ROOT")
            if len(renamed) > _WARNED_RENAMES:
                warnings.warn(f"lines {renamed[_WARNED_RENAMES]} to {renamed[-1]}: "
                              f"{len(renamed) - _WARNED_RENAMES} more repeated joint names "
                              "renamed with #k suffixes", stacklevel=4)
            break
        _fail(line, f"unexpected {text!r} in the HIERARCHY section")

    frames = _motion_header(lines, r"frames\s*:", "'Frames: <count>'", int, lambda v: v >= 0,
                            "a non-negative frame count")
    lines.frames_line = lines.number
    token = _motion_header(lines, r"frame\s+time\s*:", "'Frame Time: <seconds>'", _frame_time_token,
                           lambda v: v[1] > 0 and np.isfinite(v[1]), "a positive frame time in seconds")
    return names, parents, offsets, channels, is_end, frames, token


def _frame_time_token(token: str) -> tuple[str, float]:
    """(token, float value) of a 'Frame Time:' value (ValueError when it is not a number)."""
    return token, float(token)


#: The frame rates (Hz) a BVH frame time is read as when it is one of them up to the precision
#: it is printed with (see :func:`file_frame_rate`).
COMMON_RATES: tuple[int, ...] = (24, 25, 30, 48, 50, 60, 90, 100, 120, 240)


def file_frame_rate(token: str) -> int | None:
    """The frame rate (an int, Hz) that the printed frame time ``token`` stands for, or None.

    Files round their frame time (``0.033333``, ``0.0083333``). A printed decimal ``d`` with
    its last digit at ``10**e`` stands for every value within half a unit of that digit,
    ``[d - 10**e / 2, d + 10**e / 2]``. The rate is, in this order: the integer ``n`` when
    ``d`` is exactly ``1 / n`` (``0.008`` is 125 Hz); the common rate (:data:`COMMON_RATES`)
    whose period ``1 / rate`` lies in that interval, the one nearest ``d`` when several do;
    the integer rate ``n`` when ``1 / n`` is the only such period in the interval; else None
    (the frame time is taken as printed). Comparisons are exact (decimal arithmetic).

    Examples
    --------
    >>> from skelsimd.io.bvh import file_frame_rate
    >>> file_frame_rate("0.033333"), file_frame_rate("0.0083333"), file_frame_rate("0.04")
    (30, 120, 25)
    >>> file_frame_rate("0.0142857"), file_frame_rate("0.008"), file_frame_rate("0.0123456")
    (70, 125, None)
    """
    try:
        d = Decimal(token)
    except InvalidOperation:
        return None
    if not d.is_finite() or d <= 0:
        return None
    with localcontext() as ctx:
        ctx.prec = max(28, len(token) + 8)
        exponent = d.as_tuple().exponent
        assert isinstance(exponent, int)        # d is finite
        half = Decimal(5).scaleb(exponent - 1)
        lo, hi = d - half, d + half
        if d <= 1:
            exact = int((1 / d).to_integral_value())
            if exact * d == 1:          # printed exactly: 0.008 is 125 Hz, 0.04 is 25 Hz
                return exact
        common = [r for r in COMMON_RATES if r * lo <= 1 <= r * hi]
        if common:
            return min(common, key=lambda r: abs(1 / Decimal(r) - d))
        if lo <= 0 or hi > 2:
            return None
        n_min = int((1 / hi).to_integral_value(rounding=ROUND_CEILING))
        if n_min * lo <= 1 <= n_min * hi and not (n_min + 1) * lo <= 1:
            return n_min
    return None


_Q = tuple["Float64Array", "Float64Array", "Float64Array", "Float64Array"]


def _rotate_by_axis(x: Float64Array, y: Float64Array, z: Float64Array, w: Float64Array, axis: str,
                    s: Float64Array, c: Float64Array) -> _Q:
    """Components of q * (s * e_axis + c), the product of q = (x, y, z, w) with the rotation
    about one coordinate axis by the angle whose half has sine s and cosine c."""
    if axis == "X":
        return c * x + s * w, c * y + s * z, c * z - s * y, c * w - s * x
    if axis == "Y":
        return c * x - s * z, c * y + s * w, c * z + s * x, c * w - s * y
    return c * x + s * y, c * y - s * x, c * z + s * w, c * w - s * z


def _euler_quaternions(motion: Float64Array, channels: Sequence[Sequence[str]],
                       columns: Sequence[int]) -> Float64Array:
    """Per-joint rotation quaternions (F, J, 4) float64 from the rotation channels (degrees),
    composed in the listed order, vectorised over the joints that share an order."""
    frames, n = motion.shape[0], len(channels)
    q = np.zeros((frames, n, 4))
    q[..., 3] = 1.0
    groups: dict[str, list[tuple[int, list[int]]]] = {}
    for j, chans in enumerate(channels):
        rot = [(c[0], columns[j] + k) for k, c in enumerate(chans) if c.endswith("rotation")]
        if rot:
            groups.setdefault("".join(a for a, _ in rot), []).append((j, [col for _, col in rot]))
    for axes, members in groups.items():
        joints = [j for j, _ in members]
        cols = np.array([c for _, c in members]).T               # (k, G)
        half = motion[:, cols] * (np.pi / 360.0)                 # (F, k, G): half angles
        s, c = np.sin(half), np.cos(half)
        x, y, z, w = s[:, 0] * 0, s[:, 0] * 0, s[:, 0] * 0, c[:, 0] * 0 + 1
        x, y, z, w = _rotate_by_axis(x, y, z, w, axes[0], s[:, 0], c[:, 0])
        for k in range(1, len(axes)):
            x, y, z, w = _rotate_by_axis(x, y, z, w, axes[k], s[:, k], c[:, k])
        for i, comp in enumerate((x, y, z, w)):
            q[:, joints, i] = comp
    return q


def _make_continuous(q: Float64Array) -> Float64Array:
    """Flip quaternion signs so that consecutive frames have a non-negative dot product, with
    the first frame on the qw >= 0 hemisphere."""
    if q.shape[0] == 0:
        return q
    sign = np.ones(q.shape[:2])
    sign[0] = np.where(q[0, :, 3] < 0, -1.0, 1.0)
    if q.shape[0] > 1:
        dots = np.einsum("fjk,fjk->fj", q[1:], q[:-1])
        sign[1:] = np.where(dots < 0, -1.0, 1.0)
    return q * np.cumprod(sign, axis=0)[..., None]


def _check_clip_size(data: bytes, line: int, frames: int, joints: int, max_bytes: int | None) -> None:
    """ValueError unless the clip of `frames` x `joints` QTS joints (32 bytes each) fits
    max_bytes (default: _CLIP_BYTES_PER_FILE_BYTE times the file's size, at least
    _CLIP_BYTES_FLOOR): checked before the clip's arrays are allocated."""
    if max_bytes is None:
        max_bytes = max(_CLIP_BYTES_FLOOR, _CLIP_BYTES_PER_FILE_BYTE * len(data))
    if frames * joints * 32 > max_bytes:
        _fail(line, f"'Frames: {frames}' of {joints} joint{'s' if joints != 1 else ''} make a clip of {frames * joints * 32} "
                    f"bytes, more than max_bytes = {max_bytes} (pass a larger max_bytes to load "
                    "it)")


# The default limit of a clip's size (load_bvh's max_bytes): 64 times the file's size, at least
# 256 MiB. Real files need about 1 to 5 times (each frame's line holds 3 to 6 numbers per
# joint); only files whose joints mostly lack channels describe much larger clips.
_CLIP_BYTES_FLOOR = 256 << 20
_CLIP_BYTES_PER_FILE_BYTE = 64


def load_bvh(
    path: str | bytes | os.PathLike[str] | IO[str] | IO[bytes] | None = None,
    *,
    text: str | None = None,
    end_sites: bool = False,
    max_bytes: int | None = None,
) -> Clip:
    """Load a BVH motion capture file.

    Parameters
    ----------
    path : str, os.PathLike, bytes or file object
        A path (``.gz`` paths are decompressed; a str is always a path, whatever it holds),
        the file's bytes, or an open file (binary or text).
    text : str, optional
        The text of a BVH file, instead of ``path`` (``load_bvh(text=...)``).
    end_sites : bool, default False
        Also make every End Site a leaf joint named ``<parent>_end`` (identity rotation, its
        OFFSET as translation).
    max_bytes : int, optional
        The largest clip (``frames * joints * 32`` bytes of ``clip.local``) to build; default
        64 times the file's size, at least 256 MiB. A file declaring more frames than its
        MOTION section holds is refused whatever the limit, and nothing larger than the file
        is allocated before that is known. For a ``.gz`` path it also bounds the decompressed
        text (default: 64 times the compressed file's size, at least 256 MiB), which is read
        in pieces and refused as soon as it grows beyond the bound.

    Returns
    -------
    Clip
        ``clip.skeleton`` (names, parents in the file's depth-first order, rest pose = OFFSETs
        as QTS), ``clip.frame_time`` in seconds and ``clip.local``, the QTS local poses
        ``(F, J, 8)`` float32 (see the module docstring for the conventions).

    Notes
    -----
    Frame times as files print them: a frame time that is a rounded common rate
    (``Frame Time: 0.033333`` is 30 Hz up to its printed precision; see
    :func:`file_frame_rate` for the exact rule) is read as that rate exactly:
    ``clip.frame_time = 1 / 30`` and ``clip.fps == 30``; ``clip.frame_time_raw`` keeps the
    value as printed. Other frame times are taken as printed.

    Raises
    ------
    ValueError
        Malformed files, with the line number: unknown keywords or channels, missing or extra
        numbers, non-numbers, values beyond float32, a frame count that does not match the
        MOTION lines (or more frames than the file can hold, or a clip beyond ``max_bytes``),
        unclosed blocks; a ``.gz`` file whose text is beyond ``max_bytes``.
    TypeError
        ``path`` of another type (or a file object whose ``read()`` returns neither bytes nor
        str), both ``path`` and ``text`` or neither.

    Examples
    --------
    >>> from skelsimd import load_bvh
    >>> text = '''HIERARCHY
    ... ROOT hips
    ... {
    ...   OFFSET 0 0 0
    ...   CHANNELS 3 Xposition Yposition Zposition
    ... }
    ... MOTION
    ... Frames: 2
    ... Frame Time: 0.033333
    ... 0 1 0
    ... 0 1.5 0
    ... '''
    >>> clip = load_bvh(text=text)
    >>> clip.frames, clip.fps, clip.frame_time_raw
    (2, 30.0, 0.033333)
    """
    if path is None and text is None:
        raise TypeError("load_bvh: expected a path, bytes or a file object (or text=...), got "
                        "None")
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                  or max_bytes < 0):
        raise TypeError(f"max_bytes: expected a non-negative int or None, got {max_bytes!r}")
    try:
        return _load(_read_source(path, text, max_bytes)[0], end_sites, max_bytes)
    except ValueError as exc:
        named = getattr(path, "name", None) if hasattr(path, "read") else path   # a file's name
        error = in_file(named if text is None else None, exc)
        if error is exc:
            raise
        raise error from None


def _channel_summary(names: Sequence[str], counts: Sequence[int]) -> str:
    """The channel counts of the joints, the joints of the rarer counts by name: "Hips 6,
    LeftKnee 3, the other 29 joints 6 each"."""
    by: dict[int, list[str]] = {}
    for name, c in zip(names, counts):
        if c:
            by.setdefault(c, []).append(name)
    common = max(by, key=lambda c: len(by[c]))
    parts = []
    for c, joints in sorted(by.items(), key=lambda kv: len(kv[1])):
        if c != common:
            shown = ", ".join(f"{n} {c}" for n in joints[:4])
            parts.append(shown + (f" and {len(joints) - 4} more joints {c} each"
                                  if len(joints) > 4 else ""))
    rest = len(by[common])
    parts.append(f"the other {rest} joints {common} each" if len(by) > 1
                 else f"{rest} joints {common} each")
    return ", ".join(parts)


def _load(data: bytes, end_sites: bool, max_bytes: int | None) -> Clip:
    """load_bvh on the bytes of a file."""
    if data.startswith(b"\xef\xbb\xbf"):     # a UTF-8 byte order mark (Windows editors write one)
        data = data[3:]
    lines = _Lines(data)
    names, parents, offsets, channels, is_end, frames, (token, frame_time_raw) = \
        _parse_hierarchy(lines, end_sites)
    rate = file_frame_rate(token)
    frame_time = 1.0 / rate if rate is not None else frame_time_raw
    n = len(names)
    counts = [len(c) for c in channels]
    columns = np.concatenate(([0], np.cumsum(counts)))[:-1].astype(int).tolist()
    total = int(sum(counts))
    if frames > sys.maxsize:
        _fail(lines.frames_line, f"'Frames: {frames}' is more frames than a file can hold")
    # the reader allocates no more rows than the MOTION bytes can hold (see _parse_motion)
    try:
        motion = _core._parse_motion(data, lines.pos, frames, total, lines.number + 1)
    except ValueError as exc:
        if "channel values" not in str(exc):
            raise
        raise ValueError(f"{exc} (the CHANNELS lines declare {total}: "
                         f"{_channel_summary(names, counts)})") from None
    _check_clip_size(data, lines.frames_line, frames, n, max_bytes)

    offsets64 = np.asarray(offsets, dtype=np.float64).reshape(n, 3)
    q = _make_continuous(_euler_quaternions(motion, channels, columns))
    t = np.broadcast_to(offsets64, (frames, n, 3)).copy()
    for j, chans in enumerate(channels):
        for k, c in enumerate(chans):
            if c.endswith("position"):
                t[:, j, _AXES.index(c[0])] = motion[:, columns[j] + k]
    local = np.empty((frames, n, 8), dtype=np.float32)
    local[..., :4] = q
    local[..., 4:7] = t
    local[..., 7] = 1.0
    rest = np.zeros((n, 8), dtype=np.float32)
    rest[:, 3] = 1.0
    rest[:, 4:7] = offsets64
    rest[:, 7] = 1.0
    skeleton = Skeleton(np.asarray(parents, dtype=np.int32), names, rest)
    return Clip(skeleton, local, frame_time, channels=channels, end_site=is_end,
                frame_time_raw=frame_time_raw)


# --- writing ---------------------------------------------------------------------------------------

def _check_order_string(order: object) -> str:
    if not isinstance(order, str) or sorted(order.upper()) != ["X", "Y", "Z"]:
        raise ValueError(f"order: expected a permutation of 'XYZ' such as 'ZYX' or 'ZXY', got {order!r}")
    return order.upper()


def rotation_to_euler(r: ArrayLike, order: str) -> Float64Array:
    """Euler angles (radians, (..., 3), in the order's axis order) with
    ``r = R_a(angles[0]) @ R_b(angles[1]) @ R_c(angles[2])`` for ``order = "abc"``.

    The middle angle is in [-pi/2, pi/2]. At gimbal lock (cos of the middle angle < 1e-14) the
    first angle takes the whole free rotation and the last one is 0 up to rounding. The angles
    rebuild ``r`` to a few float64 ulps everywhere, also next to the lock."""
    i, j, k = (_AXES.index(a) for a in order)
    s = 1.0 if (j - i) % 3 == 1 else -1.0          # +1 for cyclic orders (XYZ, YZX, ZXY)
    r = np.asarray(r, dtype=np.float64)
    cos_b = np.hypot(r[..., i, i], r[..., i, j])
    b = np.arctan2(s * r[..., i, k], cos_b)
    a = np.arctan2(-s * r[..., j, k], r[..., k, k])
    # Gimbal lock: when cos(b) is lost in rounding, r[j, k] and r[k, k] are noise and the first
    # angle takes the free rotation (the last one then comes out 0). Treating a wider band as
    # locked would cost an error of cos(b) (6e-10 at cos(b) = 6e-10); above 1e-14 the two
    # angles are told apart well enough that the rebuilt matrix is exact to a few ulps.
    locked = cos_b < 1e-14
    if np.any(locked):
        a = np.where(locked, np.arctan2(s * r[..., k, j], r[..., j, j]), a)
    # The last angle from row j of R_a(a)^T @ r = R_b(b) @ R_c(c), whose entries have full
    # magnitude, instead of from r[i, i] and r[i, j], which shrink with cos(b): near gimbal lock
    # those lose digits (relative error eps / cos(b), 1.9e-9 at cos(b) = 2.6e-7) and the angles
    # no longer rebuild r; this way c absorbs the error of a and r is rebuilt to a few eps.
    cos_a, sin_a = np.cos(a), np.sin(a)
    row_j = cos_a[..., None] * r[..., j, :] + s * sin_a[..., None] * r[..., k, :]
    c = np.arctan2(s * row_j[..., i], row_j[..., j])
    return np.stack([a, b, c], axis=-1)


def _format_rows(values: Float64Array) -> str:
    """Lines of '%.6f'-formatted numbers (values (F, C) float64)."""
    if values.shape[1] == 0:
        rows: int = values.shape[0]
        return "\n" * rows
    fmt = " ".join(["%.6f"] * values.shape[1]) + "\n"
    return "".join(fmt % tuple(row) for row in values.tolist())



def _rotation_matrices64(q: Float64Array) -> Float64Array:
    """(..., 4) unit quaternions (x, y, z, w), float64 -> (..., 3, 3) float64 rotations (the
    writer extracts Euler angles in float64 for the round trip's accuracy)."""
    x, y, z, w = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)

# Indentation stops growing below this depth, so the file of a deep chain stays linear in size.
_MAX_INDENT = 32


def _check_names_writable(names: Sequence[str]) -> None:
    """ValueError naming the first joint name that a BVH file cannot hold so that load_bvh
    reads it back: empty, with a line break, leading or trailing whitespace or a trailing '{',
    or not encodable as UTF-8 (a lone surrogate)."""
    for j, name in enumerate(names):
        problem = None
        if not name.strip():
            problem = "an empty name"
        elif "\n" in name or "\r" in name:
            problem = "a line break"
        elif name != name.strip():
            problem = "leading or trailing whitespace"
        elif name.endswith("{"):
            problem = "a trailing '{'"
        else:
            try:
                name.encode("utf-8")
            except UnicodeEncodeError as exc:
                problem = f"a character UTF-8 cannot encode ({exc.reason} at {exc.start})"
        if problem:
            raise ValueError(f"clip.skeleton.names[{j}] = {name!r}: a BVH joint name cannot hold "
                             f"{problem}")


def _check_finite(clip: Clip) -> None:
    """ValueError naming the first frame and joint (or rest joint) holding a value that is not
    finite: BVH numbers are finite (load_bvh refuses nan and inf)."""
    names = clip.skeleton.names
    bad = ~np.isfinite(clip.local)
    if bad.any():
        f, j, k = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"clip.local: expected finite values, got {clip.local[f, j, k]} at "
                         f"frame {f}, joint {names[j]!r} (lane {k})")
    rest = clip.skeleton.rest
    if rest is not None and not np.isfinite(rest).all():
        j = int(np.argwhere(~np.isfinite(rest))[0][0])
        raise ValueError(f"clip.skeleton.rest: expected finite values, got some that are not "
                         f"at joint {names[j]!r}")


def _joint_orders(clip: Clip, order: str | None) -> list[str]:
    """The rotation order of every joint: `order` for all, or with order=None each joint's
    rotation channels as read (``clip.channels``), completed to three axes; "ZYX" for joints
    without rotation channels."""
    if order is not None:
        return [_check_order_string(order)] * len(clip.skeleton)
    orders: list[str] = []
    for j, chans in enumerate(clip.channels):
        axes = "".join(c[:1].upper() for c in chans if c.lower().endswith("rotation"))
        full = axes + "".join(a for a in "ZYX" if a not in axes)
        if sorted(full) != ["X", "Y", "Z"]:
            raise ValueError(f"clip.channels[{j}]: expected at most one Xrotation, Yrotation and "
                             f"Zrotation channel, got {chans!r} (pass order= to choose one)")
        orders.append(full)
    return orders


@overload
def save_bvh(clip: Clip, path: str | os.PathLike[str] | IO[str], order: str | None = None) -> None:
    ...


@overload
def save_bvh(path: str | os.PathLike[str] | IO[str], clip: Clip, /,
             order: str | None = None) -> None:
    ...


def save_bvh(clip: Clip | str | os.PathLike[str] | IO[str],
             path: str | os.PathLike[str] | IO[str] | Clip, order: str | None = None) -> None:
    """Write a clip as a BVH file: ``save_bvh(path, clip)``, the order of every writer
    (:func:`~skelsimd.save_gltf`), or ``save_bvh(clip, path)``; the two are told apart by
    type (the Clip is the clip).

    Parameters
    ----------
    clip : Clip
        At least one frame, every value finite.
    path : str, os.PathLike or text file object
        A file is written whole or not at all: under a temporary name in its directory,
        renamed over ``path`` once complete, so a failed write leaves an existing file as it
        was.
    order : str, optional
        The rotation channel order of every joint: "ZYX" writes
        ``Zrotation Yrotation Xrotation`` (``R = Rz @ Ry @ Rx``); any permutation of XYZ.
        Default: each joint keeps the rotation order of the file it came from
        (``clip.channels``; a joint with fewer than three rotation channels gets the missing
        axes appended in ZYX order), and "ZYX" for joints without rotation channels.

    Notes
    -----
    Root joints, and joints whose translation differs from their OFFSET in some frame, get
    position channels (six channels in all); the others three rotation channels. OFFSETs are
    the skeleton's rest translations (``rest[:, 4:7]`` for a QTS rest pose) or, without a rest
    pose, the first frame's. Joints loaded as End Sites (``clip.end_site``) that are leaves
    with constant poses are written as End Sites; other leaf joints get a zero-offset End Site
    (the format wants one). Joints are written in depth-first order: a clip in another order
    comes back in depth-first order. Angles are written with 6 decimals and unwrapped across
    frames; a load -> save -> load round trip reproduces the global joint positions within
    [bound:bvh.round_trip] of the clip's units (tested on the real clips).

    Files are written as UTF-8. Raises ValueError, before anything is written, for a clip of
    0 frames (a BVH file's animation is its MOTION section: nothing would be written of it),
    for a value that is not finite (naming the frame and the joint), when a scale lane
    differs from 1 (BVH has no scale channels), for a bad ``order``, or for a joint name a BVH
    file cannot hold (empty, a line break, leading or trailing whitespace, a trailing ``{``,
    not encodable as UTF-8).

    Examples
    --------
    >>> import os, tempfile, skelsimd
    >>> clip = skelsimd.data.load_example()[:10]
    >>> path = os.path.join(tempfile.mkdtemp(), "walk.bvh")
    >>> skelsimd.save_bvh(path, clip)
    >>> skelsimd.load_bvh(path).frames
    10
    """
    dest, given = path_and_clip(clip, path, (Clip,))
    if not isinstance(given, Clip):
        raise TypeError(f"clip: expected a skelsimd.Clip, got {type(given).__name__}")
    clip = given
    if not (hasattr(dest, "write") or isinstance(dest, (str, os.PathLike))):
        raise TypeError(f"path: expected a str, os.PathLike or text file object, got "
                        f"{type(dest).__name__}")
    if clip.frames == 0:
        raise ValueError("clip: expected at least one frame, got 0 (a BVH file's animation is "
                         "its MOTION section)")
    _check_finite(clip)
    orders = _joint_orders(clip, order)
    _check_names_writable(clip.skeleton.names)
    if not clip.skeleton.is_depth_first:
        clip, perm, _ = clip.reorder("depth-first")
        orders = [orders[i] for i in perm]
    skel, local = clip.skeleton, clip.local
    n, frames = len(skel), clip.frames
    scale = local[..., 7]
    if scale.size and np.abs(scale.astype(np.float64) - 1.0).max() > 1e-6:
        bad = np.unravel_index(np.argmax(np.abs(scale - 1.0)), scale.shape)
        raise ValueError(f"clip.local[..., 7]: BVH has no scale channels; expected scale 1, got "
                         f"{scale[bad]} at frame {bad[0]}, joint {skel.names[bad[1]]!r}")
    rest = skel.rest
    if rest is not None and rest.shape == (n, 8):
        offsets = rest[:, 4:7]
    elif rest is not None:
        offsets = rest[:, :, 3]
    elif frames:
        offsets = local[0, :, 4:7]
    else:
        offsets = np.zeros((n, 3), np.float32)
    translation = local[..., 4:7]
    moving = (translation != offsets).any(axis=(0, 2)) if frames else np.zeros(n, bool)
    is_root = skel.parents < 0
    identity = np.zeros(4, np.float32)
    identity[3] = 1
    as_end_site = (clip.end_site & ~is_root & ~moving
                   & (np.bincount(skel.parents[~is_root], minlength=n) == 0))
    if frames:
        as_end_site &= (np.abs(local[..., :4] - identity).max(axis=(0, 2)) <= 1e-7) | \
                       (np.abs(local[..., :4] + identity).max(axis=(0, 2)) <= 1e-7)

    q = local[..., :4].astype(np.float64)
    q /= np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-300)
    matrices = _rotation_matrices64(q)
    angles = np.empty(q.shape[:-1] + (3,))                                   # (F, J, 3)
    for o in set(orders):
        joints = [j for j in range(n) if orders[j] == o]
        angles[:, joints] = np.degrees(rotation_to_euler(matrices[:, joints], o))
    if frames > 1:
        angles = np.unwrap(angles, period=360.0, axis=0)

    out = ["HIERARCHY"]
    columns: list[Float64Array] = []
    children: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        if not is_root[j]:
            children[skel.parents[j]].append(j)

    def fmt3(v: Iterable[float]) -> str:
        return " ".join("%.6f" % x for x in v)

    def write(j: int, indent: int) -> bool:
        """Opens joint j (or writes its End Site); True when a '}' must close it later."""
        pad = "\t" * min(indent, _MAX_INDENT)
        if as_end_site[j]:
            out.extend([f"{pad}End Site", f"{pad}{{", f"{pad}\tOFFSET {fmt3(offsets[j])}", f"{pad}}}"])
            return False
        out.append(f"{pad}{'ROOT' if is_root[j] else 'JOINT'} {skel.names[j]}")
        out.append(f"{pad}{{")
        out.append(f"{pad}\tOFFSET {fmt3(offsets[j])}")
        rot_names = " ".join(f"{a}rotation" for a in orders[j])
        if is_root[j] or moving[j]:
            out.append(f"{pad}\tCHANNELS 6 Xposition Yposition Zposition {rot_names}")
            columns.append(translation[:, j].astype(np.float64))
        else:
            out.append(f"{pad}\tCHANNELS 3 {rot_names}")
        columns.append(angles[:, j])
        if not children[j]:
            out.extend([f"{pad}\tEnd Site", f"{pad}\t{{", f"{pad}\t\tOFFSET 0.000000 0.000000 0.000000",
                        f"{pad}\t}}"])
        return True

    # depth-first without recursion (hierarchies as deep as the joint count): an entry
    # (j, indent) opens joint j, (~j, indent) closes it after its children
    stack = [(int(r), 0) for r in np.flatnonzero(is_root)[::-1]]
    while stack:
        j, indent = stack.pop()
        if j < 0:
            out.append("\t" * min(indent, _MAX_INDENT) + "}")
        elif write(j, indent):
            stack.append((~j, indent))
            stack.extend((c, indent + 1) for c in reversed(children[j]))
    out.append("MOTION")
    out.append(f"Frames: {frames}")
    out.append(f"Frame Time: {clip.frame_time:.9g}")
    values = np.concatenate(columns, axis=1) if columns else np.zeros((frames, 0))
    text = "\n".join(out) + "\n" + _format_rows(values)
    if isinstance(dest, (str, os.PathLike)):
        write_file(os.fsdecode(os.fspath(dest)), text.encode("utf-8"))
    else:
        getattr(dest, "write")(text)


fill_docstrings(globals())
