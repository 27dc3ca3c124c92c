"""PyG: a ``HyperGraphData`` with node features, clustered directly, then the converted data
goes through PyG's ``HypergraphConv`` as it comes (float32) with the clusters attached.
"""

import numpy as np
import torch
from torch_geometric.data.hypergraph_data import HyperGraphData
from torch_geometric.nn import HypergraphConv

from hyperclust.cluster import HGNNSmoothingKMeans
from hyperclust.convert import from_any, to_pyg
from hyperclust.metrics import evaluate
from hyperclust.datasets import hypergraph_sbm

planted = hypergraph_sbm(300, 3, homophily=0.85, n_features=16, random_state=0)
Ht = planted.incidence_t.tocoo()
data = HyperGraphData(x=torch.tensor(planted.features, dtype=torch.float32),
                      edge_index=torch.from_numpy(np.vstack([Ht.col, Ht.row]).astype(np.int64)))

est = HGNNSmoothingKMeans(3, random_state=0).fit(data)
print("against the planted classes:", evaluate(planted.labels, est.labels_))

out = to_pyg(from_any(data), clusters=est)
h = HypergraphConv(16, 8)(out.x, out.edge_index, out.hyperedge_weight)
print("HypergraphConv output:", tuple(h.shape), h.dtype, "clusters:", out.cluster[:10].tolist())
assert h.dtype == torch.float32 and out.cluster.shape == (300,)
