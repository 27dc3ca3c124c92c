"""Plain hyperedge lists: one hyperedge per line, optionally a weight as the last field; the
writer's header comment (``n_nodes``, ``index_base``, ``weighted``) makes isolated nodes and
weights survive a round trip.
"""

from __future__ import annotations

import itertools
import re
import warnings
from pathlib import Path

import numpy as np

from ..hypergraph import Hypergraph, map_ids
from ._common import build, check_id_range, tokens_to_ints
from .errors import DataFormatError
from .text_fields import (all_canonical, file_sep, ids_from_tokens, is_canonical_int,
                          iter_lines, quote_field, split_fields)

__all__ = ["read_edgelist", "write_edgelist"]

_HEADER = "# hyperclust hyperedge list:"
_HEADER_RE = re.compile(r"(n_nodes|index_base|weighted)=(\S+)")


def _parse_header(lines, path):
    info = {}
    for ln in lines:
        if ln.startswith(_HEADER):
            for key, val in _HEADER_RE.findall(ln):
                info[key] = val
    try:
        out = {}
        if "n_nodes" in info:
            out["n_nodes"] = int(info["n_nodes"])
        if "index_base" in info:
            out["index_base"] = int(info["index_base"])
        if "weighted" in info:
            out["weighted"] = info["weighted"].lower() in ("1", "true", "yes")
        return out
    except ValueError:
        raise DataFormatError(f"malformed header {info}", path, 1) from None


def read_edgelist(path, *, n_nodes: int | None = None, index_base: int | None = None,
                  weighted: bool | None = None, sep: str | None = None,
                  header: bool | None = None, name=None, **options) -> Hypergraph:
    """Read a hyperedge list (``.txt``, ``.csv``, ``.tsv``): one hyperedge per line.

    Every distinct token is a node (README.md, "Input formats", gives the id rule); a header
    ``n_nodes=N index_base=B`` (as :func:`write_edgelist` writes) or a given ``n_nodes`` /
    ``index_base`` reads ids as positions ``base..base+n-1`` instead.

    Parameters
    ----------
    path : str or PathLike
    n_nodes : int, optional
        Positional mode: number of nodes (default from the header, else ``max id + 1 - base``).
    index_base : {0, 1}, optional
        Positional mode: whether ids start at 0 or 1.
    weighted : bool, optional
        The last field of each line is a positive weight; default from the header, else False.
    sep : str, optional
        Field separator; default a tab in a ``.tsv``, else commas and/or whitespace.
    header : bool, optional
        Skip the first non-comment line; default: when it holds words only above lines of integers.
    **options
        ``duplicates``, ``singletons``, ``empty`` for :meth:`Hypergraph.from_pairs`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "trips.txt")
    >>> _ = open(path, "w").write("alice bob\\nbob carol dave\\n")
    >>> hg = read_edgelist(path)
    >>> hg.n_nodes, list(hg.node_ids)
    (4, ['alice', 'bob', 'carol', 'dave'])
    """
    path = Path(path)
    if sep is not None and (not isinstance(sep, str) or not sep or sep == "\n"):
        raise ValueError(f"sep must be a non-empty string other than a newline, got {sep!r}")
    tokens, line_no, comments = _read_records(path, sep)
    file_header = _parse_header(comments, path)
    positional = n_nodes is not None or index_base is not None or "n_nodes" in file_header
    n_nodes = file_header.get("n_nodes") if n_nodes is None else n_nodes
    base = file_header.get("index_base", 0) if index_base is None else index_base
    if base not in (0, 1):
        raise ValueError(f"index_base must be 0 or 1, got {base!r}")
    weighted = file_header.get("weighted", False) if weighted is None else weighted
    if header is None and not file_header and _looks_like_header(tokens, weighted):
        warn_header_skipped(path, line_no, tokens)
        header = True
    if header:
        tokens, line_no = tokens[1:], line_no[1:]
    weights = None
    if weighted:
        tokens, weights = _split_weights(tokens, line_no, path)
    notes = {"format": "edgelist", "source": str(path), "raw_edges": len(tokens)}
    sizes = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    eids = np.repeat(np.arange(sizes.size), sizes)
    flat = list(itertools.chain.from_iterable(tokens))
    if positional:
        index, n, ids = _positions(tokens, flat, sizes, line_no, n_nodes, base, path)
    else:
        index, ids = map_ids(ids_from_tokens(flat))
        n = ids.shape[0]
    return build(index, eids, n, sizes.size, weights=weights, name=name or path.stem,
                 notes=notes, node_ids=ids, **options)


def _positions(tokens, flat, sizes, line_no, n_nodes, base: int, path):
    """``(member positions, n_nodes, node_ids or None)`` of a positional file."""
    bad = None if all_canonical(flat) else next(t for t in flat if not is_canonical_int(t))
    if bad is not None:
        at = int(line_no[np.searchsorted(np.cumsum(sizes), flat.index(bad), side="right")])
        raise DataFormatError(f"node id {bad!r} is not a plain integer position (the "
                              "header or index_base says ids are positions)", path, at)
    vals, sizes = tokens_to_ints(tokens, line_no, path, "node id")
    n = n_nodes if n_nodes is not None else (int(vals.max()) + 1 - base if vals.size else 0)
    check_id_range(vals, sizes, line_no, base, n - 1 + base, path)
    return vals - base, n, (np.arange(base, base + n) if base else None)


