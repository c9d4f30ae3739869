"""The writers (save_bvh, save_gltf, save_skc) refuse what they cannot write faithfully, before
anything is written, never leave a partial file, and take (path, clip) (save_bvh and save_skc
also their former (clip, path))."""
import io
import os
import pathlib

import numpy as np
import pytest

import skelsimd
from skelsimd.io import _writing


@pytest.fixture(scope="module")
def clip():
    return skelsimd.data.load_example()[:6]


def _save_bvh(path, clip):
    skelsimd.save_bvh(path, clip)


def _save_glb(path, clip):
    skelsimd.save_gltf(path, clip)


def _save_skc(path, clip):
    skelsimd.save_skc(path, clip, precision=0.01)


WRITERS = {"bvh": _save_bvh, "glb": _save_glb, "gltf": _save_glb, "skc": _save_skc}


def _with_value(clip, frame, joint, lane, value):
    local = clip.local.copy()
    local[frame, joint, lane] = value
    return skelsimd.Clip(clip.skeleton, local, clip.fps, channels=clip.channels)


# --- values a file cannot hold --------------------------------------------------------------

@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("lane", [1, 5])
def test_save_bvh_refuses_non_finite_values_naming_frame_and_joint(clip, tmp_path, value, lane):
    bad = _with_value(clip, 3, 7, lane, value)
    path = tmp_path / "bad.bvh"
    name = clip.skeleton.names[7]
    with pytest.raises(ValueError, match=rf"^clip\.local: expected finite values, got "
                                         rf"-?(nan|inf) at frame 3, joint '{name}' \(lane {lane}\)$"):
        skelsimd.save_bvh(path, bad)
    assert not path.exists()
    buf = io.StringIO()
    with pytest.raises(ValueError, match="frame 3"):
        skelsimd.save_bvh(bad, buf)
    assert buf.getvalue() == ""


def test_save_bvh_refuses_a_non_finite_rest_pose(clip, tmp_path):
    rest = np.array(clip.skeleton.rest, copy=True)
    rest[4, 5] = np.nan
    skel = skelsimd.Skeleton(clip.skeleton.parents, clip.skeleton.names, rest=rest)
    bad = skelsimd.Clip(skel, clip.local, clip.fps)
    with pytest.raises(ValueError, match=rf"^clip\.skeleton\.rest: .* joint "
                                         rf"'{clip.skeleton.names[4]}'$"):
        skelsimd.save_bvh(tmp_path / "bad.bvh", bad)
    assert not (tmp_path / "bad.bvh").exists()


def test_what_save_bvh_writes_load_bvh_reads(clip, tmp_path):
    """The refusal above is the writer's side of load_bvh's: nan in a file is refused."""
    path = tmp_path / "ok.bvh"
    skelsimd.save_bvh(path, clip)
    text = path.read_text()
    assert skelsimd.load_bvh(path).frames == clip.frames
    with pytest.raises(ValueError):
        skelsimd.load_bvh(text=text.rsplit("\n", 2)[0] + "\nnan" + text.rsplit("\n", 2)[1][3:])


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_a_clip_of_zero_frames_is_a_value_error_in_every_writer(clip, tmp_path, kind):
    path = tmp_path / f"empty.{kind}"
    with pytest.raises(ValueError, match=r"^clip: expected at least one frame, got 0"):
        WRITERS[kind](path, clip[:0])
    assert os.listdir(tmp_path) == []


def test_save_gltf_still_writes_a_skeleton_alone(clip, tmp_path):
    path = skelsimd.save_gltf(tmp_path / "skeleton.glb", clip.skeleton)
    asset = skelsimd.load_gltf(path)
    assert list(asset.skins[0].skeleton.names) == list(clip.skeleton.names)
    assert not asset.animations


# --- no partial file ------------------------------------------------------------------------

def _failing_replace(src, dst):
    raise OSError(28, "No space left on device")


class _HalfWriter:
    """A file object that writes half of what it is given, then fails (a full disk)."""

    def __init__(self, f):
        self.f = f

    def write(self, data):
        self.f.write(data[:len(data) // 2])
        raise OSError(28, "No space left on device")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


@pytest.mark.parametrize("failure", ["rename", "write"])
@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_a_failed_write_leaves_an_existing_file_unchanged(clip, tmp_path, monkeypatch, kind,
                                                          failure):
    path = tmp_path / f"walk.{kind}"
    WRITERS[kind](path, clip[:3])
    before = path.read_bytes()
    if failure == "rename":
        monkeypatch.setattr(_writing.os, "replace", _failing_replace)
    else:
        real_fdopen = os.fdopen
        monkeypatch.setattr(_writing.os, "fdopen", lambda fd, mode: _HalfWriter(real_fdopen(fd, mode)))
    with pytest.raises(OSError, match="No space left"):
        WRITERS[kind](path, clip)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]       # no temporary file left behind
    monkeypatch.undo()
    WRITERS[kind](path, clip)                         # and the next write works
    assert path.read_bytes() != before


def test_written_files_have_the_usual_permissions(clip, tmp_path):
    umask = os.umask(0o022)
    try:
        skelsimd.save_bvh(tmp_path / "a.bvh", clip)
    finally:
        os.umask(umask)
    assert (tmp_path / "a.bvh").stat().st_mode & 0o777 == 0o644


# --- one argument order ---------------------------------------------------------------------

@pytest.mark.parametrize("as_path", [str, pathlib.Path])
def test_save_bvh_takes_path_then_clip_and_clip_then_path(clip, tmp_path, as_path):
    a, b = tmp_path / "a.bvh", tmp_path / "b.bvh"
    skelsimd.save_bvh(as_path(a), clip)
    skelsimd.save_bvh(clip, as_path(b), order="XYZ")
    skelsimd.save_bvh(clip, as_path(b))
    assert a.read_bytes() == b.read_bytes()
    buf_a, buf_b = io.StringIO(), io.StringIO()
    skelsimd.save_bvh(buf_a, clip, order="XYZ")
    skelsimd.save_bvh(clip=clip, path=buf_b, order="XYZ")
    assert buf_a.getvalue() == buf_b.getvalue() != a.read_text()


def test_save_skc_takes_path_then_clip_and_clip_then_path(clip, tmp_path):
    a, b = tmp_path / "a.skc", tmp_path / "b.skc"
    packed = skelsimd.save_skc(a, clip, precision=0.01)
    assert skelsimd.save_skc(packed, b).to_bytes() == packed.to_bytes()
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("call, message", [
    (lambda c, p: skelsimd.save_bvh(p, str(p)),
     r"^clip: expected a skelsimd\.Clip, got PosixPath$"),
    (lambda c, p: skelsimd.save_bvh(c, 42), r"^path: expected a str, os\.PathLike or text file "
                                            r"object, got int$"),
    (lambda c, p: skelsimd.save_skc(c, 42), r"^path: expected a str or os\.PathLike, got int$"),
])
def test_writers_name_the_argument_of_the_wrong_type(clip, tmp_path, call, message):
    with pytest.raises(TypeError, match=message):
        call(clip, tmp_path / "x")
    assert os.listdir(tmp_path) == []
