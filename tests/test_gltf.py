"""load_gltf against the float64 reference (skelsimd.reference.gltf) on the real assets in
tests/data/gltf and on synthetic files (tests/gltf_files.py), at keys and between keys, and
its refusals of bad files."""
import json
import os
import shutil
import warnings

import numpy as np
import pytest

import skelsimd
from skelsimd.io.gltf import GltfClip, load_gltf
from skelsimd.reference import gltf as ref

from gltf_files import Builder, character, write_document

pytestmark = pytest.mark.filterwarnings("ignore:.*mode 1 .points or lines.")

DATA = os.path.join(os.path.dirname(__file__), "data", "gltf")
REAL = sorted(f for f in os.listdir(DATA) if f.endswith((".gltf", ".glb")))


def _load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_gltf(path, **kw)


def _check_contract(path, asset, frames_per_clip=6, atol=5e-5):
    """World matrices and skinned vertices of every clip equal the reference's."""
    doc = ref.Document(path)
    assert asset.clip_pairs(), path
    for (a, s), clip in zip(asset.clip_pairs(), asset.clips):
        skin = asset.skins[s]
        assert clip.skin == s and isinstance(clip, GltfClip)
        assert clip.name == asset.animations[a].name
        frames = np.unique(np.linspace(0, clip.frames - 1, frames_per_clip).round().astype(int))
        q = clip.local[..., :4].astype(np.float64)
        np.testing.assert_allclose(np.linalg.norm(q, axis=-1), 1, atol=1e-6)
        assert ((q[1:] * q[:-1]).sum(axis=-1) >= 0).all()          # continuous over frames
        g = skelsimd.qts_local_to_global_matrix(clip.local, clip.skeleton)
        exact = asset.local_matrices(a, s, clip.fps)
        g2 = skelsimd.local_to_global(exact, clip.skeleton)
        for f in frames:
            t = f / clip.fps
            worlds = ref.world_matrices(doc, a, t)
            want = np.array([worlds[n][:3] for n in skin.nodes])
            scale = max(1.0, np.abs(want).max())
            np.testing.assert_allclose(g[f], want, atol=atol * scale, err_msg=f"{path} {a} {f}")
            np.testing.assert_allclose(g2[f], want, atol=atol * scale)
            palette = skelsimd.multiply_joints(g[f], skin.inverse_bind)
            for m in asset.meshes:
                if m.skin != s:
                    continue
                if m.weights.shape[1] > 12:
                    m = m.compact_influences()
                got = skelsimd.skin(m.positions, m.joint_indices, m.weights, palette)
                want_v = ref.skinned_vertices(doc, m.node, m.primitive, a, t)
                vs = max(1.0, np.abs(want_v).max())
                np.testing.assert_allclose(got, want_v, atol=atol * vs * 4,
                                           err_msg=f"{path} {m.name} frame {f}")


@pytest.mark.parametrize("name", REAL)
def test_real_files_match_reference(name):
    path = os.path.join(DATA, name)
    asset = _load(path)
    doc = ref.Document(path)
    for sk in asset.skins:          # inverse bind matrices and joint order
        js = doc.json["skins"][asset.skins.index(sk)]["joints"]
        assert sorted(sk.nodes.tolist()) == sorted(js)
        assert sk.skeleton.is_depth_first
        assert sk.inverse_bind.shape == (len(js), 3, 4) and sk.inverse_bind.dtype == np.float32
    for m in asset.meshes:
        assert m.positions.dtype == np.float32 and m.triangles.dtype == np.int32
        assert m.joint_indices.dtype == np.int32 and m.weights.dtype == np.float32
        np.testing.assert_allclose(m.weights.sum(axis=1), 1, atol=1e-6)
        want = ref.skinned_vertices(doc, m.node, m.primitive)   # rest pose
        g = skelsimd.local_to_global(
            np.stack([np.eye(4)[:3]] * len(asset.skins[m.skin].nodes)).astype(np.float32) * 0
            + _rest_world(doc, asset.skins[m.skin]), -np.ones(len(asset.skins[m.skin].nodes),
                                                               np.int32))
        got = skelsimd.skin(m.positions, m.joint_indices, m.weights,
                            skelsimd.multiply_joints(g, asset.skins[m.skin].inverse_bind))
        np.testing.assert_allclose(got, want, atol=1e-4 * max(1, np.abs(want).max()))
    if asset.clip_pairs():
        _check_contract(path, asset)
        # between keys
        _check_contract(path, _load(path, sample_rate=37.0), frames_per_clip=5)


