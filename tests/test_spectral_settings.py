"""Size-dependent eigensolver tolerance and k-means restarts of spectral clustering."""

import pytest

from hyperclust.cluster.spectral import (LARGE_GRAPH, SpectralHypergraphClustering,
                                         resolve_settings)
from hyperclust.datasets.synthetic import hypergraph_sbm


def test_auto_settings_depend_on_size():
    assert resolve_settings(LARGE_GRAPH - 1) == (1e-8, 10)
    assert resolve_settings(LARGE_GRAPH) == (1e-3, 3)
    assert resolve_settings(10**7, tol=1e-6, n_init=7) == (1e-6, 7)  # explicit values win
    assert resolve_settings(10, tol="auto", n_init=2) == (1e-8, 2)


@pytest.mark.parametrize("kw, match", [({"tol": "fast"}, "tol must be"),
                                       ({"tol": -1.0}, "tol must be"),
                                       ({"n_init": 0}, "n_init must be"),
                                       ({"n_init": 2.5}, "n_init must be"),
                                       ({"n_init": True}, "n_init must be")])
def test_bad_settings_are_one_line_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        resolve_settings(100, **kw)
    hg = hypergraph_sbm(60, 2, n_features=0, random_state=0)
    with pytest.raises(ValueError, match=match):
        SpectralHypergraphClustering(2, **kw).fit(hg)


def test_estimator_records_the_settings_it_used():
    hg = hypergraph_sbm(2000, 2, homophily=0.9, n_features=0, random_state=0)
    est = SpectralHypergraphClustering(2, random_state=0).fit(hg)
    assert (est.tol_, est.n_init_) == (1e-8, 10)
    assert est.get_params()["tol"] == "auto"
    ref = SpectralHypergraphClustering(2, tol=1e-8, n_init=10, random_state=0).fit(hg)
    assert (est.labels_ == ref.labels_).all()
