"""Smallest eigenpairs of the collapsed operators against dense ``numpy.linalg.eigh`` on
inputs with many components: isolated nodes, many small (some identical) components, nodes
only in singleton hyperedges, one component large enough for the iterative solvers, and
cora-ca as shipped."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import subspace_angles

from hyperclust import Hypergraph
from hyperclust.operators import CoboundaryCollapsed
from hyperclust.operators.components import (ComponentLayout, canonical_signs, null_basis,
                                             nonzero_eigenpairs, smallest_with_null)


def many_component_hypergraph(big=450, seed=0):
    """One connected component of ``big`` nodes (over the dense-batch size), 25 random small
    components, 6 identical triangles, a singleton-only node and 7 isolated nodes."""
    rng = np.random.default_rng(seed)
    edges = [list(range(i, i + 3)) for i in range(0, big - 2, 2)]      # a chain of triples
    edges += [list(rng.choice(big, size=rng.integers(2, 6), replace=False)) for _ in range(big // 3)]
    start = big
    for _ in range(25):
        size = int(rng.integers(2, 9))
        nodes = list(range(start, start + size))
        edges += [nodes[:2]] + [list(rng.choice(nodes, size=min(size, 3), replace=False))
                                for _ in range(size)] + [nodes[i:i + 2] for i in range(size - 1)]
        start += size
    for _ in range(6):
        edges += [[start, start + 1, start + 2], [start, start + 1]]
        start += 3
    edges.append([start])                # only in a singleton hyperedge
    return Hypergraph.from_edges(edges, n_nodes=start + 1 + 7)


def gapped_k(values, near, tol=1e-6):
    """The smallest ``k >= near`` with a spectral gap after the ``k``-th eigenvalue."""
    k = near
    while values[k] - values[k - 1] < tol:
        k += 1
    return k


def assert_matches_dense(vals, V, w, U, k):
    assert vals.shape == (k,) and V.shape == (U.shape[0], k)
    np.testing.assert_allclose(vals, w[:k], atol=1e-8, rtol=0)
    assert np.max(subspace_angles(V, U[:, :k])) < 1e-6
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-8)


@pytest.fixture(scope="module")
def many():
    hg = many_component_hypergraph()
    S = CoboundaryCollapsed(hg, method="dense")
    w, U = np.linalg.eigh(S.to_dense())
    return hg, S, w, U


def test_null_space_is_one_indicator_per_clique_component(many):
    hg, S, w, U = many
    n_comp = 1 + 25 + 6 + 1 + 7
    assert int(np.sum(np.abs(w) < 1e-9)) == n_comp
    vals, V = S.smallest_eigenpairs(n_comp)
    assert np.all(vals == 0)
    assert np.all(V >= 0) and np.allclose((V > 0).sum(axis=1), 1)   # disjoint indicators


# the iterative solver (shift-invert Lanczos, meant for few pairs of large components) costs
# ~5x more at 40 pairs past the null space than at 12: 12 is its case here
@pytest.mark.parametrize("method, extra", [(m, e) for m in ("dense", "factored", "iterative")
                                           for e in (1, 12, 40) if (m, e) != ("iterative", 40)])
def test_coboundary_eigenpairs_equal_dense_eigh(many, method, extra):
    hg, _, w, U = many
    n_comp = int(np.sum(np.abs(w) < 1e-9))
    k = gapped_k(w, n_comp + extra)
    S = CoboundaryCollapsed(hg, method=method)
    vals, V = S.smallest_eigenpairs(k, tol=1e-9 if method == "iterative" else None)
    assert_matches_dense(vals, V, w, U, k)


def test_coboundary_eigenpairs_do_not_depend_on_the_seed(many):
    hg, _, w, _ = many
    k = gapped_k(w, int(np.sum(np.abs(w) < 1e-9)) + 10)
    S = CoboundaryCollapsed(hg, method="factored")
    v0, V0 = S.smallest_eigenpairs(k, random_state=0)
    v1, V1 = S.smallest_eigenpairs(k, random_state=1)
    np.testing.assert_allclose(v0, v1, atol=1e-10)
    np.testing.assert_allclose(V0, V1, atol=1e-7)


def test_k_inside_the_null_space_returns_indicators_in_component_order():
    hg = Hypergraph.from_edges([[0, 1], [3, 4, 5]], n_nodes=7)
    vals, V = CoboundaryCollapsed(hg, method="factored").smallest_eigenpairs(3)
    assert vals.tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(V[:, 0], [2 ** -0.5] * 2 + [0] * 5)
    np.testing.assert_allclose(V[:, 1], [0, 0, 1, 0, 0, 0, 0])      # isolated node 2
    np.testing.assert_allclose(V[:, 2], [0, 0, 0] + [3 ** -0.5] * 3 + [0])


def test_cora_ca_as_shipped_matches_dense(shared_data):
    from hyperclust.datasets import load_dataset

    from scipy.linalg import eigh

    hg = load_dataset("cora-ca", data_dir=shared_data)  # 320 of its 2,708 nodes isolated
    S = CoboundaryCollapsed(hg, method="factored")
    # the reference: LAPACK on the Schur complement formed densely (the other code path;
    # the factored product equals it on random blocks), its 600 smallest eigenpairs
    D = CoboundaryCollapsed(hg, method="dense").to_dense()
    X = np.random.default_rng(0).normal(size=(hg.n_nodes, 4))
    np.testing.assert_allclose(S @ X, D @ X, atol=1e-10)
    w, U = eigh(D, subset_by_index=[0, 599])
    assert int(np.sum(np.abs(w) < 1e-9)) == hg.connected_components()[0] == 482
    k = gapped_k(w, 489)
    assert k < 599
    vals, V = S.smallest_eigenpairs(k)
    assert_matches_dense(vals, V, w, U, k)


def test_generic_component_solver_with_weighted_null_vectors():
    """A normalized Laplacian ``I - D^-1/2 A D^-1/2`` of two identical paths, a triangle and
    an isolated node (identity row, no null vector): null vectors ``sqrt(d)`` per component."""
    A = np.zeros((10, 10))
    for a, b in [(0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (7, 8), (6, 8)]:
        A[a, b] = A[b, a] = 1.0
    d = A.sum(axis=1)
    s = np.divide(1.0, np.sqrt(d), out=np.zeros(10), where=d > 0)
    L = np.eye(10) - s[:, None] * A * s[None, :]
    labels = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    w, U = np.linalg.eigh(L)
    for k in (3, 4, 6, 9):
        vals, V = smallest_with_null(lambda X: L @ X, labels, np.sqrt(d), k)
        np.testing.assert_allclose(vals, w[:k], atol=1e-12)
        if w[k] - w[k - 1] > 1e-9:
            assert np.max(subspace_angles(V, U[:, :k])) < 1e-10
    Q, has = null_basis(ComponentLayout(labels), np.sqrt(d))
    assert Q.shape == (10, 3) and has.tolist() == [True, True, True, False]


def test_large_solver_is_used_above_the_dense_size():
    L = np.kron(np.eye(2), np.diag([1.0, 2.0, 3.0, 4.0, 5.0]))
    calls = []

    def large(nodes, m, q):
        calls.append((nodes.tolist(), m, q))
        vals, vecs = np.linalg.eigh(L[np.ix_(nodes, nodes)])
        return vals[:m], vecs[:, :m]
    vals, _ = nonzero_eigenpairs(lambda X: L @ X, ComponentLayout([0] * 5 + [1] * 5),
                                 np.zeros(10), 1, large_solver=large, dense_max=4)
    assert vals.tolist() == [1.0] and len(calls) == 2 and calls[0][2] is None


def test_canonical_signs_ignore_rounding_ties():
    v = np.array([[1 / np.sqrt(2)], [-1 / np.sqrt(2) * (1 + 1e-15)]])
    assert canonical_signs(v)[0, 0] > 0 and canonical_signs(-v)[0, 0] > 0


def test_spectral_collapsed_cells_embeds_the_smallest_nonzero_eigenpairs(many):
    """The clustering method skips exactly the null space and embeds the next eigenpairs."""
    from hyperclust.cluster.spectral import SpectralHypergraphClustering

    hg, _, w, _ = many
    n_comp = int(np.sum(np.abs(w) < 1e-9))
    k = 5
    est = SpectralHypergraphClustering(k, operator="collapsed-cells", eps=1e-2).fit(hg)
    np.testing.assert_allclose(est.eigenvalues_, w[n_comp:n_comp + k], atol=1e-8)


@pytest.mark.parametrize("method", ["dense", "factored", "iterative"])
def test_every_route_reports_progress(monkeypatch, capsys, method):
    """The dense and factored routes (LAPACK, one LU: no iterations to count) show the time
    elapsed; the iterative route counts its LOBPCG block products."""
    import hyperclust.operators.collapsed as collapsed
    import hyperclust.operators.collapsed_eigen as collapsed_eigen
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.runtime import progress

    shown = []

    class Recorder:
        def __init__(self, desc):
            shown.append(desc)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    monkeypatch.setattr(collapsed, "elapsed_bar", Recorder)
    monkeypatch.setattr(collapsed_eigen, "elapsed_bar", Recorder)
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    monkeypatch.setattr(progress, "on_terminal", lambda: True)  # bars only on a terminal
    hg = hypergraph_sbm(120, 3, random_state=0)
    with progress.show_progress():
        CoboundaryCollapsed(hg, method=method).spectrum(3)
    if method == "iterative":
        assert "S_eps iterative eigenpairs" in capsys.readouterr().err
    else:
        assert shown == [f"S_eps {method} build", f"S_eps {method} eigenpairs"]
