"""Datasets: the registry of public benchmark hypergraphs (checksummed, cached downloads)
and synthetic generators."""

from .download import ChecksumError, DownloadError
from .from_features import hypergraph_from_features
from .load import LabelLeakWarning, dataset_info, list_datasets, load_dataset
from .registry import DatasetSpec, FileSpec, register_dataset
from .resolve import resolve_dataset
from .synthetic import hypergraph_sbm, two_view_sbm

__all__ = ["load_dataset", "resolve_dataset", "list_datasets", "dataset_info", "hypergraph_sbm",
           "two_view_sbm", "hypergraph_from_features", "ChecksumError",
           "DownloadError", "LabelLeakWarning", "DatasetSpec", "FileSpec", "register_dataset"]
