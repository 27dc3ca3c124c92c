"""Build a partitioned hypergraph on disk from edge-list files, without loading the whole
(docs/distributed.md, "On disk" and "Build from edge lists").
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from .._hashing import mix64
from ..hypergraph import map_ids
from ..io.edgelist import read_edgelist
from ._tasks import run_tasks
from .partitioned import EDGE_RANKS, FORMAT_VERSION, MANIFEST, NODE_RANKS, PartitionedHypergraph
from .placement import check_placement, placed
from .storage import is_parquet, is_url, path_exists, read_feature_table, read_pairs

__all__ = ["partition_edgelists", "write_partitioned", "MANIFEST", "FORMAT_VERSION"]

_DUPLICATES = ("merge", "drop", "keep")


def _read(path, opts):
    # duplicates are resolved across files by the driver, so each file keeps its own
    if is_parquet(path):
        return read_pairs(path, node=opts.get("node_column", "node"),
                          hyperedge=opts.get("edge_column", "hyperedge"),
                          weight=opts.get("weight_column"), singletons=opts["singletons"])
    return read_edgelist(path, duplicates="keep",
                         **{k: opts.get(k) for k in ("weighted", "sep", "header", "singletons")})


def _file_ids(path, opts):
    hg = _read(path, opts)
    return hg.node_ids, hg.n_edges


def _piece_name(tmp, f, b):
    return os.path.join(tmp, f"f{f:05d}-b{b:05d}.npz")


def _file_pairs(path, opts, global_ids, f, tmp, block_size, n_blocks):
    """Write file ``f``'s pairs per row block; return its hyperedge keys and weights."""
    hg = _read(path, opts)
    gidx, _ = map_ids(hg.node_ids, ids=global_ids)
    Hc = hg.incidence.tocsc()
    Hc.sort_indices()
    sizes = np.diff(Hc.indptr)
    nodes = gidx[Hc.indices]
    edges = np.repeat(np.arange(hg.n_edges, dtype=np.int64), sizes)
    keys = np.zeros((hg.n_edges, 3), dtype=np.int64)
    keys[:, 0] = sizes
    if nodes.size:
        starts = Hc.indptr[:-1]
        with np.errstate(over="ignore"):
            keys[:, 1] = np.add.reduceat(mix64(nodes), starts).view(np.int64)
            keys[:, 2] = np.add.reduceat(mix64(nodes ^ 0x5DEECE66D), starts).view(np.int64)
    block = nodes // block_size
    order = np.argsort(block, kind="stable")
    bounds = np.searchsorted(block[order], np.arange(n_blocks + 1))
    for b in range(n_blocks):
        sel = order[bounds[b]:bounds[b + 1]]
        np.savez(_piece_name(tmp, f, b), nodes=nodes[sel], edges=edges[sel])
    return keys, hg.weights


def _renumber(f, tmp, n_blocks, edge_map):
    """Rewrite file ``f``'s pieces with global hyperedge ids (merged copies dropped)."""
    for b in range(n_blocks):
        name = _piece_name(tmp, f, b)
        with np.load(name) as z:
            nodes, edges = z["nodes"], z["edges"]
        new = edge_map[edges]
        keep = new >= 0
        np.savez(name, nodes=nodes[keep], edges=new[keep])


def _assemble_block(b, tmp, n_files, start, stop, out_path, edge_weights):
    nodes, edges = [], []
    for f in range(n_files):
        with np.load(_piece_name(tmp, f, b)) as z:
            nodes.append(z["nodes"])
            edges.append(z["edges"])
    nodes = np.concatenate(nodes) - start
    edges = np.concatenate(edges)
    pairs = np.unique(nodes * (edges.max() + 1 if edges.size else 1) + edges) if nodes.size \
        else np.zeros(0, np.int64)
    width = edges.max() + 1 if edges.size else 1
    rows, cols = pairs // width, pairs % width
    indptr = np.searchsorted(rows, np.arange(stop - start + 1)).astype(np.int64)
    degrees = np.bincount(rows, weights=edge_weights[cols], minlength=stop - start)
    np.savez(out_path, indptr=indptr, indices=cols.astype(np.int64), degrees=degrees)
    return int(cols.size)


