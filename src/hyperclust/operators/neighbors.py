"""Cosine nearest neighbours of node attributes (exact chunked search, or a faiss HNSW index
with exact re-ranking) and the symmetrised kNN affinity built on them.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import check_int
from .base import safe_inverse
from ._knn_cost import EXACT_MAX_NODES, exact_search_pays, pair_products
from ._rerank import refine
from ._rerank import rerank as _rerank
from ._topk import from_tie_grid, order_by_value, to_tie_grid, top_k_sorted

__all__ = ["EXACT_MAX_NODES", "KNN_METHODS", "exact_cosine_neighbors",
           "approximate_cosine_neighbors", "cosine_knn", "neighbor_affinity", "knn_affinity",
           "ann_available"]

KNN_METHODS = ("auto", "exact", "approximate")
_DENSIFY_LIMIT = 2 ** 25  # entries of a sparse feature matrix densified for the exact search
_SPARSE_DENSITY = 0.05    # inputs sparser than this are searched with sparse products
_CHUNK_ENTRIES = 2 ** 22  # entries of one (queries x candidates) similarity block
_ANN_MAX_DIM = 256        # sparse inputs wider than this are SVD-projected before the ANN index
_ANN_SVD_DIM = 128
_CANDIDATES = 2            # candidates re-ranked per neighbour wanted, index on the rows ...
_CANDIDATES_PROJECTED = 8  # ... and on an SVD projection (docs/results/knn_rerank.md)
_REFINE_PROJECTED = 1      # neighbours-of-neighbours rounds after it (same results file)
_ANN_DIM_MULTIPLE = 16    # columns of the ANN input: a multiple for faiss's SIMD distances


def _unit_rows(X):
    """Rows scaled to unit L2 norm (zero rows stay zero); dense or CSR float64."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        return (sp.diags(safe_inverse(norms)) @ X).tocsr()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)


