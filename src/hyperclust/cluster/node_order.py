"""Fits on a cache-friendly node numbering, invisible to users.

An estimator that declares its per-node outputs (``_node_outputs``) is fitted, from
:data:`MIN_INCIDENCES` incidences on and where its ``_cache_order_pays(hypergraph)`` agrees,
on a copy renumbered by reverse Cuthill-McKee (:mod:`hyperclust.hypergraph.ordering`); its
per-node outputs are put back in the given order. Seeded parts are drawn per position, so
such a fit equals one on the given numbering up to the seeds' effect. Timings:
``benchmarks/studies/bench_fit_order.py``.
"""

from __future__ import annotations

import numpy as np

from ..hypergraph import Hypergraph
from ..hypergraph.ordering import cache_order

__all__ = ["MIN_INCIDENCES", "fit_in_cache_order", "restore_node_order", "given_positions",
           "pays_on_structural_input", "pays_from_incidences"]

#: Incidences from which a declaring estimator fits on the reverse Cuthill-McKee numbering.
MIN_INCIDENCES = 2**18


def wants_cache_order(estimator, hypergraph, kwargs) -> bool:
    """Whether ``estimator`` fits ``hypergraph`` on the cache-friendly numbering (no
    prebuilt per-node argument such as ``walk=`` passed)."""
    pays = getattr(estimator, "_cache_order_pays", None)
    return (bool(getattr(type(estimator), "_node_outputs", ()))
            and isinstance(hypergraph, Hypergraph)
            and hypergraph.incidence.nnz >= MIN_INCIDENCES
            and not any(v is not None for v in kwargs.values())
            and (pays is None or pays(hypergraph)))


def pays_on_structural_input(estimator, hypergraph) -> bool:
    """``_cache_order_pays`` of the estimators with an ``input`` parameter: true on the
    structural input, whose block eigensolver repays the renumbering.

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
    """A ``_cache_order_pays`` true from ``min_incidences`` incidences on.

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
    """Run ``fit(estimator, renumbered, *rest, **kwargs)``, restore the node order of the
    outputs and return what ``fit`` returned.

    Examples
    --------
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
    """Each node's position (n_nodes,) in the hypergraph the user gave, for the fit now
    running (``arange`` outside a cache-order fit), so ties broken by position do not move.

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
    """Incidence, weights and features of ``hypergraph`` renumbered (node ``i`` is its
    ``node_order[i]``, hyperedge ``j`` its ``edge_order[j]``); ids, names and labels dropped.

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
    """Put the estimator's ``_node_outputs`` back in the order of ``hypergraph`` (position
    ``i`` of the fitted copy is position ``node_order[i]`` of ``hypergraph``).

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
    """Arrays by rows, dicts and lists item by item, a mixed walk rebuilt on ``hypergraph``."""
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
