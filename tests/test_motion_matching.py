"""Motion matching: the exact search against a float64 brute force (every SIMD variant), the
features against a float64 reference from the global poses, inertialization, bad input."""
import gzip
import os

import numpy as np
import pytest
from hypothesis import given, strategies as st

import skelsimd
from skelsimd import MotionDatabase
from skelsimd.bounds import bound
from skelsimd.reference import mm as ref

DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.fixture(scope="module")
def example():
    return skelsimd.data.load_example()


@st.composite
def databases(draw):
    n = draw(st.sampled_from([1, 2, 15, 16, 17, 63, 64, 65, 200, 1023, 1025, 1500]))
    dim = draw(st.sampled_from([1, 2, 3, 5, 7, 27, 33]))
    seed = draw(st.integers(0, 2**31))
    kind = draw(st.sampled_from(["normal", "grid", "clustered"]))
    rng = np.random.default_rng(seed)
    if kind == "normal":
        f = rng.normal(size=(n, dim))
    elif kind == "grid":                      # few distinct values: many exact ties
        f = rng.integers(-2, 3, size=(n, dim)) * 0.5
    else:
        f = rng.normal(size=(max(1, n // 20), dim))[rng.integers(0, max(1, n // 20), n)]
        f += rng.normal(size=f.shape) * 1e-6
    q = rng.normal(size=(4, dim)) * draw(st.sampled_from([0.0, 0.1, 1.0, 10.0]))
    q[0] = f[rng.integers(n)]                  # an exact row
    q[1] = np.round(q[1] * 2) / 2              # on the grid
    return f.astype(np.float32), q.astype(np.float32), rng


@given(databases())
def test_search_is_the_brute_force_row(isa, data):
    f, qs, rng = data
    db = MotionDatabase.from_features(f)
    for q in qs:
        want = ref.brute_force(db.features, q)
        assert db.search(q) == want
        assert db.search(q, prune=False) == want
    idx, cost = db.search_many(qs)
    assert [(int(i), float(c)) for i, c in zip(idx, cost)] == [ref.brute_force(f, q) for q in qs]


@given(databases())
def test_excluded_ranges_never_returned(isa, data):
    f, qs, rng = data
    n = len(f)
    db = MotionDatabase.from_features(f)
    for q in qs:
        a = int(rng.integers(0, n))
        b = int(rng.integers(a, n + 1))
        ex = [(a, b), (0, int(rng.integers(0, 3)))]
        want = ref.brute_force(f, q, ex)
        if want[0] < 0:
            with pytest.raises(ValueError, match="exclude"):
                db.search(q, exclude=ex)
        else:
            assert db.search(q, exclude=ex) == want
            assert not any(s <= want[0] < e for s, e in ex)
    per = [[(0, k)] for k in range(len(qs))]
    idx, cost = db.search_many(qs, exclude=per)
    for k, q in enumerate(qs):
        assert (int(idx[k]), float(cost[k])) == ref.brute_force(f, q, per[k])
    idx, _ = db.search_many(qs, exclude=[(0, n)])
    assert (idx == -1).all()


def test_features_match_the_float64_reference(example):
    db = MotionDatabase([example], mirror=True)
    assert db.features.shape == (240, 27) and db.features.dtype == np.float32
    k = 0
    for c in db.clips:
        r = ref.raw_features(c.local, c.skeleton.parents, c.frame_time, db._joints, db._hip,
                             db.offsets)
        got = db.raw[k:k + len(r)].astype(np.float64)
        k += len(r)
        pmax = np.abs(c.global_positions()).max()
        # positions rounded to float32 once: velocities (differences over frame_time) carry it
        tol = np.full(27, bound("mm.features.position") * pmax)
        vtol = bound("mm.features.velocity") * pmax / c.frame_time
        tol[db.groups["foot_velocity"]] = tol[db.groups["hip_velocity"]] = vtol
        tol[db.groups["trajectory_direction"]] = bound("mm.features.position")
        assert (np.abs(got - r) <= tol).all()
    norm = (db.raw.astype(np.float64) - db.mean) / db.scale
    np.testing.assert_allclose(db.features, norm, atol=1e-5)
    for g, w in skelsimd.motion_matching.DEFAULT_WEIGHTS.items():   # scheme: std mean / weight
        sl = db.groups[g]
        assert np.isclose(db.scale[sl][0], np.mean(db.raw[:, sl].astype(np.float64).std(axis=0)) / w,
                          rtol=1e-5)


def test_candidates_never_cross_clip_ends(example):
    clips = [example[:200], example[50:], example[:130]]
    db = MotionDatabase(clips, offsets=(0.1, 0.5, 1.0))
    horizon = 120
    assert len(db) == sum(c.frames - horizon for c in clips)
    seen = set()
    for i in range(len(db)):
        c, f = db.frame_of(i)
        assert 0 <= f and f + horizon < clips[c].frames
        assert db.row_of(c, f) == i
        seen.add((c, f))
    assert db.row_of(0, 200 - horizon) is None
    assert len(seen) == len(db)


def test_query_matches_the_database_row(example):
    db = MotionDatabase([example])
    nk = len(db.offsets)
    for i in (1, 50, 119):
        raw = db.raw[i].astype(np.float64)
        traj = np.concatenate([raw[db.groups["trajectory_position"]].reshape(nk, 2),
                               raw[db.groups["trajectory_direction"]].reshape(nk, 2)], axis=1)
        q = db.query(example.local[i - 1:i + 1], traj)
        np.testing.assert_allclose(q, db.features[i], atol=1e-3)
        q2 = db.query(example.global_matrices(slice(i - 1, i + 1)), traj)
        np.testing.assert_allclose(q2, q, atol=1e-3)
        assert db.search(q)[0] == i


def test_real_clips_and_mirror():
    clips = [skelsimd.load_bvh(os.path.join(DATA, f"cmu_131_0{k}.bvh.gz")) for k in (1, 2)]
    db = MotionDatabase(clips, mirror=True)
    assert len(db.clips) == 4 and db.features.shape[1] == 27
    assert [db.clips[0].skeleton.names[j] for j in db._joints] == ["LeftAnkle", "RightAnkle"]
    # a mirrored frame: feet swap and the side coordinate flips
    r0, r1 = db.row_of(0, 300), db.row_of(2, 300)
    a, b = db.raw[r0], db.raw[r1]
    np.testing.assert_allclose(a[:3] * [-1, 1, 1], b[3:6], atol=1e-2)


def test_errors(example):
    db = MotionDatabase([example])
    d = db.features.shape[1]
    with pytest.raises(ValueError, match="query"):
        db.search(np.zeros(d + 1))
    bad = np.zeros(d, np.float32)
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"query\[3\]"):
        db.search(bad)
    with pytest.raises(ValueError, match=r"query\[3\]"):
        db.search(bad.astype(np.float64))
    with pytest.raises(ValueError, match="queries"):
        db.search_many(bad[None])
    with pytest.raises(ValueError, match="queries"):
        db.search_many(np.zeros((2, d - 1)))
    with pytest.raises(ValueError, match="clips"):
        MotionDatabase([])
    with pytest.raises(ValueError, match="clips"):
        MotionDatabase([example[:100]])          # no frame has a whole second ahead
    other = skelsimd.load_bvh(os.path.join(DATA, "cmu_01_01.bvh.gz"))[:200]
    with pytest.raises(ValueError, match=r"clips\[1\]"):
        MotionDatabase([example, other])
    with pytest.raises(ValueError, match="features"):
        MotionDatabase.from_features(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="exclude"):
        db.search(db.features[0], exclude=[(5, 2)])
    with pytest.raises(ValueError, match="trajectory"):
        db.query(example.local[:2], np.zeros((2, 4)))
    with pytest.raises(ValueError, match="pose"):
        db.query(example.local[:3], np.zeros((3, 4)))


# --- inertialization ----------------------------------------------------------------------------

def test_inertialization_continuous_and_decays(rng):
    j, dt, hl = 5, 1.0 / 120, 0.15
    src = np.zeros((j, 8))
    src[:, :4] = rng.normal(size=(j, 4))
    src[:, :4] /= np.linalg.norm(src[:, :4], axis=1, keepdims=True)
    src[:, 4:7] = rng.normal(size=(j, 3))
    src[:, 7] = 1
    dst = src.copy()
    small = rng.normal(size=(j, 3)) * 0.02                          # offsets of about 2 degrees
    from skelsimd._rotation64 import quat_mul
    from skelsimd.reference.inertialize import qexp
    dst[:, :4] = quat_mul(qexp(small), src[:, :4])
    dst[:, 4:7] += rng.normal(size=(j, 3))
    sv = rng.normal(size=(j, 6))
    off, offv = skelsimd.inertialize_transition(src, sv, dst, np.zeros((j, 6)))
    out0, _, _ = skelsimd.inertialize_update(dst, off, offv, halflife=hl, dt=0.0)
    np.testing.assert_allclose(out0[:, 4:7], src[:, 4:7], atol=1e-5)
    same = np.abs(np.sum(out0[:, :4] * src[:, :4], axis=1))
    np.testing.assert_allclose(same, 1, atol=1e-5)                 # same rotation
    h = 1e-4
    out1, _, _ = skelsimd.inertialize_update(dst, off, offv, halflife=hl, dt=h)
    vel = skelsimd.pose_velocity(out0, out1, h)                    # the target stream is still
    np.testing.assert_allclose(vel[:, 3:], sv[:, 3:], atol=1e-2)     # exact for translations
    # rotations: to first order in the offset angle (the scaled angle-axis is decayed)
    np.testing.assert_allclose(vel[:, :3], sv[:, :3], atol=0.1 * np.abs(sv).max())
    big = dst.copy()                                                # a large offset decays too
    big[:, :4] = rng.normal(size=(j, 4))
    big[:, :4] /= np.linalg.norm(big[:, :4], axis=1, keepdims=True)
    boff, boffv = skelsimd.inertialize_transition(src, sv, big, np.zeros((j, 6)))
    b0, _, _ = skelsimd.inertialize_update(big, boff, boffv, halflife=hl, dt=0.0)
    np.testing.assert_allclose(np.abs(np.sum(b0[:, :4] * src[:, :4], axis=1)), 1, atol=1e-5)
    late, _, _ = skelsimd.inertialize_update(dst, off, offv, halflife=hl, dt=20 * hl)
    np.testing.assert_allclose(late[:, 4:7], dst[:, 4:7], atol=1e-4)
    np.testing.assert_allclose(np.abs(np.sum(late[:, :4] * dst[:, :4], axis=1)), 1, atol=1e-6)
    x, v = ref.decay(off.astype(np.float64), offv.astype(np.float64), hl, 0.3)  # closed form
    _, off3, offv3 = skelsimd.inertialize_update(dst, off, offv, halflife=hl, dt=0.3)
    scale = max(1.0, float(np.abs(offv).max() + 2 * np.log(2) / hl * np.abs(off).max()))
    np.testing.assert_allclose(off3, x, atol=bound("inertialize.update") * scale)
    np.testing.assert_allclose(offv3, v, atol=bound("inertialize.update") * scale)
    # stepping frame by frame equals one step of the same total time
    o, ov = off, offv
    for _ in range(12):
        _, o, ov = skelsimd.inertialize_update(dst, o, ov, halflife=hl, dt=dt)
    _, o2, _ = skelsimd.inertialize_update(dst, off, offv, halflife=hl, dt=12 * dt)
    np.testing.assert_allclose(o, o2, atol=12 * bound("inertialize.update") * scale)


def test_clip_transition_has_no_pop(example):
    a, b = example[:100], example[150:]
    t = a.transition(b, halflife=0.1)
    assert t.frames == a.frames + b.frames
    np.testing.assert_array_equal(t.local[:100], a.local)
    g = t.global_positions().astype(np.float64)
    step = np.diff(g, axis=0)                                      # (F - 1, J, 3)
    accel = np.abs(np.diff(step, axis=0)).max(axis=(1, 2))
    around = accel[96:103].max()
    typical = np.percentile(np.abs(np.diff(a.global_positions().astype(np.float64), 2, axis=0))
                            .max(axis=(1, 2)), 99)
    assert around <= 3 * typical
    # decays to the target's own pose (relative to the root: local joints below it)
    np.testing.assert_allclose(t.local[-1, 1:], b.local[-1, 1:], atol=1e-3)
    with pytest.raises(ValueError, match="halflife"):
        a.transition(b, halflife=0)


def test_clip_transition_keeps_the_feet_planted(example):
    """A CMU clip switched to a later part of itself: the feet in contact across the switch slide
    with the offsets unless the contacts are kept; frames away from the switch are unchanged."""
    from skelsimd.footplant import _labels
    legs = [("LeftHip", "LeftKnee", "LeftAnkle"), ("RightHip", "RightKnee", "RightAnkle")]
    a, b = example[:100], example[150:]
    hl = 0.1
    plain = a.transition(b, halflife=hl, contact_speed=15.0)      # no feet: contacts not kept
    kept = a.transition(b, halflife=hl, feet=legs, contact_speed=15.0)
    assert kept.frames == plain.frames
    window = np.zeros(kept.frames, bool)
    window[a.frames - 10:a.frames + int(10 * hl / example.frame_time)] = True
    for leg in legs:
        labels = np.concatenate([_labels(a, a.contacts(leg[2], 15.0), "a"),
                                 _labels(b, b.contacts(leg[2], 15.0), "b")]) & window
        before = skelsimd.foot_sliding(plain, leg[2], labels)
        after = skelsimd.foot_sliding(kept, leg[2], labels)
        assert before.size > 20                                    # the foot is planted there
        assert after.mean() < 0.1 * before.mean(), (leg, before.mean(), after.mean())
    changed = np.flatnonzero(np.any(kept.local != plain.local, axis=(1, 2)))
    assert changed.min() > 40                                      # contacts before: untouched
    g = kept.global_positions().astype(np.float64)                 # still no pop
    accel = np.abs(np.diff(g, 2, axis=0)).max(axis=(1, 2))
    typical = np.percentile(np.abs(np.diff(a.global_positions().astype(np.float64), 2, axis=0))
                            .max(axis=(1, 2)), 99)
    assert accel[a.frames - 5:a.frames + 5].max() <= 3 * typical
    with pytest.raises(ValueError, match="contact_speed"):
        a.transition(b, feet=legs)
    off = a.transition(b, feet=legs, contact_speed=15.0, keep_contacts=False)
    np.testing.assert_array_equal(off.local, plain.local)


def test_search_many_from_threads(rng):
    from concurrent.futures import ThreadPoolExecutor
    f = rng.normal(size=(3000, 27)).astype(np.float32)
    db = MotionDatabase.from_features(f)
    qs = rng.normal(size=(200, 27)).astype(np.float32)
    want = db.search_many(qs)
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda _: db.search_many(qs), range(8)))
    for idx, cost in got:
        np.testing.assert_array_equal(idx, want[0])
        np.testing.assert_array_equal(cost, want[1])


