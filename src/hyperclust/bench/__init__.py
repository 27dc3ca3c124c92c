"""The benchmark harness (docs/benchmarks.md): the grid :func:`run_benchmark` (``hyperclust
bench``), the seed loop :func:`run_seeds`, the store :class:`ResultStore`, the aggregation
(:func:`mean_std`, :func:`summarize`) and the report writer (:func:`markdown_table`, ...).
Importing it registers the peer libraries' methods.

Examples
--------
>>> import tempfile, pathlib
>>> store = ResultStore(pathlib.Path(tempfile.mkdtemp()) / "toy.json", key=("method", "seed"))
>>> for method, base in (("a", 0.5), ("b", 0.7)):
...     _ = run_seeds(lambda seed: {"acc": base + seed / 100}, 3, settings={"method": method},
...                   store=store, echo=False)
>>> rows = [[s["method"], fmt_mean_std(s["acc"], s["acc_std"])]
...         for s in summarize(store.runs, ("method",), ("acc",))]
>>> print("\\n".join(markdown_table(["method", "ACC"], rows)))
| method | ACC |
|---|---|
| a | 0.510 ± 0.010 |
| b | 0.710 ± 0.010 |
"""

from . import peer_methods  # noqa: F401  (registers the peer libraries' methods)
from .aggregate import group_rows, mean_std, summarize
from .data import default_data_dir
from .runner import run_benchmark
from .seeds import run_seeds, seed_list
from .store import ResultStore
from .tables import commits_of, fmt_mean_std, markdown_row, markdown_table, write_markdown

__all__ = ["run_benchmark", "ResultStore", "run_seeds", "seed_list", "mean_std", "group_rows",
           "summarize", "markdown_table", "markdown_row", "fmt_mean_std", "commits_of",
           "write_markdown", "default_data_dir"]
