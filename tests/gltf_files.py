"""A tiny glTF 2.0 writer for the tests (edge cases the real assets lack) and a synthetic
character that uses most of what the specification allows."""
import base64
import json
import os
import struct

import numpy as np

_CT = {np.dtype(np.int8): 5120, np.dtype(np.uint8): 5121, np.dtype(np.int16): 5122,
       np.dtype(np.uint16): 5123, np.dtype(np.uint32): 5125, np.dtype(np.float32): 5126}
_TYPE = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}


class Builder:
    """Collects JSON and one binary buffer; ``accessor(array)`` appends a (count, n) array."""

    def __init__(self):
        self.bin = bytearray()
        self.json = {"asset": {"version": "2.0"}, "buffers": [], "bufferViews": [],
                     "accessors": [], "nodes": [], "meshes": [], "skins": [], "animations": [],
                     "scenes": [{"nodes": []}], "scene": 0}

    def view(self, data, stride=None):
        while len(self.bin) % 4:
            self.bin.append(0)
        v = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if stride:
            v["byteStride"] = stride
        self.bin += data
        self.json["bufferViews"].append(v)
        return len(self.json["bufferViews"]) - 1

    def accessor(self, array, *, normalized=False, stride=None, sparse=None, mat4=False):
        a = np.ascontiguousarray(array)
        if a.ndim == 1:
            a = a[:, None]
        a = a.reshape(len(a), -1)
        count, n = a.shape
        acc = {"componentType": _CT[a.dtype], "count": count,
               "type": "MAT4" if mat4 else _TYPE[n]}
        if normalized:
            acc["normalized"] = True
        if sparse is not None:     # sparse=(indices, values): base is `array`, then substituted
            idx, vals = sparse
            iv = self.view(np.asarray(idx, np.uint16).tobytes())
            vv = self.view(np.ascontiguousarray(vals, a.dtype).tobytes())
            acc["sparse"] = {"count": len(idx), "indices": {"bufferView": iv, "componentType": 5123},
                             "values": {"bufferView": vv}}
        if stride:
            elem = a.dtype.itemsize * n
            rows = [r.tobytes() + b"\xee" * (stride - elem) for r in a]
            acc["bufferView"] = self.view(b"".join(rows), stride)
        else:
            acc["bufferView"] = self.view(a.tobytes())
        if acc["componentType"] == 5126 and n <= 4 and not mat4:
            acc["min"] = a.min(axis=0).tolist()
            acc["max"] = a.max(axis=0).tolist()
        self.json["accessors"].append(acc)
        return len(self.json["accessors"]) - 1

    def node(self, **fields):
        self.json["nodes"].append(fields)
        return len(self.json["nodes"]) - 1

    def document(self, kind="gltf", name="x"):
        """(json dict, files {name: bytes}) for kind "gltf" (data URI), "external" or "glb"."""
        doc = json.loads(json.dumps(self.json))
        binary = bytes(self.bin) + b"\0" * (-len(self.bin) % 4)
        buf = {"byteLength": len(binary)}
        if kind == "gltf":
            buf["uri"] = "data:application/octet-stream;base64," + base64.b64encode(binary).decode()
        elif kind == "external":
            buf["uri"] = name + ".bin"
        doc["buffers"] = [buf]
        doc = {k: v for k, v in doc.items() if v != []}
        return doc, binary

    def write(self, directory, kind="gltf", name="x"):
        doc, binary = self.document(kind, name)
        return write_document(directory, doc, binary, kind, name)


def write_document(directory, doc, binary, kind="gltf", name="x"):
    os.makedirs(directory, exist_ok=True)
    if kind == "glb":
        text = json.dumps(doc).encode()
        text += b" " * (-len(text) % 4)
        body = struct.pack("<II", len(text), 0x4E4F534A) + text
        body += struct.pack("<II", len(binary), 0x004E4942) + binary
        path = os.path.join(directory, name + ".glb")
        with open(path, "wb") as f:
            f.write(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)
        return path
    if kind == "external":
        with open(os.path.join(directory, name + ".bin"), "wb") as f:
            f.write(binary)
    path = os.path.join(directory, name + ".gltf")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def _quat(axis, angle):
    axis = np.asarray(axis, np.float64)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([axis * np.sin(angle / 2), [np.cos(angle / 2)]])


def _column_major(m):
    return np.asarray(m, np.float64).T.reshape(-1).tolist()


