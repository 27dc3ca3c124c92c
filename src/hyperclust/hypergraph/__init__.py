"""The :class:`Hypergraph`: an immutable binary incidence ``H`` (CSR, ``(n_nodes, n_edges)``)
with weights, features and labels; everything else is derived from ``H`` without forming
dense ``n x n`` matrices. The class and constructors are in :mod:`~hyperclust.hypergraph.core`.
"""

from .cleaning import CleaningReport
from .core import Hypergraph
from .ids import map_ids

__all__ = ["Hypergraph", "CleaningReport", "map_ids"]
