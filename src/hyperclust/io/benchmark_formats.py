"""Readers for the benchmark formats A-F of ``shared/data/README.md`` (README.md, "Input formats").

Labels are coded ``0..k-1`` in sorted order of the raw labels, kept in
``hg.cleaning.extra["classes"]``; ``duplicates=``, ``singletons=``, ``empty=`` pass to the
constructor's cleaning.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ._common import (build, check_id_range, encode_labels, parse_int_lines, read_text,
                      require_dir)
from .errors import DataFormatError
from .safe_pickle import load_npy, safe_load

__all__ = [
    "read_hypergcn", "read_benson", "read_hsbm", "read_benson_edge_labelled",
    "read_edge_labels",
]

def _dict_of_edges(obj, path):
    """Flatten a dict hyperedge -> node ids into (node ids, sizes, names)."""
    if not isinstance(obj, dict):
        raise DataFormatError(f"expected a dict hyperedge -> node ids, got {type(obj).__name__}", path)
    keys = list(obj.keys())
    vals = list(obj.values())
    for k, v in zip(keys, vals):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
            raise DataFormatError(f"hyperedge {k!r} is a {type(v).__name__}, not a collection of "
                                  "node ids", path)
    sizes = np.fromiter(map(len, vals), dtype=np.int64, count=len(vals))
    flat = np.asarray(list(itertools.chain.from_iterable(vals)))
    if flat.size == 0:
        flat = np.zeros(0, np.int64)
    elif not np.issubdtype(flat.dtype, np.integer):
        if np.issubdtype(flat.dtype, np.floating) and np.all(flat == np.round(flat)):
            flat = flat.astype(np.int64)
        else:
            pos = 0 if flat.dtype == object else int(np.flatnonzero(flat != np.round(flat))[0])
            rec = int(np.searchsorted(np.cumsum(sizes), pos, side="right"))
            raise DataFormatError(f"hyperedge {keys[rec]!r} has a non-integer node id "
                                  f"({flat.ravel()[pos]!r})", path)
    flat = flat.astype(np.int64, copy=False)
    names = [k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k) for k in keys]
    return flat, sizes, names


def _check_dict_ids(flat, sizes, names, n, path, base=0):
    if flat.size == 0:
        return
    bad = np.flatnonzero((flat < base) | (flat >= n + base))
    if bad.size:
        rec = int(np.searchsorted(np.cumsum(sizes), bad[0], side="right"))
        raise DataFormatError(f"hyperedge {names[rec]!r} has node id {flat[bad[0]]}, outside "
                              f"[{base}, {n + base - 1}] ({bad.size} such entries)", path)


# ---------------------------------------------------------------------------------- format A
def _n_nodes(flat, labels) -> int:
    """One node per label when there are labels, else up to the largest member id."""
    if labels is not None:
        return labels.shape[0]
    return int(flat.max()) + 1 if flat.size else 0


def _edges_and_labels(obj, hpath, lpath, load):
    """Members, sizes, names of dict ``obj``'s hyperedges and the labels of ``lpath``, ids checked."""
    flat, sizes, names = _dict_of_edges(obj, hpath)
    labels = classes = None
    if lpath.is_file():
        labels, classes = encode_labels(load(lpath), lpath)
    _check_dict_ids(flat, sizes, names, _n_nodes(flat, labels), hpath)
    return flat, sizes, names, labels, classes


def read_hypergcn(directory, *, features: bool = True, name=None, **options) -> Hypergraph:
    """Read a HyperGCN-style directory (format A).

    Parameters
    ----------
    directory : str or PathLike
        Holds ``hypergraph.pickle`` and optionally ``labels.pickle``, ``features.pickle``.
    features : bool
        Load ``features.pickle`` when present.
    name : str, optional
        Display name; default the directory name.
    **options
        ``duplicates``, ``singletons``, ``empty`` for :meth:`Hypergraph.from_pairs`.

    Examples
    --------
    >>> import pathlib, pickle, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     _ = (d / "hypergraph.pickle").write_bytes(pickle.dumps({"e0": [0, 1, 2], "e1": [2, 3]}))
    ...     _ = (d / "labels.pickle").write_bytes(pickle.dumps([7, 7, 9, 9]))
    ...     hg = read_hypergcn(d)
    >>> [e.tolist() for e in hg.edges()], hg.labels.tolist(), hg.cleaning.extra["classes"]
    ([[0, 1, 2], [2, 3]], [0, 0, 1, 1], [7, 9])
    """
    d = require_dir(directory)
    hpath = d / "hypergraph.pickle"
    if not hpath.is_file():
        raise DataFormatError("hypergraph.pickle not found", d)
    flat, sizes, names, labels, classes = _edges_and_labels(
        safe_load(hpath), hpath, d / "labels.pickle", safe_load)
    n = _n_nodes(flat, labels)
    X = None
    fpath = d / "features.pickle"
    if features and fpath.is_file():
        X = safe_load(fpath)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        elif isinstance(X, np.ndarray) and X.dtype != object:
            pass
        else:
            raise DataFormatError(f"features must be a scipy.sparse matrix or numeric array, "
                                  f"got {type(X).__name__}", fpath)
        if X.ndim != 2 or X.shape[0] != n:
            raise DataFormatError(f"features have shape {X.shape}, expected {n} rows (one per "
                                  "label)", fpath)
    eids = np.repeat(np.arange(sizes.size), sizes)
    notes = {"format": "A", "source": str(d), "raw_edges": int(sizes.size)}
    if classes is not None:
        notes["classes"] = classes.tolist()
    return build(flat, eids, n, sizes.size, labels=labels, features=X, edge_names=names,
                 name=name or d.name, notes=notes, **options)


