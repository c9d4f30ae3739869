"""The one registry of skelsimd's public API that the API fuzzer (tests/fuzz/api_fuzz.py), the leak
tests (tests/test_leaks.py), the thread tests (tests/test_threads.py), the rank-limit tests
(tests/test_rank_limits.py, from CORE_AXES at the end) and the bit-identity test
(tests/test_bit_identity.py) read. A test asserts that it covers every public callable
(`public_api()`: the functions and classes of the skelsimd namespace and the public methods of its
classes).

Entry format (one line per public entry point in CATALOG, keyed by its public name, "Class.method"
for methods):

    "name": (weight, fuzz)                or  "name": (weight, fuzz, valid)

* weight: how often the fuzzer draws the entry, relative to the others (cheap kernels 1-5,
  slow pictures 0.03).
* fuzz(g): one call drawn by a `Gen` as a hostile or careless user would make it: mostly valid
  operands, some broken (g.array, g.out, g.parents, g.integer, g.real, g.choice, g.boolean; each
  breaks its value with the case's probability). Returns (fn, args, kwargs, outs) or
  (fn, args, kwargs, outs, state): `outs` names the kwargs that are outputs, `state()` snapshots
  the receiver (an array) that a failed call must leave unchanged. The leak tests take one
  success and up to three distinct failures per entry from these calls.
* valid(rng), optional: [(fn, args, kwargs), ...] valid calls on realistic sizes built from the
  NumPy generator `rng` (kernel entries: a few thousand elements; the calls' results are arrays,
  tuples of arrays, or objects whose arrays `result_arrays` lists). The thread tests run them from
  many threads at once against the serial results, the bit-identity test on every SIMD variant
  against the scalar one; they include the inputs that reach each kernel's special blocks (the
  family tests hold no bit-identity test of their own). Arguments hold no state that a call
  changes (no shared Generator), so that threads repeat the serial results.

Exceptions other than TypeError and ValueError that an entry may raise are listed in ALLOWED_FOR
(files fail as files do, allocators run out of memory).
"""
import io
import os
import sys
import tempfile
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:     # last: a PYTHONPATH entry (the sanitizer build) comes first
    sys.path.append(ROOT)

import skelsimd  # noqa: E402
from skelsimd import testing as T  # noqa: E402

ALLOWED = (TypeError, ValueError)
# File arguments may also fail as files do (a path that does not exist, an unwritable target).
# The allocators may run out of memory when asked for more than the machine has.
ALLOWED_FOR = {"load_bvh": (OSError,), "save_bvh": (OSError,), "load_gltf": (OSError,),
               "save_gltf": (OSError,), "load_skc": (OSError,), "save_skc": (OSError,),
               # without the optional usd-core, the USD functions raise ImportError
               "load_usd": (OSError, ImportError), "save_usd": (OSError, ImportError),
               "humanoid_map": (OSError,),
               "empty_aligned": (MemoryError,), "zeros_aligned": (MemoryError,),
               "Surface": (MemoryError,)}
# Known failures of the rules, found by this registry's entries and not fixed yet: the fuzzer
# counts them as outcomes "known <type>" (not failures) so that they stay visible in its summary;
# remove an entry when its bug is fixed.
KNOWN_BUGS = {}
MAX_ELEMENTS = 200_000          # per generated array (bounded memory)


# --- value generators ------------------------------------------------------------------------

