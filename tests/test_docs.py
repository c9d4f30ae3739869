"""Every code example of the README and the documentation runs, and the API reference lists
every public name.

Each ``python`` code block of a Markdown page runs in order in one namespace per page (like a
notebook), in a temporary directory; a block that uses the ``[dask]`` extra is left out (and
the page reported as skipped after its other blocks ran) when that is not installed, and a
page that uses matplotlib is skipped without it. Docstring examples (``>>>``) run through doctest.
"""
import doctest
import glob
import importlib
import importlib.util
import os
import re

import pytest

import skelsimd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
PAGES = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(DOCS, "*.md")) + glob.glob(os.path.join(DOCS, "guide", "*.md")))
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path):
    with open(path, encoding="utf-8") as f:
        return FENCE.findall(f.read())


# Pages without a ``python`` block (reference tables, design notes) have nothing to run and are
# not collected. When the tests run away from the sources (an installed wheel), the one page
# left is the README's path, which is then reported as skipped.
# A page with an example of the [dask] extra is marked dask: it runs in the dask step of .ci/run
# (with dask and zarr installed), not in the default run.
EXAMPLE_PAGES = [p for p in PAGES if not os.path.exists(p) or python_blocks(p)]


def _uses_dask(path):
    return os.path.exists(path) and any("dask" in b or "zarr" in b for b in python_blocks(path))


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=[pytest.mark.dask] if _uses_dask(p) else [],
                 id=os.path.relpath(p, ROOT)) for p in EXAMPLE_PAGES])
def test_page_examples_run(path, tmp_path, monkeypatch):
    if not os.path.exists(path):
        pytest.skip("no documentation sources beside these tests")
    blocks = python_blocks(path)
    code = "\n".join(blocks)
    have_dask = all(importlib.util.find_spec(m) is not None for m in ("dask", "zarr"))
    if "load_usd(" in code or "save_usd(" in code:
        pytest.importorskip("pxr", reason='usd-core is not installed (pip install "skelsimd[usd]")')
    if ".plot(" in code or "plot_surface" in code or ".animate(" in code or "plot_mesh(" in code:
        pytest.importorskip("matplotlib")
        monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__doc_example__"}
    needs_dask = []
    for i, block in enumerate(blocks):
        if not have_dask and ("dask" in block or "zarr" in block):
            needs_dask.append(i)     # the [dask] extra's examples; the page's others still run
            continue
        exec(compile(block, f"{os.path.basename(path)}[block {i}]", "exec"), namespace)
    if needs_dask:
        pytest.skip(f"blocks {needs_dask} need the [dask] extra (dask, zarr); the other "
                    f"{len(blocks) - len(needs_dask)} ran")


def _modules_with_examples():
    """Every skelsimd module whose source has a docstring example (``>>>``)."""
    found = []
    for path in glob.glob(os.path.join(os.path.dirname(skelsimd.__file__), "**", "*.py"),
                          recursive=True):
        with open(path, encoding="utf-8") as f:
            if re.search(r"^\s*>>> ", f.read(), flags=re.M):
                rel = os.path.relpath(path, os.path.dirname(os.path.dirname(skelsimd.__file__)))
                found.append(rel[:-3].replace(os.sep, ".").removesuffix(".__init__"))
    return sorted(found)


DOCTEST_MODULES = _modules_with_examples()


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.dask] if n.startswith("skelsimd.dask") else [])
    for n in DOCTEST_MODULES])
def test_docstring_examples(name):
    """Every module with examples runs them (found by scanning the sources, so none is missed)."""
    if name.startswith("skelsimd.dask"):
        pytest.importorskip("dask.bag")
        pytest.importorskip("zarr")
    if name == "skelsimd._mesh_pictures":
        pytest.importorskip("matplotlib")       # plot_mesh draws with it
    if name == "skelsimd.io.usd":
        pytest.importorskip("pxr", reason='usd-core is not installed (pip install "skelsimd[usd]")')
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result


def test_docstring_examples_are_found():
    assert {"skelsimd.bounds", "skelsimd.io.skc", "skelsimd.dask.dataset"} <= set(DOCTEST_MODULES)


def test_api_reference_lists_every_public_name():
    path = os.path.join(DOCS, "api.rst")
    if not os.path.exists(path):
        pytest.skip("no documentation sources beside these tests")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    listed = set(re.findall(r"^   ([\w.]+)$", text, flags=re.M))
    missing = [n for n in skelsimd.__all__ if n not in ("__version__", "data") and n not in listed]
    assert not missing, f"docs/api.rst does not list {missing}"
    for module, names in [("skelsimd.bounds", None), ("skelsimd.testing", None)]:
        mod = importlib.import_module(module)
        names = [n for n in mod.__all__ if callable(getattr(mod, n))
                 and not n.isupper() and n != "fill_docstrings" and n != "by_kernel"]
        missing = [n for n in names if n not in listed]
        assert not missing, f"docs/api.rst does not list {module}.{missing}"


def test_docstrings_quote_the_bounds_table():
    """Docstrings write a bound as ``[bound:KEY]``, replaced at import by BOUNDS[KEY]; none is
    left unreplaced, and the modules that quote bounds do so through the table."""
    import inspect

    from skelsimd.bounds import BOUNDS
    names = ["blend", "joints", "quat", "convert", "qts", "skinning", "clip", "io.bvh", "mat4", "surface",
             "compress", "skeleton"]
    for name in names:
        module = importlib.import_module("skelsimd." + name)
        docs = [module.__doc__ or ""]
        for _, obj in inspect.getmembers(module):
            if getattr(obj, "__module__", None) == module.__name__:
                docs.append(obj.__doc__ or "")
                if inspect.isclass(obj):
                    docs += [m.__doc__ or "" for _, m in inspect.getmembers(obj)]
        assert not any("[bound:" in d for d in docs), name
    with open(os.path.join(os.path.dirname(skelsimd.__file__), "blend.py"), encoding="utf-8") as f:
        source = f.read()
    assert "[bound:slerp.fast]" in source and BOUNDS["slerp.fast"].text in skelsimd.slerp.__doc__
