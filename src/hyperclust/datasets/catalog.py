"""The registered datasets, read from ``catalog.json`` (source, files with SHA-256 and URL,
format, statistics). Checksums are hard-coded, and a download is accepted only when its
SHA-256 matches. ``n_edges`` counts the default load (duplicates merged, singletons kept);
``n_edges_raw`` the source file's hyperedges, ``n_edges_unique`` distinct sets of size >= 2.
"""

from __future__ import annotations

import json
from pathlib import Path

from .spec import DatasetSpec, FileSpec

__all__ = ["read_catalog"]

CATALOG = Path(__file__).with_name("catalog.json")


def read_catalog(path=CATALOG) -> list[DatasetSpec]:
    """The :class:`DatasetSpec` of every entry of a catalog file, in file order.

    Examples
    --------
    >>> specs = read_catalog()
    >>> specs[0].name, specs[0].format, specs[0].files[0].name
    ('cora-ca', 'hypergcn', 'hypergraph.pickle')
    """
    with open(path, encoding="utf-8") as fh:
        entries = json.load(fh)
    return [DatasetSpec(**{**e, "files": tuple(FileSpec(**f) for f in e["files"])})
            for e in entries]
