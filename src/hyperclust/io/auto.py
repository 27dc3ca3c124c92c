"""``read_hypergraph``: one entry point that recognises every supported input."""

from __future__ import annotations

from pathlib import Path

from ..hypergraph import Hypergraph
from .benchmark_formats import (FORMATS, detect_format, read_benson, read_benson_edge_labelled,
                                read_hsbm, read_hypergcn, read_le)
from ._common import read_json
from .edgelist import read_edgelist
from .errors import DataFormatError
from .hif import from_hif
from .hypergraphx import is_hypergraphx, read_hypergraphx

__all__ = ["read_hypergraph", "canonical_format", "FORMAT_NAMES"]

_DIR_READERS = {"A": read_hypergcn, "B": read_le, "C": read_benson, "D": read_hsbm,
                "E": read_benson_edge_labelled}
_TEXT_SUFFIXES = {".txt", ".csv", ".tsv", ".edgelist", ".hyperedges"}

#: Human names of the formats (what ``format=`` and ``--format`` take), with what each is.
#: The letters ``A``..``E`` of the shared data README are accepted as aliases.
FORMAT_NAMES = {
    "edgelist": "one hyperedge per line, node ids (ints or names) separated by commas/spaces",
    "hif": "HIF JSON (Hypergraph Interchange Format)",
    "hypergraphx": "hypergraphx JSON (a list opening with 'hypergraph_type')",
    "hypergcn": "directory: hypergraph.pickle, labels.pickle, features.pickle (HyperGCN)",
    "le": "directory: NAME.content and NAME.edges (LE / LEGCN text)",
    "benson": "directory: hyperedges-NAME.txt, node-labels-NAME.txt (Benson / Chodrow)",
    "hsbm": "directory: hyperedge.npy, labels.npy (HSBM sweep)",
    "benson-edge-labelled": "directory: hyperedges.txt, hyperedge-labels.txt",
}
_LETTERS = {"hypergcn": "A", "le": "B", "benson": "C", "hsbm": "D", "benson-edge-labelled": "E"}
_NAME_OF_LETTER = {v: k for k, v in _LETTERS.items()}


def canonical_format(format: str | None) -> str | None:
    """The human name of ``format`` (a name or a letter A-E); ``ValueError`` when unknown."""
    if format is None:
        return None
    if not isinstance(format, str):
        raise TypeError(f"format must be a string, got {type(format).__name__}")
    key = format.strip()
    if key.upper() in _NAME_OF_LETTER and len(key) == 1:
        return _NAME_OF_LETTER[key.upper()]
    key = key.lower().replace("_", "-")
    if key not in FORMAT_NAMES:
        raise ValueError(f"unknown format {format!r}; use one of {', '.join(FORMAT_NAMES)}")
    return key


def read_hypergraph(path, *, format: str | None = None, **options) -> Hypergraph:
    """Read a hypergraph, detecting the format.

    Parameters
    ----------
    path : str or PathLike
        A dataset directory in one of the benchmark formats (see
        :mod:`hyperclust.io.benchmark_formats`), a ``.json`` file (HIF or hypergraphx), or a
        ``.txt``/``.csv``/``.tsv`` hyperedge list.
    format : str, optional
        Force a format, by name (:data:`FORMAT_NAMES`: ``"edgelist"``, ``"hif"``,
        ``"hypergraphx"``, ``"hypergcn"``, ``"le"``, ``"benson"``, ``"hsbm"``,
        ``"benson-edge-labelled"``; the letters ``"A"``..``"E"`` are aliases).
    **options
        ``duplicates``, ``singletons``, ``empty`` (see :meth:`Hypergraph.from_pairs`) and the
        keyword arguments of the chosen reader (e.g. ``sep``, ``header`` for edge lists).

    Returns
    -------
    Hypergraph
    """
    p = Path(path)
    if not p.exists():
        raise DataFormatError("no such file or directory", p)
    fmt = canonical_format(format)
    if p.is_dir():
        letter = _LETTERS.get(fmt) if fmt else detect_format(p)
        if letter not in _DIR_READERS:
            listing = ", ".join(sorted(x.name for x in p.iterdir())[:12])
            raise DataFormatError(
                f"unrecognised dataset directory (contents: {listing or 'empty'}); expected one "
                "of: " + "; ".join(f"{k}: {v}" for k, v in FORMAT_NAMES.items()
                                   if k in _LETTERS), p)
        return _DIR_READERS[letter](p, **options)
    if fmt in _LETTERS:
        raise DataFormatError(f"format {fmt!r} is a directory format, but this is a file", p)
    if fmt in (None, "hif", "hypergraphx") and (p.suffix.lower() == ".json" or fmt):
        doc = read_json(p)
        if fmt == "hypergraphx" or (fmt is None and is_hypergraphx(doc)):
            return read_hypergraphx(p, doc=doc, **options)
        if fmt == "hif" or isinstance(doc, dict):
            return from_hif(doc, path=p, **options)
        raise DataFormatError("JSON is neither HIF (an object with 'incidences') nor "
                              "hypergraphx (a list opening with 'hypergraph_type')", p)
    if fmt == "edgelist" or (fmt is None and p.suffix.lower() in _TEXT_SUFFIXES):
        return read_edgelist(p, **options)
    raise DataFormatError(f"cannot tell the format from the name (suffix {p.suffix!r}); name "
                          "it: format= (CLI --format) one of " + ", ".join(FORMAT_NAMES), p)
