"""Deprecated: use :mod:`hyperclust.runtime.progress`."""

import warnings

from .runtime.progress import *  # noqa: F401,F403
from .runtime.progress import __all__  # noqa: F401

warnings.warn("hyperclust.progress is deprecated; import from hyperclust.runtime.progress",
              DeprecationWarning, stacklevel=2)
