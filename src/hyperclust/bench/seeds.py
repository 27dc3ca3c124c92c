"""The one seed loop of the benchmarks: measure once per seed, tag, store and echo the rows."""

from __future__ import annotations

import json
import numbers

__all__ = ["seed_list", "run_seeds"]


def seed_list(seeds) -> list[int]:
    """The seeds: ``N`` means ``0..N-1``, a sequence is taken as given.

    Examples
    --------
    >>> seed_list(3), seed_list([4, 7])
    ([0, 1, 2], [4, 7])
    """
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ValueError(f"seeds must be >= 1, got {seeds}")
        return list(range(int(seeds)))
    out = [int(s) for s in seeds]
    if not out:
        raise ValueError("seeds must not be empty")
    return out


def run_seeds(measure, seeds, *, settings=None, store=None, echo: bool = True) -> list[dict]:
    """Call ``measure(seed)`` for each seed and return the rows it made, each with its ``seed``.

    Parameters
    ----------
    measure : callable
        ``measure(seed) -> dict or list of dict``.
    seeds : int or sequence of int
        As in :func:`seed_list`.
    settings : dict, optional
        Fields added to every row (a field the row sets wins).
    store : ResultStore, optional
        Receives each seed's rows as soon as they are made.
    echo : bool
        Print each row as a JSON line.

    Examples
    --------
    >>> rows = run_seeds(lambda seed: {"acc": 0.5 + seed / 10}, 2,
    ...                  settings={"dataset": "toy"}, echo=False)
    >>> rows
    [{'dataset': 'toy', 'seed': 0, 'acc': 0.5}, {'dataset': 'toy', 'seed': 1, 'acc': 0.6}]
    """
    rows = []
    for seed in seed_list(seeds):
        made = measure(seed)
        made = [made] if isinstance(made, dict) else list(made)
        made = [{**(settings or {}), "seed": seed, **r} for r in made]
        if store is not None:
            store.add(made)
        if echo:
            for r in made:
                print(json.dumps(r, default=repr), flush=True)
        rows += made
    return rows