class Gen:
    """Draws arguments for one case. `p_bad` is the chance that a given argument is broken."""

    def __init__(self, rng):
        self.rng = rng
        self.p_bad = rng.choice([0.0, 0.05, 0.15, 0.3, 0.6])
        self.notes = []

    def chance(self, p):
        return self.rng.random() < p

    def bad(self):
        return self.chance(self.p_bad)

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def int_(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    # - shapes
    def lead(self, max_ndim=2, max_dim=4):
        nd = self.int_(0, max_ndim)
        return tuple(self.int_(1, max_dim) for _ in range(nd))

    def values(self, shape, kind="unit"):
        n = int(np.prod(shape)) if shape else 1
        if kind == "quat":
            v = T.random_quaternions(shape[:-1], self.rng).astype(np.float32) if shape[-1:] == (4,) \
                else self.rng.standard_normal(shape)
        elif kind == "joint" and shape[-2:] == (3, 4):
            v = T.random_joints(shape[:-2], self.rng)
        elif kind == "qts" and shape[-1:] == (8,):
            v = T.random_qts(shape[:-1], self.rng)
        elif kind == "positive":
            v = self.rng.uniform(0.1, 2.0, size=shape)
        else:
            v = self.rng.uniform(-1, 1, size=shape)
        v = np.asarray(v, dtype=np.float32).reshape(shape)
        if n and self.chance(0.1):
            special = self.pick([np.nan, np.inf, -np.inf, 3.4e38, -3.4e38, 1e-40, -0.0, 1e30, 0.0])
            v.flat[self.int_(0, n - 1)] = special
            self.notes.append(f"special value {special}")
        return v

    def array(self, shape, kind="unit"):
        """A float32 operand of `shape`, or (with p_bad) a broken version of it."""
        if int(np.prod(shape, dtype=np.int64)) > MAX_ELEMENTS:
            shape = (2,) + tuple(shape[-2:])
        a = self.values(shape, kind)
        if self.bad():
            return self.break_array(a)
        if self.chance(0.15):
            return self.relayout(a)
        return a

    def relayout(self, a):
        """The same values in another memory layout (valid: converted by the glue)."""
        how = self.pick(["strided", "fortran", "misaligned", "swapped", "readonly", "float64",
                         "list", "int", "broadcast"])
        self.notes.append(f"layout {how}")
        if how == "strided" and a.ndim:
            wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
            wide[..., ::2] = a
            return wide[..., ::2]
        if how == "fortran":
            return np.asfortranarray(a)
        if how == "misaligned":
            raw = np.zeros(a.nbytes + 1, np.uint8)
            m = raw[1:].view(a.dtype).reshape(a.shape) if a.nbytes else a
            m[...] = a
            return m
        if how == "swapped":
            return a.astype(a.dtype.newbyteorder())
        if how == "readonly":
            b = a.copy()
            b.flags.writeable = False
            return b
        if how == "float64":
            return a.astype(np.float64)
        if how == "list":
            return a.tolist()
        if how == "int":
            return np.round(np.nan_to_num(a)).astype(np.int32)
        if how == "broadcast" and a.ndim:
            return np.broadcast_to(a[:1], a.shape)
        return a

    def break_array(self, a):
        how = self.pick(["dtype", "shape", "ndim", "manydims", "empty", "scalar", "pyobj", "huge",
                         "nan", "string", "ragged", "zero_strides"])
        self.notes.append(f"broken array: {how}")
        if how == "dtype":
            dt = self.pick([np.complex64, np.complex128, object, "U3", "S2", "M8[s]", "m8[s]",
                            np.float16, np.int8, np.uint64, np.bool_, "V4"])
            try:
                return a.astype(dt)
            except (TypeError, ValueError):
                return np.zeros(a.shape, dt)
        if how == "shape" and a.ndim:
            shape = list(a.shape)
            shape[self.int_(0, a.ndim - 1)] = self.int_(0, 9)
            return self.values(tuple(shape))
        if how == "ndim":
            if a.ndim and self.chance(0.5):
                return a.reshape(-1) if a.size else np.zeros(a.shape[1:], a.dtype)
            return a[None]
        if how == "manydims":
            nd = self.int_(30, 64)
            keep = a.shape[-min(a.ndim, 3):] if a.ndim else ()
            lead = (1,) * max(0, nd - len(keep))
            return np.ones(lead + keep, np.float32)
        if how == "empty":
            shape = list(a.shape) or [0]
            shape[self.int_(0, len(shape) - 1)] = 0
            return np.zeros(shape, np.float32)
        if how == "scalar":
            return self.pick([1.5, 0, -1, True, np.float32(2), np.nan, 10**400 if False else 1e308])
        if how == "pyobj":
            return self.pick([None, "abc", object(), {"a": 1}, b"\x00\x01", [], [[]], (1, "a"),
                              slice(1), Ellipsis, 2**70, -2**70, [[1, 2], [3]]])
        if how == "huge":
            return np.full(a.shape, self.pick([1e39, -1e300, 2.0**128, 1e308]), np.float64)
        if how == "nan":
            return np.full(a.shape, np.nan, np.float32)
        if how == "string":
            return "1 2 3"
        if how == "ragged":
            return [a.tolist(), [1]] if a.ndim else [[1, 2], [1]]
        if how == "zero_strides" and a.ndim:
            return np.lib.stride_tricks.as_strided(a, strides=(0,) * a.ndim)
        return a

    def out(self, shape, inputs=()):
        """An `out` argument: mostly None or a valid array; sometimes an input (in place), a
        partial overlap of one, or a broken array."""
        r = self.rng.random()
        if r < 0.45:
            return None
        if r < 0.65:
            return np.full(shape, 7.0, np.float32)
        arrays = [x for x in inputs if isinstance(x, np.ndarray) and x.dtype == np.float32
                  and x.flags.c_contiguous and x.flags.writeable]
        if r < 0.75 and arrays:
            x = self.pick(arrays)
            self.notes.append("out is an input")
            return x
        if r < 0.82 and arrays:
            x = self.pick(arrays)
            flat = x.reshape(-1)
            n = int(np.prod(shape))
            if flat.size >= 2 and n and n <= flat.size + 1:
                self.notes.append("out partially overlaps an input")
                start = 1 if flat.size - 1 >= n else 0
                try:
                    return flat[start:start + n].reshape(shape)
                except ValueError:
                    pass
        how = self.pick(["dtype", "shape", "readonly", "strided", "list", "misaligned", "swapped"])
        self.notes.append(f"broken out: {how}")
        o = np.full(shape, 7.0, np.float32)
        if how == "dtype":
            return o.astype(self.pick([np.float64, np.float16, np.int32]))
        if how == "shape":
            return np.full((self.int_(0, 3),) + tuple(shape), 7.0, np.float32)
        if how == "readonly":
            o.flags.writeable = False
            return o
        if how == "strided" and o.ndim:
            return np.full(shape[:-1] + (2 * shape[-1],), 7.0, np.float32)[..., ::2]
        if how == "list":
            return o.tolist()
        if how == "misaligned":
            raw = np.zeros(o.nbytes + 1, np.uint8)
            return raw[1:].view(np.float32).reshape(shape) if o.nbytes else o
        if how == "swapped":
            return o.astype(o.dtype.newbyteorder())
        return o

    def parents(self, joints):
        if joints <= 0:
            p = np.zeros(0, np.int32)
        else:
            p = self.pick([T.random_parents, lambda n, rng: T.chain_parents(n)])(joints, self.rng)
        if self.chance(0.2):
            return skelsimd.Skeleton(p)
        if not self.bad():
            if self.chance(0.2):
                return p.astype(self.pick([np.int64, np.int16, np.uint32, np.int8]) if joints < 120
                                else np.int64)
            return p
        how = self.pick(["forward", "below", "huge", "float", "length", "2d", "cycle", "skeleton",
                         "list", "uint64", "swapped", "bool", "strided"])
        self.notes.append(f"broken parents: {how}")
        p = p.astype(np.int64)
        j = self.int_(0, max(joints - 1, 0))
        if how == "forward" and joints:
            p[j] = j + self.int_(0, 3)
        elif how == "below" and joints:
            p[j] = -self.int_(2, 2**40)
        elif how == "huge" and joints:
            p[j] = self.pick([2**31, 2**30, 2**62, 2**31 - 1])
        elif how == "float":
            return p.astype(np.float64)
        elif how == "length":
            return np.concatenate([p, [-1]]) if self.chance(0.5) else p[:-1]
        elif how == "2d":
            return p[None]
        elif how == "cycle" and joints > 1:
            p[0] = joints - 1
        elif how == "skeleton":
            return skelsimd.Skeleton(T.chain_parents(joints + self.int_(1, 3)))
        elif how == "list":
            return p.tolist() + (["a"] if self.chance(0.5) else [])
        elif how == "uint64":
            q = p.astype(np.uint64)
            if joints:
                q[j] = np.uint64(2**64 - 1)
            return q
        elif how == "swapped":
            return p.astype(">i4")
        elif how == "bool":
            return p.astype(bool)
        elif how == "strided":
            w = np.zeros(2 * joints, np.int32)
            w[::2] = p
            return w[::2]
        return p

    def index_array(self, n, distinct=True):
        k = self.int_(0, n)
        idx = self.rng.permutation(n)[:k].astype(np.int32) if n else np.zeros(0, np.int32)
        if not self.bad():
            return idx if self.chance(0.8) else idx.astype(np.int64)
        how = self.pick(["repeat", "range", "negative", "float", "2d", "huge", "list"])
        self.notes.append(f"broken index: {how}")
        idx = idx.astype(np.int64)
        if how == "repeat" and k >= 2:
            idx[1] = idx[0]
        elif how == "range" and k:
            idx[0] = n + self.int_(0, 5)
        elif how == "negative" and k:
            idx[0] = -self.int_(1, 2**40)
        elif how == "float":
            return idx.astype(np.float64)
        elif how == "2d":
            return idx[None]
        elif how == "huge" and k:
            idx[0] = 2**62
        elif how == "list":
            return idx.tolist() + [None]
        return idx

    def integer(self, lo, hi):
        if not self.bad():
            return self.int_(lo, hi)
        v = self.pick([-1, hi + 1, 2**63, -2**63 - 1, 2**200, 1.5, True, "1", None, np.int64(-5),
                       np.uint64(2**64 - 1), float("nan"), np.float32(2.0)])
        self.notes.append(f"int {v!r}")
        return v

    def real(self, valid):
        if not self.bad():
            return valid
        v = self.pick([float("nan"), float("inf"), -float("inf"), 1e39, -1e39, 1e-300, 1e-45,
                       10**400, -10**400, 0.0, -1.0, 1e300, "1.0", None, True, 1j, [1.0],
                       np.float64(1e308), np.float32(np.nan), 2**64, -0.0])
        self.notes.append(f"real {v!r}")
        return v

    def choice(self, valid):
        if not self.bad():
            return self.pick(valid)
        v = self.pick(["", "nope", valid[0].upper(), valid[0] + "\0", valid[0] + " ", None, 3,
                       b"fast", ["fast"]])
        self.notes.append(f"choice {v!r}")
        return v

    def boolean(self):
        if not self.bad():
            return bool(self.int_(0, 1))
        v = self.pick([None, 2, "yes", np.bool_(True), [], [1], 0.5, np.array([True, False])])
        self.notes.append(f"bool {v!r}")
        return v


# --- the catalog -----------------------------------------------------------------------------

def _walk(fn, block, kind):
    def make(g):
        lead, J = g.lead(), g.int_(0, 12)
        local = g.array(lead + (J,) + block, kind)
        parents = g.parents(J)
        kw = {}
        if g.chance(0.3):
            kw["start"] = g.integer(0, J)
        if g.chance(0.3):
            kw["stop"] = g.integer(0, J)
        if fn in ("global_to_local",):
            if g.chance(0.3):
                kw["rigid"] = g.boolean()
        elif g.chance(0.3):
            kw["precision"] = g.choice(["float32", "float64"])
        out_block = (3, 4) if fn == "qts_local_to_global_matrix" else block
        kw["out"] = g.out(lead + (J,) + out_block, [local])
        return getattr(skelsimd, fn), (local, parents), kw, ("out",)
    return make


def _skeleton_walk(fn):
    """Skeleton.local_to_global / global_to_local: _walk's operands on a valid Skeleton (its
    joint count sometimes off by one), the arguments by position or keyword."""
    def make(g):
        lead, J = g.lead(), g.int_(1, 12)
        s = skelsimd.Skeleton(T.random_parents(J, g.rng))
        Jx = J + g.pick([-1, 1]) if g.bad() else J
        x = g.array(lead + (Jx, 3, 4), "joint")
        kw = {}
        if g.chance(0.3):
            kw["start"] = g.integer(0, J)
        if g.chance(0.3):
            kw["stop"] = g.integer(0, J)
        if g.chance(0.3):
            if fn == "global_to_local":
                kw["rigid"] = g.boolean()
            else:
                kw["precision"] = g.choice(["float32", "float64"])
        kw["out"] = g.out(lead + (Jx, 3, 4), [x])
        if g.chance(0.3):
            return getattr(s, fn), (x, kw.pop("out")), kw, ("args1",)
        return getattr(s, fn), (x,), kw, ("out",)
    return make


def _v_skeleton_walk(fn, **kw):
    def valid(rng):
        _, skel = _humanoid()
        x = T.random_joints((40, 96), rng)
        return [(getattr(skel, fn), (x,), kw)]
    return valid


def _binary(fn, a_block, b_block, out_block, kind_a="joint", kind_b="joint", names=("a", "b")):
    def make(g):
        la, lb = g.lead(), g.lead()
        if g.chance(0.6):
            lb = la
        a = g.array(la + a_block, kind_a)
        b = g.array(lb + b_block, kind_b)
        try:
            lead = np.broadcast_shapes(la, lb)
        except (ValueError, RuntimeError):
            lead = la
        out = g.out(lead + out_block, [a, b])
        return getattr(skelsimd, fn), (a, b), {"out": out}, ("out",)
    return make


def _unary(fn, in_block, out_block, kind="unit", flag=None):
    def make(g):
        lead = g.lead(3)
        x = g.array(lead + in_block, kind)
        kw = {}
        if flag and g.chance(0.5):
            kw[flag] = g.boolean()
        kw["out"] = g.out(lead + out_block, [x])
        return getattr(skelsimd, fn), (x,), kw, ("out",)
    return make


def _convert(fn, in_block, out_block, kind, *, seq=False, flags=(), layout=False):
    """A rotation conversion: one array, `seq` (Euler), boolean flags and the 6D layout, each
    sometimes broken."""
    def make(g):
        lead = g.lead(3)
        x = g.array(lead + in_block, kind)
        args = (x,)
        if seq:
            args += (g.pick(["xyz", "ZXY", "zxz", "XYX", "xyzz", "XyZ", "xxy", "", 3, None, b"xyz"]),)
        kw = {}
        for flag in flags:
            if g.chance(0.4):
                kw[flag] = g.boolean()
        if layout and g.chance(0.4):
            kw["layout"] = g.pick(["columns", "rows", "cols", None, 1])
        kw["out"] = g.out(lead + out_block, [x])
        return getattr(skelsimd, fn), args, kw, ("out",)
    return make


def _interp(fn):
    def make(g):
        lead = g.lead()
        q0 = g.array(lead + (4,), "quat")
        q1 = g.array(g.pick([lead, (), lead[-1:]]) + (4,), "quat")
        t = g.pick([lambda: g.real(float(g.rng.uniform(-0.5, 1.5))),
                    lambda: g.array(g.pick([lead, (), (1,)]), "unit")])()
        kw = {}
        if fn == "slerp" and g.chance(0.5):
            kw["method"] = g.choice(["fast", "exact"])
        kw["out"] = g.out(lead + (4,), [q0, q1])
        return getattr(skelsimd, fn), (q0, q1, t), kw, ("out",)
    return make


def _blend_joints(g):
    lead, J = g.lead(), g.int_(0, 12)
    a = g.array(lead + (J, 8), "qts")
    b = g.array(g.pick([lead, ()]) + (J, 8), "qts")
    t = g.pick([lambda: g.real(0.3), lambda: g.array(g.pick([lead, ()]), "unit")])()
    kw = {}
    if g.chance(0.5):
        kw["index"] = g.index_array(J)
    if g.chance(0.4):
        kw["method"] = g.choice(["fast", "exact", "nlerp"])
    kw["out"] = g.out(lead + (J, 8), [a, b])
    return skelsimd.blend_joints, (a, b, t), kw, ("out",)


def _blend_layers(g):
    lead, L, J = g.lead(1), g.int_(1, 4), g.int_(0, 8)
    layers = g.array(lead + (L, J, 8), "qts")
    w = g.array(g.pick([(L,), (L, J)]), "positive")
    out = g.out(lead + (J, 8), [layers])
    kw = {"out": out}
    if g.chance(0.3):   # additive layers: the fused pass
        kw["additive"] = [(g.array(g.pick([(), lead]) + (J, 8), "qts"),
                           g.real(float(g.rng.uniform(-1, 1))))
                          + ((g.array((J,), "unit"),) if g.chance(0.3) else ())
                          for _ in range(g.int_(0, 2))]
    return skelsimd.blend_layers, (layers, w), kw, ("out",)


def _skinning_palette(g):
    lead, J = g.lead(), g.int_(0, 12)
    local = g.array(lead + (J, 3, 4), "joint")
    ib = g.array(g.pick([(), lead]) + (J, 3, 4), "joint")
    kw = {}
    if g.chance(0.3):
        kw["precision"] = g.choice(["float32", "float64"])
    kw["out"] = g.out(lead + (J, 3, 4), [local, ib])
    return skelsimd.skinning_palette, (local, g.parents(J), ib), kw, ("out",)


def _skin(g):
    V, K, J = g.int_(0, 70), g.int_(1, 12), g.int_(1, 12)
    lead = g.lead(1)
    pos, nrm, idx, w = T.random_mesh(V, K, J, g.rng)
    positions = g.array(pos.shape, "unit") if g.bad() else pos
    if g.bad():
        idx = g.pick([lambda: idx.astype(np.float64), lambda: idx + J, lambda: -idx - 1,
                      lambda: idx[:, :0], lambda: np.full((V, 13), 0), lambda: idx.astype(np.uint64),
                      lambda: idx.T, lambda: (idx.astype(np.int64) + 2**32)])()
        g.notes.append("broken joint_indices")
    palette = g.array(lead + (J, 3, 4), "joint")
    kw = {}
    outs = ("out",)
    if g.chance(0.5):
        kw["normals"] = g.array(nrm.shape, "unit") if g.bad() else nrm
        kw["normals_out"] = g.out(lead + (V, 3), [positions, kw["normals"]])
        outs = ("out", "normals_out")
        if g.chance(0.1):
            kw["normals_out"] = kw.get("out")
    kw["out"] = g.out(lead + (V, 3), [positions])
    if "normals" in kw and g.chance(0.05):
        kw["normals_out"] = kw["out"]
    return skelsimd.skin, (positions, idx, w, palette), kw, outs


def _normalize_weights(g):
    w = g.array(g.lead(2) + (g.int_(1, 8),), "positive")
    return skelsimd.normalize_weights, (w,), \
        {"out": g.out(np.shape(w) if isinstance(w, np.ndarray) else (1,), [w])}, ("out",)


def _transform_points(g):
    lead = g.lead()
    m = g.array(lead + g.pick([(3, 4), (4, 4)]), "unit")
    p = g.array(g.pick([lead, (), (5,)]) + (3,), "unit")
    try:
        ol = np.broadcast_shapes(lead, p.shape[:-1]) if isinstance(p, np.ndarray) else lead
    except (ValueError, RuntimeError):
        ol = lead
    return skelsimd.transform_points, (m, p), {"out": g.out(ol + (3,), [p])}, ("out",)


def _qts_pack(g):
    lead = g.lead()
    q = g.array(lead + (4,), "quat")
    t = g.array(g.pick([lead, ()]) + (3,), "unit") if g.chance(0.7) else None
    s = g.array(g.pick([lead, ()]), "positive") if g.chance(0.5) else None
    kw = {"out": g.out(lead + (8,), [q, t, s])}
    if g.chance(0.3):
        kw["scalar_first"] = g.boolean()
    return skelsimd.qts_pack, (q, t, s), kw, ("out",)


def _qts_unpack(g):
    return skelsimd.qts_unpack, (g.array(g.lead() + (8,), "qts"),), \
        ({"scalar_first": g.boolean()} if g.chance(0.3) else {}), ()


def _aligned(fn):
    def make(g):
        shape = g.lead(3, 5)
        if g.bad():
            shape = g.pick([(-1,), (2**40, 2**40), 3.5, ("a",), None, (1,) * 65, -3, (2, -2),
                            (2**62,), [2.0]])
            g.notes.append(f"shape {shape!r}")
        kw = {}
        if g.chance(0.3):
            kw["align"] = g.pick([1, 16, 64, 4096]) if not g.bad() else \
                g.pick([0, -64, 48, 2**100, 64.0, "64", None])
        if g.chance(0.3):
            kw["dtype"] = g.pick([np.float64, np.int8, "f4"]) if not g.bad() else \
                g.pick(["nonsense", object, None, 3])
        return getattr(skelsimd, fn), (shape,), kw, ()
    return make


def _is_aligned(g):
    a = g.array((g.int_(0, 5),), "unit")
    align = g.pick([1, 16, 64]) if not g.bad() else g.pick([0, -1, 3.0, "64", None, 2**100])
    return skelsimd.is_aligned, (a, align), {}, ()


_EXAMPLE = None


def example_clip():
    global _EXAMPLE
    if _EXAMPLE is None:
        _EXAMPLE = skelsimd.data.load_example()
    return _EXAMPLE


def small_clip(g):
    c = example_clip()
    f0 = g.int_(0, 230)
    return c[f0:f0 + g.int_(0, 6)]


def _clip_method(name):
    def make(g):
        clip = small_clip(g)
        F = clip.frames
        args, kw = (), {}
        if name in ("global_matrices", "global_positions"):
            frames = g.pick([slice(None), g.int_(-F - 1, F), [0, F - 1] if F else [],
                             np.arange(F) if F else [], np.ones(F, bool)])
            if g.bad():
                frames = g.pick([5000, 2.5, np.array([1.5]), "a", None, slice(0.5, 3), -10**30,
                                 [True], np.array([2**63], np.uint64), slice(0, 3, 0)])
                g.notes.append(f"frames {frames!r}")
            args = (frames,)
            if name == "global_matrices" and g.chance(0.3):
                kw["out"] = g.out((F, len(clip.skeleton), 3, 4))
            if g.chance(0.3):
                kw["precision"] = g.choice(["float32", "float64"])
        elif name == "reorder":
            args = (g.choice(["depth-first", "breadth-first"]),)
        elif name == "sample":
            args = (g.pick([lambda: g.real(0.01), lambda: g.array((g.int_(0, 5),), "positive")])(),)
            if g.chance(0.3):
                kw["loop"] = g.boolean()
            if g.chance(0.3):
                kw["method"] = g.choice(["fast", "exact", "nlerp"])
        elif name == "resample":
            args = (g.real(float(g.rng.uniform(10, 200))),)
        elif name == "concatenate":
            args = tuple(g.pick([small_clip(g), small_clip(g), "clip", None,
                                 skelsimd.Clip(skelsimd.Skeleton([-1]), np.zeros((1, 1, 8)), 0.1)])
                         for _ in range(g.int_(0, 2)))
        elif name == "crossfade":
            other = small_clip(g) if not g.bad() else g.pick(["x", None, small_clip(g)[::2]])
            args = (other, g.integer(0, 4))
            if g.chance(0.3):
                kw["curve"] = g.choice(["smooth", "linear"])
            if g.chance(0.3):
                kw["align"] = g.boolean()
        elif name == "mirror":
            args = (g.choice(["x", "y", "z"]),)
            if g.bad():
                kw["pairs"] = g.pick([[("a", "b")], [(0, 0)], "x", [(0, 1, 2)], [(0, 99)]])
        elif name == "root_motion":
            if g.chance(0.3):
                args = (g.pick([None, 0, "Hips", "nope", 99, -1, 1.5]),)
            if g.chance(0.3):
                kw["heading"] = g.boolean()
        elif name == "__getitem__":
            key = g.pick([slice(0, 2), slice(None, None, -1), slice(1, None, 2)])
            if g.bad():
                key = g.pick([0, 1.5, slice(0, 2, 0), slice(0.5, 1), "a", (0, 1), None,
                              slice(True, 2)])
            args = (key,)
        return getattr(clip, name), args, kw, ("out",), lambda: clip.local.copy()
    return make


def _clip_init(g):
    J = g.int_(1, 6)
    skel = skelsimd.Skeleton(T.random_parents(J, g.rng)) if not g.bad() else \
        g.pick(["skel", None, np.zeros(J, np.int32)])
    local = g.array((g.int_(0, 4), J, 8), "qts")
    ft = g.real(0.01)
    kw = {}
    if g.chance(0.2):
        kw["channels"] = g.pick([[()] * J, [("Xrotation",)] * J, "abc", [1] * J])
    if g.chance(0.2):
        kw["end_site"] = g.pick([np.zeros(J, bool), [1] * (J + 1), "x"])
    return skelsimd.Clip, (skel, local, ft), kw, ()


def _bvh_text(g):
    """A small valid BVH, sometimes cut or edited (the mutation fuzzer does much more)."""
    buf = io.StringIO()
    clip = small_clip(g)
    skelsimd.save_bvh(clip if clip.frames else example_clip()[:1], buf)   # writers need a frame
    text = buf.getvalue()
    if g.bad():
        how = g.pick(["cut", "frames", "offset", "bytes", "empty"])
        g.notes.append(f"bvh {how}")
        if how == "cut":
            text = text[:g.int_(0, len(text))]
        elif how == "frames":
            text = text.replace("Frames:", "Frames: " + g.pick(["9" * 30, "-1", "1e3", "4294967296",
                                                                "x"]) + " #")
        elif how == "offset":
            text = text.replace("OFFSET", "OFFSET 1e39", 1)
        elif how == "bytes":
            return text.encode()[:g.int_(0, 200)] + bytes(g.rng.integers(0, 256, 20, np.uint8))
        elif how == "empty":
            return g.pick(["", b"", "HIERARCHY"])
    return text


def _load_bvh(g):
    kw = {}
    if g.chance(0.3):
        kw["end_sites"] = g.boolean()
    if g.chance(0.2):
        kw["max_bytes"] = g.pick([None, 0, 10**9, 100])
    src = _bvh_text(g) if not g.chance(0.05) else g.pick([42, None, 1.5, ["x"]])
    if isinstance(src, str):        # a str is a path: text goes through text=
        kw["text"] = src
        return skelsimd.load_bvh, (), kw, ()
    return skelsimd.load_bvh, (src,), kw, ()


def _save_bvh(g):
    clip = small_clip(g)
    if g.bad():
        names = list(clip.skeleton.names)
        names[g.int_(0, len(names) - 1)] = g.pick(["", " a", "a\nb", "a{", "\udcff", "é", "a b"])
        clip = skelsimd.Clip(skelsimd.Skeleton(clip.skeleton.parents, names, clip.skeleton.rest),
                             clip.local, clip.frame_time)
        g.notes.append(f"name {names!r}")
    order = None if g.chance(0.5) else g.choice(["ZYX", "XYZ", "YXZ"])
    dest = io.StringIO() if not g.chance(0.05) else g.pick([None, 3, io.BytesIO()])
    return skelsimd.save_bvh, (clip if not g.chance(0.03) else "clip", dest), {"order": order}, ()


def _skeleton_init(g):
    J = g.int_(0, 10)
    p = g.parents(J)
    names = None
    if g.chance(0.4):
        names = [f"j{i}" for i in range(J)]
        if g.bad():
            names = g.pick([names + ["x"], ["a"] * J, "abc", [1] * J, None])
    rest = None
    if g.chance(0.3):
        rest = g.array(g.pick([(J, 8), (J, 3, 4)]), "qts")
    return skelsimd.Skeleton, (p, names, rest), {}, ()


def _skeleton_any_order(g):
    J = g.int_(0, 10)
    p = g.rng.integers(-1, J, J) if J else np.zeros(0, int)
    if g.bad():
        p = g.pick([np.array([1, 0]), p.astype(float), [[0]], np.array([5, -7]), "x"])
    kw = {}
    if g.chance(0.4):
        kw["order"] = g.choice(["depth-first", "breadth-first"])
    return skelsimd.Skeleton.from_parents_any_order, (p,), kw, ()


def _skeleton_method(name):
    def make(g):
        J = g.int_(1, 12)
        names = [f"j{i}" for i in range(J)]
        s = skelsimd.Skeleton(T.random_parents(J, g.rng), names)

        def joint():
            if g.bad():
                return g.pick([J, -1, 2**70, 1.5, "nope", None, True, [0], np.int64(J + 3)])
            return g.pick([g.int_(0, J - 1), names[g.int_(0, J - 1)], np.int32(0)])
        if name in ("index", "children", "ancestors", "subtree", "subtree_indices",
                    "subtree_mask"):
            args = (joint(),)
        elif name in ("chain", "chain_mask"):
            args = (joint(), joint())
        elif name == "indices":
            args = ([joint() for _ in range(g.int_(0, 3))],)
        elif name == "mask":
            args = ([joint() for _ in range(g.int_(0, 2))],)
        elif name == "mask_ranges":
            args = (g.pick([np.ones(J, bool), np.zeros((2, 2), bool), [True, False], "x",
                            np.array([1.5])]),)
        elif name == "reorder":
            args = (g.choice(["depth-first", "breadth-first"]),)
        elif name == "__array__":
            args = ()
        else:
            args = ()
        kw = {}
        if name == "mask" and g.chance(0.5):
            kw = {"subtrees": [joint()], "chains": g.pick([[(0, 0)], [(0,)], "x", [(joint(), joint())]]),
                  "invert": g.boolean()}
        return getattr(s, name), args, kw, ()
    return make


def make_surface(g):
    rows, cols = g.int_(1, 9), g.int_(3, 11)
    s = skelsimd.Surface(rows, cols, model=g.pick(["offset", "length"]),
                         topology=g.pick(["plane", "cylinder"]), preset=g.pick([None, "water", "cloth"]))
    if g.chance(0.5):
        s.velocities = g.rng.uniform(-0.1, 0.1, (3, rows, cols))
    if g.chance(0.3):
        s.pinned[0] = True
    return s


def surface_state(s):
    return lambda: np.concatenate([s.positions.ravel(), s.velocities.ravel(),
                                   s.external_force.ravel(), s.pinned.ravel().astype(np.float32)])


def _surface_init(g):
    kw = {}
    for key, valid in (("spacing", 1.0), ("elasticity", 1.0), ("damping", 0.9), ("mass", 1.0)):
        if g.chance(0.25):
            kw[key] = g.real(valid)
    if g.chance(0.2):
        kw["model"] = g.choice(["offset", "length"])
    if g.chance(0.2):
        kw["topology"] = g.choice(["plane", "cylinder"])
    if g.chance(0.2):
        kw["preset"] = g.choice(["water", "cloth", "rubber"])
    return skelsimd.Surface, (g.integer(1, 8), g.integer(1, 8)), kw, ()


def _surface_from_positions(g):
    rows, cols = g.int_(1, 6), g.int_(3, 6)
    xyz = g.array((3, rows, cols), "unit")
    kw = {}
    if g.chance(0.3):
        kw["mass"] = g.pick([1.0, g.array((rows, cols), "positive")]) if not g.bad() else g.real(1.0)
    return skelsimd.Surface.from_positions, (xyz,), kw, ()


def _surface_method(name):
    def make(g):
        s = make_surface(g)
        args, kw, outs = (), {}, ()
        if name == "step":
            args = (g.real(s.max_stable_dt * float(g.rng.uniform(0.1, 1.0))),)
            if g.chance(0.4):
                kw["n"] = g.integer(0, 20)
            if g.chance(0.4):
                kw["gravity"] = g.pick([(0, -9.8, 0), np.array([0.0, -1, 0])]) if not g.bad() else \
                    g.pick([(0, -1e39, 0), (0, 1), "g", (np.nan, 0, 0), np.zeros((2, 3))])
        elif name == "add_force":
            args = (g.pick([lambda: g.array((3,), "unit"),
                            lambda: g.array((3, s.rows, s.cols), "unit")])(),)
        elif name == "apply_effector":
            c = g.array(g.pick([(3,), (g.int_(0, 4), 3)]), "unit")
            args = (c, g.real(2.0), g.real(0.5))
        elif name == "normals":
            args = (g.out((3, s.rows, s.cols)),)
            outs = ("args0",)
        elif name in ("positions", "velocities", "pinned"):
            value = g.array((3, s.rows, s.cols) if name != "pinned" else (s.rows, s.cols), "unit")
            if name == "pinned" and not g.bad():
                value = np.zeros((s.rows, s.cols), bool)

            def setter():
                setattr(s, name, value)
            return setter, (), {}, (), surface_state(s), "setter"
        return getattr(s, name), args, kw, outs, surface_state(s), "method"
    return make


def _plot(name):
    def make(g):
        if name == "plot_surface":
            s = make_surface(g)
            target = s if g.chance(0.7) else g.pick([s.positions, np.zeros((2, 2)), "x"])
            kw = {}
            if g.chance(0.3):
                kw["color_by"] = g.choice(["y", "speed"])
            return skelsimd.plot_surface, (target,), kw, ()
        if name == "surface.plot":
            s = make_surface(g)
            return s.plot, (), {"color_by": g.choice(["y", "speed"])}, ()
        if name == "clip.plot":
            c = small_clip(g)
            return c.plot, (g.integer(0, max(c.frames - 1, 0)),), {}, ()
        if name == "skeleton.plot":
            return example_clip().skeleton.plot, (), {}, ()
        c = small_clip(g)
        return c.animate, (), {"frames": g.pick([None, 2, "x"])}, ()
    return make


# compression: a few valid compressed clips (cheap to make, immutable), hostile arguments around
# them and mutated bytes for the decoder's validation
_COMPRESSED = {}


def compressed_clip(g):
    key = g.int_(0, 5)
    if key not in _COMPRESSED:
        c = example_clip()
        if key < 4:
            f0, n = ((0, 1), (30, 2), (100, 17), (7, 40))[key]
            _COMPRESSED[key] = skelsimd.compress(c[f0:f0 + n], precision=(0.01, 0.001)[key % 2])
        else:     # random poses with scales on a random tree
            rng = np.random.default_rng(key)
            J = 9
            local = T.random_qts((20, J), rng).astype(np.float32)
            _COMPRESSED[key] = skelsimd.compress(local, T.random_parents(J, rng), sample_rate=30,
                                                 precision=0.05, segment_length=4 + key)
    return _COMPRESSED[key]


def mutate_bytes(g, b):
    """`b` with a few random edits: bit flips, overwritten bytes or 32-bit fields, cuts, copies."""
    b = bytearray(b)
    for _ in range(g.int_(1, 4)):
        how = g.pick(["flip", "byte", "field", "cut", "insert", "copy"])
        g.notes.append(f"bytes {how}")
        n = len(b)
        at = g.int_(0, max(n - 1, 0))
        if how == "flip" and n:
            b[at] ^= 1 << g.int_(0, 7)
        elif how == "byte" and n:
            b[at] = g.pick([0, 0xFF, 0x7F, 0x80, g.int_(0, 255)])
        elif how == "field" and n >= 4:
            at = min(at, n - 4)
            v = g.pick([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, g.int_(0, 2**32 - 1), 65536])
            b[at:at + 4] = int(v).to_bytes(4, "little")
        elif how == "cut":
            del b[at:at + g.int_(1, 64) if g.chance(0.5) else n]
        elif how == "insert":
            b[at:at] = bytes(g.rng.integers(0, 256, g.int_(1, 16), np.uint8))
        elif how == "copy" and n:
            lo = g.int_(0, n - 1)
            b[at:at + 8] = b[lo:lo + 8]
    return bytes(b)


def _compress(g):
    kw = {}
    if g.chance(0.5):
        clip = small_clip(g) if not g.chance(0.05) else g.pick([example_clip()[:0], "clip", None])
        args = (clip,)
        if g.chance(0.2):
            kw["sample_rate"] = g.real(60.0)
        if g.bad():
            kw["skeleton"] = g.pick([example_clip().skeleton, skelsimd.Skeleton([-1, 0]), [-1]])
    else:
        F, J = g.int_(1, 24), g.int_(1, 10)
        local = g.array((F, J, 8), "qts")
        args = (local, g.parents(J))
        kw["sample_rate"] = g.real(float(g.rng.uniform(10, 240)))
    if g.chance(0.5):
        kw["precision"] = g.real(float(g.pick([0.01, 0.1, 1e-3, 1.0])))
    if g.chance(0.3):
        kw["shell_distance"] = g.real(float(g.pick([0.0, 3.0, 30.0])))
    if g.chance(0.3):
        kw["segment_length"] = g.integer(1, 1024)
    return skelsimd.compress, args, kw, ()


def _clip_error(g):
    lead, J = g.lead(), g.int_(1, 10)
    raw = g.array(lead + (J, 8), "qts")
    dec = g.array(g.pick([lead, lead, ()]) + (J, 8), "qts")
    kw = {}
    if g.chance(0.4):
        kw["shell_distance"] = g.real(3.0)
    if g.chance(0.4):
        kw["per_joint"] = g.boolean()
    return skelsimd.clip_error, (raw, dec, g.parents(J)), kw, ()


def _compressed_init(g):
    """The constructor on mutated data; what it accepts must decode without a crash."""
    c = compressed_clip(g)
    data = mutate_bytes(g, c._data) if g.chance(0.8) else g.pick([c._data, b"", "x", None])
    skel = c.skeleton if not g.bad() else g.pick([example_clip().skeleton,
                                                  skelsimd.Skeleton([-1]), "s", None])
    kw = {"precision": g.real(c.precision), "shell_distance": g.real(c.shell_distance),
          "max_error": g.real(0.0)}
    t = g.real(float(g.rng.uniform(-1, 2)))

    def construct_and_decode(data, skel, **kw):
        d = skelsimd.CompressedClip(data, skel, **kw)
        d.decompress()
        d.sample(t)
        d.sample_many(np.linspace(-0.1, d.duration + 0.1, 7))
        d.to_bytes()
        return d
    return construct_and_decode, (data, skel), kw, ()


def _compressed_from_bytes(g):
    c = compressed_clip(g)
    b = c.to_bytes()
    if g.chance(0.9):
        b = mutate_bytes(g, b)
        if g.chance(0.7) and len(b) >= 4:     # a valid checksum: the parser sees the edits
            b = b[:-4] + zlib.crc32(b[:-4]).to_bytes(4, "little")
    if g.chance(0.05):
        b = g.pick([bytearray(b), memoryview(b), "text", None, 3])

    def from_bytes_and_decode(b):
        d = skelsimd.CompressedClip.from_bytes(b)
        d.decompress()
        d.sample(0.0)
        return d
    return from_bytes_and_decode, (b,), {}, ()


def _compressed_method(name):
    def make(g):
        c = compressed_clip(g)
        J, F = c.num_joints, c.num_frames
        args, kw, outs = (), {}, ()
        if name == "sample":
            args = (g.real(float(g.rng.uniform(-0.5, c.duration + 0.5))),)
            if g.chance(0.5):
                kw["out"] = g.out((J, 8))
                outs = ("out",)
        elif name == "sample_many":
            times = g.rng.uniform(-0.5, c.duration + 0.5, g.lead(3))
            args = (g.array(times.shape, "unit") if g.bad() else times,)
            if g.chance(0.5):
                kw["out"] = g.out(np.shape(times) + (J, 8))
                outs = ("out",)
        elif name == "decompress":
            if g.chance(0.6):
                kw["out"] = g.out((F, J, 8))
                outs = ("out",)
        fn = c.sample_many if name == "sample_many" else getattr(c, name)
        return fn, args, kw, outs, lambda: np.frombuffer(c._data, np.uint8).copy()
    return make


# --- additive layers, IK, tracks and root motion, glTF and .skc files -------------------------

def _make_additive(g):
    lead, F, J = g.lead(1), g.int_(1, 5), g.int_(0, 10)
    local = g.array(lead + (F, J, 8), "qts")
    ref = g.pick([lambda: g.choice(["first", "rest"]),
                  lambda: g.array(g.pick([(), lead]) + (J, 8), "qts")])()
    return skelsimd.make_additive, (local, ref), {"out": g.out(lead + (F, J, 8), [local])}, ("out",)


def _apply_additive(g):
    lead, J = g.lead(), g.int_(0, 10)
    base = g.array(lead + (J, 8), "qts")
    delta = g.array(g.pick([(), lead]) + (J, 8), "qts")
    args = (base, delta, g.real(float(g.rng.uniform(-1, 1))))
    if g.chance(0.4):
        args += (g.array((J,), "unit"),)
    return skelsimd.apply_additive, args, {"out": g.out(lead + (J, 8), [base, delta])}, ("out",)


def _blend_motion(g):
    lead, L = g.lead(), g.int_(0, 5)
    d = g.array(lead + (L, 8), "qts")
    w = g.array(g.pick([lead, ()]) + (L,), "unit")
    return skelsimd.blend_motion, (d, w), {"out": g.out(lead + (8,), [d, w])}, ("out",)


def _motion_deltas(g):
    return skelsimd.motion_deltas, (g.array(g.lead(1) + (g.int_(0, 8), 8), "qts"),), {}, ()


def _accumulate_motion(g):
    d = g.array((g.int_(0, 8), 8), "qts")
    return skelsimd.accumulate_motion, (d,) if g.chance(0.5) else (d, g.array((8,), "qts")), {}, ()


def _ik_scalars(g, kw, names):
    for name, valid in names:
        if g.chance(0.3):
            kw[name] = g.pick([lambda: g.real(valid), lambda: g.array(g.lead(1), "unit")])()


def _ik_two_bone(g):
    lead = g.lead()
    start, mid, end = (g.array(lead + (3, 4), "joint") for _ in range(3))
    target = g.array(g.pick([lead, ()]) + (3,), "unit")
    kw = {"pole": g.array(g.pick([lead, ()]) + (3,), "unit")}
    if g.chance(0.3):
        kw["mid_axis"] = g.array((3,), "unit")
    _ik_scalars(g, kw, (("twist", 0.2), ("soften", 0.9), ("weight", 0.8)))
    return skelsimd.ik_two_bone, (start, mid, end, target), kw, ()


def _ik_aim(g):
    lead = g.lead()
    joint = g.array(lead + (3, 4), "joint")
    target = g.array(g.pick([lead, ()]) + (3,), "unit")
    kw = {}
    for name in ("forward", "up", "offset", "pole"):
        if g.chance(0.3):
            kw[name] = g.array(g.pick([lead, ()]) + (3,), "unit")
    _ik_scalars(g, kw, (("twist", 0.2), ("weight", 0.8)))
    return skelsimd.ik_aim, (joint, target), kw, ()


def _track_values(g, n):
    quaternion = g.chance(0.3)
    shape = (n, 4) if quaternion else g.pick([(n,), (n, 1), (n, 3)])
    return g.array(shape, "quat" if quaternion else "unit"), quaternion


def _track_init(g):
    n = g.int_(0, 7)
    times = np.sort(g.rng.uniform(0, 2, n))
    if g.bad():
        times = g.pick([times[::-1].copy(), np.full(n, np.nan), times[:, None], "abc", None,
                        np.concatenate([times, times])])
        g.notes.append("broken times")
    values, quaternion = _track_values(g, n)
    kw = {}
    if g.chance(0.5):
        kw["loop"] = g.boolean()
    kw["quaternion"] = g.boolean() if g.chance(0.2) else quaternion
    return skelsimd.Track, (times, values, g.choice(["linear", "step", "cubic"])), kw, ()


_TRACKS = {}


def _track(g):
    """One of six valid tracks (scalar, 3-vector and quaternion; step, linear, cubic; looping)."""
    key = g.int_(0, 5)
    if key not in _TRACKS:
        rng = np.random.default_rng(key)
        n = 1 + 3 * key
        values = (T.random_quaternions(n, rng).astype(np.float32) if key % 3 == 2
                  else rng.uniform(-1, 1, (n,) if key % 2 else (n, 3)))
        _TRACKS[key] = skelsimd.Track(np.sort(rng.uniform(0, 2, n)), values,
                                      ("linear", "step", "cubic")[key % 3], loop=key > 3,
                                      quaternion=key % 3 == 2)
    return _TRACKS[key]


def _track_state(tr):
    return lambda: np.concatenate([tr.times.ravel(), np.asarray(tr.values, np.float64).ravel()])


def _track_sample(g):
    tr = _track(g)
    times = g.array(g.lead(3), "unit")
    kw = {}
    if g.chance(0.5):
        lead = times.shape if isinstance(times, np.ndarray) else (2,)
        kw["out"] = g.out(lead + tr.values.shape[1:])
    return tr.sample, (times,), kw, tuple(kw), _track_state(tr)


def _track_triggers(g):
    tr = _track(g)
    args = (g.real(float(g.rng.uniform(-1, 3))), g.real(float(g.rng.uniform(-1, 3))))
    if g.chance(0.5):
        args += (g.real(float(g.rng.uniform(-1, 1))),)
    return tr.triggers, args, {}, (), _track_state(tr)


def _clip_blend(g):
    c = small_clip(g)
    other = g.pick([lambda: c[::-1], lambda: small_clip(g), lambda: example_clip()[:1],
                    lambda: c.local, lambda: None])()
    kw = {"method": g.choice(["fast", "exact", "nlerp"])} if g.chance(0.4) else {}
    return c.blend, (other, g.real(float(g.rng.uniform(0, 1)))), kw, (), \
        lambda: c.local.copy()


def _clip_contacts(g):
    c = small_clip(g)
    joints = g.pick(["LeftToe", ["LeftToe", "RightToe"], 5, [0, 30], "nope", [100], None, -1,
                     ("RightToe",), 2.5])
    args = (joints, g.real(float(g.rng.uniform(0, 40))))
    kw = {}
    if g.chance(0.4):
        kw["height"] = g.real(float(g.rng.uniform(-5, 20)))
    for name in ("min_gap", "min_contact"):
        if g.chance(0.3):
            kw[name] = g.real(0.05)
    return c.contacts, args, kw, (), lambda: c.local.copy()


_CHAINS = {"look_at": ["Head", "Neck", "lowerneck"], "solve_chain": ["LeftHip", "LeftKnee",
           "LeftAnkle", "LeftToe"], "two_bone": ("RightHip", "RightKnee", "RightAnkle")}


def _skeleton_ik(name):
    def make(g):
        skel = example_clip().skeleton
        lead = g.lead(1)
        local = g.array(lead + (skel.num_joints, 8), "qts") if g.chance(0.9) else \
            g.array(lead + (g.int_(0, 40), 8), "qts")
        chain = _CHAINS[name]
        if g.bad():
            chain = g.pick([chain[::-1], ["nope"], [0, 100], [], chain[:1], None, 3,
                            list(chain) + [chain[0]], [0.5, 1]])
            g.notes.append(f"chain {chain!r}")
        target = g.array(g.pick([lead, ()]) + (3,), "unit")
        kw = {}
        if name == "look_at":
            args = (local, chain, target)
            if g.chance(0.3):
                args += (g.array((len(_CHAINS[name]),), "positive"),)
            for key in ("forward", "up", "offset", "pole"):
                if g.chance(0.2):
                    kw[key] = g.array((3,), "unit")
        elif name == "solve_chain":
            args = (local, chain, target)
            if g.chance(0.4):
                # up to the cap (and, broken, beyond it: 2**63, 2**64 - 1, 2**200): the
                # solver stops early once the chain stops moving, so none of these hangs
                kw["iterations"] = g.integer(0, g.pick([8, skelsimd.ik.MAX_CHAIN_ITERATIONS]))
            if g.chance(0.3):
                kw["tolerance"] = g.real(1e-3)
            if g.chance(0.3):
                kw["return_error"] = g.boolean()
        else:
            args = (local, chain, target)
            kw["pole"] = g.array(g.pick([lead, ()]) + (3,), "unit")
            _ik_scalars(g, kw, (("twist", 0.2), ("soften", 0.9), ("weight", 0.8)))
            if g.chance(0.3):
                kw["return_reached"] = g.boolean()
        return getattr(skel, name), args, kw, ()
    return make


_FILES = {}


def _file_dir():
    if "dir" not in _FILES:
        _FILES["dir"] = tempfile.mkdtemp(prefix="skelsimd-api-fuzz-")
    return _FILES["dir"]


def _bad_path(g):
    return g.pick([os.path.join(_file_dir(), "missing", "x.glb"), _file_dir(), None, 3, b"\0",
                   "", ["a"], io.BytesIO(b"glTF")])


def _save_gltf(g):
    c = small_clip(g)
    target = g.pick([lambda: c, lambda: c.skeleton, lambda: c.local, lambda: None, lambda: "x",
                     lambda: [c, c[1:]], lambda: [c, 3], lambda: []])()
    path = os.path.join(_file_dir(), "out" + g.pick([".gltf", ".glb"])) if not g.bad() \
        else _bad_path(g)
    kw = {}
    if g.chance(0.3):
        kw["name"] = g.pick(["clip", None, 3, "\0", "é" * 3])
    if g.chance(0.3):
        kw["scale"] = g.real(0.01)
    return skelsimd.save_gltf, (path, target), kw, ()


def _save_usd(g):
    c = small_clip(g)
    target = g.pick([lambda: c, lambda: c.skeleton, lambda: c.local, lambda: None,
                     lambda: c[:0]])()
    path = os.path.join(_file_dir(), "out" + g.pick([".usda", ".usdc", ".usdz"])) \
        if not g.bad() else _bad_path(g)
    kw = {}
    if g.chance(0.3):
        kw["up_axis"] = g.pick(["Y", "Z", "X", None, 3])
    if g.chance(0.3):
        kw["meters_per_unit"] = g.real(0.01)
    return skelsimd.save_usd, (path, target), kw, ()


def _load_usd(g):
    if "usd" not in _FILES:
        paths = []
        try:
            for k, ext in enumerate((".usda", ".usdc")):
                p = os.path.join(_file_dir(), f"in{k}{ext}")
                clip = example_clip()[10 * k:10 * k + 5]
                skelsimd.save_usd(p, clip, mesh=skelsimd.data.example_mesh(clip.skeleton))
                paths.append(p)
        except ImportError:            # no usd-core: every call fails with ImportError
            paths = [os.path.join(_file_dir(), "none.usda")]
        _FILES["usd"] = paths
    path = g.pick(_FILES["usd"]) if not g.bad() else _bad_path(g)
    if g.chance(0.2) and os.path.exists(_FILES["usd"][0]):   # mutated text of its own
        with open(_FILES["usd"][0], "rb") as f:
            data = mutate_bytes(g, f.read())
        path = os.path.join(_file_dir(), "mutated.usda")
        with open(path, "wb") as f:
            f.write(data)
    return skelsimd.load_usd, (path,), {}, ()


def _load_gltf(g):
    if "gltf" not in _FILES:
        paths = []
        for k, ext in enumerate((".gltf", ".glb")):
            p = os.path.join(_file_dir(), f"in{k}{ext}")
            skelsimd.save_gltf(p, example_clip()[10 * k:10 * k + 5])
            paths.append(p)
        _FILES["gltf"] = paths
    path = g.pick(_FILES["gltf"]) if not g.bad() else _bad_path(g)
    if g.chance(0.2):      # mutated bytes in a file of their own
        with open(g.pick(_FILES["gltf"]), "rb") as f:
            data = mutate_bytes(g, f.read())
        path = os.path.join(_file_dir(), "mutated" + g.pick([".gltf", ".glb"]))
        with open(path, "wb") as f:
            f.write(data)
    kw = {"sample_rate": g.real(30.0)} if g.chance(0.3) else {}
    return skelsimd.load_gltf, (path,), kw, ()


def _save_skc(g):
    clip = g.pick([lambda: small_clip(g), lambda: compressed_clip(g), lambda: None,
                   lambda: example_clip().local[:3]])()
    path = os.path.join(_file_dir(), "out.skc") if not g.bad() else _bad_path(g)
    kw = {}
    if g.chance(0.4):
        kw["precision"] = g.real(0.01)
    if g.chance(0.1):
        kw[g.pick(["nope", "segment_length"])] = g.integer(1, 16)
    return skelsimd.save_skc, (clip, path), kw, ()


def _load_skc(g):
    if "skc" not in _FILES:
        p = os.path.join(_file_dir(), "in.skc")
        skelsimd.save_skc(example_clip()[:12], p)
        with open(p, "rb") as f:
            _FILES["skc"] = (p, f.read())
    path, data = _FILES["skc"]
    if g.chance(0.3):
        path = os.path.join(_file_dir(), "mutated.skc")
        with open(path, "wb") as f:
            f.write(mutate_bytes(g, data))
    elif g.bad():
        path = _bad_path(g)
    kw = {"max_bytes": g.integer(0, 1 << 20)} if g.chance(0.3) else {}
    return skelsimd.load_skc, (path,), kw, ()


# --- valid calls on realistic sizes (the thread and bit-identity tests) ----------------------
# Each valid(rng) returns [(fn, args, kwargs), ...]; sizes as the thread tests have used: a
# 96-joint humanoid-like hierarchy, 40 poses, 2,000 quaternions, a 3,000-vertex mesh.

def _humanoid():
    parents, _ = T.humanoid_skeleton()
    return parents, skelsimd.Skeleton(parents)


def _v_local_to_global(rng):
    parents, skel = _humanoid()
    local = T.random_joints((40, 96), rng)
    return [(skelsimd.local_to_global, (local, parents), {}),
            (skelsimd.local_to_global, (local, skel), {"precision": "float64"})]


def _v_joints(fn, second=False, skeleton=False, **kw):
    def valid(rng):
        parents, skel = _humanoid()
        local = T.random_joints((40, 96), rng)
        if second:
            return [(getattr(skelsimd, fn), (local, T.random_joints(96, rng)), kw)]
        if skeleton:
            return [(getattr(skelsimd, fn), (local, skel), kw)]
        return [(getattr(skelsimd, fn), (local,), kw)]
    return valid


def _v_mat4(fn):
    def valid(rng):
        parents, _ = _humanoid()
        m4 = T.random_mat4((500, 96), rng)
        args = {"mat4_local_to_global": (m4, parents), "matmul4": (m4, m4[0]),
                "transform_points": (m4[0, 5], rng.uniform(-1, 1, (5000, 3)).astype(np.float32))}
        return [(getattr(skelsimd, fn), args[fn], {})]
    return valid


def _v_skinning_palette(rng):
    _, skel = _humanoid()
    return [(skelsimd.skinning_palette, (T.random_joints((40, 96), rng), skel,
                                         T.random_joints(96, rng)), {})]


def _v_skin(rng):
    positions, normals, idx, w = T.random_mesh(3000, 4, 96, rng)
    return [(skelsimd.skin, (positions, idx, w, T.random_joints((3, 96), rng)),
             {"normals": normals})]


def _quats(rng, n=2000):
    return T.random_quaternions(n, rng).astype(np.float32)


def _v_interp(fn):
    def valid(rng):
        q0, q1 = _quats(rng), _quats(rng)
        t = rng.uniform(0, 1, 2000).astype(np.float32)
        calls = [(getattr(skelsimd, fn), (q0, q1, t), {})]
        if fn == "slerp":
            calls.append((skelsimd.slerp, (q0, q1, 0.3), {"method": "exact"}))
        return calls
    return valid


def _v_blend_joints(rng):
    return [(skelsimd.blend_joints, (T.random_qts((40, 96), rng), T.random_qts((40, 96), rng), 0.4),
             {"index": np.arange(0, 96, 3)})]


def _v_blend_layers(rng):
    layers = T.random_qts((3, 30, 96), rng).transpose(1, 0, 2, 3).copy()
    additive = [(T.random_qts(96, rng), 0.6), (T.random_qts((30, 96), rng), -0.4,
                                              rng.uniform(0, 1, 96).astype(np.float32))]
    return [(skelsimd.blend_layers, (layers, [0.2, 0.5, 0.3]), {}),
            (skelsimd.blend_layers, (layers, [0.2, 0.5, 0.3]), {"additive": additive})]


def _v_qts_walk(fn, **kw):
    def valid(rng):
        parents, skel = _humanoid()
        return [(getattr(skelsimd, fn), (T.random_qts((40, 96), rng), skel if kw else parents), kw)]
    return valid


def _v_quat(fn, *more, **kw):
    """fn(quaternions, *more(rng)) on 2,000 quaternions."""
    def valid(rng):
        return [(getattr(skelsimd, fn), (_quats(rng),) + tuple(m(rng) for m in more), kw)]
    return valid


def _v_array(fn, shape, *more, kind="unit", **kw):
    """fn(array of `shape`, *more) with values of `kind` (unit: uniform in [-1, 1])."""
    def valid(rng):
        x = {"unit": lambda: rng.uniform(-1, 1, shape).astype(np.float32),
             "joint": lambda: T.random_joints(shape[:-2], rng),
             "qts": lambda: T.random_qts(shape[:-1], rng),
             "positive": lambda: rng.uniform(0.1, 2, shape).astype(np.float32)}[kind]()
        return [(getattr(skelsimd, fn), (x,) + more, kw)]
    return valid


def _v_qts_pack(rng):
    return [(skelsimd.qts_pack, (_quats(rng), rng.uniform(-1, 1, (2000, 3)), rng.uniform(0.5, 2, 2000)),
             {})]


def _v_load_bvh(rng):
    buf = io.StringIO()
    skelsimd.save_bvh(example_clip()[:60], buf)
    return [(lambda text: skelsimd.load_bvh(text=text).local, (buf.getvalue(),), {})]


def _v_make_additive(rng):
    return [(skelsimd.make_additive, (T.random_qts((30, 96), rng),), {}),
            (skelsimd.make_additive, (T.random_qts((30, 96), rng), T.random_qts(96, rng)), {})]


def _v_apply_additive(rng):
    return [(skelsimd.apply_additive, (T.random_qts((40, 96), rng), T.random_qts(96, rng), 0.6,
                                       rng.uniform(0, 1, 96)), {})]


def _v_blend_motion(rng):
    return [(skelsimd.blend_motion, (T.random_qts((500, 3), rng),
                                     rng.uniform(-0.5, 1, (500, 3)).astype(np.float32)), {})]


def _v_motion(fn):
    def valid(rng):
        x = T.random_qts(500, rng)
        if fn == "accumulate_motion":
            return [(skelsimd.accumulate_motion, (x,), {}),
                    (skelsimd.accumulate_motion, (x, T.random_qts((), rng)), {})]
        return [(skelsimd.motion_deltas, (x,), {})]
    return valid


def _legs(rng, n=500):
    glob = skelsimd.local_to_global(T.random_joints((n, 3), rng), [-1, 0, 1])
    return glob[:, 0], glob[:, 1], glob[:, 2]


def _v_ik_two_bone(rng):
    start, mid, end = _legs(rng)
    target, pole = (rng.uniform(-2, 2, (500, 3)).astype(np.float32) for _ in range(2))
    return [(skelsimd.ik_two_bone, (start, mid, end, target),
             {"pole": pole, "twist": 0.3, "soften": 0.9, "weight": 0.8})]


def _v_ik_aim(rng):
    _, joint, _ = _legs(rng)
    target, up = (rng.uniform(-2, 2, (500, 3)).astype(np.float32) for _ in range(2))
    return [(skelsimd.ik_aim, (joint, target), {"up": up, "offset": (0.1, 0.0, 0.0),
                                                "twist": rng.uniform(-3, 3, 500)})]


def _v_track_sample(rng):
    calls = []
    for k, interpolation in enumerate(("step", "linear", "cubic")):
        n = 50
        values = _quats(rng, n) if k == 2 else rng.uniform(-1, 1, (n, 3))
        tr = skelsimd.Track(np.sort(rng.uniform(0, 10, n)), values, interpolation, loop=k == 1,
                            quaternion=k == 2)
        calls.append((tr.sample, (rng.uniform(-1, 11, 3000),), {}))
    return calls


def _v_compressed(rng):
    c = skelsimd.compress(example_clip()[:60], precision=0.001)
    return [(c.decompress, (), {}), (c.sample_many, (rng.uniform(0, c.duration, 200),), {})]


def _v_compress(rng):
    return [(lambda clip: skelsimd.compress(clip, precision=0.001).to_bytes(),
             (example_clip()[:40],), {})]


# Calls ported from the family tests' former bit-identity tests (random forests of 150 joints
# with scales and shears, start/stop sections, rigid inverses, float64 walks, broadcast
# operands, scaled quaternions, a pre-filled out): added to the entries' valid calls.

def _forest(rng):
    return T.random_parents(150, rng)


def _p_joints(rng):
    parents = _forest(rng)
    local = T.random_joints((9, 150), rng, scale=(0.5, 2.0), shear=0.2)
    b = T.random_joints(150, rng)
    glob = skelsimd.local_to_global(local, parents)
    f = skelsimd
    return {"local_to_global": [(f.local_to_global, (local, parents), {"start": 40, "stop": 120}),
                                (f.local_to_global, (local, parents), {"precision": "float64"}),
                                (f.local_to_global, (local, parents),
                                 {"start": 40, "stop": 120, "precision": "float64"})],
            "global_to_local": [(f.global_to_local, (glob, parents), {}),
                                (f.global_to_local, (glob, parents), {"rigid": True})],
            "multiply_joints": [(f.multiply_joints, (local, b), {}), (f.multiply_joints, (b, local), {})],
            "invert_joints": [(f.invert_joints, (local,), {}), (f.invert_joints, (local,), {"rigid": True})]}


def _p_quat(rng):
    q, p = _quats(rng, 1001), _quats(rng, 1001)
    x = T.random_qts(1001, rng, scale=(0.5, 2))
    m = skelsimd.quat_to_matrix(q)
    f = skelsimd
    return {"quat_multiply": [(f.quat_multiply, (q, p), {}), (f.quat_multiply, (q[0], p), {})],
            "quat_normalize": [(f.quat_normalize, (q * 3,), {})],
            "matrix_to_quat": [(f.matrix_to_quat, (m,), {})],
            "qts_to_matrix": [(f.qts_to_matrix, (x,), {})],
            "matrix_to_qts": [(f.matrix_to_qts, (f.qts_to_matrix(x),), {})]}


def _p_qts(rng):
    parents = _forest(rng)
    local = T.random_qts((13, 150), rng, scale=(0.5, 2.0))
    prefill = skelsimd.qts_to_matrix(T.random_qts((13, 150), rng))

    def into_prefilled(local, parents, prefill):
        return skelsimd.qts_local_to_global_matrix(local, parents, prefill.copy(), start=40, stop=120)
    f = skelsimd
    return {"qts_local_to_global": [(f.qts_local_to_global, (local, parents), {}),
                                    (f.qts_local_to_global, (local, parents), {"start": 40, "stop": 120})],
            "qts_local_to_global_matrix": [(f.qts_local_to_global_matrix, (local, parents), {}),
                                           (into_prefilled, (local, parents, prefill), {})]}


def _p_additive(rng):
    x, ref = T.random_qts((6, 37), rng, scale=(0.5, 2.0)), T.random_qts(37, rng, scale=(0.5, 2.0))
    mask = rng.uniform(0, 1, 37)
    f = skelsimd
    return {"make_additive": [(f.make_additive, (x, ref), {})],
            "apply_additive": [(f.apply_additive, (x, ref, 0.6, mask), {}),
                               (f.apply_additive, (x, x[::-1].copy(), -0.3), {})]}


def _v_inertialize(name):
    def valid(rng):
        j = 37
        src, dst = T.random_qts((3, j), rng), T.random_qts((3, j), rng)
        off, offv = (rng.uniform(-1, 1, (3, j, 6)).astype(np.float32) for _ in range(2))
        sv, dv = (rng.uniform(-1, 1, (j, 6)).astype(np.float32) for _ in range(2))
        return {"inertialize_update": [
                    (skelsimd.inertialize_update, (dst, off, offv), {"halflife": hl, "dt": dt})
                    for hl, dt in ((0.1, 0.0), (0.05, 1 / 60), (0.2, 0.5), (0.01, 3.0))],
                "inertialize_transition": [
                    (skelsimd.inertialize_transition, (src, sv, dst, dv), {}),
                    (skelsimd.inertialize_transition, (src, sv, dst, dv, off, offv), {})],
                "pose_velocity": [(skelsimd.pose_velocity, (src, dst, 1 / 30), {})]}[name]
    return valid


# Calls from the family tests' former copies of the bit-identity test (mat4, skinning,
# conversions, IK, blending, tracks and root motion, surfaces, compression): the inputs that
# reach each kernel's special blocks (projective and wide-range matrices, float64 walks into a
# pre-filled out, zero weights and repeated indices, gimbal lock, tiny, zero and NaN
# quaternions, degenerate IK chains, broadcast operands and nlerp's fallback lanes, every track
# kind, every surface model and topology on every row width and alignment, clips of every kind).

def _wide_mat4(shape, rng):
    """4x4 values spread over several orders of magnitude."""
    shape = tuple(shape) + (4, 4)
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(np.float32)


def _p_mat4(rng):
    parents = _forest(rng)
    local = T.random_mat4((7, 150), rng, projective=0.05)
    const = T.random_mat4((), rng)
    joints = T.random_joints((7, 150), rng, scale=(0.5, 2.0), shear=0.2)
    inv_bind = T.random_joints(150, rng)
    pts = rng.uniform(-2, 2, (7, 150, 3)).astype(np.float32)
    wide = _wide_mat4((500,), rng)
    local64 = T.random_mat4((11, 150), rng, projective=0.05)

    def into_prefilled(local, parents):
        out = local.copy()
        skelsimd.mat4_local_to_global(local, parents, out, start=30, stop=140, precision="float64")
        return out
    f = skelsimd
    return {"matmul4": [(f.matmul4, (local, const), {}), (f.matmul4, (const, local), {}),
                        (f.matmul4, (local, local[::-1].copy()), {}),
                        (f.matmul4, (wide, wide[::-1].copy()), {}), (f.matmul4, (const, const), {})],
            "mat4_local_to_global": [(f.mat4_local_to_global, (local, parents), {}),
                                     (f.mat4_local_to_global, (local, parents),
                                      {"start": 30, "stop": 140}),
                                     *[(f.mat4_local_to_global, (local64[:b], parents),
                                        {"precision": "float64"}) for b in (1, 2, 3, 4, 5, 11)],
                                     (into_prefilled, (local64, parents), {})],
            "multiply_joints": [(f.multiply_joints, (joints, inv_bind), {}),
                                (f.multiply_joints, (inv_bind[0], joints), {})],
            "local_to_global": [(f.local_to_global, (joints, parents), {})],
            "transform_points": [(f.transform_points, (local, pts), {}),
                                 (f.transform_points, (local[0, 0], pts), {}),
                                 (f.transform_points, (joints, pts), {})]}


def _p_skinning(rng):
    parents = T.random_parents(120, rng)
    local = T.random_joints((9, 120), rng, scale=(0.5, 2.0), shear=0.2)
    inverse_bind = T.random_joints(120, rng)
    batch = T.random_joints((9, 120), rng)
    positions, normals, idx, w = T.random_mesh(3000, 8, 120, rng, zero_weights=0.3,
                                               repeat_indices=0.2)
    raw = rng.random((3000, 8)).astype(np.float32)
    palette = skelsimd.skinning_palette(local, parents, inverse_bind)
    f = skelsimd
    return {"skinning_palette": [(f.skinning_palette, (local, parents, inverse_bind), {}),
                                 (f.skinning_palette, (local, parents, batch), {}),
                                 (f.skinning_palette, (local[0], parents, batch), {}),
                                 *[(f.skinning_palette, args, {"precision": "float64"})
                                   for args in ((local, parents, inverse_bind),
                                                (local, parents, batch),
                                                (local[0], parents, batch),
                                                (local[:3], parents, inverse_bind))]],
            "skin": [(f.skin, (positions, idx, w, palette), {"normals": normals}),
                     (f.skin, (positions, idx[:, :3], raw[:, :3], palette), {})],
            "normalize_weights": [(f.normalize_weights, (raw,), {})]}


_SEQS = [s for base in ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy",
                        "zxz", "zyz") for s in (base, base.upper())]


