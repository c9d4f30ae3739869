"""Hostile and careless BVH files: declared sizes larger than the file, huge hierarchies, names
a file cannot hold. Each is a clear ValueError (or works) in time and memory bounded by the
file's size; the large cases run in a child process with a timeout, so a quadratic step (which
took hours for these sizes) fails instead of hanging the suite."""
import io
import subprocess
import sys
import textwrap
import tracemalloc
import warnings

import numpy as np
import pytest

import skelsimd

ONE_CHANNEL = ("HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Xposition\n}\nMOTION\n"
               "Frames: %s\nFrame Time: 0.1\n%s")


def peak_bytes(call):
    """(result or exception, peak bytes allocated while it ran, NumPy's arrays included)."""
    tracemalloc.start()
    try:
        try:
            result = call()
        except Exception as exc:  # noqa: BLE001  (returned for the caller's checks)
            result = exc
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("frames", ["3", "4294967296", "1000000000000", str(2**62)])
def test_more_frames_than_the_file_holds(frames):
    """'Frames:' beyond the MOTION bytes: the missing frames are reported, nothing of the
    declared size is allocated (this used to try to allocate up to terabytes)."""
    err, peak = peak_bytes(lambda: skelsimd.load_bvh(text=ONE_CHANNEL % (frames, "1\n")))
    assert isinstance(err, ValueError), err
    assert str(err) == (f"line 11: the motion data ends after 1 of the {frames} frames declared "
                        "by 'Frames:'")
    assert peak < 1 << 20


@pytest.mark.parametrize("frames", [str(2**63), "9" * 100])
def test_frame_counts_beyond_any_file(frames):
    """Used to be an OverflowError."""
    with pytest.raises(ValueError, match=f"^line 8: 'Frames: {frames}' is more frames than a "
                                         "file can hold$"):
        skelsimd.load_bvh(text=ONE_CHANNEL % (frames, "1\n"))


def test_truncated_rows_are_reported_where_they_end():
    """The bounded read reports the first malformed row exactly as a full read would."""
    text = ONE_CHANNEL.replace("CHANNELS 1 Xposition", "CHANNELS 3 Xposition Yposition Zposition")
    with pytest.raises(ValueError, match=r"^line 11: expected 3 channel values \(frame 1\), got 1"):
        skelsimd.load_bvh(text=text % ("1000000", "1 2 3\n1\n"))
    with pytest.raises(ValueError, match=r"^line 11: expected a number \(frame 1\), got 'x'"):
        skelsimd.load_bvh(text=text % ("1000000", "1 2 3\n1 x 3\n"))
    with pytest.raises(ValueError, match="ends after 2 of the 1000000 frames"):
        skelsimd.load_bvh(text=text % ("1000000", "1 2 3\n1 2 3"))


def test_a_clip_larger_than_max_bytes():
    """Without channels no MOTION bytes are needed per frame: the clip's size is bounded by
    max_bytes (default 64 x the file, at least 256 MiB) before anything is allocated."""
    text = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\n}\nMOTION\nFrames: %d\nFrame Time: 0.1\n"
    err, peak = peak_bytes(lambda: skelsimd.load_bvh(text=text % 10**12))
    assert isinstance(err, ValueError)
    assert str(err).startswith("line 7: 'Frames: 1000000000000' of 1 joint make a clip of "
                               "32000000000000 bytes, more than max_bytes = 268435456")
    assert peak < 1 << 20
    with pytest.raises(ValueError, match="more than max_bytes = 1000"):
        skelsimd.load_bvh(text=text % 100, max_bytes=1000)
    assert skelsimd.load_bvh(text=text % 100, max_bytes=3200).local.shape == (100, 1, 8)
    assert skelsimd.load_bvh(text=text % 100).local.shape == (100, 1, 8)


@pytest.mark.parametrize("value", ["1e39", "-3.5e38", "1e400"])
def test_offsets_beyond_float32(value):
    text = ONE_CHANNEL.replace("OFFSET 0 0 0", f"OFFSET 0 {value} 0") % ("1", "1\n")
    with pytest.raises(ValueError, match=r"^line 4: "):
        skelsimd.load_bvh(text=text)


def test_offsets_at_the_float32_limit_load():
    text = ONE_CHANNEL.replace("OFFSET 0 0 0", "OFFSET 0 3.4028e38 0") % ("1", "1\n")
    assert np.isfinite(skelsimd.load_bvh(text=text).skeleton.rest).all()


