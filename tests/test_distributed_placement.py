"""Row-block placements (hyperclust.distributed.placement): the cut statistics against a
dense count, planted groups kept whole, nodes in no hyperedge spread over the blocks, a
placed partition holding the same hypergraph, and distributed labels equal to the single
process node id by node id."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score

from hyperclust import Hypergraph
from hyperclust.datasets import hypergraph_sbm
from hyperclust.distributed.placement import cut_statistics, placement_order
from hyperclust.distributed.partition import write_partitioned

METHODS = ["rcm", pytest.param("metis", marks=pytest.mark.skipif(
    pytest.importorskip("importlib").util.find_spec("pymetis") is None,
    reason="needs pymetis"))]


def _dense_cut(H, bounds):
    """The statistics by loops over a dense 0/1 incidence (the reference)."""
    H = (np.asarray(H.todense()) != 0)
    n, m = H.shape
    blocks = [range(bounds[b], bounds[b + 1]) for b in range(len(bounds) - 1)]
    touched = np.array([H[list(r)].any(axis=0) for r in blocks])
    spans = touched.sum(axis=0)
    used = (spans > 0).sum()
    halo_nodes = []
    for b, r in enumerate(blocks):
        reached = H[:, touched[b]].any(axis=1)
        reached[list(r)] = False
        halo_nodes.append(reached.sum() / n)
    return {"cut_share": (spans > 1).sum() / used, "touched_per_edge": spans.sum() / used,
            "halo_edges_max": max(touched[b][spans > 1].sum() / m for b in range(len(blocks))),
            "halo_nodes_max": max(halo_nodes)}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cut_statistics_match_a_dense_count(seed):
    rng = np.random.default_rng(seed)
    H = sp.random(40, 25, density=0.12, random_state=seed, format="csr")
    bounds = np.concatenate([[0], np.sort(rng.choice(np.arange(1, 40), 3, replace=False)), [40]])
    got, want = cut_statistics(H, bounds), _dense_cut(H, bounds)
    for key, value in want.items():
        assert got[key] == pytest.approx(value), key


@pytest.mark.parametrize("method", METHODS)
def test_planted_groups_are_not_cut(method):
    # four groups of 10 nodes, numbered interleaved (node i in group i % 4), each a chain
    # of hyperedges: blocks of 10 consecutive ids cut most hyperedges; a placement that
    # finds the groups cuts none
    groups = [np.arange(g, 40, 4) for g in range(4)]
    edges = [grp[i:i + 3].tolist() for grp in groups for i in range(0, 8)]
    H = Hypergraph.from_edges(edges, n_nodes=40).incidence
    bounds = np.arange(0, 41, 10)
    assert cut_statistics(H, bounds)["cut_share"] >= 0.5
    nodes, edge_order = placement_order(H, 10, method)
    assert sorted(nodes.tolist()) == list(range(40))
    assert sorted(edge_order.tolist()) == list(range(len(edges)))
    stats = cut_statistics(H[nodes][:, edge_order], bounds)
    assert stats["cut_share"] == 0.0 and stats["touched_per_edge"] == 1.0
    # hyperedges follow their first member: partition j of equal ranges is block j's
    assert stats["block_pairs"] == 4


@pytest.mark.parametrize("method", METHODS)
def test_nodes_in_no_hyperedge_are_spread_over_the_blocks(method):
    # 12 connected nodes among 60: each block of 15 gets 3 of them
    edges = [[i, i + 1] for i in range(0, 12, 2)] + [[1, 2], [5, 6], [9, 10]]
    H = Hypergraph.from_edges([[5 * v for v in e] for e in edges], n_nodes=60).incidence
    nodes, _ = placement_order(H, 15, method)
    connected = np.diff(H.tocsr().indptr)[nodes] > 0
    assert connected.reshape(4, 15).sum(axis=1).tolist() == [3, 3, 3, 3]


@pytest.mark.parametrize("method", ["ids"] + METHODS)
def test_without_hyperedges_every_placement_keeps_the_order(method):
    H = sp.csr_matrix((6, 2))
    nodes, edge_order = placement_order(H, 2, method)
    assert nodes.tolist() == list(range(6)) and edge_order.tolist() == [0, 1]


def test_ids_placement_and_errors():
    H = sp.csr_matrix(np.eye(4))
    nodes, edge_order = placement_order(H, 2, "ids")
    assert nodes.tolist() == [0, 1, 2, 3] and edge_order.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="placement must be one of"):
        placement_order(H, 2, "kahypar")


def test_missing_pymetis_is_one_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pymetis", None)
    H = Hypergraph.from_edges([[0, 1], [2, 3]]).incidence
    with pytest.raises(ImportError, match="^placement 'metis' needs pymetis: pip install"):
        placement_order(H, 2, "metis")


@pytest.mark.parametrize("method", METHODS)
def test_placed_partition_holds_the_same_hypergraph(tmp_path, method):
    hg = hypergraph_sbm(90, 3, homophily=0.9, n_features=4, random_state=1)
    back = write_partitioned(hg, tmp_path / "p", block_size=30,
                             placement=method).to_hypergraph()
    assert back.node_ids.tolist() != hg.node_ids.tolist()  # renumbered
    pos = {v: i for i, v in enumerate(hg.node_ids.tolist())}
    idx = np.array([pos[v] for v in back.node_ids.tolist()])
    np.testing.assert_array_equal(back.features, hg.features[idx])
    mine = sorted((tuple(sorted(back.node_ids[e].tolist())), w)
                  for e, w in zip(back.edges(), back.weights))
    theirs = sorted((tuple(sorted(hg.node_ids[e].tolist())), w)
                    for e, w in zip(hg.edges(), hg.weights))
    assert mine == theirs


@pytest.mark.parametrize("method", METHODS)
def test_distributed_spectral_labels_follow_the_ids(client, tmp_path, method):
    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.distributed import DistributedSpectralClustering

    hg = hypergraph_sbm(400, 3, homophily=0.9, random_state=2)
    ref = SpectralHypergraphClustering(3, random_state=0).fit(hg)
    phg = write_partitioned(hg, tmp_path / "p", block_size=100, placement=method)
    est = DistributedSpectralClustering(3, client=client, random_state=0).fit(phg)
    order = np.argsort(est.node_ids_)
    assert est.node_ids_[order].tolist() == np.sort(hg.node_ids).tolist()
    ref_order = np.argsort(hg.node_ids)
    assert adjusted_rand_score(ref.labels_[ref_order], est.labels_[order]) >= 0.99


def test_block_kmeans_sample_follows_the_keys_not_the_blocks(client):
    # the same rows moved to other blocks in another order, with their keys: the hashed
    # sample (50 of 180 rows) and its order are the same, so the labels are too
    from hyperclust.distributed.kmeans import block_kmeans
    from hyperclust.distributed.linalg import scatter_blocks

    rng = np.random.default_rng(3)
    X = np.concatenate([rng.normal(c, 1.2, (60, 2)) for c in ((0, 0), (3, 0), (0, 3))])
    perm = rng.permutation(180)
    runs = []
    for order, bounds in ((np.arange(180), [0, 70, 130, 180]), (perm, [0, 20, 100, 180])):
        keys = [client.scatter(order[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]
        labels = block_kmeans(client, scatter_blocks(client, X[order], bounds), 180, 3,
                              sample_size=50, random_state=4, row_keys=keys)[0]
        by_key = np.empty(180, dtype=np.int64)
        by_key[order] = np.concatenate(client.gather(labels))
        runs.append(by_key)
    np.testing.assert_array_equal(runs[0], runs[1])


@pytest.mark.parametrize("method", METHODS[-1:])
def test_placement_keeps_spectral_labels_past_the_sample_size(client, tmp_path, method):
    # 400 nodes, k-means sample of 100: the rows drawn and their order follow the node
    # ranks stored with the placed partition, so the labels equal those of the given order
    from hyperclust.distributed import DistributedSpectralClustering

    hg = hypergraph_sbm(400, 3, homophily=0.75, random_state=5)
    fits = {}
    for place in ("ids", method):
        phg = write_partitioned(hg, tmp_path / place, block_size=100, placement=place)
        assert (phg.node_ranks_path is None) == (place == "ids")
        est = DistributedSpectralClustering(3, client=client, random_state=0,
                                            sample_size=100).fit(phg)
        fits[place] = dict(zip(est.node_ids_.tolist(), est.labels_.tolist()))
    assert fits["ids"] == fits[method]


def test_spectral_iterates_follow_the_node_ranks_not_the_blocks(client, tmp_path):
    # two filtered iterations, far from converged: the embedding still carries its start,
    # which is drawn by node rank, so the given order on 4 stored blocks, merged into one
    # per worker, and a METIS placement give each node id the same row (to rounding)
    import warnings

    from hyperclust.distributed import DistributedSpectralClustering

    pytest.importorskip("pymetis")
    hg = hypergraph_sbm(400, 3, homophily=0.6, random_state=6)
    rows = {}
    for place, per_worker in (("ids", None), ("ids", 1), ("metis", None)):
        phg = write_partitioned(hg, tmp_path / f"{place}{per_worker}", block_size=100,
                                placement=place)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # not converged, on purpose
            est = DistributedSpectralClustering(3, client=client, random_state=0, max_iter=2,
                                                tol=1e-14, blocks_per_worker=per_worker,
                                                row_normalize=False).fit(phg)
        assert est.n_iter_ == 2
        rows[place, per_worker] = est.embedding_[np.argsort(est.node_ids_)]
    residual = np.abs(rows["ids", None] - rows["ids", 1]).max()
    assert residual < 1e-10
    assert np.abs(rows["ids", None] - rows["metis", None]).max() < 1e-10


def _edge_files(tmp_path, hg, n_files=2):
    lines = [" ".join(f"v{v}" for v in e) for e in hg.edges()]
    files = []
    for i, chunk in enumerate(np.array_split(np.array(lines, dtype=object), n_files)):
        files.append(tmp_path / f"part{i}.txt")
        files[-1].write_text("".join(f"{ln}\n" for ln in chunk))
    return [str(f) for f in files]


def _read_labels(path):
    rows = [line.split(",") for line in path.read_text().split()[1:]]
    return {node: label for node, label in rows}


def test_cli_partition_placement_keeps_hypergraph_and_labels(tmp_path, client, capsys):
    # rcm (no dependency); metis goes through the same rewrite
    from hyperclust.cli import main
    from hyperclust.distributed import PartitionedHypergraph

    method = "rcm"
    hg = hypergraph_sbm(160, 2, homophily=0.9, n_edges=400, random_state=3)
    files = _edge_files(tmp_path, hg)
    labels = {}
    for place in ("ids", method):
        out = tmp_path / place
        assert main(["partition", *files, "--out", str(out), "--block-size", "40",
                     "--placement", place]) == 0
        assert f"placement {place}" in capsys.readouterr().out
        assert main(["cluster", str(out), "--scheduler", client.scheduler.address, "--k",
                     "2", "--out", str(tmp_path / f"{place}.csv"), "--quiet"]) == 0
        labels[place] = _read_labels(tmp_path / f"{place}.csv")
    ids, placed_phg = (PartitionedHypergraph(tmp_path / p) for p in ("ids", method))
    assert placed_phg.manifest["options"]["placement"] == method
    assert placed_phg.manifest["sources"] == ids.manifest["sources"]
    a, b = ids.to_hypergraph(), placed_phg.to_hypergraph()
    assert a.node_ids.tolist() != b.node_ids.tolist()
    assert sorted(sorted(a.node_ids[e].tolist()) for e in a.edges()) == \
        sorted(sorted(b.node_ids[e].tolist()) for e in b.edges())
    assert cut_statistics(b.incidence, placed_phg.block_bounds)["cut_share"] < \
        cut_statistics(a.incidence, ids.block_bounds)["cut_share"]
    assert labels["ids"] == labels[method]


def test_cli_placement_errors_are_one_line(tmp_path, monkeypatch, capsys):
    import sys

    from hyperclust.cli import main
    from hyperclust.distributed import PartitionedHypergraph, placed_partition

    files = _edge_files(tmp_path, hypergraph_sbm(60, 2, n_edges=80, random_state=0))
    monkeypatch.setitem(sys.modules, "pymetis", None)
    assert main(["partition", *files, "--out", str(tmp_path / "m"), "--block-size", "20",
                 "--placement", "metis"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hyperclust: error: placement 'metis' needs pymetis") \
        and err.count("\n") == 1
    assert not (tmp_path / "m").exists()  # refused before the build
    monkeypatch.setattr(placed_partition, "available_memory", lambda: 1000)
    assert main(["partition", *files, "--out", str(tmp_path / "r"), "--block-size", "20",
                 "--placement", "rcm"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hyperclust: error: placement 'rcm' needs the whole incidence") \
        and err.count("\n") == 1 and "holds the partition as numbered" in err
    assert PartitionedHypergraph(tmp_path / "r").node_ranks_path is None  # left as numbered


def test_placement_keeps_ahcka_labels(client, tmp_path):
    # AHCKA's seeds are the top-degree nodes, ties to the lower rank (the given position):
    # the RCM-placed partition starts from the same seeds and ends in the same labels
    from hyperclust.distributed import DistributedAHCKA

    hg = hypergraph_sbm(150, 3, homophily=0.8, random_state=6)
    degrees = hg.weighted_degrees
    assert np.sum(degrees == np.sort(degrees)[-3]) > 1  # the 3rd seed is a tie
    fits = {}
    for place in ("ids", "rcm"):
        phg = write_partitioned(hg, tmp_path / place, block_size=50, placement=place)
        est = DistributedAHCKA(3, client=client, max_iter=5).fit(phg)
        fits[place] = dict(zip(est.node_ids_.tolist(), est.labels_.tolist()))
    assert fits["ids"] == fits["rcm"]


def test_given_orders_find_the_same_nodes_and_hyperedges(client, tmp_path, monkeypatch):
    # batch index i reads the node (the hyperedge of >= 2 members) that is i-th in the
    # given numbering; the alignment sample draws the same nodes in the same order
    from hyperclust.distributed import alignment
    from hyperclust.distributed.alignment import sampled_connected_rows
    from hyperclust.distributed.batches import given_orders

    monkeypatch.setattr(alignment, "ALIGNMENT_ROWS", 40)
    hg = hypergraph_sbm(150, 3, homophily=0.8, edge_sizes=(1, 4), isolated_fraction=0.1,
                        random_state=8)
    assert (hg.edge_sizes == 1).any() and hg.isolated.any()
    seen = {}
    for place in ("ids", "rcm"):
        phg = write_partitioned(hg, tmp_path / place, block_size=50, placement=place)
        back = phg.to_hypergraph()
        nodes, edges = given_orders(phg)
        nodes = np.arange(back.n_nodes) if nodes is None else nodes
        multi = [e for e in back.edges() if e.size >= 2]
        edges = np.arange(len(multi)) if edges is None else edges
        sample = sampled_connected_rows(phg, client, random_state=3)
        seen[place] = (back.node_ids[nodes].tolist(),
                       [sorted(back.node_ids[multi[u]].tolist()) for u in edges],
                       back.node_ids[sample].tolist())
    assert len(seen["ids"][2]) == 40
    assert seen["ids"] == seen["rcm"]


def test_placement_keeps_unidhc_labels(client, tmp_path, monkeypatch):
    # the training batches and the alignment sample follow the node and hyperedge ranks,
    # the k-means sample the node ranks: the RCM-placed partition gives the same labels
    from hyperclust.distributed import DistributedUniDHC, alignment

    monkeypatch.setattr(alignment, "ALIGNMENT_ROWS", 60)
    hg = hypergraph_sbm(240, 3, homophily=0.8, n_features=6, random_state=9)
    fits = {}
    for place in ("ids", "rcm"):
        phg = write_partitioned(hg, tmp_path / place, block_size=60, placement=place)
        est = DistributedUniDHC(3, client=client, epochs=3, batch_size=32, sample_size=80,
                                random_state=0).fit(phg)
        fits[place] = dict(zip(est.node_ids_.tolist(), est.labels_.tolist()))
    assert fits["ids"] == fits["rcm"]
