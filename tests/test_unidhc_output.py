"""Uni-DHC's output choice: the held-out canonical score of a clustering and the rule that
keeps or drops the encoder (cluster/unidhc_output.py)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from sklearn.preprocessing import normalize

from hyperclust.cluster.unidhc import UniDHC
from hyperclust.cluster.hsbm_heldout import (heldout_errors, paired_standard_errors,
                                             split_hypergraph)
from hyperclust.cluster.unidhc_output import (HELDOUT_CANDIDATES, HELDOUT_ROUNDS,
                                              SPLIT_CANDIDATES,
                                              cluster_canonical_score,
                                              heldout_choice, split_choice)
from hyperclust.datasets.synthetic import hypergraph_sbm


def _dense_score(labels, R, ridge):
    """Reference: the squared canonical correlations between the centred one-hot indicator
    (one column dropped: the rest span the centred indicator space) and the centred R with
    ``ridge`` x mean eigenvalue on R's covariance, by a generalised eigenproblem."""
    k = labels.max() + 1
    Y = np.eye(k)[labels][:, 1:]
    Y = Y - Y.mean(axis=0)
    R = R - R.mean(axis=0)
    Crr = R.T @ R
    Crr = Crr + ridge * np.trace(Crr) / len(Crr) * np.eye(len(Crr))
    M = Y.T @ R
    rho2 = scipy.linalg.eigh(M @ np.linalg.solve(Crr, M.T), Y.T @ Y, eigvals_only=True)
    return rho2.sum(), rho2


@pytest.mark.parametrize("ridge", [0.0, 0.01, 0.5])
def test_score_matches_dense_canonical_correlations(ridge):
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 4, size=60)
    R = rng.normal(size=(60, 5)) + labels[:, None] * rng.normal(size=5)
    total, rho2 = _dense_score(labels, R, ridge)
    assert cluster_canonical_score(labels, R, ridge) == pytest.approx(total, rel=1e-10)
    assert np.all(rho2 <= 1 + 1e-12) and len(rho2) == 3  # at most k - 1 correlations


def test_score_properties():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 40)
    R = 3.0 * np.eye(3)[y] @ rng.normal(size=(3, 6)) + rng.normal(size=(120, 6))
    planted = cluster_canonical_score(y, R)
    # relabelling does not change it; the planted clustering is near k - 1 = 2 and far above
    # a random one of the same sizes
    assert cluster_canonical_score(np.array([2, 0, 1])[y], R) == pytest.approx(planted)
    assert 1.5 < planted <= 2.0
    assert cluster_canonical_score(rng.permutation(y), R) < 0.3
    # a clustering of pure noise columns scores near nothing
    assert cluster_canonical_score(y, rng.normal(size=(120, 6))) < 0.3


