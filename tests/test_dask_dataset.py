"""skelsimd.dask.dataset and `python -m skelsimd dataset`: motion files -> Zarr on Dask.

Skipped when the [dask] extra (dask, distributed, zarr) is not installed.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("dask.bag")
zarr = pytest.importorskip("zarr")
distributed = pytest.importorskip("distributed")

import skelsimd  # noqa: E402
from skelsimd.dask import dataset as ds  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")
CLIPS = sorted(f for f in os.listdir(DATA) if f.endswith(".bvh"))
ROOT = os.path.dirname(os.path.dirname(skelsimd.__file__))

# A BVH file whose second frame (line 20) has 8 channel values instead of 9.
BROKEN = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 1 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.033333
0 1 0 0 0 0 0 0 0
0 1 0 0 0 0 0 10
0 1 0 0 0 0 0 20 0
"""


@pytest.fixture
def motion_dir(tmp_path):
    """tests/data's clips, the embedded clip (gzipped, in a subdirectory) and a broken file."""
    d = tmp_path / "motions"
    (d / "sub").mkdir(parents=True)
    for name in CLIPS:
        shutil.copy(os.path.join(DATA, name), d / name)
    import gzip
    with open(skelsimd.data.example_path(), "rb") as f, gzip.open(d / "sub" / "cmu_131_01.bvh.gz", "wb") as g:
        g.write(f.read())
    (d / "broken.bvh").write_text(BROKEN)
    (d / "notes.txt").write_text("not a motion file")
    return d


def _in_memory(path, steps):
    """What the store must hold for one file, computed by plain in-memory calls."""
    clip = skelsimd.load_bvh(path)
    item = ds.ClipItem(ds.clip_name(path), str(path), clip)
    for step in steps:
        item = step(item)
    arrays = dict(item.arrays)
    if "positions" not in arrays:
        arrays["positions"] = np.ascontiguousarray(
            skelsimd.qts_local_to_global_matrix(item.clip.local, clip.skeleton)[..., 3])
    return item.clip, arrays


def _assert_store_equals_in_memory(store, paths, steps, source_dir=None):
    root = zarr.open_group(str(store), mode="r")
    for path in paths:
        clip, arrays = _in_memory(path, steps)
        g = root[ds.clip_name(path, root=source_dir)]
        assert g["local"].dtype == np.float32 and g["local"].shape == (clip.frames, len(clip.skeleton), 8)
        assert np.array_equal(g["local"][...], clip.local)
        assert g["positions"].dtype == np.float32
        assert g["positions"].shape == (clip.frames, len(clip.skeleton), 3)
        assert set(k for k, _ in g.arrays()) == {"local", *arrays}
        for key, value in arrays.items():
            assert np.array_equal(g[key][...], value), key
        fk = skelsimd.qts_local_to_global_matrix(clip.local, clip.skeleton)   # independent of steps
        assert np.array_equal(g["positions"][...], fk[..., 3])
        assert g.attrs["fps"] == clip.fps
        assert g.attrs["names"] == list(clip.skeleton.names)
        assert g.attrs["parents"] == [int(p) for p in clip.skeleton.parents]


def test_local_cluster_two_processes_equals_in_memory_loop(motion_dir, tmp_path, capsys):
    """The issue's test: a LocalCluster of 2 worker processes; the broken file is reported with
    its path and line, every other clip is written exactly as the in-memory loop computes it."""
    store = tmp_path / "out.zarr"
    steps = ds.default_steps()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        report = ds.build_dataset(motion_dir, store, steps=steps,
                                  scheduler=cluster.scheduler_address, progress=True)
    good = [motion_dir / n for n in CLIPS] + [motion_dir / "sub" / "cmu_131_01.bvh.gz"]
    assert sorted(s.name for s in report.written) == sorted(ds.clip_name(p, root=motion_dir)
                                                            for p in good)
    assert "sub%2Fcmu_131_01" in [s.name for s in report.written]
    assert len(report.failed) == 1 and not report.ok
    failure = report.failed[0]
    assert failure.path == str(motion_dir / "broken.bvh") and failure.stage == "read"
    assert failure.error.startswith("line 20: expected 9 channel values")
    assert str(motion_dir / "broken.bvh") in report.summary() and "line 20" in report.summary()
    _assert_store_equals_in_memory(store, good, steps, motion_dir)
    assert f"FAILED {failure.path}: line 20" in capsys.readouterr().err      # as it happened
    root = zarr.open_group(str(store), mode="r")
    assert "broken" not in root
    assert root.attrs["clips"] == len(good)
    assert root.attrs["failed"] == [{"path": failure.path, "stage": "read", "error": failure.error}]


