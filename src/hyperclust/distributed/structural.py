"""The structural input of Uni-DHC (:func:`hyperclust.operators.eigensolvers.structural_features`)
on row blocks.
"""

from __future__ import annotations

import numpy as np

from ..operators.eigenbasis import canonical_rotation, probe_vectors
from ..operators.eigensolvers import structural_width
from ._tasks import RETRIES
from .eigen import top_eigenpairs
from .linalg import column_signs, combine
from .operator import normalized_affinity
from .partitioned import load_node_block

__all__ = ["structural_blocks"]


def _degree_sum(path):
    return float(load_node_block(path)[2].sum())


def _probe_product(V, first_row, width):
    """``V_b^T R_b`` of a row block starting at global row ``first_row``."""
    return V.T @ probe_vectors(np.arange(first_row, first_row + V.shape[0]), width)


def structural_blocks(phg, client, n_columns: int, random_state):
    """Row blocks of ``structural_features`` with ``n_columns``, float64.

    Parameters
    ----------
    phg : PartitionedHypergraph
    client : distributed.Client
    n_columns : int
    random_state : int
        Seed of the eigensolver's start block.

    Examples
    --------
    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.operators.eigensolvers import structural_features
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3], [6, 7],
    ...                             [8, 9], [5, 6]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=4)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     X = np.concatenate(c.gather(structural_blocks(phg, c, 3, 0)))
    >>> bool(np.allclose(X, structural_features(hg, 3), atol=1e-6))
    True
    """
    n = phg.n_nodes
    total = sum(client.gather([client.submit(_degree_sum, phg.block_path(b), retries=RETRIES)
                               for b in range(phg.n_blocks)]))
    tau = total / n if total > 0 else 1.0
    k = min(n_columns, n - 1)
    if k < 1:
        raise ValueError("the structural input needs at least 2 nodes")
    width = structural_width(k, n)
    # fewer extra columns and a higher degree than the defaults, and the column past the k
    # asked for (it only shows a repeated eigenvalue crossing the cut) to 1e-6: fewer products
    mu, V, _ = top_eigenpairs(normalized_affinity(phg, client, tau=tau), width, degree=16,
                              oversample=max(3, width // 3), random_state=random_state,
                              last_tol=1e-6 if width > k else None)
    products = client.gather([client.submit(_probe_product, v, int(lo), width, retries=RETRIES)
                              for v, lo in zip(V, phg.block_bounds[:-1])])
    T = canonical_rotation(mu, np.sum(products, axis=0), k)
    V = combine(client, V, T)
    # the single process's sign convention: the network is not sign-invariant
    scale = np.zeros((T.shape[1], n_columns))
    scale[:, :T.shape[1]] = np.diag(column_signs(client, V)) * np.sqrt(n)
    return combine(client, V, scale)