def _check_inputs(files, block_size, edge_block_size, duplicates, singletons,
                  features) -> tuple:
    """``(files as paths, block_size, edge_block_size)``; errors for bad options."""
    files = [f if is_url(f) else Path(f)
             for f in ([files] if isinstance(files, (str, os.PathLike)) else files)]
    if not files:
        raise ValueError("no edge-list files given")
    block_size, edge_block_size = _check_sizes(block_size, edge_block_size)
    if duplicates not in _DUPLICATES:
        raise ValueError(f"duplicates must be one of {_DUPLICATES}, got {duplicates!r}")
    if singletons not in ("keep", "drop"):
        raise ValueError(f"singletons must be 'keep' or 'drop', got {singletons!r}")
    remote_text = next((f for f in files if is_url(f) and not is_parquet(f)), None)
    if remote_text is not None:
        raise ValueError(f"{remote_text}: edge-list text files are read from a local or shared "
                         "file system; at a URL give .parquet pair tables")
    missing = next((f for f in files if not path_exists(f)
                    or (not is_url(f) and not is_parquet(f) and not f.is_file())), None)
    if missing is not None:
        raise FileNotFoundError(f"edge-list file not found: {missing}")
    if features is not None and not path_exists(features):
        raise FileNotFoundError(f"features file not found: {features}")
    return files, block_size, edge_block_size


def _global_ids(client, files_abs, opts, progress):
    """The sorted node ids of all files (one kind: integers or strings)."""
    first = run_tasks(client, _file_ids, [(f, opts) for f in files_abs], progress=progress)
    kinds = {ids.dtype == object for ids, _ in first}
    if len(kinds) > 1:
        raise ValueError("some files have only integer node ids and others not; reading "
                         "them together would turn the integers into strings (e.g. '007' "
                         "into '7'): write every id in one form")
    return map_ids(np.concatenate([ids for ids, _ in first]))[1]


def _merge_edges(pieces, duplicates):
    """``(edge_map, weights, sizes)``: global id of each raw hyperedge (-1: dropped)."""
    keys = np.concatenate([k for k, _ in pieces]) if pieces else np.zeros((0, 3), np.int64)
    weights = np.concatenate([w for _, w in pieces])
    m_raw = keys.shape[0]
    if duplicates == "keep" or m_raw == 0:
        first_of = np.arange(m_raw)
        merged_w = weights
    else:
        _, first_idx, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        first_of = first_idx[inverse.reshape(-1)]
        merged_w = weights.copy()
        if duplicates == "merge":
            merged_w = np.bincount(inverse.reshape(-1), weights=weights)[inverse.reshape(-1)]
    kept = first_of == np.arange(m_raw)
    new_id = np.full(m_raw, -1, dtype=np.int64)
    new_id[kept] = np.arange(int(kept.sum()))
    return new_id, merged_w[kept], keys[kept, 0]


