"""``auto`` with the heterophily test (``beta="auto"``) against ``beta=0.5`` and k-means, along
the synthetic homophily sweep (``hypergraph_sbm(2000, 4, n_features=32)``, seeds 0-4).

Usage::

    HYPERCLUST_NUM_THREADS=1 python benchmarks/bench_auto_heterophily.py

Prints a markdown table (mean ± std over seeds; labels only score). Results:
docs/results/auto.md, "Heterophilic hyperedges".
"""

import numpy as np
from hyperclust.datasets import hypergraph_sbm
from hyperclust.cluster.auto import AutoClusterer
from hyperclust.cluster.baselines import KMeansFeatures
from hyperclust.metrics import evaluate
print('| h | t (seed 0) | auto beta="auto" ACC | NMI | beta | auto beta=.5 ACC | NMI | kmeans ACC | NMI |')
print('|---|---|---|---|---|---|---|---|---|')
for h in (0.0,0.1,0.2,0.3,0.45,0.6,0.8):
    r=[]
    for s in range(5):
        hg=hypergraph_sbm(2000,4,homophily=h,n_features=32,feature_snr=0.35,random_state=s)
        a=AutoClusterer(4,random_state=s).fit(hg); b=AutoClusterer(4,beta=0.5,random_state=s).fit(hg)
        km=KMeansFeatures(4,random_state=s).fit(hg)
        ea,eb,ek=[evaluate(hg.labels,x.labels_) for x in (a,b,km)]
        r.append((ea['acc'],ea['nmi'],a.beta_,eb['acc'],eb['nmi'],ek['acc'],ek['nmi'],a.alignment_.t))
    r=np.array(r); f=lambda i: f"{r[:,i].mean():.3f} ± {r[:,i].std(ddof=1):.3f}"
    print(f"| {h} | {r[0,7]:.1f} | {f(0)} | {f(1)} | {','.join(str(x) for x in r[:,2])} | {f(3)} | {f(4)} | {f(5)} | {f(6)} |",flush=True)