@pytest.mark.parametrize("scheduler", ["threads", "sync"])
def test_local_schedulers_write_the_same_store(motion_dir, tmp_path, scheduler):
    steps = [ds.Resample(50), ds.GlobalPositions(), ds.RootFeatures()]
    report = ds.build_dataset(str(motion_dir / "*.bvh"), tmp_path / "o.zarr", steps=steps,
                              scheduler=scheduler, workers=2, progress=False)
    assert len(report.written) == len(CLIPS) and [f.path for f in report.failed] == [
        str(motion_dir / "broken.bvh")]
    _assert_store_equals_in_memory(tmp_path / "o.zarr", [motion_dir / n for n in CLIPS], steps)


def test_positions_written_without_steps(motion_dir, tmp_path):
    report = ds.build_dataset([motion_dir / CLIPS[0]], tmp_path / "o.zarr", steps=[],
                              scheduler="sync", progress=False)
    assert report.ok and len(report.written) == 1
    _assert_store_equals_in_memory(tmp_path / "o.zarr", [motion_dir / CLIPS[0]], [])


def test_existing_store_is_refused_unless_overwrite(motion_dir, tmp_path):
    src = [motion_dir / CLIPS[0]]
    ds.build_dataset(src, tmp_path / "o.zarr", scheduler="sync", progress=False)
    with pytest.raises(FileExistsError, match="overwrite"):
        ds.build_dataset(src, tmp_path / "o.zarr", scheduler="sync", progress=False)
    report = ds.build_dataset(src, tmp_path / "o.zarr", scheduler="sync", progress=False,
                              overwrite=True)
    assert report.ok


def test_nothing_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        ds.build_dataset(str(tmp_path / "nope*.bvh"), tmp_path / "o.zarr", progress=False)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no motion files"):
        ds.build_dataset(tmp_path / "empty", tmp_path / "o.zarr", progress=False)


def test_find_motion_files(motion_dir):
    found = ds.find_motion_files(motion_dir)
    assert found == sorted(found)
    assert {os.path.basename(p) for p in found} == {*CLIPS, "broken.bvh", "cmu_131_01.bvh.gz"}
    # a glob keeps every match: a file of unknown type becomes a visible failure
    assert ds.find_motion_files(str(motion_dir / "*.txt")) == [str(motion_dir / "notes.txt")]
    item = ds.read_clip(str(motion_dir / "notes.txt"))
    assert isinstance(item, ds.ClipFailure) and "no reader" in item.error
    assert ds.clip_name("a/b/01_01.BVH.gz") == "01_01" and ds.clip_name("x/y.bvh") == "y"


def test_same_stem_twice_is_a_failure_not_an_overwrite(motion_dir, tmp_path):
    """Two files of one name from a list of sources (no common directory to name them by)."""
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(motion_dir / CLIPS[0], other / CLIPS[0])
    report = ds.build_dataset([motion_dir / CLIPS[0], other / CLIPS[0]], tmp_path / "o.zarr",
                              scheduler="sync", progress=False)
    dup = [f for f in report.failed if f.stage == "name"]
    assert len(dup) == 1 and dup[0].path == str(other / CLIPS[0])
    assert "taken by" in dup[0].error and str(motion_dir / CLIPS[0]) in dup[0].error


class _Explode:
    name = "explode"

    def __call__(self, item):
        if item.name.startswith("20tab"):
            raise RuntimeError("boom")
        return item


