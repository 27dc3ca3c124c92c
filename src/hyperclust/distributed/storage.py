"""Parquet tables on any fsspec path: (node, hyperedge[, weight]) pairs, feature tables, and
the fitted labels and embedding written per row block and read back.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["is_parquet", "is_url", "path_exists", "read_pairs", "read_feature_table",
           "write_node_table", "write_block_tables", "read_node_table", "keep_output"]

PARQUET_SUFFIXES = (".parquet", ".pq")


def is_parquet(path) -> bool:
    """Whether ``path`` names a parquet file or dataset (by its suffix).

    Examples
    --------
    >>> is_parquet("out/labels.PARQUET/"), is_parquet("part.pq"), is_parquet("edges.txt")
    (True, True, False)
    """
    return str(path).lower().rstrip("/").endswith(PARQUET_SUFFIXES)


def is_url(path) -> bool:
    """Whether ``path`` carries an fsspec protocol (``memory://``, ``s3://``, ...).

    Examples
    --------
    >>> is_url("memory://run/labels.parquet"), is_url("s3://bucket/x"), is_url("/tmp/x")
    (True, True, False)
    """
    return "://" in str(path)


def path_exists(path) -> bool:
    """Whether a file or folder exists at a local path or fsspec URL.

    Examples
    --------
    >>> import fsspec, tempfile
    >>> with fsspec.open("memory://hyperclust-doc/path_exists.txt", "w") as f:
    ...     _ = f.write("x")
    >>> path_exists("memory://hyperclust-doc/path_exists.txt")
    True
    >>> path_exists("memory://hyperclust-doc/missing.txt"), path_exists(tempfile.mkdtemp())
    (False, True)
    """
    if not is_url(path):
        return Path(path).exists()
    import fsspec

    fs, inner = fsspec.core.url_to_fs(str(path))
    return fs.exists(inner)


def _pyarrow():
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("reading and writing parquet needs pyarrow: pip install "
                          "'hyperclust[distributed]'") from None
    return pq


def _read_table(path, columns, what: str, every_column: bool = False):
    """The columns of a parquet file or dataset as a DataFrame; one-line errors."""
    import fsspec

    pq = _pyarrow()
    if not path_exists(path):
        raise FileNotFoundError(f"{what} not found: {path}")
    fs, inner = fsspec.core.url_to_fs(str(path))
    try:
        schema = pq.ParquetDataset(inner, filesystem=fs).schema
    except Exception as exc:  # pyarrow's own errors name no column or path clearly
        raise ValueError(f"{path}: not a parquet table ({exc})") from None
    names = list(schema.names)
    missing = [c for c in columns if c not in names]
    if missing:
        raise ValueError(f"{path}: no column {missing[0]!r} (columns: {', '.join(names)})")
    return pq.read_table(inner, filesystem=fs,
                         columns=None if every_column else list(columns)).to_pandas()


def read_pairs(path, *, node="node", hyperedge="hyperedge", weight=None,
               singletons: str = "keep"):
    """A hypergraph from a parquet table of (node, hyperedge[, weight]) membership pairs.

    Hyperedges are numbered in order of first appearance, nodes as
    :func:`hyperclust.hypergraph.map_ids` does; all pairs of a hyperedge carry one weight.

    Parameters
    ----------
    path : str or PathLike
        A parquet file or dataset folder, local or an fsspec URL.
    node, hyperedge : str
        Column names.
    weight : str, optional
        Column of hyperedge weights (default: all 1).
    singletons : {"keep", "drop"}

    Returns
    -------
    Hypergraph
        Duplicate hyperedges kept.

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "pairs.parquet")
    >>> pd.DataFrame({"node": ["b", "a", "a", "c"], "hyperedge": [7, 7, 3, 3]}).to_parquet(path)
    >>> hg = read_pairs(path)
    >>> hg.node_ids.tolist(), [sorted(e.tolist()) for e in hg.edges()]
    (['b', 'a', 'c'], [[0, 1], [1, 2]])
    """
    import pandas as pd

    from ..hypergraph import Hypergraph, map_ids

    columns = [node, hyperedge] + ([weight] if weight is not None else [])
    table = _read_table(path, columns, "parquet pairs table")
    if table[[node, hyperedge]].isna().any().any():
        raise ValueError(f"{path}: an empty node or hyperedge cell")
    node_index, node_ids = map_ids(table[node].to_numpy())
    edge_index, _ = pd.factorize(table[hyperedge], sort=False)
    weights = None
    if weight is not None:
        w = table[weight].to_numpy(dtype=np.float64)
        first = np.zeros(edge_index.max() + 1 if edge_index.size else 0)
        first[edge_index[::-1]] = w[::-1]  # the first pair's weight of each hyperedge
        if np.any(first[edge_index] != w):
            raise ValueError(f"{path}: the pairs of one hyperedge carry different weights "
                             f"in column {weight!r}")
        weights = first
    return Hypergraph.from_pairs(node_index, edge_index, node_ids=node_ids, weights=weights,
                                 singletons=singletons)


def read_feature_table(path, node="node"):
    """``(ids (r,), float64 values (r, d))`` of a parquet table: ``node``, then features.

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "features.parquet")
    >>> pd.DataFrame({"node": ["b", "a"], "f0": [1.0, 2.0], "f1": [0, 1]}).to_parquet(path)
    >>> ids, values = read_feature_table(path)
    >>> ids.tolist(), values.tolist()
    (['b', 'a'], [[1.0, 0.0], [2.0, 1.0]])
    """
    from ..hypergraph import map_ids

    table = _read_table(path, [node], "parquet feature table", every_column=True)
    rest = [c for c in table.columns if c != node]
    if not rest:
        raise ValueError(f"{path}: no feature column beside {node!r}")
    try:
        values = table[rest].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{path}: a feature column is not numeric") from None
    _, ids = map_ids(table[node].to_numpy())
    if ids.size != len(table):
        raise ValueError(f"{path}: the feature table names a node twice")
    return ids, values


def _identity(part):
    return part


def _part_name(i: int) -> str:
    # zero-padded: readers list a folder's files in name order
    return f"part-{i:05d}.parquet"


def write_node_table(url, node_ids, labels, embedding=None, *, bounds=None, client=None):
    """Write one parquet file per row block: ``node``, ``cluster`` [, ``e0 .. e{d-1}``].

    Parameters
    ----------
    url : str or PathLike
        A folder, local or an fsspec URL; an existing one is replaced.
    node_ids, labels : ndarray, shape (n,)
    embedding : ndarray, shape (n, d), optional
    bounds : sequence of int, optional
        Row block boundaries ``[0, ..., n]``; default one block.
    client : distributed.Client, optional
        Writes the blocks as Dask tasks (every worker must reach ``url``).

    Examples
    --------
    >>> import tempfile, os
    >>> out = os.path.join(tempfile.mkdtemp(), "labels.parquet")
    >>> write_node_table(out, np.array(["a", "b", "c"]), np.array([1, 0, 1]),
    ...                  np.eye(3)[:, :2], bounds=[0, 2, 3])
    >>> ids, labels, emb = read_node_table(out)
    >>> ids.tolist(), labels.tolist(), emb.shape
    (['a', 'b', 'c'], [1, 0, 1], (3, 2))
    """
    import dask.dataframe as dd
    import pandas as pd

    _pyarrow()
    n = len(labels)
    bounds = [0, n] if bounds is None else [int(b) for b in bounds]
    columns = {"node": np.asarray(node_ids), "cluster": np.asarray(labels, dtype=np.int64)}
    if embedding is not None:
        columns.update({f"e{j}": np.asarray(embedding)[:, j]
                        for j in range(np.asarray(embedding).shape[1])})
    frame = pd.DataFrame(columns)
    parts = [frame.iloc[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]
    write = dd.from_map(_identity, parts).to_parquet(
        str(url), write_index=False, overwrite=True, compute=False,
        name_function=_part_name)
    if client is not None:
        client.compute(write).result()
    else:
        write.compute(scheduler="sync")


def _block_frame(ids_file, str_ids, lo, labels, embedding=None):
    """The node table of one row block, built where its labels live."""
    import pandas as pd

    ids = np.load(ids_file, mmap_mode="r", allow_pickle=False)[lo:lo + len(labels)]
    columns = {"node": ids.astype(object) if str_ids else np.asarray(ids),
               "cluster": np.asarray(labels, dtype=np.int64)}
    if embedding is not None:
        columns.update({f"e{j}": embedding[:, j] for j in range(embedding.shape[1])})
    return pd.DataFrame(columns)


def _empty_like(frame):
    return frame.iloc[:0]


def write_block_tables(client, url, phg, label_blocks, embedding_blocks=None) -> None:
    """Write the row blocks' labels (and embedding) as :func:`write_node_table`, from the workers.

    Parameters
    ----------
    client : distributed.Client
    url : str
        Folder every worker reaches (replaced if it exists).
    phg : PartitionedHypergraph
    label_blocks : list of futures
        int labels per row block.
    embedding_blocks : list of futures, optional
        ``(n_b, d)`` per row block.

    Examples
    --------
    >>> import os, tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3]]),
    ...                         tempfile.mkdtemp(), block_size=2)
    >>> out = os.path.join(tempfile.mkdtemp(), "labels.parquet")
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     labels = [c.scatter(np.array([0, 0])), c.scatter(np.array([1, 1]))]
    ...     write_block_tables(c, out, phg, labels)
    >>> sorted(os.listdir(out))
    ['part-00000.parquet', 'part-00001.parquet']
    >>> ids, labels, emb = read_node_table(out)
    >>> ids.tolist(), labels.tolist(), emb
    ([0, 1, 2, 3], [0, 0, 1, 1], None)
    """
    import dask.dataframe as dd
    from dask import delayed

    _pyarrow()
    ids_file = str(phg.path / phg.manifest["node_ids"])
    str_ids = phg.manifest["node_id_kind"] == "str"
    embedding_blocks = embedding_blocks or [None] * len(label_blocks)
    frames = [client.submit(_block_frame, ids_file, str_ids, int(lo), lb, eb, pure=False)
              for lo, lb, eb in zip(phg.block_bounds[:-1], label_blocks, embedding_blocks)]
    meta = client.submit(_empty_like, frames[0]).result()
    write = dd.from_delayed([delayed(f) for f in frames], meta=meta, verify_meta=False) \
        .to_parquet(str(url), write_index=False, overwrite=True, compute=False,
                    name_function=_part_name)
    client.compute(write).result()


def read_node_table(url):
    """``(node ids, labels, embedding or None)`` of :func:`write_node_table`'s output.

    Examples
    --------
    >>> url = "memory://hyperclust-doc/read_node_table.parquet"
    >>> write_node_table(url, np.array([10, 20]), np.array([1, 0]), np.ones((2, 1)))
    >>> ids, labels, emb = read_node_table(url)
    >>> ids.tolist(), labels.tolist(), emb.tolist()
    ([10, 20], [1, 0], [[1.0], [1.0]])
    """
    table = _read_table(url, ["node", "cluster"], "parquet label table", every_column=True)
    emb = [c for c in table.columns if c.startswith("e") and c[1:].isdigit()]
    emb.sort(key=lambda c: int(c[1:]))
    return (table["node"].to_numpy(), table["cluster"].to_numpy(dtype=np.int64),
            table[emb].to_numpy(dtype=np.float64) if emb else None)


def keep_output(est, client, phg, source, label_blocks, embedding_blocks) -> None:
    """Set a fitted estimator's ``labels_``, ``embedding_``, ``node_ids_``, or write ``output``.

    When ``est.output`` names a folder, the blocks are written there by the workers
    (:func:`write_block_tables`) and the attributes set to None.

    Parameters
    ----------
    est : estimator with an ``output`` parameter
    client : distributed.Client
    phg : PartitionedHypergraph
    source : Hypergraph, PartitionedHypergraph or path
        What ``fit`` got (an in-memory hypergraph gives its own node ids).
    label_blocks, embedding_blocks : list of futures

    Examples
    --------
    >>> import tempfile, types, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> kept = types.SimpleNamespace(output=None)
    >>> written = types.SimpleNamespace(output="memory://hyperclust-doc/keep_output.parquet")
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     labels = [c.scatter(np.array([0, 0])), c.scatter(np.array([1, 1]))]
    ...     emb = [c.scatter(np.zeros((2, 2))), c.scatter(np.ones((2, 2)))]
    ...     keep_output(kept, c, phg, hg, labels, emb)
    ...     keep_output(written, c, phg, phg, labels, emb)
    >>> kept.labels_.tolist(), kept.embedding_.shape, kept.node_ids_.tolist()
    ([0, 0, 1, 1], (4, 2), [0, 1, 2, 3])
    >>> written.labels_ is None, read_node_table(written.output)[1].tolist()
    (True, [0, 0, 1, 1])
    """
    if est.output is not None:  # the command line's --out X.parquet asks for labels only
        write_block_tables(client, est.output, phg, label_blocks,
                           None if getattr(est, "_output_labels_only", False)
                           else embedding_blocks)
        est.labels_ = est.embedding_ = est.node_ids_ = None
        return
    est.embedding_ = np.concatenate(client.gather(embedding_blocks))
    est.labels_ = np.concatenate(client.gather(label_blocks)).astype(np.int64)
    est.node_ids_ = source.node_ids if hasattr(source, "incidence") else phg.node_ids
