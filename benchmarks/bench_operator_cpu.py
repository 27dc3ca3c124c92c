"""CPU per product of the distributed block operator on an in-process cluster (scheduler,
2 one-thread workers and driver in this one process, so ``process_time`` counts all of
them and nothing is serialized): the exchange's own cost, without the network.

``hypergraph_sbm(n, 4, homophily=0.7)`` written in 4 row blocks and 4 hyperedge partitions,
the random-walk operator ``P`` (AHCKA's) applied ``--products`` times to an ``(n, d)`` block
after one warm-up product (the exchange plan). Prints commit, threads, load average and,
per width, the least and median CPU ms per product over ``--repeats`` runs, with the
single-process operator's (``PropagationOperator``) beside it. Run as
``OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1
PYTHONPATH=src python benchmarks/bench_operator_cpu.py --n 100000 --d 5 12`` (about a
minute idle).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _cpu_per_product(client, path, d, products):
    from hyperclust.distributed.linalg import gather_blocks, scatter_blocks
    from hyperclust.distributed.operator import propagation

    P = propagation(path, client, self_loops=0.0, kind="rw")
    X = scatter_blocks(client, np.random.default_rng(0).standard_normal((P.shape[0], d)),
                       P.bounds)
    gather_blocks(client, P.apply(X))
    t0 = time.process_time()
    Y = X
    for _ in range(products):
        Y = P.apply(Y)
    gather_blocks(client, Y)
    return (time.process_time() - t0) / products


def _bare_per_product(hg, d, products):
    """The single-process operator's CPU per product (the bare kernel)."""
    from hyperclust.operators.propagation import PropagationOperator

    P = PropagationOperator(hg, self_loops=0.0, kind="rw")
    X = np.random.default_rng(0).standard_normal((hg.n_nodes, d))
    t0 = time.process_time()
    for _ in range(products):
        X = P @ X
    return (time.process_time() - t0) / products


def main(argv=None) -> None:
    import distributed

    from _rows import short_commit
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed import write_partitioned

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--d", type=int, nargs="+", default=[5, 12])
    p.add_argument("--products", type=int, default=30)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    print(f"commit {short_commit()}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
          f"load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        hg = hypergraph_sbm(args.n, 4, homophily=0.7, n_features=0, random_state=0)
        path = write_partitioned(hg, tmp, block_size=-(-args.n // 4),
                                 edge_block_size=-(-hg.n_edges // 4), overwrite=True).path
        with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                                dashboard_address=":0") as client:
            for d in args.d:
                runs = [_cpu_per_product(client, path, d, args.products)
                        for _ in range(args.repeats)]
                bare = [_bare_per_product(hg, d, args.products) for _ in range(args.repeats)]
                print(f"d={d}: CPU per product min {1e3 * min(runs):.1f} ms, median "
                      f"{1e3 * float(np.median(runs)):.1f} ms; bare single-process kernel "
                      f"min {1e3 * min(bare):.1f} ms, median {1e3 * float(np.median(bare)):.1f} "
                      f"ms ({args.repeats} runs, {args.products} products each), "
                      f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