def test_repeated_names_keep_their_numbering():
    """The renaming counter gives the names the old scan gave, literal 'a#2' names included."""
    text = "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\n"
    for name in ["a", "a", "a#2", "a", "a_end", "a"]:
        text += f"JOINT {name}\n{{\nOFFSET 0 1 0\nEnd Site\n{{\nOFFSET 0 1 0\n}}\n}}\n"
    text += "End Site\n{\nOFFSET 0 0 0\n}\nEnd Site\n{\nOFFSET 0 0 0\n}\n"
    text += "}\nMOTION\nFrames: 1\nFrame Time: 0.1\n\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = skelsimd.load_bvh(text=text, end_sites=True).skeleton.names
    assert names == ("r", "a", "a_end", "a#2", "a#2_end", "a#2#2", "a#2#2_end", "a#3",
                     "a#3_end", "a_end#2", "a_end#2_end", "a#4", "a#4_end", "r_end", "r_end2")


def test_many_repeated_names_warn_ten_times_and_summarise():
    text = "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\n"
    text += "JOINT a\n{\nOFFSET 0 1 0\n}\n" * 100
    text += "}\nMOTION\nFrames: 1\nFrame Time: 0.1\n\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clip = skelsimd.load_bvh(text=text)
    assert len(clip.skeleton) == 101 and clip.skeleton.names[-1] == "a#100"
    assert len(caught) == 11
    assert "renamed a#2" in str(caught[0].message)
    assert str(caught[-1].message).endswith("89 more repeated joint names renamed with #k suffixes")


LARGE_FILES = textwrap.dedent('''
    import io, warnings
    import numpy as np
    import skelsimd

    def siblings(n, name):
        out = ["HIERARCHY", "ROOT r", "{", "OFFSET 0 0 0", "CHANNELS 3 Xposition Yposition Zposition"]
        for j in range(n):
            out += ["JOINT " + name(j), "{", "OFFSET 0 1 0", "CHANNELS 1 Zrotation",
                    "End Site", "{", "OFFSET 0 1 0", "}", "}"]
        out += ["}", "MOTION", "Frames: 1", "Frame Time: 0.01", " ".join(["0"] * (3 + n))]
        return "\\n".join(out) + "\\n"

    def chain(n):
        out = ["HIERARCHY"]
        for j in range(n):
            out += [("ROOT" if j == 0 else "JOINT") + " a", "{", "OFFSET 0 1 0",
                    "CHANNELS 1 Zrotation"]
        out += ["End Site", "{", "OFFSET 0 1 0", "}"] + ["}"] * n
        out += ["MOTION", "Frames: 2", "Frame Time: 0.01"] + [" ".join(["0"] * n)] * 2
        return "\\n".join(out) + "\\n"

    warnings.simplefilter("ignore")
    clip = skelsimd.load_bvh(text=siblings(100_000, lambda j: "a"), end_sites=True)
    assert len(clip.skeleton) == 200_001 and clip.skeleton.names[-2] == "a#100000"
    clip = skelsimd.load_bvh(text=chain(16_000), end_sites=True)
    assert len(clip.skeleton) == 16_001 and int(clip.skeleton.depth.max()) == 16_000
    ends = ["HIERARCHY", "ROOT r", "{", "OFFSET 0 0 0"] + ["End Site", "{", "OFFSET 0 0 0", "}"] * 100_000
    clip = skelsimd.load_bvh(text="\\n".join(ends + ["}", "MOTION", "Frames: 1", "Frame Time: 1", ""]),
                             end_sites=True)
    assert clip.skeleton.names[-1] == "r_end100000"
    # save_bvh of a 16,000-deep chain (no recursion), and back
    buf = io.StringIO()
    skelsimd.save_bvh(skelsimd.load_bvh(text=chain(16_000)), buf)
    back = skelsimd.load_bvh(text=buf.getvalue())
    assert len(back.skeleton) == 16_000 and int(back.skeleton.depth.max()) == 15_999
    print("ok")
''')


def test_large_hierarchies_load_and_save_in_bounded_time():
    """100,000 same-name siblings with End Sites, a 16,000-deep same-name chain, 100,000 End
    Sites under one joint, and a save of the 16,000-deep chain. A quadratic renaming step made
    the first take hours; the save used to raise RecursionError. Here a few seconds of CPU; the
    timeout only guards against a hang."""
    run = subprocess.run([sys.executable, "-c", LARGE_FILES], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"


def test_save_deep_chain_is_linear_and_round_trips():
    """A 3,000-deep chain (deeper than Python's recursion limit) saves without recursion, its
    indentation capped at 32 tabs, and loads back with the same hierarchy."""
    n = 3000
    parents = np.arange(-1, n - 1, dtype=np.int32)
    rest = np.zeros((n, 8), np.float32)
    rest[:, 3] = rest[:, 7] = 1
    rest[1:, 5] = 1
    local = np.broadcast_to(rest, (2, n, 8)).copy()
    clip = skelsimd.Clip(skelsimd.Skeleton(parents, None, rest), local, 0.1)
    buf = io.StringIO()
    skelsimd.save_bvh(clip, buf)
    text = buf.getvalue()
    assert max(len(line) - len(line.lstrip("\t")) for line in text.splitlines()) == 34
    back = skelsimd.load_bvh(text=text)
    np.testing.assert_array_equal(back.skeleton.parents, parents)
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(), atol=1e-3)


