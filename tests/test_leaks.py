"""Leaks: every public function and method called many times on a success path and on error
paths (TypeError and ValueError raised at different stages of the validation, some after
arrays and scratch memory were allocated), with the memory Python and NumPy hold (tracemalloc
traces both, and the glue's PyMem buffers) and the reference counts of the arguments and of
shared objects (None, True, False, dtypes, exception types) checked before and after.

The paths come from the registry of the public API's fuzz calls (tests/catalog.py, fixed seed): for each
public entry point one successful call and up to three failing calls with different messages,
plus hand-written paths for the places that allocate before they can fail.

NumPy 2.4 itself leaks one reference to the float64 dtype per ``np.empty(shape)`` /
``np.zeros(shape)`` with the default dtype (a control loop measures it); that dtype is a
singleton, so no memory is lost. Its count is therefore only required to move by a whole number
of references per call when the control shows the drift, and not at all otherwise.
"""
import ctypes
import gc
import io
import os
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np
import pytest

import skelsimd
from skelsimd import _core
from skelsimd import testing as T

import catalog  # noqa: E402

SKIP = {"plot_surface", "Clip.plot", "Skeleton.plot", "Surface.plot", "Clip.animate"}  # matplotlib
# skelsimd.dask's kernels (when dask is installed) wrap the in-memory ones checked here; dask
# keeps caches of its own (tokens, graph names), so they are not leak paths.
SKIP |= {n for n in catalog.CATALOG if n.startswith("dask.")}
SHARED = {"None": None, "True": True, "False": False, "float32": np.dtype(np.float32),
          "int32": np.dtype(np.int32), "int64": np.dtype(np.int64), "bool": np.dtype(np.bool_),
          "TypeError": TypeError, "ValueError": ValueError}
FLOAT64 = np.dtype(np.float64)


def _f64_drift_per_call():
    gc.collect()
    before = sys.getrefcount(FLOAT64)
    for _ in range(100):
        np.zeros(3)
    gc.collect()
    return (sys.getrefcount(FLOAT64) - before) / 100


F64_DRIFTS = _f64_drift_per_call() != 0


def catalog_paths(max_errors=3, tries=400):
    """[(id, call)] from the registry's fuzz calls: per entry point one success and up to max_errors
    failures with distinct messages."""
    paths = []
    for name in catalog.NAMES:
        if name in SKIP:
            continue
        ok, errors = None, {}
        for i in range(tries):
            try:
                _, _, fn, args, kwargs, outs, _ = _build(name, i)
            except Exception:  # noqa: BLE001  (a generator error)
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn(*args, **kwargs)
                outcome = "ok"
            except (TypeError, ValueError) as exc:
                outcome = f"{type(exc).__name__}: {str(exc)[:40]}"
            except Exception:  # noqa: BLE001  (OSError, MemoryError: not leak paths)
                continue
            if outcome == "ok" and ok is None:
                ok = (fn, args, kwargs)
            elif outcome != "ok" and outcome not in errors and len(errors) < max_errors:
                errors[outcome] = (fn, args, kwargs)
            if ok is not None and len(errors) >= max_errors:
                break
        if ok is not None:
            paths.append((f"{name}-ok", ok))
        for k, (msg, call) in enumerate(errors.items()):
            paths.append((f"{name}-error{k}", call))
    return paths


