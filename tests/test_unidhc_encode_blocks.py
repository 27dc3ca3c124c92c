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
