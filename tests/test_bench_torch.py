"""The PyTorch-on-CPU column of `bench --threads`: each row is checked against skelsimd before it
is timed (a wrong torch formula stops the run), every count gets a figure on both sides, and
without torch the column is skipped with its reason."""
import numpy as np
import pytest

from skelsimd._bench import torch_side


def test_rows_agree_and_every_count_is_timed():
    pytest.importorskip("torch")
    records = torch_side.run_torch([1, 2], quick=True, min_time=0.001, repeat=1)
    assert [r["workload"] for r in records] == ["fk", "q2m", "e2q"]
    for r in records:
        for side in ("skelsimd", "torch"):
            assert set(r["seconds_per_call"][side]) == {"1", "2"}
            assert all(t > 0 for t in r["seconds_per_call"][side].values())
    table = torch_side.format_torch_table(records, [1, 2])
    assert "torch/skelsimd 2t" in table and "euler_to_quat" in table


def test_a_disagreeing_row_stops_the_run():
    torch = pytest.importorskip("torch")
    q = np.array([[0.0, 0.0, 0.0, 1.0]], np.float32)
    torch_side._check("same", q, torch.from_numpy(-q), 1e-6)          # either sign of a quaternion
    with pytest.raises(AssertionError, match="wrong: torch and skelsimd differ"):
        torch_side._check("wrong", np.zeros((2, 3)), torch.ones((2, 3)), 1e-5)


def test_without_torch_the_reason_is_given(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch":
            raise ImportError("No module named 'torch'")
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_torch)
    reason = torch_side.torch_unavailable()
    assert reason is not None and "PyTorch is not installed" in reason
