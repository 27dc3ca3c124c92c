"""The operator registry: the hypergraph operators a method can be run on, by name, each
declaring the protocols of :data:`PROTOCOLS` it meets (``"matvec"``: a symmetric
LinearOperator; ``"affinity"``: ``op.affinity() -> (M, d)``; ``"eigenpairs"``: its own
``smallest_eigenpairs``). See docs/extending.md.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from .._registry import add_entry

__all__ = ["OperatorSpec", "OPERATORS", "PROTOCOLS", "register_operator", "make_operator",
           "operator_names", "affinity"]

PROTOCOLS = ("matvec", "affinity", "eigenpairs")


@dataclass(frozen=True)
class OperatorSpec:
    """One registered operator.

    Attributes
    ----------
    factory : str or callable
        ``"module:callable"`` (imported when first built) or the callable;
        ``callable(hypergraph, **params, **options)`` builds the operator.
    description : str
    protocols : frozenset of str
    params : dict
        Fixed keywords passed to the callable.
    options : tuple of str
        User options the callable takes (e.g. ``("eps",)``); others are not passed.
    node_rows_only : bool
        Its rows are the nodes (False: nodes then hyperedges).

    Examples
    --------
    >>> spec = OPERATORS["clique-unit"]
    >>> spec.params, sorted(spec.protocols), spec.node_rows_only
    ({'weighting': 'unit'}, ['affinity', 'matvec'], True)
    >>> OPERATORS["star"].node_rows_only
    False
    """

    factory: str | Callable
    description: str
    protocols: frozenset = frozenset({"matvec"})
    params: dict = field(default_factory=dict)
    options: tuple = ()
    node_rows_only: bool = True


_AFFINE = frozenset({"matvec", "affinity"})

#: ``{name: OperatorSpec}``: the only place an operator is added.
OPERATORS: dict[str, OperatorSpec] = {
    "zhou": OperatorSpec("hyperclust.operators.laplacians:ZhouLaplacian",
                         "Zhou et al. 2006: affinity H W De^-1 H^T, degrees Dv", _AFFINE,
                         params={"kind": "unnormalized"}),
    "clique": OperatorSpec("hyperclust.operators.expansions:CliqueLaplacian",
                           "clique expansion, pair weight w_e / (|e| - 1)", _AFFINE,
                           params={"weighting": "normalized"}),
    "clique-unit": OperatorSpec("hyperclust.operators.expansions:CliqueLaplacian",
                                "clique expansion, pair weight w_e", _AFFINE,
                                params={"weighting": "unit"}),
    "star": OperatorSpec("hyperclust.operators.expansions:StarLaplacian",
                         "bipartite star expansion on nodes and hyperedges", _AFFINE,
                         node_rows_only=False),
    "collapsed": OperatorSpec("hyperclust.operators.collapsed:StarCollapsedOperator",
                              "star expansion collapsed onto the nodes with hyperedge leak eps "
                              "(M = H diag(w^2 / (w|e| + eps)) H^T, d = Dv)", _AFFINE,
                              options=("eps",)),
    "collapsed-cells": OperatorSpec("hyperclust.operators.collapsed:CoboundaryCollapsed",
                                    "S_eps of the graded complex vertices / clique edges / "
                                    "hyperedge cells, through H (its own eigensolver)",
                                    frozenset({"matvec", "eigenpairs"}), options=("eps",)),
    "collapsed-closure": OperatorSpec("hyperclust.operators.closure:closure_collapsed",
                                      "S_eps of the downward closure (simplices up to "
                                      "triangles, unit weights) through the generic Schur "
                                      "complement", frozenset({"matvec", "eigenpairs"}),
                                      options=("eps",)),
}


def register_operator(name: str, spec: OperatorSpec, *, replace: bool = False) -> None:
    """Add ``spec`` to the registry under ``name`` (a plugin's entry point).

    Examples
    --------
    >>> register_operator("zhou-loops", OperatorSpec(
    ...     "hyperclust.operators.laplacians:ZhouLaplacian", "Zhou, a unit self loop per node",
    ...     frozenset({"matvec", "affinity"}), params={"kind": "unnormalized", "self_loops": 1.0}))
    >>> "zhou-loops" in operator_names("affinity")
    True
    >>> del OPERATORS["zhou-loops"]
    """
    unknown = set(getattr(spec, "protocols", ())) - set(PROTOCOLS)
    if unknown:
        raise ValueError(f"unknown protocols {sorted(unknown)}; use some of {PROTOCOLS}")
    add_entry(OPERATORS, name, spec, OperatorSpec, "operator", replace=replace)


def operator_names(protocol: str | None = None) -> tuple:
    """Names of the registered operators (meeting ``protocol`` when given).

    Examples
    --------
    >>> operator_names("affinity")
    ('zhou', 'clique', 'clique-unit', 'star', 'collapsed')
    """
    return tuple(name for name, s in OPERATORS.items()
                 if protocol is None or protocol in s.protocols)


def _spec(name: str, protocol: str | None = None) -> OperatorSpec:
    if name not in OPERATORS:
        raise ValueError(f"unknown operator {name!r}; use one of {', '.join(OPERATORS)}")
    spec = OPERATORS[name]
    if protocol is not None and protocol not in spec.protocols:
        raise ValueError(f"operator {name!r} does not provide {protocol!r}; operators that "
                         f"do: {', '.join(operator_names(protocol))}")
    return spec


def make_operator(name: str, hypergraph, **options):
    """Build operator ``name`` on ``hypergraph``; ``options`` it does not take are ignored.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> make_operator("collapsed", hg, eps=0.5).shape
    (4, 4)
    """
    spec = _spec(name)
    build = spec.factory
    if isinstance(build, str):
        module, _, attr = build.partition(":")
        build = getattr(importlib.import_module(module), attr)
    return build(hypergraph, **spec.params, **{k: v for k, v in options.items()
                                              if k in spec.options})


def affinity(name: str, hypergraph, **options):
    """``(M, d)`` of operator ``name`` (protocol ``"affinity"``).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> M, d = affinity("clique-unit", Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> d.tolist()
    [2.0, 2.0, 3.0, 1.0]
    """
    _spec(name, "affinity")
    return make_operator(name, hypergraph, **options).affinity()
