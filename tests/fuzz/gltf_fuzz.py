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

One case in HOSTILE_EVERY is instead a hostile shape of tests/gltf_files.py with random sizes
around the reader's limits (then mutated like the others half the time): a long chain of nodes
with many animations, many long animations, an animation of a huge duration, many channels,
many skinned nodes sharing a mesh of many primitives, non-finite and huge matrix entries
(inverse bind matrices, node matrices, translations, scales, keys).

and checks:

* load_gltf and then every clip (``asset.clips``) return or raise ValueError or OSError, each
  case within SECONDS_PER_CASE of CPU time and MEMORY_PER_CASE of address space, enforced by
  resource limits (RLIMIT_CPU, RLIMIT_AS: a case over them is stopped and reported), and
  within a peak of traced memory of several times the file's size (at least MEMORY_FLOOR, at
  most MEMORY_PER_CASE);
* every mesh skins with each clip's first palette (``skelsimd.skin`` accepts what the reader
  gives) and clips hold finite poses;
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
import gltf_files  # noqa: E402
from gltf_files import character  # noqa: E402

SECONDS_PER_CASE = 10.0          # CPU seconds: load and every clip
MEMORY_PER_CASE = 1 << 30         # address space a case may add
MEMORY_PER_BYTE = 64
MEMORY_FLOOR = 256 << 20          # the reader may decode up to 64 MB (plus float64 copies)
HOSTILE_EVERY = 8

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


def hostile(rng):
    """(name, Builder) of a hostile shape with random sizes around the reader's limits."""
    def log_int(low, high):
        return int(2 ** rng.uniform(np.log2(low), np.log2(high)))
    shape = int(rng.integers(6))
    if shape == 0:
        frames, joints = log_int(2, 2 ** 26), log_int(1, 64)
        return f"long_duration({frames}, {joints})", gltf_files.long_duration(frames, joints)
    if shape == 1:
        nodes, anims, joints = log_int(2, 300_000), log_int(1, 400), int(rng.integers(1, 6))
        joints = min(joints, nodes)
        return (f"long_chain({nodes}, {anims}, {joints})",
                gltf_files.long_chain(nodes, anims, joints))
    if shape == 2:
        anims, frames, joints = log_int(1, 64), log_int(2, 2 ** 20), log_int(1, 128)
        return (f"many_long_animations({anims}, {frames}, {joints})",
                gltf_files.many_long_animations(anims, frames, joints))
    if shape == 3:
        nodes = log_int(2, 100_000)
        return f"many_channels({nodes})", gltf_files.many_channels(nodes)
    if shape == 4:
        nodes, prims = log_int(1, 30_000), log_int(1, 4000)
        return f"many_mesh_nodes({nodes}, {prims})", gltf_files.many_mesh_nodes(nodes, prims)
    where = str(rng.choice(["inverse_bind", "matrix", "translation", "scale", "key"]))
    value = float(rng.choice([np.nan, np.inf, -np.inf, -3.4e38, 3.4e38, 1e19, -1e18, 1e300,
                              1e17, 1e-30]))
    return f"bad_matrix_entry({where!r}, {value!r})", gltf_files.bad_matrix_entry(where, value)


def build_case(seed, index):
    """(kind, file bytes, bin bytes or None, document) of one case."""
    global SEEDS
    if SEEDS is None:
        SEEDS = seeds()
    rng = np.random.default_rng([seed, index])
    if index % HOSTILE_EVERY == HOSTILE_EVERY - 1:
        _, builder = hostile(rng)
        kind = str(rng.choice(["gltf", "external", "glb"]))
        doc, binary = builder.document(kind)
        mutations = int(rng.choice([0, 1]))
    else:
        kind, doc, binary = SEEDS[int(rng.integers(len(SEEDS)))]
        doc = copy.deepcopy(doc)
        mutations = int(rng.choice([1, 1, 1, 2, 3, 4]))
    file_edit = False
    for _ in range(mutations):
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

    def load():
        asset = skelsimd.load_gltf(path)
        return asset, asset.clips
    outcome, result, failure = driver.bounded(
        "load_gltf and its clips", load, ok=lambda r: "loaded" if not r[0].refused else
        "loaded, clips refused", expected={ValueError: "ValueError", OSError: "OSError"},
        seconds=SECONDS_PER_CASE, peak_bytes=min(MEMORY_PER_CASE,
                                                 max(MEMORY_FLOOR, MEMORY_PER_BYTE * size)),
        on=f" on {size} bytes", quiet=True, enforce=MEMORY_PER_CASE)
    if failure:
        return outcome, failure
    if result is None:
        return outcome, None
    asset, clips = result
    try:
        for clip in clips:
            s = clip.skin
            if not np.isfinite(clip.local).all():
                return outcome, f"clip {clip.name!r}, {s} has non-finite poses"
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
            if case % HOSTILE_EVERY == HOSTILE_EVERY - 1:
                print("hostile shape:", hostile(np.random.default_rng([seed, case]))[0])
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
