"""The method registry: every clustering method the CLI and the benchmarks can run, ours and
the peer libraries', in one catalog.

Each entry names its estimator class as ``"module:Class"`` plus the constructor keywords
that make the method, so listing the methods (``hyperclust cluster --help``, ``hyperclust
datasets``) imports no provider: neither scikit-learn nor torch nor a peer library. A provider
is imported only when one of its methods is made, so one broken optional method cannot hide
the others. Adding a method is adding one :class:`Method` to :data:`METHODS` (or calling
:func:`register_method` from a plugin); see ``docs/extending.md``. An entry also says what
else the method offers: an ``auto`` candidate (:class:`Candidate`; ``auto``'s candidate table
:data:`CANDIDATE_TABLE` is read from the entries, in their order, which breaks ties) and a
Dask twin (:class:`Distributed`, run by ``hyperclust cluster DIR --scheduler``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from typing import Callable

from .._registry import add_entry

__all__ = ["Method", "METHODS", "Candidate", "CANDIDATE_TABLE", "WALKS", "Distributed",
           "MissingDependency", "available_methods", "distributed_methods", "make_estimator",
           "needs_torch", "provider_module", "register_method", "torch_available",
           "DESCRIPTIONS"]


class MissingDependency(ImportError):
    """An optional library a method needs is not installed (a benchmark run records it as
    ``unavailable``).

    Examples
    --------
    >>> issubclass(MissingDependency, ImportError)
    True
    """


#: What ``auto`` can pass to a candidate's ``fit``: the mixed walk ``(1 - beta) P + beta Q``
#: (``"plain"``), the same with self-loops (``"lazy"``, HGNN's smoothing walk) or the kNN
#: affinity (``"affinity"``, as ``fit(hg, affinity=A)``).
WALKS = ("plain", "lazy", "affinity")


@dataclass(frozen=True)
class Candidate:
    """How ``auto`` makes and fits one candidate method.

    Attributes
    ----------
    walk : {"plain", "lazy", "affinity"} or None
        The shared structure passed to ``fit`` (:data:`WALKS`); None: ``fit(hg)`` alone.
    settings : dict of str -> str
        ``{auto's parameter: the estimator's keyword}`` set on the estimator, from
        ``beta``, ``n_neighbors`` and ``knn_method``.
    needs_features : bool
        Left out on hypergraphs without node attributes.
    heterophilic : bool
        A default candidate only when ``auto`` finds the hyperedges heterophilic.
    walk_without_features : bool
        Takes the walk also when there is no kNN graph (the hypergraph walk alone);
        otherwise such a fit is ``fit(hg)``.

    Examples
    --------
    >>> c = Candidate(walk="lazy", needs_features=True)
    >>> c.walk, c.needs_features, c.heterophilic
    ('lazy', True, False)
    """

    walk: str | None = None
    settings: dict = field(default_factory=dict)
    needs_features: bool = False
    heterophilic: bool = False
    walk_without_features: bool = False

    def __post_init__(self):
        if self.walk is not None and self.walk not in WALKS:
            raise ValueError(f"walk must be None or one of {WALKS}, got {self.walk!r}")
        bad = set(self.settings) - {"beta", "n_neighbors", "knn_method"}
        if bad:
            raise ValueError(f"settings can pass beta, n_neighbors, knn_method; got {sorted(bad)}")


@dataclass(frozen=True)
class Distributed:
    """A method's Dask twin (:mod:`hyperclust.distributed`), run on a partitioned hypergraph.

    Attributes
    ----------
    estimator : str
        ``"module:Class"`` with the module relative to :mod:`hyperclust.distributed`.
    steps : callable
        ``steps(fitted estimator) -> str``: what the fit did, for the command's summary.

    Examples
    --------
    >>> METHODS["ahcka"].distributed.estimator
    'ahcka:DistributedAHCKA'
    """

    estimator: str
    steps: Callable[[object], str]


@dataclass(frozen=True)
class Method:
    """One registered method.

    Attributes
    ----------
    estimator : str or class
        ``"module:Class"`` (imported when the method is made) or the class itself, a
        :class:`~hyperclust.cluster.base.HypergraphClusterer` taking ``n_clusters`` and
        ``random_state`` keywords.
    description : str
        One line, shown by ``hyperclust cluster --help`` and the reports.
    params : dict
        Fixed constructor keywords that make this method from the class.
    device : bool
        The estimator takes a torch ``device`` keyword.
    torch : bool
        It trains with torch (the optional extra ``hyperclust[deep]``).
    peer : bool
        Another library's method, run by the benchmarks only (not listed by the CLI); the
        peers register themselves from :mod:`hyperclust.bench.peer_methods`.
    requires : tuple of str
        Modules imported when the estimator is made (so a peer's import time is not counted
        in its fit time); a missing one raises :class:`MissingDependency` naming ``package``.
    package : str, optional
        The pip package that provides ``requires``.
    candidate : Candidate, optional
        How ``auto`` fits it as a candidate (None: not a candidate).
    distributed : Distributed, optional
        Its Dask twin (None: none).

    Examples
    --------
    >>> METHODS["spectral-star"].params, METHODS["spectral-star"].module
    ({'operator': 'star'}, 'hyperclust.cluster.spectral')
    """

    estimator: str | type
    description: str
    params: dict = field(default_factory=dict)
    device: bool = False
    torch: bool = False
    peer: bool = False
    requires: tuple = ()
    package: str | None = None
    candidate: Candidate | None = None
    distributed: Distributed | None = None

    @property
    def module(self) -> str:
        """The module that defines the estimator."""
        if isinstance(self.estimator, str):
            return self.estimator.split(":", 1)[0]
        return self.estimator.__module__


_BASELINES = "hyperclust.cluster.baselines"
_SPECTRAL = "hyperclust.cluster.spectral:SpectralHypergraphClustering"
_UNIDHC = "hyperclust.cluster.unidhc:UniDHC"


def _spectral(operator: str, wording: str | None = None, params=None, **fields) -> Method:
    """The method ``spectral-<operator>``: spectral clustering on a registered operator,
    described by ``wording`` (default: the operator's description), with further constructor
    keywords ``params`` and :class:`Method` ``fields``."""
    from ..operators.registry import OPERATORS as operators

    return Method(_SPECTRAL, "regularized spectral clustering, "
                  + (wording or operators[operator].description),
                  params={"operator": operator, **(params or {})}, **fields)


def _embeddable_operators() -> tuple[tuple, tuple]:
    """The registered operators spectral clustering embeds: ``(with an affinity, with only
    their own eigensolver)``, in registry order."""
    from ..operators.registry import operator_names

    with_affinity = operator_names("affinity")
    return with_affinity, tuple(n for n in operator_names("eigenpairs")
                                if n not in with_affinity)


_MIXED = {"beta": "knn_beta", "n_neighbors": "knn_neighbors"}
_KNN = {"n_neighbors": "n_neighbors", "knn_method": "knn_method"}
_DASK_SPECTRAL = Distributed(
    "spectral:DistributedSpectralClustering",
    lambda est: (f"{est.n_iter_} Lanczos products" if est.eigensolver_ == "lanczos"
                 else f"{est.n_iter_} filtered subspace iterations"))

#: ``{name: Method}`` in listing order: the only place a method is added. The candidates of
#: ``auto`` come in its tie order (first wins a tie). Each operator spectral clustering can
#: embed (:data:`hyperclust.operators.registry.OPERATORS`) is a method ``spectral-<operator>``:
#: the built-in ones are listed here, those registered later are derived from the operator
#: (:func:`_sync_operator_methods`). The default method ``auto`` is listed first; its entry
#: is added by the package :mod:`hyperclust.cluster`, since ``auto`` makes its candidates
#: from this registry and so this module cannot name it without an import circle.
METHODS: dict[str, Method] = {
    "ahcka": Method("hyperclust.cluster.ahcka:AHCKA",
                    "AHCKA (Li, Yang & Shi 2023): attribute-kNN augmented random walk, "
                    "orthogonal iterations, label-free iteration selection",
                    candidate=Candidate("plain", {"beta": "beta", **_KNN},
                                        walk_without_features=True),
                    distributed=Distributed("ahcka:DistributedAHCKA",
                                            lambda est: f"{est.n_iter_} orthogonal iterations")),
    "hgnn-mixed": Method(f"{_BASELINES}:HGNNSmoothingKMeans",
                         "k-means on features smoothed twice by the hypergraph + attribute-kNN "
                         "walk (beta=0.5, 10 neighbours; the hypergraph alone when "
                         "feature-less)", params={"knn_beta": 0.5, "knn_neighbors": 10},
                         candidate=Candidate("lazy", _MIXED, needs_features=True)),
    "spectral-zhou-mixed": Method(_SPECTRAL, "regularized spectral clustering, Zhou "
                                  "normalized hypergraph Laplacian + attribute-kNN graph "
                                  "(beta=0.5, 10 neighbours)",
                                  params={"operator": "zhou", "knn_beta": 0.5,
                                          "knn_neighbors": 10},
                                  candidate=Candidate("plain", _MIXED, needs_features=True)),
    "hgnn": Method(f"{_BASELINES}:HGNNSmoothingKMeans",
                   "k-means on HGNN-smoothed features P^2 X (structural input when "
                   "feature-less)", candidate=Candidate()),
    "spectral-zhou": _spectral("zhou", "Zhou normalized hypergraph Laplacian",
                               candidate=Candidate(), distributed=_DASK_SPECTRAL),
    "spectral-clique": _spectral("clique", "clique expansion w_e/(|e|-1)", candidate=Candidate()),
    "spectral-clique-unit": _spectral("clique-unit", "clique expansion w_e"),
    "spectral-star": _spectral("star", "star (bipartite) expansion"),
    "spectral-collapsed": _spectral("collapsed", "star expansion collapsed onto vertices "
                                                 "(S_eps, eps=1)"),
    "kmeans": Method(f"{_BASELINES}:KMeansFeatures",
                     "k-means on node features (hyperedges ignored)",
                     candidate=Candidate(needs_features=True)),
    "hsbm": Method("hyperclust.cluster.hsbm:HypergraphSBM",
                   "attributed degree-corrected hypergraph SBM, mean-field EM; attribute weight "
                   "chosen by held-out hyperedge and attribute prediction", candidate=Candidate()),
    "spectral-signed": Method("hyperclust.cluster.signed:SignedSpectralClustering",
                              "signed spectral clustering for heterophilic hyperedges: "
                              "attribute kNN neighbours attract, hyperedge co-members repel "
                              "(needs node features)",
                              candidate=Candidate("affinity", _KNN, needs_features=True,
                                                  heterophilic=True)),
    "spectral-collapsed-cells": _spectral(
        "collapsed-cells", "S_eps of the graded complex vertices / clique edges / hyperedge "
        "cells (eps=1e-2)", {"eps": 1e-2}),
    "spectral-collapsed-closure": _spectral(
        "collapsed-closure", "S_eps of the downward closure, simplices up to triangles "
        "(eps=1e-2)", {"eps": 1e-2}),
    "unidhc": Method(_UNIDHC, "Uni-DHC: polynomial filter learned by feature-split canonical "
                              "correlation, kept unless a fixed atom (I, P^k, (I-P)^k) predicts "
                              "held-out hyperedges and columns better + residual encoder on "
                              "features (the filter output alone on structure-only inputs), "
                              "k-means", params={"gamma_init": "heldout"},
                     device=True, torch=True,
                     distributed=Distributed("unidhc:DistributedUniDHC", lambda est: (
                         f"{len(est.loss_history_)} epochs, input {est.input_kind_}"))),
    "unidhc-filter": Method(_UNIDHC, "Uni-DHC, k-means on the learned filter output only",
                            params={"embedding": "filter", "gamma_init": "heldout"},
                            device=True, torch=True),
}

#: ``{method: (operator, entry)}`` of the ``spectral-<operator>`` methods.
_DERIVED = {name: (m.params["operator"], m) for name, m in METHODS.items()
            if m.estimator == _SPECTRAL and name == f"spectral-{m.params['operator']}"}

#: ``{method: Candidate}``: ``auto``'s candidates in tie-breaking order (first wins a tie),
#: read from :data:`METHODS` (kept in step by :func:`register_method`).
CANDIDATE_TABLE: dict[str, Candidate] = {name: m.candidate for name, m in METHODS.items()
                                         if m.candidate is not None}

DESCRIPTIONS = {name: m.description for name, m in METHODS.items()}
"""``{name: description}`` of every registered method."""


def _sync_operator_methods() -> None:
    """Derive ``spectral-<op>`` for each operator registered since (a method registered
    under that name by hand wins) and drop the derived methods whose operator is gone."""
    affine, own_solver = _embeddable_operators()
    for name, (op, entry) in list(_DERIVED.items()):
        if op not in affine + own_solver:
            if METHODS.get(name) is entry:
                del METHODS[name], DESCRIPTIONS[name]
            del _DERIVED[name]
    for op in affine + own_solver:
        name = f"spectral-{op}"
        if name not in METHODS:
            register_method(name, _spectral(op))
            _DERIVED[name] = (op, METHODS[name])


def register_method(name: str, method: Method, *, replace: bool = False) -> None:
    """Add ``method`` to the registry under ``name`` (a plugin's entry point).

    Examples
    --------
    >>> register_method("spectral-zhou-cpqr", Method(
    ...     "hyperclust.cluster.spectral:SpectralHypergraphClustering",
    ...     "spectral clustering, Zhou Laplacian, CPQR assignment",
    ...     params={"operator": "zhou", "assign": "cpqr"}))
    >>> make_estimator("spectral-zhou-cpqr", 3).assign
    'cpqr'
    >>> del METHODS["spectral-zhou-cpqr"], DESCRIPTIONS["spectral-zhou-cpqr"]
    """
    if isinstance(name, str) and ":" in name:  # "module:factory" names a method directly
        raise ValueError(f"method names cannot hold ':', got {name!r}")
    add_entry(METHODS, name, method, Method, "method", replace=replace)
    DESCRIPTIONS[name] = method.description
    CANDIDATE_TABLE.pop(name, None)
    if method.candidate is not None:
        CANDIDATE_TABLE[name] = method.candidate


def distributed_methods() -> tuple:
    """The methods with a Dask twin (``hyperclust cluster DIR --scheduler``).

    Examples
    --------
    >>> distributed_methods()
    ('ahcka', 'spectral-zhou', 'unidhc')
    """
    return tuple(name for name, m in METHODS.items() if m.distributed is not None
                 and name != "auto")


def torch_available() -> bool:
    """Whether torch can be imported, found without importing it.

    Examples
    --------
    >>> isinstance(torch_available(), bool)
    True
    """
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def provider_module(name: str) -> str | None:
    """The module that defines method ``name``'s estimator (None for an unknown name).

    Examples
    --------
    >>> provider_module("hgnn"), provider_module("spectral-zhou")
    ('hyperclust.cluster.baselines', 'hyperclust.cluster.spectral')
    """
    _sync_operator_methods()
    entry = METHODS.get(name)
    return None if entry is None else entry.module


def needs_torch(name: str) -> bool:
    """Whether method ``name`` trains with torch (``pip install hyperclust[deep]``).

    Examples
    --------
    >>> needs_torch("unidhc"), needs_torch("hgnn")
    (True, False)
    """
    _sync_operator_methods()
    entry = METHODS.get(name)
    return entry is not None and entry.torch


def available_methods(*, peers: bool = False) -> dict:
    """``{name: description}`` for every registered method, without importing any provider.

    Methods that need torch are listed when torch is missing too; making one then works and
    fitting it raises an ``ImportError`` naming ``hyperclust[deep]``. The peer libraries'
    methods (benchmarks only) are listed with ``peers=True``.

    Examples
    --------
    >>> list(available_methods())[:3]
    ['auto', 'ahcka', 'hgnn-mixed']
    >>> import hyperclust.bench  # registers the peer libraries' methods
    >>> "peer-xgi" in available_methods(), "peer-xgi" in available_methods(peers=True)
    (False, True)
    """
    _sync_operator_methods()
    return {name: m.description for name, m in METHODS.items() if peers or not m.peer}


def _import_object(path):
    if not isinstance(path, str):
        return path
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_estimator(name: str, n_clusters: int, random_state=0, device: str = "cpu"):
    """Instantiate the estimator registered as ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`METHODS` (peers included).
    n_clusters : int
    random_state : int, default 0
    device : str, default "cpu"
        Torch device of the deep methods (ignored by the others).

    Returns
    -------
    HypergraphClusterer
        An unfitted scikit-learn style estimator.

    Raises
    ------
    ValueError
        Unknown name.
    MissingDependency
        A module in the entry's ``requires`` is not installed.

    Examples
    --------
    >>> make_estimator("spectral-zhou", 3)
    SpectralHypergraphClustering(n_clusters=3)
    """
    _sync_operator_methods()
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; available: {', '.join(METHODS)}")
    entry = METHODS[name]
    for module in entry.requires:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            package = entry.package or module
            raise MissingDependency(f"{name} needs the optional package {package!r} "
                                    f"(pip install {package}): {exc}") from exc
    kwargs = dict(entry.params, n_clusters=n_clusters, random_state=random_state)
    if entry.device:
        kwargs["device"] = device
    return _import_object(entry.estimator)(**kwargs)
