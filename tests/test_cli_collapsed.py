"""The collapsed operators' three uses through the CLI: ``embed --pe`` (seed-independent on
many components), ``embed --diffuse`` and ``cluster --pe``."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from hyperclust.cli import main


def _many_components(tmp_path):
    """12 small components (some identical) and one of 40 nodes, with 3 features per node."""
    rng = np.random.default_rng(0)
    lines, start = [], 0
    for size in [2, 3, 3, 3, 4, 5, 2, 6, 3, 4, 7, 3]:
        nodes = list(range(start, start + size))
        lines += [",".join(map(str, nodes))] + [f"{a},{b}" for a, b in zip(nodes, nodes[1:])]
        start += size
    big = np.arange(start, start + 40)
    lines += [",".join(map(str, big[i:i + 3])) for i in range(0, 38, 2)]
    lines += [",".join(map(str, rng.choice(big, 3, replace=False))) for _ in range(15)]
    n = start + 40
    path = tmp_path / "edges.txt"
    path.write_text("\n".join(lines) + "\n")
    feats = tmp_path / "features.npy"
    np.save(feats, rng.standard_normal((n, 3)))
    return path, feats, n


@pytest.mark.parametrize("operator", ["collapsed-cells", "zhou"])
@pytest.mark.parametrize("pe", ["eigvec", "heat"])
def test_embed_pe_is_seed_independent(tmp_path, capsys, operator, pe):
    path, _, n = _many_components(tmp_path)
    outs = []
    for seed in (0, 1):
        out = tmp_path / f"pe{seed}.npy"
        assert main(["embed", str(path), "--pe", pe, "--operator", operator, "--k", "8",
                     "--seed", str(seed), "--out", str(out)]) == 0
        outs.append(np.load(out))
    assert outs[0].shape == (n, 8)
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-8)
    assert f"embed: {operator} on {n} nodes" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["resolvent", "heat"])
def test_embed_diffuse_equals_the_api(tmp_path, capsys, kind):
    from hyperclust.cli.inputs import load_target
    from hyperclust.smoothing import smooth_features
    import argparse

    path, feats, n = _many_components(tmp_path)
    out = tmp_path / "smooth.npy"
    assert main(["embed", str(path), "--features", str(feats), "--diffuse", kind, "--tau", "2",
                 "--out", str(out)]) == 0
    Z = np.load(out)
    assert Z.shape == (n, 3)
    args = argparse.Namespace(target=str(path), features=str(feats), labels=None, index_base=0,
                              data_dir=None, format=None, sep=None, header=None)
    hg = load_target(args)
    np.testing.assert_allclose(Z, smooth_features(hg, kind=kind, tau=2.0), atol=1e-10)
    X = np.load(feats)
    assert np.linalg.norm(Z - Z.mean(0)) < np.linalg.norm(X - X.mean(0))   # smoother
    assert "smoothing (tau 2) of the features" in capsys.readouterr().out


def test_embed_diffuse_without_features_is_one_line_error(tmp_path, capsys):
    path, _, _ = _many_components(tmp_path)
    assert main(["embed", str(path), "--diffuse", "heat", "--out", str(tmp_path / "x.npy")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("hyperclust: error:") and "--diffuse needs node features" in err[-1]


def test_cluster_with_pe_appends_encoding_columns(tmp_path, capsys):
    path, feats, n = _many_components(tmp_path)
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(path), "--features", str(feats), "--method", "kmeans", "--k", "3",
                 "--pe", "eigvec", "--pe-k", "4", "--out", str(out), "--quiet"]) == 0
    assert "features: 3 + 4 eigvec encoding columns (collapsed-cells)" in capsys.readouterr().out
    rows = list(csv.reader(out.open()))
    assert len(rows) == n + 1


def test_with_encoding_scales_columns_like_the_features():
    from hyperclust import Hypergraph
    from hyperclust.operators.encodings import with_encoding

    X = np.random.default_rng(0).standard_normal((7, 5)) * 3.0
    hg = Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4], [4, 5, 6], [5, 6]], features=X)
    F = with_encoding(hg, "heat", k=3, operator="zhou", n_times=4).features
    assert F.shape == (7, 9)
    np.testing.assert_array_equal(F[:, :5], X)
    rms = np.sqrt(np.mean(X.std(axis=0) ** 2))
    np.testing.assert_allclose(F[:, 5:].std(axis=0)[F[:, 5:].std(axis=0) > 0], rms)


def test_embed_announces_the_dense_route_with_an_estimate(tmp_path, capsys):
    path = tmp_path / "big_edge.txt"
    path.write_text(",".join(map(str, range(60))) + "\n0,1\n2,3,4\n")   # clique nnz > 50 n
    assert main(["embed", str(path), "--k", "3", "--out", str(tmp_path / "pe.npy")]) == 0
    err = capsys.readouterr().err
    assert "embed: collapsed-cells on 60 nodes, S_eps route dense (n x n array; roughly" in err


def _sbm_file(tmp_path, n=250):
    """A sparse connected-ish ``hypergraph_sbm`` as a comma-separated edge list."""
    from hyperclust.datasets.synthetic import hypergraph_sbm

    H = hypergraph_sbm(n, 4, homophily=0.7, random_state=0).largest_component().incidence.tocsc()
    lines = [",".join(map(str, H.indices[H.indptr[j]:H.indptr[j + 1]]))
             for j in range(H.shape[1])]
    path = tmp_path / "sbm.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_embed_small_input_takes_the_dense_route(tmp_path, capsys):
    """Factored and iterative solves took minutes where the dense route takes milliseconds
    on a few hundred nodes: "auto" must not pick them there."""
    import scipy.linalg as sla

    from hyperclust.io.auto import read_hypergraph
    from hyperclust.operators.collapsed import CoboundaryCollapsed

    path = _sbm_file(tmp_path)
    out = tmp_path / "pe.npy"
    assert main(["embed", str(path), "--pe", "eigvec", "--operator", "collapsed-cells",
                 "--k", "5", "--out", str(out)]) == 0
    assert "S_eps route dense" in capsys.readouterr().err
    _, vals, ref = CoboundaryCollapsed(read_hypergraph(path), method="factored").spectrum(6)
    assert vals[4] < vals[5] - 1e-6  # the 5 wanted ones are a whole eigenspace
    assert np.max(sla.subspace_angles(np.load(out), ref[:, :5])) < 1e-6
