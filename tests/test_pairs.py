"""The (node, hyperedge) pairs format: read by hand-made known answers, XGI's bipartite edge
list in and out, detection (header, refusal of the ambiguous two-column file), the CLI, and
the registry's check that no format's detection is shadowed by an earlier one."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.cli import main
from hyperclust.io import (FORMATS, DataFormatError, Format, detect_format, read_edgelist,
                           read_hypergraph, read_pairs, register_format, write_pairs)
from hyperclust.io.formats import FORMAT_NAMES, check_detection_order


def _members(hg):
    """``{edge id: sorted member ids}`` as text."""
    ids = hg.node_ids.tolist()
    return {str(e): sorted(str(ids[v]) for v in m) for e, m in zip(hg.edge_ids.tolist(),
                                                                   hg.edges())}


def test_known_answer_keeps_node_and_hyperedge_ids(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("10 e2\n30 e2\n20 e1\n10 e1\n")
    hg = read_pairs(path)
    assert hg.node_ids.tolist() == [10, 20, 30]            # all canonical ints: sorted
    assert hg.edge_ids.tolist() == ["e2", "e1"]            # words: first appearance
    assert [e.tolist() for e in hg.edges()] == [[0, 2], [0, 1]]


def test_tokens_kept_as_written_unless_all_canonical(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("007 1\n7 1\n7 2\n")
    hg = read_pairs(path)
    assert hg.node_ids.tolist() == ["007", "7"] and hg.edge_ids.tolist() == [1, 2]


def test_edge_first_and_weights(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("e1,a,2.5\ne1,b,2.5\ne2,b,1\ne2,c,1\n")
    hg = read_pairs(path, edge_first=True, weighted=True)
    assert _members(hg) == {"e1": ["a", "b"], "e2": ["b", "c"]}
    assert hg.weights.tolist() == [2.5, 1.0]


def test_inconsistent_weight_and_wrong_width_name_the_line(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("a e1 2\nb e1 3\n")
    with pytest.raises(DataFormatError, match=r"p.txt:2: weight 3 differs"):
        read_pairs(path, weighted=True)
    path.write_text("a e1\nb c e1\n")
    with pytest.raises(DataFormatError, match=r"p.txt:2: .*3 fields"):
        read_pairs(path)


def test_duplicates_follow_the_readers_policy_and_are_reported(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("a e1\nb e1\na e2\nb e2\nb e2\n")       # e2 == e1, and (b, e2) twice
    merged = read_pairs(path)
    assert merged.n_edges == 1 and merged.cleaning.duplicate_edges == 1
    assert merged.cleaning.repeated_members_collapsed == 1
    kept = read_pairs(path, duplicates="keep")
    assert kept.edge_ids.tolist() == ["e1", "e2"]


@pytest.mark.parametrize("delimiter", [" ", ",", "\t"])
def test_write_then_read_is_exact(tmp_path, delimiter):
    hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "Smith, John", "#x"], ["cy", "ana"]],
                               edge_ids=["e 1", "e2", "e3"], weights=[1.0, 2.0, 0.5])
    write_pairs(hg, tmp_path / "p.txt", delimiter=delimiter)
    back = read_hypergraph(tmp_path / "p.txt")               # detected by its header
    assert back.cleaning.extra["format"] == "pairs"
    assert _members(back) == _members(hg)
    assert back.weights.tolist() == hg.weights.tolist()


def test_writer_refuses_what_pairs_cannot_hold(tmp_path):
    with pytest.raises(ValueError, match="in no hyperedge"):
        write_pairs(Hypergraph.from_edges([[0, 1]], n_nodes=3), tmp_path / "p.txt")


def test_xgi_bipartite_edge_list_round_trip(tmp_path):
    xgi = pytest.importorskip("xgi")
    H = xgi.Hypergraph({"e1": [1, 2], "e2": [2, 3, 4], "e3": [4, 5]})
    xgi.write_bipartite_edgelist(H, tmp_path / "bip.txt")
    hg = read_hypergraph(tmp_path / "bip.txt", format="pairs")
    assert _members(hg) == {"e1": ["1", "2"], "e2": ["2", "3", "4"], "e3": ["4", "5"]}
    write_pairs(hg, tmp_path / "back.txt")
    H2 = xgi.read_bipartite_edgelist(tmp_path / "back.txt", nodetype=int)
    assert {e: sorted(H2.edges.members(e)) for e in H2.edges} == \
        {e: sorted(H.edges.members(e)) for e in H.edges}


def test_xgi_file_is_never_read_as_two_node_hyperedges(tmp_path, capsys):
    xgi = pytest.importorskip("xgi")
    xgi.write_bipartite_edgelist(xgi.Hypergraph([[1, 2], [2, 3, 4]]), tmp_path / "bip.txt")
    with pytest.raises(DataFormatError, match="--format pairs"):
        read_hypergraph(tmp_path / "bip.txt")
    assert main(["info", str(tmp_path / "bip.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--format pairs" in err
    assert main(["info", str(tmp_path / "bip.txt"), "--format", "pairs"]) == 0
    assert "n_edges                     2" in capsys.readouterr().out


def test_two_column_graphs_that_cannot_be_pairs_stay_edge_lists(tmp_path):
    path = tmp_path / "path.txt"
    path.write_text("0 1\n1 2\n2 3\n")                      # second column: no repeat
    assert detect_format(path) == "edgelist"
    assert read_hypergraph(path).n_edges == 3
    path.write_text("0 1 2\n2 3\n")
    assert detect_format(path) == "edgelist"
    path.write_text("a x\nb x\n")                           # could be either: refused
    with pytest.raises(DataFormatError, match="--format pairs or --format edgelist"):
        detect_format(path)
    assert read_hypergraph(path, format="edgelist").n_edges == 2
    assert read_edgelist(path).n_edges == 2


def test_cli_cluster_reads_pairs(tmp_path, capsys):
    hg = Hypergraph.from_edges([["a", "b", "c"], ["a", "b"], ["d", "e", "f"], ["e", "f"]],
                               edge_ids=["p", "q", "r", "s"])
    write_pairs(hg, tmp_path / "p.txt")
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(tmp_path / "p.txt"), "--method", "spectral-zhou", "--k", "2",
                 "--out", str(out), "--quiet"]) == 0
    rows = dict(line.split(",") for line in out.read_text().splitlines()[1:])
    assert rows["a"] == rows["b"] == rows["c"] != rows["d"] == rows["e"] == rows["f"]


# ------------------------------------------------------------------ the registry's check

def test_the_shipped_formats_each_detect_their_examples():
    check_detection_order(FORMATS)
    assert all(fmt.examples for fmt in FORMATS.values())


def _text_format(suffix, text):
    return Format("test format", False, lambda src: src.suffix == suffix,
                  lambda src, **o: read_edgelist(src.path, **o),
                  examples=({f"x{suffix}": text},))


def _marked_format():
    """``.txt`` files opening with ``%%hg``: a subset of what ``edgelist`` claims."""
    return Format("marked text", False,
                  lambda src: src.suffix == ".txt" and src.path.read_text().startswith("%%hg"),
                  lambda src, **o: read_edgelist(src.path, **o),
                  examples=({"x.txt": "%%hg\na b c\n"},))


def test_a_shadowed_format_is_refused_unless_given_priority(tmp_path):
    before = list(FORMATS)
    with pytest.raises(ValueError, match="'edgelist', tried before it, claims it"):
        register_format("marked", _marked_format())
    assert list(FORMATS) == before and "marked" not in FORMAT_NAMES
    try:
        register_format("marked", _marked_format(), before="edgelist")
        assert list(FORMATS).index("marked") == before.index("edgelist")
        (tmp_path / "y.txt").write_text("%%hg\na b c\n")
        (tmp_path / "z.txt").write_text("a b c\n")
        assert detect_format(tmp_path / "y.txt") == "marked"
        assert detect_format(tmp_path / "z.txt") == "edgelist"
        assert list(FORMAT_NAMES) == list(FORMATS)
    finally:
        FORMATS.pop("marked", None)
        FORMAT_NAMES.pop("marked", None)


def test_priority_that_would_shadow_a_later_format_is_refused():
    with pytest.raises(ValueError, match=r"format 'pairs' would never be detected on its "
                                         r"example bip.txt: format 'greedy'"):
        register_format("greedy", _text_format(".txt", "a\n"), before="pairs")
    assert "greedy" not in FORMATS


def test_a_format_without_examples_or_missing_its_own_example_is_refused():
    with pytest.raises(ValueError, match="declares no examples"):
        register_format("bare", Format("x", False, lambda src: False, read_edgelist))
    with pytest.raises(ValueError, match="does not detect its own example"):
        register_format("blind", Format("x", False, lambda src: False, read_edgelist,
                                        examples=({"x.zzz": "a\n"},)))
    assert not {"bare", "blind"} & set(FORMATS)
    assert np.all([name in FORMAT_NAMES for name in FORMATS])


def test_a_written_file_never_loses_a_line_to_header_detection(tmp_path):
    hg = Hypergraph.from_edges([["x", "y"], [1, 2]], edge_ids=["a", 5])  # words over ints
    write_pairs(hg, tmp_path / "p.txt")
    back = read_pairs(tmp_path / "p.txt")
    assert back.n_edges == 2 and sorted(map(str, back.node_ids.tolist())) == ["1", "2", "x", "y"]


def test_a_directory_format_shadowed_by_an_earlier_one_is_refused():
    fmt = Format("a folder holding hyperedge.npy and more", True,
                 lambda src: (src.path / "hyperedge.npy").is_file(),
                 lambda src, **o: None, examples=({"hyperedge.npy": "", "extra.txt": ""},))
    with pytest.raises(ValueError, match="format 'hsbm', tried before it, claims it"):
        register_format("hsbm-extra", fmt)
    assert "hsbm-extra" not in FORMATS
