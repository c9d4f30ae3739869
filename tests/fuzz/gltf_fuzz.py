"""A mutation fuzzer for the glTF reader (skelsimd.load_gltf).

Seeds: the real files in tests/data/gltf (``.gltf`` with their ``.bin``, ``.glb``) and the
synthetic character of tests/gltf_files.py written as ``.gltf`` (data URI), ``.gltf`` + ``.bin``
and ``.glb``. Each case applies 1 to 4 random mutations:

* JSON edits: a value anywhere in the document replaced (huge, negative, zero, off-by-one
  integers, floats, NaN, strings, null, lists, objects, deep nesting), deleted, or a list
  element duplicated, dropped or swapped; node children pointing anywhere (two parents,
  cycles); accessor fields (componentType, type, count, byteOffset, normalized, sparse) and
  buffer view fields (byteStride, byteLength) changed; extensionsRequired entries added; buffer
  URIs pointing outside the directory;
* byte edits: flips, inserts, deletions and truncation of the binary buffer (the ``.bin`` file,
  the GLB binary chunk or the data URI's payload) and of the file itself.

and checks:

* load_gltf returns an asset or raises ValueError, within a time bound and a bounded peak of
  traced memory (several times the file's size, at least MEMORY_FLOOR);
* the asset's clips (when their joint-frames are few) build or raise ValueError, and every
  mesh skins with the first clip's palette (``skelsimd.skin`` accepts what the reader gives);
* no crash and no hang (the runner, tests/fuzz/run.py, runs this in a child process).

Case i of seed s replays alone: ``python tests/fuzz/gltf_fuzz.py --seed S --case I --show``.
"""
import base64
import copy
import glob
import json
import os
import shutil
import sys
import tempfile
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:     # last: a PYTHONPATH entry (the sanitizer build) comes first
    sys.path.append(ROOT)
sys.path.append(os.path.join(ROOT, "tests"))

import driver  # noqa: E402
import skelsimd  # noqa: E402
from gltf_files import character  # noqa: E402

SECONDS_PER_CASE = 10.0
MEMORY_PER_BYTE = 64
MEMORY_FLOOR = 256 << 20          # the reader may decode up to 64 MB (plus float64 copies)
MAX_CLIP_JOINT_FRAMES = 200_000   # clips larger than this are not built by the fuzzer

SEEDS = None


def seeds():
    """(kind, json dict, binary bytes) for every seed; kind "gltf" (data URI), "external" or
    "glb"."""
    out = []
    data_dir = os.path.join(ROOT, "tests", "data", "gltf")
    for path in sorted(glob.glob(os.path.join(data_dir, "*.gltf"))
                       + glob.glob(os.path.join(data_dir, "*.glb"))):
        with open(path, "rb") as f:
            raw = f.read()
        if raw[:4] == b"glTF":
            import struct
            n = struct.unpack_from("<I", raw, 12)[0]
            doc = json.loads(raw[20:20 + n])
            blen = struct.unpack_from("<I", raw, 20 + n)[0]
            binary = raw[28 + n:28 + n + blen]
            out.append(("glb", doc, binary))
            continue
        doc = json.loads(raw)
        if len(raw) > 100_000:
            continue
        uri = doc["buffers"][0].get("uri", "")
        if uri.startswith("data:"):
            out.append(("gltf", doc, base64.b64decode(uri.split(",", 1)[1])))
        else:
            with open(os.path.join(data_dir, uri), "rb") as f:
                out.append(("external", doc, f.read()))
    for kind in ("gltf", "external", "glb"):
        doc, binary = character().document(kind)
        out.append((kind, doc, binary))
    return out