# ---------------------------------------------------------------------------------- format B
def _name_lines(path, expected=None):
    lines = read_text(path).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if expected is not None and len(lines) != expected:
        raise DataFormatError(f"has {len(lines)} lines, expected {expected}", path)
    return [ln.strip() for ln in lines]


def _benson_name(d: Path, stem: str) -> str:
    found = sorted(d.glob(f"{stem}-*.txt"))
    if not found:
        raise DataFormatError(f"no {stem}-NAME.txt file", d)
    if len(found) > 1:
        raise DataFormatError(f"several {stem}-NAME.txt files "
                              f"({', '.join(p.name for p in found)})", d)
    return found[0].name[len(stem) + 1:-4]


def read_benson(directory, *, dataset: str | None = None, name=None, **options) -> Hypergraph:
    """Read a Benson/Chodrow node-labelled directory (format C); ``node_ids`` are the 1-based file ids.

    Parameters
    ----------
    directory : str or PathLike
    dataset : str, optional
        The ``NAME`` in ``hyperedges-NAME.txt``; found automatically when unique.
    name, **options
        As for :func:`read_hypergcn`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     _ = (d / "hyperedges-toy.txt").write_text("1,2,3\\n3,4\\n")
    ...     _ = (d / "node-labels-toy.txt").write_text("1\\n1\\n2\\n2\\n2\\n")  # node 5 kept
    ...     hg = read_benson(d)
    >>> [e.tolist() for e in hg.edges()], hg.labels.tolist(), hg.node_ids.tolist()
    ([[0, 1, 2], [2, 3]], [0, 0, 1, 1, 1], [1, 2, 3, 4, 5])
    """
    d = require_dir(directory)
    ds = dataset or _benson_name(d, "hyperedges")
    epath = d / f"hyperedges-{ds}.txt"
    lpath = d / f"node-labels-{ds}.txt"
    if not epath.is_file():
        raise DataFormatError("file not found", epath)
    vals, sizes, line_no = parse_int_lines(epath, what="node id")
    labels = classes = None
    notes = {"format": "C", "source": str(d), "raw_edges": int(sizes.size)}
    if lpath.is_file():
        lv, ls, lno = parse_int_lines(lpath, what="label")
        while ls.size and ls[-1] == 0:  # trailing blank lines
            ls, lno = ls[:-1], lno[:-1]
        bad = np.flatnonzero(ls != 1)
        if bad.size:
            raise DataFormatError(f"expected one label per line, got {ls[bad[0]]} (multi-label "
                                  "nodes are not supported)", lpath, int(lno[bad[0]]))
        labels, classes = encode_labels(lv, lpath)
        n = labels.shape[0]
        notes["classes"] = classes.tolist()
        npath = d / f"label-names-{ds}.txt"
        if npath.is_file():
            names = _name_lines(npath)
            if classes.size and classes.min() >= 1 and classes.max() <= len(names):
                notes["class_names"] = [names[c - 1] for c in classes]
            else:
                warnings.warn(f"{npath}: {len(names)} names do not cover the labels "
                              f"{classes.min()}..{classes.max()}; class names ignored", stacklevel=2)
    else:
        n = int(vals.max()) if vals.size else 0
    check_id_range(vals, sizes, line_no, 1, n, epath)
    node_names = None
    nnpath = d / f"node-names-{ds}.txt"
    if nnpath.is_file():
        node_names = _name_lines(nnpath, expected=n)
    eids = np.repeat(np.arange(sizes.size), sizes)
    return build(vals - 1, eids, n, sizes.size, labels=labels, node_names=node_names,
                 name=name or d.name, notes=notes, node_ids=np.arange(1, n + 1), **options)


