"""Clustering estimators (scikit-learn style: ``fit(hypergraph)``, ``labels_``, ``embedding_``).

Every estimator is imported on first use, so that ``import hyperclust.cluster`` loads neither
scikit-learn nor torch (listing the methods stays cheap); ``UniDHC`` needs torch only to fit.

Examples
--------
>>> from hyperclust import Hypergraph
>>> from hyperclust.cluster import SpectralHypergraphClustering
>>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5]])
>>> SpectralHypergraphClustering(2, random_state=0).fit_predict(hg).tolist()
[1, 1, 1, 0, 0, 0]
"""

import importlib

from .registry import available_methods, make_estimator

__all__ = ["AutoClusterer", "AHCKA", "UniDHC", "SpectralHypergraphClustering",
           "SignedSpectralClustering", "KMeansFeatures", "HGNNSmoothingKMeans",
           "available_methods", "make_estimator"]

_LAZY = {"AutoClusterer": ".auto", "AHCKA": ".ahcka",
         "UniDHC": ".unidhc", "SpectralHypergraphClustering": ".spectral",
         "SignedSpectralClustering": ".signed",
         "KMeansFeatures": ".baselines", "HGNNSmoothingKMeans": ".baselines"}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # later look-ups (and doc tools) see a plain attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
