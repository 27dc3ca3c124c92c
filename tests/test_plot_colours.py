"""``plot_clusters`` colours each cluster like the class it matches (Hungarian)."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust.plotting import matched_colours, plot_clusters


def test_matching_is_the_best_one_to_one_overlap():
    clusters = np.array([2, 2, 2, 0, 0, 1, 1, 1, 3])
    labels = np.array([7, 7, 4, 4, 4, 9, 9, -1, 9])
    cluster_colour, class_colour, n = matched_colours(clusters, labels)
    assert class_colour == {4: 0, 7: 1, 9: 2}
    # 2 -> 7 (2 nodes), 0 -> 4 (2), 1 -> 9 (2, the unlabelled node ignored); 3 unmatched
    assert cluster_colour == {2: 1, 0: 0, 1: 2, 3: 3} and n == 4
    assert matched_colours([5, 6, 6]) == ({5: 0, 6: 1}, {}, 2)


def test_more_classes_than_clusters_leave_classes_unmatched():
    cluster_colour, class_colour, n = matched_colours([0, 0, 1, 1], [0, 1, 2, 2])
    assert cluster_colour[1] == class_colour[2] and n == 3


def test_a_relabelled_perfect_clustering_draws_the_same_colours():
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], 30)
    clusters = np.array([2, 0, 1])[labels]          # the same partition, other numbers
    Z = rng.normal(size=(90, 4)) + labels[:, None] * 4
    fig = plot_clusters(Z, clusters, labels)

    def colour_of(ax):
        out = {}
        for coll in ax.collections:
            rgba = tuple(np.round(coll.get_facecolor()[0], 6))
            for x, y in coll.get_offsets():
                out[(round(float(x), 6), round(float(y), 6))] = rgba
        return out

    by_cluster, by_label = colour_of(fig.axes[0]), colour_of(fig.axes[1])
    assert by_cluster == by_label and len(set(by_cluster.values())) == 3


def test_many_clusters_get_distinct_colours_and_size_labels_that_do_not_overlap():
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    k = 67
    clusters = np.repeat(np.arange(k), 3)
    Z = np.random.default_rng(0).normal(size=(clusters.size, 4)) + clusters[:, None]
    fig = plot_clusters(Z, clusters)
    colours = {tuple(np.round(c.get_facecolor()[0][:3], 6)) for c in fig.axes[0].collections}
    assert len(colours) == k
    bars = {tuple(np.round(p.get_facecolor()[:3], 6)) for p in fig.axes[1].patches}
    assert bars == colours  # a bar in its cluster's colour
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    boxes = sorted((t.get_window_extent(renderer) for t in fig.axes[1].get_xticklabels()
                    if t.get_text()), key=lambda b: b.x0)
    assert 2 <= len(boxes) and all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:]))
