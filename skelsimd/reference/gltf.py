"""A float64 reference evaluation of a glTF 2.0 file's node tree, written for clarity.

It shares no code with :mod:`skelsimd.io.gltf`: its own minimal file and accessor reader
(``struct`` element by element), node matrices from T/R/S or ``matrix``, channel sampling
(STEP, LINEAR with shortest-arc slerp, CUBICSPLINE Hermite), world matrices by recursion from
the scene roots, joint matrices ``world x inverse bind`` and linear-blend skinning with
weights divided by their sum (a zero row takes its first influence). Trusted input only: it
checks nothing.
"""
import base64
import json
import math
import os
import struct
from typing import Any

import numpy as np

from .._typing import Float64Array

_Json = dict[str, Any]

__all__ = ["Document", "read_accessor", "sample_channel", "node_matrix", "world_matrices",
           "joint_matrices", "skinned_vertices"]

_FORMATS = {5120: "b", 5121: "B", 5122: "h", 5123: "H", 5125: "I", 5126: "f"}
_SIZES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
_SHAPES = {"SCALAR": (1, 1), "VEC2": (1, 2), "VEC3": (1, 3), "VEC4": (1, 4),
           "MAT2": (2, 2), "MAT3": (3, 3), "MAT4": (4, 4)}


class Document:
    """A glTF file's JSON (``json``) and its buffers (``buffers``, bytes)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        with open(path, "rb") as f:
            data = f.read()
        glb_bin: bytes | None = None
        self.json: _Json
        if data[:4] == b"glTF":
            pos = 12
            chunks = []
            while pos < len(data):
                length, kind = struct.unpack("<II", data[pos:pos + 8])
                chunks.append(data[pos + 8:pos + 8 + length])
                pos += 8 + length
            self.json = json.loads(chunks[0])
            glb_bin = chunks[1] if len(chunks) > 1 else None
        else:
            self.json = json.loads(data)
        self.buffers: list[bytes | None] = []
        for b in self.json.get("buffers", []):
            uri = b.get("uri")
            if uri is None:
                self.buffers.append(glb_bin)
            elif uri.startswith("data:"):
                self.buffers.append(base64.b64decode(uri.split(",", 1)[1]))
            else:
                from urllib.parse import unquote
                with open(os.path.join(os.path.dirname(path), unquote(uri)), "rb") as f:
                    self.buffers.append(f.read())
        self.parent: dict[int, int] = {}
        for i, node in enumerate(self.json.get("nodes", [])):
            for c in node.get("children", []):
                self.parent[c] = i


def _read_elements(doc: Document, view_index: int, offset: int, count: int, component: int,
                   columns: int, rows: int, stride: int | None = None) -> list[list[float]]:
    """`count` elements of `columns` x `rows` components read one by one (matrix columns
    padded to 4 bytes), as a list of flat lists (column-major)."""
    view = doc.json["bufferViews"][view_index]
    data = doc.buffers[view["buffer"]]
    assert data is not None                    # trusted input: the buffer exists
    start = view.get("byteOffset", 0) + offset
    size = _SIZES[component]
    column_bytes = rows * size
    if columns > 1:
        column_bytes = (column_bytes + 3) // 4 * 4
    element_bytes = column_bytes * columns if columns > 1 else rows * size
    if stride is None:
        stride = view.get("byteStride") or element_bytes
    out = []
    for e in range(count):
        values: list[float] = []
        for c in range(columns):
            for r in range(rows):
                at = start + e * stride + c * column_bytes + r * size
                values.append(struct.unpack("<" + _FORMATS[component], data[at:at + size])[0])
        out.append(values)
    return out


def read_accessor(doc: Document, index: int) -> Float64Array:
    """Accessor `index` as float64 (count, components): normalized integers decoded, sparse
    values substituted."""
    acc = doc.json["accessors"][index]
    columns, rows = _SHAPES[acc["type"]]
    component = acc["componentType"]
    count = acc["count"]
    if "bufferView" in acc:
        elements = _read_elements(doc, acc["bufferView"], acc.get("byteOffset", 0), count,
                                  component, columns, rows)
    else:
        elements = [[0.0] * (columns * rows) for _ in range(count)]
    sparse = acc.get("sparse")
    if sparse:
        n = sparse["count"]
        ind, val = sparse["indices"], sparse["values"]
        indices = _read_elements(doc, ind["bufferView"], ind.get("byteOffset", 0), n,
                                 ind["componentType"], 1, 1, stride=_SIZES[ind["componentType"]])
        values = _read_elements(doc, val["bufferView"], val.get("byteOffset", 0), n,
                                component, columns, rows)
        for (i,), v in zip(indices, values):
            elements[int(i)] = v
    out = np.array(elements, dtype=np.float64)
    if acc.get("normalized"):
        scale = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}[component]
        out = np.maximum(out / scale, -1.0)
    return out


def _quat_matrix(q: Float64Array) -> Float64Array:
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _slerp(a: Float64Array, b: Float64Array, u: float) -> Float64Array:
    if np.dot(a, b) < 0:
        b = -b
    cos = min(1.0, float(np.dot(a, b)))
    theta = math.acos(cos)
    if math.sin(theta) < 1e-9:
        q = (1 - u) * a + u * b
    else:
        q = (math.sin((1 - u) * theta) * a + math.sin(u * theta) * b) / math.sin(theta)
    unit: Float64Array = q / np.linalg.norm(q)
    return unit


def sample_channel(doc: Document, animation: int, channel: int, t: float) -> Float64Array:
    """The value (float64 vector) of channel `channel` of animation `animation` at time t."""
    anim = doc.json["animations"][animation]
    ch = anim["channels"][channel]
    sampler = anim["samplers"][ch["sampler"]]
    times = read_accessor(doc, sampler["input"])[:, 0]
    values = read_accessor(doc, sampler["output"])
    mode = sampler.get("interpolation", "LINEAR")
    n = len(times)
    values = values.reshape(n * (3 if mode == "CUBICSPLINE" else 1), -1)
    rotation: bool = ch["target"]["path"] == "rotation"

    def key(k: int, part: int = 1) -> Float64Array:  # part: 0 in-tangent, 1 value, 2 out-tangent (CUBICSPLINE)
        v: Float64Array = values[3 * k + part] if mode == "CUBICSPLINE" else values[k]
        return v / np.linalg.norm(v) if rotation and part == 1 else v

    if t <= times[0]:
        return key(0)
    if t >= times[-1]:
        return key(n - 1)
    k = max(i for i in range(n) if times[i] <= t)
    if mode == "STEP":
        return key(k)
    dt = times[k + 1] - times[k]
    u = float((t - times[k]) / dt)
    if mode == "LINEAR":
        if rotation:
            return _slerp(key(k), key(k + 1), u)
        return (1 - u) * key(k) + u * key(k + 1)
    h00, h10 = 2 * u ** 3 - 3 * u ** 2 + 1, u ** 3 - 2 * u ** 2 + u
    h01, h11 = -2 * u ** 3 + 3 * u ** 2, u ** 3 - u ** 2
    v: Float64Array = (h00 * key(k) + h10 * dt * key(k, 2) + h01 * key(k + 1) + h11 * dt * key(k + 1, 0))
    return v / np.linalg.norm(v) if rotation else v


def node_matrix(doc: Document, node: int, animation: int | None = None, t: float = 0.0) -> Float64Array:
    """Node `node`'s local 4x4 matrix (float64), animated by `animation` at time t."""
    nd = doc.json["nodes"][node]
    if "matrix" in nd:
        return np.array(nd["matrix"], dtype=np.float64).reshape(4, 4).T
    trs = {"translation": np.array(nd.get("translation", [0, 0, 0]), dtype=np.float64),
           "rotation": np.array(nd.get("rotation", [0, 0, 0, 1]), dtype=np.float64),
           "scale": np.array(nd.get("scale", [1, 1, 1]), dtype=np.float64)}
    if animation is not None:
        for c, ch in enumerate(doc.json["animations"][animation]["channels"]):
            target = ch["target"]
            if target.get("node") == node and target["path"] in trs:
                trs[target["path"]] = sample_channel(doc, animation, c, t)
    m = np.eye(4)
    m[:3, :3] = _quat_matrix(trs["rotation"]) @ np.diag(trs["scale"])
    m[:3, 3] = trs["translation"]
    return m


