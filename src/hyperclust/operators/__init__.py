"""Hypergraph operators: propagation, Laplacians, expansions, collapsed effective operators;
the registry of the operators methods run on (:mod:`hyperclust.operators.registry`)."""

from .propagation import PropagationOperator, propagation_operator
from .base import (FactoredOperator, Operator, OperatorTooLargeError, SymmetricOperator,
                   to_torch_sparse)
from .registry import OPERATORS, OperatorSpec, make_operator, register_operator
from .laplacians import GramOperator, ZhouLaplacian, zhou_laplacian
from .expansions import CliqueLaplacian, StarLaplacian, clique_adjacency
from .graded import GradedComplex, SchurComplement, eps_gamma_bound, schur_split
from .collapsed import (CoboundaryCollapsed, StarCollapsedOperator, coboundary_complex,
                        star_collapsed, star_complex)
from .diffusion import heat_diffusion, resolvent_smooth

__all__ = ["Operator", "SymmetricOperator", "OPERATORS", "OperatorSpec", "make_operator",
           "register_operator", "PropagationOperator", "propagation_operator", "FactoredOperator",
           "OperatorTooLargeError", "to_torch_sparse", "GramOperator", "ZhouLaplacian",
           "zhou_laplacian", "CliqueLaplacian", "StarLaplacian", "clique_adjacency",
           "GradedComplex", "SchurComplement", "schur_split", "eps_gamma_bound",
           "CoboundaryCollapsed", "StarCollapsedOperator",
           "coboundary_complex", "star_collapsed", "star_complex", "heat_diffusion",
           "resolvent_smooth"]
