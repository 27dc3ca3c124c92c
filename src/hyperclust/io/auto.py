"""``read_hypergraph``: one entry point that recognises every supported input."""

from __future__ import annotations

from ..hypergraph import Hypergraph
from .errors import DataFormatError
from .formats import FORMATS, Source, _detect, canonical_format

__all__ = ["read_hypergraph"]


def read_hypergraph(path, *, format: str | None = None, **options) -> Hypergraph:
    """Read a hypergraph, detecting the format.

    Parameters
    ----------
    path : str or PathLike
        A dataset directory in one of the benchmark formats (see
        :mod:`hyperclust.io.benchmark_formats`), a ``.json`` file (HIF or hypergraphx), or a
        ``.txt``/``.csv``/``.tsv`` hyperedge list or (node, hyperedge) pairs file.
    format : str, optional
        Force a format, by name (:data:`~hyperclust.io.formats.FORMATS`: ``"pairs"``,
        ``"edgelist"``, ``"hif"``, ``"hypergraphx"``, ``"hypergcn"``, ``"le"``, ``"benson"``,
        ``"hsbm"``, ``"benson-edge-labelled"``, ``"graph-npz"``; the letters ``"A"``..``"F"`` are
        aliases).
    **options
        ``duplicates``, ``singletons``, ``empty`` (see :meth:`Hypergraph.from_pairs`) and the
        keyword arguments of the chosen reader (e.g. ``sep``, ``header`` for edge lists).

    Returns
    -------
    Hypergraph
        With ``n_nodes`` nodes and ``n_edges`` hyperedges; labels, features and node ids
        where the format holds them.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "edges.csv"
    ...     _ = path.write_text("0,1,2\\n2,3\\n")
    ...     hg = read_hypergraph(path)
    >>> hg.n_nodes, [e.tolist() for e in hg.edges()]
    (4, [[0, 1, 2], [2, 3]])
    >>> read_hypergraph("no/such/file.txt")
    Traceback (most recent call last):
    ...
    hyperclust.io.errors.DataFormatError: no/such/file.txt: no such file or directory
    """
    src = Source(path)
    p = src.path
    if not p.exists():
        raise DataFormatError("no such file or directory", p)
    name = canonical_format(format) or _detect(src)
    if name is not None and FORMATS[name].directory and not p.is_dir():
        raise DataFormatError(f"format {name!r} is a directory format, but this is a file", p)
    if name is None or FORMATS[name].directory != p.is_dir():
        raise DataFormatError(_undetected(src), p)
    return FORMATS[name].read(src, **options)


def _undetected(src: Source) -> str:
    """Why no format fits ``src``, with what the candidates look like."""
    if src.path.is_dir():
        listing = ", ".join(sorted(x.name for x in src.path.iterdir())[:12])
        return (f"unrecognised dataset directory (contents: {listing or 'empty'}); expected "
                "one of: " + "; ".join(f"{k}: {f.description}" for k, f in FORMATS.items()
                                       if f.directory))
    if src.suffix == ".json":
        return ("JSON is neither HIF (an object with 'incidences') nor hypergraphx (a list "
                "opening with 'hypergraph_type')")
    return (f"cannot tell the format from the name (suffix {src.path.suffix!r}); name it: "
            "format= one of " + ", ".join(FORMATS))
