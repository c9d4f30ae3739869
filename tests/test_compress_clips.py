"""Compression of real motion-capture clips (tests/data): the strict bound on every frame and
joint at ACL's default precision (0.01) and at 0.001, the sizes against ACL 2.1.0's figures for
the same files (the compression comparison's table), every variant's decoder, and the command line."""
import os
import subprocess
import sys

import numpy as np
import pytest

import skelsimd
from skelsimd._isa import supported_isas, use_isa
from skelsimd.reference import compress as R

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# ACL 2.1.0 compressed sizes in bytes (its defaults: precision 0.01, shell distance 3.0 in file
# units; and at 0.001), measured on the same files.
ACL = {
    "cmu_01_01": (208905, 298663),
    "cmu_131_01": (68585, 100177),
    "cmu_131_02": (82013, 121037),
    "20tab_freebvh": (8727, 10767),
    "20tab_mocapbank": (30163, 40279),
}


@pytest.fixture(scope="module")
def clips():
    return {name: skelsimd.load_bvh(os.path.join(DATA, name + ".bvh.gz")) for name in ACL}


@pytest.fixture(scope="module")
def compressed(clips):
    return {(name, p): skelsimd.compress(clip, precision=p)
            for name, clip in clips.items() for p in (0.01, 0.001)}


@pytest.mark.parametrize("precision", [0.01, 0.001])
@pytest.mark.parametrize("name", list(ACL))
def test_bound_is_strict_on_real_clips(clips, compressed, name, precision):
    clip, c = clips[name], compressed[name, precision]
    decoded = c.decompress()
    per = skelsimd.clip_error(clip.local, decoded, clip.skeleton, per_joint=True)
    assert per.max() <= precision and per.max() == c.stats["max_error"]
    assert R.clip_error(clip.local, decoded, clip.skeleton.parents) <= precision


@pytest.mark.parametrize("column, precision", [(0, 0.01), (1, 0.001)])
def test_total_size_at_least_ten_percent_under_acl(compressed, column, precision):
    """The stretch target: the total over the five clips 10% under ACL's (a regression
    guard; the figures are in the README)."""
    ours = sum(compressed[name, precision].nbytes for name in ACL)
    acl = sum(v[column] for v in ACL.values())
    assert ours <= 0.9 * acl, (ours, acl)


def test_real_clip_every_variant_and_reference(clips, compressed):
    clip, c = clips["20tab_mocapbank"], compressed["20tab_mocapbank", 0.001]
    times = np.random.default_rng(9).uniform(0, c.duration, 500)
    frames, poses = R.decode(c._data), R.sample(c._data, times)
    for isa in supported_isas():
        with use_isa(isa):
            assert np.array_equal(c.decompress().view(np.uint32), frames.view(np.uint32)), isa
            assert np.array_equal(c.sample_many(times).view(np.uint32), poses.view(np.uint32)), isa


@pytest.mark.parametrize("path", ["cmu_01_01_beyond_180.bvh", "20tab_freebvh_excerpt.bvh",
                                  "20tab_mocapbank_excerpt.bvh", None])
def test_excerpts(path):
    clip = (skelsimd.data.load_example() if path is None
            else skelsimd.load_bvh(os.path.join(DATA, path), end_sites=True))
    for precision in (0.1, 0.01, 0.001, 1e-4):
        c = skelsimd.compress(clip, precision=precision)
        assert skelsimd.clip_error(clip.local, c.decompress(), clip.skeleton) <= precision


def run_cli(*args):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    return subprocess.run([sys.executable, "-m", "skelsimd", *args], capture_output=True,
                          text=True, env=env,
                          cwd=os.path.dirname(os.path.dirname(skelsimd.__file__)))


