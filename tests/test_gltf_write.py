"""skelsimd.save_gltf: the files follow the glTF 2.0 specification (checked here by an
independent decoder written from the specification, and by pygltflib where installed), hold the
skeleton, clip and mesh given, and read back through skelsimd.load_gltf to float32 precision."""
import base64
import glob
import json
import os
import struct
import warnings

import numpy as np
import pytest

import skelsimd
import skelsimd.plotting

COMPONENTS = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32,
              5126: np.float32}
NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


# --- an independent reader of what save_gltf writes, checking the specification's rules -----

def read_file(path):
    data = open(path, "rb").read()
    if str(path).endswith(".glb"):
        magic, version, length = struct.unpack_from("<III", data, 0)
        assert (magic, version, length) == (0x46546C67, 2, len(data))
        jlen, jtype = struct.unpack_from("<II", data, 12)
        assert jtype == 0x4E4F534A and jlen % 4 == 0
        text = data[20:20 + jlen]
        assert text == text.rstrip(b" ") + b" " * (len(text) - len(text.rstrip(b" ")))
        blen, btype = struct.unpack_from("<II", data, 20 + jlen)
        assert btype == 0x004E4942 and blen % 4 == 0
        assert 28 + jlen + blen == len(data)
        gltf = json.loads(text)
        blob = data[28 + jlen:]
        assert "uri" not in gltf["buffers"][0]
        assert len(blob) - 3 <= gltf["buffers"][0]["byteLength"] <= len(blob)
    else:
        gltf = json.loads(data)
        (buf,) = gltf["buffers"]
        prefix = "data:application/octet-stream;base64,"
        assert buf["uri"].startswith(prefix)
        blob = base64.b64decode(buf["uri"][len(prefix):])
        assert len(blob) == buf["byteLength"]
    assert gltf["asset"]["version"] == "2.0"
    return gltf, blob


def accessor(gltf, blob, i):
    acc = gltf["accessors"][i]
    view = gltf["bufferViews"][acc["bufferView"]]
    dt = np.dtype(COMPONENTS[acc["componentType"]]).newbyteorder("<")
    n = NCOMP[acc["type"]]
    off = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    assert view["byteOffset"] % 4 == 0 and off % dt.itemsize == 0
    assert "byteStride" not in view                       # one accessor per view, packed
    assert acc["count"] * n * dt.itemsize <= view["byteLength"]
    assert view["byteOffset"] + view["byteLength"] <= gltf["buffers"][0]["byteLength"]
    a = np.frombuffer(blob, dt, acc["count"] * n, off).reshape(acc["count"], n)
    if "min" in acc:
        assert acc["min"] == a.min(0).tolist() and acc["max"] == a.max(0).tolist()
    return a


def node_qts(node):
    t = node.get("translation", [0, 0, 0])
    q = node.get("rotation", [0, 0, 0, 1])
    s = node.get("scale", [1, 1, 1])
    assert "matrix" not in node and s[0] == s[1] == s[2]
    return np.array(q + t + s[:1], np.float32)


