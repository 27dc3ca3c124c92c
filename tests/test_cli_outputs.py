"""``cluster --embedding-out`` and ``--plot``: right content, same safety as ``--out``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hyperclust.cli import main
from hyperclust.cluster import SpectralHypergraphClustering
from hyperclust.io import read_hypergraph

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture
def data(tmp_path):
    edges = tmp_path / "e.txt"
    edges.write_text("ana,bo,cy\ncy,di\ndi,eve,fu\nana,fu\nbo,cy\neve,fu\n")
    labels = tmp_path / "lab.csv"
    labels.write_text("node,label\nana,x\nbo,x\ncy,x\ndi,y\neve,y\nfu,y\n")
    return tmp_path, edges, labels


def _cluster(edges, *extra):
    return main(["cluster", str(edges), "--method", "spectral-zhou", "--k", "2", "--seed", "0",
                 *map(str, extra)])


def test_embedding_npy_is_the_estimators_embedding_in_node_order(data, capsys):
    tmp, edges, _ = data
    assert _cluster(edges, "--embedding-out", tmp / "z.npy", "--out", tmp / "o.csv") == 0
    Z = np.load(tmp / "z.npy")
    est = SpectralHypergraphClustering(2, random_state=0).fit(read_hypergraph(edges))
    np.testing.assert_array_equal(Z, est.embedding_)
    rows = (tmp / "o.csv").read_text().split()[1:]
    assert [r.split(",")[0] for r in rows] == ["ana", "bo", "cy", "di", "eve", "fu"]
    assert "wrote" in capsys.readouterr().out
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(tmp / "z.npy").st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_embedding_npz_has_node_ids_and_loads_without_pickle(data):
    tmp, edges, _ = data
    assert _cluster(edges, "--embedding-out", tmp / "z.npz") == 0
    with np.load(tmp / "z.npz", allow_pickle=False) as z:
        assert z["node_ids"].tolist() == ["ana", "bo", "cy", "di", "eve", "fu"]
        assert z["embedding"].shape == (6, 2)


@pytest.mark.parametrize("flag,name,message", [
    ("--embedding-out", "z.csv", "must end in .npy or .npz"),
    ("--plot", "p.jpg", "must end in .png"),
    ("--embedding-out", "e.txt", "it is an input of this command"),
    ("--plot", "lab.png", None),  # fine: a new file
])
def test_output_checks_happen_before_the_fit(data, capsys, flag, name, message):
    tmp, edges, labels = data
    if name == "e.txt":
        name = str(edges.with_suffix(".npy"))
        edges.with_suffix(".npy").write_bytes(b"keep")
        rc = main(["cluster", str(edges), "--method", "spectral-zhou", "--k", "2",
                   "--features", str(edges.with_suffix(".npy")), flag, name, "--force"])
        assert rc == 2 and edges.with_suffix(".npy").read_bytes() == b"keep"
        err = capsys.readouterr().err
        assert message in err and "clusters in" not in err
        return
    rc = _cluster(edges, flag, tmp / name)
    captured = capsys.readouterr()
    if message is None:
        assert rc == 0 and (tmp / name).read_bytes()[:4] == b"\x89PNG"
    else:
        assert rc == 2 and message in captured.err and "clusters in" not in captured.out
        assert captured.err.count("\n") == 1 and not (tmp / name).exists()


def test_existing_outputs_need_force_and_are_never_half_written(data, capsys):
    tmp, edges, _ = data
    z = tmp / "z.npy"
    z.write_bytes(b"old")
    assert _cluster(edges, "--embedding-out", z) == 2
    assert "exists; pass --force" in capsys.readouterr().err and z.read_bytes() == b"old"
    assert _cluster(edges, "--embedding-out", z, "--force") == 0
    assert np.load(z).shape == (6, 2)
    assert not [p for p in tmp.iterdir() if p.name.startswith(".z.npy.")]  # no temp file left
    assert _cluster(edges, "--embedding-out", tmp / "same.npy", "--out", tmp / "same.npy") == 2
    assert "name the same file" in capsys.readouterr().err


def test_plot_with_labels_has_three_panels(data, capsys):
    tmp, edges, labels = data
    png = tmp / "p.png"
    assert _cluster(edges, "--labels", labels, "--plot", png) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "cluster and label" in capsys.readouterr().out


def test_plot_figure_panels_and_sampling():
    pytest.importorskip("matplotlib")
    from hyperclust.plotting import embedding_2d, plot_clusters

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(6000, 8))
    xy, rows = embedding_2d(Z, max_points=5000, random_state=3)
    assert xy.shape == (5000, 2) and np.all(np.diff(rows) > 0)
    np.testing.assert_array_equal(rows, embedding_2d(Z, random_state=3)[1])  # seeded
    clusters = rng.integers(0, 4, 6000)
    assert len(plot_clusters(Z, clusters).axes) == 2
    assert len(plot_clusters(Z, clusters, labels=np.where(clusters > 0, clusters, -1)).axes) == 3
    with pytest.raises(ValueError, match="method must be 'pca' or 'tsne'"):
        embedding_2d(Z, method="umap")


def test_plot_without_matplotlib_is_one_line_error_before_the_fit(data):
    tmp, edges, _ = data
    code = ("import importlib.abc, sys\n"
            "class B(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'matplotlib':\n"
            "            raise ModuleNotFoundError(name, name=name)\n"
            "sys.meta_path.insert(0, B())\n"
            "from hyperclust.cli import main\n"
            f"sys.exit(main(['cluster', {str(edges)!r}, '--method', 'spectral-zhou', '--k', '2',"
            f" '--plot', {str(tmp / 'p.png')!r}]))\n")
    env = {**os.environ, "PYTHONPATH": SRC}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("hyperclust: error: --plot needs matplotlib, which is not installed: "
                        "pip install hyperclust[plots]\n")


# ---- only a regular file or a new name; links written through; claimed atomically (issue 26)

from hyperclust.cli._common import UserError  # noqa: E402
from hyperclust.cli.outputs import check_output, write_atomically  # noqa: E402


def _new(path, text="node,cluster\n"):
    write_atomically(path, lambda fh: fh.write(text))


def test_a_device_is_never_replaced_even_with_force(tmp_path):
    dev = tmp_path / "fakefull"
    try:
        os.mknod(dev, 0o600 | 0o020000, os.makedev(1, 7))
    except (PermissionError, OSError):
        pytest.skip("mknod is not allowed here")
    with pytest.raises(UserError, match="character device, not a regular file"):
        check_output(str(dev), [], force=True)
    assert not dev.is_file() and dev.exists()


@pytest.mark.parametrize("make, what", [
    (os.mkfifo, "a FIFO"), (os.mkdir, "a directory"),
])
def test_fifo_and_directory_are_refused_with_force(tmp_path, make, what):
    path = tmp_path / "o.csv"
    make(path)
    with pytest.raises(UserError, match=what.split()[-1]):
        check_output(str(path), [], force=True)


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    (tmp_path / "sub").mkdir()
    target, link = tmp_path / "sub" / "real.csv", tmp_path / "o.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link.symlink_to(target)
    out = check_output(str(link), [], force=True)
    assert out == target.resolve()
    write_atomically(out, lambda fh: fh.write("new\n"), replace=True)
    assert link.is_symlink() and target.read_text() == "new\n"
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)  # a replaced file keeps its mode
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["real.csv"]


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "o.csv"
    link.symlink_to(tmp_path / "made.csv")
    out = check_output(str(link), [], force=False)
    _new(out)
    assert link.is_symlink() and (tmp_path / "made.csv").read_text() == "node,cluster\n"


def test_a_file_created_during_the_run_is_not_replaced_without_force(tmp_path):
    path = tmp_path / "o.csv"
    out = check_output(str(path), [], force=False)
    path.write_text("the other run\n")  # another process wins the race
    with pytest.raises(UserError, match="created by another process"):
        _new(out)
    assert path.read_text() == "the other run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.csv"]  # no temporary left


def test_two_concurrent_writers_without_force_cannot_both_succeed(tmp_path):
    import threading

    path, barrier, results = tmp_path / "o.csv", threading.Barrier(8), []

    def writer(i):
        out = check_output(str(path), [], force=False)
        barrier.wait()
        try:
            _new(out, f"writer {i}\n")
            results.append(i)
        except UserError:
            pass

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 1 and path.read_text() == f"writer {results[0]}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.csv"]


def test_claim_without_hard_links_is_still_exclusive(tmp_path, monkeypatch):
    def no_links(src, dst):
        raise PermissionError("no hard links here")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "o.csv"
    _new(check_output(str(path), [], force=False), "first\n")
    with pytest.raises(UserError, match="created by another process"):
        _new(path, "second\n")
    assert path.read_text() == "first\n"


def test_an_output_that_became_a_fifo_during_the_run_is_not_replaced(tmp_path):
    path = tmp_path / "o.csv"
    out = check_output(str(path), [], force=True)
    os.mkfifo(path)
    with pytest.raises(UserError, match="became a FIFO"):
        write_atomically(out, lambda fh: fh.write("x\n"), replace=True)
    assert not path.is_file()


def test_cli_force_onto_a_fifo_is_one_line_error_before_the_fit(data, capsys):
    tmp, edges, _ = data
    os.mkfifo(tmp / "o.csv")
    assert _cluster(edges, "--out", tmp / "o.csv", "--force") == 2
    out, err = capsys.readouterr()
    assert err.startswith("hyperclust: error: --out") and "a FIFO" in err and out == ""


def test_a_symlink_onto_another_file_system_is_written_through_after_the_fit(data, capsys):
    tmp, edges, _ = data
    other = Path("/dev/shm")
    if not other.is_dir() or os.stat(other).st_dev == os.stat(tmp).st_dev:
        pytest.skip("no second file system to link onto")
    import tempfile

    with tempfile.TemporaryDirectory(dir=other) as far:
        target = Path(far) / "labels.csv"
        (tmp / "o.csv").symlink_to(target)
        assert _cluster(edges, "--out", tmp / "o.csv") == 0  # was EXDEV after the fit
        assert (tmp / "o.csv").is_symlink() and target.read_text().startswith("node,cluster")
        assert sorted(p.name for p in Path(far).iterdir()) == ["labels.csv"]
