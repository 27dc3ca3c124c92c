"""The dataset registry, loading every dataset of the collection, checksums and downloads."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading

import numpy as np
import pytest

from hyperclust.datasets import (ChecksumError, DownloadError, LabelLeakWarning, dataset_info,
                                 list_datasets, load_dataset)
from hyperclust.datasets.download import download_file, sha256sum
from hyperclust.datasets.registry import DATASETS, get_spec
from hyperclust.io.formats import FORMATS

HSBM = [f"hsbm-{k}-{h}" for k in ("node", "edge") for h in ("0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9")]

# The README table of the collection: nodes, hyperedges raw / unique (size >= 2), classes,
# feature dimension (None = no features).
README = {
    "cora-ca": (2708, 1072, 970, 7, 1433),
    "cora-cc": (2708, 1579, 1483, 7, 1433),
    "citeseer-cc": (3312, 1079, 1004, 6, 3703),
    "pubmed-cc": (19717, 7963, 7531, 3, None),
    "pubmed-cc-tricl": (3840, 7963, 7531, 3, 500),
    "dblp-ca": (41302, 22363, 20865, 6, None),
    "zoo": (101, 43, 40, 7, 16),
    "mushroom": (8124, 298, 287, 2, 22),
    "20newsw100": (16242, 100, 100, 4, 100),
    "senate-committees": (282, 315, 302, 2, None),
    "house-committees": (1290, 341, 335, 2, None),
    "congress-bills": (1718, 84799, 83105, 2, None),
    "walmart-trips": (88860, 69906, 65979, 11, None),
    "mathoverflow-answers": (73851, 5446, 5445, 641, None),
    "contact-high-school-classes": (327, 7818, 7818, 9, None),
    "actor": (16255, 10164, 10091, 3, None),
    "amazon-ratings": (22299, 2090, 1828, 5, None),
    "pokec": (14998, 2406, 2051, 2, None),
}
# The README counts a hyperedge listing a member twice ("1,2,2") as different from "1,2";
# hyperclust collapses repeated members first, so these two have fewer unique member sets
# (each has repeated members, asserted below).
UNIQUE_SETS = {"senate-committees": 301, "actor": 9940}
# Format F graphs: nodes, undirected edges, closed neighbourhoods after duplicates dropped,
# feature dimension (README table of the collection; 5 classes each, no isolated node).
GRAPHS = {"wisconsin": (251, 450, 248, 1703), "cornell": (183, 277, 181, 1703),
          "chameleon_filtered": (890, 8854, 837, 2325),
          "squirrel_filtered": (2223, 46998, 2208, 2089)}


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No test reads the user's cache or environment."""
    monkeypatch.delenv("HYPERCLUST_DATA", raising=False)
    monkeypatch.delenv("HYPERCLUST_BASE_URL", raising=False)
    monkeypatch.setenv("HYPERCLUST_CACHE", str(tmp_path / "default-cache"))


# ------------------------------------------------------------------ registry
def test_registry_covers_the_collection():
    assert set(README) | {"mag-10"} | set(HSBM) | set(GRAPHS) == set(DATASETS)
    for spec in DATASETS.values():
        assert spec.files and all(len(f.sha256) == 64 for f in spec.files)
        for f in spec.files:
            if f.required:
                assert f.url.startswith("https://raw.githubusercontent.com/"), f
            int(f.sha256, 16)
        assert spec.format in FORMATS


def test_unknown_name_suggests_close_matches():
    with pytest.raises(ValueError, match="did you mean walmart-trips"):
        load_dataset("walmart-trip")
    with pytest.raises(ValueError, match="unknown dataset"):
        get_spec("nothing-like-it-xyz")
    assert get_spec("ZOO").name == "zoo"


