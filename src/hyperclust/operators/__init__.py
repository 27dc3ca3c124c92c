"""Hypergraph operators: propagation, Laplacians, expansions, collapsed effective operators."""

from .propagation import PropagationOperator, propagation_operator

__all__ = ["PropagationOperator", "propagation_operator"]
