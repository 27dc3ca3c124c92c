"""Which nodes share a row block: numberings ("ids", "rcm", "metis") that keep hyperedges
inside blocks (docs/distributed.md, "Placement").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["PLACEMENTS", "check_placement", "placement_order", "placed", "cut_statistics"]

PLACEMENTS = ("ids", "rcm", "metis")


def check_placement(method: str) -> None:
    """Raise ``ValueError`` for an unknown placement, ``ImportError`` for ``"metis"`` without pymetis.

    Examples
    --------
    >>> check_placement("rcm")
    >>> check_placement("kahypar")
    Traceback (most recent call last):
    ...
    ValueError: placement must be one of ('ids', 'rcm', 'metis'), got 'kahypar'
    """
    if method not in PLACEMENTS:
        raise ValueError(f"placement must be one of {PLACEMENTS}, got {method!r}")
    if method == "metis":
        try:
            import pymetis  # noqa: F401
        except ImportError:
            raise ImportError("placement 'metis' needs pymetis: pip install pymetis") from None


def _metis_parts(incidence, n_parts: int, seed: int) -> np.ndarray:
    """METIS part of each node of the bipartite graph split into ``n_parts``."""
    import pymetis

    H = sp.csr_matrix(incidence)
    n, m = H.shape
    pattern = sp.csr_matrix((np.ones(H.nnz, dtype=np.int8), H.indices, H.indptr), shape=(n, m))
    bipartite = sp.bmat([[None, pattern], [pattern.T, None]], format="csr")
    weights = np.concatenate([np.ones(n, np.int64), np.zeros(m, np.int64)])
    options = pymetis.Options(seed=int(seed))
    _, parts = pymetis.part_graph(n_parts, pymetis.CSRAdjacency(bipartite.indptr,
                                                                 bipartite.indices),
                                  vweights=weights, options=options)
    return np.asarray(parts, dtype=np.int64)[:n]


def _edges_by_first_member(incidence, node_order: np.ndarray) -> np.ndarray:
    """Hyperedges sorted by their first member's new position, empty ones last."""
    H = sp.csc_matrix(incidence)
    position = np.empty(H.shape[0], dtype=np.int64)
    position[node_order] = np.arange(H.shape[0])
    first = np.full(H.shape[1], H.shape[0], dtype=np.int64)
    sizes = np.diff(H.indptr)
    has = sizes > 0
    first[has] = np.minimum.reduceat(position[H.indices], H.indptr[:-1][has])
    return np.argsort(first, kind="stable")


