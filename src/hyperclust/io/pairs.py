"""(node, hyperedge) pairs, one membership per line (as ``xgi.write_bipartite_edgelist`` writes),
an optional third field the hyperedge weight; README.md, "Input formats", says how detection
tells them from a graph's edge list.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from ..hypergraph import Hypergraph, map_ids
from ._common import build
from .edgelist import _is_float, _looks_like_header, _read_records, warn_header_skipped
from .errors import DataFormatError
from .text_fields import file_sep, ids_from_tokens, iter_lines, quote_field, split_fields

__all__ = ["read_pairs", "write_pairs", "detect_pairs"]

_HEADER = "# hyperclust (node, hyperedge) pairs:"
#: Lines looked at by detection (a prefix: detection never reads a large file whole).
_PEEK_LINES = 2000


def detect_pairs(path) -> bool:
    """Whether ``path`` is a pairs file (opens with the writer's header).

    Raises
    ------
    DataFormatError
        Header-less two-field lines whose second column runs hyperedge by hyperedge: a graph's
        edge list and pairs both fit.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.txt").write_text(_HEADER + " weighted=false\\n1 e1\\n2 e1\\n")
    >>> _ = (d / "e.txt").write_text("1 2 3\\n3 4\\n")
    >>> _ = (d / "path.txt").write_text("0 1\\n1 2\\n2 3\\n")
    >>> detect_pairs(d / "p.txt"), detect_pairs(d / "e.txt"), detect_pairs(d / "path.txt")
    (True, False, False)
    """
    if not Path(path).is_file():
        return False
    second = []
    for no, line in itertools.islice(iter_lines(path), _PEEK_LINES):
        text = line.strip()
        if text.startswith("#"):
            if no <= 5 and text.startswith(_HEADER):
                return True
            if no <= 5 and text.startswith("# hyperclust hyperedge list:"):
                return False
            continue
        if not text:
            continue
        try:
            fields = split_fields(line, file_sep(path, None))
        except ValueError:
            return False
        if len(fields) != 2:
            return False
        second.append(fields[1])
    if not _in_runs_with_a_repeat(second):
        return False
    raise DataFormatError("every line holds two ids: a graph's edge list or (node, hyperedge) "
                          "pairs (as xgi.write_bipartite_edgelist writes)? name it: "
                          "--format pairs or --format edgelist", path)


def _in_runs_with_a_repeat(column: list[str]) -> bool:
    """Whether each value's occurrences are consecutive and some value occurs twice.

    >>> _in_runs_with_a_repeat(list("aabbb")), _in_runs_with_a_repeat(list("aba"))
    (True, False)
    """
    values = np.asarray(column, dtype=object)
    if values.size < 2:
        return False
    starts = np.r_[True, values[1:] != values[:-1]]
    n_runs = int(starts.sum())
    return n_runs < values.size and n_runs == len(set(column))


def read_pairs(path, *, sep: str | None = None, header: bool | None = None,
               weighted: bool | None = None, edge_first: bool = False, name=None,
               **options) -> Hypergraph:
    """Read (node, hyperedge) pairs; node and hyperedge ids follow :func:`read_edgelist`'s id rule.

    Parameters
    ----------
    path : str or PathLike
    sep : str, optional
        Field separator; default a tab in a ``.tsv``, else commas and/or whitespace.
    header : bool, optional
        First non-comment line is a header; default False for :func:`write_pairs` files, else guessed.
    weighted : bool, optional
        A third field holds the hyperedge's weight; default from the writer's header, else False.
    edge_first : bool
        The hyperedge id comes first on each line (XGI's ``dual=True``).
    name : str, optional
    **options
        ``duplicates``, ``singletons``, ``empty`` for :meth:`Hypergraph.from_pairs`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bip.txt"
    >>> _ = path.write_text("1 e1\\n2 e1\\n2 e2\\n3 e2\\n4 e2\\n")
    >>> hg = read_pairs(path)
    >>> hg.node_ids.tolist(), hg.edge_ids.tolist(), [e.tolist() for e in hg.edges()]
    ([1, 2, 3, 4], ['e1', 'e2'], [[0, 1], [1, 2, 3]])
    """
    path = Path(path)
    if sep is not None and (not isinstance(sep, str) or not sep or sep == "\n"):
        raise ValueError(f"sep must be a non-empty string other than a newline, got {sep!r}")
    tokens, line_no, comments = _read_records(path, sep)
    written = next((c for c in comments if c.startswith(_HEADER)), None)
    if weighted is None:
        weighted = written is not None and "weighted=true" in written
    width = 3 if weighted else 2
    if header is None and written is None and _looks_like_header(tokens, weighted):
        warn_header_skipped(path, line_no, tokens)
        header = True
    if header:
        tokens, line_no = tokens[1:], line_no[1:]
    bad = next((i for i, t in enumerate(tokens) if len(t) != width), None)
    if bad is not None:
        raise DataFormatError(f"a pairs line holds a node id and a hyperedge id"
                              f"{' and a weight' if weighted else ''}, this one "
                              f"{len(tokens[bad])} fields", path, int(line_no[bad]))
    node_col, edge_col = (1, 0) if edge_first else (0, 1)
    nodes, node_ids = map_ids(ids_from_tokens([t[node_col] for t in tokens]))
    edges, edge_ids = map_ids(ids_from_tokens([t[edge_col] for t in tokens]), what="edge id")
    weights = _edge_weights(tokens, edges, edge_ids.shape[0], line_no, path) if weighted else None
    notes = {"format": "pairs", "source": str(path), "raw_pairs": len(tokens)}
    return build(nodes, edges, node_ids.shape[0], edge_ids.shape[0], weights=weights,
                 name=name or path.stem, notes=notes, node_ids=node_ids, edge_ids=edge_ids,
                 **options)


def _edge_weights(tokens, edges, n_edges, line_no, path):
    """Each hyperedge's weight from the third field: equal on its lines, positive, finite."""
    try:
        w = np.array([float(t[2]) for t in tokens], dtype=np.float64)
    except ValueError:
        bad = next(i for i, t in enumerate(tokens) if not _is_float(t[2]))
        raise DataFormatError(f"weight {tokens[bad][2]!r} is not a number", path,
                              int(line_no[bad])) from None
    bad = np.flatnonzero(~np.isfinite(w) | (w <= 0))
    if bad.size:
        raise DataFormatError(f"weight {tokens[bad[0]][2]} must be positive and finite", path,
                              int(line_no[bad[0]]))
    weights = np.empty(n_edges, dtype=np.float64)
    weights[edges[::-1]] = w[::-1]  # the first line of each hyperedge sets its weight
    bad = np.flatnonzero(w != weights[edges])
    if bad.size:
        raise DataFormatError(f"weight {tokens[bad[0]][2]} differs from the weight "
                              f"{weights[edges[bad[0]]]!r} on an earlier line of hyperedge "
                              f"{tokens[bad[0]][1]!r}", path, int(line_no[bad[0]]))
    return weights


def write_pairs(hg: Hypergraph, path, *, delimiter: str = " ", weighted: bool | None = None,
                header: bool = True) -> None:
    """Write ``hg`` as (node, hyperedge) pairs, hyperedge by hyperedge (``xgi.read_bipartite_edgelist`` reads it).

    Isolated nodes and empty hyperedges cannot be represented and are refused (``ValueError``).

    Parameters
    ----------
    hg : Hypergraph
    path : str or PathLike
    delimiter : {" ", ",", "\\t"}
    weighted : bool, optional
        Append the hyperedge's weight; default when any weight != 1.
    header : bool
        Start with the comment by which :func:`read_hypergraph` detects the format.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> hg = Hypergraph.from_edges([["a", "b"], ["b", "c"]], edge_ids=["e1", "e2"])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "p.txt"
    >>> write_pairs(hg, path)
    >>> print(path.read_text(), end="")
    # hyperclust (node, hyperedge) pairs: weighted=false
    a e1
    b e1
    b e2
    c e2
    """
    if delimiter not in (",", " ", "\t"):
        raise ValueError(f"delimiter must be ',', ' ' or '\\t', got {delimiter!r}")
    if np.any(hg.edge_sizes == 0):
        raise ValueError("empty hyperedges cannot be written as pairs")
    if hg.isolated.any():
        raise ValueError(f"{int(hg.isolated.sum())} nodes are in no hyperedge and pairs "
                         "cannot hold them; use write_hif")
    weighted = bool(np.any(hg.weights != 1.0)) if weighted is None else weighted
    node_text = np.asarray([quote_field(str(x)) for x in hg.node_ids.tolist()], dtype=object)
    edge_text = np.asarray([quote_field(str(x)) for x in hg.edge_ids.tolist()], dtype=object)
    Ht = hg.incidence_t
    owner = np.repeat(np.arange(hg.n_edges), np.diff(Ht.indptr))
    fields = [node_text[Ht.indices], edge_text[owner]]
    if weighted:
        fields.append(np.asarray([repr(w) for w in hg.weights.tolist()], dtype=object)[owner])
    rows = [delimiter.join(r) for r in zip(*fields)]
    lines = ([f"{_HEADER} weighted={'true' if weighted else 'false'}"] if header else []) + rows
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