def _rest_world(doc, skin):
    w = ref.world_matrices(doc)
    return np.array([w[n][:3] for n in skin.nodes], np.float32)


def test_real_file_facts():
    fox = _load(os.path.join(DATA, "Fox.glb"))
    assert [a.name for a in fox.animations] == ["Survey", "Walk", "Run"]
    assert [c.name for c in fox.clips] == ["Survey", "Walk", "Run"]
    # 24 Hz keys (Run's last keys are off the 24 Hz grid: sampled between them)
    assert [(c.fps, c.frames) for c in fox.clips] == [(24.0, 83), (24.0, 18), (24.0, 28)]
    assert len(fox.skins[0].nodes) == 24 and fox.meshes[0].positions.shape == (1728, 3)
    six = _load(os.path.join(DATA, "Animation_Skin_06.gltf"))
    assert [(c.name, c.skin) for c in six.clips] == [("animation0", 0), ("animation0", 1)]
    assert _load(os.path.join(DATA, "Animation_SkinType_01.gltf")).clips == []
    rigged = _load(os.path.join(DATA, "rigged_simple.gltf"))
    assert rigged.clips[0].fps == 24.0        # keys from 0.042 s: frame 0 holds the first key
    assert rigged.clips[0].frames == 51


def test_interpolation_channels_match_reference():
    path = os.path.join(DATA, "interpolation_test.gltf")
    asset = _load(path)
    doc = ref.Document(path)
    assert asset.clips == [] and len(asset.animations) == 9
    for a, anim in enumerate(asset.animations):
        ch = anim.channels[0]
        times = np.concatenate([ch.times, (ch.times[:-1] + ch.times[1:]) / 2,
                                [-0.5, anim.duration + 1]])
        got = ch.sample(times)
        want = np.array([ref.sample_channel(doc, a, 0, t) for t in times.astype(np.float64)])
        np.testing.assert_allclose(got, want, atol=1e-6)


@pytest.mark.parametrize("kind", ["gltf", "external", "glb"])
def test_synthetic_character_matches_reference(tmp_path, kind):
    path = character().write(tmp_path, kind)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asset = load_gltf(path)
    assert any("mode 1" in str(w.message) for w in caught)      # the lines primitive
    names = asset.skins[0].skeleton.names
    assert names == ("hip", "spine", "head", "head.1", "arm")
    assert asset.skins[0].nodes.tolist() == [2, 3, 5, 9, 6]
    assert asset.skins[0].skeleton.parents.tolist() == [-1, 0, 1, 2, 1]
    assert asset.skins[1].skeleton.names == ("spine", "head", "arm")
    assert asset.skins[1].skeleton.parents.tolist() == [-1, 0, 0]
    body = asset.meshes[0]
    assert body.joint_indices.shape == (40, 12)              # three sets, <= 8 non-zero
    assert body.compact_influences().joint_indices.shape == (40, 12)   # what skin takes
    small = body.compact_influences(8)
    assert small.joint_indices.shape == (40, 8) and small.weights.shape == (40, 8)
    with pytest.warns(UserWarning, match=r"body\[0\]: \d+ of 40 vertices have more than 4 non-zero"):
        four = body.compact_influences(4)
    np.testing.assert_allclose(four.weights.sum(axis=1), 1, atol=1e-6)   # renormalised
    assert body.normals.shape == (40, 3)
    np.testing.assert_array_equal(body.positions[[3, 17]], [[0.5, 0.5, 0.5], [-0.5, 0.25, 0]])
    strip, fan = asset.meshes[1], asset.meshes[2]
    assert strip.triangles.tolist() == [[0, 1, 2], [1, 3, 2], [2, 3, 4], [3, 5, 4], [4, 5, 6]]
    assert fan.triangles[:2].tolist() == [[1, 2, 0], [2, 3, 0]]
    assert [(c.name, c.skin) for c in asset.clips] == [
        ("move", 0), ("move", 1), ("animation1", 0), ("animation1", 1)]
    assert set(asset.clips[0].morph_weights) == {7}
    ch = [c for c in asset.animations[0].channels if c.path == "weights"][0]
    np.testing.assert_allclose(asset.clips[0].morph_weights[7][:3], ch.values.reshape(3, 2))
    assert asset.clips[0].morph_weights[7].shape == (asset.clips[0].frames, 2)
    assert asset.clips[0].fps == 8.0
    _check_contract(path, asset, frames_per_clip=9)
    _check_contract(path, load_gltf(path, sample_rate=13.0), frames_per_clip=14)


