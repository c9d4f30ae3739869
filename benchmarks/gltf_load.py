"""glTF characters: loading against pygltflib + NumPy and trimesh, and one skinned frame from
Python (sample, forward kinematics + palette, skinning) alone and for 100 characters.

    pip install pygltflib trimesh          # the comparisons (not skelsimd dependencies)
    python benchmarks/gltf_load.py DIR [--character NAME] [--repeat 7] [--json OUT.json]

DIR holds .gltf/.glb files. For each file, with the same decoded data checked equal first:

* skelsimd: ``load_gltf(path)`` (JSON, buffers, every accessor the skins, skinned meshes and
  animations use, node tree folded into skins), then also with every clip sampled;
* pygltflib + NumPy: ``GLTF2().load(path)`` then the straightforward decoding of the same
  accessors (``np.frombuffer`` on the buffer view, reshape, normalised integers scaled,
  byteStride honoured, triangles from indices), buffers from data URIs / .bin / GLB as
  pygltflib provides them;
* trimesh (mesh alone): ``trimesh.load(path, process=False)``.

Timings are minima over interleaved rounds (each round runs every contender once per file).

The skinned frame uses ``--character`` (default: the file with the most skinned vertices):
``clip.sample(t)`` -> ``qts_to_matrix`` -> ``skinning_palette`` -> ``skin`` per frame, the
per-call overhead of each of the four calls measured on a one-joint, one-vertex input, and the
same for a batch of 100 characters (100 different times of the clip).
"""
import argparse
import base64
import glob
import json
import os
import sys
import time
import warnings

import numpy as np

import skelsimd as S

_DT = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32,
       5126: np.float32}
_N = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_NORM = {np.int8: 127.0, np.uint8: 255.0, np.int16: 32767.0, np.uint16: 65535.0}


def pygltflib_numpy(path):
    """pygltflib + NumPy: every accessor of skins, skinned primitives and animations."""
    import pygltflib
    doc = pygltflib.GLTF2().load(path)
    blobs = []
    for i, b in enumerate(doc.buffers):
        if b.uri is None:
            blobs.append(doc.binary_blob())
        elif b.uri.startswith("data:"):
            blobs.append(base64.b64decode(b.uri.split(",", 1)[1]))
        else:
            with open(os.path.join(os.path.dirname(path), b.uri), "rb") as f:
                blobs.append(f.read())

    def acc(i):
        a = doc.accessors[i]
        dt = np.dtype(_DT[a.componentType])
        n = _N[a.type]
        if a.bufferView is None:
            out = np.zeros((a.count, n), dt)
        else:
            v = doc.bufferViews[a.bufferView]
            buf = blobs[v.buffer]
            off = (v.byteOffset or 0) + (a.byteOffset or 0)
            stride = v.byteStride or dt.itemsize * n
            if stride == dt.itemsize * n:
                out = np.frombuffer(buf, dt, a.count * n, off).reshape(a.count, n)
            else:
                out = np.ndarray((a.count, n), dt, buf, off, (stride, dt.itemsize))
        if a.sparse is not None:
            out = out.copy()
            s = a.sparse
            iv, vv = doc.bufferViews[s.indices.bufferView], doc.bufferViews[s.values.bufferView]
            idx = np.frombuffer(blobs[iv.buffer], _DT[s.indices.componentType], s.count,
                                (iv.byteOffset or 0) + (s.indices.byteOffset or 0))
            out[idx] = np.frombuffer(blobs[vv.buffer], dt, s.count * n,
                                     (vv.byteOffset or 0) + (s.values.byteOffset or 0)
                                     ).reshape(s.count, n)
        if a.normalized and dt.type in _NORM:
            out = np.maximum(out.astype(np.float32) / _NORM[dt.type], -1.0)
        return out

    result = {"ibm": [], "meshes": [], "animations": []}
    for skin in doc.skins:
        if skin.inverseBindMatrices is not None:
            result["ibm"].append(acc(skin.inverseBindMatrices).reshape(-1, 4, 4).transpose(0, 2, 1))
    for node in doc.nodes:
        if node.mesh is None or node.skin is None:
            continue
        for prim in doc.meshes[node.mesh].primitives:
            at = prim.attributes
            m = {"positions": acc(at.POSITION).astype(np.float32)}
            if at.NORMAL is not None:
                m["normals"] = acc(at.NORMAL).astype(np.float32)
            if prim.indices is None:
                m["triangles"] = np.arange(len(m["positions"]), dtype=np.int32).reshape(-1, 3)
            else:
                m["triangles"] = acc(prim.indices).astype(np.int32).reshape(-1, 3)
            m["joints"] = acc(at.JOINTS_0).astype(np.int32)
            m["weights"] = acc(at.WEIGHTS_0).astype(np.float32)
            result["meshes"].append(m)
    for anim in doc.animations:
        result["animations"].append([(acc(s.input), acc(s.output)) for s in anim.samplers])
    return result


