"""The method registry: every clustering method the CLI and the benchmarks can run, ours and
the peer libraries', in one catalog.

Each entry names its estimator class as ``"module:Class"`` plus the constructor keywords
that make the method, so listing the methods (``hyperclust cluster --help``, ``hyperclust
datasets``) imports no provider: neither scikit-learn nor torch nor a peer library. A provider
is imported only when one of its methods is made, so one broken optional method cannot hide
the others. Adding a method is adding one :class:`Method` to :data:`METHODS` (or calling
:func:`register_method` from a plugin); see ``docs/extending.md``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass, field

from .._registry import add_entry

__all__ = ["Method", "METHODS", "MissingDependency", "available_methods", "make_estimator",
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
        Another library's method, run by the benchmarks only (not listed by the CLI).
    requires : tuple of str
        Modules imported when the estimator is made (so a peer's import time is not counted
        in its fit time); a missing one raises :class:`MissingDependency` naming ``package``.
    package : str, optional
        The pip package that provides ``requires``.

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

    @property
    def module(self) -> str:
        """The module that defines the estimator."""
        if isinstance(self.estimator, str):
            return self.estimator.split(":", 1)[0]
        return self.estimator.__module__


_BASELINES = "hyperclust.cluster.baselines"
_SPECTRAL = "hyperclust.cluster.spectral:SpectralHypergraphClustering"
_UNIDHC = "hyperclust.cluster.unidhc:UniDHC"
_PEERS = "hyperclust.bench.peers"


def _spectral(operator: str, what: str) -> Method:
    return Method(_SPECTRAL, "regularized spectral clustering, " + what,
                  params={"operator": operator})


def _peer(cls: str, library: str, description: str, *extra_modules: str) -> Method:
    return Method(f"{_PEERS}:{cls}", description, peer=True,
                  requires=(library, *extra_modules), package=library)


#: ``{name: Method}`` in listing order: the only place a method is added.
METHODS: dict[str, Method] = {
    "auto": Method("hyperclust.cluster.auto:AutoClusterer",
                   "the default: fit ahcka, hgnn, spectral (on the hypergraph and on the "
                   "hypergraph + attribute-kNN walk) and k-means; keep the lowest label-free "
                   "random-walk conductance"),
    "ahcka": Method("hyperclust.cluster.ahcka:AHCKA",
                    "AHCKA (Li, Yang & Shi 2023): attribute-kNN augmented random walk, "
                    "orthogonal iterations, label-free iteration selection"),
    "kmeans": Method(f"{_BASELINES}:KMeansFeatures",
                     "k-means on node features (hyperedges ignored)"),
    "hgnn": Method(f"{_BASELINES}:HGNNSmoothingKMeans",
                   "k-means on HGNN-smoothed features P^2 X (structural input when "
                   "feature-less)"),
    "spectral-zhou": _spectral("zhou", "Zhou normalized hypergraph Laplacian"),
    "spectral-clique": _spectral("clique", "clique expansion w_e/(|e|-1)"),
    "spectral-clique-unit": _spectral("clique-unit", "clique expansion w_e"),
    "spectral-star": _spectral("star", "star (bipartite) expansion"),
    "spectral-collapsed": _spectral("collapsed", "star expansion collapsed onto vertices "
                                                 "(S_eps, eps=1)"),
    "spectral-signed": Method("hyperclust.cluster.signed:SignedSpectralClustering",
                              "signed spectral clustering for heterophilic hyperedges: "
                              "attribute kNN neighbours attract, hyperedge co-members repel "
                              "(needs node features)"),
    "spectral-collapsed-cells": Method(_SPECTRAL, "regularized spectral clustering, S_eps of "
                                       "the graded complex vertices / clique edges / "
                                       "hyperedge cells (eps=1e-2)",
                                       params={"operator": "collapsed-cells", "eps": 1e-2}),
    "unidhc": Method(_UNIDHC, "Uni-DHC: learnable polynomial filter (z-score-chosen init) + "
                              "residual encoder, k-means", device=True, torch=True),
    "unidhc-filter": Method(_UNIDHC, "Uni-DHC, k-means on the learned filter output only",
                            params={"embedding": "filter"}, device=True, torch=True),
    "peer-hypergraphx": _peer("HySCPeer", "hypergraphx",
                              "hypergraphx HySC: dense Zhou Laplacian, full eig, k-means",
                              "hypergraphx.communities.hy_sc.model"),
    "peer-xgi": _peer("XGIPeer", "xgi",
                      "XGI spectral_clustering: Zhou Laplacian, eigsh, own k-means"),
    "peer-hypernetx": _peer("HyperNetXPeer", "hypernetx",
                            "HyperNetX spec_clus: random-walk Laplacian (needs a connected "
                            "hypergraph)", "hypernetx.algorithms.clustering.laplacians_clustering"),
    "peer-dhg": _peer("DHGPeer", "dhg",
                      "DHG smoothing_with_HGNN applied twice to the features, k-means"),
}

DESCRIPTIONS = {name: m.description for name, m in METHODS.items()}
"""``{name: description}`` of every registered method."""


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
    >>> provider_module("hgnn"), provider_module("peer-xgi")
    ('hyperclust.cluster.baselines', 'hyperclust.bench.peers')
    """
    entry = METHODS.get(name)
    return None if entry is None else entry.module


def needs_torch(name: str) -> bool:
    """Whether method ``name`` trains with torch (``pip install hyperclust[deep]``).

    Examples
    --------
    >>> needs_torch("unidhc"), needs_torch("hgnn")
    (True, False)
    """
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
    ['auto', 'ahcka', 'kmeans']
    >>> "peer-xgi" in available_methods(), "peer-xgi" in available_methods(peers=True)
    (False, True)
    """
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