def test_quantized_rotation_keys(tmp_path):
    path = character(quantized_rotation=True).write(tmp_path, "glb")
    asset = _load(path)
    ch = asset.animations[0].channels[3]
    assert ch.path == "rotation" and ch.node == 6 and ch.values.dtype == np.float32
    assert np.abs(ch.values).max() <= 1.0
    _check_contract(path, asset, frames_per_clip=9)
    _check_contract(path, _load(path, sample_rate=29.0), frames_per_clip=12)


def test_implied_rate_falls_back_to_30(tmp_path):
    b = character()
    b.json["animations"] = b.json["animations"][1:]          # keys at 0, 0.5 and 1.5 s: 2 Hz
    assert _load(b.write(tmp_path)).clips[0].fps == 2.0
    b2 = character()
    acc = b2.accessor(np.array([0.0, 0.37], np.float32))     # 2.7 Hz: not an integer rate
    b2.json["animations"][1]["samplers"][0]["input"] = acc
    b2.json["animations"][1]["samplers"][1]["input"] = acc
    b2.json["animations"][1]["samplers"][1]["output"] = b2.accessor(
        np.array([[1, 1, 1], [2, 2, 2]], np.float32))
    assert _load(b2.write(tmp_path / "b")).clips[2].fps == 30.0


def test_clip_name_and_skin_survive_editing(tmp_path):
    asset = load_gltf(character().write(tmp_path))
    clip = asset.clips[1]
    for edited in (clip[1:5], clip.resample(20), clip.mirror(), clip.reorder("breadth-first")[0],
                   clip.concatenate(clip)):
        assert isinstance(edited, GltfClip)
        assert (edited.name, edited.skin) == ("move", 1)
    assert skelsimd.Clip(clip.skeleton, clip.local, 0.1).name is None


def test_nonuniform_scale(tmp_path):
    path = character(nonuniform=True).write(tmp_path)
    asset = load_gltf(path)
    pairs = asset.clip_pairs()
    with pytest.warns(UserWarning, match=r"4 of 4 clips refused.*animation 'move' \(skin 0\): "
                      r"nodes\[2\] \('hip'\): non-uniform scale \[1\.? +2\.? +1\.?\]"):
        assert asset.clips == []
    assert set(asset.refused) == {(asset.animations[a].name, s) for a, s in pairs}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert asset.clips == []                       # warned once, not at every read
    with pytest.raises(ValueError, match=r"nodes\[2\] \('hip'\): non-uniform scale \[1\.? +2\.? +1\.?\]"):
        asset.clip(0, 0)
    with pytest.raises(ValueError, match="non-uniform scale.*scale_tolerance=0.001"):
        asset.clip("move", 0)
    assert asset.skins[0].skeleton.rest.shape == (5, 3, 4)
    doc = ref.Document(path)
    m = asset.local_matrices(0, 0)
    g = skelsimd.local_to_global(m, asset.skins[0].skeleton)
    for f in (0, 3, 8):
        worlds = ref.world_matrices(doc, 0, f / 8.0)
        want = np.array([worlds[n][:3] for n in asset.skins[0].nodes])
        np.testing.assert_allclose(g[f], want, atol=2e-5 * np.abs(want).max())
    with pytest.raises(ValueError, match=r"nodes\[2\] \('hip'\).*joint 'spine'"):
        asset.clip(0, 1)   # skin 1's root joint 'spine' has 'hip' folded into it


def test_one_refused_clip_leaves_the_others(tmp_path):
    b = character()
    anim = b.json["animations"][1]                     # the unnamed animation: arm's scale
    anim["samplers"][1]["output"] = b.accessor(
        np.array([[1, 1, 1], [2, 3, 2], [0.5, 0.5, 0.5]], np.float32))
    asset = load_gltf(b.write(tmp_path))
    with pytest.warns(UserWarning, match=r"clips refused.*'animation1'.*nodes\[6\] \('arm'\)"):
        clips = asset.clips
    assert [c.name for c in clips] == ["move", "move"]
    assert {name for name, _ in asset.refused} == {"animation1"}
    with pytest.raises(ValueError, match=r"nodes\[6\] \('arm'\): non-uniform scale"):
        asset.clip("animation1", 0)
    with pytest.raises(ValueError, match="animation: no animation named 'nope'"):
        asset.clip("nope")
    assert asset.clip("move", 1).skin == 1


