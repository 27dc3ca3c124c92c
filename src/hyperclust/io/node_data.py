"""Node features and labels from their own files, matched to a hypergraph's nodes by id
(README.md, "Features and labels of an edge list"): a table names its nodes in a first
``node``/``id`` column, or row ``i`` is node id ``i + index_base``.
"""

from __future__ import annotations

import dataclasses
import warnings
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph, map_ids
from ._common import encode_labels
from .edgelist import _is_float as _is_number
from .errors import DataFormatError
from .safe_pickle import load_npy
from .text_fields import file_sep, ids_from_tokens, iter_lines, split_fields

__all__ = ["read_node_table", "attach_node_data", "ID_COLUMNS"]

#: Header names of a first column that holds node ids.
ID_COLUMNS = ("node", "id", "node_id", "nodeid", "name")


def read_node_table(path, *, kind: str = "features", sep: str | None = None):
    """Read a features or labels file.

    Parameters
    ----------
    path : str or PathLike
        ``.npy`` / ``.npz`` (positional; scipy ``save_npz`` for sparse), or a text table.
    kind : {"features", "labels"}
    sep : str, optional
        Field separator of a text file; default a tab in a ``.tsv``, else commas and/or whitespace.

    Returns
    -------
    ids : ndarray or None
        The node id of each row, or None for a positional table.
    values : ndarray or CSR
        ``(n_rows, n_features)`` floats, or ``(n_rows,)`` raw labels.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "features.csv"
    ...     _ = path.write_text("node,x,y\\n12,1.0,0.0\\n10,0.5,2.0\\n")
    ...     ids, X = read_node_table(path)
    ...     _ = (pathlib.Path(d) / "labels.txt").write_text("a\\nb\\nb\\n")
    ...     label_ids, y = read_node_table(pathlib.Path(d) / "labels.txt", kind="labels")
    >>> ids.tolist(), X.tolist()
    ([12, 10], [[1.0, 0.0], [0.5, 2.0]])
    >>> label_ids, y.tolist()  # positional: row i is node index_base + i
    (None, ['a', 'b', 'b'])
    """
    if kind not in ("features", "labels"):
        raise ValueError(f"kind must be 'features' or 'labels', got {kind!r}")
    path = Path(path)
    if not path.is_file():
        raise DataFormatError("directory, not a file" if path.is_dir() else "file not found",
                              path)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        values = load_npy(path)
        if values.dtype == object:
            raise DataFormatError("an object array is not a feature or label table", path)
        return None, _shape_check(values, kind, path)
    if suffix == ".npz":
        return None, _shape_check(_read_npz(path), kind, path)
    return _read_text_table(path, sep, kind)


def _read_text_table(path: Path, sep, kind: str):
    line_no, rows = _read_rows(path, sep, kind)
    first = rows[0]
    second = next((r for r in rows[1:] if r is not None), None)
    has_header = not all(map(_is_number, first)) and (
        kind == "features" or second is not None and len(first) == len(second) and
        first[0].strip().lower() in ID_COLUMNS)
    if has_header:
        id_column = first[0].strip().lower() in ID_COLUMNS
        rows, line_no = rows[1:], line_no[1:]
    else:
        id_column = kind == "labels" and len(first) == 2
    if not rows:
        raise DataFormatError(f"no {kind} rows after the header", path)
    _check_rows(rows, line_no, id_column, kind, path)
    ids = None
    if id_column:
        ids = ids_from_tokens([r[0] for r in rows])
        rows = [r[1:] for r in rows]
    if kind == "labels":
        return ids, np.asarray([r[0] for r in rows], dtype=object)
    return ids, _feature_values(rows, line_no, path)


def _feature_values(rows, line_no, path: Path) -> np.ndarray:
    """Feature rows as float64 ``(n_rows, n_features)``; a non-number names its line."""
    try:
        values = np.asarray(rows, dtype=np.float64)
    except ValueError:
        for i, r in enumerate(rows):
            tok = next((t for t in r if not _is_number(t)), None)
            if tok is not None:
                raise DataFormatError(f"feature {tok!r} is not a number", path,
                                      line_no[i]) from None
        raise
    if values.ndim != 2 or values.shape[1] == 0:
        raise DataFormatError("no feature columns", path)
    return values


