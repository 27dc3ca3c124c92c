"""The parameter lists of the distributed estimators, read from their single-process twins
(same defaults, so the two cannot drift apart).
"""

from __future__ import annotations

import inspect

__all__ = ["twin_init", "twin_defaults", "twin_constraints"]


def twin_defaults(twin, names) -> dict:
    """``{name: default}`` of the parameters ``names`` of ``twin.__init__``.

    Examples
    --------
    >>> from hyperclust.cluster import AHCKA
    >>> twin_defaults(AHCKA, ["alpha", "max_iter"])
    {'alpha': 0.2, 'max_iter': 200}
    """
    params = inspect.signature(twin.__init__).parameters
    missing = [name for name in names if name not in params]
    if missing:
        raise TypeError(f"{twin.__name__} has no parameters {missing}")
    return {name: params[name].default for name in names}


def twin_constraints(twin, shared, own: dict) -> dict:
    """``_parameter_constraints``: ``n_clusters`` and ``shared`` from ``twin``'s table, then ``own``.

    Examples
    --------
    >>> from hyperclust.cluster import AHCKA
    >>> table = twin_constraints(AHCKA, ["alpha"], {"block_size": [int]})
    >>> list(table), table["alpha"] == AHCKA._parameter_constraints["alpha"]
    (['n_clusters', 'alpha', 'block_size'], True)
    """
    table = twin._parameter_constraints
    return {**{name: table[name] for name in ("n_clusters", *shared) if name in table}, **own}


def twin_init(twin, shared, own: dict):
    """An ``__init__``: ``n_clusters``, then keyword-only ``shared`` (twin's defaults) and ``own``.

    It stores each argument under its name (scikit-learn's contract).

    Parameters
    ----------
    twin : type
        The single-process estimator.
    shared : sequence of str
    own : dict
        Parameters only the distributed estimator has, with their defaults.

    Returns
    -------
    function
        With ``__signature__`` set (what ``get_params`` reads).

    Examples
    --------
    >>> import inspect
    >>> from hyperclust.cluster import AHCKA
    >>> class Twin:
    ...     __init__ = twin_init(AHCKA, ["alpha"], {"block_size": 10})
    >>> str(inspect.signature(Twin))
    '(n_clusters=2, *, alpha=0.2, block_size=10)'
    >>> vars(Twin(3, block_size=5))
    {'n_clusters': 3, 'alpha': 0.2, 'block_size': 5}
    """
    names = ["n_clusters", *[name for name in shared if name != "n_clusters"]]
    defaults = twin_defaults(twin, names)
    overlap = sorted(set(defaults) & set(own))
    if overlap:
        raise TypeError(f"parameters {overlap} are both shared with {twin.__name__} and own")
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
              inspect.Parameter("n_clusters", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=defaults.pop("n_clusters"))]
    params += [inspect.Parameter(name, kw, default=value)
               for name, value in [*defaults.items(), *own.items()]]
    signature = inspect.Signature(params)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature
    __init__.__doc__ = (f"Parameters shared with {twin.__name__} take its defaults; see the "
                        f"class docstring.")
    return __init__
