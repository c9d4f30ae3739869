"""The command line: python -m skelsimd."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import skelsimd


def run(*args):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    return subprocess.run([sys.executable, "-m", "skelsimd", *args], capture_output=True, text=True,
                          env=env, cwd=os.path.dirname(os.path.dirname(skelsimd.__file__)))


def test_help_lists_the_commands():
    res = run("--help")
    assert res.returncode == 0 and "bench" in res.stdout and "info" in res.stdout
    res = run("bench", "--help")
    assert res.returncode == 0 and "--out" in res.stdout


@pytest.mark.parametrize("args", [(), ("bench", "--bogus"), ("bench", "--family", "nope"),
                                  ("bench", "--variants", "avx1024"), ("frobnicate",)])
def test_bad_arguments_exit_non_zero_with_usage(args):
    res = run(*args)
    assert res.returncode == 2
    assert "usage" in res.stderr or "error" in res.stderr


def test_info():
    res = run("info")
    assert res.returncode == 0 and skelsimd.isa() in res.stdout


def test_bench_quick_writes_json(tmp_path):
    res = run("bench", "--quick", "--family", "joints", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "local_to_global 1000 x 96" in res.stdout and "numpy" in res.stdout
    data = json.loads((tmp_path / "bench.json").read_text())
    variants = {r["variant"] for r in data["results"] if r["workload"] == "army"}
    assert {"numpy", "memcpy", "scalar"} <= variants
    assert all(r["seconds_per_call"] > 0 for r in data["results"])
    # the machine is named: CPU, targets built and dispatched per family, load before and after
    machine = data["machine"]
    assert machine["cpu"] and machine["isa_compiled"][0] == "scalar"
    assert machine["dispatch"] == skelsimd.dispatch_table()
    assert "load_average" in machine and "load_average_after" in machine
    assert "dispatch (family -> target)" in res.stdout and "load average" in res.stdout


def test_convert_bvh_to_glb_and_gltf(tmp_path):
    src = skelsimd.data.example_path()
    clip = skelsimd.load_bvh(src, end_sites=True)
    for name, extra in (("walk.glb", ["--mesh", "--scale", "0.01"]), ("walk.gltf", [])):
        res = run("convert", src, str(tmp_path / name), *extra)
        assert res.returncode == 0, res.stderr
        assert f"240 frames x {len(clip.skeleton)} joints at 120 Hz" in res.stdout
    data = (tmp_path / "walk.glb").read_bytes()
    assert data[:4] == b"glTF"
    doc = json.loads((tmp_path / "walk.gltf").read_text())
    assert [n["name"] for n in doc["nodes"]] == list(clip.skeleton.names)
    rest = clip.skeleton.rest
    moving = sum(int((clip.local[:, :, lanes] != rest[:, lanes]).any(axis=(0, 2)).sum())
                 for lanes in (slice(0, 4), slice(4, 7)))
    assert len(doc["animations"][0]["channels"]) == moving > 20
    assert "meshes" not in doc


def test_convert_skc_to_gltf(tmp_path):
    skc = tmp_path / "walk.skc"
    skelsimd.save_skc(skelsimd.data.load_example()[:20], skc, precision=0.01)
    res = run("convert", str(skc), str(tmp_path / "walk.gltf"))
    assert res.returncode == 0, res.stderr
    assert json.loads((tmp_path / "walk.gltf").read_text())["asset"]["version"] == "2.0"


@pytest.mark.parametrize("args, code, message", [
    (("a.bvh", "b.bvh"), 2, "expected IN .bvh"),
    (("a.glb", "b.gltf"), 2, "expected IN .bvh"),
    (("a.bvh", "b.fbx"), 2, "expected IN .bvh"),
    (("{example}", "b.glb", "--scale", "0"), 2, "--scale: expected a positive"),
    (("missing.bvh", "b.glb"), 1, "error: "),
])
def test_convert_errors(tmp_path, args, code, message):
    args = [a.replace("{example}", skelsimd.data.example_path()) for a in args]
    args[1] = str(tmp_path / args[1])
    res = run("convert", *args)
    assert res.returncode == code and message in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_convert_gltf_to_bvh_round_trip(tmp_path):
    if not hasattr(skelsimd, "load_gltf"):
        pytest.skip("skelsimd.load_gltf is not in this build")
    src = skelsimd.data.example_path()
    assert run("convert", src, str(tmp_path / "w.glb")).returncode == 0
    res = run("convert", str(tmp_path / "w.glb"), str(tmp_path / "w.bvh"))
    assert res.returncode == 0, res.stderr
    a = skelsimd.load_bvh(src, end_sites=True)
    b = skelsimd.load_bvh(str(tmp_path / "w.bvh"), end_sites=True)
    assert b.frames == a.frames and b.fps == pytest.approx(a.fps, rel=1e-5)
    idx = b.skeleton.indices(a.skeleton.names)        # b adds End Sites below a's leaves
    np.testing.assert_allclose(b.global_positions()[:, idx], a.global_positions(), atol=1e-3)
