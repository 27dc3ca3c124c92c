"""The hostile suite: users' own files and attacks on the command line, one row per case.

Each row: a case id, the files in a fresh folder, the command line (run there), the expected
exit status and a part of the expected message (stdout + stderr), and, for ``--out``, the
expected ``node`` column. Every case must end without a traceback and without a silent
change: an error is one ``hyperclust: error:`` line, a result holds exactly the input's ids.
Special file contents make other kinds of files: ``DIR``, ``FIFO``, ``SOCKET``, ``DEVICE``
(skipped where mknod is not allowed), ``("LINK", target)``, ``("SPARSE", size)``.
"""

from __future__ import annotations

import csv
import json
import os
import pickle
import shlex
import socket

import numpy as np
import pytest

from hyperclust.cli import main

E, L, F = "e.txt", "y.txt", "x.csv"
OK6 = "0 1 2\n1 2\n3 4 5\n4 5\n"                        # two groups, ids 0..5
SZ = "--method spectral-zhou --k 2 --quiet"
BENSON = {"b/hyperedges-b.txt": "1,2,3\n2,3\n4,5,6\n5,6\n", "b/node-labels-b.txt":
          "1\n1\n1\n2\n2\n2\n"}


def _hif(weights=None, names=None):
    inc = [{"edge": e, "node": v} for e, vs in (("e1", "abc"), ("e2", "cd")) for v in vs]
    doc = {"incidences": inc}
    if weights is not None:
        doc["edges"] = [{"edge": e, "weight": w} for e, w in zip(("e1", "e2"), weights)]
    if names is not None:
        doc["nodes"] = [{"node": v, "attrs": {"name": n}} for v, n in zip("abcd", names)]
    return json.dumps(doc)


def _hgx(members):
    return json.dumps([{"hypergraph_type": "Hypergraph"}] +
                      [{"type": "edge", "interaction": m} for m in members])


_shared = list(range(100_000))
PICKLE_BOMB = pickle.dumps({f"e{k}": _shared for k in range(20_000)})
_cora_like = {"h/hypergraph.pickle": pickle.dumps({0: [0, 1, 2], 1: [2, 3]}),
              "h/labels.pickle": pickle.dumps([0, 0, 1, 1])}