def world_matrices(doc: Document, animation: int | None = None,
                   t: float = 0.0) -> dict[int, Float64Array]:
    """{node: world 4x4} of every node: the product of the local matrices from its root."""
    out: dict[int, Float64Array] = {}

    def world(n: int) -> Float64Array:
        if n not in out:
            p = doc.parent.get(n)
            local = node_matrix(doc, n, animation, t)
            out[n] = local if p is None else world(p) @ local
        return out[n]
    for n in range(len(doc.json.get("nodes", []))):
        world(n)
    return out


def joint_matrices(doc: Document, skin: int, animation: int | None = None,
                   t: float = 0.0) -> Float64Array:
    """(J, 4, 4) world x inverse bind of skin `skin`'s joints, in the file's joint order."""
    sk = doc.json["skins"][skin]
    worlds = world_matrices(doc, animation, t)
    if "inverseBindMatrices" in sk:
        ibm = read_accessor(doc, sk["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1)
    else:
        ibm = np.array([np.eye(4)] * len(sk["joints"]))
    return np.array([worlds[j] @ ibm[k] for k, j in enumerate(sk["joints"])])


def skinned_vertices(doc: Document, node: int, primitive: int, animation: int | None = None,
                     t: float = 0.0) -> Float64Array:
    """(V, 3) positions of primitive `primitive` of node `node`'s mesh skinned by the node's
    skin (the node's own transform ignored), linear-blend skinning in float64."""
    nd = doc.json["nodes"][node]
    prim = doc.json["meshes"][nd["mesh"]]["primitives"][primitive]
    attrs = prim["attributes"]
    positions = read_accessor(doc, attrs["POSITION"])
    joints = np.concatenate([read_accessor(doc, attrs[f"JOINTS_{k}"])
                             for k in range(8) if f"JOINTS_{k}" in attrs], axis=1).astype(int)
    weights = np.concatenate([read_accessor(doc, attrs[f"WEIGHTS_{k}"])
                              for k in range(8) if f"WEIGHTS_{k}" in attrs], axis=1)
    mats = joint_matrices(doc, nd["skin"], animation, t)
    out = np.empty((len(positions), 3))
    for v in range(len(positions)):
        w = weights[v]
        total = w.sum()
        if total == 0:
            w = np.zeros_like(w)
            w[0] = 1.0
            total = 1.0
        m = sum(w[k] / total * mats[joints[v, k]] for k in range(len(w)))
        out[v] = (m @ np.append(positions[v], 1.0))[:3]
    return out