def _gimbal_lock_quats(rng, n):
    """ZXZ rotations whose middle angle is 0 or pi, or moved up to 1e-6 radians off."""
    from skelsimd.reference import convert as RC
    a = rng.uniform(-np.pi, np.pi, (n, 3))
    end = np.array([0.0, np.pi])[rng.integers(0, 2, n)]
    a[:, 1] = end + np.where(end > 1.0, -1.0, 1.0) * rng.choice([0, 1e-8, 1e-7, 1e-6], n)
    return RC.euler_to_quat(a, "ZXZ").astype(np.float32)


def _p_convert(rng):
    q = _quats(rng, 1003)
    q[::17] *= np.float32(1e-25)
    q[5] = 0
    q[9, 1] = np.nan
    a = rng.uniform(-1e4, 1e4, (1003, 3)).astype(np.float32)
    axis = rng.normal(size=(1003, 3))
    v = (axis / np.linalg.norm(axis, axis=1, keepdims=True) * rng.uniform(0, 5, (1003, 1)))
    v = v.astype(np.float32)
    d = rng.normal(size=(1003, 6)).astype(np.float32)
    lock = _gimbal_lock_quats(rng, 1003)
    f = skelsimd
    return {"euler_to_quat": [(f.euler_to_quat, (a, seq), {"degrees": seq.islower()})
                              for seq in _SEQS],
            "quat_to_euler": [(f.quat_to_euler, (q, seq), {"suppress_warnings": True})
                              for seq in _SEQS]
            + [(f.quat_to_euler, (lock, "ZXZ"), {"degrees": True, "suppress_warnings": True})],
            "rotvec_to_quat": [(f.rotvec_to_quat, (v,), {})],
            "quat_to_rotvec": [(f.quat_to_rotvec, (q,), {"degrees": True})],
            "sixd_to_matrix": [(f.sixd_to_matrix, (d,), {})],
            "sixd_to_quat": [(f.sixd_to_quat, (d,), {"layout": "rows"})],
            "quat_to_sixd": [(f.quat_to_sixd, (q,), {})]}


