"""One table per concept, from outside the package: a plugin module registers a method, a
format and a dataset with one call each, and the command line and the benchmark use them
by name (the benchmark's run processes import the plugin). The operator case is in
``tests/test_one_table.py``, ``auto``'s candidates in ``tests/test_selection.py``."""

from __future__ import annotations

import sys

import pytest

from hyperclust.bench.runner import run_benchmark
from hyperclust.cli import main
from hyperclust.cluster.auto import AutoClusterer
from hyperclust.cluster.candidates import CANDIDATE_TABLE, Candidate, register_candidate
from hyperclust.cluster.registry import METHODS, available_methods
from hyperclust.datasets import resolve_dataset
from hyperclust.datasets.registry import DATASETS
from hyperclust.io import read_hypergraph
from hyperclust.io.formats import FORMATS

PLUGIN = '''
import hashlib

import numpy as np

from hyperclust.cluster.base import (SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph,
                                     check_n_clusters)
from hyperclust.cluster.registry import Method, register_method
from hyperclust.datasets import DatasetSpec, FileSpec, register_dataset
from hyperclust.io import Format, read_edgelist, register_format


class DegreeSplit(HypergraphClusterer):
    _parameter_constraints = SHARED_CONSTRAINTS

    def __init__(self, n_clusters=2, random_state=0):
        self.n_clusters, self.random_state = n_clusters, random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        rank = np.argsort(np.argsort(hg.node_degrees, kind="stable"), kind="stable")
        self.labels_ = rank * k // hg.n_nodes
        return self


register_method("degree-split", Method(DegreeSplit, "toy: k groups by node degree"))
register_format("semicolon", Format(
    "one hyperedge per line, members separated by ';' (.scsv)", directory=False,
    detect=lambda source: source.suffix == ".scsv",
    read=lambda source, **options: read_edgelist(source.path, sep=";", **options),
    examples=({"trips.scsv": "milk;bread\\n"},)))
SHOP = b"milk;bread;eggs\\neggs;flour\\nbread;milk\\nflour;sugar;eggs\\n"
register_dataset(DatasetSpec(
    name="shop", format="semicolon", source="hand-made", description="four shopping trips",
    files=(FileSpec("shop.scsv", hashlib.sha256(SHOP).hexdigest(), url=None),),
    n_nodes=5, n_edges=4, n_edges_raw=4, n_edges_unique=4, n_classes=None,
    n_features=None, isolated_nodes=0, homophily="n/a"))
'''
LABELLED = "synthetic-h0.9-n120-k3"


@pytest.fixture()
def plugin(tmp_path, monkeypatch):
    """The plugin module (importable here and by the benchmark's run processes) and a data
    folder holding the dataset ``shop``; every entry is taken out again afterwards."""
    (tmp_path / "shop_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + ":" + ":".join(sys.path))
    import shop_plugin

    data = tmp_path / "data"
    (data / "shop").mkdir(parents=True)
    (data / "shop" / "shop.scsv").write_bytes(shop_plugin.SHOP)
    yield "shop_plugin", data
    for table, name in ((METHODS, "degree-split"), (FORMATS, "semicolon"),
                        (DATASETS, "shop"), (CANDIDATE_TABLE, "degree-split")):
        table.pop(name, None)
    sys.modules.pop("shop_plugin", None)
    assert "degree-split" not in available_methods()


def _bench(plugin, datasets, methods, out, **options):
    return run_benchmark(datasets, methods, seeds=1, out_dir=out, plugins=[plugin[0]],
                         report=False, progress=False, start_method="subprocess",
                         memory_limit=None, **options)


def test_a_registered_method_runs_from_the_cli_the_bench_and_auto(plugin, tmp_path):
    out = tmp_path / "labels.csv"
    assert main(["cluster", LABELLED, "--method", "degree-split", "--out", str(out)]) == 0
    assert len(out.read_text().split()) == 1 + 120
    (run,) = _bench(plugin, LABELLED, ["degree-split"], tmp_path / "bench")
    assert run["status"] == "ok", run.get("error")
    assert 0.0 <= run["metrics"]["acc"] <= 1.0
    register_candidate("degree-split", Candidate())
    hg = resolve_dataset(LABELLED)
    est = AutoClusterer(3, candidates=("degree-split", "spectral-zhou"), random_state=0).fit(hg)
    assert set(est.scores_) == {"degree-split", "spectral-zhou"}


def test_a_registered_format_is_read_by_the_cli_and_the_bench(plugin, tmp_path):
    path = tmp_path / "trips.scsv"
    path.write_text("milk;bread;eggs\neggs;flour\nbread;milk\n")
    assert read_hypergraph(path).n_edges == 3   # detected by its own rule
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(path), "--method", "degree-split", "--k", "2",
                 "--out", str(out)]) == 0
    assert sorted(row.split(",")[0] for row in out.read_text().split()[1:]) == \
        ["bread", "eggs", "flour", "milk"]
    (run,) = _bench(plugin, str(path), ["degree-split"], tmp_path / "bench",
                    unlabelled_clusters=2)
    assert run["status"] == "ok", run.get("error")
    assert run["n_nodes"] == 4


def test_a_registered_dataset_is_found_by_name_by_the_cli_and_the_bench(plugin, tmp_path):
    _, data = plugin
    out = tmp_path / "labels.csv"
    assert main(["cluster", "shop", "--data-dir", str(data), "--method", "degree-split",
                 "--k", "2", "--out", str(out)]) == 0
    assert len(out.read_text().split()) == 1 + 5
    (run,) = _bench(plugin, "shop", ["degree-split"], tmp_path / "bench", data_dir=data,
                    unlabelled_clusters=2)
    assert run["status"] == "ok", run.get("error")
    assert run["n_nodes"] == 5
