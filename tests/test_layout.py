"""The package's layout rules: no import cycle among skelsimd's modules (counting the imports a
module makes at import time; those under ``if TYPE_CHECKING:`` never run), and the model types never import the pictures at import time."""
import ast
import os

import skelsimd

PACKAGE = os.path.dirname(skelsimd.__file__)


def _module_name(path):
    rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
    return rel.removesuffix(".__init__")


def _is_type_checking(test):
    """``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:``."""
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(path, name, top_level_only):
    """The skelsimd modules ``name`` imports (relative and absolute imports resolved)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    is_pkg = path.endswith("__init__.py")
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    # module-level: also imports inside top-level if/try blocks
    if top_level_only:
        flat = []
        stack = list(tree.body)
        while stack:
            node = stack.pop()
            flat.append(node)
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                stack += node.orelse   # imports for the type checker only: not run
            elif isinstance(node, (ast.If, ast.Try)):
                stack += node.body + node.orelse + getattr(node, "finalbody", [])
                for h in getattr(node, "handlers", []):
                    stack += h.body
        nodes = flat
    out = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base[:len(base) - node.level + 1]
                mod = ".".join(parts + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "skelsimd":
                continue
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                out.add(sub if os.path.exists(_path_of(sub)) else mod)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "skelsimd"}
    out.discard(name)
    return out


def _path_of(mod):
    parts = mod.split(".")[1:]
    p = os.path.join(PACKAGE, *parts)
    return p + ".py" if os.path.exists(p + ".py") else os.path.join(p, "__init__.py")


def _graph(top_level_only=True):
    graph = {}
    for root, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                name = _module_name(path)
                graph[name] = {m for m in _imports(path, name, top_level_only)
                               if os.path.exists(_path_of(m))}
    return graph


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


def test_no_import_cycles():
    graph = _graph()
    assert "skelsimd.clip" in graph and "skelsimd.io.bvh" in graph
    assert _cycles(graph) == []


def test_models_do_not_import_pictures_at_import_time():
    graph = _graph()
    for model in ("skelsimd.clip", "skelsimd.skeleton", "skelsimd.surface"):
        assert "skelsimd.plotting" not in graph[model], model
    assert {"skelsimd.skeleton", "skelsimd.surface"} <= graph["skelsimd.plotting"]


def test_cycle_detection_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


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
    path = _path_of(module)
    return _imports(path, module, False) - _imports(path, module, True)


def test_skeleton_imports_ik_at_import_time_without_a_cycle():
    # The Skeleton IK methods (two_bone, look_at, solve_chain) call skelsimd.ik, which takes the
    # skeleton by duck typing: the dependency goes one way, so no function-level import is needed.
    graph = _graph()
    assert "skelsimd.ik" in graph["skelsimd.skeleton"]
    assert "skelsimd.skeleton" not in _reachable(graph, "skelsimd.ik")
    assert "skelsimd.ik" not in _function_level_imports("skelsimd.skeleton")
    assert _function_level_imports("skelsimd.ik") == set()
