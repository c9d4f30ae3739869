"""The public namespace and the typed user script (mypy --strict and stubtest run in .ci/run)."""
import importlib.util
import os
import types

import numpy as np

import skelsimd

HERE = os.path.dirname(os.path.abspath(__file__))


def test_all_lists_every_public_name():
    public = {name for name, value in vars(skelsimd).items()
              if not name.startswith("_") and (not isinstance(value, types.ModuleType)
                                               or name == "data")}
    assert set(skelsimd.__all__) - {"__version__"} == public
    assert len(skelsimd.__all__) == len(set(skelsimd.__all__))
    assert all(hasattr(skelsimd, name) for name in skelsimd.__all__)


def test_version_matches_the_metadata():
    import re
    with open(os.path.join(HERE, "..", "pyproject.toml"), encoding="utf-8") as f:
        declared = re.search(r'^version = "([^"]+)"', f.read(), flags=re.M)
    if declared:   # a source checkout; an installed wheel has no pyproject.toml beside tests
        assert skelsimd.__version__ == declared.group(1)
    assert re.fullmatch(r"\d+\.\d+\.\d+", skelsimd.__version__)


def test_every_public_module_ships_type_information():
    """Pure-Python modules are annotated inline (py.typed marks the package as typed); the compiled
    module is described by its stub, _core.pyi, the only stub."""
    package = os.path.dirname(skelsimd.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    assert os.path.exists(os.path.join(package, "_core.pyi"))
    stubs = set()
    for root, _, files in os.walk(package):
        stubs |= {os.path.relpath(os.path.join(root, f), package).replace(os.sep, "/")
                  for f in files if f.endswith(".pyi")}
    assert stubs == {"_core.pyi"}, sorted(stubs)


def test_typed_user_script_runs():
    spec = importlib.util.spec_from_file_location("user_script",
                                                  os.path.join(HERE, "typing", "user_script.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.tour(np.random.default_rng(0))
    assert result["ratio"] > 1


def test_the_installed_package_is_under_test():
    """.ci/run sets SKELSIMD_EXPECT_INSTALLED when it tests the manylinux wheel in a fresh
    environment: the package must then come from site-packages, not from a checkout."""
    if os.environ.get("SKELSIMD_EXPECT_INSTALLED"):
        assert "site-packages" in skelsimd.__file__, skelsimd.__file__
        assert skelsimd._core.__file__.startswith(os.path.dirname(skelsimd.__file__))
