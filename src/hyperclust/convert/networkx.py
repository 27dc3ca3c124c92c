"""Converters for networkx bipartite (star) graphs."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ._common import (_build, _cluster_labels, _feature_rows, _features_from, _id_array,
                      _labels_from, _require)

__all__ = ["to_networkx", "from_networkx", "NODE_SIDE"]

#: Graph attribute naming the ``bipartite`` value of the node vertices.
NODE_SIDE = "node_side"


def to_networkx(hg: Hypergraph, *, clusters=None, id_attr: str = "id", weight: str = "weight",
                label: str = "label", features: str = "features", cluster: str = "cluster"):
    """Convert a Hypergraph into its bipartite star graph (``networkx.Graph``).

    Vertices ``0..n-1`` are the nodes (``bipartite=0``), ``n..n+m-1`` the hyperedges
    (``bipartite=1``), as in ``xgi.to_bipartite_graph``; ``G.graph["node_side"]`` is 0.

    Parameters
    ----------
    hg : Hypergraph
    clusters : array-like of shape (n_nodes,) or a fitted estimator, optional
        Written as the node-vertex attribute ``cluster``.
    id_attr : str, default "id"
        Vertex attribute holding the node or hyperedge id.
    weight : str, default "weight"
        Hyperedge-vertex attribute holding the weight.
    label, features, cluster : str
        Node-vertex attribute names.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]])
    >>> G = to_networkx(hg)
    >>> G.number_of_nodes(), G.number_of_edges(), G.nodes[3], G.graph
    (5, 4, {'bipartite': 1, 'id': 0, 'weight': 1.0}, {'node_side': 0})
    """
    nx = _require("networkx", "to_networkx")
    n, m = hg.shape
    G = nx.Graph(name=hg.name) if hg.name is not None else nx.Graph()
    G.graph[NODE_SIDE] = 0
    G.add_nodes_from(range(n), bipartite=0)
    G.add_nodes_from(range(n, n + m), bipartite=1)
    nx.set_node_attributes(G, dict(zip(range(n), hg.node_ids.tolist())), id_attr)
    nx.set_node_attributes(G, dict(zip(range(n, n + m), hg.edge_ids.tolist())), id_attr)
    nx.set_node_attributes(G, dict(zip(range(n, n + m), hg.weights.tolist())), weight)
    if hg.labels is not None:
        nx.set_node_attributes(G, dict(zip(range(n), hg.labels.tolist())), label)
    if hg.features is not None:
        nx.set_node_attributes(G, dict(zip(range(n), _feature_rows(hg.features))), features)
    labels = _cluster_labels(hg, clusters)
    if labels is not None:
        nx.set_node_attributes(G, dict(zip(range(n), labels.tolist())), cluster)
    coo = hg.incidence.tocoo()
    G.add_edges_from(zip(coo.row.tolist(), (coo.col + n).tolist()))
    return G


def _node_side(G, node_side) -> int:
    """``node_side``, else ``G.graph["node_side"]``; refused when neither says it."""
    if node_side is None:
        node_side = G.graph.get(NODE_SIDE)
        if node_side is None:
            raise ValueError(
                "which bipartite side are the nodes? Pass node_side=0 (XGI's "
                "to_bipartite_graph) or node_side=1 (HyperNetX's H.bipartite()) to "
                "from_networkx, or set G.graph['node_side']")
    if node_side not in (0, 1):
        raise ValueError(f"node_side must be 0 or 1, got {node_side!r}")
    return node_side


def from_networkx(G, *, node_side=None, id_attr: str = "id", weight: str = "weight",
                  label: str = "label", features: str = "features", name=None,
                  **options) -> Hypergraph:
    """Convert a bipartite star graph (``networkx.Graph``) into a Hypergraph.

    Vertices whose ``bipartite`` attribute equals ``node_side`` are the nodes, the others the
    hyperedges; libraries disagree on the side, so a graph that does not say it is refused.

    Parameters
    ----------
    G : networkx.Graph (or DiGraph, MultiGraph)
    node_side : {0, 1}, optional
        Default ``G.graph["node_side"]``.
    id_attr : str, default "id"
        Vertex attribute holding the id (where a side lacks it, the vertex keys).
    weight, label, features : str
        Attributes of hyperedge vertices (weight) and node vertices (label, features).
    name : str, optional
        Default ``G.graph["name"]``.
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph()
    >>> G.add_nodes_from(["ana", "bo", "cy"], bipartite=0)
    >>> G.add_nodes_from(["e1", "e2"], bipartite=1)
    >>> G.add_edges_from([("ana", "e1"), ("bo", "e1"), ("bo", "e2"), ("cy", "e2")])
    >>> hg = from_networkx(G, node_side=0)
    >>> hg.shape, hg.edge_ids.tolist()
    ((3, 2), ['e1', 'e2'])
    """
    nx = _require("networkx", "from_networkx")
    if not isinstance(G, nx.Graph):
        raise TypeError(f"from_networkx expects a networkx graph, got {type(G).__name__}")
    node_side = _node_side(G, node_side)
    vertices = list(G)
    # networkx keeps vertex attributes in per-vertex dicts: read them through its iterator.
    sides = [s for _, s in G.nodes(data="bipartite")]
    bad = next((i for i, s in enumerate(sides) if s not in (0, 1)), None)
    if bad is not None:
        raise ValueError(f"vertex {vertices[bad]!r} has bipartite={sides[bad]!r}; every vertex "
                         "needs bipartite=0 or 1 (nodes and hyperedges)")
    is_node = np.asarray(sides) == node_side
    A = nx.to_scipy_sparse_array(G, nodelist=vertices, weight=None, format="csr")
    A = sp.csr_matrix(A)
    if G.is_directed():
        A = A + A.T
    nodes_at, edges_at = np.flatnonzero(is_node), np.flatnonzero(~is_node)
    if A[nodes_at][:, nodes_at].nnz or A[edges_at][:, edges_at].nnz:
        raise ValueError("the graph is not bipartite between its bipartite=0 and bipartite=1 "
                         "vertices")
    B = A[nodes_at][:, edges_at].tocoo()

    def side_ids(at):
        keys = [vertices[i] for i in at]
        given = [G.nodes[v].get(id_attr) for v in keys]
        return _id_array(given if all(g is not None for g in given) else keys)

    node_ids, edge_ids = side_ids(nodes_at), side_ids(edges_at)
    node_keys = [vertices[i] for i in nodes_at]
    w_raw = [G.nodes[vertices[i]].get(weight) for i in edges_at]
    w = None if all(v is None for v in w_raw) else np.asarray(
        [1.0 if v is None else v for v in w_raw], dtype=np.float64)
    y = _labels_from([G.nodes[v].get(label) for v in node_keys], node_ids.tolist(), label)
    X = _features_from([G.nodes[v].get(features) for v in node_keys], node_ids.tolist(),
                       features)
    if name is None:
        name = G.graph.get("name") or None
    return _build(node_ids, edge_ids, B.row, B.col, weights=w, features=X, labels=y,
                  name=name, **options)