def character(rng=None, *, nonuniform=False, unnormalized=False, quantized_rotation=False,
              hip_scale=None):
    """A Builder holding a synthetic character:

    nodes: 0 'world' (matrix root: rotation, translation, uniform scale 2) > 1 'armature'
    (non-joint, animated translation) > 2 'hip' joint > 3 'spine' joint (CUBICSPLINE rotation)
    > 4 'gap' (non-joint between joints, STEP rotation) > 5 'head' joint (matrix); 3 > 6 'arm'
    joint (LINEAR rotation, sparse output, keys from 0.25 s); 0 > 7 'body' (skinned mesh, skin
    0, own transform ignored); 0 > 8 'hat' (skinned mesh, skin 1: spine, arm, head); 5 > 9
    'head' again (a name made unique, joint of skin 0).
    skins: 0 = hip, spine, head, arm, head(9) (file order shuffled), 1 = arm, head, spine.
    meshes: 0 three JOINTS/WEIGHTS sets (12 influences, <= 8 non-zero), sparse positions,
    interleaved byteStride positions/normals; 1 int16 positions (KHR_mesh_quantization),
    u8 normalized weights, a triangle strip and a fan.
    animations: 0 'move' (nodes 1, 3, 4, 6 and morph weights of node 7), 1 unnamed (node 6).
    """
    rng = np.random.default_rng(1) if rng is None else rng
    b = Builder()
    world = np.eye(4)
    rot = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]], float)
    world[:3, :3] = 2.0 * rot
    world[:3, 3] = [0.5, -0.25, 1.0]
    b.node(name="world", matrix=_column_major(world), children=[1, 7, 8])
    b.node(name="armature", translation=[0, 0.1, 0], children=[2])
    b.node(name="hip", translation=[0, 1, 0], rotation=_quat([1, 0, 0], 0.3).tolist(),
           children=[3], scale=(list(hip_scale) if hip_scale is not None
                                  else [1, 2, 1] if nonuniform else [1.5, 1.5, 1.5]))
    b.node(name="spine", translation=[0, 0.5, 0], children=[4, 6])
    b.node(name="gap", translation=[0, 0.4, 0.1], rotation=_quat([0, 1, 0], 0.2).tolist(),
           children=[5])
    head = np.eye(4)
    head[:3, :3] = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], float) * 0.8
    head[:3, 3] = [0, 0.3, 0]
    b.node(name="head", matrix=_column_major(head), children=[9])
    b.node(name="arm", translation=[0.4, 0.2, 0], rotation=_quat([0, 0, 1], -0.5).tolist())
    b.node(name="body", mesh=0, skin=0, translation=[5, 5, 5], scale=[3, 1, 2])
    b.node(name="hat", mesh=1, skin=1, rotation=_quat([1, 1, 0], 1.0).tolist())
    b.node(name="head", translation=[0, 0.2, 0])
    b.json["scenes"][0]["nodes"] = [0]

    # skins: file joint order differs from depth-first order
    joints0 = [6, 2, 5, 9, 3]
    ibm0 = np.stack([np.eye(4)] * 5)
    ibm0[:, :3, 3] = rng.uniform(-1, 1, (5, 3))
    ibm0[:, :3, :3] += rng.uniform(-0.1, 0.1, (5, 3, 3))
    b.json["skins"].append({"name": "main", "joints": joints0, "skeleton": 2,
                            "inverseBindMatrices": b.accessor(
                                ibm0.transpose(0, 2, 1).reshape(5, 16).astype(np.float32),
                                mat4=True)})
    b.json["skins"].append({"joints": [6, 5, 3]})          # no inverseBindMatrices: identity

    # mesh 0: 40 vertices, 3 sets of 4 influences (at most 8 non-zero per vertex)
    V = 40
    pos = rng.uniform(-1, 1, (V, 3)).astype(np.float32)
    nrm = rng.normal(size=(V, 3))
    nrm = (nrm / np.linalg.norm(nrm, axis=1, keepdims=True)).astype(np.float32)
    inter = np.concatenate([pos, nrm], axis=1)        # one view, byteStride 24
    view = b.view(inter.tobytes(), stride=24)
    acc_pos = {"bufferView": view, "byteOffset": 0, "componentType": 5126, "count": V,
               "type": "VEC3", "min": pos.min(0).tolist(), "max": pos.max(0).tolist()}
    acc_nrm = {"bufferView": view, "byteOffset": 12, "componentType": 5126, "count": V,
               "type": "VEC3"}
    # sparse substitution on positions: vertices 3 and 17 moved
    sp_idx = np.array([3, 17], np.uint16)
    sp_val = np.array([[0.5, 0.5, 0.5], [-0.5, 0.25, 0.0]], np.float32)
    acc_pos["sparse"] = {"count": 2,
                         "indices": {"bufferView": b.view(sp_idx.tobytes()), "componentType": 5123},
                         "values": {"bufferView": b.view(sp_val.tobytes())}}
    b.json["accessors"] += [acc_pos, acc_nrm]
    i_pos, i_nrm = len(b.json["accessors"]) - 2, len(b.json["accessors"]) - 1
    ji = rng.integers(0, 5, (V, 12)).astype(np.uint16)
    w = rng.uniform(0.1, 1, (V, 12))
    w[:, 8:] = 0
    w[::3, 2:6] = 0          # some zero weights in the middle sets
    w[1::4, 8] = 0.3         # a few vertices with a 9th... then drop another to keep <= 8
    w[1::4, 0] = 0
    if not unnormalized:
        w /= w.sum(axis=1, keepdims=True)
    else:
        w[5] *= 0.2
    w = w.astype(np.float32)
    attrs = {"POSITION": i_pos, "NORMAL": i_nrm}
    for k in range(3):
        attrs[f"JOINTS_{k}"] = b.accessor(ji[:, 4 * k:4 * k + 4])
        attrs[f"WEIGHTS_{k}"] = b.accessor(w[:, 4 * k:4 * k + 4])
    tri = rng.integers(0, V, (20, 3)).astype(np.uint16)
    b.json["meshes"].append({"name": "body", "weights": [0, 0], "primitives": [
        {"attributes": attrs, "indices": b.accessor(tri.reshape(-1))}]})

    # mesh 1: quantized positions, u8 normalized weights, a strip and a fan
    V1 = 10
    qpos = rng.integers(-300, 300, (V1, 3)).astype(np.int16)
    qw = np.zeros((V1, 4), np.uint8)
    qw[:, 0] = 200
    qw[:, 1] = 55
    qj = np.stack([np.arange(V1) % 3, (np.arange(V1) + 1) % 3, np.zeros(V1), np.zeros(V1)],
                  1).astype(np.uint8)
    a_pos = b.accessor(qpos)
    a_j = b.accessor(qj)
    a_w = b.accessor(qw, normalized=True)
    strip = b.accessor(np.arange(7, dtype=np.uint8))
    attrs1 = {"POSITION": a_pos, "JOINTS_0": a_j, "WEIGHTS_0": a_w}
    b.json["meshes"].append({"name": "hat", "primitives": [
        {"attributes": attrs1, "indices": strip, "mode": 5},
        {"attributes": attrs1, "mode": 6},
        {"attributes": attrs1, "mode": 1}]})
    b.json["extensionsUsed"] = ["KHR_mesh_quantization"]
    b.json["extensionsRequired"] = ["KHR_mesh_quantization"]

    # animation 0
    samplers, channels = [], []

    def channel(node, path, times, values, interp="LINEAR", sparse=None, int16=False):
        i = b.accessor(np.asarray(times, np.float32))
        if int16:      # normalized SHORT rotation keys (KHR_mesh_quantization allows them)
            o = b.accessor(np.round(np.asarray(values) * 32767).astype(np.int16), normalized=True)
        else:
            o = b.accessor(np.asarray(values, np.float32), sparse=sparse)
        samplers.append({"input": i, "output": o, "interpolation": interp})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": path}})

    t = np.arange(9) / 8.0                  # 8 Hz keys over 1 s
    channel(1, "translation", t, np.stack([np.sin(3 * t), 0.1 + 0 * t, 0.2 * t], 1))
    n = len(t)
    qs = np.array([_quat([0, 0, 1], 0.6 * np.sin(2 * x)) for x in t])
    tan = rng.uniform(-0.5, 0.5, (n, 2, 4))
    cubic = np.stack([tan[:, 0], qs, tan[:, 1]], 1).reshape(-1, 4)
    channel(3, "rotation", t, cubic, "CUBICSPLINE")
    channel(4, "rotation", t[::2], [_quat([1, 0, 0], 0.4 * k) for k in range(5)], "STEP")
    t6 = 0.25 + np.arange(5) / 8.0
    q6 = np.array([_quat([0, 1, 1], 0.5 + 0.9 * k) for k in range(5)])
    q6[2] = -q6[2]                          # the other hemisphere: shortest arc must flip it
    if quantized_rotation:
        channel(6, "rotation", t6, q6, int16=True)
    else:
        channel(6, "rotation", t6, q6, sparse=([1], [q6[1] * 0 + _quat([0, 1, 1], 0.8)]))
    channel(7, "weights", t[:3], rng.uniform(0, 1, 6))
    b.json["animations"].append({"name": "move", "samplers": samplers, "channels": channels})
    samplers, channels = [], []
    channel(6, "translation", [0.0, 0.5], [[0.4, 0.2, 0], [0.6, 0.3, 0.1]], "LINEAR")
    channel(6, "scale", [0.0, 0.5, 1.5], [[1, 1, 1], [2, 2, 2], [0.5, 0.5, 0.5]], "LINEAR")
    b.json["animations"].append({"samplers": samplers, "channels": channels})
    return b
