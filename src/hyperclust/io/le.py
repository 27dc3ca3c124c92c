"""The LE / LEGCN directory format (format B): ``NAME.content`` and ``NAME.edges``."""

from __future__ import annotations

import numpy as np

from ..hypergraph import Hypergraph
from ._common import build, encode_labels, parse_int_lines, read_text, require_dir, single_match
from .errors import DataFormatError

__all__ = ["read_le"]


def read_le(directory, *, name=None, **options) -> Hypergraph:
    """Read an LE-style directory (format B).

    Node ``i`` is row ``i`` of ``.content`` (``id feature... label``); ``.edges`` lines
    ``node_id hyperedge_id`` name nodes by that id and hyperedges by ``n + j``.

    Parameters
    ----------
    directory : str or PathLike
        Holds exactly one ``NAME.content`` and its ``NAME.edges``.
    name, **options
        As for :func:`~hyperclust.io.benchmark_formats.read_hypergcn`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     _ = (d / "toy.content").write_text("10 0.5 1\\n11 0.1 1\\n12 0.9 2\\n13 0.3 2\\n")
    ...     _ = (d / "toy.edges").write_text("10 4\\n11 4\\n12 4\\n12 5\\n13 5\\n")
    ...     hg = read_le(d)
    >>> [e.tolist() for e in hg.edges()], hg.labels.tolist(), hg.node_ids.tolist()
    ([[0, 1, 2], [2, 3]], [0, 0, 1, 1], [10, 11, 12, 13])
    """
    d = require_dir(directory)
    cpath = single_match(d, "*.content", ".content")
    if cpath is None:
        raise DataFormatError("no .content file", d)
    epath = cpath.with_suffix(".edges")
    if not epath.is_file():
        raise DataFormatError(f"{epath.name} not found next to {cpath.name}", d)
    table, ids, order = _read_content(cpath)
    n = ids.shape[0]
    labels, classes = encode_labels(table[:, -1], cpath)
    X = np.ascontiguousarray(table[:, 1:-1])
    nodes, raw_e = _read_le_pairs(epath, ids[order], order, cpath.name)
    edge_ids, eidx = np.unique(raw_e, return_inverse=True)
    notes = {"format": "B", "source": str(d), "raw_edges": int(edge_ids.size),
             "classes": classes.tolist()}
    return build(nodes, eidx.reshape(-1), n, edge_ids.size, labels=labels, features=X,
                 edge_names=[str(e + n) for e in edge_ids], name=name or d.name, notes=notes,
                 node_ids=ids, **options)


def _read_content(cpath):
    """``(table, int64 ids, stable order sorting the ids)`` of a ``.content`` file."""
    rows = read_text(cpath).split("\n")
    try:
        table = np.loadtxt(rows, dtype=np.float64, ndmin=2)
    except ValueError as exc:
        raise DataFormatError(f"malformed table ({exc})", cpath) from None
    if table.shape[1] < 2:
        raise DataFormatError("rows must hold an id, features and a label", cpath)
    ids = table[:, 0]
    if np.any(ids != np.round(ids)):
        row = int(np.flatnonzero(ids != np.round(ids))[0])
        raise DataFormatError(f"node id {ids[row]!r} is not an integer", cpath, row + 1)
    if ids.size and np.abs(ids).max() >= 2.0**53:  # read as float64: beyond 2^53 ids merge
        row = int(np.argmax(np.abs(ids)))
        raise DataFormatError("node id beyond 2^53 cannot be read exactly from a .content "
                              "table; renumber the nodes", cpath, row + 1)
    ids = ids.astype(np.int64)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    dup = np.flatnonzero(sorted_ids[1:] == sorted_ids[:-1])
    if dup.size:
        raise DataFormatError(f"node id {sorted_ids[dup[0]]} appears twice", cpath,
                              int(order[dup[0] + 1]) + 1)
    return table, ids, order


def _read_le_pairs(epath, sorted_ids, order, content_name: str):
    """``(node row, hyperedge id - n)`` of each ``.edges`` line, ids checked."""
    n = sorted_ids.shape[0]
    vals, sizes, line_no = parse_int_lines(epath, skip_blank=True, comment="#", what="id")
    bad = np.flatnonzero(sizes != 2)
    if bad.size:
        raise DataFormatError(f"expected 'node_id hyperedge_id', got {sizes[bad[0]]} fields",
                              epath, int(line_no[bad[0]]))
    pairs = vals.reshape(-1, 2)
    pos = np.searchsorted(sorted_ids, pairs[:, 0])
    pos = np.minimum(pos, n - 1)
    unknown = np.flatnonzero(sorted_ids[pos] != pairs[:, 0]) if n else np.arange(pairs.shape[0])
    if unknown.size:
        raise DataFormatError(f"node id {pairs[unknown[0], 0]} is not in {content_name} "
                              f"({unknown.size} such rows)", epath, int(line_no[unknown[0]]))
    raw_e = pairs[:, 1] - n
    low = np.flatnonzero(raw_e < 0)
    if low.size:
        raise DataFormatError(f"hyperedge id {pairs[low[0], 1]} is below the offset n={n}",
                              epath, int(line_no[low[0]]))
    return order[pos], raw_e
