"""One test per malformed-BVH rule: a ValueError naming the line (and what was expected and
found), for each way a file can be broken; and the argument rules of load_bvh / save_bvh."""
import io
import os
import pathlib

import numpy as np
import pytest

import skelsimd

GOOD = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Spine
  {
    OFFSET 0 5 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 2 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.0333333
0 1 2 10 20 30 1 2 3
0 1 2 10 20 30 1 2 3
"""
# line numbers in GOOD: 1 HIERARCHY, 2 ROOT, 4 OFFSET, 5 CHANNELS, 6 JOINT, 8 OFFSET,
# 9 CHANNELS, 10 End Site, 12 OFFSET, 15 '}' (root), 16 MOTION, 17 Frames, 18 Frame Time,
# 19 and 20 the frames


def test_the_template_is_valid():
    assert skelsimd.load_bvh(text=GOOD).local.shape == (2, 2, 8)


def broken(old, new, count=1):
    assert old in GOOD
    return GOOD.replace(old, new, count)


CASES = [
    # (id, text, line, words)
    ("no-hierarchy", GOOD.replace("HIERARCHY\n", ""), 1, ["expected 'HIERARCHY'", "ROOT Hips"]),
    ("empty", "", 1, ["expected 'HIERARCHY'", "got the end of the file"]),
    ("unknown-keyword", broken("    OFFSET 0 5 0", "    OFFSET 0 5 0\n    SCALE 1"), 9, ["unexpected 'SCALE 1'"]),
    ("offset-count", broken("OFFSET 0 5 0", "OFFSET 0 5"), 8, ["OFFSET", "3 numbers", "got 2"]),
    ("offset-number", broken("OFFSET 0 5 0", "OFFSET 0 five 0"), 8, ["OFFSET", "'0 five 0'"]),
    ("offset-nan", broken("OFFSET 0 5 0", "OFFSET 0 nan 0"), 8, ["finite", "OFFSET"]),
    ("channel-count", broken("CHANNELS 3 Zrotation", "CHANNELS 4 Zrotation"), 9, ["CHANNELS says 4", "lists 3"]),
    ("channel-name", broken("Zrotation Xrotation Yrotation", "Zrotation Xrotation Wrotation"), 9,
     ["unknown channel 'Wrotation'", "Xposition"]),
    ("channel-repeated", broken("Zrotation Xrotation Yrotation", "Zrotation Xrotation Zrotation"), 9,
     ["'Zrotation' listed twice"]),
    ("channel-count-text", broken("CHANNELS 3 Zrotation", "CHANNELS three Zrotation"), 9, ["CHANNELS <count>"]),
    ("channels-in-end-site", broken("      OFFSET 0 2 0", "      OFFSET 0 2 0\n      CHANNELS 1 Xrotation"), 13,
     ["'CHANNELS' inside an End Site"]),
    ("second-offset", broken("    OFFSET 0 5 0", "    OFFSET 0 5 0\n    OFFSET 0 5 0"), 9, ["second 'OFFSET'"]),
    ("second-channels", broken("    CHANNELS 3 Zrotation Xrotation Yrotation",
                               "    CHANNELS 3 Zrotation Xrotation Yrotation\n    CHANNELS 1 Xrotation"), 10,
     ["second 'CHANNELS'"]),
    ("missing-brace", broken("  JOINT Spine\n  {", "  JOINT Spine"), 7, ["expected '{'", "line 6", "OFFSET 0 5 0"]),
    ("missing-name", broken("JOINT Spine", "JOINT"), 6, ["expected a joint name", "'JOINT'"]),
    ("joint-outside-root", GOOD.replace("ROOT Hips", "JOINT Hips"), 2, ["'JOINT' outside a ROOT"]),
    ("root-inside", broken("JOINT Spine", "ROOT Spine"), 6, ["'ROOT' inside another joint"]),
    ("joint-in-end-site", broken("      OFFSET 0 2 0", "      OFFSET 0 2 0\n      JOINT X"), 13,
     ["'JOINT' inside the End Site opened at line 10"]),
    ("no-offset", broken("  OFFSET 0 0 0\n", ""), 14, ["block opened at line 2 has no OFFSET"]),
    ("extra-close", broken("MOTION", "}\nMOTION"), 16, ["'}' without an open block"]),
    ("close-with-text", broken("    }\n  }", "    }\n  } extra"), 14, ["expected '}' alone", "'} extra'"]),
    ("unclosed", broken("  }\n}\nMOTION", "  }\nMOTION"), 15, ["'MOTION' inside the block opened at line 2"]),
    ("eof-in-hierarchy", GOOD.split("MOTION")[0].replace("  }\n}\n", ""), 14,
     ["unexpected end of file", "block opened at line 6 is not closed"]),
    ("no-motion", GOOD.split("MOTION")[0], 16, ["unexpected end of file", "expected 'MOTION'"]),
    ("motion-first", "HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 1\n", 2, ["'MOTION' before any ROOT"]),
    ("frames-missing", broken("Frames: 2\n", ""), 17, ["expected 'Frames: <count>'", "Frame Time"]),
    ("frames-negative", broken("Frames: 2", "Frames: -2"), 17, ["non-negative frame count", "'-2'"]),
    ("frames-text", broken("Frames: 2", "Frames: two"), 17, ["non-negative frame count", "'two'"]),
    ("frame-time-missing", broken("Frame Time: 0.0333333\n", ""), 18, ["expected 'Frame Time: <seconds>'"]),
    ("frame-time-zero", broken("Frame Time: 0.0333333", "Frame Time: 0"), 18, ["positive frame time", "'0'"]),
    ("frame-time-text", broken("Frame Time: 0.0333333", "Frame Time: fast"), 18, ["positive frame time", "'fast'"]),
    ("too-few-values", broken("0 1 2 10 20 30 1 2 3\n", "0 1 2 10 20 30 1 2\n", 2), 19,
     ["expected 9 channel values", "frame 0", "got 8"]),
    ("too-many-values", GOOD.replace("0 1 2 10 20 30 1 2 3\n0 1 2 10 20 30 1 2 3\n",
                                     "0 1 2 10 20 30 1 2 3\n0 1 2 10 20 30 1 2 3 4\n"), 20,
     ["expected 9 channel values", "frame 1", "got 10"]),
    ("bad-number", broken("0 1 2 10 20 30 1 2 3\n", "0 1 2 10 2O 30 1 2 3\n"), 19, ["expected a number", "'2O'"]),
    ("nan-value", broken("0 1 2 10 20 30 1 2 3\n", "0 1 2 nan 20 30 1 2 3\n"), 19, ["expected a number", "'nan'"]),
    ("comma-decimal", broken("0 1 2 10 20 30 1 2 3\n", "0 1 2 10 20,5 30 1 2 3\n"), 19, ["'20,5'"]),
    ("huge-value", broken("0 1 2 10 20 30 1 2 3\n", "0 1 2 10 20 30 1e39 2 3\n"), 19,
     ["'1e39'", "beyond the float32 range"]),
    ("missing-frame", GOOD.rsplit("0 1 2 10 20 30 1 2 3\n", 1)[0], 20,
     ["motion data ends after 1 of the 2 frames"]),
    ("extra-frame", GOOD + "0 1 2 10 20 30 1 2 3\n", 21, ["more motion lines than the 2 frames"]),
]


@pytest.mark.parametrize("text, line, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_files_name_the_line(text, line, words):
    with pytest.raises(ValueError) as info:
        skelsimd.load_bvh(text=text)
    msg = str(info.value)
    assert msg.startswith(f"line {line}: "), msg
    assert all(w in msg for w in words), msg


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_line_numbers_count_every_kind_of_line_end(ending):
    text = broken("0 1 2 10 20 30 1 2 3\n", "0 1 2 10 20 30 1 2 x\n").replace("\n", ending)
    with pytest.raises(ValueError, match=r"^line 19: expected a number \(frame 0\), got 'x'"):
        skelsimd.load_bvh(text=text)


def test_load_bvh_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match=r"path: expected a path \(str or os.PathLike\), bytes or a file object, got int"):
        skelsimd.load_bvh(42)
    with pytest.raises(TypeError, match="not both"):
        skelsimd.load_bvh(b"x", text=GOOD)
    with pytest.raises(TypeError, match="text: expected the text of a BVH file"):
        skelsimd.load_bvh(text=GOOD.encode())
    with pytest.raises(TypeError, match="got None"):
        skelsimd.load_bvh()
    with pytest.raises(TypeError, match="max_bytes"):
        skelsimd.load_bvh(text=GOOD, max_bytes="1")
    with pytest.raises(FileNotFoundError):
        skelsimd.load_bvh(str(tmp_path / "missing.bvh"))


def test_a_str_is_always_a_path(tmp_path, monkeypatch):
    """A str or os.PathLike names a file, whatever it holds: a file named hierarchy.bvh, a
    directory named Hierarchy_set; BVH text goes through text=."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Hierarchy_set").mkdir()
    for name in ("hierarchy.bvh", "HIERARCHY", os.path.join("Hierarchy_set", "a.bvh")):
        (tmp_path / name).write_text(GOOD)
        assert skelsimd.load_bvh(name).local.shape == (2, 2, 8)
        assert skelsimd.load_bvh(pathlib.Path(name)).local.shape == (2, 2, 8)
    with pytest.raises(OSError):        # the text given as a path is not a file's name
        skelsimd.load_bvh(GOOD)
    assert skelsimd.load_bvh(text=GOOD).local.shape == (2, 2, 8)


