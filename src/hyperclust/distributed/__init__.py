"""hyperclust past one machine: partitioned hypergraphs on disk and the methods on Dask.

:func:`partition_edgelists`, :func:`write_partitioned` and :class:`PartitionedHypergraph`
write and read the blocks; :class:`DistributedSpectralClustering`, :class:`DistributedAHCKA`
and :class:`DistributedUniDHC` fit on them. Needs ``pip install "hyperclust[distributed]"``;
see docs/distributed.md.
"""

from .partition import partition_edgelists, write_partitioned
from .partitioned import PartitionedHypergraph


def _twins() -> dict:
    """``{class: module}`` of the methods' Dask twins, read from the method registry."""
    from ..cluster.registry import METHODS

    return {cls: "." + module for module, _, cls in
            (m.distributed.estimator.partition(":") for m in METHODS.values() if m.distributed)}


__all__ = ["partition_edgelists", "write_partitioned", "PartitionedHypergraph", *_twins()]


def __getattr__(name):
    # the estimators import scikit-learn: loaded on first use, so that the CLI's parser
    # (which registers `hyperclust partition` from this package) stays light
    twins = _twins()
    if name in twins:
        import importlib

        return getattr(importlib.import_module(twins[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