# --- a database from a dataset store --------------------------------------------------------------

@pytest.mark.dask
def test_database_from_a_dataset_store(example, tmp_path):
    """A store written by the dataset pipeline (``python -m skelsimd dataset``) gives the
    database of its clips, from its path or an open group; bad stores are ValueErrors."""
    zarr = pytest.importorskip("zarr")
    pytest.importorskip("dask")
    import shutil
    from skelsimd.dask.dataset import build_dataset
    src = tmp_path / "in"
    src.mkdir()
    bvh = os.path.join(os.path.dirname(skelsimd.__file__), "data", "cmu_131_01_excerpt.bvh")
    shutil.copy(bvh, src / "b.bvh")
    skelsimd.save_bvh(example[:150], str(src / "a.bvh"))
    store = tmp_path / "out.zarr"
    report = build_dataset(str(src), str(store), steps=[], scheduler="synchronous", progress=False)
    assert len(report.written) == 2 and not report.failed
    want = MotionDatabase([skelsimd.load_bvh(str(src / "a.bvh")), skelsimd.load_bvh(bvh)],
                          mirror=True)
    for source in (str(store), store, zarr.open_group(str(store), mode="r")):
        db = MotionDatabase(source, mirror=True)
        assert [c.frames for c in db.clips] == [150, 240, 150, 240]   # sorted group names
        np.testing.assert_array_equal(db.features, want.features)
        assert db.search(db.features[7]) == (7, 0.0)
    with pytest.raises(ValueError, match="clips"):
        MotionDatabase(str(tmp_path / "missing.zarr"))
    root = zarr.open_group(str(store), mode="r+")
    del root["b"]["local"]
    with pytest.raises(ValueError, match="group 'b'"):
        MotionDatabase(str(store))
    other = tmp_path / "other"                                     # two skeletons: refused
    other.mkdir()
    shutil.copy(bvh, other / "a.bvh")
    shutil.copy(os.path.join(DATA, "20tab_freebvh_excerpt.bvh"), other / "b.bvh")
    build_dataset(str(other), str(tmp_path / "two.zarr"), steps=[], scheduler="synchronous",
                  progress=False)
    with pytest.raises(ValueError, match=r"clips\[1\]"):
        MotionDatabase(str(tmp_path / "two.zarr"))
