"""The command line: python -m skelsimd."""
import json
import os
import subprocess
import sys

import pytest

import skelsimd


def run(*args):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    return subprocess.run([sys.executable, "-m", "skelsimd", *args], capture_output=True, text=True,
                          env=env, cwd=os.path.dirname(os.path.dirname(skelsimd.__file__)))


def test_help_lists_the_commands():
    res = run("--help")
    assert res.returncode == 0 and "bench" in res.stdout and "info" in res.stdout
    res = run("bench", "--help")
    assert res.returncode == 0 and "--out" in res.stdout


@pytest.mark.parametrize("args", [(), ("bench", "--bogus"), ("bench", "--family", "nope"),
                                  ("bench", "--variants", "avx1024"), ("frobnicate",)])
def test_bad_arguments_exit_non_zero_with_usage(args):
    res = run(*args)
    assert res.returncode == 2
    assert "usage" in res.stderr or "error" in res.stderr


def test_info():
    res = run("info")
    assert res.returncode == 0 and skelsimd.isa() in res.stdout


def test_bench_quick_writes_json(tmp_path):
    res = run("bench", "--quick", "--family", "joints", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "local_to_global 1000 x 96" in res.stdout and "numpy" in res.stdout
    data = json.loads((tmp_path / "bench.json").read_text())
    variants = {r["variant"] for r in data["results"] if r["workload"] == "army"}
    assert {"numpy", "memcpy", "scalar"} <= variants
    assert all(r["seconds_per_call"] > 0 for r in data["results"])
    # the machine is named: CPU, targets built and dispatched per family, load before and after
    machine = data["machine"]
    assert machine["cpu"] and machine["isa_compiled"][0] == "scalar"
    assert machine["dispatch"] == skelsimd.dispatch_table()
    assert "load_average" in machine and "load_average_after" in machine
    assert "dispatch (family -> target)" in res.stdout and "load average" in res.stdout
