"""Statistics of a ``Hypergraph``: label homophily and the summary of sizes, degrees,
components and cleaning."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["homophily", "summary"]


def homophily(hg) -> dict:
    """Label homophily measures of ``hg``: see ``Hypergraph.homophily()``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [2, 3], [1, 2]], labels=[0, 0, 1, 1])
    >>> round(homophily(hg)["pairwise"], 3)
    0.667
    """
    if hg.labels is None:
        raise ValueError("homophily needs labels; this hypergraph has none")
    y = hg.labels
    lab = y >= 0
    classes, y_idx = np.unique(y[lab], return_inverse=True)
    k = max(classes.size, 1)
    yi = np.full(hg.n_nodes, -1, dtype=np.int64)
    yi[lab] = y_idx
    coo = hg.incidence.tocoo()
    keep = yi[coo.row] >= 0
    rows, cols = coo.row[keep], coo.col[keep].astype(np.int64)
    # (hyperedge, class) member counts over the nonzeros only: O(nnz), no m x k array
    key = cols * k + yi[rows]
    uniq, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    m = hg.n_edges
    edge_of = uniq // k
    s = np.bincount(cols, minlength=m).astype(np.float64)
    same_pairs = np.bincount(edge_of, weights=counts * (counts - 1) / 2, minlength=m)
    largest = np.zeros(m)
    np.maximum.at(largest, edge_of, counts)
    ok = s >= 2
    all_pairs = s * (s - 1) / 2
    pairwise = float(np.mean(same_pairs[ok] / all_pairs[ok])) if ok.any() else float("nan")
    majority = float(np.mean(largest[ok] / s[ok])) if ok.any() else float("nan")
    shares = np.bincount(y_idx, minlength=k) / max(y_idx.size, 1)
    rand_pair = float((shares ** 2).sum())
    own = np.bincount(rows, weights=counts[inverse.reshape(-1)] - 1.0, minlength=hg.n_nodes)
    tot = np.bincount(rows, weights=s[cols] - 1.0, minlength=hg.n_nodes)
    covered = lab & (tot > 0)
    node = float(np.mean(own[covered] / tot[covered])) if covered.any() else float("nan")
    return {"pairwise": pairwise, "pairwise_random": rand_pair, "majority": majority,
            "node": node}


def summary(hg) -> dict:
    """``{statistic name: value}`` of ``hg``: the statistics behind
    ``Hypergraph.summary()``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> s = summary(Hypergraph.from_edges([[0, 1, 2], [2, 3]], n_nodes=5))
    >>> s["n_nodes"], s["nnz"], s["isolated_nodes"], s["components"]
    (5, 5, 1, 2)
    """
    sizes = hg.edge_sizes
    deg = hg.node_degrees
    n_comp, comp = hg.connected_components()
    covered = ~hg.isolated
    n_comp_cov = int(np.unique(comp[covered]).size)
    feats = hg.features
    out = {
        "name": hg.name,
        "n_nodes": hg.n_nodes,
        "n_edges": hg.n_edges,
        "nnz": int(hg.incidence.nnz),
        "edge_size_min": int(sizes.min()) if sizes.size else 0,
        "edge_size_mean": float(sizes.mean()) if sizes.size else 0.0,
        "edge_size_max": int(sizes.max()) if sizes.size else 0,
        "degree_mean": float(deg.mean()) if deg.size else 0.0,
        "degree_max": int(deg.max()) if deg.size else 0,
        "isolated_nodes": int(hg.isolated.sum()),
        "components": n_comp,
        "components_covered": n_comp_cov,
        "largest_component": int((comp == 0).sum()) if comp.size else 0,
        "weighted": bool(np.any(hg.weights != 1.0)),
        "features": None if feats is None else (
            f"{feats.shape[1]} ({'sparse' if sp.issparse(feats) else 'dense'})"),
        "classes": hg.n_classes if hg.labels is not None else None,
        "duplicate_edges": hg.cleaning.duplicate_edges,
        "duplicate_policy": hg.cleaning.duplicate_policy,
        "singleton_edges": hg.cleaning.singleton_edges,
        "singleton_policy": hg.cleaning.singleton_policy,
        "empty_edges_dropped": hg.cleaning.empty_edges_dropped,
        "repeated_members_collapsed": hg.cleaning.repeated_members_collapsed,
    }
    if hg.labels is not None and hg.n_classes > 0:
        out.update({f"homophily_{k}": v for k, v in homophily(hg).items()})
    return out