def decode(path):
    """(gltf, skeleton-order arrays) of a file save_gltf wrote, checking the rules on the way."""
    gltf, blob = read_file(path)
    nodes = gltf["nodes"]
    parent = {}
    for i, node in enumerate(nodes):
        for c in node.get("children", []):
            assert c not in parent, "a node with two parents"
            parent[c] = i
    (skin,) = gltf["skins"]
    joints = skin["joints"]
    top = skin["skeleton"]
    for j in joints:                                        # the skeleton root is above all
        k = j
        while k != top:
            k = parent[k]
    assert set(gltf["scenes"][gltf["scene"]]["nodes"]) <= set(range(len(nodes)))
    assert all(k not in parent for k in gltf["scenes"][0]["nodes"])
    ib = accessor(gltf, blob, skin["inverseBindMatrices"])
    assert gltf["accessors"][skin["inverseBindMatrices"]]["type"] == "MAT4"
    ib = ib.reshape(-1, 4, 4).transpose(0, 2, 1)             # column-major
    np.testing.assert_array_equal(ib[:, 3], np.tile([0, 0, 0, 1], (len(ib), 1)))
    out = {"names": [nodes[j]["name"] for j in joints],
           "parents": [joints.index(parent[j]) if parent.get(j) in joints else -1
                       for j in joints],
           "rest": np.stack([node_qts(nodes[j]) for j in joints]), "inverse_bind": ib[:, :3]}
    for a in gltf.get("animations", []):
        assert a["channels"]
        local = np.repeat(out["rest"][None], 1, 0)
        times = None
        for ch in a["channels"]:
            s = a["samplers"][ch["sampler"]]
            assert s["interpolation"] == "LINEAR"
            assert "min" in gltf["accessors"][s["input"]]
            t = accessor(gltf, blob, s["input"])[:, 0]
            assert (np.diff(t) > 0).all()
            times = t if times is None else times
            v = accessor(gltf, blob, s["output"])
            if local.shape[0] != len(t):
                local = np.repeat(out["rest"][None], len(t), 0)
            j = joints.index(ch["target"]["node"])
            path = ch["target"]["path"]
            if path == "rotation":
                np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=2e-7)
                local[:, j, :4] = v
            elif path == "translation":
                local[:, j, 4:7] = v
            else:
                assert (v == v[:, :1]).all()
                local[:, j, 7] = v[:, 0]
        out.setdefault("clips", []).append((a.get("name"), times, local))
    for m in gltf.get("meshes", []):
        (prim,) = m["primitives"]
        assert prim.get("mode", 4) == 4
        at = prim["attributes"]
        pos_acc = gltf["accessors"][at["POSITION"]]
        assert "min" in pos_acc and "max" in pos_acc
        for key, i in list(at.items()) + [("indices", prim["indices"])]:
            target = gltf["bufferViews"][gltf["accessors"][i]["bufferView"]].get("target")
            assert target == (34963 if key == "indices" else 34962)
        mesh = {"positions": accessor(gltf, blob, at["POSITION"])}
        if "NORMAL" in at:
            nrm = accessor(gltf, blob, at["NORMAL"])
            np.testing.assert_allclose(np.linalg.norm(nrm, axis=1), 1, atol=1e-6)
            mesh["normals"] = nrm
        idx = accessor(gltf, blob, prim["indices"])[:, 0]
        assert idx.max() < len(mesh["positions"]) and idx.max() < np.iinfo(idx.dtype).max
        mesh["triangles"] = idx.reshape(-1, 3)
        sets = sorted(k for k in at if k.startswith("JOINTS_"))
        assert sets == [f"JOINTS_{k}" for k in range(len(sets))]
        ji = np.concatenate([accessor(gltf, blob, at[f"JOINTS_{k}"]) for k in range(len(sets))], 1)
        w = np.concatenate([accessor(gltf, blob, at[f"WEIGHTS_{k}"]) for k in range(len(sets))], 1)
        np.testing.assert_allclose(w.sum(1), 1, atol=1e-6)
        assert (ji[w == 0] == 0).all()
        for k in range(ji.shape[1]):                       # one non-zero weight per joint
            for m2 in range(k):
                assert not ((ji[:, k] == ji[:, m2]) & (w[:, k] > 0) & (w[:, m2] > 0)).any()
        mesh["joint_indices"], mesh["weights"] = ji, w
        out.setdefault("meshes", []).append(mesh)
    return gltf, out


# --- data --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def example():
    clip = skelsimd.data.load_example(end_sites=True)[:20]
    return clip, skelsimd.data.example_mesh(clip.skeleton)


