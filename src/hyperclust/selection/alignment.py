"""Label-free heterophily test: are hyperedge members' attributes more alike than random pairs'?

With ``s_e`` the mean cosine similarity of the member pairs of hyperedge ``e`` and ``r`` that of
all node pairs, ``t = (mean_e s_e - r) / (std_e s_e / sqrt(m'))`` over the ``m'`` hyperedges with
two or more members; unrelated attributes give ``t ~ N(0, 1)``. Cost ``O(nnz(H) d)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ..operators.neighbors import _unit_rows

__all__ = ["AttributeAlignment", "attribute_alignment", "HETEROPHILY_T"]

#: ``t`` below which the hyperedges are taken to join dissimilar nodes (one-sided p ~ .001).
HETEROPHILY_T = -3.0


@dataclass(frozen=True)
class AttributeAlignment:
    """Result of :func:`attribute_alignment`.

    Attributes
    ----------
    within : float
        Mean over hyperedges of the mean cosine similarity of their member pairs.
    random : float
        Mean cosine similarity of all node pairs.
    t : float
        ``within - random`` in standard errors of ``within`` (``+-inf`` when all ``s_e`` agree).
    n_edges : int
        Hyperedges with at least two members.

    Examples
    --------
    >>> AttributeAlignment(within=0.3, random=0.1, t=5.0, n_edges=10).heterophilic
    False
    """

    within: float
    random: float
    t: float
    n_edges: int

    @property
    def heterophilic(self) -> bool:
        """Whether ``t < HETEROPHILY_T``: hyperedges join clearly less similar nodes."""
        return self.t < HETEROPHILY_T


def _row_sq_norms(M) -> np.ndarray:
    if sp.issparse(M):
        return np.asarray(M.multiply(M).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", M, M)


def attribute_alignment(hypergraph: Hypergraph) -> AttributeAlignment:
    """Compare the attribute similarity of hyperedge members with that of random pairs.

    Parameters
    ----------
    hypergraph : Hypergraph
        With node attributes ``features`` of shape (n_nodes, d), dense or sparse.

    Raises
    ------
    ValueError
        When the hypergraph has no node attributes.

    Examples
    --------
    >>> X = np.array([[1.0, 0], [1, 0], [0, 1], [0, 1]] * 5)     # two kinds of node
    >>> same = [[i, i + 1] for i in range(0, 20, 2)]             # pairs of one kind
    >>> mixed = [[i, i + 2] for i in range(0, 18, 4)] + [[i + 1, i + 2] for i in range(0, 18, 4)]
    >>> attribute_alignment(Hypergraph.from_edges(same, features=X)).within
    1.0
    >>> a = attribute_alignment(Hypergraph.from_edges(mixed, n_nodes=20, features=X))
    >>> a.within, round(a.random, 3), a.heterophilic
    (0.0, 0.474, True)
    """
    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"expected a Hypergraph, got {type(hypergraph).__name__}")
    if hypergraph.features is None:
        raise ValueError("attribute_alignment needs node attributes (features), and this "
                         "hypergraph has none")
    Xn = _unit_rows(hypergraph.features)
    n = Xn.shape[0]
    H = sp.csr_matrix(hypergraph.incidence, dtype=np.float64, copy=True)
    H.data = np.ones_like(H.data)
    sizes = np.asarray(H.sum(axis=0)).ravel()
    node_sq = _row_sq_norms(Xn)
    sums = H.T @ Xn                                   # (m, d): sum of members' attributes
    pair_sum = _row_sq_norms(sums) - H.T @ node_sq    # sum over ordered member pairs
    keep = sizes >= 2
    s = pair_sum[keep] / (sizes[keep] * (sizes[keep] - 1))
    total = np.asarray(Xn.sum(axis=0)).ravel()
    random = float((total @ total - node_sq.sum()) / max(n * (n - 1), 1))
    if s.size == 0:
        return AttributeAlignment(0.0, random, 0.0, 0)
    within = float(s.mean())
    se = float(s.std(ddof=1) / np.sqrt(s.size)) if s.size > 1 else 0.0
    diff = within - random
    if se > 0:
        t = diff / se
    else:  # every hyperedge alike: the sign is certain (or there is no difference)
        t = 0.0 if abs(diff) < 1e-12 else float(np.copysign(np.inf, diff))
    return AttributeAlignment(within, random, float(t), int(s.size))
