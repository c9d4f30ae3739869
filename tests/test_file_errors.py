"""The readers' errors name the file and the place: every ValueError of load_bvh and load_gltf
(and the CLI's, which prints them) starts with the path; a BVH channel count that disagrees
names the joint; a file of another format is one short line naming what it looks like; the
motion-matching database names the first joint where two skeletons differ."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import skelsimd

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
FOX = os.path.join(DATA, "gltf", "Fox.glb")
# A message about a file of another format: the path, then one short line.
SHORT = 200


@pytest.fixture(scope="module")
def bvh_text():
    with open(skelsimd.data.example_path(), encoding="utf-8") as f:
        return f.read()


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


def _message(call):
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


# --- a file of another format -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["fox.glb", "fox.bvh"])
def test_load_bvh_on_a_glb_is_one_short_line(tmp_path, name):
    path = shutil.copy(FOX, tmp_path / name)
    msg = _message(lambda: skelsimd.load_bvh(path))
    assert msg.startswith(f"{path}: not a BVH file: it looks like a GLB (binary glTF) file "
                          f"(starts with b'glTF")
    assert "\n" not in msg and len(msg) - len(str(path)) < SHORT


@pytest.mark.parametrize("data, kind", [
    (bytes(range(256)) * 40, "binary data"),
    (b"\x1f\x8b\x08\x00" + bytes(5000), "gzip-compressed data"),
    (b"PK\x03\x04" + bytes(5000), "a ZIP archive"),
    (b'{"asset": {"version": "2.0"}, "x": "' + b"y" * 10000 + b'"}', "JSON"),
])
def test_load_bvh_on_other_formats_is_bounded(tmp_path, data, kind):
    path = _write(tmp_path, "x.bvh", data)
    msg = _message(lambda: skelsimd.load_bvh(path))
    assert msg.startswith(f"{path}: not a BVH file: it looks like {kind} (starts with ")
    assert len(msg) - len(path) < SHORT


def test_load_bvh_on_long_text_bounds_what_it_quotes(tmp_path):
    path = _write(tmp_path, "x.bvh", "word " * 5000)
    msg = _message(lambda: skelsimd.load_bvh(path))
    assert msg.startswith(f"{path}: line 1: expected 'HIERARCHY' at the start of a BVH file")
    assert len(msg) - len(path) < SHORT


@pytest.mark.parametrize("name", ["walk.glb", "walk.gltf"])
def test_load_gltf_on_a_bvh_is_not_a_gltf_file(tmp_path, bvh_text, name):
    path = _write(tmp_path, name, bvh_text)
    msg = _message(lambda: skelsimd.load_gltf(path))
    assert msg.startswith(f"{path}: not a glTF/GLB file: it looks like a BVH file "
                          f"(starts with b'HIERARCHY")
    assert len(msg) - len(path) < SHORT


def test_load_gltf_on_binary_data_is_bounded(tmp_path):
    path = _write(tmp_path, "x.glb", np.random.default_rng(0).bytes(20000).replace(b"glTF", b""))
    msg = _message(lambda: skelsimd.load_gltf(path))
    assert msg.startswith(f"{path}: not a glTF/GLB file: it looks like ")
    assert len(msg) - len(path) < SHORT


# --- GLB headers and the glTF JSON name the file ----------------------------------------------

def _glb_edit(offset, value):
    with open(FOX, "rb") as f:
        data = bytearray(f.read())
    data[offset:offset + 4] = int(value).to_bytes(4, "little")
    return bytes(data)


@pytest.mark.parametrize("offset, value, what", [
    (4, 3, "GLB header: version 3, expected 2"),
    (8, 10 ** 9, "GLB header: length 1000000000 exceeds the file's"),
    (12, 10 ** 8, "GLB chunk 0: chunkLength 100000000 at byte 12 exceeds"),
    (16, 0x004E4942, "GLB chunk 0: expected the JSON chunk"),
])
def test_glb_header_errors_name_the_file(tmp_path, offset, value, what):
    path = _write(tmp_path, "fox.glb", _glb_edit(offset, value))
    assert _message(lambda: skelsimd.load_gltf(path)).startswith(f"{path}: {what}")


def test_a_short_glb_names_the_file(tmp_path):
    path = _write(tmp_path, "fox.glb", b"glTF\x02\x00\x00\x00")
    assert _message(lambda: skelsimd.load_gltf(path)).startswith(f"{path}: GLB header: 8 bytes")


def test_gltf_json_errors_start_with_the_path(tmp_path):
    path = _write(tmp_path, "x.gltf", '{"asset": {"version": "1.0"}}')
    assert _message(lambda: skelsimd.load_gltf(path)) == \
        f"{path}: asset.version: expected a glTF 2.x file, got '1.0'"
    path = _write(tmp_path, "y.gltf", '{"asset": {"version": "2.0"}, "nodes": 3}')
    assert _message(lambda: skelsimd.load_gltf(path)).startswith(f"{path}: glTF.nodes: ")


def test_an_argument_error_is_not_the_files(tmp_path):
    with pytest.raises(ValueError, match=r"^sample_rate: "):
        skelsimd.load_gltf(FOX, sample_rate=-1.0)


# --- BVH: the path, the line, the joint -------------------------------------------------------

def test_bvh_errors_start_with_the_path(tmp_path, bvh_text):
    path = _write(tmp_path, "cut.bvh", bvh_text[:len(bvh_text) // 2].rsplit("\n", 1)[0])
    msg = _message(lambda: skelsimd.load_bvh(path))
    assert msg.startswith(f"{path}: line ")
    with open(path, "rb") as f:                       # a file object named after its path
        assert _message(lambda: skelsimd.load_bvh(f)) == msg
    # text given in place of a file has no path: the message starts with the line
    assert _message(lambda: skelsimd.load_bvh(text=open(path).read())).startswith("line ")


def test_a_channels_line_that_disagrees_names_the_joint(tmp_path, bvh_text):
    start = bvh_text.index("JOINT LeftKnee")
    at = bvh_text.index("CHANNELS 3", start)
    path = _write(tmp_path, "bad.bvh", bvh_text[:at] + "CHANNELS 4" + bvh_text[at + 10:])
    msg = _message(lambda: skelsimd.load_bvh(path))
    assert msg.startswith(f"{path}: line ")
    assert msg.endswith(": joint 'LeftKnee': CHANNELS says 4 channels but lists 3")


def test_motion_rows_that_disagree_name_the_odd_joint(tmp_path, bvh_text):
    """One joint declares 6 channels where the file's rows hold 3 for it: the message names
    the joints whose count is not the common one."""
    start = bvh_text.index("JOINT LeftKnee")
    at = bvh_text.index("CHANNELS 3", start)
    edited = bvh_text[:at] + "CHANNELS 6 Xposition Yposition Zposition" + bvh_text[at + 10:]
    path = _write(tmp_path, "bad.bvh", edited)
    msg = _message(lambda: skelsimd.load_bvh(path))
    assert msg.startswith(f"{path}: line ")
    assert msg.endswith("channel values (frame 0), got 96 (the CHANNELS lines declare 99: "
                        "Hips 6, LeftKnee 6, the other 29 joints 3 each)")


def test_the_cli_prints_the_path(tmp_path, bvh_text):
    path = _write(tmp_path, "cut.bvh", bvh_text[:2000])
    res = subprocess.run([sys.executable, "-m", "skelsimd", "convert", path,
                          str(tmp_path / "out.glb")], capture_output=True, text=True)
    assert res.returncode != 0
    assert res.stderr.startswith(f"error: {path}: line "), res.stderr
    glb = _write(tmp_path, "walk.glb", bvh_text)
    res = subprocess.run([sys.executable, "-m", "skelsimd", "convert", glb,
                          str(tmp_path / "out.bvh")], capture_output=True, text=True)
    assert res.returncode != 0 and not os.path.exists(tmp_path / "out.bvh")
    assert res.stderr.startswith(f"error: {glb}: not a glTF/GLB file: it looks like a BVH "
                                 f"file"), res.stderr


# --- the motion-matching database --------------------------------------------------------------

def test_database_names_the_first_joint_that_differs():
    clip = skelsimd.data.load_example()[:40]
    names = list(clip.skeleton.names)
    renamed = names[:2] + ["LeftUpLeg"] + names[3:]
    other = skelsimd.Clip(skelsimd.Skeleton(clip.skeleton.parents, renamed, clip.skeleton.rest),
                          clip.local, clip.fps)
    with pytest.raises(ValueError, match=rf"^clips\[1\]: expected the skeleton of clips\[0\] .*: "
                                         rf"joint 2 is 'LeftUpLeg', not '{names[2]}' "):
        skelsimd.MotionDatabase([clip, other])
    parents = clip.skeleton.parents.copy()
    parents[5] = 0
    moved = skelsimd.Clip(skelsimd.Skeleton(parents, names, clip.skeleton.rest), clip.local,
                          clip.fps)
    with pytest.raises(ValueError, match=rf"joint 5 \('{names[5]}'\) has parent 0, not "
                                         rf"{clip.skeleton.parents[5]} "):
        skelsimd.MotionDatabase([clip, moved])
