"""Rotation conversions (Euler angles, rotation vectors, 6D) against SciPy's Rotation and the
float64 references, on every SIMD variant: all 24 Euler sequences, gimbal lock and its
neighbourhood, the exponential and logarithm maps near 0 and near pi, the 6D layouts (PyTorch3D's
rows included), round trips and the documented bounds (every variant against scalar, bit for bit:
tests/test_bit_identity.py)."""
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd import testing as T
from skelsimd.bounds import bound
from skelsimd.reference import convert as RC
from skelsimd.reference import quat as RQ
from strategies import BATCH_SHAPES, LAYOUTS, unit_quaternions as unit, with_layout

Rotation = pytest.importorskip("scipy.spatial.transform").Rotation

TAIT_BRYAN = [a + b + c for a in "xyz" for b in "xyz" for c in "xyz" if len({a, b, c}) == 3]
PROPER = [a + b + a for a in "xyz" for b in "xyz" if a != b]
SEQS = [s for base in TAIT_BRYAN + PROPER for s in (base, base.upper())]

# documented bounds (the table in skelsimd/bounds.py)
EULER_TO_QUAT = bound("euler_to_quat")
QUAT_TO_EULER = bound("quat_to_euler")
QUAT_TO_EULER_DEG = bound("quat_to_euler.degrees")
ROTVEC_TO_QUAT = bound("rotvec_to_quat")
QUAT_TO_ROTVEC = bound("quat_to_rotvec")          # times max(1, angle)
SIXD_TO_MATRIX = bound("sixd_to_matrix")
QUAT_TO_SIXD = bound("quat_to_sixd")
SIXD_TO_QUAT = bound("quat_to_sixd")

GIMBAL_MESSAGE = "Gimbal lock detected. Setting third angle to zero"