def _read_rows(path, sep, kind):
    """``(line numbers, fields)`` of a text table; blank lines kept as None for :func:`_check_rows`."""
    rows, line_no = [], []
    sep = file_sep(path, sep)
    for no, line in iter_lines(path):
        text = line.strip()
        if text.startswith("#"):
            continue
        if not text:
            rows.append(None)  # a blank line: an error in a positional table
            line_no.append(no)
            continue
        try:
            fields = split_fields(line, sep, keep_empty=True)
        except ValueError as exc:
            raise DataFormatError(str(exc), path, no) from None
        if "" in fields:
            raise DataFormatError(f"field {fields.index('') + 1} is empty (a missing value?)",
                                  path, no)
        rows.append(fields)
        line_no.append(no)
    while rows and rows[-1] is None:  # blank lines at the end shift nothing
        rows.pop()
        line_no.pop()
    while rows and rows[0] is None:
        rows.pop(0)
        line_no.pop(0)
    if not rows:
        raise DataFormatError(f"no {kind} rows", path)
    return line_no, rows


def _check_rows(rows, line_no, id_column, kind, path):
    """Every row as wide as the first; a blank line only where rows name their node."""
    blank = next((i for i, r in enumerate(rows) if r is None), None)
    if blank is not None and not id_column:
        raise DataFormatError(f"blank line inside a positional {kind} table: row i belongs to "
                              "node i + index_base, so it would shift every later row; remove "
                              f"it (or name each row's node in a first column '{ID_COLUMNS[0]}')",
                              path, line_no[blank])
    kept = [(no, r) for no, r in zip(line_no, rows) if r is not None]
    rows[:] = [r for _, r in kept]
    line_no[:] = [no for no, _ in kept]
    width = len(rows[0])
    bad = next((i for i, r in enumerate(rows) if len(r) != width), None)
    if bad is not None:
        if kind == "labels":
            raise DataFormatError("expected one label per line (or 'id,label')", path,
                                  line_no[bad])
        raise DataFormatError(f"has {len(rows[bad])} fields, the first row {width}", path,
                              line_no[bad])
    if kind == "labels" and width != (2 if id_column else 1):
        raise DataFormatError("expected one label per line (or 'id,label')", path, line_no[0])


#: An ``.npz`` may decompress to at most this many times its size (plus ``_NPZ_BASE``
#: bytes): a small zip must not allocate gigabytes before any check.
_NPZ_RATIO = 50
_NPZ_BASE = 128 << 20


def _check_npz_size(path):
    try:
        with zipfile.ZipFile(path) as zf:
            total = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataFormatError(f"not a valid .npz file ({exc})", path) from None
    size = path.stat().st_size
    if total > _NPZ_RATIO * size + _NPZ_BASE:
        raise DataFormatError(f"decompresses to {total:,} bytes from {size:,} (more than "
                              f"{_NPZ_RATIO}x); save it uncompressed (np.save, np.savez) or "
                              "sparse (scipy.sparse.save_npz)", path)


