"""save_gltf writes whole characters: a GltfAsset (several skins, meshes of several primitives,
every animation, the node tree above the joints) and lists of clips (several animations named
after them, several primitives). Round trips through load_gltf within the single-clip round
trip's bounds, and pygltflib's validation."""
import os
import warnings

import numpy as np
import pytest

import skelsimd
import skelsimd.plotting
from skelsimd.io.gltf import load_gltf

DATA = os.path.join(os.path.dirname(__file__), "data", "gltf")
pytestmark = pytest.mark.filterwarnings("ignore:pygltf.utils.validator is a provisional")

# the characters (Fox, CesiumMan, RobotExpressive's 4 skins) and every other real file
CHARACTERS = sorted(f for f in os.listdir(DATA) if f.endswith((".gltf", ".glb")))


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # weights not summing to one, renormalised
        return load_gltf(path)


def same_quats(a, b, atol):
    d = np.minimum(np.abs(a - b).max(axis=-1), np.abs(a + b).max(axis=-1))
    assert d.max() <= atol, d.max()
    return float(d.max(initial=0))


def round_trip_errors(asset, back, frames_per_clip=None):
    """Asserts the round trip within today's bounds; returns the largest errors (quaternion,
    translation and scale, skinned vertex relative to max(1, |v|))."""
    err = {"quat": 0.0, "ts": 0.0, "vertex": 0.0}
    assert [s.name for s in back.skins] == [s.name for s in asset.skins]
    for s, b in zip(asset.skins, back.skins):
        assert b.skeleton.names == s.skeleton.names
        assert b.skeleton.parents.tolist() == s.skeleton.parents.tolist()
        assert b.nodes.tolist() == s.nodes.tolist()
        np.testing.assert_array_equal(b.inverse_bind, s.inverse_bind)
    # the node tree: names and children, node indices kept
    assert [n.get("name") for n in back.nodes] == [n.get("name") for n in asset.nodes]
    assert [n.get("children", []) for n in back.nodes] == [n.get("children", []) for n in asset.nodes]
    assert len(back.meshes) == len(asset.meshes)
    for m, b in zip(asset.meshes, back.meshes):
        assert (b.node, b.skin, b.primitive) == (m.node, m.skin, m.primitive)
        np.testing.assert_array_equal(b.positions, m.positions)
        np.testing.assert_array_equal(b.triangles, m.triangles)
        if m.normals is None:
            assert b.normals is None
        else:
            np.testing.assert_allclose(b.normals, m.normals, atol=1e-6)
        if m.uvs is None:
            assert b.uvs is None
        else:
            np.testing.assert_array_equal(b.uvs, m.uvs)
        np.testing.assert_allclose(b.weights, m.weights, atol=1e-7)
        used = m.weights > 0
        np.testing.assert_array_equal(b.joint_indices[used], m.joint_indices[used])
    assert [a.name for a in back.animations] == [a.name for a in asset.animations
                                                 if any(c.path != "weights" for c in a.channels)]
    assert back.clip_pairs() == asset.clip_pairs()
    for clip, bclip in zip(asset.clips, back.clips):
        assert (bclip.name, bclip.skin, bclip.frames) == (clip.name, clip.skin, clip.frames)
        assert bclip.fps == pytest.approx(clip.fps)
        err["quat"] = max(err["quat"], same_quats(bclip.local[..., :4], clip.local[..., :4], 1e-6))
        d = np.abs(bclip.local[..., 4:] - clip.local[..., 4:])
        assert (d <= 1e-5 + 1e-6 * np.abs(clip.local[..., 4:])).all()
        err["ts"] = max(err["ts"], float(d.max()))
        frames = slice(None) if frames_per_clip is None else slice(0, None,
                                                                   max(1, clip.frames // frames_per_clip))
        for m, b in zip(asset.meshes, back.meshes):
            if m.skin != clip.skin:
                continue
            v1 = skelsimd.plotting.skinned_vertices(m, asset.skins[m.skin], clip, frames)
            v2 = skelsimd.plotting.skinned_vertices(b, back.skins[b.skin], bclip, frames)
            scale = max(1.0, float(np.abs(v1).max()))
            np.testing.assert_allclose(v2, v1, atol=1e-6 * scale)
            err["vertex"] = max(err["vertex"], float(np.abs(v2 - v1).max()) / scale)
    return err


@pytest.mark.parametrize("name", CHARACTERS)
def test_characters_round_trip(name, tmp_path):
    pygltflib = pytest.importorskip("pygltflib")
    from pygltflib import validator
    asset = _load(os.path.join(DATA, name))
    suffix = ".gltf" if name.endswith(".gltf") else ".glb"
    with pytest.warns(UserWarning, match=r"save_gltf: not written .*\d+ materials?"):
        path = skelsimd.save_gltf(tmp_path / f"character{suffix}", asset)
    back = load_gltf(path)
    round_trip_errors(asset, back, frames_per_clip=None if name != "RobotExpressive.glb" else 4)
    for a in range(len(back.animations)):                  # every node's motion, skinned or not
        w, w0 = back.node_clip(a).world, asset.node_clip(a).world
        np.testing.assert_allclose(w, w0, atol=1e-6 * max(1.0, float(np.abs(w0).max())))
    doc = pygltflib.GLTF2().load(str(path))
    validator.validate(doc)                               # raises on a violation
    assert len(doc.skins) == len(asset.skins) and not doc.materials


def test_several_clips_and_primitives(tmp_path):
    """A list of clips of one skeleton: one animation each, named after it; a list of meshes:
    primitives of one skinned mesh."""
    clip = skelsimd.data.load_example(end_sites=True)[:30]
    mesh = skelsimd.data.example_mesh(clip.skeleton)
    walk, turn = clip[:20], clip[10:].mirror()
    walk.name, turn.name = "walk", "turn"
    half = dict(mesh, triangles=mesh["triangles"][: len(mesh["triangles"]) // 2],
                uvs=np.random.default_rng(0).random((len(mesh["positions"]), 2)))
    path = skelsimd.save_gltf(tmp_path / "two.glb", [walk, turn], mesh=[mesh, half], scale=0.01)
    back = load_gltf(path)
    assert [a.name for a in back.animations] == ["walk", "turn"]
    assert [m.name for m in back.meshes] == ["mesh[0]", "mesh[1]"]
    assert back.meshes[0].uvs is None
    np.testing.assert_allclose(back.meshes[1].uvs, half["uvs"], atol=1e-7)
    for c, b in zip((walk, turn), back.clips):
        assert b.name == c.name and b.frames == c.frames
        same_quats(b.local[..., :4], c.local[..., :4], 2e-6)
        np.testing.assert_allclose(b.local[..., 4:7], c.local[..., 4:7] * 0.01, rtol=1e-6, atol=1e-6)
    # one clip in a list writes what the clip alone writes
    one = skelsimd.save_gltf(tmp_path / "one.glb", [walk], mesh=mesh)
    alone = skelsimd.save_gltf(tmp_path / "alone.glb", walk, mesh=mesh)
    assert open(one, "rb").read() == open(alone, "rb").read()


def test_asset_scale(tmp_path):
    asset = _load(os.path.join(DATA, "Fox.glb"))
    with pytest.warns(UserWarning, match="not written"):
        path = skelsimd.save_gltf(tmp_path / "fox.glb", asset, scale=0.01)
    back = load_gltf(path)
    np.testing.assert_allclose(back.meshes[0].positions, asset.meshes[0].positions * 0.01,
                               rtol=1e-6)
    w, w0 = back.node_clip(0).world, asset.node_clip(0).world
    np.testing.assert_allclose(w[..., :3], w0[..., :3], atol=1e-6)
    np.testing.assert_allclose(w[..., 3], w0[..., 3] * 0.01, rtol=1e-5, atol=1e-7)


def test_refusals_write_nothing(tmp_path):
    asset = _load(os.path.join(DATA, "Fox.glb"))
    clip = skelsimd.data.load_example()[:5]
    other = skelsimd.data.load_example(end_sites=True)[:5]
    target = tmp_path / "x.glb"
    cases = [
        (dict(clip=asset, mesh=asset.meshes[0]), TypeError, "mesh: expected None with a GltfAsset"),
        (dict(clip=asset, name="x"), TypeError, "name: expected None with a GltfAsset"),
        (dict(clip=[clip, other]), ValueError, r"clip\[1\]: expected the skeleton of clip\[0\]"),
        (dict(clip=[clip, clip], name="x"), ValueError, "name: expected None with several clips"),
        (dict(clip=[clip, 3]), TypeError, r"clip\[1\]: expected a skelsimd.Clip, got int"),
        (dict(clip=[]), TypeError, "a non-empty list of Clips or a GltfAsset"),
        (dict(clip=clip, mesh=[dict(positions=np.zeros((2, 3)))]), TypeError,
         r"mesh\[0\]: expected an object or mapping"),
        (dict(clip=clip, mesh=dict(skelsimd.data.example_mesh(), uvs=np.zeros((3, 2)))),
         ValueError, r"mesh.uvs: expected a real array of shape \(800, 2\)"),
    ]
    for kw, error, match in cases:
        c = kw.pop("clip")
        with pytest.raises(error, match=match):
            skelsimd.save_gltf(target, c, **kw)
        assert not target.exists()
