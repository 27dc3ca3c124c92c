"""Uni-DHC's embedding is encoded in row blocks (bounded memory): the result is the one of
a single pass over all rows."""

from __future__ import annotations

import numpy as np

import hyperclust.cluster.unidhc as unidhc
from hyperclust.datasets.synthetic import hypergraph_sbm


def test_blocked_encoding_equals_one_pass(monkeypatch):
    hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=8, random_state=0)
    fits = []
    for rows in (10 ** 6, 7):
        monkeypatch.setattr(unidhc, "ENCODE_ROWS", rows)
        fits.append(unidhc.UniDHC(3, epochs=2, hidden_dim=16, random_state=0).fit(hg))
    np.testing.assert_allclose(fits[0].embedding_, fits[1].embedding_, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)
    assert fits[1].embedding_.dtype == np.float32


def test_a_few_rows_are_encoded_on_one_thread_whatever_torch_was_given():
    # 7 rows through a 6 -> 256 -> 6 encoder: torch split each row's sums between 2
    # threads, which gave other bits than one thread (the blocks below MIN_THREADED_ROWS
    # now run on one)
    torch = __import__("pytest").importorskip("torch")
    from types import SimpleNamespace

    from hyperclust.models.unidhc import ResidualEncoder

    torch.manual_seed(0)
    enc = ResidualEncoder(6, hidden_dim=256)
    with torch.no_grad():
        enc.correction[2].weight.normal_()
    Z = np.random.default_rng(0).normal(size=(7, 6)).astype(np.float32)
    before = torch.get_num_threads()
    outs = []
    try:
        for n in (1, 2):
            torch.set_num_threads(n)
            outs.append(unidhc.UniDHC(3)._encode(SimpleNamespace(encoder=enc), Z))
            assert torch.get_num_threads() == n  # restored
    finally:
        torch.set_num_threads(before)
    np.testing.assert_array_equal(outs[0], outs[1])