# id, files, command line, exit status, message part, node column of out.csv (or None)
CASES = [
    # ---- outputs: only a regular file or a new name; links written through (items 1, 7, 8)
    ("out-device", {E: OK6, "o": "DEVICE"}, f"cluster {E} {SZ} --out o --force", 2,
     "character device, not a regular file", None),
    ("out-fifo", {E: OK6, "o": "FIFO"}, f"cluster {E} {SZ} --out o --force", 2, "a FIFO", None),
    ("out-fifo-noforce", {E: OK6, "o": "FIFO"}, f"cluster {E} {SZ} --out o", 2, "a FIFO", None),
    ("out-socket", {E: OK6, "o": "SOCKET"}, f"cluster {E} {SZ} --out o --force", 2, "a socket",
     None),
    ("out-dir", {E: OK6, "o": "DIR"}, f"cluster {E} {SZ} --out o --force", 2, "is a directory",
     None),
    ("out-link-to-dir", {E: OK6, "d": "DIR", "o": ("LINK", "d")},
     f"cluster {E} {SZ} --out o --force", 2, "is a directory", None),
    ("out-link-to-fifo", {E: OK6, "p": "FIFO", "o": ("LINK", "p")},
     f"cluster {E} {SZ} --out o --force", 2, "a FIFO", None),
    ("out-link-loop", {E: OK6, "o": ("LINK", "o2"), "o2": ("LINK", "o")},
     f"cluster {E} {SZ} --out o --force", 2, "symbolic link loop", None),
    ("out-link-new", {E: OK6, "sub": "DIR", "o": ("LINK", "sub/real.csv")},
     f"cluster {E} {SZ} --out o", 0, "wrote", [0, 1, 2, 3, 4, 5]),
    ("out-link-existing-noforce", {E: OK6, "t.csv": "keep\n", "o": ("LINK", "t.csv")},
     f"cluster {E} {SZ} --out o", 2, "exists; pass --force", None),
    ("out-link-existing-force", {E: OK6, "t.csv": "old\n", "o": ("LINK", "t.csv")},
     f"cluster {E} {SZ} --out o --force", 0, "wrote", [0, 1, 2, 3, 4, 5]),
    ("out-link-to-input", {E: OK6, "o": ("LINK", E)}, f"cluster {E} {SZ} --out o --force", 2,
     "it is an input", None),
    ("out-is-input", {E: OK6}, f"cluster {E} {SZ} --out {E} --force", 2, "it is an input", None),
    ("out-is-labels", {E: OK6, L: "0\n0\n0\n1\n1\n1\n"},
     f"cluster {E} {SZ} --labels {L} --out {L} --force", 2, "it is an input", None),
    ("out-exists", {E: OK6, "o.csv": "x\n"}, f"cluster {E} {SZ} --out o.csv", 2,
     "exists; pass --force", None),
    ("out-exists-force", {E: OK6, "o.csv": "x\n"}, f"cluster {E} {SZ} --out o.csv --force", 0,
     "wrote", [0, 1, 2, 3, 4, 5]),
    ("out-no-folder", {E: OK6}, f"cluster {E} {SZ} --out nope/o.csv", 2, "does not exist", None),
    ("out-new", {E: OK6}, f"cluster {E} {SZ} --out o.csv", 0, "6 rows", [0, 1, 2, 3, 4, 5]),
    ("emb-suffix", {E: OK6}, f"cluster {E} {SZ} --embedding-out z.csv", 2, "must end in .npy",
     None),
    ("emb-same-as-out", {E: OK6}, f"cluster {E} {SZ} --out z.npy --embedding-out z.npy", 2,
     "name the same file", None),
    ("emb-fifo", {E: OK6, "z.npy": "FIFO"}, f"cluster {E} {SZ} --embedding-out z.npy --force",
     2, "a FIFO", None),
    ("plot-suffix", {E: OK6}, f"cluster {E} {SZ} --plot p.jpg", 2, "must end in .png", None),
    ("embed-fifo", {E: OK6, "z.npy": "FIFO"}, f"embed {E} --out z.npy --force", 2, "a FIFO",
     None),
    ("embed-dir", {E: OK6, "z.npy": "DIR"}, f"embed {E} --out z.npy --force", 2,
     "is a directory", None),
    # ---- ids are kept as written unless every token is a canonical integer (item 2)
    ("ids-leading-zeros", {E: "02134 02135 7\n7 007\n0007 1\n"}, f"cluster {E} {SZ} --out o.csv",
     0, "6 rows", ["02134", "02135", "7", "007", "0007", "1"]),
    ("ids-7-007", {E: "7 007\n007 8\n"}, f"info {E}", 0, "n_nodes=3", None),
    ("ids-plus-sign", {E: "+7 7\n7 8\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["+7", "7", "8"]),
    ("ids-minus-zero", {E: "-0 0\n0 1\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["-0", "0", "1"]),
    ("ids-negative", {E: "-5 -3\n-3 7\n7 9\n"}, f"cluster {E} {SZ} --out o.csv", 0, "4 rows",
     [-5, -3, 7, 9]),
    ("ids-int64-max", {E: "9223372036854775807 0\n0 1\n"}, f"cluster {E} {SZ} --out o.csv", 0,
     "3 rows", [0, 1, 9223372036854775807]),
    ("ids-beyond-int64", {E: "99999999999999999999 1\n1 2\n"}, f"cluster {E} {SZ} --out o.csv",
     0, "3 rows", ["99999999999999999999", "1", "2"]),
    ("ids-gappy", {E: "7 900000\n900000 31\n31 7\n"}, f"cluster {E} {SZ} --out o.csv", 0,
     "3 rows", [7, 31, 900000]),
    ("ids-huge-sparse", {E: "0 100000000000\n100000000000 5\n"}, f"info {E}", 0, "n_nodes=3",
     None),
    ("ids-unicode", {E: "ä ö\nö ü\nü ä\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["ä", "ö", "ü"]),
    ("ids-float-looking", {E: "1.0 1\n1 2\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["1.0", "1", "2"]),
    ("ids-hex-looking", {E: "0x1 1\n1 2\n"}, f"info {E}", 0, "n_nodes=3", None),
    ("ids-underscore", {E: "1_000 1000\n1000 2\n"}, f"info {E}", 0, "n_nodes=3", None),
    ("ids-case", {E: "Ana ana\nana bo\n"}, f"info {E}", 0, "n_nodes=3", None),
    ("ids-names-sep", {E: "Ana Lee;Bo Li\nBo Li;Cy\n"}, f"cluster {E} {SZ} --sep ; --out o.csv",
     0, "3 rows", ["Ana Lee", "Bo Li", "Cy"]),
    ("ids-tabs", {E: "a\tb\tc\nc\td\n"}, f"info {E}", 0, "n_nodes=4", None),
    ("ids-repeated-in-edge", {E: "1 1 2\n2 3\n"}, f"info {E}", 0, "n_nodes=3", None),
    # ---- CSV quoting is honoured (item 3)
    ("csv-quoted-commas", {E: '"Smith, John","Doe, Jane",bob\nbob,carl\n'},
     f"cluster {E} {SZ} --out o.csv", 0, "4 rows", ["Smith, John", "Doe, Jane", "bob", "carl"]),
    ("csv-quoted-spaces", {E: '"a b" c\nc d\n'}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["a b", "c", "d"]),
    ("csv-doubled-quote", {E: '"say ""hi""",b\nb,c\n'}, f"cluster {E} {SZ} --out o.csv", 0,
     "3 rows", ['say "hi"', "b", "c"]),
    ("csv-quoted-digits", {E: '"7",8\n8,9\n'}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     [7, 8, 9]),
    ("csv-unbalanced", {E: 'a "b\nb c\n'}, f"info {E}", 2, "e.txt:1: a quote must open", None),
    ("csv-quote-inside", {E: 'a b"c"\n'}, f"info {E}", 2, "a quote must open", None),
    ("csv-empty-quoted", {E: 'a,"",b\n'}, f"info {E}", 2, "empty quoted field", None),
    ("csv-sep-semicolon", {E: '"x;y";z\nz;w\n'}, f"cluster {E} {SZ} --sep ; --out o.csv", 0,
     "3 rows", ["x;y", "z", "w"]),
    ("csv-sep-bad-quote", {E: 'a;"b\n'}, f"info {E} --sep ;", 2, "bad quoting", None),
    ("csv-crlf-quoted", {E: '"a, b",c\r\nc,d\r\n'}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["a, b", "c", "d"]),
    ("csv-labels-quoted", {E: OK6, L: '"x, y"\n"x, y"\n"x, y"\nz\nz\nz\n'},
     f"cluster {E} {SZ} --labels {L}", 0, "ACC 1.0000", None),
    ("csv-features-quoted", {E: OK6, F: 'node,"a b"\n0,1\n1,1\n2,1\n3,0\n4,0\n5,0\n'},
     f"cluster {E} {SZ} --features {F}", 0, "2 clusters", None),
    # ---- blank lines in positional tables are errors (item 4)
    ("blank-labels-inside", {E: OK6, L: "a\nb\n\nc\nd\ne\nf\n"},
     f"cluster {E} {SZ} --labels {L}", 2, "y.txt:3: blank line inside a positional labels", None),
    ("blank-labels-names-flag", {E: OK6, L: "a\n\nb\n"}, f"cluster {E} {SZ} --labels {L}", 2,
     "node i + --index-base", None),
    ("blank-labels-trailing", {E: OK6, L: "0\n0\n0\n1\n1\n1\n\n\n"},
     f"cluster {E} {SZ} --labels {L}", 0, "ACC 1.0000", None),
    ("blank-labels-leading", {E: OK6, L: "\n0\n0\n0\n1\n1\n1\n"},
     f"cluster {E} {SZ} --labels {L}", 0, "ACC 1.0000", None),
    ("blank-labels-crlf", {E: OK6, L: "0\r\n0\r\n\r\n0\r\n1\r\n1\r\n1\r\n"},
     f"cluster {E} {SZ} --labels {L}", 2, "blank line inside", None),
    ("blank-labels-spaces", {E: OK6, L: "0\n0\n   \n0\n1\n1\n1\n"},
     f"cluster {E} {SZ} --labels {L}", 2, "blank line inside", None),
    ("blank-labels-with-ids", {E: OK6, L: "node,label\n0,a\n\n1,a\n2,a\n3,b\n4,b\n5,b\n"},
     f"cluster {E} {SZ} --labels {L}", 0, "ACC 1.0000", None),
    ("blank-features-inside", {E: OK6, F: "1,0\n1,0\n\n1,0\n0,1\n0,1\n0,1\n"},
     f"cluster {E} {SZ} --features {F}", 2, "x.csv:3: blank line inside a positional features",
     None),
    ("blank-features-with-ids", {E: OK6, F: "node,a\n0,1\n1,1\n\n2,1\n3,0\n4,0\n5,0\n"},
     f"cluster {E} {SZ} --features {F}", 0, "2 clusters", None),
    ("blank-features-trailing", {E: OK6, F: "1,0\n1,0\n1,0\n0,1\n0,1\n0,1\n\n"},
     f"cluster {E} {SZ} --features {F}", 0, "2 clusters", None),
    ("features-empty-field", {E: OK6, F: "1,,0\n1,2,0\n1,2,0\n0,1,1\n0,1,1\n0,1,1\n"},
     f"cluster {E} {SZ} --features {F}", 2, "x.csv:1: field 2 is empty", None),
    ("features-missing-trailing", {E: OK6, F: "1,0,\n1,2,0\n"},
     f"cluster {E} {SZ} --features {F}", 2, "field 3 is empty", None),
    ("features-short-row", {E: OK6, F: "1,0\n1\n1,0\n0,1\n0,1\n0,1\n"},
     f"cluster {E} {SZ} --features {F}", 2, "x.csv:2: has 1 fields", None),
    ("features-text", {E: OK6, F: "1,0\n1,x\n1,0\n0,1\n0,1\n0,1\n"},
     f"cluster {E} {SZ} --features {F}", 2, "feature 'x' is not a number", None),
    ("features-nan", {E: OK6, F: "1,0\n1,nan\n1,0\n0,1\n0,1\n0,1\n"},
     f"cluster {E} {SZ} --features {F}", 2, "NaN", None),
    ("features-too-few", {E: OK6, F: "1,0\n1,0\n"}, f"cluster {E} {SZ} --features {F}", 2,
     "has no feature row", None),
    ("features-dup-id", {E: OK6, F: "node,a\n0,1\n0,2\n1,1\n2,1\n3,1\n4,1\n5,1\n"},
     f"cluster {E} {SZ} --features {F}", 2, "more than one row", None),
    ("features-on-names", {E: "a b\nb c\n", F: "1\n2\n3\n"}, f"cluster {E} {SZ} --features {F}",
     2, "cannot be matched by position", None),
    ("features-ids-leading-zero", {E: "1 2\n2 3\n", F: "node,a\n01,1\n2,1\n3,0\n"},
     f"cluster {E} {SZ} --features {F}", 2, "has no feature row", None),
    ("labels-two-per-line", {E: OK6, L: "0 1\n0 1\n"}, f"cluster {E} {SZ} --labels {L}", 2,
     "labels: a node id occurs on more than one row", None),
    ("labels-ragged", {E: OK6, L: "0\n0 1 2\n"}, f"cluster {E} {SZ} --labels {L}", 2,
     "one label per line", None),
    ("labels-index-base-1", {E: "1 2 3\n2 3\n4 5 6\n5 6\n", L: "a\na\na\nb\nb\nb\n"},
     f"cluster {E} {SZ} --labels {L} --index-base 1", 0, "ACC 1.0000", None),
    ("labels-index-base-wrong", {E: "1 2 3\n2 3\n4 5 6\n5 6\n", L: "a\na\na\nb\nb\nb\n"},
     f"cluster {E} {SZ} --labels {L}", 2, "6 rows for 7 nodes; check --index-base", None),
    ("labels-empty-file", {E: OK6, L: ""}, f"cluster {E} {SZ} --labels {L}", 2, "no labels rows",
     None),
    ("labels-only-comments", {E: OK6, L: "# x\n# y\n"}, f"cluster {E} {SZ} --labels {L}", 2,
     "no labels rows", None),
    ("labels-missing-file", {E: OK6}, f"cluster {E} {SZ} --labels nope.txt", 2, "file not found",
     None),
    ("labels-dir", {E: OK6, "d": "DIR"}, f"cluster {E} {SZ} --labels d", 2, "directory", None),
    ("labels-one-class", {E: OK6, L: "0\n0\n0\n0\n0\n0\n"}, f"cluster {E} --labels {L}", 2,
     "the labels have 1 class", None),
    ("labels-none-for-k", {E: OK6}, f"cluster {E} --method spectral-zhou", 2,
     "--k is required: the input has no labels", None),
    ("labels-names-k", {E: OK6, L: "x\nx\nx\ny\ny\ny\n"},
     f"cluster {E} --method spectral-zhou --labels {L} --quiet", 0, "2 clusters", None),
    ("labels-npy", {E: OK6, "y.npy": "NPY:0,0,0,1,1,1"}, f"cluster {E} {SZ} --labels y.npy", 0,
     "ACC 1.0000", None),
    ("labels-npy-object", {E: OK6, "y.npy": "NPYOBJ"}, f"cluster {E} {SZ} --labels y.npy", 2,
     "object array", None),
    # ---- header detection never drops a hyperedge; CLI messages name CLI flags (item 5)
    ("header-alice-7", {E: "alice 7\n1 2\n2 7\n"}, f"cluster {E} {SZ} --out o.csv", 0, "4 rows",
     ["alice", "7", "1", "2"]),
    ("header-words", {E: "node_a node_b\n1 2\n2 3\n"}, f"info {E}", 0,
     "pass --no-header to keep it", None),
    ("header-words-kept", {E: "a b\n1 2\n2 3\n"}, f"info {E} --no-header", 0, "n_nodes=5", None),
    ("header-forced", {E: "src dst\n1 2\n2 3\n"}, f"info {E} --header", 0, "n_nodes=3", None),
    ("header-float-first", {E: "0.5 x\n1 2\n"}, f"info {E}", 0, "n_nodes=4", None),
    ("header-all-names", {E: "a b\nb c\n"}, f"info {E}", 0, "n_nodes=3", None),
    ("header-single-line", {E: "a b\n"}, f"info {E}", 0, "n_nodes=2", None),
    ("header-after-comment", {E: "# c\nu v\n1 2\n2 3\n"}, f"info {E}", 0, "e.txt:2: first line",
     None),
    ("header-on-dataset", {}, "cluster zoo --k 2 --no-header", 2, "apply to files", None),
    ("format-unknown", {"e.dat": "1 2\n"}, "info e.dat", 2, "--format one of", None),
    ("format-bad-name", {E: OK6}, f"info {E} --format nope", 2, "nope", None),
    # ---- degenerate inputs (item 6)
    ("signed-no-edges-zero-features",
     {E: "# hyperclust hyperedge list: n_nodes=6 index_base=0 weighted=false\n",
      F: "0,0\n" * 6}, f"cluster {E} --method spectral-signed --k 2 --features {F} --quiet", 2,
     "no hyperedge and the same features for every node", None),
    ("no-edges-no-features", {E: "# hyperclust hyperedge list: n_nodes=6 index_base=0 "
                                 "weighted=false\n"}, f"cluster {E} {SZ}", 2,
     "no hyperedge and no features", None),
    ("no-edges-features", {E: "# hyperclust hyperedge list: n_nodes=4 index_base=0 "
                              "weighted=false\n", F: "0,0\n0,0.1\n5,5\n5,5.1\n"},
     f"cluster {E} --method kmeans --k 2 --features {F} --out o.csv", 0, "4 rows", [0, 1, 2, 3]),
    ("empty-file", {E: ""}, f"cluster {E} {SZ}", 2, "holds no node (an empty file?)", None),
    ("only-comments", {E: "# a\n# b\n"}, f"cluster {E} {SZ}", 2, "holds no node", None),
    ("only-blank", {E: "\n\n  \n"}, f"cluster {E} {SZ}", 2, "holds no node", None),
    ("k-too-big", {E: "1 2\n"}, f"cluster {E} --method spectral-zhou --k 5", 2,
     "--k 5 is more than the 2 nodes", None),
    ("k-zero", {E: OK6}, f"cluster {E} --method spectral-zhou --k 0", 2, "positive", None),
    ("k-negative", {E: OK6}, f"cluster {E} --method spectral-zhou --k -3", 2, "positive", None),
    ("one-node", {E: "5\n"}, f"cluster {E} --method spectral-zhou --k 1 --out o.csv", 2,
     "needs --k < n_nodes", None),
    ("two-nodes", {E: "5 9\n"}, f"cluster {E} --method spectral-zhou --k 1 --out o.csv", 0,
     "2 rows", [5, 9]),
    ("drop-isolated-all", {E: "# hyperclust hyperedge list: n_nodes=3 index_base=0 weighted="
                              "false\n"}, f"cluster {E} {SZ} --drop-isolated", 2,
     "leaves no node", None),
    # ---- weights (item 10)
    ("hif-weights-1e308", {"h.json": _hif([1e308, 1e308])},
     f"cluster h.json {SZ}", 2, "weights sum to more than", None),
    ("hif-weights-1e200", {"h.json": _hif([1e200, 1.0])}, f"cluster h.json {SZ}", 2,
     "rescale the weights", None),
    ("hif-weights-big-ok", {"h.json": _hif([1e50, 1.0])}, f"cluster h.json {SZ} --out o.csv", 0,
     "4 rows", ["a", "b", "c", "d"]),
    ("hif-weight-null", {"h.json": _hif([None, 1.0])}, f"info h.json", 2, "not of type 'number'",
     None),
    ("hif-weight-inf", {"h.json": _hif([1.0, 1.0]).replace("1.0}]", "1e999}]")}, f"info h.json",
     2, "must be positive", None),
    ("hif-weight-zero", {"h.json": _hif([0.0, 1.0])}, f"info h.json", 2, "positive", None),
    ("hif-weight-negative", {"h.json": _hif([-2.0, 1.0])}, f"info h.json", 2, "positive", None),
    ("edgelist-weight-1e308", {E: "# hyperclust hyperedge list: weighted=true\na b 1e308\n"
                                  "b c 1e308\n"}, f"cluster {E} {SZ}", 2, "weights sum", None),
    ("edgelist-weight-inf", {E: "# hyperclust hyperedge list: weighted=true\na b inf\n"},
     f"info {E}", 2, "positive and finite", None),
    ("edgelist-weight-text", {E: "# hyperclust hyperedge list: weighted=true\na b x\n"},
     f"info {E}", 2, "weight 'x' is not a number", None),
    ("edgelist-weight-alone", {E: "# hyperclust hyperedge list: weighted=true\n3\n"},
     f"info {E}", 2, "at least one node id and a weight", None),
    ("hif-names-column", {"h.json": _hif(names=["Ann", "Bob", "Cy", "Di"])},
     f"cluster h.json {SZ} --out o.csv", 0, "4 rows", ["a", "b", "c", "d"]),
    # ---- messages (item 13)
    ("data-env-missing", {}, "cluster zoo --k 2 ENV:HYPERCLUST_DATA=/nonexistent/x", 2,
     "$HYPERCLUST_DATA=/nonexistent/x is not a folder", None),
    ("data-dir-missing", {}, "cluster zoo --k 2 --data-dir /nonexistent/x", 2,
     "--data-dir /nonexistent/x is not a folder", None),
    ("hgx-null-member", {"x.json": _hgx([[1, None]])}, "info x.json", 2,
     "member id None is not an integer or a string", None),
    ("hgx-float-member", {"x.json": _hgx([[1, 2.5]])}, "info x.json", 2,
     "not an integer or a string", None),
    ("hgx-list-member", {"x.json": _hgx([[1, [2]]])}, "info x.json", 2,
     "not an integer or a string", None),
    ("hgx-bool-member", {"x.json": _hgx([[1, True]])}, "info x.json", 2,
     "not an integer or a string", None),
    ("hgx-mixed-ok", {"x.json": _hgx([[1, "a"], ["a", 2]])}, f"cluster x.json {SZ} --out o.csv",
     0, "3 rows", [1, 2, "a"]),
    ("hgx-weight-text", {"x.json": json.dumps([{"hypergraph_type": "Hypergraph"},
                                               {"type": "edge", "interaction": [1, 2],
                                                "weight": "heavy"}])}, "info x.json", 2,
     "edge weight 'heavy' is not a number", None),
    ("hgx-not-list", {"x.json": '{"hypergraph_type": "Hypergraph"}'}, "info x.json", 2,
     "not valid HIF", None),
    ("seed-negative", {E: OK6}, f"cluster {E} {SZ} --seed -1", 2,
     "--seed must be between 0 and 4294967295", None),
    ("seed-huge", {E: OK6}, f"cluster {E} {SZ} --seed 4294967296", 2, "--seed must be between",
     None),
    ("seed-embed", {E: OK6}, f"embed {E} --out z.npy --seed -2", 2, "--seed must be between",
     None),
    ("bench-device", {}, "bench --datasets zoo --methods kmeans --device gpu --out b", 2,
     "hyperclust: error: unknown device 'gpu'", None),
    ("bench-data-dir", {}, "bench --datasets zoo --methods kmeans --data-dir nope --out b", 2,
     "hyperclust: error: data directory not found: --data-dir nope is not a folder", None),
    ("bench-no-datasets", {}, "bench --methods kmeans --out b", 2,
     "hyperclust: error: give --datasets", None),
    ("bench-report-empty", {"b": "DIR"}, "bench --out b --report-only --published none.csv", 2,
     "hyperclust: error: no runs", None),
    ("method-unknown", {E: OK6}, f"cluster {E} --method nope --k 2", 2, "unknown method", None),
    ("device-unknown", {E: OK6}, f"cluster {E} {SZ} --device tpu", 2, "unknown device", None),
    # ---- input size and binary inputs (item 9)
    ("pickle-bomb", {"h/hypergraph.pickle": PICKLE_BOMB,
                     "h/labels.pickle": pickle.dumps(list(range(3)))}, "info h", 2,
     "shared references expand to", None),
    ("pickle-bomb-format", {"h/hypergraph.pickle": PICKLE_BOMB}, "info h --format hypergcn", 2,
     "expand to", None),
    ("pickle-ok", _cora_like, f"cluster h {SZ} --out o.csv", 0, "4 rows", [0, 1, 2, 3]),
    ("pickle-self-holding", {"h/hypergraph.pickle": b"\x80\x04]\x94h\x00a.",
                             "h/labels.pickle": pickle.dumps([0])}, "info h", 2,
     "a container holds itself", None),
    ("pickle-evil", {"h/hypergraph.pickle": b"cos\nsystem\n(S'echo hi'\ntR.",
                     "h/labels.pickle": pickle.dumps([0])}, "info h", 2, "refused", None),
    ("sparse-file", {E: ("SPARSE", 200 << 20)}, f"info {E}", 2, "NUL bytes", None),
    ("nul-in-text", {E: "1 2\n3\x004\n"}, f"info {E}", 2, "e.txt:2: holds NUL bytes", None),
    ("nul-in-labels", {E: OK6, L: "0\n\x00\n"}, f"cluster {E} {SZ} --labels {L}", 2,
     "NUL bytes", None),
    ("long-line", {E: "1 " * (9 << 20)}, f"info {E}", 2, "longer than 16 MiB", None),
    ("not-utf8", {E: b"1 2\n\xff\xfe 3\n"}, f"info {E}", 2, "e.txt:2: not UTF-8", None),
    ("latin1-labels", {E: OK6, L: b"caf\xe9\n"}, f"cluster {E} {SZ} --labels {L}", 2,
     "not UTF-8", None),
    # ---- text layout variants keep content
    ("bom", {E: "\ufeffa,b\nb,c\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["a", "b", "c"]),
    ("bom-ints", {E: "\ufeff1,2\n2,3\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows", [1, 2, 3]),
    ("crlf", {E: "1 2\r\n2 3\r\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows", [1, 2, 3]),
    ("cr-only", {E: "1 2\r2 3\r"}, f"info {E}", 0, "n_edges=2", None),
    ("mixed-separators", {E: "a, b\tc\nc ,d\n"}, f"cluster {E} {SZ} --out o.csv", 0, "4 rows",
     ["a", "b", "c", "d"]),
    ("trailing-commas", {E: "1,2,\n2,3,,\n"}, f"info {E}", 0, "n_nodes=3", None),
    ("indented-comment", {E: "  # c\n1 2\n"}, f"info {E}", 0, "n_nodes=2", None),
    ("no-final-newline", {E: "1 2\n2 3"}, f"info {E}", 0, "n_edges=2", None),
    ("bom-labels", {E: OK6, L: "\ufeff0\n0\n0\n1\n1\n1\n"}, f"cluster {E} {SZ} --labels {L}", 0,
     "ACC 1.0000", None),
    ("crlf-features", {E: OK6, F: "node,a\r\n0,1\r\n1,1\r\n2,1\r\n3,0\r\n4,0\r\n5,0\r\n"},
     f"cluster {E} {SZ} --features {F}", 0, "2 clusters", None),
    # ---- paths and targets
    ("target-missing", {}, "cluster nope/e.txt --k 2", 2, "no such file", None),
    ("target-missing-suffix", {}, "cluster e.txt --k 2", 2, "no such file", None),
    ("target-empty-dir", {"d": "DIR"}, "info d", 2, "unrecognised dataset directory", None),
    ("target-fifo", {"p.txt": "FIFO"}, "info p.txt", 2, "p.txt is not a regular file", None),
    ("labels-fifo", {E: OK6, "y.txt": "FIFO"}, f"cluster {E} {SZ} --labels y.txt", 2,
     "--labels y.txt is not a regular file", None),
    ("features-socket", {E: OK6, F: "SOCKET"}, f"cluster {E} {SZ} --features {F}", 2,
     "--features x.csv is not a regular file", None),
    ("dataset-unknown", {}, "cluster zooo --k 2", 2, "unknown dataset", None),
    ("positional-header-leading-zero", {E: "# hyperclust hyperedge list: n_nodes=3 index_base=0"
                                           " weighted=false\n0 01\n1 2\n"}, f"info {E}", 2,
     "not a plain integer position", None),
    ("positional-header-range", {E: "# hyperclust hyperedge list: n_nodes=2 index_base=0 "
                                    "weighted=false\n0 5\n"}, f"info {E}", 2, "outside [0, 1]",
     None),
    ("positional-header-bad", {E: "# hyperclust hyperedge list: n_nodes=x\n0 1\n"}, f"info {E}",
     2, "malformed header", None),
    ("positional-header-isolated", {E: "# hyperclust hyperedge list: n_nodes=4 index_base=0 "
                                       "weighted=false\n0 1\n1 2\n"},
     f"cluster {E} {SZ} --out o.csv", 0, "4 rows", [0, 1, 2, 3]),
    ("benson-folder", BENSON, f"cluster b {SZ} --out o.csv", 0, "6 rows", [1, 2, 3, 4, 5, 6]),
    # ---- more id spellings: nothing merges, nothing is renumbered
    ("ids-neg-leading-zero", {E: "-07 -7\n-7 1\n"}, f"cluster {E} {SZ} --out o.csv", 0,
     "3 rows", ["-07", "-7", "1"]),
    ("ids-arabic-digits", {E: "\u0663 3\n3 4\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["\u0663", "3", "4"]),
    ("ids-fullwidth-digits", {E: "\uff17 7\n7 8\n"}, f"cluster {E} {SZ} --out o.csv", 0,
     "3 rows", ["\uff17", "7", "8"]),
    ("ids-name-and-ints", {E: "1 a\n1 2\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["1", "a", "2"]),
    ("ids-zero-padded-all", {E: "01 02\n02 03\n"}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["01", "02", "03"]),
    ("ids-long-name", {E: ("x" * 100000) + " y\ny z\n"}, f"info {E}", 0, "n_nodes=3", None),
    ("ids-int64-min", {E: "-9223372036854775808 0\n0 1\n"}, f"cluster {E} {SZ} --out o.csv",
     0, "3 rows", [-9223372036854775808, 0, 1]),
    ("ids-int64-overflow-neg", {E: "-9223372036854775809 0\n0 1\n"},
     f"cluster {E} {SZ} --out o.csv", 0, "3 rows", ["-9223372036854775809", "0", "1"]),
    ("ids-comment-after", {E: "1 2 # not a comment\n2 3\n"}, f"info {E}", 0, "n_nodes=7",
     None),
    ("ids-quoted-hash", {E: '"#1" 2\n2 3\n'}, f"cluster {E} {SZ} --out o.csv", 0, "3 rows",
     ["#1", "2", "3"]),
    ("ids-separators-only", {E: ",,,\n , \n"}, f"cluster {E} {SZ}", 2, "holds no node", None),
    ("ids-single-singleton", {E: "a\n"}, f"cluster {E} --method spectral-zhou --k 2", 2,
     "--k 2 is more than the 1 nodes", None),
    # ---- more table cases
    ("labels-names-ids", {E: "ana bo\nbo cy\ncy di\n", L: "node,label\nana,x\nbo,x\ncy,y\n"
                                                         "di,y\n"},
     f"cluster {E} {SZ} --labels {L}", 0, "ACC", None),
    ("labels-unknown-ids", {E: OK6, L: "node,label\n0,a\n1,a\n2,a\n3,b\n4,b\n5,b\n99,b\n"},
     f"cluster {E} {SZ} --labels {L} --out o.csv", 0, "in no hyperedge",
     [0, 1, 2, 3, 4, 5, 99]),
    ("labels-id-header", {E: OK6, L: "id,label\n5,b\n4,b\n3,b\n2,a\n1,a\n0,a\n"},
     f"cluster {E} {SZ} --labels {L}", 0, "ACC 1.0000", None),
    ("labels-utf16", {E: OK6, L: "0\n1\n".encode("utf-16")}, f"cluster {E} {SZ} --labels {L}",
     2, "y.txt:1: UTF-16 text, not UTF-8: save it as UTF-8", None),
    ("features-header-only", {E: OK6, F: "node,a,b\n"}, f"cluster {E} {SZ} --features {F}", 2,
     "no features rows after the header", None),
    ("features-inf", {E: OK6, F: "1,0\n1,inf\n1,0\n0,1\n0,1\n0,1\n"},
     f"cluster {E} {SZ} --features {F}", 2, "NaN/inf", None),
    ("features-npy-rows", {E: OK6, "x.npy": "NPY:1,2,3"}, f"cluster {E} {SZ} --features x.npy",
     2, "has no feature row", None),
    ("features-twice", {"h.json": _hif(), F: "1\n"},
     f"cluster h.json {SZ} --features {F} --labels {F}", 2, "cannot be matched by position",
     None),
    ("features-gzip", {E: OK6, F: b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"},
     f"cluster {E} {SZ} --features {F}", 2, "x.csv:1: holds NUL bytes", None),
    # ---- more structured formats
    ("hif-no-incidences", {"h.json": '{"nodes": []}'}, "info h.json", 2, "not valid HIF", None),
    ("hif-empty", {"h.json": '{"incidences": []}'}, f"cluster h.json {SZ}", 2, "holds no node",
     None),
    ("hif-bad-json", {"h.json": '{"incidences": [}'}, "info h.json", 2, "invalid JSON", None),
    ("hif-null-node", {"h.json": '{"incidences": [{"edge": "e", "node": null}]}'}, "info h.json",
     2, "not valid HIF", None),
    ("hgx-directed", {"x.json": '[{"hypergraph_type": "DirectedHypergraph"}]'}, "info x.json", 2,
     "is not supported", None),
    ("hgx-null-idx", {"x.json": json.dumps([{"hypergraph_type": "Hypergraph"},
                                            {"type": "node", "idx": None}])}, "info x.json", 2,
     "node id None", None),
    ("hgx-leading-zero-strings", {"x.json": _hgx([["7", "007"], ["007", "8"]])},
     f"cluster x.json {SZ} --out o.csv", 0, "3 rows", ["007", "7", "8"]),
    ("le-huge-ids", {"g/g.content": "9007199254740993 0.5 1\n9007199254740992 0.1 2\n",
                     "g/g.edges": "9007199254740993 2\n9007199254740992 2\n"}, "info g", 2,
     "beyond 2^53", None),
    ("edgelist-weight-zero", {E: "# hyperclust hyperedge list: weighted=true\na b 0\n"},
     f"info {E}", 2, "positive and finite", None),
    ("gzip-edgelist", {E: b"\x1f\x8b\x08\x00\xff\xfe\x00"}, f"info {E}", 2, "NUL bytes", None),
    ("sparse-small", {E: ("SPARSE", 1 << 20)}, f"info {E}", 2, "NUL bytes", None),
    # ---- a .tsv splits on tabs only; --sep is the edge list's alone (issue 50 items 3, 9)
    ("tsv-spaces-in-ids", {"e.tsv": "New York\tBoston\nBoston\tOslo\n"},
     f"cluster e.tsv {SZ} --out o.csv", 0, "3 rows", ["New York", "Boston", "Oslo"]),
    ("tsv-commas-in-ids", {"e.tsv": '"Smith, John"\tBo\nBo\tCy, Jr\n'},
     f"cluster e.tsv {SZ} --out o.csv", 0, "3 rows", ["Smith, John", "Bo", "Cy, Jr"]),
    ("tsv-labels-spaces", {E: OK6, "y.tsv": "node\tlabel\n0\tNew York\n1\tNew York\n"
                                            "2\tNew York\n3\tOslo\n4\tOslo\n5\tOslo\n"},
     f"cluster {E} {SZ} --labels y.tsv", 0, "ACC 1.0000", None),
    ("sep-not-for-tables", {E: "a;b;c\nc;d\nd;e;f\n", "l.csv": "node,label\na,x\nb,x\n"
                                                                  "c,x\nd,y\ne,y\nf,y\n"},
     f"cluster {E} {SZ} --sep ; --labels l.csv", 0, "ACC 1.0000", None),
    # ---- labels say what they cover, positional ones cover every node (issue 50 item 4)
    ("labels-subset-said", {E: OK6, L: "node,label\n0,a\n4,b\n"},
     f"cluster {E} {SZ} --labels {L}", 0, "ACC 1.0000  NMI 1.0000  ARI 1.0000  F1 1.0000  "
     "(on the 2 of 6 nodes with a label)", None),
    ("labels-positional-short", {E: OK6, L: "a\na\nb\n"}, f"cluster {E} {SZ} --labels {L}", 2,
     "node 3 has no label: a positional labels table needs one row per node (3 rows for 6",
     None),
    ("edges-utf16", {E: "a b\nb c\n".encode("utf-16")}, f"info {E}", 2,
     "e.txt:1: UTF-16 text, not UTF-8", None),
    ("edges-utf16-no-mark", {E: "a b\nb c\n".encode("utf-16-le")}, f"info {E}", 2,
     "UTF-16 text, not UTF-8", None),
    ("hif-utf16", {"h.json": _hif().encode("utf-16")}, "info h.json", 2,
     "h.json:1: UTF-16 text, not UTF-8", None),
    ("features-no-columns", {E: OK6, "x.npy": ("ARRAY", np.zeros((6, 0)))},
     f"cluster {E} --method kmeans --k 2 --features x.npy", 2, "x.npy: no feature columns",
     None),
    ("cache-not-a-folder", {"c": "x\n"}, "cluster zoo --method kmeans --k 2 ENV:HYPERCLUST_CACHE=c",
     2, "hyperclust: error: the download cache $HYPERCLUST_CACHE=c is not a folder", None),
    ("bench-out-file", {"b": "x\n"}, "bench --datasets zoo --methods kmeans --out b", 2,
     "hyperclust: error: --out b is a file; bench writes a folder", None),
    ("method-upper-case", {E: OK6}, f"cluster {E} --method SPECTRAL-ZHOU --k 2 --quiet --out o.csv",
     0, "spectral-zhou on", [0, 1, 2, 3, 4, 5]),
    ("method-did-you-mean", {E: OK6}, f"cluster {E} --method spectral-zou --k 2", 2,
     "unknown method 'spectral-zou' (did you mean spectral-zhou?)", None),
    # ---- duplicate hyperedges: merged as by every reader and converter, and said (item 7)
    ("dup-merged-said", {E: "0 1\n1 0\n1 2\n2 3\n"}, f"cluster {E} {SZ} --out o.csv", 0,
     "hyperclust: warning: 1 duplicate hyperedge merged into the first with the same members "
     "(weights summed): 3 hyperedges remain", [0, 1, 2, 3]),
    ("dup-info", {E: "0 1\n1 0\n1 2\n"}, f"info {E}", 0, "duplicate_policy            merge",
     None),
    # ---- outputs and feature types said, not dropped (issue 50 item 5)
    ("out-empty-name", {E: OK6}, f"cluster {E} {SZ} --out ''", 2, "--out needs a file name",
     None),
    ("plot-empty-name", {E: OK6}, f"cluster {E} {SZ} --plot ''", 2, "--plot needs a file name",
     None),
    ("features-complex", {E: OK6, "x.npy": ("ARRAY", np.array([[1 + 1j], [1], [1], [0], [0],
                                                               [0]]))},
     f"cluster {E} {SZ} --features x.npy", 2, "features are complex numbers", None),
    ("features-bool", {E: OK6, "x.npy": ("ARRAY", np.array([[1], [1], [1], [0], [0], [0]],
                                                           dtype=bool))},
     f"cluster {E} --method kmeans --k 2 --quiet --features x.npy --out o.csv", 0, "6 rows",
     [0, 1, 2, 3, 4, 5]),
]


def _make(root, name, content):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if content == "DIR":
        path.mkdir()
    elif content == "FIFO":
        os.mkfifo(path)
    elif content == "SOCKET":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif content == "DEVICE":
        try:
            os.mknod(path, 0o600 | 0o020000, os.makedev(1, 7))
        except (PermissionError, OSError):
            pytest.skip("mknod is not allowed here")
    elif isinstance(content, tuple) and content[0] == "LINK":
        os.symlink(content[1], path)
    elif isinstance(content, tuple) and content[0] == "SPARSE":
        with open(path, "wb") as fh:
            fh.truncate(content[1])
    elif isinstance(content, str) and content.startswith("NPY:"):
        np.save(path, np.array([int(v) for v in content[4:].split(",")]))
    elif isinstance(content, tuple) and content[0] == "ARRAY":
        np.save(path, content[1])
    elif content == "NPYOBJ":
        np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def _node_column(path):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:2] == ["node", "cluster"]
    return [row[0] for row in rows[1:]]


@pytest.mark.parametrize("case, files, command, status, message, ids", CASES,
                         ids=[c[0] for c in CASES])
def test_hostile_case(case, files, command, status, message, ids, tmp_path, monkeypatch,
                      capsys):
    for name, content in files.items():
        _make(tmp_path, name, content)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYPERCLUST_DATA", raising=False)
    argv = []
    for arg in shlex.split(command):
        if arg.startswith("ENV:"):
            key, _, value = arg[4:].partition("=")
            monkeypatch.setenv(key, value)
        else:
            argv.append(arg)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()
              and p.stat().st_size < 1 << 20}
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == status, (out, err)
    assert message in out + err, (out, err)
    if status != 0:  # the error line, after warnings only (no note before every error)
        lines = err.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith("hyperclust: error: "))
        assert all(line.startswith("hyperclust: warning: ") for line in lines[:first]), err
        for p, data in before.items():  # nothing the command read or refused changed
            assert p.read_bytes() == data, p
    if ids is not None:
        out_file = tmp_path / argv[argv.index("--out") + 1]
        assert _node_column(out_file) == [str(i) for i in ids]


def test_the_suite_is_large_and_names_every_case_once():
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names)) >= 200
