"""A fuzz harness over every public function and method of skelsimd.

Each case is one call with arguments drawn as a hostile or careless user would pass them: mostly
valid operands with one or more of them broken (wrong dtypes and shapes, 0 to 64 dimensions,
odd strides, misaligned, byte-swapped, read-only and overlapping buffers, NaN/inf/huge values,
broken hierarchies and index arrays, wrong Python types, out-of-range ints and floats). The
rules checked on every call (the design's, see README "Conventions"):

* no crash and no hang (the runner, tests/fuzz/run.py, calls this in a child process);
* an exception is a TypeError or ValueError (subclasses of other types are failures:
  OverflowError, IndexError, ZeroDivisionError, RuntimeError, KeyError, ...);
* after an exception every array argument and the receiver's state keep their bytes;
* after a success every array argument that is not an output (or the same memory as one, in
  place) keeps its bytes.

The calls come from the registry of the public API, tests/catalog.py (one entry per public
function and method); the failures it lists in KNOWN_BUGS are counted as outcomes "known <type>".
Case i of seed s is drawn from ``numpy.random.default_rng([s, i])``, so any case replays alone:
``python tests/fuzz/api_fuzz.py --seed S --case I --show``.
"""
import os
import sys
import traceback
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:     # last: a PYTHONPATH entry (the sanitizer build) comes first
    sys.path.append(ROOT)

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

import driver  # noqa: E402
import skelsimd  # noqa: E402
# The cases are drawn from the registry of the public API, tests/catalog.py.
from catalog import (ALLOWED, ALLOWED_FOR, CATALOG, KNOWN_BUGS, NAMES, WEIGHTS,  # noqa: E402,F401
                     Gen, public_api)


# --- running ---------------------------------------------------------------------------------

def _snapshot(x):
    if isinstance(x, np.ndarray):
        try:
            return x.tobytes()
        except Exception:  # noqa: BLE001
            return None
    return None


def _same_memory(a, b):
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.size and b.size and \
        np.shares_memory(a, b, max_work=1000) if True else False


def build_case(seed, index):
    rng = np.random.default_rng([seed, index])
    name = NAMES[int(rng.choice(len(NAMES), p=WEIGHTS))]
    g = Gen(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = CATALOG[name][1](g)
    fn, args, kwargs, outs = made[:4]
    state = made[4] if len(made) > 4 else None
    return name, g, fn, args, kwargs, outs, state


def describe(x):
    if isinstance(x, np.ndarray):
        flags = "".join(c for c, f in (("C", x.flags.c_contiguous), ("W", x.flags.writeable),
                                       ("A", x.flags.aligned)) if f)
        return f"ndarray{x.shape} {x.dtype} [{flags}]"
    r = repr(x)
    return r if len(r) < 80 else r[:77] + "..."


def run_case(seed, index):
    """Runs one case; returns (name, outcome, failure message or None)."""
    try:
        name, g, fn, args, kwargs, outs, state = build_case(seed, index)
    except Exception:  # noqa: BLE001  (a bug of this harness, not of skelsimd)
        return "harness", "generator error", None
    arrays = [("args%d" % i, a) for i, a in enumerate(args)] + list(kwargs.items())
    before = {k: _snapshot(v) for k, v in arrays}
    state_before = state() if state else None
    out_arrays = [v for k, v in arrays if k in outs and isinstance(v, np.ndarray)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args, **kwargs)
    except ALLOWED + ALLOWED_FOR.get(name, ()) as exc:
        outcome = type(exc).__name__
        problems = [k for k, v in arrays if before[k] is not None and _snapshot(v) != before[k]]
        if state is not None and not np.array_equal(state(), state_before, equal_nan=True):
            problems.append("the receiver's state")
        if problems:
            return name, outcome, f"{outcome} ({exc}) but {', '.join(problems)} changed"
        return name, outcome, None
    except KNOWN_BUGS.get(name, ()) as exc:     # see tests/catalog.py: counted, not a failure
        return name, f"known {type(exc).__name__}", None
    except Exception as exc:  # noqa: BLE001
        tb = traceback.format_exc(limit=6)
        return name, type(exc).__name__, f"{type(exc).__name__}: {exc}\n{tb}"
    # success: inputs that are not outputs (nor the same memory as one) keep their bytes
    changed = []
    for k, v in arrays:
        if k in outs or before[k] is None:
            continue
        if any(_same_memory(v, o) for o in out_arrays):
            continue
        if _snapshot(v) != before[k]:
            changed.append(k)
    if changed:
        return name, "ok", f"success but input {', '.join(changed)} changed"
    return name, "ok", None


def show_case(seed, index):
    name, g, fn, args, kwargs, outs, state = build_case(seed, index)
    print(f"case {seed}:{index} {name}  p_bad={g.p_bad}  notes={g.notes}")
    for i, a in enumerate(args):
        print(f"  arg{i}: {describe(a)}")
    for k, v in kwargs.items():
        print(f"  {k}: {describe(v)}")
    print("  ->", run_case(seed, index)[1:])


def replay(seed, case, show):
    if show:
        show_case(seed, case)
    else:
        print(run_case(seed, case))


def main(argv=None):
    args = driver.arguments(__doc__.split("\n")[0], argv)
    return driver.run("api", args, run_case, replay, {"isa": skelsimd.isa()})


if __name__ == "__main__":
    sys.exit(main())