def test_dataset_info_and_list(shared_data, tmp_path):
    info = dataset_info("cora-cc")
    assert info["format"] == "hypergcn" and info["has_features"] and info["n_nodes"] == 2708
    assert {f["name"] for f in info["files"]} == {"hypergraph.pickle", "labels.pickle", "features.pickle"}
    rows = list_datasets(data_dir=shared_data)
    assert [r["name"] for r in rows] == list(DATASETS)
    assert [r["available"] for r in rows] == [
        (shared_data / get_spec(r["name"]).folder).is_dir() for r in rows]
    assert set(rows[0]) >= {"name", "n_nodes", "n_edges", "n_classes", "features", "format", "available"}
    assert not any(r["available"] for r in list_datasets(data_dir=tmp_path / "empty",
                                                         cache_dir=tmp_path / "empty-cache"))


# ------------------------------------------------------------------ every dataset vs the README
def _need(shared_data, name):
    folder = shared_data / get_spec(name).folder
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent from the benchmark collection")
    return folder


def _unique_size2(hg):
    return int((hg.edge_sizes >= 2).sum())


@pytest.mark.parametrize("name", list(README))
def test_load_matches_readme(shared_data, name):
    n, raw, unique, k, d = README[name]
    _need(shared_data, name)
    hg = load_dataset(name, data_dir=shared_data, download=False)
    assert hg.n_nodes == n and hg.name == name
    assert hg.cleaning.extra["raw_edges"] == raw
    if name in UNIQUE_SETS:
        assert hg.cleaning.repeated_members_collapsed > 0
        assert _unique_size2(hg) == UNIQUE_SETS[name] < unique
    else:
        assert _unique_size2(hg) == unique
    assert hg.labels.shape == (n,) and hg.n_classes == k
    assert hg.labels.min() == 0 and hg.labels.max() == k - 1
    if d is None:
        assert hg.features is None
    else:
        assert hg.features.shape == (n, d)
    spec = get_spec(name)
    assert (hg.n_edges, hg.isolated.sum(), spec.n_features) == (spec.n_edges, spec.isolated_nodes, d)


@pytest.mark.parametrize("name", HSBM)
def test_load_hsbm(shared_data, name):
    _need(shared_data, name)
    hg = load_dataset(name, data_dir=shared_data, download=False)
    assert hg.n_nodes == 10000 and hg.n_classes == 2
    assert np.all(hg.edge_sizes == 3) and hg.n_edges == get_spec(name).n_edges
    assert np.bincount(hg.labels).tolist() == [5000, 5000]


def _closed_neighbourhoods(edges, n):
    """Dense reference: the distinct rows of (A + I) over the nodes with a neighbour."""
    A = np.zeros((n, n), dtype=bool)
    A[edges[:, 0], edges[:, 1]] = A[edges[:, 1], edges[:, 0]] = True
    np.fill_diagonal(A, False)
    rows = (A | np.eye(n, dtype=bool))[A.any(axis=1)]
    return {tuple(np.flatnonzero(r)) for r in rows}


def _edge_sets(hg):
    return [tuple(e.tolist()) for e in hg.edges()]


def test_graph_npz_hand_made(tmp_path):
    from hyperclust.io.graph_npz import read_graph_npz

    # triangle 0-1-2 (all three closed neighbourhoods equal), 2-3 twice (both directions),
    # a self-loop on 4 (then isolated), 5 isolated, 6-7 a pair (the same neighbourhood twice)
    edges = np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 2], [4, 4], [6, 7]])
    path = tmp_path / "toy.npz"
    np.savez(path, edges=edges, node_labels=np.array([3, 3, 3, 9, 9, 3, 9, 9]),
             node_features=np.eye(8, dtype=np.float32), train_masks=np.ones((2, 8), bool))
    hg = read_graph_npz(path)
    assert sorted(_edge_sets(hg)) == [(0, 1, 2), (0, 1, 2, 3), (2, 3), (6, 7)]
    assert np.all(hg.weights == 1) and hg.cleaning.extra["raw_edges"] == 6
    assert hg.isolated.tolist() == [False] * 4 + [True, True, False, False]
    assert hg.labels.tolist() == [0, 0, 0, 1, 1, 0, 1, 1] and hg.features.nnz == 8
    graph = read_graph_npz(path, hyperedges="edges")
    assert sorted(_edge_sets(graph)) == [(0, 1), (0, 2), (1, 2), (2, 3), (6, 7)]
    merged = read_graph_npz(path, duplicates="merge")
    assert sorted(merged.weights.tolist()) == [1, 1, 2, 2]  # {0,1,2} and {6,7} twice


