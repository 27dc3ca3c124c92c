"""Fits on a cache-friendly node numbering, invisible to users.

Sparse products read the rows of ``X`` named by each hyperedge; on a numbering where
hyperedges have nearby members those rows come from the caches
(:mod:`hyperclust.hypergraph.ordering`). An estimator that declares its per-node outputs
(``_node_outputs``) is fitted, from :data:`MIN_INCIDENCES` incidences on and where its
``_cache_order_pays(hypergraph)`` agrees, on a copy renumbered by reverse Cuthill-McKee;
its per-node outputs are then put back in the given order, so ``labels_[i]`` is still the
cluster of node ``i`` with id ``node_ids_[i]``. The seeded parts (eigensolver starts,
k-means centres) are drawn per position, so such a fit is the same clustering up to the
seeds' effect, not bit-identical to one on the given numbering.

Where it pays, measured (``benchmarks/studies/bench_fit_order.py``: ``hypergraph_sbm(n, 4,
homophily=0.7)``, structure only, one thread, CPU min of 3 interleaved fits, machine under
load 13-19 unless said): ``hgnn`` and Uni-DHC on their structural input, whose block
eigensolver dominates (10^5 nodes: hgnn 6.78 vs 9.12 s, 0.74x; Uni-DHC 8.56 vs 9.27 s,
0.92x; the ordering and copy cost 0.07 s); AHCKA from 2^21 incidences (10^6 nodes, load
1-2: 39.1 vs 43.0 s, 0.91x, ordering and copy 1.15 s included, 85 iterations instead of 90;
its walk product is 0.82x at 10^5 and 10^6, but at 10^5 the renumbered fit ran 95
iterations instead of 75: 3.65 vs 3.12 s). Not opted in: ``spectral-zhou`` (width-1
Lanczos products: 10^6 nodes 6.17 vs 6.40 s before the ordering's ~1.2 s; 10^5 no gain),
feature inputs of hgnn and Uni-DHC (few products at the features' width; Uni-DHC at 10^6
with 32 features 21.7 vs 17.8 s, one run each).
"""

from __future__ import annotations

import numpy as np

from ..hypergraph import Hypergraph
from ..hypergraph.ordering import cache_order

__all__ = ["MIN_INCIDENCES", "fit_in_cache_order", "restore_node_order", "given_positions",
           "pays_on_structural_input", "pays_from_incidences"]

#: Incidences from which a declaring estimator fits on the reverse Cuthill-McKee numbering
#: (where its ``_cache_order_pays`` agrees). The ordering and the renumbered copy cost
#: ~0.08 s CPU at 4e5 incidences and ~1.2 s at 4e6; below ~10^5 incidences the data stays
#: in the caches and nothing measured gained (``benchmarks/studies/bench_fit_order.py``).
MIN_INCIDENCES = 2**18


def wants_cache_order(estimator, hypergraph, kwargs) -> bool:
    """Whether ``estimator`` fits ``hypergraph`` on the cache-friendly numbering: it
    declares per-node outputs, the input is a large enough Hypergraph, no prebuilt per-node
    argument (``walk=``) was passed in the given numbering, and the estimator's
    ``_cache_order_pays(hypergraph)``, where it has one, says its sparse products dominate
    on this input."""
    pays = getattr(estimator, "_cache_order_pays", None)
    return (bool(getattr(type(estimator), "_node_outputs", ()))
            and isinstance(hypergraph, Hypergraph)
            and hypergraph.incidence.nnz >= MIN_INCIDENCES
            and not any(v is not None for v in kwargs.values())
            and (pays is None or pays(hypergraph)))


def pays_on_structural_input(estimator, hypergraph) -> bool:
    """``_cache_order_pays`` of the estimators with an ``input`` parameter (``hgnn``,
    Uni-DHC): their structural input's block eigensolver repays the renumbering, a features
    input does not (see the module docstring).

    Examples
    --------
    >>> class Est:
    ...     input = "auto"
    >>> pays_on_structural_input(Est(), Hypergraph.from_edges([[0, 1]]))
    True
    """
    return estimator.input == "structural" or (estimator.input == "auto"
                                               and hypergraph.features is None)


def pays_from_incidences(min_incidences: int):
    """A ``_cache_order_pays`` true from ``min_incidences`` incidences on (an estimator whose
    own crossover lies above :data:`MIN_INCIDENCES`).

    Examples
    --------
    >>> pays = pays_from_incidences(3)
    >>> pays(None, Hypergraph.from_edges([[0, 1]])), pays(None, Hypergraph.from_edges([[0, 1, 2]]))
    (False, True)
    """
    def pays(estimator, hypergraph) -> bool:
        return hypergraph.incidence.nnz >= min_incidences

    return pays


