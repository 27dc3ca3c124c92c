"""The format registry :data:`FORMATS`: every input format by name (the collection's letters
A..F are aliases), with how to detect, read and write it; docs/extending.md adds one.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

from .._registry import add_entry
from . import benchmark_formats as bf
from . import le
from ._common import read_json
from .errors import DataFormatError
from .edgelist import read_edgelist, write_edgelist
from .graph_npz import read_graph_npz
from .hif import from_hif, write_hif
from .hypergraphx import is_hypergraphx, read_hypergraphx
from .pairs import detect_pairs, read_pairs, write_pairs

__all__ = ["Format", "Source", "FORMATS", "register_format", "canonical_format",
           "detect_format", "FORMAT_NAMES", "check_detection_order"]


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
        One line: what the files look like (``--help`` and error messages).
    directory : bool
        A dataset folder (True) or a single file (False).
    detect : callable
        ``detect(source) -> bool`` for a :class:`Source` of the right kind.
    read : callable
        ``read(source, **options) -> Hypergraph``.
    write : callable, optional
        ``write(hypergraph, path, **options)``.
    alias : str, optional
        Another accepted name (the collection's letter).
    examples : tuple of dict
        Small sources ``{file name: text}`` that ``detect`` must claim, and no earlier format.

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
    examples: tuple = ()


_TEXT_SUFFIXES = {".txt", ".csv", ".tsv", ".edgelist", ".hyperedges"}


def _dir_format(reader, alias, description, detect, example) -> Format:
    return Format(description, True, detect, lambda src, **o: reader(src.path, **o), alias=alias,
                  examples=(example,))


#: ``{name: Format}``; detection tries them in this order: the only place a format is added.
FORMATS: dict[str, Format] = {
    "pairs": Format(
        "one (node id, hyperedge id) pair per line, as xgi.write_bipartite_edgelist writes",
        False, lambda src: src.suffix in _TEXT_SUFFIXES and detect_pairs(src.path),
        lambda src, **o: read_pairs(src.path, **o), write_pairs,
        examples=({"bip.txt": "# hyperclust (node, hyperedge) pairs: weighted=false\n"
                              "1 e1\n2 e1\n"},)),
    "edgelist": Format(
        "one hyperedge per line, node ids (ints or names) separated by commas/spaces", False,
        lambda src: src.suffix in _TEXT_SUFFIXES,
        lambda src, **o: read_edgelist(src.path, **o), write_edgelist,
        examples=({"edges.csv": "0,1,2\n2,3\n"}, {"trips.txt": "ana bo cy\n"})),
    "hif": Format(
        "HIF JSON (Hypergraph Interchange Format)", False,
        lambda src: src.suffix == ".json" and isinstance(src.json, dict),
        lambda src, **o: from_hif(src.json, path=src.path, **o), write_hif,
        examples=({"h.json": '{"incidences": [{"edge": 0, "node": 1}]}'},)),
    "hypergraphx": Format(
        "hypergraphx JSON (a list opening with 'hypergraph_type')", False,
        lambda src: src.suffix == ".json" and is_hypergraphx(src.json),
        lambda src, **o: read_hypergraphx(src.path, doc=src.json, **o),
        examples=({"h.json": '[{"hypergraph_type": "Hypergraph"}]'},)),
    "hypergcn": _dir_format(
        bf.read_hypergcn, "A",
        "directory: hypergraph.pickle, labels.pickle, features.pickle (HyperGCN)",
        lambda src: (src.path / "hypergraph.pickle").is_file(),
        {"hypergraph.pickle": "", "labels.pickle": "", "features.pickle": ""}),
    "le": _dir_format(
        le.read_le, "B", "directory: NAME.content and NAME.edges (LE / LEGCN text)",
        lambda src: src.has("*.content", "*.edges"), {"x.content": "", "x.edges": ""}),
    "benson": _dir_format(
        bf.read_benson, "C",
        "directory: hyperedges-NAME.txt, node-labels-NAME.txt (Benson / Chodrow)",
        lambda src: src.has("hyperedges-*.txt"),
        {"hyperedges-x.txt": "", "node-labels-x.txt": ""}),
    "hsbm": _dir_format(
        bf.read_hsbm, "D", "directory: hyperedge.npy, labels.npy (HSBM sweep)",
        lambda src: (src.path / "hyperedge.npy").is_file(),
        {"hyperedge.npy": "", "labels.npy": ""}),
    "benson-edge-labelled": _dir_format(
        bf.read_benson_edge_labelled, "E", "directory: hyperedges.txt, hyperedge-labels.txt",
        lambda src: (src.path / "hyperedges.txt").is_file(),
        {"hyperedges.txt": "", "hyperedge-labels.txt": ""}),
    "graph-npz": Format(
        "a graph in one .npz: edges (E x 2), node_labels, node_features; read as closed "
        "neighbourhoods (hyperedges=\"edges\": the graph's edges)", False,
        lambda src: src.suffix == ".npz",
        lambda src, **o: read_graph_npz(src.path, **o), alias="F",
        examples=({"g.npz": ""},)),
}

#: Human names of the formats with what each is (what ``format=`` and ``--format`` take).
FORMAT_NAMES = {name: f.description for name, f in FORMATS.items()}


def register_format(name: str, fmt: Format, *, replace: bool = False,
                    before: str | None = None) -> None:
    """Add ``fmt`` to the registry under ``name`` (a plugin's entry point).

    ``fmt.detect`` must claim each of ``fmt.examples`` and no format tried before it may;
    ``before`` tries it just before the format named.

    Raises
    ------
    ValueError
        No examples, or an overlap in detection, naming both formats and the example.

    Examples
    --------
    >>> register_format("lines", Format("one hyperedge per line (.lines)", False,
    ...                 lambda src: src.suffix == ".lines",
    ...                 lambda src, **o: read_edgelist(src.path, **o),
    ...                 examples=({"trips.lines": "ana bo\\n"},)))
    >>> canonical_format("LINES")
    'lines'
    >>> register_format("text2", Format("another text format", False,
    ...                 lambda src: src.suffix == ".txt", read_edgelist,
    ...                 examples=({"x.txt": "a b c\\n"},)))
    Traceback (most recent call last):
    ...
    ValueError: format 'text2' would never be detected on its example x.txt: format 'edgelist', tried before it, claims it; narrow its detect or give it priority with before=
    >>> del FORMATS["lines"], FORMAT_NAMES["lines"]
    """
    if isinstance(name, str) and name != name.lower():  # --format is case-insensitive
        raise ValueError(f"format names are lower-case, got {name!r}")
    if isinstance(fmt, Format) and not fmt.examples:
        raise ValueError(f"format {name!r} declares no examples: give examples=({{file name: "
                         "text}, ...) so that detection can be checked")
    if before is not None and canonical_format(before) is None:
        raise ValueError(f"before= names no format: {before!r}")
    if name in FORMATS and not replace:
        add_entry(FORMATS, name, fmt, Format, "format")  # raises: already registered
    order = {k: v for k, v in FORMATS.items() if before is None or k != name}
    if before is not None:
        at = list(order).index(canonical_format(before))
        items = list(order.items())
        order = dict(items[:at] + [(name, fmt)] + items[at:])
    else:
        order[name] = fmt
    if isinstance(fmt, Format):
        check_detection_order(order, only=name)
    add_entry(FORMATS, name, fmt, Format, "format", replace=replace)
    if before is not None:
        reordered = {k: FORMATS[k] for k in order}
        FORMATS.clear()
        FORMATS.update(reordered)
    FORMAT_NAMES.clear()
    FORMAT_NAMES.update({k: f.description for k, f in FORMATS.items()})


def check_detection_order(formats: dict[str, Format], only: str | None = None) -> None:
    """Raise ``ValueError`` where a format misses its own example or an earlier one claims it.

    Examples
    --------
    >>> check_detection_order(FORMATS)  # the shipped table: every format detectable
    """
    names = list(formats)
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(names):
            fmt = formats[name]
            for j, example in enumerate(fmt.examples):
                src = _materialise(Path(tmp) / f"{i}-{j}", example, fmt.directory)
                if (only is None or only == name) and not _claims(fmt, src):
                    raise ValueError(f"format {name!r} does not detect its own example "
                                     f"{src.path.name}")
                for earlier in names[:i]:
                    if (only in (None, name, earlier)) and \
                            formats[earlier].directory == fmt.directory and \
                            _claims(formats[earlier], src):
                        raise ValueError(
                            f"format {name!r} would never be detected on its example "
                            f"{src.path.name}: format {earlier!r}, tried before it, claims it; "
                            "narrow its detect or give it priority with before=")


def _materialise(folder: Path, example: dict, directory: bool) -> Source:
    folder.mkdir()
    for file, text in example.items():
        (folder / file).write_text(text, encoding="utf-8")
    return Source(folder if directory else folder / next(iter(example)))


def _claims(fmt: Format, src: Source) -> bool:
    """Whether detection stops at ``fmt``: it says yes, or refuses the source as ambiguous."""
    try:
        return bool(fmt.detect(src))
    except DataFormatError:
        return True


def canonical_format(format: str | None) -> str | None:
    """The registered name of ``format`` (a name or an alias); ``ValueError`` when unknown.

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
