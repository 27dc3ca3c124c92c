"""Plain hyperedge lists: one hyperedge per line, node ids separated by commas and/or
whitespace, optionally a weight as the last field.

The writer starts the file with a header comment ``# hyperclust hyperedge list: n_nodes=N
index_base=B weighted=W`` which the reader honours, so isolated nodes and weights survive a
round trip. Other lines starting with ``#`` are comments; blank lines are skipped.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np

from ..hypergraph import Hypergraph
from ._common import build, check_id_range, read_text, tokens_to_ints
from .errors import DataFormatError

__all__ = ["read_edgelist", "write_edgelist"]

_HEADER = "# hyperclust hyperedge list:"
_HEADER_RE = re.compile(r"(n_nodes|index_base|weighted)=(\S+)")


def _parse_header(lines, path):
    info = {}
    for ln in lines[:5]:
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
                  weighted: bool | None = None, name=None, **options) -> Hypergraph:
    """Read a hyperedge list (``.txt``, ``.csv``, ``.tsv``).

    Parameters
    ----------
    path : str or PathLike
    n_nodes : int, optional
        Number of nodes; default from the header, else ``max id + 1 - index_base``.
    index_base : {0, 1}, optional
        Whether ids start at 0 or 1; default from the header, else 0.
    weighted : bool, optional
        Whether the last field of each line is a positive weight; default from the header,
        else False.
    **options
        ``duplicates``, ``singletons``, ``empty`` for :meth:`Hypergraph.from_pairs`.

    Returns
    -------
    Hypergraph
    """
    path = Path(path)
    lines = read_text(path).splitlines()
    header = _parse_header(lines, path)
    n_nodes = header.get("n_nodes") if n_nodes is None else n_nodes
    base = header.get("index_base", 0) if index_base is None else index_base
    if base not in (0, 1):
        raise ValueError(f"index_base must be 0 or 1, got {base!r}")
    weighted = header.get("weighted", False) if weighted is None else weighted
    line_no = np.arange(1, len(lines) + 1)
    keep = [bool(ln.strip()) and not ln.lstrip().startswith("#") for ln in lines]
    line_no = line_no[np.asarray(keep, dtype=bool)] if lines else line_no
    tokens = [ln.replace(",", " ").split() for ln in itertools.compress(lines, keep)]
    weights = None
    if weighted:
        try:
            weights = np.array([float(t[-1]) for t in tokens], dtype=np.float64)
        except ValueError:
            bad = next(i for i, t in enumerate(tokens) if not _is_float(t[-1]))
            raise DataFormatError(f"weight {tokens[bad][-1]!r} is not a number", path,
                                  int(line_no[bad])) from None
        bad = np.flatnonzero(~np.isfinite(weights) | (weights <= 0))
        if bad.size:
            raise DataFormatError(f"weight {weights[bad[0]]} must be positive and finite", path,
                                  int(line_no[bad[0]]))
        tokens = [t[:-1] for t in tokens]
    vals, sizes = tokens_to_ints(tokens, line_no, path, "node id")
    n = n_nodes if n_nodes is not None else (int(vals.max()) + 1 - base if vals.size else 0)
    check_id_range(vals, sizes, line_no, base, n - 1 + base, path)
    eids = np.repeat(np.arange(sizes.size), sizes)
    return build(vals - base, eids, n, sizes.size, weights=weights, name=name or path.stem,
                 notes={"format": "edgelist", "source": str(path), "raw_edges": int(sizes.size)},
                 **options)


def _is_float(tok):
    try:
        float(tok)
        return True
    except ValueError:
        return False


def write_edgelist(hg: Hypergraph, path, *, delimiter: str = ",", index_base: int = 0,
                   weighted: bool | None = None) -> None:
    """Write ``hg`` as a hyperedge list with a header recording ``n_nodes``.

    Parameters
    ----------
    hg : Hypergraph
    path : str or PathLike
    delimiter : str
        Separator between node ids (``","``, ``" "`` or ``"\\t"``).
    index_base : {0, 1}
    weighted : bool, optional
        Append each hyperedge's weight as the last field; default when any weight != 1.

    Notes
    -----
    Features and labels are not written (use HIF for those). Empty hyperedges cannot be
    represented and are rejected.
    """
    if delimiter not in (",", " ", "\t"):
        raise ValueError(f"delimiter must be ',', ' ' or '\\t', got {delimiter!r}")
    if index_base not in (0, 1):
        raise ValueError(f"index_base must be 0 or 1, got {index_base!r}")
    if weighted is None:
        weighted = bool(np.any(hg.weights != 1.0))
    if np.any(hg.edge_sizes == 0):
        raise ValueError("empty hyperedges cannot be written to an edge list")
    rows = [delimiter.join(map(str, (e + index_base).tolist())) for e in hg.edges()]
    if weighted:
        rows = [f"{r}{delimiter}{w!r}" for r, w in zip(rows, hg.weights.tolist())]
    header = (f"{_HEADER} n_nodes={hg.n_nodes} index_base={index_base} "
              f"weighted={'true' if weighted else 'false'}")
    Path(path).write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
