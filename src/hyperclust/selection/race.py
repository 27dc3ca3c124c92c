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
"""

from __future__ import annotations

import numpy as np

__all__ = ["RACE_SES", "race_survivors"]

#: What the race's standard error counts (see the module docstring).
RACE_SES = ("items", "splits")


def race_survivors(errors: list, paired_se: list, lead: str, margin: float,
                   se: str = "items") -> tuple:
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
    return tuple(c for c in names
                 if c == lead or diffs[c].mean() <= float(margin) * np.sqrt(var[c]))
