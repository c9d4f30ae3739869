"""Shared fixtures: every kernel test runs once per SIMD variant this machine supports."""
import importlib.util
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from skelsimd._isa import supported_isas, use_isa

# "ci" (default) keeps the whole suite within a few minutes on 2 cores and is derandomized: the
# examples are seeded from each test, so a run that passed on a checkout passes again on the same
# checkout (CI gates on it). "random" draws new examples every run, "thorough" draws 1000 per test
# for soak runs (both are run before a change lands):
#   HYPOTHESIS_PROFILE=thorough pytest
settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "random", max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# "quick": a smoke run of every test with few examples (the installed-wheel and clang checks of
# .ci/run, which the full "ci" run already covers on the gcc build)
settings.register_profile(
    "quick", max_examples=8, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# "sanitize": the AddressSanitizer + UBSan job (.ci/sanitize) runs the kernel tests on an
# instrumented build several times slower; fewer examples still reach every code path.
settings.register_profile(
    "sanitize", max_examples=10, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ISAS = supported_isas()


@pytest.fixture(params=ISAS)
def isa(request):
    """Run the test body with `request.param` as the active SIMD variant."""
    with use_isa(request.param):
        yield request.param


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


# The README's `python -m pytest` runs every test except two groups, which .ci/run runs as steps
# of their own (pyproject.toml's addopts: -m "not slow and not dask"; docs/contributing.md):
#   slow  the long checks: the native C bit-identity checks (test_native.py), the leak windows
#         (test_leaks.py), and the files and tests that run the benchmark CLI, repeat calls by
#         the thousand on many threads, or build very large inputs;
#   dask  the tests of the [dask] extra (dask, distributed, zarr), which the test extra does not
#         install: the two test_dask_*.py files here, the others marked where they are defined.
# `python -m pytest -m slow`, `-m dask` or `-m ""` (everything) select them explicitly.
SLOW_FILES = {
    "test_native.py", "test_leaks.py", "test_main_job.py", "test_races.py", "test_threads.py",
    "test_mat4_bench.py",
}
SLOW_TESTS = {
    "test_large_hierarchies_load_and_save_in_bounded_time", "test_gzip_bomb_default_bound",
}
DASK_FILES = {"test_dask_arrays.py", "test_dask_dataset.py"}
DEFAULT_SELECTION = "not slow and not dask"     # pyproject.toml's addopts


def pytest_ignore_collect(collection_path, config):
    """The default run leaves the dask files out before importing them when dask is missing
    (their tests are deselected anyway; importing them would report the modules as skipped)."""
    if (collection_path.name in DASK_FILES and config.getoption("markexpr") == DEFAULT_SELECTION
            and importlib.util.find_spec("dask") is None):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = os.path.basename(str(item.fspath))
        if name in SLOW_FILES or getattr(item, "originalname", item.name) in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
        if name in DASK_FILES:
            item.add_marker(pytest.mark.dask)