@pytest.mark.parametrize("tol", [1e-5, 1e-3, 1e-2])
def test_scale_noise_within_tolerance_is_uniform_within_bound(tmp_path, tol):
    """A hip scale spread by just under the tolerance loads as a uniform scale (the mean of the
    axis scales), and every joint's world position stays within the documented bound of the
    exact matrices; just over it, the clip is refused."""
    from skelsimd.bounds import bound, depth_bound
    rel = np.array([1.0, 1.0 + 0.99 * tol, 1.0 + 0.3 * tol])
    path = character(hip_scale=1.5 * rel).write(tmp_path)
    asset = load_gltf(path, scale_tolerance=tol)
    for (a, s), clip in zip(asset.clip_pairs(), asset.clips):
        skin = asset.skins[s]
        exact = skelsimd.local_to_global(asset.local_matrices(a, s), clip.skeleton,
                                         precision="float64")
        got = skelsimd.qts_local_to_global_matrix(clip.local, clip.skeleton)
        p, o = exact[..., 3].astype(np.float64), got[..., 3]
        # the snapped joints and folded nodes are 'hip' and those above it: their world
        # positions are the world origins of hip's parent chain; hip's own origin is the first
        # column of every joint's chain sum (a joint's distance to the snapped node's origin)
        doc = ref.Document(path)
        for f in range(0, clip.frames, 3):
            worlds = ref.world_matrices(doc, a, f / clip.fps)
            hip_origin = worlds[2][:3, 3]
            reach = np.linalg.norm(p[f] - hip_origin, axis=-1)
            allowed = (bound("gltf.scale_snap") * tol * reach
                       + depth_bound(depth=6, translation=float(np.abs(p[f]).max())))
            err = np.linalg.norm(o[f] - p[f], axis=-1)
            assert (err <= allowed).all(), (f, err - allowed)
            if tol >= 1e-3:    # the snap is visible (not hidden by float32 rounding)
                assert err.max() > 0.05 * bound("gltf.scale_snap") * tol * reach.max()
    with pytest.warns(UserWarning, match="clips refused"):
        assert load_gltf(path, scale_tolerance=tol / 2).clips == []


def test_scale_tolerance_argument(tmp_path):
    path = character().write(tmp_path)
    with pytest.raises(ValueError, match=r"scale_tolerance: expected 0 <= scale_tolerance <= 0.1, got 0.5"):
        load_gltf(path, scale_tolerance=0.5)
    with pytest.raises(ValueError, match="scale_tolerance"):
        load_gltf(path, scale_tolerance=-1e-3)
    with pytest.raises(TypeError, match="scale_tolerance: expected a number, got str"):
        load_gltf(path, scale_tolerance="1e-3")
    assert load_gltf(path, scale_tolerance=0).scale_tolerance == 0.0
    assert len(load_gltf(path, scale_tolerance=0).clips) == 4   # exact similarities stay exact


