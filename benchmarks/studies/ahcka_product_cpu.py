"""CPU of one distributed walk product's phases, in one process, against the single
process's walk product at the same width (no Dask: what the tasks compute, not what the
cluster adds).

Loads a partitioned directory (as ``bench_distributed_cpu.py --keep`` writes it) merged
into ``--workers`` row blocks (one per worker, as ``blocks_per_worker=1``), makes the
pairwise exchange's plans here and times, per product, each worker's phase 1
(``down_pairs``), what it sends (``shared_part``), each block's gathered rows
(``pair_rows``) and its last task (``_up_rows``, no fused step), summed over the
workers; beside them the single process's ``BufferedMixedWalk`` of ``AHCKA.build_walk``
on the same hypergraph (``to_hypergraph``). CPU seconds are ``process_time``, the least of
``--repeats``. The two sum in different orders: the largest difference is printed
(``max_diff``); ``--save`` keeps the distributed products, to compare source trees bit for
bit. Run as ``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/studies/ahcka_product_cpu.py /tmp/s13ahcka/data/ahcka-1000000-4-ids``.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from bench_knn_crossover import _cpu_min as _least


class _Op:
    """What :func:`~hyperclust.distributed.pairwise.plan_pairs` reads of a block operator."""

    def __init__(self, phg, blocks):
        from hyperclust.distributed.operator import _touched

        self.partitioned, self.blocks = phg, blocks
        self.touched = [_touched(b) for b in blocks]
        self._edge_sizes = np.diff(phg.edge_bounds)


def _nbytes(sent):
    """Bytes of what one worker sends: a dict of arrays, or one array."""
    return sum(v.nbytes for v in sent.values()) if isinstance(sent, dict) else sent.nbytes


def distributed_phases(phg, X, repeats):
    """``({phase: CPU s summed over workers}, M X)`` of one product on ``phg``'s blocks."""
    from hyperclust.distributed import pairwise
    from hyperclust.distributed.operator import _load_node, _up_rows

    bounds = phg.block_bounds
    blocks = [_load_node(phg.block_path(b), phg.edge_bounds, "rw", 0.0, False, np.float64)
              for b in range(phg.n_blocks)]
    owners = [f"w{b}" for b in range(phg.n_blocks)]
    groups, plans = pairwise.plan_pairs(_Op(phg, blocks), owners, lambda w, fn, *a: fn(*a))
    Xs = [np.ascontiguousarray(X[bounds[b]:bounds[b + 1]]) for b in range(phg.n_blocks)]
    cpu, down, sent = {}, {}, {}
    for w, bs in groups.items():
        t, down[w] = _least(lambda: pairwise.down_pairs(plans[w], True, False,
                                                        *[blocks[b] for b in bs],
                                                        *[Xs[b] for b in bs]), repeats)
        cpu["down_pairs"] = cpu.get("down_pairs", 0.0) + t
        t, sent[w] = _least(lambda: pairwise.shared_part(down[w], plans[w]), repeats)
        cpu["shared_part"] = cpu.get("shared_part", 0.0) + t
    out = [None] * phg.n_blocks
    for w, bs in groups.items():
        others = [sent[v] for v in sent if v != w]
        for i, b in enumerate(bs):
            t, G = _least(lambda: pairwise.pair_rows(plans[w], i, down[w], others), repeats)
            cpu["pair_rows"] = cpu.get("pair_rows", 0.0) + t
            t, out[b] = _least(lambda: _up_rows(blocks[b], None, G, None, 0.0, None,
                                                plans[w], i), repeats)
            cpu["_up_rows"] = cpu.get("_up_rows", 0.0) + t
    cpu["sent MB"] = sum(_nbytes(s) for s in sent.values()) / 2**20
    return cpu, np.concatenate(out)


def single_product(phg, X, repeats):
    from hyperclust.cluster.ahcka import AHCKA
    from hyperclust.operators.buffered_walk import BufferedMixedWalk

    walk = BufferedMixedWalk(AHCKA(4).build_walk(phg.to_hypergraph()))
    return _least(lambda: walk(X).copy(), repeats)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("path")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--widths", type=int, nargs="+", default=[5, 9])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--save", default=None,
                   help="a .npz file keeping the distributed products (to compare trees)")
    args = p.parse_args(argv)
    from hyperclust.distributed import PartitionedHypergraph

    phg = PartitionedHypergraph(args.path).grouped(args.workers)
    rows, kept = [], {}
    for d in args.widths:
        X = np.random.default_rng(0).normal(size=(phg.n_nodes, d))
        cpu, Y = distributed_phases(phg, X, args.repeats)
        kept[f"width{d}"] = Y
        single, Y1 = single_product(phg, X, args.repeats)
        phases = sum(v for k, v in cpu.items() if k != "sent MB")
        rows.append({"width": d, **cpu, "distributed": phases, "single": single,
                     "ratio": phases / single, "max_diff": float(np.abs(Y - Y1).max())})
        print(json.dumps(rows[-1]), flush=True)
    if args.save:
        np.savez(args.save, **kept)
    return rows


if __name__ == "__main__":
    sys.exit(main() and 0)
