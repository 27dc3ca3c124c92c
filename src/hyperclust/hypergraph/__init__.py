"""The :class:`Hypergraph`: an immutable incidence matrix with weights, features and labels.

One representation serves every algorithm: the incidence ``H`` as a scipy CSR matrix of
shape ``(n_nodes, n_edges)`` with ``H[v, e] = 1`` when node ``v`` is a member of hyperedge
``e``. Everything else (operators, statistics, subsets) is derived from it without forming
dense ``n x n`` matrices.

Modules: :mod:`~hyperclust.hypergraph.core` (the class and its constructors),
:mod:`~hyperclust.hypergraph.construction` (raw input as an incidence matrix),
:mod:`~hyperclust.hypergraph.ids` (user ids against positions),
:mod:`~hyperclust.hypergraph.validation` (checks of weights, features, labels, names),
:mod:`~hyperclust.hypergraph.cleaning` (duplicates, singletons, empty hyperedges),
:mod:`~hyperclust.hypergraph.subhypergraphs` (induced sub-hypergraphs, components),
:mod:`~hyperclust.hypergraph.statistics` (homophily, summary).
"""

from .cleaning import CleaningReport
from .core import Hypergraph
from .ids import map_ids

__all__ = ["Hypergraph", "CleaningReport", "map_ids"]
