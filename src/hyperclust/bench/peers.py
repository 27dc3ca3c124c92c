"""Spectral clustering from other hypergraph libraries, run as benchmark methods.

``peer-hypergraphx`` (HySC, Zhou et al. 2006), ``peer-xgi``
(``xgi.communities.spectral_clustering``), ``peer-hypernetx``
(``hypernetx.algorithms.clustering.laplacians_clustering.spec_clus``, Hayashi et al. 2020)
and ``peer-dhg`` (DHG's HGNN smoothing of the node features, twice, then k-means: the
peer of our ``hgnn`` baseline).
The libraries are optional (``pip install hyperclust[peers]``) and imported only when a
peer is fitted; a missing library makes the run ``unavailable``. Each peer receives the
hypergraph exactly as the protocol cut it and is scored on the same nodes as ours. Nodes a
peer leaves without a cluster get label ``-1`` (scored as wrong). Conversions to the peers'
objects loop over hyperedges in Python because their constructors take Python lists.
"""

from __future__ import annotations

import numpy as np

from ..cluster.base import HypergraphClusterer, check_hypergraph, check_n_clusters

__all__ = ["PEERS", "make_peer", "PeerSpectral"]

#: method name -> (importable module, pip package, description)
PEERS = {
    "peer-hypergraphx": ("hypergraphx", "hypergraphx",
                         "hypergraphx HySC: dense Zhou Laplacian, full eig, k-means"),
    "peer-xgi": ("xgi", "xgi", "XGI spectral_clustering: Zhou Laplacian, eigsh, own k-means"),
    "peer-hypernetx": ("hypernetx", "hypernetx",
                       "HyperNetX spec_clus: random-walk Laplacian (needs a connected hypergraph)"),
    "peer-dhg": ("dhg", "dhg", "DHG smoothing_with_HGNN applied twice to the features, k-means"),
}


def _import(method):
    import importlib

    from .worker import PeerUnavailable

    module, package, _ = PEERS[method]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise PeerUnavailable(
            f"{method} needs the optional package {package!r} (pip install {package}): {exc}"
        ) from exc


class PeerSpectral(HypergraphClusterer):
    """A peer library's hypergraph spectral clustering behind the estimator interface.

    Parameters
    ----------
    method : {"peer-hypergraphx", "peer-xgi", "peer-hypernetx", "peer-dhg"}
    n_clusters : int
    random_state : int
        Passed to the peer where it takes a seed (HyperNetX fixes its own seed 0).

    Attributes
    ----------
    labels_ : ndarray of int, shape (n_nodes,)
        Cluster per node; ``-1`` for nodes the peer did not assign.
    """

    def __init__(self, method="peer-xgi", n_clusters=2, random_state=0):
        self.method = method
        self.n_clusters = n_clusters
        self.random_state = random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        if self.method not in PEERS:
            raise ValueError(f"unknown peer {self.method!r}; use one of {sorted(PEERS)}")
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        seed = self._rng_seed(self.random_state)
        lib = _import(self.method)
        edges = [e.tolist() for e in hg.edges()]
        labels = np.full(hg.n_nodes, -1, dtype=np.int64)
        if self.method == "peer-hypergraphx":
            from hypergraphx.communities.hy_sc.model import HySC

            h = lib.Hypergraph(edge_list=[tuple(e) for e in edges], weighted=False)
            h.add_nodes(list(range(hg.n_nodes)))
            # The encoder sorts node ids, so rows of u follow 0..n-1.
            order = np.asarray(h.get_mapping().classes_, dtype=np.int64)
            u = np.asarray(HySC(seed=seed).fit(h, K=k))
            assigned = u.sum(axis=1) > 0
            labels[order[assigned]] = u[assigned].argmax(axis=1)
        elif self.method == "peer-xgi":
            h = lib.Hypergraph(edges)
            h.add_nodes_from(range(hg.n_nodes))
            clusters = lib.communities.spectral_clustering(h, k=k, seed=seed)
            nodes = np.fromiter(clusters.keys(), dtype=np.int64, count=len(clusters))
            labels[nodes] = np.fromiter(clusters.values(), dtype=np.int64, count=len(clusters))
        elif self.method == "peer-dhg":
            import scipy.sparse as sp
            import torch
            from sklearn.cluster import KMeans

            if hg.features is None:
                raise ValueError("peer-dhg smooths node features; this hypergraph has none")
            X = hg.features.toarray() if sp.issparse(hg.features) else np.asarray(hg.features)
            g = lib.Hypergraph(hg.n_nodes, [tuple(e) for e in edges])
            Z = torch.as_tensor(X, dtype=torch.float32)
            for _ in range(2):
                Z = g.smoothing_with_HGNN(Z)
            labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(
                np.nan_to_num(Z.numpy().astype(np.float64))).astype(np.int64)
        else:
            from hypernetx.algorithms.clustering.laplacians_clustering import spec_clus

            h = lib.Hypergraph({i: e for i, e in enumerate(edges)})
            clusters = spec_clus(h, k)
            for c, members in clusters.items():
                labels[np.asarray(list(members), dtype=np.int64)] = int(c)
        self.labels_ = labels
        return self


def make_peer(method: str, n_clusters: int, random_state=0) -> PeerSpectral:
    """The estimator for peer ``method`` (``ValueError`` if unknown).

    The peer library is imported here, so that its import time (seconds for some) is not
    counted in the fit time; a missing library raises ``PeerUnavailable``.
    """
    if method not in PEERS:
        raise ValueError(f"unknown peer {method!r}; use one of {sorted(PEERS)}")
    _import(method)
    if method == "peer-hypergraphx":
        import hypergraphx.communities.hy_sc.model  # noqa: F401
    elif method == "peer-hypernetx":
        import hypernetx.algorithms.clustering.laplacians_clustering  # noqa: F401
    return PeerSpectral(method=method, n_clusters=n_clusters, random_state=random_state)
