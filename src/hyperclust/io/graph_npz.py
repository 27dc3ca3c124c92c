"""Format F: a graph in one ``.npz`` (``edges``, ``node_labels``, ``node_features``) read as a
hypergraph of closed neighbourhoods.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ._common import build, encode_labels
from .errors import DataFormatError

__all__ = ["GRAPH_HYPEREDGES", "read_graph_npz"]

GRAPH_HYPEREDGES = ("neighbourhood", "edges")
"""How :func:`read_graph_npz` turns a graph into hyperedges."""


def _graph_pairs(edges, hyperedges):
    """(member, hyperedge) pairs and count: ``{v} + N(v)`` per node with a neighbour, or one per edge."""
    e = edges[edges[:, 0] != edges[:, 1]]
    if hyperedges == "edges":
        e = np.unique(np.sort(e, axis=1), axis=0)
        return e.ravel(), np.repeat(np.arange(e.shape[0]), 2), e.shape[0]
    both = np.unique(np.concatenate([e, e[:, ::-1]]), axis=0)  # (centre, neighbour), sorted
    centres, first = np.unique(both[:, 0], return_index=True)
    own = np.repeat(np.arange(centres.size), np.diff(np.append(first, both.shape[0])))
    return (np.concatenate([centres, both[:, 1]]),
            np.concatenate([np.arange(centres.size), own]), centres.size)


def _graph_arrays(path):
    """``(edges, labels, classes, features)`` of a format F file, checked; features CSR float32."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in ("edges", "node_labels", "node_features") if k in z}
    except (OSError, ValueError) as exc:  # not a zip / an object array
        raise DataFormatError(f"not a readable .npz of numeric arrays ({exc})", path) from None
    edges = arrays.get("edges")
    if edges is None:
        raise DataFormatError("no 'edges' array", path)
    if edges.ndim != 2 or edges.shape[1] != 2 or not np.issubdtype(edges.dtype, np.integer):
        raise DataFormatError(f"'edges' must be integer pairs (E x 2), got {edges.dtype} "
                              f"{edges.shape}", path)
    labels = classes = None
    if "node_labels" in arrays:
        labels, classes = encode_labels(arrays["node_labels"], path)
    X = arrays.get("node_features")
    if X is not None:
        if X.ndim != 2 or not np.issubdtype(X.dtype, np.number):
            raise DataFormatError(f"node_features must be a numeric matrix, got {X.dtype} "
                                  f"{X.shape}", path)
        X = sp.csr_matrix(X, dtype=np.float32)
    return edges.astype(np.int64), labels, classes, X


def read_graph_npz(path, *, hyperedges: str = "neighbourhood", name=None,
                   **options) -> Hypergraph:
    """Read a graph stored as one ``.npz`` (format F) as a hypergraph.

    Parameters
    ----------
    path : str or PathLike
        ``edges`` (E x 2, 0-based, undirected), ``node_labels`` (n), ``node_features`` (n x d,
        optional); other arrays are ignored.
    hyperedges : {"neighbourhood", "edges"}
        One hyperedge ``{v} + N(v)`` per node with a neighbour, or one per distinct edge.
        Self-loops are dropped.
    name : str, optional
        Display name; default the file's stem.
    **options
        ``duplicates`` (default ``"drop"``), ``singletons``, ``empty``.

    Returns
    -------
    Hypergraph
        Features as CSR float32; ``cleaning.extra["graph_edges"]`` the edges in the file.

    Examples
    --------
    A path 0-1-2, a duplicated edge, a self-loop and an isolated node 3:

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "toy.npz"
    ...     np.savez(path, edges=np.array([[0, 1], [1, 0], [1, 2], [3, 3]]),
    ...              node_labels=np.array([5, 5, 7, 7]), node_features=np.eye(4))
    ...     hg = read_graph_npz(path)
    ...     graph = read_graph_npz(path, hyperedges="edges")
    >>> [e.tolist() for e in hg.edges()], hg.isolated.tolist(), hg.labels.tolist()
    ([[0, 1], [0, 1, 2], [1, 2]], [False, False, False, True], [0, 0, 1, 1])
    >>> [e.tolist() for e in graph.edges()]
    [[0, 1], [1, 2]]
    """
    if hyperedges not in GRAPH_HYPEREDGES:
        raise ValueError(f"hyperedges must be one of {', '.join(GRAPH_HYPEREDGES)}, "
                         f"got {hyperedges!r}")
    path = Path(path)
    edges, labels, classes, X = _graph_arrays(path)
    n = labels.shape[0] if labels is not None else int(edges.max(initial=-1)) + 1
    bad = np.flatnonzero((edges < 0).any(axis=1) | (edges >= n).any(axis=1))
    if bad.size:
        raise DataFormatError(f"edge {bad[0]} ({edges[bad[0]].tolist()}) has a node id "
                              f"outside [0, {n - 1}] ({bad.size} such edges)", path)
    if X is not None and X.shape[0] != n:
        raise DataFormatError(f"node_features have {X.shape[0]} rows, expected {n}", path)
    nodes, eids, m = _graph_pairs(edges, hyperedges)
    notes = {"format": "F", "source": str(path), "raw_edges": int(m),
             "graph_edges": int(edges.shape[0]), "hyperedges": hyperedges}
    if classes is not None:
        notes["classes"] = classes.tolist()
    return build(nodes, eids, n, m, labels=labels, features=X, name=name or path.stem,
                 notes=notes, **{"duplicates": "drop", **options})