def _planted_basis(seed, n_per=60, d=8, k=3):
    """A basis (K = 1) whose filter output holds k planted clusters in every column."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n_per)
    X = 2.0 * np.eye(k)[y] @ rng.normal(size=(k, d)) + rng.normal(size=(k * n_per, d))
    return np.stack([X, X]).astype(np.float32), y


def _choose(basis, encoder_output, k=3, seed=0):
    """heldout_choice with a stand-in encoder whose output is ``encoder_output`` (fixed
    rows, whatever columns it is given)."""
    return heldout_choice(basis, np.array([1.0, 0.0]), train=lambda half: None,
                          encode=lambda net, F: normalize(encoder_output), k=k, n_init=3,
                          seed=seed)


@pytest.mark.parametrize("seed", range(5))
def test_noise_spreading_encoder_is_dropped(seed):
    # the encoder output holds strong clusters that the held-out columns know nothing
    # about (a random partition): the concatenation follows them and must lose
    basis, y = _planted_basis(seed)
    noise = 10.0 * np.eye(3)[np.random.default_rng(seed + 100).permutation(y)]
    choice, scores = _choose(basis, noise, seed=seed)
    assert choice == "filter"
    assert sum(scores["filter"]) > sum(scores["concat"])


@pytest.mark.parametrize("seed", range(5))
def test_denoising_encoder_is_kept(seed):
    # the filter output is weak; the encoder output recovers the planted classes, which the
    # held-out columns share: the concatenation must win
    basis, y = _planted_basis(seed)
    rng = np.random.default_rng(seed)
    weak = (0.3 * np.eye(3)[y] @ rng.normal(size=(3, 8))
            + rng.normal(size=(len(y), 8))).astype(np.float32)
    basis = np.stack([basis[0], weak])
    choice, scores = heldout_choice(
        basis, np.array([0.0, 1.0]), train=lambda half: None,
        encode=lambda net, F: normalize(10.0 * np.eye(3)[y] + 0.1 * rng.normal(size=(len(y), 3))),
        k=3, n_init=3, seed=seed)
    assert choice == "concat", scores


def test_tie_keeps_the_filter():
    basis, y = _planted_basis(0)
    choice, scores = _choose(basis, np.zeros((len(y), 3)))  # the encoder adds nothing
    assert scores["filter"] == pytest.approx(scores["concat"])
    assert len(scores["filter"]) == HELDOUT_ROUNDS  # one score per round
    assert choice == "filter"


def test_estimator_heldout_choice_and_determinism():
    hg = hypergraph_sbm(200, 3, homophily=0.8, n_features=8, random_state=0)
    params = dict(epochs=2, hidden_dim=16, batch_size=64, n_init=3, embedding="heldout",
                  random_state=0)
    est = UniDHC(3, **params).fit(hg)
    assert est.selected_ in HELDOUT_CANDIDATES
    assert set(est.scores_) == set(HELDOUT_CANDIDATES)
    assert est.selected_ == max(HELDOUT_CANDIDATES, key=lambda c: sum(est.scores_[c]))
    width = {"filter": 8, "concat": 16}[est.selected_]
    assert est.embedding_.shape == (200, width) and est.n_filter_columns_ == 8
    again = UniDHC(3, **params).fit(hg)
    np.testing.assert_array_equal(est.labels_, again.labels_)
    assert again.scores_ == est.scores_
    assert est.selection_reason_.startswith(
        f"output {est.selected_} (held-out canonical score, higher is better: ")


def test_estimator_split_reason_names_the_held_out_error(monkeypatch):
    hg, _ = _planted_split(0)
    noise = 10.0 * np.eye(3)[np.random.default_rng(1).integers(0, 3, 300)]
    _stand_in_encoder(monkeypatch, lambda n: noise[:n])
    est = UniDHC(3, epochs=1, hidden_dim=8, n_init=3, embedding="split").fit(hg)
    assert est.selection_reason_ == (f"output {est.selected_} (held-out error, lower is "
                                     "better: " + ", ".join(f"{c} {e:.4f}" for c, e in
                                                            est.scores_.items()) + ")")


def test_structural_input_keeps_the_filter():
    # no feature columns to hold out: the encoder cannot be checked, the filter output stays
    hg = hypergraph_sbm(150, 3, homophily=0.9, n_features=0, random_state=0)
    est = UniDHC(3, epochs=1, hidden_dim=8, n_init=2, embedding="heldout").fit(hg)
    assert est.input_kind_ == "structural"
    assert est.selected_ == "filter" and est.scores_ is None
    assert est.embedding_.shape[1] == est.n_filter_columns_


# ---------------------------------------------------------------- embedding="split"
def _planted_split(seed):
    hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=8, feature_snr=1.0,
                        random_state=seed)
    return hg, split_hypergraph(hg, random_state=seed)


@pytest.mark.parametrize("seed", range(5))
def test_split_choice_drops_a_concatenation_the_heldout_data_refute(seed):
    hg, split = _planted_split(seed)
    noise = np.random.default_rng(seed).permutation(hg.labels)
    # filter and low-pass tie (both the truth): the first of them wins
    choice, errors = split_choice([split], [{"concat": noise, "filter": hg.labels,
                                             "low-pass": hg.labels}])
    assert choice == "filter" and errors["filter"] == errors["low-pass"] < errors["concat"]
    choice, _ = split_choice([split], [{"concat": noise, "filter": noise,
                                        "low-pass": hg.labels}])
    assert choice == "low-pass"


@pytest.mark.parametrize("seed", range(5))
def test_split_choice_keeps_the_concatenation_unless_beaten_by_the_margin(seed):
    hg, split = _planted_split(seed)
    rng = np.random.default_rng(seed)
    assert split_choice([split], [{"concat": hg.labels,
                                   "filter": rng.permutation(hg.labels)}])[0] == "concat"
    # equal errors: the concatenation stays (it must be beaten, not tied)
    assert split_choice([split], [{"concat": hg.labels, "filter": hg.labels}])[0] == "concat"
    # a slightly worse concatenation (20 of 300 nodes moved): replaced exactly when the
    # filter's error is lower by more than the margin's paired standard errors
    worse = hg.labels.copy()
    moved = rng.choice(300, 20, replace=False)
    worse[moved] = (worse[moved] + 1) % 3
    labels = {"concat": worse, "filter": hg.labels}
    e = heldout_errors(split, labels, "coverage")
    se = paired_standard_errors(split, labels, "concat", "coverage")["filter"]
    for margin in (0.0, 2.0, 1e3):
        expected = "filter" if e["filter"] < e["concat"] - margin * se else "concat"
        assert split_choice([split], [labels], margin)[0] == expected
    assert split_choice([split], [labels], 0.0)[0] == "filter"
    assert split_choice([split], [labels], 1e3)[0] == "concat"


def test_split_choice_averages_the_splits():
    # per split the errors and paired SEs of a dense reference; the rule sees their mean and
    # the standard error of the mean difference sqrt(sum SE^2) / S
    hg, _ = _planted_split(0)
    splits = [split_hypergraph(hg, random_state=s) for s in (0, 1000, 2000)]
    rng = np.random.default_rng(0)
    parts = []
    for _ in splits:
        worse = hg.labels.copy()
        moved = rng.choice(300, 15, replace=False)
        worse[moved] = (worse[moved] + 1) % 3
        parts.append({"concat": hg.labels, "filter": worse})
    choice, errors = split_choice(splits, parts, margin=0.0)
    e = [heldout_errors(s, p, "coverage") for s, p in zip(splits, parts)]
    assert errors["filter"] == pytest.approx(np.mean([x["filter"] for x in e]))
    assert errors["concat"] == pytest.approx(np.mean([x["concat"] for x in e]))
    assert choice == "concat" and errors["concat"] < errors["filter"]
    se = np.sqrt(sum(paired_standard_errors(s, p, "concat")["filter"] ** 2
                     for s, p in zip(splits, parts))) / 3
    swapped = [{"concat": p["filter"], "filter": p["concat"]} for p in parts]
    gap = errors["filter"] - errors["concat"]
    assert split_choice(splits, swapped, margin=0.99 * gap / se)[0] == "filter"
    assert split_choice(splits, swapped, margin=1.01 * gap / se)[0] == "concat"


def _stand_in_encoder(monkeypatch, output):
    """Replace the trained encoder's output by ``output(n_rows)`` (left unnormalised, so a
    large output decides the concatenation's k-means)."""
    monkeypatch.setattr(UniDHC, "_encode", lambda self, net, Z: output(len(Z)))


