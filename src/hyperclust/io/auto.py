"""``read_hypergraph``: one entry point that recognises every supported input."""

from __future__ import annotations

import json
from pathlib import Path

from ..hypergraph import Hypergraph
from .benchmark_formats import (FORMATS, detect_format, read_benson, read_benson_edge_labelled,
                                read_hsbm, read_hypergcn, read_le)
from .edgelist import read_edgelist
from .errors import DataFormatError
from .hif import from_hif
from .hypergraphx import is_hypergraphx, read_hypergraphx

__all__ = ["read_hypergraph"]

_DIR_READERS = {"A": read_hypergcn, "B": read_le, "C": read_benson, "D": read_hsbm,
                "E": read_benson_edge_labelled}
_TEXT_SUFFIXES = {".txt", ".csv", ".tsv", ".edgelist", ".hyperedges"}


def read_hypergraph(path, *, format: str | None = None, **options) -> Hypergraph:
    """Read a hypergraph, detecting the format.

    Parameters
    ----------
    path : str or PathLike
        A dataset directory in one of the benchmark formats A-E (see
        :mod:`hyperclust.io.benchmark_formats`), a ``.json`` file (HIF or hypergraphx), or a
        ``.txt``/``.csv``/``.tsv`` hyperedge list.
    format : str, optional
        Force a format: ``"A"``..``"E"``, ``"hif"``, ``"hypergraphx"`` or ``"edgelist"``.
    **options
        ``duplicates``, ``singletons``, ``empty`` (see :meth:`Hypergraph.from_pairs`) and the
        keyword arguments of the chosen reader.

    Returns
    -------
    Hypergraph
    """
    p = Path(path)
    if not p.exists():
        raise DataFormatError("no such file or directory", p)
    fmt = format.upper() if format and len(format) == 1 else format
    if p.is_dir():
        fmt = fmt or detect_format(p)
        if fmt not in _DIR_READERS:
            listing = ", ".join(sorted(x.name for x in p.iterdir())[:12])
            raise DataFormatError(
                f"unrecognised dataset directory (contents: {listing or 'empty'}); expected one "
                "of: " + "; ".join(f"{k}: {v}" for k, v in FORMATS.items()), p)
        return _DIR_READERS[fmt](p, **options)
    if fmt in (None, "hif", "hypergraphx") and (p.suffix.lower() == ".json" or fmt):
        try:
            with open(p, encoding="utf-8") as fh:
                doc = json.load(fh)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"invalid JSON: {exc.msg}", p, exc.lineno) from None
        if fmt == "hypergraphx" or (fmt is None and is_hypergraphx(doc)):
            return read_hypergraphx(p, doc=doc, **options)
        if fmt == "hif" or isinstance(doc, dict):
            return from_hif(doc, path=p, **options)
        raise DataFormatError("JSON is neither HIF (an object with 'incidences') nor "
                              "hypergraphx (a list opening with 'hypergraph_type')", p)
    if fmt == "edgelist" or (fmt is None and p.suffix.lower() in _TEXT_SUFFIXES):
        return read_edgelist(p, **options)
    raise DataFormatError(f"cannot tell the format from the name (suffix {p.suffix!r}); pass "
                          "format='hif', 'hypergraphx', 'edgelist' or a directory", p)
