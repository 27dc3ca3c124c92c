"""One declarative validation style: the constraint combinators, and every registered
method declaring what each of its parameters accepts."""

import inspect

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust._validation import (FINITE_ARRAY, RANDOM_STATE, Check, Interval,
                                    InvalidParameterError, Options, check_parameter,
                                    check_parameters)
from hyperclust.cluster.base import HypergraphClusterer, check_hypergraph
import hyperclust.bench  # noqa: F401  (registers the peer libraries' methods)
from hyperclust.cluster import registry


@pytest.mark.parametrize("constraint, good, bad, words", [
    (Interval(int, 1), [1, np.int64(7)], [0, 2.0, True, "3", None], "a positive integer"),
    (Interval(int, 0), [0, 5], [-1, 1.5], "a non-negative integer"),
    (Interval(int, 2), [2], [1], "an integer >= 2"),
    (Interval(float, 0, 1), [0, 0.5, 1, np.float32(0.25)], [-0.1, 1.1, np.nan, True],
     "a float in [0, 1]"),
    (Interval(float, 0, 1, closed="right"), [1.0, 1e-9], [0.0], "a float in (0, 1]"),
    (Interval(float, 0, 1, closed="left"), [0.0], [1.0], "a float in [0, 1)"),
    (Interval(float, 0), [0, 3.5, 10**9], [-1e-9, np.inf, np.nan], "a non-negative float"),
    (Options(("min", "mean")), ["min"], ["max", None, 1], "one of ('min', 'mean')"),
    (RANDOM_STATE, [None, 3, np.random.RandomState(0), np.random.default_rng(0)], ["0", 1.5],
     "None, an int"),
    (FINITE_ARRAY, [[1.0, 2.0], np.zeros(3)], ["ab", [np.nan], [[1.0]]], "finite 1-D array"),
])
def test_combinators_accept_and_refuse_known_values(constraint, good, bad, words):
    assert words in str(constraint)
    for value in good:
        assert check_parameter("p", value, [constraint]) is value
    for value in bad:
        with pytest.raises(InvalidParameterError, match=r"^p must be .* got "):
            check_parameter("p", value, [constraint])


def test_plain_items_and_the_one_line_message():
    allowed = ["auto", None, bool, Interval(float, 0)]
    for value in ("auto", None, True, 0.5):
        check_parameter("reg", value, allowed)
    with pytest.raises(InvalidParameterError) as err:
        check_parameter("reg", "fast", allowed)
    assert str(err.value) == ("reg must be 'auto', None, True or False or a non-negative float, "
                              "got 'fast'")
    assert isinstance(err.value, ValueError) and isinstance(err.value, TypeError)
    with pytest.raises(TypeError, match="not a parameter constraint"):
        check_parameter("x", 1, [3])


def test_options_read_live_and_table_order():
    names = ["a"]
    live = Options(lambda: tuple(names))
    with pytest.raises(InvalidParameterError, match=r"one of \('a',\), got 'b'"):
        check_parameter("op", "b", [live])
    names.append("b")
    assert check_parameter("op", "b", [live]) == "b"
    table = {"x": [Interval(int, 0)], "y": [Interval(int, 0)]}
    with pytest.raises(InvalidParameterError, match="^x must"):  # the table's order
        check_parameters(table, {"y": -1, "x": -1})
    check_parameters(table, {"z": "anything"})  # not in the table: not checked here


class _Toy(HypergraphClusterer):
    _parameter_constraints = {"n_clusters": [Interval(int, 1)],
                              "mode": [Options(("fast", "slow"))],
                              "random_state": [RANDOM_STATE]}

    def __init__(self, n_clusters=2, mode="fast", random_state=0):
        self.n_clusters, self.mode, self.random_state = n_clusters, mode, random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        self.labels_ = np.zeros(hg.n_nodes, dtype=int)
        return self


