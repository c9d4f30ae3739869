"""The dataset pipeline's pieces: the NumPy-only steps (skelsimd.dataset) and the Zarr layout's
names (skelsimd.io.zarr_store) import and run without the [dask] extra; skelsimd.dask.dataset
re-exports every name it had."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import skelsimd
from skelsimd import dataset
from skelsimd.io import zarr_store


def test_steps_run_without_dask_or_zarr(tmp_path):
    path = tmp_path / "walk.bvh"
    skelsimd.save_bvh(skelsimd.data.load_example()[:40], str(path))
    code = textwrap.dedent(f"""
        import sys
        for name in ("dask", "dask.bag", "distributed", "zarr", "tqdm"):
            sys.modules[name] = None          # not installed: importing them fails
        from skelsimd.dataset import (Compress, GlobalPositions, Resample, RootFeatures,
                                      find_motion_files, process_clip)
        from skelsimd.io.zarr_store import check_group_name, group_name
        files = find_motion_files({str(tmp_path)!r})
        item = process_clip(files[0], [Resample(30), Compress(), GlobalPositions(),
                                       RootFeatures()])
        print(item.name, item.clip.frames, sorted(item.arrays))
        print(group_name("a/b"), check_group_name("a%2Fb"))
        try:
            import skelsimd.dask.dataset
        except ImportError as exc:
            print("dask:", "pip install 'skelsimd[dask]'" in str(exc))
        assert not any(m.split(".")[0] in ("dask", "zarr") and sys.modules[m] is not None
                       for m in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "walk 10 ['compressed', 'heading', 'heading_velocity', 'positions', 'rel_positions', "
        "'rel_velocities']",
        "a%2Fb a%2Fb",
        "dask: True"]


@pytest.mark.dask
def test_steps_match_the_dask_module():
    pytest.importorskip("dask.bag")
    pytest.importorskip("zarr")
    from skelsimd.dask import dataset as ds
    for name in ds.__all__:
        obj = getattr(ds, name)
        home = dataset if hasattr(dataset, name) else zarr_store
        if name in ("read_clips", "write_clips", "write_clip", "build_dataset"):
            continue          # the Dask side
        assert getattr(home, name) is obj, name
    item = dataset.ClipItem("walk", "walk.bvh", skelsimd.data.load_example()[:20])
    a = dataset.apply_steps(item, dataset.default_steps())
    b = ds.apply_steps(item, ds.default_steps())
    assert sorted(a.arrays) == sorted(b.arrays)
    for key in a.arrays:
        np.testing.assert_array_equal(a.arrays[key], b.arrays[key])

