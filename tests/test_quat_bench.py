"""The quaternion families' benchmark workloads compute what they claim: every timed callable
(kernel on each variant, the NumPy formulation, the extras) passes the workload's float64 check.
Nothing is timed here."""
import numpy as np
import pytest

from skelsimd._bench import FAMILIES
from skelsimd._bench import quat as Q

WORKLOADS = [Q.slerp_workload(64), Q.nlerp_workload(64), Q.blend_joints_workload(9, 20),
             Q.blend_joints_workload(9, 20, method="nlerp"), Q.blend_layers_workload(9, 20),
             Q.qts_walk_workload(9, 20), Q.qts_walk_workload(9, 20, matrix=True),
             Q.qts_walk_workload(9, 20, precision="float64"),
             Q.qts_walk_workload(9, 20, matrix=True, precision="float64"),
             Q.qts_walk_workload(1, 96)]


def test_registered_in_the_bench_command():
    assert FAMILIES["quat"] is Q.headline


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: w.name)
def test_workload_checks_pass(isa, w):
    w.check(w.kernel())
    w.check(w.numpy())
    for fn in w.extra.values():
        assert np.isfinite(np.asarray(fn())).all()
