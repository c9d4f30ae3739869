"""The 4x4 and skinning benchmark workloads run (quickly) from the command line, check their
results against the float64 references first, and record every variant and NumPy."""
import json
import os
import subprocess
import sys

import skelsimd
from skelsimd._isa import supported_isas


def test_bench_quick_runs_the_mat4_and_skinning_workloads(tmp_path):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    res = subprocess.run([sys.executable, "-m", "skelsimd", "bench", "--quick", "--family", "mat4",
                          "--family", "skinning", "--out", str(tmp_path)], capture_output=True, text=True,
                         env=env, cwd=os.path.dirname(os.path.dirname(skelsimd.__file__)))
    assert res.returncode == 0, res.stderr
    records = json.loads((tmp_path / "bench.json").read_text())["results"]
    titles = {r["title"] for r in records}
    for title in ["matmul4 64 array x constant", "mat4_local_to_global chain 64", "matmul4 one-off (per call)",
                  "matmul4 100000 array x constant", "skinning_palette 1000 x 96",
                  "l2g + multiply_joints 1000 x 96", "skin 10000 x 4, 1 palette(s)", "skin 10000 x 4, 100 palette(s)"]:
        variants = {r["variant"] for r in records if r["title"] == title}
        assert set(supported_isas()) | {"numpy"} <= variants, (title, variants)
    assert {r["family"] for r in records} == {"mat4", "skinning"}
    assert all(r["ns_per_unit"] > 0 for r in records)