def same_quats(a, b, atol=1e-6):
    d = np.minimum(np.abs(a - b).max(-1), np.abs(a + b).max(-1))
    assert d.max() <= atol, d.max()


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_file_holds_the_skeleton_clip_and_mesh(example, tmp_path, suffix):
    clip, mesh = example
    path = skelsimd.save_gltf(tmp_path / f"walk{suffix}", clip, mesh=mesh, name="walk")
    assert path == str(tmp_path / f"walk{suffix}")
    gltf, got = decode(path)
    skel = clip.skeleton
    assert got["names"] == list(skel.names)
    assert got["parents"] == skel.parents.tolist()
    np.testing.assert_array_equal(got["rest"], skel.rest)
    (name, times, local), = got["clips"]
    assert name == "walk"
    np.testing.assert_array_equal(times, (np.arange(clip.frames) / 120).astype(np.float32))
    assert clip.fps == 120 and clip.frame_time_raw == 0.0083333    # the file prints 0.0083333 s
    same_quats(local[..., :4], clip.local[..., :4])
    np.testing.assert_array_equal(local[..., 4:], clip.local[..., 4:])
    g = skelsimd.qts_local_to_global_matrix(skel.rest[None], skel)[0]
    np.testing.assert_allclose(got["inverse_bind"], skelsimd.invert_joints(g), atol=1e-4)
    (m,) = got["meshes"]
    for key in ("positions", "normals", "triangles"):
        np.testing.assert_allclose(m[key], mesh[key], atol=1e-6, err_msg=key)
    np.testing.assert_allclose(m["weights"][:, :2], mesh["weights"], atol=1e-7)
    assert (m["weights"][:, 2:] == 0).all()
    np.testing.assert_array_equal(m["joint_indices"][:, :2][mesh["weights"] > 0],
                                  mesh["joint_indices"][mesh["weights"] > 0])
    # constant channels equal to the rest pose are left out: a BVH clip animates rotations
    paths = {(c["target"]["node"], c["target"]["path"]) for c in gltf["animations"][0]["channels"]}
    assert not any(p == "scale" for _, p in paths)
    assert (0, "translation") in paths


def test_pygltflib_reads_it(example, tmp_path):
    pygltflib = pytest.importorskip("pygltflib")
    clip, mesh = example
    for suffix in (".glb", ".gltf"):
        path = skelsimd.save_gltf(tmp_path / f"w{suffix}", clip, mesh=mesh)
        doc = pygltflib.GLTF2().load(path)
        assert doc.asset.version == "2.0" and len(doc.nodes) == len(clip.skeleton) + 1
        assert len(doc.skins[0].joints) == len(clip.skeleton)
        assert doc.meshes[0].primitives[0].attributes.JOINTS_0 is not None


def test_several_roots_get_a_common_node(tmp_path):
    skel = skelsimd.Skeleton([-1, 0, -1, 2], ["a", "b", "skeleton", "d"],
                             rest=np.tile([0, 0, 0, 1, 1, 2, 3, 1], (4, 1)))
    local = np.tile(skel.rest, (3, 1, 1)).astype(np.float32)
    local[:, 3, 7] = [1, 2, 0.5]                     # a scale channel
    clip = skelsimd.Clip(skel, local, 0.1)
    gltf, got = decode(skelsimd.save_gltf(tmp_path / "x.glb", clip))
    assert gltf["nodes"][4] == {"name": "_skeleton", "children": [0, 2]}
    assert gltf["skins"][0]["skeleton"] == 4 and gltf["scenes"][0]["nodes"] == [4]
    assert got["parents"] == [-1, 0, -1, 2]
    (_, _, back), = got["clips"]
    np.testing.assert_array_equal(back, local)
    assert gltf["animations"][0]["channels"] == [{"sampler": 0, "target": {"node": 3,
                                                                          "path": "scale"}}]