def test_graph_npz_matches_dense_reference(tmp_path):
    from hyperclust.io.graph_npz import read_graph_npz

    rng = np.random.default_rng(0)
    for trial in range(5):
        n = 30
        edges = rng.integers(0, n, size=(40, 2))
        path = tmp_path / f"g{trial}.npz"
        np.savez(path, edges=edges, node_labels=rng.integers(0, 3, n))
        hg = read_graph_npz(path)
        assert sorted(_edge_sets(hg)) == sorted(_closed_neighbourhoods(edges, n))
        assert hg.n_nodes == n and hg.features is None


def test_graph_npz_bad_input_is_one_line(tmp_path):
    from hyperclust.io import DataFormatError
    from hyperclust.io.graph_npz import read_graph_npz

    path = tmp_path / "bad.npz"
    np.savez(path, edges=np.array([[0, 5]]), node_labels=np.array([0, 1]))
    with pytest.raises(DataFormatError, match=r"outside \[0, 1\]"):
        read_graph_npz(path)
    np.savez(path, node_labels=np.array([0, 1]))
    with pytest.raises(DataFormatError, match="no 'edges'"):
        read_graph_npz(path)
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(DataFormatError, match="not a readable"):
        read_graph_npz(tmp_path / "text.npz")
    with pytest.raises(ValueError, match="hyperedges must be one of"):
        read_graph_npz(path, hyperedges="cliques")


@pytest.mark.parametrize("name", list(GRAPHS))
def test_load_heterophilous_graphs(shared_data, name):
    n, n_graph_edges, m, d = GRAPHS[name]
    folder = _need(shared_data, name)
    spec = get_spec(name)
    assert sha256sum(folder / spec.files[0].name) == spec.files[0].sha256
    listed = (shared_data / "SHA256SUMS").read_text()
    assert f"{spec.files[0].sha256}  ./heterophilous-graphs/{name}.npz" in listed
    hg = load_dataset(name, data_dir=shared_data, download=False)
    assert (hg.n_nodes, hg.n_edges, hg.features.shape, hg.n_classes) == (n, m, (n, d), 5)
    assert hg.cleaning.extra["graph_edges"] == n_graph_edges and not hg.isolated.any()
    assert (spec.n_nodes, spec.n_edges, spec.n_features) == (n, m, d)
    edges = np.load(folder / spec.files[0].name)["edges"]
    if n <= 1000:  # the dense reference
        assert set(_edge_sets(hg)) == _closed_neighbourhoods(edges, n)
    graph = load_dataset(name, data_dir=shared_data, download=False, hyperedges="edges")
    assert graph.n_edges == n_graph_edges and np.all(graph.edge_sizes == 2)


def test_load_mag10(shared_data):
    _need(shared_data, "mag-10")
    hg = load_dataset("mag-10", data_dir=shared_data, download=False)
    assert (hg.n_nodes, int((~hg.isolated).sum()), hg.n_edges) == (80729, 80198, 51889)
    assert hg.labels is None and hg.features is None
    assert hg.cleaning.extra["corrupt_edge_label_lines"] == [40706]


def test_pubmed_tricl_is_the_covered_part_of_pubmed(shared_data):
    _need(shared_data, "pubmed-cc")
    if not (_need(shared_data, "pubmed-cc-tricl") / "tricl_to_hypergcn_node_ids.npy").is_file():
        pytest.skip("tricl_to_hypergcn_node_ids.npy is absent")
    full = load_dataset("pubmed-cc", data_dir=shared_data)
    part = load_dataset("pubmed-cc-tricl", data_dir=shared_data)
    ids = part.parent_positions
    assert np.array_equal(np.sort(ids), np.flatnonzero(~full.isolated))
    assert np.array_equal(full.labels[ids], part.labels)
    mapped = sorted(tuple(sorted(ids[e].tolist())) for e in part.edges())
    assert mapped == sorted(tuple(e.tolist()) for e in full.edges())


