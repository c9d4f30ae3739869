"""The glTF document: its JSON checked piece by piece, its buffers (GLB chunks, data URIs,
files beside it), its accessors decoded within a budget, and the reader's limits (see
:mod:`skelsimd.io.gltf`, which re-exports the public names)."""
from __future__ import annotations

import base64
import binascii
import json
import math
import os
import re
import struct
import urllib.parse
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._file_errors import looks_like, preview



#: A vertex whose weights sum to 1 +- this (plus half a quantum per influence for integer
#: weights) is renormalised silently; beyond it, with a warning naming the mesh.
WEIGHT_TOLERANCE = 1e-3
#: The default ``scale_tolerance`` of :func:`load_gltf`: a local matrix ``A`` is taken as a
#: similarity (rotation times uniform scale) when its axis scales (column lengths ``s_i``) spread
#: by at most this fraction of their mean (``max s_i - min s_i <= tol * mean s``) and the cosine
#: of every pair of its axes is at most this (float32 exporters' noise is about 2e-5).
SIMILARITY_TOLERANCE = 1e-3
#: The largest ``scale_tolerance`` :func:`load_gltf` accepts.
MAX_SCALE_TOLERANCE = 0.1
# A tolerance of 0 still forgives float64 rounding of the folded matrices.
_TOLERANCE_FLOOR = 1e-9
#: ``extensionsRequired`` entries the reader accepts (they do not change skins, meshes'
#: positions or animations, or only widen the accessor types, which the reader decodes); every
#: ``KHR_materials_*`` extension is accepted too (materials are not read).
SUPPORTED_EXTENSIONS = frozenset({
    "KHR_mesh_quantization", "KHR_texture_transform", "KHR_texture_basisu", "EXT_texture_webp",
    "EXT_texture_avif", "KHR_lights_punctual", "KHR_materials_unlit", "KHR_xmp_json_ld"})

Arr = NDArray[Any]
F64 = NDArray[np.float64]
Json = dict[str, Any]

_MAX_RATE = 1000.0
_DEFAULT_RATE = 30.0
#: The default ``max_joint_frames`` of :func:`load_gltf`: the joint-frames all the clips of a
#: file may take together (a 128 MiB QTS array in all).
MAX_JOINT_FRAMES = 1 << 22
_MIN_CLIP_COST = 256              # joint-frames a clip costs at least (its fixed work)
_PRIMITIVE_COST = 1 << 10         # decode-budget bytes a skinned primitive costs at least
_SKIN_COST = 1 << 14              # decode-budget bytes a skin costs at least
_CHANNEL_COST = 1 << 8            # decode-budget bytes an animation channel costs at least
#: Matrices, translations and scales (nodes' ``matrix``, ``translation`` and ``scale``, inverse
#: bind matrices, animation outputs) must stay within +-this: larger values (or non-finite ones)
#: are a ValueError naming the accessor or node and the element.
MAX_MAGNITUDE = 1e18
_MAX_ZERO_BYTES = 1 << 26        # an accessor without a bufferView (zeros, sparse) at most 64 MB
_MAX_CHAIN_NODES = 1 << 18      # nodes in all the skins' folded chains (bounds the work)
_DECODE_FACTOR = 32               # decoded bytes allowed per byte of file (plus _DECODE_FLOOR)
_DECODE_FLOOR = 1 << 26
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_CHUNK = 1 << 16                 # joint-frames evaluated at a time (bounds the float64 scratch)

_COMPONENTS: dict[int, np.dtype[Any]] = {
    5120: np.dtype("<i1"), 5121: np.dtype("<u1"), 5122: np.dtype("<i2"),
    5123: np.dtype("<u2"), 5125: np.dtype("<u4"), 5126: np.dtype("<f4")}
_TYPES = {"SCALAR": (1, 1), "VEC2": (1, 2), "VEC3": (1, 3), "VEC4": (1, 4),
          "MAT2": (2, 2), "MAT3": (3, 3), "MAT4": (4, 4)}       # (columns, rows)
_NORM_SCALE = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}
_GLB_MAGIC, _JSON_CHUNK, _BIN_CHUNK = 0x46546C67, 0x4E4F534A, 0x004E4942
_PATH_SIZE = {"translation": 3, "rotation": 4, "scale": 3}


