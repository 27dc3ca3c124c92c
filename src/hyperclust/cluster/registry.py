"""The method registry: every clustering method the CLI and the benchmarks can run, ours and
the peer libraries', in one table (``docs/extending.md``, "A method").

Entries name their estimator as ``"module:Class"``, so listing the methods imports no
provider; an entry also says whether it is an ``auto`` candidate (:class:`Candidate`) and
its Dask twin (:class:`Distributed`).
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
    """An optional library a method needs is not installed.

    Examples
    --------
    >>> issubclass(MissingDependency, ImportError)
    True
    """


#: What ``auto`` can pass to a candidate's ``fit``: the mixed walk (``"plain"``), the same
#: with self-loops (``"lazy"``) or the kNN affinity (``"affinity"``).
WALKS = ("plain", "lazy", "affinity")


@dataclass(frozen=True)
class Candidate:
    """How ``auto`` makes and fits one candidate method.

    Attributes
    ----------
    walk : {"plain", "lazy", "affinity"} or None
        The shared structure passed to ``fit`` (:data:`WALKS`); None: ``fit(hg)``.
    settings : dict of str -> str
        ``{auto's parameter: estimator keyword}`` for ``beta``, ``n_neighbors``, ``knn_method``.
    needs_features : bool
        Left out without node attributes.
    heterophilic : bool
        A candidate only when ``auto`` finds the hyperedges heterophilic.
    walk_without_features : bool
        Takes the walk also without a kNN graph.

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
        ``"module:Class"``, the module relative to :mod:`hyperclust.distributed`.
    steps : callable
        ``steps(fitted estimator) -> str``: what the fit did, for the summary.

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
        ``"module:Class"`` (imported when made) or a
        :class:`~hyperclust.cluster.base.HypergraphClusterer` subclass.
    description : str
        One line, shown by ``hyperclust cluster --help`` and the reports.
    params : dict
        Fixed constructor keywords.
    device : bool
        The estimator takes a torch ``device`` keyword.
    torch : bool
        It trains with torch (``hyperclust[deep]``).
    peer : bool
        Another library's method, run by the benchmarks only.
    requires : tuple of str
        Modules imported when made; a missing one raises :class:`MissingDependency`.
    package : str, optional
        The pip package that provides ``requires``.
    candidate : Candidate, optional
        How ``auto`` fits it as a candidate.
    distributed : Distributed, optional
        Its Dask twin.

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
    """The method ``spectral-<operator>`` (``wording`` default: the operator's description)."""
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

#: ``{name: Method}`` in listing order (``auto``'s candidates in tie order, first wins).
#: Operators registered later get a derived ``spectral-<operator>``; ``auto`` is added first
#: by :mod:`hyperclust.cluster` (naming it here would be an import circle).
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

#: ``{method: Candidate}``: ``auto``'s candidates in tie order, read from :data:`METHODS`.
CANDIDATE_TABLE: dict[str, Candidate] = {name: m.candidate for name, m in METHODS.items()
                                         if m.candidate is not None}

DESCRIPTIONS = {name: m.description for name, m in METHODS.items()}
"""``{name: description}`` of every registered method."""


def _sync_operator_methods() -> None:
    """Derive ``spectral-<op>`` for new operators (not over a hand-registered name); drop
    those whose operator is gone."""
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
    """``{name: description}`` of every method (peer libraries' with ``peers=True``),
    importing no provider; torch methods are listed without torch too.

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
        A key of :data:`METHODS`.
    n_clusters : int
    random_state : int, default 0
    device : str, default "cpu"
        Torch device of the deep methods.

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
