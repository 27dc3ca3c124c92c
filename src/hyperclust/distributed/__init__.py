"""hyperclust past one machine: partitioned hypergraphs on disk and the methods on Dask.

* :func:`partition_edgelists` / :func:`write_partitioned` / :class:`PartitionedHypergraph`:
  row blocks + hyperedge partitions as ``.npz`` files with a JSON manifest, built from
  edge-list files without holding the whole in one process;
* :mod:`~hyperclust.distributed.operator`: ``P X`` (and Zhou's normalized affinity) as two
  map-reduce phases over the blocks; :mod:`~hyperclust.distributed.basis`: the power basis
  written per block; :mod:`~hyperclust.distributed.linalg`: TSQR and block products;
  :mod:`~hyperclust.distributed.knn`: the exact cosine kNN affinity of the node features
  per block; :mod:`~hyperclust.distributed.walk`: AHCKA's mixed walk on the blocks;
* :class:`DistributedSpectralClustering` (Chebyshev-filtered subspace iteration + block
  k-means), :class:`DistributedAHCKA` (AHCKA, with the attribute kNN walk) and
  :class:`DistributedUniDHC` (Uni-DHC trained on mini-batches read from the basis written
  per block).

Everything that runs on a cluster takes ``client=`` (a ``dask.distributed.Client``, a
scheduler address, or None for a local cluster). The Dask parts need the ``distributed``
extra (``pip install "hyperclust[distributed]"``); see docs/distributed.md.
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