def _build(name, i):
    """Case i of the catalog entry `name` (its own stream of seeds)."""
    rng = np.random.default_rng([7, catalog.NAMES.index(name), i])
    g = catalog.Gen(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = catalog.CATALOG[name][1](g)
    return (name, g) + tuple(made[:4]) + (None,)


def _parse_motion_error():
    _core._parse_motion(b"1 2 3\n4 x 6\n", 0, 2, 3, 1)


def _skin_bad_index():
    rng = np.random.default_rng(1)
    p, n, idx, w = T.random_mesh(100, 4, 10, rng)
    idx = idx.copy()
    idx[50, 2] = 10
    pal = T.random_joints(10, rng)
    return lambda: skelsimd.skin(p, idx, w, pal, normals=n)


def _palette_bad_out():
    rng = np.random.default_rng(2)
    local = T.random_joints((3, 12), rng)
    ib = T.random_joints(12, rng)
    out = np.zeros((3, 12, 3, 4), np.float64)
    parents = T.random_parents(12, rng)
    return lambda: skelsimd.skinning_palette(local, parents, ib, out, precision="float64")


def _walk_float64_bad_out():
    rng = np.random.default_rng(3)
    local = T.random_qts((4, 20), rng)
    parents = T.random_parents(20, rng)
    out = np.zeros((4, 20, 3, 3), np.float32)
    return lambda: skelsimd.qts_local_to_global_matrix(local, parents, out, precision="float64")


def _blend_bad_index():
    rng = np.random.default_rng(4)
    a = T.random_qts((5, 30), rng)
    return lambda: skelsimd.blend_joints(a, a, np.linspace(0, 1, 5), index=[1, 2, 2])


def _surface_normals_bad_out():
    s = skelsimd.Surface(10, 10)
    out = np.zeros((3, 10, 9), np.float32)
    return lambda: s.normals(out)


def _load_bvh_truncated():
    with open(skelsimd.data.example_path(), "rb") as f:
        data = f.read()
    cut = data[:data.index(b"MOTION") + 2000]     # the header and a few frames, cut mid-frame
    return lambda: skelsimd.load_bvh(cut)


def _skeleton_cycle():
    return lambda: skelsimd.Skeleton.from_parents_any_order([1, 2, 0, -1])


HAND_WRITTEN = [
    ("_parse_motion-bad-number", lambda: _parse_motion_error),
    ("skin-index-after-conversions", _skin_bad_index),
    ("skinning_palette-f64-bad-out", _palette_bad_out),
    ("qts_walk-f64-bad-out", _walk_float64_bad_out),
    ("blend_joints-repeated-index", _blend_bad_index),
    ("Surface.normals-bad-out", _surface_normals_bad_out),
    ("load_bvh-truncated", _load_bvh_truncated),
    ("Skeleton-cycle", _skeleton_cycle),
]

# The checks run in a fresh interpreter (test_leaks_in_a_fresh_interpreter starts it): after the
# rest of the suite the process holds threads, caches and a large heap of other tests' objects
# (dask clusters, hypothesis), which made a full garbage collection per window slow (270 s
# instead of 120 s for this file) and traced memory noisy (10 KB per 100 calls of paths that
# grow by nothing alone).
IN_CHILD = os.environ.get("SKELSIMD_LEAK_CHILD") == "1"
PATHS = catalog_paths() if IN_CHILD else []


def _shared(key, v):
    """Objects shared with the whole interpreter: None, True, False, the dtypes and exception
    types of SHARED, and CPython's small ints (-5 to 256). Their counts drift by a few
    references over hundreds of calls whatever the call does (seen: 1-2 per 600 calls of
    Skeleton.chain(5, 0) on a small int, -1 per 321 calls on None), so for them only a move of
    at least one reference per ten calls counts (a leak on every call moves by one per call);
    the arguments' own objects must not move at all."""
    return key in SHARED or (type(v) is int and -5 <= v <= 256)


def _watched(args, kwargs):
    objs = dict(SHARED)
    for k, v in list(enumerate(args)) + list(kwargs.items()):
        if not isinstance(v, str):   # interned strings are shared with the whole interpreter
            objs[f"arg {k}"] = v
    return objs


def _calls(call, n):
    fn, args, kwargs = call
    files = [a for a in list(args) + list(kwargs.values()) if isinstance(a, io.StringIO)]
    for _ in range(n):
        for f in files:              # save_bvh's target: start afresh (it holds the text)
            f.seek(0)
            f.truncate()
        try:
            fn(*args, **kwargs)
        except (TypeError, ValueError):
            pass


def _window(call, n, watched):
    """(bytes held, {name: reference count}, float64 dtype references) after n more calls."""
    _calls(call, n)
    gc.collect()
    return (tracemalloc.get_traced_memory()[0], {k: sys.getrefcount(v) for k, v in watched.items()},
            sys.getrefcount(FLOAT64))


def check_no_leak(call):
    """Runs call (fn, args, kwargs) in a warm-up of two windows and two windows of n calls. A leak grows in
    both windows: memory by more than 8 bytes a call plus 8 KiB (caches, NumPy's allocation
    cache and free lists fill up in the first calls and then stay), or a reference count that
    moves in both windows.

    Windows are 200 to 400 calls, 100 for a call of 2 ms or more (the Python-level setups of
    retargeting: a window of them under tracemalloc takes seconds; a leak of 100 bytes a call
    still fails). Memory that grows in both windows is measured again in up to two more pairs of
    windows: a leak grows in every window, while a library's own caches that fill and empty in
    turn (usd-core holds a few kilobytes of Python objects for a while after a call, more so when
    other calls ran before) grow in some pairs only."""
    fn, args, kwargs = call
    watched = _watched(args, kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        _calls(call, 10)
        per_call = (time.perf_counter() - t0) / 10
        n = int(min(400, max(200 if per_call < 0.002 else 100, 0.03 / max(per_call, 1e-7))))
        limit = 8 * n + 8192
        tracemalloc.start()
        try:
            _window(call, n, watched)              # warm-up: caches fill, then stay (NumPy's
            base = _window(call, n, watched)       # small-block cache takes a few hundred calls)
            a = _window(call, n, watched)
            b = _window(call, n, watched)
            grew = (a[0] - base[0], b[0] - a[0])
            last = b[0]
            for _ in range(2):
                if min(grew) <= limit:
                    break
                first, second = _window(call, n, watched)[0], _window(call, n, watched)[0]
                grew, last = (first - last, second - first), second
        finally:
            tracemalloc.stop()
    assert min(grew) <= limit, f"memory grew by {grew[0]} and {grew[1]} bytes in two windows of {n} calls"
    moved = {k: (a[1][k] - base[1][k], b[1][k] - a[1][k]) for k in watched
             if a[1][k] != base[1][k] and b[1][k] != a[1][k]
             and not (_shared(k, watched[k]) and abs(a[1][k] - base[1][k]) < n // 10
                      and abs(b[1][k] - a[1][k]) < n // 10)}
    assert not moved, f"reference counts moved in both windows of {n} calls: {moved}"
    f64 = (a[2] - base[2], b[2] - a[2])
    if F64_DRIFTS:      # NumPy's own drift: a whole number of references per call, if any
        assert all(d >= 0 and d % n == 0 for d in f64), f"float64 dtype references moved by {f64}"
    else:
        assert f64 == (0, 0), f"float64 dtype references moved by {f64} over {n} calls"


@pytest.mark.skipif(IN_CHILD, reason="this is the child")
def test_leaks_in_a_fresh_interpreter():
    env = dict(os.environ, SKELSIMD_LEAK_CHILD="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # -o addopts=: one process, every test of this file (pyproject's addopts would spread the
    # windows over workers and deselect them as slow)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-o", "addopts=", os.path.abspath(__file__)], cwd=root, env=env, capture_output=True,
                         text=True, timeout=1800)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    print(summary)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary


child_only = pytest.mark.skipif(not IN_CHILD, reason="runs in the fresh interpreter")


@child_only
def test_the_catalog_covers_the_api():
    covered = {p.rsplit("-", 1)[0] for p, _ in PATHS}
    missing = catalog.public_api() - covered - SKIP
    assert not missing, f"no leak path for {sorted(missing)}"
    assert sum(p.endswith("-ok") for p, _ in PATHS) >= 60
    assert sum("-error" in p for p, _ in PATHS) >= 100


@child_only
@pytest.mark.parametrize("call", [c for _, c in PATHS], ids=[p for p, _ in PATHS])
def test_no_leak(call):
    check_no_leak(call)


@child_only
@pytest.mark.parametrize("make", [m for _, m in HAND_WRITTEN], ids=[i for i, _ in HAND_WRITTEN])
def test_no_leak_after_allocations(make):
    check_no_leak((make(), (), {}))


@child_only
def test_the_leak_check_detects_leaks():
    """The check itself fails on a leaking call (kept references, kept memory)."""
    kept = []
    with pytest.raises(AssertionError, match="memory grew"):
        check_no_leak((lambda: kept.append(np.zeros(16, np.float32)), (), {}))
    obj = np.zeros(4, np.float32)
    incref = ctypes.pythonapi.Py_IncRef
    incref.argtypes = [ctypes.py_object]
    with pytest.raises(AssertionError, match="reference counts moved"):
        check_no_leak((incref, (obj,), {}))
    with pytest.raises(AssertionError, match="reference counts moved"):    # a shared small int
        check_no_leak((incref, (5,), {}))
    with pytest.raises(AssertionError, match="reference counts moved"):    # None
        check_no_leak((lambda: kept.append(None), (), {}))
