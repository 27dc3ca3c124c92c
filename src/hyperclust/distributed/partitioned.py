"""A partitioned hypergraph on disk: manifest and blocks (docs/distributed.md, 'On disk')."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ..operators.base import safe_inverse

__all__ = ["PartitionedHypergraph", "load_node_block", "load_edge_block", "load_feature_block",
           "load_node_ranks", "MANIFEST", "FORMAT_VERSION", "NODE_RANKS", "EDGE_RANKS"]

#: The file that makes a directory a partitioned hypergraph, and its format version.
MANIFEST = "manifest.json"
FORMAT_VERSION = 1
#: The file of a placed partition holding each node's position in the given numbering.
NODE_RANKS = "node_ranks.npy"
#: The same for the hyperedges (a placement orders them by their first member).
EDGE_RANKS = "edge_ranks.npy"


def load_node_block(path):
    """Row block file -> ``(indptr, indices, degrees)``: CSR rows (global hyperedge ids), degrees.

    ``path`` may be a tuple of consecutive row block files, read as one block.

    Examples
    --------
    >>> import tempfile
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> indptr, indices, degrees = load_node_block(phg.block_path(1))  # nodes 2 and 3
    >>> indptr.tolist(), indices.tolist(), degrees.tolist()
    ([0, 2, 3], [0, 1, 1], [2.0, 1.0])
    """
    if isinstance(path, (list, tuple)):  # a group of consecutive blocks (``grouped``)
        parts = [load_node_block(p) for p in path]
        offsets = np.cumsum([0] + [ptr[-1] for ptr, _, _ in parts[:-1]])
        indptr = np.concatenate([parts[0][0][:1]] + [ptr[1:] + off
                                                     for (ptr, _, _), off in zip(parts, offsets)])
        return (indptr, np.concatenate([ind for _, ind, _ in parts]),
                np.concatenate([deg for _, _, deg in parts]))
    with np.load(path) as z:
        return z["indptr"], z["indices"], z["degrees"]


def load_edge_block(path):
    """Hyperedge partition file -> ``(weights, sizes)``, each of shape ``(m_j,)``.

    Examples
    --------
    >>> import tempfile
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> weights, sizes = load_edge_block(phg.edge_block_path(0))
    >>> weights.tolist(), sizes.tolist()
    ([1.0, 1.0], [3, 2])
    """
    with np.load(path) as z:
        return z["weights"], z["sizes"]


def load_edge_scale(path) -> np.ndarray:
    """Hyperedge partition file -> ``c = w / |e|`` (0 for an empty hyperedge), float64."""
    w, sizes = load_edge_block(path)
    return w * safe_inverse(sizes.astype(np.float64))


def load_feature_block(path) -> np.ndarray:
    """Row block file(s) of node features -> ``(n_b, n_features)`` float64 array.

    Examples
    --------
    >>> import tempfile
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]], features=np.arange(8.0).reshape(4, 2))
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=3)
    >>> load_feature_block(phg.features_path(1)).tolist()  # node 3
    [[6.0, 7.0]]
    """
    if isinstance(path, (list, tuple)):  # a group of consecutive blocks (``grouped``)
        return np.concatenate([load_feature_block(p) for p in path])
    return np.load(path, allow_pickle=False).astype(np.float64, copy=False)


def load_node_ranks(path, start: int, stop: int) -> np.ndarray:
    """The ranks (positions in the given numbering) of nodes ``[start, stop)``, int64.

    ``path`` None: not renumbered, a node's rank is its position.

    Examples
    --------
    >>> load_node_ranks(None, 3, 6).tolist()
    [3, 4, 5]
    """
    if path is None:
        return np.arange(start, stop, dtype=np.int64)
    return np.array(np.load(path, mmap_mode="r", allow_pickle=False)[start:stop],
                    dtype=np.int64)


class PartitionedHypergraph:
    r"""Handle on a partitioned hypergraph directory; reads the manifest only.

    Parameters
    ----------
    path : str or PathLike
        Directory holding ``manifest.json`` and the block files.

    Attributes
    ----------
    n_nodes, n_edges, nnz, n_blocks : int
    n_features : int or None
    node_blocks, edge_blocks : list of dict
        ``{"file", "start", "stop"}`` of each row block / hyperedge partition.

    Examples
    --------
    >>> import os, tempfile
    >>> from hyperclust.distributed import partition_edgelists
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "e.txt"), "w").write("1 2 3\n3 4\n")
    >>> phg = PartitionedHypergraph(partition_edgelists([os.path.join(d, "e.txt")],
    ...                                                 os.path.join(d, "p")).path)
    >>> phg.to_hypergraph().edges()[1].tolist(), phg.node_ids.tolist()
    ([2, 3], [1, 2, 3, 4])
    """

    def __init__(self, path):
        self.path = Path(path)
        man = self.path / MANIFEST
        if not man.is_file():
            raise FileNotFoundError(f"{self.path} is not a partitioned hypergraph (no {MANIFEST}; "
                                    "build one with `hyperclust partition`)")
        try:
            info = json.loads(man.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{man}: unreadable manifest ({exc})") from None
        if info.get("format") != "hyperclust-partitioned" or \
                info.get("version") != FORMAT_VERSION:
            raise ValueError(f"{man}: not a version-{FORMAT_VERSION} hyperclust partitioned "
                             "hypergraph manifest")
        self.manifest = info
        self.n_nodes = int(info["n_nodes"])
        self.n_edges = int(info["n_edges"])
        self.nnz = int(info["nnz"])
        self.node_blocks = info["node_blocks"]
        self.edge_blocks = info["edge_blocks"]
        self.n_blocks = len(self.node_blocks)
        features = info.get("features")
        self.n_features = None if features is None else int(features["n_features"])
        self._members = None  # stored row blocks of each block of a grouped view

    def __repr__(self):
        return (f"PartitionedHypergraph({str(self.path)!r}, n_nodes={self.n_nodes}, "
                f"n_edges={self.n_edges}, nnz={self.nnz}, n_blocks={self.n_blocks})")

    def grouped(self, n_groups: int) -> "PartitionedHypergraph":
        """A view whose row blocks are ``n_groups`` runs of consecutive stored blocks.

        A group's paths are tuples of its files; this handle itself when there is nothing to merge.

        Examples
        --------
        >>> import tempfile
        >>> from hyperclust import Hypergraph
        >>> from hyperclust.distributed import write_partitioned
        >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [4, 5]])
        >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
        >>> two = phg.grouped(2)
        >>> phg.block_bounds.tolist(), two.block_bounds.tolist()
        ([0, 2, 4, 6], [0, 4, 6])
        >>> load_node_block(two.block_path(0))[0].tolist()  # nodes 0-3
        [0, 1, 2, 4, 5]
        """
        n_groups = int(n_groups)
        if n_groups < 1:
            raise ValueError(f"n_groups must be at least 1, got {n_groups}")
        members = self._members or [[b] for b in range(self.n_blocks)]
        if n_groups >= len(members):
            return self
        B = len(members)
        # block b goes to group b * n_groups // B, the operator's rule for workers
        cuts = [-(-g * B // n_groups) for g in range(n_groups + 1)]
        view = copy.copy(self)
        view._members = [sum(members[lo:hi], []) for lo, hi in zip(cuts[:-1], cuts[1:])]
        stored = self.manifest["node_blocks"]
        view.node_blocks = [{"start": stored[m[0]]["start"], "stop": stored[m[-1]]["stop"],
                             "nnz": sum(int(stored[b].get("nnz", 0)) for b in m)}
                            for m in view._members]
        view.n_blocks = n_groups
        return view

    def _files(self, b, path_of):
        if self._members is None:
            return path_of(b)
        paths = tuple(path_of(i) for i in self._members[b])
        return paths[0] if len(paths) == 1 else paths

    def block_path(self, b: int) -> str | tuple:
        """Path of row block ``b`` (a tuple for a :meth:`grouped` view)."""
        return self._files(b, lambda i: str(
            (self.path / self.manifest["node_blocks"][i]["file"]).resolve()))

    def edge_block_path(self, j: int) -> str:
        """Absolute path of hyperedge partition ``j``."""
        return str((self.path / self.edge_blocks[j]["file"]).resolve())

    def features_path(self, b: int) -> str | tuple:
        """Path of row block ``b``'s node features (a tuple for a grouped view)."""
        if self.n_features is None:
            raise ValueError(f"{self.path} holds no node features (partition with features=)")
        return self._files(b, lambda i: str(
            (self.path / self.manifest["features"]["files"][i]).resolve()))

    @property
    def block_bounds(self) -> np.ndarray:
        """Row block boundaries, shape (n_blocks + 1,)."""
        return np.array([b["start"] for b in self.node_blocks] + [self.n_nodes], dtype=np.int64)

    @property
    def edge_bounds(self) -> np.ndarray:
        """Hyperedge partition boundaries, shape (n_edge_blocks + 1,)."""
        return np.array([b["start"] for b in self.edge_blocks] + [self.n_edges], dtype=np.int64)

    @property
    def node_ids(self) -> np.ndarray:
        """The user's node ids in index order (int64 or strings)."""
        ids = np.load(self.path / self.manifest["node_ids"], allow_pickle=False)
        return ids.astype(object) if self.manifest["node_id_kind"] == "str" else ids

    @property
    def node_ranks_path(self) -> str | None:
        """Path of the node ranks (:func:`load_node_ranks`), or None."""
        name = self.manifest.get("node_ranks")
        return None if name is None else str((self.path / name).resolve())

    @property
    def edge_ranks_path(self) -> str | None:
        """Path of the hyperedges' positions in the given numbering, or None."""
        name = self.manifest.get("edge_ranks")
        return None if name is None else str((self.path / name).resolve())

    @property
    def edge_weights(self) -> np.ndarray:
        """Hyperedge weights, shape (n_edges,)."""
        parts = [load_edge_block(self.edge_block_path(j))[0] for j in range(len(self.edge_blocks))]
        return np.concatenate(parts) if parts else np.zeros(0)

    def to_hypergraph(self) -> Hypergraph:
        """The whole hypergraph in memory (small inputs, tests)."""
        blocks = [load_node_block(self.block_path(b)) for b in range(self.n_blocks)]
        H = sp.vstack([sp.csr_matrix((np.ones(ind.size), ind, ptr),
                                     shape=(ptr.size - 1, self.n_edges))
                       for ptr, ind, _ in blocks], format="csr")
        features = None if self.n_features is None else np.concatenate(
            [load_feature_block(self.features_path(b)) for b in range(self.n_blocks)])
        return Hypergraph(H, weights=self.edge_weights, node_ids=self.node_ids,
                          features=features, name=self.path.name)
