"""The glTF model types' views: one-line reprs (counts and names, shortened) and the notebook
summary tables, with the arrays and the raw document still reachable as attributes."""
import os
import warnings

import numpy as np

import skelsimd
from skelsimd.io.gltf import GltfAnimation, GltfChannel, GltfClip

from gltf_files import character

DATA = os.path.join(os.path.dirname(__file__), "data", "gltf")


def _robot():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skelsimd.load_gltf(os.path.join(DATA, "RobotExpressive.glb"))


def test_print_is_short_and_arrays_stay_reachable():
    asset = _robot()
    text = repr(asset)
    assert str(asset) == text and "\n" not in text and len(text) < 300
    assert text == ("GltfAsset(4 skins: skin0, skin1, skin2, ...; 4 meshes: mesh15[0], mesh16[0], "
                    "mesh17[0], ...; 14 animations: Dance, Death, Idle, ...; 56 clips at "
                    "implied rates)")
    assert asset._clips is None                     # printing builds no clip
    skin, mesh, anim = asset.skins[0], asset.meshes[0], asset.animations[0]
    assert repr(skin) == ("GltfSkin('skin0', 43 joints: Bone, FootL, Body, Hips, ...; "
                          "inverse_bind (43, 3, 4))")
    assert repr(mesh) == "GltfMesh('mesh15[0]', 256 vertices, 124 triangles, 4 influences, skin 0)"
    assert repr(anim) == "GltfAnimation('Dance', 14 channels, 3.333 s)"
    assert repr(anim.channels[0]) == "GltfChannel(nodes[6].weights, LINEAR, 81 keys)"
    clip = asset.clips[0]
    assert repr(clip) == "GltfClip('Dance', skin 0, 81 frames at 24 fps, 43 joints: Bone, FootL, Body, ...)"
    # the arrays and the raw document are attributes, as before
    assert skin.inverse_bind.shape == (43, 3, 4) and mesh.positions.shape == (256, 3)
    assert isinstance(asset.nodes[0], dict) and len(asset.nodes) > 43
    assert isinstance(anim, GltfAnimation) and isinstance(anim.channels[0], GltfChannel)
    assert anim.channels[0].values.shape[0] == 81
    assert isinstance(clip, GltfClip) and clip.local.shape == (81, 43, 8)


def test_long_names_are_cut(tmp_path):
    b = character()
    b.json["skins"][0]["name"] = "a" * 200
    b.json["animations"][0]["name"] = "m" * 500
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asset = skelsimd.load_gltf(b.write(tmp_path))
    text = repr(asset)
    assert len(text) < 300 and "m" * 19 + "\u2026" in text and "m" * 21 not in text
    assert len(repr(asset.skins[0])) < 150
    assert len(repr(asset.clips[0])) < 200


def test_summary_tables():
    asset = _robot()
    html = asset._repr_html_()
    assert html.startswith("<table") and "skelsimd.GltfAsset" in html
    assert "4: skin0 (43 joints), skin1 (43 joints), skin2 (43 joints), skin3 (43 joints)" in html
    assert "14: Dance (3.33 s), Death (0.958 s), Idle (3.33 s), Jump (0.708 s), ..." in html
    assert "56 (animation, skin) pairs at each animation implied rate" in html
    assert asset._clips is None
    skin = asset.skins[1]._repr_html_()
    assert "skelsimd.GltfSkin" in skin and "(43, 3, 4) float32" in skin and "43: " in skin
    mesh = asset.meshes[0]._repr_html_()
    assert "skelsimd.GltfMesh" in mesh and "256 (extent" in mesh and "4 per vertex" in mesh
    clip = asset.clips[0]._repr_html_()
    assert "skelsimd.GltfClip" in clip and "Dance" in clip and "81 at 24 fps" in clip
    assert "node 6 (" in clip                    # its morph weights
    assert clip.count("<table") == 1
    assert asset.refused == {} and "refused" not in asset._repr_html_()


def test_views_of_a_stretching_rig(tmp_path):
    path = tmp_path / "s.glb"
    path.write_bytes(skelsimd.io.gltf.example_glb(stretch=True))
    asset = skelsimd.load_gltf(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert asset.clips == []
    assert "1 refused" in asset._repr_html_()
    assert "1 clips at" in repr(asset)
    assert np.isfinite(asset.local_matrices(0)).all()
