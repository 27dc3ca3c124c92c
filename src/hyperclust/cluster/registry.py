"""Method names used by the CLI and the benchmark runner.

The catalog below names each method's provider module and describes it, so that listing the
methods (``hyperclust cluster --help``, ``hyperclust datasets``) imports no provider: neither
scikit-learn nor torch. Each provider module defines ``METHODS = {name: (factory,
description)}`` where ``factory(n_clusters, random_state, device) -> estimator`` (its
descriptions come from :data:`DESCRIPTIONS`). A provider is imported only when one of its
methods is made, so one broken optional method cannot hide the others.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

__all__ = ["available_methods", "make_estimator", "needs_torch", "provider_module",
           "torch_available",
           "DESCRIPTIONS"]

_BASELINES = "hyperclust.cluster.baselines"
_SPECTRAL = "hyperclust.cluster.spectral"
_UNIDHC = "hyperclust.cluster.unidhc"
_AHCKA = "hyperclust.cluster.ahcka"
_AUTO = "hyperclust.cluster.auto"

#: ``{name: (provider module, description)}`` in listing order.
_CATALOG = {
    "auto": (_AUTO, "the default: fit ahcka, hgnn, spectral (on the hypergraph and on the "
                    "hypergraph + attribute-kNN walk) and k-means; keep the lowest label-free "
                    "random-walk conductance"),
    "ahcka": (_AHCKA, "AHCKA (Li, Yang & Shi 2023): attribute-kNN augmented random walk, "
                      "orthogonal iterations, label-free iteration selection"),
    "kmeans": (_BASELINES, "k-means on node features (hyperedges ignored)"),
    "hgnn": (_BASELINES,
             "k-means on HGNN-smoothed features P^2 X (structural input when feature-less)"),
    "spectral-zhou": (_SPECTRAL,
                      "regularized spectral clustering, Zhou normalized hypergraph Laplacian"),
    "spectral-clique": (_SPECTRAL,
                        "regularized spectral clustering, clique expansion w_e/(|e|-1)"),
    "spectral-clique-unit": (_SPECTRAL, "regularized spectral clustering, clique expansion w_e"),
    "spectral-star": (_SPECTRAL, "regularized spectral clustering, star (bipartite) expansion"),
    "spectral-collapsed": (_SPECTRAL, "regularized spectral clustering, star expansion "
                                      "collapsed onto vertices (S_eps, eps=1)"),
    "spectral-collapsed-cells": (_SPECTRAL, "spectral clustering on S_eps of the graded complex "
                                            "vertices / clique edges / hyperedge cells (eps=1e-2)"),
    "unidhc": (_UNIDHC, "Uni-DHC: learnable polynomial filter (z-score-chosen init) + "
                        "residual encoder, k-means"),
    "unidhc-filter": (_UNIDHC, "Uni-DHC, k-means on the learned filter output only"),
}
#: Methods that train with torch (the optional extra ``hyperclust[deep]``).
_NEEDS_TORCH = frozenset({"unidhc", "unidhc-filter"})

DESCRIPTIONS = {name: desc for name, (_, desc) in _CATALOG.items()}
"""``{name: description}`` of every registered method."""


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
    >>> provider_module("hgnn")
    'hyperclust.cluster.baselines'
    """
    entry = _CATALOG.get(name)
    return None if entry is None else entry[0]


def needs_torch(name: str) -> bool:
    """Whether method ``name`` trains with torch (``pip install hyperclust[deep]``).

    Examples
    --------
    >>> needs_torch("unidhc"), needs_torch("hgnn")
    (True, False)
    """
    return name in _NEEDS_TORCH


def available_methods() -> dict:
    """``{name: description}`` for every registered method, without importing any provider.

    Methods that need torch are listed when torch is missing too; making one then raises an
    ``ImportError`` naming ``hyperclust[deep]``.

    Examples
    --------
    >>> list(available_methods())[:3]
    ['auto', 'ahcka', 'kmeans']
    """
    return dict(DESCRIPTIONS)


def make_estimator(name: str, n_clusters: int, random_state=0, device: str = "cpu"):
    """Instantiate the estimator registered as ``name``.

    Parameters
    ----------
    name : str
        A key of :func:`available_methods`.
    n_clusters : int
    random_state : int, default 0
    device : str, default "cpu"
        Torch device of the deep methods (ignored by the others).

    Returns
    -------
    HypergraphClusterer
        An unfitted scikit-learn style estimator.

    Examples
    --------
    >>> make_estimator("spectral-zhou", 3)
    SpectralHypergraphClustering(n_clusters=3)
    """
    if name not in _CATALOG:
        raise ValueError(f"unknown method {name!r}; available: {', '.join(_CATALOG)}")
    module = importlib.import_module(_CATALOG[name][0])
    return module.METHODS[name][0](n_clusters, random_state, device)