def test_hypergraphx_copy_matches_benson_files(shared_data):
    from hyperclust.io import read_hypergraph

    folder = _need(shared_data, "contact-high-school-classes")
    if not (folder / "hs.hypergraphx.json").is_file():
        pytest.skip("hs.hypergraphx.json is absent")
    hx = read_hypergraph(folder / "hs.hypergraphx.json")
    hc = load_dataset("contact-high-school-classes", data_dir=shared_data)
    assert hx.shape == hc.shape
    assert sorted(hx.edge_sizes.tolist()) == sorted(hc.edge_sizes.tolist())
    assert hx.weights.sum() > hx.n_edges  # contact counts as weights
    names_c = hc.cleaning.extra["class_names"]
    assert set(names_c) == set(hx.cleaning.extra["class_names"])
    counts_c = dict(zip(names_c, np.bincount(hc.labels)))
    counts_x = dict(zip(hx.cleaning.extra["class_names"], np.bincount(hx.labels)))
    # the two public copies disagree on the class of one student
    assert sum(abs(counts_c[c] - counts_x[c]) for c in counts_c) <= 2


# ------------------------------------------------------------------ local resolution and checksums
def _copy(shared_data, name, dest):
    src = _need(shared_data, name)
    dest.mkdir(parents=True, exist_ok=True)
    for f in get_spec(name).files:
        if (src / f.name).exists():
            shutil.copy(src / f.name, dest / f.name)
    return dest


def _tamper(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))


def test_local_checksum_mismatch_names_file_and_hashes(shared_data, tmp_path):
    folder = _copy(shared_data, "zoo", tmp_path / "root" / "zoo")
    _tamper(folder / "zoo.edges")
    with pytest.raises(ChecksumError) as info:
        load_dataset("zoo", data_dir=tmp_path / "root", download=False)
    msg = str(info.value)
    assert "zoo.edges" in msg and get_spec("zoo").files[1].sha256 in msg
    assert sha256sum(folder / "zoo.edges") in msg
    assert isinstance(info.value, ValueError)


def test_resolution_order(shared_data, tmp_path, monkeypatch):
    good = _copy(shared_data, "zoo", tmp_path / "good" / "zoo")
    bad = _copy(shared_data, "zoo", tmp_path / "bad" / "zoo")
    _tamper(bad / "zoo.content")
    monkeypatch.setenv("HYPERCLUST_DATA", str(tmp_path / "bad"))
    # data_dir (the dataset folder itself) wins over $HYPERCLUST_DATA
    assert load_dataset("zoo", data_dir=good, download=False).n_nodes == 101
    with pytest.raises(ChecksumError, match="bad"):
        load_dataset("zoo", download=False)
    monkeypatch.setenv("HYPERCLUST_DATA", str(tmp_path / "nothing"))
    with pytest.raises(FileNotFoundError, match="not found locally"):
        load_dataset("zoo", cache_dir=tmp_path / "cache", download=False)
    # then the cache
    _copy(shared_data, "zoo", tmp_path / "cache" / "zoo")
    assert load_dataset("zoo", cache_dir=tmp_path / "cache", download=False).n_edges == 41


def test_leak_labels_is_explicit_and_warns(shared_data):
    _need(shared_data, "senate-committees")
    hg = load_dataset("senate-committees", data_dir=shared_data)
    assert hg.features is None
    with pytest.warns(LabelLeakWarning, match="LEAK"):
        leaky = load_dataset("senate-committees", data_dir=shared_data,
                             leak_labels_as_features=True, leak_noise_std=0.0)
    assert leaky.features.shape == (282, 2)
    assert np.array_equal(leaky.features.argmax(axis=1), leaky.labels)
    with pytest.raises(TypeError):
        load_dataset("senate-committees", data_dir=shared_data, label_features=True)


def test_options_pass_through(shared_data):
    _need(shared_data, "zoo")
    hg = load_dataset("zoo", data_dir=shared_data, duplicates="keep", singletons="drop")
    assert hg.n_edges == 43 - 1 and hg.cleaning.singleton_edges == 1


