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


def test_encoder_blocks_follow_the_load_with_the_same_bits(monkeypatch):
    torch = __import__("pytest").importorskip("torch")
    import hyperclust.threads as threads
    from hyperclust.models.load_following import encode_in_blocks

    enc = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.PReLU(),
                              torch.nn.Linear(64, 16))
    Z = np.random.default_rng(0).normal(size=(12 * 1024, 16)).astype(np.float32)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        plain = encode_in_blocks(enc, Z, "cpu", 10 ** 6)  # one block: nothing followed
        seen = []
        monkeypatch.setattr(threads.OtherCpu, "read", lambda self, min_seconds=0.0: 1.0)
        monkeypatch.setattr(threads, "threads_beside",
                            lambda limit, other: seen.append(limit) or 1 + len(seen) % 2)
        followed = encode_in_blocks(enc, Z, "cpu", 1024)  # MIN_THREADED_ROWS
        assert len(seen) == 12  # every block asked, threads alternating 2, 1, 2, ...
        assert torch.get_num_threads() == 2  # restored
    finally:
        torch.set_num_threads(before)
    np.testing.assert_array_equal(followed, plain)


def test_a_few_rows_are_encoded_on_one_thread_whatever_torch_was_given():
    # 7 rows through a 6 -> 256 -> 6 encoder: torch split each row's sums between 2
    # threads, which gave other bits than one thread (the blocks below MIN_THREADED_ROWS
    # now run on one)
    torch = __import__("pytest").importorskip("torch")
    from hyperclust.models.load_following import encode_in_blocks
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
            outs.append(encode_in_blocks(enc, Z, "cpu", 4096))
            assert torch.get_num_threads() == n  # restored
    finally:
        torch.set_num_threads(before)
    np.testing.assert_array_equal(outs[0], outs[1])