IK_LEG = skelsimd.Skeleton([-1, 0, 1], names=["hip", "knee", "ankle"])


def unit_vectors(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def random_dirs(n, rng):
    return unit_vectors(rng.normal(size=(n, 3)))


def ik_legs(n, rng, margin=0.05):
    """n well-conditioned legs: (local (n, 3, 8), globals (n, 3, 3, 4), mid_axis (n, 3) in the
    knee's space bending towards the pole side, target (n, 3) within reach, pole (n, 3), chain
    length (n,))."""
    l1, l2 = rng.uniform(0.3, 1.0, n), rng.uniform(0.3, 1.0, n)
    d1 = random_dirs(n, rng)
    d2 = random_dirs(n, rng)
    bad = np.abs((d1 * d2).sum(-1)) > 0.9
    while bad.any():
        d2[bad] = random_dirs(int(bad.sum()), rng)
        bad = np.abs((d1 * d2).sum(-1)) > 0.9
    local = T.random_qts((n, 3), rng, translation=1.0).astype(np.float64)
    glob = skelsimd.qts_local_to_global_matrix(local.astype(np.float32), IK_LEG).astype(np.float64)
    # bone directions in model space d1, d2: local translations in the parents' frames
    local[:, 1, 4:7] = np.einsum("nji,nj->ni", glob[:, 0, :, :3], d1 * l1[:, None])
    glob = skelsimd.qts_local_to_global_matrix(local.astype(np.float32), IK_LEG).astype(np.float64)
    local[:, 2, 4:7] = np.einsum("nji,nj->ni", glob[:, 1, :, :3], d2 * l2[:, None])
    local = local.astype(np.float32)
    glob = skelsimd.qts_local_to_global_matrix(local, IK_LEG)
    axis_model = unit_vectors(np.cross(d2, d1))
    mid_axis = np.einsum("nji,nj->ni", glob[:, 1, :, :3].astype(np.float64), axis_model)
    length = l1 + l2
    lo, hi = np.abs(l1 - l2) + margin * length, (1 - margin) * length
    dist = rng.uniform(lo, hi)
    target = glob[:, 0, :, 3] + random_dirs(n, rng) * dist[:, None]
    pole = random_dirs(n, rng)
    tdir = unit_vectors(target - glob[:, 0, :, 3])
    bad = np.abs((pole * tdir).sum(-1)) > 0.8
    while bad.any():
        pole[bad] = random_dirs(int(bad.sum()), rng)
        bad = np.abs((pole * tdir).sum(-1)) > 0.8
    return local, glob, mid_axis.astype(np.float32), target.astype(np.float32), \
        pole.astype(np.float32), length


def degenerate_chains(rng):
    """Matrices, targets and poles with the degenerate cases of the IK module's documentation."""
    _, glob, axis, target, pole, _ = ik_legs(24, rng)
    glob, target, pole = glob.copy(), target.copy(), pole.copy()
    target[0] = np.nan                                   # NaN target
    target[1] = glob[1, 0, :, 3]                         # target at the start joint
    pole[2] = target[2] - glob[2, 0, :, 3]               # pole parallel to start-target
    glob[3, 1, :, 3] = glob[3, 0, :, 3]                  # zero-length first bone
    glob[4, 2, :, 3] = glob[4, 1, :, 3]                  # zero-length second bone
    glob[5, 0, :, :3] = 0                                # singular start matrix
    glob[6, 1, 0, 0] = np.inf                            # inf in a matrix
    pole[7] = 0                                          # zero pole
    target[8] = glob[8, 0, :, 3] * 1e30                  # huge target
    return glob, axis, target, pole


def _p_ik(rng):
    glob, axis, target, pole = degenerate_chains(rng)
    _, g2, a2, t2, p2, _ = ik_legs(37, rng)
    glob = np.concatenate([glob, g2])
    axis, target, pole = (np.concatenate(x) for x in ((axis, a2), (target, t2), (pole, p2)))
    tw = rng.uniform(-3, 3, len(glob))
    f = skelsimd
    return {"ik_two_bone": [(f.ik_two_bone, (glob[:, 0], glob[:, 1], glob[:, 2], target),
                             {"pole": pole, "mid_axis": axis, "twist": tw, "soften": 0.9,
                              "weight": 0.8})],
            "ik_aim": [(f.ik_aim, (glob[:, 1], target), {"forward": axis, "up": pole,
                                                          "offset": glob[:, 0, :, 3] * 0.01,
                                                          "twist": tw})]}


def _p_blend(rng):
    q0, q1 = T.special_quaternion_pairs(1003, rng)
    t = rng.uniform(-0.5, 1.5, 1003).astype(np.float32)
    t[:500] = rng.random(500)
    joints, blend = T.random_qts((5, 77), rng, scale=(0.5, 2)), T.random_qts((5, 77), rng)
    index = rng.permutation(77)[:41]
    layers = np.stack([joints, blend, joints[::-1]], axis=-3)
    # the SIMD loops' blocks (4 or 8 pairs, 8 blocks side by side, masked tails) with each
    # operand broadcast in turn, and nlerp blocks holding a zero, a tiny and a huge quaternion
    # (normalised element by element)
    n = 8 * 8 * 3 + 13
    b0, b1 = T.special_quaternion_pairs(n, rng)
    bt = rng.random(n).astype(np.float32)
    z0, z1 = b0.copy(), b1.copy()
    z0[70] = z1[70] = 0.0
    z0[141] *= 1e-20
    z1[141] *= 1e-20
    z0[150] *= 1e18
    f = skelsimd

    def blocks(fn):
        return [(fn, (b0, b1, bt), {}), (fn, (b0[5], b1, bt), {}), (fn, (b0, b1[7], bt), {}),
                (fn, (b0, b1, bt[3]), {}), (fn, (b0[5], b1, 0.25), {}), (fn, (b0, b1[7], 0.75), {})]
    return {"slerp": [(f.slerp, (q0, q1, t), {}), (f.slerp, (q0, q1, 0.3), {}),
                      (f.slerp, (q0[:1], q1, t), {}), (f.slerp, (q0, q1, t), {"method": "exact"})]
            + blocks(f.slerp),
            "nlerp": [(f.nlerp, (q0, q1, t), {})] + blocks(f.nlerp) + [(f.nlerp, (z0, z1, bt), {})],
            "blend_joints": [(f.blend_joints, (joints, blend, 0.6), {"index": i, "method": m})
                             for m in ("fast", "exact", "nlerp") for i in (None, index)],
            "blend_layers": [(f.blend_layers, (layers, [0.2, 0.5, 0.3]), {})]}


def _track_sweep(rng):
    """Tracks of every kind: 1 to 40 keys at uneven spacings from several starts, step, linear
    and cubic, looping or not, floats (1 to 4 components, plateaus) and quaternions (some
    neighbours near each other and antipodal)."""
    tracks = []
    for k in (1, 2, 7, 40):
        for interpolation in ("step", "linear", "cubic"):
            for quaternion in (False, True):
                for loop in (False, True):
                    start = float(rng.choice([0.0, -3.25, 17.5, 1000.0]))
                    times = (start + np.r_[0.0, np.cumsum(rng.integers(1, 65, k - 1) / 64.0)])
                    if quaternion:
                        values = rng.normal(size=(k, 4))
                        if loop and k > 1:
                            values = np.cumsum(values * 0.2, axis=0) + values[:1]
                        values /= np.linalg.norm(values, axis=-1, keepdims=True)
                        if loop:
                            values[::3] *= -1
                    else:
                        values = rng.uniform(-1, 1, (k, int(rng.integers(1, 5))))
                        if values.shape[1] == 1 and loop:
                            values = values[:, 0]
                        if rng.random() < 0.5:
                            values = np.round(values)
                    tracks.append(skelsimd.Track(times.astype(np.float32), values, interpolation,
                                                 loop=loop, quaternion=quaternion))
    return tracks


def _track_times(track, rng, n=53):
    """Times around a track's keys: exactly at keys, inside, far outside, some NaN."""
    t0, t1 = float(track.times[0]), float(track.times[-1])
    span = max(t1 - t0, 1.0)
    ts = rng.uniform(t0 - 2 * span, t1 + 2 * span, n)
    ts[: min(n, len(track.times))] = track.times[:n]
    ts[::7] = np.nan
    return ts.astype(np.float32)


def _motion_layers(rng, n, layers):
    q = rng.normal(size=(n, layers, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    d = np.concatenate([q, rng.uniform(-1, 1, (n, layers, 3)), np.ones((n, layers, 1))], -1)
    d = d.astype(np.float32)
    d[rng.random((n, layers)) < 0.1, 4:7] = 0.0          # zero-length translations
    w = rng.uniform(-0.5, 1, (n, layers)).astype(np.float32)
    w[rng.random(w.shape) < 0.1] = np.nan
    return d, w


def _p_track(rng):
    return {"Track.sample": [(tr.sample, (_track_times(tr, rng),), {}) for tr in _track_sweep(rng)],
            "blend_motion": [(skelsimd.blend_motion, _motion_layers(rng, n, layers), {})
                             for layers in range(7) for n in (0, 1, 5, 17, 40)]}


def _surface_steps(seed):
    """Every model on every topology: velocities, pins, forces, an effector, gravity; the
    positions, velocities and normals after 30 steps."""
    rng = np.random.default_rng(seed)
    out = []
    for model in ("offset", "length"):
        for topology in ("plane", "cylinder"):
            xyz = T.perturbed_grid(13, 37, rng, spacing=0.3, noise=0.05, topology=topology)
            s = skelsimd.Surface.from_positions(xyz, model=model, topology=topology, damping=0.99)
            s.velocities[...] = rng.normal(0, 0.1, s.velocities.shape)
            s.pinned[0, ::5] = True
            s.add_force(rng.normal(0, 0.1, (3, 13, 37)))
            s.apply_effector(rng.normal(0, 1, (4, 3)) + [5, 0, 2], 1.5, -0.7)
            s.step(0.1, 30, gravity=(0, -1, 0))
            out += [s.positions.copy(), s.velocities.copy(), s.normals()]
    return out


def _surface_state(cols, model, topology, mass):
    """A surface `cols` wide (9 rows, 5 from 41 columns on) with velocities, pins and forces."""
    rows = 9 if cols <= 40 else 5
    rng = np.random.default_rng(cols)
    xyz = T.perturbed_grid(rows, cols, rng, spacing=0.5, noise=0.05, topology=topology)
    if mass is None:
        mass = rng.uniform(0.5, 2.0, (rows, cols))
    s = skelsimd.Surface.from_positions(xyz, model=model, topology=topology, mass=mass,
                                        damping=0.99)
    s.velocities[...] = rng.normal(0, 0.05, s.velocities.shape)
    s.pinned[rng.random((rows, cols)) < 0.2] = True
    s.add_force(rng.normal(0, 0.1, (3, rows, cols)))
    return s


def step_in_shifted_buffer(s, shift, dt, n, gravity):
    """The state of `s` copied `shift` floats into a fresh buffer and stepped there with the
    active variant (moves every row against the 32-byte grid); returns that buffer, whole (the
    SIMD steps must write nothing outside the rows)."""
    from skelsimd import _core
    base = np.zeros(s._buffer.size + 8, np.float32)
    buf = base[shift:shift + s._buffer.size]
    buf[...] = s._buffer
    _core.surface_step(buf, s.rows, s.cols, s._plane, s._wrap, s._model_id, s._rest_step,
                       s._mass_step, s.elasticity, s.damping, dt, n, *gravity,
                       int(s._ext_pending))
    return buf


def _v_surface_step(rng):
    """The surface steps of every model and topology, then the steps on every row width (the
    SIMD steps split each row at its first 32-byte boundary: a head block, aligned blocks, a
    tail block; masked blocks below 8 columns) with the rows starting at every offset."""
    calls = [(_surface_steps, (5,), {})]
    for cols in list(range(1, 41)) + list(range(95, 106)):
        for model, topology, mass in (("offset", "plane", 1.0),
                                      ("length", "cylinder" if cols >= 3 else "plane", None)):
            s = _surface_state(cols, model, topology, mass)
            calls += [(step_in_shifted_buffer, (s, shift, 0.5 * s.max_stable_dt, 11, (0, -0.1, 0)),
                       {}) for shift in (0, 3, 6)]
    return calls


def _compress_clips():
    """Clips of every kind: several roots, chains and stars; bone lengths from 0.1 to 100;
    travelling and spinning roots, jitter, static stretches, scales, quaternions neither unit nor
    continuous; every rate, shell distance and segment length."""
    rng = np.random.default_rng(7)
    clips = []
    for k, (translation, travel, noise, static, spin, scales, flip, shell, rate, segment) in \
            enumerate([(0.1, 0.0, 0.0, 0.0, False, False, False, 0.0, 24.0, 16),
                       (1.0, 10.0, 0.001, 0.5, True, True, True, 1.0, 30.0, 1),
                       (10.0, 1000.0, 0.01, 0.0, True, False, False, 3.0, 120.0, 5),
                       (100.0, 0.0, 0.0, 1.0, False, True, True, 3.0, 30.0, 31)]):
        parents = [T.random_parents(40, rng), T.chain_parents(12), np.r_[-1, np.zeros(9, int)],
                   np.array([-1, 0, 1, -1, 3, 3])][k]
        frames = [1, 150, 61, 40][k]
        local = T.random_motion(frames, parents, rng, translation=translation, root_travel=travel,
                                noise=noise, static=static, spin=spin, scales=scales)
        if flip:
            sign = rng.random(local.shape[:2]) < 0.3
            local[..., :4] *= (np.where(sign, -1.0, 1.0)[..., None]
                               * rng.uniform(0.5, 2.0, local.shape[:2] + (1,)))
        precision = 0.01 * max(1.0, translation / 10.0)
        clips.append((local.astype(np.float32), parents,
                      {"sample_rate": rate, "precision": precision, "shell_distance": shell,
                       "segment_length": segment}))
    return clips


def _p_compress(rng):
    def encode(local, parents, kw):
        return skelsimd.compress(local, parents, **kw).to_bytes()
    calls = {"compress": [], "CompressedClip.decompress": [], "CompressedClip.sample": []}
    for local, parents, kw in _compress_clips():
        c = skelsimd.compress(local, parents, **kw)
        times = np.concatenate([rng.uniform(-0.2, c.duration + 0.2, 50),
                                np.arange(c.num_frames) / kw["sample_rate"],
                                [0.0, c.duration, np.inf, -np.inf]])
        calls["compress"].append((encode, (local, parents, kw), {}))
        calls["CompressedClip.decompress"] += [(c.decompress, (), {}),
                                               (c.sample_many, (times,), {})]
        calls["CompressedClip.sample"] += [(c.sample, (float(t),), {}) for t in times[::9]]
    return calls


def _with(valid, ported, name):
    """valid(rng)'s calls followed by the calls for `name` of ported(rng)."""
    return lambda rng: valid(rng) + ported(rng)[name]


def _ported(ported, name):
    """The calls for `name` of ported(rng)."""
    return lambda rng: ported(rng)[name]


def result_arrays(result):
    """The arrays of a valid call's result, for comparing results byte for byte."""
    if isinstance(result, np.ndarray):
        return [result]
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in result_arrays(r)]
    if isinstance(result, (bytes, bytearray)):
        return [np.frombuffer(result, np.uint8)]
    if isinstance(result, skelsimd.Clip):
        return [result.local]
    return [np.asarray(result)]



# --- motion matching, inertialization, foot planting, dispatch --------------------------------

def _dispatch_table(g):
    return skelsimd.dispatch_table, (), {}, ()


def _pose_velocity(g):
    lead = g.lead() + (g.int_(0, 6),)
    return skelsimd.pose_velocity, (g.array(lead + (8,), "qts"), g.array(lead + (8,), "qts"),
                                    g.real(float(g.rng.uniform(0.001, 0.1)))), {}, ()


def _inertialize_transition(g):
    j = g.int_(0, 6)
    args = (g.array((j, 8), "qts"), g.array((j, 6), "unit"), g.array((j, 8), "qts"),
            g.array((j, 6), "unit"))
    return skelsimd.inertialize_transition, args, {}, ()


def _inertialize_update(g):
    j = g.int_(0, 6)
    kw = {"halflife": g.real(float(g.rng.uniform(0.01, 0.5))),
          "dt": g.real(float(g.rng.uniform(0, 0.1)))}
    return skelsimd.inertialize_update, (g.array((j, 8), "qts"), g.array((j, 6), "unit"),
                                         g.array((j, 6), "unit")), kw, ()


def _inertializer(g):
    return skelsimd.Inertializer, (g.real(float(g.rng.uniform(0.01, 0.5))),), {}, ()


def _motion_database(g):
    c = example_clip()
    clips = g.pick([lambda: [c], lambda: [c[:g.int_(0, 200)]], lambda: [], lambda: [c, c[::2]],
                    lambda: c, lambda: [None]])()
    kw = {}
    if g.chance(0.3):
        kw["offsets"] = g.pick([(0.1, 0.2), (), (-1.0,), (0.5,)])
    if g.chance(0.2):
        kw["mirror"] = g.boolean()
    return skelsimd.MotionDatabase, (clips,), kw, ()


def _clip_transition(g):
    c = small_clip(g)
    other = g.pick([lambda: small_clip(g), lambda: c[::-1], lambda: None, lambda: c.local])()
    kw = {}
    if g.chance(0.4):
        kw["halflife"] = g.real(float(g.rng.uniform(0.01, 0.3)))
    if g.chance(0.3):
        kw["align"] = g.boolean()
    return c.transition, (other,), kw, (), lambda: c.local.copy()


_FOOT = ("LeftHip", "LeftKnee", "LeftAnkle")


def _plant_feet(g):
    c = example_clip()[:g.int_(0, 60)]
    feet = g.pick([[_FOOT], [], [("LeftHip", "LeftKnee")], [("nope", "LeftKnee", "LeftAnkle")],
                   _FOOT])
    kw = {"speed": g.real(float(g.rng.uniform(1, 20)))}
    if g.chance(0.3):
        kw["blend"] = g.real(float(g.rng.uniform(0, 0.2)))
    return skelsimd.plant_feet, (c, feet), kw, (), lambda: c.local.copy()


def _foot_sliding(g):
    c = example_clip()[:g.int_(0, 60)]
    contact = g.pick([lambda: np.ones(c.frames, bool), lambda: np.zeros(3, bool),
                      lambda: c.contacts("LeftAnkle", 8.0) if c.frames else None])()
    return skelsimd.foot_sliding, (c, g.pick(["LeftAnkle", 4, "nope", 99]), contact), {}, ()


def _bend_axis(g):
    lead = g.lead()
    start, mid, end = (g.array(lead + (3, 4), "joint") for _ in range(3))
    pole = g.array(g.pick([lead, ()]) + (3,), "unit")
    return skelsimd.bend_axis, (start, mid, end, pole), {}, ()


def _with_threads(n):
    """skelsimd.threads(n) entered and left (the catalog's entries are calls)."""
    with skelsimd.threads(n):
        return skelsimd.get_num_threads()


def _set_num_threads_back(n):
    """set_num_threads(n), then the count as it was (the process-wide setting is left alone)."""
    old = skelsimd.get_num_threads()
    try:
        skelsimd.set_num_threads(n)
        return skelsimd.get_num_threads()
    finally:
        skelsimd.set_num_threads(old)


_THREAD_COUNTS = [1, 2, 3, 7, 0, -1, 1.5, "2", True, None, 2**40, np.int64(2)]


def _threads(g):
    return _with_threads, (g.pick(_THREAD_COUNTS),), {}, ()


def _set_num_threads(g):
    return _set_num_threads_back, (g.pick(_THREAD_COUNTS),), {}, ()


def _humanoid_map(g):
    sk = example_clip().skeleton
    target = g.pick([sk, example_clip(), skelsimd.Skeleton(sk.parents, rest=sk.rest),
                     skelsimd.Skeleton(sk.parents), sk.names, None])
    overrides = g.pick([None, {}, {"leftHand": "lhand"}, {"leftFoot": None}, {"leftFoot": "nope"},
                        {"nope": "Hips"}, {"head": 3}, ["head"], "/nonexistent/map.json"])
    return skelsimd.humanoid_map, (target, overrides), {}, ()


def _retarget(source, target, mapping, kw, clip):
    """A Retargeter made and applied in one call (the catalog's entries are calls)."""
    return skelsimd.Retargeter(source, target, mapping, **kw).apply(clip)


def _retargeter(g):
    clip = example_clip()[:g.int_(1, 40)]
    sk = clip.skeleton
    bigger = skelsimd.Skeleton(sk.parents, sk.names, sk.rest * np.float32([1, 1, 1, 1, 2, 2, 2, 1]))
    target = g.pick([sk, clip, bigger, skelsimd.Skeleton(sk.parents), sk.names, None])
    mapping = g.pick(["auto", {n: n for n in sk.names}, {"Hips": "nope"}, {"leftFoot": "LeftAnkle"},
                      {"leftFoot": ("LeftAnkle", "nope")}, {"nope": "Hips"}, {}, "bogus", 3])
    kw = {}
    if g.chance(0.3):
        kw["scale"] = g.pick(["legs", "height", 2.0, -1.0, float("nan"), "arms", True])
    if g.chance(0.3):
        kw["feet"] = g.pick(["auto", ["LeftAnkle"], ["nope"], [3], "LeftAnkle"])
    broken = clip[:]
    broken.local[0, 3, 1] = np.nan
    frames = g.pick([clip, clip, broken, example_clip()[:2].reorder("breadth-first")[0],
                     clip.local])
    return _retarget, (clip, target, mapping, kw, frames), {}, ()


def _pose_to_tpose(g):
    sk = example_clip().skeleton
    rest = g.pick([None, sk.rest, sk.rest[:3], np.full((len(sk), 8), np.nan, np.float32), "x",
                   skelsimd.qts_to_matrix(sk.rest)])
    mapping = g.pick([None, {"hips": "Hips"}, {"leftFoot": "nope"}, 5, {3: "Hips"}])
    return skelsimd.pose_to_tpose, (sk, rest), {"mapping": mapping}, ()


CATALOG = {
    # joint matrices
    "local_to_global": (5, _walk("local_to_global", (3, 4), "joint"),
        _with(_with(_v_local_to_global, _p_joints, "local_to_global"), _p_mat4,
              "local_to_global")),
    "global_to_local": (3, _walk("global_to_local", (3, 4), "joint"),
        _with(_v_joints("global_to_local", skeleton=True), _p_joints, "global_to_local")),
    "multiply_joints": (3, _binary("multiply_joints", (3, 4), (3, 4), (3, 4)),
        _with(_with(_v_joints("multiply_joints", second=True), _p_joints,
                    "multiply_joints"), _p_mat4, "multiply_joints")),
    "invert_joints": (2, _unary("invert_joints", (3, 4), (3, 4), "joint", flag="rigid"),
        _with(_v_joints("invert_joints"), _p_joints, "invert_joints")),
    # 4x4
    "matmul4": (3, _binary("matmul4", (4, 4), (4, 4), (4, 4), "unit", "unit"),
        _with(_v_mat4("matmul4"), _p_mat4, "matmul4")),
    "mat4_local_to_global": (3, _walk("mat4_local_to_global", (4, 4), "unit"),
        _with(_v_mat4("mat4_local_to_global"), _p_mat4, "mat4_local_to_global")),
    "transform_points": (3, _transform_points,
        _with(_v_mat4("transform_points"), _p_mat4, "transform_points")),
    # skinning
    "skinning_palette": (3, _skinning_palette,
        _with(_v_skinning_palette, _p_skinning, "skinning_palette")),
    "skin": (5, _skin, _with(_v_skin, _p_skinning, "skin")),
    "normalize_weights": (2, _normalize_weights,
        _with(_v_array("normalize_weights", (3000, 4), kind="positive"), _p_skinning,
              "normalize_weights")),
    # quaternions and QTS
    "slerp": (4, _interp("slerp"), _with(_v_interp("slerp"), _p_blend, "slerp")),
    "nlerp": (3, _interp("nlerp"), _with(_v_interp("nlerp"), _p_blend, "nlerp")),
    "blend_joints": (5, _blend_joints, _with(_v_blend_joints, _p_blend, "blend_joints")),
    "blend_layers": (3, _blend_layers, _with(_v_blend_layers, _p_blend, "blend_layers")),
    "quat_multiply": (2, _binary("quat_multiply", (4,), (4,), (4,), "quat", "quat"),
        _with(_v_quat("quat_multiply", _quats), _p_quat, "quat_multiply")),
    "quat_rotate": (2, _binary("quat_rotate", (4,), (3,), (3,), "quat", "unit"),
        _v_quat("quat_rotate", lambda rng: rng.uniform(-1, 1, (2000, 3)))),
    "quat_conjugate": (1, _unary("quat_conjugate", (4,), (4,), "quat"), _v_quat("quat_conjugate")),
    "quat_normalize": (1, _unary("quat_normalize", (4,), (4,), "quat"),
        _with(_v_quat("quat_normalize"), _p_quat, "quat_normalize")),
    "quat_to_matrix": (2, _unary("quat_to_matrix", (4,), (3, 3), "quat", flag="scalar_first"),
        _v_quat("quat_to_matrix")),
    "matrix_to_quat": (2, _unary("matrix_to_quat", (3, 3), (4,), "unit", flag="scalar_first"),
        _with(_v_array("matrix_to_quat", (2000, 3, 3)), _p_quat, "matrix_to_quat")),
    "qts_to_matrix": (2, _unary("qts_to_matrix", (8,), (3, 4), "qts"),
        _with(_v_array("qts_to_matrix", (2000, 8), kind="qts"), _p_quat, "qts_to_matrix")),
    # rotation conversions
    "euler_to_quat": (2, _convert("euler_to_quat", (3,), (4,), "unit", seq=True,
                                  flags=("degrees", "scalar_first")),
        _with(_v_array("euler_to_quat", (2000, 3), "zxy"), _p_convert, "euler_to_quat")),
    "quat_to_euler": (2, _convert("quat_to_euler", (4,), (3,), "quat", seq=True,
                                  flags=("degrees", "scalar_first", "suppress_warnings")),
        _with(_v_quat("quat_to_euler", lambda rng: "xyz"), _p_convert, "quat_to_euler")),
    "rotvec_to_quat": (1, _convert("rotvec_to_quat", (3,), (4,), "unit",
                                   flags=("degrees", "scalar_first")),
        _with(_v_array("rotvec_to_quat", (2000, 3)), _p_convert, "rotvec_to_quat")),
    "quat_to_rotvec": (1, _convert("quat_to_rotvec", (4,), (3,), "quat",
                                   flags=("degrees", "scalar_first")),
        _with(_v_quat("quat_to_rotvec"), _p_convert, "quat_to_rotvec")),
    "matrix_to_sixd": (1, _convert("matrix_to_sixd", (3, 3), (6,), "unit", layout=True),
        _v_array("matrix_to_sixd", (2000, 3, 3))),
    "sixd_to_matrix": (1, _convert("sixd_to_matrix", (6,), (3, 3), "unit", layout=True),
        _with(_v_array("sixd_to_matrix", (2000, 6)), _p_convert, "sixd_to_matrix")),
    "quat_to_sixd": (1, _convert("quat_to_sixd", (4,), (6,), "quat", flags=("scalar_first",),
                                 layout=True),
        _with(_v_quat("quat_to_sixd"), _p_convert, "quat_to_sixd")),
    "sixd_to_quat": (1, _convert("sixd_to_quat", (6,), (4,), "unit", flags=("scalar_first",),
                                 layout=True),
        _with(_v_array("sixd_to_quat", (2000, 6)), _p_convert, "sixd_to_quat")),
    "matrix_to_qts": (2, _unary("matrix_to_qts", (3, 4), (8,), "joint"),
        _with(_v_joints("matrix_to_qts"), _p_quat, "matrix_to_qts")),
    "qts_pack": (3, _qts_pack, _v_qts_pack),
    "qts_unpack": (1, _qts_unpack, _v_array("qts_unpack", (2000, 8), kind="qts")),
    "qts_local_to_global": (4, _walk("qts_local_to_global", (8,), "qts"),
        _with(_v_qts_walk("qts_local_to_global"), _p_qts, "qts_local_to_global")),
    "qts_local_to_global_matrix": (4, _walk("qts_local_to_global_matrix", (8,), "qts"),
        _with(_v_qts_walk("qts_local_to_global_matrix", precision="float64"), _p_qts,
              "qts_local_to_global_matrix")),
    # utilities
    "empty_aligned": (1, _aligned("empty_aligned")),
    "zeros_aligned": (1, _aligned("zeros_aligned")),
    "is_aligned": (1, _is_aligned),
    "isa": (0.2, lambda g: (skelsimd.isa, (), {}, ())),
    # skeletons
    "Skeleton": (3, _skeleton_init),
    "Skeleton.from_parents_any_order": (2, _skeleton_any_order),
    "Skeleton.local_to_global": (2, _skeleton_walk("local_to_global"),
        _v_skeleton_walk("local_to_global", precision="float64")),
    "Skeleton.global_to_local": (2, _skeleton_walk("global_to_local"),
        _v_skeleton_walk("global_to_local", rigid=True)),
    **{f"Skeleton.{m}": (0.5, _skeleton_method(m)) for m in
       ("index", "indices", "children", "ancestors", "chain", "subtree", "subtree_indices",
        "subtree_mask", "chain_mask", "mask", "mask_ranges", "reorder", "__array__")},
    # BVH and clips
    "load_bvh": (3, _load_bvh, _v_load_bvh),
    "save_bvh": (2, _save_bvh),
    "Clip": (2, _clip_init),
    **{f"Clip.{m}": (1, _clip_method(m)) for m in
       ("global_matrices", "global_positions", "local_matrices", "reorder", "sample", "resample",
        "concatenate", "crossfade", "mirror", "root_motion", "__getitem__")},
    # surface
    "Surface": (2, _surface_init),
    "Surface.from_positions": (1, _surface_from_positions),
    **{f"Surface.{m}": (1.5, _surface_method(m)) for m in
       ("add_force", "apply_effector", "normals", "capture_rest", "clear_forces",
        "positions", "velocities", "pinned")},
    "Surface.step": (1.5, _surface_method("step"), _v_surface_step),
    # compression
    "compress": (3, _compress, _with(_v_compress, _p_compress, "compress")),
    "clip_error": (2, _clip_error),
    "CompressedClip": (3, _compressed_init),
    "CompressedClip.from_bytes": (2, _compressed_from_bytes),
    **{f"CompressedClip.{m}": (1, _compressed_method(m)) for m in
       ("sample_many", "to_clip", "to_bytes")},
    "CompressedClip.decompress": (1, _compressed_method("decompress"),
        _with(_v_compressed, _p_compress, "CompressedClip.decompress")),
    "CompressedClip.sample": (1, _compressed_method("sample"),
        _ported(_p_compress, "CompressedClip.sample")),
    # pictures (slow: rarely)
    "plot_surface": (0.05, _plot("plot_surface")),
    "Clip.plot": (0.05, _plot("clip.plot")),
    "Skeleton.plot": (0.03, _plot("skeleton.plot")),
    "Surface.plot": (0.03, _plot("surface.plot")),
    "Clip.animate": (0.03, _plot("clip.animate")),
    # additive layers, IK, tracks and root motion
    "make_additive": (2, _make_additive, _with(_v_make_additive, _p_additive, "make_additive")),
    "apply_additive": (2, _apply_additive, _with(_v_apply_additive, _p_additive, "apply_additive")),
    "blend_motion": (2, _blend_motion, _with(_v_blend_motion, _p_track, "blend_motion")),
    "motion_deltas": (1, _motion_deltas, _v_motion("motion_deltas")),
    "accumulate_motion": (1, _accumulate_motion, _v_motion("accumulate_motion")),
    "ik_two_bone": (2, _ik_two_bone, _with(_v_ik_two_bone, _p_ik, "ik_two_bone")),
    "ik_aim": (2, _ik_aim, _with(_v_ik_aim, _p_ik, "ik_aim")),
    "Track": (2, _track_init),
    "Track.sample": (2, _track_sample, _with(_v_track_sample, _p_track, "Track.sample")),
    "Track.triggers": (1, _track_triggers),
    "Clip.blend": (1, _clip_blend),
    "dispatch_table": (0.5, _dispatch_table),
    "pose_velocity": (1, _pose_velocity, _v_inertialize("pose_velocity")),
    "inertialize_transition": (1, _inertialize_transition, _v_inertialize("inertialize_transition")),
    "inertialize_update": (1, _inertialize_update, _v_inertialize("inertialize_update")),
    "Inertializer": (0.5, _inertializer),
    "MotionDatabase": (0.1, _motion_database),
    "Clip.transition": (0.5, _clip_transition),
    "plant_feet": (0.1, _plant_feet),
    "foot_sliding": (0.2, _foot_sliding),
    "humanoid_map": (0.3, _humanoid_map),
    "bend_axis": (1, _bend_axis),
    # the thread pool's settings
    "threads": (0.3, _threads),
    "set_num_threads": (0.3, _set_num_threads),
    "get_num_threads": (0.1, lambda g: (skelsimd.get_num_threads, (), {}, ())),
    "available_cpus": (0.1, lambda g: (skelsimd.available_cpus, (), {}, ())),
    "Retargeter": (0.1, _retargeter),
    "pose_to_tpose": (0.3, _pose_to_tpose),
    "Clip.contacts": (1, _clip_contacts),
    **{f"Skeleton.{m}": (0.5, _skeleton_ik(m)) for m in ("look_at", "solve_chain", "two_bone")},
    # glTF and compressed clip files
    "save_gltf": (0.5, _save_gltf),
    "load_gltf": (1, _load_gltf),
    "save_usd": (0.2, _save_usd),
    "load_usd": (0.3, _load_usd),
    "save_skc": (0.5, _save_skc),
    "load_skc": (1, _load_skc),
}

# skelsimd.dask's batched kernels (when the [dask] extra is installed): the in-memory cases with
# some operands as chunked dask arrays. Bad input must raise when the function is called; an
# exception only at compute time is a failure (it is reported as a RuntimeError).
DASK_FUNCTIONS = ("local_to_global", "global_to_local", "multiply_joints", "invert_joints",
                  "qts_local_to_global", "qts_local_to_global_matrix", "mat4_local_to_global",
                  "matmul4", "transform_points", "skinning_palette", "skin", "slerp", "nlerp",
                  "blend_joints", "blend_layers")
try:
    import dask
    import dask.array as _da
    import skelsimd.dask as _skd
except ImportError:
    _skd = None


def _dask_holds_nonfinite(args, kw):
    """Whether a dask operand of the call holds a non-finite value."""
    return any(isinstance(x, _da.Array) and x.dtype.kind == "f"
               and not bool(np.isfinite(x).all().compute())
               for x in list(args) + list(kw.values()))


def _dask_case(name):
    make_memory = CATALOG[name][1]

    def make(g):
        _, args, kw, outs = make_memory(g)[:4]

        def as_dask(x):
            if isinstance(x, np.ndarray) and x.ndim and x.dtype.kind == "f" and g.chance(0.7):
                chunks = tuple(g.int_(1, max(n, 1)) for n in x.shape)
                return _da.from_array(x, chunks=chunks)
            return x
        args = tuple(as_dask(a) for a in args)
        kw = {k: (v if k in ("out", "normals_out", "index") else as_dask(v)) for k, v in kw.items()}
        if isinstance(kw.get("out"), np.ndarray) and g.chance(0.5):
            kw.pop("out")          # the lazy result instead
        fn = getattr(_skd, name)

        def call_and_compute(*args, **kw):
            r = fn(*args, **kw)
            try:
                with dask.config.set(scheduler="synchronous"):
                    dask.compute(r)
            except ValueError as exc:
                # documented: values only a dask operand holds (skin's palette) are checked
                # when its chunk is computed
                if "expected finite" in str(exc) and _dask_holds_nonfinite(args, kw):
                    raise
                raise RuntimeError(f"raised at compute time, not at the call: {exc!r}") from exc
            except Exception as exc:  # noqa: BLE001
                raise RuntimeError(f"raised at compute time, not at the call: {exc!r}") from exc
            return r
        return call_and_compute, args, kw, outs
    return make


if _skd is not None:
    CATALOG.update({f"dask.{n}": (0.4, _dask_case(n)) for n in DASK_FUNCTIONS})

NAMES = sorted(CATALOG)
WEIGHTS = np.array([CATALOG[n][0] for n in NAMES], float)
WEIGHTS /= WEIGHTS.sum()


def public_api():
    """Every public callable the catalog must cover: functions and classes of the skelsimd
    namespace and the public methods of Skeleton, Clip, Surface, CompressedClip and Track
    (properties with setters included)."""
    import inspect
    names = set()
    for n in dir(skelsimd):
        o = getattr(skelsimd, n)
        if n.startswith("_") or inspect.ismodule(o):
            continue
        if callable(o):
            names.add(n)
    for cls in (skelsimd.Skeleton, skelsimd.Clip, skelsimd.Surface, skelsimd.CompressedClip,
                skelsimd.Track):
        for n in dir(cls):
            attr = inspect.getattr_static(cls, n)
            if n.startswith("_") and n not in ("__getitem__", "__array__"):
                continue
            if isinstance(attr, property):
                if attr.fset is not None:
                    names.add(f"{cls.__name__}.{n}")
            elif callable(getattr(cls, n)) and n != "parents":
                names.add(f"{cls.__name__}.{n}")
    return names


# --- core axes (the rank-limit tests) ----------------------------------------------------------
# name -> (operands, output core ndim[, keyword variants]): one item per positional argument of
# the entry's first valid call, (name, core ndim) for an operand whose leading dimensions
# broadcast, None for one that does not (parents, weights); a result's dimensions are the
# broadcast leading dimensions and the output's core. The tests give one operand at a time (and
# all at once) as many leading dimensions as NumPy allows and call with each keyword variant
# ({} when none is given).
CORE_AXES = {
    "slerp": ((("q0", 1), ("q1", 1), ("t", 0)), 1, ({}, {"method": "exact"})),
    "nlerp": ((("q0", 1), ("q1", 1), ("t", 0)), 1),
    "blend_joints": ((("joints", 2), ("blend", 2), ("t", 0)), 2),
    "blend_layers": ((("layers", 3), None), 2),
    "qts_to_matrix": ((("x", 1),), 2),
    "quat_to_matrix": ((("q", 1),), 2),
    "matrix_to_quat": ((("m", 2),), 1),
    "matrix_to_qts": ((("m", 2),), 1),
    "quat_multiply": ((("a", 1), ("b", 1)), 1),
    "quat_rotate": ((("q", 1), ("v", 1)), 1),
    "quat_normalize": ((("q", 1),), 1),
    "qts_local_to_global": ((("local", 2), None), 2),
    "qts_local_to_global_matrix": ((("local", 2), None), 3),
    "multiply_joints": ((("a", 2), ("b", 2)), 2),
    "invert_joints": ((("m", 2),), 2),
    "matmul4": ((("a", 2), ("b", 2)), 2),
    "transform_points": ((("m", 2), ("points", 1)), 1),
    "local_to_global": ((("local", 3), None), 3),
    "mat4_local_to_global": ((("local", 3), None), 3),
    "skinning_palette": ((("local", 3), None, ("inverse_bind", 3)), 3),
    "skin": ((("positions", 2), None, None, ("palette", 3)), 2),
    "normalize_weights": ((("weights", 1),), 1),
}
