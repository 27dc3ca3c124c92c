"""The format registry: every input format, by human name, with how to detect, read and
(where supported) write it.

:func:`~hyperclust.io.read_hypergraph` and the dataset registry read through
:data:`FORMATS`; the letters ``A``..``E`` of the benchmark collection's README are aliases of
the five directory formats. Adding a format is adding one :class:`Format` to
:data:`FORMATS` (or calling :func:`register_format`); see ``docs/extending.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

from .._registry import add_entry
from . import benchmark_formats as bf
from ._common import read_json
from .edgelist import read_edgelist, write_edgelist
from .hif import from_hif, write_hif
from .hypergraphx import is_hypergraphx, read_hypergraphx

__all__ = ["Format", "Source", "FORMATS", "register_format", "canonical_format",
           "detect_format", "FORMAT_NAMES"]


class Source:
    """An input path as the formats see it; a JSON document is parsed at most once.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> _ = p.write_text('[{"hypergraph_type": "Hypergraph"}]')
    >>> src = Source(p)
    >>> src.suffix, src.json[0]["hypergraph_type"]
    ('.json', 'Hypergraph')
    """

    def __init__(self, path):
        self.path = Path(path)
        self.suffix = self.path.suffix.lower()

    @cached_property
    def json(self):
        return read_json(self.path)

    def has(self, *names: str) -> bool:
        """Whether the directory holds every file ``names`` (glob patterns allowed)."""
        return all(any(self.path.glob(n)) for n in names)


@dataclass(frozen=True)
class Format:
    """One input format.

    Attributes
    ----------
    description : str
        One line: what the files look like (shown by ``--help`` and error messages).
    directory : bool
        A dataset folder (True) or a single file (False).
    detect : callable
        ``detect(source) -> bool`` for a :class:`Source` of the right kind (folder or file).
    read : callable
        ``read(source, **options) -> Hypergraph``.
    write : callable, optional
        ``write(hypergraph, path, **options)``.
    alias : str, optional
        Another accepted name (the collection's letter).

    Examples
    --------
    >>> FORMATS["hsbm"].directory, FORMATS["hsbm"].alias, FORMATS["hif"].write is not None
    (True, 'D', True)
    """

    description: str
    directory: bool
    detect: Callable
    read: Callable
    write: Callable | None = None
    alias: str | None = None


_TEXT_SUFFIXES = {".txt", ".csv", ".tsv", ".edgelist", ".hyperedges"}


def _dir_format(reader, alias, description, detect) -> Format:
    return Format(description, True, detect, lambda src, **o: reader(src.path, **o), alias=alias)


#: ``{name: Format}``; detection tries them in this order: the only place a format is added.
FORMATS: dict[str, Format] = {
    "edgelist": Format(
        "one hyperedge per line, node ids (ints or names) separated by commas/spaces", False,
        lambda src: src.suffix in _TEXT_SUFFIXES,
        lambda src, **o: read_edgelist(src.path, **o), write_edgelist),
    "hif": Format(
        "HIF JSON (Hypergraph Interchange Format)", False,
        lambda src: src.suffix == ".json" and isinstance(src.json, dict),
        lambda src, **o: from_hif(src.json, path=src.path, **o), write_hif),
    "hypergraphx": Format(
        "hypergraphx JSON (a list opening with 'hypergraph_type')", False,
        lambda src: src.suffix == ".json" and is_hypergraphx(src.json),
        lambda src, **o: read_hypergraphx(src.path, doc=src.json, **o)),
    "hypergcn": _dir_format(
        bf.read_hypergcn, "A",
        "directory: hypergraph.pickle, labels.pickle, features.pickle (HyperGCN)",
        lambda src: (src.path / "hypergraph.pickle").is_file()),
    "le": _dir_format(
        bf.read_le, "B", "directory: NAME.content and NAME.edges (LE / LEGCN text)",
        lambda src: src.has("*.content", "*.edges")),
    "benson": _dir_format(
        bf.read_benson, "C",
        "directory: hyperedges-NAME.txt, node-labels-NAME.txt (Benson / Chodrow)",
        lambda src: src.has("hyperedges-*.txt")),
    "hsbm": _dir_format(
        bf.read_hsbm, "D", "directory: hyperedge.npy, labels.npy (HSBM sweep)",
        lambda src: (src.path / "hyperedge.npy").is_file()),
    "benson-edge-labelled": _dir_format(
        bf.read_benson_edge_labelled, "E", "directory: hyperedges.txt, hyperedge-labels.txt",
        lambda src: (src.path / "hyperedges.txt").is_file()),
}

#: Human names of the formats with what each is (what ``format=`` and ``--format`` take).
FORMAT_NAMES = {name: f.description for name, f in FORMATS.items()}


def register_format(name: str, fmt: Format, *, replace: bool = False) -> None:
    """Add ``fmt`` to the registry under ``name`` (a plugin's entry point).

    Examples
    --------
    >>> register_format("lines", Format("one hyperedge per line (.lines)", False,
    ...                 lambda src: src.suffix == ".lines",
    ...                 lambda src, **o: read_edgelist(src.path, **o)))
    >>> canonical_format("LINES")
    'lines'
    >>> del FORMATS["lines"], FORMAT_NAMES["lines"]
    """
    if isinstance(name, str) and name != name.lower():  # --format is case-insensitive
        raise ValueError(f"format names are lower-case, got {name!r}")
    add_entry(FORMATS, name, fmt, Format, "format", replace=replace)
    FORMAT_NAMES[name] = fmt.description


def canonical_format(format: str | None) -> str | None:
    """The registered name of ``format`` (a name or an alias such as a letter A-E);
    ``ValueError`` when unknown.

    Examples
    --------
    >>> canonical_format("A"), canonical_format("Benson_Edge_Labelled"), canonical_format(None)
    ('hypergcn', 'benson-edge-labelled', None)
    """
    if format is None:
        return None
    if not isinstance(format, str):
        raise TypeError(f"format must be a string, got {type(format).__name__}")
    key = format.strip()
    for name, fmt in FORMATS.items():
        if fmt.alias is not None and key.upper() == fmt.alias:
            return name
    key = key.lower().replace("_", "-")
    if key not in FORMATS:
        raise ValueError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    return key


def detect_format(path) -> str | None:
    """The registered name of the format of ``path`` (a file or a dataset folder), or None.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "hyperedge.npy").write_bytes(b"")
    >>> detect_format(d), detect_format(d / "edges.csv"), detect_format(d / "x.bin")
    ('hsbm', 'edgelist', None)
    """
    return _detect(Source(path))


def _detect(src: Source) -> str | None:
    is_dir = src.path.is_dir()
    for name, fmt in FORMATS.items():
        if fmt.directory == is_dir and fmt.detect(src):
            return name
    return None
