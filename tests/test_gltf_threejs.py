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

# a page: three.js, its GLTFLoader and the file (base64), parsed; the rest of the page writes
# its results as JSON into <pre id="out">
HEAD = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="out">pending</pre>
<script>%(three)s</script><script>%(loader)s</script><script>
var bytes = atob("%(glb)s"), buf = new Uint8Array(bytes.length);
for (var i = 0; i < bytes.length; i++) buf[i] = bytes.charCodeAt(i);
var out = document.getElementById("out");
function pose(gltf, clip, t) {     // the scene at time t of the clip, played once
  var mixer = new THREE.AnimationMixer(gltf.scene);
  var action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce); action.clampWhenFinished = true; action.play();
  mixer.update(t);
  gltf.scene.updateMatrixWorld(true);
}
new THREE.GLTFLoader().parse(buf.buffer, "", function (gltf) {
"""

PAGE = HEAD + """  var mesh = null;
  gltf.scene.traverse(function (o) { if (o.isSkinnedMesh) mesh = o; });
  var clip = gltf.animations[0], times = %(times)s, frames = [];
  times.forEach(function (t) {
    pose(gltf, clip, t);
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


def _base64(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode("ascii")


def _run_page(browser, tmp_path, template, **fields):
    """The JSON a page (template filled with three.js, its GLTFLoader and `fields`) writes into
    its <pre id="out"> in headless Chromium."""
    with open(os.path.join(THREE, "three.min.js"), encoding="utf-8") as f:
        three = f.read()
    with open(os.path.join(THREE, "examples/js/loaders/GLTFLoader.js"), encoding="utf-8") as f:
        loader = f.read()
    page = tmp_path / "load.html"
    page.write_text(template % dict(three=three, loader=loader, **fields), encoding="utf-8")
    res = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=4000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="out">(.*?)</pre>', res.stdout, re.S)
    assert m, res.stderr[-2000:]
    text = m.group(1).replace("&quot;", '"').replace("&amp;", "&")
    assert not text.startswith(("pending", "error")), text
    return json.loads(text)


def test_threejs_loads_and_animates_the_file(tmp_path):
    browser = _tools()
    clip = skelsimd.data.load_example(end_sites=True)[:40]
    mesh = skelsimd.data.example_mesh(clip.skeleton)
    path = skelsimd.save_gltf(tmp_path / "walk.glb", clip, mesh=mesh, scale=0.01)
    frames = [0, 13, 39]
    times = [f / 120 for f in frames]
    got = _run_page(browser, tmp_path, PAGE, times=json.dumps(times), glb=_base64(path))
    assert got["vertices"] == len(mesh["positions"])
    assert got["triangles"] == len(mesh["triangles"])
    assert got["skinIndex"] == 4
    assert got["bones"] == list(clip.skeleton.names)
    assert got["duration"] == pytest.approx(39 / 120, rel=1e-6)
    assert got["tracks"] > 20
    want = clip.global_positions(frames).astype(np.float64) * 0.01
    np.testing.assert_allclose(np.array(got["frames"]), want, atol=1e-5)


MULTI_PAGE = HEAD + """  var meshes = [];
  gltf.scene.traverse(function (o) { if (o.isSkinnedMesh) meshes.push(o); });
  var clip = THREE.AnimationClip.findByName(gltf.animations, %(animation)s);
  var times = %(times)s, frames = [];
  times.forEach(function (t) {
    pose(gltf, clip, t);
    frames.push(meshes.map(function (m) { return m.skeleton.bones.map(function (b) {
      var v = new THREE.Vector3(); b.getWorldPosition(v); return [v.x, v.y, v.z]; }); }));
  });
  out.textContent = JSON.stringify({
    vertices: meshes.map(function (m) { return m.geometry.attributes.position.count; }),
    animations: gltf.animations.map(function (a) { return a.name; }), frames: frames});
}, function (err) { out.textContent = "error: " + err; });
</script></body></html>"""


def test_threejs_plays_a_multi_skin_character(tmp_path):
    """RobotExpressive (4 skins over 43 joints, 14 animations) loaded and written back whole by
    save_gltf: three.js finds every skinned mesh and animation, and its AnimationMixer puts
    every skin's bones where skelsimd's clips put the joints."""
    import warnings
    browser = _tools()
    source = os.path.join(os.path.dirname(__file__), "data", "gltf", "RobotExpressive.glb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # materials and static meshes not written
        asset = skelsimd.load_gltf(source)
        path = skelsimd.save_gltf(tmp_path / "robot.glb", asset)
    back = skelsimd.load_gltf(path)
    name = back.animations[5].name
    clips = [c for c in back.clips if c.name == name]
    frames = [0, 7, clips[0].frames - 1]
    times = [f / clips[0].fps for f in frames]
    got = _run_page(browser, tmp_path, MULTI_PAGE, times=json.dumps(times),
                    animation=json.dumps(name), glb=_base64(path))
    assert got["animations"] == [a.name for a in back.animations]
    assert sorted(got["vertices"]) == sorted(len(m.positions) for m in back.meshes)
    assert len(clips) == len(back.skins) == 4
    want = [skelsimd.qts_local_to_global_matrix(c.local[frames], c.skeleton)[..., 3]
            for c in clips]                                   # (F, J, 3) per skin
    for k in range(len(got["frames"][0])):                    # every skinned mesh of three.js
        bones = np.array([f[k] for f in got["frames"]])       # (F, J, 3)
        err = min(float(np.abs(bones - w).max()) for w in want if w.shape == bones.shape)
        assert err <= 1e-5 * max(1.0, float(np.abs(bones).max())), (k, err)
