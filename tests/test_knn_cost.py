"""The exact/approximate choice of ``cosine_knn(method="auto")``: the measured crossover by
size and dimension for dense products, the fixed size and then the predicted cost for sparse
products, and that the search it names is the one that runs."""

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.operators import _knn_cost
from hyperclust.operators import neighbors as nb


@pytest.mark.parametrize("d, n, exact", [
    (32, 44_000, True), (32, 44_001, False), (128, 29_000, True), (128, 29_001, False),
    (8, 44_000, True), (2000, 29_001, False), (64, 35_000, True), (64, 37_000, False)])
def test_dense_crossover_known_sizes(d, n, exact):
    assert _knn_cost.exact_search_pays(n, d, False) is exact


def test_dense_crossover_falls_with_the_dimension_between_the_measured_ones():
    sizes = [_knn_cost.dense_crossover(d) for d in (16, 32, 48, 64, 96, 128, 256)]
    assert sizes[0] == sizes[1] == 44_000 and sizes[-1] == sizes[-2] == 29_000
    assert all(a > b for a, b in zip(sizes[1:-1], sizes[2:-1]))


def test_sparse_products_keep_the_exact_search_to_the_fixed_size():
    assert _knn_cost.exact_search_pays(nb.EXACT_MAX_NODES, 1000, True)
    assert not _knn_cost.exact_search_pays(nb.EXACT_MAX_NODES + 1, 10, True)


def test_beyond_the_fixed_size_sparse_inputs_are_exact_while_the_predicted_cost_allows():
    n = 10 ** 5
    budget = (_knn_cost.EXACT_COST_RATIO * n * _knn_cost.APPROX_US_PER_ROW * 1e-6
              / (_knn_cost.EXACT_NS_PER_PAIR * 1e-9))  # pair products at the boundary
    assert _knn_cost.exact_search_pays(n, 5000, True, budget)
    assert not _knn_cost.exact_search_pays(n, 5000, True, budget * 1.001)
    assert _knn_cost.exact_search_pays(nb.EXACT_MAX_NODES, 5000, True, 1e15)  # below: always
    # pair products grow as n^2 at a fixed vocabulary, the approximate cost as n: the
    # exact search stops paying somewhere (the cora-like 10^5 x 5,000 input: 6e9 at 10^5)
    assert _knn_cost.exact_search_pays(n, 5000, True, 6e9)
    assert not _knn_cost.exact_search_pays(3 * n, 5000, True, 9 * 6e9)


def test_pair_products_count_the_products_of_x_xt():
    rng = np.random.default_rng(3)
    X = sp.random(40, 30, density=0.1, random_state=4, format="csr")
    B = (X.toarray() != 0).astype(float)
    # every (i, j, w) with both rows nonzero in column w, i == j included
    assert _knn_cost.pair_products(X) == float(np.einsum("iw,jw->", B, B))
    assert _knn_cost.pair_products(X.toarray()) == _knn_cost.pair_products(X)
    Xz = X.copy()
    Xz.data[rng.random(Xz.nnz) < 0.3] = 0.0  # stored zeros are not products
    assert _knn_cost.pair_products(Xz) == _knn_cost.pair_products(Xz.toarray())


def test_auto_searches_a_large_sparse_input_by_its_pair_products(monkeypatch):
    calls = []
    monkeypatch.setattr(nb, "approximate_cosine_neighbors",
                        lambda X, k, **kw: calls.append("approximate") or (None, None))
    monkeypatch.setattr(nb, "exact_cosine_neighbors",
                        lambda X, k, **kw: calls.append("exact") or (None, None))
    monkeypatch.setattr(nb, "ann_available", lambda: True)
    monkeypatch.setattr(_knn_cost, "EXACT_MAX_NODES", 100)
    words = sp.random(400, 1000, density=0.01, random_state=0, format="csr")
    nb.cosine_knn(words, 3)  # ~1.6e3 pair products: far within 3x of 400 rows' search
    common = sp.csr_matrix(np.ones((1000, 5000)) * (np.arange(5000) < 100))
    assert nb.sparse_products(common)
    nb.cosine_knn(common, 3)  # 100 columns in every row: 1e8 pair products, 1.6 s predicted
    assert calls == ["exact", "approximate"]


@pytest.mark.parametrize("make, sparse", [
    (lambda r: r.normal(size=(50, 8)), False),
    (lambda r: (r.random((50, 100)) < 0.02).astype(float), True),
    (lambda r: sp.random(50, 100, density=0.02, random_state=0, format="csr"), True),
    (lambda r: sp.random(50, 10, density=0.5, random_state=0, format="csr"), False)])
def test_sparse_products_is_the_layout_the_exact_search_uses(make, sparse):
    X = make(np.random.default_rng(0))
    assert nb.sparse_products(X) is sparse
    assert sp.issparse(nb._search_layout(nb._unit_rows(X), "auto")) is sparse


def _mixture(n, d, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(8, d))[rng.integers(8, size=n)] + rng.normal(size=(n, d))


def test_auto_runs_the_search_the_crossover_names(monkeypatch):
    pytest.importorskip("faiss")
    monkeypatch.setattr(_knn_cost, "DENSE_CROSSOVER", ((32, 200), (128, 100)))
    for n, d in ((150, 32), (300, 32), (150, 128)):
        X = _mixture(n, d)
        exact = nb.exact_cosine_neighbors(X, 5, tie_break="random")
        got = nb.cosine_knn(X, 5)
        want = exact if _knn_cost.exact_search_pays(n, d, False) else \
            nb.approximate_cosine_neighbors(X, 5, tie_break="random")
        assert np.array_equal(got[0], want[0]) and np.allclose(got[1], want[1])
        assert (n, d) != (150, 32) or np.array_equal(got[0], exact[0])
    words = (np.random.default_rng(1).random((300, 200)) < 0.03).astype(float)
    assert np.array_equal(nb.cosine_knn(words, 5)[0],
                          nb.exact_cosine_neighbors(words, 5, tie_break="random")[0])


def test_explicit_exact_max_nodes_overrides_the_crossover(monkeypatch):
    calls = []
    monkeypatch.setattr(nb, "approximate_cosine_neighbors",
                        lambda X, k, **kw: calls.append(X.shape[0]) or (None, None))
    monkeypatch.setattr(nb, "ann_available", lambda: True)
    X = _mixture(120, 32)
    nb.cosine_knn(X, 3, exact_max_nodes=100)
    assert calls == [120]
    idx, _ = nb.cosine_knn(X, 3, exact_max_nodes=120)
    assert calls == [120] and idx.shape == (120, 3)
    idx, _ = nb.cosine_knn(X, 3)  # 120 nodes: far below the measured crossover
    assert calls == [120] and idx.shape == (120, 3)


def test_without_faiss_auto_is_exact_at_any_size(monkeypatch):
    monkeypatch.setattr(nb, "ann_available", lambda: False)
    monkeypatch.setattr(_knn_cost, "DENSE_CROSSOVER", ((32, 10), (128, 10)))
    X = _mixture(60, 32)
    assert np.array_equal(nb.cosine_knn(X, 4)[0],
                          nb.exact_cosine_neighbors(X, 4, tie_break="random")[0])
