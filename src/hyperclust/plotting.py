"""A picture of a clustering: a 2-D map of the embedding coloured by cluster (and by label),
and the cluster sizes. Needs the ``plots`` extra; pyplot is not used.
"""

from __future__ import annotations

import numpy as np

__all__ = ["embedding_2d", "plot_clusters", "matched_colours", "MAX_POINTS"]

MAX_POINTS = 5000
"""Most nodes drawn in the map (a seeded uniform sample beyond it)."""
MAX_SIZE_LABELS = 20
"""Most cluster ids written under the size bars (every s-th beyond it)."""


def _require_matplotlib():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plotting needs matplotlib, which is not installed: "
                          "pip install hyperclust[plots]") from None
    return Figure


def _palette(k: int) -> list:
    """``k`` distinct colours: tab10, tab20, then hues a golden angle apart in three rings.

    Examples
    --------
    >>> len(set(_palette(67))) == 67
    True
    """
    from matplotlib import colormaps
    from matplotlib.colors import hsv_to_rgb

    if k <= 20:
        cmap = colormaps["tab10" if k <= 10 else "tab20"]
        return [cmap(i) for i in range(max(k, 1))]
    i = np.arange(k)
    ring = i % 3
    hsv = np.column_stack([(i * 0.6180339887) % 1.0, np.array([0.85, 0.55, 0.95])[ring],
                           np.array([0.85, 0.95, 0.6])[ring]])
    return [(*map(float, rgb), 1.0) for rgb in hsv_to_rgb(hsv)]


def matched_colours(clusters, labels=None) -> tuple[dict, dict, int]:
    """Colour numbers for clusters and classes, each cluster matched to a class (Hungarian).

    Parameters
    ----------
    clusters : array-like of int, shape (n_nodes,)
    labels : array-like of int, shape (n_nodes,), optional
        Negative = unlabelled (ignored in the matching).

    Returns
    -------
    cluster_colour : dict
        Cluster id -> colour number.
    class_colour : dict
        Class id -> colour number (sorted order); empty without labels.
    n_colours : int

    Examples
    --------
    >>> matched_colours([0, 0, 1, 1, 2], [5, 5, 3, 3, 3])
    ({0: 1, 1: 0, 2: 2}, {3: 0, 5: 1}, 3)
    """
    clusters = np.asarray(clusters).reshape(-1)
    ids = np.unique(clusters)
    if labels is None:
        return {c: i for i, c in enumerate(ids.tolist())}, {}, int(ids.size)
    from .metrics import match_clusters

    labels = np.asarray(labels).reshape(-1)
    classes = np.unique(labels[labels >= 0])
    class_colour = {c: i for i, c in enumerate(classes.tolist())}
    matched = match_clusters(labels, clusters) if classes.size else {}
    matched = {c.item(): class_colour[t.item()] for c, t in matched.items()}
    cluster_colour, extra = {}, classes.size
    for c in ids.tolist():
        if c in matched:
            cluster_colour[c] = matched[c]
        else:  # more clusters than classes: a colour no class has
            cluster_colour[c] = extra
            extra += 1
    return cluster_colour, class_colour, int(extra)


def embedding_2d(embedding, *, method: str = "pca", max_points: int = MAX_POINTS,
                 random_state: int = 0):
    """Two coordinates per node for a map of ``embedding``, on at most ``max_points`` nodes.

    Parameters
    ----------
    embedding : ndarray or sparse matrix, shape (n_nodes, d)
    method : {"pca", "tsne"}, default "pca"
    max_points : int, default 5000
        Above this many nodes a seeded uniform sample is mapped.
    random_state : int, default 0

    Returns
    -------
    xy : ndarray, shape (n_drawn, 2)
    rows : ndarray of int, shape (n_drawn,)
        The rows drawn, sorted.

    Examples
    --------
    >>> Z = np.random.default_rng(0).normal(size=(100, 5))
    >>> xy, rows = embedding_2d(Z, max_points=40)
    >>> xy.shape, rows.shape
    ((40, 2), (40,))
    """
    if method not in ("pca", "tsne"):
        raise ValueError(f"method must be 'pca' or 'tsne', got {method!r}")
    if isinstance(max_points, bool) or not isinstance(max_points, (int, np.integer)) \
            or max_points < 1:
        raise ValueError(f"max_points must be a positive integer, got {max_points!r}")
    Z = embedding.toarray() if hasattr(embedding, "toarray") else np.asarray(embedding, float)
    if Z.ndim != 2:
        raise ValueError(f"embedding must be 2-dimensional, got shape {Z.shape}")
    n = Z.shape[0]
    rows = np.arange(n)
    if n > max_points:
        rows = np.sort(np.random.default_rng(random_state).choice(n, max_points, replace=False))
    Z = Z[rows]
    if Z.shape[1] == 1:
        Z = np.hstack([Z, np.zeros_like(Z)])
    if Z.shape[1] == 2 or Z.shape[0] < 3:
        xy = np.zeros((Z.shape[0], 2)) if Z.shape[1] > 2 else Z[:, :2]
        return np.asarray(xy, dtype=float), rows
    if method == "pca":
        from sklearn.decomposition import PCA

        xy = PCA(n_components=2, random_state=random_state).fit_transform(Z)
    else:
        from sklearn.manifold import TSNE

        xy = TSNE(n_components=2, random_state=random_state, init="pca",
                  perplexity=min(30.0, max(2.0, (Z.shape[0] - 1) / 3))).fit_transform(Z)
    return xy, rows


