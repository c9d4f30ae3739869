"""The package's layout rules, read from the sources (an AST walk of every module).

- No import cycle among skelsimd's modules, counting every import that runs: at import time
  and inside functions. A function-level import therefore cannot hide a cycle. Nor one when
  the imports for the annotations (``if TYPE_CHECKING:``) and those of the docstrings'
  Examples count too: a module's dependencies go one way for its readers and type checkers
  as well.
- The pictures go one way: :mod:`skelsimd.plotting` and the modules it draws with take the
  model types by protocols (``skelsimd._figures``) and never import them, not even for their
  annotations; the models' one-line
  ``plot`` / ``animate`` / ``_repr_html_`` methods import :mod:`skelsimd.plotting` when called
  (matplotlib is an optional, heavy dependency). That is the only function-level import
  direction of the pictures; every other function-level import is listed below with its reason.
"""
import ast
import os
import re

import skelsimd

PACKAGE = os.path.dirname(skelsimd.__file__)

#: Modules defining a model type with picture methods (plot / animate / _repr_html_).
MODELS = {"skelsimd.clip", "skelsimd.skeleton", "skelsimd.surface", "skelsimd.io.gltf",
          "skelsimd.io._gltf_skins", "skelsimd.io.usd"}
#: The pictures: plotting and what it draws with.
PICTURES = {"skelsimd.plotting", "skelsimd._mesh_pictures", "skelsimd._figures"}

#: The other function-level imports: each is imported where it is used, for a reason other than
#: a cycle (none closes one: test_no_import_cycles). A new one is listed here with its reason.
LAZY_IMPORTS = {
    # the command line imports what a command needs when it runs (start-up time; the dataset
    # command needs the optional dask extra)
    ("skelsimd.__main__", "skelsimd._bench"): "command line",
    ("skelsimd.__main__", "skelsimd._bench.core"): "command line",
    ("skelsimd.__main__", "skelsimd._bench.threads"): "command line",
    ("skelsimd.__main__", "skelsimd._bench.torch_side"): "command line",
    ("skelsimd.__main__", "skelsimd._demo"): "command line",
    ("skelsimd.__main__", "skelsimd.compress"): "command line",
    ("skelsimd.__main__", "skelsimd.dask.dataset"): "command line (optional dask extra)",
    ("skelsimd.__main__", "skelsimd.data"): "command line",
    ("skelsimd.__main__", "skelsimd.io.bvh"): "command line",
    ("skelsimd.__main__", "skelsimd.io.gltf"): "command line",
    ("skelsimd.__main__", "skelsimd.io.gltf_write"): "command line",
    ("skelsimd.__main__", "skelsimd.io.skc"): "command line",
    ("skelsimd.__main__", "skelsimd._retarget_files"): "command line",
    ("skelsimd.__main__", "skelsimd.io.usd"): "command line",
    ("skelsimd._bench.track", "skelsimd.motion"): "the root-motion workload",
    ("skelsimd.blend", "skelsimd.additive"): "blend_layers checks additive layers by additive's rule",
    ("skelsimd.data", "skelsimd.io.bvh"): "the example clip, parsed when asked for",
    ("skelsimd.data", "skelsimd.io.gltf"): "the example character, parsed when asked for",
    ("skelsimd.data", "skelsimd.joints"): "the example mesh, built when asked for",
    ("skelsimd.data", "skelsimd.qts"): "the example mesh, built when asked for",
    ("skelsimd.io.gltf_write", "skelsimd.quat"): "rest poses given as joint matrices",
    ("skelsimd.motion_matching", "skelsimd.qts"): "poses given as QTS joints",
    ("skelsimd.reference.track", "skelsimd.track"): "the reference reuses the tangent rule",
}


def _module_name(path):
    rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
    return rel.removesuffix(".__init__")


def _is_type_checking(test):
    """``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:``."""
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _path_of(mod):
    parts = mod.split(".")[1:]
    p = os.path.join(PACKAGE, *parts)
    return p + ".py" if os.path.exists(p + ".py") else os.path.join(p, "__init__.py")


_EXAMPLE_IMPORT = re.compile(r"^\s*(?:>>>|\.\.\.)\s+(?:from\s+(skelsimd[\w.]*)\s+import\s+([\w, ]+)"
                             r"|import\s+(skelsimd[\w.]*))")


def _imports_of_source(source, name, is_pkg=False, annotations=False):
    """``{module: "module" | "function"}``: the skelsimd modules the source of module ``name``
    imports when it runs, and whether at import time ("module": module level, class bodies,
    top-level if/try blocks) or only inside a function. Imports under ``if TYPE_CHECKING:``
    are left out (the ``else:`` branch counts), unless ``annotations``: then they count
    ("typing"), and so do the imports of the docstrings' Examples ("example")."""
    tree = ast.parse(source)
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    found = {}

    def targets(node):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base[:len(base) - node.level + 1]
                mod = ".".join(parts + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "skelsimd":
                return []
            return [f"{mod}.{a.name}" if os.path.exists(_path_of(f"{mod}.{a.name}")) else mod
                    for a in node.names]
        return [a.name for a in node.names if a.name.split(".")[0] == "skelsimd"]

    rank = {"module": 0, "function": 1, "typing": 2, "example": 3}

    def add(mod, level):
        if mod != name and (mod not in found or rank[level] < rank[found[mod]]):
            found[mod] = level

    def visit(node, in_function, typing=False):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            if annotations:
                for child in node.body:
                    visit(child, in_function, True)
            for child in node.orelse:
                visit(child, in_function, typing)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for mod in targets(node):
                add(mod, "typing" if typing else "function" if in_function else "module")
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner, typing)

    visit(tree, False)
    if annotations:
        for line in source.splitlines():
            m = _EXAMPLE_IMPORT.match(line)
            if m and m.group(1):
                names = [n.strip() for n in m.group(2).split(",") if n.strip()]
                for n in names:
                    sub = f"{m.group(1)}.{n}"
                    add(sub if os.path.exists(_path_of(sub)) else m.group(1), "example")
            elif m:
                add(m.group(3), "example")
    return found


