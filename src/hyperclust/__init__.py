"""hyperclust: clustering the nodes of hypergraphs."""

import logging

from .hypergraph import CleaningReport, Hypergraph

# The library logs on "hyperclust" and leaves output to the application (the CLI's -v/-q).
logging.getLogger(__name__).addHandler(logging.NullHandler())

__version__ = "0.1.0"

__all__ = ["Hypergraph", "CleaningReport", "__version__"]