def _spread_isolated(order: np.ndarray, connected: np.ndarray, block_size: int) -> np.ndarray:
    """``order`` with isolated nodes spread so each block gets its share of connected ones."""
    linked, alone = order[connected[order]], order[~connected[order]]
    n = order.size
    ends = np.minimum(np.arange(1, -(-n // block_size) + 1) * block_size, n)
    quota = np.rint(linked.size * ends / max(n, 1)).astype(np.int64)
    alone_ends = ends - quota
    starts_l = np.concatenate([[0], quota[:-1]])
    starts_a = np.concatenate([[0], alone_ends[:-1]])
    return np.concatenate([np.concatenate([linked[a:b], alone[c:d]]) for a, b, c, d in
                           zip(starts_l, quota, starts_a, alone_ends)])


def placement_order(incidence, block_size: int, method: str = "rcm",
                    random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(node_order, edge_order)``: the numbering of ``method`` for row blocks of ``block_size``.

    Parameters
    ----------
    incidence : sparse matrix, shape (n_nodes, n_edges)
    block_size : int
    method : {"ids", "rcm", "metis"}, default "rcm"
    random_state : int, default 0
        METIS's seed.

    Returns
    -------
    node_order : ndarray of int64, shape (n_nodes,)
        New position ``i`` is old position ``node_order[i]``.
    edge_order : ndarray of int64, shape (n_edges,)

    Examples
    --------
    Two hyperedges over interleaved nodes: each one's members become one block.

    >>> H = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 0], [0, 1]]))
    >>> nodes, edges = placement_order(H, 2, "rcm")
    >>> H[nodes][:, edges].toarray().tolist()
    [[1, 0], [1, 0], [0, 1], [0, 1]]
    """
    check_placement(method)
    n = incidence.shape[0]
    n_blocks = -(-n // block_size)
    if method == "ids" or n_blocks <= 1:
        return np.arange(n, dtype=np.int64), np.arange(incidence.shape[1], dtype=np.int64)
    H = sp.csr_matrix(incidence)
    connected = np.diff(H.indptr) > 0
    if not connected.any():
        return np.arange(n, dtype=np.int64), np.arange(incidence.shape[1], dtype=np.int64)
    if method == "rcm":
        from ..hypergraph.ordering import cache_order

        nodes = cache_order(H)[0]
    else:  # parts balanced over the connected nodes: the others are spread after
        linked = np.flatnonzero(connected)
        parts = _metis_parts(H[linked], n_blocks, random_state)
        nodes = np.concatenate([linked[np.argsort(parts, kind="stable")],
                                np.flatnonzero(~connected)])
    nodes = _spread_isolated(nodes, connected, block_size)
    return nodes, _edges_by_first_member(incidence, nodes)


def placed(hypergraph, block_size: int, method: str = "rcm", random_state: int = 0):
    """``(copy renumbered by placement_order, node order, hyperedge order)``; everything follows.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 2], [1, 3]])
    >>> new, order, edge_order = placed(hg, 2)
    >>> new.node_ids.tolist(), [e.tolist() for e in new.edges()]
    ([3, 1, 2, 0], [[0, 1], [2, 3]])
    """
    from ..hypergraph.subhypergraphs import induced_subhypergraph

    nodes, edges = placement_order(hypergraph.incidence, block_size, method, random_state)
    return induced_subhypergraph(hypergraph, nodes, keep_empty_edges=True,
                                 edge_order=edges), nodes, edges


def cut_statistics(incidence, block_bounds) -> dict:
    """How much a cut of the nodes into row blocks makes the blocks exchange.

    Parameters
    ----------
    incidence : sparse matrix, shape (n_nodes, n_edges)
    block_bounds : array of int, shape (n_blocks + 1,)

    Returns
    -------
    dict
        ``cut_share``, ``touched_per_edge`` (``sum_b |E_b| / m``), ``halo_edges_mean`` /
        ``_max``, ``halo_nodes_mean`` / ``_max``, ``block_pairs``, ``nnz_imbalance``
        (docs/distributed.md, "Placement").

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1], [0, 1]]))
    >>> s = cut_statistics(H, [0, 2, 4])
    >>> s["cut_share"], s["touched_per_edge"], s["halo_nodes_max"]
    (0.5, 1.5, 0.5)
    """
    H = sp.csr_matrix(incidence)
    H = sp.csr_matrix((np.ones(H.nnz), H.indices, H.indptr), shape=H.shape)
    bounds = np.asarray(block_bounds, dtype=np.int64)
    n, m = H.shape
    n_blocks = bounds.size - 1
    block_of = np.repeat(np.arange(n_blocks), np.diff(bounds))
    # touched[b, e]: block b has a member of hyperedge e
    touched = sp.csr_matrix((np.ones(n), (block_of, np.arange(n))),
                            shape=(n_blocks, n)) @ H
    touched.data[:] = 1
    spans = np.asarray(touched.sum(axis=0)).ravel()
    used = max(int((spans > 0).sum()), 1)
    cut = spans > 1
    halo_edges = np.asarray(touched[:, cut].sum(axis=1)).ravel() / max(m, 1)
    reach = sp.csr_matrix(touched @ H.T)
    row = np.repeat(np.arange(n_blocks), np.diff(reach.indptr))
    outside = (reach.indices < bounds[row]) | (reach.indices >= bounds[row + 1])
    halo_nodes = np.bincount(row[outside], minlength=n_blocks) / max(n, 1)
    edge_part = np.minimum(np.arange(m) * n_blocks // max(m, 1), n_blocks - 1)
    pairs = touched @ sp.csr_matrix((np.ones(m), (np.arange(m), edge_part)),
                                    shape=(m, n_blocks))
    block_nnz = np.bincount(block_of, weights=np.diff(H.indptr), minlength=n_blocks)
    mean_nnz = max(H.nnz / n_blocks, 1)
    return {"cut_share": float(cut.sum() / used),
            "touched_per_edge": float(spans.sum() / used),
            "halo_edges_mean": float(halo_edges.mean()), "halo_edges_max": float(halo_edges.max()),
            "halo_nodes_mean": float(halo_nodes.mean()), "halo_nodes_max": float(halo_nodes.max()),
            "block_pairs": int(pairs.nnz), "nnz_imbalance": float(block_nnz.max() / mean_nnz)}
