"""A cache-friendly numbering of nodes and hyperedges: reverse Cuthill-McKee on the bipartite
node-hyperedge graph, so a hyperedge's members get nearby numbers
(``benchmarks/studies/bench_node_order.py``; used by :mod:`hyperclust.cluster.node_order`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from .subhypergraphs import induced_subhypergraph

__all__ = ["cache_order", "reordered"]


def cache_order(incidence) -> tuple[np.ndarray, np.ndarray]:
    """``(node_order, edge_order)``: each side's positions in the reverse Cuthill-McKee sweep.

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 0], [0, 1]]))
    >>> nodes, edges = cache_order(H)
    >>> sorted(nodes.tolist()), H[nodes][:, edges].toarray().tolist()
    ([0, 1, 2, 3], [[1, 0], [1, 0], [0, 1], [0, 1]])
    """
    H = sp.csr_matrix(incidence)
    n, m = H.shape
    pattern = sp.csr_matrix((np.ones(H.nnz, dtype=np.int8), H.indices, H.indptr), shape=(n, m))
    bipartite = sp.bmat([[None, pattern], [pattern.T, None]], format="csr")
    sweep = reverse_cuthill_mckee(bipartite, symmetric_mode=True).astype(np.int64)
    return sweep[sweep < n], sweep[sweep >= n] - n


def reordered(hypergraph):
    """``(copy renumbered by cache_order, node_order)``: new position ``i`` is old ``node_order[i]``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([["a", "c"], ["b", "d"]])
    >>> new, order = reordered(hg)
    >>> new.node_ids.tolist() == hg.node_ids[order].tolist(), [len(e) for e in new.edges()]
    (True, [2, 2])
    """
    nodes, edges = cache_order(hypergraph.incidence)
    return induced_subhypergraph(hypergraph, nodes, keep_empty_edges=True,
                                 edge_order=edges), nodes
