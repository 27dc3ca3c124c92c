"""Readers and writers: the public benchmark formats, HIF JSON, hypergraphx JSON, plain
hyperedge lists and (node, hyperedge) pairs, all returning :class:`~hyperclust.Hypergraph`; a restricted unpickler."""

from .auto import read_hypergraph
from .benchmark_formats import (read_benson, read_benson_edge_labelled, read_edge_labels,
                                read_hsbm, read_hypergcn)
from .formats import FORMAT_NAMES, FORMATS, Format, canonical_format, detect_format, register_format
from .edgelist import read_edgelist, write_edgelist
from .errors import DataFormatError
from .hif import from_hif, hif_schema, read_hif, to_hif, validate_hif, write_hif
from .hypergraphx import read_hypergraphx
from .le import read_le
from .pairs import read_pairs, write_pairs
from .node_data import attach_node_data, read_node_table
from .safe_pickle import UnsafePickleError, load_npy, safe_load, safe_loads

__all__ = [
    "read_hypergraph", "FORMAT_NAMES", "canonical_format", "DataFormatError", "UnsafePickleError", "safe_load", "safe_loads",
    "load_npy", "FORMATS", "Format", "register_format", "detect_format", "read_hypergcn", "read_le", "read_benson",
    "read_hsbm", "read_benson_edge_labelled", "read_edge_labels", "read_edgelist",
    "write_edgelist", "read_pairs", "write_pairs", "read_hif", "write_hif", "from_hif", "to_hif", "validate_hif",
    "hif_schema", "read_hypergraphx", "attach_node_data", "read_node_table",
]
