"""Sphinx configuration of the skelsimd documentation (built in CI with -W: warnings are errors).

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` from the checkout, after
``python setup.py build_ext --inplace`` (autodoc imports the package). The accuracy page's table
is generated from :data:`skelsimd.bounds.BOUNDS` and the benchmark page's tables from the main
job's JSON (``docs/_data/bench.json``, or the file named by ``SKELSIMD_BENCH_JSON``).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import skelsimd  # noqa: E402
import _generate  # noqa: E402

project = "skelsimd"
author = "the skelsimd authors"
copyright = "the skelsimd authors, MIT licence"
release = version = skelsimd.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_data", "_generated", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
autodoc_mock_imports = ["dask", "distributed", "zarr", "tqdm"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True
napoleon_preprocess_types = False
napoleon_custom_sections = [("Accuracy", "notes_style"), ("Determinism and accuracy", "notes_style"),
                            ("Speed", "notes_style"), ("Sampling", "notes_style"), ("Layout", "notes_style"),
                            ("Errors", "notes_style"), ("Raises", "params_style")]
nitpicky = False
suppress_warnings = ["myst.header"]

html_theme = "alabaster"
html_static_path = ["_static"]
html_title = f"skelsimd {release}"
html_theme_options = {"description": "SIMD kernels on NumPy float32 arrays for character animation",
                      "fixed_sidebar": True}

_generate.write_all(os.path.join(HERE, "_generated"),
                    os.environ.get("SKELSIMD_BENCH_JSON") or os.path.join(HERE, "_data",
                                                                          "bench.json"))
