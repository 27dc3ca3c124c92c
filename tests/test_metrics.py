import numpy as np
import pytest

from hyperclust.metrics import acc, ari, evaluate, f1_macro, match_clusters, nmi


def test_perfect_up_to_renaming():
    y = [0, 0, 1, 1, 2, 2]
    p = [5, 5, 3, 3, 9, 9]
    assert evaluate(y, p) == pytest.approx({"acc": 1.0, "nmi": 1.0, "ari": 1.0, "f1": 1.0})
    assert match_clusters(y, p) == {3: 1, 5: 0, 9: 2}


def test_hand_computed_fewer_clusters():
    y = [0, 0, 1, 1, 2, 2]
    p = [1, 1, 0, 0, 0, 0]
    # best matching: cluster1->class0 (2 right), cluster0->class1 or 2 (2 right): 4/6
    assert acc(y, p) == pytest.approx(4 / 6)
    # F1: class0 1.0; matched class: P=2/4, R=1 -> 2/3; unmatched class 0
    assert f1_macro(y, p) == pytest.approx((1 + 2 / 3 + 0) / 3)


def test_more_clusters_than_classes():
    y = [0, 0, 0, 1, 1, 1]
    p = [0, 1, 2, 3, 3, 3]
    assert acc(y, p) == pytest.approx(4 / 6)  # one of 0/1/2 matched to class 0, 3 -> class 1


def test_nmi_ari_reference_values():
    y = [0, 0, 1, 1]
    p = [0, 1, 0, 1]
    assert nmi(y, p) == pytest.approx(0.0, abs=1e-12)
    assert ari(y, p) == pytest.approx(-0.5)


def test_unlabelled_nodes_ignored_and_errors():
    assert acc([0, 1, -1], [0, 1, 1]) == 1.0
    with pytest.raises(ValueError, match="different lengths"):
        acc([0, 1], [0])
    with pytest.raises(ValueError, match="no labelled"):
        acc([-1, -1], [0, 1])


def test_string_class_names_are_all_labelled():
    y = np.array(["cat", "cat", "dog", "dog", "eel"])
    pred = [2, 2, 0, 0, 0]
    assert acc(y, pred) == 0.8
    assert acc(y, pred) == acc([0, 0, 1, 1, 2], pred)
