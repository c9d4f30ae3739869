"""The example notebooks (examples/*.ipynb) run headless from top to bottom without errors, so
they never rot: executed with nbclient on a fresh kernel (installed by the test extra; skipped
without nbclient, ipykernel or matplotlib). The kernel imports skelsimd from this checkout and
runs in an empty temporary folder, not in examples/: a notebook may read only the bundled data
(skelsimd.data), as it would wherever a user opens it."""
import os
import pathlib

import pytest

import skelsimd

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def test_there_are_examples():
    assert len(NOTEBOOKS) >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_read_bundled_data_only(path):
    code = "".join("".join(c.source) for c in nbformat.read(path, as_version=4).cells
                   if c.cell_type == "code")
    for outside in ("tests/data", "tests\\data", '"tests"', "'tests'", '"..', "'..", "/work"):
        assert outside not in code, (path.name, outside)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, monkeypatch, tmp_path):
    package_root = str(pathlib.Path(skelsimd.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [package_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()         # raises CellExecutionError, with the cell and traceback, on failure
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # the pictures and the animation player are really there
    assert any("image/png" in o.get("data", {}) for o in outputs)
    if path.name == "retargeting.ipynb":         # the skinned mesh's player
        assert any("sks-mesh-animation" in o.get("data", {}).get("text/html", "") for o in outputs)
    if path.name.startswith("01") or path.name == "foot_planting.ipynb":
        assert any("sks-animation" in o.get("data", {}).get("text/html", "") for o in outputs)