# --- small JSON checks ---------------------------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _get_list(d: Json, key: str, where: str) -> list[Any]:
    v = d.get(key, [])
    if not isinstance(v, list):
        raise ValueError(f"{where}.{key}: expected a JSON array, got {type(v).__name__}")
    return v


def _get_obj(lst: list[Any], i: int, where: str) -> Json:
    if not 0 <= i < len(lst):
        raise ValueError(f"{where}[{i}]: index out of range, the file has {len(lst)}")
    v = lst[i]
    if not isinstance(v, dict):
        raise ValueError(f"{where}[{i}]: expected a JSON object, got {type(v).__name__}")
    return v


def _get_int(d: Json, key: str, where: str, low: int = 0, high: int | None = None,
             default: int | None = None) -> int:
    v = d.get(key, default)
    if v is None:
        raise ValueError(f"{where}.{key}: required, missing")
    if not _is_int(v):
        raise ValueError(f"{where}.{key}: expected an integer, got {v!r:.40}")
    if v < low or (high is not None and v > high):
        span = f"{low} <= {key}" + (f" <= {high}" if high is not None else "")
        raise ValueError(f"{where}.{key}: expected {span}, got {v}")
    return int(v)


def _get_index(d: Json, key: str, where: str, count: int, what: str) -> int | None:
    v = d.get(key)
    if v is None:
        return None
    if not _is_int(v):
        raise ValueError(f"{where}.{key}: expected an index of {what}, got {v!r:.40}")
    if not 0 <= v < count:
        raise ValueError(f"{where}.{key}: {what}[{v}] does not exist (the file has {count})")
    return int(v)


