"""The one result store of the benchmarks: keyed rows in a JSON file, a later row replacing the
one with its key, every row stamped with provenance (:mod:`hyperclust.bench.provenance`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["ResultStore", "RUN_KEY", "run_key", "PROVENANCE_FIELDS"]

#: The key of a run of the grid: ``(dataset, method, seed, protocol)``.
RUN_KEY = ("dataset", "method", "seed", "protocol")
#: Fields of :func:`~hyperclust.bench.provenance.run_provenance` that every stored row carries.
PROVENANCE_FIELDS = ("commit", "dirty", "hyperclust_version", "threads", "load_avg_start")


def run_key(rec: dict, key=RUN_KEY) -> tuple:
    """The identity of a row: its values of the ``key`` fields (``seed`` as an int).

    Examples
    --------
    >>> run_key({"dataset": "zoo", "method": "kmeans", "seed": "1", "protocol": "all"})
    ('zoo', 'kmeans', 1, 'all')
    """
    return tuple(int(rec[f]) if f == "seed" and rec.get(f) is not None else rec.get(f)
                 for f in key)


class ResultStore:
    """The rows in ``path`` (JSON ``{"version": 1, <meta>, "runs": [...]}``), rewritten atomically on change.

    Parameters
    ----------
    path : path
        Read when it exists, created on the first save.
    key : tuple of str
        The fields naming a row (default :data:`RUN_KEY`).
    provenance : bool
        Stamp rows added without a ``commit`` with :func:`~hyperclust.bench.provenance.run_provenance`.

    Attributes
    ----------
    meta : dict
        Fields of the file besides the rows; saved with them.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.json"
    >>> store = ResultStore(path, key=("dataset", "seed"))
    >>> store.add([{"dataset": "zoo", "seed": 0, "acc": 0.5}, {"dataset": "zoo", "seed": 1}])
    >>> store.add({"dataset": "zoo", "seed": 0, "acc": 0.75})   # replaces seed 0
    >>> [(r["seed"], r.get("acc")) for r in ResultStore(path).runs]
    [(0, 0.75), (1, None)]
    >>> "commit" in store.runs[0]
    True
    """

    def __init__(self, path, key=RUN_KEY, *, provenance: bool = True):
        self.path = Path(path)
        self.key = tuple(key)
        self.provenance = provenance
        self.meta: dict = {}
        self._runs: dict[tuple, dict] = {}
        if self.path.exists():
            with open(self.path) as fh:
                data = json.load(fh)
            if isinstance(data, dict):
                runs = data.get("runs", data.get("rows", []))
                self.meta = {k: v for k, v in data.items() if k not in ("version", "runs", "rows")}
            else:
                runs = data
            for rec in runs:
                self._runs[run_key(rec, self.key)] = rec

    @property
    def runs(self) -> list[dict]:
        """Every row, in the order first added."""
        return list(self._runs.values())

    def get(self, key):
        """The row with this key (a tuple as :func:`run_key` makes), or None."""
        return self._runs.get(tuple(key))

    def add(self, rows) -> None:
        """Add one row (a dict) or many, replacing rows with the same key; then save."""
        rows = [rows] if isinstance(rows, dict) else list(rows)
        if self.provenance and any("commit" not in r for r in rows):
            from .provenance import run_provenance

            prov = run_provenance()
            for r in rows:
                if "commit" not in r:
                    for f in PROVENANCE_FIELDS:
                        r.setdefault(f, prov[f])
        for rec in rows:
            self._runs[run_key(rec, self.key)] = rec
        self.save()

    update = add  # the grid runner's name for adding many

    def remove(self, rows) -> None:
        """Drop these rows (matched by key; the file is rewritten on the next save)."""
        for rec in rows:
            self._runs.pop(run_key(rec, self.key), None)

    def save(self) -> None:
        """Write the file atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        # One compact row per line: small files and readable diffs.
        lines = [json.dumps(r, separators=(",", ":"), default=repr) for r in self.runs]
        head = "".join(f"{json.dumps(k)}: {json.dumps(v, default=repr)}, "
                       for k, v in self.meta.items())
        with open(tmp, "w") as fh:
            fh.write('{"version": 1, ' + head + '"runs": [\n' + ",\n".join(lines) + "\n]}\n")
        os.replace(tmp, self.path)
