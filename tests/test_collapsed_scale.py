"""The factorization-free route of the coboundary collapse S_eps (agreement with the dense
route, PSD, relabelling invariance, route choice) and its product surface: clustering,
positional encodings, ``hyperclust embed``, no import circle."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg as sla

from hyperclust import Hypergraph
from hyperclust.cli import main
from hyperclust.cluster import make_estimator
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.operators.encodings import laplacian_eigenpairs, node_encoding
from hyperclust.operators import CoboundaryCollapsed


def _two_parts(seed=0):
    """Planted hypergraph with a second small component, a singleton edge and isolated nodes."""
    rng = np.random.default_rng(seed)
    edges = [rng.choice(40, size=rng.integers(2, 6), replace=False) for _ in range(45)]
    edges += [[40, 41, 42], [42, 43], [43, 44, 40], [45]]
    return Hypergraph.from_edges(edges, n_nodes=48, weights=rng.uniform(0.5, 2, len(edges)))


def _pair(hg, **kw):
    return (CoboundaryCollapsed(hg, method="iterative", **kw),
            CoboundaryCollapsed(hg, method="dense", **kw))


@pytest.mark.parametrize("seed, eps", [(0, 1e-2), (1, 0.3)])
def test_iterative_eigenpairs_match_dense(seed, eps):
    hg = _two_parts(seed)
    it, dense = _pair(hg, eps=eps, beta=(1.0, 2.0))
    c = it._iterative.n_components
    assert c == hg.connected_components()[0]  # 2 parts + node 45 (singleton edge) + 2 isolated
    k = c + 6
    vi, Vi = it.smallest_eigenpairs(k)
    Sd = dense.to_dense()
    vd, Vd = sla.eigh(Sd, subset_by_index=[0, k])
    assert np.abs(vd[k] - vd[k - 1]) > 1e-3  # the k-th eigenvalue is separated: subspace defined
    np.testing.assert_allclose(vi, vd[:k], atol=1e-8 * vd[k])
    assert np.max(sla.subspace_angles(Vi, Vd[:, :k])) < 1e-4
    assert np.allclose(Vi.T @ Vi, np.eye(k), atol=1e-8)
    assert np.all(vi >= -1e-12) and np.all(np.linalg.eigvalsh(Sd) > -1e-10)  # PSD
    U = np.random.default_rng(seed).standard_normal((hg.n_nodes, 2))
    np.testing.assert_allclose(it.matmat(U), Sd @ U, atol=1e-8 * np.abs(Sd @ U).max())


def test_iterative_null_space_only_and_relabelling():
    hg = _two_parts(2)
    it = CoboundaryCollapsed(hg, method="iterative")
    vals, V = it.smallest_eigenpairs(3)  # fewer than the 5 components: indicators only
    assert np.all(vals == 0) and np.allclose(it.to_dense() @ V, 0, atol=1e-8)
    perm = np.random.default_rng(3).permutation(hg.n_nodes)
    inv = np.argsort(perm)
    hg2 = Hypergraph.from_edges([inv[e] for e in hg.edges()], n_nodes=hg.n_nodes,
                                weights=hg.weights)
    k = it._iterative.n_components + 4
    v1, V1 = it.smallest_eigenpairs(k)
    v2, V2 = CoboundaryCollapsed(hg2, method="iterative").smallest_eigenpairs(k, random_state=5)
    np.testing.assert_allclose(v1, v2, atol=1e-8)
    assert np.max(sla.subspace_angles(V1[perm], V2)) < 1e-4


def test_route_choice_and_clear_errors():
    hg = hypergraph_sbm(120, 3, random_state=0)
    assert CoboundaryCollapsed(hg, dense_max_nodes=100).method == "iterative"
    assert CoboundaryCollapsed(hg).method in ("dense", "factored")
    assert CoboundaryCollapsed(hg, dense_max_nodes=100, gamma=(0.05, 0.05)).method == "factored"
    with pytest.raises(ValueError, match="gamma_0 = sqrt"):
        CoboundaryCollapsed(hg, method="iterative", gamma=(0.01, 0.01))
    with pytest.raises(ValueError, match="method must be"):
        CoboundaryCollapsed(hg, method="lu")


def test_spectral_collapsed_cells_recovers_planted_classes():
    hg = hypergraph_sbm(200, 3, homophily=0.95, isolated_fraction=0.05, random_state=1)
    est = make_estimator("spectral-collapsed-cells", 3).fit(hg)
    from sklearn.metrics import adjusted_rand_score

    covered = ~hg.isolated
    assert adjusted_rand_score(hg.labels[covered], est.labels_[covered]) > 0.8
    assert np.all(est.embedding_[hg.isolated] == 0)
    from hyperclust.cluster import SpectralHypergraphClustering

    with pytest.raises(ValueError, match="eps > 0"):
        SpectralHypergraphClustering(3, operator="collapsed-cells", eps=0.0).fit(hg)


def test_node_encoding_heat_is_relabelling_invariant():
    hg = _two_parts(4)
    perm = np.random.default_rng(0).permutation(hg.n_nodes)
    inv = np.argsort(perm)
    hg2 = Hypergraph.from_edges([inv[e] for e in hg.edges()], n_nodes=hg.n_nodes,
                                weights=hg.weights)
    for op in ("collapsed-cells", "zhou"):
        Z1 = node_encoding(hg, "heat", k=8, operator=op)
        Z2 = node_encoding(hg2, "heat", k=8, operator=op)
        assert Z1.shape == (48, 8)
        np.testing.assert_allclose(Z1[perm], Z2, atol=1e-6)
    vals, _ = laplacian_eigenpairs(hg, 8, operator="collapsed-cells")
    np.testing.assert_allclose(vals, np.linalg.eigvalsh(CoboundaryCollapsed(hg).to_dense())[:8],
                               atol=1e-8)
    with pytest.raises(ValueError, match="operator must be"):
        node_encoding(hg, operator="nope")
    with pytest.raises(ValueError, match="kind must be"):
        node_encoding(hg, kind="laplace")


def test_cli_embed_writes_the_encoding(tmp_path, capsys):
    edges = tmp_path / "edges.txt"
    edges.write_text("a,b,c\nb,c\nc,d\nd,e,f\ne,f\n")
    out = tmp_path / "pe.npy"
    assert main(["embed", str(edges), "--pe", "heat", "--k", "3", "--times", "4",
                 "--out", str(out)]) == 0
    Z = np.load(out)
    assert Z.shape == (6, 4) and np.all(np.isfinite(Z))
    assert main(["embed", str(edges), "--out", str(out)]) == 2  # exists, no --force
    assert main(["embed", str(edges), "--out", str(tmp_path / "pe.csv")]) == 2
    assert "must end in .npy or .npz" in capsys.readouterr().err


def test_no_import_circle_between_graded_and_spectral():
    code = ("import sys, hyperclust.operators.graded; "
            "assert 'hyperclust.operators.eigensolvers' not in sys.modules, 'graded imports spectral'")
    subprocess.run([sys.executable, "-c", code], check=True)