def _get_numbers(d: Json, key: str, where: str, n: int, default: list[float]) -> list[float]:
    v = d.get(key)
    if v is None:
        return default
    if (not isinstance(v, list) or len(v) != n
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
        raise ValueError(f"{where}.{key}: expected {n} numbers, got {v!r:.60}")
    try:
        a = [float(x) for x in v]
    except OverflowError:
        a = [math.inf]
    if not all(math.isfinite(x) for x in a):
        raise ValueError(f"{where}.{key}: expected finite numbers, got {v!r:.60}")
    if not all(abs(x) <= MAX_MAGNITUDE for x in a):
        k = next(k for k, x in enumerate(a) if not abs(x) <= MAX_MAGNITUDE)
        raise ValueError(f"{where}.{key}[{k}]: {a[k]:g} is beyond the range +-{MAX_MAGNITUDE:g} "
                         "(MAX_MAGNITUDE)")
    return a


def _get_str(d: Json, key: str, where: str, default: str | None = None) -> str | None:
    v = d.get(key, default)
    if v is not None and not isinstance(v, str):
        raise ValueError(f"{where}.{key}: expected a string, got {type(v).__name__}")
    return v


# --- the document: JSON and buffers ----------------------------------------------------------------

class _Doc:
    node_objs: list[Any]          # the nodes read (_gltf_skins._Node)
    preorder: list[int]
    root_of: list[int]
    chain_nodes: int = 0
    spent: int = 0

    def __init__(self, path: Any) -> None:
        self.path = str(os.fsdecode(path))
        with open(self.path, "rb") as f:
            data = f.read()
        self.file_bytes = len(data)
        self.directory = os.path.dirname(os.path.abspath(self.path))
        self.bin: memoryview | None = None
        if data[:4] == b"glTF":
            text = self._glb(data)
        elif looks_like(data) != "JSON":
            raise ValueError(f"{self.path}: not a glTF/GLB file: it looks like {looks_like(data)} "
                             f"(starts with {preview(data)})")
        else:
            text = data
        try:
            j = json.loads(text.decode("utf-8-sig") if isinstance(text, bytes) else text)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{self.path}: the JSON is not UTF-8 ({exc})") from None
        except ValueError as exc:      # json.JSONDecodeError, or an integer of too many digits
            raise ValueError(f"{self.path}: malformed JSON: {exc}") from None
        except RecursionError:
            raise ValueError(f"{self.path}: malformed JSON: nested too deeply") from None
        if not isinstance(j, dict):
            raise ValueError(f"{self.path}: expected a JSON object at the top, got "
                             f"{type(j).__name__}")
        self.j = j
        asset = j.get("asset")
        version = asset.get("version") if isinstance(asset, dict) else None
        if not isinstance(version, str) or not version.startswith("2."):
            raise ValueError(f"asset.version: expected a glTF 2.x file, got {version!r:.40}")
        required = _get_list(j, "extensionsRequired", "glTF")
        for k, ext in enumerate(required):
            if not isinstance(ext, str) or (ext not in SUPPORTED_EXTENSIONS
                                            and not ext.startswith("KHR_materials_")):
                raise ValueError(f"extensionsRequired[{k}]: {ext!r:.60} is not supported "
                                 f"(supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))})")
        self.buffers_json = _get_list(j, "buffers", "glTF")
        self.views = _get_list(j, "bufferViews", "glTF")
        self.accessors = _get_list(j, "accessors", "glTF")
        self.nodes = _get_list(j, "nodes", "glTF")
        self.meshes = _get_list(j, "meshes", "glTF")
        self.skins = _get_list(j, "skins", "glTF")
        self.animations = _get_list(j, "animations", "glTF")
        self._buffers: dict[int, memoryview] = {}
        self._accessor_cache: dict[int, Arr] = {}

    def _glb(self, data: bytes) -> bytes:
        if len(data) < 20:
            raise ValueError(f"{self.path}: GLB header: {len(data)} bytes, expected at least 20")
        magic, version, length = struct.unpack_from("<III", data, 0)
        if version != 2:
            raise ValueError(f"{self.path}: GLB header: version {version}, expected 2")
        if length > len(data):
            raise ValueError(f"{self.path}: GLB header: length {length} exceeds the file's "
                             f"{len(data)} bytes")
        view = memoryview(data)[:length]
        pos = 12
        chunks: list[tuple[int, memoryview]] = []
        while pos + 8 <= length:
            clen, ctype = struct.unpack_from("<II", view, pos)
            if pos + 8 + clen > length:
                raise ValueError(f"{self.path}: GLB chunk {len(chunks)}: chunkLength {clen} at byte {pos} "
                                 f"exceeds the file's length {length}")
            chunks.append((ctype, view[pos + 8:pos + 8 + clen]))
            pos += 8 + clen
        if not chunks or chunks[0][0] != _JSON_CHUNK:
            raise ValueError(f"{self.path}: GLB chunk 0: expected the JSON chunk")
        if len(chunks) > 1 and chunks[1][0] == _BIN_CHUNK:
            self.bin = chunks[1][1]
        return bytes(chunks[0][1])

    def buffer(self, i: int) -> memoryview:
        if i in self._buffers:
            return self._buffers[i]
        where = f"buffers[{i}]"
        b = _get_obj(self.buffers_json, i, "buffers")
        length = _get_int(b, "byteLength", where, 1)
        uri = _get_str(b, "uri", where)
        data: bytes | memoryview
        if uri is None:
            if i != 0 or self.bin is None:
                raise ValueError(f"{where}: no uri and no GLB binary chunk")
            data = self.bin
        elif uri.startswith("data:"):
            head, comma, payload = uri.partition(",")
            if not comma or not head.endswith(";base64"):
                raise ValueError(f"{where}.uri: expected a base64 data URI")
            try:
                data = base64.b64decode(payload, validate=False)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"{where}.uri: bad base64 data ({exc})") from None
        else:
            data = self._external(uri, where, length)
        if len(data) < length:
            raise ValueError(f"{where}: byteLength {length} exceeds the {len(data)} bytes of its data")
        chunk = memoryview(data)[:length]
        self._buffers[i] = chunk
        return chunk

    def _external(self, uri: str, where: str, length: int) -> bytes:
        name = urllib.parse.unquote(uri)
        scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]+:", uri)
        if scheme or os.path.isabs(name) or name.startswith(("/", "\\")) \
                or (len(name) > 1 and name[1] == ":") or "\0" in name:
            raise ValueError(f"{where}.uri: {uri!r:.80} is not a relative path inside the "
                             "file's directory")
        base = os.path.realpath(self.directory)
        target = os.path.realpath(os.path.join(base, name))
        if os.path.commonpath([base, target]) != base or target == base:
            raise ValueError(f"{where}.uri: {uri!r:.80} leads outside the file's directory")
        if not os.path.isfile(target):
            raise ValueError(f"{where}.uri: {uri!r:.80}: no such file next to the glTF file")
        try:
            size = os.path.getsize(target)
            if size < length:
                raise ValueError(f"{where}: byteLength {length} exceeds the {size} bytes of "
                                 f"{uri!r:.80}")
            with open(target, "rb") as f:
                data = f.read(length)
        except OSError as exc:
            raise ValueError(f"{where}.uri: {uri!r:.80}: {exc.strerror or exc}") from None
        self.file_bytes += len(data)
        return data

    # --- accessors ---

    def view(self, v: int, where: str) -> tuple[memoryview, int | None]:
        bv = _get_obj(self.views, v, "bufferViews")
        vw = f"bufferViews[{v}]"
        b = _get_int(bv, "buffer", vw, 0, len(self.buffers_json) - 1)
        off = _get_int(bv, "byteOffset", vw, 0, default=0)
        length = _get_int(bv, "byteLength", vw, 1)
        stride = bv.get("byteStride")
        if stride is not None:
            stride = _get_int(bv, "byteStride", vw, 4, 252)
        data = self.buffer(b)
        if off + length > len(data):
            raise ValueError(f"{vw}: byteOffset + byteLength = {off + length} exceeds "
                             f"buffers[{b}].byteLength {len(data)}")
        return data[off:off + length], stride

    def accessor(self, i: int, where: str) -> Arr:
        """The accessor's elements (count, n) in its component dtype, sparse applied."""
        if i in self._accessor_cache:
            return self._accessor_cache[i]
        aw = f"accessors[{i}]"
        acc = _get_obj(self.accessors, i, "accessors")
        ct = _get_int(acc, "componentType", aw, 0)
        if ct not in _COMPONENTS:
            raise ValueError(f"{aw}.componentType: {ct} is not a glTF component type")
        typ = acc.get("type")
        if not isinstance(typ, str) or typ not in _TYPES:
            raise ValueError(f"{aw}.type: {typ!r:.40} is not a glTF accessor type")
        cols, rows = _TYPES[typ]
        dt = _COMPONENTS[ct]
        count = _get_int(acc, "count", aw, 1)
        n = cols * rows
        # matrix columns start on 4-byte boundaries
        col_bytes = rows * dt.itemsize
        col_stride = (col_bytes + 3) & ~3 if cols > 1 else col_bytes
        elem = col_stride * cols if cols > 1 else col_bytes
        v = _get_index(acc, "bufferView", aw, len(self.views), "bufferViews")
        if v is not None:
            data, stride = self.view(v, aw)
            stride = stride or elem
            off = _get_int(acc, "byteOffset", aw, 0, default=0)
            end = off + (count - 1) * stride + elem
            if end > len(data):
                raise ValueError(f"{aw}: byteOffset + (count - 1) * byteStride + element size = "
                                 f"{end} exceeds bufferViews[{v}].byteLength {len(data)}")
            if stride < elem:
                raise ValueError(f"{aw}: bufferViews[{v}].byteStride {stride} is smaller than "
                                 f"the element size {elem}")
            arr = np.ndarray((count, cols, rows), dtype=dt, buffer=data, offset=off,
                             strides=(stride, col_stride, dt.itemsize))
            arr = np.array(arr.reshape(count, n) if cols == 1 else arr, order="C")
            arr = arr.reshape(count, n)
        else:
            if count * elem > _MAX_ZERO_BYTES:
                raise ValueError(f"{aw}: count {count} without a bufferView would take "
                                 f"{count * elem} bytes, more than {_MAX_ZERO_BYTES}")
            arr = np.zeros((count, n), dtype=dt)
        sparse = acc.get("sparse")
        if sparse is not None:
            arr = self._sparse(arr, sparse, aw, dt, n)
        if dt.kind == "f" and not np.isfinite(arr).all():
            k = int(np.argmax(~np.isfinite(arr).all(axis=1)))
            bad = arr[k][~np.isfinite(arr[k])][0]
            raise ValueError(f"{aw}: non-finite value {bad} in element {k} (nan or inf)")
        self.spend(arr.nbytes, aw)
        self._accessor_cache[i] = arr
        return arr

    def _sparse(self, arr: Arr, sparse: Any, aw: str, dt: np.dtype[Any], n: int) -> Arr:
        sw = f"{aw}.sparse"
        if not isinstance(sparse, dict):
            raise ValueError(f"{sw}: expected a JSON object")
        count = _get_int(sparse, "count", sw, 1, len(arr))
        ind, val = sparse.get("indices"), sparse.get("values")
        if not isinstance(ind, dict) or not isinstance(val, dict):
            raise ValueError(f"{sw}: expected indices and values objects")
        ict = _get_int(ind, "componentType", f"{sw}.indices", 0)
        if ict not in (5121, 5123, 5125):
            raise ValueError(f"{sw}.indices.componentType: expected 5121, 5123 or 5125, got {ict}")
        parts = []
        for obj, name, pdt, width in ((ind, "indices", _COMPONENTS[ict], 1),
                                      (val, "values", dt, n)):
            w = f"{sw}.{name}"
            v = _get_index(obj, "bufferView", w, len(self.views), "bufferViews")
            if v is None:
                raise ValueError(f"{w}.bufferView: required, missing")
            data, _ = self.view(v, w)
            off = _get_int(obj, "byteOffset", w, 0, default=0)
            size = count * width * pdt.itemsize
            if off + size > len(data):
                raise ValueError(f"{w}: byteOffset + count * element size = {off + size} exceeds "
                                 f"bufferViews[{v}].byteLength {len(data)}")
            parts.append(np.frombuffer(data, dtype=pdt, count=count * width, offset=off)
                         .reshape(count, width))
        idx = parts[0][:, 0].astype(np.int64)
        if idx.size and int(idx.max()) >= len(arr):
            k = int(np.argmax(idx >= len(arr)))
            raise ValueError(f"{sw}.indices: index {int(idx[k])} at position {k} exceeds the "
                             f"accessor's count {len(arr)}")
        arr = arr.copy()
        arr[idx] = parts[1]
        return arr

    def release(self) -> None:
        """Drop the file's bytes and decoded accessors (kept only while loading)."""
        self._buffers.clear()
        self._accessor_cache.clear()
        self.bin = None

    def spend(self, nbytes: int, where: str) -> None:
        """Counts decoded bytes: a file whose accessors are read over and over (many meshes or
        channels on the same data) stops at a bound proportional to its size."""
        self.spent += nbytes
        budget = _DECODE_FACTOR * self.file_bytes + _DECODE_FLOOR
        if self.spent > budget:
            raise ValueError(f"{where}: decoding the file (accessors, skins, primitives, "
                             f"channels) takes more than {budget} "
                             f"bytes ({_DECODE_FACTOR} x its size + {_DECODE_FLOOR})")

    def floats(self, i: int, where: str, allowed: set[int], types: tuple[str, ...],
               bounded: bool = False) -> F64:
        """Accessor i as float64 (count, n) with normalized integers decoded; `allowed` is the
        set of component types, `types` the accessor types accepted; `bounded`: every value
        within +-MAX_MAGNITUDE (ValueError naming the accessor and the element)."""
        arr = self.accessor(i, where)
        acc = self.accessors[i]
        ct, typ = acc["componentType"], acc["type"]
        if typ not in types:
            raise ValueError(f"{where}: accessors[{i}].type {typ} is not allowed here "
                             f"(expected {' or '.join(types)})")
        if ct not in allowed:
            raise ValueError(f"{where}: accessors[{i}].componentType {ct} is not allowed here "
                             f"(expected one of {sorted(allowed)})")
        self.spend(arr.size * 8, where)
        out = arr.astype(np.float64)
        if ct != 5126 and acc.get("normalized", False) is True:
            out = np.maximum(out / _NORM_SCALE[ct], -1.0)
        if bounded and len(out) and not (np.abs(out) <= MAX_MAGNITUDE).all():
            k = int(np.argmax(~(np.abs(out) <= MAX_MAGNITUDE).all(axis=1)))
            bad = out[k][~(np.abs(out[k]) <= MAX_MAGNITUDE)][0]
            raise ValueError(f"{where}: accessors[{i}] element {k} holds {bad:g}, beyond the "
                             f"range +-{MAX_MAGNITUDE:g} (MAX_MAGNITUDE)")
        return out