def trimesh_load(path):
    import trimesh
    return trimesh.load(path, process=False)


def skelsimd_load(path):
    return S.load_gltf(path)


def skelsimd_load_clips(path):
    a = S.load_gltf(path)
    a.clips
    return a


def check_same(path):
    """The meshes and inverse binds skelsimd decodes equal pygltflib + NumPy's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = S.load_gltf(path)
    b = pygltflib_numpy(path)
    assert len(a.meshes) == len(b["meshes"]), (path, len(a.meshes), len(b["meshes"]))
    for m, ref in zip(a.meshes, b["meshes"]):
        np.testing.assert_array_equal(m.positions, ref["positions"])
        np.testing.assert_array_equal(m.triangles, ref["triangles"])
    return a


def best(fn, arg, rounds):
    t = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn(arg)
        t.append(time.perf_counter() - t0)
    return min(t)


def per_call(fn, number=20, repeat=300):
    """Seconds per call: the minimum over `repeat` blocks of `number` calls (short blocks, many
    of them: on a loaded machine some block runs undisturbed)."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        out.append((time.perf_counter() - t0) / number)
    return min(out)


def loading(files, rounds):
    rows = []
    have_pyg = have_tri = True
    try:
        import pygltflib  # noqa: F401
    except ImportError:
        have_pyg = False
    try:
        import trimesh  # noqa: F401
    except ImportError:
        have_tri = False
    contenders = [("skelsimd", skelsimd_load), ("skelsimd+clips", skelsimd_load_clips)]
    if have_pyg:
        contenders.append(("pygltflib+numpy", pygltflib_numpy))
    if have_tri:
        contenders.append(("trimesh", trimesh_load))
    times = {(f, c): [] for f in files for c, _ in contenders}
    warnings.simplefilter("ignore")
    for f in files:
        if have_pyg:
            check_same(f)
    for _ in range(rounds):                      # interleaved
        for f in files:
            for c, fn in contenders:
                times[f, c].append(best(fn, f, 1))
    for f in files:
        row = {"file": os.path.basename(f), "bytes": os.path.getsize(f)}
        for c, _ in contenders:
            row[c] = min(times[f, c])
        rows.append(row)
    return rows, [c for c, _ in contenders]


