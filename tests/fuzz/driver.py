"""The main loop the fuzzers share (api_fuzz.py, bvh_fuzz.py, dataset_fuzz.py, gltf_fuzz.py):
their command line, the replay of one case, the run of cases from --start for --cases cases or
--seconds, the progress file the runner (run.py) watches for hangs, the JSON summary it reads,
and the bounded call (time and traced memory) of the file fuzzers."""
import argparse
import json
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


def bounded(what, call, *, ok, expected, seconds, peak_bytes, on="", quiet=False):
    """Runs call() with its time and peak of traced memory measured (NumPy's arrays are traced).
    Returns (outcome, result, failure): outcome is ok(result) (or ok) when call returns, the
    name `expected` gives an expected exception type (result None), else the exception's type
    name; failure (None when all is well) says what went wrong: an unexpected exception (with
    its traceback), more than `seconds` or a peak above `peak_bytes` (`on` ends those messages).
    quiet: warnings ignored during the call."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore")
            result = call()
        outcome = ok(result) if callable(ok) else ok
    except tuple(expected) as exc:
        result = None
        outcome = next(name for t, name in expected.items() if isinstance(exc, t))
    except Exception as exc:  # noqa: BLE001
        tracemalloc.stop()
        return type(exc).__name__, None, (f"{what}: {type(exc).__name__}: {exc}\n"
                                          + traceback.format_exc(limit=6))
    elapsed = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if elapsed > seconds:
        return outcome, result, f"{what} took {elapsed:.1f} s{on}"
    if peak > peak_bytes:
        return outcome, result, f"{what} peaked at {peak / 1e6:.1f} MB{on}"
    return outcome, result, None
