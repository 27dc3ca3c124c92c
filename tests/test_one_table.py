"""One table per concept: an operator registered once yields its ``spectral-<operator>``
method in the command line and the benchmarks; a dataset name resolves the same way in
both; the estimators of the method registry are all importable from ``hyperclust.cluster``."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import hyperclust.cluster
from hyperclust.bench.runner import run_benchmark
from hyperclust.cli import main
from hyperclust.cluster.registry import METHODS, available_methods, make_estimator
from hyperclust.datasets import resolve_dataset
from hyperclust.operators.registry import OPERATORS

PLUGIN = '''
from hyperclust.operators.registry import OperatorSpec, register_operator

register_operator("zhou2", OperatorSpec(
    "hyperclust.operators.laplacians:ZhouLaplacian", "Zhou's Laplacian once more",
    frozenset({"matvec", "affinity"}), params={"kind": "unnormalized"}))
'''
DATA = "synthetic-h0.9-n120-k3"


@pytest.fixture()
def plugin(tmp_path, monkeypatch):
    """A plugin module registering operator ``zhou2`` (Zhou's Laplacian under a new name),
    importable here and by the benchmark's run processes."""
    (tmp_path / "zhou2_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + ":" + ":".join(sys.path))
    import zhou2_plugin  # noqa: F401

    yield "zhou2_plugin"
    OPERATORS.pop("zhou2", None)
    sys.modules.pop("zhou2_plugin", None)
    assert "spectral-zhou2" not in available_methods()


def _labels(path):
    return [row.split(",")[1] for row in path.read_text().split()[1:]]


def test_a_registered_operator_is_a_method_of_the_cli(plugin, tmp_path, capsys):
    assert "spectral-zhou2" in available_methods()
    assert METHODS["spectral-zhou2"].description == \
        "regularized spectral clustering, Zhou's Laplacian once more"
    assert make_estimator("spectral-zhou2", 3).operator == "zhou2"
    for method in ("spectral-zhou", "spectral-zhou2"):
        assert main(["cluster", DATA, "--method", method, "--out",
                     str(tmp_path / f"{method}.csv")]) == 0
    assert "spectral-zhou2" in capsys.readouterr().out
    # the same operator under two names: the same labels
    assert _labels(tmp_path / "spectral-zhou2.csv") == _labels(tmp_path / "spectral-zhou.csv")


def test_a_registered_operator_is_a_method_of_the_bench(plugin, tmp_path):
    runs = run_benchmark(DATA, ["spectral-zhou", "spectral-zhou2"], seeds=1,
                         out_dir=tmp_path / "out", plugins=[plugin], report=False,
                         progress=False, start_method="subprocess", memory_limit=None)
    by = {r["method"]: r for r in runs}
    assert by["spectral-zhou2"]["status"] == "ok", by["spectral-zhou2"].get("error")
    assert by["spectral-zhou2"]["params"]["operator"] == "zhou2"
    assert by["spectral-zhou2"]["metrics"] == by["spectral-zhou"]["metrics"]


def test_a_missing_plugin_is_a_failed_run(tmp_path):
    (run,) = run_benchmark(DATA, ["spectral-zhou"], seeds=1, out_dir=tmp_path,
                           plugins=["no_such_plugin_module"], report=False, progress=False,
                           start_method="subprocess", memory_limit=None)
    assert run["status"] == "failed" and run["error"].startswith("[plugins]")


def test_the_cli_and_the_bench_resolve_the_same_dataset_names(tmp_path, capsys):
    hg = resolve_dataset(DATA)
    assert (hg.n_nodes, hg.n_classes) == (120, 3)
    assert main(["cluster", DATA, "--method", "spectral-zhou", "--k", "3"]) == 0
    assert f"Hypergraph('{DATA}', n_nodes=120" in capsys.readouterr().out
    (run,) = run_benchmark(DATA, ["spectral-zhou"], seeds=1, out_dir=tmp_path, report=False,
                           progress=False, start_method="subprocess", memory_limit=None)
    assert run["status"] == "ok" and run["n_nodes"] == 120
    assert main(["cluster", "synthetic-h0.9-n120-k3x", "--k", "3"]) == 2
    assert "unknown dataset" in capsys.readouterr().err


def test_every_estimator_of_the_registry_is_in_the_cluster_package():
    ours = {m.estimator.rpartition(":")[2] for m in METHODS.values()
            if m.module.startswith("hyperclust.cluster.")}
    assert ours <= set(hyperclust.cluster.__all__)
    assert "SignedSpectralClustering" in ours
    assert hyperclust.cluster.SignedSpectralClustering.__name__ == "SignedSpectralClustering"


def test_derived_methods_keep_the_builtin_names_and_parameters():
    # ``spectral-zhou-mixed`` (Zhou + attribute kNN, an ``auto`` candidate) is a method of its
    # own, not one derived from an operator
    spectral = {name: m.params for name, m in METHODS.items() if name.startswith("spectral-")
                and m.module == "hyperclust.cluster.spectral" and name != "spectral-zhou-mixed"}
    assert spectral == {"spectral-zhou": {"operator": "zhou"},
                        "spectral-clique": {"operator": "clique"},
                        "spectral-clique-unit": {"operator": "clique-unit"},
                        "spectral-star": {"operator": "star"},
                        "spectral-collapsed": {"operator": "collapsed"},
                        "spectral-collapsed-cells": {"operator": "collapsed-cells", "eps": 1e-2},
                        "spectral-collapsed-closure": {"operator": "collapsed-closure",
                                                       "eps": 1e-2}}
    order = list(METHODS)  # the built-in operators first, then those with their own solver
    assert order.index("spectral-collapsed") < order.index("spectral-signed") \
        < order.index("spectral-collapsed-cells")
    assert np.isclose(make_estimator("spectral-collapsed-cells", 2).eps, 1e-2)


def test_auto_candidates_and_dask_twins_are_read_from_the_method_entries(monkeypatch):
    import argparse
    import dataclasses

    from hyperclust.cli.cluster import add_parser
    from hyperclust.cli.partition import _check_options
    from hyperclust.cluster.candidates import CANDIDATE_TABLE, Candidate
    from hyperclust.cluster.registry import DESCRIPTIONS, distributed_methods, register_method
    from hyperclust.operators.encodings import ENCODING_KINDS

    assert CANDIDATE_TABLE == {n: m.candidate for n, m in METHODS.items() if m.candidate}
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))

    def method_on_a_cluster(method):
        return _check_options(parser.parse_args(["cluster", "parts", "--k", "2", "--method",
                                                 method, "--scheduler", "local:1"]))

    assert method_on_a_cluster("auto") == "spectral-zhou"
    assert method_on_a_cluster("ahcka") == "ahcka"
    with pytest.raises(ValueError, match="use one of ahcka, spectral-zhou, unidhc"):
        method_on_a_cluster("kmeans")
    # a new entry that offers a candidate and a twin is both, with no other table to edit
    for table in (METHODS, DESCRIPTIONS):  # removed again at teardown
        monkeypatch.setitem(table, "spectral-zhou-twin", None)
    before = dict(CANDIDATE_TABLE)
    try:
        register_method("spectral-zhou-twin", dataclasses.replace(
            METHODS["spectral-zhou"], candidate=Candidate()), replace=True)
        assert list(CANDIDATE_TABLE)[-1] == "spectral-zhou-twin"
        assert "spectral-zhou-twin" in distributed_methods()
        assert method_on_a_cluster("spectral-zhou-twin") == "spectral-zhou"  # the same twin
    finally:
        CANDIDATE_TABLE.clear()
        CANDIDATE_TABLE.update(before)
    with pytest.raises(SystemExit):
        parser.parse_args(["cluster", "x.txt", "--pe", "nope"])
    assert all(parser.parse_args(["cluster", "x.txt", "--pe", kind]).pe == kind
               for kind in ENCODING_KINDS)