def test_a_failing_step_is_reported_and_the_others_written(motion_dir, tmp_path):
    report = ds.build_dataset(motion_dir / CLIPS[0], tmp_path / "a.zarr", scheduler="sync",
                              progress=False)
    assert report.ok
    steps = [ds.GlobalPositions(), _Explode()]
    report = ds.build_dataset([motion_dir / n for n in CLIPS], tmp_path / "o.zarr", steps=steps,
                              scheduler="threads", progress=False)
    failed = {f.name: f for f in report.failed}
    assert set(failed) == {n[:-4] for n in CLIPS if n.startswith("20tab")}
    assert all(f.stage == "explode" and f.error == "RuntimeError: boom" for f in failed.values())
    assert [s.name for s in report.written] == [n[:-4] for n in CLIPS if not n.startswith("20tab")]


def test_write_failure_leaves_no_partial_group(motion_dir, tmp_path):
    class BadArray:
        name = "bad"

        def __call__(self, item):
            import dataclasses
            return dataclasses.replace(item, arrays=dict(item.arrays, bad=np.array([object()])))

    report = ds.build_dataset([motion_dir / CLIPS[0]], tmp_path / "o.zarr",
                              steps=[ds.GlobalPositions(), BadArray()], scheduler="sync",
                              progress=False)
    assert len(report.failed) == 1 and report.failed[0].stage == "write"
    assert CLIPS[0][:-4] not in zarr.open_group(str(tmp_path / "o.zarr"), mode="r")


# --- steps ----------------------------------------------------------------------------------------

def _item(name):
    path = os.path.join(DATA, name)
    return ds.ClipItem(ds.clip_name(path), path, skelsimd.load_bvh(path))


def test_resample_keeps_source_frames_exactly_and_blends_between():
    item = _item("cmu_01_01_beyond_180.bvh")         # 60 frames at 120 fps
    clip = item.clip
    half = ds.Resample(clip.fps / 2)(item).clip
    assert half.frames == 30 and np.array_equal(half.local, clip.local[::2])
    double = ds.Resample(clip.fps * 2)(item).clip
    assert double.frames == 2 * clip.frames - 1
    assert np.array_equal(double.local[::2], clip.local)
    mid = skelsimd.blend_joints(clip.local[:-1], clip.local[1:], np.float32(0.5))
    assert np.array_equal(double.local[1::2], mid)
    assert abs(double.fps - 2 * clip.fps) < 1e-9
    with pytest.raises(ValueError, match="before the steps that derive arrays"):
        ds.Resample(30)(ds.GlobalPositions()(item))


def _yawed(clip, angle, shift):
    """The clip turned about y by `angle` and moved by `shift` on the ground."""
    c, s = np.cos(angle / 2), np.sin(angle / 2)
    qy = np.array([0, s, 0, c], np.float32)
    local = clip.local.copy()
    local[:, 0, :4] = skelsimd.quat_multiply(qy, local[:, 0, :4])
    local[:, 0, 4:7] = skelsimd.quat_rotate(qy, local[:, 0, 4:7]) + np.float32(shift)
    return skelsimd.Clip(clip.skeleton, local, clip.frame_time)


@pytest.mark.parametrize("name", CLIPS)
def test_root_features_do_not_depend_on_where_the_character_stands_or_faces(name):
    item = _item(name)
    base = ds.RootFeatures()(item)
    moved = ds.RootFeatures()(ds.ClipItem(item.name, item.path,
                                          _yawed(item.clip, 1.234, [50.0, 0.0, -20.0])))
    scale = max(1.0, float(np.abs(base.arrays["positions"]).max()))
    for key in ("rel_positions", "rel_velocities"):
        tol = 2e-5 * scale * (item.clip.fps if key == "rel_velocities" else 1)
        assert np.abs(moved.arrays[key] - base.arrays[key]).max() <= tol, key
    assert np.abs(np.angle(np.exp(1j * (moved.arrays["heading"] - base.arrays["heading"] - 1.234)))
                  ).max() < 1e-5
    assert np.abs(moved.arrays["heading_velocity"] - base.arrays["heading_velocity"]).max() < 1e-2
    rel = base.arrays["rel_positions"]
    assert np.all(rel[:, 0, [0, 2]] == 0)                                 # root at the origin
    assert np.array_equal(rel[..., 1], base.arrays["positions"][..., 1])  # heights unchanged


