"""Exact cosine kNN of the node features over row blocks, and the symmetric kNN affinity per
row block: :func:`hyperclust.operators.neighbors.knn_affinity` (``method="exact"``) by
block pairs, the same neighbours (ties by a seeded rank) and the same affinity.
"""

from __future__ import annotations

import operator as _op

import numpy as np
import scipy.sparse as sp

from .._validation import check_int
from ..operators.neighbors import (_CHUNK_ENTRIES, _SPARSE_DENSITY, _unit_rows,
                                   exact_cosine_neighbors)
from ._tasks import RETRIES
from .partitioned import PartitionedHypergraph, load_feature_block

__all__ = ["knn_affinity_blocks"]


def _ranks(seed, n, start, stop):
    """Ranks of nodes ``start..stop-1`` in the permutation of :func:`cosine_knn`'s ties."""
    perm = np.random.default_rng(seed).permutation(n)
    rank = np.empty(n, dtype=np.int64)
    rank[perm] = np.arange(n)
    return rank[start:stop]


def _nonzeros(path):
    return int(np.count_nonzero(_unit_rows(load_feature_block(path))))


def _pair_neighbors(query_path, candidate_path, rank, k, backend):
    """First ``k`` candidates per query row in the order ``(-similarity, rank)``."""
    Xq = load_feature_block(query_path)
    nq = Xq.shape[0]
    order = np.argsort(rank, kind="stable")  # candidate positions in rank order
    if candidate_path is None:
        X, offset, same = Xq, 0, True
    else:
        X, offset, same = np.concatenate([Xq, load_feature_block(candidate_path)]), nq, False
    keep = min(k, order.size - same)
    # A product with one row or one column goes to BLAS gemv, which rounds differently from
    # the gemm of the single-process search (and a 1-ulp difference can break a tie the
    # other way): keep every product at least 2 x 2 by repeating a query or the candidate.
    candidates = offset + order
    if candidates.size == 1 and not same:
        candidates = np.repeat(candidates, 2)
    chunk = max(1, min(4096, _CHUNK_ENTRIES // candidates.size))  # the search's default
    queries = np.arange(nq)
    if nq % chunk == 1:
        queries = np.append(queries, nq - 1)
    idx, sim = exact_cosine_neighbors(X, k, queries=queries, candidates=candidates,
                                      exclude_self=same, tie_break="id", backend=backend,
                                      chunk_size=chunk)
    local = idx[:nq, :keep] - offset
    return local, sim[:nq, :keep], rank[local]


def _merge(k, starts, *pairs):
    """Per query, the first ``k`` of the pair lists: the block's ``S`` entries."""
    ids = np.concatenate([local + start for (local, _, _), start in zip(pairs, starts)], axis=1)
    sims = np.concatenate([p[1] for p in pairs], axis=1)
    ranks = np.concatenate([p[2] for p in pairs], axis=1)
    n_rows = ids.shape[0]
    top = np.lexsort((ranks, -sims), axis=1)[:, :k]
    cols = np.take_along_axis(ids, top, axis=1).ravel()
    w = np.maximum(np.take_along_axis(sims, top, axis=1).ravel(), 0.0)
    rows = np.repeat(np.arange(n_rows), top.shape[1])
    ok = w > 0
    return rows[ok], cols[ok], w[ok]


def _split_columns(entries, start, bounds):
    """``S_b`` entries by their column's row block, transposed."""
    rows, cols, w = entries
    block = np.searchsorted(bounds, cols, side="right") - 1
    order = np.argsort(block, kind="stable")
    cuts = np.searchsorted(block[order], np.arange(len(bounds)))
    rows, cols, w = rows[order] + start, cols[order], w[order]
    return [(cols[cuts[c]:cuts[c + 1]] - bounds[c], rows[cuts[c]:cuts[c + 1]],
             w[cuts[c]:cuts[c + 1]]) for c in range(len(bounds) - 1)]


def _affinity_rows(n_rows, n, entries, *transposed):
    """Rows of ``A = S + S^T`` for the block: CSR ``(n_b, n)``, global columns, sorted."""
    parts = [entries, *transposed]
    rows = np.concatenate([p[0] for p in parts])
    cols = np.concatenate([p[1] for p in parts])
    w = np.concatenate([p[2] for p in parts])
    A = sp.csr_matrix((w, (rows, cols)), shape=(n_rows, n))  # S[i, j] + S[j, i] summed
    A.eliminate_zeros()
    A.sort_indices()
    return A


def knn_affinity_blocks(partitioned, client, n_neighbors: int = 10, *, random_state=0):
    """Row blocks of the symmetrised cosine kNN affinity of the stored node features.

    Equal to ``knn_affinity(features, n_neighbors, method="exact", random_state=...)`` cut into
    the partition's row blocks.

    Parameters
    ----------
    partitioned : PartitionedHypergraph or path
        With node features.
    client : dask.distributed.Client
    n_neighbors : int, default 10
    random_state : int, default 0
        Seeds the choice among ties at the ``K``-th similarity.

    Returns
    -------
    list of futures
        One ``csr_matrix`` ``(n_b, n)`` per row block.

    Examples
    --------
    >>> import tempfile, numpy as np, scipy.sparse as sp, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.operators.neighbors import knn_affinity
    >>> X = np.random.default_rng(0).normal(size=(7, 3))
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4], [5, 6]], features=X)
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=3)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     A = sp.vstack(c.gather(knn_affinity_blocks(phg, c, 2)))
    >>> (A != knn_affinity(X, 2, method="exact")).nnz
    0
    """
    phg = partitioned if isinstance(partitioned, PartitionedHypergraph) \
        else PartitionedHypergraph(partitioned)
    if phg.n_features is None:
        raise ValueError(f"{phg.path} holds no node features (partition with features=)")
    k = check_int(n_neighbors, "n_neighbors", 1)
    seed = check_int(random_state, "random_state", 0)
    n, B, bounds = phg.n_nodes, phg.n_blocks, phg.block_bounds
    sub = lambda fn, *a: client.submit(fn, *a, retries=RETRIES, pure=False)  # noqa: E731
    paths = [phg.features_path(b) for b in range(B)]
    # the dense/sparse rule of exact_cosine_neighbors(backend="auto") on the whole matrix
    nonzeros = sum(client.gather([sub(_nonzeros, p) for p in paths]))
    size = max(1, n * phg.n_features)
    backend = "sparse" if nonzeros < _SPARSE_DENSITY * size else "dense"
    ranks = [sub(_ranks, seed, n, int(bounds[c]), int(bounds[c + 1])) for c in range(B)]
    kk = min(k, n - 1)
    starts = bounds[:-1].tolist()
    entries = [sub(_merge, kk, starts,
                   *[sub(_pair_neighbors, paths[b], None if c == b else paths[c], ranks[c], k,
                         backend) for c in range(B)])
               for b in range(B)]
    split = [sub(_split_columns, e, int(bounds[b]), bounds) for b, e in enumerate(entries)]
    return [sub(_affinity_rows, int(bounds[c + 1] - bounds[c]), n, entries[c],
                *[sub(_op.getitem, s, c) for s in split]) for c in range(B)]
