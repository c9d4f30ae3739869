"""Shared fixtures: every kernel test runs once per SIMD variant this machine supports."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from skelsimd._isa import supported_isas, use_isa

# "ci" (default) keeps the whole suite within a few minutes on 2 cores; "thorough" for soak runs:
#   HYPOTHESIS_PROFILE=thorough pytest
settings.register_profile(
    "ci", max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None,
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