class _IntReader:
    def read(self, *args):
        return 10**12


def test_a_file_object_whose_read_returns_an_int():
    """read() returning an int is a TypeError (bytes(n) would allocate n bytes)."""
    with pytest.raises(TypeError, match="read\\(\\) returned int"):
        skelsimd.load_bvh(_IntReader())


@pytest.fixture
def clip():
    return skelsimd.load_bvh(text=GOOD)


@pytest.mark.parametrize("order", ["ZZY", "XY", "abc", 3])
def test_save_bvh_bad_order(clip, order):
    with pytest.raises(ValueError, match="order: expected a permutation of 'XYZ'"):
        skelsimd.save_bvh(clip, io.StringIO(), order=order)


def test_save_bvh_refuses_scale(clip):
    clip.local[1, 1, 7] = 2.0
    buf = io.StringIO()
    with pytest.raises(ValueError) as info:
        skelsimd.save_bvh(clip, buf)
    msg = str(info.value)
    assert "no scale channels" in msg and "frame 1" in msg and "'Spine'" in msg and "2.0" in msg
    assert buf.getvalue() == ""


def test_save_bvh_bad_clip():
    with pytest.raises(TypeError, match="clip: expected a skelsimd.Clip, got dict"):
        skelsimd.save_bvh({}, io.StringIO())


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(skeleton=[-1, 0]), TypeError, ["skeleton", "Skeleton", "list"]),
    (dict(local=np.zeros((2, 3, 8))), ValueError, ["local", "(F, 2, 8)", "(2, 3, 8)"]),
    (dict(frame_time=0.0), ValueError, ["frame_time", "positive"]),
    (dict(frame_time=float("nan")), ValueError, ["frame_time", "positive"]),
])
def test_clip_bad_arguments(clip, kwargs, exc, words):
    args = dict(skeleton=clip.skeleton, local=clip.local, frame_time=clip.frame_time)
    args.update(kwargs)
    with pytest.raises(exc) as info:
        skelsimd.Clip(**args)
    assert all(w in str(info.value) for w in words), str(info.value)
