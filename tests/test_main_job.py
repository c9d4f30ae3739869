"""The main job: python -m skelsimd bench (every family, JSON and PNG plots) and demo."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import skelsimd
from skelsimd._bench import FAMILIES, headline_workloads

ROOT = os.path.dirname(os.path.dirname(skelsimd.__file__))
PNG = b"\x89PNG\r\n\x1a\n"


def run(*args, code=None):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    cmd = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "skelsimd", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)


def is_png(path, min_bytes=5000):
    with open(path, "rb") as f:
        head = f.read(8)
    return head == PNG and os.path.getsize(path) >= min_bytes


def test_every_command_has_help():
    res = run("--help")
    assert res.returncode == 0 and all(c in res.stdout for c in ("bench", "demo", "info"))
    res = run("demo", "--help")
    assert res.returncode == 0 and "--out" in res.stdout and "pinned" in res.stdout
    res = run("bench", "--help")
    assert res.returncode == 0 and "bench_ns_per_joint.png" in res.stdout


@pytest.mark.parametrize("args", [("demo",), ("demo", "--out"), ("demo", "--out", "x", "--bogus"),
                                  ("bench", "--repeat", "many"), ("bench", "--family", "skeletons")])
def test_bad_arguments_give_usage_and_exit_non_zero(args):
    res = run(*args)
    assert res.returncode == 2, res.stderr
    assert "usage:" in res.stderr or "error:" in res.stderr


def test_the_skeleton_family_is_registered():
    assert "skeleton" in FAMILIES
    titles = [w.title for w in headline_workloads()]      # no arguments: every family
    assert any(t.startswith("local_to_global 1000 x 96") for t in titles)
    assert any(t.startswith("load_bvh clip") for t in titles)
    assert any(t.startswith("clip FK") for t in titles) and any(t.startswith("clip blend") for t in titles)


def test_bench_writes_json_and_both_plots(tmp_path):
    pytest.importorskip("matplotlib", reason="the plots need the [bench] extra")
    res = run("bench", "--quick", "--family", "skeleton", "--variants", "scalar", "avx2"
              if "avx2" in skelsimd._isa.supported_isas() else "scalar", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "load_bvh clip (240 frames)" in res.stdout and "clip FK 1000 x 31" in res.stdout
    data = json.loads((tmp_path / "bench.json").read_text())
    workloads = {r["workload"] for r in data["results"]}
    assert {"clip_import", "clip_fk[1]", "clip_fk[1000]", "clip_blend[1000]"} <= workloads
    fk = [r for r in data["results"] if r["workload"].startswith("clip_fk")]
    assert {r["params"]["batch"] for r in fk} == {1, 10, 100, 1000}
    assert {"numpy", "memcpy", "scalar"} <= {r["variant"] for r in fk}
    assert is_png(tmp_path / "bench_speedup.png") and is_png(tmp_path / "bench_ns_per_joint.png")


def test_bench_without_matplotlib_and_tqdm_still_prints_its_table(tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None; sys.modules['tqdm'] = None\n"
            "from skelsimd.__main__ import main\n"
            "sys.exit(main(sys.argv[1:]))")
    res = run("bench", "--quick", "--family", "skeleton", "--variants", "scalar", "--out",
              str(tmp_path), code=code)
    assert res.returncode == 0, res.stderr
    assert "clip FK 10 x 31" in res.stdout and "no plot written" in res.stdout
    assert (tmp_path / "bench.json").exists() and not (tmp_path / "bench_speedup.png").exists()
    res = run("demo", "--out", str(tmp_path), code=code)
    assert res.returncode == 1 and "matplotlib" in res.stderr


def test_demo_draws_pictures(tmp_path):
    pytest.importorskip("matplotlib", reason="the demo needs the [bench] extra")
    res = run("demo", "--out", str(tmp_path / "pictures"))
    assert res.returncode == 0, res.stderr
    written = sorted(os.listdir(tmp_path / "pictures"))
    assert {"clip_views.png", "blend.png"} <= set(written)
    for name in written:
        assert is_png(tmp_path / "pictures" / name, 20000), name
    assert "surface.png" in written


def test_demo_cloth_hangs_without_overstretching():
    """The demo's cloth scene is physically sane: it sags under gravity from its two pinned
    corners, no spring stretches or compresses by more than 30%, and the effector moves it."""
    from skelsimd._demo import hanging_cloth

    cloth, snaps = hanging_cloth()
    for title, pos, _ in snaps:
        assert np.isfinite(pos).all(), title
        lengths = np.concatenate([np.linalg.norm(np.diff(pos, axis=2), axis=0).ravel(),
                                  np.linalg.norm(np.diff(pos, axis=1), axis=0).ravel()])
        assert 0.7 <= lengths.min() and lengths.max() <= 1.3, (title, lengths.min(), lengths.max())
        assert pos[1].min() < -15, title                  # hangs down (24 rows, y up)
    hanging, hit = snaps[0][1], snaps[1][1]
    assert np.abs(hit - hanging).max() > 1.0             # the effector visibly moved the cloth
    assert np.array_equal(hanging[:, cloth.pinned], hit[:, cloth.pinned])


def test_table_writes_names_and_units_in_full_and_no_nan():
    """Workload names and units are never cut; a missing reference is a word, not 'nanx'."""
    from skelsimd._bench.core import format_table
    title = "euler_to_quat ZXY degrees, 1,000,000 angle triples (SciPy reference)"
    recs = [dict(title=title, variant="scalar", seconds_per_call=1e-3, ns_per_unit=1.5,
                 unit="vertex", speedup_vs_scalar=1.0),
            dict(title=title, variant="avx2", seconds_per_call=5e-4, ns_per_unit=0.75,
                 unit="vertex", speedup_vs_numpy=float("nan"), speedup_vs_scalar=2.0,
                 time_vs_memcpy=1.5)]
    table = format_table(recs)
    assert title in table and "ns/vertex" in table
    assert "nan" not in table and "no ref" in table


def test_every_headline_workload_checks_its_candidates():
    """Each workload of every family: the skelsimd call and the NumPy formulation agree with the
    float64 reference, and the limit runs (what `bench` does before timing; nothing timed here)."""
    from skelsimd._bench import FAMILIES, headline_workloads
    for w in headline_workloads(list(FAMILIES)):
        for candidate in (w.kernel, w.numpy):
            if candidate is not None:
                result = candidate()
                if w.check is not None:
                    w.check(result)
        if w.limit is not None:
            w.limit()
        for fn in w.extra.values():
            fn()