def _imports(path, name, annotations=False):
    with open(path, encoding="utf-8") as f:
        found = _imports_of_source(f.read(), name, path.endswith("__init__.py"), annotations)
    return {m: level for m, level in found.items() if os.path.exists(_path_of(m))}


def _all_imports(annotations=False):
    """``{module: {imported module: level}}`` over the package."""
    out = {}
    for root, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                name = _module_name(path)
                out[name] = _imports(path, name, annotations)
    return out


def _graph(top_level_only=False, annotations=False):
    """The import graph: every import that runs (default), the import-time ones only, or with
    ``annotations`` also those for the annotations and the docstrings' Examples."""
    return {name: {m for m, level in found.items() if not top_level_only or level == "module"}
            for name, found in _all_imports(annotations).items()}


def _cycles(graph):
    found, state = [], {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            # a package's __init__ importing its own submodules is not a cycle with them
            if nxt.startswith(node + ".") or node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [])
    return found


def _function_level_edges(imports=None):
    imports = _all_imports() if imports is None else imports
    return {(a, b) for a, found in imports.items() for b, level in found.items()
            if level == "function"}


def test_no_import_cycles():
    graph = _graph()
    assert "skelsimd.clip" in graph and "skelsimd.io.bvh" in graph
    assert _cycles(graph) == []


def test_no_import_cycles_counting_annotations_and_examples():
    graph = _graph(annotations=True)
    assert "skelsimd.clip" in graph["skelsimd.dataset"]
    assert _cycles(graph) == []


def test_annotation_and_example_imports_are_read():
    source = ('"""\n>>> from skelsimd.plotting import plot_clip\n>>> import skelsimd.blend\n"""\n'
              "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .clip import Clip\n")
    assert _imports_of_source(source, "skelsimd.foo") == {}
    assert _imports_of_source(source, "skelsimd.foo", annotations=True) == {
        "skelsimd.clip": "typing", "skelsimd.plotting": "example", "skelsimd.blend": "example"}


def test_models_import_pictures_only_when_called():
    imports = _all_imports()
    for model in ("skelsimd.clip", "skelsimd.skeleton", "skelsimd.surface"):
        assert imports[model].get("skelsimd.plotting") == "function", model


def test_pictures_do_not_import_the_models():
    imports = _all_imports(annotations=True)
    for module in PICTURES:
        assert not set(imports[module]) & MODELS, (module, set(imports[module]) & MODELS)
        assert "function" not in imports[module].values(), (module, imports[module])
    # and the picture modules import each other one way only
    assert "skelsimd._mesh_pictures" in imports["skelsimd.plotting"]
    assert "skelsimd.plotting" not in imports["skelsimd._mesh_pictures"]


def test_function_level_imports_are_the_allowed_ones():
    """Into the pictures only from a model type's picture methods, and to plotting itself;
    every other function-level import is one of LAZY_IMPORTS."""
    edges = _function_level_edges()
    pictures = {(a, b) for a, b in edges if b in PICTURES}
    assert all(a in MODELS and b == "skelsimd.plotting" for a, b in pictures), pictures
    others = edges - pictures
    assert others <= set(LAZY_IMPORTS), sorted(others - set(LAZY_IMPORTS))


def test_cycle_detection_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_function_level_import_closing_a_cycle_is_found():
    # what the package had before the pictures went one way: plotting imported the models at
    # import time and the models imported plotting inside their methods
    plotting = "from .clip import Clip\n\ndef plot_clip(clip):\n    return clip\n"
    clip = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .plotting import X\n"
            "class Clip:\n    def plot(self):\n        from .plotting import plot_clip\n"
            "        return plot_clip(self)\n")
    graph = {"skelsimd.plotting": set(_imports_of_source(plotting, "skelsimd.plotting")),
             "skelsimd.clip": set(_imports_of_source(clip, "skelsimd.clip"))}
    assert _imports_of_source(clip, "skelsimd.clip") == {"skelsimd.plotting": "function"}
    assert _cycles(graph) == [["skelsimd.clip", "skelsimd.plotting", "skelsimd.clip"]]
    # under TYPE_CHECKING only, it is no cycle
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .clip import Clip\n"
    graph["skelsimd.plotting"] = set(_imports_of_source(typed, "skelsimd.plotting"))
    assert _cycles(graph) == []


def _reachable(graph, start):
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen and nxt != "skelsimd" and not start.startswith(nxt + "."):
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _function_level_imports(module):
    """The skelsimd modules ``module`` imports only inside functions."""
    return {m for m, level in _imports(_path_of(module), module).items() if level == "function"}


def test_skeleton_imports_ik_at_import_time_without_a_cycle():
    # The Skeleton IK methods (two_bone, look_at, solve_chain) call skelsimd.ik, which takes the
    # skeleton by duck typing: the dependency goes one way, so no function-level import is needed.
    graph = _graph(top_level_only=True)
    assert "skelsimd.ik" in graph["skelsimd.skeleton"]
    assert "skelsimd.skeleton" not in _reachable(graph, "skelsimd.ik")
    assert "skelsimd.ik" not in _function_level_imports("skelsimd.skeleton")
    assert _function_level_imports("skelsimd.ik") == set()