def test_cli_compress_decompress(tmp_path, clips):
    src = os.path.join(DATA, "20tab_freebvh.bvh.gz")
    out = tmp_path / "clip.skc"
    res = run_cli("compress", src, str(out), "--precision", "0.001")
    assert res.returncode == 0, res.stderr
    assert "69 frames x 55 joints" in res.stdout and "max error" in res.stdout
    c = skelsimd.CompressedClip.from_bytes(out.read_bytes())
    assert c.precision == 0.001
    bvh = tmp_path / "back.bvh"
    res = run_cli("decompress", str(out), str(bvh))
    assert res.returncode == 0, res.stderr
    back = skelsimd.load_bvh(str(bvh))
    clip = clips["20tab_freebvh"]
    assert back.skeleton.names == clip.skeleton.names
    # the BVH text (Euler angles, 6 decimals) adds its own rounding to the bound
    assert skelsimd.clip_error(clip.local, back.local, clip.skeleton) <= 0.001 + 1e-4


def test_cli_errors(tmp_path):
    res = run_cli("compress", str(tmp_path / "missing.bvh"), str(tmp_path / "x"))
    assert res.returncode == 1 and "error:" in res.stderr
    bad = tmp_path / "bad.skc"
    bad.write_bytes(b"not a compressed clip")
    res = run_cli("decompress", str(bad), str(tmp_path / "x.bvh"))
    assert res.returncode == 1 and "error: " in res.stderr
    assert f"{bad}: b: not a skelsimd compressed clip" in res.stderr
    res = run_cli("compress", os.path.join(DATA, "20tab_freebvh_excerpt.bvh"), str(tmp_path / "y"),
                  "--precision", "-1")
    assert res.returncode == 1 and "precision" in res.stderr


def test_cli_compress_has_load_bvhs_joints(tmp_path):
    """The CLI's joints are load_bvh's: End Sites only with --end-sites (31 and 38 joints)."""
    src = os.path.join(DATA, "cmu_01_01_beyond_180.bvh")
    for flags, clip in (([], skelsimd.load_bvh(src)),
                        (["--end-sites"], skelsimd.load_bvh(src, end_sites=True))):
        out = tmp_path / f"clip{len(flags)}.skc"
        res = run_cli("compress", src, str(out), *flags)
        assert res.returncode == 0, res.stderr
        c = skelsimd.CompressedClip.from_bytes(out.read_bytes())
        assert c.num_joints == len(clip.skeleton) == (38 if flags else 31)
        assert c.skeleton.names == clip.skeleton.names
        assert c.sample_rate == 120.0


def test_cli_out_option(tmp_path):
    """compress and decompress take --out as well as the positional OUT (like dataset and
    demo); both at once must agree, and one of them is required."""
    src = os.path.join(DATA, "cmu_01_01_beyond_180.bvh")
    out = tmp_path / "a.skc"
    res = run_cli("compress", src, "--out", str(out))
    assert res.returncode == 0 and out.exists(), res.stderr
    bvh = tmp_path / "a.bvh"
    res = run_cli("decompress", str(out), "--out", str(bvh))
    assert res.returncode == 0 and skelsimd.load_bvh(bvh).frames == 60, res.stderr
    res = run_cli("compress", src, str(out), "--out", str(out))
    assert res.returncode == 0, res.stderr
    res = run_cli("compress", src, str(tmp_path / "b.skc"), "--out", str(out))
    assert res.returncode == 2 and "given twice" in res.stderr
    res = run_cli("decompress", str(out))
    assert res.returncode == 2 and "output file is missing" in res.stderr


def test_read_skc_allocates_what_the_file_holds(tmp_path):
    """read_skc reads the file's size (at most the bound), not max_file_bytes: f.read(n)
    allocates n bytes first (1 GiB per file before)."""
    import tracemalloc
    path = tmp_path / "a.skc"
    skelsimd.save_skc(skelsimd.data.load_example()[:30], path, precision=0.01)
    tracemalloc.start()
    try:
        assert skelsimd.load_skc(path).frames == 30
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak
    with pytest.raises(ValueError, match="max_file_bytes"):
        skelsimd.io.read_skc(path, max_file_bytes=100)
