"""The distributed Uni-DHC's cheaper pieces against what they replace: the numpy encoder
against torch's, the hyperedge means of the drawn hyperedges against all of them, the
drawn hyperedges against a training's reads, k-means block sums against ``np.add.at``, and
merged blocks against the stored ones."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
torch = pytest.importorskip("torch")

from sklearn.metrics import adjusted_rand_score  # noqa: E402

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import DistributedUniDHC, write_partitioned  # noqa: E402
from hyperclust.distributed.basis import (read_power_basis, sampled_hyperedge_means,  # noqa: E402
                                          usable_edge_counts, write_power_basis)
from hyperclust.distributed.batches import BasisFileBatches  # noqa: E402
from hyperclust.distributed.kmeans import _stats  # noqa: E402
from hyperclust.distributed.operator import propagation  # noqa: E402
from hyperclust.distributed.unidhc_blocks import _prelu, embed_block, encode  # noqa: E402
from hyperclust.models.unidhc import (ArrayBatches, ResidualEncoder, drawn_hyperedges,  # noqa: E402
                                      hyperedge_basis_means, planned_draws, train_on_batches)


@pytest.mark.parametrize("slope", [0.25, 0.0, 1.0, 1.7, -0.3])
def test_prelu_is_leaky_relu_bit_for_bit(slope):
    h = np.random.default_rng(0).normal(size=(300, 40)).astype(np.float32)
    h[0, :4] = 0.0
    ref = torch.nn.functional.leaky_relu(torch.as_tensor(h), slope).numpy()
    _prelu(h, np.float32(slope), np.empty_like(h))
    np.testing.assert_array_equal(h, ref)


def test_numpy_encoder_equals_the_torch_encoder():
    torch.manual_seed(0)
    enc = ResidualEncoder(6, hidden_dim=32)
    with torch.no_grad():  # a trained-looking encoder: every weight non-zero, slope moved
        for p in enc.parameters():
            p.add_(0.3 * torch.randn_like(p))
    Z = np.random.default_rng(1).normal(size=(5000, 6)).astype(np.float32)  # > ENCODE_ROWS
    with torch.no_grad():
        ref = enc(torch.as_tensor(Z)).numpy()
    weights = {k: v.numpy() for k, v in enc.state_dict().items()}
    got = encode(Z, weights)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_embed_block_is_the_single_process_arithmetic(tmp_path):
    B = np.random.default_rng(2).normal(size=(3, 50, 4)).astype(np.float32)
    B[:, 7] = 0.0  # a zero row stays zero
    np.save(tmp_path / "b.npy", B)
    gamma = np.array([0.2, 0.5, 0.3])
    out = embed_block(str(tmp_path / "b.npy"), gamma, None, False)
    Z = np.tensordot(gamma.astype(np.float32), B, axes=1)
    from sklearn.preprocessing import normalize

    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, normalize(Z))


def test_drawn_hyperedges_are_the_ones_a_training_reads():
    basis = np.random.default_rng(0).normal(size=(2, 700, 3)).astype(np.float32)
    hg = hypergraph_sbm(700, 3, random_state=1)
    source = ArrayBatches(basis, hg.incidence, "cpu")
    read = []
    edges = source.edges
    source.edges = lambda idx: (read.append(np.asarray(idx)), edges(idx))[1]
    kw = dict(epochs=3, batch_size=64, decorrelation_weight=0.1, random_state=4)
    net, history = train_on_batches(source, [1.0, 0.0], hidden_dim=4, **kw)
    draws = planned_draws(source.n_nodes, source.n_edges, **kw)
    drawn = drawn_hyperedges(draws)
    np.testing.assert_array_equal(drawn, np.unique(np.concatenate(read)))
    np.testing.assert_array_equal(np.concatenate(read), np.concatenate(
        [eb for epoch in draws for _, eb in epoch]))  # the same steps in the same order
    assert drawn_hyperedges(planned_draws(700, source.n_edges,
                                          decorrelation_weight=0.0)).size == 0
    # trained on the batches drawn beforehand: the same network, bit for bit
    net2, history2 = train_on_batches(ArrayBatches(basis, hg.incidence, "cpu"), [1.0, 0.0],
                                      hidden_dim=4, draws=draws, **kw)
    assert [h["total"] for h in history2] == [h["total"] for h in history]
    for a, b in zip(net.state_dict().values(), net2.state_dict().values()):
        assert torch.equal(a, b)
    with pytest.raises(ValueError, match="epochs"):
        train_on_batches(source, [1.0, 0.0], hidden_dim=4, draws=draws[:2], **kw)


def test_sampled_means_equal_the_rows_of_all_means(tmp_path, client):
    # one-member hyperedges (not usable), a partition none of the wanted ones is in
    hg = Hypergraph.from_edges([[0, 1, 2], [3], [2, 3, 4], [5, 6], [7], [1, 6, 7], [4, 5],
                                [0, 7]], n_nodes=9)
    phg = write_partitioned(hg, tmp_path / "parts", block_size=3, edge_block_size=3)
    P = propagation(phg, client)
    X = np.random.default_rng(0).normal(size=(9, 2))
    files, rows = write_power_basis(P, X, 2, tmp_path / "basis", return_rows=True)
    counts = usable_edge_counts(phg, client)
    assert counts.tolist() == [2, 2, 2]
    usable = np.flatnonzero(hg.edge_sizes >= 2)
    ref = hyperedge_basis_means(read_power_basis(tmp_path / "basis"), hg.incidence)[:, usable]
    wanted = np.array([0, 1, 4, 5])  # nothing of the middle partition
    got = sampled_hyperedge_means(phg, client, rows, counts, wanted, 3)
    assert got.shape == (3, 4, 2) and got.dtype == np.float32
    np.testing.assert_allclose(got, ref[:, wanted], rtol=0, atol=1e-6)
    none = sampled_hyperedge_means(phg, client, rows, counts, np.zeros(0, np.int64), 3)
    assert none.shape == (3, 0, 2)
    src = BasisFileBatches(tmp_path / "basis", "cpu", sampled_means=(6, wanted, got))
    assert src.n_edges == 6
    np.testing.assert_array_equal(src.edges(np.array([5, 0]))[:, 0].numpy(), got[:, 3])
    with pytest.raises(ValueError, match="outside the sampled means"):
        src.edges(np.array([2]))


def test_kmeans_block_sums_are_those_of_add_at():
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32):
        X = rng.normal(size=(20_000, 6)).astype(dtype)
        centers = X[:4].astype(np.float64)
        sums, counts, inertia = (a[0] for a in _stats(X, centers[None]))
        labels = np.argmin(((X[:, None, :] - centers.astype(dtype)[None]) ** 2).sum(axis=2),
                           axis=1)
        ref = np.zeros((4, 6))
        np.add.at(ref, labels, X)
        np.testing.assert_array_equal(counts, np.bincount(labels, minlength=4))
        np.testing.assert_allclose(sums, ref, rtol=1e-12)
        d2 = ((X - centers.astype(dtype)[labels]) ** 2).sum(axis=1, dtype=np.float64)
        assert inertia == pytest.approx(d2.sum(), rel=1e-5)


def test_merged_blocks_give_the_stored_blocks_labels(client):
    hg = hypergraph_sbm(600, 3, homophily=0.85, n_features=8, random_state=1)
    kw = dict(epochs=3, hidden_dim=16, batch_size=64, random_state=0, block_size=100,
              client=client)
    merged = DistributedUniDHC(3, **kw).fit(hg)
    stored = DistributedUniDHC(3, blocks_per_worker=None, **kw).fit(hg)
    assert (merged.n_blocks_, stored.n_blocks_) == (2, 6)
    assert merged.embedding_.dtype == np.float32
    np.testing.assert_allclose(merged.coefficients_, stored.coefficients_, atol=1e-6)
    assert adjusted_rand_score(merged.labels_, stored.labels_) > 0.99


def test_a_fit_without_the_decorrelation_draws_no_hyperedge(client):
    hg = hypergraph_sbm(200, 2, n_features=4, random_state=0)
    est = DistributedUniDHC(2, epochs=2, hidden_dim=8, decorrelation_weight=0.0,
                            block_size=100, client=client, random_state=0).fit(hg)
    assert est.labels_.shape == (200,)
    assert all(h["decorrelation"] == 0.0 for h in est.loss_history_)
