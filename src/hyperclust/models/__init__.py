"""Neural building blocks (torch): polynomial bases, self-supervised losses, Uni-DHC trainer."""

from .adaptivity import choose_family, smoothness_quotient, smoothness_zscore
from .basis import BASES, basis_response, polynomial_basis

__all__ = ["BASES", "basis_response", "polynomial_basis", "choose_family",
           "smoothness_quotient", "smoothness_zscore"]
