"""Property tests of content: random hypergraphs with hostile ids, written in every format
(edge list with names, quotes, leading zeros, blank lines, CRLF/BOM, comments; HIF;
hypergraphx; LE node-hyperedge pairs; (node, hyperedge) pairs; feature and label tables), read back with the same
node ids, the same hyperedges and the same feature rows; the CLI writes one row per input
node with its exact id.

$HYPERCLUST_FUZZ_CONTENT scales the number of examples (default 1: 4,000+ cases in all). The
failures it found stay pinned as known-answer tests whatever examples it draws (the no-break
space here, a written pairs file's first line in test_pairs.py).
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.cli import main  # noqa: E402
from hyperclust.io import (attach_node_data, from_hif, read_edgelist, read_le,  # noqa: E402
                           read_hypergraphx, read_node_table, read_pairs, to_hif,
                           write_edgelist, write_pairs)
from hyperclust.io.text_fields import all_canonical, is_canonical_int  # noqa: E402

SCALE = float(os.environ.get("HYPERCLUST_FUZZ_CONTENT", 1))


def _settings(n):
    extra = {"phases": [Phase.generate]} if os.environ.get("HYPERCLUST_FUZZ_NO_SHRINK") else {}
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture], **extra)


_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: Names that stress a reader: separators, quotes, '#', white space that separates nothing
#: (no-break, em and ideographic spaces), unicode; no line breaks, no NUL, no leading/trailing
#: space (a field is stripped), never empty.
names = st.text(st.characters(blacklist_categories=("Cs", "Cc"),
                              blacklist_characters=_LINE_BREAKS)
                | st.sampled_from(',"# \t\u00a0\u2003\u3000'),
                min_size=1, max_size=8).map(str.strip).filter(bool)
int_tokens = st.integers(-10**12, 10**12).map(str) | st.sampled_from(
    ["0", "7", "-1", "9223372036854775807", "-9223372036854775808"])
odd_ints = st.sampled_from(["007", "0007", "+7", "-0", "00", "01", "99999999999999999999",
                            "1e3", "0x10", "1_0"])
tokens = st.one_of(int_tokens, int_tokens, names, odd_ints)


@st.composite
def hypergraphs(draw, token=tokens, max_nodes=10):
    """``(distinct id tokens, hyperedges as lists of indices into them)``: every node in at
    least one hyperedge, no two hyperedges with the same member set."""
    ids = draw(st.lists(token, min_size=1, max_size=max_nodes, unique=True))
    n = len(ids)
    edges = draw(st.lists(st.lists(st.integers(0, n - 1), min_size=1, max_size=5, unique=True),
                          min_size=1, max_size=8))
    covered = {v for e in edges for v in e}
    edges.append([v for v in range(n) if v not in covered] or [0])
    seen, unique = set(), []
    for e in edges:
        if frozenset(e) not in seen:
            seen.add(frozenset(e))
            unique.append(e)
    return ids, unique


def _expected_ids(written: list[str]) -> list:
    """What the id rule says: sorted int64 when every token is canonical, else as written in
    order of first appearance."""
    if all(is_canonical_int(t) for t in written) and \
            all(-2**63 <= int(t) < 2**63 for t in written):
        return sorted({int(t) for t in written})
    return list(dict.fromkeys(written))


def _quote(tok: str) -> str:
    if tok and not any(c in tok for c in ',"# \t') and not tok.startswith("#"):
        return tok
    return '"' + tok.replace('"', '""') + '"'


def _edges_as_ids(hg):
    ids = hg.node_ids.tolist()
    return [sorted(map(str, (ids[v] for v in e))) for e in hg.edges()]


def _write(tmp: Path, name: str, text: str, *, bom=False, crlf=False) -> Path:
    data = text.replace("\n", "\r\n") if crlf else text
    path = tmp / name
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data.encode("utf-8"))
    return path


def test_unicode_white_space_other_than_space_and_tab_is_part_of_an_id(tmp_path):
    """Found by this suite (hypothesis 6.170): a no-break space split an id in two."""
    path = _write(tmp_path, "e.txt", "New\u00a0York,Oslo\nOslo\u2003x y\n")
    hg = read_edgelist(path, header=False, duplicates="keep")
    assert hg.node_ids.tolist() == ["New\u00a0York", "Oslo", "Oslo\u2003x", "y"]
    assert _edges_as_ids(hg) == [sorted(["New\u00a0York", "Oslo"]), ["Oslo\u2003x", "y"]]
    path = _write(tmp_path, "p.txt", "New\u00a0York,e\u00a01\nOslo e\u00a01\n")
    hg = read_pairs(path, header=False, duplicates="keep")
    assert hg.node_ids.tolist() == ["New\u00a0York", "Oslo"]
    assert hg.edge_ids.tolist() == ["e\u00a01"]


@_settings(1100)
@given(hypergraphs(), st.sampled_from([",", ", ", " ", "\t", " ,\t"]), st.booleans(),
       st.booleans(), st.lists(st.sampled_from(["", "   ", "# note", "\t# x"]), max_size=3),
       st.data())
def test_edge_lists_read_back_ids_and_hyperedges(graph, sep, bom, crlf, extra, data):
    ids, edges = graph
    lines = [sep.join(_quote(ids[v]) for v in e) for e in edges]
    for junk in extra:  # blank and comment lines anywhere
        lines.insert(data.draw(st.integers(0, len(lines))), junk)
    with tempfile.TemporaryDirectory() as d:
        path = _write(Path(d), "e.txt", "\n".join(lines) + "\n", bom=bom, crlf=crlf)
        hg = read_edgelist(path, header=False, duplicates="keep")
    written = [ids[v] for e in edges for v in e]
    assert hg.node_ids.tolist() == _expected_ids(written)
    # a canonical integer token is str() of its id, so both cases compare as text
    assert _edges_as_ids(hg) == [sorted(ids[v] for v in e) for e in edges]


@_settings(200)
@given(hypergraphs(), st.sampled_from([",", " ", "\t"]))
def test_write_edgelist_then_read_gives_the_same_ids_and_hyperedges(graph, delimiter):
    ids, edges = graph
    hg = Hypergraph.from_edges([[ids[v] for v in e] for e in edges])  # ids as strings
    with tempfile.TemporaryDirectory() as d:
        write_edgelist(hg, Path(d) / "e.txt", delimiter=delimiter)
        back = read_edgelist(Path(d) / "e.txt", duplicates="keep")
    assert [str(t) for t in back.node_ids.tolist()] == \
        [str(t) for t in _expected_ids([ids[v] for e in edges for v in e])]
    assert _edges_as_ids(back) == _edges_as_ids(hg)


@_settings(500)
@given(st.lists(tokens, max_size=6))
def test_the_one_pass_id_rule_is_the_per_token_rule(toks):
    assert all_canonical(toks) == all(map(is_canonical_int, toks))


@_settings(300)
@given(hypergraphs(token=names, max_nodes=8))
def test_header_detection_never_drops_a_line_holding_a_number(graph):
    ids, edges = graph
    first = [ids[v] for v in edges[0]] + ["7"]
    lines = [" ".join(map(_quote, first))] + [" ".join(str(v) for v in e) for e in edges[1:]]
    with tempfile.TemporaryDirectory() as d:
        path = _write(Path(d), "e.txt", "\n".join(lines) + "\n")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "looks like a header" warning either
            hg = read_edgelist(path, duplicates="keep")
    assert hg.n_edges == len(lines)


@_settings(350)
@given(hypergraphs(), st.integers(1, 3), st.data())
def test_hif_round_trip_keeps_ids_hyperedges_and_features(graph, n_features, data):
    ids, edges = graph
    node_ids = _expected_ids(ids)  # what an edge list of these tokens would hold
    order = {str(t): i for i, t in enumerate(node_ids)}
    pos = [[order[ids[v]] for v in e] for e in edges]
    X = np.asarray(data.draw(st.lists(st.lists(st.floats(-1e6, 1e6), min_size=n_features,
                                               max_size=n_features),
                                      min_size=len(ids), max_size=len(ids))))
    hg = Hypergraph.from_edges([[node_ids[i] for i in e] for e in pos], features=X,
                               node_ids=node_ids)
    back = from_hif(json.loads(json.dumps(to_hif(hg, include_features=True))),
                    duplicates="keep")
    assert back.node_ids.tolist() == hg.node_ids.tolist()
    assert _edges_as_ids(back) == _edges_as_ids(hg)
    np.testing.assert_array_equal(back.features, hg.features)


@_settings(250)
@given(hypergraphs(token=st.one_of(st.integers(-10**9, 10**9), names), max_nodes=8))
def test_hypergraphx_ids_and_hyperedges(graph):
    ids, edges = graph
    if len({str(t) for t in ids}) < len(ids):  # 1 and "1" are one id in a table: refused
        return
    doc = [{"hypergraph_type": "Hypergraph"}] + \
        [{"type": "edge", "interaction": [ids[v] for v in e]} for e in edges]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        hg = read_hypergraphx(path, duplicates="keep")
    expected = sorted(ids, key=lambda x: (isinstance(x, str), x))
    if all(isinstance(x, int) for x in ids):
        assert hg.node_ids.tolist() == expected
    else:
        assert hg.node_ids.tolist() == [str(x) for x in expected]
    assert _edges_as_ids(hg) == [sorted(str(ids[v]) for v in e) for e in edges]


@_settings(200)
@given(hypergraphs(token=st.integers(-10**12, 10**12), max_nodes=8), st.data())
def test_le_pairs_keep_ids_features_and_hyperedges(graph, data):
    ids, edges = graph
    X = np.asarray(data.draw(st.lists(st.floats(-1e3, 1e3, width=32), min_size=len(ids),
                                      max_size=len(ids))), dtype=np.float64)
    content = "".join(f"{t} {float(x)!r} {i % 2}\n" for i, (t, x) in enumerate(zip(ids, X)))
    pairs = "".join(f"{ids[v]} {len(ids) + j}\n" for j, e in enumerate(edges) for v in e)
    with tempfile.TemporaryDirectory() as d:
        _write(Path(d), "g.content", content)
        _write(Path(d), "g.edges", pairs)
        hg = read_le(d, duplicates="keep")
    assert hg.node_ids.tolist() == ids
    np.testing.assert_array_equal(hg.features[:, 0], X)
    assert sorted(map(tuple, _edges_as_ids(hg))) == \
        sorted(tuple(sorted(str(ids[v]) for v in e)) for e in edges)


@_settings(300)
@given(hypergraphs(), st.lists(tokens, min_size=9, max_size=9, unique=True),
       st.sampled_from([",", " ", "\t", " ,"]), st.booleans(), st.booleans())
def test_pairs_read_back_node_and_hyperedge_ids(graph, edge_tokens, sep, bom, crlf):
    ids, edges = graph
    lines = [f"{_quote(ids[v])}{sep}{_quote(edge_tokens[j])}" for j, e in enumerate(edges)
             for v in e]
    with tempfile.TemporaryDirectory() as d:
        path = _write(Path(d), "p.txt", "\n".join(lines) + "\n", bom=bom, crlf=crlf)
        hg = read_pairs(path, header=False, duplicates="keep")
    assert hg.node_ids.tolist() == _expected_ids([ids[v] for e in edges for v in e])
    written_edges = edge_tokens[:len(edges)]
    assert [str(t) for t in hg.edge_ids.tolist()] == \
        [str(t) for t in _expected_ids(written_edges)]
    got = dict(zip(map(str, hg.edge_ids.tolist()), _edges_as_ids(hg)))
    assert got == {str(_expected_ids([edge_tokens[j]])[0]): sorted(ids[v] for v in e)
                   for j, e in enumerate(edges)}


@_settings(300)
@given(hypergraphs(), st.lists(names, min_size=9, max_size=9, unique=True),
       st.sampled_from([",", " ", "\t"]))
def test_write_pairs_then_read_gives_the_same_ids_and_hyperedges(graph, edge_names, delimiter):
    ids, edges = graph
    hg = Hypergraph.from_edges([[ids[v] for v in e] for e in edges],
                               edge_ids=edge_names[:len(edges)])
    with tempfile.TemporaryDirectory() as d:
        write_pairs(hg, Path(d) / "p.txt", delimiter=delimiter)
        back = read_pairs(Path(d) / "p.txt", duplicates="keep")
    assert [str(t) for t in back.edge_ids.tolist()] == \
        [str(t) for t in _expected_ids(edge_names[:len(edges)])]
    assert _edges_as_ids(back) == _edges_as_ids(hg)


@_settings(450)
@given(hypergraphs(), st.integers(1, 3), st.booleans(), st.booleans(), st.data())
def test_feature_and_label_tables_land_on_their_nodes(graph, width, bom, crlf, data):
    ids, edges = graph
    lines = [" ".join(_quote(ids[v]) for v in e) for e in edges]
    rows = data.draw(st.permutations(list(range(len(ids)))))
    X = np.asarray(data.draw(st.lists(st.lists(st.floats(-1e9, 1e9), min_size=width,
                                               max_size=width),
                                      min_size=len(ids), max_size=len(ids))))
    y = data.draw(st.lists(st.sampled_from(["a", "b, c", 'say "x"', "\u00fc", "#d"]),
                           min_size=len(ids), max_size=len(ids)))
    table = "node," + ",".join(f"f{j}" for j in range(width)) + "\n" + "".join(
        _quote(ids[i]) + "," + ",".join(repr(float(v)) for v in X[i]) + "\n"
        for i in rows)
    labels = "node,label\n" + "".join(f"{_quote(ids[i])},{_quote(y[i])}\n" for i in rows)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        hg = read_edgelist(_write(d, "e.txt", "\n".join(lines) + "\n"), header=False,
                           duplicates="keep")
        fid, feats = read_node_table(_write(d, "x.csv", table, bom=bom, crlf=crlf))
        lid, labs = read_node_table(_write(d, "y.csv", labels, bom=bom, crlf=crlf),
                                    kind="labels")
    out = attach_node_data(hg, features=feats, feature_ids=fid, labels=labs, label_ids=lid)
    row_of = {t: i for i, t in enumerate(ids)}  # canonical tokens are str() of their ids
    src = [row_of[str(t)] for t in out.node_ids.tolist()]
    np.testing.assert_array_equal(out.features, X[src])
    classes = sorted(set(y))
    assert out.labels.tolist() == [classes.index(y[i]) for i in src]


@_settings(60)
@given(hypergraphs(max_nodes=8), st.booleans())
def test_cli_writes_one_row_per_input_node_with_its_exact_id(graph, crlf):
    ids, edges = graph
    lines = [",".join(_quote(ids[v]) for v in e) for e in edges]
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        path = _write(d, "e.txt", "\n".join(lines) + "\n", crlf=crlf)
        k = 1 if len(ids) < 3 else 2
        code = main(["cluster", str(path), "--method", "spectral-zhou", "--k", str(k),
                     "--no-header", "--out", str(d / "o.csv"), "--quiet"]) if len(ids) > 1 \
            else None
        if code is None:
            return
        assert code == 0
        with open(d / "o.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    written = [ids[v] for e in edges for v in e]
    assert [r[0] for r in rows[1:]] == [str(t) for t in _expected_ids(written)]
    assert len(rows) == len(ids) + 1


@pytest.fixture(autouse=True)
def _quiet_cli(capsys):
    yield
    capsys.readouterr()