def exact_cosine_neighbors(X, n_neighbors: int, *, queries=None, candidates=None,
                           exclude_self: bool = True, chunk_size: int | None = None,
                           backend: str = "auto", tie_break: str = "id", random_state=0):
    """Exact cosine nearest neighbours by chunked brute force.

    Inputs under 5% nonzeros use sparse products, others dense BLAS (``backend="auto"``).

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n, d)
    n_neighbors : int
        ``K``; clipped to the number of candidates (less the query itself when excluded).
    queries, candidates : ndarray of int, optional
        Rows whose neighbours are wanted / rows searched (default: all rows).
    exclude_self : bool, default True
    chunk_size : int, optional
        Queries per block (default: as many as fit 2^22 similarities).
    backend : {"auto", "dense", "sparse"}, default "auto"
    tie_break : {"id", "random", "partition"}, default "id"
        Which candidates tied with the ``K``-th similarity are kept: the lowest positions, the
        lowest ranks of a permutation seeded by ``random_state``, or ``np.argpartition``'s.
    random_state : int, default 0

    Returns
    -------
    indices : ndarray of int64, shape (q, K')
        Most similar first.
    similarities : ndarray of float64, shape (q, K')

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> idx, sim = exact_cosine_neighbors(X, 1)
    >>> idx.ravel().tolist()
    [1, 0, 3, 2]
    >>> bool(np.all(sim > 0.99))
    True
    """
    k = check_int(n_neighbors, "n_neighbors", 0)
    _check_choice(tie_break, "tie_break", ("id", "random", "partition"))
    _check_choice(backend, "backend", ("auto", "dense", "sparse"))
    Xn = _search_layout(_unit_rows(X), backend)
    queries, candidates, self_pos = _query_layout(X.shape[0], queries, candidates, exclude_self,
                                                  tie_break, random_state)
    n_excl = int(exclude_self and np.isin(queries, candidates).any())
    kk = max(0, min(k, candidates.size - n_excl))
    idx = np.empty((queries.size, kk), dtype=np.int64)
    sims = np.empty((queries.size, kk), dtype=np.float64)
    if kk == 0 or queries.size == 0:
        return idx, sims
    C = Xn[candidates]
    Ct = C.T.tocsr() if sp.issparse(C) else C.T
    if chunk_size is None:
        chunk_size = max(1, min(4096, _CHUNK_ENTRIES // max(1, candidates.size)))
    chunk_size = check_int(chunk_size, "chunk_size", 1)
    for start in range(0, queries.size, chunk_size):
        q = queries[start:start + chunk_size]
        sim = Xn[q] @ Ct
        sim = to_tie_grid(sim.toarray() if sp.issparse(sim) else np.asarray(sim))
        top = _block_top_k(sim, None if self_pos is None else self_pos[q], kk, tie_break)
        idx[start:start + q.size] = candidates[top]
        sims[start:start + q.size] = from_tie_grid(np.take_along_axis(sim, top, axis=1))
    return idx, sims


def _block_top_k(sim, self_pos, k, tie_break):
    """Top-``k`` columns of each row of ``sim``, most similar first; ``self_pos`` masked to -inf.
    """
    if self_pos is not None:
        rows = np.flatnonzero(self_pos >= 0)
        sim[rows, self_pos[rows]] = -np.inf
    if tie_break != "partition":
        return top_k_sorted(sim, k)
    if k < sim.shape[1]:
        return order_by_value(sim, np.argpartition(-sim, k - 1, axis=1)[:, :k])
    return order_by_value(sim, np.broadcast_to(np.arange(sim.shape[1]), sim.shape))


def _check_choice(value, name, options):
    if value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")


def _search_layout(Xn, backend):
    """Unit rows as dense or CSR, as ``backend`` (or :func:`sparse_products`) says."""
    if backend == "auto":
        backend = "sparse" if sparse_products(Xn) else "dense"
    if backend == "dense" and sp.issparse(Xn):
        return Xn.toarray()
    if backend == "sparse" and not sp.issparse(Xn):
        return sp.csr_matrix(Xn)
    return Xn


def sparse_products(X) -> bool:
    """Whether the exact search of ``X`` uses sparse products (under 5% nonzeros, or too big to densify).
    """
    size = max(1, X.shape[0] * X.shape[1])
    if sp.issparse(X):
        return bool(X.nnz < _SPARSE_DENSITY * size or size > _DENSIFY_LIMIT)
    return bool(np.count_nonzero(X) < _SPARSE_DENSITY * size)


def _query_layout(n, queries, candidates, exclude_self, tie_break, random_state):
    """Query ids, candidate ids in search order, and each node's candidate position (-1 absent;
    None when nothing is excluded).
    """
    queries = np.arange(n) if queries is None else np.asarray(queries, dtype=np.int64).reshape(-1)
    all_cand = candidates is None and tie_break != "random"
    candidates = np.arange(n) if candidates is None else \
        np.asarray(candidates, dtype=np.int64).reshape(-1)
    if tie_break == "random":
        candidates = candidates[np.random.default_rng(random_state).permutation(candidates.size)]
    if not exclude_self:
        return queries, candidates, None
    if all_cand:
        return queries, candidates, np.arange(n)
    self_pos = np.full(n, -1, dtype=np.int64)
    self_pos[candidates] = np.arange(candidates.size)
    return queries, candidates, self_pos


def ann_available() -> bool:
    """Whether the optional approximate-kNN backend (``faiss-cpu``) can be imported.

    Examples
    --------
    >>> ann_available() in (True, False)
    True
    """
    try:
        import faiss  # noqa: F401
    except ImportError:
        return False
    return True


def _ann_input(X, random_state):
    """Dense float32 unit rows for the index (wide sparse ones SVD-projected), zero-padded to a
    multiple of 16 columns, which faiss's SIMD distances need.
    """
    if _projected(X):
        from sklearn.decomposition import TruncatedSVD

        X = TruncatedSVD(n_components=_ANN_SVD_DIM, random_state=random_state).fit_transform(
            sp.csr_matrix(X, dtype=np.float64))
    elif sp.issparse(X):
        X = X.toarray()
    Xn = _unit_rows(np.asarray(X, dtype=np.float64))
    padded = np.zeros((Xn.shape[0], -(-Xn.shape[1] // _ANN_DIM_MULTIPLE) * _ANN_DIM_MULTIPLE),
                      dtype=np.float32)
    padded[:, :Xn.shape[1]] = Xn
    return padded


def _projected(X) -> bool:
    return bool(sp.issparse(X) and X.shape[1] > _ANN_MAX_DIM)


def approximate_cosine_neighbors(X, n_neighbors: int, *, random_state=0, hnsw_m: int = 32,
                                 ef_construction: int = 80, ef_search: int | None = None,
                                 n_candidates: int | None = None, tie_break: str = "id",
                                 refine_rounds: int | None = None):
    """Approximate cosine nearest neighbours: faiss HNSW candidates over 8-bit codes, re-ranked exactly.

    Every node is a query. Sparse inputs over 256 columns are SVD-projected to 128 dimensions for
    the index only. Deterministic and independent of the number of threads. See
    docs/results/knn.md and docs/results/knn_rerank.md.

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n, d)
    n_neighbors : int
        ``K``; clipped to ``n - 1``.
    random_state : int, default 0
        Seeds the SVD projection and ``tie_break="random"``.
    hnsw_m : int, default 32
        Links per node of the HNSW graph.
    ef_construction : int, default 80
    ef_search : int, optional
        Query beam width (default 96; at least ``n_candidates + 1``).
    n_candidates : int, optional
        Candidates re-ranked per node (default ``8 K`` if projected, else ``2 K``).
    tie_break : {"id", "random"}, default "id"
        As in :func:`exact_cosine_neighbors`, among the candidates.
    refine_rounds : int, optional
        Neighbours-of-neighbours rounds (default 1 if projected, else 0).

    Returns
    -------
    indices : ndarray of int64, shape (n, K)
        Most similar first; ``-1`` (similarity 0) where fewer than ``K`` were found.
    similarities : ndarray of float64, shape (n, K)

    Raises
    ------
    ImportError
        When ``faiss`` is not installed (``pip install hyperclust[ann]``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 8))
    >>> search = approximate_cosine_neighbors if ann_available() else exact_cosine_neighbors
    >>> idx, _ = search(X, 5)
    >>> exact, _ = exact_cosine_neighbors(X, 5)
    >>> bool(np.mean([len(set(a) & set(b)) / 5 for a, b in zip(idx, exact)]) > 0.9)
    True
    """
    k = _check_ann_params(n_neighbors, hnsw_m, ef_construction, ef_search, n_candidates,
                          tie_break, refine_rounds)
    n = X.shape[0]
    k = min(k, n - 1)
    if k < 1:
        return np.empty((n, 0), dtype=np.int64), np.empty((n, 0))
    projected = _projected(X)
    n_cand = min(n - 1, (_CANDIDATES_PROJECTED if projected else _CANDIDATES) * k
                 if n_candidates is None else int(n_candidates))
    ef = max(96 if ef_search is None else int(ef_search), n_cand + 1)
    cand = _hnsw_candidates(_ann_input(X, random_state), n_cand, int(hnsw_m),
                            int(ef_construction), ef)
    Xn = _unit_rows(X)
    out = _rerank(Xn, cand, k, tie_break, random_state)
    rounds = (_REFINE_PROJECTED if projected else 0) if refine_rounds is None else refine_rounds
    for _ in range(rounds):
        out = refine(Xn, out[0], k, tie_break, random_state)
    return out


def _check_ann_params(n_neighbors, hnsw_m, ef_construction, ef_search, n_candidates,
                      tie_break, refine_rounds=None) -> int:
    """``n_neighbors`` after checking the parameters and that faiss imports."""
    k = check_int(n_neighbors, "n_neighbors", 1)
    if refine_rounds is not None:
        check_int(refine_rounds, "refine_rounds", 0)
    check_int(hnsw_m, "hnsw_m", 2)
    check_int(ef_construction, "ef_construction", 1)
    if ef_search is not None:
        check_int(ef_search, "ef_search", 1)
    if n_candidates is not None:
        check_int(n_candidates, "n_candidates", k)
    _check_choice(tie_break, "tie_break", ("id", "random"))
    try:
        import faiss  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("approximate kNN needs the optional package faiss-cpu: "
                          "pip install 'hyperclust[ann]' (or use method='exact')") from exc
    return k


def _hnsw_candidates(Xf, n_cand, hnsw_m, ef_construction, ef_search):
    """``n_cand`` HNSW inner-product neighbours per row (built on one thread), shape (n, n_cand + 1),
    -1 for the row itself and missing results.
    """
    import faiss

    index = faiss.IndexHNSWSQ(Xf.shape[1], faiss.ScalarQuantizer.QT_8bit, hnsw_m,
                              faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)  # faiss's parallel build order varies run to run
    try:
        index.train(Xf)
        index.add(Xf)
    finally:
        faiss.omp_set_num_threads(threads)
    index.hnsw.efSearch = ef_search
    _, cand = index.search(Xf, n_cand + 1)
    cand = cand.astype(np.int64)
    cand[cand == np.arange(Xf.shape[0])[:, None]] = -1
    return cand


def cosine_knn(X, n_neighbors: int = 10, *, method: str = "auto",
               exact_max_nodes: int | None = None, random_state=0):
    """The ``n_neighbors`` most cosine-similar other nodes of every node.

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n, d)
    n_neighbors : int, default 10
    method : {"auto", "exact", "approximate"}
        ``"auto"``: exact while it costs less (:mod:`hyperclust.operators._knn_cost`) or without faiss.
    exact_max_nodes : int, optional
        With ``method="auto"``, search exactly up to this many nodes instead.
    random_state : int, default 0
        Seeds the choice among tied neighbours (``tie_break="random"``) and the projection.

    Returns
    -------
    indices : ndarray of int64, shape (n, K)
    similarities : ndarray of float64, shape (n, K)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> idx, sim = cosine_knn(X, 1)
    >>> idx.shape, idx[:, 0].tolist()
    ((4, 1), [1, 0, 3, 2])
    """
    if method not in KNN_METHODS:
        raise ValueError(f"method must be one of {KNN_METHODS}, got {method!r}")
    check_int(n_neighbors, "n_neighbors", 1)
    if exact_max_nodes is not None:
        check_int(exact_max_nodes, "exact_max_nodes", 0)
    n = X.shape[0]
    if n < 2:
        return np.empty((n, 0), dtype=np.int64), np.empty((n, 0))
    if _approximate_path(X, method, exact_max_nodes):
        return approximate_cosine_neighbors(X, n_neighbors, tie_break="random",
                                            random_state=random_state)
    return exact_cosine_neighbors(X, n_neighbors, tie_break="random", random_state=random_state)


def _approximate_path(X, method, exact_max_nodes=None):
    if method != "auto":
        return method == "approximate"
    return not _exact_in_auto(X, exact_max_nodes) and ann_available()


def _exact_in_auto(X, exact_max_nodes):
    if exact_max_nodes is not None:
        return X.shape[0] <= exact_max_nodes
    if not sparse_products(X):
        return exact_search_pays(X.shape[0], X.shape[1], False)
    return exact_search_pays(X.shape[0], X.shape[1], True, pair_products(X))


def knn_affinity(X, n_neighbors: int = 10, *, method: str = "auto",
                 exact_max_nodes: int | None = None, random_state=0) -> sp.csr_matrix:
    """Symmetrised cosine kNN graph ``A = S + S^T``, ``S[i, j] = max(cos(x_i, x_j), 0)`` for ``j``
    among the ``K`` nearest neighbours of ``i``.

    Parameters as in :func:`cosine_knn`. Returns a symmetric non-negative CSR matrix of shape
    (n, n) with zero diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> A = knn_affinity(X, 1)
    >>> A.shape, (A != A.T).nnz, A.diagonal().tolist()
    ((4, 4), 0, [0.0, 0.0, 0.0, 0.0])
    >>> A[0].indices.tolist(), A[1].indices.tolist()   # 0 and 1: each other's neighbour
    ([1], [0])
    """
    return neighbor_affinity(*cosine_knn(X, n_neighbors, method=method,
                                         exact_max_nodes=exact_max_nodes,
                                         random_state=random_state))


def neighbor_affinity(idx, sim) -> sp.csr_matrix:
    """``A = S + S^T`` of :func:`knn_affinity` from neighbour lists ``idx`` (-1 for none) and
    similarities ``sim``, both shape (n, K).

    Examples
    --------
    >>> ids, sims = np.array([[1], [-1]]), np.array([[0.5], [0.0]])
    >>> neighbor_affinity(ids, sims).toarray()
    array([[0. , 0.5],
           [0.5, 0. ]])
    """
    n = idx.shape[0]
    rows = np.repeat(np.arange(n), idx.shape[1])
    w = np.maximum(sim.ravel(), 0.0)
    cols = idx.ravel()
    ok = (w > 0) & (cols >= 0) & (cols != rows)
    S = sp.csr_matrix((w[ok], (rows[ok], cols[ok])), shape=(n, n))
    A = (S + S.T).tocsr()
    A.eliminate_zeros()
    A.sort_indices()
    return A