def scipy_euler(q, seq, degrees=False):
    """SciPy's as_euler of float32 quaternions (in float64), its warning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Rotation.from_quat(np.asarray(q, np.float64).reshape(-1, 4)).as_euler(
            seq, degrees=degrees).reshape(np.shape(q)[:-1] + (3,))


def is_proper(seq):
    return seq[0].lower() == seq[2].lower()


def lock_angles(seq, n, rng, offsets):
    """Angles (float64) whose middle angle is at one of the lock values of `seq` moved by the
    given offsets into its valid range."""
    ends = np.array([0.0, np.pi] if is_proper(seq) else [np.pi / 2, -np.pi / 2])
    a = rng.uniform(-np.pi, np.pi, (n, 3))
    end = ends[rng.integers(0, 2, n)]
    inward = np.where(end > 1.0, -1.0, 1.0) if is_proper(seq) else -np.sign(end)
    a[:, 1] = end + inward * rng.choice(offsets, n)
    return a


# --- references against SciPy ------------------------------------------------------------------

@pytest.mark.parametrize("seq", SEQS)
def test_references_are_scipy(seq, rng):
    """The float64 references reproduce SciPy (the kernels are then tested against both)."""
    a = rng.uniform(-4, 4, (500, 3))
    assert np.abs(RC.euler_to_quat(a, seq) - Rotation.from_euler(seq, a).as_quat()).max() <= 1e-14
    q = T.random_quaternions(500, rng)
    ql = RC.euler_to_quat(lock_angles(seq, 200, rng, [0.0, 1e-9, 5e-8, 2e-7, 1e-4]), seq)
    for x in (q, ql):
        assert RC.angle_error(RC.quat_to_euler(x, seq), scipy_euler(x, seq)).max() <= 1e-13
    v = T.random_quaternions(300, rng)[:, :3] * 3
    assert np.abs(RC.rotvec_to_quat(v) - Rotation.from_rotvec(v).as_quat()).max() <= 1e-15
    assert np.abs(RC.quat_to_rotvec(q) - Rotation.from_quat(q).as_rotvec()).max() <= 1e-14


# --- euler_to_quat -------------------------------------------------------------------------------

@pytest.mark.parametrize("seq", SEQS)
def test_euler_to_quat_is_scipy(isa, seq, rng):
    a = rng.uniform(-np.pi, np.pi, (4001, 3)).astype(np.float32)
    got = skelsimd.euler_to_quat(a, seq)
    assert got.shape == (4001, 4) and got.dtype == np.float32
    # the same quaternion as SciPy, sign included
    assert np.abs(got - Rotation.from_euler(seq, a.astype(np.float64)).as_quat()).max() <= EULER_TO_QUAT
    d = rng.uniform(-720, 720, (1001, 3)).astype(np.float32)
    got = skelsimd.euler_to_quat(d, seq, degrees=True)
    assert np.abs(got - Rotation.from_euler(seq, d.astype(np.float64), degrees=True).as_quat()).max() <= EULER_TO_QUAT


def test_euler_to_quat_bound(isa, rng):
    for seq in ("xyz", "ZYX", "ZXZ", "yxy"):
        a = rng.uniform(-np.pi, np.pi, (200_000, 3)).astype(np.float32)
        assert np.abs(skelsimd.euler_to_quat(a, seq) - RC.euler_to_quat(a, seq)).max() <= EULER_TO_QUAT


@pytest.mark.parametrize("degrees", [False, True])
def test_euler_to_quat_any_magnitude(isa, rng, degrees):
    """Angles far outside a turn: reduced exactly (degrees) or by Cody-Waite up to 6000 rad of
    half angle, then in double; inf/NaN give NaN."""
    lo, hi = (1e3, 1e9) if degrees else (4.0, 1e8)
    a = (10.0 ** rng.uniform(np.log10(lo), np.log10(hi), (3000, 3)) * rng.choice([-1, 1], (3000, 3))).astype(np.float32)
    a[:10] = [720.0, -1080.0, 3600.0] if degrees else [4 * np.pi, -6 * np.pi, 12000.0]
    got = skelsimd.euler_to_quat(a, "zyx", degrees=degrees)
    assert np.abs(got - RC.euler_to_quat(a, "zyx", degrees=degrees)).max() <= EULER_TO_QUAT
    bad = np.array([[np.inf, 0, 0], [0, np.nan, 0], [0, 0, -np.inf]], np.float32)
    assert np.isnan(skelsimd.euler_to_quat(bad, "xyz", degrees=degrees)).all()


def test_euler_to_quat_zero_and_scalar_first(isa, rng):
    assert np.array_equal(skelsimd.euler_to_quat(np.zeros((5, 3)), "XYZ"), np.tile([0, 0, 0, 1], (5, 1)))
    a = rng.uniform(-3, 3, (37, 3)).astype(np.float32)
    q = skelsimd.euler_to_quat(a, "zxy")
    assert np.array_equal(skelsimd.euler_to_quat(a, "zxy", scalar_first=True), q[:, [3, 0, 1, 2]])
    # one angle: the elementary rotation exactly as SciPy gives it
    one = skelsimd.euler_to_quat([0.5, 0.0, 0.0], "xyz")
    assert one.shape == (4,)
    assert np.abs(one - [np.sin(0.25), 0, 0, np.cos(0.25)]).max() <= 6e-8


# --- quat_to_euler -------------------------------------------------------------------------------

@pytest.mark.parametrize("seq", SEQS)
def test_quat_to_euler_is_scipy(isa, seq, rng):
    q = unit(4001, rng)
    got = skelsimd.quat_to_euler(q, seq, suppress_warnings=True)
    assert got.shape == (4001, 3) and got.dtype == np.float32
    assert RC.angle_error(got, scipy_euler(q, seq)).max() <= QUAT_TO_EULER
    got = skelsimd.quat_to_euler(q, seq, degrees=True, suppress_warnings=True)
    assert RC.angle_error(got, scipy_euler(q, seq, degrees=True), degrees=True).max() <= QUAT_TO_EULER_DEG
    # ranges: middle angle in [-pi/2, pi/2] (Tait-Bryan) or [0, pi] (proper), others in [-pi, pi]
    pi = np.float32(np.pi)
    got = skelsimd.quat_to_euler(q, seq, suppress_warnings=True)
    assert (np.abs(got[:, [0, 2]]) <= pi).all()
    if is_proper(seq):
        assert ((got[:, 1] >= 0) & (got[:, 1] <= pi)).all()
    else:
        assert (np.abs(got[:, 1]) <= np.float32(np.pi / 2)).all()


def test_quat_to_euler_bound(isa, rng):
    q = unit(200_000, rng)
    for seq in ("xyz", "ZYX", "ZXZ", "yxy"):
        got = skelsimd.quat_to_euler(q, seq, suppress_warnings=True)
        assert RC.angle_error(got, RC.quat_to_euler(q, seq)).max() <= QUAT_TO_EULER


@pytest.mark.parametrize("seq", SEQS)
def test_quat_to_euler_gimbal_lock_as_scipy(isa, seq, rng):
    """In and around gimbal lock (middle angle from exactly at a lock value to 1e-3 away,
    straddling SciPy's 1e-7 threshold): the same angles as SciPy, which sets the third angle to
    0 when locked, and the same lock decisions."""
    offsets = [0.0, 1e-12, 1e-9, 3e-8, 4.9e-8, 9e-8, 1.3e-7, 3e-7, 1e-6, 1e-4, 1e-3]
    a = lock_angles(seq, 3000, rng, offsets)
    q = RC.euler_to_quat(a, seq).astype(np.float32)
    got = skelsimd.quat_to_euler(q, seq, suppress_warnings=True)
    assert RC.angle_error(got, scipy_euler(q, seq)).max() <= QUAT_TO_EULER
    ref, locked = RC.quat_to_euler(q, seq, return_locked=True)
    assert 0 < locked.sum() < len(q)
    assert (got[locked, 2] == 0).all()
    # the rotation is always right, locked or not
    back = skelsimd.euler_to_quat(got, seq)
    assert RQ.same_rotation_error(back, q).max() <= 1e-6


def test_gimbal_lock_decisions_match_scipy_per_rotation(isa, rng):
    """SciPy warns once per call when any rotation is locked: called one rotation at a time it
    tells which ones are; the kernel warns for exactly those."""
    for seq in ("xyz", "ZXZ", "YXY", "zyx"):
        a = lock_angles(seq, 60, rng, [0.0, 2e-8, 4e-8, 6e-8, 8e-8, 1.2e-7, 2e-7])
        q = RC.euler_to_quat(a, seq).astype(np.float32)
        for one in q:
            with warnings.catch_warnings(record=True) as w_scipy:
                warnings.simplefilter("always")
                Rotation.from_quat(one.astype(np.float64)).as_euler(seq)
            with warnings.catch_warnings(record=True) as w_ours:
                warnings.simplefilter("always")
                skelsimd.quat_to_euler(one, seq)
            assert len(w_scipy) == len(w_ours) <= 1
            if w_ours:
                assert w_ours[0].category is UserWarning
                assert str(w_ours[0].message) == str(w_scipy[0].message)
                assert str(w_ours[0].message).startswith(GIMBAL_MESSAGE)


def test_gimbal_warning_once_and_suppressed(isa):
    q = skelsimd.euler_to_quat([[0.3, 0.0, 0.2], [0.1, np.pi / 2, 0.0], [0.4, 0.5, 0.6]], "ZXZ")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = skelsimd.quat_to_euler(q, "ZXZ")
        assert len(w) == 1 and issubclass(w[0].category, UserWarning)
        assert w[0].filename == __file__                    # points at the caller
    assert got[0, 2] == 0 and abs(got[0, 0] - 0.5) <= 2e-7 and got[0, 1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skelsimd.quat_to_euler(q, "ZXZ", suppress_warnings=True)
        skelsimd.quat_to_euler(q[2:], "ZXZ")                  # nothing locked: no warning
        skelsimd.quat_to_euler(np.zeros(4), "ZXZ")            # zero quaternion: identity, no warning


def test_quat_to_euler_any_scale_zero_nan(isa, rng):
    q = unit(203, rng)
    ref = skelsimd.quat_to_euler(q, "XYZ", suppress_warnings=True)
    for scale in (np.float32(2.0 ** 70), np.float32(2.0 ** -70), np.float32(-0.5)):
        assert np.array_equal(skelsimd.quat_to_euler(q * scale, "XYZ", suppress_warnings=True), ref)
    for scale in (3.0, 1e-25, 1e25):
        got = skelsimd.quat_to_euler((q * scale).astype(np.float32), "XYZ", suppress_warnings=True)
        assert RC.angle_error(got, RC.quat_to_euler(q, "XYZ")).max() <= QUAT_TO_EULER
    special = q[:6].copy()
    special[0] = 0
    special[1, 2] = np.nan
    special[2, 0] = np.inf
    special[3] = [1e-40, 0, 0, 0]                               # a denormal: rescaled exactly
    got = skelsimd.quat_to_euler(special, "zyx", suppress_warnings=True)
    assert np.array_equal(got[0], [0, 0, 0])
    assert np.isnan(got[1:3]).all()
    assert RC.angle_error(got[3], RC.quat_to_euler([1, 0, 0, 0], "zyx")).max() <= QUAT_TO_EULER
    assert RC.angle_error(got[4:], RC.quat_to_euler(special[4:], "zyx")).max() <= QUAT_TO_EULER


@pytest.mark.parametrize("seq", ["xyz", "ZYX", "ZXZ", "xzx"])
def test_euler_round_trips(isa, seq, rng):
    a = rng.uniform(-np.pi, np.pi, (5000, 3))
    a[:, 1] = rng.uniform(0.01, np.pi - 0.01, 5000) if is_proper(seq) else rng.uniform(-1.55, 1.55, 5000)
    a = a.astype(np.float32)
    back = skelsimd.quat_to_euler(skelsimd.euler_to_quat(a, seq), seq)
    # angles come back (away from the lock, where they are well conditioned)
    assert RC.angle_error(back, a).max() <= 2e-5
    q = unit(5000, rng)
    again = skelsimd.euler_to_quat(skelsimd.quat_to_euler(q, seq, suppress_warnings=True), seq)
    assert RQ.same_rotation_error(again, q).max() <= 1e-6


def test_quat_to_euler_scalar_first(isa, rng):
    q = unit(41, rng)
    assert np.array_equal(skelsimd.quat_to_euler(q[:, [3, 0, 1, 2]], "YZX", scalar_first=True),
                          skelsimd.quat_to_euler(q, "YZX"))


# --- rotation vectors ------------------------------------------------------------------------------

def rotvecs(n, rng, lo=0.0, hi=np.pi):
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    return (axis * rng.uniform(lo, hi, (n, 1))).astype(np.float32)


def test_rotvec_to_quat_is_scipy(isa, rng):
    v = rotvecs(20_000, rng)
    got = skelsimd.rotvec_to_quat(v)
    assert np.abs(got - Rotation.from_rotvec(v.astype(np.float64)).as_quat()).max() <= ROTVEC_TO_QUAT
    vd = (v * np.float32(57.29578)).astype(np.float32)
    got = skelsimd.rotvec_to_quat(vd, degrees=True)
    assert np.abs(got - Rotation.from_rotvec(vd.astype(np.float64), degrees=True).as_quat()).max() <= ROTVEC_TO_QUAT
    assert np.array_equal(skelsimd.rotvec_to_quat(v, scalar_first=True), skelsimd.rotvec_to_quat(v)[:, [3, 0, 1, 2]])


def test_rotvec_to_quat_near_zero_and_pi(isa, rng):
    """Near 0 the vector part is v/2 to relative accuracy (no cancellation, no division by a small
    angle); near pi w is small and accurate; longer vectors go through double."""
    tiny = rotvecs(5000, rng, 0, 1) * (10.0 ** rng.uniform(-30, -2, (5000, 1))).astype(np.float32)
    got = skelsimd.rotvec_to_quat(tiny)
    ref = RC.rotvec_to_quat(tiny)
    assert (np.abs(got[:, :3] - ref[:, :3]) <= 2e-7 * np.abs(ref[:, :3]) + 1e-45).all()
    assert np.abs(got[:, 3] - ref[:, 3]).max() <= 6e-8
    assert np.array_equal(skelsimd.rotvec_to_quat(np.zeros(3)), [0, 0, 0, 1])
    near_pi = rotvecs(5000, rng, np.pi - 1e-3, np.pi + 1e-3)
    assert np.abs(skelsimd.rotvec_to_quat(near_pi) - RC.rotvec_to_quat(near_pi)).max() <= ROTVEC_TO_QUAT
    long = np.concatenate([rotvecs(3000, rng, 3.0, 100.0), rotvecs(100, rng, 1e4, 1e30)])
    assert np.abs(skelsimd.rotvec_to_quat(long) - RC.rotvec_to_quat(long)).max() <= ROTVEC_TO_QUAT
    with np.errstate(all="ignore"):
        bad = np.array([[np.nan, 1, 1], [np.inf, 0, 0], [0, 0, -np.inf]], np.float32)
    assert np.isnan(skelsimd.rotvec_to_quat(bad)).all()


def test_rotvec_to_quat_bound(isa, rng):
    v = np.concatenate([rotvecs(300_000, rng), rotvecs(50_000, rng, 3.1, 3.2)])
    assert np.abs(skelsimd.rotvec_to_quat(v) - RC.rotvec_to_quat(v)).max() <= ROTVEC_TO_QUAT


def rotvec_error(got, ref):
    grow = np.maximum(1.0, np.linalg.norm(ref, axis=-1, keepdims=True))
    return (np.abs(np.asarray(got, np.float64) - ref) / grow).max()


def test_quat_to_rotvec_is_scipy(isa, rng):
    q = unit(20_000, rng)
    got = skelsimd.quat_to_rotvec(q)
    ref = Rotation.from_quat(q.astype(np.float64)).as_rotvec()
    assert rotvec_error(got, ref) <= QUAT_TO_ROTVEC
    got = skelsimd.quat_to_rotvec(q, degrees=True)
    assert rotvec_error(got, np.rad2deg(ref)) <= QUAT_TO_ROTVEC * 57.29577951308232
    assert np.array_equal(skelsimd.quat_to_rotvec(q[:, [3, 0, 1, 2]], scalar_first=True), skelsimd.quat_to_rotvec(q))


def test_quat_to_rotvec_canonical_hemisphere(isa):
    """w < 0 and, at w = 0 (+-0.0), the first non-zero of x, y, z decide the sign, as SciPy."""
    q = np.array([[0, 0, 1, -0.0], [0, -1, 0, 0], [-1, 0, 0, 0], [0, 0, -1, 0], [0.6, 0, 0.8, -0.0],
                  [0, 0.6, -0.8, 0], [-0.6, 0.8, 0, 0], [0.1, 0.2, 0.3, -0.9], [0, 0, 0, -1]], np.float32)
    got = skelsimd.quat_to_rotvec(q)
    ref = Rotation.from_quat(q.astype(np.float64)).as_rotvec()
    assert np.abs(got - ref).max() <= 1e-6
    assert np.array_equal(np.signbit(got) & (got != 0), np.signbit(ref) & (ref != 0))


def test_quat_to_rotvec_near_zero_and_pi(isa, rng):
    v = rotvecs(10_000, rng, 0, 1) * (10.0 ** rng.uniform(-20, 0, (10_000, 1))).astype(np.float32)
    q = RC.rotvec_to_quat(v).astype(np.float32)
    got = skelsimd.quat_to_rotvec(q)
    ref = RC.quat_to_rotvec(q)
    # relative accuracy near 0: 2 xyz / w, no division by a small norm
    assert (np.abs(got - ref) <= 3e-7 * np.linalg.norm(ref, axis=1, keepdims=True) + 1e-44).all()
    near_pi = RC.rotvec_to_quat(rotvecs(10_000, rng, np.pi - 1e-3, np.pi)).astype(np.float32)
    assert rotvec_error(skelsimd.quat_to_rotvec(near_pi), RC.quat_to_rotvec(near_pi)) <= QUAT_TO_ROTVEC
    exact_pi = np.array([[1, 0, 0, 0], [0, 0.6, 0.8, 0], [0, 0, 0, 0]], np.float32)
    assert np.abs(skelsimd.quat_to_rotvec(exact_pi) - np.array([[np.pi, 0, 0], [0, 0.6 * np.pi, 0.8 * np.pi], [0, 0, 0]])).max() <= 4e-7


def test_quat_to_rotvec_bound_any_scale(isa, rng):
    q = unit(300_000, rng)
    ref = RC.quat_to_rotvec(q)
    assert rotvec_error(skelsimd.quat_to_rotvec(q), ref) <= QUAT_TO_ROTVEC
    for scale in (np.float32(2.0 ** 80), np.float32(2.0 ** -80)):
        assert np.array_equal(skelsimd.quat_to_rotvec(q[:999] * scale), skelsimd.quat_to_rotvec(q[:999]))
    assert rotvec_error(skelsimd.quat_to_rotvec(q[:999] * np.float32(7.3)), ref[:999]) <= QUAT_TO_ROTVEC
    bad = np.array([[np.nan, 0, 0, 1], [0, 0, np.inf, 1]], np.float32)
    assert np.isnan(skelsimd.quat_to_rotvec(bad)).all()


def test_rotvec_round_trips(isa, rng):
    v = rotvecs(20_000, rng, 0, np.pi - 1e-3)
    back = skelsimd.quat_to_rotvec(skelsimd.rotvec_to_quat(v))
    assert np.abs(back - v).max() <= 1e-6
    q = unit(20_000, rng)
    again = skelsimd.rotvec_to_quat(skelsimd.quat_to_rotvec(q))
    assert RQ.same_rotation_error(again, q).max() <= 6e-7


# --- 6D ------------------------------------------------------------------------------------------

def pytorch3d_rotation_6d_to_matrix(d6):
    """PyTorch3D's rotation_6d_to_matrix, in NumPy float64: Gram-Schmidt, stacked as rows."""
    a1, a2 = d6[..., :3], d6[..., 3:]
    b1 = a1 / np.linalg.norm(a1, axis=-1, keepdims=True)
    b2 = a2 - (b1 * a2).sum(-1, keepdims=True) * b1
    b2 = b2 / np.linalg.norm(b2, axis=-1, keepdims=True)
    return np.stack((b1, b2, np.cross(b1, b2)), axis=-2)


def pytorch3d_matrix_to_rotation_6d(m):
    """PyTorch3D's matrix_to_rotation_6d: the matrix without its last row."""
    return m[..., :2, :].reshape(m.shape[:-2] + (6,))


def test_matrix_to_sixd_layouts(isa, rng):
    m = skelsimd.quat_to_matrix(unit((7, 5), rng))
    cols = skelsimd.matrix_to_sixd(m)
    assert cols.shape == (7, 5, 6)
    assert np.array_equal(cols[..., :3], m[..., :, 0]) and np.array_equal(cols[..., 3:], m[..., :, 1])
    rows = skelsimd.matrix_to_sixd(m, layout="rows")
    assert np.array_equal(rows, pytorch3d_matrix_to_rotation_6d(m))
    # SPIN-style (..., 3, 2) as documented
    spin = m[..., :, :2].reshape(7, 5, 6)
    assert np.array_equal(cols.reshape(7, 5, 2, 3).swapaxes(-1, -2).reshape(7, 5, 6), spin)


def test_sixd_to_matrix_of_rotations(isa, rng):
    m = skelsimd.quat_to_matrix(unit(100_000, rng))
    for layout in ("columns", "rows"):
        d = skelsimd.matrix_to_sixd(m, layout=layout)
        got = skelsimd.sixd_to_matrix(d, layout=layout)
        assert np.abs(got - RC.sixd_to_matrix(d, layout)).max() <= SIXD_TO_MATRIX
        assert np.abs(got - m).max() <= SIXD_TO_MATRIX + 4e-7        # m itself is rounded
    d = skelsimd.matrix_to_sixd(m[:1000], layout="rows")
    assert np.abs(skelsimd.sixd_to_matrix(d, layout="rows") - pytorch3d_rotation_6d_to_matrix(d.astype(np.float64))).max() <= SIXD_TO_MATRIX
    # the same Gram-Schmidt, stored transposed
    assert np.array_equal(skelsimd.sixd_to_matrix(d, layout="rows"), skelsimd.sixd_to_matrix(d).swapaxes(-1, -2))


def test_sixd_to_matrix_of_network_outputs(isa, rng):
    """Any 6D vector with non-parallel halves gives a rotation; the error against float64
    Gram-Schmidt grows as 1 / sin(angle between the halves)."""
    d = (rng.normal(size=(50_000, 6)) * 10.0 ** rng.uniform(-3, 3, (50_000, 2)).repeat(3, 1)).astype(np.float32)
    got = skelsimd.sixd_to_matrix(d).astype(np.float64)
    ref = RC.sixd_to_matrix(d)
    a, b = d[:, :3].astype(np.float64), d[:, 3:].astype(np.float64)
    sin = np.linalg.norm(np.cross(a, b), axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert (np.abs(got - ref).max(axis=(1, 2)) <= 3e-7 / sin).all()
    assert np.abs(got.swapaxes(1, 2) @ got - np.eye(3)).max() <= 1e-6
    assert np.abs(np.linalg.det(got) - 1).max() <= 1e-6


def test_sixd_nearly_parallel_halves(isa, rng):
    """Halves close to parallel: orthonormal rotations down to 2^-20 (the second Gram-Schmidt
    pass), NaN below, where float32 rounding leaves no direction."""
    a = rng.normal(size=(20_000, 3))
    p = rng.normal(size=(20_000, 3))
    p -= (p * a).sum(1, keepdims=True) * a / (a * a).sum(1, keepdims=True)
    p *= (np.linalg.norm(a, axis=1) / np.linalg.norm(p, axis=1))[:, None]
    for sin in (1e-2, 1e-4, 3e-6, 1.5e-6, 5e-7, 1e-7, 0.0):
        d = np.concatenate([a, (a + p * sin) * rng.uniform(0.5, 2, (20_000, 1))], axis=1).astype(np.float32)
        m = skelsimd.sixd_to_matrix(d).astype(np.float64)
        nan = np.isnan(m).all(axis=(1, 2))
        assert (nan | ~np.isnan(m).any(axis=(1, 2))).all()          # all NaN or none
        if sin >= 3e-6:
            assert not nan.any()
        if sin <= 5e-7:
            assert nan.all()
        ok = m[~nan]
        if len(ok):
            assert np.abs(ok.swapaxes(1, 2) @ ok - np.eye(3)).max() <= 1e-6
            assert np.abs(np.linalg.det(ok) - 1).max() <= 1e-6


def test_sixd_special_inputs(isa, rng):
    d = rng.normal(size=(20, 6)).astype(np.float32)
    ref = skelsimd.sixd_to_matrix(d)
    # the result does not depend on the scale of either half (powers of two: exactly)
    scaled = d.copy()
    scaled[:10, :3] *= np.float32(2.0 ** -90)
    scaled[10:, 3:] *= np.float32(2.0 ** 90)
    assert np.array_equal(skelsimd.sixd_to_matrix(scaled), ref)
    degenerate = np.array([[0, 0, 0, 1, 0, 0], [1, 2, 3, 2, 4, 6], [1, 0, 0, 0, 0, 0]], np.float32)
    assert np.isnan(skelsimd.sixd_to_matrix(degenerate)).all(axis=(1, 2)).all()
    assert np.isnan(skelsimd.sixd_to_matrix([np.nan, 0, 0, 0, 1, 0])).all()


def test_quaternion_shortcuts_are_bit_identical(isa, rng):
    q = unit((33, 7), rng) * rng.uniform(0.5, 2, (33, 7, 1)).astype(np.float32)
    for layout in ("columns", "rows"):
        for sf in (False, True):
            qq = q[..., [3, 0, 1, 2]] if sf else q
            sixd = skelsimd.quat_to_sixd(qq, layout=layout, scalar_first=sf)
            assert np.array_equal(sixd, skelsimd.matrix_to_sixd(skelsimd.quat_to_matrix(qq, scalar_first=sf), layout=layout))
            d = sixd + rng.normal(scale=0.1, size=sixd.shape).astype(np.float32)
            back = skelsimd.sixd_to_quat(d, layout=layout, scalar_first=sf)
            assert np.array_equal(back, skelsimd.matrix_to_quat(skelsimd.sixd_to_matrix(d, layout=layout), scalar_first=sf))
    d = skelsimd.quat_to_sixd(q)
    assert np.abs(skelsimd.quat_to_sixd(q) - RC.quat_to_sixd(q)).max() <= QUAT_TO_SIXD
    assert RQ.same_rotation_error(skelsimd.sixd_to_quat(d), RC.sixd_to_quat(d)).max() <= SIXD_TO_QUAT
    assert RQ.same_rotation_error(skelsimd.sixd_to_quat(d), RQ.quat_normalize(q)).max() <= 1e-6


# --- every variant gives the same bits ----------------------------------------------------------

# --- shapes, layouts, out ------------------------------------------------------------------------

FUNCS = {
    "euler_to_quat": (lambda x, **k: skelsimd.euler_to_quat(x, "ZYX", **k), 3, (4,)),
    "quat_to_euler": (lambda x, **k: skelsimd.quat_to_euler(x, "zxz", suppress_warnings=True, **k), 4, (3,)),
    "rotvec_to_quat": (lambda x, **k: skelsimd.rotvec_to_quat(x, **k), 3, (4,)),
    "quat_to_rotvec": (lambda x, **k: skelsimd.quat_to_rotvec(x, **k), 4, (3,)),
    "matrix_to_sixd": (lambda x, **k: skelsimd.matrix_to_sixd(x.reshape(x.shape[:-1] + (3, 3)) if isinstance(x, np.ndarray) else x, **k), 9, (6,)),
    "sixd_to_matrix": (lambda x, **k: skelsimd.sixd_to_matrix(x, **k), 6, (3, 3)),
    "quat_to_sixd": (lambda x, **k: skelsimd.quat_to_sixd(x, **k), 4, (6,)),
    "sixd_to_quat": (lambda x, **k: skelsimd.sixd_to_quat(x, **k), 6, (4,)),
}


@given(name=st.sampled_from(sorted(FUNCS)), batch=st.sampled_from(BATCH_SHAPES + [(37,), (0,), (2, 0)]),
       layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**32 - 1))
def test_shapes_layouts_and_out(isa, name, batch, layout, seed):
    rng = np.random.default_rng(seed)
    call, width, trailing = FUNCS[name]
    if layout == "list" and 0 in batch:
        layout = "contiguous"          # an empty nested list has no trailing shape
    x = rng.uniform(-1, 1, batch + (width,)).astype(np.float32)
    if name == "matrix_to_sixd":
        x = skelsimd.quat_to_matrix(unit(batch, rng)).reshape(batch + (9,))
    expected = call(x)
    assert expected.shape == batch + trailing and expected.dtype == np.float32
    if name == "matrix_to_sixd":
        got = skelsimd.matrix_to_sixd(with_layout(x.reshape(batch + (3, 3)), layout))
    else:
        got = call(with_layout(x, layout))
    assert np.array_equal(got, expected, equal_nan=True)
    out = np.full(batch + trailing, np.float32(-7.25))
    assert call(x, out=out) is out
    assert np.array_equal(out, expected, equal_nan=True)


@given(seq=st.sampled_from(SEQS), degrees=st.booleans(), seed=st.integers(0, 2**32 - 1),
       batch=st.sampled_from(BATCH_SHAPES))
def test_euler_property_round_trip(isa, seq, degrees, seed, batch):
    rng = np.random.default_rng(seed)
    q = unit(batch, rng)
    e = skelsimd.quat_to_euler(q, seq, degrees=degrees, suppress_warnings=True)
    back = skelsimd.euler_to_quat(e, seq, degrees=degrees)
    assert back.shape == q.shape
    assert RQ.same_rotation_error(back, q).max(initial=0) <= 1e-6
    ref = RC.quat_to_euler(q, seq, degrees=degrees)
    assert RC.angle_error(e, ref, degrees).max(initial=0) <= (QUAT_TO_EULER_DEG if degrees else QUAT_TO_EULER)


def test_torch_like_inputs(isa, rng):
    """Objects exposing __array__ are accepted like every skelsimd input."""
    class Wrapped:
        def __init__(self, a):
            self.a = a

        def __array__(self, dtype=None, copy=None):
            return self.a

    q = unit(5, rng)
    assert np.array_equal(skelsimd.quat_to_euler(Wrapped(q), "xyz", suppress_warnings=True),
                          skelsimd.quat_to_euler(q, "xyz", suppress_warnings=True))


def test_writes_stay_inside_out(isa, rng):
    """The full blocks write packed 3-vectors 4 floats at a time (the fourth lands on the next
    item before it is written); nothing past the last item is ever touched, whatever n."""
    sentinel = np.float32(-7.25)
    for n in list(range(0, 41)) + [1000, 1001, 1007, 1008]:
        q = unit(n, rng)
        inputs = {"euler_to_quat": rng.uniform(-3, 3, (n, 3)).astype(np.float32), "quat_to_euler": q,
                  "rotvec_to_quat": rng.uniform(-1, 1, (n, 3)).astype(np.float32), "quat_to_rotvec": q,
                  "matrix_to_sixd": skelsimd.quat_to_matrix(q), "sixd_to_matrix": skelsimd.quat_to_sixd(q),
                  "quat_to_sixd": q, "sixd_to_quat": skelsimd.quat_to_sixd(q)}
        for name, (call, _, trailing) in FUNCS.items():
            x = inputs[name]
            size = n * int(np.prod(trailing))
            big = np.full(size + 16, sentinel, np.float32)
            out = big[:size].reshape((n,) + trailing)
            if name == "matrix_to_sixd":
                skelsimd.matrix_to_sixd(x, out=out)
            else:
                call(x, out=out)
            assert (big[size:] == sentinel).all(), (name, n)
            assert np.array_equal(out, call(x if name != "matrix_to_sixd" else x.reshape(n, 9)), equal_nan=True), (name, n)
