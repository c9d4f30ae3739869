"""BVH import and export on real motion capture (tests/data, the embedded clip and, when present,
the project's shared clips), checked against a float64 reference computed independently from the
BVH channels with Euler matrices (skelsimd.reference.skeleton), on every SIMD variant."""
import gzip
import io
import os
import pathlib

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import skelsimd
from skelsimd._bench.numpy_forms import qts_to_matrix_numpy32
from skelsimd import bvh as B
from skelsimd import testing as T
from skelsimd.reference import joints as RJ
from skelsimd.reference import skeleton as RS
from skelsimd.bounds import bound
from strategies import position_bound

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

CLIPS = [os.path.join(DATA, f) for f in sorted(os.listdir(DATA)) if f.endswith(".bvh")]
CLIPS.append(skelsimd.data.example_path())
# whole CMU clips, gzipped (tests/data/README.md)
FULL_CLIPS = [os.path.join(DATA, f) for f in ("cmu_131_02.bvh.gz", "cmu_01_01.bvh.gz")]


def read_text(path):
    with open(path, newline="") as f:       # keep CR/LF exactly as in the file
        return f.read()


def check_against_reference(clip, text, end_sites):
    ref = RS.read_bvh(text, end_sites=end_sites)
    expected = RS.bvh_global_matrices(ref)
    assert clip.skeleton.names == tuple(ref["names"])
    assert np.array_equal(clip.skeleton.parents, ref["parents"])
    assert clip.frame_time_raw == pytest.approx(ref["frame_time"], rel=1e-12)
    assert clip.frame_time == pytest.approx(ref["frame_time"], rel=1e-4)
    got = clip.global_matrices()
    pos_err = np.abs(got[..., 3] - expected[..., 3]).max(initial=0)
    rot_err = np.abs(got[..., :3] - expected[..., :3]).max(initial=0)
    assert pos_err <= position_bound(clip.skeleton, expected), pos_err
    assert rot_err <= bound("bvh.rotations"), rot_err
    return pos_err, rot_err


# --- real data ------------------------------------------------------------------------------------

@pytest.mark.parametrize("end_sites", [False, True])
@pytest.mark.parametrize("path", CLIPS, ids=os.path.basename)
def test_real_clips_against_the_euler_reference(isa, path, end_sites):
    clip = skelsimd.load_bvh(path, end_sites=end_sites)
    check_against_reference(clip, read_text(path), end_sites)


@pytest.mark.parametrize("path", CLIPS[:2], ids=os.path.basename)
def test_clip_forward_kinematics_in_float64(isa, path):
    clip = skelsimd.load_bvh(path)
    text = read_text(path)
    expected = RS.bvh_global_matrices(RS.read_bvh(text))
    got = clip.global_positions(precision="float64")
    assert np.array_equal(got, skelsimd.qts_local_to_global_matrix(
        clip.local, clip.skeleton, precision="float64")[..., 3])
    # the float32 locals (quaternions, offsets) are the only rounding left before the output
    err64 = np.abs(got - expected[..., 3]).max()
    assert err64 <= position_bound(clip.skeleton, expected), err64


