"""The native bit-identity checks (tests/native): every kernel family's SIMD rows against its
scalar row, called directly from C on random and special inputs, for the targets this machine
runs (the aarch64/NEON run under qemu is a separate step of .ci/run: it needs a cross compiler).
Also the portable struct form of the scalar vocabulary (the one compilers without generic vectors
get) against the generic-vector form."""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "native", "build.py")

needs_cc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def run_checks(*extra):
    res = subprocess.run([sys.executable, BUILD, *extra], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-4000:]
    return res.stdout


@needs_cc
def test_native_variants_bit_identical():
    """Both programs of one build: the generic-vector scalar row and its struct form, each
    against every SIMD row this CPU runs."""
    out = run_checks("--struct-scalar")
    normal, struct = out.split("check_kernels_struct:")
    for part in (normal, struct):
        assert "all variants bit-identical" in part and " ok" in part
    assert "FAILED" not in out
