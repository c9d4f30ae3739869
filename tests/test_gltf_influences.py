"""Up to 12 influences from glTF: a mesh of three JOINTS/WEIGHTS sets with a vertex of 10
non-zero weights is skinned directly (skin takes K = 12) against the float64 node tree
(skelsimd.reference.gltf), and compact_influences keeps each vertex's 12 largest weights."""
import warnings

import numpy as np
import pytest

import skelsimd
from skelsimd.io.gltf import load_gltf
from skelsimd.reference import gltf as ref

from gltf_files import Builder, _quat


def ten_influence_file(directory, sets=3, name="ten"):
    """A 12-joint chain under a matrix root, a mesh of 30 vertices with `sets` JOINTS/WEIGHTS
    sets: vertex 7 has 10 non-zero weights (sets >= 3), the others 1 to 4; one LINEAR rotation
    per joint over 1 s."""
    rng = np.random.default_rng(10)
    b = Builder()
    joints = 12
    b.node(name="root", matrix=[1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0.5, 0, 0, 1],
           children=[1])
    for j in range(joints):
        b.node(name=f"j{j}", translation=[0, 0.3, 0],
               **({"children": [2 + j]} if j + 1 < joints else {}))
    b.node(name="mesh", mesh=0, skin=0)
    b.json["scenes"][0]["nodes"] = [0, 1 + joints]
    ibm = np.stack([np.eye(4)] * joints)
    ibm[:, 1, 3] = -0.3 * (np.arange(joints) + 1)
    ibm[:, :3, 3] += rng.uniform(-0.05, 0.05, (joints, 3))
    b.json["skins"].append({"joints": list(range(1, 1 + joints)), "inverseBindMatrices":
                            b.accessor(ibm.transpose(0, 2, 1).reshape(joints, 16)
                                       .astype(np.float32), mat4=True)})
    v = 30
    pos = np.column_stack([rng.uniform(-0.2, 0.2, v), np.linspace(0, 3.6, v),
                           rng.uniform(-0.2, 0.2, v)]).astype(np.float32)
    k = 4 * sets
    ji = np.zeros((v, k), np.uint8)
    w = np.zeros((v, k))
    for i in range(v):
        n = 10 if (i == 7 and k >= 10) else 1 + i % 4
        cols = rng.choice(k, n, replace=False)
        ji[i, cols] = rng.choice(joints, n, replace=False)
        w[i, cols] = rng.uniform(0.05, 1, n)
    if k >= 16:
        ji[11] = np.arange(16) % joints
        w[11] = np.linspace(1, 0.25, 16)             # 16 non-zero weights
    w = (w / w.sum(axis=1, keepdims=True)).astype(np.float32)
    attrs = {"POSITION": b.accessor(pos)}
    for s in range(sets):
        attrs[f"JOINTS_{s}"] = b.accessor(ji[:, 4 * s:4 * s + 4])
        attrs[f"WEIGHTS_{s}"] = b.accessor(w[:, 4 * s:4 * s + 4])
    tri = np.array([[i, i + 1, i + 2] for i in range(v - 2)], np.uint16)
    b.json["meshes"].append({"name": name, "primitives": [
        {"attributes": attrs, "indices": b.accessor(tri.reshape(-1))}]})
    t = np.arange(5, dtype=np.float32) / 4
    samplers, channels = [], []
    for j in range(joints):
        q = np.array([_quat([1, 0.2 * j, 0], 0.15 * (j + 1) * np.sin(3 * x)) for x in t],
                     np.float32)
        samplers.append({"input": b.accessor(t), "output": b.accessor(q)})
        channels.append({"sampler": j, "target": {"node": 1 + j, "path": "rotation"}})
    b.json["animations"].append({"name": "wave", "samplers": samplers, "channels": channels})
    return b.write(str(directory), "glb", name), w


def test_ten_influence_vertex_skinned_against_reference(tmp_path):
    path, w = ten_influence_file(tmp_path)
    assert int((w[7] != 0).sum()) == 10
    asset = load_gltf(path)
    mesh = asset.meshes[0]
    assert mesh.joint_indices.shape == (30, 12) and int((mesh.weights[7] != 0).sum()) == 10
    doc = ref.Document(path)
    skin = asset.skins[0]
    clip = asset.clips[0]
    worst = 0.0
    for t in (0.0, 0.3, 0.5, 0.8125, 1.0):            # keys and between keys
        f = round(t * clip.fps)
        g = skelsimd.qts_local_to_global_matrix(clip.local[f], clip.skeleton)
        palette = skelsimd.multiply_joints(g, skin.inverse_bind)
        got = skelsimd.skin(mesh.positions, mesh.joint_indices, mesh.weights, palette)
        want = ref.skinned_vertices(doc, mesh.node, 0, 0, f / clip.fps)
        worst = max(worst, float(np.abs(got - want).max()))
        np.testing.assert_allclose(got, want, atol=2e-5 * max(1.0, np.abs(want).max()))
    assert worst > 0                              # float32 against float64: not identical


def test_compact_influences_keeps_the_twelve_largest(tmp_path):
    path, w = ten_influence_file(tmp_path, sets=4, name="sixteen")
    asset = load_gltf(path)
    mesh = asset.meshes[0]
    assert mesh.joint_indices.shape == (30, 16)
    with pytest.raises(ValueError, match="1 <= K <= 12"):
        skelsimd.skin(mesh.positions, mesh.joint_indices, mesh.weights,
                      np.tile(np.eye(3, 4, dtype=np.float32), (12, 1, 1)))
    with pytest.warns(UserWarning, match=r"sixteen\[0\]: 1 of 30 vertices have more than 12"):
        small = mesh.compact_influences()
    assert small.joint_indices.shape == (30, 12)
    # vertex 11: the 12 largest of its 16 weights (its first 12 columns), renormalised
    kept = w[11, :12].astype(np.float64)
    np.testing.assert_allclose(small.weights[11], kept / kept.sum(), rtol=1e-6)
    assert small.joint_indices[11].tolist() == mesh.joint_indices[11, :12].tolist()
    # every other vertex keeps exactly its non-zero weights, zeros moved last
    for i in range(30):
        if i == 11:
            continue
        nz = mesh.weights[i] != 0
        assert small.weights[i, :nz.sum()].tolist() == mesh.weights[i, nz].tolist()
        assert small.joint_indices[i, :nz.sum()].tolist() == mesh.joint_indices[i, nz].tolist()
        assert not small.weights[i, nz.sum():].any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mesh.compact_influences(16).weights.shape == (30, 16)    # nothing to cut


def test_compact_influences_refuses_a_bad_count(tmp_path):
    path, _ = ten_influence_file(tmp_path)
    mesh = load_gltf(path).meshes[0]
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="max_influences: expected an int >= 1"):
            mesh.compact_influences(bad)
