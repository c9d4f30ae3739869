"""Run-time SIMD dispatch: selection at import, SKELSIMD_ISA, the private switch used by tests."""
import os
import subprocess
import sys

import pytest

import skelsimd
from skelsimd import _core
from skelsimd._isa import use_isa


def run_python(code, **env):
    full = dict(os.environ)
    full.pop("SKELSIMD_ISA", None)
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full,
                          cwd=os.path.dirname(os.path.dirname(skelsimd.__file__)))


def test_variant_names():
    assert _core.compiled_isas()[0] == "scalar"
    assert set(_core.supported_isas()) <= set(_core.compiled_isas()) <= {"scalar", "sse41", "avx2", "avx512",
                                                                          "neon"}
    assert _core.best_isa() == _core.supported_isas()[-1]


def test_best_variant_is_chosen_at_import():
    res = run_python("import skelsimd; print(skelsimd.isa())")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == _core.best_isa()


@pytest.mark.parametrize("name", _core.supported_isas())
def test_environment_forces_a_variant(name):
    res = run_python("import skelsimd; print(skelsimd.isa())", SKELSIMD_ISA=name)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == name


def test_environment_auto_means_best():
    res = run_python("import skelsimd; print(skelsimd.isa())", SKELSIMD_ISA="auto")
    assert res.stdout.strip() == _core.best_isa()


def test_unknown_variant_in_environment_fails_the_import():
    res = run_python("import skelsimd", SKELSIMD_ISA="avx1024")
    assert res.returncode != 0
    assert "ValueError" in res.stderr and "SKELSIMD_ISA='avx1024'" in res.stderr
    assert "scalar, sse41, avx2, avx512" in res.stderr


def test_unsupported_variant_is_a_clear_error():
    missing = [n for n in _core.compiled_isas() if n not in _core.supported_isas()]
    if missing:
        with pytest.raises(RuntimeError, match="not supported by this CPU"):
            _core._set_isa(missing[0])
    else:  # this CPU runs every compiled variant: all of them must be selectable
        for name in _core.compiled_isas():
            with use_isa(name):
                assert skelsimd.isa() == name


def test_use_isa_restores_the_previous_variant():
    before = skelsimd.isa()
    with use_isa("scalar"):
        assert skelsimd.isa() == "scalar"
    assert skelsimd.isa() == before
    with pytest.raises(ValueError, match="unknown SIMD variant"):
        with use_isa("neon512"):
            pass
    assert skelsimd.isa() == before


def test_set_isa_type_error():
    with pytest.raises(TypeError):
        _core._set_isa(3)


def test_dispatch_table_names_every_family():
    table = skelsimd.dispatch_table()
    assert {"joints", "quat", "blend", "skinning", "mat4", "qts"} <= set(table)
    assert set(table.values()) <= set(_core.supported_isas())


def test_dispatch_is_per_family_when_automatic_and_uniform_when_forced():
    best = _core.best_isa()
    with use_isa("auto"):
        assert skelsimd.isa() == best
        table = skelsimd.dispatch_table()
        # a family may keep the variant below the best (avx2 below avx512), nothing else
        allowed = {best, "avx2"} if best == "avx512" else {best}
        assert set(table.values()) <= allowed
        for name in _core.supported_isas():
            with use_isa(name):
                assert set(skelsimd.dispatch_table().values()) == {name}
            assert skelsimd.dispatch_table() == table   # use_isa restores the per-family choice


def test_environment_forced_variant_runs_in_every_family():
    res = run_python("import skelsimd; print(sorted(set(skelsimd.dispatch_table().values())))",
                     SKELSIMD_ISA=_core.best_isa())
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == repr([_core.best_isa()])
