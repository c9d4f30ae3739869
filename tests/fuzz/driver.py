"""The main loop the fuzzers share (api_fuzz.py, bvh_fuzz.py, dataset_fuzz.py, gltf_fuzz.py):
their command line, the replay of one case, the run of cases from --start for --cases cases or
--seconds, the progress file the runner (run.py) watches for hangs, the JSON summary it reads,
and the bounded call (time and traced memory, and optionally CPU time and address space
enforced by resource limits) of the file fuzzers."""
import argparse
import contextlib
import json
import resource
import signal
import time
import traceback
import tracemalloc
import warnings


def arguments(description, argv=None):
    """The fuzzers' command line."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--cases", type=int, default=0, help="number of cases (0: until --seconds)")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--case", type=int, help="run (and with --show describe) one case")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--progress", help="file receiving the index of the case about to run")
    ap.add_argument("--report", help="write a JSON summary here")
    ap.add_argument("--max-failures", type=int, default=20)
    return ap.parse_args(argv)


def run(label, args, run_case, replay, summary_extra=None):
    """Replays case --case (replay(seed, case, show)), or runs run_case(seed, i) -> (function
    name or None, outcome, failure message or None) from --start until --cases cases or
    --seconds are done or --max-failures failed; writes the progress file and the report; prints
    the failures and a summary. Returns the exit status (1 when a case failed)."""
    if args.case is not None:
        replay(args.seed, args.case, args.show)
        return 0
    progress = open(args.progress, "w") if args.progress else None
    counts, outcomes, failures = {}, {}, []
    t0 = time.perf_counter()
    i = args.start
    while (args.cases and i < args.start + args.cases) or \
            (not args.cases and time.perf_counter() - t0 < args.seconds):
        if progress:
            progress.seek(0)
            progress.write(f"{args.seed} {i}          \n")
            progress.flush()
        name, outcome, failure = run_case(args.seed, i)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if name is not None:
            per = counts.setdefault(name, {})
            per[outcome] = per.get(outcome, 0) + 1
        if failure:
            failures.append({"seed": args.seed, "case": i, "failure": failure,
                             **({"function": name} if name is not None else {})})
            print(f"FAIL {args.seed}:{i}{' ' + name if name is not None else ''}: {failure}",
                  flush=True)
            if len(failures) >= args.max_failures:
                break
        i += 1
    summary = {"seed": args.seed, "first": args.start, "cases": i - args.start,
               "seconds": round(time.perf_counter() - t0, 1), "outcomes": outcomes,
               "failures": failures}
    if counts:
        summary["per_function"] = counts
    summary.update(summary_extra or {})
    if args.report:
        with open(args.report, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"{label} fuzz: seed {args.seed}, {summary['cases']} cases in {summary['seconds']} s, "
          f"{len(failures)} failures; outcomes {outcomes}")
    return 1 if failures else 0


class OverBudget(Exception):
    """Raised in a case that used up its CPU time (SIGXCPU from RLIMIT_CPU)."""


def _on_xcpu(signum, frame):
    raise OverBudget("CPU time limit")


def _vm_size():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


@contextlib.contextmanager
def limits(seconds, nbytes):
    """Within the block, at most `seconds` more CPU seconds (then SIGXCPU raises OverBudget)
    and at most `nbytes` more address space (then allocations raise MemoryError): the
    process's soft RLIMIT_CPU and RLIMIT_AS, restored afterwards."""
    cpu_soft, cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
    as_soft, as_hard = resource.getrlimit(resource.RLIMIT_AS)
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime) + 1
    cpu = spent + int(seconds + 0.999)
    space = _vm_size() + nbytes
    if cpu_hard != resource.RLIM_INFINITY:
        cpu = min(cpu, cpu_hard)
    if as_hard != resource.RLIM_INFINITY:
        space = min(space, as_hard)
    old = signal.signal(signal.SIGXCPU, _on_xcpu)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
    resource.setrlimit(resource.RLIMIT_AS, (space, as_hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (as_soft, as_hard))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_soft, cpu_hard))
        signal.signal(signal.SIGXCPU, old)


def bounded(what, call, *, ok, expected, seconds, peak_bytes, on="", quiet=False,
            enforce=None):
    """Runs call() with its time and peak of traced memory measured (NumPy's arrays are traced;
    not with `enforce`).
    Returns (outcome, result, failure): outcome is ok(result) (or ok) when call returns, the
    name `expected` gives an expected exception type (result None), else the exception's type
    name; failure (None when all is well) says what went wrong: an unexpected exception (with
    its traceback), more than `seconds` or a peak above `peak_bytes` (`on` ends those messages).
    quiet: warnings ignored during the call. enforce (bytes): the call also runs under resource
    limits (:func:`limits`: `seconds` of CPU, `enforce` bytes of address space), so that a case
    over them stops there and is reported instead of running on; its time is then CPU time (the
    machine may be shared)."""
    if not enforce:        # with resource limits, memory is bounded by RLIMIT_AS instead (and
        tracemalloc.start()  # tracing every allocation slows pure-Python parsing ~8 times)
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore")
            with limits(seconds, enforce) if enforce else contextlib.nullcontext():
                result = call()
        outcome = ok(result) if callable(ok) else ok
    except OverBudget:
        tracemalloc.stop()
        return "over time", None, (f"{what} used more than {seconds:g} s of CPU{on} "
                                   f"(stopped by RLIMIT_CPU)")
    except MemoryError:
        tracemalloc.stop()
        return "over memory", None, (f"{what} needed more than {(enforce or 0) / 2**30:.2f} "
                                     f"GiB of address space{on} (stopped by RLIMIT_AS)")
    except tuple(expected) as exc:
        result = None
        outcome = next(name for t, name in expected.items() if isinstance(exc, t))
    except Exception as exc:  # noqa: BLE001
        tracemalloc.stop()
        return type(exc).__name__, None, (f"{what}: {type(exc).__name__}: {exc}\n"
                                          + traceback.format_exc(limit=6))
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak = tracemalloc.get_traced_memory()[1] if not enforce else 0
    tracemalloc.stop()
    if (cpu if enforce else elapsed) > seconds:
        return outcome, result, f"{what} took {cpu if enforce else elapsed:.1f} s{on}"
    if peak > peak_bytes:
        return outcome, result, f"{what} peaked at {peak / 1e6:.1f} MB{on}"
    return outcome, result, None
