"""Place an already written partition: renumber its nodes (RCM, METIS) and rewrite its
blocks, where the whole incidence fits memory (docs/distributed.md, "Placement").
"""

from __future__ import annotations

import json

from .partition import write_partitioned
from .partitioned import MANIFEST, PartitionedHypergraph
from .placement import check_placement

__all__ = ["place_partition", "placement_memory", "available_memory", "BYTES_PER_INCIDENCE"]

#: Peak bytes per incidence of reading a partition whole and writing it placed (resident
#: set over the start; ``hypergraph_sbm`` at 2e5 and 1e6 nodes, 4 incidences per node:
#: 180 / 275 / 370 for ids / RCM / METIS, the same at both sizes), rounded up.
BYTES_PER_INCIDENCE = {"ids": 0, "rcm": 300, "metis": 400}


def placement_memory(nnz: int, placement: str) -> int:
    """Estimated peak bytes of :func:`place_partition` on ``nnz`` incidences.

    Examples
    --------
    >>> placement_memory(10**8, "metis") / 1e9
    40.0
    """
    return int(BYTES_PER_INCIDENCE[placement] * nnz)


def available_memory() -> int:
    """Bytes of memory available to this process now (psutil, else free pages).

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    try:
        import psutil
    except ImportError:  # psutil comes with the distributed extra; free pages without it
        import os

        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    return int(psutil.virtual_memory().available)


def place_partition(partitioned, placement: str, random_state: int = 0):
    """Rewrite a partitioned hypergraph with its nodes placed by ``placement``.

    Parameters
    ----------
    partitioned : PartitionedHypergraph or str or PathLike
        Written with the given numbering.
    placement : {"ids", "rcm", "metis"}
        ``"ids"`` leaves it as it is.
    random_state : int, default 0
        METIS's seed.

    Returns
    -------
    PartitionedHypergraph
        The same directory, nodes renumbered, ranks stored, sources and options kept.

    Raises
    ------
    ValueError
        When the estimated peak exceeds the memory available (the partition is left as is).

    Examples
    --------
    >>> import tempfile
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 2], [1, 3]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> phg = place_partition(phg, "rcm")
    >>> phg.node_ids.tolist(), phg.manifest["options"]["placement"]
    ([3, 1, 2, 0], 'rcm')
    """
    phg = partitioned if isinstance(partitioned, PartitionedHypergraph) else \
        PartitionedHypergraph(partitioned)
    check_placement(placement)
    if placement == "ids":
        return phg
    if phg.manifest.get("node_ranks") is not None:
        raise ValueError(f"{phg.path} is already placed "
                         f"({phg.manifest['options'].get('placement')}); place a partition "
                         "written with the given numbering")
    need, have = placement_memory(phg.nnz, placement), available_memory()
    if need > have:
        raise ValueError(f"placement {placement!r} needs the whole incidence in this process "
                          f"(~{need / 1e9:.1f} GB for {phg.nnz:,} incidences, "
                          f"{have / 1e9:.1f} GB available): keep the given numbering "
                          "(placement 'ids') or place it on a machine with more memory")
    old = phg.manifest
    placed_phg = write_partitioned(phg.to_hypergraph(), phg.path, block_size=old["block_size"],
                                   edge_block_size=old["edge_block_size"], overwrite=True,
                                   placement=placement, random_state=random_state)
    manifest = dict(placed_phg.manifest, sources=old["sources"],
                    options={**old["options"], "placement": placement})
    (placed_phg.path / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return PartitionedHypergraph(placed_phg.path)
