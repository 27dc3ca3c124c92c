"""The study benchmarks/studies/knn_recall_need.py measures what it says: its replaced search
reaches every kNN search of an ``auto`` fit (and nothing else), the originals are restored,
and its IVF variant with every list probed is the exact search."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from hyperclust.cluster.auto import AutoClusterer
from hyperclust.datasets import hypergraph_sbm
from hyperclust.operators import neighbors as nb

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "studies" / "knn_recall_need.py"


@pytest.fixture(scope="module")
def study():
    sys.path.insert(0, str(PATH.parent))
    try:
        return importlib.import_module(PATH.stem)
    finally:
        sys.path.remove(str(PATH.parent))


def test_answers_help_without_measuring(study, capsys):
    with pytest.raises(SystemExit) as exit_:
        study.main(["--help"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("usage:")


def test_exact_variant_reproduces_the_plain_fit_and_restores_the_search(study):
    hg = hypergraph_sbm(300, 3, homophily=0.6, n_features=8, random_state=0)
    plain = AutoClusterer(3, random_state=1).fit(hg)
    exact = study.variant_search("exact")
    clock = []
    replaced = study.fit_with(hg, 3, 1, [exact, exact], clock)
    assert np.array_equal(plain.labels_, replaced.labels_)
    assert len(clock) >= 1  # the searches went through the replacement
    assert nb.cosine_knn.__module__ == nb.__name__
    from hyperclust.cluster.auto import _fitting

    assert _fitting.shared_walks.__module__ == _fitting.__name__  # restored


def test_a_search_that_finds_nothing_changes_the_graph_fitted_candidates(study):
    hg = hypergraph_sbm(300, 3, homophily=0.6, n_features=8, random_state=0)

    def nothing(X, k, seed):
        return np.full((X.shape[0], k), -1, dtype=np.int64), np.zeros((X.shape[0], k))

    clock = []
    est = study.fit_with(hg, 3, 1, [nothing, nothing], clock)
    ref = study.fit_with(hg, 3, 1, [study.variant_search("exact")] * 2, [])
    assert len(clock) >= 1
    assert not np.array_equal(est.candidates_["hgnn-mixed"], ref.candidates_["hgnn-mixed"])


def test_ivf_with_every_list_probed_is_the_exact_search(study):
    pytest.importorskip("faiss")
    X = np.random.default_rng(0).normal(size=(1200, 12))
    idx, sims = study.variant_search("ivf3")(X, 5, 0)  # 1200 // 400 = 3 lists, all probed
    want_idx, want_sims = nb.exact_cosine_neighbors(X, 5, tie_break="random", random_state=0)
    assert np.array_equal(idx, want_idx)
    np.testing.assert_allclose(sims, want_sims, rtol=0, atol=1e-12)
