"""Every docstring example in the package runs, and the API reference builds."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import hyperclust

ROOT = Path(__file__).resolve().parents[1]
_INTEROP = ("xgi", "hypernetx", "dhg", "torch_geometric", "networkx", "pandas")


def _modules():
    """The package's modules whose source holds a docstring example (read, not imported)."""
    names = ["hyperclust"]
    names += [m.name for m in pkgutil.walk_packages(hyperclust.__path__, "hyperclust.")]
    out = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec.origin and Path(spec.origin).read_text(encoding="utf-8").count(">>> "):
            out.append(name)
    return sorted(out)


def _missing(*packages):
    return [p for p in packages if importlib.util.find_spec(p) is None]


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    needs = {"hyperclust.plotting": ("matplotlib",),
             "hyperclust.operators.base": ("torch",),
             "hyperclust.bench.peers": ("xgi", "hypernetx", "dhg", "torch")}.get(name, ())
    if name.startswith("hyperclust.convert"):
        needs += _INTEROP + ("torch",)
    if name.startswith(("hyperclust.models", "hyperclust.cluster")):
        needs += ("torch",)
    if name.startswith("hyperclust.distributed"):
        needs += ("distributed",)
    missing = _missing(*needs)
    if missing:
        pytest.skip(f"{name}'s examples need {', '.join(missing)} (pip install -e '.[test]')")
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name} has '>>> ' in its source but no example doctest finds"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_public_api_has_examples():
    """Each public function and class of the modules of the converters, the clustering
    estimators, the default (auto), the objectives, the plots, the registry, the CLI, the
    Hypergraph and the benchmark harness has an Examples section."""
    names = ["hyperclust.convert", "hyperclust.plotting", "hyperclust.cluster.registry",
             "hyperclust.cluster.baselines", "hyperclust.cluster.spectral",
             "hyperclust.cluster.unidhc", "hyperclust.cluster.auto", "hyperclust.objectives",
             "hyperclust.hypergraph", "hyperclust.cli", "hyperclust.metrics",
             "hyperclust.threads", "hyperclust.cluster.ahcka", "hyperclust.operators.knn",
             "hyperclust.operators.neighbors"]
    names += [f"hyperclust.convert.{m}" for m in ("xgi", "hypernetx", "dhg", "pyg", "networkx",
                                                  "pandas", "dispatch")]
    names += [f"hyperclust.hypergraph.{m}" for m in ("core", "construction", "ids", "validation",
                                                     "cleaning", "statistics")]
    names += ["hyperclust.io"] + [f"hyperclust.io.{m}" for m in (
        "auto", "benchmark_formats", "edgelist", "errors", "formats", "hif", "hypergraphx",
        "node_data", "safe_pickle")]
    names += [f"hyperclust.operators.{m}" for m in (
        "base", "expansions", "kernels", "laplacians", "propagation", "registry")]
    names += ["hyperclust.cluster.base"]
    names += [f"hyperclust.cli.{m}" for m in ("_common", "datasets", "info", "demo", "inputs",
                                              "outputs")]
    names += ["hyperclust.datasets"] + [f"hyperclust.datasets.{m}" for m in (
        "download", "load", "locate", "registry", "spec", "synthetic")]
    names += ["hyperclust.bench"] + [f"hyperclust.bench.{m}" for m in (
        "seeds", "store", "aggregate", "tables", "staleness", "report", "plots", "provenance",
        "data", "runner", "worker", "peers", "memory", "cli")]
    lacking = []
    for name in names:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if callable(obj) and "Examples" not in (obj.__doc__ or ""):
                lacking.append(f"{name}.{attr}")
    assert not lacking, lacking


def test_api_reference_builds(tmp_path):
    pytest.importorskip("pdoc")
    out = tmp_path / "api"
    env = {**os.environ, "PYTHON": sys.executable}
    r = subprocess.run(["bash", str(ROOT / "docs" / "build_api.sh"), str(out)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "does not resolve" not in r.stderr
    convert_page = (out / "hyperclust" / "convert.html").read_text(encoding="utf-8")
    assert "from_any" in convert_page and "Hypergraph" in convert_page
    assert "Hypergraph" in (out / "hyperclust.html").read_text(encoding="utf-8")
    assert "UniDHC" in (out / "hyperclust" / "cluster.html").read_text(encoding="utf-8")