def _read_npz(path):
    _check_npz_size(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            keys = list(z.keys())
            if {"indptr", "indices", "data", "shape"} <= set(keys):
                return sp.load_npz(path).tocsr()
            if len(keys) != 1:
                raise DataFormatError(f"holds {len(keys)} arrays ({', '.join(keys[:5])}); "
                                      "save exactly one", path)
            return z[keys[0]]
    except (ValueError, OSError, EOFError) as exc:
        raise DataFormatError(f"not a valid .npz file ({exc})", path) from None


def _shape_check(values, kind, path):
    if kind == "labels":
        values = values.reshape(-1) if values.ndim == 2 and 1 in values.shape else values
        if values.ndim != 1:
            raise DataFormatError(f"labels must be one-dimensional, got shape {values.shape}",
                                  path)
        return values
    if values.ndim == 1:
        values = values.reshape(-1, 1)
    if values.ndim != 2:
        raise DataFormatError(f"features must be two-dimensional, got shape {values.shape}",
                              path)
    if values.shape[1] == 0:
        raise DataFormatError("no feature columns", path)
    if values.dtype.kind == "c":
        raise DataFormatError("features are complex numbers; save real ones (e.g. the real "
                              "and imaginary parts as two columns each)", path)
    if not sp.issparse(values) and values.dtype == bool:
        values = values.astype(np.float64)  # True/False features are 1/0
    if not sp.issparse(values) and not np.issubdtype(values.dtype, np.number):
        raise DataFormatError(f"features must be numbers, got dtype {values.dtype}", path)
    return values


def _encode(raw):
    vals = np.asarray(raw)
    if vals.dtype.kind in "OU":  # a list of str is a "<U" array, a table's column is object
        text = [str(v).strip() for v in vals.tolist()]
        if all(_is_number(t) for t in text):
            vals = np.asarray([float(t) for t in text])
        else:
            names = sorted(set(text))
            code = {s: c for c, s in enumerate(names)}
            return np.asarray([code[t] for t in text], dtype=np.int64), names
    labels, classes = encode_labels(vals)
    return labels, classes.tolist()


def attach_node_data(hg: Hypergraph, *, features=None, feature_ids=None, labels=None,
                     label_ids=None, index_base: int = 0) -> Hypergraph:
    """A copy of ``hg`` with features and/or labels matched to its nodes by id.

    Ids found only in a table become nodes in no hyperedge (with a warning); nodes a labels table
    with ids leaves out get -1.

    Parameters
    ----------
    hg : Hypergraph
    features : ndarray or sparse, shape (n_rows, n_features), optional
    feature_ids : sequence, shape (n_rows,), optional
        Node id of each feature row; default ``index_base + row``.
    labels : sequence, shape (n_rows,), optional
        Class labels (strings are coded ``0..k-1`` in sorted order).
    label_ids : sequence, optional
        Node id of each label; default ``index_base + row``.
    index_base : int
        Id of row 0 of a positional table.

    Raises
    ------
    ValueError
        A node without a feature row (or label, positional), repeated ids, or a positional
        table for string node ids.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[1, 2, 3], [3, 4]], node_ids=[1, 2, 3, 4])
    >>> out = attach_node_data(hg, labels=["b", "a", "a", "b"], label_ids=[4, 2, 3, 1])
    >>> out.labels.tolist(), out.cleaning.extra["classes"]
    ([1, 0, 0, 1], ['a', 'b'])
    >>> attach_node_data(hg, features=np.eye(3), index_base=1)
    Traceback (most recent call last):
    ...
    ValueError: node 4 has no feature row (1 nodes have none; the table has 3 rows, check index_base)
    """
    tables = _id_tables(hg, {"features": (features, feature_ids),
                             "labels": (labels, label_ids)}, index_base)
    if not tables:
        return hg
    n_old = hg.n_nodes
    all_ids = _ids_with_table_only_nodes(hg.node_ids, tables)
    n = all_ids.shape[0]
    H = sp.vstack([hg.incidence, sp.csr_matrix((n - n_old, hg.n_edges))], format="csr")
    X = hg.features
    y = hg.labels
    if y is not None and n > n_old:
        y = np.concatenate([y, np.full(n - n_old, -1, dtype=np.int64)])
    if X is not None and n > n_old:
        raise ValueError("the hypergraph already has features; cannot add nodes to it")
    classes = None
    if "features" in tables:
        X = _features_by_id(*tables["features"], all_ids, positional=feature_ids is None)
    if "labels" in tables:
        ids, values = tables["labels"]
        rows = _label_rows(ids, all_ids, positional=label_ids is None)
        codes, classes = _encode(values)
        y = np.full(n, -1, dtype=np.int64)
        y[rows] = codes
    node_names = hg.node_names
    if node_names is not None and n > n_old:
        node_names = [*node_names, *map(str, all_ids[n_old:].tolist())]
    cleaning = hg.cleaning
    if classes is not None:
        cleaning = dataclasses.replace(cleaning, extra={**cleaning.extra,
                                                        "classes": list(classes)})
    return Hypergraph(H, weights=hg.weights, features=X, labels=y, node_names=node_names,
                      edge_names=hg.edge_names, cleaning=cleaning, name=hg.name,
                      node_ids=all_ids, edge_ids=hg.edge_ids)


def _id_tables(hg: Hypergraph, given: dict, index_base: int) -> dict:
    """``{what: (ids, values)}``; a positional table gets ids ``index_base + row``."""
    tables = {}
    for what, (values, ids) in given.items():
        if values is None:
            continue
        n_rows = values.shape[0] if hasattr(values, "shape") else len(values)
        if ids is None:
            if hg.node_ids.dtype == object:
                raise ValueError(f"the node ids are names, so {what} rows cannot be matched by "
                                 f"position; give a CSV whose first column '{ID_COLUMNS[0]}' "
                                 "holds the node id")
            ids = np.arange(index_base, index_base + n_rows)
        ids = np.asarray(ids)
        if ids.shape[0] != n_rows:
            raise ValueError(f"{what}: {ids.shape[0]} ids for {n_rows} rows")
        tables[what] = (ids, values)
    return tables


def _ids_with_table_only_nodes(all_ids: np.ndarray, tables: dict) -> np.ndarray:
    """The node ids, then ids found only in the tables (with a warning)."""
    extra_parts = []
    for ids, _ in tables.values():
        try:
            map_ids(ids, all_ids)
        except ValueError:
            known = set(map(str, all_ids.tolist()))
            extra_parts.append([i for i in ids.tolist() if str(i) not in known])
    if not extra_parts:
        return all_ids
    extra = list(dict.fromkeys(x for part in extra_parts for x in part))
    if all_ids.dtype != object and all(isinstance(x, (int, np.integer)) for x in extra):
        all_ids = np.concatenate([all_ids, np.asarray(extra, dtype=np.int64)])
    else:
        all_ids = np.asarray([*map(str, all_ids.tolist()), *map(str, extra)], dtype=object)
    warnings.warn(f"{len(extra)} node ids of the {'/'.join(tables)} file(s) are in no "
                  f"hyperedge (e.g. {extra[0]!r}); they are kept as nodes in no hyperedge",
                  stacklevel=3)
    return all_ids


def _rows_of(ids, all_ids: np.ndarray, what: str) -> np.ndarray:
    """The node position of each table row; a node on two rows is an error."""
    rows, _ = map_ids(ids, all_ids)
    if np.unique(rows).size != rows.size:
        raise ValueError(f"{what}: a node id occurs on more than one row")
    return rows


def _label_rows(ids, all_ids: np.ndarray, *, positional: bool) -> np.ndarray:
    """Node position of each label row; a positional table must cover every node."""
    rows = _rows_of(ids, all_ids, "labels")
    n = all_ids.shape[0]
    if positional and rows.size < n:
        missing = np.setdiff1d(np.arange(n), rows)
        raise ValueError(f"node {all_ids.tolist()[missing[0]]!r} has no label: a positional "
                         f"labels table needs one row per node ({rows.size} rows for {n} "
                         "nodes; check index_base), or name each row's node in a first "
                         f"column '{ID_COLUMNS[0]}'")
    return rows


def _features_by_id(ids, values, all_ids: np.ndarray, *, positional: bool):
    """The feature rows in node order; a node without a row is an error."""
    n = all_ids.shape[0]
    rows = _rows_of(ids, all_ids, "features")
    if rows.size != n:
        covered = np.zeros(n, dtype=bool)
        covered[rows] = True
        missing = np.flatnonzero(~covered)
        raise ValueError(f"node {all_ids.tolist()[missing[0]]!r} has no feature row ({missing.size} "
                         f"nodes have none; the table has {rows.size} rows"
                         + (", check index_base" if positional else "") + ")")
    return values[np.argsort(rows)]
