"""Who goes on in a race of candidates scored on several hold-out splits.

After each split, a candidate goes on while its mean error is within ``margin`` standard
errors of the leader's. Two standard errors of a difference of mean errors:

* ``"items"``: the per-split paired standard errors (the sampling of the held-out items,
  both candidates judged on the same ones), root-sum-squared over the splits, over their
  number. It ignores that every split refits the candidates: where a candidate's fit moves
  between splits by more than the items' noise, one split "separates" candidates that the
  next would not.
* ``"splits"``: also the spread of the per-split differences from split to split (each split
  refits both candidates and holds out other items, so the spread holds both sources), added
  in quadrature to the paired part; it needs two splits, so after the first split no
  candidate of the race is dropped.

An indifference zone ``delta`` (Bechhofer 1954) ends the race early: once no survivor can be
more than ``delta`` better than the leader (``margin`` standard errors less its mean
difference to the leader below ``delta``), further splits could only swap the leader for a candidate
at most ``delta`` better, and the leader alone goes on. The standard errors shrink as the
held-out items grow with the input, so the larger the input, the sooner this holds: the
race fits fewer splits where each fit costs most.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RACE_SES", "race_survivors"]

#: What the race's standard error counts (see the module docstring).
RACE_SES = ("items", "splits")


def race_survivors(errors: list, paired_se: list, lead: str, margin: float,
                   se: str = "items", indifference: float = 0.0) -> tuple:
    """The candidates within ``margin`` standard errors of ``lead``'s mean error.

    Parameters
    ----------
    errors : list of dict of str -> float
        Each split's held-out errors (lower is better) of the candidates still in the race;
        every dict has the same keys.
    paired_se : list of dict of str -> float
        Each split's standard error of every candidate's error minus ``lead``'s on the same
        held-out items (0 for ``lead``).
    lead : str
        The candidate with the lowest mean error.
    margin : float
    se : {"items", "splits"}, default "items"
        :data:`RACE_SES`.
    indifference : float >= 0, default 0
        ``delta`` of the indifference zone (see module): ``(lead,)`` when every other
        survivor's ``margin`` standard errors less its mean difference to ``lead`` are below
        ``delta`` (0: no zone, the race goes on while any other survivor is left).

    Returns
    -------
    tuple of str
        The survivors, in the order of ``errors[0]`` (``lead`` always among them).

    Examples
    --------
    One split apart by 10 paired SEs, but the next split reverses the gap:

    >>> errors = [{"a": 0.20, "b": 0.30}, {"a": 0.30, "b": 0.22}]
    >>> paired = [{"a": 0.0, "b": 0.01}, {"a": 0.0, "b": 0.01}]
    >>> race_survivors(errors[:1], paired[:1], "a", 2.0, "items")
    ('a',)
    >>> race_survivors(errors[:1], paired[:1], "a", 2.0, "splits")
    ('a', 'b')
    >>> race_survivors(errors, paired, "a", 2.0, "splits")
    ('a', 'b')

    ``b`` is .001 behind with a standard error of .001: at 2 SEs it could still be .001
    ahead, inside an indifference zone of .002 but not of .0005:

    >>> tight = [{"a": 0.200, "b": 0.201}], [{"a": 0.0, "b": 0.001}]
    >>> race_survivors(*tight, "a", 2.0, indifference=0.002)
    ('a',)
    >>> race_survivors(*tight, "a", 2.0, indifference=0.0005)
    ('a', 'b')
    """
    if se not in RACE_SES:
        raise ValueError(f"se must be one of {RACE_SES}, got {se!r}")
    names, n = tuple(errors[0]), len(errors)
    if se == "splits" and n < 2:
        return names
    diffs = {c: np.array([e[c] - e[lead] for e in errors]) for c in names}
    var = {c: sum(p[c] ** 2 for p in paired_se) / n ** 2 for c in names}
    if se == "splits":
        var = {c: var[c] + np.var(diffs[c], ddof=1) / n for c in names}
    reach = {c: float(margin) * np.sqrt(var[c]) for c in names}
    alive = tuple(c for c in names if c == lead or diffs[c].mean() <= reach[c])
    if all(reach[c] - diffs[c].mean() < float(indifference) for c in alive if c != lead):
        return (lead,)
    return alive