def test_fit_checks_the_table_before_anything_else():
    hg = Hypergraph.from_edges([[0, 1], [1, 2]])
    assert _Toy().fit(hg).labels_.tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match=r"^mode must be one of \('fast', 'slow'\), got 'quick'$"):
        _Toy(mode="quick").fit(hg)
    with pytest.raises(TypeError, match="^n_clusters must be a positive integer, got 2.0$"):
        _Toy(n_clusters=2.0).fit(hg)
    with pytest.raises(ValueError, match="^random_state must be None, an int"):
        _Toy(random_state="0").fit(hg)


def _in_package_classes():
    """``{class: first method name}`` of every registered method made by hyperclust (peers'
    wrappers included)."""
    registry.available_methods(peers=True)  # derives the spectral-<operator> entries
    seen = {}
    for name, entry in registry.METHODS.items():
        cls = registry._import_object(entry.estimator)
        if cls.__module__.startswith("hyperclust."):
            seen.setdefault(cls, name)
    return seen


def test_every_registered_method_declares_every_parameter():
    classes = _in_package_classes()
    assert len(classes) >= 8
    for cls, name in classes.items():
        params = set(inspect.signature(cls.__init__).parameters) - {"self"}
        table = cls._parameter_constraints
        assert set(table) == params, (name, sorted(params ^ set(table)))
        for allowed in table.values():
            assert allowed and isinstance(allowed, list)


def test_every_default_is_allowed():
    for cls in _in_package_classes():
        defaults = {p.name: p.default for p in inspect.signature(cls.__init__).parameters.values()
                    if p.name != "self"}
        check_parameters(cls._parameter_constraints, defaults)


_PROBES = (object(), "no-such-option", -7, -0.5, 2.5, True, None, [[1.0]])


def _refused_value(allowed):
    """A probe value that none of ``allowed`` accepts (None when each probe is accepted)."""
    for value in _PROBES:
        try:
            check_parameter("p", value, allowed)
        except InvalidParameterError:
            return value
    return None


def test_fit_refuses_each_parameter_with_one_line_naming_it():
    """For every parameter of every registered method, a value its constraints refuse makes
    ``fit`` fail at once with the table's one line (before any work, peers' libraries too)."""
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5]], features=np.eye(6))
    for cls, name in _in_package_classes().items():
        for param, allowed in cls._parameter_constraints.items():
            bad = _refused_value(allowed)
            assert bad is not None, (name, param)
            params = {**registry.METHODS[name].params, "n_clusters": 2, param: bad}
            est = cls(**params)  # not make_estimator: a peer's library may be missing
            with pytest.raises(InvalidParameterError) as err:
                est.fit(hg)
            assert str(err.value).startswith(f"{param} must be "), (name, param, str(err.value))
            assert "\n" not in str(err.value)


def test_dask_estimators_check_the_twins_table_before_any_client():
    pytest.importorskip("distributed")
    from hyperclust import Hypergraph
    from hyperclust.cluster import AHCKA, SpectralHypergraphClustering
    from hyperclust.distributed import DistributedAHCKA, DistributedSpectralClustering

    for dask, twin, name in [(DistributedAHCKA, AHCKA, "alpha"),
                             (DistributedSpectralClustering, SpectralHypergraphClustering,
                              "regularization")]:
        assert dask._parameter_constraints[name] == twin._parameter_constraints[name]
    hg = Hypergraph.from_edges([[0, 1], [1, 2], [3, 4]])
    for est, line in [(DistributedAHCKA(2, alpha=2.0), "^alpha must be"),
                      (DistributedAHCKA(2, block_size=0), "^block_size must be"),
                      (DistributedSpectralClustering(2, regularization=-1.0),
                       "^regularization must be"),
                      (DistributedSpectralClustering(2, n_workers=0), "^n_workers must be")]:
        with pytest.raises(ValueError, match=line):
            est.fit(hg)  # refused before a client is made (none is given here)
