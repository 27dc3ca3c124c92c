"""Where a benchmark number comes from: commit and dirty flag, version, threads and machine load
(:func:`run_provenance`, stored on every row; docs/benchmarks.md).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

__all__ = ["git", "git_commit", "load_average", "thread_info", "run_provenance",
           "package_root", "OtherCpu", "IDLE_LOAD", "OTHER_CPU_IDLE", "all_idle"]

#: A 1-minute load average below this counts as an idle machine for timings.
IDLE_LOAD = 0.3
#: Cores other processes may use during a measurement (:class:`OtherCpu`) of an idle run.
OTHER_CPU_IDLE = 0.1


def all_idle(other_cores) -> bool:
    """Whether every measurement's CPU of other processes was measured and under :data:`OTHER_CPU_IDLE`.

    Examples
    --------
    >>> all_idle([0.0, 0.05]), all_idle([0.0, 0.4]), all_idle([0.0, None]), all_idle([])
    (True, False, False, False)
    """
    values = list(other_cores)
    return bool(values) and all(v is not None and v < OTHER_CPU_IDLE for v in values)


def _cpu_jiffies(stat: str | None = None, own: str | None = None, cpus=None):
    """``(busy jiffies of the CPUs in ``cpus`` (default: the affinity), this process's jiffies)``, or None.

    ``stat``, ``own``: the texts of ``/proc/stat`` and ``/proc/self/stat`` (default read).
    """
    try:
        if stat is None:
            with open("/proc/stat") as fh:
                stat = fh.read()
        if own is None:
            with open("/proc/self/stat") as fh:
                own = fh.read()
        if cpus is None:
            cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else ()
        wanted = {f"cpu{c}" for c in cpus}
        lines = [line.split() for line in stat.splitlines() if line.startswith("cpu")]
        rows = [f for f in lines if f[0] in wanted] or [f for f in lines if f[0] == "cpu"]
        if not rows:
            return None
        busy = 0
        for f in rows:
            v = [int(x) for x in f[1:9]]
            busy += sum(v) - v[3] - v[4]  # user..steal minus idle and iowait
        fields = own.rsplit(")", 1)[1].split()
        return busy, int(fields[11]) + int(fields[12])  # utime + stime of all threads
    except (OSError, ValueError, IndexError):
        return None


class OtherCpu:
    """The CPU, in cores, that *other* processes used on this process's cores (Linux ``/proc``).

    Busy time of the affinity's CPUs minus this process's own, over the wall time since the start
    or :meth:`restart`; None where ``/proc`` is unavailable. As a context manager it sets ``cores``.

    Examples
    --------
    >>> with OtherCpu() as other:
    ...     _ = sum(range(1000))
    >>> other.cores is None or other.cores >= 0
    True
    """

    def __init__(self):
        self.cores = None
        self.restart()

    def restart(self):
        """Start a new measuring window now."""
        self._t0 = time.monotonic()
        self._start = _cpu_jiffies()

    def read(self, min_seconds: float = 0.0) -> float | None:
        """Cores other processes used in this window (None without ``/proc`` or under ``min_seconds``)."""
        wall = time.monotonic() - self._t0
        end = _cpu_jiffies()
        if self._start is None or end is None or wall <= 0 or wall < min_seconds:
            return None
        hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        other = (end[0] - self._start[0]) - (end[1] - self._start[1])
        return max(0.0, other / hz / wall)

    def __enter__(self):
        self.restart()
        return self

    def __exit__(self, *exc):
        self.cores = self.read()
        return False


def package_root() -> Path:
    """The directory of the imported ``hyperclust`` package.

    Examples
    --------
    >>> (package_root() / "hypergraph").is_dir()
    True
    """
    return Path(__file__).resolve().parent.parent


def git(args, cwd, timeout: float = 30.0) -> tuple[int | None, str | None]:
    """``(exit code, stripped stdout)`` of ``git ARGS`` in ``cwd``; ``(None, None)`` without git or on timeout.

    Examples
    --------
    >>> rc, out = git(["--version"], ".")
    >>> rc is None or out.startswith("git version")
    True
    """
    try:
        res = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True,
                             timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None, None
    return res.returncode, res.stdout.strip()


def _git_out(args, cwd) -> str | None:
    rc, out = git(args, cwd, timeout=10.0)
    return out if rc == 0 else None


def git_commit(path=None) -> dict:
    """``{"commit", "dirty"}`` of the git checkout holding ``path`` (default the package); None outside one.

    ``dirty``: tracked files under ``path`` differ from the commit.

    Examples
    --------
    >>> sorted(git_commit())
    ['commit', 'dirty']
    """
    path = package_root() if path is None else Path(path)
    commit = _git_out(["rev-parse", "HEAD"], path)
    if not commit:
        return {"commit": None, "dirty": None}
    status = _git_out(["status", "--porcelain", "--untracked-files=no", "--", "."], path)
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def load_average(text: str | None = None) -> list[float] | None:
    """The 1, 5 and 15-minute load averages, or None.

    Examples
    --------
    >>> load_average("0.52 0.40 0.31 1/123 4567")
    [0.52, 0.4, 0.31]
    """
    try:
        if text is None:
            return [round(x, 2) for x in os.getloadavg()]
        return [float(x) for x in text.split()[:3]]
    except (OSError, ValueError, AttributeError):
        return None


def thread_info() -> dict:
    """Threads in force: the policy's limit, cores, each BLAS/OpenMP pool, torch's (if imported).

    Examples
    --------
    >>> from hyperclust.runtime.threads import thread_limit
    >>> with thread_limit(1):
    ...     info = thread_info()
    >>> info["limit"], info["cores"] >= 1
    (1, True)
    """
    import sys

    from ..runtime.threads import available_cores, current_limit

    out = {"limit": current_limit(), "cores": available_cores()}
    try:
        from threadpoolctl import threadpool_info

        out["pools"] = [{k: p.get(k) for k in ("internal_api", "num_threads", "version")}
                        for p in threadpool_info()]
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        out["pools"] = None
    torch = sys.modules.get("torch")
    out["torch"] = torch.get_num_threads() if torch is not None else None
    return out


def run_provenance(threads=None) -> dict:
    """The record of one run's conditions: commit, dirty, version, ``threads``, ``load_avg_start``.

    ``threads`` defaults to the innermost :func:`~hyperclust.runtime.threads.thread_limit` in force.

    Examples
    --------
    >>> rec = run_provenance(threads=2)
    >>> sorted(rec), rec["threads"]
    (['commit', 'dirty', 'hyperclust_version', 'load_avg_start', 'threads'], 2)
    """
    from .. import __version__
    from ..runtime.threads import current_limit

    rec = git_commit()
    rec["hyperclust_version"] = __version__
    rec["threads"] = threads if threads is not None else current_limit()
    rec["load_avg_start"] = load_average()
    return rec


