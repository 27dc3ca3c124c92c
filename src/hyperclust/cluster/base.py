"""Shared behaviour of hyperclust's clustering estimators (scikit-learn style)."""

from __future__ import annotations

import functools
import logging
import numbers
import time
import warnings
from types import MappingProxyType

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from .._validation import RANDOM_STATE, Interval, check_parameter, check_parameters, is_int
from ..hypergraph import Hypergraph
from ..runtime.threads import current_limit, limit_threads_in
from .node_order import fit_in_cache_order, wants_cache_order

_log = logging.getLogger("hyperclust")

__all__ = ["HypergraphClusterer", "check_hypergraph", "check_n_clusters", "as_hypergraph",
           "SHARED_CONSTRAINTS"]

#: The constraints of the parameters every method takes (``n_clusters`` is checked against
#: the number of nodes by :func:`check_n_clusters` in ``fit``).
SHARED_CONSTRAINTS = MappingProxyType({"n_clusters": [Interval(int, 1)],
                                       "random_state": [RANDOM_STATE]})


def as_hypergraph(obj):
    """The input of a ``fit`` as a :class:`~hyperclust.Hypergraph` where
    :func:`hyperclust.convert.from_any` takes it (with its defaults: every node and
    hyperedge kept, duplicates included); anything else is returned unchanged for the
    estimator's own check (a partitioned hypergraph, or an error).

    Parameters
    ----------
    obj : object
        A Hypergraph, or an XGI/HyperNetX/DHG hypergraph, a PyG ``HyperGraphData``, a
        networkx bipartite graph, a pandas incidence table, a scipy sparse incidence, a
        list or dict of hyperedges.

    Returns
    -------
    Hypergraph or object

    Examples
    --------
    >>> as_hypergraph([["ana", "bo"], ["bo", "cy"]])
    Hypergraph(n_nodes=3, n_edges=2)
    >>> as_hypergraph("a/partitioned/dir")
    'a/partitioned/dir'
    """
    if isinstance(obj, Hypergraph):
        return obj
    from ..convert.dispatch import converter_for

    convert = converter_for(obj)
    return obj if convert is None else convert(obj)


def _fit_on_any_input(fit):
    """Decorator of every estimator's ``fit``: converts the input with
    :func:`as_hypergraph` first (so the thread policy sees its size), fits a large input on
    its cache-friendly numbering where the estimator declares its per-node outputs
    (:mod:`hyperclust.cluster.node_order`), stores ``labels_``
    as int64, whatever the method computed them in, and ``node_ids_`` (the id of each
    labelled node)."""
    @functools.wraps(fit)
    def wrapped(self, *args, **kwargs):
        self._validate_params()
        if args:
            args = (as_hypergraph(args[0]),) + args[1:]
        elif "hypergraph" in kwargs:
            kwargs["hypergraph"] = as_hypergraph(kwargs["hypergraph"])
        # A fit inside another estimator's fit (auto's candidates) is a detail of it.
        level = logging.DEBUG if current_limit() is not None else logging.INFO
        name = type(self).__name__
        _log.log(level, "%s: fitting on %r", name, args[0] if args else kwargs.get("hypergraph"))
        start = time.perf_counter()
        given = args[0] if args else kwargs.get("hypergraph")
        if args and wants_cache_order(self, given, kwargs):
            out = fit_in_cache_order(fit, self, given, args[1:], kwargs)
        else:
            out = fit(self, *args, **kwargs)
        _log.log(level, "%s: fitted in %.2f s", name, time.perf_counter() - start)
        if isinstance(given, Hypergraph):
            self.node_ids_ = given.node_ids
        labels = getattr(self, "labels_", None)
        if isinstance(labels, np.ndarray) and labels.dtype != np.int64:
            self.labels_ = labels.astype(np.int64)
        return out

    wrapped.__fit_on_any_input__ = True
    return wrapped


def check_hypergraph(hypergraph) -> Hypergraph:
    """The input of a ``fit``, checked: a :class:`~hyperclust.Hypergraph` with nodes.

    Parameters
    ----------
    hypergraph : object

    Returns
    -------
    Hypergraph
        ``hypergraph`` itself, or converted by :func:`as_hypergraph` (a warning when every
        node is in no hyperedge).

    Raises
    ------
    TypeError
        Neither a Hypergraph nor anything :func:`hyperclust.convert.from_any` takes.
    ValueError
        No nodes.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> check_hypergraph(hg) is hg
    True
    >>> check_hypergraph(hg.incidence).shape
    (4, 2)
    >>> check_hypergraph(42)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: fit expects a hyperclust.Hypergraph or what hyperclust.convert.from_any takes (...), got int
    """
    hypergraph = as_hypergraph(hypergraph)
    if not isinstance(hypergraph, Hypergraph):
        from ..convert.dispatch import SUPPORTED

        raise TypeError("fit expects a hyperclust.Hypergraph or what hyperclust.convert.from_any "
                        f"takes ({SUPPORTED}), got {type(hypergraph).__name__}")
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
    ``(n_nodes,)``) and, when the method has one, ``embedding_`` (shape ``(n_nodes, d)``).

    Every subclass's ``fit`` takes a :class:`~hyperclust.Hypergraph` or anything
    :func:`hyperclust.convert.from_any` converts (an XGI, HyperNetX or DHG hypergraph, a PyG
    ``HyperGraphData``, a networkx bipartite graph, a pandas incidence table, a scipy sparse
    incidence, a list or dict of hyperedges): ``labels_[i]`` is then the cluster of node
    ``i`` of ``from_any(input)``, whose id is ``node_ids_[i]``. ``labels_`` is int64 for
    every estimator. ``fit`` runs under :func:`hyperclust.runtime.threads.thread_limit`: never more
    BLAS/OpenMP/torch threads than the policy allows, nor than the caller's own limit.

    ``random_state`` is None, an int, a ``numpy.random.RandomState`` or a
    ``numpy.random.Generator``; an instance is asked for one integer seed in ``[0, 2**31 - 1)``
    (``randint``/``integers``), so it advances as in scikit-learn and two fits with the same
    instance differ.

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
            fit = limit_threads_in(fit)
        if fit is not None and not getattr(fit, "__fit_on_any_input__", False):
            fit = _fit_on_any_input(fit)
        if fit is not None:
            cls.fit = fit

    #: ``{parameter: [constraint, ...]}``: what each ``__init__`` parameter accepts (see
    #: :mod:`hyperclust._validation`), checked at the start of every ``fit``. A subclass
    #: lists every parameter of its ``__init__``; one without a table is not checked.
    _parameter_constraints: dict = {}

    def _validate_params(self) -> None:
        """Check the parameters against :attr:`_parameter_constraints` (scikit-learn's
        method name, with hyperclust's constraints): one line naming the parameter, its
        value and what is allowed (:class:`~hyperclust._validation.InvalidParameterError`)."""
        table = type(self)._parameter_constraints
        if table:
            check_parameters(table, {name: getattr(self, name) for name in table
                                     if hasattr(self, name)})

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
        check_parameter("random_state", random_state, [RANDOM_STATE])
        if random_state is None:
            return int(np.random.SeedSequence().entropy % (2**31))
        if isinstance(random_state, numbers.Integral):
            return int(random_state)
        if isinstance(random_state, np.random.RandomState):
            return int(random_state.randint(0, 2**31 - 1))
        return int(random_state.integers(0, 2**31 - 1))  # a numpy.random.Generator
