"""The package's layers only import downward, and no modules import each other in a circle.

The import graph is read from the source with ``ast``: every ``import`` statement (inside
functions too) and every string that names a hyperclust module for a lazy import
(``"hyperclust.cluster.spectral:SpectralHypergraphClustering"`` in a registry entry,
``".auto"`` in a package's lazy attribute table).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: Layers from the bottom up; a module may import its own layer's modules and lower ones.
#: A top-level module or package of ``hyperclust`` not named here fails the test.
LAYERS = (
    ("hyperclust._validation", "hyperclust._registry"),
    ("hyperclust", "hyperclust.runtime", "hyperclust.hypergraph",
     "hyperclust.metrics"),
    ("hyperclust.io", "hyperclust.convert", "hyperclust.operators"),
    ("hyperclust.datasets",),
    ("hyperclust.smoothing", "hyperclust.selection"),
    ("hyperclust.models",),
    ("hyperclust.cluster",),
    ("hyperclust.bench", "hyperclust.distributed", "hyperclust.plotting"),
    ("hyperclust.cli", "hyperclust.__main__"),
)

#: Upward imports tolerated for now, ``{(importer, imported): why}``; this list may only
#: shrink.
KNOWN_UPWARD = {}

#: ``"module"``, ``"module:attr"`` strings naming a hyperclust module (lazy imports).
_MODULE_STRING = re.compile(r"^(hyperclust(?:\.\w+)*)(?::\w+)?$")
_RELATIVE_STRING = re.compile(r"^\.(\w+)$")


def module_files(src: Path = SRC) -> dict:
    """``{dotted module name: file}`` of every module of ``src/hyperclust``."""
    files = {}
    for f in sorted((src / "hyperclust").rglob("*.py")):
        parts = f.relative_to(src).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return files


def _imported(node, package: str, files: dict) -> set:
    """The hyperclust modules one ``ast`` node imports or names for a lazy import."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            up = package.split(".")[:len(package.split(".")) - node.level + 1]
            base = ".".join(up + ([base] if base else []))
        return {f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        found = _MODULE_STRING.match(node.value)
        if found:
            return {found.group(1)}
        relative = _RELATIVE_STRING.match(node.value)
        if relative and f"{package}.{relative.group(1)}" in files:
            return {f"{package}.{relative.group(1)}"}
    return set()


def import_graph(src: Path = SRC) -> dict:
    """``{module: hyperclust modules it imports}``; a package's imports of its own
    submodules are left out (a package re-exporting its parts is not a circle)."""
    files = module_files(src)
    graph = {}
    for name, f in files.items():
        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            deps |= _imported(node, package, files)
        graph[name] = {d for d in deps if d in files and d != name
                       and not d.startswith(name + ".")}
    return graph


def import_cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layer_of(module: str, layers=LAYERS) -> int:
    """The index in ``layers`` of the longest prefix naming ``module``'s home."""
    best, level = "", None
    for i, names in enumerate(layers):
        for home in names:
            if (module == home or module.startswith(home + ".")) and len(home) > len(best):
                best, level = home, i
    if level is None:
        raise KeyError(f"{module} is in no layer; add its package to LAYERS")
    return level


def upward_imports(graph: dict, layers=LAYERS) -> dict:
    """``{(importer, imported): (importer's layer, imported's layer)}`` for imports of a
    higher layer."""
    return {(a, b): (layer_of(a, layers), layer_of(b, layers))
            for a in sorted(graph) for b in sorted(graph[a])
            if layer_of(b, layers) > layer_of(a, layers)}


# ------------------------------------------------------------------------ the checker
def test_graph_reads_function_level_and_string_named_imports(tmp_path):
    pkg = tmp_path / "hyperclust"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("_LAZY = {'Thing': '.impl'}\n")
    (pkg / "low" / "impl.py").write_text("def f():\n    from ..high import g\n")
    (pkg / "high.py").write_text("ENTRY = 'hyperclust.low.impl:Thing'\n"
                                 "NOT_A_MODULE = 'hyperclust.nowhere'\n")
    graph = import_graph(tmp_path)
    assert graph["hyperclust.low"] == set()  # its own submodule: a re-export
    assert graph["hyperclust.low.impl"] == {"hyperclust.high"}
    assert graph["hyperclust.high"] == {"hyperclust.low.impl"}
    assert import_cycles(graph) == [["hyperclust.high", "hyperclust.low.impl"]]
    layers = (("hyperclust.low",), ("hyperclust", "hyperclust.high"))
    assert upward_imports(graph, layers) == {("hyperclust.low.impl", "hyperclust.high"): (0, 1)}


def test_lazy_table_of_a_package_is_an_import_of_another_module(tmp_path):
    pkg = tmp_path / "hyperclust"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("_LAZY = {'X': '.b'}\n")
    (pkg / "b.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    assert import_graph(tmp_path)["hyperclust"] == set()  # its own submodule: a re-export
    (pkg / "a" / "c.py").write_text("M = '.b'\nN = 'hyperclust.b'\n")  # '.b' is no a.b
    assert import_graph(tmp_path)["hyperclust.a.c"] == {"hyperclust.b"}


def test_cycle_finder_and_layer_lookup():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
    assert layer_of("hyperclust.cluster.spectral") == layer_of("hyperclust.cluster")
    assert layer_of("hyperclust.operators.eigensolvers") < layer_of("hyperclust.cluster.spectral")
    assert layer_of("hyperclust.operators.encodings") == layer_of("hyperclust.operators")
    assert layer_of("hyperclust.selection.objectives") == layer_of("hyperclust.selection")
    assert layer_of("hyperclust") < layer_of("hyperclust.io")


# ---------------------------------------------------------------------- the package
def test_every_module_is_in_a_layer():
    for module in import_graph():
        layer_of(module)


def test_no_import_circles():
    assert import_cycles(import_graph()) == []


def test_layers_import_only_downward():
    upward = upward_imports(import_graph())
    new = {edge: levels for edge, levels in upward.items() if edge not in KNOWN_UPWARD}
    assert not new, "imports of a higher layer: " + ", ".join(f"{a} -> {b}" for a, b in new)


def test_known_upward_imports_still_exist():
    """An allowed upward import that is gone is taken off :data:`KNOWN_UPWARD`."""
    upward = upward_imports(import_graph())
    assert [edge for edge in KNOWN_UPWARD if edge not in upward] == []

