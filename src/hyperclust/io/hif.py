"""HIF (Hypergraph Interchange Format) JSON: read, write and validate against the bundled schema.

Nodes and hyperedges are numbered in the order of ``nodes``/``edges``, then of first appearance
in ``incidences``; the edge weight is ``weight``, else ``attrs.weight`` (as XGI writes it);
node ``attrs[label_key]``, ``attrs["features"]``, ``attrs["name"]`` give labels, features and
names; incidence weights and directions are ignored with a warning.
"""

from __future__ import annotations

import functools
import json
import warnings
from importlib import resources
from pathlib import Path

import numpy as np

from ..hypergraph import Hypergraph
from ._common import build, encode_labels, read_json
from .errors import DataFormatError

__all__ = ["read_hif", "write_hif", "from_hif", "to_hif", "validate_hif", "hif_schema"]


@functools.lru_cache(maxsize=1)
def hif_schema() -> dict:
    """The bundled HIF JSON schema (draft 2020-12), cached: do not modify it.

    Examples
    --------
    >>> hif_schema()["required"]
    ['incidences']
    """
    text = resources.files("hyperclust.io").joinpath("hif_schema.json").read_text(encoding="utf-8")
    return json.loads(text)


_ARRAYS = {"nodes": ("node",), "edges": ("edge",), "incidences": ("edge", "node")}


def _is_id(x) -> bool:
    return isinstance(x, (str, int)) and not isinstance(x, bool)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _edge_weight(rec, path):
    """An edge record's ``weight``, else ``attrs.weight``, else None."""
    if "weight" in rec:
        return rec["weight"]
    w = rec.get("attrs", {}).get("weight")
    if w is not None and not _is_number(w):
        raise DataFormatError(f"edge {rec['edge']!r}: attrs.weight {w!r} is not a number", path)
    return w


def _bad_item(rec, required) -> str | None:
    if not isinstance(rec, dict):
        return f"{rec!r} is not of type 'object'"
    for key in required:
        if key not in rec:
            return f"{key!r} is a required property"
        if not _is_id(rec[key]):
            return f"{rec[key]!r} is not of type 'string', 'integer'"
    if "weight" in rec and not _is_number(rec["weight"]):
        return f"{rec['weight']!r} is not of type 'number'"
    if "attrs" in rec and not isinstance(rec["attrs"], dict):
        return f"{rec['attrs']!r} is not of type 'object'"
    if "direction" in rec and rec["direction"] not in ("head", "tail"):
        return f"{rec['direction']!r} is not one of ['head', 'tail']"
    return None