def test_root_features_rules():
    with pytest.raises(ValueError, match="two different axes"):
        ds.RootFeatures(up="y", forward="y")
    item = _item(CLIPS[0])
    failed = ds.apply_steps(item, [ds.RootFeatures(root=3)])
    assert isinstance(failed, ds.ClipFailure) and failed.stage == "root-features"
    assert "expected a root joint" in failed.error


# --- the command ----------------------------------------------------------------------------------

def _run_cli(*args):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    return subprocess.run([sys.executable, "-m", "skelsimd", "dataset", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def test_cli_reports_the_broken_file_and_exits_non_zero(motion_dir, tmp_path):
    out = tmp_path / "cli.zarr"
    res = _run_cli(motion_dir, "--out", out, "--workers", "2")       # local processes
    assert res.returncode == 1, res.stderr
    broken = str(motion_dir / "broken.bvh")
    assert f"FAILED {broken}: line 20: expected 9 channel values" in res.stderr   # as it happens
    assert "wrote 4 clips" in res.stdout and "1 failed" in res.stdout
    assert f"{broken}: line 20" in res.stdout                                       # summary
    assert "clip" in res.stderr                                                     # the bar
    root = zarr.open_group(str(out), mode="r")
    assert sorted(n for n, _ in root.groups()) == sorted(
        [n[:-4] for n in CLIPS] + ["sub%2Fcmu_131_01"])
    res = _run_cli(motion_dir, "--out", out)
    assert res.returncode == 2 and "already exists" in res.stderr


def test_cli_clean_run_threads_resampled(motion_dir, tmp_path):
    out = tmp_path / "cli.zarr"
    res = _run_cli(motion_dir / "*.bvh", motion_dir / "sub", "--out", out, "--scheduler",
                   "threads", "--fps", "30", "--no-features", "--no-progress")
    assert res.returncode == 1           # broken.bvh matched by the glob
    res = _run_cli(*[motion_dir / n for n in CLIPS], "--out", out, "--overwrite",
                   "--scheduler", "threads", "--fps", "30", "--no-features")
    assert res.returncode == 0, res.stdout + res.stderr
    root = zarr.open_group(str(out), mode="r")
    for n in CLIPS:
        g = root[n[:-4]]
        assert set(k for k, _ in g.arrays()) == {"local", "positions"}
        assert abs(g.attrs["fps"] - 30) < 1e-9
    res = _run_cli(tmp_path / "missing", "--out", tmp_path / "x.zarr")
    assert res.returncode == 2 and "no such file" in res.stderr


def test_import_skelsimd_imports_no_extra():
    code = ("import sys, skelsimd; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'dask', 'distributed', 'zarr', 'tqdm'}))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0 and res.stdout.strip() == "[]", res.stdout + res.stderr


def test_cli_help():
    env = dict(os.environ)
    res = subprocess.run([sys.executable, "-m", "skelsimd", "--help"], capture_output=True,
                         text=True, env=env, cwd=ROOT)
    assert res.returncode == 0 and "dataset" in res.stdout
    res = _run_cli("--help")
    assert res.returncode == 0
    for option in ("--out", "--workers", "--scheduler", "--fps", "--overwrite"):
        assert option in res.stdout


# --- compression: a step and a reader --------------------------------------------------------------

def test_compress_step_stores_bytes_that_decode_within_the_precision(tmp_path):
    path = os.path.join(DATA, CLIPS[0])
    steps = [ds.Compress(0.01), ds.GlobalPositions()]
    report = ds.build_dataset([path], tmp_path / "c.zarr", steps=steps, scheduler="sync",
                              progress=False)
    assert report.ok, report.summary()
    g = zarr.open_group(str(tmp_path / "c.zarr"), mode="r")[ds.clip_name(path)]
    data = g["compressed"]
    assert data.dtype == np.uint8 and data.ndim == 1 and data.chunks == data.shape  # one chunk
    c = skelsimd.CompressedClip.from_bytes(data[...].tobytes())
    clip = skelsimd.load_bvh(path)
    expected = skelsimd.compress(clip, precision=0.01)
    assert c.to_bytes() == expected.to_bytes()                 # the in-memory call's bytes
    assert c.skeleton.names == clip.skeleton.names
    meta = g.attrs["compression"]
    assert meta["precision"] == 0.01 and meta["nbytes"] == c.nbytes
    assert meta["max_error"] == c.stats["max_error"] <= 0.01
    assert skelsimd.clip_error(clip.local, c.decompress(), clip.skeleton) <= 0.01
    assert np.array_equal(g["local"][...], clip.local)         # decoded=False: the source poses


def test_compress_step_decoded_replaces_the_poses():
    path = os.path.join(DATA, CLIPS[0])
    item = ds.read_clip(path)
    out = ds.Compress(0.05, decoded=True)(item)
    c = skelsimd.CompressedClip.from_bytes(out.arrays["compressed"].tobytes())
    assert np.array_equal(out.clip.local, c.decompress())
    assert out.clip.frame_time == item.clip.frame_time
    assert not np.array_equal(out.clip.local, item.clip.local)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(precision=0), ValueError, "precision"), (dict(precision=float("nan")), ValueError, "precision"),
    (dict(precision="0.1"), TypeError, "precision"), (dict(shell_distance=-1), ValueError, "shell_distance"),
    (dict(segment_length=0), ValueError, "segment_length"),
    (dict(segment_length=2000), ValueError, "segment_length: expected 1 to 1024"),
    (dict(segment_length=2.5), TypeError, "segment_length"),
])
def test_compress_step_rules(kwargs, error, message):
    with pytest.raises(error, match=message):
        ds.Compress(**kwargs)


