"""GltfAsset.node_clip: the world matrices of animated nodes, skinned or not, against the
float64 node tree (skelsimd.reference.gltf) at keys and between keys: Khronos's
InterpolationTest (STEP, LINEAR and CUBICSPLINE on T/R/S, no skin), a parent-inverse file
(animated children under a matrix parent), the synthetic character and real skinned files."""
import os
import warnings

import numpy as np
import pytest

from skelsimd.io.gltf import NodeClip, load_gltf
from skelsimd.reference import gltf as ref

from gltf_files import Builder, _column_major, _quat, character

DATA = os.path.join(os.path.dirname(__file__), "data", "gltf")
U = 2.0 ** -24


def _load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_gltf(path, **kw)


def _check(path, asset, animation, frames=None, sample_rate=None, nodes=None):
    """Every element within one float32 rounding of the float64 node tree's; returns the
    largest error relative to max(1, |world|)."""
    doc = ref.Document(path)
    nc = asset.node_clip(animation, sample_rate=sample_rate, nodes=nodes)
    a = animation if isinstance(animation, int) else \
        [x.name for x in asset.animations].index(animation)
    frames = range(nc.frames) if frames is None else frames
    worst = 0.0
    for f in frames:
        worlds = ref.world_matrices(doc, a, f / nc.sample_rate)
        want = np.array([worlds[n][:3] for n in nc.nodes]).reshape(len(nc.nodes), 3, 4)
        err = np.abs(nc.world[f] - want)
        scale = max(1.0, float(np.abs(want).max(initial=0)))
        assert (err <= U * np.abs(want) + 1e-12 * scale).all(), (path, animation, f)
        worst = max(worst, float(err.max(initial=0)) / scale)
    return nc, worst


def test_interpolation_test_every_mode_at_keys_and_between():
    path = os.path.join(DATA, "interpolation_test.gltf")
    asset = _load(path)
    assert not asset.skins
    doc = ref.Document(path)
    for a, anim in enumerate(asset.animations):
        nc, _ = _check(path, asset, a)                       # 30 Hz: on the 1-s keys and between
        assert isinstance(nc, NodeClip) and nc.name == anim.name
        assert nc.nodes.tolist() == sorted({c.node for c in anim.channels})
        assert nc.names == tuple(doc.json["nodes"][n].get("name") for n in nc.nodes)
        assert nc.world.dtype == np.float32 and nc.world.shape == (nc.frames, 1, 3, 4)
        assert nc.frames == int(np.floor(anim.duration * 30 + 1e-4)) + 1
        _check(path, asset, anim.name, sample_rate=7.3)     # off the keys everywhere
    # between keys: STEP holds the previous key (y 6.67 until 0.458 s, then 10), LINEAR is
    # halfway at the middle of two keys (0.417 s: 10, 0.833 s: 6)
    step = asset.node_clip("Step Translation", sample_rate=4).world[:, 0, 1, 3]
    assert step[1] == np.float32(6.6652265) and step[2] == 10
    linear = asset.node_clip("Linear Translation", sample_rate=8).world[:, 0, 1, 3]
    assert abs(linear[5] - 8) < 1e-5


def parent_inverse_file(directory):
    """A rotating 'empty' (LINEAR) > 'inverse' (a matrix: the inverse of the empty's rest
    world, with a non-uniform scale) > 'cube' (STEP translation) and 'cone' (CUBICSPLINE
    scale) > 'tip' (not animated): the layout of Blender's parent-inverse exports."""
    b = Builder()
    b.node(name="empty", translation=[1, 2, 3], rotation=_quat([0, 0, 1], 0.7).tolist(),
           scale=[2, 2, 2], children=[1])
    rest = np.eye(4)
    c, s = np.cos(0.7), np.sin(0.7)
    rest[:3, :3] = 2 * np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    rest[:3, 3] = [1, 2, 3]
    inv = np.linalg.inv(rest) @ np.diag([1, 0.5, 3, 1])
    b.node(name="inverse", matrix=_column_major(inv), children=[2, 3])
    b.node(name="cube", translation=[0, 1, 0])
    b.node(name="cone", rotation=_quat([1, 0, 0], 0.4).tolist(), children=[4])
    b.node(name="tip", translation=[0, 0, 2])
    b.json["scenes"][0]["nodes"] = [0]
    samplers, channels = [], []

    def channel(node, path, times, values, interp):
        samplers.append({"input": b.accessor(np.asarray(times, np.float32)),
                         "output": b.accessor(np.asarray(values, np.float32)),
                         "interpolation": interp})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": path}})

    t = np.arange(5) / 4
    channel(0, "rotation", t, [_quat([0, 0, 1], 0.7 + 0.5 * k) for k in range(5)], "LINEAR")
    channel(2, "translation", t, [[0, 1 + k, 0.5 * k] for k in range(5)], "STEP")
    rng = np.random.default_rng(3)
    keys = np.stack([rng.uniform(-1, 1, (5, 3)), 1 + 0.2 * np.arange(15).reshape(5, 3),
                     rng.uniform(-1, 1, (5, 3))], 1).reshape(-1, 3)
    channel(3, "scale", t, keys, "CUBICSPLINE")
    b.json["animations"].append({"name": "spin", "samplers": samplers, "channels": channels})
    return b.write(str(directory), "gltf", "parent_inverse")


