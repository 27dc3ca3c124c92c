"""Where ``auto``'s CPU goes as n grows (issue 32): one ``AutoClusterer(4).fit`` on the
structure-only ``hypergraph_sbm(n, 4, homophily=0.7, n_features=0, random_state=0)`` per
size, its CPU seconds (``process_time``) split by phase: the hold-out splits, each
candidate's fit on each split, the walks, the held-out scoring, the race's standard errors
and the refit of the pick. The phases are timed by wrapping ``auto``'s own calls (no
profiler), so they add up to the fit less Python glue::

    OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/studies/auto_growth_phases.py --sizes 3e4 1e5 3e5
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from collections import defaultdict

from hyperclust.cluster import auto, candidates
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import evaluate


def instrument(cpu):
    """Wrap ``auto``'s phases so that each adds its CPU seconds to ``cpu[phase]``; returns
    the split counter (``[fits so far]``) that names the candidate phases."""
    state = {"round": "split 1"}

    def timed(fn, phase):
        def wrapper(*args, **kwargs):
            c0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                cpu[phase if isinstance(phase, str) else phase()] += time.process_time() - c0
        return wrapper

    for name, phase in (("split_hypergraph", "splitting"), ("heldout_errors", "scoring"),
                        ("paired_standard_errors", "race SEs")):
        setattr(auto, name, timed(getattr(auto, name), phase))
    fit_on = auto.AutoClusterer._fit_on
    rounds = [0]

    def counted_fit_on(self, *args, **kwargs):
        rounds[0] += 1
        state["round"] = f"split {rounds[0]}"
        return fit_on(self, *args, **kwargs)

    auto.AutoClusterer._fit_on = counted_fit_on
    def wrapped(make):
        def made(name, *args, **kwargs):
            est, candidate = make(name, *args, **kwargs)
            est.fit = timed(est.fit, f"{state['round']}: {name}")
            return est, candidate
        return made

    for module in (auto, candidates):  # where the tree looks it up
        if hasattr(module, "make_candidate"):
            module.make_candidate = wrapped(module.make_candidate)
    walks = auto.AutoClusterer._shared_walks

    def shared_walks(self, *args, **kwargs):
        if kwargs.get("key") == "knn-full":
            state["round"] = "refit"
        return timed(walks, "walks")(self, *args, **kwargs)

    auto.AutoClusterer._shared_walks = shared_walks
    return rounds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["3e4", "1e5"])
    args = ap.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"commit {commit} threads OMP={os.environ.get('OMP_NUM_THREADS')} "
          f"HYPERCLUST={os.environ.get('HYPERCLUST_NUM_THREADS')} load {os.getloadavg()}")
    cpu = defaultdict(float)
    rounds = instrument(cpu)
    for size in args.sizes:
        n = int(float(size))
        hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=0, random_state=0)
        cpu.clear()
        rounds[0] = 0
        c0 = time.process_time()
        est = auto.AutoClusterer(4, random_state=0).fit(hg)
        total = time.process_time() - c0
        acc = evaluate(hg.labels, est.labels_)
        print(f"n={n} auto CPU {total:.2f} s picks {est.selected_} splits "
              f"{est.split_fits_} acc {acc['acc']:.4f} nmi {acc['nmi']:.4f} "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
        for phase, s in cpu.items():
            print(f"    {phase:34s} {s:8.2f} s  {100 * s / total:5.1f}%")
        print(f"    {'other':34s} {total - sum(cpu.values()):8.2f} s", flush=True)


if __name__ == "__main__":
    main()