# ---------------------------------------------------------------------------------- format D
def read_hsbm(directory, *, name=None, **options) -> Hypergraph:
    """Read an HSBM sweep directory (format D) with the restricted unpickler.

    Parameters
    ----------
    directory : str or PathLike
        ``hyperedge.npy`` (0-d object array: dict hyperedge -> node ids) and ``labels.npy``.
    name, **options
        As for :func:`read_hypergcn`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     np.save(d / "hyperedge.npy", np.array({0: [0, 1, 2], 1: [2, 3]}), allow_pickle=True)
    ...     np.save(d / "labels.npy", np.array([0, 0, 1, 1]))
    ...     hg = read_hsbm(d)
    >>> hg.n_nodes, [e.tolist() for e in hg.edges()], hg.labels.tolist()
    (4, [[0, 1, 2], [2, 3]], [0, 0, 1, 1])
    """
    d = require_dir(directory)
    hpath, lpath = d / "hyperedge.npy", d / "labels.npy"
    arr = load_npy(hpath)
    obj = arr.item() if arr.dtype == object and arr.shape == () else arr
    flat, sizes, names, labels, classes = _edges_and_labels(obj, hpath, lpath, load_npy)
    n = _n_nodes(flat, labels)
    notes = {"format": "D", "source": str(d), "raw_edges": int(sizes.size)}
    if classes is not None:
        notes["classes"] = classes.tolist()
    eids = np.repeat(np.arange(sizes.size), sizes)
    return build(flat, eids, n, sizes.size, labels=labels, edge_names=names,
                 name=name or d.name, notes=notes, **options)


# ---------------------------------------------------------------------------------- format E
def read_edge_labels(path, n_classes: int | None = None, *, _stacklevel: int = 2):
    """Read a hyperedge-label file (one 1-based label per line); corrupt lines warn.

    Parameters
    ----------
    path : str or PathLike
    n_classes : int, optional
        Labels must lie in ``1..n_classes`` (default: any positive integer).

    Returns
    -------
    labels : ndarray of int64, shape (n_lines,)
        0-based labels; ``-1`` for a corrupt line.
    bad_lines : list of int
        1-based numbers of the corrupt lines.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "hyperedge-labels.txt"
    ...     _ = path.write_text("1\\n2\\nx\\n3\\n")
    ...     labels, bad = read_edge_labels(path, n_classes=2)
    >>> labels.tolist(), bad  # lines 3 ('x') and 4 (above n_classes) are corrupt
    ([0, 1, -1, -1], [3, 4])
    """
    lines = read_text(path).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    toks = [ln.strip() for ln in lines]
    out = np.full(len(toks), -1, dtype=np.int64)
    ok = np.array([t.isdigit() for t in toks], dtype=bool)
    if ok.any():
        out[ok] = np.array(list(itertools.compress(toks, ok)), dtype=np.int64)
    high = n_classes if n_classes is not None else np.iinfo(np.int64).max
    valid = ok & (out >= 1) & (out <= high)
    bad_lines = (np.flatnonzero(~valid) + 1).tolist()
    for ln in bad_lines[:5]:
        warnings.warn(f"{path}:{ln}: hyperedge label {toks[ln - 1]!r} is not in 1..{n_classes or 'inf'};"
                      " treated as unlabelled (-1)", stacklevel=_stacklevel)
    out = np.where(valid, out - 1, -1)
    return out, bad_lines


def read_benson_edge_labelled(directory, *, n_nodes: int | None = None, name=None,
                              **options) -> Hypergraph:
    """Read a Benson hyperedge-labelled directory (format E): no node labels.

    Hyperedges are named by their 1-based line, to match :func:`read_edge_labels`; corrupt
    labels land in ``hg.cleaning.extra["corrupt_edge_label_lines"]``.

    Parameters
    ----------
    directory : str or PathLike
        ``hyperedges.txt``, optional ``hyperedge-labels.txt`` and ``hyperedge-label-identities.txt``.
    n_nodes : int, optional
        Number of nodes; default the largest (1-based) node id.
    name, **options
        As for :func:`read_hypergcn`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     _ = (d / "hyperedges.txt").write_text("1\\t2\\t3\\n3\\t4\\n")
    ...     hg = read_benson_edge_labelled(d, n_nodes=5)
    >>> hg.n_nodes, [e.tolist() for e in hg.edges()], list(hg.edge_names), hg.labels is None
    (5, [[0, 1, 2], [2, 3]], ['1', '2'], True)
    """
    d = require_dir(directory)
    epath = d / "hyperedges.txt"
    vals, sizes, line_no = parse_int_lines(epath, what="node id")
    n = int(n_nodes) if n_nodes is not None else (int(vals.max()) if vals.size else 0)
    check_id_range(vals, sizes, line_no, 1, n, epath)
    notes = {"format": "E", "source": str(d), "raw_edges": int(sizes.size)}
    lpath = d / "hyperedge-labels.txt"
    if lpath.is_file():
        ipath = d / "hyperedge-label-identities.txt"
        k = len(_name_lines(ipath)) if ipath.is_file() else None
        edge_labels, bad = read_edge_labels(lpath, k, _stacklevel=3)
        if edge_labels.shape[0] != sizes.size:
            raise DataFormatError(f"has {edge_labels.shape[0]} labels for {sizes.size} "
                                  "hyperedges", lpath)
        notes["edge_label_file"] = str(lpath)
        notes["corrupt_edge_label_lines"] = bad
    eids = np.repeat(np.arange(sizes.size), sizes)
    return build(vals - 1, eids, n, sizes.size, edge_names=[str(x) for x in line_no],
                 name=name or d.name, notes=notes, node_ids=np.arange(1, n + 1), **options)
