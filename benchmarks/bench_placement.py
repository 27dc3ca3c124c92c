"""How many hyperedges row blocks cut, and each block's halo, for the node placements of
:mod:`hyperclust.distributed.placement` (``ids``: the given order; ``rcm``; ``metis``).

Per data set and placement: the share of hyperedges with members in several blocks, the
touched hyperedge rows per hyperedge (``sum_b |E_b| / m``: the block operator moves
``16 d`` bytes per touched row per product), the mean / largest per-block halo (cut
hyperedges a block touches, as a share of ``m``; nodes of other blocks sharing a
hyperedge with it, as a share of ``n``), the (block, hyperedge partition) pairs that
exchange (one task each per product), the largest block's incidences over the mean and
the CPU seconds the placement took (one run; CPU time holds under load, wall time does
not). Deterministic (METIS seed 0).

Run as ``OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/bench_placement.py
--data hsbm:100000 hsbm:1000000 cora-ca pubmed-cc --blocks 10``; writes ``--out`` +
``.json`` / ``.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def load(name: str):
    if name.startswith("hsbm:"):
        from hyperclust.datasets import hypergraph_sbm

        return hypergraph_sbm(int(name[5:]), 4, homophily=0.7, n_features=0, random_state=0)
    from _datasets import load as load_shared

    return load_shared(name)


def measure(hg, name: str, n_blocks: int, method: str) -> dict:
    from hyperclust.distributed.placement import cut_statistics, placement_order

    size = -(-hg.n_nodes // n_blocks)
    t0 = time.process_time()
    nodes, _ = placement_order(hg.incidence, size, method)
    cpu = time.process_time() - t0
    bounds = np.minimum(np.arange(n_blocks + 1) * size, hg.n_nodes)
    stats = cut_statistics(hg.incidence[nodes], bounds)
    return {"data": name, "n": hg.n_nodes, "m": hg.n_edges, "nnz": int(hg.incidence.nnz),
            "blocks": n_blocks, "placement": method, "placement_cpu_s": cpu, **stats}


def _table(rows) -> str:
    head = ("| data | nodes | hyperedges | blocks | placement | hyperedges cut | touched rows "
            "per hyperedge | halo hyperedges per block mean / max | halo nodes per block "
            "mean / max | exchanging (block, partition) pairs | largest block nnz / mean | "
            "placement CPU s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    return head + "".join(
        f"| {r['data']} | {r['n']:,} | {r['m']:,} | {r['blocks']} | {r['placement']} | "
        f"{r['cut_share']:.1%} | {r['touched_per_edge']:.2f} | {r['halo_edges_mean']:.1%} / "
        f"{r['halo_edges_max']:.1%} | {r['halo_nodes_mean']:.1%} / {r['halo_nodes_max']:.1%} "
        f"| {r['block_pairs']} | {r['nnz_imbalance']:.2f} | {r['placement_cpu_s']:.2f} |\n"
        for r in rows)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", nargs="+", default=["hsbm:100000", "cora-ca", "pubmed-cc"])
    p.add_argument("--blocks", type=int, nargs="+", default=[10])
    p.add_argument("--placements", nargs="+", default=["ids", "rcm", "metis"])
    p.add_argument("--out", default="docs/results/distributed_placement")
    args = p.parse_args(argv)
    from _rows import short_commit, write_rows

    commit = short_commit()
    rows = []
    for name in args.data:
        hg = load(name)
        for n_blocks in args.blocks:
            for method in args.placements:
                rows.append({**measure(hg, name, n_blocks, method), "commit": commit})
                print(_table(rows[-1:]).splitlines()[-1], flush=True)
    write_rows(args.out, rows, f"Commit {commit}; `python benchmarks/bench_placement.py "
               f"{' '.join(argv or sys.argv[1:])}`; counts are exact, CPU seconds one run on "
               "a shared machine.", _table(rows))


if __name__ == "__main__":
    main()
