"""Failures of a distributed run are one line within a minute, and leave no scratch: a
non-Dask address, workers paused for memory, KilledWorker, SIGTERM and SIGKILL."""

from __future__ import annotations

import contextlib

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

from hyperclust.cli import main  # noqa: E402
from hyperclust.distributed import client as client_module  # noqa: E402
from hyperclust.distributed import partition_edgelists  # noqa: E402
from hyperclust.distributed.scratch import scratch_folder  # noqa: E402

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture
def parts(tmp_path):
    edges = tmp_path / "edges.txt"
    edges.write_text("0 1 2\n1 2\n3 4 5\n4 5\n2 3\n")
    return str(partition_edgelists([str(edges)], str(tmp_path / "parts"), block_size=3).path)


def _one_line_error(capsys):
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def _serve(reply: bytes):
    """A TCP server on 127.0.0.1 that answers every connection with ``reply`` (or nothing)
    and keeps it open: not a Dask scheduler."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held = []

    def accept():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if reply:
                conn.sendall(reply)

    threading.Thread(target=accept, daemon=True).start()
    return server, f"tcp://127.0.0.1:{server.getsockname()[1]}"


@pytest.mark.parametrize("reply", [b"", b"HTTP/1.0 400 Bad Request\r\n\r\n" * 4])
def test_a_non_dask_address_is_one_line_within_the_timeout(parts, capsys, monkeypatch, reply):
    monkeypatch.setattr(client_module, "CONNECT_TIMEOUT", 2.0)
    server, address = _serve(reply)
    try:
        t0 = time.monotonic()
        assert main(["cluster", parts, "--scheduler", address, "--k", "2", "--quiet"]) == 2
        assert time.monotonic() - t0 < 15
    finally:
        server.close()
    err = _one_line_error(capsys)
    assert address in err and ("no Dask scheduler answered" in err or "Dask's protocol" in err)


def test_workers_paused_for_memory_are_one_line(parts, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(client_module, "STALL_TIMEOUT", 2.0)
    out = tmp_path / "labels.csv"
    # every worker pauses at its first memory check: nothing can run
    with dask.config.set({"distributed.worker.memory.pause": 0.01}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                     memory_limit="1GiB", dashboard_address=":0") as cluster:
        time.sleep(1)
        t0 = time.monotonic()
        code = main(["cluster", parts, "--scheduler", cluster.scheduler.address, "--k", "2",
                     "--out", str(out), "--quiet"])
        assert time.monotonic() - t0 < 30
    assert code == 2 and not out.exists()
    err = _one_line_error(capsys)
    assert "no Dask worker could run tasks for 2 s: all 1 workers paused" in err


def test_killed_worker_is_one_line(parts, capsys, monkeypatch):
    from hyperclust.distributed.spectral import DistributedSpectralClustering

    def die(self, hypergraph, y=None):
        raise distributed.KilledWorker("('_load_node-abc', 0)", "tcp://10.0.0.1:1234")

    monkeypatch.setattr(DistributedSpectralClustering, "fit", die)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        assert main(["cluster", parts, "--scheduler", cluster.scheduler.address,
                     "--k", "2", "--quiet"]) == 2
    assert "KilledWorker" in _one_line_error(capsys)


# ------------------------------------------------------------------ scratch
def test_scratch_folder_is_removed_on_an_exception(tmp_path):
    with pytest.raises(RuntimeError), scratch_folder("hc-", dir=tmp_path) as path:
        (Path(path) / "x.npy").write_bytes(b"0")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def _run_holding_scratch(tmp_path, sig):
    """A process that makes a scratch folder under ``tmp_path`` and waits; killed by
    ``sig``; returns the folder's path."""
    code = textwrap.dedent(f"""
        import sys, time
        from hyperclust.distributed.scratch import exit_on_sigterm, scratch_folder
        exit_on_sigterm()
        with scratch_folder("hc-", dir={str(tmp_path)!r}) as path:
            print(path, flush=True)
            time.sleep(60)
    """)
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env=env)
    path = Path(proc.stdout.readline().strip())
    assert path.is_dir()
    proc.send_signal(sig)
    proc.wait(timeout=30)
    return path


def test_scratch_folder_is_removed_on_sigterm(tmp_path):
    assert not _run_holding_scratch(tmp_path, signal.SIGTERM).exists()


def test_scratch_of_a_killed_process_is_removed_by_the_next_one(tmp_path):
    stale = _run_holding_scratch(tmp_path, signal.SIGKILL)
    assert stale.exists()  # SIGKILL runs nothing
    with scratch_folder("hc-", dir=tmp_path) as path:
        assert not stale.exists() and Path(path).is_dir()
    other = tmp_path / "hc-otherhost-1-abc"  # another host's folder is left alone
    other.mkdir()
    with scratch_folder("hc-", dir=tmp_path):
        pass
    assert other.exists()


