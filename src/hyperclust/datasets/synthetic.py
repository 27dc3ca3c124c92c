"""Synthetic hypergraphs: a stochastic block model whose ``homophily`` is the expected
pairwise same-class rate (hyperedges pure with the probability that gives it, else spread
over the classes), and a two-view model whose hyperedges and attributes follow different
partitions.
"""

from __future__ import annotations


import numpy as np

from .._validation import check_int
from ..hypergraph import Hypergraph

__all__ = ["VIEWS", "hypergraph_sbm", "min_pairwise_rate", "two_view_sbm"]


def min_pairwise_rate(size, n_classes: int) -> np.ndarray:
    """Smallest pairwise same-class rate of a hyperedge of ``size`` members over ``n_classes``.

    Members spread as evenly as possible; 0 for sizes up to ``n_classes``. Returns float64
    of ``size``'s shape.

    Examples
    --------
    Over 2 classes, 3 members put 2 in one class (1 same-class pair of 3), 4 members 2 + 2
    (2 of 6):

    >>> min_pairwise_rate([1, 2, 3, 4], 2).round(4).tolist()
    [0.0, 0.0, 0.3333, 0.3333]
    """
    s = np.asarray(size, dtype=np.int64)
    base, extra = np.divmod(s, n_classes)
    same = extra * (base + 1) * base / 2 + (n_classes - extra) * base * (base - 1) / 2
    pairs = s * (s - 1) / 2
    return np.divide(same, pairs, out=np.zeros(s.shape, dtype=np.float64), where=pairs > 0)


def _check_sbm(n_nodes, n_classes, homophily, isolated_fraction, feature_snr,
               n_features) -> tuple:
    """``(n, k, h, d)`` of :func:`hypergraph_sbm`'s arguments, checked."""
    n = check_int(n_nodes, "n_nodes", 2)
    k = check_int(n_classes, "n_classes", 2)
    if k > n:
        raise ValueError(f"n_classes={k} exceeds n_nodes={n}")
    h = float(homophily)
    if not 0.0 <= h <= 1.0:
        raise ValueError(f"homophily must lie in [0, 1], got {homophily!r}")
    if not 0.0 <= isolated_fraction < 1.0:
        raise ValueError(f"isolated_fraction must lie in [0, 1), got {isolated_fraction!r}")
    if feature_snr < 0 or not np.isfinite(feature_snr):
        raise ValueError(f"feature_snr must be a non-negative number, got {feature_snr!r}")
    return n, k, h, check_int(n_features, "n_features", 0)


def _edge_pool(rng, labels, k: int, isolated_fraction: float) -> tuple:
    """``(pool, class_count)``: the non-isolated nodes sorted by class, and their count by class."""
    n = labels.size
    in_edges = np.ones(n, dtype=bool)
    n_iso = int(round(isolated_fraction * n))
    if n_iso:
        in_edges[rng.choice(n, size=n_iso, replace=False)] = False
    pool = np.flatnonzero(in_edges)
    class_count = np.bincount(labels[pool], minlength=k)
    if (class_count == 0).any():
        raise ValueError("too many isolated nodes: some class has no node left for hyperedges")
    return pool[np.argsort(labels[pool], kind="stable")], class_count


def _edge_sizes(rng, edge_sizes, n: int, n_edges, pool_size: int):
    """The size of each hyperedge: uniform in ``(lo, hi)`` or the given array."""
    if isinstance(edge_sizes, tuple) and len(edge_sizes) == 2:
        lo, hi = (check_int(s, "edge_sizes bound", 1) for s in edge_sizes)
        if lo > hi:
            raise ValueError(f"edge_sizes=(lo, hi) needs lo <= hi, got {edge_sizes}")
        m = n if n_edges is None else check_int(n_edges, "n_edges", 0)
        sizes = rng.integers(lo, hi + 1, size=m)
    else:
        sizes = np.asarray(edge_sizes)
        if sizes.ndim != 1 or not np.issubdtype(sizes.dtype, np.integer) or (sizes < 1).any():
            raise ValueError("edge_sizes must be (lo, hi) or a 1-D array of positive integers")
    if sizes.size and sizes.max() > pool_size:
        raise ValueError(f"a hyperedge of size {sizes.max()} does not fit in {pool_size} nodes")
    return sizes


