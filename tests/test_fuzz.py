"""Property-based fuzzing of every reader and of the CLI (hypothesis).

Inputs are random bytes, truncations and byte-level mutations of small valid files. The
properties: a reader either returns a Hypergraph (or table) or raises one of the errors the
CLI prints as one line (``ValueError`` incl. ``DataFormatError``, ``TypeError``, ``OSError``);
it never hangs (hypothesis' per-example deadline); the CLI returns 0 or 2 and never leaves a
partial ``--out`` file.
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.cli import main  # noqa: E402
from hyperclust.io import (from_hif, load_npy, read_benson, read_benson_edge_labelled,  # noqa: E402
                           read_edgelist, read_hsbm, read_hypergcn, read_hypergraph,
                           read_hypergraphx, read_le, read_node_table, safe_loads, to_hif)

ALLOWED = (ValueError, TypeError, OSError)
#: $HYPERCLUST_FUZZ_EXAMPLES raises the number of examples for a longer local run.
#: The deadline catches hangs, not slowness: a loaded machine takes seconds per example.
FUZZ = settings(max_examples=int(os.environ.get("HYPERCLUST_FUZZ_EXAMPLES", 40)), deadline=30000,
                derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _toy():
    return Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [1, 5]], n_nodes=7,
                                 features=np.arange(14, dtype=float).reshape(7, 2),
                                 labels=[0, 0, 1, 1, 2, 2, -1])


def _seeds():
    """Valid example files, one per reader: name -> {file name: bytes}."""
    hg = _toy()
    edges = {str(k): e.tolist() for k, e in enumerate(hg.edges())}
    le_content = "\n".join(f"{10 + i} {i}.0 {2 * i}.0 {i % 3}" for i in range(7)) + "\n"
    le_edges = "".join(f"{10 + v} {7 + j}\n" for j, e in enumerate(hg.edges()) for v in e)
    hsbm_edges = np.empty((), dtype=object)
    hsbm_edges[()] = {k: list(v) for k, v in edges.items()}
    return {
        "edgelist": {"e.txt": b"0 1 2\n2,3\n# c\nalice bob\n3 4 5\n"},
        "hif": {"h.json": json.dumps(to_hif(hg, include_features=True)).encode()},
        "hypergraphx": {"x.json": json.dumps(
            [{"hypergraph_type": "Hypergraph"},
             {"type": "node", "idx": 1, "metadata": {"class": "a"}},
             {"type": "edge", "interaction": [1, 2], "weight": 2}]).encode()},
        "hypergcn": {"hypergraph.pickle": pickle.dumps(edges, protocol=2),
                     "labels.pickle": pickle.dumps([0, 0, 1, 1, 2, 2, 0]),
                     "features.pickle": pickle.dumps(sp.csr_matrix(np.eye(7)))},
        "le": {"toy.content": le_content.encode(), "toy.edges": le_edges.encode()},
        "benson": {"hyperedges-toy.txt": b"1,2,3\n3,4\n4,5,6\n",
                   "node-labels-toy.txt": b"1\n1\n2\n2\n3\n3\n"},
        "hsbm": {"hyperedge.npy": _npy_bytes(hsbm_edges),
                 "labels.npy": _npy_bytes(np.array([0, 0, 1, 1, 0, 1, 0]))},
        "benson-edge-labelled": {"hyperedges.txt": b"1\t2\t3\n3\t4\n",
                                 "hyperedge-labels.txt": b"1\n2\n"},
    }


def _npy_bytes(arr):
    import io

    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=True)
    return buf.getvalue()


SEEDS = _seeds()
DIR_READERS = {"hypergcn": read_hypergcn, "le": read_le, "benson": read_benson,
               "hsbm": read_hsbm, "benson-edge-labelled": read_benson_edge_labelled}


def test_seed_files_are_valid(tmp_path):
    for fmt, files in SEEDS.items():
        d = tmp_path / fmt
        d.mkdir()
        for name, data in files.items():
            (d / name).write_bytes(data)
        target = d if fmt in DIR_READERS else d / next(iter(files))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert read_hypergraph(target, format=fmt).n_nodes > 0, fmt


@st.composite
def mutated(draw, data: bytes):
    """A truncation, byte substitutions, insertions or deletions of ``data``."""
    kind = draw(st.sampled_from(["truncate", "substitute", "insert", "delete", "random"]))
    if kind == "random":
        return draw(st.binary(max_size=200))
    if kind == "truncate":
        return data[:draw(st.integers(0, max(len(data) - 1, 0)))]
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, max(len(out) - 1, 0)))
        byte = draw(st.sampled_from(list(b"0123456789-,. \n\t\x00\xff[]{}\":aZ") + [0x80]))
        if kind == "substitute" and out:
            out[pos] = byte
        elif kind == "insert":
            out.insert(pos, byte)
        elif out:
            del out[pos]
    return bytes(out)


def _read_or_allowed_error(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except ALLOWED:
            return None


def _file_case(fmt):
    name, data = next(iter(SEEDS[fmt].items()))
    return name, data


@pytest.mark.parametrize("fmt", ["edgelist", "hif", "hypergraphx"])
def test_file_readers_never_crash(fmt):
    name, data = _file_case(fmt)

    @FUZZ
    @given(mutated(data))
    def check(blob):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / name
            path.write_bytes(blob)
            out = _read_or_allowed_error(read_hypergraph, path, format=fmt)
            assert out is None or isinstance(out, Hypergraph)

    check()


@pytest.mark.parametrize("fmt", sorted(DIR_READERS))
def test_directory_readers_never_crash(fmt):
    files = SEEDS[fmt]
    names = sorted(files)

    @FUZZ
    @given(st.sampled_from(names), st.data())
    def check(victim, data):
        blob = data.draw(mutated(files[victim]))
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp) / fmt
            d.mkdir()
            for name, content in files.items():
                (d / name).write_bytes(blob if name == victim else content)
            out = _read_or_allowed_error(DIR_READERS[fmt], d)
            assert out is None or isinstance(out, Hypergraph)

    check()


@FUZZ
@given(st.sampled_from([pickle.dumps(obj, protocol=p) for p in (0, 2, 4) for obj in
                        ({"a": [1, 2]}, np.arange(5), sp.csr_matrix(np.eye(3)))]), st.data())
def test_safe_unpickler_never_crashes(seed, data):
    blob = data.draw(mutated(seed))
    _read_or_allowed_error(safe_loads, blob)


@FUZZ
@given(st.data())
def test_npy_reader_never_crashes(data):
    blob = data.draw(mutated(_npy_bytes(np.arange(6.0).reshape(3, 2))))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.npy"
        path.write_bytes(blob)
        _read_or_allowed_error(load_npy, path)


@FUZZ
@given(st.sampled_from(["features", "labels"]), st.data())
def test_node_table_reader_never_crashes(kind, data):
    seed = b"node,a,b\n1,0.5,1\n2,1,0\n" if kind == "features" else b"node,label\n1,x\n2,y\n"
    blob = data.draw(mutated(seed))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.csv"
        path.write_bytes(blob)
        _read_or_allowed_error(read_node_table, path, kind=kind)


@FUZZ
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) |
                    st.dictionaries(st.sampled_from(["incidences", "nodes", "edges", "node",
                                                     "edge", "attrs", "weight", "features",
                                                     "label", "metadata", "network-type"]),
                                    inner, max_size=4),
                    max_leaves=20))
def test_hif_documents_never_crash(doc):
    _read_or_allowed_error(from_hif, doc if isinstance(doc, dict) else {"incidences": doc})
    _read_or_allowed_error(read_hypergraphx, "x.json", doc=doc)


@FUZZ
@given(mutated(SEEDS["edgelist"]["e.txt"]))
def test_cli_never_tracebacks_nor_leaves_partial_output(blob):
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "e.txt"
        src.write_bytes(blob)
        out = Path(tmp) / "labels.csv"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rc_info = main(["info", str(src)])
            rc = main(["cluster", str(src), "--method", "spectral-zhou", "--k", "2", "--out",
                       str(out), "--quiet"])
        assert rc_info in (0, 2) and rc in (0, 2)
        leftovers = sorted(p.name for p in Path(tmp).iterdir())
        if rc == 0:
            hg = read_hypergraph(src)
            assert len(out.read_text().splitlines()) == hg.n_nodes + 1
            assert leftovers == ["e.txt", "labels.csv"]
        else:
            assert leftovers == ["e.txt"]


@pytest.fixture(autouse=True)
def _quiet_cli(capsys):
    yield
    capsys.readouterr()

