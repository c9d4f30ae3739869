"""Where a benchmark row stands against the machine: instructions per unit (counted by
valgrind's callgrind, which counts retired instructions exactly and repeatably whatever else the
machine is doing), time per unit (interleaved minima), the instructions per cycle that implies at
the measured clock (a chain of dependent adds: the boost clock, not /proc/cpuinfo's nominal one), and the bytes the kernel must move against a memcpy of its input.

    python benchmarks/roofline.py                      # the rows the speed goals name
    python benchmarks/roofline.py --rows army skin[1]  # bench workload names (python -m skelsimd bench --list)
    python benchmarks/roofline.py --isa sse41
    python benchmarks/roofline.py --rows "import numpy as np;; np.sqrt(np.ones(1000));; 1000"
                                                       # ad hoc: "SETUP;;STATEMENT;;UNITS per call"

The count is taken between two client requests around K calls of the workload's kernel (after a
warm-up call), so it includes each call's Python and glue instructions: a few hundred per call,
negligible per unit for the large rows. Rows that are mostly one call's overhead (a single
skeleton, one pair) are not for this table: NumPy and the interpreter take other code paths on
valgrind's CPU model (no AVX-512), so their counts do not match the timed run. Needs valgrind and its headers (callgrind.h) and a C
compiler: a ten-line helper library is compiled into a temporary directory at start. valgrind
does not run AVX-512 code, so the count is for avx2 or a narrower target.

Reading the table: Zen 4 dispatches at most 6 instructions per cycle and has 4 floating-point
pipes (2 of which shuffle), so SIMD kernels rarely sustain more than about 4 instructions per
cycle. "IPC at goal" is the rate the current instruction count would need to reach the goal;
above about 4 the goal needs fewer instructions per unit (another formulation), not better
scheduling. "bytes / unit" is what the call reads and writes (outputs counted once; a
write-allocate cache reads them too).
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# the rows the speed goals name: workload name -> (goal in ns per unit, bytes read + written per unit)
GOAL_ROWS = {
    "skin[1]": (2.8, 16 + 16 + 12 + 12),              # indices, weights, position in, position out
    "skin_normals[1]": (3.5, 16 + 16 + 24 + 24),
    "nlerp[1024]": (1.0, 16 + 16 + 4 + 16),
    "blend_joints_fast[1000x96]": (2.0, 32 + 32 + 32),
    "blend_joints_nlerp[1000x96]": (1.2, 32 + 32 + 32),
    "army": (1.5 * 1.0, 48 + 48),                     # goal 1.5x memcpy: filled in from the memcpy
    "qts_matrix[1000x96]": (2.5, 32 + 48),
    "slerp[1024]": (1.5, 16 + 16 + 4 + 16),
    "untransform": (3.0, 48 + 48),
    "water": (1.5, None),
    "pairs-100k": (2.0, 64 + 64 + 64),
    "layers_additive[2+1x10x96]": (3.0, 2 * 32 + 32 + 32),
    "apply_additive[1000x96]": (None, 32 + 32 + 32),
}

HELPER_C = r"""
#include <time.h>
#include <valgrind/callgrind.h>
void roofline_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void roofline_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT("roofline"); }
/* The core clock in GHz: a chain of dependent adds (one cycle each) timed by the wall clock. */
double roofline_ghz(long n)
{
    struct timespec a, b;
    long x = 0, i;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (i = 0; i < n; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
    clock_gettime(CLOCK_MONOTONIC, &b);
    return 8.0 * (double)n / ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec));
}
"""


def _workloads(names):
    from skelsimd._bench import FAMILIES
    found = {}
    for family in FAMILIES.values():
        for w in family():
            if w.name in names and w.name not in found:
                found[w.name] = w
    missing = [n for n in names if n not in found]
    if missing:
        raise SystemExit(f"unknown workload(s): {', '.join(missing)}")
    return [found[n] for n in names]


def _adhoc(spec: str):
    """An ad-hoc workload from "SETUP;;STMT;;UNITS" (python code, a statement, units per call)."""
    from skelsimd._bench.core import Workload
    setup, stmt, units = (part.strip() for part in spec.split(";;"))
    env: dict = {}
    exec(setup, env)
    code = compile(stmt, "<stmt>", "exec")
    return Workload(name=spec, title=stmt, family="adhoc", unit="unit", units=int(units),
                    kernel=lambda: exec(code, env))


def _count_child(name: str, calls: int, helper: str) -> None:
    """Inside valgrind: build the workload, warm up, then count `calls` kernel calls."""
    (w,) = [_adhoc(name)] if ";;" in name else _workloads([name])
    lib = ctypes.CDLL(helper)
    w.kernel()
    lib.roofline_start()
    for _ in range(calls):
        w.kernel()
    lib.roofline_stop()


def _instructions(name: str, calls: int, helper: str, isa: str, tmp: str) -> int:
    out = os.path.join(tmp, f"cg.{abs(hash(name))}")
    env = dict(os.environ, SKELSIMD_ISA=isa, OPENBLAS_NUM_THREADS="1")
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}.%p",
           sys.executable, __file__, "--count-child", name, str(calls), helper]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = 0
    for f in os.listdir(tmp):
        if f.startswith(os.path.basename(out) + "."):
            with open(os.path.join(tmp, f)) as fh:
                text = fh.read()
            for m in re.finditer(r"^(?:summary|totals):\s+(\d+)", text, re.M):
                total = max(total, int(m.group(1)))
            os.remove(os.path.join(tmp, f))
    return total


def _clock_ghz() -> float:
    try:
        with open("/proc/cpuinfo") as fh:
            m = re.search(r"cpu MHz\s*:\s*([\d.]+)", fh.read())
        return float(m.group(1)) / 1000 if m else float("nan")
    except OSError:
        return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", nargs="+", default=list(GOAL_ROWS))
    ap.add_argument("--isa", default="avx2")
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--count-child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.count_child:
        name, calls, helper = args.count_child
        _count_child(name, int(calls), helper)
        return

    from skelsimd import _isa
    from skelsimd._bench.core import load_average, measure
    with tempfile.TemporaryDirectory() as tmp:
        src, helper = os.path.join(tmp, "h.c"), os.path.join(tmp, "libroofline.so")
        with open(src, "w") as fh:
            fh.write(HELPER_C)
        subprocess.run(["cc", "-O1", "-shared", "-fPIC", src, "-o", helper], check=True)
        spin = ctypes.CDLL(helper).roofline_ghz
        spin.restype, spin.argtypes = ctypes.c_double, [ctypes.c_long]
        ghz = max(spin(50_000_000) for _ in range(5))
        print(f"clock {ghz:.2f} GHz measured (a chain of dependent adds; /proc/cpuinfo says "
              f"{_clock_ghz():.2f}), target {args.isa}, load {load_average()}")
        print("| row | unit | ns / unit | memcpy ns / unit | bytes / unit | instructions / unit | "
              "cycles / unit | IPC | goal ns | IPC at goal |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        rows = [_adhoc(r) for r in args.rows if ";;" in r]
        rows += _workloads([r for r in args.rows if ";;" not in r])
        for w in rows:
            ins = _instructions(w.name, args.calls, helper, args.isa, tmp) / args.calls / w.units
            with _isa.use_isa(args.isa):
                t = min(measure(w.kernel) for _ in range(args.rounds)) * 1e9 / w.units
            lim = (min(measure(w.limit) for _ in range(args.rounds)) * 1e9 / w.units
                   if w.limit is not None else float("nan"))
            goal, nbytes = GOAL_ROWS.get(w.name, (None, None))
            if w.name == "army":
                goal = 1.5 * lim
            cycles = t * ghz
            ipc_goal = ins / (goal * ghz) if goal else float("nan")
            print(f"| {w.title} | {w.unit} | {t:.3g} | {lim:.3g} | {nbytes or '-'} | {ins:.1f} | "
                  f"{cycles:.1f} | {ins / cycles:.2f} | {goal:.3g} | {ipc_goal:.2f} |"
                  if goal else
                  f"| {w.title} | {w.unit} | {t:.3g} | {lim:.3g} | {nbytes or '-'} | {ins:.1f} | "
                  f"{cycles:.1f} | {ins / cycles:.2f} | - | - |", flush=True)
    print(f"load after {load_average()}")


if __name__ == "__main__":
    main()