def _read_records(path, sep):
    """``(fields of each record, their line numbers, comments among the first 5 lines)``."""
    tokens, line_no, comments = [], [], []
    sep = file_sep(path, sep)
    for no, line in iter_lines(path):
        text = line.strip()
        if not text or text.startswith("#"):
            if no <= 5 and text:
                comments.append(text)
            continue
        try:
            fields = split_fields(line, sep)
        except ValueError as exc:
            raise DataFormatError(str(exc), path, no) from None
        if "" in fields:
            raise DataFormatError("an empty quoted field is not a node id", path, no)
        tokens.append(fields)
        line_no.append(no)
    return tokens, np.asarray(line_no, dtype=np.int64), comments


def _looks_like_header(tokens, weighted) -> bool:
    """A first line with no number in it above lines of integers only."""
    if len(tokens) < 2:
        return False
    ids_part = (lambda toks: toks[:len(toks) - 1]) if weighted else (lambda toks: toks)
    return not any(map(_is_float, tokens[0])) and \
        all_canonical([t for toks in tokens[1:] for t in ids_part(toks)])


def warn_header_skipped(path, line_no, tokens) -> None:
    """Warn, from the reader's caller, that the first record is taken for a header."""
    warnings.warn(f"{path}:{int(line_no[0])}: first line {' '.join(tokens[0])[:40]!r} "
                  "looks like a header and is skipped (pass header=False to keep it)",
                  stacklevel=3)


def _split_weights(tokens, line_no, path):
    """``(tokens without their last field, the weights that field holds)``."""
    short = next((i for i, t in enumerate(tokens) if len(t) < 2), None)
    if short is not None:
        raise DataFormatError("a weighted line needs at least one node id and a weight",
                              path, int(line_no[short]))
    try:
        weights = np.array([float(t[-1]) for t in tokens], dtype=np.float64)
    except ValueError:
        bad = next(i for i, t in enumerate(tokens) if not _is_float(t[-1]))
        raise DataFormatError(f"weight {tokens[bad][-1]!r} is not a number", path,
                              int(line_no[bad])) from None
    bad = np.flatnonzero(~np.isfinite(weights) | (weights <= 0))
    if bad.size:
        raise DataFormatError(f"weight {tokens[bad[0]][-1]} must be positive and finite",
                              path, int(line_no[bad[0]]))
    return [t[:-1] for t in tokens], weights


def _is_float(tok):
    try:
        float(tok)
        return True
    except ValueError:
        return False


def write_edgelist(hg: Hypergraph, path, *, delimiter: str = ",", index_base: int = 0,
                   weighted: bool | None = None) -> None:
    """Write ``hg`` as a hyperedge list with a header recording ``n_nodes``.

    Default node ids are written as positions (isolated nodes survive through the header), other
    ids as CSV-quoted text (isolated nodes are refused). Empty hyperedges are refused; features
    and labels are not written (use HIF).

    Parameters
    ----------
    hg : Hypergraph
    path : str or PathLike
    delimiter : str
        ``","``, ``" "`` or ``"\\t"``.
    index_base : {0, 1}
    weighted : bool, optional
        Append each hyperedge's weight; default when any weight != 1.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]], n_nodes=5)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "hg.txt"
    ...     write_edgelist(hg, path)
    ...     text = path.read_text()
    ...     back = read_edgelist(path)
    >>> print(text, end="")
    # hyperclust hyperedge list: n_nodes=5 index_base=0 weighted=false
    0,1,2
    2,3
    >>> back.n_nodes  # node 4, in no hyperedge, survives through the header
    5
    """
    if delimiter not in (",", " ", "\t"):
        raise ValueError(f"delimiter must be ',', ' ' or '\\t', got {delimiter!r}")
    if index_base not in (0, 1):
        raise ValueError(f"index_base must be 0 or 1, got {index_base!r}")
    if weighted is None:
        weighted = bool(np.any(hg.weights != 1.0))
    if np.any(hg.edge_sizes == 0):
        raise ValueError("empty hyperedges cannot be written to an edge list")
    ids = hg.node_ids
    default_ids = ids.dtype != object and np.array_equal(ids, np.arange(hg.n_nodes))
    if default_ids:
        rows = [delimiter.join(map(str, (e + index_base).tolist())) for e in hg.edges()]
        header = (f"{_HEADER} n_nodes={hg.n_nodes} index_base={index_base} "
                  f"weighted={'true' if weighted else 'false'}")
    else:
        text = np.asarray([quote_field(str(x)) for x in ids.tolist()], dtype=object)
        if hg.isolated.any():
            raise ValueError(f"{int(hg.isolated.sum())} nodes are in no hyperedge and an edge "
                             "list with node ids cannot hold them; use write_hif")
        rows = [delimiter.join(text[e].tolist()) for e in hg.edges()]
        header = (f"{_HEADER} node_ids=listed weighted={'true' if weighted else 'false'}")
    if weighted:
        rows = [f"{r}{delimiter}{w!r}" for r, w in zip(rows, hg.weights.tolist())]
    Path(path).write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
