"""Frame times as files write them: a printed frame time that is a rounded common rate is that
rate exactly (load_bvh, Clip.resample, the dataset pipeline's Resample step, compression's sample
rate), with the printed value kept as clip.frame_time_raw."""
import io
import os

import numpy as np
import pytest

import skelsimd
from skelsimd.io.bvh import COMMON_RATES, file_frame_rate

DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.mark.parametrize("token, rate", [
    ("0.033333", 30), ("0.0333333", 30), (".0333", 30), ("0.0083333", 120), ("0.008333", 120),
    ("8.3333e-3", 120), ("0.0166667", 60), ("0.016667", 60), ("0.04", 25), ("0.041667", 24),
    ("0.0416667", 24), ("0.02", 50), ("0.01", 100), ("0.011111", 90), ("0.0041667", 240),
    ("0.020833", 48), ("0.0333333333333333", 30), ("0.0142857", 70), ("0.1", 10), ("1", 1), ("0.3", None),
    ("0.0123456", None), ("0.0334", None), ("0.03334", None), ("0.00833", 120), ("0.0083", 120),
    ("0.008", 125), ("0.03", 30), ("0.005", 200), ("0.001", 1000), ("1e-300", 10**300), ("2", None), ("1.5", None),
])
def test_file_frame_rate(token, rate):
    """The printed decimal stands for the interval of half a unit in its last digit: the common
    rate whose period lies in it (the nearest when several do), else the only integer rate."""
    assert file_frame_rate(token) == rate
    if rate is not None:
        from decimal import Decimal
        d = Decimal(token)
        half = Decimal(5).scaleb(d.as_tuple().exponent - 1)
        assert abs(1 / Decimal(rate) - d) <= half


def test_every_common_rate_printed_at_any_precision_reads_back():
    for rate in COMMON_RATES:
        for digits in range(4, 17):
            token = f"{1 / rate:.{digits}f}"
            assert file_frame_rate(token) == rate, token


@pytest.mark.parametrize("name, rate", [("cmu_01_01.bvh.gz", 120), ("cmu_131_01.bvh.gz", 120),
                                        ("cmu_131_02.bvh.gz", 120), ("20tab_mocapbank.bvh.gz", 30),
                                        ("20tab_freebvh.bvh.gz", 30)])
def test_shared_clips_have_exact_rates(name, rate):
    clip = skelsimd.load_bvh(os.path.join(DATA, name))
    assert clip.fps == rate and clip.frame_time == 1 / rate
    assert clip.frame_time_raw != clip.frame_time        # the printed value, kept
    assert abs(clip.frame_time_raw - 1 / rate) < 1e-6
    assert skelsimd.data.load_example().fps == 120


def test_other_frame_times_are_taken_as_printed():
    text = ("HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Xposition\n}\nMOTION\nFrames: 1\n"
            "Frame Time: 0.0123456\n1\n")
    clip = skelsimd.load_bvh(text=text)
    assert clip.frame_time == clip.frame_time_raw == 0.0123456


def test_resampling_keeps_the_last_frame_where_it_lands_on_it():
    """455 frames at 30 fps span 15.1333 s: at 60 fps that is 909 frames, the last one on the
    clip's last frame (with the printed 0.033333 s it was 908, and --fps 30 dropped a frame)."""
    clip = skelsimd.load_bvh(os.path.join(DATA, "20tab_mocapbank.bvh.gz"))
    assert clip.frames == 455
    up = clip.resample(60)
    assert up.frames == 909 and up.fps == 60
    assert np.array_equal(up.local[-1], clip.local[-1])
    assert np.array_equal(up.local[::2], clip.local)
    same = clip.resample(30)
    assert same.frames == 455 and np.array_equal(same.local, clip.local)
    down = skelsimd.load_bvh(os.path.join(DATA, "cmu_131_01.bvh.gz")).resample(30)
    assert down.frames == (994 - 1) // 4 + 1


def test_dataset_resample_step_keeps_a_clip_at_its_own_rate():
    from skelsimd import dataset          # the NumPy-only steps: no dask needed
    path = os.path.join(DATA, "20tab_mocapbank.bvh.gz")
    item = dataset.read_clip(path)
    same = dataset.Resample(30)(item)
    assert same.clip.frames == 455 and np.array_equal(same.clip.local, item.clip.local)
    assert same.attrs["resampled_from_fps"] == 30
    up = dataset.Resample(60)(item)
    assert up.clip.frames == 909


def test_compression_sample_rate_is_the_files_rate():
    clip = skelsimd.load_bvh(os.path.join(DATA, "cmu_01_01_beyond_180.bvh"))
    c = skelsimd.compress(clip, precision=0.01)
    assert c.sample_rate == 120.0
    assert c.to_clip().fps == 120.0


def test_save_load_round_trip_keeps_the_rate():
    clip = skelsimd.load_bvh(os.path.join(DATA, "20tab_mocapbank_excerpt.bvh"))
    buf = io.StringIO()
    skelsimd.save_bvh(clip, buf)
    back = skelsimd.load_bvh(text=buf.getvalue())
    assert back.frame_time == clip.frame_time == 1 / 30


def test_fps_of_an_integer_rate_is_exact():
    clip = skelsimd.data.load_example()
    for n in (49, 93, 98, 117, 1000):
        assert clip._with(clip.local, 1.0 / n).fps == n
    assert clip._with(clip.local, 0.0123456).fps == 1 / 0.0123456
