"""Bad inputs to compression: clear TypeError/ValueError naming the argument, nothing written;
corrupt, truncated or altered compressed bytes are a ValueError, never a crash."""
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import _core
from skelsimd import testing as T

from strategies import examples


@pytest.fixture(scope="module")
def clip():
    rng = np.random.default_rng(7)
    parents = T.random_parents(9, rng)
    local = T.random_motion(70, parents, rng, root_travel=20.0, scales=True)
    return local, parents


@pytest.fixture(scope="module")
def compressed(clip):
    local, parents = clip
    return skelsimd.compress(local, parents, sample_rate=30.0, precision=0.001)


@pytest.mark.parametrize("bad, message", [
    ((0, 0, 0), "local[0, 0, 0] = nan"), ((5, 3, 6), "local[5, 3, 6] = inf"),
    ((69, 8, 7), "local[69, 8, 7] = -inf")])
def test_non_finite_poses(clip, bad, message):
    local, parents = clip
    x = local.copy()
    x[bad] = {0: np.nan, 6: np.inf, 7: -np.inf}[bad[2]]
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        skelsimd.compress(x, parents, sample_rate=30)


@pytest.mark.parametrize("kw, exc, message", [
    (dict(precision=0.0), ValueError, "precision: expected a finite number > 0"),
    (dict(precision=-1e-3), ValueError, "precision"),
    (dict(precision=np.nan), ValueError, "precision"),
    (dict(precision=np.inf), ValueError, "precision"),
    (dict(precision="0.01"), TypeError, "precision: expected a real number"),
    (dict(precision=True), TypeError, "precision"),
    (dict(shell_distance=-1.0), ValueError, "shell_distance: expected a finite number >= 0"),
    (dict(shell_distance=np.nan), ValueError, "shell_distance"),
    (dict(sample_rate=0.0), ValueError, "sample_rate: expected a finite number > 0"),
    (dict(sample_rate=None), TypeError, "sample_rate: expected the frames per second"),
    (dict(sample_rate="30"), TypeError, "sample_rate"),
    (dict(segment_length=0), ValueError, "segment_length: expected 1 to 1024"),
    (dict(segment_length=1025), ValueError, "segment_length"),
    (dict(segment_length=16.0), TypeError, "segment_length: expected an int"),
    (dict(segment_length=True), TypeError, "segment_length"),
    (dict(segment_length=2**63), ValueError, "segment_length: expected 1 to 1024"),
    (dict(segment_length=-2**200), ValueError, "segment_length: expected 1 to 1024"),
    (dict(precision=10**400), ValueError, "precision: expected a finite number, got an int"),
    (dict(shell_distance=-10**400), ValueError, "shell_distance: expected a finite number"),
])
def test_bad_keywords(clip, kw, exc, message):
    local, parents = clip
    args = dict(sample_rate=30.0)
    args.update(kw)
    with pytest.raises(exc, match=message):
        skelsimd.compress(local, parents, **args)


def test_bad_shapes_and_skeletons(clip):
    local, parents = clip
    with pytest.raises(ValueError, match=r"local: expected shape \(F, J, 8\)"):
        skelsimd.compress(local[0], parents, sample_rate=30)
    with pytest.raises(ValueError, match=r"local: expected shape \(F, J, 8\)"):
        skelsimd.compress(local[..., :7], parents, sample_rate=30)
    with pytest.raises(ValueError, match="local: expected 1 to 2147483647 frames, got 0"):
        skelsimd.compress(local[:0], parents, sample_rate=30)
    with pytest.raises(TypeError, match="local: expected a real numeric array"):
        skelsimd.compress(local.astype(np.complex64), parents, sample_rate=30)
    with pytest.raises(TypeError, match="skeleton: expected a Skeleton or a parents array"):
        skelsimd.compress(local, sample_rate=30)
    with pytest.raises(ValueError, match=r"skeleton: expected 9 joints \(local.shape\[1\]\), got 8"):
        skelsimd.compress(local, parents[:8], sample_rate=30)
    with pytest.raises(ValueError, match="skeleton: expected 9 joints"):
        skelsimd.compress(local, skelsimd.Skeleton(np.arange(-1, 9) - 0), sample_rate=30)
    with pytest.raises(ValueError, match=r"parents\[2\] = 5"):
        bad = parents.copy()
        bad[2] = 5
        skelsimd.compress(local, bad, sample_rate=30)
    clip = skelsimd.data.load_example()
    with pytest.raises(ValueError, match="skeleton: a Clip carries its own skeleton"):
        skelsimd.compress(clip, parents)


