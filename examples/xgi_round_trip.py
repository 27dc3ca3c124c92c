"""XGI in, XGI out: fit on an ``xgi.Hypergraph`` directly, write the clusters back as an XGI
node attribute, and save it all as HIF with XGI's own writer.
"""

import tempfile
from pathlib import Path

import xgi

from hyperclust.cluster import SpectralHypergraphClustering
from hyperclust.convert import from_any, to_xgi

H = xgi.Hypergraph({"e1": ["ana", "bo", "cy"], "e2": ["bo", "cy"], "e3": ["ana", "cy"],
                    "e4": ["di", "eve", "fy"], "e5": ["eve", "fy"], "e6": ["di", "fy"],
                    "e7": ["cy", "di"]})
H.set_edge_attributes({"e7": 0.2}, name="weight")   # a weak link between the two groups

est = SpectralHypergraphClustering(2, random_state=0).fit(H)   # no conversion needed
H2 = to_xgi(from_any(H), clusters=est)
print(H2.nodes.attrs("cluster").asdict())

path = Path(tempfile.mkdtemp()) / "clustered.json"
xgi.write_hif(H2, path)
back = xgi.read_hif(path)
assert back.nodes.attrs("cluster").asdict() == H2.nodes.attrs("cluster").asdict()
assert back.edges.attrs("weight").asdict()["e7"] == 0.2
print("wrote", path)