def test_snap_bound_on_random_chains():
    """The bound behind gltf.scale_snap, in float64 on random chains whose every joint's axis
    scales spread and axes shear up to the tolerance: snapped and exact positions of a point
    below the chain differ by at most bound * tol * sum_k |p - o_k|."""
    from skelsimd.bounds import bound
    from skelsimd.io._gltf_skins import _similar, _to_qts
    from skelsimd.reference.quat import quat_to_matrix
    rng = np.random.default_rng(7)
    worst, tested = 0.0, 0
    for _ in range(400):
        tol = 10 ** rng.uniform(-5, -2)
        J = int(rng.integers(1, 10))
        mats = np.tile(np.eye(4), (J, 1, 1))
        for k in range(J):
            gauss = rng.normal(size=4)       # a uniform random rotation
            rot = quat_to_matrix(gauss)
            sc = rng.uniform(0.5, 2) * (1 + rng.uniform(-0.5, 0.5, 3) * tol)
            shear = np.eye(3) + np.triu(rng.uniform(-1, 1, (3, 3)) * tol, 1)
            mats[k, :3, :3] = rot @ shear @ np.diag(sc)
            mats[k, :3, 3] = rng.uniform(-1, 1, 3)
        if not _similar(mats[:, :3, :3], tol).all():
            continue
        q = _to_qts(mats).astype(np.float64)
        snapped = np.tile(np.eye(4), (J, 1, 1))
        snapped[:, :3, :3] = quat_to_matrix(q[:, :4]) * q[:, 7, None, None]
        snapped[:, :3, 3] = q[:, 4:7]
        g, gs, origins = np.eye(4), np.eye(4), []
        for k in range(J):
            origins.append((g @ mats[k])[:3, 3])
            g, gs = g @ mats[k], gs @ snapped[k]
        x = np.array([0.3, -0.2, 0.4, 1.0])
        p, ps = g @ x, gs @ x
        allowed = tol * sum(np.linalg.norm(p[:3] - o) for o in origins)
        worst = max(worst, np.linalg.norm(p - ps) / allowed)
        tested += 1
    assert tested > 300
    assert worst <= bound("gltf.scale_snap")
    assert worst > 0.2          # the bound is not loose by orders of magnitude


def test_unnormalised_weights_warn(tmp_path):
    path = character(unnormalized=True).write(tmp_path)
    with pytest.warns(UserWarning, match=r"meshes\[0\]\.primitives\[0\] \('body'\): 40 of 40"):
        asset = load_gltf(path)
    np.testing.assert_allclose(asset.meshes[0].weights.sum(axis=1), 1, atol=1e-6)


def test_no_animation_and_identity_bind(tmp_path):
    b = character()
    b.json["animations"] = []
    asset = load_gltf(b.write(tmp_path))
    assert asset.clips == [] and asset.animations == []
    np.testing.assert_array_equal(asset.skins[1].inverse_bind, np.tile(np.eye(4)[:3], (3, 1, 1)))


def test_rate_and_bad_arguments(tmp_path):
    path = character().write(tmp_path)
    with pytest.raises(ValueError, match="sample_rate"):
        load_gltf(path, sample_rate=0)
    with pytest.raises(TypeError, match="sample_rate"):
        load_gltf(path, sample_rate="30")
    asset = load_gltf(path, sample_rate=10)
    assert asset.clips[0].frames == 11     # t = 0 .. 1 s, the last key
    assert asset.clips[2].frames == 16     # the second animation ends at 1.5 s
    with pytest.raises(ValueError, match="animation"):
        asset.clip(5)


# --- bad files -------------------------------------------------------------------------------------

def _edited(tmp_path, edit, kind="gltf"):
    doc, binary = character().document("external" if kind == "external" else kind)
    out = edit(doc)
    if out is not None:
        doc = out
    return write_document(tmp_path, doc, binary, kind)


def _set(path, value):
    def edit(doc):
        d = doc
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return edit


BAD = [
    (_set(["accessors", 3, "count"], 10 ** 6), r"accessors\[3\]: byteOffset \+ \(count - 1\) \* "
     r"byteStride \+ element size = \d+ exceeds bufferViews\[\d+\]\.byteLength"),
    (_set(["bufferViews", 2, "byteLength"], 10 ** 9), r"bufferViews\[2\]: byteOffset \+ byteLength"),
    (_set(["buffers", 0, "byteLength"], 10 ** 9), r"buffers\[0\]: byteLength"),
    (_set(["nodes", 3, "children"], [4, 6, 2]), r"nodes\[2\]: a child of nodes\[1\] and of nodes\[3\]"),
    (_set(["nodes", 6, "children"], [0]), r"nodes\[0\]: a child of|cycle"),
    (_set(["nodes", 9, "children"], [9]), r"cycle|child of"),
    (_set(["extensionsRequired"], ["KHR_draco_mesh_compression"]),
     r"extensionsRequired\[0\]: 'KHR_draco_mesh_compression' is not supported"),
    (_set(["accessors", 0, "componentType"], 1234), r"accessors\[0\]\.componentType"),
    (_set(["accessors", 0, "count"], 2 ** 60), r"accessors\[0\]"),
    (_set(["skins", 0, "joints"], [6, 2, 5, 9, 3, 3]), r"skins\[0\]\.joints\[5\]"),
    (_set(["asset", "version"], "1.0"), r"asset\.version"),
    (_set(["nodes", 7, "skin"], 7), r"nodes\[7\]\.skin: skins\[7\] does not exist"),
    (_set(["animations", 0, "samplers", 0, "interpolation"], "BEZIER"), r"interpolation"),
    (_set(["meshes", 1, "primitives", 0, "mode"], 9), r"mode"),
    (_set(["nodes", 2, "rotation"], [0, 0, 0, 0]), r"nodes\[2\]\.rotation: expected a unit quaternion"),
    (_set(["nodes", 2, "translation"], [0, "a", 0]), r"nodes\[2\]\.translation"),
    (_set(["accessors"], {}), r"accessors: expected a JSON array"),
    (_set(["accessors", 0], {"componentType": 5126, "count": 10 ** 9, "type": "MAT4"}),
     r"accessors\[0\]: count 1000000000 without a bufferView would take"),
    (_set(["nodes", 5, "matrix"], list(range(16))), r"nodes\[5\]\.matrix: expected an affine"),
]