def test_compressed_clip_files_are_read_and_bad_ones_reported(tmp_path):
    src = os.path.join(DATA, CLIPS[0])
    d = tmp_path / "in"
    d.mkdir()
    c = skelsimd.compress(skelsimd.load_bvh(src), precision=0.01)
    (d / "walk.skc").write_bytes(c.to_bytes())
    (d / "cut.skc").write_bytes(c.to_bytes()[:-10])                # truncated
    report = ds.build_dataset(d, tmp_path / "o.zarr", scheduler="sync", progress=False)
    assert [s.name for s in report.written] == ["walk"]
    assert len(report.failed) == 1 and report.failed[0].path.endswith("cut.skc")
    assert "checksum" in report.failed[0].error or "truncated" in report.failed[0].error
    g = zarr.open_group(str(tmp_path / "o.zarr"), mode="r")["walk"]
    assert np.array_equal(g["local"][...], c.decompress())
    assert g.attrs["fps"] == c.sample_rate
    assert g.attrs["names"] == list(c.skeleton.names)


def test_cli_compress_option(tmp_path):
    out = tmp_path / "cli.zarr"
    res = _run_cli(os.path.join(DATA, CLIPS[0]), "--out", out, "--scheduler", "sync",
                   "--compress", "0.02", "--no-features", "--no-progress")
    assert res.returncode == 0, res.stdout + res.stderr
    g = zarr.open_group(str(out), mode="r")[CLIPS[0][:-4]]
    assert g.attrs["compression"]["precision"] == 0.02
    assert set(k for k, _ in g.arrays()) == {"local", "positions", "compressed"}
    res = _run_cli(os.path.join(DATA, CLIPS[0]), "--out", tmp_path / "x.zarr", "--compress", "-1")
    assert res.returncode == 2 and "--compress: precision" in res.stderr


# --- names from files never leave the store; nothing the run did not create is removed ------------

