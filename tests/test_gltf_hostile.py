"""load_gltf on files that ask for a lot of work (long chains, many animations, long durations,
huge counts) and on absurd values: a ValueError within the budgets, or clips that still match
the float64 node-tree reference (skelsimd.reference.gltf) when the work is allowed."""
import warnings

import numpy as np
import pytest

import skelsimd
from skelsimd.io import _gltf_animations as G
from skelsimd.reference import gltf as ref

import gltf_files as F


def _worlds_match(path, asset, frames=(0, 1, 2)):
    """Every clip's world matrices equal the reference's at the given frames (and the exact
    local matrices' too)."""
    doc = ref.Document(path)
    for (a, s), clip in zip(asset.clip_pairs(), asset.clips):
        g = skelsimd.qts_local_to_global_matrix(clip.local, clip.skeleton)
        exact = skelsimd.local_to_global(asset.local_matrices(a, s), clip.skeleton)
        for f in frames:
            f = min(f, clip.frames - 1)
            worlds = ref.world_matrices(doc, a, f / clip.fps)
            want = np.array([worlds[n][:3] for n in asset.skins[s].nodes])
            scale = max(1.0, np.abs(want).max())
            np.testing.assert_allclose(g[f], want, atol=5e-5 * scale, err_msg=f"{a} {s} {f}")
            np.testing.assert_allclose(exact[f], want, atol=5e-5 * scale)


def test_long_duration_refused_at_load(tmp_path):
    path = F.long_duration(2 ** 24, 1).write(tmp_path, "glb")
    with pytest.raises(ValueError, match=r"animations\[0\] \('long'\): 16777216 frames "
                                         r"\(559240 s at 30 Hz\).*max_joint_frames = 4194304"):
        skelsimd.load_gltf(path)


def test_budget_is_per_file_and_a_keyword(tmp_path):
    path = F.many_long_animations(4, 2000, 8).write(tmp_path)
    # each animation: 2000 frames x (8 joints + 1 moved node) = 18000; all four: 72000
    with pytest.raises(ValueError, match=r"animations\[2\] \('long2'\): 2000 frames \(66\.6333 s "
                                         r"at 30 Hz\) x \(8 joints \+ 1 moved nodes\) of "
                                         r"skins\[0\] bring the file's clips to 54000"):
        skelsimd.load_gltf(path, max_joint_frames=50_000)
    asset = skelsimd.load_gltf(path, max_joint_frames=72_000)
    assert asset.max_joint_frames == 72_000
    assert [c.frames for c in asset.clips] == [2000] * 4
    _worlds_match(path, asset, frames=(0, 999, 1999))
    with pytest.raises(ValueError, match="max_joint_frames = 72000"):
        asset.clip(0, 0, sample_rate=200)       # alone, at another rate: 13328 x 9 > 72000
    assert skelsimd.load_gltf(path, max_joint_frames=100_000).clip(0, 0, 30.0).frames == 2000
    for bad, err in ((0, ValueError), (1.5, TypeError), (True, TypeError), ("9", TypeError)):
        with pytest.raises(err, match="max_joint_frames"):
            skelsimd.load_gltf(path, max_joint_frames=bad)


@pytest.mark.parametrize("joints", [1, 4])
def test_long_chain_with_many_animations(tmp_path, joints):
    # nodes above the first joint fold into it; the animations move nodes in that folded
    # chain and between the joints
    path = F.long_chain(300, 40, joints).write(tmp_path)
    asset = skelsimd.load_gltf(path)
    assert len(asset.clips) == 40
    assert asset.skins[0].skeleton.parents.tolist() == [-1] + list(range(joints - 1))
    _worlds_match(path, asset, frames=(0, 1))


def test_several_moved_nodes_in_one_chain(tmp_path):
    """Joints every 7th node of a 60-node chain, one animation moving 25 nodes (several in
    each folded chain, joints among them), another with CUBICSPLINE and STEP channels."""
    b = F.Builder()
    for n in range(60):
        b.node(name=f"n{n}", translation=[0.1 * (n % 3), 0.5, 0.0],
               rotation=F._quat([1, n % 2, 0.5], 0.05 * n).tolist(),
               scale=[1.01, 1.01, 1.01], **({"children": [n + 1]} if n < 59 else {}))
    b.json["scenes"][0]["nodes"] = [0]
    b.json["skins"].append({"joints": list(range(6, 60, 7))})
    rng = np.random.default_rng(3)
    t = np.array([0.0, 0.25, 0.5, 1.0], np.float32)
    i = b.accessor(t)
    samplers, channels = [], []
    for k, node in enumerate(rng.choice(60, 25, replace=False).tolist()):
        q = np.array([F._quat(rng.normal(size=3), a) for a in rng.uniform(-1, 1, 4)], np.float32)
        samplers.append({"input": i, "output": b.accessor(q)})
        channels.append({"sampler": k, "target": {"node": node, "path": "rotation"}})
    b.json["animations"].append({"name": "many", "samplers": samplers, "channels": channels})
    tan = rng.uniform(-0.5, 0.5, (4, 3, 3)).astype(np.float32)
    tan[:, 1] = rng.uniform(0, 1, (4, 3))
    b.json["animations"].append({"name": "kinds", "samplers": [
        {"input": i, "output": b.accessor(tan.reshape(-1, 3)), "interpolation": "CUBICSPLINE"},
        {"input": i, "output": b.accessor(rng.uniform(0.9, 1.1, (4, 1)).repeat(3, 1)
                                          .astype(np.float32)), "interpolation": "STEP"}],
        "channels": [{"sampler": 0, "target": {"node": 3, "path": "translation"}},
                     {"sampler": 1, "target": {"node": 20, "path": "scale"}}]})
    path = b.write(tmp_path)
    asset = skelsimd.load_gltf(path, sample_rate=12)
    assert len(asset.clips) == 2
    _worlds_match(path, asset, frames=(0, 1, 3, 5, 7, 12))


