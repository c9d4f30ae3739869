"""Shared fixtures: every kernel test runs once per SIMD variant this machine supports."""
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
