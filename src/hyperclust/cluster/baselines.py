"""Classical baselines: k-means on node features, and HGNN smoothing followed by k-means."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import normalize

from .._validation import Interval, Options, check_parameter
from ..operators import propagation
from ..operators.propagation import PropagationOperator
from ..operators.subspace import stop_tolerance
from .base import SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph, check_n_clusters
from .node_order import pays_on_structural_input
from .rounding import kmeans_labels

__all__ = ["KMeansFeatures", "HGNNSmoothingKMeans", "kmeans_labels", "node_input",
           "reduce_features", "structural_dim"]


STRUCTURAL_MAX_DIM = 32

#: What the node-input parameters accept (the estimators' tables and the helpers below).
INPUT = [Options(("auto", "features", "structural"))]
N_COMPONENTS = [Interval(int, 1), "auto", None]
N_STRUCTURAL = [Interval(int, 1), "auto"]


_REDUCTIONS = contextvars.ContextVar("hyperclust_reductions", default=None)


@contextlib.contextmanager
def shared_reductions():
    """Within the block, :func:`reduce_features` and :func:`node_input`'s structural input
    are computed once per input, width and seed (``auto``'s candidates share them)."""
    token = _REDUCTIONS.set({})
    try:
        yield
    finally:
        _REDUCTIONS.reset(token)


def reduce_features(X, n_components, random_state):
    """Project ``X`` (n_nodes, d) to ``n_components`` columns with a seeded truncated SVD
    (``"auto"``: 128 when ``d > 256``); ``X`` itself when no projection is made.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 300))
    >>> reduce_features(X, "auto", 0).shape, reduce_features(X, 5, 0).shape
    ((200, 128), (200, 5))
    """
    cache = _REDUCTIONS.get()
    if cache is None:
        return _reduce_features(X, n_components, random_state)
    key = (id(X), repr(n_components), random_state)
    if key not in cache:
        cache[key] = (X, _reduce_features(X, n_components, random_state))  # X kept alive
    return cache[key][1]


def _reduce_features(X, n_components, random_state):
    d = X.shape[1]
    if n_components == "auto":
        n_components = 128 if d > 256 else None
    if n_components is None or n_components >= d:
        return X
    n_components = int(check_parameter("n_components", n_components, N_COMPONENTS))
    svd = TruncatedSVD(n_components=n_components, random_state=random_state)
    return svd.fit_transform(X)


def structural_dim(n_structural, n_clusters: int) -> int:
    """Number of spectral columns of the structural input; ``"auto"``: ``2 * n_clusters``
    clipped to ``[4, 32]``.

    Examples
    --------
    >>> structural_dim("auto", 2), structural_dim("auto", 7), structural_dim("auto", 40)
    (4, 14, 32)
    """
    if check_parameter("n_structural", n_structural, N_STRUCTURAL) == "auto":
        return int(min(STRUCTURAL_MAX_DIM, 2 * max(2, n_clusters)))
    return int(n_structural)


def node_input(hypergraph, input: str, random_state: int,
               n_components_structural: int = STRUCTURAL_MAX_DIM):
    """``(X, kind)``: a method's node input, the features (``kind="features"``) or, with
    ``input="structural"`` or ``"auto"`` without features, a spectral embedding with
    ``n_components_structural`` columns
    (:func:`hyperclust.operators.eigensolvers.structural_features`).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [5, 0]])
    >>> X, kind = node_input(hg, "auto", 0, n_components_structural=2)
    >>> X.shape, kind
    ((6, 2), 'structural')
    """
    check_parameter("input", input, INPUT)
    if input == "features" or (input == "auto" and hypergraph.features is not None):
        if hypergraph.features is None:
            raise ValueError("this hypergraph has no node features; use input='structural' "
                             "or a structure-only method such as spectral clustering")
        return hypergraph.features, "features"
    return _structural_input(hypergraph, n_components_structural, random_state), "structural"


def _structural_input(hypergraph, n_components, random_state):
    """``structural_features``, cached inside :func:`shared_reductions` (a copy each)."""
    from ..operators.eigensolvers import structural_features

    cache = _REDUCTIONS.get()
    if cache is None:
        return structural_features(hypergraph, n_components, random_state)
    key = ("structural", _content_digest(hypergraph), int(n_components), random_state,
           stop_tolerance())
    if key not in cache:
        cache[key] = structural_features(hypergraph, n_components, random_state)
    return cache[key].copy()


def _content_digest(hypergraph) -> str:
    """A digest of the incidence and weights (equal copies are distinct objects)."""
    H = hypergraph.incidence
    digest = hashlib.blake2b(repr(H.shape).encode(), digest_size=16)
    for array in (H.indptr, H.indices, H.data, hypergraph.weights):
        array = np.ascontiguousarray(array)
        digest.update(array.dtype.str.encode())
        digest.update(array.view(np.uint8))
    return digest.hexdigest()


class _EmbeddingKMeans(HypergraphClusterer):
    """Shared last step: optional row normalisation, then seeded k-means."""

    def _cluster(self, Z, k: int, seed: int):
        if self.normalize_rows:
            Z = normalize(Z)
        self.embedding_ = Z.toarray() if sp.issparse(Z) else np.asarray(Z)
        self.labels_ = kmeans_labels(self.embedding_, k, self.n_init, seed)
        return self


class KMeansFeatures(_EmbeddingKMeans):
    """k-means on node features (the hyperedges are ignored).

    Parameters
    ----------
    n_clusters : int
    n_components : int, "auto" or None, default "auto"
        Truncated-SVD projection before k-means (sparse features stay sparse until then).
    normalize_rows : bool, default True
        L2-normalise each node's row before k-means.
    n_init : int, default 10
    random_state : int, default 0

    Attributes
    ----------
    labels_ : ndarray of shape (n_nodes,)
    embedding_ : ndarray of shape (n_nodes, d)

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [2, 3]], features=[[0, 1], [0, 1.1], [1, 0], [1.1, 0]])
    >>> KMeansFeatures(2, random_state=0).fit_predict(hg).tolist()
    [1, 1, 0, 0]
    """

    _parameter_constraints = {**SHARED_CONSTRAINTS, "n_components": N_COMPONENTS,
                              "normalize_rows": [bool], "n_init": [Interval(int, 1)]}

    def __init__(self, n_clusters=2, *, n_components="auto", normalize_rows=True, n_init=10,
                 random_state=0):
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.normalize_rows = normalize_rows
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        if hg.features is None:
            raise ValueError("KMeansFeatures needs node features, and this hypergraph has none; "
                             "use 'hgnn' (structural input) or a spectral method")
        seed = self._rng_seed(self.random_state)
        Z = reduce_features(hg.features, self.n_components, seed)
        return self._cluster(Z, k, seed)


class HGNNSmoothingKMeans(_EmbeddingKMeans):
    """k-means on HGNN-smoothed features ``P^K X``, ``P = Dv^-1/2 (H W De^-1 H^T + s I)
    Dv^-1/2`` applied in factored form in float32.

    Parameters
    ----------
    n_clusters : int
    n_hops : int, default 2
        The power ``K``.
    self_loops : float, default 1.0
        Self-loop weight ``s``: isolated nodes keep their own features.
    input : {"auto", "features", "structural"}, default "auto"
        Node input; see :func:`node_input`.
    n_structural : int or "auto", default "auto"
        Columns of the structural input (:func:`structural_dim`).
    n_components : int, "auto" or None, default "auto"
        Truncated-SVD projection of the input before smoothing.
    normalize_rows : bool, default True
    n_init : int, default 10
    knn_beta : float in [0, 1], default 0.0
        ``> 0`` (with node features): smooth with the mixed walk ``(1 - beta) P_rw + beta Q``
        (:class:`~hyperclust.operators.knn.MixedWalk`) instead of ``P``.
    knn_neighbors : int, default 10
        ``K`` of the kNN graph when ``knn_beta > 0``.
    random_state : int, default 0

    Attributes
    ----------
    labels_ : ndarray of shape (n_nodes,)
    embedding_ : ndarray of shape (n_nodes, d)
    input_kind_ : str

    Examples
    --------
    >>> from hyperclust.datasets.synthetic import hypergraph_sbm
    >>> hg = hypergraph_sbm(200, 2, homophily=0.9, n_features=8, random_state=0)
    >>> est = HGNNSmoothingKMeans(2, random_state=0).fit(hg)
    >>> est.labels_.shape, est.embedding_.shape, est.input_kind_
    ((200,), (200, 8), 'features')
    """

    #: Per-node outputs (:mod:`hyperclust.cluster.node_order`).
    _node_outputs = ("labels_", "embedding_")
    _cache_order_pays = pays_on_structural_input

    _parameter_constraints = {
        **KMeansFeatures._parameter_constraints,
        "n_hops": [Interval(int, 0)],
        "self_loops": [Interval(float, 0)],
        "input": INPUT,
        "n_structural": N_STRUCTURAL,
        "knn_beta": [Interval(float, 0, 1)],
        "knn_neighbors": [Interval(int, 1)],
    }

    def __init__(self, n_clusters=2, *, n_hops=2, self_loops=1.0, input="auto",
                 n_structural="auto", n_components="auto", normalize_rows=True, n_init=10,
                 knn_beta=0.0, knn_neighbors=10, random_state=0):
        self.n_clusters = n_clusters
        self.n_hops = n_hops
        self.self_loops = self_loops
        self.input = input
        self.n_structural = n_structural
        self.n_components = n_components
        self.normalize_rows = normalize_rows
        self.n_init = n_init
        self.knn_beta = knn_beta
        self.knn_neighbors = knn_neighbors
        self.random_state = random_state

    def fit(self, hypergraph, y=None, *, walk=None):
        """Cluster the nodes of ``hypergraph``; ``walk``: a prebuilt
        :class:`~hyperclust.operators.knn.MixedWalk` used when ``knn_beta > 0``."""
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        beta = float(self.knn_beta)
        n_structural = structural_dim(self.n_structural, k)
        seed = self._rng_seed(self.random_state)
        X, self.input_kind_ = node_input(hg, self.input, seed, n_structural)
        X = reduce_features(X, self.n_components, seed)
        if beta > 0 and hg.features is not None:
            if walk is None:
                from ..operators.knn import MixedWalk, knn_affinity

                walk = MixedWalk(hg, knn_affinity(hg.features, int(self.knn_neighbors),
                                                  random_state=seed),
                                 beta=float(beta), self_loops=self.self_loops)
            elif walk.shape != (hg.n_nodes, hg.n_nodes):
                raise ValueError(f"walk has shape {walk.shape}, expected {(hg.n_nodes,) * 2}")
            Z = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
            for _ in range(int(self.n_hops)):
                Z = np.asarray(walk @ Z)
        else:
            # float32 propagation (propagation.BASIS_DTYPE): docs/results/bench/dtype_settings.md
            P = PropagationOperator(hg, self_loops=self.self_loops,
                                    dtype=propagation.BASIS_DTYPE)
            Z = P.apply_power(X, self.n_hops)
        return self._cluster(Z, k, seed)
