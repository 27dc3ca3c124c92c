"""What construction does to raw hyperedges: repeated members collapsed, empty hyperedges
dropped, singletons kept or dropped, duplicate hyperedges merged, kept or dropped."""

from __future__ import annotations

from dataclasses import dataclass, field

import logging

import numpy as np
import scipy.sparse as sp

from .ids import _check_ids
from .validation import check_weights

__all__ = ["CleaningReport", "clean_incidence"]

_DUPLICATE_OPTIONS = ("keep", "merge", "drop")
_log = logging.getLogger("hyperclust")
_SINGLETON_OPTIONS = ("keep", "drop")
_EMPTY_OPTIONS = ("drop", "error")


@dataclass(frozen=True)
class CleaningReport:
    """What construction did to the raw hyperedges (counts of the input).

    Attributes
    ----------
    repeated_members_collapsed : int
        Repeated (node, hyperedge) memberships collapsed into one.
    duplicate_edges : int
        Hyperedges whose member set equals an earlier one's.
    duplicate_policy : {"keep", "merge", "drop"}
    singleton_edges : int
        Hyperedges with exactly one member.
    singleton_policy : {"keep", "drop"}
    empty_edges_dropped : int

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 0], [2]])
    >>> hg.cleaning.duplicate_edges, hg.cleaning.singleton_edges, hg.weights.tolist()
    (1, 1, [1.0, 1.0, 1.0])
    >>> Hypergraph.from_edges([[0, 1], [1, 0], [2]], duplicates="merge").weights.tolist()
    [2.0, 1.0]
    """

    repeated_members_collapsed: int = 0
    duplicate_edges: int = 0
    duplicate_policy: str = "keep"
    singleton_edges: int = 0
    singleton_policy: str = "keep"
    empty_edges_dropped: int = 0
    extra: dict = field(default_factory=dict)


def clean_incidence(H, *, n_pairs, weights=None, edge_names=None, edge_ids=None,
                    duplicates="keep", singletons="keep", empty="drop") -> dict:
    """Clean a raw incidence ``H`` (n_nodes, n_edges) as the ``Hypergraph`` constructors do.

    ``n_pairs`` counts the pairs given, repeats included; ``weights``, ``edge_names``,
    ``edge_ids`` are one per raw hyperedge; the policies are those of
    :meth:`Hypergraph.from_edges`. Returns ``{incidence, weights, edge_names, edge_ids,
    cleaning}`` of the kept hyperedges.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> H = sp.csr_matrix([[1, 1, 1], [1, 1, 0], [0, 0, 0]])   # hyperedges 0 and 1 equal
    >>> out = clean_incidence(H, n_pairs=5, weights=[1.0, 2.0, 1.0], duplicates="merge")
    >>> out["incidence"].shape, out["weights"].tolist(), out["cleaning"].duplicate_edges
    ((3, 2), [3.0, 1.0], 1)
    """
    for name, value, options in (("duplicates", duplicates, _DUPLICATE_OPTIONS),
                                 ("singletons", singletons, _SINGLETON_OPTIONS),
                                 ("empty", empty, _EMPTY_OPTIONS)):
        if value not in options:
            raise ValueError(f"{name} must be one of {options}, got {value!r}")
    H = sp.csr_matrix(H, dtype=np.float64, copy=True)
    H.sum_duplicates()
    repeated = int(n_pairs - H.nnz)
    H.data[:] = 1.0
    m = H.shape[1]
    w = check_weights(weights, m)
    names = None if edge_names is None else np.asarray([str(s) for s in edge_names], dtype=object)
    if names is not None and names.shape[0] != m:
        raise ValueError(f"edge_names has length {names.shape[0]}, expected {m}")

    Hc = H.tocsc()
    Hc.sort_indices()
    sizes = np.diff(Hc.indptr)
    keep = np.ones(m, dtype=bool)
    empty_mask = sizes == 0
    if empty_mask.any() and empty == "error":
        raise ValueError(f"hyperedge {int(np.flatnonzero(empty_mask)[0])} is empty "
                         f"({int(empty_mask.sum())} empty in all)")
    keep &= ~empty_mask
    singleton_mask = sizes == 1
    if singletons == "drop":
        keep &= ~singleton_mask

    dup_of = _first_copy(Hc, sizes, keep)
    is_dup = (dup_of != np.arange(m)) & keep
    n_dup = int(is_dup.sum())
    if duplicates in ("merge", "drop") and n_dup:
        if duplicates == "merge":
            np.add.at(w, dup_of[is_dup], w[is_dup])
        keep &= ~is_dup
    report = CleaningReport(
        repeated_members_collapsed=repeated,
        duplicate_edges=n_dup,
        duplicate_policy=duplicates,
        singleton_edges=int((singleton_mask & ~empty_mask).sum()),
        singleton_policy=singletons,
        empty_edges_dropped=int(empty_mask.sum()),
    )
    _log_changes(report)
    kept = np.flatnonzero(keep)
    eids = _check_ids(edge_ids, m, "edge_ids")
    if eids is None and edge_ids is not None and kept.size != m:
        eids = np.arange(m)  # given ids 0..m-1 stay the ids of the kept hyperedges
    return {"incidence": Hc[:, kept].tocsr(), "weights": w[kept],
            "edge_names": None if names is None else names[kept],
            "edge_ids": None if eids is None else eids[kept], "cleaning": report}


def _log_changes(report: CleaningReport) -> None:
    """Say on the ``hyperclust`` logger what construction changed."""
    if report.duplicate_edges and report.duplicate_policy != "keep":
        _log.info("%s %d duplicate hyperedge(s) (duplicates=%r%s)",
                  "merged" if report.duplicate_policy == "merge" else "dropped",
                  report.duplicate_edges, report.duplicate_policy,
                  ": weights summed into the first copy"
                  if report.duplicate_policy == "merge" else "")
    if report.singleton_edges and report.singleton_policy == "drop":
        _log.info("dropped %d single-member hyperedge(s) (singletons='drop')",
                  report.singleton_edges)
    if report.empty_edges_dropped:
        _log.info("dropped %d hyperedge(s) with no member", report.empty_edges_dropped)
    if report.repeated_members_collapsed:
        _log.info("collapsed %d repeated (node, hyperedge) membership(s)",
                  report.repeated_members_collapsed)


def _first_copy(Hc, sizes, keep) -> np.ndarray:
    """For each hyperedge, the position of the first kept hyperedge with the same member set
    (itself when none), by hashing confirmed by comparison.
    """
    n, m = Hc.shape
    dup_of = np.arange(m)
    if not m:
        return dup_of
    # Hash each column's member set, then confirm equality (a collision is not a copy).
    col_of = np.repeat(np.arange(m), sizes)
    rng = np.random.default_rng(12345)
    r1 = rng.integers(1, 2**61 - 1, size=max(n, 1), dtype=np.int64)
    r2 = rng.integers(1, 2**61 - 1, size=max(n, 1), dtype=np.int64)
    h1 = np.zeros(m, dtype=np.int64)
    h2 = np.zeros(m, dtype=np.int64)
    with np.errstate(over="ignore"):
        np.add.at(h1, col_of, r1[Hc.indices])
        np.add.at(h2, col_of, r2[Hc.indices])
    key = np.stack([sizes, h1, h2], axis=1)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    dup_of = first[inverse.reshape(-1)]
    cand = np.flatnonzero((dup_of != np.arange(m)) & keep)
    if cand.size:
        differs = np.asarray(abs(Hc[:, cand] - Hc[:, dup_of[cand]]).sum(axis=0)).ravel() > 0
        dup_of[cand[differs]] = cand[differs]
    return dup_of
