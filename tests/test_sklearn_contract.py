"""Every registered method honours the scikit-learn estimator contract."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClusterMixin, clone
from sklearn.model_selection import ParameterGrid

import hyperclust.bench  # noqa: F401  (the peers register themselves from bench/)
from hyperclust.cluster.registry import available_methods, make_estimator
from hyperclust.datasets.synthetic import hypergraph_sbm

METHODS = list(available_methods())


@pytest.fixture(scope="module")
def tiny():
    return hypergraph_sbm(60, 3, homophily=0.9, n_features=8, random_state=0)


def _fast(est):
    """Keep the deep methods quick on the tiny input (a set_params round trip in itself)."""
    if "epochs" in est.get_params():
        est.set_params(epochs=2, hidden_dim=16)
    return est


def test_every_method_is_listed():
    assert {"kmeans", "hgnn", "spectral-zhou", "unidhc"} <= set(METHODS)


@pytest.mark.parametrize("method", METHODS)
def test_clone_and_params_round_trip(method):
    est = make_estimator(method, 3, random_state=0)
    assert isinstance(est, BaseEstimator) and isinstance(est, ClusterMixin)
    assert callable(getattr(est, "fit_predict", None))
    params = est.get_params()
    assert params["n_clusters"] == 3
    twin = clone(est)
    assert twin is not est and twin.get_params() == params
    assert type(twin) is type(est)
    # set_params returns the estimator and get_params reflects it; setting back restores
    assert est.set_params(n_clusters=5) is est and est.get_params()["n_clusters"] == 5
    est.set_params(**params)
    assert est.get_params() == params
    # an unknown parameter is refused by set_params
    with pytest.raises(ValueError):
        est.set_params(no_such_parameter=1)


@pytest.mark.parametrize("method", METHODS)
def test_params_are_validated_in_fit_not_init(method, tiny):
    est = make_estimator(method, 3, random_state=0)
    bad = clone(est).set_params(n_clusters=-1)  # no error yet
    assert bad.get_params()["n_clusters"] == -1
    with pytest.raises(ValueError, match="n_clusters"):
        bad.fit(tiny)
    # constructing with a bad value does not raise either
    type(est)(**{**est.get_params(), "n_clusters": "three"})


@pytest.mark.parametrize("method", METHODS)
def test_parameter_grid_sweep(method, tiny):
    base = _fast(make_estimator(method, 3, random_state=0))
    results = {}
    for params in ParameterGrid({"n_clusters": [2, 3]}):
        est = clone(base).set_params(**params)
        labels = est.fit_predict(tiny)
        assert labels.shape == (tiny.n_nodes,)
        assert np.array_equal(labels, est.labels_)
        embedding = getattr(est, "embedding_", None)  # optional (docs/extending.md)
        assert embedding is None or embedding.shape[0] == tiny.n_nodes
        assert np.unique(labels).size <= params["n_clusters"]
        results[params["n_clusters"]] = labels
    # deterministic given the seed
    again = clone(base).set_params(n_clusters=3).fit(tiny).labels_
    np.testing.assert_array_equal(again, results[3])
    # the unfitted template was not touched by the sweep
    assert not hasattr(base, "labels_")


def test_every_registry_entry_names_an_estimator_class():
    """The registry lists methods without importing providers; each entry's ``module:Class``
    exists, and making it applies the entry's fixed parameters."""
    import importlib

    from hyperclust.cluster import registry
    from hyperclust.cluster.base import HypergraphClusterer

    for name, m in registry.METHODS.items():
        module, cls = m.estimator.split(":")
        assert issubclass(getattr(importlib.import_module(module), cls), HypergraphClusterer)
        if not m.peer:
            est = make_estimator(name, 3, random_state=7)
            assert est.n_clusters == 3 and est.random_state == 7
            assert all(getattr(est, k) == v for k, v in m.params.items())
    assert make_estimator("unidhc-filter", 2).embedding == "filter"
    assert registry.provider_module("peer-dhg") == "hyperclust.bench.peers"
