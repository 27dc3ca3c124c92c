"""Positional encodings with the null space handled explicitly: equal for every seed, equal
to dense references, and the same through ``hyperclust embed``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import subspace_angles

from hyperclust import Hypergraph
from hyperclust.operators.encodings import (encoding_operator_names, laplacian_eigenpairs,
                                  laplacian_spectrum, node_encoding, null_space)
from test_collapsed_eigen import gapped_k, many_component_hypergraph


@pytest.fixture(scope="module")
def many():
    return many_component_hypergraph(big=450, seed=1)


def dense_laplacian(hg, operator):
    from hyperclust.operators.collapsed import CoboundaryCollapsed
    from hyperclust.operators.registry import OPERATORS, affinity, make_operator

    if operator == "collapsed-cells":
        return CoboundaryCollapsed(hg, method="dense").to_dense()
    if "affinity" not in OPERATORS[operator].protocols:
        return make_operator(operator, hg).to_dense()
    M, d = affinity(operator, hg)
    s = np.divide(1.0, np.sqrt(d), out=np.zeros(d.size), where=d > 0)
    A = np.asarray(M @ np.eye(hg.n_nodes))
    return np.eye(hg.n_nodes) - s[:, None] * A * s[None, :]


@pytest.mark.parametrize("operator", encoding_operator_names())
def test_spectrum_equals_dense_eigh(many, operator):
    L = dense_laplacian(many, operator)
    w, U = np.linalg.eigh(0.5 * (L + L.T))
    null = null_space(many, operator)
    c = null.shape[1]
    assert int(np.sum(np.abs(w) < 1e-9)) == c
    k = gapped_k(w, c + 12)
    vals, V = laplacian_eigenpairs(many, k, operator)
    np.testing.assert_allclose(vals, w[:k], atol=1e-8, rtol=0)
    assert np.max(subspace_angles(V, U[:, :k])) < 1e-6
    _, nz, Vnz = laplacian_spectrum(many, k - c, operator)
    np.testing.assert_allclose(nz, w[c:k], atol=1e-8, rtol=0)
    assert null.shape[1] == 0 or np.abs(null.T @ Vnz).max() < 1e-8


@pytest.mark.parametrize("operator", encoding_operator_names())
@pytest.mark.parametrize("kind", ["heat", "eigvec"])
def test_encodings_do_not_depend_on_the_seed(many, operator, kind):
    Z0 = node_encoding(many, kind, k=16, operator=operator, random_state=0)
    Z1 = node_encoding(many, kind, k=16, operator=operator, random_state=1)
    assert Z0.shape == (many.n_nodes, 16 if kind == "eigvec" else 8)
    np.testing.assert_allclose(Z0, Z1, atol=1e-7)


def test_heat_adds_the_exact_null_space_term():
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [4, 5]], n_nodes=7)
    Z = node_encoding(hg, "heat", k=1, operator="collapsed-cells", n_times=3)
    L = dense_laplacian(hg, "collapsed-cells")
    w, U = np.linalg.eigh(L)
    assert np.sum(np.abs(w) < 1e-9) == 3 and w[4] - w[3] > 1e-3
    from hyperclust.operators.eigensolvers import hks_times

    t = hks_times(w[3:4], 3)
    expected = np.array([1 / 4] * 4 + [1 / 2] * 2 + [1.0])[:, None] \
        + (U[:, 3:4] ** 2) * np.exp(-w[3] * t)[None, :]
    np.testing.assert_allclose(Z, expected, atol=1e-10)


def test_cora_ca_encodings_do_not_depend_on_the_seed(shared_data):
    from hyperclust.datasets import load_dataset

    hg = load_dataset("cora-ca", data_dir=shared_data)
    for operator in ("collapsed-cells", "zhou"):
        Z0 = node_encoding(hg, "heat", k=16, operator=operator, random_state=0)
        Z1 = node_encoding(hg, "heat", k=16, operator=operator, random_state=1)
        assert np.abs(Z0 - Z1).max() <= 1e-8 * np.abs(Z0).max()


def doubled_zhou(hg):
    from hyperclust.operators import ZhouLaplacian

    return ZhouLaplacian(hg.replace(weights=2.0 * hg.weights), kind="unnormalized")


def test_a_registered_operator_gives_encodings(many):
    """``register_operator`` is all it takes: the encodings, the null space and the
    smoothing of a new operator come from the registry (here Zhou's with doubled weights,
    whose normalized Laplacian is Zhou's, so the encodings must agree)."""
    from hyperclust.operators.registry import OPERATORS, OperatorSpec, register_operator
    from hyperclust.smoothing import laplacian_operator

    register_operator("zhou2", OperatorSpec(doubled_zhou, "Zhou, weights doubled",
                                            frozenset({"matvec", "affinity"})))
    try:
        assert "zhou2" in encoding_operator_names()
        for kind in ("heat", "eigvec"):
            np.testing.assert_allclose(node_encoding(many, kind, k=8, operator="zhou2"),
                                       node_encoding(many, kind, k=8, operator="zhou"), atol=1e-8)
        assert null_space(many, "zhou2").shape == null_space(many, "zhou").shape
        X = np.random.default_rng(0).standard_normal((many.n_nodes, 3))
        np.testing.assert_allclose(laplacian_operator(many, "zhou2") @ X,
                                   laplacian_operator(many, "zhou") @ X, atol=1e-12)
    finally:
        del OPERATORS["zhou2"]
    with pytest.raises(ValueError, match="operator must be one of"):
        node_encoding(many, "heat", operator="zhou2")


def test_an_operator_with_its_own_solver_and_no_spectrum_method(many):
    """An own-eigensolver operator without ``spectrum``: the null space is taken from its
    zero eigenvalues."""
    from hyperclust.operators import CoboundaryCollapsed
    from hyperclust.operators.registry import OPERATORS, OperatorSpec, register_operator

    class NoSpectrum(CoboundaryCollapsed):
        spectrum = None

    register_operator("cells-plain", OperatorSpec(NoSpectrum, "S_eps without spectrum()",
                                                  frozenset({"matvec", "eigenpairs"}),
                                                  options=("eps",)))
    try:
        assert null_space(many, "cells-plain").shape == null_space(many, "collapsed-cells").shape
        np.testing.assert_allclose(node_encoding(many, "heat", k=6, operator="cells-plain"),
                                   node_encoding(many, "heat", k=6, operator="collapsed-cells"),
                                   atol=1e-8)
    finally:
        del OPERATORS["cells-plain"]
