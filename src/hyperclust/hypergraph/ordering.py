"""A cache-friendly numbering of nodes and hyperedges.

A sparse product ``H^T X`` reads the rows of ``X`` named by each hyperedge's members; when
the members of a hyperedge, and of consecutive hyperedges, have nearby numbers, those rows
come from the caches instead of memory. Inputs are rarely numbered that way (a synthetic
block model shuffles its ids, real sets number nodes by name or arrival). Reverse
Cuthill-McKee on the bipartite node-hyperedge graph (scipy's
``reverse_cuthill_mckee``) numbers both sides along a breadth-first sweep, so neighbours
get close numbers.

Measured (``benchmarks/studies/bench_node_order.py``; CPU time, min of 5 interleaved runs,
one thread, float32, width 32, under load 14-19 on the 2-core machine): the SpMM pair
``H (H^T X)`` took 0.65x the given numbering's time on ``hypergraph_sbm`` at 10^5 nodes
(16.2 vs 25.0 ms), 0.74x at 10^6 (295 vs 401 ms), 0.44x on mag-10 (4.2 vs 9.3 ms), 0.63x
on dblp-ca, 0.98x on walmart-trips (already well numbered; numbering nodes by their first
hyperedge gave 0.83x there, but 0.86x at 10^6); the ordering costs 0.06 s CPU at 10^5 and
1.0 s at 10^6, the price of ~3 such products. Estimators whose fits it repays run on it
through :mod:`hyperclust.cluster.node_order` (outputs put back in the given order);
:func:`reordered` gives a renumbered copy whose ids, names, features and labels follow
their nodes.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from .subhypergraphs import induced_subhypergraph

__all__ = ["cache_order", "reordered"]


def cache_order(incidence) -> tuple[np.ndarray, np.ndarray]:
    """``(node_order, edge_order)``: reverse Cuthill-McKee on the bipartite graph of the
    incidence, each side's positions in sweep order.

    Parameters
    ----------
    incidence : sparse matrix, shape (n_nodes, n_edges)

    Returns
    -------
    node_order : ndarray of int64, shape (n_nodes,), a permutation
    edge_order : ndarray of int64, shape (n_edges,), a permutation

    Examples
    --------
    Two hyperedges over interleaved node numbers: each one's members become consecutive.

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
    """A copy of ``hypergraph`` renumbered by :func:`cache_order`, with its node order.

    Ids, names, features and labels follow their nodes and hyperedges; ``parent_positions``
    gives each new position's position in ``hypergraph``.

    Returns
    -------
    Hypergraph
    node_order : ndarray of int64, shape (n_nodes,)
        New position ``i`` is old position ``node_order[i]``.

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
