"""Clustering estimators (scikit-learn style: ``fit(hypergraph)``, ``labels_``, ``embedding_``).

``UniDHC`` is imported on first use, so that ``import hyperclust.cluster`` does not load torch.
"""

from .ahcka import AHCKA
from .auto import AutoClusterer
from .baselines import HGNNSmoothingKMeans, KMeansFeatures
from .registry import available_methods, make_estimator
from .spectral import SpectralHypergraphClustering

__all__ = ["UniDHC", "AHCKA", "AutoClusterer", "SpectralHypergraphClustering", "KMeansFeatures", "HGNNSmoothingKMeans",
           "available_methods", "make_estimator"]


def __getattr__(name):
    if name == "UniDHC":
        from .unidhc import UniDHC

        return UniDHC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
