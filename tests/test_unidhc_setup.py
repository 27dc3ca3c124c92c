"""Uni-DHC's set-up made cheaper computes what it computed: the isolated nodes' search on
the searched rows only, the hyperedge means from any incidence layout, the blocked row
norms of the input scale (each bit for bit against the direct formulation), and the phase
benchmark's set-up shares; the hyperedge mean rows against the diagonal product they
replaced."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.cluster.unidhc import ENCODE_ROWS, _row_sums_of_squares
from hyperclust.models.basis import feature_neighbors
from hyperclust.operators.knn import exact_cosine_neighbors

ROOT = Path(__file__).resolve().parents[1]


def _full_search(X, queries, candidates, k):
    """The search over every row of ``X`` (the formulation before the restriction)."""
    return exact_cosine_neighbors(X, k, queries=queries, candidates=candidates,
                                  exclude_self=False, chunk_size=max(1, 2 ** 22 // len(candidates)),
                                  backend="dense", tie_break="partition")[0]


def test_neighbors_on_the_searched_rows_equal_the_search_over_all_rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 6))
    X[250:300] = X[200]  # 50 exact ties with row 200
    queries = rng.choice(500, size=40, replace=False)  # unsorted
    candidates = np.setdiff1d(np.arange(500), queries)[::-1].copy()  # searched in reverse
    got = feature_neighbors(X, queries, candidates, 8)
    np.testing.assert_array_equal(got, _full_search(X, queries, candidates, 8))
    assert got.shape == (40, 8) and not np.isin(got, queries).any()


def test_neighbors_of_a_tied_query_are_rows_equal_to_it():
    X = np.zeros((10, 2))
    X[:, 0] = 1.0
    X[[1, 3, 8], 1] = 5.0  # rows 1, 3, 8 are one direction; the others another
    got = feature_neighbors(X, np.array([8]), np.array([0, 1, 2, 3]), 2)
    assert sorted(got[0].tolist()) == [1, 3]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_blocked_row_sums_are_numpys_bit_for_bit(dtype, layout):
    X = np.random.default_rng(1).normal(size=(2 * ENCODE_ROWS + 17, 10)).astype(dtype)
    X = {"C": X, "F": np.asfortranarray(X), "strided": X[:, ::3]}[layout]
    got = _row_sums_of_squares(X)
    ref = np.sum(X * X, axis=1)
    assert got.dtype == ref.dtype and np.array_equal(got, ref)


def test_hyperedge_means_are_the_same_bits_from_every_incidence_layout():
    pytest.importorskip("torch")
    from hyperclust.models.unidhc import hyperedge_basis_means

    rng = np.random.default_rng(2)
    H = sp.random(300, 120, density=0.03, random_state=3, format="csr")
    H.data[:] = rng.uniform(0.5, 2.0, H.nnz)  # weights: membership only counts
    B = rng.normal(size=(3, 300, 5)).astype(np.float32)
    ref = hyperedge_basis_means(B, H)
    reversed_csc = H.tocsc()
    for j in range(reversed_csc.shape[1]):  # each column's rows stored in reverse
        lo, hi = reversed_csc.indptr[j], reversed_csc.indptr[j + 1]
        reversed_csc.indices[lo:hi] = reversed_csc.indices[lo:hi][::-1].copy()
    reversed_csc.has_sorted_indices = False
    for layout in (H.tocsc(), H.T.tocsr().T, sp.coo_matrix(H), reversed_csc):
        assert np.array_equal(hyperedge_basis_means(B, layout), ref)
    member = H.toarray() != 0
    dense = (member.T @ B[1].astype(np.float64)) / np.maximum(member.sum(axis=0), 1)[:, None]
    np.testing.assert_allclose(ref[1], dense, rtol=1e-5, atol=1e-6)
    assert hyperedge_basis_means(np.ones((1, 300, 2), dtype=np.int64), H).dtype == np.float64


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hyperedge_mean_rows_are_the_diagonal_products_bits(dtype):
    """The scaled rows without the product: its values, its stored order (the means' sums
    run in it), an empty hyperedge included."""
    pytest.importorskip("torch")
    from hyperclust.models.array_batches import hyperedge_mean_rows

    H = sp.hstack([sp.random(300, 120, density=0.03, random_state=3),
                   sp.csr_matrix((300, 1))]).tocsc()
    Ht = sp.csr_matrix((np.ones(H.nnz, dtype=dtype), H.indices, H.indptr), shape=(121, 300))
    Ht.sort_indices()
    ref = sp.diags(1.0 / np.maximum(np.diff(Ht.indptr), 1)).astype(dtype) @ Ht
    got = hyperedge_mean_rows(H, dtype)
    assert got.dtype == dtype and got.shape == ref.shape and got.indptr[-1] == ref.nnz
    for part in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(got, part), getattr(ref, part)), part


def _bench():
    path = ROOT / "benchmarks" / "bench_unidhc_setup.py"
    spec = importlib.util.spec_from_file_location("bench_unidhc_setup", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fit(fit, setup, imp, **phases):
    return {"fit_s": fit, "fit_cpu_s": fit / 2, "setup_s": setup, "setup_cpu_s": setup / 2,
            "phases_s": {"import": imp, **phases},
            "phases_cpu_s": {"import": imp / 2, **{k: v / 2 for k, v in phases.items()}},
            "other_s": 0.1, "other_cpu_s": 0.05, "peak_rss_mib": 100.0}


def test_setup_shares_with_and_without_the_import():
    bench = _bench()
    fits = [_fit(10.0, 4.0, 2.0, basis=1.0, epochs=5.0), _fit(12.0, 6.0, 2.0, basis=3.0,
                                                              epochs=5.0)]
    summ = bench.summary(fits, [(0.5, 0.4), (0.7, 0.6)])
    assert summ["setup_share"] == {"min": 0.4, "median": 0.45}
    assert summ["setup_share_without_import"] == {"min": 0.25, "median": 0.325}
    assert summ["setup_share_cpu"]["min"] == pytest.approx(0.4)
    assert summ["phases_s"]["basis"] == {"min": 1.0, "median": 2.0}
    assert list(summ["phases_s"]) == ["import", "basis", "epochs"]  # the fit's order
    assert summ["kernel_pair_cpu_s"]["min"] == 0.4
    lines = bench.table(summ)
    assert lines[2].startswith("| import | 2.000 | 2.000 | 1.000 | 1.000 | yes |")
    assert any(line.startswith("| epochs |") and line.endswith("|  |") for line in lines)
    assert summ["setup_main_cpu_s"] == {}  # records from before the fit thread's CPU
    fits[0]["setup_main_cpu_s"], fits[1]["setup_main_cpu_s"] = 1.5, 0.5
    assert bench.summary(fits, [(0.5, 0.4)])["setup_main_cpu_s"] == {"min": 0.5, "median": 1.0}


def test_sampled_hyperedge_means_are_the_rows_of_the_whole_product():
    pytest.importorskip("torch")
    from hyperclust.models.unidhc import ArrayBatches, hyperedge_basis_means

    rng = np.random.default_rng(4)
    H = sp.random(400, 150, density=0.006, random_state=5, format="csr")
    B = rng.normal(size=(3, 400, 6)).astype(np.float32)
    src = ArrayBatches(B, H, "cpu")
    usable = np.flatnonzero(np.diff(H.tocsc().indptr) >= 2)
    full = hyperedge_basis_means(B, H)[:, usable]
    draws = [rng.choice(src.n_edges, size=30, replace=False) for _ in range(6)]
    for i, idx in enumerate(draws):  # sampled rows until n_edges are drawn, then all rows
        assert (src._means is None) == (30 * i <= src.n_edges)
        assert np.array_equal(src.edges(idx).numpy(), full[:, idx])
    assert src._means is not None and 60 < src.n_edges == usable.size < 150


def test_edges_without_means_is_a_clear_error():
    pytest.importorskip("torch")
    from hyperclust.models.unidhc import ArrayBatches

    H = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]]))
    src = ArrayBatches(np.ones((1, 3, 2), dtype=np.float32), H, "cpu", edge_means=False)
    with pytest.raises(ValueError, match="without hyperedge means"):
        src.edges(np.array([0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_basis_and_search_of_a_scaled_input_are_those_of_the_divided_copy(dtype):
    from hyperclust import Hypergraph
    from hyperclust.models.basis import polynomial_basis
    from hyperclust.operators import PropagationOperator

    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 5)) * 3.7
    hg = Hypergraph.from_edges([list(rng.choice(50, size=4, replace=False))
                                for _ in range(30)], n_nodes=60)
    P = PropagationOperator(hg, dtype=dtype)
    scale = np.sqrt(np.mean(np.sum(X * X, axis=1)))
    got = polynomial_basis(P, X, 2, scale=scale)
    assert got.dtype == dtype and np.array_equal(got, polynomial_basis(P, X / scale, 2))
    isolated, connected = np.flatnonzero(hg.isolated), np.flatnonzero(~hg.isolated)
    assert 10 <= isolated.size < 30
    np.testing.assert_array_equal(feature_neighbors(X, isolated, connected, 3, scale=scale),
                                  feature_neighbors(X / scale, isolated, connected, 3))