def test_unreachable_precision_is_a_clear_error():
    rng = np.random.default_rng(8)
    parents = T.random_parents(5, rng)
    local = T.random_motion(40, parents, rng, translation=1000.0, root_travel=5000.0)
    with pytest.raises(ValueError, match=r"precision=1e-09: below what float32 poses can reproduce "
                                         r"for this clip \(the highest rates reach an error of"):
        skelsimd.compress(local, parents, sample_rate=30, precision=1e-9)


def test_sample_errors_write_nothing(compressed):
    c = compressed
    with pytest.raises(ValueError, match="t: expected a time in seconds, got nan"):
        c.sample(np.nan)
    with pytest.raises(TypeError, match="t: expected a real number"):
        c.sample("1")
    with pytest.raises(TypeError, match="use sample_many for arrays"):
        c.sample(np.array([0.1, 0.2]))
    with pytest.raises(TypeError, match="missing required argument 't'"):
        c.sample()
    with pytest.raises(TypeError, match="unexpected keyword argument 'time'"):
        c.sample(time=0.1)
    out = np.full((9, 8), 7.0, np.float32)
    with pytest.raises(ValueError, match="times: expected times in seconds, got nan at flat index 1"):
        c.sample_many([0.1, np.nan])
    for bad, exc in [(np.zeros((9, 7), np.float32), ValueError), (np.zeros((9, 8)), TypeError),
                     (np.zeros((8, 9), np.float32).T, ValueError)]:
        with pytest.raises(exc, match="out"):
            c.sample(0.5, out=bad)
    with pytest.raises(ValueError, match="out"):
        c.sample_many([0.1, 0.2], out=np.zeros((3, 9, 8), np.float32))
    with pytest.raises(ValueError, match="out"):
        c.decompress(out=np.zeros((69, 9, 8), np.float32))
    with pytest.raises(ValueError, match="t: expected a time"):
        c.sample(np.nan, out)
    with pytest.raises(ValueError, match="t: expected a time in seconds, got an int beyond"):
        c.sample(10**400, out)
    assert np.all(out == 7.0)
    assert np.array_equal(c.sample(10**300), c.sample(c.duration))    # clamped, as floats are
    ro = np.zeros((9, 8), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out"):
        c.sample(0.1, out=ro)


def test_clip_error_errors(clip):
    local, parents = clip
    with pytest.raises(ValueError, match=r"decoded_local: expected the shape of raw_local"):
        skelsimd.clip_error(local, local[:-1], parents)
    with pytest.raises(ValueError, match=r"raw_local: expected shape \(..., J, 8\)"):
        skelsimd.clip_error(local[..., :4], local[..., :4], parents)
    with pytest.raises(ValueError, match="parents"):
        skelsimd.clip_error(local, local, parents[:5])
    with pytest.raises(ValueError, match="shell_distance"):
        skelsimd.clip_error(local, local, parents, shell_distance=-2.0)
    with pytest.raises(TypeError, match="raw_local"):
        skelsimd.clip_error(np.array([["a"] * 8]), local[0], parents[:1])


# --- corrupt bytes ------------------------------------------------------------------------------

def recrc(body):
    """Bytes with a valid CRC-32: the container's checksum can no longer tell."""
    return body + struct.pack("<I", zlib.crc32(body))


def outcome(b):
    """'ok' (a clip that decodes without crashing) or 'ValueError'; anything else fails."""
    try:
        c = skelsimd.CompressedClip.from_bytes(b)
    except ValueError:
        return "ValueError"
    c.decompress()
    c.sample_many(np.linspace(-1.0, c.duration + 1.0, 7))
    return "ok"


def test_from_bytes_rejects_garbage(compressed):
    b = compressed.to_bytes()
    assert outcome(b) == "ok"
    with pytest.raises(TypeError, match="b: expected bytes"):
        skelsimd.CompressedClip.from_bytes("not bytes")
    for n in [0, 1, 7, 8, 12, len(b) // 2, len(b) - 5, len(b) - 1]:
        with pytest.raises(ValueError):
            skelsimd.CompressedClip.from_bytes(b[:n])
    with pytest.raises(ValueError, match="bad magic"):
        skelsimd.CompressedClip.from_bytes(b"X" + b[1:])
    with pytest.raises(ValueError, match="checksum"):
        skelsimd.CompressedClip.from_bytes(b[:100] + bytes([b[100] ^ 1]) + b[101:])
    with pytest.raises(ValueError, match="format version"):
        skelsimd.CompressedClip.from_bytes(recrc(b[:8] + struct.pack("<I", 99) + b[12:-4]))
    with pytest.raises(ValueError):
        skelsimd.CompressedClip.from_bytes(recrc(b[:-4] + b"extra"))
    with pytest.raises(TypeError, match="data: expected bytes"):
        _core.CompressedClipBase(bytearray(compressed._data))


@examples(200)
@given(data=st.data())
def test_mutated_bytes_raise_value_error_or_decode(compressed, data):
    """Any mutation of the container (with a recomputed checksum, so the parser itself is
    exercised) or of the raw compressed data: a ValueError or a clip that decodes; never a
    crash, a hang or a huge allocation."""
    b = bytearray(compressed.to_bytes()[:-4])
    blob_at = len(b) - len(compressed._data)
    for _ in range(data.draw(st.integers(1, 4))):
        where = data.draw(st.sampled_from(["header", "blob-header", "anywhere"]))
        if where == "header":
            i = data.draw(st.integers(0, blob_at - 1))
        elif where == "blob-header":
            i = blob_at + data.draw(st.integers(0, min(400, len(compressed._data) - 1)))
        else:
            i = data.draw(st.integers(0, len(b) - 1))
        b[i] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(0, len(b)))
        b = b[:cut]
    assert outcome(recrc(bytes(b))) in ("ok", "ValueError")


@examples(200)
@given(data=st.data())
def test_mutated_blob_validation(compressed, data):
    """The compressed data alone (CompressedClipBase validates it in C): random byte changes,
    u32 fields set to extreme values, truncation and extension."""
    b = bytearray(compressed._data)
    kind = data.draw(st.sampled_from(["byte", "u32", "truncate", "extend"]))
    if kind == "byte":
        b[data.draw(st.integers(0, len(b) - 1))] = data.draw(st.integers(0, 255))
    elif kind == "u32":
        at = data.draw(st.integers(0, len(b) - 4))
        b[at:at + 4] = struct.pack("<I", data.draw(st.sampled_from(
            [0, 1, 2, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, len(b), 65536])))
    elif kind == "truncate":
        b = b[:data.draw(st.integers(0, len(b) - 1))]
    else:
        b += bytes(data.draw(st.integers(1, 64)))
    try:
        c = _core.CompressedClipBase(bytes(b))
    except ValueError as exc:
        assert str(exc).startswith("compressed clip data: ")
        return
    c.decompress()
    c.sample_many(np.linspace(0.0, 3.0, 5))


@pytest.mark.parametrize("kw, exc, message", [
    (dict(precision=10**400), ValueError, "precision: expected a positive number, got an int"),
    (dict(precision=0.0), ValueError, "precision: expected a positive number, got 0.0"),
    (dict(precision=np.nan), ValueError, "precision"),
    (dict(precision="0.01"), TypeError, "precision: expected a real number, got str"),
    (dict(shell_distance=-1.0), ValueError, "shell_distance: expected a number >= 0"),
    (dict(shell_distance=None), TypeError, "shell_distance"),
    (dict(max_error=np.inf), ValueError, "max_error"),
    (dict(repaired_segments=1.5), TypeError, "repaired_segments: expected an int"),
    (dict(repaired_segments=-1), ValueError, "repaired_segments: expected 0 to"),
    (dict(repaired_segments=2**70), ValueError, "repaired_segments"),
    (dict(end_site=[1, 0]), ValueError, r"end_site: expected 9 flags \(bool\)"),
    (dict(end_site=np.full(9, 2)), ValueError, "end_site"),
])
def test_constructor_keywords(compressed, kw, exc, message):
    """CompressedClip(data, skeleton, ...) (what from_bytes and compress call) names a bad
    keyword; an int beyond the float range is a ValueError, not an OverflowError."""
    args = dict(precision=0.001, shell_distance=3.0, max_error=0.0)
    args.update(kw)
    with pytest.raises(exc, match=message):
        skelsimd.CompressedClip(compressed._data, compressed.skeleton, **args)
    ok = skelsimd.CompressedClip(compressed._data, compressed.skeleton, precision=0.001,
                                 shell_distance=3.0, max_error=0.0, end_site=np.ones(9, bool))
    assert ok.end_site.all() and np.array_equal(ok.decompress(), compressed.decompress())


def test_sample_many_out_overlapping_times_is_refused():
    """out sharing memory with times (partly) is a ValueError before anything is written: the
    times are never overwritten before they are read (float32 and float64 times alike)."""
    local = T.random_motion(5, np.array([-1, 0]), np.random.default_rng(3))
    cc = skelsimd.compress(local, [-1, 0], sample_rate=30)
    for dtype, size in ((np.float32, 64), (np.float64, 32)):
        buf = np.zeros(size, dtype)
        times = buf[:3]
        times[:] = [0.01, 0.02, 0.03]
        before = buf.copy()
        if dtype == np.float32:
            out = buf[1:49].reshape(3, 2, 8)
        else:       # a float32 view of float64 memory
            out = buf.view(np.float32)[2:50].reshape(3, 2, 8)
        with pytest.raises(ValueError, match="out"):
            cc.sample_many(times, out)
        assert np.array_equal(buf, before)
    apart = np.zeros((3, 2, 8), np.float32)
    assert np.array_equal(cc.sample_many([0.01, 0.02, 0.03], apart), cc.sample_many([0.01, 0.02, 0.03]))


@pytest.mark.parametrize("rate", [5e-324, 1e-308])
def test_tiny_sample_rate_is_refused(rate):
    """A positive sample rate whose frame time or duration is infinite is refused, in compress
    and in from_bytes."""
    local = T.random_motion(5, np.array([-1, 0]), np.random.default_rng(3))
    with pytest.raises(ValueError, match="sample_rate: expected a rate whose frame time"):
        skelsimd.compress(local, [-1, 0], sample_rate=rate)
    good = skelsimd.compress(local, [-1, 0], sample_rate=30)
    data = good._data
    blob = bytearray(data)
    struct.pack_into("<d", blob, 24, rate)
    with pytest.raises(ValueError, match="infinite frame time or duration$"):
        _core.CompressedClipBase(bytes(blob))


def test_sample_loop(compressed):
    """loop=True repeats the clip with period num_frames / sample_rate, the last frame blending
    into the first by nlerp, as Clip.sample(loop=True, method="nlerp") does."""
    clip = compressed.to_clip()
    period = compressed.num_frames / compressed.sample_rate
    for t in (0.0, 0.013, period - 0.5 / compressed.sample_rate, period, period + 0.013,
              -0.013, 3 * period + 0.2 / compressed.sample_rate):
        got = compressed.sample(t, loop=True)
        np.testing.assert_allclose(got, clip.sample(t, loop=True, method="nlerp"), atol=2e-6)
    t = period - 0.5 / compressed.sample_rate
    assert not np.array_equal(compressed.sample(t, loop=True), compressed.sample(t))
    assert np.array_equal(compressed.sample(0.01, loop=False), compressed.sample(0.01))
    with pytest.raises(ValueError, match="finite time"):
        compressed.sample(float("inf"), loop=True)
    with pytest.raises(TypeError, match="at most 2 positional"):
        compressed.sample(0.0, None, True)


def test_methods_have_signatures_and_say_what_they_do(compressed):
    import inspect
    assert str(inspect.signature(compressed.sample)) == "(t, out=None, *, loop=False)"
    assert str(inspect.signature(compressed.sample_many)) == "(times, out=None)"
    assert str(inspect.signature(compressed.decompress)) == "(out=None)"
    assert "clamped" in type(compressed).sample.__doc__
    assert "clamped" in type(compressed).sample_many.__doc__


def test_sample_many_reversed_times_beside_out(compressed):
    """A reversed view of times occupies the bytes below its data pointer: an out just above
    those bytes does not overlap it (the overlap check uses the elements' real extent), while
    an out over them still does."""
    c = compressed
    n, joints = 10, 9
    buf = np.zeros(n + n * joints * 4, np.float64)           # times, then room for out
    times = buf[:n][::-1]
    times[:] = np.linspace(0, c.duration, n)
    out = buf[n:].view(np.float32).reshape(n, joints, 8)
    got = c.sample_many(times, out=out)
    assert got is out and np.array_equal(out, c.sample_many(np.ascontiguousarray(times)))
    with pytest.raises(ValueError, match="overlaps times"):
        c.sample_many(buf[n * joints * 4:][::-1], out=out)