def _draw_sizes(bar, clusters, colour_of: dict):
    """A bar chart of cluster sizes, each bar in its cluster's colour."""
    ids, sizes = np.unique(clusters, return_counts=True)
    bar.bar(np.arange(ids.size), sizes, color=[colour_of[c] for c in ids.tolist()])
    step = -(-ids.size // MAX_SIZE_LABELS)  # labels that fit side by side, not over each other
    bar.set_xticks(np.arange(0, ids.size, step))
    bar.set_xticklabels([str(i) for i in ids[::step]], fontsize=8)
    bar.set_xlabel("cluster")
    bar.set_ylabel("nodes")
    bar.yaxis.get_major_locator().set_params(integer=True)
    bar.set_title(f"cluster sizes ({ids.size} clusters)")


def plot_clusters(embedding, clusters, labels=None, *, method: str = "pca",
                  max_points: int = MAX_POINTS, random_state: int = 0, title=None):
    """A figure: the embedding map by cluster, by label (when given, colours matched), and sizes.

    Parameters
    ----------
    embedding : ndarray or sparse matrix, shape (n_nodes, d)
    clusters : array-like of int, shape (n_nodes,)
    labels : array-like of int, shape (n_nodes,), optional
        Ground-truth classes (negative = unlabelled, drawn grey).
    method, max_points, random_state
        See :func:`embedding_2d`.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Z = np.vstack([rng.normal(0, 1, (50, 4)), rng.normal(5, 1, (50, 4))])
    >>> fig = plot_clusters(Z, np.repeat([0, 1], 50), labels=np.repeat([1, 0], 50))
    >>> len(fig.axes)
    3
    """
    Figure = _require_matplotlib()
    clusters = np.asarray(clusters).reshape(-1)
    n = clusters.shape[0]
    if np.shape(embedding)[0] != n:
        raise ValueError(f"embedding has {np.shape(embedding)[0]} rows, clusters {n}")
    if labels is not None:
        labels = np.asarray(labels).reshape(-1)
        if labels.shape[0] != n:
            raise ValueError(f"labels has length {labels.shape[0]}, expected {n}")
    xy, rows = embedding_2d(embedding, method=method, max_points=max_points,
                            random_state=random_state)
    projected = np.shape(embedding)[1] > 2
    axis_name = ("PC" if method == "pca" else "t-SNE ") if projected else "dim "
    panels = 3 if labels is not None else 2
    fig = Figure(figsize=(5.2 * panels, 4.6), layout="constrained")
    axes = fig.subplots(1, panels)
    drawn = f"{rows.size} of {n} nodes" if rows.size < n else f"{n} nodes"
    size = float(np.clip(20000.0 / max(rows.size, 1), 3.0, 40.0))

    cluster_colour, class_colour, n_colours = matched_colours(clusters, labels)
    palette = _palette(n_colours)

    def scatter(ax, values, what, colour):
        values = values[rows]
        ok = values >= 0
        if (~ok).any():
            ax.scatter(xy[~ok, 0], xy[~ok, 1], s=size, c="0.8", linewidths=0,
                       label="unlabelled")
        classes = np.unique(values[ok])
        for c in classes.tolist():
            sel = ok & (values == c)
            ax.scatter(xy[sel, 0], xy[sel, 1], s=size, color=palette[colour[c] % len(palette)],
                       linewidths=0, alpha=0.8, label=str(c))
        if classes.size <= 12:
            ax.legend(title=what, fontsize=7, title_fontsize=8, markerscale=max(1.0, 4 / size),
                      loc="best", frameon=False)
        ax.set_title(f"coloured by {what} ({drawn})")
        ax.set_xlabel(f"{axis_name}1")
        ax.set_ylabel(f"{axis_name}2")

    scatter(axes[0], clusters, "cluster", cluster_colour)
    if labels is not None:
        scatter(axes[1], labels, "label", class_colour)
    _draw_sizes(axes[-1], clusters,
                {c: palette[i % len(palette)] for c, i in cluster_colour.items()})
    if title:
        fig.suptitle(title)
    return fig