def test_parent_inverse_matrix_parent_and_descendants(tmp_path):
    path = parent_inverse_file(tmp_path)
    asset = load_gltf(path)
    nc, _ = _check(path, asset, 0, sample_rate=10)         # keys every 2.5 frames
    assert nc.nodes.tolist() == [0, 2, 3] and nc.names == ("empty", "cube", "cone")
    assert nc.frames == 11 and nc.sample_rate == 10 and nc.duration == 1.0
    _check(path, asset, "spin", sample_rate=13, nodes=[4, 1, 3])   # descendants, any order
    both = asset.node_clip(0, nodes=[4, 3])
    np.testing.assert_array_equal(both["cone"], both[3])
    # the tip follows the cone by its rest offset
    cone, tip = both.world[:, 1].astype(np.float64), both.world[:, 0].astype(np.float64)
    np.testing.assert_allclose(tip[..., 3], cone[..., 3] + cone[..., :3] @ [0, 0, 2], atol=1e-5)


@pytest.mark.parametrize("name", ["Fox.glb", "rigged_simple.gltf", "Animation_Skin_08.gltf",
                                  "cesium_man.gltf", "RobotExpressive.glb"])
def test_skinned_files_animated_nodes(name):
    path = os.path.join(DATA, name)
    asset = _load(path)
    animations = range(len(asset.animations)) if name != "RobotExpressive.glb" else [0, 5]
    for a in animations:
        nc = asset.node_clip(a)
        frames = np.unique(np.linspace(0, nc.frames - 1, 3).round().astype(int))
        _check(path, asset, a, frames=frames)
        _check(path, asset, a, frames=[1, 2], sample_rate=nc.sample_rate * 2.5)   # between keys


def test_synthetic_character(tmp_path):
    """Matrix root, a non-joint animated node, CUBICSPLINE, STEP, sparse and shortest-arc
    LINEAR channels, a skinned-mesh node as an extra node."""
    path = character().write(str(tmp_path), "glb", "character")
    asset = _load(path)
    nc, _ = _check(path, asset, "move", sample_rate=13)
    assert nc.nodes.tolist() == [1, 3, 4, 6]                # weights channels move nothing
    _check(path, asset, 1, nodes=[7, 9, 6])


def test_refusals(tmp_path):
    path = parent_inverse_file(tmp_path)
    asset = load_gltf(path)
    with pytest.raises(ValueError, match=r"animation: no animation named 'walk' \(the file has 1: 'spin'\)"):
        asset.node_clip("walk")
    with pytest.raises(ValueError, match=r"animation: expected 0 <= animation < 1, got 1"):
        asset.node_clip(1)
    with pytest.raises(TypeError, match="animation: expected an int or a str, got float"):
        asset.node_clip(0.0)
    with pytest.raises(ValueError, match=r"nodes\[1\]: expected a node index in \[0, 5\), got 5"):
        asset.node_clip(0, nodes=[0, 5])
    with pytest.raises(ValueError, match="nodes: expected distinct node indices"):
        asset.node_clip(0, nodes=[2, 2])
    with pytest.raises(TypeError, match="nodes: expected a 1-D sequence of node indices"):
        asset.node_clip(0, nodes=[[1]])
    with pytest.raises(ValueError, match="sample_rate: expected a positive finite number"):
        asset.node_clip(0, sample_rate=-1)
    with pytest.raises(ValueError, match=r"animations\[0\] \('spin'\): 1000000001 frames at "
                       r"1e\+09 Hz x 4 nodes .* more than max_joint_frames"):
        asset.node_clip(0, sample_rate=1e9)                # the file's budget, before any work
    small = load_gltf(path, max_joint_frames=50)
    assert small.node_clip(0, sample_rate=10).frames == 11          # 11 frames x 4 nodes
    with pytest.raises(ValueError, match="44 node-frames, more than max_joint_frames = 40"):
        load_gltf(path, max_joint_frames=40).node_clip(0, sample_rate=10)
    with pytest.raises(KeyError, match="no node named 'hat'"):
        asset.node_clip(0)["hat"]