def test_non_utf8_names_round_trip(tmp_path):
    """A name read as Latin-1 (bytes that are not UTF-8) is written as UTF-8 and read back."""
    data = (ONE_CHANNEL % ("1", "1\n")).encode().replace(b"ROOT a", b"ROOT a\xff\xfe\xe9")
    clip = skelsimd.load_bvh(data)
    assert clip.skeleton.names == ("a\xff\xfe\xe9",)
    path = tmp_path / "latin.bvh"
    skelsimd.save_bvh(clip, path)
    assert "a\xff\xfe\xe9".encode("utf-8") in path.read_bytes()
    assert skelsimd.load_bvh(path).skeleton.names == clip.skeleton.names


@pytest.mark.parametrize("name, problem", [
    ("a\udcff", "UTF-8 cannot encode"), ("a\nMOTION", "a line break"), ("a\rb", "a line break"),
    ("", "an empty name"), ("  ", "an empty name"), (" a", "leading or trailing whitespace"),
    ("a\t", "leading or trailing whitespace"), ("a{", "a trailing '{'")])
def test_names_a_file_cannot_hold(tmp_path, name, problem):
    """A clear ValueError naming the joint, and nothing written."""
    rest = np.array([[0, 0, 0, 1, 0, 0, 0, 1], [0, 0, 0, 1, 0, 1, 0, 1]], np.float32)
    clip = skelsimd.Clip(skelsimd.Skeleton([-1, 0], ["root", name], rest), rest[None], 0.1)
    path = tmp_path / "x.bvh"
    buf = io.StringIO()
    for target in (path, buf):
        with pytest.raises(ValueError, match=r"^clip\.skeleton\.names\[1\] = .*" + problem):
            skelsimd.save_bvh(clip, target)
    assert not path.exists()
    assert buf.getvalue() == ""


def _gzip_bomb(path, header, expanded, piece=b"0 " * (1 << 19)):
    """A .gz file of `header` followed by `expanded` bytes of '0 ' (compressed as it is made:
    a few hundred KiB on disk)."""
    import zlib
    z = zlib.compressobj(1, zlib.DEFLATED, 31)      # wbits 31: the gzip format
    with open(path, "wb") as f:
        f.write(z.compress(header))
        for _ in range(expanded // len(piece)):
            f.write(z.compress(piece))
        f.write(z.flush())


BOMB_HEADER = b"HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Xposition\n}\nMOTION\nFrames: 1\nFrame Time: 0.01\n"


def test_gzip_bomb_refused_while_streaming(tmp_path):
    """A .bvh.gz expanding beyond max_bytes (here 1 MiB; 64 MiB of text) is refused while it is
    decompressed: never held whole (peak well under the expanded size)."""
    path = tmp_path / "bomb.bvh.gz"
    _gzip_bomb(path, BOMB_HEADER, 64 << 20)
    assert path.stat().st_size < 1 << 20
    err, peak = peak_bytes(lambda: skelsimd.load_bvh(path, max_bytes=1 << 20))
    assert isinstance(err, ValueError) and "decompressed text is more than max_bytes" in str(err)
    assert peak < 8 << 20, peak


def test_gzip_bomb_default_bound(tmp_path):
    """Without max_bytes the decompressed text is bounded by 64 times the .gz file's size, at
    least 256 MiB: 300 MiB of text is refused with a peak of about the bound, not the text."""
    path = tmp_path / "bomb.bvh.gz"
    _gzip_bomb(path, BOMB_HEADER, 300 << 20)
    err, peak = peak_bytes(lambda: skelsimd.load_bvh(str(path)))
    assert isinstance(err, ValueError) and f"max_bytes = {256 << 20}" in str(err), err
    assert peak < (256 + 16) << 20, peak
    small = tmp_path / "ok.bvh.gz"
    _gzip_bomb(small, BOMB_HEADER.replace(b"Frames: 1", b"Frames: 4"), 0)
    with open(small, "ab") as f:
        import gzip
        f.write(gzip.compress(b"1\n2\n3\n4\n"))      # a second gzip member: read on
    assert skelsimd.load_bvh(small).frames == 4
