"""skelsimd.Track (sampling and triggers), Clip.contacts and blend_motion against the float64
references in skelsimd.reference.track, on every SIMD variant (`isa` fixture)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skelsimd
from skelsimd.bounds import bound
from skelsimd.reference import track as R

INTERPS = ["step", "linear", "cubic"]
BOUNDS = {("step", False): 0.0, ("linear", False): bound("track.linear"),
          ("cubic", False): bound("track.cubic"), ("step", True): 0.0,
          ("linear", True): bound("track.quat"), ("cubic", True): bound("track.quat_cubic")}


@st.composite
def tracks(draw, quaternion=None, interpolation=None, ncomp=None):
    """Random tracks: K keys with spacings in [1/64, 1] times a power of two (neighbouring
    spacings within a factor 64), values in [-1, 1] (unit quaternions)."""
    k = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    start = draw(st.sampled_from([0.0, -3.25, 17.5, 1000.0]))
    gaps = rng.integers(1, 65, k - 1) / 64.0
    times = (start + np.r_[0.0, np.cumsum(gaps)]).astype(np.float32)
    quat = draw(st.booleans()) if quaternion is None else quaternion
    interp = draw(st.sampled_from(INTERPS)) if interpolation is None else interpolation
    loop = draw(st.booleans())
    if quat:
        values = rng.normal(size=(k, 4))
        values /= np.linalg.norm(values, axis=-1, keepdims=True)
        if draw(st.booleans()) and k > 1:       # neighbours near each other, some antipodal
            values = np.cumsum(values * 0.2, axis=0) + values[:1]
            values /= np.linalg.norm(values, axis=-1, keepdims=True)
            values[::3] *= -1
    else:
        c = draw(st.integers(1, 4)) if ncomp is None else ncomp
        values = rng.uniform(-1, 1, (k, c))
        if c == 1 and draw(st.booleans()):
            values = values[:, 0]
        if draw(st.booleans()):
            values = np.round(values)            # plateaus and exact threshold hits
    return skelsimd.Track(times, values, interp, loop=loop, quaternion=quat)


def sample_times(track, rng, n):
    t0, t1 = float(track.times[0]), float(track.times[-1])
    span = max(t1 - t0, 1.0)
    ts = rng.uniform(t0 - 2 * span, t1 + 2 * span, n)
    ts[: min(n, len(track.times))] = track.times[:n]          # exactly at keys
    return ts.astype(np.float32)


def check_against_reference(track, times):
    got = track.sample(times)
    want = R.sample(track.times, track.values, times, track.interpolation, track.loop,
                    track.quaternion)
    if track.values.ndim == 1:
        want = want[..., 0]
    assert got.shape == want.shape and got.dtype == np.float32
    err = np.abs(got - want)
    if track.quaternion and track.interpolation == "linear":
        err = np.minimum(err, np.abs(got + want).max(-1, keepdims=True))
    tol = BOUNDS[(track.interpolation, track.quaternion)]
    assert np.all(err <= tol), (float(err.max()), tol)


@given(tracks(), st.integers(0, 2**32 - 1))
def test_sample_matches_reference(isa, track, seed):
    rng = np.random.default_rng(seed)
    check_against_reference(track, sample_times(track, rng, 37))


@given(tracks())
def test_sample_at_keys_gives_keys(isa, track):
    got = track.sample(track.times)
    if track.loop and len(track.times) > 1:     # the last key is the first one's instant
        got, keys = got[:-1], track.values[:-1]
    else:
        keys = track.values
    tol = BOUNDS[(track.interpolation, True)] if track.quaternion else 0.0   # floats: exact
    np.testing.assert_allclose(got, keys, rtol=0, atol=tol)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 1, 3)])
@pytest.mark.parametrize("ncomp", [None, 1, 2, 3, 4])
def test_sample_shapes_and_out(isa, shape, ncomp):
    rng = np.random.default_rng(3)
    values = rng.uniform(-1, 1, (6,) if ncomp is None else (6, ncomp))
    tr = skelsimd.Track(np.arange(6), values, "cubic")
    times = rng.uniform(-1, 7, shape)
    got = tr.sample(times)
    tail = () if ncomp is None else (ncomp,)
    assert got.shape == shape + tail
    out = np.full(shape + tail, -7.0, np.float32)
    assert tr.sample(times, out=out) is out
    np.testing.assert_array_equal(out, got)
    np.testing.assert_array_equal(tr(times), got)


def test_clamped_and_looping_semantics():
    tr = skelsimd.Track([0.0, 1.0, 3.0], [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(tr.sample([-5.0, 0.0, 0.5, 2.0, 3.0, 50.0]),
                                  np.float32([0.0, 0.0, 1.0, 1.0, 0.0, 0.0]))
    lp = skelsimd.Track([0.0, 1.0, 3.0], [0.0, 2.0, 0.0], loop=True)
    np.testing.assert_array_equal(lp.sample([-2.5, 3.5, 6.0, 301.5]),
                                  np.float32([1.0, 1.0, 0.0, 1.5]))
    st_ = skelsimd.Track([0.0, 1.0, 3.0], [0.0, 2.0, 5.0], "step")
    np.testing.assert_array_equal(st_.sample([0.999, 1.0, 2.99, 3.0, 9.0]),
                                  np.float32([0.0, 2.0, 2.0, 5.0, 5.0]))
    one = skelsimd.Track([2.0], [[1.0, 2.0]], "cubic", loop=True)
    np.testing.assert_array_equal(one.sample([-1.0, 2.0, 1e9]), np.float32([[1, 2]] * 3))


def test_nan_and_inf_times():
    for interp in INTERPS:
        tr = skelsimd.Track([0.0, 1.0, 2.0], [0.0, 1.0, 0.0], interp)
        got = tr.sample([np.nan, np.inf, -np.inf])
        assert np.isnan(got[0]) and got[1] == 0.0 and got[2] == 0.0
        lp = skelsimd.Track([0.0, 1.0, 2.0], [0.0, 1.0, 0.0], interp, loop=True)
        assert np.isnan(lp.sample([np.nan, np.inf, -np.inf])).all()
    q = skelsimd.Track([0, 1], [[0, 0, 0, 1], [0, 1, 0, 0]], quaternion=True)
    assert np.isnan(q.sample(np.nan)).all()


def test_quaternion_keys_normalised_and_aligned():
    q = skelsimd.Track([0, 1, 2], [[0, 0, 0, 2], [0, 0, 0, -1], [0, 0, 0.1, -1]],
                       quaternion=True)
    np.testing.assert_array_equal(q.values[:, 3], np.float32([1, 1, q.values[2, 3]]))
    assert q.values[2, 3] > 0
    np.testing.assert_allclose(q.sample(0.5), [0, 0, 0, 1], atol=1e-7)
    assert not q.values.flags.writeable and not q.times.flags.writeable


def test_keys_are_copied():
    t = np.arange(3, dtype=np.float32)
    v = np.zeros(3, np.float32)
    tr = skelsimd.Track(t, v)
    v[:] = 5
    t[:] = 0
    assert tr.sample(1.0) == 0.0 and t.flags.writeable


# --- triggers ------------------------------------------------------------------------------

@st.composite
def edge_tracks(draw):
    k = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    times = np.r_[0.0, np.cumsum(rng.integers(1, 9, k - 1))] / 8.0 + draw(
        st.sampled_from([0.0, -2.0, 5.5]))
    values = rng.integers(-2, 3, k) / 2.0
    return skelsimd.Track(times, values, draw(st.sampled_from(["step", "linear"])),
                          loop=draw(st.booleans()))


def ranges(track, rng):
    """Range ends on eighths (exactly at keys and edges often), forwards and backwards."""
    t0 = float(track.times[0])
    span = max(float(track.times[-1]) - t0, 0.125)
    out = []
    for _ in range(12):
        a, b = (np.round(rng.uniform(t0 - 2 * span, t0 + 3 * span, 2) * 8) / 8)
        out.append((float(a), float(b)))
    out += [(t0, float(track.times[-1])), (float(track.times[-1]), t0)]
    return out


@given(edge_tracks(), st.sampled_from([0.0, 0.5, -0.5, 0.25]), st.integers(0, 2**32 - 1))
def test_triggers_match_reference(isa, track, threshold, seed):
    rng = np.random.default_rng(seed)
    step = track.interpolation == "step"
    for t0, t1 in ranges(track, rng):
        got_t, got_d = track.triggers(t0, t1, threshold)
        want_t, want_d = R.triggers(track.times, track.values, threshold, step, track.loop, t0, t1)
        assert got_d.dtype == np.int8 and got_t.dtype == np.float64
        np.testing.assert_array_equal(got_d, want_d)
        tol = 0.0 if step else bound("track.edges") * (np.abs(track.times).max() + 16)
        np.testing.assert_allclose(got_t, want_t, rtol=0, atol=tol)


@given(edge_tracks(), st.integers(0, 2**32 - 1))
def test_triggers_consecutive_ranges_report_each_edge_once(isa, track, seed):
    """Playing t0 -> t1 -> t2 in pieces reports the edges of t0 -> t2 (forwards and backwards)."""
    rng = np.random.default_rng(seed)
    t0 = float(track.times[0])
    cuts = np.sort(np.round(rng.uniform(t0 - 3, t0 + 8, 6) * 8) / 8)
    for order in (cuts, cuts[::-1]):
        pieces = [track.triggers(a, b, 0.0) for a, b in zip(order[:-1], order[1:])]
        whole = track.triggers(order[0], order[-1], 0.0)
        np.testing.assert_array_equal(np.concatenate([p[0] for p in pieces]), whole[0])
        np.testing.assert_array_equal(np.concatenate([p[1] for p in pieces]), whole[1])


@given(edge_tracks(), st.integers(0, 2**32 - 1))
def test_triggers_backwards_mirror_forwards(isa, track, seed):
    rng = np.random.default_rng(seed)
    for a, b in ranges(track, rng):
        ft, fd = track.triggers(a, b, 0.25)
        bt, bd = track.triggers(b, a, 0.25)
        np.testing.assert_array_equal(bt, ft[::-1])
        np.testing.assert_array_equal(bd, -fd[::-1])


def test_triggers_ozz_rules():
    """Edges exactly at t0 are in, at t1 out, except at the end of a pass of the keys; the loop
    seam is an edge of the next period."""
    tr = skelsimd.Track([0.0, 0.5, 1.0], [0.0, 1.0, 1.0], "step", loop=True)
    assert tr.triggers(0.5, 1.0)[0].tolist() == [0.5]
    assert tr.triggers(0.25, 0.5)[0].tolist() == []
    # the seam (1 -> 0) is an edge at the start of every period, t = 0, 1, ...
    t, d = tr.triggers(0.0, 0.5)
    assert t.tolist() == [0.0] and d.tolist() == [-1]
    t, d = tr.triggers(0.0, 2.0)
    assert t.tolist() == [0.0, 0.5, 1.0, 1.5] and d.tolist() == [-1, 1, -1, 1]
    assert tr.triggers(0.0, 1.0)[0].tolist() == [0.0, 0.5]
    edge_at_end = skelsimd.Track([0.0, 0.5, 1.0], [0.0, 0.0, 1.0], "step", loop=True)
    t, d = edge_at_end.triggers(0.0, 1.0)       # ozz's end-of-pass rule: the rise at t = 1
    assert t.tolist() == [0.0, 1.0] and d.tolist() == [-1, 1]
    assert edge_at_end.triggers(1.0, 2.0)[0].tolist() == [1.0, 2.0]
    assert edge_at_end.triggers(0.5, 0.75)[0].tolist() == []
    lin = skelsimd.Track([0.0, 1.0, 2.0], [-1.0, 1.0, -1.0])
    t, d = lin.triggers(-10.0, 10.0)
    assert t.tolist() == [0.5, 1.5] and d.tolist() == [1, -1]
    t, d = lin.triggers(10.0, -10.0)
    assert t.tolist() == [1.5, 0.5] and d.tolist() == [1, -1]
    assert lin.triggers(3.0, 3.0)[0].size == 0
    assert lin.triggers(0.5, 0.5)[0].size == 0


# --- contacts on real walking ----------------------------------------------------------------

def test_contacts_feet_alternate_on_cmu_walk():
    clip = skelsimd.load_bvh("tests/data/cmu_131_02.bvh.gz")
    left, right = clip.contacts(["LeftAnkle", "RightAnkle"], speed=20.0)
    assert left.interpolation == "step" and set(np.unique(left.values)) <= {0.0, 1.0}
    landings = []
    for side, tr in (("L", left), ("R", right)):
        t, d = tr.triggers(2.0, 9.5, 0.5)
        landings += [(x, side) for x in t[d > 0]]
    seq = "".join(s for _, s in sorted(landings))
    assert len(seq) >= 12
    assert "LL" not in seq and "RR" not in seq, seq
    # the labels follow the thresholds: every contact frame is slow
    p = clip.global_positions()[:, clip.skeleton.index("LeftAnkle")]
    speed = np.linalg.norm(np.gradient(p.astype(np.float64), axis=0), axis=-1) / clip.frame_time
    on = left.sample(np.arange(clip.frames) * np.float32(clip.frame_time)) > 0.5
    assert np.median(speed[on]) < 10 and np.median(speed[~on]) > 20


def test_contacts_height_and_filters():
    clip = skelsimd.data.load_example()
    a = clip.contacts("LeftToe", speed=15.0)
    b = clip.contacts("LeftToe", speed=15.0, height=-1e9)
    assert isinstance(a, skelsimd.Track) and b.values.max() == 0.0
    raw = clip.contacts("LeftToe", speed=15.0, min_gap=0, min_contact=0)
    assert len(raw) >= len(a)
    with pytest.raises(TypeError, match="speed"):
        clip.contacts("LeftToe", speed="fast")
    with pytest.raises(ValueError, match="min_gap"):
        clip.contacts("LeftToe", speed=1.0, min_gap=-1)
    with pytest.raises(ValueError, match="joint"):
        clip.contacts("NoSuchFoot", speed=1.0)
    one = clip[:1].contacts(["LeftToe", "RightToe"], speed=15.0)
    assert [len(t) for t in one] == [1, 1] and one[0].values[0] == 1.0



def _close_runs_scan(mask, value, shorter_than):
    """Gap closing by a frame-by-frame scan of the runs (the definition)."""
    for row in mask.reshape(-1, mask.shape[-1]):
        f, n = 0, len(row)
        while f < n:
            g = f
            while g < n and row[g] == row[f]:
                g += 1
            if shorter_than > 1 and row[f] == value and f > 0 and g < n and g - f < shorter_than:
                row[f:g] = not value
            f = g


@given(st.lists(st.lists(st.booleans(), min_size=1, max_size=60), min_size=1, max_size=3)
       .filter(lambda rows: len({len(r) for r in rows}) == 1),
       st.booleans(), st.integers(0, 8))
def test_contacts_gap_closing_matches_a_scan_of_the_runs(rows, value, shorter_than):
    from skelsimd.track import _close_runs
    mask = np.array(rows, dtype=bool)
    expected = mask.copy()
    _close_runs_scan(expected, value, shorter_than)
    _close_runs(mask, value, shorter_than)
    np.testing.assert_array_equal(mask, expected)

# --- root motion -------------------------------------------------------------------------

def random_deltas(rng, shape):
    q = rng.normal(size=shape + (4,))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    d = np.concatenate([q, rng.uniform(-1, 1, shape + (3,)), np.ones(shape + (1,))], -1)
    return d.astype(np.float32)


@given(st.integers(1, 9), st.sampled_from([(), (3,), (2, 4), (11,), (2, 9)]),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_blend_motion_matches_reference(isa, nlayers, lead, shared, seed):
    rng = np.random.default_rng(seed)
    d = random_deltas(rng, lead + (nlayers,))
    w = rng.uniform(-0.5, 1, (nlayers,) if shared else lead + (nlayers,)).astype(np.float32)
    w[rng.random(w.shape) < 0.1] = 0.0
    got = skelsimd.blend_motion(d, w)
    want = R.blend_motion(d, w)
    assert got.shape == lead + (8,)
    np.testing.assert_allclose(got, want, rtol=0, atol=bound("blend_motion") * nlayers)


def test_blend_motion_cases():
    fwd = [0, 0, 0, 1, 0, 0, 2, 1]
    side = [0, 0, 0, 1, 2, 0, 0, 1]
    got = skelsimd.blend_motion([fwd, side], [1.0, 1.0])
    np.testing.assert_allclose(np.linalg.norm(got[4:7]), 2.0, rtol=1e-6)   # ozz: length kept
    np.testing.assert_array_equal(skelsimd.blend_motion([fwd, side], [1.0, 0.0]), np.float32(fwd))
    np.testing.assert_array_equal(skelsimd.blend_motion([fwd, side], [0.0, -1.0]),
                                  np.float32([0, 0, 0, 1, 0, 0, 0, 1]))
    out = np.empty(8, np.float32)
    assert skelsimd.blend_motion([fwd], [1.0], out=out) is out
    with pytest.raises(ValueError, match="weights"):
        skelsimd.blend_motion([fwd, side], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="deltas"):
        skelsimd.blend_motion([1, 2, 3], [1.0])
    with pytest.raises(TypeError, match="out"):
        skelsimd.blend_motion([fwd], [1.0], out=np.empty(8))
    d = np.float32([fwd, side])
    with pytest.raises(ValueError, match="out"):
        skelsimd.blend_motion(d, [1.0, 1.0], out=d[0])
    with pytest.raises(TypeError, match="weights"):
        skelsimd.blend_motion(d, ["a", "b"])
    assert skelsimd.blend_motion(np.zeros((0, 2, 8), np.float32), [1, 1]).shape == (0, 8)
    np.testing.assert_array_equal(skelsimd.blend_motion(np.zeros((3, 0, 8)), np.zeros((3, 0))),
                                  np.tile(np.float32([0, 0, 0, 1, 0, 0, 0, 1]), (3, 1)))


def test_motion_deltas_accumulate_round_trip():
    clip = skelsimd.data.load_example()
    traj, _ = clip.root_motion()
    d = skelsimd.motion_deltas(traj)
    back = skelsimd.accumulate_motion(d, traj[0])
    np.testing.assert_allclose(back[:, 4:7], traj[:, 4:7], atol=1e-4 * np.abs(traj).max())
    dots = np.abs((back[:, :4] * traj[:, :4]).sum(-1))
    np.testing.assert_allclose(dots, 1.0, atol=1e-5)
    same = skelsimd.blend_motion(np.stack([d, d], 1), [0.3, 0.7])
    np.testing.assert_allclose(same, d, atol=2e-6 * max(1.0, np.abs(d).max()))


# --- bad input: errors naming the argument, nothing built ---------------------------------

@pytest.mark.parametrize("times, values, match, exc", [
    ([], [], "times", ValueError),
    ([0, 1, 1], [0, 0, 0], r"times\[2\]", ValueError),
    ([0, 2, 1], [0, 0, 0], r"times\[2\]", ValueError),
    ([0, np.nan], [0, 0], r"times\[1\]", ValueError),
    ([0, np.inf], [0, 0], r"times\[1\]", ValueError),
    ([0, 1], [0, np.nan], r"values\[1\]", ValueError),
    ([0, 1], [0, 0, 0], "values", ValueError),
    ([0, 1], np.zeros((2, 5)), "values", ValueError),
    ([0, 1], np.zeros((2, 0)), "values", ValueError),
    ([0, 1], np.zeros((2, 2, 2)), "values", ValueError),
    ([[0, 1]], [0, 0], "times", ValueError),
    (["a", "b"], [0, 0], "times", TypeError),
    ([0, 1], ["a", "b"], "values", TypeError),
    ([0, 1], [[0]], "values", ValueError),
])
def test_track_errors(times, values, match, exc):
    with pytest.raises(exc, match=match):
        skelsimd.Track(times, values)


def test_huge_arguments_are_value_errors():
    """Ints beyond the float range, and ranges over far too many periods, are ValueErrors
    naming the argument (not float()'s or floor()'s OverflowError)."""
    tr = skelsimd.Track([0, 0.5, 1], [0, 1, 0], "step", loop=True)
    for args, word in [((2**1024, 1.0), "t0"), ((0.0, -10**400), "t1"),
                       ((0.0, 1.0, 2**1024), "threshold"), ((-1.7e308, 1.7e308), "t0, t1"),
                       ((1e308, 1.7e308), "t0, t1")]:
        with pytest.raises(ValueError, match=word):
            tr.triggers(*args)
    clip = skelsimd.data.load_example()[:20]
    for kw, word in [(dict(speed=2**1024), "speed"), (dict(speed=1.0, height=-10**400), "height"),
                     (dict(speed=1.0, min_gap=2**1024), "min_gap")]:
        with pytest.raises(ValueError, match=word):
            clip.contacts("LeftAnkle", **kw)
    with pytest.raises(ValueError, match="empty clip"):
        clip[:0].contacts("LeftAnkle", 1.0)
    # gaps and contacts longer than the clip: the whole clip, no overflow
    assert clip.contacts("LeftAnkle", 1e30, min_gap=1e308, min_contact=1e308).sample(0.0) == 1


def test_track_more_errors():
    with pytest.raises(ValueError, match="interpolation"):
        skelsimd.Track([0, 1], [0, 1], "quadratic")
    with pytest.raises(TypeError, match="interpolation"):
        skelsimd.Track([0, 1], [0, 1], 1)
    with pytest.raises(ValueError, match="quaternion"):
        skelsimd.Track([0, 1], [[0, 0, 1], [0, 0, 1]], quaternion=True)
    with pytest.raises(ValueError, match=r"values\[1\].*non-zero"):
        skelsimd.Track([0, 1], [[0, 0, 0, 1], [0, 0, 0, 0]], quaternion=True)
    with pytest.raises(ValueError, match="times"):   # equal once rounded to float32
        skelsimd.Track(np.array([1.0, 1.0 + 1e-9]), [0, 1])
    tr = skelsimd.Track([0, 1], [0, 1])
    with pytest.raises(TypeError, match="times"):
        tr.sample("now")
    out = np.full(3, -7.25, np.float32)
    with pytest.raises(ValueError, match="out"):
        tr.sample([0.0, 0.5], out=out)
    assert (out == -7.25).all()
    with pytest.raises(TypeError, match="out"):
        tr.sample([0.0, 0.5], out=np.zeros(2))
    with pytest.raises(ValueError, match=r"out: expected shape \(2,\)"):
        tr.sample([0.0, 0.5], out=np.zeros((2, 1), np.float32))
    with pytest.raises(ValueError, match="contiguous|C-contiguous"):
        tr.sample([0.0, 0.5], out=np.zeros(4, np.float32)[::2])
    q = skelsimd.Track([0, 1], [[0, 0, 0, 1], [0, 0, 1, 0]], quaternion=True)
    qout = np.full((2, 4), -7.25, np.float32)
    with pytest.raises(ValueError, match="out"):
        q.sample([0.0, 0.5, 1.0], out=qout)
    assert (qout == -7.25).all()
    with pytest.raises(TypeError, match="out"):
        tr.sample([0.0, 0.5], out=[0.0, 0.0])
    with pytest.raises(ValueError, match="t0"):
        tr.triggers(np.nan, 1.0)
    with pytest.raises(ValueError, match="threshold"):
        tr.triggers(0.0, 1.0, np.inf)
    with pytest.raises(TypeError, match="t1"):
        tr.triggers(0.0, "end")
    with pytest.raises(ValueError, match="cubic"):
        skelsimd.Track([0, 1], [0, 1], "cubic").triggers(0, 1)
    with pytest.raises(ValueError, match="scalar"):
        skelsimd.Track([0, 1], [[0, 0], [1, 1]]).triggers(0, 1)
    lp = skelsimd.Track([0, 1e-3], [0, 1], "step", loop=True)
    with pytest.raises(ValueError, match="periods"):
        lp.triggers(0.0, 1e6)


def test_core_rejects_bad_shapes():
    core = skelsimd._core
    with pytest.raises(ValueError, match="key_times"):
        core.track_sample(np.zeros((0,), np.float32), np.zeros((0, 1), np.float32), None,
                          [0.0], "linear", False, False, None)
    with pytest.raises(ValueError, match="values"):
        core.track_sample([0.0, 1.0], np.zeros((3, 1)), None, [0.0], "linear", False, False, None)
    with pytest.raises(ValueError, match="tangents"):
        core.track_sample([0.0, 1.0], np.zeros((2, 1)), None, [0.0], "cubic", False, False, None)
    with pytest.raises(ValueError, match="tangents"):
        core.track_sample([0.0, 1.0], np.zeros((2, 1)), np.zeros((2, 2)), [0.0], "cubic", False,
                          False, None)
    with pytest.raises(ValueError, match="values"):
        core.track_edges([0.0, 1.0], np.zeros(3), 0.0, False, False)
    # keys out of order: meaningless values, no crash
    core.track_sample([3.0, 1.0, 2.0, 0.0], np.zeros((4, 2)), None, np.linspace(-1, 4, 50),
                      "linear", True, False, None)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "float64", "list"])
def test_sample_input_layouts(isa, layout):
    rng = np.random.default_rng(5)
    tr = skelsimd.Track(np.arange(8) * 0.5, rng.uniform(-1, 1, (8, 2)), "cubic", loop=True)
    base = rng.uniform(-2, 6, 40)
    want = tr.sample(base.astype(np.float32))
    t = {"contiguous": base.astype(np.float32),
         "strided": np.repeat(base.astype(np.float32), 2)[::2],
         "reversed": base.astype(np.float32)[::-1].copy()[::-1],
         "float64": base.astype(np.float32).astype(np.float64),
         "list": base.astype(np.float32).tolist()}[layout]
    np.testing.assert_array_equal(tr.sample(t), want)
    q = skelsimd.Track([0, 1, 2], rng.normal(size=(3, 4)), quaternion=True)
    np.testing.assert_array_equal(q.sample(t), q.sample(base.astype(np.float32)))


def test_sampling_and_triggers_from_threads():
    """The kernels release the GIL and keep no global state: concurrent calls on one track give
    the single-threaded results."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(9)
    tr = skelsimd.Track(np.cumsum(rng.uniform(0.1, 1, 200)), rng.uniform(-1, 1, 200), loop=True)
    times = [rng.uniform(-50, 150, 20_000).astype(np.float32) for _ in range(8)]
    want = [tr.sample(t) for t in times]
    ranges = [(float(a), float(b)) for a, b in rng.uniform(-50, 150, (8, 2))]
    want_edges = [tr.triggers(a, b) for a, b in ranges]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(tr.sample, times))
        got_edges = list(pool.map(lambda r: tr.triggers(*r), ranges))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    for (gt, gd), (wt, wd) in zip(got_edges, want_edges):
        np.testing.assert_array_equal(gt, wt)
        np.testing.assert_array_equal(gd, wd)