def _assemble_blocks(client, out: Path, tmp: Path, n_files: int, n: int, block_size: int,
                     edge_weights, progress) -> list:
    """Write the row blocks from the renumbered pieces; their manifest entries."""
    w_arg = client.scatter(edge_weights, broadcast=True) if client is not None else edge_weights
    node_blocks = [{"file": f"nodes-{b:05d}.npz", "start": b * block_size,
                    "stop": min(n, (b + 1) * block_size)}
                   for b in range(max(1, -(-n // block_size)))]
    nnz = run_tasks(client, _assemble_block,
                    [(b, str(tmp), n_files, blk["start"], blk["stop"],
                      str(out / blk["file"]), w_arg) for b, blk in enumerate(node_blocks)],
                    progress=progress)
    for blk, z in zip(node_blocks, nnz):
        blk["nnz"] = int(z)
    return node_blocks


def _write_pieces(client, files_abs, opts, global_ids, tmp: Path, block_size: int,
                  n_blocks: int, duplicates: str, progress):
    """Write each file's pairs per row block into ``tmp``; ``(weights, sizes)`` kept."""
    ids_arg = client.scatter(global_ids, broadcast=True) if client is not None else global_ids
    pieces = run_tasks(client, _file_pairs,
                       [(f, opts, ids_arg, i, str(tmp), block_size, n_blocks)
                        for i, f in enumerate(files_abs)], progress=progress)
    edge_map, edge_weights, edge_sizes = _merge_edges(pieces, duplicates)
    offsets = np.concatenate([[0], np.cumsum([k.shape[0] for k, _ in pieces])])
    run_tasks(client, _renumber, [(i, str(tmp), n_blocks, edge_map[offsets[i]:offsets[i + 1]])
                                  for i in range(len(files_abs))], progress=progress)
    return edge_weights, edge_sizes


def _partition(client, out: Path, files_abs, opts, block_size, edge_block_size, duplicates,
               features, features_sep, progress) -> None:
    """The steps of :func:`partition_edgelists` (arguments checked), writing into ``out``."""
    # (1) node ids
    global_ids = _global_ids(client, files_abs, opts, progress)
    # checked before anything is written: a table that does not fit the nodes stops here;
    # its nodes in no hyperedge are added (after the others, in table order)
    table = None
    if features is not None:
        global_ids, table = _features_by_node(features, features_sep, global_ids)
    n = int(global_ids.shape[0])
    n_blocks = max(1, -(-n // block_size))

    # (2) pairs per (file, block) and hyperedge keys, (3) global hyperedge ids in the pieces
    tmp = out / "_pieces"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    edge_weights, edge_sizes = _write_pieces(client, files_abs, opts, global_ids, tmp,
                                             block_size, n_blocks, duplicates, progress)
    # (4) row blocks
    node_blocks = _assemble_blocks(client, out, tmp, len(files_abs), n, block_size,
                                   edge_weights, progress)
    feature_info = None if table is None else _write_features(out, node_blocks, table)
    _write_edges_and_manifest(out, node_blocks, edge_weights, edge_sizes, global_ids,
                              block_size, edge_block_size, files_abs,
                              {**{k: v for k, v in opts.items() if v is not None},
                               "duplicates": duplicates}, feature_info)
    shutil.rmtree(tmp, ignore_errors=True)


def partition_edgelists(files, out_dir, *, block_size: int = 1_000_000,
                        edge_block_size: int | None = None, client=None,
                        weighted: bool | None = None, sep: str | None = None,
                        header: bool | None = None, duplicates: str = "merge",
                        singletons: str = "keep", features=None,
                        features_sep: str | None = None, overwrite: bool = False,
                        progress: bool = False, pair_columns=("node", "hyperedge", None)):
    r"""Partition the hypergraph of several edge-list files into row blocks on disk.

    Equals reading the concatenated files with :func:`hyperclust.io.read_edgelist`, but no
    process holds all of it.

    Parameters
    ----------
    files : sequence of str or PathLike
        Edge-list files, hyperedges numbered file after file; ``*.parquet``: a pairs table
        (local or an fsspec URL every worker reaches).
    out_dir : str or PathLike
        On a file system every worker sees.
    block_size : int, default 1,000,000
        Nodes per row block.
    edge_block_size : int, optional
        Hyperedges per hyperedge partition (default ``block_size``).
    client : dask.distributed.Client, optional
        Runs the work as Dask tasks; default: in this process.
    weighted, sep, header
        As in :func:`hyperclust.io.read_edgelist`.
    duplicates : {"merge", "drop", "keep"}, default "merge"
        Within or across files (:meth:`hyperclust.Hypergraph.from_pairs`).
    singletons : {"keep", "drop"}, default "keep"
    features : str or PathLike, optional
        Node features file (:func:`hyperclust.io.node_data.read_node_table`, or a parquet
        table with a ``node`` column); every node needs a row, every row a node.
    features_sep : str, optional
    overwrite : bool, default False
    progress : bool, default False
        With a client, Dask's progress bar per round.
    pair_columns : (node, hyperedge, weight or None), default ("node", "hyperedge", None)

    Returns
    -------
    PartitionedHypergraph

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for i, text in enumerate(["a b\nb c\n", "c d e\na b\n"]):
    ...     _ = open(os.path.join(d, f"part{i}.txt"), "w").write(text)
    >>> files = [os.path.join(d, "part0.txt"), os.path.join(d, "part1.txt")]
    >>> phg = partition_edgelists(files, os.path.join(d, "out"), block_size=2)
    >>> phg.n_nodes, phg.n_edges, phg.n_blocks, list(phg.node_ids)
    (5, 3, 3, ['a', 'b', 'c', 'd', 'e'])
    >>> phg.edge_weights.tolist()  # "a b" twice, merged
    [2.0, 1.0, 1.0]
    """

    files, block_size, edge_block_size = _check_inputs(files, block_size, edge_block_size,
                                                       duplicates, singletons, features)
    created = not Path(out_dir).exists()
    out = _prepare_out(out_dir, overwrite)
    opts = {"weighted": weighted, "sep": sep, "header": header, "singletons": singletons,
            **dict(zip(("node_column", "edge_column", "weight_column"), pair_columns))}
    try:
        _partition(client, out, [f if is_url(f) else str(f.resolve()) for f in files], opts,
                   block_size,
                   edge_block_size, duplicates, features, features_sep, progress)
    except BaseException:
        if created:  # a failed build leaves no folder behind it did not find
            shutil.rmtree(out, ignore_errors=True)
        raise
    return PartitionedHypergraph(out)


def _features_by_node(path, sep, node_ids):
    """``(node ids, (values, row of each node))``; table-only nodes appended."""
    import warnings

    from ..io.node_data import read_node_table

    ids, values = read_feature_table(path) if is_parquet(path) else read_node_table(
        path, kind="features", sep=sep)
    if ids is None:
        if node_ids.dtype == object:
            raise ValueError(f"{path}: the node ids are names, so feature rows cannot be "
                             "matched by position; give a CSV whose first column 'node' "
                             "holds the node id")
        ids = np.arange(values.shape[0])
    ids = np.asarray(ids)
    if np.unique(ids.astype(str)).size != ids.size:
        raise ValueError(f"{path}: the feature table names a node twice")
    extra = ids[~np.isin(ids.astype(str), node_ids.astype(str))]
    if extra.size:
        extra = map_ids(extra)[1]
        if (extra.dtype == object) != (node_ids.dtype == object):
            raise ValueError(f"{path}: the feature table names nodes in no hyperedge whose "
                             f"ids are not of the edge lists' kind (e.g. {extra[0]!r}); "
                             "write every id in one form")
        warnings.warn(f"{extra.size} node ids of the features file are in no hyperedge "
                      f"(e.g. {extra[0]!r}); they are kept as nodes in no hyperedge",
                      stacklevel=3)
        node_ids = np.concatenate([node_ids, extra])
    try:
        rows, _ = map_ids(node_ids, ids=ids)
    except ValueError as exc:
        raise ValueError(f"{path}: a node without a feature row ({exc})") from None
    return node_ids, (values, rows)


def _write_features(out, node_blocks, table):
    """``features-XXXXX.npy`` per row block from ``(values, row of each node)``."""
    values, rows = table
    files = []
    for b, blk in enumerate(node_blocks):
        part = values[rows[blk["start"]:blk["stop"]]]
        part = part.toarray() if hasattr(part, "toarray") else np.asarray(part)
        files.append(f"features-{b:05d}.npy")
        np.save(out / files[-1], part.astype(np.float64), allow_pickle=False)
    return {"files": files, "n_features": int(values.shape[1])}


def _write_edges_and_manifest(out, node_blocks, edge_weights, edge_sizes, node_ids, block_size,
                              edge_block_size, sources, options, features=None, ranks=None):
    n, m = int(node_ids.shape[0]), int(edge_weights.size)
    n_edge_blocks = max(1, -(-m // edge_block_size))
    edge_blocks = []
    for j in range(n_edge_blocks):
        lo, hi = j * edge_block_size, min(m, (j + 1) * edge_block_size)
        name = f"edges-{j:05d}.npz"
        np.savez(out / name, weights=edge_weights[lo:hi], sizes=edge_sizes[lo:hi])
        edge_blocks.append({"file": name, "start": lo, "stop": hi})
    text_ids = node_ids.dtype == object
    np.save(out / "node_ids.npy", node_ids.astype(str) if text_ids else node_ids,
            allow_pickle=False)
    manifest = {
        "format": "hyperclust-partitioned", "version": FORMAT_VERSION,
        "n_nodes": n, "n_edges": m, "nnz": int(sum(b["nnz"] for b in node_blocks)),
        "node_ids": "node_ids.npy", "node_id_kind": "str" if text_ids else "int",
        "block_size": block_size, "edge_block_size": edge_block_size,
        "node_blocks": node_blocks, "edge_blocks": edge_blocks,
        "sources": sources, "options": options,
    }
    if features is not None:
        manifest["features"] = features
    # a placement's renumbering of the nodes and of the hyperedges: position -> position given
    for key, name, order in zip(("node_ranks", "edge_ranks"), (NODE_RANKS, EDGE_RANKS),
                                ranks or ()):
        np.save(out / name, np.asarray(order, dtype=np.int64), allow_pickle=False)
        manifest[key] = name
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")


def _prepare_out(out_dir, overwrite):
    out = Path(out_dir)
    if (out / MANIFEST).exists() and not overwrite:
        raise FileExistsError(f"{out} already holds a partitioned hypergraph "
                              "(pass overwrite=True / --overwrite to replace it)")
    out.mkdir(parents=True, exist_ok=True)
    for old in [out / MANIFEST] + list(out.glob("nodes-*.npz")) + list(out.glob("edges-*.npz")) \
            + list(out.glob("features-*.npy")) + [out / NODE_RANKS, out / EDGE_RANKS]:
        old.unlink(missing_ok=True)
    return out


def _check_sizes(block_size, edge_block_size):
    for name, val in (("block_size", block_size), ("edge_block_size", edge_block_size)):
        if val is not None and (isinstance(val, bool) or not isinstance(val, (int, np.integer))
                                or val < 1):
            raise ValueError(f"{name} must be a positive integer, got {val!r}")
    return int(block_size), int(edge_block_size or block_size)


def write_partitioned(hypergraph, out_dir, *, block_size: int = 1_000_000,
                      edge_block_size: int | None = None, overwrite: bool = False,
                      placement: str = "ids", random_state: int = 0):
    """Write an in-memory :class:`~hyperclust.Hypergraph` as a partitioned hypergraph (no labels).

    Parameters
    ----------
    hypergraph : Hypergraph
    out_dir : str or PathLike
    block_size, edge_block_size, overwrite
        As in :func:`partition_edgelists`.
    placement : {"ids", "rcm", "metis"}, default "ids"
        Which nodes share a row block (:mod:`~hyperclust.distributed.placement`); node ids
        follow their nodes and the given positions are stored as ranks.
    random_state : int, default 0
        METIS's seed.

    Returns
    -------
    PartitionedHypergraph

    Examples
    --------
    >>> import tempfile
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2, 3]], n_nodes=5)
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> phg.n_blocks, phg.to_hypergraph().isolated.tolist()
    (3, [False, False, False, False, True])
    """
    from ..hypergraph import Hypergraph

    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"write_partitioned expects a hyperclust.Hypergraph, got "
                        f"{type(hypergraph).__name__}")
    block_size, edge_block_size = _check_sizes(block_size, edge_block_size)
    check_placement(placement)
    ranks = None
    if placement != "ids":
        hypergraph, *ranks = placed(hypergraph, block_size, placement, random_state)
    out = _prepare_out(out_dir, overwrite)
    H, n = hypergraph.incidence, hypergraph.n_nodes
    deg = hypergraph.weighted_degrees
    node_blocks = []
    for b in range(max(1, -(-n // block_size))):
        lo, hi = b * block_size, min(n, (b + 1) * block_size)
        Hb = H[lo:hi]
        Hb.sort_indices()
        name = f"nodes-{b:05d}.npz"
        np.savez(out / name, indptr=Hb.indptr.astype(np.int64),
                 indices=Hb.indices.astype(np.int64), degrees=deg[lo:hi])
        node_blocks.append({"file": name, "start": lo, "stop": hi, "nnz": int(Hb.nnz)})
    feature_info = None
    if hypergraph.features is not None:
        feature_info = _write_features(out, node_blocks,
                                       (hypergraph.features.tocsr() if hasattr(
                                           hypergraph.features, "tocsr") else
                                        hypergraph.features, np.arange(n)))
    _write_edges_and_manifest(out, node_blocks, hypergraph.weights,
                              hypergraph.edge_sizes.astype(np.int64), hypergraph.node_ids,
                              block_size, edge_block_size, [],
                              {"from": "hypergraph", "placement": placement},
                              feature_info, ranks)
    return PartitionedHypergraph(out)
