"""hyperclust past one machine: partitioned hypergraphs on disk and the methods on Dask.

* :func:`partition_edgelists` / :class:`PartitionedHypergraph`: row blocks + hyperedge
  partitions as ``.npz`` files with a JSON manifest, built from edge-list files;

Everything that runs on a cluster takes ``client=`` (a ``dask.distributed.Client``, a
scheduler address, or None for a local cluster). Needs the ``distributed`` extra
(``pip install "hyperclust[distributed]"``) for the Dask parts.
"""

from .partition import partition_edgelists, write_partitioned
from .partitioned import PartitionedHypergraph
from .ahcka import DistributedAHCKA
from .spectral import DistributedSpectralClustering

__all__ = ["partition_edgelists", "write_partitioned", "PartitionedHypergraph",
           "DistributedSpectralClustering", "DistributedAHCKA"]
