"""hyperclust: clustering the nodes of hypergraphs."""

from .hypergraph import CleaningReport, Hypergraph

__version__ = "0.1.0"

__all__ = ["Hypergraph", "CleaningReport", "__version__"]
