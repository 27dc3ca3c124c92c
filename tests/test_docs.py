"""Every docstring example in the package runs, and the API reference builds."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import inspect
import pkgutil
from pathlib import Path

import pytest

import hyperclust

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
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


def _needs(name):
    """The optional packages that importing module ``name`` requires."""
    needs = {"hyperclust.plotting": ("matplotlib",),
             "hyperclust.operators.base": ("torch",),
             "hyperclust.bench.peers": ("xgi", "hypernetx", "dhg", "torch")}.get(name, ())
    if name.startswith("hyperclust.convert"):
        needs += _INTEROP + ("torch",)
    if name.startswith(("hyperclust.models", "hyperclust.cluster")):
        needs += ("torch",)
    if name.startswith("hyperclust.distributed") or name == "hyperclust.cli.partition":
        needs += ("distributed",)
    if name in ("hyperclust.distributed.unidhc", "hyperclust.distributed.batches"):
        needs += ("torch",)
    return needs


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    needs = _needs(name)
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


def _public_callables(module):
    """The public functions and classes that ``module`` itself defines."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, obj in vars(module).items()
                 if not n.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))]
    return [(n, obj) for n in names
            if callable(obj := getattr(module, n))
            and getattr(obj, "__module__", None) == module.__name__]


def test_public_api_has_examples():
    """Each public function and class of every public module of the package (names in
    ``__all__``, or else its public top-level defs) has an Examples section."""
    names = [m.name for m in pkgutil.walk_packages(hyperclust.__path__, "hyperclust.")]
    lacking, checked = [], []
    for name in ["hyperclust", *names]:
        if name.rsplit(".", 1)[-1].startswith("_"):
            continue
        if _missing(*_needs(name)):
            continue
        module = importlib.import_module(name)
        checked.append(name)
        lacking += [f"{name}.{attr}" for attr, obj in _public_callables(module)
                    if "Examples" not in (obj.__doc__ or "")]
    assert {"hyperclust.hypergraph.core", "hyperclust.cli.cluster"} <= set(checked), checked
    assert not lacking, lacking


def test_api_reference_builds(docs_site):
    out, r = docs_site
    assert r.returncode == 0, r.stderr
    assert "does not resolve" not in r.stderr
    convert_page = (out / "hyperclust" / "convert.html").read_text(encoding="utf-8")
    assert "from_any" in convert_page and "Hypergraph" in convert_page
    assert "Hypergraph" in (out / "hyperclust.html").read_text(encoding="utf-8")
    assert "UniDHC" in (out / "hyperclust" / "cluster.html").read_text(encoding="utf-8")


def test_docs_site_covers_every_public_module_and_the_gallery(docs_site):
    out, r = docs_site
    assert r.returncode == 0, r.stderr[-2000:]
    assert "does not resolve" not in r.stderr
    public = [m.name for m in pkgutil.walk_packages(hyperclust.__path__, "hyperclust.")
              if not any(part.startswith("_") for part in m.name.split("."))]
    missing = [m for m in public if not (out / (m.replace(".", "/") + ".html")).is_file()]
    assert not missing, missing
    assert {"hyperclust.selection.objectives", "hyperclust.selection.alignment",
            "hyperclust.operators.eigensolvers", "hyperclust.operators.encodings",
            "hyperclust.runtime.threads", "hyperclust.distributed"} <= set(public)
    gallery = (out / "examples.html").read_text(encoding="utf-8")
    assert all(f"<h2 id='{p.stem}'>" in gallery for p in EXAMPLES)