def test_estimator_split_drops_a_noise_encoder(monkeypatch):
    # an encoder whose output is a random partition: the concatenation follows it, the
    # held-out hyperedges and columns refute it, and no full encoder is trained
    hg, _ = _planted_split(0)
    noise = 10.0 * np.eye(3)[np.random.default_rng(1).integers(0, 3, 300)]
    _stand_in_encoder(monkeypatch, lambda n: noise[:n])
    est = UniDHC(3, epochs=1, hidden_dim=8, n_init=3, embedding="split").fit(hg)
    assert est.selected_ in ("filter", "low-pass") and set(est.scores_) == set(SPLIT_CANDIDATES)
    assert est.loss_history_ == [] and est.embedding_.shape == (300, 8)
    assert min(est.scores_, key=est.scores_.get) == est.selected_


def test_estimator_split_keeps_an_encoder_that_finds_the_classes(monkeypatch):
    hg = hypergraph_sbm(300, 3, homophily=0.7, n_features=8, feature_snr=0.3, random_state=0)
    truth = 10.0 * np.eye(3)[hg.labels]
    _stand_in_encoder(monkeypatch, lambda n: truth[:n])
    params = dict(epochs=1, hidden_dim=8, n_init=3, embedding="split", random_state=0)
    est = UniDHC(3, **params).fit(hg)
    assert est.selected_ == "concat" and len(est.loss_history_) == 1
    assert est.embedding_.shape == (300, 8 + 3) and est.n_filter_columns_ == 8
    again = UniDHC(3, **params).fit(hg)
    np.testing.assert_array_equal(est.labels_, again.labels_)
    assert again.scores_ == est.scores_


def test_estimator_split_determinism_and_structural_rule():
    hg = hypergraph_sbm(200, 3, homophily=0.8, n_features=8, random_state=0)
    params = dict(epochs=1, hidden_dim=8, batch_size=64, n_init=2, embedding="split")
    one, two = UniDHC(3, **params).fit(hg), UniDHC(3, **params).fit(hg)
    assert one.selected_ == two.selected_ and one.scores_ == two.scores_
    np.testing.assert_array_equal(one.labels_, two.labels_)
    bare = hypergraph_sbm(150, 3, homophily=0.9, n_features=0, random_state=0)
    est = UniDHC(3, **params).fit(bare)
    assert est.selected_ == "filter" and est.scores_ is None and est.loss_history_ == []
