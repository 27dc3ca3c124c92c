"""The registered datasets, read from ``catalog.json``: one entry per dataset holding its
source, files (SHA-256 checksums, public URLs), format and statistics.

Names are the folder names of the benchmark collection (``shared/data`` in the repository's
checkout): ``cora-ca``, ``zoo``, ``walmart-trips``, ... and the HSBM homophily sweep as
``hsbm-node-0.3`` .. ``hsbm-node-0.9`` and ``hsbm-edge-0.3`` .. ``hsbm-edge-0.9``; the
heterophilous graphs (``wisconsin``, ``cornell``, ``chameleon_filtered``, ``squirrel_filtered``)
share the folder ``heterophilous-graphs``, one ``.npz`` each, read as closed neighbourhoods
(``load_dataset("wisconsin", hyperedges="edges")``: the graph itself).

Checksums are hard-coded in the catalog (copied from the collection's ``SHA256SUMS``); the
package never reads them from the data directory. URLs point at ``raw.githubusercontent.com``
at the commit the collection was taken from. Except for LEGCN, whose full commit hash is
known, the commits are the *abbreviated* hashes given by the collection's README (GitHub
resolves abbreviated commit hashes in URLs; no machine used to build this could check it). A
download is only accepted when its SHA-256 matches, so a wrong or changed URL fails loudly,
never silently.

Counts (``n_edges``) are those of the default load: duplicate hyperedges (same member *set*)
merged into one with summed weight, singletons kept, repeated members collapsed.
``n_edges_raw`` is the number of hyperedges in the source file, ``n_edges_unique`` the number
of distinct member sets of size >= 2.
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