@pytest.mark.parametrize("edit, match", BAD)
def test_bad_files(tmp_path, edit, match):
    with pytest.raises(ValueError, match=match):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _load(_edited(tmp_path, edit)).clips


def test_skin_without_common_root(tmp_path):
    def edit(doc):
        doc["nodes"].append({"name": "stray"})
        doc["skins"][1]["joints"].append(len(doc["nodes"]) - 1)
    with pytest.raises(ValueError, match=r"skins\[1\]\.joints: nodes\[\d+\] and nodes\[10\] have "
                                         "no common root"):
        _load(_edited(tmp_path, edit))


def test_index_past_vertex_count(tmp_path):
    b = character()
    bad = b.accessor(np.array([0, 1, 99], np.uint16))
    b.json["meshes"][1]["primitives"][0]["indices"] = bad
    with pytest.raises(ValueError, match=r"meshes\[1\]\.primitives\[0\]\.indices: index 99 at "
                                         "position 2 exceeds the vertex count 10"):
        _load(b.write(tmp_path))


def test_joint_index_past_skin(tmp_path):
    b = character()
    b.json["meshes"][1]["primitives"][0]["attributes"]["JOINTS_0"] = b.accessor(
        np.full((10, 4), 7, np.uint8))
    with pytest.raises(ValueError, match=r"JOINTS_0: vertex 0 has joint 7, the skin has 3"):
        _load(b.write(tmp_path))


