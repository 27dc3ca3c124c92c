"""One ``AutoClusterer`` fit on a 10^6-node attributed hypergraph SBM (32 features): total
time, each candidate's time and the shared kNN search, peak RSS. One run (it takes ~10 min).

Usage::

    python benchmarks/bench_auto_1e6.py
"""

import time, resource, subprocess
from hyperclust.datasets import hypergraph_sbm
from hyperclust.cluster.auto import AutoClusterer
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
print("commit", commit, "load", open('/proc/loadavg').read().split()[:3], flush=True)
hg = hypergraph_sbm(1_000_000, 4, homophily=0.7, n_features=32, random_state=0)
t = time.perf_counter()
est = AutoClusterer(4, random_state=0).fit(hg)
print("auto with 32 attributes at 1e6:", round(time.perf_counter() - t, 1), "s",
      {k: round(v, 1) for k, v in est.fit_times_.items()}, "selected", est.selected_,
      "peak RSS MiB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
      "load", open('/proc/loadavg').read().split()[:3], flush=True)
