"""Which worker runs each row block's tasks (loose restrictions), rebalanced when workers
join or leave (docs/distributed.md, "Workers joining").
"""

from __future__ import annotations

import time

__all__ = ["balanced_owners", "BlockOwners"]


def balanced_owners(current, workers) -> list:
    """An owner per block: blocks stay up to an even share per worker, the rest go to the fewest.

    Parameters
    ----------
    current : list of str or None
        The worker holding each block (None: unknown or gone).
    workers : list of str
        The workers now running.

    Returns
    -------
    list of str
        Shares differ by at most one block.

    Examples
    --------
    A third worker joins two that hold two blocks each: one block moves.

    >>> balanced_owners(["a", "a", "b", "b"], ["a", "b", "c"])
    ['a', 'a', 'b', 'c']
    """
    n, workers = len(current), sorted(workers)
    if not workers:
        return list(current)
    held = {w: sum(c == w for c in current) for w in workers}
    by_holdings = sorted(workers, key=lambda w: -held[w])  # stable: ties in name order
    quota = {w: n // len(workers) + (i < n % len(workers)) for i, w in enumerate(by_holdings)}
    load = dict.fromkeys(workers, 0)
    owners = [None] * n
    for b, w in enumerate(current):
        if w in load and load[w] < quota[w]:
            owners[b], load[w] = w, load[w] + 1
    for b in range(n):
        if owners[b] is None:
            w = max(workers, key=lambda v: quota[v] - load[v])
            owners[b], load[w] = w, load[w] + 1
    return owners


class BlockOwners:
    """The owner of each block future, checked against the running workers every ``interval`` s.

    Parameters
    ----------
    client : dask.distributed.Client
    blocks : list of futures
    interval : float, default 1.0
    initial : list of str, optional
        The owners to start from instead of where the blocks are.

    Examples
    --------
    >>> import distributed
    >>> with distributed.Client(processes=False, n_workers=2, dashboard_address=":0") as c:
    ...     blocks = [c.submit(abs, -i) for i in range(4)]
    ...     _ = c.gather(blocks)
    ...     owners = BlockOwners(c, blocks)()
    ...     workers = set(c.scheduler_info()["workers"])
    >>> len(owners), set(owners) <= workers, max(map(owners.count, workers))
    (4, True, 2)
    """

    def __init__(self, client, blocks, interval: float = 1.0, initial=None):
        self.client, self.blocks, self.interval = client, blocks, float(interval)
        self._initial = initial
        self._workers, self._owners, self._checked = None, None, -float("inf")
        self.rebalanced = 0

    def __call__(self) -> list:
        """Owners, one worker address per block (rebalanced if workers changed)."""
        now = time.monotonic()
        if now - self._checked < self.interval and self._owners is not None:
            return self._owners
        self._checked = now
        workers = sorted(self.client.scheduler_info(n_workers=-1)["workers"])
        if workers != self._workers:
            if self._owners is None and self._initial is not None:
                current = list(self._initial)
            elif self._owners is None:  # first call: where the blocks were loaded
                who = self.client.who_has(self.blocks)
                current = [min(who.get(f.key, ()), default=None) for f in self.blocks]
            else:
                current = self._owners
                self.rebalanced += 1
            self._workers, self._owners = workers, balanced_owners(current, workers)
        return self._owners