@given(edge_tracks(), st.integers(0, 2**32 - 1))
def test_triggers_bisection_and_vectorised_paths_agree(track, seed):
    """Small passes are selected by bisection, large ones with NumPy: the same edges."""
    import skelsimd.track as module
    rng = np.random.default_rng(seed)
    rs = ranges(track, rng)
    small = [track.triggers(a, b, 0.25) for a, b in rs]
    saved = module._PYTHON_EDGES
    try:
        module._PYTHON_EDGES = -1
        fresh = skelsimd.Track(track.times, track.values, track.interpolation, loop=track.loop)
        large = [fresh.triggers(a, b, 0.25) for a, b in rs]
    finally:
        module._PYTHON_EDGES = saved
    for (st_, sd), (lt, ld) in zip(small, large):
        np.testing.assert_array_equal(st_, lt)
        np.testing.assert_array_equal(sd, ld)


def test_scalar_track_out_at_numpys_dimension_limit():
    """A scalar track's out with as many dimensions as NumPy allows: the kernel's view needs one
    more, so it is a ValueError naming times (as without out), never NumPy's IndexError."""
    tr = skelsimd.Track([0, 1, 2], [0.0, 1.0, 2.0], "linear")
    limit = 64 if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else 32   # NumPy's maximum
    t = np.zeros((1,) * limit, np.float32)
    out = np.full_like(t, 7.0)
    for kwargs in ({}, {"out": out}):
        with pytest.raises(ValueError, match=rf"times: the result would have {limit + 1} dim"):
            tr.sample(t, **kwargs)
    assert (out == 7.0).all()