def fit_in_cache_order(fit, estimator, hypergraph, rest, kwargs):
    """Run ``fit(estimator, renumbered, *rest, **kwargs)`` and restore the node order of
    the outputs; returns what ``fit`` returned.

    Examples
    --------
    A fit whose output is each node's own feature gives it back in the given order:

    >>> def fit(est, hg):
    ...     est.labels_ = hg.features[:, 0].copy()
    ...     return est
    >>> class Est:
    ...     _node_outputs = ("labels_",)
    >>> hg = Hypergraph.from_edges([[0, 2], [1, 3]], features=np.arange(4.0).reshape(4, 1))
    >>> fit_in_cache_order(fit, Est(), hg, (), {}).labels_.tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    node_order, edge_order = cache_order(hypergraph.incidence)
    estimator._given_positions = node_order
    try:
        out = fit(estimator, fitting_copy(hypergraph, node_order, edge_order), *rest, **kwargs)
    finally:
        del estimator._given_positions
    restore_node_order(estimator, node_order, hypergraph)
    return out


def given_positions(estimator, n_nodes: int) -> np.ndarray:
    """Each node's position in the hypergraph the user gave, for the fit now running.

    A choice that breaks ties by position (e.g. AHCKA's highest-degree seeds) reads it, so
    that a fit on the cache-friendly numbering makes the choice the given numbering would.

    Parameters
    ----------
    estimator : HypergraphClusterer
        The estimator being fitted.
    n_nodes : int
        Nodes of the hypergraph it is fitted on.

    Returns
    -------
    ndarray of int64, shape (n_nodes,)
        ``arange(n_nodes)`` on a fit in the given order; on a fit in cache order, position
        ``i`` of the renumbered copy is given position ``positions[i]``.

    Examples
    --------
    >>> class Est:
    ...     _node_outputs = ()
    >>> given_positions(Est(), 3).tolist()
    [0, 1, 2]
    >>> def fit(est, hg):
    ...     est.seen = given_positions(est, hg.n_nodes)
    ...     return est
    >>> hg = Hypergraph.from_edges([[0, 3], [1, 2], [2, 3]])
    >>> order, _ = cache_order(hg.incidence)
    >>> bool((fit_in_cache_order(fit, Est(), hg, (), {}).seen == order).all())
    True
    """
    positions = getattr(estimator, "_given_positions", None)
    if positions is None or positions.size != n_nodes:
        return np.arange(n_nodes)
    return positions


def fitting_copy(hypergraph, node_order, edge_order) -> Hypergraph:
    """What a fit reads of ``hypergraph`` (incidence, weights, features), renumbered: node
    ``i`` is ``hypergraph``'s node ``node_order[i]``, hyperedge ``j`` its ``edge_order[j]``.

    Ids, names and labels stay behind: the wrapper restores the given order and ids, labels
    never reach a fit, and checking ids a permutation keeps distinct was most of the cost of
    a full renumbered copy (:func:`~hyperclust.hypergraph.ordering.reordered`).

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["a", "c"], ["b", "c"]], labels=[0, 1, 1],
    ...                            node_ids=["a", "b", "c"])
    >>> copy = fitting_copy(hg, np.array([2, 0, 1]), np.array([1, 0]))
    >>> [e.tolist() for e in copy.edges()], copy.labels is None, copy.node_ids.tolist()
    ([[0, 2], [0, 1]], True, [0, 1, 2])
    """
    H = hypergraph.incidence[node_order][:, edge_order]
    features = hypergraph.features
    return Hypergraph(H, weights=hypergraph.weights[edge_order],
                      features=None if features is None else features[node_order],
                      name=hypergraph.name)


def restore_node_order(estimator, node_order, hypergraph) -> None:
    """Put the estimator's declared per-node outputs (``_node_outputs``) back in the order
    of ``hypergraph``.

    Parameters
    ----------
    estimator : HypergraphClusterer
        Fitted on the renumbered copy.
    node_order : ndarray of int64, shape (n_nodes,)
        Position ``i`` of the copy is position ``node_order[i]`` of ``hypergraph``.
    hypergraph : Hypergraph
        The given input (a mixed walk output is rebuilt on it).

    Examples
    --------
    >>> class Fitted:
    ...     _node_outputs = ("labels_", "candidate_labels_")
    >>> est = Fitted()
    >>> est.labels_, est.candidate_labels_ = np.array([7, 8, 9]), {"a": np.array([0, 1, 2])}
    >>> restore_node_order(est, np.array([2, 0, 1]), None)
    >>> est.labels_.tolist(), est.candidate_labels_["a"].tolist()
    ([8, 9, 7], [1, 2, 0])
    """
    inverse = np.empty_like(node_order)
    inverse[node_order] = np.arange(node_order.size)
    for name in type(estimator)._node_outputs:
        value = getattr(estimator, name, None)
        if value is not None:
            setattr(estimator, name, _in_given_order(value, inverse, hypergraph))


def _in_given_order(value, inverse, hypergraph):
    """One output in the given node order: arrays by rows, dicts and lists item by item, a
    mixed walk rebuilt on the given hypergraph with its kNN graph renumbered."""
    from ..operators.knn import MixedWalk

    if isinstance(value, np.ndarray):
        return value[inverse]
    if isinstance(value, dict):
        return {key: _in_given_order(v, inverse, hypergraph) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_in_given_order(v, inverse, hypergraph) for v in value)
    if isinstance(value, MixedWalk):
        knn = value.knn_affinity
        knn = None if knn is None else knn[inverse][:, inverse].tocsr()
        return MixedWalk(hypergraph, knn, beta=value.beta, self_loops=value.self_loops)
    raise TypeError(f"cannot restore the node order of a {type(value).__name__}")