def validate_hif(doc, path=None, *, full: bool = False) -> None:
    """Raise :class:`DataFormatError` naming the first schema violation of ``doc``.

    Parameters
    ----------
    doc : object
        A parsed JSON document.
    path : str or PathLike, optional
        Named in the error.
    full : bool
        Run ``jsonschema`` on every record; the default checks the records of the big arrays
        directly (same rules, much faster).

    Examples
    --------
    >>> validate_hif({"incidences": [{"edge": "e0", "node": 1}]})  # valid: returns None
    >>> validate_hif({"incidences": [{"edge": "e0"}]}, "x.json")
    Traceback (most recent call last):
    ...
    hyperclust.io.errors.DataFormatError: x.json: not valid HIF at incidences/0: 'node' is a required property
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(hif_schema())
    if not full and isinstance(doc, dict):
        shell = {k: ([] if k in _ARRAYS and isinstance(v, list) else v) for k, v in doc.items()}
        _raise_first(validator, shell, path)
        for key, required in _ARRAYS.items():
            for i, rec in enumerate(doc.get(key, ())):
                msg = _bad_item(rec, required)
                if msg is not None:
                    raise DataFormatError(f"not valid HIF at {key}/{i}: {msg}", path)
        return
    _raise_first(validator, doc, path)


def _raise_first(validator, doc, path):
    import jsonschema

    err = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    if err is not None:
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        raise DataFormatError(f"not valid HIF at {where}: {err.message}", path)


def read_hif(path, *, label_key: str = "label", validate: bool = True, **options) -> Hypergraph:
    """Read a HIF JSON file (see :func:`from_hif`).

    Parameters
    ----------
    path : str or PathLike
    label_key : str
        Node attribute holding the class label.
    validate : bool
        Check the document against the bundled schema first.
    **options
        ``duplicates``, ``singletons``, ``empty`` for :meth:`Hypergraph.from_pairs`.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> doc = {"incidences": [{"edge": "a", "node": n} for n in (0, 1, 2)]
    ...                      + [{"edge": "b", "node": n} for n in (2, 3)]}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "hg.json"
    ...     _ = path.write_text(json.dumps(doc))
    ...     hg = read_hif(path)
    >>> hg.n_nodes, [e.tolist() for e in hg.edges()], hg.edge_ids.tolist()
    (4, [[0, 1, 2], [2, 3]], ['a', 'b'])
    """
    path = Path(path)
    doc = read_json(path)
    return from_hif(doc, label_key=label_key, validate=validate, path=path, **options)


def _index(ids_in_order, extra_ids):
    index = {}
    for i in ids_in_order:
        index.setdefault(_key(i), len(index))
    for i in extra_ids:
        index.setdefault(_key(i), len(index))
    return index


def _key(x):
    # 1 and "1" are different HIF ids; keep the type in the key.
    return (type(x) is str, x)


def from_hif(doc: dict, *, label_key: str = "label", validate: bool = True, path=None,
             name=None, **options) -> Hypergraph:
    """Build a Hypergraph from a parsed HIF document (mapping in the module notes).

    Parameters
    ----------
    doc : dict
        A parsed HIF document (an object with ``incidences``).
    label_key : str
        Node attribute holding the class label.
    validate : bool
        Check ``doc`` against the bundled schema first.
    path : str or PathLike, optional
        Named in errors and warnings.
    name : str, optional
        Display name; default ``metadata["name"]``.
    **options
        ``duplicates``, ``singletons``, ``empty`` for :meth:`Hypergraph.from_pairs`.

    Examples
    --------
    Node ``"d"`` is in no hyperedge, and string labels become ``0..k-1``:

    >>> doc = {"nodes": [{"node": v, "attrs": {"label": y}}
    ...                  for v, y in zip("abcd", ["x", "x", "y", "y"])],
    ...        "incidences": [{"edge": 0, "node": v} for v in "abc"] + [{"edge": 1, "node": "c"}]}
    >>> hg = from_hif(doc)
    >>> hg.n_nodes, [e.tolist() for e in hg.edges()], hg.labels.tolist()
    (4, [[0, 1, 2], [2]], [0, 0, 1, 1])
    >>> hg.node_ids.tolist(), hg.isolated.tolist()
    (['a', 'b', 'c', 'd'], [False, False, False, True])
    """
    if validate:
        validate_hif(doc, path)
    elif not isinstance(doc, dict) or "incidences" not in doc:
        raise DataFormatError("not HIF: a JSON object with 'incidences' is required", path)
    inc = doc["incidences"]
    node_recs = doc.get("nodes", [])
    edge_recs = doc.get("edges", [])
    inc_nodes = [r["node"] for r in inc]
    inc_edges = [r["edge"] for r in inc]
    nidx = _index((r["node"] for r in node_recs), inc_nodes)
    eidx = _index((r["edge"] for r in edge_recs), inc_edges)
    n, m = len(nidx), len(eidx)
    nodes = np.fromiter((nidx[_key(v)] for v in inc_nodes), dtype=np.int64, count=len(inc))
    edges = np.fromiter((eidx[_key(e)] for e in inc_edges), dtype=np.int64, count=len(inc))
    _warn_ignored(doc, inc, path)
    weights = _hif_weights(edge_recs, eidx, m, path)
    attrs = [None] * n
    for r in node_recs:
        attrs[nidx[_key(r["node"])]] = r.get("attrs") or {}
    attrs = [a or {} for a in attrs]
    labels, classes = _hif_labels(attrs, label_key, path)
    features = _hif_features(attrs, [k[1] for k in nidx], path)
    node_names = [str(a["name"]) for a in attrs] if n and all("name" in a for a in attrs) \
        else None
    eattrs = {eidx[_key(r["edge"])]: (r.get("attrs") or {}) for r in edge_recs}
    if m and len(eattrs) == m and all("name" in a for a in eattrs.values()):
        edge_names = [str(eattrs[j]["name"]) for j in range(m)]
    else:
        edge_names = None
    meta = doc.get("metadata") or {}
    notes = {"format": "hif", "source": None if path is None else str(path), "raw_edges": m}
    if classes is not None:
        notes["classes"] = classes.tolist()
    return build(nodes, edges, n, m, labels=labels, features=features, weights=weights,
                 node_names=node_names, edge_names=edge_names, name=name or meta.get("name"),
                 notes=notes, node_ids=_hif_ids([k[1] for k in nidx], "node"),
                 edge_ids=_hif_ids([k[1] for k in eidx], "edge"), **options)


def _warn_ignored(doc: dict, inc: list, path) -> None:
    if doc.get("network-type") == "directed" or any("direction" in r for r in inc):
        warnings.warn(f"{path or 'HIF'}: incidence directions are ignored (undirected "
                      "hypergraph)", stacklevel=3)
    if any(r.get("weight", 1) != 1 for r in inc):
        warnings.warn(f"{path or 'HIF'}: incidence weights are ignored (binary incidence)",
                      stacklevel=3)


def _hif_weights(edge_recs: list, eidx: dict, m: int, path):
    """Hyperedge weights (1 where absent), None when no edge gives one; non-positive is an error."""
    given = [(eidx[_key(r["edge"])], w) for r in edge_recs
             if (w := _edge_weight(r, path)) is not None]
    if not given:
        return None
    weights = np.ones(m)
    weights[[j for j, _ in given]] = [w for _, w in given]
    bad = np.flatnonzero(~np.isfinite(weights) | (weights <= 0))
    if bad.size:
        raise DataFormatError(f"hyperedge weights must be positive (edge {bad[0]} has "
                              f"{weights[bad[0]]})", path)
    return weights


def _hif_labels(attrs: list, label_key: str, path):
    """``(labels, classes)`` from node attr ``label_key`` (-1 where absent), or ``(None, None)``."""
    if not any(label_key in a for a in attrs):
        return None, None
    raw = [a.get(label_key) for a in attrs]
    present = [x for x in raw if x is not None]
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in present):
        return encode_labels([-1 if x is None else x for x in raw], path)
    names = sorted({str(x) for x in present})
    code = {s: c for c, s in enumerate(names)}
    labels = np.array([-1 if x is None else code[str(x)] for x in raw], dtype=np.int64)
    return labels, np.array(names, dtype=object)


def _hif_features(attrs: list, ids: list, path):
    """``(n, d)`` node features from the ``features`` attrs, or None; all nodes or none."""
    has_features = [("features" in a) for a in attrs]
    if not attrs or not any(has_features):
        return None
    if not all(has_features):
        missing = has_features.index(False)
        raise DataFormatError(
            f"node {ids[missing]!r} has no 'features' attr while "
            f"{sum(has_features)} of {len(attrs)} nodes do; give every node features, or none",
            path)
    try:
        return np.array([a["features"] for a in attrs], dtype=np.float64)
    except (TypeError, ValueError):
        raise DataFormatError("node attrs 'features' must be equal-length number lists",
                              path) from None


def _hif_ids(ids: list, what: str):
    """HIF ids as node/edge ids: ints stay ints, else strings (1 and "1" may not both occur)."""
    if all(isinstance(i, int) for i in ids):
        return np.asarray(ids, dtype=np.int64) if ids else None
    text = [str(i) for i in ids]
    if len(set(text)) != len(text):
        raise DataFormatError(f"{what} ids {sorted(set(t for t in text if text.count(t) > 1))[:3]}"
                              " occur both as numbers and as strings; make them distinct")
    return np.asarray(text, dtype=object)


def to_hif(hg: Hypergraph, *, label_key: str = "label", include_features: bool = False,
           metadata: dict | None = None) -> dict:
    """A HIF document for ``hg``, with ids ``hg.node_ids`` / ``hg.edge_ids``.

    Parameters
    ----------
    hg : Hypergraph
    label_key : str
        Node attribute to hold the labels (nodes labelled -1 get none).
    include_features : bool
        Store feature rows as node ``attrs["features"]``.
    metadata : dict, optional
        Extra ``metadata`` entries (``name`` defaults to ``hg.name``).

    Returns
    -------
    dict
        One incidence per (hyperedge, member) pair.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> doc = to_hif(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> [(r["edge"], r["node"]) for r in doc["incidences"]]
    [(0, 0), (0, 1), (0, 2), (1, 2), (1, 3)]
    """
    n, m = hg.shape
    node_attrs = [{} for _ in range(n)]
    if hg.node_names is not None:
        for a, s in zip(node_attrs, hg.node_names):
            a["name"] = s
    if hg.labels is not None:
        for a, y in zip(node_attrs, hg.labels.tolist()):
            if y >= 0:
                a[label_key] = y
    if include_features and hg.features is not None:
        X = hg.features
        rows = (X.toarray() if hasattr(X, "toarray") else np.asarray(X)).tolist()
        for a, row in zip(node_attrs, rows):
            a["features"] = row
    nid = hg.node_ids.tolist()
    eid = hg.edge_ids.tolist()
    nodes = [{"node": nid[i], "attrs": a} if a else {"node": nid[i]}
             for i, a in enumerate(node_attrs)]
    w = hg.weights.tolist()
    # The weight also in attrs: where XGI's read_hif looks for it.
    names = hg.edge_names if hg.edge_names is not None else [None] * m
    edges = [{"edge": eid[j], "weight": w[j],
              "attrs": {"weight": w[j], **({"name": s} if s is not None else {})}}
             for j, s in enumerate(names)]
    Ht = hg.incidence_t
    edge_of = np.repeat(np.arange(m), np.diff(Ht.indptr)).tolist()
    incidences = [{"edge": eid[e], "node": nid[v]} for e, v in zip(edge_of, Ht.indices.tolist())]
    meta = {"creator": "hyperclust"}
    if hg.name is not None:
        meta["name"] = str(hg.name)
    meta.update(metadata or {})
    return {"network-type": "undirected", "metadata": meta, "nodes": nodes, "edges": edges,
            "incidences": incidences}


def write_hif(hg: Hypergraph, path, *, label_key: str = "label", include_features: bool = False,
              metadata: dict | None = None, validate: bool = True) -> None:
    """Write ``hg`` as HIF JSON; arguments as for :func:`to_hif`, ``validate`` checks the schema.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]], n_nodes=5, weights=[1.0, 2.5],
    ...                            labels=[0, 0, 1, 1, 1])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_hif(hg, pathlib.Path(d) / "hg.json")
    ...     back = read_hif(pathlib.Path(d) / "hg.json")
    >>> back.n_nodes, back.weights.tolist(), back.labels.tolist()
    (5, [1.0, 2.5], [0, 0, 1, 1, 1])
    """
    doc = to_hif(hg, label_key=label_key, include_features=include_features, metadata=metadata)
    if validate:
        validate_hif(doc, path)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
