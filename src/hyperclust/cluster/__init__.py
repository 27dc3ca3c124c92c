"""Clustering estimators (scikit-learn style: ``fit(hypergraph)``, ``labels_``, ``embedding_``),
each imported on first use (``import hyperclust.cluster`` loads neither scikit-learn nor torch).

Examples
--------
>>> from hyperclust import Hypergraph
>>> from hyperclust.cluster import SpectralHypergraphClustering
>>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5]])
>>> SpectralHypergraphClustering(2, random_state=0).fit_predict(hg).tolist()
[1, 1, 1, 0, 0, 0]
"""

import importlib

from .registry import DESCRIPTIONS, METHODS, Method, available_methods, make_estimator

#: The default method, listed first here (the registry naming it would be an import circle).
_AUTO = Method("hyperclust.cluster.auto:AutoClusterer",
               "the default: fit ahcka, hgnn, spectral (on the hypergraph and on the "
               "hypergraph + attribute-kNN walk), k-means and hsbm on most of the data; keep "
               "the one that best predicts the held-out hyperedges and attribute columns",
               # on a Dask cluster, ``auto`` is spectral clustering
               distributed=METHODS["spectral-zhou"].distributed)
if "auto" not in METHODS:
    for _table, _value in ((METHODS, _AUTO), (DESCRIPTIONS, _AUTO.description)):
        _rest = dict(_table)
        _table.clear()
        _table.update({"auto": _value, **_rest})

#: ``{class name: module}`` of the registry's estimators defined in this package.
_LAZY = {m.estimator.rpartition(":")[2]: "." + m.module.rpartition(".")[2]
         for m in METHODS.values()
         if isinstance(m.estimator, str) and m.module.rpartition(".")[0] == __name__}

__all__ = [*_LAZY, "available_methods", "make_estimator"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # later look-ups (and doc tools) see a plain attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