def frame_costs(path, repeat):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asset = S.load_gltf(path)
    mesh = max(asset.meshes, key=lambda m: len(m.positions))
    clip = next(c for c in asset.clips if c.skin == mesh.skin)
    skin = asset.skins[mesh.skin]
    parents, ib = skin.skeleton.parents, skin.inverse_bind
    pos, ji, w = mesh.positions, mesh.joint_indices.astype(np.int32), mesh.weights
    out = np.empty_like(pos)
    t_mid = clip.duration / 3

    def frame(t=t_mid):
        local = clip.sample(t)
        m = S.qts_to_matrix(local)
        pal = S.skinning_palette(m, parents, ib)
        return S.skin(pos, ji, w, pal, out)

    frame()
    per_frame = per_call(frame)
    local = clip.sample(t_mid)
    m = S.qts_to_matrix(local)
    pal = S.skinning_palette(m, parents, ib)
    steps = {
        "sample": per_call(lambda: clip.sample(t_mid)),
        "qts_to_matrix": per_call(lambda: S.qts_to_matrix(local)),
        "skinning_palette": per_call(lambda: S.skinning_palette(m, parents, ib)),
        "skin": per_call(lambda: S.skin(pos, ji, w, pal, out)),
    }
    # per-call overhead: the same four calls on a one-joint skeleton and a one-vertex mesh
    tiny_clip = S.Clip(S.Skeleton([-1]), np.tile([0, 0, 0, 1, 0, 0, 0, 1], (2, 1, 1)), 0.1)
    p1, ib1 = np.array([-1], np.int32), np.tile(np.eye(3, 4, dtype=np.float32), (1, 1, 1))
    v1, j1, w1 = np.zeros((1, 3), np.float32), np.zeros((1, 1), np.int32), np.ones((1, 1),
                                                                                 np.float32)
    o1 = np.empty((1, 3), np.float32)
    l1 = tiny_clip.sample(0.05)
    m1 = S.qts_to_matrix(l1)
    pal1 = S.skinning_palette(m1, p1, ib1)
    tiny_steps = {
        "sample": per_call(lambda: tiny_clip.sample(0.05)),
        "qts_to_matrix": per_call(lambda: S.qts_to_matrix(l1)),
        "skinning_palette": per_call(lambda: S.skinning_palette(m1, p1, ib1)),
        "skin": per_call(lambda: S.skin(v1, j1, w1, pal1, o1)),
    }
    overhead = sum(tiny_steps.values())
    # 100 characters: 100 times of the clip, batched through the same calls
    ts = np.linspace(0, clip.duration, 100)
    out100 = np.empty((100,) + pos.shape, np.float32)

    def batch():
        local = clip.sample(ts)
        pal = S.skinning_palette(S.qts_to_matrix(local), parents, ib)
        return S.skin(pos, ji, w, pal, out100)

    r = batch()
    np.testing.assert_allclose(r[33], frame(ts[33]), atol=1e-5 * max(1, np.abs(r).max()))
    per_batch = per_call(batch, 1, 50)
    return {"file": os.path.basename(path), "vertices": len(pos), "joints": len(parents),
            "influences": ji.shape[1], "frame_s": per_frame, "steps_s": steps,
            "tiny_steps_s": tiny_steps,
            "overhead_s": overhead, "overhead_share": overhead / per_frame,
            "batch100_s": per_batch, "batch100_per_character_s": per_batch / 100,
            "batch_speedup": per_frame / (per_batch / 100)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="directory of .gltf/.glb files")
    ap.add_argument("--character", help="file name for the skinned frame (default: most vertices)")
    ap.add_argument("--repeat", type=int, default=7, help="interleaved rounds")
    ap.add_argument("--json", help="write the figures as JSON")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.dir, "*.gltf")) +
                   glob.glob(os.path.join(args.dir, "*.glb")))
    if not files:
        sys.exit(f"no .gltf/.glb files in {args.dir}")
    print(f"skelsimd {S.__version__} ({S.isa()}), NumPy {np.__version__}; load: "
          f"{os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    rows, names = loading(files, args.repeat)
    head = f"{'file':28s} {'KB':>7s} " + " ".join(f"{n:>16s}" for n in names)
    print("\nloading, ms (min of interleaved rounds); ratio = pygltflib+numpy / skelsimd")
    print(head + "   ratio   trimesh/skelsimd")
    for r in rows:
        line = f"{r['file']:28s} {r['bytes'] / 1024:7.1f} " + " ".join(
            f"{1e3 * r[n]:16.3f}" for n in names)
        if "pygltflib+numpy" in r:
            line += f"  {r['pygltflib+numpy'] / r['skelsimd']:6.1f}x"
        if "trimesh" in r:
            line += f"  {r['trimesh'] / r['skelsimd']:6.1f}x"
        print(line)
    if "pygltflib+numpy" in names:
        tot = {n: sum(r[n] for r in rows) for n in names}
        print(f"{'all files':28s} {'':7s} " + " ".join(f"{1e3 * tot[n]:16.3f}" for n in names)
              + f"  {tot['pygltflib+numpy'] / tot['skelsimd']:6.1f}x"
              + (f"  {tot['trimesh'] / tot['skelsimd']:6.1f}x" if "trimesh" in tot else ""))
    skinned = []
    for f in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = S.load_gltf(f)
        if a.meshes and a.clips:
            skinned.append((max(len(m.positions) for m in a.meshes), f))
    if args.character:
        char = os.path.join(args.dir, args.character)
    else:
        char = max(skinned)[1]
    fc = frame_costs(char, args.repeat)
    print(f"\none skinned frame of {fc['file']}: {fc['vertices']} vertices, {fc['joints']} joints, "
          f"{fc['influences']} influences")
    print(f"  sample + qts_to_matrix + skinning_palette + skin: {1e6 * fc['frame_s']:.1f} us/frame")
    for k, v in fc["steps_s"].items():
        print(f"    {k:18s} {1e6 * v:8.2f} us   (1 joint / 1 vertex: "
              f"{1e6 * fc['tiny_steps_s'][k]:.2f} us)")
    print(f"  the same four calls on 1 joint / 1 vertex: {1e6 * fc['overhead_s']:.1f} us "
          f"= {100 * fc['overhead_share']:.0f}% of the frame (per-call overhead share)")
    print(f"  100 characters batched: {1e3 * fc['batch100_s']:.3f} ms, "
          f"{1e6 * fc['batch100_per_character_s']:.1f} us/character "
          f"({fc['batch_speedup']:.1f}x the one-at-a-time frame)")
    print(f"load after: {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"loading": rows, "frame": fc, "load": os.getloadavg()}, f, indent=1)


if __name__ == "__main__":
    main()