def test_malformed_json_and_glb(tmp_path):
    p = tmp_path / "a.gltf"
    p.write_text('{"asset": {"version": "2.0"}, ')
    with pytest.raises(ValueError, match="malformed JSON"):
        load_gltf(p)
    p.write_text("[" * 100000)
    with pytest.raises(ValueError, match="malformed JSON"):
        load_gltf(p)
    good = open(character().write(tmp_path, "glb"), "rb").read()
    for cut in (10, 30, len(good) // 2, len(good) - 3):
        q = tmp_path / f"cut{cut}.glb"
        q.write_bytes(good[:cut])
        with pytest.raises(ValueError):
            _load(q)


def test_missing_and_short_buffer(tmp_path):
    path = character().write(tmp_path, "external")
    os.rename(tmp_path / "x.bin", tmp_path / "y.bin")
    with pytest.raises(ValueError, match=r"buffers\[0\]\.uri: 'x\.bin': no such file"):
        load_gltf(path)
    data = open(tmp_path / "y.bin", "rb").read()
    (tmp_path / "x.bin").write_bytes(data[:100])
    with pytest.raises(ValueError, match=r"buffers\[0\]: byteLength \d+ exceeds the 100 bytes"):
        load_gltf(path)


@pytest.mark.parametrize("uri", ["../x.bin", "/etc/passwd", "sub/../../x.bin", "link.bin",
                                 "file:///etc/passwd", "http://example.com/x.bin", "C:/x.bin",
                                 "%2e%2e/x.bin"])
def test_uri_cannot_leave_the_directory(tmp_path, uri):
    outside = tmp_path / "x.bin"
    inner = tmp_path / "inner"
    path = character().write(inner, "external")
    shutil.copy(inner / "x.bin", outside)
    os.symlink(outside, inner / "link.bin")
    doc = json.load(open(path))
    doc["buffers"][0]["uri"] = uri
    json.dump(doc, open(path, "w"))
    with pytest.raises(ValueError, match=r"buffers\[0\]\.uri"):
        load_gltf(path)
    # a relative path inside the directory is fine
    os.makedirs(inner / "sub", exist_ok=True)
    shutil.copy(inner / "x.bin", inner / "sub" / "y.bin")
    doc["buffers"][0]["uri"] = "sub/y.bin"
    json.dump(doc, open(path, "w"))
    load_gltf(path)


@pytest.mark.dask
def test_dataset_pipeline_reads_gltf(tmp_path):
    pytest.importorskip("dask.bag")
    pytest.importorskip("zarr")
    from skelsimd.dask import dataset
    shutil.copy(os.path.join(DATA, "Fox.glb"), tmp_path / "fox.glb")
    shutil.copy(os.path.join(DATA, "Animation_SkinType_01.gltf"), tmp_path / "still.gltf")
    shutil.copy(os.path.join(DATA, "Animation_SkinType_01.bin"), tmp_path)
    found = dataset.find_motion_files(str(tmp_path))
    assert sorted(os.path.basename(p) for p in found) == ["fox.glb", "still.gltf"]
    item = dataset.process_clip(str(tmp_path / "fox.glb"), dataset.default_steps())
    assert item.clip.name == "Survey" and item.clip.frames == 83
    failure = dataset.read_clip(str(tmp_path / "still.gltf"))
    assert isinstance(failure, dataset.ClipFailure)
    assert "no animation drives a skin" in failure.error


def test_buffers_without_uri_and_glb_chunks(tmp_path):
    doc, binary = character().document("glb")
    with pytest.raises(ValueError, match=r"buffers\[0\]: no uri and no GLB binary chunk"):
        _load(write_document(tmp_path, doc, binary, "gltf"))
    path = write_document(tmp_path, doc, binary, "glb")
    data = open(path, "rb").read()
    json_len = int.from_bytes(data[12:16], "little")
    with open(path, "wb") as f:             # the JSON chunk alone
        f.write(data[:8] + (20 + json_len).to_bytes(4, "little") + data[12:20 + json_len])
    with pytest.raises(ValueError, match=r"buffers\[0\]: no uri and no GLB binary chunk"):
        _load(path)
    with open(path, "wb") as f:             # a version 1 header
        f.write(data[:4] + (1).to_bytes(4, "little") + data[8:])
    with pytest.raises(ValueError, match="GLB header: version 1"):
        _load(path)


def test_public_names():
    import skelsimd.io
    assert skelsimd.io.load_gltf is skelsimd.load_gltf is load_gltf
    assert "load_gltf" in skelsimd.__all__ and "load_gltf" in skelsimd.io.__all__


def test_stretching_rig_plays_from_local_matrices(tmp_path):
    """The documented recipe for a genuine non-uniform scale: FK and skinning of the exact
    local matrices match the float64 node tree at keys and between keys; splitting a matrix
    into QTS (scale 1) plus axis scales and joining it back is exact to float32 rounding."""
    from skelsimd.io.gltf import example_glb
    path = tmp_path / "stretch.glb"
    path.write_bytes(example_glb(stretch=True))
    doc = ref.Document(str(path))
    for rate in (10.0, 37.0):
        asset = load_gltf(path, sample_rate=rate)
        skin, mesh = asset.skins[0], asset.meshes[0]
        local = asset.local_matrices("stretch")
        world = skelsimd.local_to_global(local, skin.skeleton)
        verts = skelsimd.skin(mesh.positions, mesh.joint_indices, mesh.weights,
                              skelsimd.multiply_joints(world, skin.inverse_bind))
        for f in range(len(local)):
            want = ref.skinned_vertices(doc, mesh.node, mesh.primitive, 0, f / rate)
            np.testing.assert_allclose(verts[f], want, atol=2e-6 * np.abs(want).max())
        assert np.ptp(verts[:, 2:, 1]) > 0.3          # the tip really stretches
    scale = np.linalg.norm(local[..., :3], axis=-2)
    q = skelsimd.matrix_to_quat(local[..., :3] / scale[..., None, :])
    qts = np.concatenate([q, local[..., 3], np.ones(q.shape[:-1] + (1,), np.float32)], -1)
    back = skelsimd.qts_to_matrix(qts)
    back[..., :3] *= scale[..., None, :]
    np.testing.assert_allclose(back, local, atol=1e-6)
