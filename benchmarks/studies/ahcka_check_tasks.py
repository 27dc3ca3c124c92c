"""Where a distributed AHCKA fit's tasks and driver waits go: tasks submitted per part of
the fit (the iteration's products and TSQR, the check's row norms, greedy rotation,
refinements, labels, and its walk's start and score), the driver's waits (``gather``,
``who_has``) in the checks and elsewhere, and the longest chain of dependent tasks a
check's discretisation adds (each link a scheduler round trip; a driver wait links what it
read to what the driver submits next).

Counts only (exact, load-free): a 2-worker in-process ``LocalCluster`` (one thread each),
``Client.submit`` and the waits wrapped. ``--save`` keeps labels, objective history,
iterations, best iteration and objective (``np.savez``) to compare two source trees
(``--compare A.npz B.npz``: ``np.array_equal`` on each). Run with the tree to count on
``PYTHONPATH``, e.g. ``PYTHONPATH=src python benchmarks/studies/ahcka_check_tasks.py
--data cora-ca``, ``--data hsbm:100000``.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile

import numpy as np

#: Task functions by part of the fit (the names of the trees before and after issue 33's
#: fusion); the rest is the iteration (products, TSQR) and the set-up.
PARTS = {
    "norms": ("_largest_row_norm", "_leading_normalized", "_normalized_with_firsts"),
    "greedy": ("_first_rows", "_start_row", "_accumulate", "_minimum", "_first_near",
               "_first_found", "_rotation", "_greedy_step", "_summary_of"),
    "refine": ("_discrete_stats", "_refine", "_refine_pass", "_advance"),
    "labels": ("_discrete_labels",),
    "walk": ("bincount", "_counts", "_cluster_columns", "_stack", "_trace_part",
             "_finished_trace", "_objective", "_leading", "_walk_columns"),
}


def _part(name):
    return next((p for p, names in PARTS.items() if name in names), "iteration")


def _futures(args):
    from distributed import Future

    for a in args:
        if isinstance(a, Future):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from _futures(a)
        elif isinstance(a, dict):
            yield from _futures(list(a.values()))


def load(data: str):
    if data.startswith("hsbm:"):
        from hyperclust.datasets import hypergraph_sbm

        return hypergraph_sbm(int(data[5:]), 4, homophily=0.7, n_features=0, random_state=0), 4
    from hyperclust.datasets import resolve_dataset

    hg = resolve_dataset(data, os.environ.get("HYPERCLUST_DATA", "/work/shared/data"))
    return hg, int(hg.n_classes)


def count(data: str, block_size: int) -> dict:
    import distributed

    import hyperclust.distributed.ahcka as mod
    from hyperclust.distributed import DistributedAHCKA, write_partitioned

    hg, k = load(data)
    tasks, depth, waits = collections.Counter(), {}, collections.Counter()
    state = {"phase": "set-up", "chain": [], "floor": 0, "deepest": 0}
    submit, gather, who_has = (distributed.Client.submit, distributed.Client.gather,
                               distributed.Client.who_has)

    def counted_submit(self, fn, *args, **kw):
        f = submit(self, fn, *args, **kw)
        name = getattr(fn, "__name__", str(fn))
        tasks[_part(name), name] += 1
        depth[f.key] = 1 + max([state["floor"], *(depth.get(a.key, 0) for a in _futures(args))])
        state["deepest"] = max(state["deepest"], depth[f.key])
        return f

    def counted_gather(self, futures, *a, **kw):
        waits[state["phase"]] += 1
        if state["phase"] == "check":  # what the driver submits next waits on these
            state["floor"] = max([state["floor"], *(depth.get(f.key, 0) for f in
                                                    _futures([futures]))])
        return gather(self, futures, *a, **kw)

    def counted_who_has(self, *a, **kw):
        waits[state["phase"]] += 1
        return who_has(self, *a, **kw)

    discretize = mod.discretize_blocks

    def counted_discretize(client, q, *a, **kw):
        state["phase"] = "check"
        start = state["floor"] = state["deepest"] = max(depth.get(f.key, 0) for f in q)
        out = discretize(client, q, *a, **kw)
        state["chain"].append(state["deepest"] - start)
        state["phase"], state["floor"] = "iteration", 0
        return out

    distributed.Client.submit, distributed.Client.gather = counted_submit, counted_gather
    distributed.Client.who_has, mod.discretize_blocks = counted_who_has, counted_discretize
    try:
        with tempfile.TemporaryDirectory() as tmp, \
                distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                         dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            phg = write_partitioned(hg, tmp, block_size=block_size)
            tasks.clear()
            waits.clear()
            state["phase"] = "iteration"
            est = DistributedAHCKA(k, client=client, random_state=0).fit(phg)
    finally:
        distributed.Client.submit, distributed.Client.gather = submit, gather
        distributed.Client.who_has, mod.discretize_blocks = who_has, discretize
    return {"est": est, "tasks": tasks, "waits": waits, "chain": state["chain"], "k": k}


def report(data, out) -> None:
    est, tasks = out["est"], out["tasks"]
    checks = len(est.objective_history_)
    by_part = collections.Counter()
    for (part, _), v in tasks.items():
        by_part[part] += v
    total = sum(by_part.values())
    print(f"{data}: k {out['k']}, blocks {est.n_blocks_}, iterations {est.n_iter_}, "
          f"checks {checks}, tasks {total} ({total / max(est.n_iter_, 1):.1f} per iteration)")
    for part, v in sorted(by_part.items(), key=lambda kv: -kv[1]):
        print(f"  {part:10s} {v:6d} tasks  {v / max(checks, 1):7.1f} per check")
    w = out["waits"]
    print(f"  driver waits: checks {w['check']} ({w['check'] / max(checks, 1):.1f} per check), "
          f"other {w['iteration']}")
    chain = out["chain"]
    print(f"  chain of dependent tasks (driver waits as links) a discretisation adds: "
          f"min {min(chain)}, "
          f"max {max(chain)}")
    print("  by function: " + ", ".join(f"{n} {v}" for (_, n), v in
                                         sorted(tasks.items(), key=lambda kv: -kv[1])))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="cora-ca", help="a shared set's name or hsbm:N")
    p.add_argument("--block-size", type=int, default=None,
                   help="nodes per stored block (default: n / 4)")
    p.add_argument("--save", default=None)
    p.add_argument("--compare", nargs=2, default=None)
    args = p.parse_args()
    if args.compare:
        a, b = (np.load(f) for f in args.compare)
        same = {key: bool(np.array_equal(a[key], b[key])) for key in a.files}
        print(same, "bit-identical" if all(same.values()) else "DIFFER")
        sys.exit(0 if all(same.values()) else 1)
    hg, _ = load(args.data)
    out = count(args.data, args.block_size or -(-hg.n_nodes // 4))
    report(args.data, out)
    if args.save:
        est = out["est"]
        np.savez(args.save, labels=est.labels_, history=np.array(est.objective_history_),
                 n_iter=est.n_iter_, best_iter=est.best_iter_, objective=est.objective_)


if __name__ == "__main__":
    main()
