"""Signed spectral clustering for heterophilic hyperedges: attribute neighbours attract,
hyperedge co-members repel (:class:`~hyperclust.operators.signed.SignedAffinity`)."""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import eigsh
from sklearn.preprocessing import normalize

from .._validation import Interval, Options
from ..operators.knn import KNN_METHODS, knn_affinity
from ..operators.signed import SignedAffinity
from .base import SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph, check_n_clusters
from .baselines import kmeans_labels

__all__ = ["SignedSpectralClustering"]


class SignedSpectralClustering(HypergraphClusterer):
    """k-means on the unit rows of the top eigenvectors of
    :class:`~hyperclust.operators.signed.SignedAffinity` ``N_q - repulsion * N_c``.

    For hyperedges that join less similar nodes than random pairs (``auto`` adds it there).
    Needs node features.

    Parameters
    ----------
    n_clusters : int
    n_neighbors : int, default 10
        ``K`` of the attribute kNN graph.
    repulsion : float, default 1.0
        Weight of the hyperedge term.
    knn_method : {"auto", "exact", "approximate"}, default "auto"
    n_init : int, default 10
        k-means restarts.
    random_state : int, default 0

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, n_clusters)
        Row-normalised eigenvectors.
    eigenvalues_ : ndarray, shape (n_clusters,)
        Largest eigenvalues of the signed affinity, descending.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.metrics import evaluate
    >>> hg = hypergraph_sbm(300, 3, homophily=0.0, n_features=8, feature_snr=1.0,
    ...                     random_state=0)
    >>> est = SignedSpectralClustering(3, random_state=0).fit(hg)
    >>> evaluate(hg.labels, est.labels_)["acc"] > 0.8
    True
    """

    _parameter_constraints = {**SHARED_CONSTRAINTS, "n_neighbors": [Interval(int, 1)],
                              "repulsion": [Interval(float, 0)],
                              "knn_method": [Options(KNN_METHODS)], "n_init": [Interval(int, 1)]}

    def __init__(self, n_clusters=2, *, n_neighbors=10, repulsion=1.0, knn_method="auto",
                 n_init=10, random_state=0):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.repulsion = repulsion
        self.knn_method = knn_method
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, hypergraph, y=None, *, affinity=None):
        """Cluster ``hypergraph``; ``affinity`` (n, n): a prebuilt symmetric attribute kNN
        affinity of its nodes (saves the search). Returns ``self``."""
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        if k >= hg.n_nodes:
            raise ValueError(f"signed spectral clustering needs n_clusters < n_nodes; got "
                             f"n_clusters={k} for {hg.n_nodes} nodes")
        seed = self._rng_seed(self.random_state)
        if affinity is None:
            if hg.features is None:
                raise ValueError("signed spectral clustering needs node features (its "
                                 "attraction is the attribute kNN graph); this hypergraph "
                                 "has none")
            affinity = knn_affinity(hg.features, int(self.n_neighbors),
                                    method=self.knn_method, random_state=seed)
        S = SignedAffinity(hg, affinity, repulsion=float(self.repulsion))
        v0 = np.random.default_rng(seed).uniform(0.5, 1.5, size=hg.n_nodes)
        values, vectors = eigsh(S, k=k, which="LA", v0=v0, tol=1e-8)
        order = np.argsort(-values)
        self.eigenvalues_ = values[order]
        self.embedding_ = normalize(vectors[:, order])
        self.labels_ = np.asarray(kmeans_labels(self.embedding_, k, int(self.n_init), seed),
                                  dtype=np.int64)
        return self