@pytest.mark.parametrize("path", FULL_CLIPS, ids=os.path.basename)
def test_full_clips_against_the_euler_reference(path, tmp_path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    plain = tmp_path / os.path.basename(path)[:-3]
    plain.write_bytes(data)
    clip = skelsimd.load_bvh(plain)
    check_against_reference(clip, data.decode("ascii"), False)


@pytest.mark.parametrize("path", CLIPS, ids=os.path.basename)
def test_local_poses(path):
    clip = skelsimd.load_bvh(path, end_sites=True)
    local = clip.local
    assert local.dtype == np.float32 and local.flags.c_contiguous
    assert local.shape == (clip.frames, len(clip.skeleton), 8)
    q = local[..., :4].astype(np.float64)
    assert np.abs(np.linalg.norm(q, axis=-1) - 1).max() <= bound("bvh.unit_quaternions")
    # continuous: consecutive frames on the same hemisphere, first frame qw >= 0
    assert (np.einsum("fjk,fjk->fj", q[1:], q[:-1]) >= 0).all()
    assert (q[0, :, 3] >= 0).all()
    assert (local[..., 7] == 1).all()
    # joints without position channels keep their OFFSET; End Sites are identity leaves
    rest = clip.skeleton.rest
    for j, chans in enumerate(clip.channels):
        if not any(c.endswith("position") for c in chans):
            assert (local[:, j, 4:7] == rest[j, 4:7]).all()
    ends = np.flatnonzero(clip.end_site)
    assert len(ends) > 0
    assert (local[:, ends, :4] == [0, 0, 0, 1]).all()
    assert all(clip.skeleton.children(j).size == 0 for j in ends)


def test_quirks_of_the_real_files():
    mixed = skelsimd.data.load_example()                  # CMU 131: two rotation orders
    orders = {c[-3:] for c in mixed.channels if len(c) >= 3}
    assert orders == {("Zrotation", "Yrotation", "Xrotation"), ("Zrotation", "Xrotation", "Yrotation")}
    assert mixed.frame_time_raw == 0.0083333 and mixed.frame_time == 1 / 120 and mixed.frames == 240
    raw = open(skelsimd.data.example_path(), "rb").read()
    assert b"\r\n" in raw and raw.count(b"\n") > raw.count(b"\r\n")   # mixed endings
    mixamo = skelsimd.load_bvh(os.path.join(DATA, "20tab_freebvh_excerpt.bvh"))
    assert mixamo.skeleton.names[0] == "mixamorig:Hips" and len(mixamo.skeleton) == 55
    assert mixamo.skeleton.index("mixamorig:LeftHandIndex1") > 0
    beyond = read_text(os.path.join(DATA, "cmu_01_01_beyond_180.bvh"))
    motion = RS.read_bvh(beyond)["motion"]
    assert np.abs(motion[:, 3:6]).max() > 180             # root angles beyond +-180 degrees
    crlf = open(os.path.join(DATA, "20tab_mocapbank_excerpt.bvh"), "rb").read()
    assert crlf.count(b"\r\n") == crlf.count(b"\n") and b"Frames:\t" in crlf


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_blend_two_real_frames_against_the_reference(isa, method):
    """Blending two frames of the real clip with blend_joints (slerp of rotations, lerp of
    translations), then FK, against a float64 slerp and float64 FK of the same QTS poses."""
    clip = skelsimd.data.load_example()
    a, b = clip.local[10], clip.local[200]
    skel = clip.skeleton
    for t in (0.0, 0.25, 0.5, 0.9, 1.0):
        blended = skelsimd.blend_joints(a, b, t, method=method)
        expected_q = RS.slerp(a[:, :4], b[:, :4], t)
        assert np.abs(blended[:, :4] - expected_q).max() <= 1e-6
        ref_local = np.concatenate([expected_q, (1 - t) * a[:, 4:].astype(np.float64)
                                    + t * b[:, 4:].astype(np.float64)], axis=1)
        ref = RJ.local_to_global(RS.qts_to_matrix(ref_local), skel.parents)
        glob = skelsimd.qts_local_to_global_matrix(blended, skel)
        assert np.abs(glob - ref).max() <= position_bound(clip.skeleton, ref)


# --- round trip -----------------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["ZYX", "XYZ", "yzx", "ZXY"])
@pytest.mark.parametrize("path", CLIPS, ids=os.path.basename)
def test_save_load_round_trip(path, order):
    for end_sites in (False, True):
        clip = skelsimd.load_bvh(path, end_sites=end_sites)
        buf = io.StringIO()
        skelsimd.save_bvh(clip, buf, order=order)
        again = skelsimd.load_bvh(text=buf.getvalue(), end_sites=end_sites)
        assert again.skeleton.names == clip.skeleton.names
        assert again.frame_time == pytest.approx(clip.frame_time, rel=1e-8)
        err = np.abs(again.global_positions().astype(np.float64) - clip.global_positions()).max()
        assert err <= bound("bvh.round_trip"), err
        # and against the float64 reference of the original file
        expected = RS.bvh_global_matrices(RS.read_bvh(read_text(path), end_sites=end_sites))
        assert np.abs(again.global_positions() - expected[..., 3]).max() <= bound("bvh.round_trip")


def test_save_writes_files_and_reorders(tmp_path):
    clip = skelsimd.data.load_example()
    bfs, perm, inverse = clip.reorder("breadth-first")
    assert not bfs.skeleton.is_depth_first
    path = tmp_path / "out.bvh"
    skelsimd.save_bvh(bfs, path)
    again = skelsimd.load_bvh(path)
    assert again.skeleton == clip.skeleton.reorder("depth-first")[0]
    err = np.abs(again.global_positions() - clip.global_positions()).max()
    assert err <= bound("bvh.round_trip")


@given(q=st.lists(st.floats(-1, 1), min_size=4, max_size=4), order=st.sampled_from(
    ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]), lock=st.sampled_from([None, 1.0, -1.0]))