def test_file_named_dots_stays_in_its_group_and_deletes_nothing(tmp_path):
    src = tmp_path / "in"
    home = tmp_path / "home"
    src.mkdir()
    home.mkdir()
    shutil.copy(os.path.join(DATA, CLIPS[0]), src / "...bvh")
    shutil.copy(os.path.join(DATA, CLIPS[0]), src / "ok.bvh")
    (home / "precious.txt").write_text("keep me")
    report = ds.build_dataset(str(src), str(home / "out.zarr"), scheduler="sync", progress=False)
    assert sorted(os.listdir(home)) == ["out.zarr", "precious.txt"]
    assert (home / "precious.txt").read_text() == "keep me"
    assert report.ok and sorted(s.name for s in report.written) == ["%2E%2E", "ok"]
    root = zarr.open_group(str(home / "out.zarr"), mode="r")
    assert sorted(root.group_keys()) == ["%2E%2E", "ok"]
    assert root["%2E%2E"].attrs["source"] == str(src / "...bvh")


def test_failed_write_removes_only_its_own_files(tmp_path):
    store = tmp_path / "o.zarr"
    zarr.open_group(str(store), mode="w")
    (store / "keep").mkdir()
    (store / "keep" / "user.txt").write_text("mine")
    item = _item(CLIPS[0])

    item = ds.ClipItem("keep", item.path, item.clip)
    result = ds.write_clip(str(store), item)
    assert isinstance(result, ds.ClipFailure) and "already exists" in result.error
    assert (store / "keep" / "user.txt").read_text() == "mine"

    for name in ("..", "a/b", "", "zarr.json", "__x", "c\x00d"):
        bad = ds.ClipItem(name, item.path, item.clip)
        result = ds.write_clip(str(store), bad)
        assert isinstance(result, ds.ClipFailure) and "group name" in result.error, name
    assert sorted(os.listdir(tmp_path)) == ["o.zarr"]
    assert sorted(os.listdir(store)) == ["keep", "zarr.json"]


@pytest.mark.parametrize("rel, name", [
    ("walk", "walk"), ("a/b", "a%2Fb"), ("..", "%2E%2E"), (".", "%2E"), ("a%2Fb", "a%252Fb"),
    ("zarr.json", "%7Aarr.json"), ("ZARR.JSON", "%5AARR.JSON"), ("__init", "%5F_init"),
    ("con", "%63on"), ("x.", "x%2E"), ("t\tab", "t%09ab"), ("é", "%C3%A9"), ("a\\b", "a%5Cb"),
])
def test_group_names_are_one_safe_component(rel, name):
    assert ds.group_name(rel) == name
    assert ds.check_group_name(name) == name


def test_group_name_limits():
    with pytest.raises(ValueError, match="empty"):
        ds.group_name("")
    with pytest.raises(ValueError, match="at most 240"):
        ds.group_name("x" * 241)
    for bad in ("a/b", "..", "%", "", "zarr.json"):
        with pytest.raises(ValueError, match="not a safe Zarr group name"):
            ds.check_group_name(bad)


def _tree(tmp_path, copies=10):
    src = tmp_path / "mocap"
    for i in range(copies):
        d = src / f"batch{i:02d}"
        d.mkdir(parents=True)
        for name in CLIPS:
            shutil.copy(os.path.join(DATA, name), d / name)
    return src


@pytest.mark.parametrize("scheduler, workers", [("sync", None), ("processes", 2)])
def test_repeated_file_names_in_a_tree_are_all_written(tmp_path, scheduler, workers):
    src = _tree(tmp_path)
    out = tmp_path / f"{scheduler}.zarr"
    report = ds.build_dataset(str(src), str(out), steps=[], scheduler=scheduler, workers=workers,
                              progress=False)
    assert report.ok and len(report.written) == 10 * len(CLIPS)
    root = zarr.open_group(str(out), mode="r")
    expected = sorted(f"batch{i:02d}%2F{n[:-4]}" for i in range(10) for n in CLIPS)
    assert sorted(root.group_keys()) == expected
    g = root[f"batch03%2F{CLIPS[1][:-4]}"]
    assert g.attrs["source"] == str(src / "batch03" / CLIPS[1])
    assert np.array_equal(g["local"][...], skelsimd.load_bvh(os.path.join(DATA, CLIPS[1])).local)


