"""Deprecated: use :mod:`hyperclust.runtime.threads`."""

import warnings

from .runtime.threads import *  # noqa: F401,F403
from .runtime.threads import __all__  # noqa: F401

warnings.warn("hyperclust.threads is deprecated; import from hyperclust.runtime.threads",
              DeprecationWarning, stacklevel=2)