def test_weights_merged_normalised_and_padded(tmp_path):
    skel = skelsimd.Skeleton([-1, 0, 1], rest=np.tile([0, 0, 0, 1, 0, 1, 0, 1], (3, 1)))
    mesh = {"positions": np.eye(3), "normals": None, "triangles": [[0, 1, 2]],
            "joint_indices": [[0, 1, 1, 2, 0, 2], [2, 2, 2, 2, 2, 2], [1, 0, 0, 0, 0, 0]],
            "weights": [[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 3], [2, 0, 0, 0, 0, 0]]}
    gltf, got = decode(skelsimd.save_gltf(tmp_path / "w.gltf", skel, mesh=mesh))
    assert "animations" not in gltf and "NORMAL" not in gltf["meshes"][0]["primitives"][0][
        "attributes"]
    (m,) = got["meshes"]
    assert m["weights"].shape == (3, 8) and m["joint_indices"].dtype == np.uint8
    np.testing.assert_allclose(m["weights"][0, :4], [0.25, 0.5, 0, 0.25])
    np.testing.assert_array_equal(m["joint_indices"][0, :4], [0, 1, 0, 2])
    np.testing.assert_allclose(m["weights"][1], [1, 0, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(m["triangles"], [[0, 1, 2]])


def test_scale_applies_to_lengths_only(example, tmp_path):
    clip, mesh = example
    _, a = decode(skelsimd.save_gltf(tmp_path / "a.glb", clip, mesh=mesh))
    _, b = decode(skelsimd.save_gltf(tmp_path / "b.glb", clip, mesh=mesh, scale=0.01))
    np.testing.assert_allclose(b["meshes"][0]["positions"], a["meshes"][0]["positions"] * 0.01,
                               rtol=1e-6)
    np.testing.assert_allclose(b["rest"][:, 4:7], a["rest"][:, 4:7] * 0.01, rtol=1e-6)
    np.testing.assert_array_equal(b["rest"][:, :4], a["rest"][:, :4])
    np.testing.assert_allclose(b["inverse_bind"][..., 3], a["inverse_bind"][..., 3] * 0.01,
                               rtol=1e-5, atol=1e-7)


def test_matrix_rest_pose(tmp_path):
    rest = skelsimd.qts_to_matrix(np.array([[0, 0, 0.6, 0.8, 1, 0, 0, 2], [0, 0, 0, 1, 0, 1, 0, 1]],
                                           np.float32))
    skel = skelsimd.Skeleton([-1, 0], rest=rest)
    _, got = decode(skelsimd.save_gltf(tmp_path / "m.glb", skel))
    np.testing.assert_allclose(skelsimd.qts_to_matrix(got["rest"]), rest, atol=1e-6)
    bad = rest.copy()
    bad[0, 0, 0] *= 3                               # a non-uniform scale
    with pytest.raises(ValueError, match=r"clip.skeleton.rest\[0\] \('joint_0'\): expected a "
                                         r"rotation with a uniform scale"):
        skelsimd.save_gltf(tmp_path / "bad.glb", skelsimd.Skeleton([-1, 0], rest=bad))
    assert not (tmp_path / "bad.glb").exists()


@pytest.mark.parametrize("change, error, match", [
    (dict(path="x.fbx"), ValueError, r"path: expected a name ending in .gltf or .glb"),
    (dict(path=3), TypeError, "path: expected a str or os.PathLike"),
    (dict(clip="walk"), TypeError, "clip: expected a skelsimd.Clip or Skeleton"),
    (dict(scale=0), ValueError, "scale: expected a positive finite number"),
    (dict(scale=True), TypeError, "scale: expected a positive number"),
    (dict(scale=2**1024), ValueError, "scale: expected a positive finite number, got an int of "
                                      "1025 bits"),
    (dict(name=3), TypeError, "name: expected a str"),
    (dict(inverse_bind=np.zeros((2, 3, 4))), ValueError, r"inverse_bind: expected a real array "
                                                         r"of shape \(38, 3, 4\)"),
    (dict(mesh={"positions": np.zeros((3, 3))}), TypeError, "mesh: expected an object or mapping"),
    (dict(mesh_key=("positions", np.zeros((3, 2)))), ValueError, r"mesh.positions: expected"),
    (dict(mesh_key=("positions", np.full((1080, 3), np.nan))), ValueError,
     r"mesh.positions: expected finite values"),
    (dict(mesh_key=("normals", np.zeros((1080, 3)))), ValueError, "mesh.normals: expected non-zero"),
    (dict(mesh_key=("triangles", np.full((4, 3), 1080))), ValueError,
     r"mesh.triangles\[0, 0\]: expected a vertex index in \[0, 1080\), got 1080"),
    (dict(mesh_key=("triangles", np.zeros((4, 3)))), ValueError, "mesh.triangles: expected an integer"),
    (dict(mesh_key=("joint_indices", np.full((1080, 2), 38))), ValueError,
     r"mesh.joint_indices\[0, 0\]: expected a joint index in \[0, 38\), got 38"),
    (dict(mesh_key=("weights", np.zeros((1080, 2)))), ValueError,
     r"mesh.weights\[0\]: expected a vertex with a non-zero weight"),
    (dict(mesh_key=("weights", -np.ones((1080, 2)))), ValueError, r"mesh.weights\[0, 0\]: expected "
                                                                  r"weights >= 0"),
    (dict(mesh_key=("weights", np.ones((1080, 3)))), ValueError, r"mesh.weights: expected a real "
                                                                 r"array of shape \(1080, 2\)"),
])
def test_bad_arguments_write_nothing(example, tmp_path, change, error, match):
    clip, mesh = example
    kwargs = dict(path=tmp_path / "out.glb", clip=clip, mesh=dict(mesh))
    if "mesh_key" in change:
        key, value = change.pop("mesh_key")
        kwargs["mesh"][key] = value
    kwargs.update(change)
    path, clip = kwargs.pop("path"), kwargs.pop("clip")
    with pytest.raises(error, match=match):
        skelsimd.save_gltf(path, clip, **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_bad_clip_values(example, tmp_path):
    clip, _ = example
    local = clip.local.copy()
    local[3, 2, :4] = 0
    with pytest.raises(ValueError, match=r"clip.local: expected non-zero quaternions, got a zero "
                                         r"one at \(3, 2\)"):
        skelsimd.save_gltf(tmp_path / "q.glb", skelsimd.Clip(clip.skeleton, local, clip.frame_time))
    local[3, 2, :4] = [0, 0, 0, 1]
    local[4, 1, 5] = np.inf
    with pytest.raises(ValueError, match=r"clip.local: expected finite values"):
        skelsimd.save_gltf(tmp_path / "q.glb", skelsimd.Clip(clip.skeleton, local, clip.frame_time))
    assert list(tmp_path.iterdir()) == []


# --- round trips through the reader -----------------------------------------------------------

def _loader():
    if not hasattr(skelsimd, "load_gltf"):
        pytest.skip("skelsimd.load_gltf is not in this build")
    return skelsimd.load_gltf


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_round_trip_through_load_gltf(example, tmp_path, suffix):
    load_gltf = _loader()
    clip, mesh = example
    asset = load_gltf(skelsimd.save_gltf(tmp_path / f"walk{suffix}", clip, mesh=mesh, name="walk"))
    (skin,) = asset.skins
    assert skin.skeleton.names == clip.skeleton.names
    np.testing.assert_array_equal(skin.skeleton.parents, clip.skeleton.parents)
    rest = skin.skeleton.rest
    if rest.ndim == 3:
        rest = skelsimd.matrix_to_qts(rest)
    same_quats(rest[:, :4], clip.skeleton.rest[:, :4])
    np.testing.assert_allclose(rest[:, 4:], clip.skeleton.rest[:, 4:], rtol=1e-6, atol=1e-6)
    (back,) = asset.clips
    assert back.name == "walk" and back.skin == 0 and back.frames == clip.frames
    assert back.fps == pytest.approx(clip.fps, rel=1e-5)
    same_quats(back.local[..., :4], clip.local[..., :4], atol=2e-6)
    np.testing.assert_allclose(back.local[..., 4:], clip.local[..., 4:], rtol=1e-6, atol=1e-5)
    g = skelsimd.qts_local_to_global_matrix(clip.skeleton.rest[None], clip.skeleton)[0]
    np.testing.assert_allclose(skin.inverse_bind, skelsimd.invert_joints(g), atol=1e-4)
    (m,) = asset.meshes
    assert m.skin == 0
    np.testing.assert_array_equal(m.positions, mesh["positions"])
    np.testing.assert_allclose(m.normals, mesh["normals"], atol=1e-6)
    np.testing.assert_array_equal(m.triangles, mesh["triangles"])
    w = np.zeros_like(m.weights)
    w[:, :2] = mesh["weights"]
    np.testing.assert_allclose(m.weights, w, atol=1e-7)
    live = mesh["weights"] > 0
    np.testing.assert_array_equal(m.joint_indices[:, :2][live], mesh["joint_indices"][live])
    # the skinned frames agree
    np.testing.assert_allclose(
        skelsimd.plotting.skinned_vertices(m, skin, back, slice(None)),
        skelsimd.plotting.skinned_vertices(mesh, None, clip, slice(None)), atol=2e-3)


def test_round_trip_several_roots_and_eight_influences(tmp_path):
    load_gltf = _loader()
    rng = np.random.default_rng(5)
    skel = skelsimd.Skeleton([-1, 0, 1, -1, 3], rest=np.tile([0, 0, 0, 1, 0, 1, 0, 1], (5, 1)))
    q = rng.normal(size=(7, 5, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    local = np.concatenate([q, rng.normal(size=(7, 5, 3)), rng.uniform(0.5, 2, (7, 5, 1))], -1)
    clip = skelsimd.Clip(skel, local, 1 / 24)
    v = 50
    mesh = {"positions": rng.normal(size=(v, 3)), "normals": None,
            "triangles": rng.integers(0, v, (30, 3)),
            "joint_indices": np.argsort(rng.random((v, 5)), axis=1)[:, :5],
            "weights": rng.random((v, 5)) + 0.01}
    asset = load_gltf(skelsimd.save_gltf(tmp_path / "r.glb", clip, mesh=mesh))
    (back,) = asset.clips
    assert back.skeleton.names == skel.names
    same_quats(back.local[..., :4], clip.local[..., :4], atol=2e-6)
    np.testing.assert_allclose(back.local[..., 4:], clip.local[..., 4:], rtol=1e-6, atol=1e-6)
    (m,) = asset.meshes
    assert m.weights.shape == (v, 8)
    w = mesh["weights"] / mesh["weights"].sum(1, keepdims=True)
    np.testing.assert_allclose(m.weights[:, :5], w, atol=1e-6)
    np.testing.assert_array_equal(m.joint_indices[:, :5], mesh["joint_indices"])


REAL = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "data", "gltf", "*.gl*")))


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.rsplit("/", 1)[-1])
def test_real_assets_round_trip(path, tmp_path):
    """Every clip of the real assets, saved with its skin's mesh and inverse binds and read
    back: the same names, poses and skinned vertices, to float32 precision."""
    load_gltf = _loader()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # weights not summing to one, renormalised
        asset = load_gltf(path)
    for i, clip in enumerate(asset.clips):
        skin = asset.skins[clip.skin]
        mesh = next((m for m in asset.meshes if m.skin == clip.skin), None)
        back = load_gltf(skelsimd.save_gltf(tmp_path / f"{i}.glb", clip, mesh=mesh,
                                            inverse_bind=skin.inverse_bind))
        (bclip,), (bskin,) = back.clips, back.skins
        assert bskin.skeleton.names == skin.skeleton.names and bclip.name == clip.name
        assert bclip.frames == clip.frames and bclip.fps == pytest.approx(clip.fps)
        same_quats(bclip.local[..., :4], clip.local[..., :4], atol=1e-6)
        np.testing.assert_allclose(bclip.local[..., 4:], clip.local[..., 4:], rtol=1e-6,
                                   atol=1e-5)
        np.testing.assert_array_equal(bskin.inverse_bind, skin.inverse_bind)
        if mesh is not None:
            v1 = skelsimd.plotting.skinned_vertices(mesh, skin, clip)
            v2 = skelsimd.plotting.skinned_vertices(back.meshes[0], bskin, bclip)
            np.testing.assert_allclose(v2, v1, atol=1e-6 * max(1.0, float(np.abs(v1).max())))


def test_mesh_node_name_differs_from_the_joints(tmp_path):
    skel = skelsimd.Skeleton([-1, 0], ["mesh", "_mesh"], rest=np.tile([0, 0, 0, 1, 0, 1, 0, 1],
                                                                      (2, 1)))
    mesh = {"positions": np.eye(3), "normals": None, "triangles": [[0, 1, 2]],
            "joint_indices": [[0], [1], [1]], "weights": [[1], [1], [1]]}
    gltf, _ = decode(skelsimd.save_gltf(tmp_path / "n.gltf", skel, mesh=mesh))
    assert gltf["meshes"][0]["name"] == "mesh" and gltf["nodes"][2]["name"] == "__mesh"


def _big_cases():
    """A 300-joint chain (JOINTS as unsigned short) skinning a 70,000-vertex mesh (indices as
    unsigned int)."""
    n, v = 300, 70_000
    rng = np.random.default_rng(3)
    skel = skelsimd.Skeleton(np.arange(n) - 1, rest=np.tile([0, 0, 0, 1, 0, 0.1, 0, 1], (n, 1)))
    clip = skelsimd.Clip(skel, np.tile(skel.rest, (2, 1, 1)), 0.5)
    mesh = {"positions": rng.normal(size=(v, 3)), "normals": rng.normal(size=(v, 3)),
            "triangles": rng.integers(0, v, (v, 3)), "joint_indices": rng.integers(0, n, (v, 1)),
            "weights": np.ones((v, 1))}
    return clip, mesh


def test_large_index_types(tmp_path):
    clip, mesh = _big_cases()
    gltf, got = decode(skelsimd.save_gltf(tmp_path / "big.glb", clip, mesh=mesh))
    prim = gltf["meshes"][0]["primitives"][0]
    assert gltf["accessors"][prim["indices"]]["componentType"] == 5125
    assert gltf["accessors"][prim["attributes"]["JOINTS_0"]]["componentType"] == 5123
    (m,) = got["meshes"]
    np.testing.assert_array_equal(m["triangles"], mesh["triangles"])
    np.testing.assert_array_equal(m["joint_indices"][:, 0], mesh["joint_indices"][:, 0])
    if hasattr(skelsimd, "load_gltf"):
        back = skelsimd.load_gltf(str(tmp_path / "big.glb")).meshes[0]
        np.testing.assert_array_equal(back.triangles, mesh["triangles"])
        np.testing.assert_array_equal(back.joint_indices[:, 0], mesh["joint_indices"][:, 0])


def test_gltfpack_accepts_the_files(example, tmp_path):
    """gltfpack (Debian's package; its cgltf loader validates the file's structure: buffer
    bounds, indices, skins, animations) reads every kind of file save_gltf writes."""
    import shutil
    import subprocess
    tool = shutil.which("gltfpack")
    if tool is None:
        if os.environ.get("CI"):
            pytest.fail("gltfpack is required in CI (.ci/run installs it)")
        pytest.skip("gltfpack is not installed (apt-get install gltfpack)")
    clip, mesh = example
    skel = skelsimd.Skeleton([-1, 0, -1], rest=np.tile([0, 0, 0, 1, 0, 1, 0, 1], (3, 1)))
    six = {"positions": np.eye(3), "normals": None, "triangles": [[0, 1, 2]],
           "joint_indices": [[0, 1, 2, 0, 1, 2]] * 3, "weights": [[1, 2, 3, 4, 5, 6]] * 3}
    big_clip, big_mesh = _big_cases()
    cases = [("walk.glb", clip, mesh), ("walk.gltf", clip, mesh), ("bones.glb", clip, None),
             ("roots.gltf", skelsimd.Clip(skel, np.tile(skel.rest, (4, 1, 1)), 0.1), six),
             ("big.glb", big_clip, big_mesh)]
    for name, c, m in cases:
        path = skelsimd.save_gltf(tmp_path / name, c, mesh=m)
        res = subprocess.run([tool, "-i", path, "-o", str(tmp_path / ("packed_" + name))],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, (name, res.stdout, res.stderr)
    bad = json.loads((tmp_path / "walk.gltf").read_text())
    bad["skins"][0]["joints"][0] = 9999                   # the tool does refuse a broken file
    (tmp_path / "bad.gltf").write_text(json.dumps(bad))
    res = subprocess.run([tool, "-i", str(tmp_path / "bad.gltf"), "-o", str(tmp_path / "x.glb")],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode != 0


def test_lengths_beyond_float32(example, tmp_path):
    clip, mesh = example
    with pytest.raises(ValueError, match=r"clip.skeleton.rest: expected values within float32's "
                                         r"range \(times scale\)"):
        skelsimd.save_gltf(tmp_path / "o.glb", clip, mesh=mesh, scale=1e300)
    big = dict(mesh, positions=mesh["positions"] * 1e36)
    with pytest.raises(ValueError, match=r"mesh.positions: expected values within float32's"):
        skelsimd.save_gltf(tmp_path / "o.glb", clip, mesh=big, scale=1e3)
    assert list(tmp_path.iterdir()) == []
