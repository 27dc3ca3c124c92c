import csv

import pytest

from hyperclust.cli import main
from hyperclust.io import write_hif  # noqa: F401  (reader/writer pair used below)


def test_demo_runs(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "kmeans" in out and "hgnn" in out and "acc" in out
    from hyperclust.cli import DEMO_SUMMARY

    progress = [line for line in out.splitlines() if line.strip().startswith("[")]
    assert len(progress) == 12 and progress[0].strip().startswith("[1/12] kmeans")
    assert all(" ACC " in line for line in progress)  # one line per fit, with its result
    assert out.rstrip().splitlines()[-1] == DEMO_SUMMARY


def _write_edge_list(path):
    path.write_text("0,1,2\n2,3\n3,4,5\n0,5\n")


def test_cluster_file_writes_csv(tmp_path, capsys):
    src = tmp_path / "edges.txt"
    _write_edge_list(src)
    out = tmp_path / "labels.csv"
    rc = main(["cluster", str(src), "--method", "spectral-zhou", "--k", "2", "--out", str(out)])
    assert rc == 0
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["node", "cluster"] and len(rows) == 7


def test_user_errors_print_one_line(tmp_path, capsys):
    assert main(["info", "no-such-dataset"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hyperclust: error:")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["info", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("hyperclust: error:")
    src = tmp_path / "edges.txt"
    _write_edge_list(src)
    assert main(["cluster", str(src), "--method", "hgnn"]) == 2  # no labels -> --k required
    assert "--k" in capsys.readouterr().err
    assert main(["cluster", str(src), "--method", "nope", "--k", "2"]) == 2


def test_malicious_pickle_refused(tmp_path, capsys):
    import pickle

    class Evil:
        def __reduce__(self):
            import os
            return (os.system, (f"touch {tmp_path / 'pwned'}",))

    d = tmp_path / "evil"
    d.mkdir()
    (d / "hypergraph.pickle").write_bytes(pickle.dumps({0: [0, 1]}))
    (d / "labels.pickle").write_bytes(pickle.dumps(Evil()))
    assert main(["info", str(d)]) == 2
    assert not (tmp_path / "pwned").exists()
    assert capsys.readouterr().err.startswith("hyperclust: error:")


def test_cluster_deep_method_shows_progress_on_a_terminal_unless_quiet(capsys, monkeypatch):
    from hyperclust.cli import cluster

    # a feature input: Uni-DHC trains its encoder there (on a structural one it does not)
    src = "synthetic-h0.8-n300-k3"
    monkeypatch.setattr(cluster, "on_terminal", lambda: True)
    assert main(["cluster", src, "--method", "unidhc", "--k", "3"]) == 0
    assert "Uni-DHC" in capsys.readouterr().err
    assert main(["cluster", src, "--method", "unidhc", "--k", "3", "--quiet"]) == 0
    assert "Uni-DHC" not in capsys.readouterr().err
    monkeypatch.setattr(cluster, "on_terminal", lambda: False)  # a log file: no bar
    assert main(["cluster", src, "--method", "unidhc", "--k", "3"]) == 0
    assert "Uni-DHC" not in capsys.readouterr().err


def test_cluster_says_when_it_drops_heterophilic_hyperedges(tmp_path, capsys):
    import numpy as np

    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.io import write_edgelist

    hg = hypergraph_sbm(1000, 4, homophily=0.0, n_features=32, random_state=0)
    write_edgelist(hg, tmp_path / "het.txt")
    np.save(tmp_path / "X.npy", hg.features)
    assert main(["cluster", str(tmp_path / "het.txt"), "--features", str(tmp_path / "X.npy"),
                 "--k", "4"]) == 0
    out = capsys.readouterr().out
    assert "kNN walk (beta = 1), with the hyperedges as repulsion" in out


def test_cluster_help_says_what_auto_keeps(capsys):
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "best predicts the held-out hyperedges and attribute columns" in text
    assert "lowest label-free objective" not in text


@pytest.mark.parametrize("command", ["cluster", "embed", "partition", "bench"])
def test_dash_o_is_out(command):
    from hyperclust.cli import build_parser

    target = [] if command == "bench" else ["e.txt"]
    assert build_parser().parse_args([command, *target, "-o", "x.npy"]).out == "x.npy"


def test_auto_on_a_featureless_input_lets_no_library_warning_through(tmp_path, capsys):
    """20 disjoint pairs: candidates whose embedding has fewer distinct rows than --k."""
    path = tmp_path / "pairs.txt"
    path.write_text("".join(f"{2 * i} {2 * i + 1}\n" for i in range(20)))
    for k in ("2", "5"):
        assert main(["cluster", str(path), "--k", k]) == 0
        err = capsys.readouterr().err
        assert "warning" not in err.lower(), err
