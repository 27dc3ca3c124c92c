"""Cut the lineage of a long iteration: row blocks saved to a shared scratch folder and read
back by tasks that depend on nothing, so the scheduler forgets the history and a lost
worker re-runs at most the tasks since the last cut (docs/distributed.md, "Fault tolerance").
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from ._tasks import RETRIES
from .scratch import scratch_folder

__all__ = ["LineageCut", "lineage_cuts", "EVERY"]

#: Steps (products or iterations, as the caller counts them) between two cuts.
EVERY = 20

#: ``(folder, generation, block) -> array`` saved by this worker process, until read back.
_KEPT: dict = {}


def _save(X, folder, generation, b):
    path = os.path.join(folder, f"{generation}-{b}.npy")
    np.save(path, X, allow_pickle=False)
    for key in [key for key in _KEPT if key[0] == folder and key[1] < generation - 1]:
        del _KEPT[key]  # a read that ran elsewhere left it here
    _KEPT[folder, generation, b] = X


def _load(folder, generation, b):
    X = _KEPT.pop((folder, generation, b), None)
    if X is None:  # another worker, or a recomputation after a loss
        X = np.load(os.path.join(folder, f"{generation}-{b}.npy"), allow_pickle=False)
    return X


def _near(workers):
    """A loose restriction to the workers holding a saved block."""
    return {"workers": list(workers), "allow_other_workers": True} if workers else {}


def _forget(folder):
    for key in [key for key in _KEPT if key[0] == folder]:
        del _KEPT[key]


class LineageCut:
    """Cuts of row-blocked iterates into one scratch folder.

    Parameters
    ----------
    client : dask.distributed.Client
    folder : str
        A folder every worker can write and read; one ``.npy`` file per block a cut.
    every : int, optional
        Steps between the cuts :meth:`due` allows (default :data:`EVERY`).

    Attributes
    ----------
    n_cuts : int

    Examples
    --------
    >>> import tempfile, numpy as np, distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     cut = LineageCut(c, tempfile.mkdtemp(), every=3)
    ...     x = [c.submit(np.ones, 2), c.submit(np.zeros, 1)]
    ...     y = [c.submit(np.add, b, 1) for b in x]
    ...     y = cut.cut(y)  # futures of tasks without dependencies
    ...     print([b.tolist() for b in c.gather(y)], cut.due(2), cut.due(3), cut.n_cuts)
    ...     cut.close()
    [[2.0, 2.0], [1.0]] False True 1
    """

    def __init__(self, client, folder, every: int | None = None):
        self.client, self.folder = client, str(folder)
        self.every = EVERY if every is None else int(every)
        self.n_cuts, self._last = 0, 0

    def due(self, step: int) -> bool:
        """Whether ``every`` steps passed since the last cut; if so ``step`` becomes the last cut."""
        if step - self._last < self.every:
            return False
        self._last = step
        return True

    def cut(self, *lists):
        """Each list of block futures replaced by dependency-free tasks holding the same arrays.

        One list back per list given (a single list for one); waits for the saves.
        """
        c, generation = self.client, self.n_cuts
        flat = [f for blocks in lists for f in blocks]
        saves = [c.submit(_save, f, self.folder, generation, b, retries=RETRIES, pure=False)
                 for b, f in enumerate(flat)]
        c.gather(saves)
        where = c.who_has(saves)
        loads = [c.submit(_load, self.folder, generation, b, retries=RETRIES, pure=False,
                          **_near(where.get(s.key)))
                 for b, s in enumerate(saves)]
        self.n_cuts += 1
        out, start = [], 0
        for blocks in lists:
            out.append(loads[start:start + len(blocks)])
            start += len(blocks)
        return out[0] if len(lists) == 1 else out

    def close(self):
        """Drop what the workers keep of this folder's blocks."""
        try:
            self.client.run(_forget, self.folder)
        except Exception:  # noqa: BLE001 - a closing cluster keeps nothing anyway
            pass


@contextlib.contextmanager
def lineage_cuts(client, base, every: int | None = None):
    """Yield a :class:`LineageCut` into a new scratch folder under ``base`` (removed on exit).

    Parameters
    ----------
    client : dask.distributed.Client
    base : str or PathLike
        A folder the workers share; where it is not writable, a warning and no cut is due.
    every : int, optional

    Examples
    --------
    >>> import os, tempfile, numpy as np, distributed
    >>> base = tempfile.mkdtemp()
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     with lineage_cuts(c, base) as cuts:
    ...         x = cuts.cut([c.submit(np.arange, 3)])
    ...         print(c.gather(x)[0].tolist(), len(os.listdir(cuts.folder)))
    [0, 1, 2] 1
    >>> os.listdir(base)  # the scratch folder is gone
    []
    """
    base = Path(base)
    if not base.is_dir():
        raise FileNotFoundError(f"scratch_dir {base} is not a directory")
    if not os.access(base, os.W_OK | os.X_OK):
        # a read-only partition directory still fits, as before the cuts: only a late
        # worker loss re-runs more of the history
        warnings.warn(f"scratch_dir {base} is not writable: this fit's task history is not "
                      "cut (pass scratch_dir=, a folder every worker can write)",
                      RuntimeWarning, stacklevel=3)
        yield LineageCut(client, str(base), every=sys.maxsize)
        return
    with scratch_folder("_lineage-", dir=base) as folder:
        cuts = LineageCut(client, folder, every)
        try:
            yield cuts
        finally:
            cuts.close()