# ------------------------------------------------------------------ workers during a fit
def _forked_workers(n_workers, **kw):
    """A LocalCluster of worker processes, forked where the platform can (~1 s a start)."""
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with dask.config.set({"distributed.worker.multiprocessing-method": method}):
        return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                        processes=True, dashboard_address=":0", **kw)


def _once_tasks_run(client, action, min_tasks=30):
    """Run ``action()`` in a thread as soon as the scheduler holds ``min_tasks`` tasks (the
    fit is under way); the thread's ``ran`` is set when it did."""
    def watch():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) \
                    >= min_tasks:
                action()
                thread.ran = True
                return
            time.sleep(0.02)

    thread = threading.Thread(target=watch, daemon=True)
    thread.ran = False
    thread.start()
    return thread


@pytest.fixture(scope="module")
def planted():
    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.datasets import hypergraph_sbm

    hg = hypergraph_sbm(600, 3, homophily=0.9, random_state=4)
    return hg, SpectralHypergraphClustering(3, random_state=0).fit(hg).labels_


def _fit_spectral(client, hg):
    from hyperclust.distributed.spectral import DistributedSpectralClustering

    return DistributedSpectralClustering(3, client=client, random_state=0,
                                         block_size=150).fit(hg)


def test_a_worker_killed_mid_fit_gives_the_same_labels(planted, tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the fit's scratch goes
    hg, ref = planted
    with _forked_workers(2) as cluster, distributed.Client(cluster) as c:
        done = threading.Event()
        victim = max(c.run(os.getpid).values())

        def kill():
            kill.during_fit = not done.is_set()
            os.kill(victim, signal.SIGKILL)  # the nanny restarts it; lost keys recompute

        watcher = _once_tasks_run(c, kill)
        t0 = time.monotonic()
        est = _fit_spectral(c, hg)
        done.set()
        assert time.monotonic() - t0 < 60
    watcher.join(5)
    assert watcher.ran and kill.during_fit, "the kill came after the fit: nothing proved"
    assert victim not in {p.pid for p in __import__("psutil").Process().children(True)}
    assert (est.labels_ == ref).all()
    # the in-memory input's blocks are removed (Dask's own worker folder is the cluster's)
    assert [p.name for p in tmp_path.iterdir() if p.name != "dask-scratch-space"] == []


def test_a_worker_joining_mid_fit_keeps_the_labels():
    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed.spectral import DistributedSpectralClustering

    # long enough that the fit outlasts a new worker's start (~1-2 s): at the default tol
    # (1e-8) the fit, ~550 tasks, sometimes ended first; 1e-12 takes more iterations
    hg = hypergraph_sbm(20000, 3, homophily=0.9, random_state=4)
    ref = SpectralHypergraphClustering(3, random_state=0).fit(hg).labels_
    with _forked_workers(1) as cluster, distributed.Client(cluster) as c:
        watcher = _once_tasks_run(c, lambda: cluster.scale(2))
        # the stored blocks (blocks_per_worker=1 would merge them into the one worker's)
        est = DistributedSpectralClustering(3, client=c, random_state=0, block_size=5000,
                                            tol=1e-12, blocks_per_worker=None).fit(hg)
        watcher.join(30)
        c.wait_for_workers(2, timeout=30)
        executed = c.run(lambda dask_worker: dask_worker.state.executed_count)
    assert watcher.ran
    # the blocks are rebalanced when the worker joins: it runs its share of the tasks
    # (0 of 1,580 before rebalancing existed)
    assert len(executed) == 2 and min(executed.values()) >= 0.1 * sum(executed.values()), \
        executed
    assert (est.labels_ == ref).all()


def test_a_memory_starved_worker_is_one_line(parts, capsys, monkeypatch):
    monkeypatch.setattr(client_module, "STALL_TIMEOUT", 5.0)
    # a worker process far over its limit: Dask pauses it (80%) or its nanny restarts it
    # (95%) again and again; either way the command ends in one line
    cluster = _forked_workers(1, memory_limit="64MiB")
    try:
        t0 = time.monotonic()
        code = main(["cluster", parts, "--scheduler", cluster.scheduler.address, "--k", "2",
                     "--quiet"])
        elapsed = time.monotonic() - t0
    finally:
        # closing while the nanny restarts its worker can raise multiprocessing's "can only
        # join a started process" inside Dask's teardown: the command has ended by then
        with contextlib.suppress(AssertionError):
            cluster.close()
    assert code == 2 and elapsed < 60
    err = _one_line_error(capsys)
    assert "no Dask worker could run tasks" in err or "KilledWorker" in err, err
