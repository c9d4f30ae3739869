"""Runs the fuzzers (api_fuzz.py, bvh_fuzz.py, dataset_fuzz.py, gltf_fuzz.py) for a bounded time,
each in a child process, so that a crash or a hang fails the run instead of killing it.

    python tests/fuzz/run.py --seconds 60 --bvh-seconds 30 --dataset-seconds 30 --gltf-seconds 30  # CI
    python tests/fuzz/run.py --seconds 3600 --bvh-seconds 1800 --dataset-seconds 1800 \
        --gltf-seconds 1800                                                         # a release

A child that dies from a signal (a segfault, an AddressSanitizer or UBSan abort) or stops making
progress for --hang seconds is reported with the case it was running (replay it with
``python tests/fuzz/api_fuzz.py --seed S --case I --show``); the run then goes on with the next
case in a new child until the time is up. Exit status: 0 when every case passed, 1 otherwise.
The seed is random unless given (--seed or FUZZ_SEED) and printed, so any failure replays.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_fuzzer(script, seconds, seed, hang, report_dir, label):
    """Runs `script` for `seconds` (restarting after a crash or hang at the next case);
    returns (cases, failures) where failures are dicts."""
    failures, cases, start_case = [], 0, 0
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 1:
            break
        progress = tempfile.NamedTemporaryFile("w+", suffix=".progress", delete=False)
        report = os.path.join(report_dir, f"{label}-{seed}-{start_case}.json")
        cmd = [sys.executable, os.path.join(HERE, script), "--seed", str(seed), "--start",
               str(start_case), "--seconds", f"{left:.1f}", "--progress", progress.name,
               "--report", report]
        child = subprocess.Popen(cmd)
        last, last_change = None, time.monotonic()
        while child.poll() is None:
            time.sleep(0.5)
            with open(progress.name) as f:
                now = f.read().strip()
            if now != last:
                last, last_change = now, time.monotonic()
            elif time.monotonic() - last_change > hang:
                child.kill()
                child.wait()
                break
        with open(progress.name) as f:
            where = f.read().split()
        os.unlink(progress.name)
        case = int(where[1]) if len(where) == 2 else start_case
        if os.path.exists(report):
            with open(report) as f:
                summary = json.load(f)
            cases += summary["cases"]
            failures += summary["failures"]
            break                      # the child ran until its time was up (or enough failures)
        # the child died or hung on `case`
        kind = "hang" if child.returncode in (-9,) else f"crash (exit status {child.returncode})"
        failures.append({"seed": seed, "case": case, "failure": kind})
        print(f"{label}: {kind} at case {seed}:{case}; replay with: python "
              f"{os.path.join('tests', 'fuzz', script)} --seed {seed} --case {case} --show",
              flush=True)
        cases += case - start_case + 1
        start_case = case + 1
    return cases, failures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="API fuzzer time")
    ap.add_argument("--bvh-seconds", type=float, default=30.0, help="BVH mutation fuzzer time")
    ap.add_argument("--dataset-seconds", type=float, default=30.0,
                    help="dataset command fuzzer time (hostile trees; skipped without [dask])")
    ap.add_argument("--gltf-seconds", type=float, default=30.0, help="glTF mutation fuzzer time")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--hang", type=float, default=60.0,
                    help="seconds without progress that count as a hang")
    ap.add_argument("--report-dir", default=None)
    args = ap.parse_args(argv)
    seed = args.seed
    if seed is None:
        seed = int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(2**31))
    report_dir = args.report_dir or tempfile.mkdtemp(prefix="skelsimd-fuzz-")
    os.makedirs(report_dir, exist_ok=True)
    print(f"fuzz: seed {seed} (FUZZ_SEED={seed} repeats this run), reports in {report_dir}",
          flush=True)
    total_failures = 0
    for script, seconds, label in (("api_fuzz.py", args.seconds, "api"),
                                   ("bvh_fuzz.py", args.bvh_seconds, "bvh"),
                                   ("dataset_fuzz.py", args.dataset_seconds, "dataset"),
                                   ("gltf_fuzz.py", args.gltf_seconds, "gltf")):
        if seconds <= 0:
            continue
        t0 = time.monotonic()
        cases, failures = run_fuzzer(script, seconds, seed, args.hang, report_dir, label)
        total_failures += len(failures)
        print(f"fuzz {label}: {cases} cases in {time.monotonic() - t0:.0f} s, "
              f"{len(failures)} failures", flush=True)
        for f in failures[:20]:
            print(f"  {label} {f['seed']}:{f['case']} {f.get('function', '')}: "
                  f"{f['failure'].splitlines()[0]}")
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