def test_frame_sampler_equals_channel_sampling():
    rng = np.random.default_rng(7)
    chans = []
    for interp in ("STEP", "LINEAR", "CUBICSPLINE"):
        for path, width in (("rotation", 4), ("translation", 3), ("weights", 2)):
            for n in (1, 2, 5):
                times = np.sort(rng.uniform(0, 2, n)).astype(np.float32)
                times[0] = rng.choice([0.0, times[0]])
                shape = (n, 3, width) if interp == "CUBICSPLINE" else (n, width)
                vals = rng.normal(size=shape).astype(np.float32)
                chans.append(G.GltfChannel(node=0, path=path, interpolation=interp,
                                           times=times, values=vals))
    for rate, frames, step in ((30.0, 61, 7), (7.0, 15, 1), (1000.0, 2001, 500)):
        sampler = G._FrameSampler(chans, rate, frames)
        got = {}
        for f0 in range(0, frames, step):
            for idx, vals in sampler.chunk(f0, min(frames, f0 + step)):
                for i, v in zip(idx.tolist(), vals):
                    got.setdefault(i, []).append(v)
        t = np.arange(frames) / rate
        for i, c in enumerate(chans):
            np.testing.assert_allclose(np.concatenate(got[i]), c.sample(t), rtol=1e-12,
                                       atol=1e-12, err_msg=f"{c.interpolation} {c.path} {i}")


def test_many_channels(tmp_path):
    path = F.many_channels(2000).write(tmp_path)
    asset = skelsimd.load_gltf(path, sample_rate=2)
    assert asset.clips[0].local.shape == (3, 2000, 8)
    _worlds_match(path, asset, frames=(0, 1, 2))


def test_many_skinned_nodes_sharing_many_primitives(tmp_path):
    path = F.many_mesh_nodes(3000, 3000).write(tmp_path)
    with pytest.raises(ValueError, match=r"meshes\[0\]\.primitives\[\d+\]: decoding the file"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            skelsimd.load_gltf(path)


@pytest.mark.parametrize("where, value, match", [
    ("inverse_bind", -3.4e38, r"skins\[0\]\.inverseBindMatrices: accessors\[0\] element 1 "
                              r"holds -3\.4e\+38, beyond the range \+-1e\+18"),
    ("inverse_bind", 2e18, r"accessors\[0\] element 1 holds 2e\+18"),
    ("matrix", 1e30, r"nodes\[0\]\.matrix\[12\]: 1e\+30 is beyond the range \+-1e\+18"),
    ("translation", -1e19, r"nodes\[0\]\.translation\[0\]: -1e\+19 is beyond"),
    ("scale", 1e300, r"nodes\[0\]\.scale\[0\]: 1e\+300 is beyond"),
    ("key", 3e38, r"animations\[0\]\.samplers\[0\]\.output: accessors\[2\] element 1 holds "
                  r"3e\+38"),
    ("inverse_bind", np.nan, r"accessors\[0\]: non-finite value nan in element 1"),
    ("key", -np.inf, r"accessors\[2\]: non-finite value -inf in element 1"),
])
def test_absurd_values_refused(tmp_path, where, value, match):
    path = F.bad_matrix_entry(where, value).write(tmp_path)
    with pytest.raises(ValueError, match=match):
        skelsimd.load_gltf(path)


def test_values_within_the_range_load(tmp_path):
    asset = skelsimd.load_gltf(F.bad_matrix_entry("translation", 1e17).write(tmp_path))
    assert asset.skins[0].skeleton.rest[0, 4] == np.float32(1e17)


def test_skin_refuses_non_finite_palette():
    pos = np.zeros((3, 3), np.float32)
    ji = np.array([[0, 1], [1, 2], [2, 0]], np.int32)
    w = np.full((3, 2), 0.5, np.float32)
    pal = np.zeros((2, 3, 3, 4), np.float32)
    pal[..., :3] = np.eye(3)
    out = np.full((2, 3, 3), 7.0, np.float32)
    skelsimd.skin(pos, ji, w, pal, out)
    out[:] = 7.0
    for value in (np.nan, np.inf, -np.inf):
        bad = pal.copy()
        bad[1, 2, 0, 3] = value
        with pytest.raises(ValueError, match=rf"palette: expected finite matrices, got "
                                             rf"{value} in joint 2 of palette\[1\]"):
            skelsimd.skin(pos, ji, w, bad, out)
        assert (out == 7.0).all()
        with pytest.raises(ValueError, match=r"in joint 2$"):
            skelsimd.skin(pos, ji, w, bad[1].tolist())
