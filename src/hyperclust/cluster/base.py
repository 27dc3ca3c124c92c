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

#: The constraints of the parameters every method takes.
SHARED_CONSTRAINTS = MappingProxyType({"n_clusters": [Interval(int, 1)],
                                       "random_state": [RANDOM_STATE]})


def as_hypergraph(obj):
    """The input of a ``fit`` converted by :func:`hyperclust.convert.from_any` where it
    takes it (with its defaults); anything else is returned unchanged.

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
    """Decorator of every ``fit``: converts the input (:func:`as_hypergraph`), fits a large
    one in cache order (:mod:`hyperclust.cluster.node_order`), stores ``labels_`` as int64
    and ``node_ids_``."""
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

    Warns when every node is in no hyperedge.

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
    """``n_clusters`` as an int, checked: ``1 <= n_clusters <= n_nodes``.

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
    """Base class: subclasses implement ``fit(hypergraph)`` setting ``labels_`` (n_nodes,)
    and, when the method has one, ``embedding_`` (n_nodes, d).

    ``fit`` takes anything :func:`hyperclust.convert.from_any` converts (``labels_[i]`` is
    the cluster of node ``i``, id ``node_ids_[i]``) and runs under
    :func:`hyperclust.runtime.threads.thread_limit`. ``random_state``: None, an int, a
    ``RandomState`` or a ``Generator`` (asked for one seed, as in scikit-learn).

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

    #: ``{parameter: [constraint, ...]}`` of every ``__init__`` parameter, checked by ``fit``.
    _parameter_constraints: dict = {}

    def _validate_params(self) -> None:
        """Check the parameters against :attr:`_parameter_constraints`."""
        table = type(self)._parameter_constraints
        if table:
            check_parameters(table, {name: getattr(self, name) for name in table
                                     if hasattr(self, name)})

    def fit(self, hypergraph, y=None):  # pragma: no cover - abstract
        raise NotImplementedError

    def fit_predict(self, hypergraph, y=None, **kwargs):
        """Fit on ``hypergraph`` and return ``labels_``, shape (n_nodes,)."""
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
