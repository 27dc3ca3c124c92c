"""Your own data: a file of hyperedges in, a CSV of clusters out.

One hyperedge per line (node names separated by commas), read with
``hyperclust.io.read_hypergraph``; the clusters are written with the node names.
"""

import csv
import tempfile
from pathlib import Path

from hyperclust.cluster import AutoClusterer
from hyperclust.io import read_hypergraph

work = Path(tempfile.mkdtemp())
edges = work / "trips.txt"
edges.write_text("milk,bread,butter\nbread,butter,jam\nmilk,butter\n"
                 "nails,hammer,glue\nhammer,saw\nglue,saw,nails\n")

hg = read_hypergraph(edges)
print(hg, "cleaning:", hg.cleaning)
est = AutoClusterer(2, random_state=0).fit(hg)
print("selected without labels:", est.selected_)

out = work / "clusters.csv"
with open(out, "w", newline="") as fh:
    writer = csv.writer(fh)
    writer.writerow(["node", "cluster"])
    writer.writerows(zip(est.node_ids_.tolist(), est.labels_.tolist()))
print(out.read_text())
groups = {c: {n for n, k in zip(est.node_ids_, est.labels_) if k == c} for c in set(est.labels_)}
assert {"milk", "bread", "butter", "jam"} in groups.values()