# ------------------------------------------------------------------ downloads from a loopback server
class _Server:
    def __init__(self, root, handler_cls=None):
        handler_cls = handler_cls or _CountingHandler
        self.requests = []
        handler = functools.partial(handler_cls, self, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, server_state, *args, **kwargs):
        self.state = server_state
        super().__init__(*args, **kwargs)

    def do_GET(self):
        self.state.requests.append(self.path)
        super().do_GET()

    def log_message(self, *args):
        pass


class _TruncatingHandler(_CountingHandler):
    def do_GET(self):
        self.state.requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"0\t101\n" * 100)
        self.wfile.flush()
        self.close_connection = True


@pytest.fixture
def serve(tmp_path):
    servers = []

    def start(root, handler_cls=None):
        s = _Server(root, handler_cls)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def _no_temp_files(folder):
    return not folder.exists() or not any(p.name.endswith(".part") for p in folder.iterdir())


def test_download_then_cache(shared_data, tmp_path, serve):
    root = tmp_path / "mirror"
    _copy(shared_data, "zoo", root / "zoo")
    server = serve(root)
    cache = tmp_path / "cache"
    hg = load_dataset("zoo", cache_dir=cache, base_url=server.url, timeout=10)
    assert hg.n_nodes == 101 and hg.n_edges == 41
    assert sorted(server.requests) == ["/zoo/zoo.content", "/zoo/zoo.edges"]
    assert sha256sum(cache / "zoo" / "zoo.edges") == get_spec("zoo").files[1].sha256
    again = load_dataset("zoo", cache_dir=cache, base_url=server.url, timeout=10)
    assert len(server.requests) == 2 and (again.incidence != hg.incidence).nnz == 0
    assert _no_temp_files(cache / "zoo")


def test_download_base_url_from_environment(shared_data, tmp_path, serve, monkeypatch):
    root = tmp_path / "mirror"
    _copy(shared_data, "hsbm-node-0.3", root / "hsbm-synthetic" / "node_homophily" / "0.3")
    server = serve(root)
    monkeypatch.setenv("HYPERCLUST_BASE_URL", server.url + "/")
    monkeypatch.setenv("HYPERCLUST_CACHE", str(tmp_path / "envcache"))
    hg = load_dataset("hsbm-node-0.3", timeout=10)
    assert hg.n_nodes == 10000
    assert (tmp_path / "envcache" / "hsbm-synthetic" / "node_homophily" / "0.3" / "labels.npy").is_file()


def test_download_checksum_mismatch_leaves_nothing(shared_data, tmp_path, serve):
    root = tmp_path / "mirror"
    _copy(shared_data, "zoo", root / "zoo")
    _tamper(root / "zoo" / "zoo.content")
    server = serve(root)
    cache = tmp_path / "cache"
    with pytest.raises(ChecksumError, match="zoo.content"):
        load_dataset("zoo", cache_dir=cache, base_url=server.url, timeout=10)
    assert not (cache / "zoo" / "zoo.content").exists()
    assert _no_temp_files(cache / "zoo")


def test_interrupted_download_leaves_nothing(tmp_path, serve):
    server = serve(tmp_path, _TruncatingHandler)
    dest = tmp_path / "cache" / "zoo" / "zoo.edges"
    with pytest.raises(DownloadError):
        download_file(server.url + "/zoo/zoo.edges", dest, get_spec("zoo").files[1].sha256,
                      timeout=10)
    assert server.requests == ["/zoo/zoo.edges"]
    assert not dest.exists() and _no_temp_files(dest.parent)


def test_download_http_error_and_scheme(tmp_path, serve):
    server = serve(tmp_path)
    dest = tmp_path / "out" / "x"
    with pytest.raises(DownloadError, match="404"):
        download_file(server.url + "/missing", dest, "0" * 64, timeout=10)
    assert not dest.exists() and _no_temp_files(dest.parent)
    with pytest.raises(ValueError, match="scheme"):
        download_file("ftp://127.0.0.1/x", dest, "0" * 64)


def test_download_file_skips_request_when_present(tmp_path, serve):
    server = serve(tmp_path)
    dest = tmp_path / "have"
    dest.write_bytes(b"abc")
    download_file(server.url + "/have", dest, sha256sum(dest), timeout=10)
    assert server.requests == []