def _draw_members(rng, sizes, k: int, h: float, pool_by_class, class_count) -> tuple:
    """``(members, edge_of_slot)``: hyperedges pure with the probability giving ``h``, else spread."""
    m = sizes.size
    r_min = min_pairwise_rate(sizes, k)
    q = np.clip(np.divide(h - r_min, 1.0 - r_min, out=np.ones(m), where=r_min < 1.0), 0.0, 1.0)
    pure = rng.random(m) < q
    edge_class = rng.integers(0, k, size=m)
    offset = rng.integers(0, k, size=m)

    edge_of_slot = np.repeat(np.arange(m), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    pos = np.arange(edge_of_slot.size) - starts[edge_of_slot]
    slot_class = np.where(pure[edge_of_slot], edge_class[edge_of_slot],
                          (offset[edge_of_slot] + pos) % k)
    class_start = np.concatenate([[0], np.cumsum(class_count)[:-1]])
    # Members are drawn uniformly within their slot's class; repeats inside one hyperedge
    # are redrawn (a few vectorised rounds), so hyperedges are independent samples.
    local = rng.integers(0, class_count[slot_class]) if edge_of_slot.size else edge_of_slot
    members = pool_by_class[class_start[slot_class] + local]
    for _ in range(50):
        order = np.lexsort((members, edge_of_slot))
        same = (edge_of_slot[order][1:] == edge_of_slot[order][:-1]) & \
               (members[order][1:] == members[order][:-1])
        repeat = order[1:][same]
        if repeat.size == 0:
            break
        members[repeat] = pool_by_class[class_start[slot_class[repeat]]
                                        + rng.integers(0, class_count[slot_class[repeat]])]
    return members, edge_of_slot


def hypergraph_sbm(n_nodes: int = 1000, n_classes: int = 4, *, homophily: float = 0.8,
                   n_edges: int | None = None, edge_sizes=(2, 6), n_features: int = 32,
                   feature_snr: float = 0.35, isolated_fraction: float = 0.0,
                   random_state=0, name: str | None = None) -> Hypergraph:
    """Sample a labelled hypergraph with planted classes and class-dependent features.

    Parameters
    ----------
    n_nodes : int
        Balanced classes; node ids are shuffled.
    n_classes : int
        ``k >= 2``.
    homophily : float in [0, 1]
        Target pairwise rate: 1 = within one class, 0 = never two members of one class
        (clipped at :func:`min_pairwise_rate` for sizes above ``k``).
    n_edges : int, optional
        Default ``n_nodes``.
    edge_sizes : (int, int) or array-like of int
        Sizes uniform in ``[lo, hi]``, or one size per hyperedge.
    n_features : int
        0 for no features.
    feature_snr : float
        Features are ``feature_snr * centre[class] + N(0, I_d)``, centres ~ N(0, I_d).
    isolated_fraction : float in [0, 1)
        Share of nodes in no hyperedge.
    random_state : int

    Returns
    -------
    Hypergraph
        With ``labels`` and ``features``.

    Examples
    --------
    The measured pairwise homophily is the knob: 1 puts every hyperedge inside one class,
    0 never puts two members of one class together:

    >>> hg = hypergraph_sbm(60, 3, homophily=1.0, n_features=4, random_state=0)
    >>> hg.n_nodes, hg.n_classes, hg.features.shape, hg.homophily()["pairwise"]
    (60, 3, (60, 4), 1.0)
    >>> hypergraph_sbm(60, 3, homophily=0.0, edge_sizes=(2, 3), n_features=0).homophily()["pairwise"]
    0.0
    """
    n, k, h, d = _check_sbm(n_nodes, n_classes, homophily, isolated_fraction, feature_snr,
                            n_features)
    rng = np.random.default_rng(random_state)
    labels = rng.permutation(np.arange(n) % k)
    pool, class_count = _edge_pool(rng, labels, k, isolated_fraction)
    sizes = _edge_sizes(rng, edge_sizes, n, n_edges, pool.size)
    m = sizes.size
    members, edge_of_slot = _draw_members(rng, sizes, k, h, pool, class_count)

    features = None
    if d:
        centres = rng.normal(size=(k, d))
        features = feature_snr * centres[labels] + rng.normal(size=(n, d))
    return Hypergraph.from_pairs(members, edge_of_slot, n_nodes=n, n_edges=m, labels=labels,
                                 features=features, duplicates="merge",
                                 name=name or f"hsbm(h={h:g})")


#: Which partition a :func:`two_view_sbm` draws with, by the view it carries.
VIEWS = ("edges", "features")


def two_view_sbm(n_nodes: int = 1000, n_classes: int = 4, *, agreement: float = 0.0,
                 classes: str = "edges", noise: str | None = None, homophily: float = 0.8,
                 edge_sizes=(2, 6), n_features: int = 32, feature_snr: float = 0.5,
                 random_state=0) -> Hypergraph:
    """A hypergraph whose hyperedges follow one partition ``a`` and whose attributes another ``b``.

    ``b`` keeps each node's part of ``a`` with probability ``agreement``, else draws from an
    independent partition. The draws do not depend on ``classes``.

    Parameters
    ----------
    n_nodes, n_classes : int
    agreement : float in [0, 1]
    classes : {"edges", "features"}
        The view whose partition the labels are.
    noise : {"edges", "features"} or None
        A view made pure noise.
    homophily, edge_sizes : as :func:`hypergraph_sbm`, for ``a``
    n_features : int >= 1
    feature_snr : float >= 0
    random_state : int

    Returns
    -------
    Hypergraph

    Examples
    --------
    >>> from hyperclust.metrics import evaluate
    >>> e = two_view_sbm(300, 3, agreement=0.0, classes="edges", random_state=0)
    >>> f = two_view_sbm(300, 3, agreement=0.0, classes="features", random_state=0)
    >>> bool(evaluate(e.labels, f.labels)["nmi"] < 0.05), e.homophily()["pairwise"] > 0.7
    (True, True)
    """
    if classes not in VIEWS or noise not in (None, *VIEWS):
        raise ValueError(f"classes must be one of {VIEWS} and noise None or one of them, got "
                         f"{classes!r}, {noise!r}")
    if not 0.0 <= float(agreement) <= 1.0:
        raise ValueError(f"agreement must lie in [0, 1], got {agreement!r}")
    n, k, h, d = _check_sbm(n_nodes, n_classes, homophily, 0.0, feature_snr, n_features)
    if d < 1:
        raise ValueError("two_view_sbm needs n_features >= 1")
    rng = np.random.default_rng(random_state)
    a, other = rng.permutation(np.arange(n) % k), rng.permutation(np.arange(n) % k)
    b = np.where(rng.random(n) < float(agreement), a, other)
    pool, class_count = _edge_pool(rng, a, k, 0.0)
    sizes = _edge_sizes(rng, edge_sizes, n, None, pool.size)
    members, edge_of_slot = _draw_members(rng, sizes, k, 1.0 / k if noise == "edges" else h,
                                          pool, class_count)
    snr = 0.0 if noise == "features" else float(feature_snr)
    features = snr * rng.normal(size=(k, d))[b] + rng.normal(size=(n, d))
    return Hypergraph.from_pairs(members, edge_of_slot, n_nodes=n, n_edges=sizes.size,
                                 labels=a if classes == "edges" else b, features=features,
                                 duplicates="merge",
                                 name=f"two-view(agreement={float(agreement):g}, {classes})")
