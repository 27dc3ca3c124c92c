"""Spectral clustering of other hypergraph libraries as benchmark methods (``peer-hypergraphx``,
``peer-xgi``, ``peer-hypernetx``, ``peer-dhg``), registered in
:data:`hyperclust.cluster.registry.METHODS`; docs/benchmarks.md says how they are run. Nodes
a peer leaves unassigned get ``-1`` (scored as wrong).
"""

from __future__ import annotations

import importlib

import numpy as np

from ..cluster.base import (SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph,
                            check_n_clusters)
from ..cluster.registry import MissingDependency

__all__ = ["PeerClusterer", "HySCPeer", "XGIPeer", "HyperNetXPeer", "DHGPeer", "make_peer"]


class PeerClusterer(HypergraphClusterer):
    """A peer library's clustering behind the estimator interface.

    Subclasses name their ``library`` and implement ``_assign(lib, hg, edges, k, seed, labels)``
    filling ``labels`` (``-1`` = unassigned); a missing library raises ``MissingDependency``.

    Parameters
    ----------
    n_clusters : int
    random_state : int
        Passed to the peer where it takes a seed.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> class ComponentsPeer(PeerClusterer):
    ...     library = "scipy.sparse.csgraph"
    ...     def _assign(self, lib, hg, edges, k, seed, labels):
    ...         return lib.connected_components(hg.incidence @ hg.incidence_t)[1]
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2], [3, 4]])
    >>> ComponentsPeer(n_clusters=2).fit(hg).labels_.tolist()
    [0, 0, 0, 1, 1]
    >>> class AbsentPeer(PeerClusterer):
    ...     library = "no_such_library"
    >>> AbsentPeer(2).fit(hg)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperclust.cluster.registry.MissingDependency: AbsentPeer needs the optional package 'no_such_library' (pip install no_such_library): ...
    """

    library = ""
    _parameter_constraints = SHARED_CONSTRAINTS

    def __init__(self, n_clusters=2, random_state=0):
        self.n_clusters = n_clusters
        self.random_state = random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        seed = self._rng_seed(self.random_state)
        try:
            lib = importlib.import_module(self.library)
        except ImportError as exc:
            raise MissingDependency(f"{type(self).__name__} needs the optional package "
                                    f"{self.library!r} (pip install {self.library}): {exc}"
                                    ) from exc
        edges = [e.tolist() for e in hg.edges()]
        labels = np.full(hg.n_nodes, -1, dtype=np.int64)
        self.labels_ = self._assign(lib, hg, edges, k, seed, labels)
        return self

    def _assign(self, lib, hg, edges, k, seed, labels):  # pragma: no cover - abstract
        raise NotImplementedError


class HySCPeer(PeerClusterer):
    """hypergraphx HySC: dense Zhou Laplacian, full eigendecomposition, k-means.

    Examples
    --------
    >>> HySCPeer(n_clusters=2, random_state=0).library
    'hypergraphx'
    """

    library = "hypergraphx"

    def _assign(self, lib, hg, edges, k, seed, labels):
        from hypergraphx.communities.hy_sc.model import HySC

        h = lib.Hypergraph(edge_list=[tuple(e) for e in edges], weighted=False)
        h.add_nodes(list(range(hg.n_nodes)))
        # The encoder sorts node ids, so rows of u follow 0..n-1.
        order = np.asarray(h.get_mapping().classes_, dtype=np.int64)
        u = np.asarray(HySC(seed=seed).fit(h, K=k))
        assigned = u.sum(axis=1) > 0
        labels[order[assigned]] = u[assigned].argmax(axis=1)
        return labels


class XGIPeer(PeerClusterer):
    """XGI ``spectral_clustering``: Zhou Laplacian, eigsh, its own k-means.

    Examples
    --------
    Two triangles joined by one hyperedge ``{2, 3}``:

    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [0, 1], [1, 2], [3, 4, 5], [3, 4], [4, 5],
    ...                             [2, 3]])
    >>> labels = XGIPeer(n_clusters=2, random_state=0).fit(hg).labels_
    >>> len(set(labels[:3])), len(set(labels[3:])), bool(labels[0] != labels[3])
    (1, 1, True)
    """

    library = "xgi"

    def _assign(self, lib, hg, edges, k, seed, labels):
        h = lib.Hypergraph(edges)
        h.add_nodes_from(range(hg.n_nodes))
        clusters = lib.communities.spectral_clustering(h, k=k, seed=seed)
        nodes = np.fromiter(clusters.keys(), dtype=np.int64, count=len(clusters))
        labels[nodes] = np.fromiter(clusters.values(), dtype=np.int64, count=len(clusters))
        return labels


class HyperNetXPeer(PeerClusterer):
    """HyperNetX ``spec_clus``: random-walk Laplacian (needs a connected hypergraph; fixes its own seed).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [0, 1], [1, 2], [3, 4, 5], [3, 4], [4, 5],
    ...                             [2, 3]])
    >>> labels = HyperNetXPeer(n_clusters=2, random_state=0).fit(hg).labels_
    >>> len(set(labels[:3])), len(set(labels[3:])), bool(labels[0] != labels[3])
    (1, 1, True)
    """

    library = "hypernetx"

    def _assign(self, lib, hg, edges, k, seed, labels):
        from hypernetx.algorithms.clustering.laplacians_clustering import spec_clus

        h = lib.Hypergraph({i: e for i, e in enumerate(edges)})
        for c, members in spec_clus(h, k).items():
            labels[np.asarray(list(members), dtype=np.int64)] = int(c)
        return labels


class DHGPeer(PeerClusterer):
    """DHG ``smoothing_with_HGNN`` applied twice to the node features, then k-means.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [0, 1], [1, 2], [3, 4, 5], [3, 4], [4, 5],
    ...                             [2, 3]], features=np.repeat(np.eye(2), 3, axis=0))
    >>> labels = DHGPeer(n_clusters=2, random_state=0).fit(hg).labels_
    >>> len(set(labels[:3])), len(set(labels[3:])), bool(labels[0] != labels[3])
    (1, 1, True)
    """

    library = "dhg"

    def _assign(self, lib, hg, edges, k, seed, labels):
        import scipy.sparse as sp
        import torch
        from sklearn.cluster import KMeans

        if hg.features is None:
            raise ValueError("peer-dhg smooths node features; this hypergraph has none")
        X = hg.features.toarray() if sp.issparse(hg.features) else np.asarray(hg.features)
        g = lib.Hypergraph(hg.n_nodes, [tuple(e) for e in edges])
        Z = torch.tensor(X, dtype=torch.float32)  # a copy: hg.features is read-only
        for _ in range(2):
            Z = g.smoothing_with_HGNN(Z)
        return KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(
            np.nan_to_num(Z.numpy().astype(np.float64))).astype(np.int64)


def make_peer(method: str, n_clusters: int, random_state=0) -> PeerClusterer:
    """The unfitted estimator for registered peer ``method``; ``ValueError`` for any other name.

    Examples
    --------
    >>> make_peer("peer-xgi", 3, random_state=1).get_params()
    {'n_clusters': 3, 'random_state': 1}
    """
    from ..cluster.registry import METHODS, make_estimator

    peers = sorted(name for name, m in METHODS.items() if m.peer)
    if method not in peers:
        raise ValueError(f"unknown peer {method!r}; use one of {peers}")
    return make_estimator(method, n_clusters, random_state=random_state)
