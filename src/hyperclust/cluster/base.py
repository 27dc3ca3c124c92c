"""Shared behaviour of hyperclust's clustering estimators (scikit-learn style)."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from .._validation import is_int
from ..hypergraph import Hypergraph
from ..threads import limit_threads_in

__all__ = ["HypergraphClusterer", "check_hypergraph", "check_n_clusters"]


def check_hypergraph(hypergraph) -> Hypergraph:
    """The input of a ``fit``, checked: a :class:`~hyperclust.Hypergraph` with nodes.

    Parameters
    ----------
    hypergraph : object

    Returns
    -------
    Hypergraph
        ``hypergraph`` itself (a warning when every node is in no hyperedge).

    Raises
    ------
    TypeError
        Not a Hypergraph (e.g. a scipy incidence matrix).
    ValueError
        No nodes.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> check_hypergraph(hg) is hg
    True
    >>> check_hypergraph(hg.incidence)
    Traceback (most recent call last):
    ...
    TypeError: fit expects a hyperclust.Hypergraph, got csr_matrix
    """
    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"fit expects a hyperclust.Hypergraph, got {type(hypergraph).__name__}")
    if hypergraph.n_nodes == 0:
        raise ValueError("the hypergraph has no nodes")
    if hypergraph.isolated.all():
        warnings.warn(
            "every node is in no hyperedge: " + (
                "the clusters come from the node features alone"
                if hypergraph.features is not None else
                "with no structure and no features the clusters are arbitrary"),
            UserWarning, stacklevel=3)
    return hypergraph


def check_n_clusters(n_clusters, n_nodes: int) -> int:
    """``n_clusters`` as an int, checked against the number of nodes.

    Parameters
    ----------
    n_clusters : int
        Wanted clusters, ``1 <= n_clusters <= n_nodes``.
    n_nodes : int

    Returns
    -------
    int

    Examples
    --------
    >>> check_n_clusters(np.int64(2), 4)
    2
    >>> check_n_clusters(5, 4)
    Traceback (most recent call last):
    ...
    ValueError: n_clusters=5 exceeds the number of nodes (4)
    """
    if not is_int(n_clusters):
        raise TypeError(f"n_clusters must be an integer, got {n_clusters!r}")
    if n_clusters < 1:
        raise ValueError(f"n_clusters must be >= 1, got {n_clusters}")
    if n_clusters > n_nodes:
        raise ValueError(f"n_clusters={n_clusters} exceeds the number of nodes ({n_nodes})")
    return int(n_clusters)


class HypergraphClusterer(ClusterMixin, BaseEstimator):
    """Base class: subclasses implement ``fit(hypergraph)`` setting ``labels_`` (shape
    ``(n_nodes,)``) and ``embedding_`` (shape ``(n_nodes, d)``).

    Every subclass's ``fit`` runs under :func:`hyperclust.threads.thread_limit`: no more
    BLAS/OpenMP/torch threads than free cores (``$HYPERCLUST_NUM_THREADS`` overrides).

    Examples
    --------
    A minimal estimator: each connected component is a cluster.

    >>> class Components(HypergraphClusterer):
    ...     def fit(self, hypergraph, y=None):
    ...         hypergraph = check_hypergraph(hypergraph)
    ...         _, self.labels_ = hypergraph.connected_components()
    ...         self.embedding_ = np.eye(self.labels_.max() + 1)[self.labels_]
    ...         return self
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2], [3, 4]])
    >>> Components().fit_predict(hg).tolist()
    [0, 0, 0, 1, 1]
    >>> Components.fit.__thread_limited__  # fit runs under the thread policy
    True
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "__thread_limited__", False):
            cls.fit = limit_threads_in(fit)

    def fit(self, hypergraph, y=None):  # pragma: no cover - abstract
        raise NotImplementedError

    def fit_predict(self, hypergraph, y=None, **kwargs):
        """Fit on ``hypergraph`` and return ``labels_``, shape (n_nodes,).

        Examples
        --------
        >>> from hyperclust.cluster import SpectralHypergraphClustering
        >>> hg = Hypergraph.from_edges([[0, 1, 2], [0, 1], [3, 4, 5], [4, 5], [2, 3]])
        >>> labels = SpectralHypergraphClustering(2, random_state=0).fit_predict(hg)
        >>> len(set(labels[:3])), len(set(labels[3:])), bool(labels[0] != labels[3])
        (1, 1, True)
        """
        self.fit(hypergraph)
        return self.labels_

    @staticmethod
    def _rng_seed(random_state) -> int:
        if random_state is None:
            return int(np.random.SeedSequence().entropy % (2**31))
        if isinstance(random_state, numbers.Integral):
            return int(random_state)
        if isinstance(random_state, np.random.RandomState):
            return int(random_state.randint(0, 2**31 - 1))
        raise TypeError(f"random_state must be None or an int, got {random_state!r}")