def _paths(node, prefix=()):
    """Every (container, key) of a JSON tree."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append((node, k))
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append((node, i))
            out += _paths(v, prefix + (i,))
    return out


def _value(rng, old):
    choices = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 255, 256, 65535, 2 ** 31, 2 ** 32 + 1, 2 ** 63,
               10 ** 30, 10 ** 400, 1.5, -0.0, 1e308, float("nan"), float("inf"), "", "x",
               "data:application/octet-stream;base64,AAAA", "../x.bin", "/etc/passwd",
               None, [], {}, True, [0] * 16, [1, 2], {"a": 1}, [[[[[[]]]]]],
               5120, 5121, 5122, 5123, 5125, 5126, "SCALAR", "VEC3", "VEC4", "MAT4",
               "STEP", "CUBICSPLINE", "rotation", "weights"]
    if isinstance(old, bool):
        return not old
    if isinstance(old, int) and rng.integers(2):
        return old + int(rng.choice([-1, 1, 3, 4, 1000, -1000, 10 ** 9]))
    if isinstance(old, float) and rng.integers(2):
        return old * float(rng.choice([-1.0, 0.0, 1e6, 1.0000001]))
    return copy.deepcopy(choices[int(rng.integers(len(choices)))])


def mutate_json(doc, rng):
    kind = int(rng.integers(8))
    if kind == 0:       # children anywhere
        nodes = doc.get("nodes") or []
        if nodes and isinstance(nodes, list):
            n = nodes[int(rng.integers(len(nodes)))]
            if isinstance(n, dict):
                n["children"] = [int(x) for x in rng.integers(0, len(nodes) + 1,
                                                              int(rng.integers(1, 4)))]
        return doc
    if kind == 1:       # an accessor or buffer view field
        for key, fields in (("accessors", ["componentType", "type", "count", "byteOffset",
                                           "normalized", "bufferView"]),
                            ("bufferViews", ["byteStride", "byteLength", "byteOffset",
                                             "buffer"])):
            lst = doc.get(key)
            if isinstance(lst, list) and lst and rng.integers(2):
                a = lst[int(rng.integers(len(lst)))]
                if isinstance(a, dict):
                    f = fields[int(rng.integers(len(fields)))]
                    a[f] = _value(rng, a.get(f, 0))
                return doc
        return doc
    if kind == 2:       # a sparse substitution
        acc = doc.get("accessors")
        if isinstance(acc, list) and acc and isinstance(acc[0], dict):
            a = acc[int(rng.integers(len(acc)))]
            if isinstance(a, dict):
                a["sparse"] = {"count": int(rng.integers(1, 5)),
                               "indices": {"bufferView": int(rng.integers(0, 5)),
                                           "componentType": int(rng.choice([5121, 5123, 5125])),
                                           "byteOffset": int(rng.integers(0, 8))},
                               "values": {"bufferView": int(rng.integers(0, 5))}}
        return doc
    if kind == 3:
        doc.setdefault("extensionsRequired", []).append(
            str(rng.choice(["KHR_draco_mesh_compression", "KHR_mesh_quantization",
                            "EXT_meshopt_compression"])))
        return doc
    paths = _paths(doc)
    if not paths:
        return doc
    container, key = paths[int(rng.integers(len(paths)))]
    if kind == 4 and isinstance(container, dict):
        del container[key]
    elif kind == 5 and isinstance(container, list):
        op = int(rng.integers(3))
        if op == 0:
            container.append(copy.deepcopy(container[key]))
        elif op == 1:
            del container[key]
        elif len(container) > 1:
            j = int(rng.integers(len(container)))
            container[key], container[j] = container[j], container[key]
    else:
        container[key] = _value(rng, container[key])
    return doc


def mutate_bytes(data, rng):
    data = bytearray(data)
    if not data:
        return bytes(data)
    op = int(rng.integers(4))
    i = int(rng.integers(len(data)))
    if op == 0:
        for _ in range(int(rng.integers(1, 16))):
            j = int(rng.integers(len(data)))
            data[j] = int(rng.integers(256))
    elif op == 1:
        del data[i:i + int(rng.integers(1, 64))]
    elif op == 2:
        data[i:i] = bytes(rng.integers(0, 256, int(rng.integers(1, 16)), dtype=np.uint8))
    else:
        del data[i:]
    return bytes(data)


def build_case(seed, index):
    """(kind, file bytes, bin bytes or None) of one case."""
    global SEEDS
    if SEEDS is None:
        SEEDS = seeds()
    rng = np.random.default_rng([seed, index])
    kind, doc, binary = SEEDS[int(rng.integers(len(SEEDS)))]
    doc = copy.deepcopy(doc)
    file_edit = False
    for _ in range(int(rng.choice([1, 1, 1, 2, 3, 4]))):
        r = int(rng.integers(10))
        if r < 6:
            doc = mutate_json(doc, rng)
        elif r < 9:
            binary = mutate_bytes(binary, rng)
        else:
            file_edit = True
    if kind == "gltf" and isinstance(doc.get("buffers"), list) and doc["buffers"] \
            and isinstance(doc["buffers"][0], dict) and \
            str(doc["buffers"][0].get("uri", "")).startswith("data:"):
        doc["buffers"][0]["uri"] = ("data:application/octet-stream;base64,"
                                    + base64.b64encode(binary).decode())
    try:
        text = json.dumps(doc).encode()
    except (ValueError, RecursionError):
        text = b"{"
    if kind == "glb":
        import struct
        text += b" " * (-len(text) % 4)
        bpad = binary + b"\0" * (-len(binary) % 4)
        body = struct.pack("<II", len(text), 0x4E4F534A) + text
        body += struct.pack("<II", len(bpad), 0x004E4942) + bpad
        data = struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body
        extra = None
    else:
        data = text
        extra = binary if kind == "external" else None
    if file_edit:
        data = mutate_bytes(data, rng)
    return kind, data, extra, doc


def _write(directory, kind, data, extra, doc):
    name = "case.glb" if kind == "glb" else "case.gltf"
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)
    if extra is not None:
        uri = None
        try:
            uri = doc["buffers"][0]["uri"]
        except (KeyError, IndexError, TypeError):
            pass
        if isinstance(uri, str) and "/" not in uri and "\\" not in uri and uri \
                and not uri.startswith("data:") and len(uri) < 200 and uri not in (".", ".."):
            try:
                with open(os.path.join(directory, uri), "wb") as f:
                    f.write(extra)
            except OSError:
                pass
    return os.path.join(directory, name)


def run_case(seed, index, directory):
    """(outcome, failure or None) of one case."""
    kind, data, extra, doc = build_case(seed, index)
    for entry in os.listdir(directory):
        p = os.path.join(directory, entry)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)
    path = _write(directory, kind, data, extra, doc)
    size = len(data) + (len(extra) if extra else 0)
    outcome, asset, failure = driver.bounded(
        "load_gltf", lambda: skelsimd.load_gltf(path), ok="loaded",
        expected={ValueError: "ValueError"}, seconds=SECONDS_PER_CASE,
        peak_bytes=max(MEMORY_FLOOR, MEMORY_PER_BYTE * size), on=f" on {size} bytes", quiet=True)
    if failure:
        return outcome, failure
    if asset is None:
        return outcome, None
    try:
        for a, s in asset.clip_pairs():
            rate = asset.sample_rate_of(a)
            frames = asset.animations[a].duration * rate + 1
            if frames * len(asset.skins[s].nodes) > MAX_CLIP_JOINT_FRAMES:
                continue
            try:
                clip = asset.clip(a, s)
            except ValueError:
                outcome = "clip ValueError"
                continue
            if not np.isfinite(clip.local).all():
                return outcome, f"clip {a}, {s} has non-finite poses"
            g = skelsimd.qts_local_to_global_matrix(clip.local[:1], clip.skeleton)
            palette = skelsimd.multiply_joints(g, asset.skins[s].inverse_bind)
            for m in asset.meshes:
                if m.skin == s:
                    if m.joint_indices.shape[1] > 12:
                        try:
                            m = m.compact_influences()
                        except ValueError:
                            continue
                    skelsimd.skin(m.positions, m.joint_indices, m.weights, palette)
                    if m.triangles.size and m.triangles.max() >= len(m.positions):
                        return outcome, f"{m.name}: a triangle index past the vertices"
    except Exception as exc:  # noqa: BLE001
        return outcome, f"clips/skinning of a loaded asset: {type(exc).__name__}: {exc}\n" + \
            traceback.format_exc(limit=6)
    return outcome, None


def main(argv=None):
    args = driver.arguments(__doc__.split("\n")[0], argv)
    directory = tempfile.mkdtemp(prefix="skelsimd-gltf-fuzz-")

    def replay(seed, case, show):
        kind, data, extra, _ = build_case(seed, case)
        if show:
            print(f"case {seed}:{case}: {kind}, {len(data)} bytes")
            print(data[:3000].decode("latin-1"))
        print(run_case(seed, case, directory))
    try:
        return driver.run("gltf", args, lambda seed, i: (None, *run_case(seed, i, directory)),
                          replay)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