@example(q=[0.0, 0.75, 0.75, 2e-07], order="YXZ", lock=None)   # cos(b) = 2.6e-7: near lock
@example(q=[0.0, 0.75, 0.75, 2e-12], order="XYZ", lock=None)
def test_rotation_to_euler_reconstructs_the_rotation(q, order, lock):
    q = np.asarray(q)
    if np.linalg.norm(q) < 1e-3:
        q = np.array([0.0, 0.0, 0.0, 1.0])
    r = T.quaternions_to_matrices(q / np.linalg.norm(q))
    if lock is not None:  # gimbal lock: middle angle +-90 degrees
        a, c = q[0] * 180, q[1] * 180
        r = RS.euler_matrix(order[0], a) @ RS.euler_matrix(order[1], 90 * lock) @ RS.euler_matrix(order[2], c)
    angles = np.degrees(B.rotation_to_euler(r, order))
    back = RS.euler_matrix(order[0], angles[0]) @ RS.euler_matrix(order[1], angles[1]) \
        @ RS.euler_matrix(order[2], angles[2])
    assert np.abs(back - r).max() <= 1e-12


@pytest.mark.parametrize("order", ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"])
def test_rotation_to_euler_is_exact_next_to_gimbal_lock(order):
    # middle angle 90 degrees minus 0 .. 1e-3 degrees: the band where the outer angles come from
    # entries of size cos(b); the rebuilt matrix must stay exact to a few ulps all the way in
    rng = np.random.default_rng(7)
    n = 600
    delta = np.concatenate([np.zeros(6), 10.0 ** -rng.uniform(3, 17, n - 6)])
    middle = np.where(rng.random(n) < 0.5, 90.0, -90.0) - np.sign(rng.random(n) - 0.5) * delta
    first, last = rng.uniform(-180, 180, n), rng.uniform(-180, 180, n)
    r = RS.euler_matrix(order[0], first) @ RS.euler_matrix(order[1], middle) \
        @ RS.euler_matrix(order[2], last)
    angles = np.degrees(B.rotation_to_euler(r, order))
    back = RS.euler_matrix(order[0], angles[:, 0]) @ RS.euler_matrix(order[1], angles[:, 1]) \
        @ RS.euler_matrix(order[2], angles[:, 2])
    assert np.abs(back - r).max() <= 1e-12
    assert np.all(np.abs(angles[:, 1]) <= 90.0)


# --- quirks, on synthetic files ------------------------------------------------------------------------

SMALL = """HIERARCHY
ROOT Hips
{
\tOFFSET 0 0 0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Spine
\t{
\t\tOFFSET 0.0 5.0 0.5
\t\tCHANNELS 3 Xrotation Yrotation Zrotation
\t\tJOINT Head
\t\t{
\t\t\tOFFSET 0 3 0
\t\t\tCHANNELS 3 Yrotation Zrotation Xrotation
\t\t\tEnd Site
\t\t\t{
\t\t\t\tOFFSET 0 0 0
\t\t\t}
\t\t}
\t}
\tJOINT Leg
\t{
\t\tOFFSET 1 -1 0
\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 -4 0
\t\t}
\t}
}
MOTION
Frames: 3
Frame Time: .0333333
1.0 2.0 3.0 10 20 30 -5 370.5 -190 45 0 0 2 -1 0.5 0 0 90
1e0 2.5E+00 -0.0 0 0 0 0 0 0 -45 0 0 1.5 -1 0 0 -90 0
0 0 0 -181 0 0 -0.0000 1e-3 2E1 0 0 179.5 1 -1 0 30 45 60
"""


def test_synthetic_file_against_the_reference(isa):
    for end_sites in (False, True):
        clip = skelsimd.load_bvh(text=SMALL, end_sites=end_sites)
        check_against_reference(clip, SMALL, end_sites)
    clip = skelsimd.load_bvh(text=SMALL)
    assert clip.skeleton.names == ("Hips", "Spine", "Head", "Leg")
    assert clip.channels[1] == ("Xrotation", "Yrotation", "Zrotation")
    # the six-channel non-root joint: its position channels replace the OFFSET
    assert np.array_equal(clip.local[:, 3, 4:7], [[2, -1, 0.5], [1.5, -1, 0], [1, -1, 0]])
    assert np.array_equal(clip.local[:, 1, 4:7], np.broadcast_to([0, 5, 0.5], (3, 3)))
    assert np.array_equal(clip.skeleton.offsets, [[0, 0, 0], [0, 5, 0.5], [0, 3, 0], [1, -1, 0]])


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r", "mixed"])
def test_line_endings_tabs_and_blank_lines(ending):
    lines = SMALL.split("\n")
    if ending == "mixed":
        text = "".join(ln + ("\r\n", "\n", "\r")[i % 3] for i, ln in enumerate(lines))
    else:
        text = ending.join(lines)
    text = text.replace("OFFSET 0.0 5.0 0.5", "OFFSET\t0.0\t5.0\t0.5   ").replace("MOTION", "\nMOTION")
    clip = skelsimd.load_bvh(text=text)
    assert np.array_equal(clip.local, skelsimd.load_bvh(text=SMALL).local)


def test_utf8_byte_order_mark(tmp_path):
    path = tmp_path / "bom.bvh"
    path.write_bytes(b"\xef\xbb\xbf" + SMALL.replace("\n", "\r\n").encode())
    expected = skelsimd.load_bvh(text=SMALL).local
    assert np.array_equal(skelsimd.load_bvh(path).local, expected)
    assert np.array_equal(skelsimd.load_bvh(text="\ufeff" + SMALL).local, expected)


def test_lenient_syntax():
    text = (SMALL.replace("ROOT Hips\n{", "root Hips {").replace("End Site\n\t\t\t{", "End Site {")
            .replace("Frames: 3", "Frames:\t3").replace("Frame Time: .0333333", "Frame Time:\t0.0333333")
            .replace("JOINT Spine", "JOINT Upper Spine:01"))
    clip = skelsimd.load_bvh(text=text)
    assert clip.skeleton.names[1] == "Upper Spine:01"
    assert np.array_equal(clip.local, skelsimd.load_bvh(text=SMALL).local)


def test_several_roots_partial_channels_and_zero_frames():
    text = """HIERARCHY
ROOT A
{
  OFFSET 0 0 0
  CHANNELS 2 Zposition Yrotation
  End Site
  {
    OFFSET 0 1 0
  }
}
ROOT B
{
  OFFSET 5 0 0
  CHANNELS 1 Xrotation
  JOINT C
  {
    OFFSET 0 0 2
    CHANNELS 0
  }
}
MOTION
Frames: 2
Frame Time: 0.5
3 90 180
-3 -90 0
"""
    clip = skelsimd.load_bvh(text=text)
    assert clip.skeleton.parents.tolist() == [-1, -1, 1]
    assert np.array_equal(clip.local[:, 0, 4:7], [[0, 0, 3], [0, 0, -3]])
    check_against_reference(clip, text, False)
    empty = skelsimd.load_bvh(text=text.replace("Frames: 2", "Frames: 0").split("3 90 180")[0])
    assert empty.local.shape == (0, 3, 8) and empty.frames == 0
    buf = io.StringIO()
    with pytest.raises(ValueError, match=r"^clip: expected at least one frame, got 0"):
        skelsimd.save_bvh(empty, buf)      # a BVH file's animation is its MOTION section
    assert buf.getvalue() == ""


def test_sources(tmp_path):
    path = skelsimd.data.example_path()
    expected = skelsimd.load_bvh(path).local
    raw = open(path, "rb").read()
    gz = tmp_path / "clip.bvh.gz"
    gz.write_bytes(gzip.compress(raw))
    for source in (pathlib.Path(path), raw, io.BytesIO(raw),
                   open(path, newline=""), str(gz), pathlib.Path(gz)):
        assert np.array_equal(skelsimd.load_bvh(source).local, expected)
    assert np.array_equal(skelsimd.load_bvh(text=raw.decode("latin-1")).local, expected)


def test_duplicate_names_are_renamed_with_a_warning():
    text = SMALL.replace("JOINT Leg", "JOINT Spine")
    with pytest.warns(UserWarning, match="line 20: joint name 'Spine' repeats"):
        clip = skelsimd.load_bvh(text=text)
    assert clip.skeleton.names == ("Hips", "Spine", "Head", "Spine#2")


def test_global_positions_of_a_known_pose():
    """A hand-checked pose: root at (1, 2, 3) rotated 90 degrees about Z, child offset (0, 5, 0)."""
    text = """HIERARCHY
ROOT R
{
OFFSET 0 0 0
CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
JOINT C
{
OFFSET 0 5 0
CHANNELS 3 Zrotation Yrotation Xrotation
End Site
{
OFFSET 2 0 0
}
}
}
MOTION
Frames: 1
Frame Time: 1
1 2 3 90 0 0 0 0 -90
"""
    clip = skelsimd.load_bvh(text=text, end_sites=True)
    pos = clip.global_positions()[0]
    # R_z(90) maps (0, 5, 0) to (-5, 0, 0); the end site: R_z(90) R_x(-90) (2, 0, 0) = (0, 2, 0)
    assert np.allclose(pos, [[1, 2, 3], [-4, 2, 3], [-4, 4, 3]], atol=1e-6)


def test_numpy_qts_to_matrix_formulation_against_the_reference(rng):
    """The NumPy float32 formulation the real-clip benchmark races (reference.quat)."""
    qts = np.empty((50, 7, 8), np.float32)
    qts[..., :4] = T.random_quaternions((50, 7), rng)
    qts[..., 4:7] = rng.uniform(-10, 10, (50, 7, 3))
    qts[..., 7] = rng.uniform(0.5, 2.0, (50, 7))
    got = qts_to_matrix_numpy32(qts)
    expected = RS.qts_to_matrix(qts)
    assert np.abs(got - expected).max() <= 4e-6 * 2.0
    out = np.empty_like(got)
    assert qts_to_matrix_numpy32(qts, out) is out and np.array_equal(out, got)


@pytest.mark.parametrize("order", ["breadth-first", "depth-first"])
def test_reorder_invariance_on_real_clips(isa, order):
    """Global poses of every frame are bit-identical after reorder and the inverse permutation."""
    for path in CLIPS:
        clip = skelsimd.load_bvh(path, end_sites=True)
        other, perm, inverse = clip.reorder(order)
        assert np.array_equal(other.local, clip.local[:, perm])
        assert np.array_equal(other.global_matrices()[:, inverse], clip.global_matrices())


NUMBER_FORMS = ["%.6f", "%.4f", "%.17g", "%.15g", "%e", "%.3E", "%g", "%+.2f", "%.0f", "%.9e"]


@given(values=st.lists(st.floats(-1e6, 1e6, allow_nan=False) | st.floats(-1e-30, 1e-30)
                       | st.sampled_from([0.0, -0.0, 1e-45, 3.4e38, -3.4e38]), min_size=1, max_size=12),
       forms=st.lists(st.sampled_from(NUMBER_FORMS), min_size=12, max_size=12),
       seps=st.lists(st.sampled_from([" ", "\t", "  ", " \t "]), min_size=12, max_size=12))
def test_motion_reader_against_python_float(values, forms, seps):
    """The C MOTION reader gives Python's correctly rounded float() for up to 15 significant
    digits with a decimal exponent in [-22, 22], and within 2 ulp otherwise."""
    tokens = [forms[i] % v for i, v in enumerate(values)]
    tokens = [t[1:] if t.startswith("0.") and i % 3 == 0 else t for i, t in enumerate(tokens)]  # ".5"
    line = "".join(seps[i] + t for i, t in enumerate(tokens)) + " \r\n"
    got = skelsimd._core._parse_motion(line.encode(), 0, 1, len(tokens), 1)[0]
    expected = np.array([float(t) for t in tokens])
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    close = np.abs(got - expected) <= 2 * np.spacing(np.abs(expected))
    assert close.all(), (tokens, got, expected)
    for token, g, e in zip(tokens, got, expected):
        mantissa, _, exponent = token.lower().lstrip("+-").partition("e")
        whole, _, fraction = mantissa.partition(".")
        digits = len((whole + fraction).lstrip("0"))
        exp10 = int(exponent or 0) - len(fraction)
        if digits <= 15 and -22 <= exp10 <= 22:
            assert g == e, (token, g, e)
