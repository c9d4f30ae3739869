"""python -m skelsimd retarget: motion files onto a glTF character, written as the character
playing them (the file loads back with the retargeted poses; three.js plays it where the tools
are installed) or as BVH; a directory of motions; bad input leaves nothing written."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import skelsimd
from skelsimd._retarget_files import retarget_files
from skelsimd.humanoid import humanoid_map

DATA = os.path.join(os.path.dirname(__file__), "data")
CHARACTER = skelsimd.data.character_path()
MOTION = skelsimd.data.example_path()


def run(*args):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    return subprocess.run([sys.executable, "-m", "skelsimd", "retarget", *map(str, args)],
                          capture_output=True, text=True, env=env,
                          cwd=os.path.dirname(os.path.dirname(skelsimd.__file__)))


def _expected(feet=None):
    clip = skelsimd.data.load_example()
    asset = skelsimd.data.load_character()
    return skelsimd.Retargeter(clip, asset.skins[0], feet=feet).apply(clip)


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_bvh_onto_the_character(tmp_path, suffix):
    out = tmp_path / ("walk" + suffix)
    res = run(MOTION, CHARACTER, out, "--feet", "auto")
    assert res.returncode == 0, res.stderr
    assert "240 frames x 19 joints" in res.stdout
    asset = skelsimd.load_gltf(out)
    assert len(asset.meshes) == 1 and len(asset.meshes[0].positions) == 3273
    assert [a.name for a in asset.animations] == ["retargeted"]
    clip = asset.clips[0]
    want = _expected(feet="auto")
    assert clip.frames == want.frames and clip.skeleton.names == want.skeleton.names
    size = np.ptp(want.global_positions()[0], axis=0).max()
    assert np.abs(clip.global_positions() - want.global_positions()).max() < 1e-5 * size
    # the mesh and its binding are the character's
    char = skelsimd.data.load_character()
    assert np.array_equal(asset.meshes[0].positions, char.meshes[0].positions)
    assert np.allclose(asset.skins[0].inverse_bind, char.skins[0].inverse_bind, atol=1e-7)


def test_bvh_output_and_the_robot(tmp_path):
    robot = os.path.join(DATA, "gltf", "RobotExpressive.glb")
    if not os.path.exists(robot):
        pytest.skip("RobotExpressive.glb is not in tests/data/gltf")
    out = tmp_path / "robot.glb"
    res = run(MOTION, robot, out)
    assert res.returncode == 0, res.stderr
    asset = skelsimd.load_gltf(out)
    assert len(asset.nodes) == 84 and len(asset.meshes) == 4          # every node and mesh kept
    clip = asset.clips[0]
    want = skelsimd.Retargeter(skelsimd.data.load_example(),
                               skelsimd.load_gltf(robot).skins[0]).apply(
        skelsimd.data.load_example())
    size = np.ptp(want.global_positions()[0], axis=0).max()
    assert np.abs(clip.global_positions() - want.global_positions()).max() < 1e-5 * size
    # BVH: the same world positions, the scales baked into the offsets
    res = run(MOTION, robot, tmp_path / "robot.bvh")
    assert res.returncode == 0, res.stderr
    bvh = skelsimd.load_bvh(tmp_path / "robot.bvh")
    got = bvh.global_positions()
    idx = [bvh.skeleton.index(n) for n in want.skeleton.names]
    assert np.abs(got[:, idx] - want.global_positions()).max() < 1e-3 * size


def test_a_directory_of_motions(tmp_path):
    motions = tmp_path / "in"
    motions.mkdir()
    shutil.copy(MOTION, motions / "a.bvh")
    shutil.copy(os.path.join(DATA, "20tab_freebvh_excerpt.bvh"), motions / "b.bvh")
    (motions / "notes.txt").write_text("not a motion")
    res = run(motions, CHARACTER, tmp_path / "out", "--format", "gltf", "--feet", "auto")
    assert res.returncode == 0, res.stderr
    assert sorted(os.listdir(tmp_path / "out")) == ["a.gltf", "b.gltf"]
    assert skelsimd.load_gltf(tmp_path / "out" / "b.gltf").clips[0].frames == 30


def test_map_file_and_clip_name(tmp_path):
    clip = skelsimd.data.load_example()
    asset = skelsimd.data.load_character()
    auto = humanoid_map(asset.skins[0])
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"leftFoot": auto["leftFoot"], "head": auto["head"]}))
    # a glTF motion: the character's own retargeted walk, by animation name
    walk = tmp_path / "walk.glb"
    assert run(MOTION, CHARACTER, walk).returncode == 0
    res = run(walk, CHARACTER, tmp_path / "again.glb", "--map", mapping, "--clip", "retargeted",
              "--scale", "1")
    assert res.returncode == 0, res.stderr
    again = skelsimd.load_gltf(tmp_path / "again.glb").clips[0]
    first = skelsimd.load_gltf(walk).clips[0]
    size = np.ptp(first.global_positions()[0], axis=0).max()
    mapped = [first.skeleton.index(j) for j in auto.values()]
    assert np.abs(again.global_positions()[:, mapped]
                  - first.global_positions()[:, mapped]).max() < 1e-4 * size
    res = run(walk, CHARACTER, tmp_path / "x.glb", "--clip", "nope")
    assert res.returncode == 1 and "--clip" in res.stderr and "'retargeted'" in res.stderr
    assert clip.frames == first.frames


@pytest.mark.parametrize("args, message", [
    (("missing.bvh", CHARACTER, "out.glb"), "MOTION: missing.bvh does not exist"),
    ((MOTION, CHARACTER, "out.fbx"), "OUT: expected a name ending in .glb, .gltf or .bvh"),
    ((MOTION, MOTION, "out.glb"), "CHARACTER: expected a skinned .gltf or .glb"),
    ((MOTION, os.path.join(DATA, "gltf", "Fox.glb"), "out.glb"), "no humanoid found in the target"),
    ((MOTION, CHARACTER, "out.glb", "--feet", "Nope"), "feet: 'Nope' is not a mapped joint"),
    ((MOTION, CHARACTER, "out.glb", "--scale", "big"), "--scale: expected legs, height or a number"),
])
def test_bad_input_writes_nothing(tmp_path, args, message):
    args = [tmp_path / a if a in ("out.glb", "out.fbx") else a for a in args]
    res = run(*args)
    assert res.returncode in (1, 2) and message in res.stderr, res.stderr
    assert not any(n.startswith("out") for n in os.listdir(tmp_path))


def test_bad_map_file(tmp_path):
    bad = tmp_path / "map.json"
    bad.write_text(json.dumps({"leftFoot": "NoSuchJoint"}))
    res = run(MOTION, CHARACTER, tmp_path / "o.glb", "--map", bad)
    assert res.returncode == 1 and "'NoSuchJoint' is not a joint" in res.stderr
    bad.write_text("[1, 2]")
    res = run(MOTION, CHARACTER, tmp_path / "o.glb", "--map", bad)
    assert res.returncode == 1 and "--map: expected a JSON object" in res.stderr
    assert not (tmp_path / "o.glb").exists()


def test_a_bad_file_in_a_directory_writes_nothing(tmp_path):
    """Every motion is read and retargeted before the first output is written."""
    motions = tmp_path / "in"
    motions.mkdir()
    shutil.copy(MOTION, motions / "a.bvh")
    text = open(MOTION, encoding="utf-8", newline="").read()
    lines = text.splitlines(keepends=True)
    last = lines[-1].split()
    last[5] = "nan"
    lines[-1] = " ".join(last) + "\n"
    (motions / "b.bvh").write_text("".join(lines), encoding="utf-8", newline="")
    with pytest.raises(ValueError, match="frame 239.*'nan'"):
        retarget_files(str(motions), CHARACTER, str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


# --- three.js plays the file as skelsimd does ----------------------------------------------------

def test_threejs_plays_the_retargeted_character(tmp_path):
    from test_gltf_threejs import _tools, play_in_threejs
    _tools()
    out = tmp_path / "walk.glb"
    assert run(MOTION, CHARACTER, out).returncode == 0
    want = skelsimd.load_gltf(out).clips[0]
    frames = [0, 100, 239]
    got = play_in_threejs(tmp_path, out, [f / 120 for f in frames])
    assert got["vertices"] == 3273
    order = [want.skeleton.names.index(n) for n in got["bones"]]
    np.testing.assert_allclose(np.array(got["frames"]),
                               want.global_positions(frames)[:, order], atol=1e-4)
