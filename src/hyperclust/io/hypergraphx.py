"""Reader for hypergraphx's JSON (``hypergraphx.readwrite.save_hypergraph``): a header object,
then node and edge records; only undirected ``"Hypergraph"`` files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..hypergraph import Hypergraph
from ._common import build, read_json
from .errors import DataFormatError

__all__ = ["read_hypergraphx", "is_hypergraphx"]


def is_hypergraphx(doc) -> bool:
    """Whether a parsed JSON document is a list opening with a ``hypergraph_type`` object.

    Examples
    --------
    >>> is_hypergraphx([{"hypergraph_type": "Hypergraph"}]), is_hypergraphx({"incidences": []})
    (True, False)
    """
    return (isinstance(doc, list) and len(doc) > 0 and isinstance(doc[0], dict)
            and "hypergraph_type" in doc[0])


def read_hypergraphx(path, *, label_key: str = "class", doc=None, name=None,
                     **options) -> Hypergraph:
    """Read a hypergraphx JSON file; nodes by increasing ``idx`` (kept as ``node_ids``).

    Parameters
    ----------
    path : str or PathLike
    label_key : str
        Node metadata key holding the class (coded ``0..k-1`` in sorted order; absent: -1).
    doc : list, optional
        The already parsed document.
    name : str, optional
        Display name; default the file name without its suffixes.
    **options
        ``duplicates``, ``singletons``, ``empty`` for :meth:`Hypergraph.from_pairs`.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> doc = [{"hypergraph_type": "Hypergraph"}]
    >>> doc += [{"type": "node", "idx": i, "metadata": {"class": c}}
    ...         for i, c in zip((10, 11, 12, 13), "aabb")]
    >>> doc += [{"type": "edge", "interaction": [10, 11, 12], "weight": 1.0},
    ...         {"type": "edge", "interaction": [12, 13], "weight": 1.0}]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "hg.json"
    ...     _ = path.write_text(json.dumps(doc))
    ...     hg = read_hypergraphx(path)
    >>> [e.tolist() for e in hg.edges()], hg.labels.tolist(), hg.node_ids.tolist()
    ([[0, 1, 2], [2, 3]], [0, 0, 1, 1], [10, 11, 12, 13])
    """
    path = Path(path)
    if doc is None:
        doc = read_json(path)
    if not is_hypergraphx(doc):
        raise DataFormatError("not a hypergraphx JSON list (no 'hypergraph_type' header)", path)
    kind = doc[0].get("hypergraph_type")
    if kind != "Hypergraph":
        raise DataFormatError(f"hypergraph_type {kind!r} is not supported (only 'Hypergraph')", path)
    node_recs, edge_recs = _node_and_edge_records(doc, path)
    members = [r["interaction"] for r in edge_recs]
    sizes = np.fromiter(map(len, members), dtype=np.int64, count=len(members))
    flat = [x for e in members for x in e]
    ids = sorted({r["idx"] for r in node_recs} | set(flat), key=lambda x: (type(x) is str, x))
    index = {x: i for i, x in enumerate(ids)}
    nodes = np.fromiter((index[x] for x in flat), dtype=np.int64, count=len(flat))
    eids = np.repeat(np.arange(len(members)), sizes)
    weights = _weights(edge_recs, path)
    raw = {r["idx"]: (r.get("metadata") or {}).get(label_key) for r in node_recs}
    labels = classes = None
    if any(v is not None for v in raw.values()):
        names = sorted({str(v) for v in raw.values() if v is not None})
        code = {s: c for c, s in enumerate(names)}
        labels = np.array([-1 if raw.get(x) is None else code[str(raw[x])] for x in ids],
                          dtype=np.int64)
        classes = names
    notes = {"format": "hypergraphx", "source": str(path), "raw_edges": len(members)}
    if classes is not None:
        notes["classes"] = classes
        notes["class_names"] = classes
    return build(nodes, eids, len(ids), len(members), labels=labels, weights=weights,
                 node_ids=_ids_array(ids), name=name or path.stem.split(".")[0], notes=notes,
                 **options)


def _node_and_edge_records(doc: list, path) -> tuple[list, list]:
    node_recs, edge_recs = [], []
    for i, rec in enumerate(doc[1:], start=1):
        t = rec.get("type") if isinstance(rec, dict) else None
        if t == "node" and "idx" in rec:
            node_recs.append(rec)
        elif t == "edge" and isinstance(rec.get("interaction"), list):
            edge_recs.append(rec)
        else:
            raise DataFormatError(f"record {i} is neither a node (with 'idx') nor an edge (with "
                                  f"an 'interaction' list): {str(rec)[:80]}", path)
    _check_ids([r["idx"] for r in node_recs], "node", path)
    for j, r in enumerate(edge_recs):
        _check_ids(r["interaction"], f"edge {j}: member", path)
    return node_recs, edge_recs


def _ids_array(ids: list):
    if all(isinstance(x, int) and not isinstance(x, bool) for x in ids):
        return np.asarray(ids, dtype=np.int64)
    return np.asarray([str(x) for x in ids], dtype=object)


def _check_ids(values, what: str, path) -> None:
    """Every id an int or a string."""
    bad = next((v for v in values if isinstance(v, bool) or not isinstance(v, (int, str))),
               "ok")
    if bad != "ok":
        raise DataFormatError(f"{what} id {bad!r} is not an integer or a string", path)


def _weights(edge_recs, path):
    """The edges' ``weight`` fields (1 when absent); None when all are 1."""
    raw = [r.get("weight", 1.0) for r in edge_recs]
    bad = next((w for w in raw if isinstance(w, bool) or not isinstance(w, (int, float))), "ok")
    if bad != "ok":
        raise DataFormatError(f"edge weight {bad!r} is not a number", path)
    weights = np.asarray(raw, dtype=np.float64)
    return None if np.all(weights == 1.0) else weights
