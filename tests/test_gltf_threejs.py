"""three.js opens what save_gltf writes: its GLTFLoader (Debian's libjs-three) parses the file
in headless Chromium, finds the skinned mesh, the skeleton and the animation, and its
AnimationMixer puts the bones where skelsimd's forward kinematics puts the joints."""
import base64
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import skelsimd

THREE = "/usr/share/javascript/three"

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="out">pending</pre>
<script>%(three)s</script><script>%(loader)s</script><script>
var bytes = atob("%(glb)s"), buf = new Uint8Array(bytes.length);
for (var i = 0; i < bytes.length; i++) buf[i] = bytes.charCodeAt(i);
var out = document.getElementById("out");
new THREE.GLTFLoader().parse(buf.buffer, "", function (gltf) {
  var mesh = null;
  gltf.scene.traverse(function (o) { if (o.isSkinnedMesh) mesh = o; });
  var clip = gltf.animations[0], times = %(times)s, frames = [];
  times.forEach(function (t) {
    var mixer = new THREE.AnimationMixer(gltf.scene);
    var action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce); action.clampWhenFinished = true; action.play();
    mixer.update(t);
    gltf.scene.updateMatrixWorld(true);
    frames.push(mesh.skeleton.bones.map(function (b) {
      var v = new THREE.Vector3(); b.getWorldPosition(v); return [v.x, v.y, v.z]; }));
  });
  out.textContent = JSON.stringify({
    vertices: mesh.geometry.attributes.position.count,
    triangles: mesh.geometry.index.count / 3,
    skinIndex: mesh.geometry.attributes.skinIndex.itemSize,
    bones: mesh.skeleton.bones.map(function (b) { return b.name; }),
    duration: clip.duration, tracks: clip.tracks.length, frames: frames});
}, function (err) { out.textContent = "error: " + err; });
</script></body></html>"""


def _tools():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    have_three = os.path.exists(os.path.join(THREE, "examples/js/loaders/GLTFLoader.js"))
    if browser and have_three:
        return browser
    if os.environ.get("CI"):
        pytest.fail("chromium and libjs-three are required in CI (.ci/run installs them)")
    pytest.skip("needs Debian's chromium and libjs-three (three.js and its GLTFLoader)")


def play_in_threejs(tmp_path, path, times):
    """What three.js's GLTFLoader and AnimationMixer make of the .glb file at ``path``: the
    skinned mesh's sizes, its bones' names and their world positions at ``times`` seconds."""
    browser = _tools()
    with open(os.path.join(THREE, "three.min.js"), encoding="utf-8") as f:
        three = f.read()
    with open(os.path.join(THREE, "examples/js/loaders/GLTFLoader.js"), encoding="utf-8") as f:
        loader = f.read()
    page = tmp_path / "load.html"
    page.write_text(PAGE % dict(three=three, loader=loader, times=json.dumps(times),
                                glb=base64.b64encode(open(path, "rb").read()).decode("ascii")),
                    encoding="utf-8")
    res = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=2000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=60)
    m = re.search(r'<pre id="out">(.*?)</pre>', res.stdout, re.S)
    assert m, res.stderr[-2000:]
    text = m.group(1).replace("&quot;", '"').replace("&amp;", "&")
    assert not text.startswith(("pending", "error")), text
    return json.loads(text)


def test_threejs_loads_and_animates_the_file(tmp_path):
    _tools()
    clip = skelsimd.data.load_example(end_sites=True)[:40]
    mesh = skelsimd.data.example_mesh(clip.skeleton)
    path = skelsimd.save_gltf(tmp_path / "walk.glb", clip, mesh=mesh, scale=0.01)
    frames = [0, 13, 39]
    got = play_in_threejs(tmp_path, path, [f / 120 for f in frames])
    assert got["vertices"] == len(mesh["positions"])
    assert got["triangles"] == len(mesh["triangles"])
    assert got["skinIndex"] == 4
    assert got["bones"] == list(clip.skeleton.names)
    assert got["duration"] == pytest.approx(39 / 120, rel=1e-6)
    assert got["tracks"] > 20
    want = clip.global_positions(frames).astype(np.float64) * 0.01
    np.testing.assert_allclose(np.array(got["frames"]), want, atol=1e-5)