def test_names_that_agree_but_for_case_are_a_failure_of_the_second(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(os.path.join(DATA, CLIPS[0]), src / "Walk.bvh")
    shutil.copy(os.path.join(DATA, CLIPS[0]), src / "walk.bvh")
    report = ds.build_dataset(str(src), str(tmp_path / "o.zarr"), steps=[], scheduler="sync",
                              progress=False)
    assert [s.name for s in report.written] == ["Walk"]
    assert [(f.stage, f.path) for f in report.failed] == [("name", str(src / "walk.bvh"))]


# --- --overwrite replaces only a Zarr store ------------------------------------------------------

def test_overwrite_refuses_a_directory_that_is_not_a_store(motion_dir, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "precious.txt").write_text("keep me")
    for overwrite in (False, True):
        with pytest.raises(FileExistsError, match="not a Zarr store") as info:
            ds.build_dataset(motion_dir, str(home), overwrite=overwrite, scheduler="sync",
                             progress=False)
        assert ("--overwrite replaces only" in str(info.value)) == overwrite
    assert os.listdir(home) == ["precious.txt"]
    f = tmp_path / "file.zarr"
    f.write_text("x")
    with pytest.raises(FileExistsError, match="not a directory"):
        ds.build_dataset(motion_dir, str(f), overwrite=True, scheduler="sync", progress=False)
    assert f.read_text() == "x"
    empty = tmp_path / "empty"
    empty.mkdir()
    report = ds.build_dataset(str(motion_dir / CLIPS[0]), str(empty), scheduler="sync",
                              progress=False)
    assert report.ok and (empty / "zarr.json").is_file()


def test_cli_overwrite_of_a_working_directory_refuses(motion_dir, tmp_path):
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "notes.txt").write_text("mine")
    r = subprocess.run([sys.executable, "-m", "skelsimd", "dataset", str(motion_dir), "--out", ".",
                        "--overwrite", "--scheduler", "sync", "--no-progress"], cwd=cwd,
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 2 and "not a Zarr store" in r.stderr
    assert os.listdir(cwd) == ["notes.txt"]


# --- nothing skipped without a word ---------------------------------------------------------------

def test_unreadable_directories_are_reported(tmp_path, monkeypatch):
    """A directory that cannot be listed (simulated: the tests may run as root, who reads every
    directory) is a failure of the stage "find" in the report, never skipped silently."""
    src = tmp_path / "in"
    (src / "locked").mkdir(parents=True)
    shutil.copy(os.path.join(DATA, CLIPS[0]), src / "a.bvh")
    shutil.copy(os.path.join(DATA, CLIPS[0]), src / "locked" / "b.bvh")
    scandir = os.scandir

    def refuse(path):
        if os.fspath(path) == str(src / "locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(ds.os, "scandir", refuse)
    report = ds.build_dataset(str(src), str(tmp_path / "o.zarr"), steps=[], scheduler="sync",
                              progress=False)
    assert [s.name for s in report.written] == ["a"] and not report.ok
    assert [(f.path, f.stage) for f in report.failed] == [(str(src / "locked"), "find")]
    assert "Permission denied" in report.failed[0].error and "locked" in report.summary()


def test_link_cycles_are_reported_and_links_followed(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(os.path.join(DATA, CLIPS[0]), src / "a.bvh")
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(os.path.join(DATA, CLIPS[0]), other / "c.bvh")
    os.symlink(other, src / "linked")
    os.symlink(src, src / "loop")
    report = ds.build_dataset(str(src), str(tmp_path / "o.zarr"), steps=[], scheduler="sync",
                              progress=False)
    assert sorted(s.name for s in report.written) == ["a", "linked%2Fc"]
    assert [(f.path, f.stage) for f in report.failed] == [(str(src / "loop"), "find")]
    assert "cycle" in report.failed[0].error and "loop" in report.summary()


class _Stop:
    """A step that raises KeyboardInterrupt (as Ctrl-C would) at the clip named `at`."""
    name = "stop"

    def __init__(self, at):
        self.at = at

    def __call__(self, item):
        if item.name == self.at:
            raise KeyboardInterrupt
        return item


def _groups(store):
    return sorted(n for n in os.listdir(store) if os.path.isfile(os.path.join(store, n, "zarr.json")))


def test_interrupted_run_reports_what_was_written_and_resumes(tmp_path):
    """Ctrl-C returns a report of the clips written (each complete); resume=True skips the
    complete groups, rewrites an incomplete one, and the store ends equal to one run's."""
    src = tmp_path / "in"
    src.mkdir()
    for k in range(6):
        shutil.copy(os.path.join(DATA, CLIPS[k % len(CLIPS)]), src / f"c{k}.bvh")
    out = tmp_path / "out.zarr"
    report = ds.build_dataset(str(src), str(out), steps=[_Stop("c3"), ds.GlobalPositions()],
                              scheduler="sync", progress=False, partition_size=1)
    assert report.interrupted and not report.ok
    assert "interrupted" in report.summary() and "--resume" in report.summary()
    written = sorted(s.name for s in report.written)
    assert written and "c3" not in written and written == _groups(out)
    assert zarr.open_group(str(out), mode="r").attrs["interrupted"] is True
    # a group cut mid-write (no zarr.json) is written again
    cut = next(f"c{k}" for k in range(6) if f"c{k}" not in written)
    (out / cut / "local").mkdir(parents=True, exist_ok=True)
    (out / cut / "local" / "zarr.json").write_text("{}")
    with pytest.raises(FileExistsError):
        ds.build_dataset(str(src), str(out), scheduler="sync", progress=False)
    with pytest.raises(ValueError, match="choose one"):
        ds.build_dataset(str(src), str(out), scheduler="sync", progress=False, resume=True,
                         overwrite=True)
    again = ds.build_dataset(str(src), str(out), steps=[ds.GlobalPositions()], scheduler="sync",
                             progress=False, resume=True)
    assert again.ok and sorted(again.skipped) == written
    assert sorted(s.name for s in again.written) == sorted(set(f"c{k}" for k in range(6)) - set(written))
    assert _groups(out) == [f"c{k}" for k in range(6)]
    one = tmp_path / "one.zarr"
    ds.build_dataset(str(src), str(one), steps=[ds.GlobalPositions()], scheduler="sync", progress=False)
    a, b = zarr.open_group(str(out), mode="r"), zarr.open_group(str(one), mode="r")
    for k in range(6):
        for key in ("local", "positions"):
            assert np.array_equal(a[f"c{k}"][key][...], b[f"c{k}"][key][...])
    done = ds.build_dataset(str(src), str(out), scheduler="sync", progress=False, resume=True)
    assert done.ok and not done.written and len(done.skipped) == 6
    with pytest.raises(FileNotFoundError, match="no Zarr store to resume"):
        ds.build_dataset(str(src), str(tmp_path / "none.zarr"), resume=True)


def test_ctrl_c_in_the_command_prints_what_was_written(tmp_path):
    """SIGINT while `dataset` runs: no traceback, the summary of what was written, exit 130;
    `--resume` completes the store."""
    import signal
    import time
    src = tmp_path / "in"
    src.mkdir()
    for k in range(300):
        shutil.copy(os.path.join(DATA, "cmu_01_01_beyond_180.bvh"), src / f"c{k:03d}.bvh")
    out = tmp_path / "out.zarr"
    cmd = [sys.executable, "-m", "skelsimd", "dataset", str(src), "--out", str(out),
           "--scheduler", "sync", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 120
    while not (out.is_dir() and len(_groups(out)) >= 3) and time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal")
    assert proc.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr, stderr
    assert stdout.startswith("interrupted: wrote "), stdout
    res = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert len(_groups(out)) == 300
