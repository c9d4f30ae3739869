"""One test per bad-input rule of the rotation conversions: the exception type, a message naming
the argument (and the expected and actual), and `out` left untouched."""
import numpy as np
import pytest

import skelsimd
from skelsimd import testing as T
from strategies import SENTINEL, fresh_out, untouched

RNG = np.random.default_rng(0)
Q = T.random_quaternions(6, RNG).astype(np.float32)
ANGLES = RNG.uniform(-3, 3, (6, 3)).astype(np.float32)
MAT = skelsimd.quat_to_matrix(Q)
SIXD = skelsimd.matrix_to_sixd(MAT)

# name -> (call(first operand, out), a good first operand, its argument name, layout, result shape)
CALLS = {
    "euler_to_quat": (lambda x, out: skelsimd.euler_to_quat(x, "xyz", out=out), ANGLES, "angles", "(..., 3)", (6, 4)),
    "quat_to_euler": (lambda x, out: skelsimd.quat_to_euler(x, "ZXZ", out=out), Q, "q", "(..., 4)", (6, 3)),
    "rotvec_to_quat": (lambda x, out: skelsimd.rotvec_to_quat(x, out), ANGLES, "rotvec", "(..., 3)", (6, 4)),
    "quat_to_rotvec": (lambda x, out: skelsimd.quat_to_rotvec(x, out), Q, "q", "(..., 4)", (6, 3)),
    "matrix_to_sixd": (lambda x, out: skelsimd.matrix_to_sixd(x, out), MAT, "m", "(..., 3, 3)", (6, 6)),
    "sixd_to_matrix": (lambda x, out: skelsimd.sixd_to_matrix(x, out), SIXD, "sixd", "(..., 6)", (6, 3, 3)),
    "quat_to_sixd": (lambda x, out: skelsimd.quat_to_sixd(x, out), Q, "q", "(..., 4)", (6, 6)),
    "sixd_to_quat": (lambda x, out: skelsimd.sixd_to_quat(x, out), SIXD, "sixd", "(..., 6)", (6, 4)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_good_call_works(name):
    call, good, _, _, shape = CALLS[name]
    out = fresh_out(shape)
    assert call(good, out) is out and not untouched(out)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad, words", [("complex", ["complex64"]), ("strings", ["<U1"]), ("object", ["expected"])])
def test_bad_dtype(name, bad, words):
    call, good, arg, _, shape = CALLS[name]
    value = {"complex": good.astype(np.complex64), "strings": np.full(good.shape, "a"), "object": object()}[bad]
    out = fresh_out(shape)
    with pytest.raises(TypeError) as info:
        call(value, out)
    msg = str(info.value)
    assert msg.startswith(arg + ":") and all(w in msg for w in words), msg
    assert untouched(out)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_trailing_shape(name):
    call, good, arg, layout, shape = CALLS[name]
    bad = np.zeros(good.shape[:-1] + (good.shape[-1] + 1,), np.float32)
    out = fresh_out(shape)
    with pytest.raises(ValueError) as info:
        call(bad, out)
    msg = str(info.value)
    assert msg.startswith(arg + ":") and layout in msg and str(bad.shape) in msg, msg
    assert untouched(out)
    with pytest.raises(ValueError, match=arg):
        call(np.float32(1.0), None)                       # a scalar has no trailing axis


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_out(name):
    call, good, _, _, shape = CALLS[name]
    with pytest.raises(TypeError, match="out"):
        call(good, np.zeros(shape, np.float64))
    with pytest.raises(TypeError, match="out"):
        call(good, [[0.0] * shape[-1]] * shape[0])
    wrong = fresh_out(shape[:-1] + (shape[-1] + 1,))
    with pytest.raises(ValueError, match="out"):
        call(good, wrong)
    assert untouched(wrong)
    strided = fresh_out(shape[:-1] + (2 * shape[-1],))[..., ::2]
    with pytest.raises(ValueError, match="out"):
        call(good, strided)
    assert untouched(strided)
    readonly = fresh_out(shape)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="out"):
        call(good, readonly)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_overlapping_the_input(name):
    call, good, arg, _, shape = CALLS[name]
    size = int(np.prod(shape))
    buf = np.full(size + good.size, SENTINEL, np.float32)
    x = buf[:good.size].reshape(good.shape)
    x[...] = good
    before = buf.copy()
    out = buf[good.size - 1: good.size - 1 + size].reshape(shape) if good.size - 1 + size <= buf.size else None
    if out is None:
        pytest.skip("no partial overlap possible")
    with pytest.raises(ValueError) as info:
        call(x, out)
    assert "out" in str(info.value) and arg in str(info.value)
    assert np.array_equal(buf, before)


@pytest.mark.parametrize("seq, exc, words", [
    (None, TypeError, ["seq", "str", "NoneType"]),
    (["x", "y", "z"], TypeError, ["seq", "list"]),
    (b"xyz", TypeError, ["seq", "bytes"]),
    ("xy", ValueError, ["seq", "3 axes", "'xy'"]),
    ("xyzx", ValueError, ["seq", "3 axes"]),
    ("", ValueError, ["seq", "3 axes"]),
    ("xYz", ValueError, ["seq", "lowercase", "uppercase", "'xYz'"]),
    ("xyw", ValueError, ["seq", "'xyw'"]),
    ("abc", ValueError, ["seq", "'abc'"]),
    ("xxy", ValueError, ["seq", "consecutive", "'xxy'"]),
    ("ZYY", ValueError, ["seq", "consecutive"]),
    ("x y", ValueError, ["seq"]),
])
@pytest.mark.parametrize("func", ["euler_to_quat", "quat_to_euler"])
def test_bad_seq(func, seq, exc, words):
    out = fresh_out((6, 4) if func == "euler_to_quat" else (6, 3))
    with pytest.raises(exc) as info:
        if func == "euler_to_quat":
            skelsimd.euler_to_quat(ANGLES, seq, out=out)
        else:
            skelsimd.quat_to_euler(Q, seq, out=out)
    msg = str(info.value)
    assert all(w in msg for w in words), msg
    assert untouched(out)


class NoTruth:
    def __bool__(self):
        raise RuntimeError("no truth value")


@pytest.mark.parametrize("call", [
    lambda out, v: skelsimd.euler_to_quat(ANGLES, "xyz", degrees=v, out=out),
    lambda out, v: skelsimd.rotvec_to_quat(ANGLES, out, degrees=v),
])
def test_bad_flags(call):
    out = fresh_out((6, 4))
    with pytest.raises(TypeError, match="degrees"):
        call(out, NoTruth())
    assert untouched(out)
    with pytest.raises(TypeError, match="scalar_first"):
        skelsimd.quat_to_sixd(Q, out=fresh_out((6, 6)), scalar_first=NoTruth())


@pytest.mark.parametrize("layout, exc", [("cols", ValueError), ("ROWS", ValueError), (1, TypeError), (b"rows", TypeError)])
@pytest.mark.parametrize("name", ["matrix_to_sixd", "sixd_to_matrix", "quat_to_sixd", "sixd_to_quat"])
def test_bad_layout(name, layout, exc):
    _, good, _, _, shape = CALLS[name]
    fn = getattr(skelsimd, name)
    out = fresh_out(shape)
    with pytest.raises(exc) as info:
        fn(good, out, layout=layout)
    msg = str(info.value)
    assert msg.startswith("layout:"), msg
    if exc is ValueError:
        assert "'columns', 'rows'" in msg
    assert untouched(out)


def test_keywords_are_keyword_only():
    with pytest.raises(TypeError):
        skelsimd.euler_to_quat(ANGLES, "xyz", True)          # degrees must be named (SciPy's too)
    with pytest.raises(TypeError):
        skelsimd.quat_to_euler(Q, "xyz", True)
    with pytest.raises(TypeError):
        skelsimd.sixd_to_matrix(SIXD, None, "rows")


def test_quat_to_euler_suppress_warnings_is_checked_before_anything_is_written():
    """A value with no truth value (a 2-element array) is a TypeError naming the argument, and
    out is untouched (a release fuzz run found it evaluated after the kernel had written)."""
    q = np.array([0.0, 0.0, 0.0, 1.0], np.float32)
    out = fresh_out((3,))
    with pytest.raises(TypeError, match="suppress_warnings: expected a bool"):
        skelsimd.quat_to_euler(q, "XYX", suppress_warnings=np.array([True, False]), out=out)
    assert untouched(out)
    skelsimd.quat_to_euler(q, "XYX", suppress_warnings=np.True_, out=out)   # a NumPy bool is fine
    assert np.all(np.isfinite(out))
